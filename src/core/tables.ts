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
import {
  bytes,
  createdAt,
  id,
  index,
  integer,
  json,
  primaryKey,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "./columns";
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
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
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
  (t) => [
    uniqueIndex("idempotency_keys_call").on(t.companyId, t.userId, t.tool, t.key),
    index("idempotency_keys_age").on(t.createdAt),
  ],
);

/**
 * The outbox of domain events (src/core/events.ts): written by verbs in the
 * same transaction as their change, read in order by subscribers
 * (src/core/dispatcher.ts). `tx` is PostgreSQL's transaction id of the
 * writer (null on SQLite, whose single writer commits in id order): the
 * dispatcher reads in (tx, id) order and only transactions that have
 * finished, so an event committed late behind a higher id is never skipped.
 */
export const events = table(
  "events",
  {
    id: id(),
    type: text("type").notNull(), // e.g. post.published
    companyId: integer("company_id").notNull(),
    siteId: integer("site_id"),
    entityType: text("entity_type").notNull(),
    entityId: integer("entity_id").notNull(),
    userId: integer("user_id"),
    credentialKind: text("credential_kind"),
    credentialId: integer("credential_id"),
    data: json<Record<string, unknown>>("data").notNull(),
    tx: integer("tx").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("events_order").on(t.tx, t.id),
    index("events_company").on(t.companyId, t.id),
    index("events_entity").on(t.entityType, t.entityId, t.id),
  ],
);

/** Where each subscriber has read the outbox up to, and its current failure streak. */
export const eventCursors = table("event_cursors", {
  subscriber: text("subscriber").primaryKey(),
  lastTx: integer("last_tx").notNull(),
  lastId: integer("last_id").notNull(),
  /** Failed attempts at the event after the cursor; reset when it passes. */
  attempts: integer("attempts").notNull(),
  lastError: text("last_error"),
  retryAt: time("retry_at"),
  updatedAt: updatedAt(),
});

/** Events a subscriber gave up on after its retries, kept for a person to look at. */
export const eventFailures = table(
  "event_failures",
  {
    id: id(),
    subscriber: text("subscriber").notNull(),
    eventId: integer("event_id").notNull(),
    error: text("error").notNull(),
    attempts: integer("attempts").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("event_failures_subscriber").on(t.subscriber, t.createdAt)],
);

/**
 * Periodic background jobs (src/core/jobs.ts): when each last ran and who
 * holds it now, so that of several instances on one database one runs it.
 */
export const jobLeases = table("job_leases", {
  name: text("name").primaryKey(),
  holder: text("holder"),
  leaseUntil: time("lease_until"),
  lastStartedAt: time("last_started_at"),
  lastFinishedAt: time("last_finished_at"),
  lastError: text("last_error"),
  runs: integer("runs").notNull(),
  failures: integer("failures").notNull(),
});

/**
 * Outgoing mail (src/core/mail.ts): written by `queueMail` in the caller's
 * transaction, so a message exists exactly when the change that asked for
 * it committed; the `mail.send` job delivers it over SMTP and records what
 * happened. Kept 90 days as the delivery log.
 *
 * status: queued (waiting for its first or next attempt) → sent | failed
 * (gave up: the server refused the message, or retries ran out) |
 * no_transport (no SMTP server configured when its turn came).
 */
export const mailOutbox = table(
  "mail_outbox",
  {
    id: id(),
    companyId: integer("company_id"),
    /** Recipients, lower-cased addresses. */
    to: json<string[]>("to").notNull(),
    subject: text("subject").notNull(),
    text: text("text").notNull(),
    html: text("html"),
    replyTo: text("reply_to"),
    headers: json<Record<string, string>>("headers"),
    attachments: json<{ filename: string; contentType: string; content: string; encoding?: "base64" }[]>("attachments"),
    /** What sent it, for the delivery log: booking.confirmation, team.invitation… */
    tag: text("tag"),
    /** Fixed when queued, so a retry after an unclear failure carries the same Message-ID and receivers can drop the duplicate. */
    messageId: text("message_id").notNull(),
    status: text("status").$type<"queued" | "sent" | "failed" | "no_transport">().notNull(),
    attempts: integer("attempts").notNull(),
    nextAttemptAt: time("next_attempt_at").notNull(),
    /** The SMTP server's last answer (`250 2.0.0 Ok: queued as …`) or the error that ended the last attempt. */
    smtpResponse: text("smtp_response"),
    sentAt: time("sent_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("mail_outbox_due").on(t.status, t.nextAttemptAt),
    index("mail_outbox_company").on(t.companyId, t.createdAt),
    index("mail_outbox_age").on(t.createdAt),
  ],
);
