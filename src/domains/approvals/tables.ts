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
    /** The display line of who decided (derived from the three columns below for decisions made since issue 30). */
    decidedBy: text("decided_by"),
    /** How the decider proved who they are: member (a portal session or credential), reviewer (a listed address with a one-time code), link (anyone with the link). */
    decidedVia: text("decided_via").$type<"member" | "reviewer" | "link">(),
    decidedByUserId: integer("decided_by_user_id"),
    /** The verified reviewer's address, for decidedVia = reviewer. */
    decidedByEmail: text("decided_by_email"),
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

/**
 * Who may decide on a company's approval pages (docs/approvals.md "Who
 * decides"). No row means the default: `person` with no listed reviewers.
 */
export const approvalSettings = table("approval_settings", {
  companyId: integer("company_id")
    .primaryKey()
    .references(() => companies.id, { onDelete: "cascade" }),
  /** person: a signed-in member who may approve and is not the requester, or a listed reviewer with a code; link: anyone with the link. */
  policy: text("policy").$type<"person" | "link">().notNull().default("person"),
  /** Lower-cased addresses that may ask for a one-time code on this company's approval pages. */
  reviewers: json<string[]>("reviewers").notNull(),
  updatedByUserId: integer("updated_by_user_id"),
  updatedAt: time("updated_at").notNull(),
});

/**
 * One-time codes a listed reviewer asks for on an approval page: bound to
 * one link and one address, stored as a salted SHA-256, single use, short
 * lived, with a bounded number of wrong tries (reviewers.ts).
 */
export const approvalCodes = table(
  "approval_codes",
  {
    id: id(),
    linkId: integer("link_id")
      .notNull()
      .references(() => approvalLinks.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    salt: text("salt").notNull(),
    codeHash: text("code_hash").notNull(),
    attempts: integer("attempts").notNull().default(0),
    expiresAt: time("expires_at").notNull(),
    usedAt: time("used_at"),
    createdAt: createdAt(),
  },
  (t) => [index("approval_codes_link_email").on(t.linkId, t.email, t.createdAt)],
);
