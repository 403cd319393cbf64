/**
 * Card recurrences: a template that makes a card on a schedule
 * (recurrence-rules.ts), run by the `projects.recurrences` job.
 *
 * The job works from the database: each recurrence stores its next
 * occurrence not yet made (local date and instant). A run makes the card
 * for every occurrence whose instant has passed and moves the pointer past
 * it, in one transaction per recurrence, so a crash leaves either both or
 * neither; cards also carry (recurrence, occurrence) under a unique index,
 * so nothing is ever made twice.
 *
 * Catch-up after downtime: with catchUp "all" (the default) every missed
 * occurrence gets its card, oldest first, each dated for its own day (at
 * most 50 per recurrence per transaction; the run keeps going until caught
 * up, up to 1,000 cards a run, and the next run continues); with "latest"
 * only the most recent missed one is made and the rest are skipped.
 * Creating a recurrence, changing its schedule or reactivating it never
 * backfills: the first card is for the first occurrence at or after then.
 *
 * A card's column is the template's, else the project's first column; if
 * that column is at its WIP limit the card goes to the first column, and if
 * that is full too it is made anyway (a scheduled card is never lost to a
 * limit). Labels and assignees that no longer exist or left the company are
 * dropped from the card rather than failing the run.
 */
import { and, asc, eq, inArray, lte, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { page } from "../../core/pagination";
import { memberships } from "../../core/tables";
import {
  addDays,
  checkTimeZone,
  dateIn,
  peopleFor,
  projectFor,
  readAccess,
  write,
  type ProjectRow,
  type Q,
} from "./access";
import { columnIn, defaultColumn, insertCard, labelIdsFor } from "./cards";
import { recurrenceChanged } from "./events";
import {
  describeRule,
  firstDueFrom,
  instantOf,
  nextOccurrence,
  parseRRule,
  toRRule,
  type Rule,
  type RulePart,
} from "./recurrence-rules";
import type { recurrenceCreateInput, recurrenceListInput, recurrenceUpdateInput } from "./schemas";
import { boardColumns, cardRecurrences, cards, projectLabels, projects, type RecurrenceTemplate } from "./tables";

type RecurrenceRow = typeof cardRecurrences.$inferSelect;
const PER_TX = 50;
const PER_RUN = 1000;

const ruleOf = (r: Pick<RecurrenceRow, keyof Rule>): Rule => ({
  frequency: r.frequency,
  interval: r.interval,
  weekdays: r.weekdays,
  monthDay: r.monthDay,
  weekOfMonth: r.weekOfMonth,
  timeOfDay: r.timeOfDay,
  timeZone: r.timeZone,
  startDate: r.startDate,
  endDate: r.endDate,
});

function checkRule(rule: Rule) {
  if (rule.endDate && rule.endDate < rule.startDate) throw invalid("endDate must be on or after startDate.");
}

function ruleFrom(text: string): RulePart {
  const r = parseRRule(text);
  if (typeof r === "string")
    throw invalid(
      `rule: ${r}. Examples: FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR · FREQ=WEEKLY;INTERVAL=2;BYDAY=MO · FREQ=MONTHLY;BYMONTHDAY=-1 · FREQ=MONTHLY;BYDAY=2TU.`,
    );
  return r;
}

function view(r: RecurrenceRow, project: Pick<ProjectRow, "key">, made?: number) {
  return {
    id: r.id,
    projectKey: project.key,
    title: r.template.title,
    schedule: describeRule(ruleOf(r)),
    rule: toRRule(r),
    time: r.timeOfDay,
    timeZone: r.timeZone,
    startDate: r.startDate,
    endDate: r.endDate,
    catchUp: r.catchUp,
    active: r.active,
    nextDate: r.nextDate,
    nextAt: iso(r.nextAt),
    lastDate: r.lastDate,
    ...(made !== undefined ? { cardsMade: made } : {}),
    template: r.template,
  };
}

async function recurrenceFor(q: Q, ctx: ActorContext, id: number) {
  const row = (
    await q
      .select({ r: cardRecurrences, project: projects })
      .from(cardRecurrences)
      .innerJoin(projects, eq(projects.id, cardRecurrences.projectId))
      .where(and(eq(cardRecurrences.id, id), eq(projects.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Recurrence ${id} not found.`);
  return row;
}

type TemplateInput = Partial<
  Pick<
    v.InferOutput<typeof recurrenceCreateInput>,
    "title" | "description" | "columnId" | "assignees" | "labels" | "priority" | "estimate" | "checklist" | "dueInDays"
  >
>;

async function templateFrom(
  tx: Q,
  ctx: ActorContext,
  project: ProjectRow,
  base: RecurrenceTemplate | null,
  input: TemplateInput,
): Promise<RecurrenceTemplate> {
  const t: RecurrenceTemplate = base
    ? { ...base }
    : {
        title: "",
        description: null,
        priority: 0,
        estimate: null,
        labelIds: [],
        assigneeIds: [],
        checklist: [],
        columnId: null,
        dueInDays: null,
      };
  if (input.title !== undefined) t.title = input.title.trim();
  if (input.description !== undefined) t.description = input.description;
  if (input.priority !== undefined) t.priority = input.priority;
  if (input.estimate !== undefined) t.estimate = input.estimate;
  if (input.checklist !== undefined) t.checklist = input.checklist.map((s) => s.trim());
  if (input.dueInDays !== undefined) t.dueInDays = input.dueInDays;
  if (input.columnId !== undefined)
    t.columnId = input.columnId === null ? null : (await columnIn(tx, project, null, input.columnId)).id;
  if (input.labels !== undefined) t.labelIds = await labelIdsFor(tx, project, input.labels);
  if (input.assignees !== undefined) t.assigneeIds = (await peopleFor(tx, ctx, input.assignees)).map((p) => p.id);
  if (t.title.includes("{date}") ? t.title.length > 260 : false) throw invalid("title is too long.");
  return t;
}

export async function createRecurrence(ctx: ActorContext, input: v.InferOutput<typeof recurrenceCreateInput>) {
  return write(ctx, async (tx) => {
    const now = ctx.deps.clock.now();
    const project = await projectFor(tx, ctx, input.projectId);
    if (project.archivedAt) throw invalid(`Project ${project.key} is archived.`);
    const timeZone = checkTimeZone(input.timeZone ?? project.timeZone);
    const today = dateIn(timeZone, now);
    const rule: Rule = {
      ...ruleFrom(input.rule),
      timeOfDay: input.time ?? "09:00",
      timeZone,
      startDate: input.startDate ?? today,
      endDate: input.endDate ?? null,
    };
    checkRule(rule);
    const template = await templateFrom(tx, ctx, project, null, input);
    const next = firstDueFrom(rule, rule.startDate > today ? rule.startDate : today, now);
    const r = (
      await tx
        .insert(cardRecurrences)
        .values({
          projectId: project.id,
          template,
          ...rule,
          catchUp: input.catchUp ?? "all",
          nextDate: next?.date ?? null,
          nextAt: next?.at ?? null,
          createdByUserId: ctx.principal.userId,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "recurrences.create", {
      type: "recurrence",
      id: r.id,
      detail: { projectId: project.id, schedule: describeRule(rule) },
    });
    await emit(
      tx,
      ctx,
      recurrenceChanged,
      { id: r.id },
      { projectId: project.id, action: "created", title: template.title, nextAt: iso(r.nextAt) },
    );
    return {
      id: r.id,
      title: template.title,
      schedule: describeRule(rule),
      nextAt: iso(r.nextAt),
      nextDate: r.nextDate,
      ...(next ? {} : { note: "This schedule has no occurrence left." }),
    };
  });
}

export async function updateRecurrence(ctx: ActorContext, input: v.InferOutput<typeof recurrenceUpdateInput>) {
  return write(ctx, async (tx) => {
    const now = ctx.deps.clock.now();
    const { r, project } = await recurrenceFor(tx, ctx, input.id);
    const rule: Rule = { ...ruleOf(r), ...(input.rule !== undefined ? ruleFrom(input.rule) : {}) };
    if (input.time !== undefined) rule.timeOfDay = input.time;
    if (input.timeZone !== undefined) rule.timeZone = checkTimeZone(input.timeZone);
    if (input.startDate !== undefined) rule.startDate = input.startDate;
    if (input.endDate !== undefined) rule.endDate = input.endDate;
    checkRule(rule);
    const template = await templateFrom(tx, ctx, project, r.template, input);
    const scheduleChanged = JSON.stringify(rule) !== JSON.stringify(ruleOf(r));
    const reactivated = input.active === true && !r.active;
    let next = { date: r.nextDate, at: r.nextAt };
    if (scheduleChanged || reactivated) {
      // Never backfill: from today (and past the last card made), the first occurrence still ahead.
      const today = dateIn(rule.timeZone, now);
      const after = r.lastDate && addDays(r.lastDate, 1) > today ? addDays(r.lastDate, 1) : today;
      const n = firstDueFrom(rule, after > rule.startDate ? after : rule.startDate, now);
      next = { date: n?.date ?? null, at: n?.at ?? null };
    }
    const after = (
      await tx
        .update(cardRecurrences)
        .set({
          ...rule,
          template,
          catchUp: input.catchUp ?? r.catchUp,
          active: input.active ?? r.active,
          nextDate: next.date,
          nextAt: next.at,
          updatedAt: now,
        })
        .where(eq(cardRecurrences.id, r.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "recurrences.update", {
      type: "recurrence",
      id: r.id,
      detail: { schedule: describeRule(rule), active: after.active },
    });
    await emit(
      tx,
      ctx,
      recurrenceChanged,
      { id: r.id },
      { projectId: project.id, action: "updated", title: template.title, nextAt: iso(after.nextAt) },
    );
    return {
      id: r.id,
      title: template.title,
      schedule: describeRule(rule),
      active: after.active,
      nextAt: iso(after.nextAt),
      nextDate: after.nextDate,
    };
  });
}

export async function deleteRecurrence(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const { r, project } = await recurrenceFor(tx, ctx, input.id);
    await tx.delete(cardRecurrences).where(eq(cardRecurrences.id, r.id));
    await audit(tx, ctx, "recurrences.delete", { type: "recurrence", id: r.id, detail: { title: r.template.title } });
    await emit(
      tx,
      ctx,
      recurrenceChanged,
      { id: r.id },
      { projectId: project.id, action: "deleted", title: r.template.title, nextAt: null },
    );
    return { id: r.id, status: "deleted", note: "Cards it already made stay." };
  });
}

export async function listRecurrences(ctx: ActorContext, input: v.InferOutput<typeof recurrenceListInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const project = input.projectId !== undefined ? await projectFor(db, ctx, input.projectId) : null;
  const where = and(
    eq(projects.companyId, ctx.company.id),
    project ? eq(cardRecurrences.projectId, project.id) : undefined,
  );
  const total = (
    await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(cardRecurrences)
      .innerJoin(projects, eq(projects.id, cardRecurrences.projectId))
      .where(where)
      .limit(1)
  )[0]!.n;
  const rows = await db
    .select({ r: cardRecurrences, key: projects.key })
    .from(cardRecurrences)
    .innerJoin(projects, eq(projects.id, cardRecurrences.projectId))
    .where(where)
    .orderBy(asc(cardRecurrences.id))
    .limit(input.limit)
    .offset(input.offset);
  const ids = rows.map((x) => x.r.id);
  const made = ids.length
    ? await db
        .select({ id: cards.recurrenceId, n: sql<number>`count(*)`.mapWith(Number) })
        .from(cards)
        .where(inArray(cards.recurrenceId, ids))
        .groupBy(cards.recurrenceId)
    : [];
  return page(
    rows.map((x) => view(x.r, { key: x.key }, made.find((m) => m.id === x.r.id)?.n ?? 0)),
    total,
    input.limit,
    input.offset,
  );
}

// ---------------------------------------------------------------------------
// The job

/** The column a recurring card goes to (see the file comment for the WIP fallback). */
async function columnForRun(tx: Q, project: ProjectRow, t: RecurrenceTemplate) {
  const first = await defaultColumn(tx, project);
  const wanted = t.columnId
    ? ((
        await tx
          .select()
          .from(boardColumns)
          .where(and(eq(boardColumns.id, t.columnId), eq(boardColumns.projectId, project.id)))
          .limit(1)
      )[0] ?? first)
    : first;
  const full = async (c: typeof first) =>
    c.wipLimit !== null &&
    (
      await tx
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(cards)
        .where(eq(cards.columnId, c.id))
        .limit(1)
    )[0]!.n >= c.wipLimit;
  if (!(await full(wanted))) return { column: wanted, overLimit: false };
  if (wanted.id !== first.id && !(await full(first))) return { column: first, overLimit: false };
  return { column: wanted, overLimit: true };
}

/** Makes the cards of one recurrence that are due by `now`, at most PER_TX; returns how many it made. */
async function catchUpOne(deps: Deps, id: number, now: Date): Promise<number> {
  return deps.store.transaction(async (tx) => {
    const r = (await tx.select().from(cardRecurrences).where(eq(cardRecurrences.id, id)).limit(1))[0];
    if (!r || !r.active || !r.nextAt || !r.nextDate || r.nextAt > now) return 0;
    const project = (await tx.select().from(projects).where(eq(projects.id, r.projectId)).limit(1))[0]!;
    const rule = ruleOf(r);
    const due: string[] = [];
    let date: string | null = r.nextDate;
    while (date && due.length < PER_TX && instantOf(rule, date) <= now) {
      due.push(date);
      date = nextOccurrence(rule, addDays(date, 1));
    }
    if (!due.length) {
      // The stored instant disagrees with the rule (it was computed under other zone data): recompute, make nothing yet.
      await tx
        .update(cardRecurrences)
        .set({ nextAt: instantOf(rule, r.nextDate) })
        .where(eq(cardRecurrences.id, r.id));
      return 0;
    }
    // "latest": only the most recent missed occurrence, once fully caught up to now.
    let make = due;
    if (r.catchUp === "latest" && due.length > 1) {
      while (date && instantOf(rule, date) <= now) {
        due.push(date);
        date = nextOccurrence(rule, addDays(date, 1));
      }
      make = due.slice(-1);
    }
    const t = r.template;
    const stillMembers = t.assigneeIds.length
      ? (
          await tx
            .select({ u: memberships.userId })
            .from(memberships)
            .where(and(eq(memberships.companyId, project.companyId), inArray(memberships.userId, t.assigneeIds)))
        ).map((x) => x.u)
      : [];
    const stillLabels = t.labelIds.length
      ? (
          await tx
            .select({ id: projectLabels.id })
            .from(projectLabels)
            .where(and(eq(projectLabels.projectId, project.id), inArray(projectLabels.id, t.labelIds)))
        ).map((x) => x.id)
      : [];
    let made = 0;
    for (const occurrence of make) {
      const exists = (
        await tx
          .select({ id: cards.id })
          .from(cards)
          .where(and(eq(cards.recurrenceId, r.id), eq(cards.occurrence, occurrence)))
          .limit(1)
      )[0];
      if (exists) continue;
      const { column, overLimit } = await columnForRun(tx, project, t);
      const n = {
        project,
        column: overLimit ? { ...column, wipLimit: null } : column,
        place: { bottom: true } as const,
        title: t.title.replaceAll("{date}", occurrence),
        description: t.description,
        priority: t.priority,
        estimate: t.estimate,
        dueDate: t.dueInDays !== null ? addDays(occurrence, t.dueInDays) : null,
        parentId: null,
        milestoneId: null,
        sprintId: null,
        assigneeIds: t.assigneeIds.filter((u) => stillMembers.includes(u)),
        labelIds: t.labelIds.filter((l) => stillLabels.includes(l)),
        checklist: t.checklist,
        recurrenceId: r.id,
        occurrence,
      };
      await insertCard(
        tx,
        { ctx: null, at: now, companyId: project.companyId, emitAs: { deps, company: { id: project.companyId } } },
        n,
      );
      made++;
    }
    await tx
      .update(cardRecurrences)
      .set({ nextDate: date, nextAt: date ? instantOf(rule, date) : null, lastDate: due[due.length - 1] ?? r.lastDate })
      .where(eq(cardRecurrences.id, r.id));
    return made;
  });
}

/** Active recurrences of unarchived projects whose next occurrence has come by `now`, oldest first: what a run catches up. */
function dueRecurrences(deps: Deps, now: Date, limit: number) {
  return deps.db
    .select({ id: cardRecurrences.id })
    .from(cardRecurrences)
    .innerJoin(projects, eq(projects.id, cardRecurrences.projectId))
    .where(and(eq(cardRecurrences.active, true), lte(cardRecurrences.nextAt, now), sql`${projects.archivedAt} is null`))
    .orderBy(asc(cardRecurrences.nextAt), asc(cardRecurrences.id))
    .limit(limit);
}

export async function runRecurrences(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  let made = 0;
  for (let round = 0; made < PER_RUN && round < 100; round++) {
    const due = await dueRecurrences(deps, now, 100);
    if (!due.length) break;
    for (const d of due) made += await catchUpOne(deps, d.id, now);
  }
  return made;
}

export const recurrenceJob: JobDef = {
  name: "projects.recurrences",
  description: "Makes the cards of card recurrences that are due (catching up after downtime).",
  everyMs: 60_000,
  pending: (deps) => anyRow(dueRecurrences(deps, deps.clock.now(), 1)),
  run: async (deps) => {
    await runRecurrences(deps);
  },
};
