/**
 * Secrets: generation, hashing for storage, constant-time comparison.
 * Secrets (API keys, OAuth tokens, approval tokens, session ids) are stored
 * only as SHA-256 digests: they are 256-bit random values, so a slow hash adds
 * nothing, while a fast one keeps per-request lookups cheap. Passwords are
 * the exception and use Bun.password (argon2id) in the accounts domain.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export function randomHex(bytes = 32): string {
  return randomBytes(bytes).toString("hex");
}

export function sha256Hex(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Compare two strings without leaking, through timing, where they differ. */
export function safeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    // Still spend the time of a comparison so length is the only thing learnt.
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}

export const KEY_PREFIX = {
  rest: "svc_live_",
  mcp: "svc_mcp_",
  oauth: "svc_oauth_",
  refresh: "svc_refresh_",
} as const;

/** A new credential: the secret shown once, and what we store. */
export function mintSecret(prefix: string, bytes = 32) {
  const secret = prefix + randomHex(bytes);
  return { secret, hash: sha256Hex(secret), hint: secret.slice(0, prefix.length + 6) };
}

/** Shape check before any database lookup: `prefix` + exactly `hexLen` lowercase hex. */
export function hasShape(token: string, prefix: string, hexLen = 64): boolean {
  if (!token.startsWith(prefix) || token.length !== prefix.length + hexLen) return false;
  for (let i = prefix.length; i < token.length; i++) {
    const c = token.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}
