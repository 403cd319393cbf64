/**
 * The CRM of each company (tenant, `company_id`): the people it sells to
 * (contacts), their organisations (crm_companies), deals in pipelines of
 * ordered stages, activities on any of them, custom field definitions,
 * saved views, lead scoring rules and the merge log that makes merges
 * reversible.
 *
 * Search: every contact, CRM company and deal keeps `search`, its names,
 * emails, domain and phone digits folded in JS (NFKD, marks dropped, lower
 * case: "Zoë" → "zoe"), so a plain LIKE finds them case- and
 * accent-insensitively on both engines without extensions.
 *
 * Duplicates: crm_contact_emails holds every address of every live contact
 * under a unique (company, email) index, and crm_companies a unique
 * (company, domain); a create that races another on the same address
 * loses on the index (SQLite's single writer, PostgreSQL's serializable
 * retry) and answers with the record that won.
 *
 * Dates people mean as calendar days (expected close) are YYYY-MM-DD text.
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

export const LIFECYCLE_STAGES = [
  "subscriber",
  "lead",
  "mql",
  "sql",
  "opportunity",
  "customer",
  "evangelist",
  "other",
] as const;
export type LifecycleStage = (typeof LIFECYCLE_STAGES)[number];

export const COMPANY_SIZES = ["1-10", "11-50", "51-200", "201-1000", "1001-5000", "5000+"] as const;

export const OBJECTS = ["contact", "company", "deal"] as const;
export type CrmObject = (typeof OBJECTS)[number];

export type CustomValues = Record<string, string | number | boolean | string[]>;

export interface Phone {
  number: string;
  label: string | null;
}

export const crmCompanies = table(
  "crm_companies",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Lower-case host without www. (acme.com); unique per tenant among live records. */
    domain: text("domain"),
    size: text("size"),
    industry: text("industry"),
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "set null" }),
    tags: json<string[]>("tags").notNull(),
    custom: json<CustomValues>("custom").notNull(),
    search: text("search").notNull(),
    /** Set while merged into another record (hidden; undo brings it back). */
    mergedIntoId: integer("merged_into_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("crm_companies_domain").on(t.companyId, t.domain),
    index("crm_companies_updated").on(t.companyId, t.updatedAt),
    index("crm_companies_search").on(t.companyId, t.mergedIntoId, t.search),
  ],
);

export const contacts = table(
  "crm_contacts",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    firstName: text("first_name"),
    lastName: text("last_name"),
    /** Every address, primary first (lower-cased); mirrored in crm_contact_emails for uniqueness. */
    emails: json<string[]>("emails").notNull(),
    phones: json<Phone[]>("phones").notNull(),
    jobTitle: text("job_title"),
    crmCompanyId: integer("crm_company_id").references(() => crmCompanies.id, { onDelete: "set null" }),
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "set null" }),
    lifecycleStage: text("lifecycle_stage").$type<LifecycleStage>().notNull(),
    tags: json<string[]>("tags").notNull(),
    custom: json<CustomValues>("custom").notNull(),
    score: integer("score").notNull(),
    search: text("search").notNull(),
    /** Set while merged into another contact (hidden; undo brings it back). */
    mergedIntoId: integer("merged_into_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("crm_contacts_updated").on(t.companyId, t.updatedAt),
    index("crm_contacts_company").on(t.crmCompanyId),
    index("crm_contacts_score").on(t.companyId, t.score),
    // Search scans this index (narrow) rather than the table (wide JSON rows).
    index("crm_contacts_search").on(t.companyId, t.mergedIntoId, t.search),
  ],
);

export const contactEmails = table(
  "crm_contact_emails",
  {
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    email: text("email").notNull(),
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.email] }), index("crm_contact_emails_contact").on(t.contactId)],
);

export const STAGE_KINDS = ["open", "won", "lost"] as const;
export type StageKind = (typeof STAGE_KINDS)[number];

export const pipelines = table(
  "crm_pipelines",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("crm_pipelines_name").on(t.companyId, t.name)],
);

export const stages = table(
  "crm_stages",
  {
    id: id(),
    pipelineId: integer("pipeline_id")
      .notNull()
      .references(() => pipelines.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    position: integer("position").notNull(),
    /** 0–100: the share of an open deal's amount the forecast counts (won 100, lost 0). */
    probability: integer("probability").notNull(),
    kind: text("kind").$type<StageKind>().notNull(),
  },
  (t) => [index("crm_stages_pipeline").on(t.pipelineId, t.position)],
);

export const deals = table(
  "crm_deals",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    amountCents: integer("amount_cents").notNull(),
    currency: text("currency").notNull(),
    pipelineId: integer("pipeline_id")
      .notNull()
      .references(() => pipelines.id),
    stageId: integer("stage_id")
      .notNull()
      .references(() => stages.id),
    /** YYYY-MM-DD. */
    expectedClose: text("expected_close"),
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "set null" }),
    crmCompanyId: integer("crm_company_id").references(() => crmCompanies.id, { onDelete: "set null" }),
    lostReason: text("lost_reason"),
    custom: json<CustomValues>("custom").notNull(),
    search: text("search").notNull(),
    stageChangedAt: time("stage_changed_at").notNull(),
    closedAt: time("closed_at"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("crm_deals_stage").on(t.companyId, t.pipelineId, t.stageId),
    index("crm_deals_company").on(t.crmCompanyId),
  ],
);

