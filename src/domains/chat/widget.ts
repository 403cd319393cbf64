/**
 * The widget a site embeds:
 *
 *   <script src="https://plinth.example/chat/widget.js" data-inbox="ci_…" async></script>
 *
 * widget.js is a loader of about a kilobyte: it adds one iframe
 * (/chat/frame/<key>) in the page's corner and resizes it when the frame
 * says open or close (postMessage, checked for the frame's origin and
 * window). Everything else runs inside the frame, on this service's origin:
 * the page's own styles and scripts cannot reach the conversation, the
 * visitor token lives in the frame's storage, the frame talks only to this
 * service (CSP connect-src 'self'; no fonts, images or scripts from
 * anywhere else), and the browser refuses to show the frame on a site that
 * is not an allowed origin (CSP frame-ancestors).
 *
 * The frame's colours, font and corner radius come from the site's branding
 * (src/domains/branding); every message is put on the page with
 * textContent, never as HTML. The visitor attaches files with the send
 * form's file input: the script posts them as multipart with the visitor
 * token (public-pages.ts /files); a refusal (a type the bytes contradict,
 * a file over the limit) shows under the thread as the server worded it,
 * and each file in the thread is a download link named by textContent. When an agent resolves the visitor's
 * conversation the frame says so under the thread (and what writing again
 * does), from the stream's status events.
 */
import { escapeHtml } from "../../core/public-page";
import { cssVarsFor } from "../branding/css-vars";
import type { Branding } from "../branding/public-reads";

export const WIDGET_KEY_RE = /^ci_[0-9a-f]{24}$/;

export const LOADER_JS = `(function(){var s=document.currentScript;if(!s)return;var k=s.getAttribute("data-inbox")||"";if(!/^ci_[0-9a-f]{24}$/.test(k))return;
var o=new URL(s.src).origin,w=window,g=w.__plinthChat=w.__plinthChat||{};if(g[k])return;g[k]=1;
function go(){var f=document.createElement("iframe");f.src=o+"/chat/frame/"+k+"?page="+encodeURIComponent(location.href.slice(0,900));f.title="Chat";
var c="position:fixed;bottom:12px;right:12px;border:0;z-index:2147483000;background:transparent;color-scheme:normal;";
function size(open){f.style.cssText=c+(open?"width:min(380px,calc(100vw - 24px));height:min(580px,calc(100vh - 24px))":"width:76px;height:76px");}
size(false);document.body.appendChild(f);
w.addEventListener("message",function(e){if(e.origin!==o||e.source!==f.contentWindow||!e.data)return;var d=e.data.plinthChat;if(d==="open")size(true);else if(d==="close")size(false);});}
if(document.body)go();else document.addEventListener("DOMContentLoaded",go);})();
`;

/**
 * The frame's script: state in closure, messages rendered with textContent, one stream with resume after a drop.
 * The status line follows the visitor's current conversation (`cur`, its number): the stream's `event: status`, the
 * thread's `status` at load, and the visitor's own post (the server just decided: the conversation they wrote to is
 * open). While resolved it says what writing again does, by the server's rule (`reopensFor` seconds reopen it, then a
 * message starts a new one); the text is the frame's own, never anything the server sent.
 */
