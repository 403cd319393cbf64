/**
 * Support tickets per company: the ticket (with its SLA clock), its thread
 * of public replies and internal notes, its tags, the company's SLA policy
 * and the counter that hands out ticket numbers.
 *
 * A ticket is addressed by its number within the company (#1042), as
 * Zendesk, Freshdesk and Chatwoot address theirs; the row id is internal
 * (foreign keys only) and never appears in a tool's input or output.
 */
import {
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
} from "../../core/columns";
import { companies, users } from "../../core/tables";

export const TICKET_STATUSES = ["new", "open", "pending", "solved", "closed"] as const;
export type TicketStatus = (typeof TICKET_STATUSES)[number];

export const TICKET_PRIORITIES = ["low", "normal", "high", "urgent"] as const;
export type TicketPriority = (typeof TICKET_PRIORITIES)[number];

/** One paused stretch of the resolution clock (pending or solved), ISO instants. */
export type SlaPause = [from: string, to: string];

export const tickets = table(
  "tickets",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Per company, from ticket_counters: what people and tools call the ticket (#1042). */
    number: integer("number").notNull(),
    subject: text("subject").notNull(),
    requesterEmail: text("requester_email").notNull(), // lower-cased
    requesterName: text("requester_name"),
    status: text("status").$type<TicketStatus>().notNull(),
    priority: text("priority").$type<TicketPriority>().notNull(),
    assigneeId: integer("assignee_id").references(() => users.id, { onDelete: "set null" }),
    /** Set when merged: the ticket (row id) this one was merged into; it is then closed. */
    mergedIntoId: integer("merged_into_id"),
    /** A follow-up opened for a requester who wrote again after the ticket was closed. */
    followUpOfId: integer("follow_up_of_id"),
    /** The chat conversation (its number in the company) this ticket was opened from, by chat_conversations_to_ticket. */
    sourceChatNumber: integer("source_chat_number"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    lastMessageAt: time("last_message_at").notNull(),
    firstRespondedAt: time("first_responded_at"),
    solvedAt: time("solved_at"),
    closedAt: time("closed_at"),
    /** SLA: when the first public reply is due (null: no target for the priority). */
    firstResponseDueAt: time("first_response_due_at"),
    /** SLA: when solving is due; null while the clock is paused (pending, solved) or without a target. */
    resolutionDueAt: time("resolution_due_at"),
    /** Since when the resolution clock is paused; null while it runs. */
    slaPausedAt: time("sla_paused_at"),
    /** Finished pauses of the resolution clock, oldest first. */
    slaPauses: json<SlaPause[]>("sla_pauses").notNull(),
    /** The due instant of each target once recorded as breached: set once, so each breach is reported once. */
    firstResponseBreachedAt: time("first_response_breached_at"),
    resolutionBreachedAt: time("resolution_breached_at"),
  },
  (t) => [
    uniqueIndex("tickets_company_number").on(t.companyId, t.number),
    index("tickets_company_status").on(t.companyId, t.status, t.updatedAt),
    index("tickets_company_assignee").on(t.companyId, t.assigneeId),
    index("tickets_company_requester").on(t.companyId, t.requesterEmail),
    index("tickets_first_response_due").on(t.firstResponseDueAt),
    index("tickets_resolution_due").on(t.resolutionDueAt),
  ],
);

export const MESSAGE_KINDS = ["reply", "note"] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/**
 * The thread: public replies (from an agent or the requester) and internal
 * notes (agents only; never sent or shown to the requester).
 */
export const ticketMessages = table(
  "ticket_messages",
  {
    id: id(),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    kind: text("kind").$type<MessageKind>().notNull(),
    author: text("author").$type<"agent" | "requester" | "system">().notNull(),
    /** The agent who wrote it; null for the requester and the system. */
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    body: text("body").notNull(),
    /** Number of the ticket this message was written on, when a merge moved it here. */
    mergedFromNumber: integer("merged_from_number"),
    createdAt: createdAt(),
  },
  (t) => [index("ticket_messages_ticket").on(t.ticketId, t.createdAt)],
);

export const ticketTags = table(
  "ticket_tags",
  {
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    tag: text("tag").notNull(),
  },
  (t) => [primaryKey({ columns: [t.ticketId, t.tag] }), index("ticket_tags_tag").on(t.tag)],
);

/**
 * A macro: what an agent does to a ticket often, saved once and applied in
 * one call (tickets_apply_macro): a public reply (with {{ticket.…}}
 * variables), a status, tags to add and remove, an assignee. Every part is
 * optional; a macro has at least one.
 */
export const ticketMacros = table(
  "ticket_macros",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** The reply's text, variables unfilled; null: no reply. */
    body: text("body"),
    /** Status to set after the reply; null: leave it. */
    status: text("status").$type<"open" | "pending" | "solved">(),
    addTags: json<string[]>("add_tags").notNull(),
    removeTags: json<string[]>("remove_tags").notNull(),
    assigneeId: integer("assignee_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("ticket_macros_company_name").on(t.companyId, t.name)],
);

/** The last ticket number handed out per company (an atomic upsert hands out the next). */
export const ticketCounters = table("ticket_counters", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  lastNumber: integer("last_number").notNull(),
});

/** A target in minutes; businessHours false counts every minute (24/7). */
export interface SlaTarget {
  firstResponseMinutes: number | null;
  resolutionMinutes: number | null;
  businessHours: boolean;
}

/** Per weekday, "HH:MM-HH:MM" intervals in the policy's time zone. */
export type WeekHours = Partial<Record<"mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun", string[]>>;

/** A company's SLA policy; a company without a row uses the defaults (sla.ts). */
export const ticketSlaPolicies = table("ticket_sla_policies", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  timeZone: text("time_zone").notNull(),
  businessHours: json<WeekHours>("business_hours").notNull(),
  /** Local dates (YYYY-MM-DD) without business hours. */
  holidays: json<string[]>("holidays").notNull(),
  targets: json<Record<TicketPriority, SlaTarget>>("targets").notNull(),
  /** Solved tickets close by themselves after this many days without a reply; null never. */
  autoCloseDays: integer("auto_close_days"),
  updatedAt: updatedAt(),
});

