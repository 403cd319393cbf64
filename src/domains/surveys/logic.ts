/**
 * Skip logic, evaluated on the server: which page (or ending) follows a
 * submitted page, given the answers so far and the hidden fields.
 *
 * Semantics (also in docs/surveys.md):
 *  - a skipped question (no answer) matches only `skipped`; every other
 *    operator, `notEquals` and `notContains` included, is false for it;
 *  - text compares ignore case and surrounding spaces; `contains` is a
 *    substring test for text, membership for multiple choice, ranking and
 *    matrix ("row=column");
 *  - `equals` with a list of values means "one of them" (single choice,
 *    text, numbers); for multiple choice it means exactly that set;
 *  - dates compare as YYYY-MM-DD.
 */
import type { AnswerValue, Condition, Definition, Page, Question } from "./definition";
import { questionById } from "./definition";

export type Step = { page: number } | { ending: string };

const norm = (s: string) => s.trim().toLowerCase();

function compare(a: AnswerValue, b: string | number): number | null {
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return null;
}

function equalsValue(a: AnswerValue, v: NonNullable<Condition["value"]>, q: Question | undefined): boolean {
  if (Array.isArray(a)) {
    // Multiple choice: exactly this set of choices.
    const want = Array.isArray(v) ? v : [String(v)];
    return a.length === want.length && want.every((x) => a.includes(x));
  }
  const list = Array.isArray(v) ? v : [v];
  return list.some((x) => {
    if (typeof a === "number") return typeof x === "number" && a === x;
    if (typeof a === "string" && typeof x === "string")
      return q?.type === "single_choice" || q?.type === "date" ? a === x : norm(a) === norm(x);
    return false;
  });
}

function containsValue(a: AnswerValue, v: NonNullable<Condition["value"]>): boolean {
  const list = (Array.isArray(v) ? v : [v]).map(String);
  if (Array.isArray(a)) return list.some((x) => a.includes(x));
  if (typeof a === "string") return list.some((x) => norm(a).includes(norm(x)));
  if (a && typeof a === "object")
    return list.some((x) => {
      const [row, col] = x.split("=");
      return (a as Record<string, string>)[row!] === col;
    });
  return false;
}

export function conditionHolds(
  def: Pick<Definition, "pages">,
  c: Condition,
  answers: Record<string, AnswerValue>,
  hidden: Record<string, string>,
): boolean {
  const q = questionById(def, c.field);
  const raw = q ? answers[c.field] : hidden[c.field];
  const a = raw === "" ? undefined : raw;
  if (c.op === "skipped") return a === undefined;
  if (a === undefined) return false;
  if (c.op === "answered") return true;
  const v = c.value!;
  switch (c.op) {
    case "equals":
      return equalsValue(a, v, q);
    case "notEquals":
      return !equalsValue(a, v, q);
    case "contains":
      return containsValue(a, v);
    case "notContains":
      return !containsValue(a, v);
    default: {
      if (Array.isArray(v)) return false;
      const d = compare(a, v);
      if (d === null) return false;
      return c.op === "lessThan" ? d < 0 : c.op === "lessOrEqual" ? d <= 0 : c.op === "greaterThan" ? d > 0 : d >= 0;
    }
  }
}

/** Where a visitor goes after submitting page `index`. */
export function nextStep(
  def: Definition,
  index: number,
  answers: Record<string, AnswerValue>,
  hidden: Record<string, string>,
): Step {
  const page = def.pages[index]!;
  for (const rule of page.logic) {
    const hits = rule.if.map((c) => conditionHolds(def, c, answers, hidden));
    if (rule.match === "any" ? hits.some(Boolean) : hits.every(Boolean)) {
      const target = def.pages.findIndex((p) => p.id === rule.goTo);
      return target >= 0 ? { page: target } : { ending: rule.goTo };
    }
  }
  return index + 1 < def.pages.length ? { page: index + 1 } : { ending: def.endings[0]!.id };
}

/**
 * The pages a visitor with these answers sees, in order, and where it ends:
 * the walk from the first page through every rule. Answers to questions off
 * this path are answers to skipped questions.
 */
export function walk(
  def: Definition,
  answers: Record<string, AnswerValue>,
  hidden: Record<string, string>,
): { pages: string[]; ending: string } {
  const pages: string[] = [];
  let i = 0;
  // Jumps only go forward (checked when the survey is written), so this ends within pages.length steps.
  for (let guard = 0; guard <= def.pages.length; guard++) {
    pages.push(def.pages[i]!.id);
    const step = nextStep(def, i, answers, hidden);
    if ("ending" in step) return { pages, ending: step.ending };
    i = step.page;
  }
  throw new Error("survey logic did not end (a backward jump slipped past validation)");
}

export function pageIndex(def: Definition, id: string): number {
  return def.pages.findIndex((p) => p.id === id);
}

/** Only the answers of questions on `pages`: what a response keeps. */
export function answersOnPath(
  def: Definition,
  pages: readonly string[],
  answers: Record<string, AnswerValue>,
): Record<string, AnswerValue> {
  const on = new Set(pages);
  const out: Record<string, AnswerValue> = {};
  for (const p of def.pages as Page[]) {
    if (!on.has(p.id)) continue;
    for (const q of p.questions) if (answers[q.id] !== undefined) out[q.id] = answers[q.id]!;
  }
  return out;
}
