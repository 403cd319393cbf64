/**
 * Token revocation (RFC 7009). Revoking a refresh token ends the whole
 * connection (its family); revoking an access token ends just that token.
 * Unknown, expired or already revoked tokens answer 200 like a success, as
 * §2.2 requires, so the endpoint reveals nothing about tokens it cannot find.
 */
import { and, eq, isNull } from "drizzle-orm";
import type { Context } from "hono";
import type { Deps } from "../core/context";
import { hasShape, KEY_PREFIX, sha256Hex } from "../core/secrets";
import { authenticateClient } from "./clients";
import { oauthError } from "./errors";
import { readForm, required } from "./form";
import { revokeFamily } from "./grants";
import { oauthRefreshTokens, oauthTokens } from "../domains/accounts/tables";

export function revokeEndpoint(deps: Deps) {
  return async (c: Context) => {
    const form = await readForm(c);
    const client = await authenticateClient(deps, c, form);
    const token = required(form, "token");
    const hint = form.get("token_type_hint");
    if (hint !== null && hint !== "access_token" && hint !== "refresh_token")
      throw oauthError("unsupported_token_type", "token_type_hint must be access_token or refresh_token.");
    c.header("Cache-Control", "no-store");
    const hash = sha256Hex(token);
    // Our two token kinds are told apart by prefix; the hint is only a hint.
    if (hasShape(token, KEY_PREFIX.refresh)) {
      const row = (
        await deps.db.select().from(oauthRefreshTokens).where(eq(oauthRefreshTokens.tokenHash, hash)).limit(1)
      )[0];
      if (row) {
        if (row.clientId !== client.clientId)
          throw oauthError("unauthorized_client", "This token was issued to another client.");
        await deps.db.transaction(async (tx) => await revokeFamily(tx, deps, row.familyId));
      }
    } else if (hasShape(token, KEY_PREFIX.oauth)) {
      const row = (await deps.db.select().from(oauthTokens).where(eq(oauthTokens.tokenHash, hash)).limit(1))[0];
      if (row) {
        if (row.clientId !== client.clientId)
          throw oauthError("unauthorized_client", "This token was issued to another client.");
        await deps.db
          .update(oauthTokens)
          .set({ revokedAt: deps.clock.now() })
          .where(and(eq(oauthTokens.id, row.id), isNull(oauthTokens.revokedAt)));
      }
    }
    return c.body(null, 200);
  };
}
