/**
 * Templates and the messages made from them.
 *
 * Template HTML is sanitised when saved (sanitize-html, an allow-list of the
 * tags and attributes email clients render: tables, inline styles, images,
 * links to http/https/mailto/tel) — it is shown on approval pages on our own
 * origin, and a hostile template must not run there. Variables are
 * `{{ name }}`, `{{ email }}`, `{{ attributes.company }}`, `{{ data.code }}`
 * (transactional), `{{ unsubscribe_url }}`, with a fallback after a bar:
 * `{{ name | there }}`. Every value is HTML-escaped into the HTML part (an
 * attribute value that would become a javascript: or data: URL is dropped),
 * inserted as is into the text part, and folded onto one line in subjects.
 *
 * The plain-text part is generated from the HTML (html-to-text) when the
 * template gives none. Every campaign message gets a footer with the
 * unsubscribe link unless its HTML already places {{ unsubscribe_url }}.
 */
import { convert } from "html-to-text";
import sanitizeHtml from "sanitize-html";
import { escapeHtml } from "../../core/public-page";
import type { Attributes } from "./tables";

export const TEMPLATE_LIMITS = { html: 500_000, text: 200_000 } as const;

const EXTRA_TAGS = [
  "img",
  "center",
  "font",
  "span",
  "div",
  "table",
  "thead",
  "tbody",
  "tfoot",
  "tr",
  "td",
  "th",
  "hr",
  "br",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
  "sup",
  "sub",
  "small",
  "u",
  "s",
];
const CELL = ["align", "valign", "width", "height", "bgcolor", "colspan", "rowspan"];

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...new Set([...sanitizeHtml.defaults.allowedTags, ...EXTRA_TAGS])],
  allowedAttributes: {
    "*": ["style", "align", "dir", "lang", "title", "role", "class", "width", "height", "bgcolor"],
    a: ["href", "name", "target", "rel"],
    img: ["src", "alt", "width", "height", "border"],
    table: ["cellpadding", "cellspacing", "border", "width", "align", "bgcolor", "role"],
    td: CELL,
    th: CELL,
    font: ["color", "face", "size"],
  },
  allowedSchemes: ["http", "https", "mailto", "tel"],
  allowedSchemesByTag: { img: ["http", "https", "cid"] },
  allowProtocolRelative: false,
  // <style>, <script>, <iframe>, forms and their contents are dropped entirely.
  nonTextTags: ["style", "script", "textarea", "option", "noscript", "title", "head"],
};

/** Template HTML as stored: only what email clients render and nothing that runs. */
export function sanitizeTemplate(html: string): string {
  return sanitizeHtml(html, SANITIZE).trim();
}

const HEADINGS = ["h1", "h2", "h3", "h4", "h5", "h6"].map((selector) => ({ selector, options: { uppercase: false } }));

/** The text part made from HTML: links kept as "text [url]", headings as written. */
export function htmlToText(html: string): string {
  return convert(html, { wordwrap: 78, selectors: [...HEADINGS, { selector: "img", format: "skip" }] }).trim();
}

export interface Vars {
  name: string | null;
  email: string;
  attributes: Attributes;
  data?: Record<string, unknown>;
  unsubscribeUrl?: string | null;
  subject?: string;
}

const VAR = /\{\{\s*([a-zA-Z_][\w.-]{0,100})\s*(?:\|\s*([^}]{0,200}?)\s*)?\}\}/g;
const KNOWN_ROOTS = new Set(["name", "email", "attributes", "data", "unsubscribe_url", "subject"]);

