/**
 * Slides as HTML: one renderer for the approval page (every slide stacked,
 * with speaker notes), the public presentation at /d/<slug> and decks_get's
 * html. Every string from a slide is escaped; links pass safeUrl again
 * (a stored version is data, whatever the validator said when it was
 * written); images are only the resolved media URLs a version froze; the
 * theme reaches the page as checked CSS custom properties in one style
 * attribute (themeStyle). The markup carries no script and no event handler.
 *
 * Slides are 16:9 boxes whose type scales with their width (container query
 * units), so the same markup reads on a phone, a projector and the
 * approval page.
 */
import { escapeHtml } from "../../core/public-page";
import { safeUrl } from "../blocks/urls";
import { bareQuote, type DeckTheme, type Layout, type ResolvedImage } from "./layouts";
import { logoMark } from "./logo";
import { scrimFor, themeStyle } from "./theme";

export interface RenderSlide {
  layout: Layout;
  content: Record<string, unknown>;
  notes: string | null;
  images: Record<string, ResolvedImage>;
}

export interface RenderOptions {
  /** Show each slide's speaker notes under it (the approval page). */
  notes?: boolean;
  /** id="<n>" on each slide, so #3 lands on slide 3 (the public page only: one deck per page). */
  anchors?: boolean;
}

type C = Record<string, any>;
const e = escapeHtml;

function str(x: unknown): string | null {
  return typeof x === "string" && x !== "" ? x : null;
}

/** Paragraphs from multi-line text: blank lines split paragraphs, single newlines break lines. */
function paras(x: unknown, cls = "dk-text"): string {
  const s = str(x);
  if (!s) return "";
  return s
    .split(/\r?\n\s*\r?\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => `<p class="${cls}">${e(p).replace(/\r?\n/g, "<br>")}</p>`)
    .join("");
}

function list(x: unknown, cls = "dk-bullets"): string {
  if (!Array.isArray(x) || x.length === 0) return "";
  return `<ul class="${cls}">${x
    .filter((i) => typeof i === "string")
    .map((i) => `<li>${e(i)}</li>`)
    .join("")}</ul>`;
}

function h(tag: "h1" | "h2" | "h3", x: unknown, cls = ""): string {
  const s = str(x);
  return s ? `<${tag}${cls ? ` class="${cls}"` : ""}>${e(s)}</${tag}>` : "";
}

function img(images: Record<string, ResolvedImage>, id: unknown, alt: unknown, cls: string): string {
  if (typeof id !== "number") return "";
  const m = images[String(id)];
  const src = m ? safeUrl(m.url) : null;
  if (!m || !src) return `<div class="${cls} dk-missing" role="img" aria-label="Image not available"></div>`;
  const dims = m.width && m.height ? ` width="${m.width}" height="${m.height}"` : "";
  return `<img class="${cls}" src="${e(src)}" alt="${e(str(alt) ?? m.alt ?? "")}"${dims} loading="lazy" decoding="async">`;
}

/** The mark logoMark chose (the PDF and PowerPoint draw the same one); the colour is a checked hex. */
function logo(t: DeckTheme): string {
  const m = logoMark(t);
  if (!m) return "";
  if (m.kind === "image") return `<img class="dk-logo" src="${e(m.url)}" alt="${e(m.alt)}">`;
  return `<span class="dk-brand" style="color:${e(m.color)}">${e(m.text)}</span>`;
}

/** "$12,000" / "€450.50" / "¥1,234,568" from integer cents (hundredths of the unit, as everywhere in Plinth); an unknown currency code shows the code. */
export function money(cents: number, currency: string): string {
  const whole = cents % 100 === 0;
  try {
    const digits =
      new Intl.NumberFormat("en-US", { style: "currency", currency }).resolvedOptions().maximumFractionDigits ?? 2;
    return new Intl.NumberFormat("en-US", {
      style: "currency",
      currency,
      minimumFractionDigits: whole ? 0 : Math.min(2, digits),
      maximumFractionDigits: Math.min(2, digits),
    }).format(cents / 100);
  } catch {
    return `${currency} ${(cents / 100).toFixed(whole ? 0 : 2)}`;
  }
}

function initials(name: string): string {
  return name
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 2)
    .map((w) => w[0]!.toUpperCase())
    .join("");
}

