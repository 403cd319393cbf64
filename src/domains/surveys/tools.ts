/**
 * The surveys toolset: surveys drafted by agents and opened by people
 * (approval), their translations, and the responses they collect. Thin
 * declarations over the verbs of this folder; every verb re-checks scope
 * and role and keeps to the caller's company.
 */
import { demoSurveys } from "./demo";
import * as v from "valibot";
import { jsonBounds, jsonObject, publishedAs } from "../../core/json-value";
import { pageInput as paging } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { surveyApprovalKind, surveysApprovalSupport } from "./approval-kinds";
import { definitionFields, langSchema, pageInput, parseAt } from "./definition";
import { surveyEvents } from "./events";
import { closeDueJob } from "./jobs";
import { surveyPublicRoutes } from "./public-pages";
import { SURVEYS_PATH, surveyPages } from "./pages";
import {
  annotateResponse,
  deleteResponse,
  EXPORT_MAX,
  exportResponses,
  getResponse,
  listResponses,
  listTags,
  summarizeResponses,
  tagResponse,
} from "./responses";
import {
  closeSurvey,
  createSurvey,
  deleteSurvey,
  forkSurvey,
  getSurvey,
  getTranslations,
  listSurveys,
  reopenSurvey,
  setTranslations,
  updateSurvey,
} from "./surveys";
import { idSchema, slugSchema } from "../../core/fields";
import { surveyStagedTarget } from "./staged-targets";

const title = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(300),
  v.regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters or line breaks"),
);
const tag = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(40),
  v.regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters"),
);

const surveysList = defineTool({
  name: "surveys_list",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "List surveys",
  description: "Surveys, newest first, with status, url and response count.",
  input: v.object({
    status: v.optional(v.picklist(["pending", "open", "closed", "rejected"])),
    search: v.optional(title),
    siteId: v.optional(idSchema),
    ...paging,
  }),
  run: listSurveys,
});

const surveysGet = defineTool({
  name: "surveys_get",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "Get a survey",
  description: "A survey by id or slug: pages, questions, logic, state.",
  input: v.object({ id: v.optional(idSchema), slug: v.optional(slugSchema) }),
  run: getSurvey,
});

const CREATE_HELP =
  "choices [{id,label}] for single_choice, multiple_choice, ranking; matrix rows, columns [{id,label}]; rating scale 3-10. logic [{if: [{field, op, value?}], match?: all|any, goTo}]: the first that holds jumps to a later page or ending; op equals notEquals lessThan lessOrEqual greaterThan greaterOrEqual contains notContains answered skipped. Live at /s/<slug> once approved (approval.url).";

const surveysCreate = defineTool({
  name: "surveys_create",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  approval: "survey",
  title: "Draft a survey",
  description: `Draft a survey. ${CREATE_HELP}`,
  input: v.object({
    title,
    slug: v.optional(slugSchema),
    siteId: v.optional(idSchema),
    ...definitionFields,
    pages: v.pipe(v.array(pageInput), v.minLength(1), v.maxLength(50)),
  }),
  run: createSurvey,
});

const surveysUpdate = defineTool({
  name: "surveys_update",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  idempotent: true,
  approval: "survey",
  title: "Change a survey",
  description: "Propose changes (parts given replace); live stays until approved.",
  input: v.object({
    id: idSchema,
    title: v.optional(title),
    slug: v.optional(slugSchema),
    siteId: v.optional(v.nullable(idSchema)),
    ...definitionFields,
    pages: v.optional(v.array(publishedAs(v.unknown(), "object"))),
    endings: v.optional(v.array(publishedAs(v.unknown(), "object"))),
  }),
  run: (ctx, i) =>
    updateSurvey(ctx, {
      ...i,
      pages: i.pages === undefined ? undefined : parseAt(definitionFields.pages, i.pages, "pages"),
      endings: i.endings === undefined ? undefined : parseAt(definitionFields.endings, i.endings, "endings"),
    }),
});

const surveysFork = defineTool({
  name: "surveys_fork",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  approval: "survey",
  idempotencyKey: true,
  title: "Fork a survey",
  description: "Copy a survey (no responses) into a new draft for approval.",
  input: v.object({ id: idSchema, title: v.optional(title), slug: v.optional(slugSchema) }),
  run: forkSurvey,
});

const surveysClose = defineTool({
  name: "surveys_close",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Close a survey",
  description: "Stop a survey accepting responses now.",
  input: v.object({ id: idSchema }),
  run: closeSurvey,
});

const surveysReopen = defineTool({
  name: "surveys_reopen",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  supervised: "staged",
  idempotent: true,
  title: "Reopen a survey",
  description: "Accept responses again after surveys_close.",
  input: v.object({ id: idSchema }),
  run: reopenSurvey,
});

const surveysDelete = defineTool({
  name: "surveys_delete",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  destructive: true,
  title: "Delete a survey",
  description: "Delete a survey that is not open (responses: deleteResponses).",
  input: v.object({ id: idSchema, deleteResponses: v.optional(v.boolean()) }),
  run: deleteSurvey,
});

const translationsGet = defineTool({
  name: "survey_translations_get",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "Get translations",
  description: "Every text of a survey by key, with translations (null: missing).",
  input: v.object({ surveyId: idSchema, language: v.optional(langSchema) }),
  run: (ctx, i) => getTranslations(ctx, { id: i.surveyId, language: i.language }),
});

const translationsSet = defineTool({
  name: "survey_translations_set",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  idempotent: true,
  approval: "survey",
  title: "Translate a survey",
  description: "Propose a language's translations {key: text}; needs approval.",
  input: v.object({
    surveyId: idSchema,
    language: langSchema,
    texts: v.record(v.pipe(v.string(), v.maxLength(100)), v.pipe(v.string(), v.maxLength(2000))),
  }),
  run: (ctx, i) => setTranslations(ctx, { id: i.surveyId, language: i.language, texts: i.texts }),
});