function lookup(vars: Vars, path: string): string | null {
  const [root, ...rest] = path.split(".");
  let v: unknown;
  if (root === "name") v = vars.name;
  else if (root === "email") v = vars.email;
  else if (root === "unsubscribe_url") v = vars.unsubscribeUrl ?? null;
  else if (root === "subject") v = vars.subject ?? null;
  else if (root === "attributes") v = rest.length === 1 ? vars.attributes[rest[0]!] : null;
  else if (root === "data") {
    v = vars.data;
    for (const k of rest)
      v = v && typeof v === "object" && Object.hasOwn(v as object, k) ? (v as Record<string, unknown>)[k] : null;
  }
  if (v === null || v === undefined || v === "") return null;
  if (typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** Variables a template uses that no message can fill (a typo such as {{ nmae }}). */
export function unknownVariables(template: string): string[] {
  const out = new Set<string>();
  for (const m of template.matchAll(VAR)) if (!KNOWN_ROOTS.has(m[1]!.split(".")[0]!)) out.add(m[1]!);
  return [...out];
}

function fill(template: string, vars: Vars, encode: (s: string) => string): string {
  return template.replace(VAR, (_all, path: string, fallback: string | undefined) => {
    const v = lookup(vars, path) ?? (fallback !== undefined ? fallback.replace(/^["']|["']$/g, "") : "");
    return encode(v);
  });
}

/** URLs in href/src that a variable turned into something other than a web or mail address. */
const UNSAFE_URL_ATTR = /\b(href|src)\s*=\s*"\s*(?!https?:|mailto:|tel:|cid:|#|\/)([a-z][a-z0-9+.-]*):[^"]*"/gi;

export function fillHtml(html: string, vars: Vars): string {
  return fill(html, vars, escapeHtml).replace(UNSAFE_URL_ATTR, '$1="#"');
}
export function fillText(text: string, vars: Vars): string {
  return fill(text, vars, (s) => s);
}
export function fillSubject(subject: string, vars: Vars): string {
  return fill(subject, vars, (s) => s)
    .replace(/[\u0000-\u001f\u007f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()
    .slice(0, 900);
}

export interface MessageParts {
  subject: string;
  html: string;
  text: string;
}

export interface CampaignContent {
  subject: string;
  preheader: string | null;
  html: string;
  text: string;
  trackOpens?: boolean;
  trackClicks?: boolean;
}

export interface Links {
  unsubscribeUrl: string;
  openUrl?: string;
  /** Tracked address of the n-th link (0-based). */
  clickUrl?: (n: number) => string;
}

const HTTP_LINK = /(<a\b[^>]*?\bhref=")(https?:[^"]*)(")/gi;

function unescapeAttr(v: string): string {
  return v
    .replace(/&amp;/g, "&")
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&lt;/g, "<")
    .replace(/&gt;/g, ">");
}

/**
 * Whether click tracking may rewrite a link. The unsubscribe link never is:
 * it must work for every recipient as mailed (a tracked copy would have to be
 * found again by re-rendering the message, and the one-click and page flows
 * key on its own token), and mail clients and filters distrust an
 * unsubscribe link that goes through a redirect.
 */
function trackable(url: string, unsubscribeUrl: string | null): boolean {
  return !unsubscribeUrl || url !== unsubscribeUrl;
}

/**
 * The n-th tracked link of a rendered HTML part, in document order (what a
 * tracked click redirects to). Counted exactly as trackClicks numbers them:
 * http(s) links other than the unsubscribe link.
 */
export function linkAt(html: string, n: number, unsubscribeUrl: string | null = null): string | null {
  let i = 0;
  for (const m of html.matchAll(HTTP_LINK)) {
    const url = unescapeAttr(m[2]!);
    if (!trackable(url, unsubscribeUrl)) continue;
    if (i === n) return url;
    i++;
  }
  return null;
}

function trackClicks(html: string, clickUrl: (n: number) => string, unsubscribeUrl: string): string {
  let i = 0;
  return html.replace(HTTP_LINK, (all, a: string, url: string, b: string) =>
    trackable(unescapeAttr(url), unsubscribeUrl) ? `${a}${escapeHtml(clickUrl(i++))}${b}` : all,
  );
}

/** A whole email document around a body: what clients expect (doctype, viewport, a centred 600px column). */
function documentFor(body: string, subject: string, preheader: string | null): string {
  const pre = preheader
    ? `<div style="display:none;max-height:0;overflow:hidden;opacity:0;mso-hide:all">${escapeHtml(preheader)}${"&#847;&zwnj;&nbsp;".repeat(20)}</div>`
    : "";
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(subject)}</title></head><body style="margin:0;padding:0">${pre}<div style="max-width:600px;margin:0 auto;padding:16px">${body}</div></body></html>`;
}

/**
 * One recipient's message for a campaign (or a test of it): variables
 * filled, unsubscribe footer, optional open pixel and click tracking.
 */
export function renderCampaignMessage(
  c: CampaignContent,
  vars: Vars,
  links: Links,
  footerWords = "You receive this because you subscribed.",
): MessageParts {
  const v = { ...vars, unsubscribeUrl: links.unsubscribeUrl };
  const subject = fillSubject(c.subject, v);
  let body = fillHtml(c.html, { ...v, subject });
  const placed = /\{\{\s*unsubscribe_url\b/.test(c.html);
  if (!placed)
    body += `<p style="margin-top:32px;font-size:12px;color:#6b7280">${escapeHtml(footerWords)} <a href="${escapeHtml(links.unsubscribeUrl)}">Unsubscribe</a></p>`;
  if (c.trackClicks && links.clickUrl) body = trackClicks(body, links.clickUrl, links.unsubscribeUrl);
  if (c.trackOpens && links.openUrl)
    body += `<img src="${escapeHtml(links.openUrl)}" width="1" height="1" alt="" style="display:block;border:0">`;
  let text = fillText(c.text, { ...v, subject });
  if (!/\{\{\s*unsubscribe_url\b/.test(c.text)) text += `\n\n--\n${footerWords}\nUnsubscribe: ${links.unsubscribeUrl}`;
  return { subject, html: documentFor(body, subject, c.preheader ? fillSubject(c.preheader, v) : null), text };
}

/** A transactional message: variables filled, no footer, no tracking. */
export function renderTransactional(t: { subject: string; html: string; text: string }, vars: Vars): MessageParts {
  const subject = fillSubject(t.subject, vars);
  return {
    subject,
    html: documentFor(fillHtml(t.html, { ...vars, subject }), subject, null),
    text: fillText(t.text, { ...vars, subject }),
  };
}

/** The body of a rendered message (for previews shown inside another page). */
export function bodyOf(html: string): string {
  const m = /<body[^>]*>([\s\S]*)<\/body>/i.exec(html);
  return m ? m[1]! : html;
}