export const MAILBOX_TLS = ["tls", "starttls", "none"] as const;
export type MailboxTls = (typeof MAILBOX_TLS)[number];

/**
 * A company's support mailbox, polled over IMAP (mailboxes.ts): each new
 * mail opens a ticket or continues one. The password is sealed
 * (core/sealed.ts, context "ticket-mailbox:<id>") and never read back out.
 * UIDs are kept as text: IMAP's are 32-bit unsigned, past PostgreSQL's
 * integer. lastUid moves only after the mails up to it are committed.
 */
export const ticketMailboxes = table(
  "ticket_mailboxes",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    host: text("host").notNull(),
    port: integer("port").notNull(),
    tls: text("tls").$type<MailboxTls>().notNull(),
    username: text("username").notNull(),
    passwordSealed: text("password_sealed").notNull(),
    folder: text("folder").notNull(),
    uidValidity: text("uid_validity"),
    lastUid: text("last_uid"),
    /** active: polled; error: polled, the last poll failed (lastError); paused: not polled. */
    state: text("state").$type<"active" | "error" | "paused">().notNull(),
    lastError: text("last_error"),
    lastPolledAt: time("last_polled_at"),
    /** A poll in progress holds the mailbox until then, so two instances never poll it at once. */
    pollUntil: time("poll_until"),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("ticket_mailboxes_company").on(t.companyId),
    uniqueIndex("ticket_mailboxes_account").on(t.companyId, t.host, t.username, t.folder),
  ],
);

/**
 * Every mail a mailbox delivered, once: the key is the Message-ID, or a hash of UIDVALIDITY+UID
 * for a mail without one. The row is inserted in the transaction that
 * writes the ticket, and the unique index makes a second import of the same
 * mail (a restart mid-poll, two pollers) fail and roll back. Ignored mails
 * (auto-replies, bounces, loops) get a row with the reason and no ticket.
 */
