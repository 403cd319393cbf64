/**
 * Bearer credential → Principal, for both kinds the MCP endpoint accepts:
 * portal API keys (`svc_mcp_` + 64 hex) and OAuth access tokens
 * (`svc_oauth_` + 64 hex). Both are looked up by their SHA-256, checked for
 * revocation and expiry against the injected clock, and resolve to the same
 * shape. The companies a credential selected are intersected with the user's
 * live memberships on every request, so removing a member cuts access at once.
 *
 * This runs on every MCP request, so resolved rows are cached in memory
 * until a table they come from changes (src/core/changes.ts: on SQLite at
 * the very next request in every process; on PostgreSQL as soon as the
 * change notice reaches each instance), and the last-used write is coalesced
 * (at most one per credential per second). Revocation and expiry are checked
 * on every use.
 *
 * @public Serves chat (its agent stream resolves the bearer credential the
 * same way the MCP endpoint does).
 */
import { and, asc, desc, eq, gt, isNull } from "drizzle-orm";
import type { CompanyAccess, CredentialKind, Deps, Principal } from "../../core/context";
import { BoundedMap } from "../../core/bounded-map";
import type { ChangeWatch } from "../../core/changes";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../../core/memory-budget";
import { hasShape, KEY_PREFIX, safeEqual, sha256Hex } from "../../core/secrets";
import { companies, mcpKeys, memberships, oauthClients, oauthRefreshTokens, oauthTokens } from "./tables";

const keyColumns = {
  id: mcpKeys.id,
  userId: mcpKeys.userId,
  name: mcpKeys.name,
  secretHash: mcpKeys.secretHash,
  scopes: mcpKeys.scopes,
  companyIds: mcpKeys.companyIds,
  requireCmsApproval: mcpKeys.requireCmsApproval,
  listingMode: mcpKeys.listingMode,
  expiresAt: mcpKeys.expiresAt,
  revokedAt: mcpKeys.revokedAt,
};
const oauthColumns = {
  id: oauthTokens.id,
  userId: oauthTokens.userId,
  name: oauthTokens.clientId,
  secretHash: oauthTokens.tokenHash,
  scopes: oauthTokens.scopes,
  companyIds: oauthTokens.companyIds,
  resource: oauthTokens.resource,
  listingMode: oauthTokens.listingMode,
  expiresAt: oauthTokens.expiresAt,
  revokedAt: oauthTokens.revokedAt,
};

/** Last write per credential, per store: MCP key id, or minus the OAuth token id → epoch ms. */
const lastTouched = new WeakMap<object, BoundedMap<number, number>>();
const TOUCH_EVERY_MS = 1000;

/**
 * Writes the last-used time unless it was written in the past second (so a
 * busy credential costs one write a second). Silent: no cache is built from
 * last-used times.
 */
function touch(deps: Deps, kind: CredentialKind, id: number): Promise<void> | undefined {
  let m = lastTouched.get(deps.store);
  if (!m) lastTouched.set(deps.store, (m = new BoundedMap({ maxBytes: PART, sizeOf: () => ENTRY_OVERHEAD })));
  const k = kind === "mcp_key" ? id : -id;
  const now = deps.clock.ms();
  const prev = m.get(k);
  // The common case, decided without a promise: written less than a second ago.
  if (prev !== undefined && now - prev < TOUCH_EVERY_MS && now >= prev) return undefined;
  m.set(k, now);
  const at = new Date(now);
  if (deps.store.closed) return undefined;
  return deps.store
    .transaction(
      async (tx) => {
        if (kind === "mcp_key") await tx.update(mcpKeys).set({ lastUsedAt: at }).where(eq(mcpKeys.id, id));
        else await tx.update(oauthTokens).set({ lastUsedAt: at }).where(eq(oauthTokens.id, id));
      },
      { silent: true },
    )
    .catch((e) => console.error("credential last-used write failed:", e));
}

interface Resolved {
  kind: CredentialKind;
  row: {
    id: number;
    userId: number;
    name: string;
    secretHash: string;
    scopes: string[];
    companyIds: number[];
    expiresAt: Date | null;
    revokedAt: Date | null;
    resource?: string | null;
    requireCmsApproval?: boolean;
    listingMode: string | null;
  };
  companies: CompanyAccess[];
}

/**
 * Bounds memory against floods of distinct tokens: the three maps here
 * (token shapes, resolved credentials, last-used writes) each hold at most
 * a third of BUDGET.credentials (src/core/memory-budget.ts), oldest out
 * first. A resolved credential costs its row (~0.5 KB with its scopes) and
 * ~0.25 KB per company it reaches.
 */
