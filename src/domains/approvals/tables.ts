/** Approval links: a human must approve what an agent drafted or staged. */
import { createdAt, id, index, integer, json, table, text, time, uniqueIndex } from "../../core/columns";
import { companies } from "../../core/tables";

export const approvalLinks = table(
  "approval_links",
  {
    id: id(),
    /** SHA-256 of the 64-hex token; the token itself is shown once, in the tool result. */
    tokenHash: text("token_hash").notNull(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    siteId: integer("site_id"),
    linkType: text("link_type").$type<"entity" | "pending_change">().notNull(),
    entityType: text("entity_type").notNull(), // post | block_template | pitch_deck | ...
    entityId: integer("entity_id"),
    /** What was asked for: for pending_change the staged tool call; for entity a summary. */
    payload: json<Record<string, unknown>>("payload"),
    title: text("title"),
    status: text("status").notNull().default("pending"), // pending | approved | rejected | expired | superseded
    requestedByUserId: integer("requested_by_user_id"),
    credentialKind: text("credential_kind"),
    credentialId: integer("credential_id"),
    credentialName: text("credential_name"),
    expiresAt: time("expires_at").notNull(),
    decidedAt: time("decided_at"),
    decidedBy: text("decided_by"),
    comment: text("comment"),
    result: json<Record<string, unknown>>("result"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("approval_links_token").on(t.tokenHash),
    index("approval_links_company").on(t.companyId, t.status),
    index("approval_links_entity").on(t.entityType, t.entityId),
  ],
);
