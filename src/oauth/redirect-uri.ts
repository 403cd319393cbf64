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

/** Why `uri` cannot be registered, or null when it can. */
export function redirectUriProblem(uri: unknown): string | null {
  if (typeof uri !== "string" || uri.length === 0) return "must be a non-empty string";
  if (uri.length > MAX_REDIRECT_URI) return `must be at most ${MAX_REDIRECT_URI} characters`;
  const u = parse(uri);
  if (!u) return "is not an absolute URI";
  if (uri.includes("#")) return "must not contain a fragment";
  if (u.username || u.password) return "must not contain credentials";
  if (FORBIDDEN_SCHEMES.has(u.protocol)) return `must not use the ${u.protocol} scheme`;
  if (u.protocol === "http:" && !isLoopbackHttp(u)) return "must use https (plain http is allowed only for loopback addresses)";
  if (!/^[a-z][a-z0-9+.\-]*:$/.test(u.protocol)) return "has an invalid scheme";
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
