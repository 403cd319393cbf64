/**
 * Per-user notifications and what each person wants to hear about.
 * A notification belongs to one user in one company: it is listed to that
 * user while they are a member (over MCP for the company the call acts for,
 * in the portal for every company they belong to).
 */
import { bool, createdAt, id, index, integer, primaryKey, table, text, time, updatedAt } from "../../core/columns";
import { companies, users } from "../../core/tables";

export const notifications = table(
  "notifications",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    /** `<entity>.<what>`: card.assigned, approval.decided, invitation.accepted… */
    type: text("type").notNull(),
    title: text("title").notNull(),
    body: text("body"),
    /** A portal path (`/approvals/7`), never another site. */
    link: text("link"),
    entityType: text("entity_type"),
    entityId: integer("entity_id"),
    /** Who caused it (null: the system, a visitor). */
    actorUserId: integer("actor_user_id"),
    readAt: time("read_at"),
    /** Hidden from the inbox until then; it comes back unread at the top. */
    snoozedUntil: time("snoozed_until"),
    archivedAt: time("archived_at"),
    /** The inbox order: when it arrived, or when its snooze ends. */
    sortAt: time("sort_at").notNull(),
    /** null: no email wanted; pending: waiting for the digest; sent; skipped (read first, or no longer a member). */
    emailState: text("email_state").$type<"pending" | "sent" | "skipped">(),
    createdAt: createdAt(),
  },
  (t) => [
    index("notifications_inbox").on(t.userId, t.companyId, t.archivedAt, t.sortAt),
    index("notifications_unread").on(t.userId, t.readAt),
    index("notifications_email").on(t.emailState, t.userId),
    index("notifications_entity").on(t.entityType, t.entityId),
  ],
);

/**
 * What a person wants per notification type: in the inbox, by email, both
 * or neither. `type` "*" is their default for every type without a row of
 * its own; types without either fall back to the catalogue's defaults
 * (types.ts).
 */
export const notificationPreferences = table(
  "notification_preferences",
  {
    userId: integer("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    inApp: bool("in_app").notNull(),
    email: bool("email").notNull(),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.userId, t.type] })],
);
