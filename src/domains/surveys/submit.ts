/**
 * A visitor's submission of one page of a survey, decided on the server in
 * one transaction: where they may be (the page the logic leads to, or one
 * they already passed), whether the page's answers hold, what comes next,
 * and, at an ending, the quota.
 *
 * A response is keyed by the hash of the page's one-time form token:
 *  - the first page submitted creates it (event survey.response_created);
 *  - later pages update it, so partial responses show where people stop;
 *  - reaching an ending finishes it once (survey.response_finished): a
 *    second submit of the same form (double click, refresh, a race) finds it
 *    finished and is shown the same ending, storing nothing more.
 * A page that is not on the visitor's path (a forged page id, a page the
 * logic skipped) is never read: they get the page they should be on.
 * Answers to questions off the final path are dropped when it finishes.
 *
 * The quota counts finished responses (surveys.response_count), checked
 * and incremented inside the finishing transaction: on PostgreSQL that
 * transaction is serializable (retried on conflict), on SQLite writes are
 * serial, so racing visitors never take more than the quota.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { emit } from "../../core/events";
import { fieldsFor, readPage, type FieldError } from "./answers";
import { acceptance, answersAsText, type SurveyRow } from "./access";
import type { AnswerValue, Definition } from "./definition";
import { responseCreated, responseFinished, surveyClosed } from "./events";
import { answersOnPath, nextStep, pageIndex } from "./logic";
import { surveyResponses, surveys } from "./tables";
import type { Tx } from "../../core/db";

export interface SubmitInput {
  surveyId: number;
  tokenHash: string;
  pageId: string;
  nav: "next" | "back";
  form: URLSearchParams;
  lang: string;
  /** Hidden field values the form carried (from the survey URL); only the first submission's are kept. */
  hidden: Record<string, string>;
}

export type SubmitOutcome =
  | {
      kind: "page";
      def: Definition;
      pageIndex: number;
      values: Map<string, string[]>;
      errors: Record<string, FieldError>;
      canGoBack: boolean;
    }
  | { kind: "ending"; def: Definition; endingId: string; already: boolean }
  | { kind: "closed"; reason: string }
  | { kind: "gone" };

type ResponseRow = typeof surveyResponses.$inferSelect;

/** Form values that show the stored answers of a page. */
function storedValues(
  def: Definition,
  index: number,
  answers: Record<string, AnswerValue>,
  other: Record<string, string>,
): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const q of def.pages[index]!.questions)
    for (const [k, v] of fieldsFor(q, answers[q.id], other[q.id])) m.set(k, v);
  return m;
}

/** What the visitor typed on a page, to show it again beside the errors. */
function echoedValues(def: Definition, index: number, form: URLSearchParams): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const q of def.pages[index]!.questions) {
    const prefix = `q.${q.id}`;
    for (const k of new Set(form.keys()))
      if (k === prefix || k.startsWith(`${prefix}.`))
        m.set(
          k,
          form.getAll(k).map((x) => x.slice(0, 20_000)),
        );
  }
  return m;
}

function pageOutcome(
  def: Definition,
  index: number,
  path: string[],
  values: Map<string, string[]>,
  errors: Record<string, FieldError> = {},
): SubmitOutcome {
  const id = def.pages[index]!.id;
  const pos = path.indexOf(id);
  return { kind: "page", def, pageIndex: index, values, errors, canGoBack: pos > 0 || (pos < 0 && path.length > 0) };
}

/** The page a visitor with this path should see next, or an ending when the path is complete. */
function expectedStep(
  def: Definition,
  path: string[],
  answers: Record<string, AnswerValue>,
  hidden: Record<string, string>,
) {
  if (path.length === 0) return { page: 0 } as const;
  const last = pageIndex(def, path[path.length - 1]!);
  return nextStep(def, last, answers, hidden);
}