const PART = BUDGET.credentials / 3;
const resolvedBytes = (hash: string, r: Resolved) =>
  stringBytes(hash) +
  ENTRY_OVERHEAD +
  512 +
  r.row.scopes.reduce((n, s) => n + stringBytes(s), 0) +
  256 * r.companies.length;
/** What resolution reads: a change to any of these drops the cache (on every instance). */
const CREDENTIAL_TABLES = ["mcp_keys", "oauth_tokens", "memberships", "companies", "users"];
const caches = new WeakMap<object, { watch: ChangeWatch; byHash: BoundedMap<string, Resolved> }>();

function cacheFor(deps: Deps) {
  let c = caches.get(deps.store);
  if (!c)
    caches.set(
      deps.store,
      (c = {
        watch: deps.store.changes.watch(CREDENTIAL_TABLES),
        byHash: new BoundedMap({ maxBytes: PART, sizeOf: resolvedBytes }),
      }),
    );
  if (c.watch.changed()) c.byHash.clear();
  return c;
}

/** Bytes held by the credential caches of this store and the shared token shapes, as the budget counts them (tests). */
export function credentialCacheBytes(deps: Pick<Deps, "store">): number {
  return shapes.bytes + (caches.get(deps.store)?.byHash.bytes ?? 0) + (lastTouched.get(deps.store)?.bytes ?? 0);
}

/**
 * Presented token → its kind and SHA-256, so a busy credential is checked and
 * hashed once, not per request (as REST does, src/rest/hot-lookups.ts). Only
 * well-formed tokens are kept; neither goes stale, so this is never
 * invalidated, only bounded.
 */
const shapes = new BoundedMap<string, { kind: CredentialKind; hash: string }>({
  maxBytes: PART,
  sizeOf: (token, s) => stringBytes(token) + stringBytes(s.hash) + ENTRY_OVERHEAD,
});
/** The token's kind and hash, or null when it has neither credential's shape (those are not remembered). */
function shapeOf(token: string): { kind: CredentialKind; hash: string } | null {
  let s = shapes.get(token);
  if (s === undefined) {
    let kind: CredentialKind;
    if (hasShape(token, KEY_PREFIX.mcp)) kind = "mcp_key";
    else if (hasShape(token, KEY_PREFIX.oauth)) kind = "oauth";
    else return null;
    shapes.set(token, (s = { kind, hash: sha256Hex(token) }));
  }
  return s;
}

/** The companies a credential selected that the user still belongs to, ordered by id. */
export async function reachableCompanies(
  deps: Deps,
  userId: number,
  selected: readonly number[],
): Promise<CompanyAccess[]> {
  if (selected.length === 0) return [];
  const want = new Set(selected);
  const rows = await deps.db
    .select({ id: companies.id, name: companies.name, role: memberships.role })
    .from(memberships)
    .innerJoin(companies, eq(companies.id, memberships.companyId))
    .where(eq(memberships.userId, userId))
    .orderBy(asc(companies.id));
  return rows.filter((c) => want.has(c.id));
}

/** The MCP endpoint's resource identifiers: `{portal_url}/api/mcp`, and the bare origin some clients send. */
function isThisResource(deps: Deps, resource: string): boolean {
  const base = deps.config.publicUrl.replace(/\/+$/, "");
  const r = resource.replace(/\/+$/, "");
  return r === `${base}/api/mcp` || r === base;
}

/**
 * Resolves an `Authorization: Bearer` token. Returns null for anything that
 * is not a live credential: wrong prefix or length, unknown, revoked, expired.
 * The caller answers all of these the same way (401), so nothing here tells
 * a guesser which one it was.
 */
