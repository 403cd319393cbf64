/**
 * What every page the public uses without signing in shares (approval
 * links, and domains' public pages: surveys, decks, booking pages, the chat
 * widget's frames, unsubscribe): escaped output, a per-response CSP nonce,
 * no framing, and form posts refused unless they come from this service
 * itself (Origin / Sec-Fetch-Site) and echo the double-submit cookie.
 *
 * Pages are strings built with `escapeHtml` around every value a visitor or
 * an agent wrote; the only raw HTML is what the blocks renderer produced
 * (itself escaped and sanitised).
 */
import type { Context } from "hono";
import { getCookie, setCookie } from "hono/cookie";
import { getConnInfo } from "hono/bun";
import type { Deps } from "./context";
import { randomHex, safeEqual } from "./secrets";

const ESC: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text made safe for HTML element content and quoted attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESC[c]!);
}

/** The peer address of the connection (not a forwarded header, which anyone can send). */
export function clientAddress(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "unknown";
  } catch {
    return "unknown";
  }
}

export interface SecurityOptions {
  /** Allow this response's nonce-carrying <script> (a deck's keyboard navigation). Pages work without it. */
  script?: boolean;
  /** Let the page post its forms only here (default) or nowhere. */
  formAction?: "self" | "none";
  /** Cache-Control; default no-store. Published pages served from a version-keyed cache say so. */
  cacheControl?: string;
  /** May be framed by any site (the chat widget's frame). Default: never framed. */
  frameable?: boolean;
}

export function securityHeaders(c: Context, nonce: string, o: SecurityOptions = {}) {
  c.header(
    "Content-Security-Policy",
    [
      "default-src 'none'",
      `style-src 'nonce-${nonce}'`,
      // Rendered blocks carry sanitised style attributes (colours, background images, column widths).
      "style-src-attr 'unsafe-inline'",
      ...(o.script ? [`script-src 'nonce-${nonce}'`, "connect-src 'self'"] : []),
      "img-src 'self' https: http: data:",
      "media-src 'self' https: http:",
      "font-src 'self' https:",
      `form-action ${o.formAction === "none" ? "'none'" : "'self'"}`,
      `frame-ancestors ${o.frameable ? "*" : "'none'"}`,
      "base-uri 'none'",
    ].join("; "),
  );
  c.header("X-Content-Type-Options", "nosniff");
  if (!o.frameable) c.header("X-Frame-Options", "DENY");
  c.header("Referrer-Policy", "same-origin");
  c.header("Cache-Control", o.cacheControl ?? "no-store");
}

export interface PublicPageOptions {
  title: string;
  nonce: string;
  /** The page's HTML, every interpolated value escaped by the caller. */
  body: string;
  /** <html lang>; default en. */
  lang?: string;
  css?: string;
  /** Inline script run with the nonce (needs `script: true` in securityHeaders). */
  script?: string;
  /** Search engines may index it (a published deck); default noindex. */
  indexable?: boolean;
  /** The site's own icon (its branding faviconUrl); default the service's /favicon.ico (src/core/favicon.ts). */
  icon?: string | null;
}

/** The icon links of a public page: the site's icon when it has one, else the service's own. */
export function iconLinks(siteIcon?: string | null): string {
  return siteIcon
    ? `<link rel="icon" href="${escapeHtml(siteIcon)}">`
    : `<link rel="icon" href="/favicon.ico" sizes="32x32"><link rel="icon" href="/favicon.svg" type="image/svg+xml">`;
}

export function publicPage(o: PublicPageOptions): string {
  return `<!doctype html>
<html lang="${escapeHtml(o.lang ?? "en")}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="same-origin">
${iconLinks(o.icon)}
${o.indexable ? "" : `<meta name="robots" content="noindex,nofollow">\n`}<title>${escapeHtml(o.title)}</title>
${o.css ? `<style nonce="${escapeHtml(o.nonce)}">${o.css}</style>` : ""}
</head><body>
${o.body}
${o.script ? `<script nonce="${escapeHtml(o.nonce)}">${o.script}</script>` : ""}
</body></html>`;
}

/** A new nonce for one response. */
export const newNonce = () => randomHex(16);

/**
 * The post comes from a page of this service: Sec-Fetch-Site same-origin
 * (or none: typed by the person) and, when sent, an Origin that is the
 * public URL's or the request's own. A sibling subdomain (same-site) is
 * another site.
 */
export function sameOrigin(c: Context, deps: Pick<Deps, "config">): boolean {
  const site = c.req.header("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none") return false;
  const origin = c.req.header("origin");
  if (!origin) return true;
  const own = new Set([new URL(deps.config.publicUrl).origin, new URL(c.req.url).origin]);
  const host = c.req.header("host");
  if (host) for (const scheme of ["http", "https"]) own.add(`${scheme}://${host}`);
  return own.has(origin);
}

/**
 * The double-submit token for forms under `path`: a SameSite=Strict cookie
 * the form echoes in a hidden `csrf` field. Returns the value to put there.
 */
export function csrfToken(c: Context, deps: Pick<Deps, "config">, cookie: string, path: string): string {
  const existing = getCookie(c, cookie);
  const value = existing && /^[0-9a-f]{32}$/.test(existing) ? existing : randomHex(16);
  setCookie(c, cookie, value, {
    path,
    httpOnly: true,
    sameSite: "Strict",
    secure: deps.config.publicUrl.startsWith("https:"),
    maxAge: 60 * 60 * 24,
  });
  return value;
}

export function csrfMatches(c: Context, cookie: string, form: URLSearchParams): boolean {
  const have = getCookie(c, cookie) ?? "";
  const sent = form.get("csrf") ?? "";
  return have !== "" && sent !== "" && safeEqual(have, sent);
}

/** A form body (urlencoded or multipart text fields) of at most `maxBytes`. */
export async function readForm(c: Context, maxBytes: number): Promise<URLSearchParams | "too_large" | "bad_type"> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type) && !/^multipart\/form-data\b/i.test(type)) return "bad_type";
  const len = Number(c.req.header("content-length") ?? "0");
  if (len > maxBytes) return "too_large";
  if (/^multipart/i.test(type)) {
    const body = await c.req.parseBody({ all: true });
    const p = new URLSearchParams();
    for (const [k, v] of Object.entries(body))
      for (const x of Array.isArray(v) ? v : [v]) if (typeof x === "string") p.append(k, x);
    return p;
  }
  const text = await c.req.text();
  if (text.length > maxBytes) return "too_large";
  return new URLSearchParams(text);
}

/**
 * A field people never see and bots fill in. Named like a real field so
 * form-filling bots take it; hidden from people and screen readers.
 */
export const HONEYPOT_FIELD = "website";
export function honeypotHtml(): string {
  return `<div aria-hidden="true" style="position:absolute;left:-10000px;top:auto;width:1px;height:1px;overflow:hidden"><label>Website <input type="text" name="${HONEYPOT_FIELD}" tabindex="-1" autocomplete="off"></label></div>`;
}
export function honeypotFilled(form: URLSearchParams): boolean {
  return (form.get(HONEYPOT_FIELD) ?? "") !== "";
}
