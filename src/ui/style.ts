/**
 * The one stylesheet of every signed-in page (the portal's and the
 * domains'), kept as a string so `bun build --compile` carries it inside
 * the binary. The portal serves it at /assets/portal.css with a content
 * hash in the link, so browsers cache it for good. The UI kit's components
 * (src/ui) are named after the classes here; new pages use those
 * components rather than new classes, so every page keeps one look.
 */
import { createHash } from "node:crypto";

export const PORTAL_CSS = `
:root{--bg:#f6f7f9;--card:#fff;--text:#1c2330;--muted:#5b6576;--line:#dde1e7;--accent:#2f5bd3;--accent-text:#fff;--danger:#b42318;--ok:#067647;--warn:#b54708;--code:#eef1f5;color-scheme:light dark}
@media (prefers-color-scheme:dark){:root{--bg:#12151b;--card:#1b2029;--text:#e6e9ef;--muted:#9aa4b5;--line:#2c3340;--accent:#7c9cff;--accent-text:#0d1320;--danger:#ff8a7f;--ok:#5fd39a;--warn:#f5b45c;--code:#262d39}}
*{box-sizing:border-box}
html{-webkit-text-size-adjust:100%}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:var(--bg);color:var(--text)}
a{color:var(--accent)}
header.top{background:var(--card);border-bottom:1px solid var(--line)}
header.top .bar{max-width:980px;margin:0 auto;padding:.6rem 1rem;display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:center}
.brand{font-weight:700;font-size:1.1rem;text-decoration:none;color:var(--text);margin-right:auto}
nav.main{max-width:980px;margin:0 auto;padding:0 1rem .4rem;display:flex;flex-wrap:wrap;gap:.2rem .9rem}
nav.main a{text-decoration:none;color:var(--muted);padding:.2rem 0;border-bottom:2px solid transparent}
nav.main a[aria-current=page]{color:var(--text);border-color:var(--accent)}
nav.main .nav-settings{display:flex;flex-wrap:wrap;gap:.2rem .9rem;padding-left:.9rem;border-left:1px solid var(--line)}
nav.main .nav-settings a{font-size:.92em}
main{max-width:980px;margin:1.2rem auto 3rem;padding:0 1rem}
main.narrow{max-width:560px}
h1{font-size:1.45rem;margin:.2rem 0 1rem}
h2{font-size:1.1rem;margin:1.6rem 0 .6rem}
p.lead{color:var(--muted);margin-top:-.6rem}
.card{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem 1.1rem;margin:0 0 1rem}
.muted{color:var(--muted)}
.small{font-size:.87rem}
label{display:block;font-weight:600;margin:.7rem 0 .25rem}
label.inline{display:inline-flex;gap:.35rem;align-items:center;font-weight:400;margin:.15rem .8rem .15rem 0}
input[type=text],input[type=email],input[type=password],input[type=date],input[type=number],select,textarea{width:100%;max-width:100%;padding:.5rem .6rem;border:1px solid var(--line);border-radius:7px;background:var(--bg);color:var(--text);font:inherit}
input:focus,select:focus,button:focus,a:focus{outline:2px solid var(--accent);outline-offset:1px}
button,.button{display:inline-block;padding:.5rem .95rem;border-radius:7px;border:1px solid var(--accent);background:var(--accent);color:var(--accent-text);font:inherit;font-weight:600;cursor:pointer;text-decoration:none}
button.secondary,.button.secondary{background:transparent;color:var(--accent)}
button.danger{background:transparent;border-color:var(--danger);color:var(--danger)}
button.link{background:none;border:0;padding:0;color:var(--accent);font-weight:400;text-decoration:underline}
.actions{display:flex;flex-wrap:wrap;gap:.6rem;margin-top:1rem;align-items:center}
form.inline{display:inline}
[hidden]{display:none!important}
table{width:100%;border-collapse:collapse}
th,td{text-align:left;padding:.5rem .45rem;border-bottom:1px solid var(--line);vertical-align:top}
th{font-size:.82rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted)}
.scroll{overflow-x:auto}
code,.secret{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:var(--code);border-radius:5px;padding:.1rem .3rem;font-size:.88em;word-break:break-all}
.secret{display:block;padding:.7rem;font-size:.95rem;user-select:all}
.notice{border-left:4px solid var(--accent);padding:.7rem .9rem;background:var(--card);border-radius:6px;margin:0 0 1rem}
.notice.error{border-color:var(--danger)}
.notice.ok{border-color:var(--ok)}
.notice.warn{border-color:var(--warn)}
.badge{display:inline-block;font-size:.76rem;padding:.05rem .45rem;border-radius:99px;border:1px solid var(--line);color:var(--muted);white-space:nowrap}
.badge.ok{color:var(--ok);border-color:var(--ok)}
.badge.danger{color:var(--danger);border-color:var(--danger)}
.badge.warn{color:var(--warn);border-color:var(--warn)}
.badge.unread{color:var(--accent-text);background:var(--accent);border-color:var(--accent)}
.note{padding:.6rem 0;border-top:1px solid var(--line)}
.note:first-child{border-top:0}
.note.new .note-title{font-weight:600}
.note-title{margin:0}
.note .actions{margin-top:.3rem;display:flex;flex-wrap:wrap;gap:.4rem}
ul.plain{list-style:none;padding:0;margin:0}
.tabs{display:flex;gap:1rem;flex-wrap:wrap;margin:.5rem 0 1rem}
.tabs a[aria-current=page]{color:var(--text);font-weight:600;text-decoration:none}
fieldset{border:0;padding:0;margin:.7rem 0 0;min-width:0}
fieldset.card{border:1px solid var(--line);padding:1rem 1.1rem;margin:0 0 1rem}
legend{font-weight:600;padding:0;margin:0 0 .25rem}
fieldset.card>legend{float:left;width:100%;font-size:1.1rem}
fieldset.listing>label.inline{display:flex;margin:.2rem 0}
fieldset.listing .toolsets label.inline{display:inline-flex}
td details[open]>form{min-width:24rem}
p.summary{font-size:1.05rem}
.scopes{display:grid;grid-template-columns:1fr;gap:.1rem}
.scopes .row{display:flex;flex-wrap:wrap;align-items:baseline;gap:.1rem .6rem;padding:.45rem 0;margin:0;border-bottom:1px solid var(--line)}
.scopes .row:last-child{border-bottom:0}
.scopes .area legend{float:left;min-width:8.5rem;margin:0}
.scopes .area .what{flex:1 1 240px}
.scopes .area .levels{display:flex;flex-wrap:wrap}
.scopes .full-access .notice{margin:.3rem 0 0;width:100%}
.switcher{display:flex;gap:.4rem;align-items:center}
.switcher select,.switcher input{width:auto;padding:.3rem .4rem}
.switcher button,.signout button{padding:.3rem .7rem}
.preview{border:1px dashed var(--line);border-radius:8px;padding:.7rem;background:var(--bg);max-height:22rem;overflow:auto}
.client{display:flex;gap:.8rem;align-items:center}
.client .mark{width:2.6rem;height:2.6rem;border-radius:9px;background:var(--accent);color:var(--accent-text);display:grid;place-items:center;font-weight:700;font-size:1.2rem;flex:none}
ol.thread{list-style:none;padding:0;margin:0;display:flex;flex-direction:column;gap:.55rem}
.msg{max-width:78%;padding:.5rem .75rem;border-radius:10px;border:1px solid var(--line);background:var(--bg)}
.msg.agent{align-self:flex-end;background:var(--card);border-color:var(--accent)}
.msg.note{align-self:flex-end;background:var(--code);border-style:dashed;border-color:var(--warn)}
.msg .who{margin:0;font-size:.8rem;color:var(--muted)}
.msg p.body{margin:.2rem 0 0;white-space:pre-wrap;overflow-wrap:anywhere}
tr.fresh td{font-weight:600}
.live{min-height:1.2rem}
main.wide{max-width:1320px}
th[scope=row]{text-transform:none;letter-spacing:0;font-size:inherit;color:var(--text);font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums}
.crumbs{margin:0 0 .3rem;color:var(--muted)}
.crumbs a{color:var(--muted)}
.board{display:flex;gap:.8rem;overflow-x:auto;align-items:flex-start;padding:.2rem 0 .8rem}
.column{flex:1 0 12.5rem;max-width:21rem;background:var(--code);border:1px solid var(--line);border-radius:10px;padding:.65rem}
.column.over{border:2px solid var(--danger)}
.column-head{display:flex;align-items:center;justify-content:space-between;gap:.5rem}
.column-head h2{margin:0;font-size:.95rem}
.column-points{margin:.1rem 0 0}
.column .empty{margin:.6rem 0 .2rem}
ol.cards{list-style:none;padding:0;margin:.6rem 0 0;display:flex;flex-direction:column;gap:.5rem}
.kcard{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:.55rem .65rem;box-shadow:0 1px 2px #0000000f}
.kcard p{margin:0}
.kcard-top{display:flex;justify-content:space-between;align-items:center;gap:.4rem;font-size:.82rem}
.kcard-key{font-weight:600;text-decoration:none}
p.kcard-title{margin:.2rem 0;overflow-wrap:anywhere;font-weight:500;line-height:1.35}
.kcard-meta{display:flex;flex-wrap:wrap;gap:.25rem .35rem;align-items:center;color:var(--muted)}
.assignee{margin-left:auto}
form.move{display:flex;gap:.35rem;margin-top:.45rem}
form.move select{padding:.25rem .35rem;font-size:.85rem;flex:1;min-width:0;width:auto}
form.move button{padding:.25rem .6rem;font-size:.85rem}
form.deal-move{flex-wrap:wrap}
form.deal-move input{flex:1 1 100%;order:1;padding:.25rem .35rem;font-size:.85rem}
details.card>summary{cursor:pointer;font-weight:600}
.grid-form{display:grid;grid-template-columns:repeat(auto-fit,minmax(12rem,1fr));gap:0 1rem}
.grid-form .wide-field{grid-column:1/-1}
.card-layout{display:grid;grid-template-columns:minmax(0,1fr) 17rem;gap:1rem;align-items:start}
.card-layout h2{margin-top:0}
.card-side h2.small-h{font-size:.8rem;text-transform:uppercase;letter-spacing:.03em;color:var(--muted);margin:1.1rem 0 .4rem}
dl.facts{display:grid;grid-template-columns:auto 1fr;gap:.35rem .8rem;margin:0}
dl.facts dt{color:var(--muted);font-size:.87rem}
dl.facts dd{margin:0;overflow-wrap:anywhere}
.prose{white-space:pre-wrap;overflow-wrap:anywhere;margin:.2rem 0}
.checklist li{padding:.2rem 0}
.checklist li.done .item-text{text-decoration:line-through;color:var(--muted)}
.inline-row{display:flex;gap:.5rem;align-items:baseline}
.inline-row button.link{text-decoration:none;font-size:1.1rem;line-height:1}
.visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
.stats{display:grid;grid-template-columns:repeat(auto-fit,minmax(9rem,1fr));gap:.8rem;margin:0 0 1rem}
.stat{background:var(--card);border:1px solid var(--line);border-radius:10px;padding:.7rem .9rem;margin:0}
.stat-n{display:block;font-size:1.5rem;font-weight:700;line-height:1.2}
figure.chart{margin:0 0 1rem;background:var(--card);border:1px solid var(--line);border-radius:10px;padding:1rem}
figure.chart figcaption{font-weight:600;margin-bottom:.6rem}
.chart-body{display:grid;grid-template-columns:minmax(0,1fr) max-content;gap:1rem;align-items:start}
.chart-table{font-size:.87rem;max-height:22rem;overflow:auto}
.chart-table th,.chart-table td{padding:.35rem .5rem}
.chart-table td,.chart-table thead th{white-space:nowrap}
.chart-table th[scope=row]{min-width:6.5rem;max-width:13rem;overflow-wrap:anywhere}
.chart-svg svg{width:100%;height:auto;display:block}
.chart-body .card{margin:0;padding:.2rem .5rem}
.weeknav{display:flex;gap:1rem;flex-wrap:wrap;margin:0 0 1rem}
table.sheet thead th:not(:first-child){text-align:right}
table.sheet th .small{font-weight:400}
tr.totals th,tr.totals td{border-top:2px solid var(--line);border-bottom:0}
@media (max-width:800px){.card-layout,.chart-body{grid-template-columns:1fr}}
@media (max-width:600px){.chart-table th,.chart-table td{padding:.3rem .35rem}.chart-table th[scope=row]{min-width:0;overflow-wrap:normal}.board{flex-direction:column;overflow-x:visible;align-items:stretch}.column{flex:auto;max-width:none}}
@media (max-width:600px){nav.main{flex-wrap:nowrap;overflow-x:auto;white-space:nowrap;scrollbar-width:thin;padding-bottom:.5rem}nav.main .nav-settings{flex-wrap:nowrap}.switcher{flex-wrap:wrap;min-width:0;max-width:100%}.switcher select{max-width:calc(100vw - 10rem)}}
@media (max-width:600px){body{font-size:16px}th.hide-sm,td.hide-sm{display:none}main{margin-top:.8rem}}
`;

export const PORTAL_CSS_HASH = createHash("sha256").update(PORTAL_CSS).digest("hex").slice(0, 12);
export const PORTAL_CSS_PATH = `/assets/portal.css`;
