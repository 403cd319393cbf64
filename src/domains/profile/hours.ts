/**
 * Time zones and working hours: validation, and "is it working time for
 * this person now?" (the notification digest waits for it; the team list
 * shows each member's local time).
 *
 * @public Serves notifications (the digest waits for working time).
 */
import { invalid } from "../../core/errors";

export const WEEKDAYS = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"] as const;
export type Weekday = (typeof WEEKDAYS)[number];
export interface TimeRange {
  start: string;
  end: string;
}
export type WorkingHours = Partial<Record<Weekday, TimeRange[]>>;

/** The runtime's canonical name of an IANA time zone, or null when it is not one. */
export function canonicalTimeZone(tz: string): string | null {
  // Names only: offsets such as +05:00 are not time zones (they ignore daylight saving).
  if (tz.length > 64 || !/^[A-Za-z][A-Za-z0-9_+-]*(\/[A-Za-z0-9_+-]+){0,2}$/.test(tz)) return null;
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return null;
  }
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$|^24:00$/;
const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));

/** Checks and normalises working hours: ranges sorted, not overlapping, start before end, at most 4 a day. */
export function normaliseHours(h: WorkingHours): WorkingHours {
  const out: WorkingHours = {};
  for (const [day, ranges] of Object.entries(h)) {
    if (!(WEEKDAYS as readonly string[]).includes(day))
      throw invalid(`workingHours: "${day.slice(0, 20)}" is not a weekday (mon … sun).`);
    if (!Array.isArray(ranges)) throw invalid(`workingHours.${day} must be a list of {start, end}.`);
    if (ranges.length > 4) throw invalid(`workingHours.${day}: at most 4 ranges a day.`);
    const sorted = [...ranges].sort((a, b) => (a.start < b.start ? -1 : 1));
    for (const [i, r] of sorted.entries()) {
      if (!HHMM.test(r.start) || !HHMM.test(r.end) || r.start === "24:00")
        throw invalid(
          `workingHours.${day}: times are HH:MM from 00:00 to 24:00, got ${JSON.stringify(r).slice(0, 60)}.`,
        );
      if (minutes(r.start) >= minutes(r.end))
        throw invalid(`workingHours.${day}: ${r.start}–${r.end} ends before it starts.`);
      const prev = sorted[i - 1];
      if (prev && minutes(r.start) < minutes(prev.end))
        throw invalid(`workingHours.${day}: ${prev.start}–${prev.end} and ${r.start}–${r.end} overlap.`);
    }
    if (sorted.length) out[day as Weekday] = sorted.map((r) => ({ start: r.start, end: r.end }));
  }
  return out;
}

/** Weekday and minutes after midnight of `at` in `timeZone`. */
export function localClock(timeZone: string, at: Date): { day: Weekday; minutes: number; text: string } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? "";
  const day = get("weekday").toLowerCase().slice(0, 3) as Weekday;
  const hh = get("hour").padStart(2, "0");
  const mm = get("minute").padStart(2, "0");
  return { day, minutes: Number(hh) * 60 + Number(mm), text: `${hh}:${mm}` };
}

/** Is `at` inside the person's working hours? Without a time zone or hours, always (nothing to wait for). */
export function isWorkingTime(p: { timeZone: string | null; workingHours: WorkingHours | null }, at: Date): boolean {
  if (!p.timeZone || !p.workingHours || Object.keys(p.workingHours).length === 0) return true;
  const { day, minutes: m } = localClock(p.timeZone, at);
  return (p.workingHours[day] ?? []).some((r) => minutes(r.start) <= m && m < minutes(r.end));
}
