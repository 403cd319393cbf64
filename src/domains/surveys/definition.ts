/**
 * What a survey is made of, as agents write it and as it is stored: pages
 * of typed questions, skip logic between pages, endings, hidden fields,
 * languages, close date and quota.
 *
 * The input schemas are deliberately flat (one question shape with the
 * fields every type may use) so the published JSON Schema stays small; the
 * rules per type are checked here, in `normalizeDefinition`, with messages
 * that name the path (`pages[1].questions[0].choices`) and say what to send.
 *
 * Skip logic: after a page is submitted its rules are tried in order and
 * the first whose conditions hold sends the visitor to a later page or to
 * an ending; otherwise the next page follows (after the last page, the
 * first ending). Conditions may read questions of this page or earlier
 * ones, and hidden fields. Jumps only go forward, so no path can loop: a
 * jump back (or to its own page) is refused as a cycle, naming it.
 *
 * Texts are written in the survey's first language; other languages are
 * translations keyed by where the text sits (`q1.title`, `q1.c2` for a
 * choice, `p2.title`, `end.body`…): see `textKeys`.
 */
import * as v from "valibot";
import { invalid } from "../../core/errors";
import { described } from "../../core/fields";
import { jsonBounds, publishedAs } from "../../core/json-value";
import { urlProblem } from "../blocks/urls";

export const QUESTION_TYPES = [
  "short_text",
  "long_text",
  "single_choice",
  "multiple_choice",
  "rating",
  "nps",
  "scale",
  "date",
  "email",
  "number",
  "matrix",
  "ranking",
] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const CONDITION_OPS = [
  "equals",
  "notEquals",
  "lessThan",
  "lessOrEqual",
  "greaterThan",
  "greaterOrEqual",
  "contains",
  "notContains",
  "answered",
  "skipped",
] as const;
export type ConditionOp = (typeof CONDITION_OPS)[number];

/** One answer as stored: text, a number, choice ids (multiple choice, ranking in order), or matrix row → column. */
export type AnswerValue = string | number | string[] | Record<string, string>;

export interface Option {
  id: string;
  label: string;
}

export interface Question {
  id: string;
  type: QuestionType;
  title: string;
  description?: string;
  required: boolean;
  placeholder?: string;
  choices?: Option[];
  allowOther?: boolean;
  rows?: Option[];
  columns?: Option[];
  /** rating: points (3–10). */
  scale?: number;
  /** number/scale: value bounds; text: length; multiple_choice: how many; date: YYYY-MM-DD. */
  min?: number | string;
  max?: number | string;
  minLabel?: string;
  maxLabel?: string;
  integer?: boolean;
}

export interface Condition {
  field: string;
  op: ConditionOp;
  value?: string | number | string[];
}

export interface Rule {
  if: Condition[];
  match: "all" | "any";
  goTo: string;
}

export interface Page {
  id: string;
  title?: string;
  questions: Question[];
  logic: Rule[];
}

export interface Ending {
  id: string;
  title: string;
  body?: string;
  /** After finishing, send the visitor here (303) instead of showing the ending. */
  redirectUrl?: string;
}

export interface Definition {
  title: string;
  slug: string;
  /** The site whose branding the form wears (colours, font); null for neutral. */
  siteId: number | null;
  description?: string;
  /** The first is the default: texts are written in it. */
  languages: string[];
  pages: Page[];
  endings: Ending[];
  hiddenFields: string[];
  closesAt: string | null;
  maxResponses: number | null;
  submitLabel?: string;
  /** language → text key → text, for every language but the first. */
  translations: Record<string, Record<string, string>>;
}

// ---------------------------------------------------------------- input schemas

export const ID_RE = /^[A-Za-z][A-Za-z0-9_-]*$/;
/**
 * Ids are checked by the verb (checkId), not by a pattern in the published
 * schema: the listing stays small and the message names where the id sits.
 */
const key = v.pipe(v.string(), v.minLength(1), v.maxLength(40));
// No C0 control characters in single-line text; multi-line text may hold tab, LF, CR.
const line = (max: number) =>
  v.pipe(
    v.string(),
    v.minLength(1),
    v.maxLength(max),
    v.regex(/^[^\u0000-\u001f\u007f]*$/, "must not contain control characters or line breaks"),
  );
