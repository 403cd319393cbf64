/**
 * Integrations: the stable handle (integer id) of everything a company has
 * connected, whatever domain owns it. The connections themselves live with
 * their owners (OAuth grants in the accounts tables, SMTP in the server's
 * configuration, webhook subscriptions in theirs); a row here is made the
 * first time an integration is listed, so tools can name it by id, and
 * keeps when and by whom it was revoked.
 *
 * integration_health: results of the background checks of server-wide
 * integrations (object storage), one row per kind.
 */
import { users } from "../../core/tables";
import { companies } from "../../core/tables";
import { index, integer, id, table, text, time, uniqueIndex } from "../../core/columns";

export const integrations = table(
  "integrations",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** oauth_client, smtp, embeddings, object_storage, or a kind another domain contributes (webhook…). */
    kind: text("kind").notNull(),
    /** The owner's own key for it: an OAuth token family id, `server` for configuration-level ones. */
    ref: text("ref").notNull(),
    name: text("name").notNull(),
    firstSeenAt: time("first_seen_at").notNull(),
    revokedAt: time("revoked_at"),
    revokedByUserId: integer("revoked_by_user_id").references(() => users.id, { onDelete: "set null" }),
  },
  (t) => [
    uniqueIndex("integrations_ref").on(t.companyId, t.kind, t.ref),
    index("integrations_company").on(t.companyId, t.id),
  ],
);

export const integrationHealth = table("integration_health", {
  kind: text("kind").primaryKey(),
  lastCheckedAt: time("last_checked_at"),
  lastSuccessAt: time("last_success_at"),
  lastErrorAt: time("last_error_at"),
  lastError: text("last_error"),
});