function body(layout: Layout, c: C, images: Record<string, ResolvedImage>, t: DeckTheme): string {
  switch (layout) {
    case "title":
      return `<div class="dk-top">${logo(t)}</div><div class="dk-center">${h("h1", c.title)}${paras(c.subtitle, "dk-sub")}</div>${
        c.presenter || c.date
          ? `<p class="dk-foot">${[c.presenter, c.date]
              .filter(str)
              .map((x) => e(x))
              .join(" · ")}</p>`
          : ""
      }`;
    case "title_body":
      return `${h("h2", c.title)}<div class="dk-body">${paras(c.body)}${list(c.bullets)}</div>`;
    case "two_columns": {
      // A column's picture sits above its text, as tall as geometry.ts's COLUMN_PICTURE (the whole column without text).
      const col = (x: C | undefined) =>
        x?.image
          ? `<div class="dk-col dk-withimg"><div class="dk-colimg">${img(images, x.image.imageId, x.image.alt, "dk-img")}</div>${h("h3", x.heading)}${paras(x.body)}${list(x.bullets)}</div>`
          : `<div class="dk-col">${h("h3", x?.heading)}${paras(x?.body)}${list(x?.bullets)}</div>`;
      return `${h("h2", c.title)}<div class="dk-cols">${col(c.left)}${col(c.right)}</div>`;
    }
    case "image":
      return `${h("h2", c.title)}<figure class="dk-figure dk-fit-${c.fit === "cover" ? "cover" : "contain"}">${img(images, c.imageId, c.alt, "dk-img")}${
        str(c.caption) ? `<figcaption>${e(c.caption)}</figcaption>` : ""
      }</figure>`;
    case "image_text":
      return `${h("h2", c.title)}<div class="dk-imgtext${c.side === "right" ? " dk-side-right" : ""}"><div class="dk-imgbox">${img(images, c.imageId, c.alt, "dk-img")}</div><div class="dk-body">${paras(c.body)}${list(c.bullets)}</div></div>`;
    case "image_full": {
      // The picture covers the slide; title and caption on the scrim theme.ts checked (the same band as the PDF's).
      const sc = scrimFor(t);
      const text = `${h("h2", c.title)}${paras(c.caption, "dk-sub")}`;
      return `<figure class="dk-full">${img(images, c.imageId, c.alt, "dk-img")}${
        text ? `<figcaption class="dk-scrim" style="${e(scrimStyle(sc))}">${text}</figcaption>` : ""
      }</figure>`;
    }
    case "timeline": {
      const steps = (Array.isArray(c.steps) ? c.steps : []) as C[];
      return `${h("h2", c.title)}<ol class="dk-timeline${steps.length > 5 ? " dk-dense" : ""}" style="grid-template-columns:repeat(${Math.max(1, Math.min(8, steps.length))},minmax(0,1fr))">${steps
        .map(
          (st) =>
            `<li class="dk-step"><p class="dk-date">${e(String(st.date ?? ""))}</p><span class="dk-dot" aria-hidden="true"></span><p class="dk-label">${e(String(st.label ?? ""))}</p>${str(st.detail) ? `<p class="dk-detail">${e(st.detail)}</p>` : '<p class="dk-detail"></p>'}</li>`,
        )
        .join("")}</ol>`;
    }
    case "quote": {
      const who = [c.author, c.role].filter(str).map((x) => e(x));
      return `<figure class="dk-quote">${c.imageId ? img(images, c.imageId, c.author, "dk-portrait") : ""}<blockquote>${paras(typeof c.quote === "string" ? bareQuote(c.quote) : null, "dk-q")}</blockquote>${
        who.length
          ? `<figcaption>${who.map((w, i) => (i === 0 ? `<strong>${w}</strong>` : w)).join(", ")}</figcaption>`
          : ""
      }</figure>`;
    }
    case "metrics": {
      const items = (Array.isArray(c.metrics) ? c.metrics : []) as C[];
      return `${h("h2", c.title)}<div class="dk-metrics dk-n${items.length}">${items
        .map(
          (m) =>
            `<div class="dk-metric"><p class="dk-value">${e(String(m.value ?? ""))}</p><p class="dk-label">${e(String(m.label ?? ""))}</p>${str(m.detail) ? `<p class="dk-detail">${e(m.detail)}</p>` : ""}</div>`,
        )
        .join("")}</div>`;
    }
    case "pricing": {
      const plans = (Array.isArray(c.plans) ? c.plans : []) as C[];
      const cur = typeof c.currency === "string" && /^[A-Z]{3}$/.test(c.currency) ? c.currency : "USD";
      return `${h("h2", c.title)}<div class="dk-plans dk-n${plans.length}">${plans
        .map((p) => {
          const price =
            typeof p.price === "number" && Number.isInteger(p.price)
              ? money(p.price, cur)
              : (str(p.priceLabel) ?? "On request");
          return `<div class="dk-plan${p.highlighted === true ? " dk-hl" : ""}">${p.highlighted === true ? '<p class="dk-badge">Recommended</p>' : ""}<h3>${e(String(p.name ?? ""))}</h3><p class="dk-price">${e(price)}${
            str(p.period) ? ` <span>${e(p.period)}</span>` : ""
          }</p>${paras(p.description, "dk-detail")}${list(p.features, "dk-features")}</div>`;
        })
        .join("")}</div>${paras(c.note, "dk-note")}`;
    }
    case "team": {
      const people = (Array.isArray(c.members) ? c.members : []) as C[];
      return `${h("h2", c.title)}<div class="dk-team dk-n${people.length}">${people
        .map(
          (m) =>
            `<div class="dk-member">${m.imageId ? img(images, m.imageId, m.name, "dk-face") : `<span class="dk-face dk-initials" aria-hidden="true">${e(initials(String(m.name ?? "")))}</span>`}<h3>${e(
              String(m.name ?? ""),
            )}</h3>${str(m.role) ? `<p class="dk-role">${e(m.role)}</p>` : ""}${paras(m.bio, "dk-detail")}</div>`,
        )
        .join("")}</div>`;
    }
    case "closing": {
      const web = safeUrl(c.website);
      const cta = safeUrl(c.ctaUrl);
      const contact = [
        str(c.contactName) ? e(c.contactName) : "",
        str(c.email) ? `<a href="mailto:${e(c.email)}">${e(c.email)}</a>` : "",
        str(c.phone) ? e(c.phone) : "",
        web ? `<a href="${e(web)}" rel="noopener noreferrer">${e(c.website)}</a>` : "",
      ].filter(Boolean);
      return `<div class="dk-top">${logo(t)}</div><div class="dk-center">${h("h1", c.title)}${paras(c.subtitle, "dk-sub")}${
        cta && str(c.ctaLabel)
          ? `<p><a class="dk-cta" href="${e(cta)}" rel="noopener noreferrer">${e(c.ctaLabel)}</a></p>`
          : ""
      }</div>${contact.length ? `<p class="dk-foot">${contact.join(" · ")}</p>` : ""}`;
    }
  }
}