const para = (max: number) =>
  v.pipe(
    v.string(),
    v.maxLength(max),
    v.regex(/^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/, "must not contain control characters"),
  );
const LANG_RE = /^[a-z]{2,3}(?:-[A-Z]{2})?$/;
export const langSchema = v.pipe(
  v.string(),
  v.regex(LANG_RE, "must be a language code like en, de or pt-BR"),
  v.examples(["de"]),
);

/** A choice, matrix row or column: checked item by item in the verb, so the listing only says "array". */
export const optionInput = v.strictObject({ id: key, label: line(300) });
const options = (max: number) =>
  v.optional(v.pipe(v.array(publishedAs(v.unknown(), "object")), v.maxLength(max), jsonBounds()));

/** min and max read by the question's type: checked in the verb. */
const bound = described(
  publishedAs(v.pipe(v.unknown(), jsonBounds()), ["number", "string"]),
  "by type: multiple_choice picks, text length, scale 0|1 to 10, number value, date YYYY-MM-DD",
);

export const questionInput = v.strictObject({
  id: key,
  type: v.picklist(QUESTION_TYPES),
  title: line(500),
  description: v.optional(para(2000)),
  required: v.optional(v.boolean()),
  placeholder: v.optional(line(200)),
  choices: options(100),
  allowOther: v.optional(v.boolean()),
  rows: options(50),
  columns: options(20),
  scale: v.optional(v.pipe(v.number(), v.integer())),
  /** number or YYYY-MM-DD by type: checked in the verb. */
  min: v.optional(bound),
  max: v.optional(bound),
  minLabel: v.optional(line(100)),
  maxLabel: v.optional(line(100)),
  integer: v.optional(v.boolean()),
});
export type QuestionInput = v.InferOutput<typeof questionInput>;

export const conditionInput = v.strictObject({
  field: key,
  op: v.picklist(CONDITION_OPS),
  /** text, a number, or a list of texts, by the field's type: checked in the verb. */
  value: v.optional(v.pipe(v.unknown(), jsonBounds())),
});
export type ConditionInput = v.InferOutput<typeof conditionInput>;

export const ruleInput = v.strictObject({
  if: v.pipe(v.array(conditionInput), v.minLength(1), v.maxLength(20)),
  match: v.optional(v.picklist(["all", "any"])),
  goTo: key,
});

export const pageInput = v.strictObject({
  id: v.optional(key),
  title: v.optional(line(300)),
  questions: v.pipe(v.array(questionInput), v.minLength(1), v.maxLength(100)),
  /** Rules [{if: [{field, op, value?}], match?, goTo}], checked one by one in the verb (the listing says "array"). */
  logic: v.optional(v.pipe(v.array(publishedAs(v.unknown(), "object")), v.maxLength(50), jsonBounds())),
});
export type PageInput = v.InferOutput<typeof pageInput>;

export const endingInput = v.strictObject({
  id: key,
  title: line(300),
  body: v.optional(para(2000)),
  redirectUrl: v.optional(v.pipe(v.string(), v.maxLength(2048))),
});
export type EndingInput = v.InferOutput<typeof endingInput>;

/** The parts of a survey create and update take (update: each replaces its part). */
export const definitionFields = {
  description: v.optional(para(2000)),
  languages: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(10))), v.minLength(1), v.maxLength(10))),
  pages: v.optional(v.pipe(v.array(pageInput), v.minLength(1), v.maxLength(50))),
  endings: v.optional(v.pipe(v.array(endingInput), v.maxLength(20))),
  hiddenFields: v.optional(v.pipe(v.array(key), v.maxLength(20))),
  closesAt: v.optional(
    v.nullable(v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 date-time like 2026-12-31T23:59:00Z"))),
  ),
  maxResponses: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000)))),
  submitLabel: v.optional(line(60)),
};

export interface DefinitionInput {
  title?: string;
  description?: string;
  languages?: string[];
  pages?: PageInput[];
  endings?: EndingInput[];
  hiddenFields?: string[];
  closesAt?: string | null;
  maxResponses?: number | null;
  submitLabel?: string;
}

// ---------------------------------------------------------------- normalising and checking

export const LIMITS = {
  questions: 200,
  textMax: 10_000,
  shortText: 500,
  longText: 5000,
  definitionBytes: 512 * 1024,
} as const;

