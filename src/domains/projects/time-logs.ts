/**
 * Time logs: who worked how many minutes on which card, on which day, with a
 * note and whether it is billable. A log records the sprint its card was in
 * when it was logged, so totals roll up to the card, the sprint and the
 * project without guessing. The timesheet reads one member (or everyone)
 * over a date range, per day and per project.
 *
 * `workedOn` is the calendar day of the work; omitted, it is today in the
 * project's time zone. Anyone who may write may log time for any member
 * (a lead fills in for the team); the log says who logged it.
 *
 * @public Serves billing (time logs on invoices).
 */
import { and, asc, desc, eq, gte, lte, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { users } from "../../core/tables";
import {
  cardFor,
  cardKey,
  dateIn,
  daysBetween,
  personFor,
  projectFor,
  readAccess,
  sprintFor,
  write,
  type Q,
} from "./access";
import { logActivity } from "./activity";
import { columnOf } from "./cards";
import { timeLogged } from "./events";
import type { timeLogCreateInput, timeLogListInput, timeLogUpdateInput, timesheetInput } from "./schemas";
import { cards, projects, timeLogs } from "./tables";

const MAX_TIMESHEET_DAYS = 92;
const hours = (m: number) => Math.round((m / 60) * 100) / 100;

async function logFor(q: Q, ctx: ActorContext, id: number) {
  const row = (
    await q
      .select()
      .from(timeLogs)
      .where(and(eq(timeLogs.id, id), eq(timeLogs.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Time log ${id} not found.`);
  return row;
}

async function keyOfCard(q: Q, cardId: number | null): Promise<string | null> {
  if (cardId === null) return null;
  const r = (
    await q
      .select({ number: cards.number, key: projects.key })
      .from(cards)
      .innerJoin(projects, eq(projects.id, cards.projectId))
      .where(eq(cards.id, cardId))
      .limit(1)
  )[0];
  return r ? `${r.key}-${r.number}` : null;
}

export async function createTimeLog(ctx: ActorContext, input: v.InferOutput<typeof timeLogCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.cardId);
    const who = await personFor(tx, ctx, input.userId ?? "me");
    const workedOn = input.workedOn ?? dateIn(project.timeZone, at);
    if (daysBetween(dateIn(project.timeZone, at), workedOn) > 1)
      throw invalid(
        `workedOn ${workedOn} is in the future; log time for today or earlier (a day of slack allows for time zones).`,
      );
    const log = (
      await tx
        .insert(timeLogs)
        .values({
          companyId: ctx.company.id,
          projectId: project.id,
          cardId: card.id,
          sprintId: card.sprintId,
          userId: who.id,
          minutes: input.minutes,
          workedOn,
          note: input.note?.trim() ?? null,
          billable: input.billable,
          createdByUserId: ctx.principal.userId,
          createdAt: at,
          updatedAt: at,
        })
        .returning()
    )[0]!;
    await logActivity(tx, { ctx, at }, card, (await columnOf(tx, card.columnId)).stateGroup, "time", {
      minutes: input.minutes,
      userId: who.id,
      workedOn,
    });
    await audit(tx, ctx, "time_logs.create", { type: "time_log", id: log.id, detail: { key, minutes: input.minutes } });
    await emit(
      tx,
      ctx,
      timeLogged,
      { id: log.id },
      {
        action: "created",
        projectId: project.id,
        cardKey: key,
        userId: who.id,
        minutes: log.minutes,
        workedOn,
        billable: log.billable,
      },
    );
    const total = (
      await tx
        .select({ m: sql<number>`coalesce(sum(${timeLogs.minutes}), 0)`.mapWith(Number) })
        .from(timeLogs)
        .where(eq(timeLogs.cardId, card.id))
        .limit(1)
    )[0]!.m;
    return {
      id: log.id,
      cardKey: key,
      user: who.email,
      minutes: log.minutes,
      workedOn,
      billable: log.billable,
      cardTotalMinutes: total,
    };
  });
}

export async function updateTimeLog(ctx: ActorContext, input: v.InferOutput<typeof timeLogUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const log = await logFor(tx, ctx, input.id);
    const set: Partial<typeof timeLogs.$inferInsert> = {};
    if (input.minutes !== undefined) set.minutes = input.minutes;
    if (input.workedOn !== undefined) set.workedOn = input.workedOn;
    if (input.note !== undefined) set.note = input.note?.trim() ?? null;
    if (input.billable !== undefined) set.billable = input.billable;
    const after = (
      await tx
        .update(timeLogs)
        .set({ ...set, updatedAt: at })
        .where(eq(timeLogs.id, log.id))
        .returning()
    )[0]!;
    const key = await keyOfCard(tx, log.cardId);
    await audit(tx, ctx, "time_logs.update", { type: "time_log", id: log.id, detail: { fields: Object.keys(set) } });
    await emit(
      tx,
      ctx,
      timeLogged,
      { id: log.id },
      {
        action: "updated",
        projectId: log.projectId,
        cardKey: key,
        userId: after.userId,
        minutes: after.minutes,
        workedOn: after.workedOn,
        billable: after.billable,
      },
    );
    return { id: log.id, cardKey: key, minutes: after.minutes, workedOn: after.workedOn, billable: after.billable };
  });
}

export async function deleteTimeLog(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const log = await logFor(tx, ctx, input.id);
    await tx.delete(timeLogs).where(eq(timeLogs.id, log.id));
    const key = await keyOfCard(tx, log.cardId);
    await audit(tx, ctx, "time_logs.delete", { type: "time_log", id: log.id, detail: { minutes: log.minutes } });
    await emit(
      tx,
      ctx,
      timeLogged,
      { id: log.id },
      {
        action: "deleted",
        projectId: log.projectId,
        cardKey: key,
        userId: log.userId,
        minutes: log.minutes,
        workedOn: log.workedOn,
        billable: log.billable,
      },
    );
    return { id: log.id, status: "deleted" };
  });
}

export async function listTimeLogs(ctx: ActorContext, input: v.InferOutput<typeof timeLogListInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const conds = [eq(timeLogs.companyId, ctx.company.id)];
  if (input.projectId !== undefined)
    conds.push(eq(timeLogs.projectId, (await projectFor(db, ctx, input.projectId)).id));
  if (input.cardId !== undefined) conds.push(eq(timeLogs.cardId, (await cardFor(db, ctx, input.cardId)).card.id));
  if (input.sprintId !== undefined)
    conds.push(eq(timeLogs.sprintId, (await sprintFor(db, ctx, input.sprintId)).sprint.id));
  if (input.userId !== undefined) conds.push(eq(timeLogs.userId, (await personFor(db, ctx, input.userId)).id));
  if (input.from) conds.push(gte(timeLogs.workedOn, input.from));
  if (input.to) conds.push(lte(timeLogs.workedOn, input.to));
  if (input.billable !== undefined) conds.push(eq(timeLogs.billable, input.billable));
  const where = and(...conds);
  const sums = (
    await db
      .select({
        n: sql<number>`count(*)`.mapWith(Number),
        minutes: sql<number>`coalesce(sum(${timeLogs.minutes}), 0)`.mapWith(Number),
        billable:
          sql<number>`coalesce(sum(case when ${timeLogs.billable} then ${timeLogs.minutes} else 0 end), 0)`.mapWith(
            Number,
          ),
      })
      .from(timeLogs)
      .where(where)
      .limit(1)
  )[0]!;
  const rows = await db
    .select({ log: timeLogs, email: users.email, name: users.name, number: cards.number, key: projects.key })
    .from(timeLogs)
    .innerJoin(users, eq(users.id, timeLogs.userId))
    .innerJoin(projects, eq(projects.id, timeLogs.projectId))
    .leftJoin(cards, eq(cards.id, timeLogs.cardId))
    .where(where)
    .orderBy(desc(timeLogs.workedOn), desc(timeLogs.id))
    .limit(input.limit)
    .offset(input.offset);
  return {
    ...page(
      rows.map((r) => ({
        id: r.log.id,
        cardKey: r.number !== null ? cardKey({ key: r.key }, { number: r.number }) : null,
        user: r.name ?? r.email,
        userId: r.log.userId,
        minutes: r.log.minutes,
        workedOn: r.log.workedOn,
        note: r.log.note,
        billable: r.log.billable,
        loggedAt: iso(r.log.createdAt),
      })),
      sums.n,
      input.limit,
      input.offset,
    ),
    totals: { minutes: sums.minutes, billableMinutes: sums.billable, hours: hours(sums.minutes) },
  };
}

export async function getTimesheet(ctx: ActorContext, input: v.InferOutput<typeof timesheetInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  if (input.to < input.from) throw invalid("to must be on or after from.");
  const span = daysBetween(input.from, input.to) + 1;
  if (span > MAX_TIMESHEET_DAYS)
    throw invalid(`A timesheet covers at most ${MAX_TIMESHEET_DAYS} days; this asks for ${span}.`);
  const conds = [
    eq(timeLogs.companyId, ctx.company.id),
    gte(timeLogs.workedOn, input.from),
    lte(timeLogs.workedOn, input.to),
  ];
  const who = input.userId !== undefined ? await personFor(db, ctx, input.userId) : null;
  if (who) conds.push(eq(timeLogs.userId, who.id));
  if (input.projectId !== undefined)
    conds.push(eq(timeLogs.projectId, (await projectFor(db, ctx, input.projectId)).id));
  const rows = await db
    .select({
      userId: timeLogs.userId,
      name: users.name,
      email: users.email,
      workedOn: timeLogs.workedOn,
      projectKey: projects.key,
      minutes: sql<number>`sum(${timeLogs.minutes})`.mapWith(Number),
      billable: sql<number>`sum(case when ${timeLogs.billable} then ${timeLogs.minutes} else 0 end)`.mapWith(Number),
    })
    .from(timeLogs)
    .innerJoin(users, eq(users.id, timeLogs.userId))
    .innerJoin(projects, eq(projects.id, timeLogs.projectId))
    .where(and(...conds))
    .groupBy(timeLogs.userId, users.name, users.email, timeLogs.workedOn, projects.key)
    .orderBy(asc(timeLogs.userId), asc(timeLogs.workedOn), asc(projects.key));
  const people = new Map<
    number,
    {
      userId: number;
      name: string;
      days: Record<string, number>;
      projects: Record<string, number>;
      minutes: number;
      billableMinutes: number;
    }
  >();
  for (const r of rows) {
    const p = people.get(r.userId) ?? {
      userId: r.userId,
      name: r.name ?? r.email,
      days: {},
      projects: {},
      minutes: 0,
      billableMinutes: 0,
    };
    p.days[r.workedOn] = (p.days[r.workedOn] ?? 0) + r.minutes;
    p.projects[r.projectKey] = (p.projects[r.projectKey] ?? 0) + r.minutes;
    p.minutes += r.minutes;
    p.billableMinutes += r.billable;
    people.set(r.userId, p);
  }
  const list = [...people.values()].map((p) => ({ ...p, hours: hours(p.minutes) }));
  if (who && !list.length)
    list.push({
      userId: who.id,
      name: who.name ?? who.email,
      days: {},
      projects: {},
      minutes: 0,
      billableMinutes: 0,
      hours: 0,
    });
  return {
    from: input.from,
    to: input.to,
    people: list,
    totals: {
      minutes: list.reduce((s, p) => s + p.minutes, 0),
      billableMinutes: list.reduce((s, p) => s + p.billableMinutes, 0),
    },
  };
}