const FRAME_JS = `(function(){var d=document,cfg=JSON.parse(d.getElementById("cfg").textContent),K="plinth_chat_"+cfg.key,api="/chat/api/"+cfg.key;
var tok=null;try{tok=localStorage.getItem(K);}catch(e){}
var seen={},last=0,cur=0,stT=0,streaming=false,list=d.getElementById("msgs"),st=d.getElementById("state"),form=d.getElementById("send"),ta=d.getElementById("body"),fi=d.getElementById("file"),err=d.getElementById("err");
function hdr(j){var h={};if(j)h["Content-Type"]="application/json";if(tok)h.Authorization="Bearer "+tok;return h;}
function show(m){if(seen[m.id])return;seen[m.id]=1;if(m.id>last)last=m.id;var li=d.createElement("li");li.className="m "+(m.from==="visitor"?"me":"them");li.setAttribute("data-id",m.id);
if(m.from!=="visitor"&&m.author){var b=d.createElement("b");b.textContent=m.author;li.appendChild(b);}var p=d.createElement("p");p.textContent=m.body;li.appendChild(p);
(m.files||[]).forEach(function(f){var a=d.createElement("a");a.className="file";a.href=f.url;a.setAttribute("download","");a.rel="noopener noreferrer";a.textContent=f.name+" ("+(f.size<1024?f.size+" B":Math.ceil(f.size/1024)+" KB")+")";li.appendChild(a);});
var kids=list.children,i=kids.length;while(i>0&&+kids[i-1].getAttribute("data-id")>m.id)i--;list.insertBefore(li,kids[i]||null);list.scrollTop=list.scrollHeight;}
function fail(t){err.textContent=t||"";}
function resolvedLine(isNew){st.textContent="This conversation was marked resolved. Write again to "+(isNew?"start a new one.":"reopen it.");}
function status(s){if(!s||typeof s.conversation!=="number"||s.conversation<cur)return;cur=s.conversation;clearTimeout(stT);
if(s.status!=="resolved"){st.hidden=true;st.textContent="";return;}var n=+s.reopensFor||0;resolvedLine(n<=0);st.hidden=false;list.scrollTop=list.scrollHeight;
if(n>0)stT=setTimeout(function(){resolvedLine(true);},Math.min(n,864000)*1000);}
function stream(){if(!tok||streaming)return;streaming=true;fetch(api+"/stream?status=1&after="+last,{headers:hdr(false),cache:"no-store"}).then(function(r){if(!r.ok||!r.body)throw 0;var rd=r.body.getReader(),dec=new TextDecoder(),buf="";
function pump(){return rd.read().then(function(x){if(x.done)throw 0;buf+=dec.decode(x.value,{stream:true});var i;while((i=buf.indexOf("\\n\\n"))>=0){var ev=buf.slice(0,i),t="message",dt=null;buf=buf.slice(i+2);ev.split("\\n").forEach(function(l){if(l.indexOf("event: ")===0)t=l.slice(7);else if(l.indexOf("data: ")===0)dt=l.slice(6);});
if(dt!==null){try{var o=JSON.parse(dt);if(t==="status")status(o);else if(t==="message")show(o);}catch(e){}}}return pump();});}return pump();})
.catch(function(){}).then(function(){streaming=false;setTimeout(stream,1500);});}
function load(){if(!tok)return;fetch(api+"/messages",{headers:hdr(false),cache:"no-store"}).then(function(r){if(r.status===401){tok=null;try{localStorage.removeItem(K);}catch(e){}return null;}return r.json();}).then(function(j){if(j&&j.messages)j.messages.forEach(show);if(j)status(j.status);stream();}).catch(function(){stream();});}
form.addEventListener("submit",function(e){e.preventDefault();var t=ta.value,fs=fi.files&&fi.files.length?fi.files:null;if(!t.trim()&&!fs)return;fail("");var btn=form.querySelector("button");btn.disabled=true;var req;
if(fs){var fd=new FormData();for(var k=0;k<fs.length;k++)fd.append("file",fs[k]);if(t.trim())fd.append("body",t);req=fetch(api+"/files",{method:"POST",headers:hdr(false),body:fd});}
else req=fetch(api+"/messages",{method:"POST",headers:hdr(true),body:JSON.stringify({body:t,pageUrl:cfg.page})});req.then(function(r){return r.json().then(function(j){return[r,j];});}).then(function(x){var r=x[0],j=x[1];
if(!r.ok){fail(j&&j.error?j.error:"Could not send. Try again.");return;}if(j.token){tok=j.token;try{localStorage.setItem(K,tok);}catch(e){}}ta.value="";fi.value="";show(j.message);status({conversation:j.conversation,status:"open"});stream();})
.catch(function(){fail("Could not send. Check your connection.");}).then(function(){btn.disabled=false;ta.focus();});});
ta.addEventListener("keydown",function(e){if(e.key==="Enter"&&!e.shiftKey){e.preventDefault();form.requestSubmit();}});
var mail=d.getElementById("mail");mail.addEventListener("submit",function(e){e.preventDefault();var em=d.getElementById("email").value;if(!tok){fail("Send a message first.");return;}
fetch(api+"/profile",{method:"POST",headers:hdr(true),body:JSON.stringify({email:em})}).then(function(r){if(!r.ok)return r.json().then(function(j){throw j.error;});return fetch(api+"/transcript",{method:"POST",headers:hdr(true),body:"{}"});})
.then(function(r){return r.json().then(function(j){if(!r.ok)throw j.error;fail("Transcript sent to "+j.to+".");});}).catch(function(m){fail(typeof m==="string"?m:"Could not send the transcript.");});});
var root=d.getElementById("w");function setOpen(o){root.className=o?"open":"";parent.postMessage({plinthChat:o?"open":"close"},"*");if(o){ta.focus();list.scrollTop=list.scrollHeight;}}
d.getElementById("launch").addEventListener("click",function(){setOpen(true);});d.getElementById("close").addEventListener("click",function(){setOpen(false);});
load();})();`;

