/**
 * The brain: one company's knowledge base. Every record (note, document,
 * meeting, task, person, topic, glossary term, goal, initiative, playbook,
 * org unit) is one row of brain_records with a `kind`; what only one kind
 * has (a meeting's decisions, a playbook's steps) is JSON in `data`,
 * validated per kind by kinds.ts. The few fields people filter on (status,
 * the person a task or goal belongs to, a due date, when it happened) are
 * columns.
 *
 * Full-text search needs engine-specific SQL that drizzle cannot declare,
 * written by hand at the end of this domain's migration:
 *  - SQLite: an FTS5 table `brain_fts` (title, search_text) with
 *    brain_records as its external content, kept by triggers on
 *    brain_records, so the index changes in the writer's transaction;
 *  - PostgreSQL: a generated tsvector column `search_vector` (title weight
 *    A, search_text D) with a GIN index.
 * Both are derived from title and search_text, which the verbs write.
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

export const RECORD_KINDS = [
  "note",
  "document",
  "meeting",
  "task",
  "person",
  "topic",
  "glossary",
  "goal",
  "initiative",
  "playbook",
  "org_unit",
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export const brainRecords = table(
  "brain_records",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    kind: text("kind").$type<RecordKind>().notNull(),
    title: text("title").notNull(),
    /** Markdown: a note's text, a document, a meeting's minutes, a term's definition. */
    body: text("body").notNull().default(""),
    /** Kind-specific fields (kinds.ts), validated on every write. */
    data: json<Record<string, unknown>>("data")
      .notNull()
      .$defaultFn(() => ({})),
    /** body plus the searchable text of data (decisions, synonyms, steps…): what full text indexes besides the title. */
    searchText: text("search_text").notNull().default(""),
    /** Lower-cased trimmed title: what [[links]] and names resolve against. */
    titleKey: text("title_key").notNull(),
    /** Set for records that must be unique in a company (a topic or term per name, a person per email); NULLs never collide. */
    uniqueKey: text("unique_key"),
    status: text("status"),
    /** The person record a task is assigned to, or a goal or initiative is owned by. */
    personId: integer("person_id"),
    /** A task's due date or a goal's target date (YYYY-MM-DD). */
    dueDate: text("due_date"),
    /** When it happened: a meeting's time, otherwise when it was written. Search's from/to filter on it. */
    at: time("at").notNull(),
    version: integer("version").notNull().default(1),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    updatedByUserId: integer("updated_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("brain_records_company_kind").on(t.companyId, t.kind, t.updatedAt),
    index("brain_records_company_title").on(t.companyId, t.titleKey),
    index("brain_records_company_person").on(t.companyId, t.personId),
    uniqueIndex("brain_records_company_unique").on(t.companyId, t.uniqueKey),
    // Search looks up every full-text match's company, kind, time and author by id: from this narrow index, not the wide rows.
    index("brain_records_search_filter").on(t.id, t.companyId, t.kind, t.at, t.createdByUserId),
  ],
);

/**
 * Every version of every record, with who wrote it through which
 * credential. Kept after the record is deleted (no foreign key), so the
 * history of a deleted document still answers.
 */
export const brainRevisions = table(
  "brain_revisions",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    recordId: integer("record_id").notNull(),
    kind: text("kind").$type<RecordKind>().notNull(),
    version: integer("version").notNull(),
    /** create, update, restore, merge, delete. */
    action: text("action").notNull(),
    title: text("title").notNull(),
    body: text("body").notNull(),
    data: json<Record<string, unknown>>("data").notNull(),
    /** Fields this version changed. */
    changed: json<string[]>("changed")
      .notNull()
      .$defaultFn(() => []),
    userId: integer("user_id"),
    credentialKind: text("credential_kind"),
    credentialId: integer("credential_id"),
    credentialName: text("credential_name"),
    /** The review (approval link) that applied it, when one did. */
    reviewId: integer("review_id"),
    createdAt: createdAt(),
  },
  (t) => [
    index("brain_revisions_record").on(t.recordId, t.version),
    index("brain_revisions_company").on(t.companyId, t.createdAt),
  ],
);

/** Typed relationships between two records (person works_in org unit); read both ways. */
export const brainRelations = table(
  "brain_relations",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    fromId: integer("from_id")
      .notNull()
      .references(() => brainRecords.id, { onDelete: "cascade" }),
    toId: integer("to_id")
      .notNull()
      .references(() => brainRecords.id, { onDelete: "cascade" }),
    type: text("type").notNull(),
    createdByUserId: integer("created_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("brain_relations_edge").on(t.fromId, t.toId, t.type),
    index("brain_relations_to").on(t.toId, t.type),
    index("brain_relations_company").on(t.companyId, t.type),
  ],
);

/**
 * What a record's markdown points at: `[[Title]]` (stored as the title key),
 * `[[#12]]` ("#12") and `@email` ("@ana@example.com"). Backlinks are
 * computed from these when read, so a link written before its target
 * existed resolves once the target is created.
 */
export const brainRefs = table(
  "brain_refs",
  {
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    fromId: integer("from_id")
      .notNull()
      .references(() => brainRecords.id, { onDelete: "cascade" }),
    target: text("target").notNull(),
  },
  (t) => [primaryKey({ columns: [t.fromId, t.target] }), index("brain_refs_target").on(t.companyId, t.target)],
);

/** Credentials whose brain writes go to review before they apply (set by someone with brain:approve). */
export const brainReviewPolicies = table(
  "brain_review_policies",
  {
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    credentialKind: text("credential_kind").notNull(),
    credentialId: integer("credential_id").notNull(),
    review: bool("review").notNull(),
    updatedByUserId: integer("updated_by_user_id"),
    updatedAt: updatedAt(),
  },
  (t) => [primaryKey({ columns: [t.companyId, t.credentialKind, t.credentialId] })],
);

/**
 * Passages of records for semantic search, and the durable embedding queue:
 * a chunk is written with the record (state "pending") when an embeddings
 * endpoint is configured; the brain.embed job fills `embedding` and retries
 * with backoff while the endpoint is down.
 */
export const brainChunks = table(
  "brain_chunks",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    recordId: integer("record_id")
      .notNull()
      .references(() => brainRecords.id, { onDelete: "cascade" }),
    ordinal: integer("ordinal").notNull(),
    text: text("text").notNull(),
    /** pending, done, failed (gave up after many attempts; brain_embeddings_reindex queues again). */
    state: text("state").notNull().default("pending"),
    embedding: json<number[]>("embedding"),
    model: text("model"),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: time("next_attempt_at").notNull(),
    lastError: text("last_error"),
    createdAt: createdAt(),
  },
  (t) => [
    index("brain_chunks_record").on(t.recordId),
    index("brain_chunks_queue").on(t.state, t.nextAttemptAt),
    index("brain_chunks_company").on(t.companyId, t.state),
  ],
);
