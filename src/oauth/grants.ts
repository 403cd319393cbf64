/**
 * Issuing and revoking OAuth credentials. A *family* is everything minted
 * from one consent: the authorization code, then each access/refresh pair
 * produced by rotation. Revoking a family (code replay, refresh-token reuse,
 * a person disconnecting the app in the portal) ends every token in it.
 */
import { and, desc, eq, gt, isNull, lt } from "drizzle-orm";
import type { Deps } from "../core/context";
import type { Db, Tx } from "../core/db";
import { KEY_PREFIX, mintSecret } from "../core/secrets";
import { ACCESS_TOKEN_TTL_MS, REFRESH_TOKEN_TTL_MS } from "./metadata";
import { oauthClients, oauthCodes, oauthRefreshTokens, oauthTokens } from "../domains/accounts/tables";
import { mapSeq } from "../core/maybe";

export interface Grant {
  familyId: string;
  clientId: string;
  userId: number;
  /** Scopes of the access token (may be narrower than the refresh token's on refresh). */
  scopes: string[];
  /** Scopes the refresh token carries: always the whole consented set. */
  refreshScopes: string[];
  companyIds: number[];
  resource: string | null;
  /** The MCP listing mode chosen at consent (src/mcp/listing.ts); null = automatic. */
  listingMode: string | null;
}

export interface TokenResponse {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export async function issueTokens(tx: Tx, deps: Deps, g: Grant): Promise<TokenResponse> {
  await sweepExpired(tx, deps);
  const now = deps.clock.ms();
  const access = mintSecret(KEY_PREFIX.oauth);
  const refresh = mintSecret(KEY_PREFIX.refresh);
  const common = {
    familyId: g.familyId,
    clientId: g.clientId,
    userId: g.userId,
    companyIds: g.companyIds,
    resource: g.resource,
    listingMode: g.listingMode,
    createdAt: new Date(now),
  };
  await tx
    .insert(oauthTokens)
    .values({ ...common, tokenHash: access.hash, scopes: g.scopes, expiresAt: new Date(now + ACCESS_TOKEN_TTL_MS) });
  await tx.insert(oauthRefreshTokens).values({
    ...common,
    tokenHash: refresh.hash,
    scopes: g.refreshScopes,
    expiresAt: new Date(now + REFRESH_TOKEN_TTL_MS),
  });
  return {
    access_token: access.secret,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_TTL_MS / 1000,
    refresh_token: refresh.secret,
    scope: g.scopes.join(" "),
  };
}

/**
 * Forgets credentials nobody can use any more, so the tables do not grow
 * forever: codes and refresh tokens a day after they expire (long enough to
 * still recognise a late replay), access tokens once their whole connection
 * could have expired (the portal reads their last-used times).
 */
export async function sweepExpired(tx: Pick<Db, "delete">, deps: Deps) {
  const now = deps.clock.ms();
  const day = 24 * 60 * 60 * 1000;
  await tx.delete(oauthCodes).where(lt(oauthCodes.expiresAt, new Date(now - day)));
  await tx.delete(oauthRefreshTokens).where(lt(oauthRefreshTokens.expiresAt, new Date(now - day)));
  await tx.delete(oauthTokens).where(lt(oauthTokens.expiresAt, new Date(now - REFRESH_TOKEN_TTL_MS - day)));
}

export async function revokeFamily(tx: Pick<Db, "update">, deps: Deps, familyId: string) {
  const now = deps.clock.now();
  await tx
    .update(oauthTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthTokens.familyId, familyId), isNull(oauthTokens.revokedAt)));
  await tx
    .update(oauthRefreshTokens)
    .set({ revokedAt: now })
    .where(and(eq(oauthRefreshTokens.familyId, familyId), isNull(oauthRefreshTokens.revokedAt)));
}

/** A connected app as the portal lists it: one live token family. */
export interface Connection {
  familyId: string;
  clientId: string;
  clientName: string | null;
  scopes: string[];
  companyIds: number[];
  listingMode: string | null;
  connectedAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
}

/** The user's connections that can still be used: a refresh token neither used, revoked nor expired. */
export async function listConnections(deps: Deps, userId: number): Promise<Connection[]> {
  const now = deps.clock.now();
  const rows = await deps.db
    .select({ r: oauthRefreshTokens, clientName: oauthClients.name })
    .from(oauthRefreshTokens)
    .leftJoin(oauthClients, eq(oauthClients.clientId, oauthRefreshTokens.clientId))
    .where(
      and(
        eq(oauthRefreshTokens.userId, userId),
        isNull(oauthRefreshTokens.usedAt),
        isNull(oauthRefreshTokens.revokedAt),
        gt(oauthRefreshTokens.expiresAt, now),
      ),
    )
    .orderBy(desc(oauthRefreshTokens.createdAt));
  return await mapSeq(rows, async ({ r, clientName }) => {
    const first = (
      await deps.db
        .select({ createdAt: oauthTokens.createdAt })
        .from(oauthTokens)
        .where(eq(oauthTokens.familyId, r.familyId))
        .orderBy(oauthTokens.id)
        .limit(1)
    )[0];
    const used = (
      await deps.db
        .select({ lastUsedAt: oauthTokens.lastUsedAt })
        .from(oauthTokens)
        .where(eq(oauthTokens.familyId, r.familyId))
        .orderBy(desc(oauthTokens.lastUsedAt))
        .limit(1)
    )[0];
    return {
      familyId: r.familyId,
      clientId: r.clientId,
      clientName,
      scopes: r.scopes,
      companyIds: r.companyIds,
      listingMode: r.listingMode,
      connectedAt: first?.createdAt ?? r.createdAt,
      lastUsedAt: used?.lastUsedAt ?? null,
      expiresAt: r.expiresAt,
    };
  });
}

/**
 * Changes the listing mode of one of the user's connections: every token of
 * the family, so the next request and every refresh use it. False when the
 * connection is not theirs.
 */
export async function setConnectionListing(
  deps: Deps,
  userId: number,
  familyId: string,
  listingMode: string | null,
): Promise<boolean> {
  const owned = (
    await deps.db
      .select({ id: oauthRefreshTokens.id })
      .from(oauthRefreshTokens)
      .where(and(eq(oauthRefreshTokens.familyId, familyId), eq(oauthRefreshTokens.userId, userId)))
      .limit(1)
  )[0];
  if (!owned) return false;
  await deps.db.transaction(async (tx) => {
    await tx.update(oauthTokens).set({ listingMode }).where(eq(oauthTokens.familyId, familyId));
    await tx.update(oauthRefreshTokens).set({ listingMode }).where(eq(oauthRefreshTokens.familyId, familyId));
  });
  return true;
}

/** Ends one of the user's connections; false when it is not theirs (or does not exist). */
export async function disconnect(deps: Deps, userId: number, familyId: string): Promise<boolean> {
  const owned = (
    await deps.db
      .select({ id: oauthRefreshTokens.id })
      .from(oauthRefreshTokens)
      .where(and(eq(oauthRefreshTokens.familyId, familyId), eq(oauthRefreshTokens.userId, userId)))
      .limit(1)
  )[0];
  if (!owned) return false;
  await deps.db.transaction(async (tx) => await revokeFamily(tx, deps, familyId));
  return true;
}
