/**
 * Wall clock ↔ instant in an IANA time zone, with the DST rules written
 * down once. Built on Temporal (native in the Bun we ship), which knows
 * every zone's transitions from the runtime's ICU data; nothing here keeps
 * its own offset table.
 *
 * Two ways to turn a local date and time into an instant, because a
 * schedule's boundaries and a slot's start mean different things:
 *
 *  - a boundary ("available from 09:00", "until 17:00") that falls in a
 *    spring-forward gap means the moment the clock jumps: 02:30 on a night
 *    that skips 02:00–03:00 is 03:00 new time, so "01:00–02:30" lasts one
 *    real hour and "02:00–02:30" none;
 *  - a slot start that does not exist on the wall clock is no slot at all
 *    (Cal.com's users saw bookings shifted by an hour from exactly this).
 *
 * A wall time that happens twice (fall-back) is taken at its first
 * occurrence by both, so a start is offered once, never twice.
 *
 * @public Serves email (scheduled campaigns in a time zone).
 */

export const MINUTE = 60_000;
export const DAY = 86_400_000;

const ZONES = new Set(Intl.supportedValuesOf("timeZone"));
// Intl lists canonical names only; "UTC" and a few aliases people write are valid too.
for (const z of ["UTC", "Etc/UTC", "GMT", "Etc/GMT"]) ZONES.add(z);

/** True for an IANA zone name this runtime knows (Europe/Berlin, America/New_York, UTC). */
export function isTimeZone(tz: string): boolean {
  if (ZONES.has(tz)) return true;
  if (tz.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(tz)) return false;
  try {
    new Intl.DateTimeFormat("en", { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}

/** The zone's name as the runtime spells it ("europe/berlin" → "Europe/Berlin"); call after isTimeZone. */
export function canonicalZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat("en", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    return tz;
  }
}

/** Every zone name, sorted, for the public page's select. */
export function allTimeZones(): string[] {
  return [...Intl.supportedValuesOf("timeZone")].sort();
}

const plainDateCache = new Map<string, Temporal.PlainDate>();
export function plainDate(iso: string): Temporal.PlainDate {
  let d = plainDateCache.get(iso);
  if (!d) {
    d = Temporal.PlainDate.from(iso);
    if (plainDateCache.size > 5000) plainDateCache.clear();
    plainDateCache.set(iso, d);
  }
  return d;
}

/**
 * The instant of `minutes` after local midnight of `date` (0..1440; 1440 is
 * the next midnight) in `tz`. `boundary`: a time in a gap is the instant of
 * the jump; `start`: a time in a gap is null.
 */
export function localToInstant(
  date: Temporal.PlainDate,
  minutes: number,
  tz: string,
  mode: "boundary" | "start",
): number | null {
  const day = minutes >= 1440 ? date.add({ days: Math.floor(minutes / 1440) }) : date;
  const m = minutes % 1440;
  const wall = day.toPlainDateTime({ hour: Math.floor(m / 60), minute: m % 60 });
  return wallToInstant(wall, tz, mode);
}

export function wallToInstant(wall: Temporal.PlainDateTime, tz: string, mode: "boundary" | "start"): number | null {
  const earlier = wall.toZonedDateTime(tz, { disambiguation: "earlier" });
  const later = wall.toZonedDateTime(tz, { disambiguation: "later" });
  if (earlier.epochMilliseconds === later.epochMilliseconds) return earlier.epochMilliseconds;
  // Two readings: either the wall time happens twice (fall-back: take the first),
  // or it never happens (spring-forward gap: Temporal shifted it both ways).
  if (Temporal.PlainDateTime.compare(earlier.toPlainDateTime(), wall) === 0) return earlier.epochMilliseconds;
  if (mode === "start") return null;
  return earlier.getTimeZoneTransition("next")!.epochMilliseconds;
}

/** Local date (YYYY-MM-DD) and minutes after midnight of an instant in `tz`. */
export function instantToLocal(
  ms: number,
  tz: string,
): { date: string; minutes: number; wall: Temporal.PlainDateTime } {
  const z = Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz);
  const wall = z.toPlainDateTime();
  return { date: z.toPlainDate().toString(), minutes: z.hour * 60 + z.minute, wall };
}

/** The zone's transitions (epoch ms) strictly inside (from, to). */
export function transitionsBetween(tz: string, from: number, to: number): number[] {
  const out: number[] = [];
  let z: Temporal.ZonedDateTime | null = Temporal.Instant.fromEpochMilliseconds(from).toZonedDateTimeISO(tz);
  for (let i = 0; i < 1000; i++) {
    z = z.getTimeZoneTransition("next");
    if (!z || z.epochMilliseconds >= to) break;
    out.push(z.epochMilliseconds);
  }
  return out;
}

/** UTC offset of `tz` at an instant, in minutes (+60 for CET). */
export function offsetMinutes(ms: number, tz: string): number {
  return Temporal.Instant.fromEpochMilliseconds(ms).toZonedDateTimeISO(tz).offsetNanoseconds / 60e9;
}

/** "09:00-17:00" → [540, 1020]; 24:00 ends a day. Null when malformed or empty. */
export function parseRange(s: string): [number, number] | null {
  const m = /^([01]\d|2[0-3]):([0-5]\d)-([01]\d|2[0-4]):([0-5]\d)$/.exec(s);
  if (!m) return null;
  const a = Number(m[1]) * 60 + Number(m[2]);
  const b = Number(m[3]) * 60 + Number(m[4]);
  if (b > 1440 || b <= a) return null;
  return [a, b];
}

export function formatRange([a, b]: [number, number]): string {
  const f = (x: number) => `${String(Math.floor(x / 60)).padStart(2, "0")}:${String(x % 60).padStart(2, "0")}`;
  return `${f(a)}-${f(b)}`;
}