export const ticketMailImports = table(
  "ticket_mail_imports",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** The mailbox row id (kept after a disconnect), or 0 for the inbound-mail webhook. */
    source: integer("source").notNull(),
    key: text("key").notNull(),
    /** The mail's Message-ID as written (<…>), for threading the replies to it. */
    messageId: text("message_id"),
    ticketId: integer("ticket_id").references(() => tickets.id, { onDelete: "set null" }),
    outcome: text("outcome").$type<"opened" | "replied" | "ignored">().notNull(),
    reason: text("reason"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("ticket_mail_imports_key").on(t.companyId, t.source, t.key),
    index("ticket_mail_imports_message").on(t.companyId, t.messageId),
  ],
);

/**
 * The company's inbound-mail webhook (mail-hook.ts): providers that push
 * mail POST it to /inbound-mail/<secret>. Only the secret's SHA-256 is
 * kept: the secret is shown once, when made or rotated.
 */
export const ticketMailHooks = table(
  "ticket_mail_hooks",
  {
    companyId: integer("company_id")
      .primaryKey()
      .references(() => companies.id, { onDelete: "cascade" }),
    secretHash: text("secret_hash").notNull(),
    createdBy: integer("created_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("ticket_mail_hooks_secret").on(t.secretHash)],
);

export const ATTACHMENT_SOURCES = ["mail", "agent", "requester"] as const;
export type AttachmentSource = (typeof ATTACHMENT_SOURCES)[number];

/**
 * A file on a ticket's message (attachments.ts): received with an inbound
 * mail, or attached by an agent to a reply (and then mailed with it). The
 * bytes are in the media store (deps.blobs: data dir, database or S3) under
 * `att/<company>/<24 hex>.<ext>`, a key no media URL can name; the row holds
 * the original name for the download dialog and the type sniffed from the
 * bytes. An agent re-attaching an earlier file gets a new row sharing the
 * key, so a file is stored once however often it is sent.
 */
export const ticketAttachments = table(
  "ticket_attachments",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    messageId: integer("message_id").references(() => ticketMessages.id, { onDelete: "set null" }),
    source: text("source").$type<AttachmentSource>().notNull(),
    filename: text("filename").notNull(),
    mimeType: text("mime_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    storageKey: text("storage_key").notNull(),
    /** SHA-256 of the bytes (hex): the same file attached twice is recognisable. */
    sha256: text("sha256").notNull(),
    uploadedBy: integer("uploaded_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("ticket_attachments_ticket").on(t.ticketId, t.id),
    index("ticket_attachments_company").on(t.companyId, t.storageKey),
  ],
);

/**
 * A company's attachment limits; a company without a row has the defaults
 * (attachments.ts). maxTotalBytes counts every stored file of the company's
 * tickets once (a shared key counts once).
 */
export const ticketAttachmentLimits = table("ticket_attachment_limits", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  maxFileBytes: integer("max_file_bytes").notNull(),
  maxTotalBytes: integer("max_total_bytes").notNull(),
  updatedAt: updatedAt(),
});

/**
 * The satisfaction survey of a ticket (satisfaction.ts): asked by email the
 * first time the ticket is solved, answered once with one click (good or
 * bad) and an optional comment. The agent is the assignee when it was
 * solved, so the report credits who did the work even after a reassignment.
 */
export const ticketRatings = table(
  "ticket_ratings",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    ticketId: integer("ticket_id")
      .notNull()
      .references(() => tickets.id, { onDelete: "cascade" }),
    agentId: integer("agent_id").references(() => users.id, { onDelete: "set null" }),
    askedAt: time("asked_at").notNull(),
    /** Null until the requester clicks; set once. */
    rating: text("rating").$type<"good" | "bad">(),
    ratedAt: time("rated_at"),
    comment: text("comment"),
  },
  (t) => [
    uniqueIndex("ticket_ratings_ticket").on(t.ticketId),
    index("ticket_ratings_company_rated").on(t.companyId, t.ratedAt),
  ],
);
