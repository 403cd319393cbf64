/**
 * Members' schedules: one per member per company, in the member's own IANA
 * zone, with weekly hours, date overrides (a date's hours instead of the
 * weekly ones; [] for a day off) and time off (whole local days). A member
 * named as a host without a schedule gets Mon–Fri 09:00–17:00 in the page's
 * zone, and the write says so.
 */
import { and, asc, count, eq, gte, inArray, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { byText } from "../../core/sql";
import { memberships, users } from "../../core/tables";
import { parseRanges, WEEKDAY_KEYS } from "./config";
import { bookingScheduleUpdated } from "./events";
import { bookingSchedules, bookingTimeOff } from "./tables";
import { canonicalZone, formatRange, instantToLocal } from "./zoned";

export type ScheduleRow = typeof bookingSchedules.$inferSelect;
export interface Member {
  userId: number;
  email: string;
  name: string | null;
}

export const DEFAULT_WEEKLY: Record<string, string[]> = {
  "1": ["09:00-17:00"],
  "2": ["09:00-17:00"],
  "3": ["09:00-17:00"],
  "4": ["09:00-17:00"],
  "5": ["09:00-17:00"],
};

/** A member of the company by user id or email; anyone else (another company's user, a stranger) is "not a member". */
export async function resolveMember(
  db: Db,
  company: { id: number; name: string },
  ref: number | string,
): Promise<Member> {
  const where = typeof ref === "number" ? eq(users.id, ref) : eq(users.email, ref.trim().toLowerCase());
  const m = (
    await db
      .select({ userId: users.id, email: users.email, name: users.name })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.companyId, company.id), where))
      .limit(1)
  )[0];
  if (!m)
    throw notFound(
      `${typeof ref === "number" ? `User ${ref}` : `"${String(ref).slice(0, 100)}"`} is not a member of ${company.name}. Hosts are the company's members (team).`,
    );
  return m;
}

/** Members among `userIds` (still in the company), with names and emails, in the order given. */
export async function membersById(db: Db, companyId: number, userIds: number[]): Promise<Member[]> {
  if (userIds.length === 0) return [];
  const rows = await db
    .select({ userId: users.id, email: users.email, name: users.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.companyId, companyId), inArray(users.id, userIds)));
  const by = new Map(rows.map((r) => [r.userId, r]));
  return userIds.map((id) => by.get(id)).filter((m): m is Member => !!m);
}

export async function schedulesOf(db: Db, companyId: number, userIds: number[]): Promise<ScheduleRow[]> {
  if (userIds.length === 0) return [];
  return await db
    .select()
    .from(bookingSchedules)
    .where(and(eq(bookingSchedules.companyId, companyId), inArray(bookingSchedules.userId, userIds)));
}

