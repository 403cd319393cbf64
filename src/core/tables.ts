/**
 * Tables the core itself owns (not a domain's):
 *  - tenancy: users, companies and memberships (with the member's role).
 *    Every domain's rows hang from a company or a user, and the core's
 *    authorization (src/core/scopes.ts, src/core/context.ts) decides over
 *    them; the accounts domain manages them (and re-exports them);
 *  - the audit log, written by every verb through src/core/audit.ts;
 *  - the bytes of media files when PLINTH_MEDIA_STORE=db
 *    (src/core/blobs-db.ts), so every instance on the shared database
 *    serves them;
 *  - the idempotency keys of MCP create calls (src/mcp/idempotency.ts).
 * The SQL names are what they always were: moving a table between files
 * changes no migration.
 */
import { bytes, createdAt, id, index, integer, json, primaryKey, table, text, uniqueIndex } from "./columns";
import type { Role } from "./roles";

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

export const mediaBlobs = table("media_blobs", {
  /** The media storage key, `<siteId>/<24 hex>[.thumb].<ext>`. */
  key: text("key").primaryKey(),
  bytes: bytes("bytes").notNull(),
  size: integer("size").notNull(),
  contentType: text("content_type").notNull(),
  createdAt: createdAt(),
});

/**
 * A create call made with an idempotencyKey, and its result: a repeat with
 * the same key and arguments gets the first result instead of a duplicate.
 * Kept for a day.
 */
export const idempotencyKeys = table(
  "idempotency_keys",
  {
    id: id(),
    companyId: integer("company_id").notNull(),
    userId: integer("user_id").notNull(),
    tool: text("tool").notNull(),
    key: text("key").notNull(),
    /** SHA-256 of the call's arguments: the same key with other arguments is refused. */
    requestHash: text("request_hash").notNull(),
    result: json<unknown>("result").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("idempotency_keys_call").on(t.companyId, t.userId, t.tool, t.key), index("idempotency_keys_age").on(t.createdAt)],
);
