/**
 * Business time: adding N working minutes to an instant, in a company's time
 * zone, over its weekly hours and holidays, skipping paused stretches. Pure
 * functions over epoch milliseconds; the wall-clock arithmetic is Temporal's
 * (built into Bun), so a DST change moves the instants of 09:00 and 17:00,
 * never the length of a working day as the clock on the wall shows it.
 *
 * How local times that do not exist or exist twice are read: Temporal's
 * "compatible" disambiguation (as browsers' Date does): 02:30 on a
 * spring-forward night is 03:30, and 01:30 on a fall-back night is the first
 * of the two.
 *
 * @public Serves chat (inbox business hours use the tickets' week hours).
 */
import { invalid } from "../../core/errors";
import type { WeekHours } from "./tables";

export const DAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Day = (typeof DAYS)[number];

/** Minutes after local midnight; an interval's end may be 1440 (24:00). */
interface Interval {
  start: number;
  end: number;
}

export interface Schedule {
  timeZone: string;
  /** null: every minute counts (24/7). */
  hours: Record<Day, Interval[]> | null;
  holidays: ReadonlySet<string>;
}

const INTERVAL_RE = /^([01]\d|2[0-3]):([0-5]\d)-(?:([01]\d|2[0-3]):([0-5]\d)|(24):(00))$/;

/** True when `tz` is an IANA time zone this runtime knows ("Europe/Berlin", "UTC"). */
export function isTimeZone(tz: string): boolean {
  if (tz.length > 64) return false;
  try {
    Temporal.Now.zonedDateTimeISO(tz);
    return true;
  } catch {
    return false;
  }
}

/** Checks and parses weekly hours: per day, "HH:MM-HH:MM" intervals that do not overlap. */
export function parseWeekHours(h: WeekHours, field = "businessHours"): Record<Day, Interval[]> {
  const out = Object.fromEntries(DAYS.map((d) => [d, [] as Interval[]])) as Record<Day, Interval[]>;
  let any = false;
  for (const [day, list] of Object.entries(h)) {
    if (!(DAYS as readonly string[]).includes(day))
      throw invalid(`${field}: "${day}" is not a day; use ${DAYS.join(", ")}.`);
    const parsed = (list ?? []).map((s, i) => {
      const m = INTERVAL_RE.exec(s);
      if (!m)
        throw invalid(
          `${field}.${day}[${i}] must read "HH:MM-HH:MM" (24-hour, end up to 24:00), got "${String(s).slice(0, 40)}".`,
        );
      const start = Number(m[1]) * 60 + Number(m[2]);
      const end = m[5] ? 1440 : Number(m[3]) * 60 + Number(m[4]);
      if (end <= start)
        throw invalid(`${field}.${day}[${i}] ends before it starts ("${s}"); an interval stays within one day.`);
      return { start, end };
    });
    parsed.sort((a, b) => a.start - b.start);
    for (let i = 1; i < parsed.length; i++)
      if (parsed[i]!.start < parsed[i - 1]!.end)
        throw invalid(`${field}.${day}: intervals overlap; give them in separate, non-overlapping ranges.`);
    out[day as Day] = parsed;
    if (parsed.length) any = true;
  }
  if (!any) throw invalid(`${field} must open at least one interval in the week (e.g. {"mon":["09:00-17:00"]}).`);
  return out;
}

function instantOf(date: Temporal.PlainDate, minutes: number, tz: string): number {
  const d = minutes === 1440 ? date.add({ days: 1 }) : date;
  const m = minutes === 1440 ? 0 : minutes;
  return d
    .toPlainDateTime({ hour: Math.floor(m / 60), minute: m % 60 })
    .toZonedDateTime(tz, { disambiguation: "compatible" }).epochMilliseconds;
}

/** Working windows [from, to) in time order, the first one starting at or after `fromMs` (clipped). */
function* windows(s: Schedule, fromMs: number): Generator<[number, number]> {
  if (!s.hours) {
    yield [fromMs, Infinity];
    return;
  }
  let date = Temporal.Instant.fromEpochMilliseconds(fromMs).toZonedDateTimeISO(s.timeZone).toPlainDate();
  // 400 holidays at most (schema) and at least one interval a week: ten years always holds the answer.
  for (let i = 0; i < 3660; i++, date = date.add({ days: 1 })) {
    if (s.holidays.has(date.toString())) continue;
    for (const iv of s.hours[DAYS[date.dayOfWeek - 1]!]) {
      const a = instantOf(date, iv.start, s.timeZone);
      const b = instantOf(date, iv.end, s.timeZone);
      if (b <= fromMs || b <= a) continue;
      yield [Math.max(a, fromMs), b];
    }
  }
}

/**
 * The instant at which `durationMs` of working time has passed since
 * `startMs`, not counting the paused stretches (sorted, non-overlapping,
 * [from, to) in ms). A duration that ends exactly at a window's close is
 * due at the close (17:00), not at the next opening.
 */
export function addWorkingTime(
  startMs: number,
  durationMs: number,
  s: Schedule,
  pauses: readonly [number, number][] = [],
): number {
  let remaining = durationMs;
  if (remaining <= 0) return startMs;
  for (const [ws, we] of windows(s, startMs)) {
    let cur = ws;
    for (const [ps, pe] of pauses) {
      if (pe <= cur || ps >= we) continue;
      if (ps > cur) {
        const len = ps - cur;
        if (remaining <= len) return cur + remaining;
        remaining -= len;
      }
      cur = Math.max(cur, pe);
      if (cur >= we) break;
    }
    if (cur < we) {
      const len = we - cur;
      if (remaining <= len) return cur + remaining;
      remaining -= len;
    }
  }
  throw invalid("The SLA schedule has no working time in the next ten years; check the business hours and holidays.");
}
