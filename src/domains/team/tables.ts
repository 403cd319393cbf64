/**
 * Invitations to join a company's team by email. The token is 32 random
 * bytes shown only in the email's link; the table keeps its SHA-256.
 *
 * status: pending → accepted | revoked, or expired (stored when a new
 * invitation to the same address replaces one past its expiresAt; a
 * pending one past expiresAt reads as expired everywhere). `openKey` holds
 * the address while the invitation is pending, so one address has at most
 * one open invitation per company (a unique index, null otherwise).
 */
import { createdAt, id, index, integer, table, text, time, uniqueIndex } from "../../core/columns";
import type { Role } from "../../core/roles";
import { companies, users } from "../../core/tables";

export const invitations = table(
  "invitations",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    role: text("role").$type<Role>().notNull(),
    tokenHash: text("token_hash").notNull(),
    status: text("status").$type<"pending" | "accepted" | "revoked" | "expired">().notNull(),
    openKey: text("open_key"),
    invitedByUserId: integer("invited_by_user_id").references(() => users.id, { onDelete: "set null" }),
    /** A note from the inviter, quoted in the email and on the accept page. */
    message: text("message"),
    expiresAt: time("expires_at").notNull(),
    /** How long each link lives (a resend gives the new link as long). */
    ttlDays: integer("ttl_days").notNull(),
    sendCount: integer("send_count").notNull(),
    lastSentAt: time("last_sent_at").notNull(),
    acceptedAt: time("accepted_at"),
    acceptedByUserId: integer("accepted_by_user_id").references(() => users.id, { onDelete: "set null" }),
    revokedAt: time("revoked_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("invitations_token").on(t.tokenHash),
    uniqueIndex("invitations_open").on(t.companyId, t.openKey),
    index("invitations_company").on(t.companyId, t.status, t.createdAt),
  ],
);
