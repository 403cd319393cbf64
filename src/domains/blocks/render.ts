/**
 * Safe HTML for block content: the approval page and the portal render draft
 * posts with it, so its input is, by definition, not yet reviewed.
 *
 * Safety does not depend on the content having been validated:
 * - every string from content is HTML-escaped (text and attribute values;
 *   attributes are always double-quoted), so no markup from content ever
 *   reaches the page;
 * - URLs pass `safeUrl` (http(s), mailto:, tel:, relative); anything else is
 *   dropped, and URLs placed inside CSS `url()` are percent-encoded;
 * - colours, enum values and numbers are re-checked before they reach a
 *   class or style attribute;
 * - nesting and block count are capped like the validator's.
 * No dependency: escaping five characters does not need a library.
 *
 * @public Serves cms (previews and rendered HTML of posts and templates).
 */
import { BLOCK_CATALOG, MAX_BLOCKS, MAX_DEPTH, type EnumInput } from "./catalog";
import { safeUrl } from "./urls";
import { escapeHtml } from "../../core/public-page";

export interface RenderOptions {
  /** `iframe` (default) renders embeds as sandboxed frames; `link` as plain links (for pages with a strict frame CSP). */
  embeds?: "iframe" | "link";
  /** Locale for prices in pricing tables. Default en-US. */
  locale?: string;
}

type Props = Record<string, unknown>;

export { escapeHtml };

/** Escaped text; `\n` becomes `<br>` when `multiline`. */
function txt(s: string, multiline = false): string {
  const e = escapeHtml(s);
  return multiline ? e.replace(/\r?\n/g, "<br>") : e;
}

const HEX_RE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

function str(p: Props, k: string): string | undefined {
  const v = p[k];
  return typeof v === "string" && v !== "" ? v : undefined;
}
function int(p: Props, k: string, min: number, max: number): number | undefined {
  const v = p[k];
  return typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : undefined;
}
function flag(p: Props, k: string, def: boolean): boolean {
  const v = p[k];
  return typeof v === "boolean" ? v : def;
}
function href(p: Props, k: string, httpsOnly = false): string | undefined {
  return safeUrl(p[k], httpsOnly) ?? undefined;
}
function hex(p: Props, k: string): string | undefined {
  const v = p[k];
  return typeof v === "string" && HEX_RE.test(v) ? v : undefined;
}

// Enum values and defaults per block input, read from the catalog so a class
// name can only ever be one of the declared values.
const ENUMS = new Map<string, EnumInput>();
for (const d of BLOCK_CATALOG)
  for (const [name, spec] of Object.entries(d.inputs)) if (spec.kind === "enum") ENUMS.set(`${d.type}.${name}`, spec);

function choice(type: string, p: Props, k: string): string | undefined {
  const v = p[k];
  const spec = ENUMS.get(`${type}.${k}`);
  if (typeof v === "string" && spec?.values.includes(v)) return v;
  return spec?.default;
}

function attrs(a: Record<string, string | number | boolean | undefined | null>): string {
  let out = "";
  for (const [k, v] of Object.entries(a)) {
    if (v === undefined || v === null || v === false) continue;
    out += v === true ? ` ${k}` : ` ${k}="${escapeHtml(String(v))}"`;
  }
  return out;
}

function cls(...names: (string | false | undefined)[]): string {
  return names.filter(Boolean).join(" ");
}

/** A URL for CSS `url("…")`: characters that could end the string or the function are percent-encoded. */
function cssUrl(u: string): string {
  return `url("${u.replace(/["'()\\]/g, (c) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0"))}")`;
}

function style(parts: (string | undefined)[]): string | undefined {
  const s = parts.filter(Boolean).join(";");
  return s || undefined;
}