/** Hidden field names the page itself uses in its URL. */
const RESERVED_PARAMS = new Set(["lang"]);

const CHOICE_TYPES = new Set<QuestionType>(["single_choice", "multiple_choice", "ranking"]);
const NUMERIC_TYPES = new Set<QuestionType>(["rating", "nps", "scale", "number"]);

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
export function isDate(s: string): boolean {
  if (!DATE_RE.test(s)) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}

function fail(path: string, message: string): never {
  throw invalid(`${path} ${message}`, { path });
}

/**
 * `value` parsed with `schema`, or a validation error naming the path
 * below `path` (for parts the published schema leaves loose).
 */
export function parseAt<S extends v.GenericSchema>(schema: S, value: unknown, path: string): v.InferOutput<S> {
  const r = v.safeParse(schema, value);
  if (r.success) return r.output;
  const issue = r.issues[0];
  const sub = (issue.path ?? []).map((p) => (typeof p.key === "number" ? `[${p.key}]` : `.${String(p.key)}`)).join("");
  const unknownKey = issue.expected === "never" && issue.path?.length ? "is not a field here" : null;
  fail(`${path}${sub}`, unknownKey ?? `is invalid: ${issue.message.replace(/^Invalid \w+: /, "")}.`);
}

function checkId(id: string, path: string): void {
  if (!ID_RE.test(id))
    fail(path, `"${id.slice(0, 40)}" must start with a letter and hold only letters, digits, _ and -.`);
}

function checkOptions(path: string, raw: unknown[] | undefined, min: number, what: string): Option[] {
  if (!raw || raw.length < min)
    fail(path, `needs at least ${min} ${what}, like [{"id":"a","label":"Yes"},{"id":"b","label":"No"}].`);
  const list = raw.map((o, i) => parseAt(optionInput, o, `${path}[${i}]`));
  const seen = new Set<string>();
  for (const [i, o] of list.entries()) {
    checkId(o.id, `${path}[${i}].id`);
    if (seen.has(o.id)) fail(`${path}[${i}].id`, `"${o.id}" is used twice in this question.`);
    seen.add(o.id);
  }
  return list.map((o) => ({ id: o.id, label: o.label }));
}

