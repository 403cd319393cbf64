/**
 * Responses for agents: list and filter, read one, tag, annotate, delete,
 * export as CSV, summarise per question. Every read takes the same filters
 * (completion, dates, tag, hidden fields, answer conditions in the shape of
 * skip logic, a text search), so a summary or an export covers exactly the
 * responses a list shows.
 *
 * Completion, dates and tags are filtered in SQL; answer conditions, hidden
 * fields and search read the answers JSON, which the two engines query
 * differently, so they are applied in memory over at most SCAN_LIMIT of the
 * survey's newest matching responses (the result says `truncated` past it).
 */
import Papa from "papaparse";
import { and, count, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { greatest, jsonContains } from "../../core/sql";
import { users } from "../../core/tables";
import { answerText } from "./answers";
import { surveyRef, type SurveyRow } from "./access";
import {
  allQuestions,
  checkFilterCondition,
  conditionInput,
  parseAt,
  type AnswerValue,
  type Condition,
  type Definition,
} from "./definition";
import { responseAnnotated, responseDeleted, responseTagged } from "./events";
import { conditionHolds } from "./logic";
import { summarize } from "./summary";
import { surveyResponses, surveys, type ResponseNote } from "./tables";
import type { Tx } from "../../core/db";

export const SCAN_LIMIT = 50_000;
export const EXPORT_MAX = 5000;

export interface ResponseFilters {
  surveyId?: number;
  surveySlug?: string;
  finished?: boolean;
  from?: string;
  to?: string;
  tag?: string;
  where?: unknown[];
  search?: string;
}

type ResponseRow = typeof surveyResponses.$inferSelect;

const write = <T>(ctx: ActorContext, fn: (tx: Tx) => Promise<T>) =>
  ctx.deps.db.transaction((tx) => fn(tx as unknown as Tx));

export const normalTag = (t: string) => t.trim().toLowerCase().replace(/\s+/g, " ");

interface Selection {
  survey: SurveyRow;
  rows: ResponseRow[];
  total: number;
  truncated: boolean;
}

/**
 * The responses of one survey matching the filters, newest first. With
 * `window`, only SQL-side filters apply and only that page is read.
 */
async function select(
  ctx: ActorContext,
  f: ResponseFilters,
  window?: { limit: number; offset: number },
): Promise<Selection> {
  const survey = await surveyRef(ctx.deps.db, ctx, { id: f.surveyId, slug: f.surveySlug }, "surveyId", "surveySlug");
  const def = survey.definition;
  const where: (SQL | undefined)[] = [eq(surveyResponses.surveyId, survey.id)];
  if (f.finished !== undefined) where.push(eq(surveyResponses.finished, f.finished));
  if (f.from) where.push(gte(surveyResponses.createdAt, new Date(f.from)));
  if (f.to) where.push(lt(surveyResponses.createdAt, new Date(f.to)));
  if (f.tag) where.push(jsonContains(surveyResponses.tags, JSON.stringify(normalTag(f.tag))));
  const conds: Condition[] = (f.where ?? []).map((c, i) =>
    checkFilterCondition(def, parseAt(conditionInput, c, `filter.where[${i}]`), `filter.where[${i}]`),
  );
  const needle = f.search?.trim().toLowerCase();
  const inMemory = conds.length > 0 || !!needle;
  const sqlWhere = and(...where);
  if (!inMemory && window) {
    const total = (await ctx.deps.db.select({ n: count() }).from(surveyResponses).where(sqlWhere))[0]?.n ?? 0;
    const rows = await ctx.deps.db
      .select()
      .from(surveyResponses)
      .where(sqlWhere)
      .orderBy(desc(surveyResponses.id))
      .limit(window.limit)
      .offset(window.offset);
    return { survey, rows, total, truncated: false };
  }
  const scanned = await ctx.deps.db
    .select()
    .from(surveyResponses)
    .where(sqlWhere)
    .orderBy(desc(surveyResponses.id))
    .limit(SCAN_LIMIT + 1);
  const truncated = scanned.length > SCAN_LIMIT;
  const rows = scanned.slice(0, SCAN_LIMIT).filter((r) => {
    for (const c of conds) if (!conditionHolds(def, c, r.answers, r.hidden)) return false;
    if (needle && !matchesText(def, r, needle)) return false;
    return true;
  });
  if (!window) return { survey, rows, total: rows.length, truncated };
  return { survey, rows: rows.slice(window.offset, window.offset + window.limit), total: rows.length, truncated };
}

function matchesText(def: Definition, r: ResponseRow, needle: string): boolean {
  for (const q of allQuestions(def)) {
    const v = r.answers[q.id];
    if (v !== undefined && answerText(q, v, r.otherTexts[q.id]).toLowerCase().includes(needle)) return true;
  }
  return r.notes.some((n) => n.text.toLowerCase().includes(needle));
}

function listItem(r: ResponseRow) {
  return {
    id: r.id,
    finished: r.finished,
    createdAt: iso(r.createdAt),
    finishedAt: iso(r.finishedAt),
    language: r.language,
    hidden: r.hidden,
    tags: r.tags,
    notes: r.notes.length,
    answers: r.answers,
    ...(Object.keys(r.otherTexts).length ? { otherTexts: r.otherTexts } : {}),
  };
}

export async function listResponses(ctx: ActorContext, input: ResponseFilters & { limit: number; offset: number }) {
  authorize(ctx, "surveys:read", { write: false });
  const sel = await select(ctx, input, { limit: input.limit, offset: input.offset });
  return {
    ...page(sel.rows.map(listItem), sel.total, input.limit, input.offset),
    surveyId: sel.survey.id,
    ...(sel.truncated ? { truncated: true } : {}),
  };
}

async function responseInCompany(db: Pick<Tx, "select">, ctx: ActorContext, id: number) {
  const r = (
    await db
      .select()
      .from(surveyResponses)
      .where(and(eq(surveyResponses.id, id), eq(surveyResponses.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!r) throw notFound(`Survey response ${id} not found in ${ctx.company.name}.`);
  const s = (await db.select().from(surveys).where(eq(surveys.id, r.surveyId)).limit(1))[0]!;
  return { r, s };
}

export async function getResponse(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "surveys:read", { write: false });
  const { r, s } = await responseInCompany(ctx.deps.db, ctx, input.id);
  const def = s.definition;
  const known = new Set(allQuestions(def).map((q) => q.id));
  const questions = allQuestions(def)
    .filter((q) => r.answers[q.id] !== undefined)
    .map((q) => ({
      questionId: q.id,
      question: q.title,
      type: q.type,
      value: r.answers[q.id],
      text: answerText(q, r.answers[q.id], r.otherTexts[q.id]),
    }));
  // Answers to questions removed since: kept, shown by id.
  const removed = Object.entries(r.answers)
    .filter(([k]) => !known.has(k))
    .map(([k, value]) => ({
      questionId: k,
      question: null,
      type: null,
      value,
      text: typeof value === "object" ? JSON.stringify(value) : String(value),
    }));
  return {
    ...listItem(r),
    survey: { id: s.id, slug: s.slug, title: s.title },
    surveyVersion: r.surveyVersion,
    path: r.path,
    endingId: r.endingId,
    answersText: [...questions, ...removed],
    notes: r.notes,
    updatedAt: iso(r.updatedAt),
  };
}

export async function tagResponse(ctx: ActorContext, input: { id: number; add?: string[]; remove?: string[] }) {
  authorize(ctx, "surveys:write", { write: true });
  const add = [...new Set((input.add ?? []).map(normalTag))].filter(Boolean);
  const remove = new Set((input.remove ?? []).map(normalTag));
  if (add.length === 0 && remove.size === 0) throw invalid("Give tags to add or remove.", { path: "add" });
  return write(ctx, async (tx) => {
    const { r, s } = await responseInCompany(tx, ctx, input.id);
    const tags = [...r.tags.filter((t) => !remove.has(t)), ...add.filter((t) => !r.tags.includes(t))];
    if (tags.length > 20)
      throw invalid(`A response may carry at most 20 tags; this would make ${tags.length}.`, { path: "add" });
    const added = tags.filter((t) => !r.tags.includes(t));
    const removed = r.tags.filter((t) => !tags.includes(t));
    if (added.length || removed.length) {
      await tx
        .update(surveyResponses)
        .set({ tags, updatedAt: ctx.deps.clock.now() })
        .where(eq(surveyResponses.id, r.id));
      await audit(tx, ctx, "survey_responses.tag", { type: "survey_response", id: r.id, detail: { added, removed } });
      await emit(
        tx,
        ctx,
        responseTagged,
        { id: r.id, siteId: s.siteId },
        { surveyId: s.id, slug: s.slug, tags, added, removed },
      );
    }
    return { id: r.id, surveyId: s.id, tags };
  });
}

export async function annotateResponse(ctx: ActorContext, input: { id: number; note: string }) {
  authorize(ctx, "surveys:write", { write: true });
  const text = input.note.trim();
  if (!text) throw invalid("note must not be blank.", { path: "note" });
  return write(ctx, async (tx) => {
    const { r, s } = await responseInCompany(tx, ctx, input.id);
    if (r.notes.length >= 100) throw invalid("A response holds at most 100 notes.", { path: "note" });
    const user = (
      await tx
        .select({ name: users.name, email: users.email })
        .from(users)
        .where(eq(users.id, ctx.principal.userId))
        .limit(1)
    )[0];
    const now = ctx.deps.clock.now();
    const note: ResponseNote = {
      id: (r.notes.at(-1)?.id ?? 0) + 1,
      text,
      userId: ctx.principal.userId,
      by: user?.name ?? user?.email ?? `user ${ctx.principal.userId}`,
      at: iso(now)!,
    };
    await tx
      .update(surveyResponses)
      .set({ notes: [...r.notes, note], updatedAt: now })
      .where(eq(surveyResponses.id, r.id));
    await audit(tx, ctx, "survey_responses.annotate", {
      type: "survey_response",
      id: r.id,
      detail: { noteId: note.id },
    });
    await emit(
      tx,
      ctx,
      responseAnnotated,
      { id: r.id, siteId: s.siteId },
      { surveyId: s.id, slug: s.slug, noteId: note.id, text, userId: ctx.principal.userId },
    );
    return { id: r.id, surveyId: s.id, note };
  });
}

export async function deleteResponse(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "surveys:write", { write: true });
  return write(ctx, async (tx) => {
    const { r, s } = await responseInCompany(tx, ctx, input.id);
    await tx.delete(surveyResponses).where(eq(surveyResponses.id, r.id));
    // A deleted finished response frees its place in the quota (spam removed makes room for real answers).
    if (r.finished)
      await tx
        .update(surveys)
        .set({ responseCount: greatest(sql`${surveys.responseCount} - 1`, 0) })
        .where(eq(surveys.id, s.id));
    await audit(tx, ctx, "survey_responses.delete", {
      type: "survey_response",
      id: r.id,
      detail: { surveyId: s.id, finished: r.finished },
    });
    await emit(
      tx,
      ctx,
      responseDeleted,
      { id: r.id, siteId: s.siteId },
      { surveyId: s.id, slug: s.slug, finished: r.finished },
    );
    return { id: r.id, status: "deleted", surveyId: s.id };
  });
}

/** The tags used on a survey's responses, most used first. */
export async function listTags(ctx: ActorContext, input: { surveyId?: number; surveySlug?: string }) {
  authorize(ctx, "surveys:read", { write: false });
  const s = await surveyRef(ctx.deps.db, ctx, { id: input.surveyId, slug: input.surveySlug }, "surveyId", "surveySlug");
  const rows = await ctx.deps.db
    .select({ tags: surveyResponses.tags })
    .from(surveyResponses)
    .where(eq(surveyResponses.surveyId, s.id));
  const counts = new Map<string, number>();
  for (const r of rows) for (const t of r.tags) counts.set(t, (counts.get(t) ?? 0) + 1);
  return {
    surveyId: s.id,
    tags: [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).map(([tag, count]) => ({ tag, count })),
  };
}

export async function summarizeResponses(ctx: ActorContext, input: ResponseFilters) {
  authorize(ctx, "surveys:read", { write: false });
  const sel = await select(ctx, input);
  return {
    surveyId: sel.survey.id,
    slug: sel.survey.slug,
    title: sel.survey.title,
    ...summarize(sel.survey.definition, sel.rows),
    ...(sel.truncated
      ? { truncated: true, note: `Only the newest ${SCAN_LIMIT} responses were read; narrow with from/to.` }
      : {}),
  };
}

/**
 * Cells a spreadsheet would run as a formula are prefixed with ' (OWASP's
 * advice): papaparse's own pattern misses a value that starts with "=" and
 * goes on past a line break, so ours looks at the first character only, and
 * also catches the full-width forms some spreadsheets read alike.
 */
const FORMULA_START = /^[=+\-@\t\r\n\uff1d\uff0b\uff0d\uff20]/;

/** The CSV of the matching responses, one row each, one column per question (per row of a matrix), newest first. */
export async function exportResponses(ctx: ActorContext, input: ResponseFilters & { limit: number; offset: number }) {
  authorize(ctx, "surveys:read", { write: false });
  const sel = await select(ctx, input, { limit: input.limit, offset: input.offset });
  const def = sel.survey.definition;
  const qs = allQuestions(def);
  const titles = new Map<string, number>();
  for (const q of qs) titles.set(q.title, (titles.get(q.title) ?? 0) + 1);
  const head = (q: { id: string; title: string }) => (titles.get(q.title)! > 1 ? `${q.title} [${q.id}]` : q.title);
  const fields = [
    "Response ID",
    "Created",
    "Finished",
    "Finished at",
    "Language",
    "Ending",
    "Tags",
    "Notes",
    ...def.hiddenFields.map((h) => `hidden: ${h}`),
  ];
  const cells: ((r: ResponseRow) => string | number)[] = [
    (r) => r.id,
    (r) => iso(r.createdAt) ?? "",
    (r) => (r.finished ? "yes" : "no"),
    (r) => iso(r.finishedAt) ?? "",
    (r) => r.language,
    (r) => r.endingId ?? "",
    (r) => r.tags.join("; "),
    (r) => r.notes.map((n) => `${n.by}: ${n.text}`).join("\n"),
    ...def.hiddenFields.map((h) => (r: ResponseRow) => r.hidden[h] ?? ""),
  ];
  for (const q of qs) {
    if (q.type === "matrix") {
      for (const row of q.rows!) {
        fields.push(`${head(q)} — ${row.label}`);
        cells.push((r) => {
          const col = (r.answers[q.id] as Record<string, string> | undefined)?.[row.id];
          return col === undefined ? "" : (q.columns!.find((c) => c.id === col)?.label ?? col);
        });
      }
      continue;
    }
    fields.push(head(q));
    cells.push((r) => {
      const v: AnswerValue | undefined = r.answers[q.id];
      if (v === undefined) return "";
      if (typeof v === "number") return v;
      // "Other" here; what the visitor typed beside it has its own column.
      return answerText(q, v);
    });
    if (q.allowOther) {
      fields.push(`${head(q)} (other)`);
      cells.push((r) => r.otherTexts[q.id] ?? "");
    }
  }
  const data = sel.rows.map((r) => cells.map((f) => f(r)));
  const csv = Papa.unparse({ fields, data }, { escapeFormulae: FORMULA_START, newline: "\r\n" });
  const nextOffset = input.offset + sel.rows.length < sel.total ? input.offset + sel.rows.length : null;
  return {
    surveyId: sel.survey.id,
    rows: sel.rows.length,
    total: sel.total,
    nextOffset,
    ...(sel.truncated ? { truncated: true } : {}),
    csv,
  };
}
