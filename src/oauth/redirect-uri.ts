/**
 * Redirect URIs: which ones a client may register, and whether a presented
 * one matches. Matching is exact string comparison (OAuth 2.1 §2.3.1), with
 * the one exception RFC 8252 §7.3 makes for native apps: a loopback redirect
 * may use any port, because the app picks a free one each time.
 */

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);
/** Schemes that would run code or read files in the browser, never a redirect target. */
const FORBIDDEN_SCHEMES = new Set(["javascript:", "data:", "file:", "vbscript:", "blob:", "about:", "filesystem:"]);
export const MAX_REDIRECT_URI = 2000;

function parse(uri: string): URL | null {
  try {
    return new URL(uri);
  } catch {
    return null;
  }
}

export function isLoopbackHttp(u: URL): boolean {
  return u.protocol === "http:" && LOOPBACK_HOSTS.has(u.hostname);
}

/** A character as a person can recognise it in an error message. */
function describeChar(ch: string): string {
  const names: Record<string, string> = {
    " ": "a space",
    "\t": "a tab",
    "\n": "a line feed",
    "\r": "a carriage return",
    "\u0000": "a NUL",
  };
  const code = `U+${ch.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;
  return names[ch] ? `${names[ch]} (${code})` : code;
}

function where(uri: string, index: number): string {
  return index === 0 ? "at the start" : index === uri.length - 1 ? "at the end" : `at position ${index + 1}`;
}

/** Characters URL parsers drop or rewrite: C0 and C1 controls, DEL, and every kind of space. */
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const SPACE = /[\s\u200b\ufeff]/;
const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * Why `uri` cannot be registered, or null when it can.
 *
 * A redirect URI must already be in canonical form: byte for byte what the
 * WHATWG URL parser serializes it to (`new URL(uri).href === uri`), with no
 * normalisation allowed, so what a person sees, what we store and compare,
 * and where a browser actually goes are one string. On top of that, the
 * percent-encoding must be RFC 3986 normal (§6.2.2): upper-case hex, and no
 * escapes of unreserved characters (the WHATWG parser keeps `%7e` and
 * `%41` as written). Each refusal names the problem and, where there is
 * one, the canonical form to register instead.
 */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length === 0) return "must be a non-empty string";
  if (uri.length > MAX_REDIRECT_URI) return `must be at most ${MAX_REDIRECT_URI} characters`;
  const control = CONTROL.exec(uri);
  if (control)
    return `must not contain control characters (found ${describeChar(control[0])} ${where(uri, control.index)})`;
  const space = SPACE.exec(uri);
  if (space) return `must not contain spaces (found ${describeChar(space[0])} ${where(uri, space.index)})`;
  if (uri.includes("\\")) return "must not contain backslashes";
  const u = parse(uri);
  if (!u) return "is not an absolute URI";
  const nonAscii = /[^\x00-\x7f]/u.exec(uri);
  if (nonAscii)
    return `must be ASCII (found ${describeChar(nonAscii[0])} ${where(uri, nonAscii.index)}); its canonical form is ${u.href}`;
  for (const m of uri.matchAll(/%(.{0,2})/g)) {
    const hex = m[1]!;
    if (!/^[0-9A-Fa-f]{2}$/.test(hex)) return `has a % not followed by two hex digits ${where(uri, m.index!)}`;
    if (hex !== hex.toUpperCase()) return `uses lower-case percent-encoding (%${hex}); write %${hex.toUpperCase()}`;
    const ch = String.fromCharCode(parseInt(hex, 16));
    if (UNRESERVED.test(ch)) return `percent-encodes "${ch}" (%${hex}), which must be written as is`;
  }
  if (uri.includes("#")) return "must not contain a fragment";
  if (u.username || u.password) return "must not contain credentials";
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `must not use the ${u.protocol} scheme`;
  if (u.protocol === "http:" && !isLoopbackHttp(u))
    return "must use https (plain http is allowed only for loopback addresses)";
  if (u.href !== uri) return `is not in canonical form; register it as ${u.href}`;
  return null;
}

const LOOPBACK_RE = /^http:\/\/(127\.0\.0\.1|\[::1\]|localhost)(?::\d{1,5})?([/?][^#]*)?$/;

/** Splits a loopback http URI into host and everything after the port, compared as raw text. */
function loopbackParts(uri: string): { host: string; rest: string } | null {
  const m = LOOPBACK_RE.exec(uri);
  return m ? { host: m[1]!, rest: m[2] ?? "" } : null;
}

/** True when `presented` is one of `registered`, exactly, or a loopback URI differing only in port. */
export function redirectUriMatches(registered: readonly string[], presented: string): boolean {
  if (registered.includes(presented)) return true;
  const p = loopbackParts(presented);
  if (!p) return false;
  return registered.some((r) => {
    const q = loopbackParts(r);
    return q !== null && q.host === p.host && q.rest === p.rest;
  });
}
