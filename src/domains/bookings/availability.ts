/**
 * Availability: which start times a booking page offers, from its hosts'
 * schedules minus time off, existing bookings with their buffers, minimum
 * notice, the booking window and daily/weekly limits. Pure: the verbs load
 * the rows (availability-load.ts) and both the listing and the booking
 * itself call `computeSlots`, so a slot that is shown can be booked and a
 * slot that cannot be booked is never shown (Cal.com's users met "No
 * available users found" on slots its listing offered, because the two
 * paths computed differently).
 *
 * The rules, each chosen where users of scheduling tools complain:
 *
 *  - Every host's hours are read in that host's own time zone, day by day,
 *    through the zone's real rules (zoned.ts): after a DST change a 09:00
 *    start is still 09:00 local, not 08:00 or 10:00.
 *  - Start times lie on a grid of `intervalMin` wall-clock minutes counted
 *    from the start of each stretch of working hours (09:00, 09:30, …), so an
 *    earlier booking that ends at 09:40 does not shift the day to 09:40,
 *    10:10. One-host and round-robin pages use each host's own stretches;
 *    "all together" pages the stretches every host shares, on the page's
 *    time zone's wall clock.
 *  - A start that does not exist locally (a spring-forward gap) is skipped;
 *    one that happens twice (fall-back) is offered once, at its first
 *    occurrence. Slots are unique by instant.
 *  - A slot needs its own time free of other bookings and its buffers
 *    (before/after) free of other meetings; an existing booking's buffers
 *    may not hold the new meeting either. Buffers may overlap each other and
 *    may fall outside working hours (a 09:00 start with a 10-minute buffer
 *    before is fine).
 *  - Daily and weekly limits count this page's live bookings per host on the
 *    host's local calendar (weeks start on Monday), not the visitor's or
 *    UTC's (Cal.com's limits were long counted in the booker's zone).
 *  - Minimum notice and the booking window are measured from now, as
 *    instants, so they mean the same whatever the zones.
 */
import { DAY, instantToLocal, localToInstant, MINUTE, plainDate, transitionsBetween, wallToInstant } from "./zoned";

export type Weekday = 1 | 2 | 3 | 4 | 5 | 6 | 7; // ISO: Monday = 1

export interface BusyTime {
  /** The meeting itself. */
  start: number;
  end: number;
  /** The meeting with its buffers: nothing else may start or end inside. */
  busyFrom: number;
  busyUntil: number;
  /** A booking of the page being computed (counts toward its limits). */
  samePage: boolean;
}

export interface HostSchedule {
  userId: number;
  timeZone: string;
  /** Minutes after local midnight, per ISO weekday. */
  weekly: Partial<Record<Weekday, [number, number][]>>;
  /** YYYY-MM-DD → that day's hours instead of the weekly ones; [] = away all day. */
  overrides: Record<string, [number, number][]>;
  /** Whole local days away, inclusive (YYYY-MM-DD). */
  timeOff: { start: string; end: string }[];
  busy: BusyTime[];
}

export interface SlotRules {
  durationMin: number;
  intervalMin: number;
  minNoticeMin: number;
  bufferBeforeMin: number;
  bufferAfterMin: number;
  /** Starts must be before now + this many days; null: no limit. */
  maxAdvanceDays: number | null;
  dailyLimit: number | null;
  weeklyLimit: number | null;
  mode: "single" | "round_robin" | "collective";
  /** Wall clock of the grid for "all together" pages. */
  gridTimeZone: string;
}

export interface Slot {
  start: number;
  end: number;
  /** Hosts free for it (round robin: any of them may be assigned; all together: all). */
  hostUserIds: number[];
}

type Window = [number, number];

interface DayInfo {
  start: number;
  date: string;
  week: string;
}

/** Prepared facts of one host for one computation. */
interface HostState {
  h: HostSchedule;
  windows: Window[];
  days: DayInfo[];
  busy: BusyTime[];
  prefixMaxUntil: number[];
  p: number;
  perDay: Map<string, number>;
  perWeek: Map<string, number>;
}

const isoWeek = (d: Temporal.PlainDate) => d.subtract({ days: d.dayOfWeek - 1 }).toString();