export interface FrameView {
  key: string;
  title: string;
  greeting: string;
  away: string | null;
  page: string | null;
  branding: Branding;
}

function themeCss(b: Branding): string {
  const vars = cssVarsFor(b);
  const pick = (...names: string[]) => names.map((n) => vars[n]).find((x) => x !== undefined);
  // cssVarsFor leaves out anything that could break out of a declaration.
  const decl: [string, string | undefined][] = [
    ["--p", pick("--button-primary-bg", "--color-primary")],
    ["--pt", pick("--button-primary-text")],
    ["--bg", pick("--color-background")],
    ["--fg", pick("--color-text")],
    ["--r", pick("--radius", "--button-radius")],
    ["--font", pick("--font-body")],
  ];
  return `:root{${decl
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}:${v}`)
    .join(";")}}`;
}

/**
 * The system sans-serif stack comes after the brand's font in every case: a
 * brand font that is not installed (or a --font left unset, which would make
 * the whole declaration invalid and fall back to the browser's serif) still
 * lands on a sans-serif face.
 */
const SANS = `system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,"Noto Sans","Liberation Sans",sans-serif`;

/** The launcher's and the close button's icons: inline SVG in currentColor, so no emoji font is needed. */
const CHAT_ICON = `<svg viewBox="0 0 24 24" width="28" height="28" aria-hidden="true" focusable="false"><path fill="currentColor" d="M4 3h16a2 2 0 0 1 2 2v11a2 2 0 0 1-2 2H9.5L5 21.6a.6.6 0 0 1-1-.5V18a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm3 6.2a1.3 1.3 0 1 0 0 2.6 1.3 1.3 0 0 0 0-2.6zm5 0a1.3 1.3 0 1 0 0 2.6 1.3 1.3 0 0 0 0-2.6zm5 0a1.3 1.3 0 1 0 0 2.6 1.3 1.3 0 0 0 0-2.6z"/></svg>`;
const CLOSE_ICON = `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true" focusable="false"><path fill="none" stroke="currentColor" stroke-width="2.2" stroke-linecap="round" d="M6 6l12 12M18 6L6 18"/></svg>`;

