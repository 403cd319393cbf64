/**
 * Live chat per site: inboxes (the widget's settings), visitors (the people
 * who wrote through a widget, known by a token the widget keeps),
 * conversations (with a number per company, as agents say "chat 57"), their
 * messages (visitor, agent, internal note), labels, canned responses and the
 * counter that hands out conversation numbers.
 */
import {
  bool,
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
import { sites } from "../sites/tables";

export const CHAT_STATUSES = ["open", "pending", "snoozed", "resolved"] as const;
export type ChatStatus = (typeof CHAT_STATUSES)[number];

export const CHAT_PRIORITIES = ["none", "low", "medium", "high", "urgent"] as const;
export type ChatPriority = (typeof CHAT_PRIORITIES)[number];

/** Per weekday, "HH:MM-HH:MM" intervals in timeZone (the tickets SLA shape). */
export interface InboxHours {
  timeZone: string;
  hours: Partial<Record<"mon" | "tue" | "wed" | "thu" | "fri" | "sat" | "sun", string[]>>;
}

export const chatInboxes = table(
  "chat_inboxes",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Shown at the top of the widget before the visitor writes. */
    greeting: text("greeting").notNull(),
    /** Shown instead of the greeting outside business hours. */
    awayMessage: text("away_message"),
    /** The public key in the embed snippet (data-inbox); random, so inboxes cannot be enumerated. */
    widgetKey: text("widget_key").notNull().unique(),
    /** Origins (https://example.com) allowed to frame the widget; empty: the site's own domains. */
    allowedOrigins: json<string[]>("allowed_origins").notNull(),
    /** null: always open. */
    businessHours: json<InboxHours>("business_hours"),
    enabled: bool("enabled").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("chat_inboxes_company").on(t.companyId, t.siteId)],
);

export const chatVisitors = table(
  "chat_visitors",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    inboxId: integer("inbox_id")
      .notNull()
      .references(() => chatInboxes.id, { onDelete: "cascade" }),
    /** sha256 of the token the widget stores; the token itself is never kept. */
    tokenHash: text("token_hash").notNull().unique(),
    name: text("name"),
    email: text("email"),
    createdAt: createdAt(),
    lastSeenAt: time("last_seen_at").notNull(),
  },
  (t) => [index("chat_visitors_inbox").on(t.inboxId)],
);

export const chatConversations = table(
  "chat_conversations",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    inboxId: integer("inbox_id")
      .notNull()
      .references(() => chatInboxes.id, { onDelete: "cascade" }),
    visitorId: integer("visitor_id")
      .notNull()
      .references(() => chatVisitors.id, { onDelete: "cascade" }),
    /** Per company, from chat_counters: what tools take as `id`. */
    number: integer("number").notNull(),
    status: text("status").$type<ChatStatus>().notNull(),
    /** Set while snoozed: when the job reopens it. */
    snoozedUntil: time("snoozed_until"),
    priority: text("priority").$type<ChatPriority>().notNull(),
    assigneeId: integer("assignee_id").references(() => users.id, { onDelete: "set null" }),
    /** The page the visitor opened the conversation on (as the widget reported it). */
    pageUrl: text("page_url"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    lastMessageAt: time("last_message_at").notNull(),
    /** The visitor's newest message; "waiting since" when it is newer than the last agent reply. */
    lastVisitorMessageAt: time("last_visitor_message_at"),
    lastAgentMessageAt: time("last_agent_message_at"),
    resolvedAt: time("resolved_at"),
    /**
     * The ticket (its number in the company) chat_conversations_to_ticket
     * opened from it. A number, not a foreign key: tickets never reuse
     * numbers, and a deleted ticket reads as none (tickets/intake.ts).
     */
    ticketNumber: integer("ticket_number"),
  },
  (t) => [
    uniqueIndex("chat_conversations_company_number").on(t.companyId, t.number),
    index("chat_conversations_company_status").on(t.companyId, t.status, t.lastMessageAt),
    index("chat_conversations_visitor").on(t.visitorId, t.id),
    index("chat_conversations_snoozed").on(t.snoozedUntil),
  ],
);

export const CHAT_MESSAGE_KINDS = ["visitor", "agent", "note"] as const;
export type ChatMessageKind = (typeof CHAT_MESSAGE_KINDS)[number];

/** The thread. A note is for agents only: no visitor read, stream or transcript selects it. */
export const chatMessages = table(
  "chat_messages",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    conversationId: integer("conversation_id")
      .notNull()
      .references(() => chatConversations.id, { onDelete: "cascade" }),
    kind: text("kind").$type<ChatMessageKind>().notNull(),
    /** The agent who wrote it; null for the visitor. */
    userId: integer("user_id").references(() => users.id, { onDelete: "set null" }),
    body: text("body").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index("chat_messages_conversation").on(t.conversationId, t.id),
    index("chat_messages_company").on(t.companyId, t.id),
  ],
);

export const chatLabels = table(
  "chat_conversation_labels",
  {
    conversationId: integer("conversation_id")
      .notNull()
      .references(() => chatConversations.id, { onDelete: "cascade" }),
    label: text("label").notNull(),
  },
  (t) => [primaryKey({ columns: [t.conversationId, t.label] }), index("chat_labels_label").on(t.label)],
);

export const chatCannedResponses = table(
  "chat_canned_responses",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** What agents type after "/" to pick it: unique per company. */
    shortCode: text("short_code").notNull(),
    content: text("content").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("chat_canned_company_code").on(t.companyId, t.shortCode)],
);

export const chatCounters = table("chat_counters", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  lastNumber: integer("last_number").notNull(),
});

export const CHAT_ATTACHMENT_SOURCES = ["visitor", "agent"] as const;
export type ChatAttachmentSource = (typeof CHAT_ATTACHMENT_SOURCES)[number];

/**
 * A file on a chat message (attachments.ts), uploaded by the visitor from
 * the widget or by an agent from the portal. Stored exactly as a ticket's
 * file (tickets/files.ts): the bytes in the media store under
 * `att/<company>/<24 hex>.<ext>`, the row holding the cleaned name and the
 * type sniffed from the bytes; the same company budget counts both. A chat
 * turned into a ticket gives the ticket rows sharing these keys.
 */
export const chatAttachments = table(
  "chat_attachments",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    conversationId: integer("conversation_id")
      .notNull()
      .references(() => chatConversations.id, { onDelete: "cascade" }),
    messageId: integer("message_id")
      .notNull()
      .references(() => chatMessages.id, { onDelete: "cascade" }),
    source: text("source").$type<ChatAttachmentSource>().notNull(),
    filename: text("filename").notNull(),
    mimeType: text("mime_type").notNull(),
    sizeBytes: integer("size_bytes").notNull(),
    storageKey: text("storage_key").notNull(),
    sha256: text("sha256").notNull(),
    uploadedBy: integer("uploaded_by").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("chat_attachments_conversation").on(t.conversationId, t.id),
    index("chat_attachments_company").on(t.companyId, t.storageKey),
  ],
);
