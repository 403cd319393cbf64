/**
 * Who is calling REST v1 (interface.md 5.1), decided once per request.
 *
 * A key travels as `Authorization: Bearer <key>` or `x-api-key: <key>`; the
 * Authorization header is checked first, and when it carries a Bearer token
 * that token is the credential, whatever x-api-key says. An Authorization
 * header with another scheme (say Basic, added by a proxy) is not a REST key
 * and is passed over for x-api-key.
 *
 * A header that is present but empty or malformed counts as a presented,
 * invalid key: a renderer whose key variable is unset should hear about it.
 * The key itself is resolved (and cached) by hot-lookups.ts.
 */
import { KEY_PREFIX } from "../core/secrets";
import type { ResolvedRestKey } from "../domains/sites/rest-keys";

export interface Caller {
  /** A key header was sent (even an empty or bogus one). */
  presented: boolean;
  /** The valid, unexpired, unrevoked key it named; null otherwise. */
  key: ResolvedRestKey | null;
  /** The key's rate-limit bucket; null when the caller is limited by address. */
  bucket: string | null;
}

const BEARER = /^bearer(?:\s+(.*))?$/i;
const BEARER_EXACT_LENGTH = "Bearer ".length + KEY_PREFIX.rest.length + 64;

export function presentedKey(headers: Headers): string | null {
  const authz = headers.get("authorization");
  // The common, exact form first ("Bearer " + a key-length token): it needs no regular expression.
  if (authz !== null && authz.length === BEARER_EXACT_LENGTH && authz.startsWith("Bearer ") && authz.charCodeAt(7) > 32)
    return authz.slice(7);
  if (authz !== null) {
    const m = BEARER.exec(authz.trim());
    if (m) return (m[1] ?? "").trim();
  }
  const x = headers.get("x-api-key");
  return x === null ? null : x.trim();
}

export const MSG_KEY_REQUIRED = "API key required";
export const MSG_INVALID_KEY = "Invalid API key";
/** RFC 9110 wants a challenge on every 401. */
export const WWW_AUTHENTICATE = 'Bearer realm="plinth-rest"';
