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
import { then, type MaybePromise } from "../../core/maybe";
import { hasShape, KEY_PREFIX, mintSecret, safeEqual, sha256Hex } from "../../core/secrets";
import { restKeys, sites } from "./tables";
import { idSchema } from "../../core/fields";

export const MAX_KEY_NAME = 100;
/** last_used_at is written at most this often per key: a busy key costs one write a second, not one per request. */
export const LAST_USED_RESOLUTION_MS = 1000;

const CreateInput = v.object({
  siteId: idSchema,
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

export async function createRestKey(deps: Deps, input: v.InferInput<typeof CreateInput>): Promise<CreatedRestKey> {
  const parsed = v.safeParse(CreateInput, input);
  if (!parsed.success) throw invalid(parsed.issues[0].message);
  const { siteId, expiresAt } = parsed.output;
  const now = deps.clock.now();
  if (expiresAt && expiresAt.getTime() <= now.getTime()) throw invalid("expiry must be in the future");
  const site = (await deps.db.select({ id: sites.id }).from(sites).where(eq(sites.id, siteId)).limit(1))[0];
  if (!site) throw notFound(`Site ${siteId} not found`);
  const { secret, hash, hint } = mintSecret(KEY_PREFIX.rest);
  const name = parsed.output.name ?? "REST key";
  const row = (
    await deps.db
      .insert(restKeys)
      .values({ siteId, name, hint, secretHash: hash, expiresAt: expiresAt ?? null, createdAt: now })
      .returning({ id: restKeys.id })
  )[0];
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
export async function listRestKeys(deps: Deps, siteId: number): Promise<RestKeyInfo[]> {
  const site = (await deps.db.select({ id: sites.id }).from(sites).where(eq(sites.id, siteId)).limit(1))[0];
  if (!site) throw notFound(`Site ${siteId} not found`);
  return (await deps.db.select().from(restKeys).where(eq(restKeys.siteId, siteId)).orderBy(asc(restKeys.id))).map(info);
}

/** Revokes a key at once; the next request with it gets 401. Revoking twice is a conflict, not a silent success. */
export async function revokeRestKey(deps: Deps, id: number): Promise<RestKeyInfo> {
  const row = (await deps.db.select().from(restKeys).where(eq(restKeys.id, id)).limit(1))[0];
  if (!row) throw notFound(`REST key ${id} not found`);
  if (row.revokedAt) throw conflict(`REST key ${id} was already revoked at ${iso(row.revokedAt)}`);
  const updated = (
    await deps.db.update(restKeys).set({ revokedAt: deps.clock.now() }).where(eq(restKeys.id, id)).returning()
  )[0];
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

/** Times as each engine's raw driver returns them: epoch ms (SQLite), timestamptz text (PostgreSQL). */
type RawTime = number | string | null;
type KeyRow = {
  id: number;
  site_id: number;
  secret_hash: string;
  expires_at: RawTime;
  revoked_at: RawTime;
  last_used_at: RawTime;
};

const ms = (t: RawTime) => (t === null ? null : typeof t === "number" ? t : Date.parse(t));

/**
 * The lookup by hash, prepared once per store: a synchronous bun:sqlite
 * statement on SQLite (a keyed REST request needs no promise), a prepared
 * postgres.js query on PostgreSQL.
 */
const byHashLookups = new WeakMap<object, (hash: string) => MaybePromise<KeyRow | undefined>>();
function byHash(deps: Deps) {
  const { store } = deps;
  let lookup = byHashLookups.get(store);
  if (lookup) return lookup;
  if (store.sqlite) {
    const stmt = store.sqlite.prepare<KeyRow, [string]>(
      "SELECT id, site_id, secret_hash, expires_at, revoked_at, last_used_at FROM rest_keys WHERE secret_hash = ?",
    );
    lookup = (hash) => stmt.get(hash) ?? undefined;
  } else {
    const pg = store.pg!;
    lookup = async (hash) =>
      (
        await pg<
          KeyRow[]
        >`SELECT id, site_id, secret_hash, expires_at, revoked_at, last_used_at FROM rest_keys WHERE secret_hash = ${hash}`
      )[0];
  }
  byHashLookups.set(store, lookup);
  return lookup;
}

/** The stored hash of a presented secret, or null when it is not even shaped like a REST key (no lookup needed). */
export function restKeyHash(presented: string): string | null {
  return hasShape(presented, KEY_PREFIX.rest) ? sha256Hex(presented) : null;
}

function toRecord(hash: string, r: KeyRow | undefined): RestKeyRecord | null {
  if (!r || !safeEqual(r.secret_hash, hash)) return null;
  return {
    id: r.id,
    siteId: r.site_id,
    secretHash: r.secret_hash,
    expiresAt: ms(r.expires_at),
    revokedAt: ms(r.revoked_at),
    lastUsedAt: ms(r.last_used_at),
  };
}

/** The key row with this secret hash, or null. The index finds it; the constant-time compare confirms it. */
export function findRestKeyByHash(deps: Deps, hash: string): MaybePromise<RestKeyRecord | null> {
  return then(byHash(deps)(hash), (r) => toRecord(hash, r));
}

/** Usable now: not revoked, not expired. */
export function restKeyUsable(k: RestKeyRecord, nowMs: number): boolean {
  return k.revokedAt === null && (k.expiresAt === null || k.expiresAt > nowMs);
}

/**
 * Records a use. Writes only when the stored time is at least
 * LAST_USED_RESOLUTION_MS old (so a busy key costs one write a second), and
 * updates `k` to match; returns the write to wait for, or null. The write is
 * silent: no cache is built from last-used times.
 */
export function touchRestKey(deps: Deps, k: RestKeyRecord, nowMs: number): Promise<void> | null {
  if (k.lastUsedAt !== null && nowMs - k.lastUsedAt < LAST_USED_RESOLUTION_MS) return null;
  if (deps.store.closed) return null;
  k.lastUsedAt = nowMs;
  return deps.store
    .transaction(
      async (tx) =>
        void (await tx
          .update(restKeys)
          .set({ lastUsedAt: new Date(nowMs) })
          .where(eq(restKeys.id, k.id))),
      { silent: true },
    )
    .catch((e) => console.error("rest key last-used write failed:", e));
}