/** Creates the default schedule for hosts without one; returns a note per member created. */
export async function ensureSchedules(
  tx: Db,
  companyId: number,
  members: Member[],
  timeZone: string,
  now: Date,
): Promise<string[]> {
  const have = new Set(
    (
      await schedulesOf(
        tx,
        companyId,
        members.map((m) => m.userId),
      )
    ).map((s) => s.userId),
  );
  const notes: string[] = [];
  for (const m of members) {
    if (have.has(m.userId)) continue;
    await tx
      .insert(bookingSchedules)
      .values({
        companyId,
        userId: m.userId,
        timeZone,
        weekly: DEFAULT_WEEKLY,
        overrides: {},
        version: 1,
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing();
    notes.push(
      `${m.name ?? m.email} had no schedule: created Mon–Fri 09:00–17:00 ${timeZone}; change it with booking_schedules_set.`,
    );
  }
  return notes;
}

function weeklyOut(w: Record<string, string[]>) {
  const out: Record<string, string[]> = {};
  WEEKDAY_KEYS.forEach((k, i) => {
    const v = w[String(i + 1)];
    if (v && v.length) out[k] = v;
  });
  return out;
}

function scheduleOut(s: ScheduleRow, m: Member, today: string, timeOff: (typeof bookingTimeOff.$inferSelect)[] = []) {
  return {
    userId: m.userId,
    name: m.name,
    email: m.email,
    timeZone: s.timeZone,
    weeklyHours: weeklyOut(s.weekly),
    overrides: Object.fromEntries(
      Object.entries(s.overrides)
        .filter(([d]) => d >= today)
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    ),
    timeOff: timeOff.map((t) => ({ id: t.id, startDate: t.startDate, endDate: t.endDate, reason: t.reason })),
    updatedAt: iso(s.updatedAt),
  };
}

export async function listSchedules(ctx: ActorContext, input: { limit: number; offset: number }) {
  authorize(ctx, "bookings:read", { write: false });
  const db = ctx.deps.db;
  const where = eq(memberships.companyId, ctx.company.id);
  const total = (await db.select({ n: count() }).from(memberships).where(where))[0]?.n ?? 0;
  const members = await db
    .select({ userId: users.id, email: users.email, name: users.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(where)
    .orderBy(asc(byText(users.email)))
    .limit(input.limit)
    .offset(input.offset);
  const byUser = new Map(
    (
      await schedulesOf(
        db,
        ctx.company.id,
        members.map((m) => m.userId),
      )
    ).map((s) => [s.userId, s]),
  );
  return page(
    members.map((m) => {
      const s = byUser.get(m.userId);
      return {
        userId: m.userId,
        name: m.name,
        email: m.email,
        timeZone: s?.timeZone ?? null,
        weeklyHours: s ? weeklyOut(s.weekly) : null,
      };
    }),
    total,
    input.limit,
    input.offset,
  );
}

async function scheduleFor(db: Db, companyId: number, userId: number): Promise<ScheduleRow | undefined> {
  return (await schedulesOf(db, companyId, [userId]))[0];
}

export async function getSchedule(ctx: ActorContext, input: { member: number | string }) {
  authorize(ctx, "bookings:read", { write: false });
  const db = ctx.deps.db;
  const m = await resolveMember(db, ctx.company, input.member);
  const s = await scheduleFor(db, ctx.company.id, m.userId);
  if (!s) throw notFound(`${m.name ?? m.email} has no booking schedule yet; create one with booking_schedules_set.`);
  const today = instantToLocal(ctx.deps.clock.now().getTime(), s.timeZone).date;
  const off = await db
    .select()
    .from(bookingTimeOff)
    .where(
      and(
        eq(bookingTimeOff.companyId, ctx.company.id),
        eq(bookingTimeOff.userId, m.userId),
        gte(bookingTimeOff.endDate, today),
      ),
    )
    .orderBy(asc(bookingTimeOff.startDate));
  return scheduleOut(s, m, today, off);
}

function normaliseWeekly(input: Partial<Record<(typeof WEEKDAY_KEYS)[number], string[]>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  WEEKDAY_KEYS.forEach((k, i) => {
    const list = input[k];
    if (list && list.length) out[String(i + 1)] = parseRanges(list, `weeklyHours.${k}`).map(formatRange);
  });
  return out;
}

/** Bumps the schedules of `userIds`: a change the public page's cache and racing bookings must see. */
export async function touchSchedules(tx: Db, companyId: number, userIds: number[], now: Date) {
  if (userIds.length === 0) return;
  await tx
    .update(bookingSchedules)
    .set({ version: sql`${bookingSchedules.version} + 1`, updatedAt: now })
    .where(and(eq(bookingSchedules.companyId, companyId), inArray(bookingSchedules.userId, userIds)));
}

export async function setSchedule(
  ctx: ActorContext,
  input: {
    member: number | string;
    timeZone?: string;
    weeklyHours?: Partial<Record<(typeof WEEKDAY_KEYS)[number], string[]>>;
  },
) {
  authorize(ctx, "bookings:write", { write: true });
  const weekly = input.weeklyHours ? normaliseWeekly(input.weeklyHours) : undefined;
  if (input.timeZone) input = { ...input, timeZone: canonicalZone(input.timeZone) };
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const m = await resolveMember(tx, ctx.company, input.member);
    const s = await scheduleFor(tx, ctx.company.id, m.userId);
    if (!s) {
      if (!input.timeZone)
        throw invalid(
          `${m.name ?? m.email} has no schedule yet: give timeZone (and weeklyHours, default Mon–Fri 09:00–17:00).`,
          { path: "timeZone" },
        );
      await tx.insert(bookingSchedules).values({
        companyId: ctx.company.id,
        userId: m.userId,
        timeZone: input.timeZone,
        weekly: weekly ?? DEFAULT_WEEKLY,
        overrides: {},
        version: 1,
        createdAt: now,
        updatedAt: now,
      });
    } else {
      await tx
        .update(bookingSchedules)
        .set({
          ...(input.timeZone ? { timeZone: input.timeZone } : {}),
          ...(weekly ? { weekly } : {}),
          version: sql`${bookingSchedules.version} + 1`,
          updatedAt: now,
        })
        .where(eq(bookingSchedules.id, s.id));
    }
    const row = (await scheduleFor(tx, ctx.company.id, m.userId))!;
    await audit(tx, ctx, "booking_schedules.set", {
      type: "booking_schedule",
      id: row.id,
      detail: { userId: m.userId, fields: Object.keys(input).filter((k) => k !== "member") },
    });
    await emit(
      tx,
      ctx,
      bookingScheduleUpdated,
      { id: row.id },
      { userId: m.userId, timeZone: row.timeZone, change: "hours" },
    );
    return {
      userId: m.userId,
      timeZone: row.timeZone,
      weeklyHours: weeklyOut(row.weekly),
      status: s ? "updated" : "created",
    };
  });
}

const DATE_RE = /^\d{4}-\d{2}-\d{2}$/;
export function checkDate(s: string, path: string): string {
  if (!DATE_RE.test(s)) throw invalid(`${path} must be a date like 2026-03-29.`, { path });
  try {
    if (Temporal.PlainDate.from(s, { overflow: "reject" }).toString() === s) return s;
  } catch {
    /* fall through */
  }
  throw invalid(`${path} "${s}" is not a calendar date.`, { path });
}

export async function setOverride(
  ctx: ActorContext,
  input: { member: number | string; date: string; hours: string[] | null },
) {
  authorize(ctx, "bookings:write", { write: true });
  const date = checkDate(input.date, "date");
  const hours = input.hours === null ? null : parseRanges(input.hours, "hours").map(formatRange);
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const m = await resolveMember(tx, ctx.company, input.member);
    const s = await scheduleFor(tx, ctx.company.id, m.userId);
    if (!s) throw notFound(`${m.name ?? m.email} has no booking schedule yet; create one with booking_schedules_set.`);
    const today = instantToLocal(now.getTime(), s.timeZone).date;
    if (date < today)
      throw invalid(`date ${date} is in the past in ${s.timeZone} (today is ${today}).`, { path: "date" });
    // Past overrides are dropped as they are written: the map stays small.
    const overrides = Object.fromEntries(Object.entries(s.overrides).filter(([d]) => d >= today && d !== date));
    if (hours !== null) overrides[date] = hours;
    if (Object.keys(overrides).length > 400) throw invalid("A schedule holds at most 400 upcoming date overrides.");
    await tx
      .update(bookingSchedules)
      .set({ overrides, version: sql`${bookingSchedules.version} + 1`, updatedAt: now })
      .where(eq(bookingSchedules.id, s.id));
    await audit(tx, ctx, "booking_schedules.override", {
      type: "booking_schedule",
      id: s.id,
      detail: { userId: m.userId, date, hours },
    });
    await emit(
      tx,
      ctx,
      bookingScheduleUpdated,
      { id: s.id },
      { userId: m.userId, timeZone: s.timeZone, change: "override" },
    );
    return { userId: m.userId, date, hours, status: hours === null ? "removed" : hours.length ? "set" : "day_off" };
  });
}