const LAYOUT_NAMES: Record<Layout, string> = {
  title: "Title",
  title_body: "Title and body",
  two_columns: "Two columns",
  image: "Image",
  image_text: "Image and text",
  quote: "Quote",
  metrics: "Metrics",
  pricing: "Pricing",
  team: "Team",
  closing: "Closing",
  image_full: "Full-bleed image",
  timeline: "Timeline",
};

/** The scrim as CSS from its checked colours (hex only) and opacity (a number): nothing else reaches the attribute. */
function scrimStyle(sc: { color: string; opacity: number; text: string }): string {
  const hex = /^#[0-9a-f]{6}$/;
  const c = hex.test(sc.color) ? sc.color : "#111827";
  const rgb = [1, 3, 5].map((i) => parseInt(c.slice(i, i + 2), 16)).join(",");
  const a = Math.max(0, Math.min(1, Number(sc.opacity) || 1));
  return `background:rgba(${rgb},${a});color:${hex.test(sc.text) ? sc.text : "#ffffff"}`;
}

export function renderSlide(s: RenderSlide, n: number, total: number, t: DeckTheme, o: RenderOptions = {}): string {
  const title = str((s.content as C).title);
  const label = `Slide ${n} of ${total}${title ? `: ${title}` : ""}`;
  // On a full-bleed picture the slide number sits on the scrim, in its text colour.
  const c = s.content as C;
  const ink =
    s.layout === "image_full" && (str(c.title) || str(c.caption)) ? ` style="color:${e(scrimFor(t).text)}"` : "";
  const section = `<section class="dk-slide dk-l-${s.layout}"${o.anchors ? ` id="${n}"` : ""}${ink} role="group" aria-roledescription="slide" aria-label="${e(label)}"><div class="dk-in">${body(
    s.layout,
    s.content as C,
    s.images,
    t,
  )}</div><span class="dk-num" aria-hidden="true">${n}</span></section>`;
  if (!o.notes) return section;
  const notes = str(s.notes);
  return `<div class="dk-review"><p class="dk-caption">Slide ${n} · ${LAYOUT_NAMES[s.layout]}</p>${section}${
    notes
      ? `<aside class="dk-notes"><strong>Speaker notes</strong> (not shown to the audience)${paras(notes, "dk-note-text")}</aside>`
      : ""
  }</div>`;
}