function inTimeOff(date: string, timeOff: HostSchedule["timeOff"]): boolean {
  for (const t of timeOff) if (date >= t.start && date <= t.end) return true;
  return false;
}

/** Sorted, merged (touching joins) stretches of working hours of a host over local dates first..last. */
function hostWindows(
  h: HostSchedule,
  first: Temporal.PlainDate,
  last: Temporal.PlainDate,
): { windows: Window[]; days: DayInfo[] } {
  const raw: Window[] = [];
  const days: DayInfo[] = [];
  for (let d = first; Temporal.PlainDate.compare(d, last) <= 0; d = d.add({ days: 1 })) {
    const date = d.toString();
    days.push({ start: localToInstant(d, 0, h.timeZone, "boundary")!, date, week: isoWeek(d) });
    if (inTimeOff(date, h.timeOff)) continue;
    const hours = h.overrides[date] ?? h.weekly[d.dayOfWeek as Weekday] ?? [];
    for (const [a, b] of hours) {
      const s = localToInstant(d, a, h.timeZone, "boundary")!;
      const e = localToInstant(d, b, h.timeZone, "boundary")!;
      if (e > s) raw.push([s, e]);
    }
  }
  return { windows: merge(raw), days };
}

function merge(ws: Window[]): Window[] {
  ws.sort((a, b) => a[0] - b[0]);
  const out: Window[] = [];
  for (const w of ws) {
    const last = out[out.length - 1];
    if (last && w[0] <= last[1]) last[1] = Math.max(last[1], w[1]);
    else out.push([w[0], w[1]]);
  }
  return out;
}

function intersect(a: Window[], b: Window[]): Window[] {
  const out: Window[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const s = Math.max(a[i]![0], b[j]![0]);
    const e = Math.min(a[i]![1], b[j]![1]);
    if (e > s) out.push([s, e]);
    if (a[i]![1] < b[j]![1]) i++;
    else j++;
  }
  return out;
}

/**
 * Start instants on the wall-clock grid of `tz` from each window's start,
 * whose meeting of `dur` ms fits inside the window. Windows without a DST
 * transition inside step in plain milliseconds; the rest walk the wall clock.
 */
function gridStarts(windows: Window[], tz: string, intervalMin: number, dur: number, out: Set<number>) {
  const step = intervalMin * MINUTE;
  for (const [ws, we] of windows) {
    if (we - ws < dur) continue;
    if (transitionsBetween(tz, ws, we).length === 0) {
      for (let t = ws; t + dur <= we; t += step) out.add(t);
      continue;
    }
    const wall0 = instantToLocal(ws, tz).wall;
    // A window is at most a few days long; the cap only guards against a pathological interval.
    for (let k = 0; k < 20_000; k++) {
      const t = wallToInstant(wall0.add({ minutes: k * intervalMin }), tz, "start");
      if (t === null) continue; // this wall time does not exist today
      if (t + dur > we) {
        // A later wall time can map to an earlier instant only across a fall-back; keep walking while that may happen.
        if (t - we > 3 * 3_600_000) break;
        continue;
      }
      if (t >= ws) out.add(t);
    }
  }
}

function containing(windows: Window[], s: number, e: number): boolean {
  let lo = 0;
  let hi = windows.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const w = windows[mid]!;
    if (w[1] < e) lo = mid + 1;
    else if (w[0] > s) hi = mid - 1;
    else return true;
  }
  return false;
}

function dayOf(days: DayInfo[], t: number): DayInfo | undefined {
  let lo = 0;
  let hi = days.length - 1;
  let found: DayInfo | undefined;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (days[mid]!.start <= t) {
      found = days[mid];
      lo = mid + 1;
    } else hi = mid - 1;
  }
  return found;
}