export async function addTimeOff(
  ctx: ActorContext,
  input: { member: number | string; startDate: string; endDate: string; reason?: string | null },
) {
  authorize(ctx, "bookings:write", { write: true });
  const start = checkDate(input.startDate, "startDate");
  const end = checkDate(input.endDate, "endDate");
  if (end < start) throw invalid("endDate must not be before startDate.", { path: "endDate" });
  if (Temporal.PlainDate.from(start).until(Temporal.PlainDate.from(end)).days > 366)
    throw invalid("Time off spans at most a year; add another for more.", { path: "endDate" });
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const m = await resolveMember(tx, ctx.company, input.member);
    const s = await scheduleFor(tx, ctx.company.id, m.userId);
    if (!s) throw notFound(`${m.name ?? m.email} has no booking schedule yet; create one with booking_schedules_set.`);
    const row = (
      await tx
        .insert(bookingTimeOff)
        .values({
          companyId: ctx.company.id,
          userId: m.userId,
          startDate: start,
          endDate: end,
          reason: input.reason ?? null,
          createdAt: now,
        })
        .returning()
    )[0]!;
    await touchSchedules(tx, ctx.company.id, [m.userId], now);
    await audit(tx, ctx, "booking_time_off.create", {
      type: "booking_time_off",
      id: row.id,
      detail: { userId: m.userId, startDate: start, endDate: end },
    });
    await emit(
      tx,
      ctx,
      bookingScheduleUpdated,
      { id: s.id },
      { userId: m.userId, timeZone: s.timeZone, change: "time_off_added" },
    );
    return { id: row.id, userId: m.userId, startDate: start, endDate: end, status: "created" };
  });
}

export async function deleteTimeOff(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "bookings:write", { write: true });
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const row = (
      await tx
        .select()
        .from(bookingTimeOff)
        .where(and(eq(bookingTimeOff.id, input.id), eq(bookingTimeOff.companyId, ctx.company.id)))
        .limit(1)
    )[0];
    if (!row) throw notFound(`Time off ${input.id} not found.`);
    await tx.delete(bookingTimeOff).where(eq(bookingTimeOff.id, row.id));
    await touchSchedules(tx, ctx.company.id, [row.userId], now);
    const s = (await scheduleFor(tx, ctx.company.id, row.userId))!;
    await audit(tx, ctx, "booking_time_off.delete", {
      type: "booking_time_off",
      id: row.id,
      detail: { userId: row.userId },
    });
    await emit(
      tx,
      ctx,
      bookingScheduleUpdated,
      { id: s.id },
      { userId: row.userId, timeZone: s.timeZone, change: "time_off_removed" },
    );
    return { id: row.id, status: "deleted" };
  });
}