/** Only the fields that apply to the question's type, with the type's defaults; refuses the rest by name. */
function normalizeQuestion(q: QuestionInput, path: string): Question {
  const t = q.type;
  const allowed: Record<QuestionType, string[]> = {
    short_text: ["placeholder", "min", "max"],
    long_text: ["placeholder", "min", "max"],
    email: ["placeholder"],
    single_choice: ["choices", "allowOther"],
    multiple_choice: ["choices", "allowOther", "min", "max"],
    ranking: ["choices"],
    rating: ["scale", "minLabel", "maxLabel"],
    nps: ["minLabel", "maxLabel"],
    scale: ["min", "max", "minLabel", "maxLabel"],
    number: ["min", "max", "integer", "placeholder"],
    date: ["min", "max"],
    matrix: ["rows", "columns"],
  };
  const common = new Set(["id", "type", "title", "description", "required"]);
  for (const k of Object.keys(q)) {
    if (common.has(k) || (q as Record<string, unknown>)[k] === undefined) continue;
    if (!allowed[t].includes(k))
      fail(
        `${path}.${k}`,
        `does not apply to a ${t} question (it takes: ${allowed[t].join(", ") || "nothing beyond id, type, title, description, required"}).`,
      );
  }
  const out: Question = { id: q.id, type: t, title: q.title, required: q.required ?? false };
  if (q.description) out.description = q.description;
  if (q.placeholder) out.placeholder = q.placeholder;
  const num = (k: "min" | "max"): number | undefined => {
    const x = q[k];
    if (x === undefined) return undefined;
    if (typeof x !== "number" || !Number.isFinite(x)) fail(`${path}.${k}`, `must be a number for a ${t} question.`);
    return x;
  };
  const int = (k: "min" | "max", lo: number, hi: number): number | undefined => {
    const x = num(k);
    if (x !== undefined && (!Number.isInteger(x) || x < lo || x > hi))
      fail(`${path}.${k}`, `must be a whole number from ${lo} to ${hi}.`);
    return x;
  };
  switch (t) {
    case "short_text":
    case "long_text": {
      const cap = t === "short_text" ? LIMITS.shortText : LIMITS.longText;
      const min = int("min", 0, cap);
      const max = int("max", 1, cap) ?? cap;
      if (min !== undefined && min > max) fail(`${path}.min`, `(${min}) is more than max (${max}).`);
      if (min) out.min = min;
      out.max = max;
      break;
    }
    case "single_choice":
    case "multiple_choice":
    case "ranking": {
      out.choices = checkOptions(`${path}.choices`, q.choices, 2, "choices");
      if (t === "ranking" && out.choices.length > 30) fail(`${path}.choices`, "can rank at most 30 choices.");
      if (q.allowOther) {
        if (out.choices.some((c) => c.id === "other"))
          fail(`${path}.choices`, 'uses the id "other", which allowOther adds itself; rename that choice.');
        out.allowOther = true;
      }
      if (t === "multiple_choice") {
        const n = out.choices.length + (out.allowOther ? 1 : 0);
        const min = int("min", 1, n);
        const max = int("max", 1, n);
        if (min !== undefined && max !== undefined && min > max)
          fail(`${path}.min`, `(${min}) is more than max (${max}).`);
        if (min !== undefined) out.min = min;
        if (max !== undefined) out.max = max;
      }
      break;
    }
    case "rating": {
      const scale = q.scale ?? 5;
      if (!Number.isInteger(scale) || scale < 3 || scale > 10)
        fail(`${path}.scale`, "must be a whole number of points from 3 to 10.");
      out.scale = scale;
      break;
    }
    case "nps":
      break;
    case "scale": {
      const min = int("min", 0, 1) ?? 1;
      const max = int("max", min + 1, 10) ?? 5;
      out.min = min;
      out.max = max;
      break;
    }
    case "number": {
      const min = num("min");
      const max = num("max");
      if (min !== undefined && max !== undefined && min > max)
        fail(`${path}.min`, `(${min}) is more than max (${max}).`);
      if (min !== undefined) out.min = min;
      if (max !== undefined) out.max = max;
      if (q.integer) out.integer = true;
      break;
    }
    case "date": {
      for (const k of ["min", "max"] as const) {
        const x = q[k];
        if (x === undefined) continue;
        if (typeof x !== "string" || !isDate(x)) fail(`${path}.${k}`, "must be a date like 2026-01-31.");
        out[k] = x;
      }
      if (typeof out.min === "string" && typeof out.max === "string" && out.min > out.max)
        fail(`${path}.min`, `(${out.min}) is after max (${out.max}).`);
      break;
    }
    case "matrix":
      out.rows = checkOptions(`${path}.rows`, q.rows, 1, "rows");
      out.columns = checkOptions(`${path}.columns`, q.columns, 2, "columns");
      break;
    case "email":
      break;
  }
  if (q.minLabel) out.minLabel = q.minLabel;
  if (q.maxLabel) out.maxLabel = q.maxLabel;
  return out;
}

/** The question a condition reads, or the hidden field. */
type FieldRef = { kind: "question"; question: Question; page: number } | { kind: "hidden"; name: string };

