/** Portal sign-in sessions. The cookie holds a random id; only its SHA-256 is stored. */
import { createdAt, integer, table, text, time } from "../core/columns";
import { users } from "../domains/accounts/tables";

export const sessions = table("sessions", {
  idHash: text("id_hash").primaryKey(),
  userId: integer("user_id")
    .notNull()
    .references(() => users.id, { onDelete: "cascade" }),
  csrfToken: text("csrf_token").notNull(),
  activeCompanyId: integer("active_company_id"),
  expiresAt: time("expires_at").notNull(),
  createdAt: createdAt(),
});