export async function submitPage(deps: Deps, input: SubmitInput): Promise<SubmitOutcome> {
  return deps.db.transaction(async (tx0) => {
    const tx = tx0 as unknown as Tx;
    const now = deps.clock.now();
    const s = (await tx.select().from(surveys).where(eq(surveys.id, input.surveyId)).limit(1))[0];
    if (!s) return { kind: "gone" };
    const def = s.definition;
    const existing = (
      await tx
        .select()
        .from(surveyResponses)
        .where(and(eq(surveyResponses.surveyId, s.id), eq(surveyResponses.tokenHash, input.tokenHash)))
        .limit(1)
    )[0];
    if (existing?.finished) return { kind: "ending", def, endingId: endingOf(def, existing), already: true };
    const a = acceptance(s, now);
    if (!a.accepting) return { kind: "closed", reason: a.reason };

    // Pages and questions of an older version that are gone are forgotten.
    const path = (existing?.path ?? []).filter((p) => pageIndex(def, p) >= 0);
    const answers: Record<string, AnswerValue> = { ...(existing?.answers ?? {}) };
    const other: Record<string, string> = { ...(existing?.otherTexts ?? {}) };
    const hidden = existing?.hidden ?? input.hidden;

    const idx = pageIndex(def, input.pageId);
    const expected = expectedStep(def, path, answers, hidden);
    const onPath = idx >= 0 && (path.includes(input.pageId) || ("page" in expected && expected.page === idx));
    if (!onPath) {
      // A page the visitor cannot be on: show the one they should be on, reading nothing.
      const at = "page" in expected ? expected.page : pageIndex(def, path[path.length - 1]!);
      return pageOutcome(def, at, path, storedValues(def, at, answers, other));
    }
    const page = def.pages[idx]!;
    const read = readPage(page, input.form);

    if (input.nav === "back") {
      // Keep what was answered well on this page; go to the page before it on the path.
      const pos = path.indexOf(page.id);
      const prevId = pos > 0 ? path[pos - 1] : pos < 0 ? path[path.length - 1] : undefined;
      if (prevId === undefined) return pageOutcome(def, idx, path, echoedValues(def, idx, input.form));
      if (existing) {
        for (const q of page.questions)
          if (!read.errors[q.id] && read.answers[q.id] !== undefined) answers[q.id] = read.answers[q.id]!;
        await tx.update(surveyResponses).set({ answers, updatedAt: now }).where(eq(surveyResponses.id, existing.id));
      }
      const prev = pageIndex(def, prevId);
      return pageOutcome(def, prev, path, storedValues(def, prev, answers, other));
    }

    if (Object.keys(read.errors).length)
      return pageOutcome(def, idx, path, echoedValues(def, idx, input.form), read.errors);

    const pos = path.indexOf(page.id);
    const newPath = pos >= 0 ? path.slice(0, pos) : [...path];
    newPath.push(page.id);
    for (const q of page.questions) {
      delete answers[q.id];
      delete other[q.id];
    }
    Object.assign(answers, read.answers);
    Object.assign(other, read.other);
    const step = nextStep(def, idx, answers, hidden);

    let row: ResponseRow;
    const isNew = !existing;
    if (existing) {
      row = (
        await tx
          .update(surveyResponses)
          .set({ answers, otherTexts: other, path: newPath, surveyVersion: s.version, updatedAt: now })
          .where(eq(surveyResponses.id, existing.id))
          .returning()
      )[0]!;
    } else {
      row = (
        await tx
          .insert(surveyResponses)
          .values({
            surveyId: s.id,
            companyId: s.companyId,
            tokenHash: input.tokenHash,
            surveyVersion: s.version,
            language: input.lang,
            answers,
            otherTexts: other,
            hidden,
            path: newPath,
            finished: false,
            tags: [],
            notes: [],
            createdAt: now,
            updatedAt: now,
          })
          .returning()
      )[0]!;
    }

    if ("page" in step) {
      if (isNew) await emitCreated(tx, deps, s, row, def);
      return pageOutcome(def, step.page, newPath, storedValues(def, step.page, answers, other));
    }

    // An ending: finish once, within the quota.
    const finalAnswers = answersOnPath(def, newPath, answers);
    const finalOther = Object.fromEntries(Object.entries(other).filter(([k]) => finalAnswers[k] !== undefined));
    const counted = (
      await tx
        .update(surveys)
        .set({ responseCount: sql`${surveys.responseCount} + 1` })
        .where(
          and(
            eq(surveys.id, s.id),
            s.maxResponses === null ? undefined : sql`${surveys.responseCount} < ${s.maxResponses}`,
          ),
        )
        .returning({ n: surveys.responseCount })
    )[0];
    if (!counted) {
      if (isNew) await emitCreated(tx, deps, s, row, def);
      return { kind: "closed", reason: "quota" };
    }
    row = (
      await tx
        .update(surveyResponses)
        .set({
          answers: finalAnswers,
          otherTexts: finalOther,
          finished: true,
          finishedAt: now,
          endingId: step.ending,
          updatedAt: now,
        })
        .where(eq(surveyResponses.id, row.id))
        .returning()
    )[0]!;
    if (isNew) await emitCreated(tx, deps, s, row, def);
    await emit(
      tx,
      { deps, company: { id: s.companyId } },
      responseFinished,
      { id: row.id, siteId: s.siteId },
      { ...eventBody(s, row, def), endingId: step.ending },
    );
    if (s.maxResponses !== null && counted.n >= s.maxResponses) {
      await tx
        .update(surveys)
        .set({
          status: "closed",
          closedAt: now,
          closedReason: "quota",
          version: sql`${surveys.version} + 1`,
          updatedAt: now,
        })
        .where(eq(surveys.id, s.id));
      await emit(
        tx,
        { deps, company: { id: s.companyId } },
        surveyClosed,
        { id: s.id, siteId: s.siteId },
        { slug: s.slug, title: s.title, reason: "quota", responseCount: counted.n },
      );
    }
    return { kind: "ending", def, endingId: step.ending, already: false };
  });
}

function endingOf(def: Definition, r: ResponseRow): string {
  return r.endingId && def.endings.some((e) => e.id === r.endingId) ? r.endingId : def.endings[0]!.id;
}

function eventBody(s: SurveyRow, r: ResponseRow, def: Definition) {
  return {
    surveyId: s.id,
    slug: s.slug,
    title: s.title,
    finished: r.finished,
    language: r.language,
    hidden: r.hidden,
    answers: answersAsText(def, answersOnPath(def, r.path, r.answers), r.otherTexts),
  };
}

async function emitCreated(tx: Tx, deps: Deps, s: SurveyRow, r: ResponseRow, def: Definition) {
  await emit(
    tx,
    { deps, company: { id: s.companyId } },
    responseCreated,
    { id: r.id, siteId: s.siteId },
    eventBody(s, r, def),
  );
}