/** Every slide in order, inside the themed container. */
export function renderDeck(slides: RenderSlide[], t: DeckTheme, o: RenderOptions = {}): string {
  return `<div class="dk-deck" style="${e(themeStyle(t))}">${slides.map((s, i) => renderSlide(s, i + 1, slides.length, t, o)).join("")}</div>`;
}

/** Slide styles, shared by the approval page (through approvalSupport.previewCss) and the public page. */
export const DECK_CSS = `.dk-deck{display:flex;flex-direction:column;align-items:center;gap:1.5rem}
.dk-review{width:100%;max-width:960px}
.dk-caption{font-size:.85rem;color:#5b6576;margin:0 0 .35rem}
.dk-notes{margin:.5rem 0 0;padding:.6rem .8rem;border-left:3px solid #c5ccd6;background:#f7f8fa;font-size:.9rem;color:#1c2330}
.dk-notes p{margin:.3rem 0 0}
.dk-slide{container-type:inline-size;position:relative;box-sizing:border-box;width:100%;max-width:960px;aspect-ratio:16/9;overflow:hidden;background:var(--dk-bg);color:var(--dk-text);font-family:var(--dk-body);border-radius:var(--dk-radius);box-shadow:0 1px 3px rgba(0,0,0,.15)}
.dk-in{position:absolute;inset:0;display:flex;flex-direction:column;padding:5.5cqw 6.5cqw;font-size:2.6cqw;line-height:1.4}
.dk-slide *{box-sizing:border-box}
.dk-slide h1,.dk-slide h2,.dk-slide h3{font-family:var(--dk-head);margin:0;line-height:1.15}
.dk-slide h1{font-size:6cqw}.dk-slide h2{font-size:4.2cqw;margin-bottom:3cqw}.dk-slide h3{font-size:2.6cqw;margin-bottom:1cqw}
.dk-slide p{margin:0 0 1.4cqw}
.dk-slide ul{margin:0;padding-left:1.2em}.dk-slide li{margin:0 0 1cqw}
.dk-slide a{color:inherit}
.dk-num{position:absolute;right:2.5cqw;bottom:2cqw;font-size:1.4cqw;opacity:.55}
.dk-top{min-height:6cqw}.dk-logo{height:6cqw;width:auto;max-width:30cqw;object-fit:contain}.dk-brand{font-weight:700;font-size:2.2cqw;letter-spacing:.04em;text-transform:uppercase}
.dk-center{flex:1;display:flex;flex-direction:column;justify-content:center}
.dk-sub{font-size:3cqw;opacity:.9;margin-top:2cqw}
.dk-foot{font-size:1.8cqw;opacity:.85;margin:0}
.dk-l-title,.dk-l-closing{background:var(--dk-primary);color:var(--dk-on-primary)}
.dk-cta{display:inline-block;margin-top:2cqw;padding:1.4cqw 3cqw;border-radius:999px;background:var(--dk-on-primary);color:var(--dk-primary)!important;text-decoration:none;font-weight:700}
.dk-body{flex:1}
.dk-cols{display:grid;grid-template-columns:1fr 1fr;gap:5cqw;flex:1}
.dk-col h3{color:var(--dk-primary)}
.dk-withimg{min-height:0;display:flex;flex-direction:column}
.dk-colimg{display:flex;flex:0 0 18.3cqw;min-height:0;margin-bottom:1.5cqw}
.dk-colimg:last-child{flex:1 1 auto;margin-bottom:0}
.dk-figure{flex:1;min-height:0;margin:0;display:flex;flex-direction:column;gap:1cqw}
.dk-img{flex:1;min-height:0;width:100%;height:100%;object-fit:contain;border-radius:calc(var(--dk-radius) / 2)}
.dk-fit-cover .dk-img{object-fit:cover}
.dk-figure figcaption{font-size:1.8cqw;opacity:.8;text-align:center}
.dk-imgtext{flex:1;min-height:0;display:grid;grid-template-columns:1fr 1fr;gap:5cqw}
.dk-side-right .dk-imgbox{order:2}
.dk-imgbox{min-height:0;display:flex}
.dk-imgbox .dk-img{border-radius:calc(var(--dk-radius) / 2)}
.dk-missing{flex:1;background:repeating-linear-gradient(45deg,rgba(0,0,0,.06) 0 10px,transparent 10px 20px)}
.dk-l-image_full .dk-in{padding:0}
.dk-full{position:absolute;inset:0;margin:0}
.dk-full .dk-img,.dk-full .dk-missing{position:absolute;inset:0;width:100%;height:100%;object-fit:cover;border-radius:0}
.dk-scrim{position:absolute;left:0;right:0;bottom:0;padding:2.9cqw 10.8cqw 2.9cqw 6.7cqw}
.dk-scrim h2{font-size:3.6cqw;margin:0 0 .8cqw}.dk-scrim .dk-sub{font-size:2cqw;margin:0;opacity:1}
.dk-timeline{list-style:none;margin:1cqw 0 0;padding:0;display:grid;grid-template-rows:repeat(4,auto);align-content:center;column-gap:2.1cqw;flex:1;font-size:2.2cqw}
.dk-dense{font-size:1.8cqw}
.dk-step{display:grid;grid-row:span 4;grid-template-rows:subgrid;margin:0;min-width:0;overflow-wrap:anywhere}
.dk-date{align-self:end;font-weight:700;color:var(--dk-primary);margin:0!important}
.dk-dot{position:relative;display:block;height:1.5cqw;margin:1.2cqw 0 1.8cqw}
.dk-dot::before{content:"";position:absolute;left:0;top:0;width:1.5cqw;height:1.5cqw;border-radius:50%;background:var(--dk-primary);z-index:1}
.dk-dot::after{content:"";position:absolute;left:0;right:-2.1cqw;top:.6cqw;height:.25cqw;background:var(--dk-primary);opacity:.35}
.dk-step:last-child .dk-dot::after{right:0}
.dk-step .dk-label{font-weight:700;margin:0 0 .6cqw}
.dk-step .dk-detail{margin:0}
.dk-quote{margin:auto 0;display:grid;grid-template-columns:auto 1fr;gap:0 4cqw;align-items:center}
.dk-quote blockquote{grid-column:-2;margin:0;font-family:var(--dk-head);font-size:3.6cqw;line-height:1.3}
.dk-quote blockquote::before{content:"\\201C";display:block;color:var(--dk-accent);font-size:9cqw;line-height:.6}
.dk-quote figcaption{grid-column:-2;margin-top:2.5cqw;font-size:2.2cqw}
.dk-portrait{grid-row:span 2;width:16cqw;height:16cqw;border-radius:50%;object-fit:cover}
.dk-metrics,.dk-plans,.dk-team{display:grid;gap:3cqw;flex:1;align-content:center}
.dk-n1{grid-template-columns:1fr}.dk-n2,.dk-n4{grid-template-columns:repeat(2,1fr)}.dk-n3,.dk-n5,.dk-n6{grid-template-columns:repeat(3,1fr)}
.dk-plans.dk-n4,.dk-team.dk-n4,.dk-team.dk-n7,.dk-team.dk-n8{grid-template-columns:repeat(4,1fr)}
.dk-value{font-family:var(--dk-head);font-size:6.5cqw;font-weight:700;color:var(--dk-primary);margin:0;line-height:1.05}
.dk-label{font-weight:600;margin:.6cqw 0 0}.dk-detail{font-size:1.8cqw;opacity:.8}
.dk-plans{align-items:stretch}
.dk-plan{border:.25cqw solid rgba(0,0,0,.12);border-radius:var(--dk-radius);padding:2.5cqw;display:flex;flex-direction:column}
.dk-hl{border-color:var(--dk-primary);box-shadow:0 0 0 .25cqw var(--dk-primary)}
.dk-badge{font-size:1.4cqw;font-weight:700;text-transform:uppercase;letter-spacing:.06em;color:var(--dk-primary);margin:0 0 .8cqw}
.dk-price{font-family:var(--dk-head);font-size:4cqw;font-weight:700;margin:0 0 1cqw}.dk-price span{display:block;font-size:1.8cqw;font-weight:400;opacity:.8}
.dk-features{font-size:1.9cqw}
.dk-note{font-size:1.6cqw;opacity:.75;margin-top:2cqw}
.dk-team{text-align:center}
.dk-face{display:block;width:12cqw;height:12cqw;margin:0 auto 1.5cqw;border-radius:50%;object-fit:cover}
.dk-initials{display:flex;align-items:center;justify-content:center;background:var(--dk-primary);color:var(--dk-on-primary);font-weight:700;font-size:4cqw}
.dk-role{font-size:1.9cqw;color:var(--dk-primary);font-weight:600;margin:0 0 .8cqw}
`;
