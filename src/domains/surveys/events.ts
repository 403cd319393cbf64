/**
 * What the surveys domain tells subscribers (automations, webhooks,
 * notifications). Payloads carry what a receiver needs without a second
 * call: slugs, public URLs, titles, and for responses the answers as text.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const survey = { slug: v.string(), title: v.string() };

export const surveyCreated = defineEvent({
  type: "survey.created",
  entity: "survey",
  description: "An agent drafted a survey (or forked one); it waits for approval before it opens.",
  payload: v.object({
    ...survey,
    forkedFromId: v.nullable(v.number()),
    questions: v.number(),
    languages: v.array(v.string()),
    approvalId: v.number(),
    createdByUserId: v.number(),
  }),
});

export const surveyUpdated = defineEvent({
  type: "survey.updated",
  entity: "survey",
  description:
    "Changes to a survey were proposed; `live` says whether the survey was already approved (it keeps its live version until the changes are approved).",
  payload: v.object({
    ...survey,
    fields: v.array(v.string()),
    live: v.boolean(),
    approvalId: v.number(),
    userId: v.number(),
  }),
});

export const surveyApproved = defineEvent({
  type: "survey.approved",
  entity: "survey",
  description: "A person approved a survey (it opens at `url`) or changes to it (live from now on).",
  payload: v.object({
    ...survey,
    url: v.string(),
    change: v.picklist(["new", "changes"]),
    version: v.number(),
    decidedBy: v.string(),
  }),
});

export const surveyRejected = defineEvent({
  type: "survey.rejected",
  entity: "survey",
  description: "A person rejected a survey or changes to it; nothing went live.",
  payload: v.object({
    ...survey,
    change: v.picklist(["new", "changes"]),
    decidedBy: v.string(),
    comment: v.nullable(v.string()),
  }),
});

export const surveyClosed = defineEvent({
  type: "survey.closed",
  entity: "survey",
  description:
    "A survey stopped accepting responses: closed by hand (`manual`), its close date passed (`date`), or its response quota was reached (`quota`).",
  payload: v.object({ ...survey, reason: v.picklist(["manual", "date", "quota"]), responseCount: v.number() }),
});

export const surveyReopened = defineEvent({
  type: "survey.reopened",
  entity: "survey",
  description: "A closed survey accepts responses again.",
  payload: v.object({ ...survey, url: v.string() }),
});

export const surveyDeleted = defineEvent({
  type: "survey.deleted",
  entity: "survey",
  description: "A survey was deleted with its responses.",
  payload: v.object({ ...survey, responsesDeleted: v.number() }),
});

const answers = v.array(v.object({ questionId: v.string(), question: v.string(), answer: v.string() }));
const response = {
  surveyId: v.number(),
  slug: v.string(),
  title: v.string(),
  finished: v.boolean(),
  language: v.string(),
  hidden: v.record(v.string(), v.string()),
  answers,
};

export const responseCreated = defineEvent({
  type: "survey.response_created",
  entity: "survey_response",
  description:
    "A visitor submitted the first page of a survey: a response exists (finished when the survey had one page). `answers` holds every answer so far as text.",
  payload: v.object(response),
});

export const responseFinished = defineEvent({
  type: "survey.response_finished",
  entity: "survey_response",
  description:
    "A visitor reached an ending: the response is complete. `answers` holds every answer as text; `endingId` the ending shown.",
  payload: v.object({ ...response, endingId: v.string() }),
});

export const responseTagged = defineEvent({
  type: "survey.response_tagged",
  entity: "survey_response",
  description: "A response's tags changed.",
  payload: v.object({
    surveyId: v.number(),
    slug: v.string(),
    tags: v.array(v.string()),
    added: v.array(v.string()),
    removed: v.array(v.string()),
  }),
});

export const responseAnnotated = defineEvent({
  type: "survey.response_annotated",
  entity: "survey_response",
  description: "Someone added a note to a response.",
  payload: v.object({
    surveyId: v.number(),
    slug: v.string(),
    noteId: v.number(),
    text: v.string(),
    userId: v.number(),
  }),
});

export const responseDeleted = defineEvent({
  type: "survey.response_deleted",
  entity: "survey_response",
  description: "A response was deleted (spam, or at the respondent's request).",
  payload: v.object({ surveyId: v.number(), slug: v.string(), finished: v.boolean() }),
});

export const surveyEvents = [
  surveyCreated,
  surveyUpdated,
  surveyApproved,
  surveyRejected,
  surveyClosed,
  surveyReopened,
  surveyDeleted,
  responseCreated,
  responseFinished,
  responseTagged,
  responseAnnotated,
  responseDeleted,
];