function prepare(h: HostSchedule, r: SlotRules, from: number, to: number, dur: number): HostState {
  // Local dates a little beyond the range on both sides: a window that starts the
  // evening before (in this host's zone) can hold a slot inside the range.
  // Whole weeks, so weekly limits count bookings earlier in the week than the range.
  const a = plainDate(instantToLocal(from - DAY, h.timeZone).date);
  const first = r.weeklyLimit === null ? a : a.subtract({ days: a.dayOfWeek - 1 });
  const b = plainDate(instantToLocal(to + dur + DAY, h.timeZone).date);
  const last = r.weeklyLimit === null ? b : b.add({ days: 7 - b.dayOfWeek });
  const { windows, days } = hostWindows(h, first, last);
  const busy = [...h.busy].sort((a, b) => a.busyFrom - b.busyFrom);
  const prefixMaxUntil: number[] = [];
  let m = -Infinity;
  for (const b of busy) prefixMaxUntil.push((m = Math.max(m, b.busyUntil, b.end)));
  const perDay = new Map<string, number>();
  const perWeek = new Map<string, number>();
  for (const b of busy) {
    if (!b.samePage) continue;
    const d = dayOf(days, b.start);
    if (!d) continue;
    perDay.set(d.date, (perDay.get(d.date) ?? 0) + 1);
    perWeek.set(d.week, (perWeek.get(d.week) ?? 0) + 1);
  }
  return { h, windows, days, busy, prefixMaxUntil, p: 0, perDay, perWeek };
}

/** Whether host `st` can take [s, e); calls must come in increasing `s` per host. */
function hostFree(st: HostState, r: SlotRules, s: number, e: number): boolean {
  if (!containing(st.windows, s, e)) return false;
  const before = r.bufferBeforeMin * MINUTE;
  const after = r.bufferAfterMin * MINUTE;
  // Busy times that ended (buffers included) before this slot's buffer began are behind every later slot too.
  while (st.p < st.busy.length && st.prefixMaxUntil[st.p]! <= s - before) st.p++;
  for (let i = st.p; i < st.busy.length; i++) {
    const b = st.busy[i]!;
    if (b.busyFrom >= e + after) break;
    if (s - before < b.end && b.start < e + after) return false; // our buffers over their meeting
    if (s < b.busyUntil && b.busyFrom < e) return false; // our meeting over their buffers
  }
  if (r.dailyLimit !== null || r.weeklyLimit !== null) {
    const d = dayOf(st.days, s);
    if (d) {
      if (r.dailyLimit !== null && (st.perDay.get(d.date) ?? 0) >= r.dailyLimit) return false;
      if (r.weeklyLimit !== null && (st.perWeek.get(d.week) ?? 0) >= r.weeklyLimit) return false;
    }
  }
  return true;
}

/**
 * The free slots whose start lies in [from, to), in time order. `now` is
 * the clock's instant (minimum notice and the booking window count from it).
 */
export function computeSlots(
  r: SlotRules,
  hosts: HostSchedule[],
  range: { from: number; to: number; now: number },
): Slot[] {
  if (hosts.length === 0 || range.to <= range.from) return [];
  const dur = r.durationMin * MINUTE;
  const earliest = Math.max(range.from, range.now + r.minNoticeMin * MINUTE);
  const latest = r.maxAdvanceDays === null ? range.to : Math.min(range.to, range.now + r.maxAdvanceDays * DAY);
  if (latest <= earliest) return [];
  const states = hosts.map((h) => prepare(h, r, earliest, latest, dur));
  const starts = new Set<number>();
  if (r.mode === "collective") {
    let shared = states[0]!.windows;
    for (const st of states.slice(1)) shared = intersect(shared, st.windows);
    gridStarts(shared, r.gridTimeZone, r.intervalMin, dur, starts);
  } else {
    for (const st of r.mode === "single" ? states.slice(0, 1) : states)
      gridStarts(st.windows, st.h.timeZone, r.intervalMin, dur, starts);
  }
  const ordered = [...starts].filter((t) => t >= earliest && t < latest).sort((a, b) => a - b);
  const out: Slot[] = [];
  const candidates = r.mode === "single" ? states.slice(0, 1) : states;
  for (const s of ordered) {
    const e = s + dur;
    const free: number[] = [];
    for (const st of candidates) if (hostFree(st, r, s, e)) free.push(st.h.userId);
    if (r.mode === "collective" ? free.length === candidates.length : free.length > 0)
      out.push({ start: s, end: e, hostUserIds: free });
  }
  return out;
}