function checkCondition(c: ConditionInput, path: string, ref: FieldRef): Condition {
  const out: Condition = { field: c.field, op: c.op };
  const needsValue = c.op !== "answered" && c.op !== "skipped";
  if (!needsValue) {
    if (c.value !== undefined) fail(`${path}.value`, `is not used with op "${c.op}"; leave it out.`);
    return out;
  }
  if (c.value === undefined) fail(`${path}.value`, `is required with op "${c.op}".`);
  const val = c.value;
  const shapeOk =
    (typeof val === "string" && val.length <= 500) ||
    (typeof val === "number" && Number.isFinite(val)) ||
    (Array.isArray(val) &&
      val.length > 0 &&
      val.length <= 100 &&
      val.every((x) => typeof x === "string" && x.length <= 100));
  if (!shapeOk) fail(`${path}.value`, "must be a text (up to 500 characters), a number, or a list of up to 100 texts.");
  if (ref.kind === "hidden") {
    if (["lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual"].includes(c.op))
      fail(
        `${path}.op`,
        `"${c.op}" does not apply to hidden field "${ref.name}" (text): use equals, notEquals, contains, notContains, answered or skipped.`,
      );
    if (typeof val !== "string" && !(Array.isArray(val) && c.op.endsWith("quals")))
      fail(`${path}.value`, "must be text for a hidden field.");
    out.value = val;
    return out;
  }
  const q = ref.question;
  const ops: Record<QuestionType, ConditionOp[]> = {
    short_text: ["equals", "notEquals", "contains", "notContains"],
    long_text: ["equals", "notEquals", "contains", "notContains"],
    email: ["equals", "notEquals", "contains", "notContains"],
    single_choice: ["equals", "notEquals"],
    multiple_choice: ["contains", "notContains", "equals", "notEquals"],
    ranking: ["contains", "notContains"],
    rating: ["equals", "notEquals", "lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual"],
    nps: ["equals", "notEquals", "lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual"],
    scale: ["equals", "notEquals", "lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual"],
    number: ["equals", "notEquals", "lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual"],
    date: ["equals", "notEquals", "lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual"],
    matrix: ["contains", "notContains"],
  };
  if (!ops[q.type].includes(c.op as ConditionOp))
    fail(
      `${path}.op`,
      `"${c.op}" does not apply to ${q.type} question "${q.id}": use ${[...ops[q.type], "answered", "skipped"].join(", ")}.`,
    );
  if (NUMERIC_TYPES.has(q.type)) {
    if (typeof val !== "number") fail(`${path}.value`, `must be a number for ${q.type} question "${q.id}".`);
  } else if (q.type === "date") {
    if (typeof val !== "string" || !isDate(val))
      fail(`${path}.value`, `must be a date like 2026-01-31 for date question "${q.id}".`);
  } else if (CHOICE_TYPES.has(q.type)) {
    const ids = new Set([...(q.choices ?? []).map((o) => o.id), ...(q.allowOther ? ["other"] : [])]);
    const list = Array.isArray(val) ? val : [val];
    if (list.length === 0) fail(`${path}.value`, "must name at least one choice id.");
    for (const x of list) {
      if (typeof x !== "string" || !ids.has(x))
        fail(
          `${path}.value`,
          `names ${JSON.stringify(x)}, which is not a choice id of "${q.id}" (${[...ids].join(", ")}).`,
        );
    }
  } else if (q.type === "matrix") {
    // "row=column": the row answered with that column.
    const list = Array.isArray(val) ? val : [val];
    for (const x of list) {
      const [row, col] = typeof x === "string" ? x.split("=") : [];
      if (!q.rows!.some((r) => r.id === row) || !q.columns!.some((c2) => c2.id === col))
        fail(
          `${path}.value`,
          `must read "rowId=columnId" with ids of matrix "${q.id}", like "${q.rows![0]!.id}=${q.columns![0]!.id}".`,
        );
    }
  } else if (typeof val !== "string" && !(Array.isArray(val) && c.op.endsWith("quals"))) {
    fail(`${path}.value`, `must be text for ${q.type} question "${q.id}".`);
  }
  out.value = val;
  return out;
}

/**
 * The stored form of a definition: defaults applied, every rule checked
 * (ids unique across pages, questions, endings and hidden fields; types'
 * own fields; conditions that read only earlier answers; jumps that only go
 * forward). Throws a validation error naming the path of the first problem.
 * `now`: the close date must be after it (null: not checked).
 */