export async function resolveBearer(deps: Deps, token: string): Promise<Principal | null> {
  const shape = shapeOf(token);
  if (!shape) return null;
  const { kind, hash } = shape;
  const cache = cacheFor(deps);
  let hit = cache.byHash.get(hash);
  if (!hit) {
    const before = cache.watch.current();
    const row =
      kind === "mcp_key"
        ? (await deps.db.select(keyColumns).from(mcpKeys).where(eq(mcpKeys.secretHash, hash)))[0]
        : (await deps.db.select(oauthColumns).from(oauthTokens).where(eq(oauthTokens.tokenHash, hash)))[0];
    // The index lookup found the row by hash; comparing again in constant time
    // costs nothing and keeps the check independent of how SQLite compares.
    if (!row || !safeEqual(row.secretHash, hash)) return null;
    hit = { kind, row, companies: await reachableCompanies(deps, row.userId, row.companyIds) };
    // Kept only if nothing it is built from changed while it was read (PostgreSQL reads are asynchronous):
    // a revocation committed mid-read must not be cached over.
    if (cache.watch.current() === before) {
      cache.byHash.set(hash, hit);
    }
  }
  const { row } = hit;
  if (row.revokedAt) return null;
  const now = deps.clock.ms();
  if (row.expiresAt && row.expiresAt.getTime() <= now) return null;
  // An OAuth token bound (RFC 8707) to another resource is not for us.
  if (row.resource && !isThisResource(deps, row.resource)) return null;
  const touching = touch(deps, kind, row.id);
  if (touching) await touching;
  return {
    userId: row.userId,
    credential: { kind, id: row.id, name: row.name },
    scopes: row.scopes,
    companies: hit.companies,
    requireCmsApproval: Boolean(row.requireCmsApproval),
    listingMode: row.listingMode,
  };
}

/**
 * A portal API key's scopes and revocation, by id, or null when there is no
 * such key: for automations, which act later with the credential they were
 * created with and must stop when it is revoked.
 */
export async function mcpKeyState(
  q: Pick<Deps["db"], "select">,
  keyId: number,
): Promise<{ scopes: string[]; revokedAt: Date | null } | null> {
  return (
    (
      await q
        .select({ scopes: mcpKeys.scopes, revokedAt: mcpKeys.revokedAt })
        .from(mcpKeys)
        .where(eq(mcpKeys.id, keyId))
        .limit(1)
    )[0] ?? null
  );
}

/**
 * The OAuth connections (token families) reaching a company: one per live
 * refresh token (unused, unrevoked, unexpired) whose companies include it,
 * newest first, with its client's name: for the integrations list.
 */
export async function liveOAuthFamilies(q: Pick<Deps["db"], "select">, companyId: number, now: Date) {
  const live = await q
    .select({ r: oauthRefreshTokens, clientName: oauthClients.name })
    .from(oauthRefreshTokens)
    .leftJoin(oauthClients, eq(oauthClients.clientId, oauthRefreshTokens.clientId))
    .where(
      and(
        isNull(oauthRefreshTokens.usedAt),
        isNull(oauthRefreshTokens.revokedAt),
        gt(oauthRefreshTokens.expiresAt, now),
      ),
    )
    .orderBy(desc(oauthRefreshTokens.id));
  return live.filter((x) => x.r.companyIds.includes(companyId));
}

/** The access tokens of one OAuth connection (id, last use, creation): for its health in the integrations list. */
export async function oauthFamilyTokens(q: Pick<Deps["db"], "select">, familyId: string) {
  return await q
    .select({ id: oauthTokens.id, lastUsedAt: oauthTokens.lastUsedAt, createdAt: oauthTokens.createdAt })
    .from(oauthTokens)
    .where(eq(oauthTokens.familyId, familyId));
}

/**
 * Ends one OAuth connection for a company (integrations' revoke): when it
 * reaches only that company every token of the family is revoked at once;
 * when it also reaches companies the caller does not govern, only this
 * company is taken out of each token's list.
 */
export async function revokeOAuthFamilyFor(
  db: Deps["db"],
  familyId: string,
  companyId: number,
  now: Date,
): Promise<"revoked" | "company_removed"> {
  const fam = await db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.familyId, familyId));
  const others = new Set(fam.flatMap((r) => r.companyIds).filter((c) => c !== companyId));
  if (others.size === 0) {
    // Only this company: end every token of the connection at once.
    await db
      .update(oauthTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthTokens.familyId, familyId), isNull(oauthTokens.revokedAt)));
    await db
      .update(oauthRefreshTokens)
      .set({ revokedAt: now })
      .where(and(eq(oauthRefreshTokens.familyId, familyId), isNull(oauthRefreshTokens.revokedAt)));
    return "revoked";
  }
  // The connection also reaches companies this admin does not govern: take only this company out of it.
  for (const t of [oauthTokens, oauthRefreshTokens] as const) {
    const rows = await db.select({ id: t.id, companyIds: t.companyIds }).from(t).where(eq(t.familyId, familyId));
    for (const row of rows)
      if (row.companyIds.includes(companyId))
        await db
          .update(t)
          .set({ companyIds: row.companyIds.filter((c) => c !== companyId) })
          .where(eq(t.id, row.id));
  }
  return "company_removed";
}