function link(url: string | undefined, inner: string, className?: string, newTab = false): string {
  if (!url) return className ? `<span${attrs({ class: className })}>${inner}</span>` : inner;
  return `<a${attrs({ class: className, href: url, target: newTab ? "_blank" : undefined, rel: newTab ? "noopener noreferrer" : undefined })}>${inner}</a>`;
}

function img(src: string | undefined, alt: unknown, extra: Record<string, string | number | undefined> = {}): string {
  if (!src) return "";
  return `<img${attrs({ src, alt: typeof alt === "string" ? alt : "", loading: "lazy", decoding: "async", ...extra })}>`;
}

function listItems(v: unknown): Props[] {
  return Array.isArray(v) ? v.filter((x): x is Props => typeof x === "object" && x !== null && !Array.isArray(x)) : [];
}
function textItems(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

function formatPrice(cents: number, currency: string | undefined, locale: string): string {
  try {
    return new Intl.NumberFormat(
      locale,
      currency ? { style: "currency", currency } : { minimumFractionDigits: 2 },
    ).format(cents / 100);
  } catch {
    return (cents / 100).toFixed(2);
  }
}

interface Ctx {
  opts: Required<RenderOptions>;
  count: number;
}

type Renderer = (p: Props, children: string, ctx: Ctx, base: Record<string, string | undefined>) => string;

const INTERVAL_LABEL: Record<string, string> = { "one-time": "", week: "/week", month: "/month", year: "/year" };

const RENDERERS: Record<string, Renderer> = {
  heading(p, _c, _x, base) {
    const level = int(p, "level", 1, 6) ?? 2;
    const align = choice("heading", p, "align");
    return `<h${level}${attrs({ ...base, class: cls(base.class, `pb-align-${align}`), id: str(p, "anchor") })}>${txt(str(p, "text") ?? "")}</h${level}>`;
  },
  paragraph(p, _c, _x, base) {
    return `<p${attrs({ ...base, class: cls(base.class, `pb-align-${choice("paragraph", p, "align")}`, `pb-size-${choice("paragraph", p, "size")}`) })}>${txt(str(p, "text") ?? "", true)}</p>`;
  },
  list(p, _c, _x, base) {
    const tag = flag(p, "ordered", false) ? "ol" : "ul";
    return `<${tag}${attrs(base)}>${textItems(p.items)
      .map((i) => `<li>${txt(i)}</li>`)
      .join("")}</${tag}>`;
  },
  quote(p, _c, _x, base) {
    const cite = str(p, "cite");
    const footer = cite ? `<footer><cite>${link(href(p, "citeUrl"), txt(cite))}</cite></footer>` : "";
    return `<blockquote${attrs(base)}><p>${txt(str(p, "text") ?? "", true)}</p>${footer}</blockquote>`;
  },
  code(p, _c, _x, base) {
    const lang = str(p, "language");
    const cap = str(p, "caption");
    return `<figure${attrs(base)}><pre><code${attrs({ class: lang ? `language-${lang}` : undefined })}>${txt(str(p, "code") ?? "")}</code></pre>${cap ? `<figcaption>${txt(cap)}</figcaption>` : ""}</figure>`;
  },
  divider(p, _c, _x, base) {
    return `<hr${attrs({ ...base, class: cls(base.class, `pb-divider-${choice("divider", p, "style")}`) })}>`;
  },
  button(p, _c, _x, base) {
    const variant = choice("button", p, "variant");
    const a = link(
      href(p, "href"),
      txt(str(p, "label") ?? ""),
      `pb-button pb-button-${variant}`,
      flag(p, "openInNewTab", false),
    );
    const preset = str(p, "presetId");
    return `<p${attrs({ ...base, class: cls(base.class, `pb-align-${choice("button", p, "align")}`), "data-preset": preset })}>${a}</p>`;
  },

  section(p, children, _x, base) {
    const bgImg = href(p, "backgroundImage");
    return `<section${attrs({
      ...base,
      class: cls(base.class, `pb-pad-${choice("section", p, "padding")}`, flag(p, "fullWidth", false) && "pb-full"),
      id: str(p, "anchor"),
      style: style([
        hex(p, "background") && `background-color:${hex(p, "background")}`,
        hex(p, "textColor") && `color:${hex(p, "textColor")}`,
        bgImg && `background-image:${cssUrl(bgImg)}`,
      ]),
    })}>${children}</section>`;
  },
  columns(p, children, _x, base) {
    return `<div${attrs({
      ...base,
      class: cls(
        base.class,
        `pb-gap-${choice("columns", p, "gap")}`,
        `pb-valign-${choice("columns", p, "verticalAlign")}`,
        flag(p, "stackOnMobile", true) && "pb-stack",
      ),
    })}>${children}</div>`;
  },
  column(p, children, _x, base) {
    const w = int(p, "width", 1, 12);
    return `<div${attrs({ ...base, style: w ? `flex:${w} 1 0%` : undefined })}>${children}</div>`;
  },
  grid(p, children, _x, base) {
    const cols = int(p, "columns", 1, 6) ?? 3;
    return `<div${attrs({ ...base, class: cls(base.class, `pb-gap-${choice("grid", p, "gap")}`), style: `--pb-cols:${cols}` })}>${children}</div>`;
  },
  spacer(p, _c, _x, base) {
    return `<div${attrs({ ...base, class: cls(base.class, `pb-space-${choice("spacer", p, "size")}`), "aria-hidden": "true" })}></div>`;
  },

  hero(p, _c, _x, base) {
    const bg = href(p, "backgroundImage");
    const eyebrow = str(p, "eyebrow");
    const sub = str(p, "subheading");
    const buttons = [
      str(p, "ctaLabel") ? link(href(p, "ctaHref"), txt(str(p, "ctaLabel")!), "pb-button pb-button-primary") : "",
      str(p, "secondaryCtaLabel")
        ? link(href(p, "secondaryCtaHref"), txt(str(p, "secondaryCtaLabel")!), "pb-button pb-button-secondary")
        : "",
    ].join("");
    return `<section${attrs({
      ...base,
      class: cls(base.class, `pb-align-${choice("hero", p, "align")}`, bg && flag(p, "overlay", true) && "pb-overlay"),
      style: bg ? `background-image:${cssUrl(bg)}` : undefined,
      role: bg && str(p, "backgroundImageAlt") ? "img" : undefined,
      "aria-label": bg ? str(p, "backgroundImageAlt") : undefined,
    })}><div class="pb-hero-inner">${eyebrow ? `<p class="pb-eyebrow">${txt(eyebrow)}</p>` : ""}<h1>${txt(str(p, "heading") ?? "")}</h1>${sub ? `<p class="pb-lead">${txt(sub, true)}</p>` : ""}${buttons ? `<p class="pb-actions">${buttons}</p>` : ""}</div></section>`;
  },
  card(p, _c, _x, base) {
    const url = href(p, "href");
    const body = str(p, "body");
    const cta = str(p, "ctaLabel");
    return `<article${attrs(base)}>${img(href(p, "image"), p.imageAlt)}<h3>${link(url, txt(str(p, "title") ?? ""))}</h3>${body ? `<p>${txt(body, true)}</p>` : ""}${cta && url ? link(url, txt(cta), "pb-card-link") : ""}</article>`;
  },
  cta(p, _c, _x, base) {
    const bg = hex(p, "background");
    const body = str(p, "body");
    return `<section${attrs({ ...base, class: cls(base.class, `pb-align-${choice("cta", p, "align")}`), style: bg ? `background-color:${bg}` : undefined })}><h2>${txt(str(p, "heading") ?? "")}</h2>${body ? `<p>${txt(body, true)}</p>` : ""}<p class="pb-actions">${link(href(p, "buttonHref"), txt(str(p, "buttonLabel") ?? ""), "pb-button pb-button-primary")}</p></section>`;
  },
  accordion(p, _c, _x, base) {
    const open = int(p, "defaultOpen", 0, 49);
    const items = listItems(p.items)
      .map(
        (it, i) =>
          `<details${i === open ? " open" : ""}><summary>${txt(str(it, "title") ?? "")}</summary><div class="pb-panel">${txt(str(it, "body") ?? "", true)}</div></details>`,
      )
      .join("");
    return `<div${attrs(base)}>${items}</div>`;
  },
  tabs(p, _c, _x, base) {
    // Without script, every panel is shown under its label; the first is marked current.
    const tabs = listItems(p.tabs)
      .map(
        (t, i) =>
          `<section class="pb-tab"${i === 0 ? ' aria-current="true"' : ""}><h4 class="pb-tab-label">${txt(str(t, "label") ?? "")}</h4><div class="pb-panel">${txt(str(t, "body") ?? "", true)}</div></section>`,
      )
      .join("");
    return `<div${attrs(base)}>${tabs}</div>`;
  },
  testimonial(p, _c, _x, base) {
    const rating = int(p, "rating", 1, 5);
    const who = [str(p, "role"), str(p, "company")]
      .filter(Boolean)
      .map((s) => txt(s!))
      .join(", ");
    return `<figure${attrs(base)}><blockquote><p>${txt(str(p, "quote") ?? "", true)}</p></blockquote><figcaption>${img(href(p, "avatar"), "", { class: "pb-avatar" })}<span class="pb-author">${txt(str(p, "author") ?? "")}</span>${who ? ` <span class="pb-role">${who}</span>` : ""}${rating ? ` <span class="pb-rating" aria-label="${rating} out of 5 stars">${"★".repeat(rating)}${"☆".repeat(5 - rating)}</span>` : ""}</figcaption></figure>`;
  },
  "pricing-table"(p, _c, ctx, base) {
    const currency = typeof p.currency === "string" && /^[A-Z]{3}$/.test(p.currency) ? p.currency : undefined;
    const heading = str(p, "heading");
    const tiers = listItems(p.tiers)
      .map((t) => {
        const price = int(t, "price", 0, 100_000_000);
        const interval = typeof t.interval === "string" && t.interval in INTERVAL_LABEL ? t.interval : "month";
        const features = textItems(t.features);
        const desc = str(t, "description");
        const cta = str(t, "ctaLabel");
        return `<div class="${cls("pb-tier", flag(t, "highlighted", false) && "pb-highlighted")}"><h3>${txt(str(t, "name") ?? "")}</h3>${price !== undefined ? `<p class="pb-price">${txt(formatPrice(price, currency, ctx.opts.locale))}<span>${INTERVAL_LABEL[interval]}</span></p>` : ""}${desc ? `<p>${txt(desc)}</p>` : ""}${features.length ? `<ul>${features.map((f) => `<li>${txt(f)}</li>`).join("")}</ul>` : ""}${cta ? link(href(t, "ctaHref"), txt(cta), "pb-button pb-button-primary") : ""}</div>`;
      })
      .join("");
    return `<div${attrs(base)}>${heading ? `<h2>${txt(heading)}</h2>` : ""}<div class="pb-tiers">${tiers}</div></div>`;
  },
  faq(p, _c, _x, base) {
    const heading = str(p, "heading");
    const items = listItems(p.items)
      .map((it) => `<dt>${txt(str(it, "question") ?? "")}</dt><dd>${txt(str(it, "answer") ?? "", true)}</dd>`)
      .join("");
    return `<section${attrs(base)}>${heading ? `<h2>${txt(heading)}</h2>` : ""}<dl>${items}</dl></section>`;
  },

  image(p, _c, _x, base) {
    const src = href(p, "src");
    if (!src) return "";
    const cap = str(p, "caption");
    const i = img(src, p.alt, { width: int(p, "width", 1, 10000), height: int(p, "height", 1, 10000) });
    return `<figure${attrs({ ...base, class: cls(base.class, `pb-size-${choice("image", p, "size")}`) })}>${link(href(p, "href"), i)}${cap ? `<figcaption>${txt(cap)}</figcaption>` : ""}</figure>`;
  },
  gallery(p, _c, _x, base) {
    const cols = int(p, "columns", 1, 6) ?? 3;
    const figs = listItems(p.images)
      .map((it) => {
        const src = href(it, "src");
        if (!src) return "";
        const cap = str(it, "caption");
        return `<figure>${img(src, it.alt)}${cap ? `<figcaption>${txt(cap)}</figcaption>` : ""}</figure>`;
      })
      .join("");
    return `<div${attrs({ ...base, class: cls(base.class, `pb-layout-${choice("gallery", p, "layout")}`), style: `--pb-cols:${cols}` })}>${figs}</div>`;
  },
  video(p, _c, _x, base) {
    const src = href(p, "src");
    if (!src) return "";
    const cap = str(p, "caption");
    const autoplay = flag(p, "autoplay", false);
    const title = str(p, "title");
    return `<figure${attrs(base)}><video${attrs({
      src,
      poster: href(p, "poster"),
      controls: flag(p, "controls", true),
      autoplay,
      muted: autoplay || flag(p, "muted", false),
      loop: flag(p, "loop", false),
      playsinline: true,
      preload: "metadata",
      title,
    })}>${link(src, txt(title ?? "Download the video"))}</video>${cap ? `<figcaption>${txt(cap)}</figcaption>` : ""}</figure>`;
  },
  embed(p, _c, ctx, base) {
    const url = href(p, "url", true);
    if (!url) return "";
    const title = str(p, "title") ?? "Embedded content";
    const cap = str(p, "caption");
    const ratio = (choice("embed", p, "aspectRatio") ?? "16:9").replace(":", "-");
    if (ctx.opts.embeds === "link")
      return `<p${attrs({ ...base, "data-provider": choice("embed", p, "provider") })}>${link(url, txt(title), undefined, true)}</p>`;
    return `<figure${attrs({ ...base, class: cls(base.class, `pb-ratio-${ratio}`), "data-provider": choice("embed", p, "provider") })}><iframe${attrs(
      {
        src: url,
        title,
        loading: "lazy",
        sandbox: "allow-scripts allow-same-origin allow-presentation allow-popups",
        referrerpolicy: "strict-origin-when-cross-origin",
        allow: "encrypted-media; picture-in-picture; fullscreen",
      },
    )}></iframe>${cap ? `<figcaption>${txt(cap)}</figcaption>` : ""}</figure>`;
  },
  audio(p, _c, _x, base) {
    const src = href(p, "src");
    if (!src) return "";
    const title = str(p, "title");
    const cap = str(p, "caption");
    return `<figure${attrs(base)}>${title ? `<figcaption>${txt(title)}</figcaption>` : ""}<audio${attrs({ src, controls: true, preload: "none" })}>${link(src, "Download the audio")}</audio>${cap ? `<p class="pb-caption">${txt(cap)}</p>` : ""}</figure>`;
  },
  file(p, _c, _x, base) {
    const url = href(p, "href");
    const desc = str(p, "description");
    return `<p${attrs(base)}>${link(url, txt(str(p, "label") ?? "Download"), "pb-file-link")}${desc ? ` <span class="pb-file-desc">${txt(desc)}</span>` : ""}</p>`;
  },

  // Store blocks are live views of the catalogue; a preview describes them.
  "product-grid"(p, _c, _x, base) {
    const heading = str(p, "heading");
    const cat = str(p, "categorySlug");
    const limit = int(p, "limit", 1, 48) ?? 12;
    const sort = choice("product-grid", p, "sort");
    return storePlaceholder(
      base,
      heading,
      `Product grid: up to ${limit} products${cat ? ` from category “${txt(cat)}”` : ""}, sorted by ${txt(sort ?? "newest")}.`,
      {
        "data-category": cat,
        "data-limit": String(limit),
        "data-sort": sort,
      },
    );
  },
  "product-card"(p, _c, _x, base) {
    const slug = str(p, "productSlug") ?? "";
    return storePlaceholder(base, undefined, `Product card: “${txt(slug)}”.`, { "data-product": slug });
  },
  "add-to-cart"(p, _c, _x, base) {
    const slug = str(p, "productSlug") ?? "";
    const sku = str(p, "variantSku");
    return storePlaceholder(
      base,
      undefined,
      `<span class="pb-button pb-button-primary">${txt(str(p, "label") ?? "Add to cart")}</span> for “${txt(slug)}”${sku ? ` (variant ${txt(sku)})` : ""}.`,
      {
        "data-product": slug,
        "data-variant-sku": sku,
      },
    );
  },
  "featured-products"(p, _c, _x, base) {
    const picked = textItems(p.productSlugs).slice(0, 24);
    if (picked.length)
      return storePlaceholder(base, str(p, "heading"), `Products: ${picked.map((x) => `“${txt(x)}”`).join(", ")}.`, {
        "data-products": picked.join(","),
      });
    const limit = int(p, "limit", 1, 24) ?? 4;
    return storePlaceholder(base, str(p, "heading"), `Featured products: up to ${limit}.`, {
      "data-limit": String(limit),
    });
  },
  "category-list"(p, _c, _x, base) {
    const parent = str(p, "parentSlug");
    return storePlaceholder(
      base,
      str(p, "heading"),
      parent ? `Sub-categories of “${txt(parent)}”.` : "Top-level product categories.",
      {
        "data-parent": parent,
      },
    );
  },
};

function storePlaceholder(
  base: Record<string, string | undefined>,
  heading: string | undefined,
  descriptionHtml: string,
  data: Record<string, string | undefined>,
): string {
  return `<div${attrs({ ...base, class: cls(base.class, "pb-placeholder"), ...data })}>${heading ? `<h2>${txt(heading)}</h2>` : ""}<p>${descriptionHtml}</p></div>`;
}

/** Block types with a renderer; the tests check this equals the catalog. */
export const RENDERED_TYPES: readonly string[] = Object.keys(RENDERERS);

function renderList(v: unknown, depth: number, ctx: Ctx): string {
  if (!Array.isArray(v) || depth > MAX_DEPTH) return "";
  let out = "";
  for (const b of v) {
    if (++ctx.count > MAX_BLOCKS) break;
    out += renderBlock(b, depth, ctx);
  }
  return out;
}

function renderBlock(b: unknown, depth: number, ctx: Ctx): string {
  if (typeof b !== "object" || b === null || Array.isArray(b)) return "";
  const block = b as Record<string, unknown>;
  const type = typeof block.type === "string" ? block.type : "";
  const props =
    typeof block.props === "object" && block.props !== null && !Array.isArray(block.props)
      ? (block.props as Props)
      : {};
  const id = typeof block.id === "string" ? block.id : undefined;
  const render = Object.hasOwn(RENDERERS, type) ? RENDERERS[type]! : undefined;
  if (!render) {
    return `<div${attrs({ class: "pb pb-unknown", "data-block-id": id })}>Unsupported block “${txt(type.slice(0, 64))}”.</div>`;
  }
  const children = renderList(block.children, depth + 1, ctx);
  return render(props, children, ctx, { class: `pb pb-${type}`, "data-block-id": id });
}

/**
 * HTML for block content (object or its JSON encoding). Returns the blocks
 * one after another, without a wrapper; pair with BLOCKS_PREVIEW_CSS.
 */
export function renderBlocksHtml(content: unknown, opts: RenderOptions = {}): string {
  if (typeof content === "string") {
    try {
      content = JSON.parse(content);
    } catch {
      return "";
    }
  }
  if (typeof content !== "object" || content === null) return "";
  const ctx: Ctx = { opts: { embeds: opts.embeds ?? "iframe", locale: opts.locale ?? "en-US" }, count: 0 };
  return renderList((content as { blocks?: unknown }).blocks, 1, ctx);
}

/** A small neutral stylesheet for previews of rendered blocks (classes prefixed `pb-`). */
export const BLOCKS_PREVIEW_CSS = `
.pb{margin:0 0 1.25rem}
.pb-align-center{text-align:center}.pb-align-right{text-align:right}
.pb-size-lg{font-size:1.2em}.pb-size-sm{font-size:.875em}
.pb-section{padding:2rem 1rem;background-size:cover;background-position:center}
.pb-pad-none{padding-block:0}.pb-pad-sm{padding-block:1rem}.pb-pad-lg{padding-block:3rem}.pb-pad-xl{padding-block:5rem}
.pb-columns{display:flex;gap:1.5rem}.pb-columns>.pb-column{flex:1 1 0%;min-width:0}
.pb-valign-center{align-items:center}.pb-valign-bottom{align-items:flex-end}
@media (max-width:640px){.pb-columns.pb-stack{flex-direction:column}}
.pb-grid,.pb-gallery{display:grid;grid-template-columns:repeat(var(--pb-cols,3),minmax(0,1fr));gap:1rem}
.pb-gap-none{gap:0}.pb-gap-sm{gap:.5rem}.pb-gap-lg{gap:2rem}.pb-gap-xl{gap:3rem}
.pb-space-xs{height:.5rem}.pb-space-sm{height:1rem}.pb-space-md{height:2rem}.pb-space-lg{height:4rem}.pb-space-xl{height:6rem}
.pb-hero{padding:4rem 1.5rem;background-size:cover;background-position:center;border-radius:.5rem;background-color:#f3f4f6}
.pb-hero.pb-overlay{box-shadow:inset 0 0 0 100vmax rgba(0,0,0,.45);color:#fff}
.pb-eyebrow{text-transform:uppercase;letter-spacing:.08em;font-size:.8em}
.pb-button{display:inline-block;padding:.6rem 1.1rem;border-radius:.375rem;text-decoration:none;margin:.25rem}
.pb-button-primary{background:#2563eb;color:#fff}.pb-button-secondary{background:#1e40af;color:#fff}
.pb-button-outline{border:1px solid currentColor}.pb-button-link{padding:0;text-decoration:underline}
.pb-card,.pb-tier,.pb-testimonial,.pb-placeholder{border:1px solid #e5e7eb;border-radius:.5rem;padding:1rem}
.pb-card img,.pb-image img,.pb-gallery img{max-width:100%;height:auto;display:block}
.pb-cta{padding:2rem;border-radius:.5rem;background:#f3f4f6}
.pb-tiers{display:flex;gap:1rem;flex-wrap:wrap}.pb-tier{flex:1 1 12rem}.pb-highlighted{border-color:#2563eb;border-width:2px}
.pb-price{font-size:1.5em;font-weight:700}
.pb-quote{border-left:4px solid #e5e7eb;padding-left:1rem;font-style:italic}
.pb-code pre{background:#111827;color:#f9fafb;padding:1rem;overflow:auto;border-radius:.375rem}
.pb-embed{position:relative;aspect-ratio:16/9}.pb-ratio-4-3{aspect-ratio:4/3}.pb-ratio-1-1{aspect-ratio:1}.pb-ratio-9-16{aspect-ratio:9/16}
.pb-embed iframe{width:100%;height:100%;border:0}
.pb-video video{max-width:100%}
.pb-divider-dashed{border-style:dashed}.pb-divider-dotted{border-style:dotted}
.pb-placeholder{background:#f9fafb;color:#374151}
.pb-rating{color:#f59e0b}
.pb-unknown{color:#b91c1c}
`;
