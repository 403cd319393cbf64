/**
 * Surveys and their responses.
 *
 * A survey's `definition` is what the public sees once it is approved (or,
 * while it was never approved, the proposal waiting for its first
 * approval); changes to an approved survey wait in `draft` until their
 * approval link is approved, so the live form never changes under a
 * visitor's feet. `version` moves whenever what /s/<slug> shows changes
 * (an approval applied, closed, reopened): the public page cache is keyed by
 * it. `responseCount` counts finished responses and is the one counter the
 * quota is enforced on (a conditional increment, so racing visitors cannot
 * overshoot it).
 *
 * A response is created when its visitor submits the first page and is
 * updated page by page (so drop-off is visible), keyed by the hash of the
 * one-time form token the page carried: a double submit finds the same row.
 */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { companies } from "../../core/tables";
import { sites } from "../sites/tables";
import type { AnswerValue, Definition } from "./definition";

export const surveys = table(
  "surveys",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Whose branding the public page wears; null: neutral colours. */
    siteId: integer("site_id").references(() => sites.id, { onDelete: "set null" }),
    /** Public address /s/<slug>: one namespace for the whole service. */
    slug: text("slug").notNull(),
    title: text("title").notNull(),
    /** pending (never approved) | open | closed | rejected (its first proposal) */
    status: text("status").notNull(),
    definition: json<Definition>("definition").notNull(),
    /** Proposed definition of an approved survey, waiting for its approval link. */
    draft: json<Definition>("draft"),
    version: integer("version").notNull().default(1),
    closesAt: time("closes_at"),
    maxResponses: integer("max_responses"),
    responseCount: integer("response_count").notNull().default(0),
    closedAt: time("closed_at"),
    /** manual | date | quota */
    closedReason: text("closed_reason"),
    approvedAt: time("approved_at"),
    forkedFromId: integer("forked_from_id"),
    createdByUserId: integer("created_by_user_id"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("surveys_slug").on(t.slug), index("surveys_company").on(t.companyId, t.id)],
);

export interface ResponseNote {
  id: number;
  text: string;
  userId: number;
  by: string;
  at: string;
}

export const surveyResponses = table(
  "survey_responses",
  {
    id: id(),
    surveyId: integer("survey_id")
      .notNull()
      .references(() => surveys.id, { onDelete: "cascade" }),
    companyId: integer("company_id").notNull(),
    /** SHA-256 of the form token: the bearer of an unfinished response, and the double-submit guard. */
    tokenHash: text("token_hash").notNull(),
    /** The survey version the visitor answered. */
    surveyVersion: integer("survey_version").notNull(),
    language: text("language").notNull(),
    /** Question id → answer, only for questions on the path the visitor took. */
    answers: json<Record<string, AnswerValue>>("answers").notNull(),
    /** Question id → the text typed beside "Other". */
    otherTexts: json<Record<string, string>>("other_texts").notNull(),
    /** Hidden fields from the survey URL. */
    hidden: json<Record<string, string>>("hidden").notNull(),
    /** Pages shown so far, in order. */
    path: json<string[]>("path").notNull(),
    finished: bool("finished").notNull().default(false),
    /** The ending shown, once finished. */
    endingId: text("ending_id"),
    tags: json<string[]>("tags").notNull(),
    notes: json<ResponseNote[]>("notes").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    finishedAt: time("finished_at"),
  },
  (t) => [
    uniqueIndex("survey_responses_token").on(t.surveyId, t.tokenHash),
    index("survey_responses_survey").on(t.surveyId, t.createdAt),
  ],
);
