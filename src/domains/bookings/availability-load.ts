/**
 * Loads what `computeSlots` needs for one page and range, in four indexed
 * queries (members, schedules, time off, busy times), whatever the range's
 * length: the 3-month window of the benchmark costs the same queries as a
 * day. Both the listings (MCP, public page) and the booking transaction
 * call `pageSlots`, so they cannot disagree.
 *
 * Busy times from hosts' connected calendars come in as a snapshot read
 * before (calendar-busy.ts `loadCalendars`: never a network call inside the
 * booking transaction); a host whose calendar could not be read is busy
 * over the whole range.
 */
import { and, eq, gt, gte, inArray, lt, ne } from "drizzle-orm";
import type { Db } from "../../core/db";
import { type CalendarSnapshot, calendarBusy } from "./calendar-busy";
import { computeSlots, type HostSchedule, type Slot, type SlotRules, type Weekday } from "./availability";
import type { PageConfig } from "./config";
import { membersById, schedulesOf, type Member } from "./schedules";
import { bookingHosts, bookingTimeOff } from "./tables";
import { DAY, instantToLocal, parseRange } from "./zoned";

export function rulesOf(cfg: PageConfig, durationMin: number): SlotRules {
  return {
    durationMin,
    intervalMin: cfg.slotInterval ?? durationMin,
    minNoticeMin: cfg.minNotice,
    bufferBeforeMin: cfg.bufferBefore,
    bufferAfterMin: cfg.bufferAfter,
    maxAdvanceDays: cfg.maxAdvanceDays,
    dailyLimit: cfg.dailyLimit,
    weeklyLimit: cfg.weeklyLimit,
    mode: cfg.hostMode,
    gridTimeZone: cfg.timeZone,
  };
}

const ranges = (list: string[]) => list.map(parseRange).filter((r): r is [number, number] => r !== null);

export interface PageSlots {
  slots: Slot[];
  /** Hosts that count (still members, with a schedule), in the page's order. */
  hosts: Member[];
}

/**
 * Free slots of a page in [from, to). `excludeBookingId`: a booking being
 * rescheduled does not block its own new time.
 */
export async function pageSlots(
  db: Db,
  companyId: number,
  page: { id: number | null; config: PageConfig },
  o: {
    from: number;
    to: number;
    now: number;
    durationMin: number;
    excludeBookingId?: number;
    /** Hosts' connected calendars (loadCalendars over the page's hosts); none when absent. */
    calendars?: CalendarSnapshot;
  },
): Promise<PageSlots> {
  const cfg = page.config;
  const members = await membersById(db, companyId, cfg.hostUserIds);
  const schedules = new Map(
    (
      await schedulesOf(
        db,
        companyId,
        members.map((m) => m.userId),
      )
    ).map((s) => [s.userId, s]),
  );
  const hosts = members.filter((m) => schedules.has(m.userId));
  // "All together" needs every named host: one who left the company (or has no schedule) closes the page.
  if (hosts.length === 0 || (cfg.hostMode === "collective" && hosts.length !== cfg.hostUserIds.length))
    return { slots: [], hosts };
  const ids = hosts.map((h) => h.userId);
  // Weekly limits count whole weeks around the range; buffers reach a little past it.
  const lo = new Date(o.from - 8 * DAY);
  const hi = new Date(o.to + 8 * DAY);
  const [off, busyRows] = await Promise.all([
    db
      .select({ userId: bookingTimeOff.userId, start: bookingTimeOff.startDate, end: bookingTimeOff.endDate })
      .from(bookingTimeOff)
      .where(
        and(
          eq(bookingTimeOff.companyId, companyId),
          inArray(bookingTimeOff.userId, ids),
          gte(bookingTimeOff.endDate, instantToLocal(lo.getTime(), "UTC").date),
        ),
      ),
    db
      .select({
        userId: bookingHosts.userId,
        pageId: bookingHosts.pageId,
        startsAt: bookingHosts.startsAt,
        endsAt: bookingHosts.endsAt,
        busyFrom: bookingHosts.busyFrom,
        busyUntil: bookingHosts.busyUntil,
      })
      .from(bookingHosts)
      .where(
        and(
          eq(bookingHosts.companyId, companyId),
          inArray(bookingHosts.userId, ids),
          eq(bookingHosts.active, true),
          lt(bookingHosts.busyFrom, hi),
          gt(bookingHosts.busyUntil, lo),
          o.excludeBookingId !== undefined ? ne(bookingHosts.bookingId, o.excludeBookingId) : undefined,
        ),
      ),
  ]);
  const schedulesIn: HostSchedule[] = hosts.map((m) => {
    const s = schedules.get(m.userId)!;
    const weekly: HostSchedule["weekly"] = {};
    for (const [k, list] of Object.entries(s.weekly)) weekly[Number(k) as Weekday] = ranges(list);
    const overrides: HostSchedule["overrides"] = {};
    for (const [d, list] of Object.entries(s.overrides)) overrides[d] = ranges(list);
    // Calendar events block like meetings of another page (buffers keep clear of them); unreadable: busy throughout.
    const external = o.calendars ? calendarBusy(o.calendars, m.userId, s.timeZone, lo.getTime(), hi.getTime()) : [];
    const fromCalendars = (external ?? [[lo.getTime(), hi.getTime()]]).map(([a, b]) => ({
      start: a,
      end: b,
      busyFrom: a,
      busyUntil: b,
      samePage: false,
    }));
    return {
      userId: m.userId,
      timeZone: s.timeZone,
      weekly,
      overrides,
      timeOff: off.filter((t) => t.userId === m.userId),
      busy: busyRows
        .filter((b) => b.userId === m.userId)
        .map((b) => ({
          start: b.startsAt.getTime(),
          end: b.endsAt.getTime(),
          busyFrom: b.busyFrom.getTime(),
          busyUntil: b.busyUntil.getTime(),
          samePage: page.id !== null && b.pageId === page.id,
        }))
        .concat(fromCalendars),
    };
  });
  const slots = computeSlots(rulesOf(cfg, o.durationMin), schedulesIn, { from: o.from, to: o.to, now: o.now });
  return { slots, hosts };
}
