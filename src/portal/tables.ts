/** Portal sign-in sessions. The cookie holds a random id; only its SHA-256 is stored. */
import { integer, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { createdAt, time } from "../core/columns";
import { users } from "../domains/accounts/tables";

export const sessions = sqliteTable("sessions", {
  idHash: text("id_hash").primaryKey(),
  userId: integer("user_id").notNull().references(() => users.id, { onDelete: "cascade" }),
  csrfToken: text("csrf_token").notNull(),
  activeCompanyId: integer("active_company_id"),
  expiresAt: time("expires_at").notNull(),
  createdAt: createdAt(),
});
