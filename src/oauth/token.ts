/**
 * The token endpoint (RFC 6749 §3.2, OAuth 2.1): authorization_code with
 * PKCE, and refresh_token with rotation.
 *
 * Replay is treated as theft. A code presented a second time revokes every
 * token issued from it (RFC 6749 §4.1.2); a refresh token presented after it
 * was rotated revokes its whole family (OAuth 2.1 §4.3.1), so whichever of
 * the thief and the client refreshes second finds the connection gone.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Context } from "hono";
import type { Deps } from "../core/context";
import { sha256Hex } from "../core/secrets";
import { authenticateClient, type OAuthClient } from "./clients";
import { oauthError } from "./errors";
import { readForm, required } from "./form";
import { issueTokens, revokeFamily, type TokenResponse } from "./grants";
import { acceptedResources } from "./metadata";
import { verifyPkce } from "./pkce";
import { parseScopeParam, withinGrant } from "./scope";
import { oauthCodes, oauthRefreshTokens } from "../domains/accounts/tables";

/**
 * A resource indicator presented at the token endpoint must name the MCP
 * endpoint, the only resource any grant is for (authorize stores it in its
 * canonical form).
 */
function checkResource(deps: Deps, form: URLSearchParams) {
  const asked = form.get("resource");
  if (asked !== null && !acceptedResources(deps).includes(asked))
    throw oauthError("invalid_target", "The resource does not match the one this grant was issued for.");
}

const CODE_REPLAYED = "The authorization code was already used; the tokens issued from it are revoked.";
const REFRESH_REPLAYED = "The refresh token was already used; this connection has been revoked. Authorize again.";

async function exchangeCode(deps: Deps, client: OAuthClient, form: URLSearchParams): Promise<TokenResponse> {
  const code = required(form, "code");
  const verifier = required(form, "code_verifier");
  const row = (
    await deps.db
      .select()
      .from(oauthCodes)
      .where(eq(oauthCodes.codeHash, sha256Hex(code)))
      .limit(1)
  )[0];
  if (!row) throw oauthError("invalid_grant", "The authorization code is invalid.");
  if (row.clientId !== client.clientId)
    throw oauthError("invalid_grant", "The authorization code was issued to another client.");
  const now = deps.clock.ms();
  if (row.usedAt) {
    await deps.db.transaction(async (tx) => await revokeFamily(tx, deps, row.familyId));
    throw oauthError("invalid_grant", CODE_REPLAYED);
  }
  if (row.expiresAt.getTime() <= now) throw oauthError("invalid_grant", "The authorization code has expired.");
  const redirectUri = form.get("redirect_uri");
  if (redirectUri !== null && redirectUri !== row.redirectUri)
    throw oauthError("invalid_grant", "redirect_uri does not match the authorization request.");
  if (!verifyPkce(verifier, row.codeChallenge))
    throw oauthError("invalid_grant", "The code_verifier does not match the code_challenge.");
  checkResource(deps, form);
  const issued = await deps.db.transaction(async (tx) => {
    // The guard on used_at makes two racing exchanges of one code produce one winner.
    const claimed = await tx
      .update(oauthCodes)
      .set({ usedAt: new Date(now) })
      .where(and(eq(oauthCodes.id, row.id), isNull(oauthCodes.usedAt)))
      .returning({ id: oauthCodes.id });
    if (claimed.length !== 1) return null;
    return await issueTokens(tx, deps, {
      familyId: row.familyId,
      clientId: row.clientId,
      userId: row.userId,
      scopes: row.scopes,
      refreshScopes: row.scopes,
      companyIds: row.companyIds,
      resource: row.resource,
      listingMode: row.listingMode,
    });
  });
  if (!issued) {
    await deps.db.transaction(async (tx) => await revokeFamily(tx, deps, row.familyId));
    throw oauthError("invalid_grant", CODE_REPLAYED);
  }
  return issued;
}

async function refresh(deps: Deps, client: OAuthClient, form: URLSearchParams): Promise<TokenResponse> {
  const token = required(form, "refresh_token");
  const row = (
    await deps.db
      .select()
      .from(oauthRefreshTokens)
      .where(eq(oauthRefreshTokens.tokenHash, sha256Hex(token)))
      .limit(1)
  )[0];
  if (!row) throw oauthError("invalid_grant", "The refresh token is invalid.");
  if (row.clientId !== client.clientId)
    throw oauthError("invalid_grant", "The refresh token was issued to another client.");
  if (row.revokedAt) throw oauthError("invalid_grant", "The refresh token has been revoked.");
  if (row.usedAt) {
    await deps.db.transaction(async (tx) => await revokeFamily(tx, deps, row.familyId));
    throw oauthError("invalid_grant", REFRESH_REPLAYED);
  }
  const now = deps.clock.ms();
  if (row.expiresAt.getTime() <= now) throw oauthError("invalid_grant", "The refresh token has expired.");
  const scopeParam = form.get("scope");
  const scopes = scopeParam === null ? row.scopes : parseScopeParam(scopeParam, row.scopes);
  if (!withinGrant(row.scopes, scopes))
    throw oauthError("invalid_scope", "The requested scope is beyond what was granted.");
  checkResource(deps, form);
  const issued = await deps.db.transaction(async (tx) => {
    const claimed = await tx
      .update(oauthRefreshTokens)
      .set({ usedAt: new Date(now) })
      .where(
        and(eq(oauthRefreshTokens.id, row.id), isNull(oauthRefreshTokens.usedAt), isNull(oauthRefreshTokens.revokedAt)),
      )
      .returning({ id: oauthRefreshTokens.id });
    if (claimed.length !== 1) return null;
    return await issueTokens(tx, deps, {
      familyId: row.familyId,
      clientId: row.clientId,
      userId: row.userId,
      scopes,
      refreshScopes: row.scopes,
      companyIds: row.companyIds,
      resource: row.resource,
      listingMode: row.listingMode,
    });
  });
  if (!issued) {
    await deps.db.transaction(async (tx) => await revokeFamily(tx, deps, row.familyId));
    throw oauthError("invalid_grant", REFRESH_REPLAYED);
  }
  return issued;
}

export function tokenEndpoint(deps: Deps) {
  return async (c: Context) => {
    const form = await readForm(c);
    const client = await authenticateClient(deps, c, form);
    const grantType = required(form, "grant_type");
    let body: TokenResponse;
    if (grantType === "authorization_code") body = await exchangeCode(deps, client, form);
    else if (grantType === "refresh_token") body = await refresh(deps, client, form);
    else throw oauthError("unsupported_grant_type", `grant_type ${grantType.slice(0, 50)} is not supported.`);
    c.header("Cache-Control", "no-store");
    c.header("Pragma", "no-cache");
    return c.json(body);
  };
}