const BASE_CSS = `*{box-sizing:border-box}html,body{margin:0;height:100%;background:transparent;font-size:14px;line-height:1.45;font-family:var(--font,${SANS}),${SANS};color:var(--fg,#1f2328)}
#launch{position:absolute;right:6px;bottom:6px;width:60px;height:60px;padding:0;display:flex;align-items:center;justify-content:center;border-radius:50%;border:0;background:var(--p,#2f6fed);color:var(--pt,#fff);cursor:pointer;box-shadow:0 4px 14px rgba(0,0,0,.25)}
button:focus-visible,textarea:focus-visible,input:focus-visible{outline:3px solid #93b4f5;outline-offset:2px}
#panel{display:none;position:absolute;inset:0;flex-direction:column;background:var(--bg,#fff);border-radius:var(--r,12px);overflow:hidden;box-shadow:0 8px 30px rgba(0,0,0,.25)}
.open #panel{display:flex}.open #launch{display:none}
header{background:var(--p,#2f6fed);color:var(--pt,#fff);padding:12px 14px;display:flex;align-items:flex-start;gap:8px}header>div{flex:1}header h1{font-size:16px;margin:0}header p{margin:4px 0 0;font-size:13px;opacity:.92}
#close{background:none;border:0;color:inherit;padding:2px;cursor:pointer;line-height:0;border-radius:6px}
#msgs{list-style:none;margin:0;padding:12px;flex:1;overflow-y:auto;display:flex;flex-direction:column;gap:8px}
.m{max-width:82%;padding:8px 10px;border-radius:12px;white-space:pre-wrap;overflow-wrap:anywhere}.m p{margin:0}.m b{display:block;font-size:11px;opacity:.7}
.me{align-self:flex-end;background:var(--p,#2f6fed);color:var(--pt,#fff)}.them{align-self:flex-start;background:rgba(127,127,127,.14)}
form{display:flex;gap:6px;padding:8px;border-top:1px solid rgba(127,127,127,.25)}textarea,input{flex:1;font:inherit;padding:8px;border:1px solid rgba(127,127,127,.4);border-radius:8px;resize:none;background:transparent;color:inherit}
button{font:inherit;border:0;border-radius:8px;padding:0 12px;background:var(--p,#2f6fed);color:var(--pt,#fff);cursor:pointer}
#state{margin:0 10px 6px;padding:6px 8px;font-size:12px;text-align:center;border-radius:8px;background:rgba(127,127,127,.12)}
#send{flex-wrap:wrap}#send textarea{flex:1 1 100%}#file{flex:1;font-size:12px;padding:4px;border:0;min-width:0}.m a.file{display:block;margin-top:4px;color:inherit;text-decoration:underline;overflow-wrap:anywhere}
#mail{padding:0 8px 4px;border:0}#mail input,#mail button{font-size:12px;padding:4px 8px}#err{margin:0 10px 6px;font-size:12px;min-height:1em}`;

export function frameHtml(v: FrameView, nonce: string): string {
  const cfg = JSON.stringify({ key: v.key, page: v.page }).replace(/</g, "\\u003c");
  const intro = v.away ?? v.greeting;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><meta name="robots" content="noindex">
<title>${escapeHtml(v.title)}</title>
<style nonce="${nonce}">${themeCss(v.branding)}${BASE_CSS}</style></head><body>
<div id="w">
<button id="launch" type="button" aria-label="Open chat">${CHAT_ICON}</button>
<section id="panel" aria-label="Chat">
<header><div><h1>${escapeHtml(v.title)}</h1><p id="intro">${escapeHtml(intro)}</p></div><button id="close" type="button" aria-label="Close chat">${CLOSE_ICON}</button></header>
<ol id="msgs" aria-live="polite"></ol>
<p id="state" role="status" hidden></p>
<p id="err" role="status"></p>
<form id="send" enctype="multipart/form-data"><textarea id="body" name="body" rows="2" maxlength="4000" placeholder="Write a message…" aria-label="Message"></textarea><input id="file" name="file" type="file" multiple aria-label="Attach files"><button type="submit">Send</button></form>
<form id="mail"><input id="email" type="email" maxlength="254" placeholder="Email me the transcript" aria-label="Your email"><button type="submit">Send</button></form>
</section></div>
<script id="cfg" type="application/json">${cfg}</script>
<script nonce="${nonce}">${FRAME_JS}</script>
</body></html>`;
}