// Responses

/** The filters every response read takes; validated in full by the verb (survey_responses_export and _summarize publish them loosely). */
export const responseFilter = v.strictObject({
  /** Conditions as in skip logic, checked one by one against the survey in the verb. */
  finished: v.optional(v.boolean()),
  from: v.optional(v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 date-time"))),
  to: v.optional(v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 date-time"))),
  tag: v.optional(tag),
  where: v.optional(v.pipe(v.array(publishedAs(v.unknown(), "object")), v.maxLength(20), jsonBounds("where"))),
  search: v.optional(title),
});
const target = { surveyId: v.optional(idSchema), surveySlug: v.optional(slugSchema) };
const looseFilter = v.optional(jsonObject("filter"));
const withFilter =
  <T extends { filter?: unknown }>(run: (ctx: any, input: any) => unknown) =>
  (ctx: any, input: T) =>
    run(ctx, { ...input, ...parseAt(v.optional(responseFilter, {}), input.filter, "filter") });

const responsesList = defineTool({
  name: "survey_responses_list",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "List responses",
  description: "A survey's responses, newest first; filter.where as in logic.",
  input: v.object({ ...target, filter: v.optional(responseFilter), ...paging }),
  run: withFilter(listResponses),
});

const responsesGet = defineTool({
  name: "survey_responses_get",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "Get a response",
  description: "A survey response: answers, hidden fields, tags, notes.",
  input: v.object({ id: idSchema }),
  run: getResponse,
});

const tagsList = defineTool({
  name: "survey_tags_list",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "List response tags",
  description: "Tags on a survey's responses, most used first.",
  input: v.object(target),
  run: listTags,
});

const responsesTag = defineTool({
  name: "survey_responses_tag",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  idempotent: true,
  title: "Tag a response",
  description: "Add or remove tags on a survey response.",
  input: v.object({
    id: idSchema,
    add: v.optional(v.pipe(v.array(tag), v.maxLength(20))),
    remove: v.optional(v.pipe(v.array(tag), v.maxLength(20))),
  }),
  run: tagResponse,
});

const responsesAnnotate = defineTool({
  name: "survey_responses_annotate",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  title: "Annotate a response",
  description: "Add a note to a survey response.",
  input: v.object({
    id: idSchema,
    note: v.pipe(
      v.string(),
      v.minLength(1),
      v.maxLength(2000),
      v.regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, "must not contain control characters"),
    ),
  }),
  run: annotateResponse,
});

const responsesDelete = defineTool({
  name: "survey_responses_delete",
  toolset: "surveys",
  scope: "surveys:write",
  readOnly: false,
  destructive: true,
  title: "Delete a response",
  description: "Delete a survey response (spam, or on request).",
  input: v.object({ id: idSchema }),
  run: deleteResponse,
});

const responsesExport = defineTool({
  name: "survey_responses_export",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "Export responses as CSV",
  description: `A survey's responses as CSV, a column per question (≤ ${EXPORT_MAX}).`,
  input: v.object({
    ...target,
    filter: looseFilter,
    limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(EXPORT_MAX)), 1000),
    offset: paging.offset,
  }),
  run: withFilter(exportResponses),
});

const responsesSummarize = defineTool({
  name: "survey_responses_summarize",
  toolset: "surveys",
  scope: "surveys:read",
  readOnly: true,
  title: "Summarize responses",
  description: "Per question counts, percentages, averages, NPS and latest texts.",
  input: v.object({ ...target, filter: looseFilter }),
  run: withFilter(summarizeResponses),
});

export const surveysDomain: Domain = {
  demo: demoSurveys,
  scopes: [
    {
      area: "surveys",
      title: "Surveys",
      words: { "surveys:read": "read surveys and their responses", "surveys:write": "create, change and copy surveys" },
    },
  ],
  name: "surveys",
  title: "Surveys",
  description: "Surveys drafted by agents, opened at /s/<slug> once a person approves, and their responses.",
  vocabulary: {
    questionnaire: ["survey"],
    poll: ["survey"],
    form: ["survey"],
    feedback: ["survey", "responses"],
    quiz: ["survey"],
    satisfaction: ["survey"],
    csat: ["survey"],
    nps: ["summarize"],
    result: ["summarize", "responses"],
    score: ["summarize"],
    summary: ["summarize"],
    overview: ["summarize"],
    "how did": ["summarize"],
    answer: ["responses"],
    submission: ["responses"],
    entries: ["responses"],
    spreadsheet: ["export"],
    csv: ["export"],
    excel: ["export"],
    download: ["export"],
    "stop accepting": ["close"],
    end: ["close"],
    translate: ["translations"],
    language: ["translations"],
    copy: ["fork"],
    duplicate: ["fork"],
    clone: ["fork"],
  },
  tools: [
    surveysList,
    surveysGet,
    surveysCreate,
    surveysUpdate,
    surveysFork,
    surveysClose,
    surveysReopen,
    surveysDelete,
    translationsGet,
    translationsSet,
    responsesList,
    responsesGet,
    responsesTag,
    tagsList,
    responsesAnnotate,
    responsesDelete,
    responsesExport,
    responsesSummarize,
  ],
  approvalKinds: [surveyApprovalKind],
  stagedTargets: [surveyStagedTarget],
  approvalSupport: surveysApprovalSupport,
  events: surveyEvents,
  jobs: [closeDueJob],
  publicPages: [{ prefix: "/s", routes: surveyPublicRoutes }],
  portal: { routes: surveyPages, nav: [{ href: SURVEYS_PATH, label: "Surveys" }] },
};
