/**
 * Credentials: the MCP API keys people mint in the portal, and the OAuth
 * grants (clients, codes, access and refresh tokens) AI clients obtain
 * through the consent flow. Both resolve to the same principal
 * (credentials.ts). Secrets are stored as SHA-256 only.
 *
 * People, companies and memberships are the core's (src/core/tables.ts):
 * every domain's rows hang from them and the core's authorization decides
 * over them. They are re-exported here for the verbs that manage them.
 */
import { bool, createdAt, id, index, integer, json, table, text, time, uniqueIndex } from "../../core/columns";
import { users } from "../../core/tables";

export { ROLES, type Role } from "../../core/roles";
export { auditLog, companies, memberships, users } from "../../core/tables";

/** Portal API keys for the MCP endpoint (svc_mcp_ + 64 hex). Only the SHA-256 is kept. */
export const mcpKeys = table(
  "mcp_keys",
  {
    id: id(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    hint: text("hint").notNull(), // first characters, to recognise a key in lists
    secretHash: text("secret_hash").notNull(),
    scopes: json<string[]>("scopes").notNull(),
    companyIds: json<number[]>("company_ids").notNull(),
    requireCmsApproval: bool("require_cms_approval").notNull().default(false),
    /** MCP listing mode (src/mcp/listing.ts): "full", "discovery", "toolsets:cms,store"; null = automatic. */
    listingMode: text("listing_mode"),
    expiresAt: time("expires_at"),
    revokedAt: time("revoked_at"),
    lastUsedAt: time("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("mcp_keys_secret").on(t.secretHash), index("mcp_keys_user").on(t.userId)],
);

// OAuth 2.1 authorization server state (src/oauth serves the protocol).

export const oauthClients = table("oauth_clients", {
  /** Opaque id for registered clients, or the https URL of a Client ID Metadata Document. */
  clientId: text("client_id").primaryKey(),
  name: text("name"),
  redirectUris: json<string[]>("redirect_uris").notNull(),
  secretHash: text("secret_hash"),
  tokenEndpointAuthMethod: text("token_endpoint_auth_method").notNull().default("none"),
  metadata: json<Record<string, unknown>>("metadata"),
  /** When a Client ID Metadata Document was last fetched; null for registered clients. */
  fetchedAt: time("fetched_at"),
  createdAt: createdAt(),
});

export const oauthCodes = table(
  "oauth_codes",
  {
    id: id(),
    codeHash: text("code_hash").notNull(),
    /** The token family this code starts; a replayed code revokes the whole family. */
    familyId: text("family_id").notNull(),
    clientId: text("client_id").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    scopes: json<string[]>("scopes").notNull(),
    companyIds: json<number[]>("company_ids").notNull(),
    /** MCP listing mode chosen at consent, carried to every token of the family; null = automatic. */
    listingMode: text("listing_mode"),
    resource: text("resource"),
    expiresAt: time("expires_at").notNull(),
    usedAt: time("used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("oauth_codes_hash").on(t.codeHash)],
);

/** Access tokens (svc_oauth_…). A family groups every token issued from one authorization. */
export const oauthTokens = table(
  "oauth_tokens",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    familyId: text("family_id").notNull(),
    clientId: text("client_id").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    scopes: json<string[]>("scopes").notNull(),
    companyIds: json<number[]>("company_ids").notNull(),
    /** MCP listing mode chosen at consent, carried to every token of the family; null = automatic. */
    listingMode: text("listing_mode"),
    resource: text("resource"),
    expiresAt: time("expires_at").notNull(),
    revokedAt: time("revoked_at"),
    lastUsedAt: time("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("oauth_tokens_hash").on(t.tokenHash), index("oauth_tokens_family").on(t.familyId)],
);

export const oauthRefreshTokens = table(
  "oauth_refresh_tokens",
  {
    id: id(),
    tokenHash: text("token_hash").notNull(),
    familyId: text("family_id").notNull(),
    clientId: text("client_id").notNull(),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    scopes: json<string[]>("scopes").notNull(),
    companyIds: json<number[]>("company_ids").notNull(),
    /** MCP listing mode chosen at consent, carried to every token of the family; null = automatic. */
    listingMode: text("listing_mode"),
    resource: text("resource"),
    expiresAt: time("expires_at").notNull(),
    usedAt: time("used_at"),
    revokedAt: time("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("oauth_refresh_hash").on(t.tokenHash), index("oauth_refresh_family").on(t.familyId)],
);
