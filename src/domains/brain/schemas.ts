/**
 * Valibot inputs of the brain tools. Published as JSON Schema in every
 * client's context, so property descriptions are few and short; rules that
 * need the database (a person of this company, a topic by name) live in the
 * verbs. A record is named by id, "#12" or its title; a person also by email.
 */
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { GOAL_STATUSES, TASK_STATUSES, dateSchema } from "./kinds";
import { RELATION_NAMES } from "./links";
import { RECORD_KINDS } from "./tables";
import { described, idSchema, USER_REF_WORDS } from "../../core/fields";

const MAX_ID = Number.MAX_SAFE_INTEGER;
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;
const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;

export const id = idSchema;
const anyId = v.pipe(v.number(), v.integer(), v.maxValue(MAX_ID));
const line = (max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(max),
    v.regex(SINGLE_LINE, "must be one line without control characters"),
    v.regex(/\S/, "must not be blank"),
  );
const text = (max: number) =>
  v.pipe(v.string(), v.maxLength(max), v.regex(MULTI_LINE, "must not contain control characters"));
export const MAX_BODY = 200_000;

const isRef = (x: unknown) =>
  (typeof x === "number" && Number.isSafeInteger(x)) ||
  (typeof x === "string" && x.trim().length >= 1 && x.length <= 300);
/**
 * A record by id, "#id" or title (a person also by email): checked here,
 * resolved by the verb. Published as `{"type":["integer","string"]}` with
 * words saying what the string names, kept short: they are in every brain
 * tool's listing.
 */
const RECORD = "id, #id or title";
const PERSON = "person id, #id, name or email";
const TOPIC = "topic id, #id or name";
const refOf = (words: string) =>
  v.pipe(
    v.unknown(),
    v.check(isRef, "must be a record id, #id or title"),
    v.metadata({ type: ["integer", "string"] }),
    v.description(words),
  ) as unknown as v.GenericSchema<unknown, number | string>;
export const ref = refOf(RECORD);
const personRef = refOf(PERSON);
const topicRef = refOf(TOPIC);
/** A reference that null clears. */
const refOrNull = (words: string) =>
  v.pipe(
    v.unknown(),
    v.check((x) => x === null || isRef(x), "must be a record id, #id, title or null"),
    v.metadata({ type: ["integer", "string", "null"] }),
    v.description(words),
  ) as unknown as v.GenericSchema<unknown, number | string | null>;
const refs = (max: number, item = ref) => v.pipe(v.array(item), v.maxLength(max));
const kind = v.picklist(RECORD_KINDS);

const title = line(300);
const body = text(MAX_BODY);
// Checked, not published as a pattern: the property name says it is a date.
const date = v.pipe(
  v.string(),
  v.check((x) => v.is(dateSchema, x), "must be a date like 2026-03-31"),
);
const opt = <T extends v.GenericSchema>(s: T) => v.optional(s);
const clr = <T extends v.GenericSchema>(s: T) => v.optional(v.nullable(s));

const topics = opt(refs(20, topicRef));
const common = { title, body: opt(body), topics };
const commonUpdate = { id: ref, title: opt(title), body: clr(body), topics };

const actionItem = v.object({ text: line(500), assignee: opt(personRef), due: opt(date) });
const step = v.object({ title: line(300), detail: opt(text(4000)) });

/** Fields per kind beyond title, body and topics; the update form makes each optional (null clears). */
const KIND_FIELDS = {
  note: {},
  document: {},
  meeting: {
    at: v.pipe(v.string(), v.maxLength(40)),
    attendees: refs(100, personRef),
    agenda: text(4000),
    decisions: v.pipe(v.array(line(1000)), v.maxLength(100)),
    actionItems: v.pipe(v.array(actionItem), v.maxLength(100)),
  },
  task: { status: v.picklist(TASK_STATUSES), assignee: personRef, due: date },
  person: {
    email: v.pipe(v.string(), v.maxLength(254)),
    jobTitle: line(200),
    organization: line(200),
    phone: line(50),
    internal: v.boolean(),
    orgUnits: refs(20),
    crmContact: described(v.union([anyId, v.pipe(v.string(), v.maxLength(254))]), "CRM contact id or email"),
  },
  topic: {},
  glossary: { synonyms: v.pipe(v.array(line(200)), v.maxLength(50)) },
  goal: {
    owner: personRef,
    targetDate: date,
    status: v.picklist(GOAL_STATUSES),
    progress: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100)),
  },
  initiative: {
    owner: personRef,
    targetDate: date,
    status: v.picklist(GOAL_STATUSES),
    progress: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100)),
    goals: refs(20),
  },
  playbook: { steps: v.pipe(v.array(step), v.maxLength(200)) },
  org_unit: { parent: ref, members: refs(200, personRef) },
} as const;