export function normalizeDefinition(
  input: Required<Pick<DefinitionInput, "title" | "pages">> &
    DefinitionInput & { slug: string; siteId?: number | null; translations?: Definition["translations"] },
  now: Date | null,
): Definition {
  const languages = input.languages ?? ["en"];
  languages.forEach((l, i) => {
    if (!LANG_RE.test(l)) fail(`languages[${i}]`, `"${l}" must be a language code like en, de or pt-BR.`);
  });
  if (new Set(languages).size !== languages.length) fail("languages", "lists a language twice.");
  const ids = new Map<string, string>();
  const claim = (id: string, path: string) => {
    checkId(id, path);
    const prev = ids.get(id);
    if (prev)
      fail(
        path,
        `"${id}" is already used at ${prev}; ids of pages, questions, endings and hidden fields must all differ.`,
      );
    ids.set(id, path);
  };
  const hiddenFields = input.hiddenFields ?? [];
  hiddenFields.forEach((h, i) => {
    if (RESERVED_PARAMS.has(h))
      fail(`hiddenFields[${i}]`, `"${h}" is the page's own URL parameter (the language); choose another name.`);
    claim(h, `hiddenFields[${i}]`);
  });
  const pageIds = input.pages.map((p, i) => p.id ?? `page-${i + 1}`);
  pageIds.forEach((id, i) => claim(id, `pages[${i}].id`));
  let count = 0;
  const questionAt = new Map<string, { question: Question; page: number }>();
  const pages: Page[] = input.pages.map((p, i) => {
    const questions = p.questions.map((q, j) => {
      const path = `pages[${i}].questions[${j}]`;
      claim(q.id, `${path}.id`);
      const nq = normalizeQuestion(q, path);
      questionAt.set(nq.id, { question: nq, page: i });
      return nq;
    });
    count += questions.length;
    return { id: pageIds[i]!, ...(p.title ? { title: p.title } : {}), questions, logic: [] };
  });
  if (count > LIMITS.questions)
    fail("pages", `hold ${count} questions; a survey may have at most ${LIMITS.questions}.`);
  let endings: Ending[] = (input.endings ?? []).map((e, i) => {
    claim(e.id, `endings[${i}].id`);
    if (e.redirectUrl !== undefined) {
      const problem = urlProblem(e.redirectUrl, true);
      if (problem) fail(`endings[${i}].redirectUrl`, `${problem}.`);
    }
    return {
      id: e.id,
      title: e.title,
      ...(e.body ? { body: e.body } : {}),
      ...(e.redirectUrl ? { redirectUrl: e.redirectUrl } : {}),
    };
  });
  if (endings.length === 0) {
    let id = "end";
    for (let n = 2; ids.has(id); n++) id = `end-${n}`;
    endings = [{ id, title: "Thank you!", body: "Your response has been recorded." }];
    ids.set(id, "endings[0].id");
  }
  const endingIds = new Set(endings.map((e) => e.id));
  input.pages.forEach((p, i) => {
    pages[i]!.logic = (p.logic ?? []).map((raw, k) => {
      const path = `pages[${i}].logic[${k}]`;
      const r = parseAt(ruleInput, raw, path);
      const target = pageIds.indexOf(r.goTo);
      if (target < 0 && !endingIds.has(r.goTo))
        fail(
          `${path}.goTo`,
          `"${r.goTo}" is neither a page nor an ending (pages: ${pageIds.join(", ")}; endings: ${[...endingIds].join(", ")}).`,
        );
      if (target >= 0 && target <= i) {
        const loop = pageIds.slice(target, i + 1).join(" → ");
        fail(
          `${path}.goTo`,
          `jumps back to page "${r.goTo}", which would make a cycle (${loop} → ${r.goTo}); jumps may only go to a later page or an ending.`,
        );
      }
      const conds = r.if.map((c, ci) => {
        const cpath = `${path}.if[${ci}]`;
        if (hiddenFields.includes(c.field)) return checkCondition(c, cpath, { kind: "hidden", name: c.field });
        const at = questionAt.get(c.field);
        if (!at) fail(`${cpath}.field`, `"${c.field}" is not a question or hidden field of this survey.`);
        if (at.page > i)
          fail(
            `${cpath}.field`,
            `reads "${c.field}", which is asked later (page "${pageIds[at.page]}"); logic on page "${pageIds[i]}" can only read answers given by then.`,
          );
        return checkCondition(c, cpath, { kind: "question", ...at });
      });
      return { if: conds, match: r.match ?? "all", goTo: r.goTo };
    });
  });
  let closesAt: string | null = null;
  if (input.closesAt) {
    const t = Date.parse(input.closesAt);
    // `now` is null when the close date is carried over unchanged: one that has passed since does not block other edits.
    if (now !== null && !(t > now.getTime()))
      fail("closesAt", `(${input.closesAt}) is not in the future; give a later date-time, or null for no close date.`);
    closesAt = new Date(t).toISOString();
  }
  const def: Definition = {
    title: input.title,
    slug: input.slug,
    siteId: input.siteId ?? null,
    ...(input.description ? { description: input.description } : {}),
    languages,
    pages,
    endings,
    hiddenFields,
    closesAt,
    maxResponses: input.maxResponses ?? null,
    ...(input.submitLabel ? { submitLabel: input.submitLabel } : {}),
    translations: {},
  };
  def.translations = keepTranslations(def, input.translations ?? {}, null).kept;
  if (JSON.stringify(def).length > LIMITS.definitionBytes)
    fail("pages", `make a survey of more than ${LIMITS.definitionBytes / 1024} KiB; split it into several surveys.`);
  return def;
}

