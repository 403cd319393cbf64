/**
 * Strong ETags for REST v1, decided without running the content query.
 *
 * A response body is a pure function of (site, the site's content version,
 * operation, validated parameters) — every write that changes what REST
 * serves bumps the content version (src/domains/sites/content-version.ts) — and of
 * the code that renders it. So the ETag hashes that basis plus a salt drawn
 * once per process: a new release (or a restart) can never revalidate a body
 * an older one produced. Which key asked is not part of the basis: any key
 * of the site gets the same bytes.
 */
import { randomBytes } from "node:crypto";

const SALT_A = randomBytes(8).readBigUInt64LE();
const SALT_B = randomBytes(8).readBigUInt64LE();

/** `"<32 hex>"`: two independently seeded 64-bit hashes of the basis. */
export function etagFor(basis: string): string {
  const a = Bun.hash.wyhash(basis, SALT_A).toString(16).padStart(16, "0");
  const b = Bun.hash.wyhash(basis, SALT_B).toString(16).padStart(16, "0");
  return `"${a}${b}"`;
}

/** `If-None-Match: *`: matches any current representation, so the caller must first know one exists. */
export function isStar(header: string | undefined | null): boolean {
  return !!header && header.trim() === "*";
}

/**
 * If-None-Match semantics (RFC 9110 13.1.2) for listed tags: any equal to
 * ours under weak comparison (a W/ prefix is ignored). `*` is not handled
 * here (see isStar).
 */
export function ifNoneMatchHits(header: string | undefined | null, etag: string): boolean {
  if (!header) return false;
  for (let tag of header.split(",")) {
    tag = tag.trim();
    if (tag.startsWith("W/")) tag = tag.slice(2);
    if (tag === etag) return true;
  }
  return false;
}