/** Required on create beyond title. */
const REQUIRED: Record<string, string[]> = { meeting: ["at"] };
/** Cannot be cleared with null. */
const NOT_NULL = new Set([
  "at",
  "attendees",
  "decisions",
  "actionItems",
  "orgUnits",
  "synonyms",
  "goals",
  "steps",
  "members",
  "internal",
  "status",
]);

type K = keyof typeof KIND_FIELDS;

/** The single references of KIND_FIELDS and their words, for the form null clears. */
const REFS = new Map<unknown, string>([
  [ref, RECORD],
  [personRef, PERSON],
]);

export function createInput(k: K) {
  const extra: Record<string, v.GenericSchema> = {};
  for (const [f, s] of Object.entries(KIND_FIELDS[k]))
    extra[f] = REQUIRED[k]?.includes(f) ? (s as v.GenericSchema) : v.optional(s as v.GenericSchema);
  return v.strictObject({ ...common, ...extra });
}

export function updateInput(k: K) {
  const extra: Record<string, v.GenericSchema> = {};
  for (const [f, s] of Object.entries(KIND_FIELDS[k]))
    extra[f] = NOT_NULL.has(f)
      ? v.optional(s as v.GenericSchema)
      : REFS.has(s)
        ? v.optional(refOrNull(REFS.get(s)!))
        : v.optional(v.nullable(s as v.GenericSchema));
  return v.strictObject({ ...commonUpdate, ...extra });
}

const kinds = opt(v.pipe(v.array(kind), v.maxLength(11)));
const when = v.pipe(v.string(), v.maxLength(40));

export const searchInput = v.strictObject({
  query: v.pipe(v.string(), v.maxLength(500, "query is at most 500 characters; search with the few words that matter")),
  kinds,
  topic: opt(topicRef),
  author: opt(described(v.union([anyId, v.pipe(v.string(), v.maxLength(254))]), USER_REF_WORDS)),
  from: opt(when),
  to: opt(when),
  mode: opt(v.picklist(["auto", "text"])),
  others: opt(v.boolean()),
  ...pageInput,
});

export const contextInput = v.strictObject({
  question: v.pipe(v.string(), v.minLength(1), v.maxLength(2000, "question is at most 2000 characters")),
  kinds,
  topic: opt(topicRef),
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(20)), 6),
});

export const getInput = v.strictObject({ id: ref, kind: opt(kind) });
export const refInput = v.strictObject({ id: ref });

export const listInput = v.strictObject({
  kind: opt(kind),
  status: opt(line(40)),
  person: opt(personRef),
  topic: opt(topicRef),
  titleContains: opt(line(200)),
  dueBefore: opt(date),
  updatedSince: opt(when),
  sort: opt(v.picklist(["updated", "title", "due"])),
  ...pageInput,
});

export const historyInput = v.strictObject({ id, version: opt(id), ...pageInput });
export const restoreInput = v.strictObject({ id, version: id });
export const mergeInput = v.strictObject({ id: ref, mergeIds: v.pipe(v.array(id), v.minLength(1), v.maxLength(20)) });

export const relationInput = v.strictObject({ fromId: ref, type: v.picklist(RELATION_NAMES), toId: ref });
export const relationListInput = v.strictObject({ id: ref, type: opt(v.picklist(RELATION_NAMES)) });

export const orgTreeInput = v.strictObject({ root: opt(ref) });
export const glossaryLookupInput = v.strictObject({ term: line(200) });

export const reviewListInput = v.strictObject({
  status: opt(v.picklist(["pending", "approved", "rejected", "expired", "superseded", "withdrawn"])),
  recordId: opt(id),
  ...pageInput,
});
export const reviewIdInput = v.strictObject({ id });
export const reviewApproveInput = v.strictObject({ id, comment: opt(text(2000)) });
export const reviewRejectInput = v.strictObject({ id, reason: v.pipe(v.string(), v.minLength(1), v.maxLength(2000)) });
export const policySetInput = v.strictObject({
  credentialKind: opt(v.picklist(["mcp_key", "oauth"])),
  credentialId: opt(id),
  review: v.boolean(),
});
export const emptyInput = v.strictObject({});
export const workItemsInput = v.strictObject({
  project: opt(refOf("project id or key (WEB)")),
  search: opt(line(200)),
  ...pageInput,
});
export const contactsInput = v.strictObject({ search: opt(line(200)), ...pageInput });
export const dealsInput = v.strictObject({
  search: opt(line(200)),
  contact: opt(described(v.union([anyId, v.pipe(v.string(), v.maxLength(254))]), "CRM contact id or email")),
  status: opt(v.picklist(["open", "won", "lost"])),
  ...pageInput,
});