/**
 * A condition used to filter responses (the same shape as skip logic): it
 * must read a question or hidden field of `def`, with an operator and value
 * that fit it.
 */
export function checkFilterCondition(def: Definition, c: ConditionInput, path: string): Condition {
  if (def.hiddenFields.includes(c.field)) return checkCondition(c, path, { kind: "hidden", name: c.field });
  for (const [i, p] of def.pages.entries()) {
    const q = p.questions.find((x) => x.id === c.field);
    if (q) return checkCondition(c, path, { kind: "question", question: q, page: i });
  }
  const known = [...allQuestions(def).map((q) => q.id), ...def.hiddenFields];
  fail(
    `${path}.field`,
    `"${c.field}" is not a question or hidden field of this survey (${known.slice(0, 12).join(", ")}${known.length > 12 ? ", …" : ""}).`,
  );
}

// ---------------------------------------------------------------- texts and translations

/** Every text of a survey by its translation key, in the default language, in reading order. */
export function textKeys(
  def: Pick<Definition, "title" | "description" | "submitLabel" | "pages" | "endings">,
): Map<string, string> {
  const m = new Map<string, string>();
  const put = (k: string, s: string | undefined) => {
    if (s) m.set(k, s);
  };
  put("title", def.title);
  put("description", def.description);
  put("submitLabel", def.submitLabel);
  for (const p of def.pages) {
    put(`${p.id}.title`, p.title);
    for (const q of p.questions) {
      put(`${q.id}.title`, q.title);
      put(`${q.id}.description`, q.description);
      put(`${q.id}.placeholder`, q.placeholder);
      put(`${q.id}.minLabel`, q.minLabel);
      put(`${q.id}.maxLabel`, q.maxLabel);
      for (const o of [...(q.choices ?? []), ...(q.rows ?? []), ...(q.columns ?? [])]) put(`${q.id}.${o.id}`, o.label);
    }
  }
  for (const e of def.endings) {
    put(`${e.id}.title`, e.title);
    put(`${e.id}.body`, e.body);
  }
  return m;
}

/**
 * Translations that still fit a changed definition: a key whose default
 * text changed (or that is gone) is dropped, since its translation now says
 * something else; `dropped` names them so the author can translate again.
 */
export function keepTranslations(
  def: Definition,
  translations: Definition["translations"],
  previous: Definition | null,
): { kept: Definition["translations"]; dropped: string[] } {
  const now = textKeys(def);
  const before = previous ? textKeys(previous) : null;
  const kept: Definition["translations"] = {};
  const dropped: string[] = [];
  for (const lang of def.languages.slice(1)) {
    const t = translations[lang];
    if (!t) continue;
    const out: Record<string, string> = {};
    for (const [k, s] of Object.entries(t)) {
      if (!now.has(k)) continue;
      if (before && before.get(k) !== undefined && before.get(k) !== now.get(k)) {
        dropped.push(`${lang}:${k}`);
        continue;
      }
      out[k] = s;
    }
    if (Object.keys(out).length) kept[lang] = out;
  }
  return { kept, dropped };
}

/** A survey's text in `lang`, falling back to the default language. */
export function translator(def: Definition, lang: string): (key: string, fallback: string) => string {
  const t = lang === def.languages[0] ? undefined : def.translations[lang];
  return t ? (k, fallback) => t[k] ?? fallback : (_k, fallback) => fallback;
}

// ---------------------------------------------------------------- lookups

export function allQuestions(def: Pick<Definition, "pages">): Question[] {
  return def.pages.flatMap((p) => p.questions);
}

export function questionById(def: Pick<Definition, "pages">, id: string): Question | undefined {
  for (const p of def.pages) for (const q of p.questions) if (q.id === id) return q;
  return undefined;
}

/** A choice's label (or "Other"), for display. */
export function optionLabel(q: Question, id: string): string {
  if (id === "other" && q.allowOther) return "Other";
  return [...(q.choices ?? []), ...(q.rows ?? []), ...(q.columns ?? [])].find((o) => o.id === id)?.label ?? id;
}