export const dealContacts = table(
  "crm_deal_contacts",
  {
    dealId: integer("deal_id")
      .notNull()
      .references(() => deals.id, { onDelete: "cascade" }),
    contactId: integer("contact_id")
      .notNull()
      .references(() => contacts.id, { onDelete: "cascade" }),
  },
  (t) => [primaryKey({ columns: [t.dealId, t.contactId] }), index("crm_deal_contacts_contact").on(t.contactId)],
);

/** Every stage a deal entered, by whom and when (creation is the first row, fromStageId null). */
export const stageMoves = table(
  "crm_stage_moves",
  {
    id: id(),
    dealId: integer("deal_id")
      .notNull()
      .references(() => deals.id, { onDelete: "cascade" }),
    fromStageId: integer("from_stage_id"),
    toStageId: integer("to_stage_id").notNull(),
    /** Names at the time, so history survives renamed or deleted stages. */
    fromStage: text("from_stage"),
    toStage: text("to_stage").notNull(),
    byUserId: integer("by_user_id").references(() => users.id, { onDelete: "set null" }),
    at: time("at").notNull(),
  },
  (t) => [index("crm_stage_moves_deal").on(t.dealId, t.at)],
);

export const ACTIVITY_KINDS = ["note", "call", "meeting", "task"] as const;
export type ActivityKind = (typeof ACTIVITY_KINDS)[number];

/**
 * A note, call, meeting or task on a contact, a CRM company and/or a deal
 * (at least one). Deleting a record unlinks it; an activity left on no
 * record is deleted with it (the verbs do that).
 */
export const activities = table(
  "crm_activities",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    kind: text("kind").$type<ActivityKind>().notNull(),
    subject: text("subject"),
    body: text("body"),
    contactId: integer("contact_id").references(() => contacts.id, { onDelete: "set null" }),
    crmCompanyId: integer("crm_company_id").references(() => crmCompanies.id, { onDelete: "set null" }),
    dealId: integer("deal_id").references(() => deals.id, { onDelete: "set null" }),
    /** When it happened (calls, meetings, notes); for tasks, when it was created. */
    occurredAt: time("occurred_at").notNull(),
    dueAt: time("due_at"),
    completedAt: time("completed_at"),
    durationMinutes: integer("duration_minutes"),
    ownerId: integer("owner_id").references(() => users.id, { onDelete: "set null" }),
    byUserId: integer("by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [
    index("crm_activities_contact").on(t.contactId, t.occurredAt),
    index("crm_activities_crm_company").on(t.crmCompanyId, t.occurredAt),
    index("crm_activities_deal").on(t.dealId, t.occurredAt),
    index("crm_activities_due").on(t.companyId, t.dueAt),
  ],
);

export const FIELD_TYPES = ["text", "number", "date", "select", "multi_select", "boolean", "url"] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const fieldDefs = table(
  "crm_field_defs",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    object: text("object").$type<CrmObject>().notNull(),
    key: text("key").notNull(),
    label: text("label").notNull(),
    type: text("type").$type<FieldType>().notNull(),
    options: json<string[]>("options").notNull(),
    required: bool("required").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("crm_field_defs_key").on(t.companyId, t.object, t.key)],
);

/** A saved list: the list tool's own filter arguments, a sort and the columns to show. */
export const views = table(
  "crm_views",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    object: text("object").$type<CrmObject>().notNull(),
    name: text("name").notNull(),
    filters: json<Record<string, unknown>>("filters").notNull(),
    sort: text("sort"),
    columns: json<string[]>("columns").notNull(),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("crm_views_name").on(t.companyId, t.object, t.name)],
);

/**
 * A lead scoring rule. `field` rules add points while the contact matches
 * ({ field, op, value }); `activity` rules add points per activity of a kind,
 * fading linearly to nothing over decayDays (null: never fades).
 */
export interface ScoreCondition {
  field?: string;
  op?: "eq" | "neq" | "contains" | "exists" | "gt" | "lt";
  value?: string | number | boolean;
  activityKind?: ActivityKind;
}

export const scoringRules = table("crm_scoring_rules", {
  id: id(),
  companyId: integer("company_id")
    .notNull()
    .references(() => companies.id, { onDelete: "cascade" }),
  name: text("name").notNull(),
  condition: json<ScoreCondition>("condition").notNull(),
  points: integer("points").notNull(),
  decayDays: integer("decay_days"),
  createdAt: createdAt(),
});

/**
 * One merge: what the merged record was and what moved, so undo can put
 * it back within the window (MERGE_UNDO_DAYS in merges.ts).
 */
export const merges = table(
  "crm_merges",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    object: text("object").$type<"contact" | "company">().notNull(),
    survivorId: integer("survivor_id").notNull(),
    mergedId: integer("merged_id").notNull(),
    snapshot: json<Record<string, unknown>>("snapshot").notNull(),
    byUserId: integer("by_user_id").references(() => users.id, { onDelete: "set null" }),
    at: time("at").notNull(),
    undoneAt: time("undone_at"),
  },
  (t) => [index("crm_merges_company").on(t.companyId, t.at)],
);
