/**
 * REST read keys: `svc_live_` + 64 hex, each tied to one site, optionally
 * expiring, revocable. Only the SHA-256 of a key is stored; a presented key
 * is hashed, looked up through the unique index on the hash, and the stored
 * hash is compared again in constant time before it is trusted.
 *
 * Issued from the CLI (`plinth keys create`); resolved on every keyed REST call.
 */
import { asc, eq } from "drizzle-orm";
import * as v from "valibot";
import { iso } from "../../core/clock";
import type { Deps } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { hasShape, KEY_PREFIX, mintSecret, safeEqual, sha256Hex } from "../../core/secrets";
import { restKeys, sites } from "./tables";

export const MAX_KEY_NAME = 100;
/** last_used_at is written at most this often per key: a busy key costs one write a second, not one per request. */
export const LAST_USED_RESOLUTION_MS = 1000;

const CreateInput = v.object({
  siteId: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER)),
  name: v.optional(
    v.pipe(
      v.string(),
      v.trim(),
      v.minLength(1, "name must not be empty"),
      v.maxLength(MAX_KEY_NAME, `name is at most ${MAX_KEY_NAME} characters`),
      // Names are printed in `plinth keys list`; control characters would garble the table.
      v.regex(/^[^\x00-\x1f\x7f]*$/, "name must not contain control characters"),
    ),
  ),
  expiresAt: v.optional(v.date()),
});

export interface CreatedRestKey {
  id: number;
  siteId: number;
  name: string;
  hint: string;
  /** The secret, shown once. */
  key: string;
  expiresAt: string | null;
}

export function createRestKey(deps: Deps, input: v.InferInput<typeof CreateInput>): CreatedRestKey {
  const parsed = v.safeParse(CreateInput, input);
  if (!parsed.success) throw invalid(parsed.issues[0].message);
  const { siteId, expiresAt } = parsed.output;
  const now = deps.clock.now();
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw invalid("expiry must be in the future");
  const site = deps.db.select({ id: sites.id }).from(sites).where(eq(sites.id, siteId)).get();
  if (!site) throw notFound(`Site ${siteId} not found`);
  const { secret, hash, hint } = mintSecret(KEY_PREFIX.rest);
  const name = parsed.output.name ?? "REST key";
  const row = deps.db
    .insert(restKeys)
    .values({ siteId, name, hint, secretHash: hash, expiresAt: expiresAt ?? null, createdAt: now })
    .returning({ id: restKeys.id })
    .get();
  return { id: row.id, siteId, name, hint, key: secret, expiresAt: iso(expiresAt) };
}

export interface RestKeyInfo {
  id: number;
  siteId: number;
  name: string;
  hint: string;
  createdAt: string;
  lastUsedAt: string | null;
  expiresAt: string | null;
  revokedAt: string | null;
}

function info(r: typeof restKeys.$inferSelect): RestKeyInfo {
  return {
    id: r.id,
    siteId: r.siteId,
    name: r.name,
    hint: r.hint,
    createdAt: iso(r.createdAt)!,
    lastUsedAt: iso(r.lastUsedAt),
    expiresAt: iso(r.expiresAt),
    revokedAt: iso(r.revokedAt),
  };
}

/** The keys of a site, oldest first. Never includes secrets (they are not stored). */
export function listRestKeys(deps: Deps, siteId: number): RestKeyInfo[] {
  const site = deps.db.select({ id: sites.id }).from(sites).where(eq(sites.id, siteId)).get();
  if (!site) throw notFound(`Site ${siteId} not found`);
  return deps.db.select().from(restKeys).where(eq(restKeys.siteId, siteId)).orderBy(asc(restKeys.id)).all().map(info);
}

/** Revokes a key at once; the next request with it gets 401. Revoking twice is a conflict, not a silent success. */
export function revokeRestKey(deps: Deps, id: number): RestKeyInfo {
  const row = deps.db.select().from(restKeys).where(eq(restKeys.id, id)).get();
  if (!row) throw notFound(`REST key ${id} not found`);
  if (row.revokedAt) throw conflict(`REST key ${id} was already revoked at ${iso(row.revokedAt)}`);
  const updated = deps.db.update(restKeys).set({ revokedAt: deps.clock.now() }).where(eq(restKeys.id, id)).returning().get();
  return info(updated);
}

/** A key that may be used right now. */
export interface ResolvedRestKey {
  id: number;
  siteId: number;
}

/** What a lookup by hash returns: enough to decide usability and to coalesce last-used writes. */
export interface RestKeyRecord {
  id: number;
  siteId: number;
  secretHash: string;
  expiresAt: number | null;
  revokedAt: number | null;
  lastUsedAt: number | null;
}

type KeyRow = { id: number; site_id: number; secret_hash: string; expires_at: number | null; revoked_at: number | null; last_used_at: number | null };

function prepare(deps: Deps) {
  return {
    byHash: deps.store.sqlite.prepare<KeyRow, [string]>(
      "SELECT id, site_id, secret_hash, expires_at, revoked_at, last_used_at FROM rest_keys WHERE secret_hash = ?",
    ),
    touch: deps.store.sqlite.prepare<unknown, [number, number]>("UPDATE rest_keys SET last_used_at = ? WHERE id = ?"),
  };
}

// Statements are prepared once per open database (lookups run on every keyed request).
const statements = new WeakMap<object, ReturnType<typeof prepare>>();
function stmts(deps: Deps) {
  let s = statements.get(deps.store.sqlite);
  if (!s) {
    s = prepare(deps);
    statements.set(deps.store.sqlite, s);
  }
  return s;
}

/** The stored hash of a presented secret, or null when it is not even shaped like a REST key (no lookup needed). */
export function restKeyHash(presented: string): string | null {
  return hasShape(presented, KEY_PREFIX.rest) ? sha256Hex(presented) : null;
}

/** The key row with this secret hash, or null. The index finds it; the constant-time compare confirms it. */
export function findRestKeyByHash(deps: Deps, hash: string): RestKeyRecord | null {
  const r = stmts(deps).byHash.get(hash);
  if (!r || !safeEqual(r.secret_hash, hash)) return null;
  return { id: r.id, siteId: r.site_id, secretHash: r.secret_hash, expiresAt: r.expires_at, revokedAt: r.revoked_at, lastUsedAt: r.last_used_at };
}

/** Usable now: not revoked, not expired. */
export function restKeyUsable(k: RestKeyRecord, nowMs: number): boolean {
  return k.revokedAt === null && (k.expiresAt === null || k.expiresAt > nowMs);
}

/**
 * Records a use. Writes only when the stored time is at least
 * LAST_USED_RESOLUTION_MS old, and updates `k` to match; returns whether it wrote.
 */
export function touchRestKey(deps: Deps, k: RestKeyRecord, nowMs: number): boolean {
  if (k.lastUsedAt !== null && nowMs - k.lastUsedAt < LAST_USED_RESOLUTION_MS) return false;
  stmts(deps).touch.run(nowMs, k.id);
  k.lastUsedAt = nowMs;
  return true;
}

/**
 * The key behind a presented secret, or null when the secret is malformed,
 * unknown, revoked or expired (callers answer all of these alike, so a
 * caller learns nothing about which). Records the use.
 */
export function resolveRestKey(deps: Deps, presented: string): ResolvedRestKey | null {
  const hash = restKeyHash(presented);
  const k = hash && findRestKeyByHash(deps, hash);
  if (!k) return null;
  const now = deps.clock.ms();
  if (!restKeyUsable(k, now)) return null;
  touchRestKey(deps, k, now);
  return { id: k.id, siteId: k.siteId };
}
