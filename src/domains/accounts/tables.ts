/** People, the companies (portal tenants) they belong to, and their MCP API keys. */
import { bool, createdAt, id, index, integer, json, primaryKey, table, text, time, uniqueIndex } from "../../core/columns";

export const ROLES = ["owner", "admin", "viewer"] as const;
export type Role = (typeof ROLES)[number];

export const users = table("users", {
  id: id(),
  email: text("email").notNull().unique(), // stored lower-cased
  name: text("name"),
  passwordHash: text("password_hash"),
  createdAt: createdAt(),
});

export const companies = table("companies", {
  id: id(),
  name: text("name").notNull(),
  createdAt: createdAt(),
});

export const memberships = table(
  "memberships",
  {
    companyId: integer("company_id").notNull().references(() => companies.id, { onDelete: "cascade" }),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    role: text("role").$type<Role>().notNull(),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.userId] }), index("memberships_user").on(t.userId)],
);

/** Portal API keys for the MCP endpoint (svc_mcp_ + 64 hex). Only the SHA-256 is kept. */
export const mcpKeys = table(
  "mcp_keys",
  {
    id: id(),
    userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    hint: text("hint").notNull(), // first characters, to recognise a key in lists
    secretHash: text("secret_hash").notNull(),
    scopes: json<string[]>("scopes").notNull(),
    companyIds: json<number[]>("company_ids").notNull(),
    requireCmsApproval: bool("require_cms_approval").notNull().default(false),
    expiresAt: time("expires_at"),
    revokedAt: time("revoked_at"),
    lastUsedAt: time("last_used_at"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("mcp_keys_secret").on(t.secretHash), index("mcp_keys_user").on(t.userId)],
);

/** Who did what, through which credential; written in the same transaction as the change. */
export const auditLog = table(
  "audit_log",
  {
    id: id(),
    companyId: integer("company_id"),
    siteId: integer("site_id"),
    userId: integer("user_id"),
    credentialKind: text("credential_kind"), // mcp_key | oauth | session | cli | approval_link
    credentialId: integer("credential_id"),
    action: text("action").notNull(), // e.g. posts.create
    entityType: text("entity_type"),
    entityId: integer("entity_id"),
    detail: json<Record<string, unknown>>("detail"),
    createdAt: createdAt(),
  },
  (t) => [index("audit_company").on(t.companyId, t.createdAt)],
);
