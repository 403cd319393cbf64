/**
 * Which URLs block content may carry. Shared by the validator (reject on
 * write, with a reason a model can act on) and the renderer (drop on output,
 * as a second line of defence for rows written before a rule existed).
 *
 * Allowed: absolute http(s), mailto:, tel:, and site-relative references
 * (`/shop`, `#faq`, `?page=2`, `guides/espresso`). Refused: every other scheme
 * (javascript:, data:, vbscript:, file: …), protocol-relative `//host` and
 * the `/\host` / `\host` forms browsers treat the same way, and any
 * whitespace or control character, because browsers silently strip those
 * (`java\tscript:` becomes `javascript:`).
 *
 * @public Serves every domain that stores a URL someone will open (cms,
 * decks, branding, store, surveys, bookings).
 */
import { MAX_URL } from "./catalog";

const SCHEME_RE = /^([A-Za-z][A-Za-z0-9+.-]*):/;
const ALLOWED_SCHEMES = new Set(["http", "https", "mailto", "tel"]);

/** Why `s` is not an acceptable URL, or null when it is. */
export function urlProblem(s: string, httpsOnly = false): string | null {
  if (s.length === 0) return "must not be empty";
  if (s.length > MAX_URL) return `must be at most ${MAX_URL} characters`;
  // Whitespace and controls (incl. U+0000–U+0020, U+007F–U+00A0, line/paragraph separators).
  if (/[\u0000-\u0020\u007f-\u00a0\u2028\u2029\ufeff]/.test(s))
    return "must not contain spaces or control characters (percent-encode them)";
  const m = SCHEME_RE.exec(s);
  if (m) {
    const scheme = m[1]!.toLowerCase();
    if (httpsOnly && scheme !== "https") return "must be an absolute https:// URL";
    if (!ALLOWED_SCHEMES.has(scheme))
      return `scheme "${scheme}:" is not allowed; use http(s), mailto:, tel: or a relative URL`;
    if (scheme === "http" || scheme === "https") {
      if (!/^https?:\/\/[^/\\?#]/i.test(s)) return "must be a full URL like https://example.com/path";
      try {
        new URL(s);
      } catch {
        return "is not a valid URL";
      }
    }
    return null;
  }
  if (httpsOnly) return "must be an absolute https:// URL";
  if (s.startsWith("//") || s.startsWith("/\\") || s.startsWith("\\"))
    return "protocol-relative URLs are not allowed; write https://…";
  return null;
}

/** `s` if it is an acceptable URL, else null: what renderers put in href/src. */
export function safeUrl(s: unknown, httpsOnly = false): string | null {
  return typeof s === "string" && urlProblem(s, httpsOnly) === null ? s : null;
}
