/**
 * Busy times from the calendars members connected (calendars.ts), for the
 * availability maths: a host's pages offer no time their calendar has an
 * event in.
 *
 * The rules, each chosen where hosts of scheduling tools get double booked:
 *
 *  - A calendar that cannot be read (down, 404, refused by the address
 *    guard, a feed that does not parse) makes its host unavailable for the
 *    whole range, never free; the failure is written to the calendar's row
 *    (calendars_list, integrations_list show it). Silently offering the
 *    times of a host whose calendar is down is how people get booked over
 *    their other meetings.
 *  - Reads are cached per calendar for REFRESH_MS (a failure for
 *    FAILURE_RETRY_MS, so a dead server is not asked on every page view),
 *    with one fetch in flight per calendar, in a bounded map with a byte
 *    budget (src/core/memory-budget.ts `calendarBusy`).
 *  - Events are expanded (RRULE, RDATE, EXDATE, moved occurrences) over
 *    [fetch − 8 days, fetch + HORIZON_DAYS]; a range reaching past that is
 *    busy past it. Times with a TZID are read in that zone by the zone's real
 *    rules (zoned.ts: an event at 10:00 Europe/Berlin stays 10:00 across a
 *    DST change); a TZID that is not an IANA name uses the feed's own
 *    VTIMEZONE; floating times and all-day events are the host's wall clock
 *    (an all-day event blocks the host's whole local day), so they are kept
 *    as wall times and placed in the host's zone when used.
 *  - TRANSP:TRANSPARENT ("show as free") and STATUS:CANCELLED events do not
 *    block.
 *  - Outgoing requests pass the same address guard as webhooks
 *    (automations/outbound.ts; PLINTH_WEBHOOKS_ALLOW_PRIVATE=1 lets them
 *    reach private addresses), follow no redirects, time out, and read at
 *    most MAX_FEED_BYTES.
 *
 * Reading (the guarded fetch, CalDAV) is calendar-fetch.ts. ical.js is
 * loaded on first use (`await import`): a process whose members connect no
 * calendar never holds it.
 */
import { and, eq, inArray } from "drizzle-orm";
import { BoundedMap } from "../../core/bounded-map";
import type { Deps } from "../../core/context";
import { BUDGET, ENTRY_OVERHEAD } from "../../core/memory-budget";
import { type CalendarRow, FeedError, readCalendarTexts } from "./calendar-fetch";
import { WRITTEN_MARK } from "./ics";
import { bookingCalendars } from "./tables";
import { DAY, isTimeZone, wallToInstant } from "./zoned";

export const REFRESH_MS = 5 * 60_000;
export const FAILURE_RETRY_MS = 30_000;
export const HORIZON_DAYS = 400;
/** Occurrences kept per calendar: a year of a busy person's meetings several times over. */
const MAX_OCCURRENCES = 20_000;

/** One calendar's busy times as last read. */
export interface BusyEntry {
  at: number;
  ok: boolean;
  error: string | null;
  /** Covered instants [from, to). */
  from: number;
  to: number;
  /** Pairs of instants (start, end), sorted by start. */
  fixed: Float64Array;
  /** Pairs of wall times (as if UTC, ms) to read in the host's zone. */
  floating: Float64Array;
}

const cache = new BoundedMap<string, BusyEntry>({
  maxBytes: BUDGET.calendarBusy,
  maxEntryBytes: BUDGET.calendarBusy / 4,
  sizeOf: (k, e) =>
    ENTRY_OVERHEAD + 2 * k.length + e.fixed.byteLength + e.floating.byteLength + 2 * (e.error?.length ?? 0),
});
const inFlight = new Map<string, Promise<BusyEntry>>();

/** The cache key: a calendar changed or reconnected (new url, new row) is never read from an old entry. */
const keyOf = (c: Pick<CalendarRow, "id" | "url" | "updatedAt">) => `${c.id}|${c.updatedAt.getTime()}|${c.url}`;

/** Bytes the cache holds (the memory budget test). */
export const calendarCacheBytes = () => cache.bytes;

export function forgetCalendar(c: Pick<CalendarRow, "id" | "url" | "updatedAt">) {
  cache.delete(keyOf(c));
}

type ICALModule = typeof import("ical.js").default;
let icalModule: Promise<ICALModule> | null = null;
const ical = () => (icalModule ??= import("ical.js").then((m) => m.default));

/** Wall clock fields of an ical.js time as epoch ms read as UTC. */
const wallMs = (t: { year: number; month: number; day: number; hour: number; minute: number; second: number }) =>
  Date.UTC(t.year, t.month - 1, t.day, t.hour, t.minute, t.second);

/**
 * The busy intervals of an iCalendar text over [from, to): fixed instants,
 * and floating wall times (all-day events, times without a zone).
 */
export async function parseBusy(
  text: string,
  from: number,
  to: number,
  o: { skipMark?: string } = {},
): Promise<{ fixed: number[]; floating: number[] }> {
  const ICAL = await ical();
  let root: InstanceType<ICALModule["Component"]>;
  try {
    root = new ICAL.Component(ICAL.parse(text));
  } catch (e) {
    throw new FeedError(`not an iCalendar feed (${e instanceof Error ? e.message.slice(0, 120) : "parse error"})`);
  }
  // A feed may hold several VCALENDARs; parse() returns the first when it is one object.
  if (root.name !== "vcalendar") throw new FeedError("not an iCalendar feed (no VCALENDAR)");
  const zones = new Map<string, InstanceType<ICALModule["Timezone"]>>();
  for (const vtz of root.getAllSubcomponents("vtimezone")) {
    const tz = new ICAL.Timezone(vtz);
    if (tz.tzid) zones.set(tz.tzid, tz);
  }
  const fixed: number[] = [];
  const floating: number[] = [];
  const skipped = (c: InstanceType<ICALModule["Component"]>) =>
    (o.skipMark !== undefined && c.getFirstPropertyValue(WRITTEN_MARK.toLowerCase()) === o.skipMark) ||
    String(c.getFirstPropertyValue("transp") ?? "").toUpperCase() === "TRANSPARENT" ||
    String(c.getFirstPropertyValue("status") ?? "").toUpperCase() === "CANCELLED";

  type Comp = InstanceType<ICALModule["Component"]>;
  type Time = InstanceType<ICALModule["Time"]>;
  type Zone = { utc: true } | { iana: string } | { vtz: InstanceType<ICALModule["Timezone"]> } | null;
  // Per event component: whether it blocks, and the zone of its start and end (read once, not per occurrence).
  const facts = new WeakMap<Comp, { skip: boolean; start: Zone; end: Zone }>();
  const zoneOfProp = (item: Comp, prop: "dtstart" | "dtend"): Zone => {
    const p = item.getFirstProperty(prop) ?? item.getFirstProperty("dtstart");
    const raw = p?.getFirstValue() as Time | undefined;
    if (raw && raw.zone === ICAL.Timezone.utcTimezone) return { utc: true };
    const tzid = p?.getParameter("tzid") as string | undefined;
    if (!tzid) return null;
    const iana = tzid.startsWith("/") ? tzid.split("/").slice(-2).join("/") : tzid;
    if (isTimeZone(iana)) return { iana };
    const vtz = zones.get(tzid);
    if (!vtz) throw new FeedError(`unknown time zone ${tzid.slice(0, 60)} (no VTIMEZONE for it)`);
    return { vtz };
  };
  const factsOf = (item: Comp) => {
    let f = facts.get(item);
    if (!f) {
      f = { skip: skipped(item), start: zoneOfProp(item, "dtstart"), end: zoneOfProp(item, "dtend") };
      facts.set(item, f);
    }
    return f;
  };

  /** An instant of wall clock `t` in zone `z`, or null for floating (all-day, or no zone). */
  const instantOf = (z: Zone, t: Time): number | null => {
    if (t.isDate || z === null) return null;
    if ("utc" in z) return wallMs(t);
    if ("iana" in z)
      return wallToInstant(
        Temporal.PlainDateTime.from({
          year: t.year,
          month: t.month,
          day: t.day,
          hour: t.hour,
          minute: t.minute,
          second: t.second,
        }),
        z.iana,
        "boundary",
      );
    const c = t.clone();
    c.zone = z.vtz;
    return c.toUnixTime() * 1000;
  };

  const push = (item: Comp, s: Time, e: Time) => {
    const f = factsOf(item);
    if (f.skip) return;
    const wa = wallMs(s);
    let wb = wallMs(e);
    if (s.isDate && wb <= wa) wb = wa + DAY; // DTSTART;VALUE=DATE alone is one day
    // Zone offsets are under a day: wall times two days outside the range are outside it in every zone.
    if (wb < from - 2 * DAY || wa > to + 2 * DAY) return;
    const a = instantOf(f.start, s);
    const b = instantOf(f.end, e);
    if (a !== null && b !== null) {
      if (b > a && b > from && a < to) fixed.push(a, b);
    } else if (wb > wa && wb > from - DAY && wa < to + DAY) floating.push(wa, wb);
    if (fixed.length + floating.length > 2 * MAX_OCCURRENCES)
      throw new FeedError(`more than ${MAX_OCCURRENCES} events in the next ${HORIZON_DAYS} days`);
  };

  /** A single event's start and end: DTEND, or DTSTART + DURATION, or one day for a date. */
  const single = (ve: Comp) => {
    const start = ve.getFirstPropertyValue("dtstart") as Time | null;
    if (!start) return;
    let end = ve.getFirstPropertyValue("dtend") as Time | null;
    if (!end) {
      const dur = ve.getFirstPropertyValue("duration") as InstanceType<ICALModule["Duration"]> | null;
      end = start.clone();
      if (dur) end.addDuration(dur);
    }
    push(ve, start, end);
  };

  const vevents = root.getAllSubcomponents("vevent");
  const recurring = new Map<string, InstanceType<ICALModule["Event"]>>();
  const exceptions: Comp[] = [];
  for (const ve of vevents) {
    if (ve.hasProperty("recurrence-id")) exceptions.push(ve);
    else if (ve.hasProperty("rrule") || ve.hasProperty("rdate")) {
      const uid = String(ve.getFirstPropertyValue("uid") ?? `#${recurring.size}`);
      recurring.set(recurring.has(uid) ? `${uid}#${recurring.size}` : uid, new ICAL.Event(ve));
    } else single(ve);
  }
  for (const ex of exceptions) {
    const m = recurring.get(String(ex.getFirstPropertyValue("uid") ?? ""));
    if (m) m.relateException(ex);
    else single(ex);
  }
  for (const ev of recurring.values()) {
    if (!ev.startDate) continue;
    const moved = Object.keys(ev.exceptions).length > 0;
    const dur = ev.duration;
    const durMs = dur.toSeconds() * 1000;
    const it = ev.iterator();
    for (let k = 0; ; k++) {
      if (k > 50 * MAX_OCCURRENCES) throw new FeedError("a recurring event repeats too often to read");
      const next = it.next();
      if (!next) break;
      const w = wallMs(next);
      if (w >= to + 2 * DAY) break;
      // Occurrences long before the range are passed over without building them.
      if (w + Math.max(durMs, DAY) < from - 2 * DAY) continue;
      if (moved) {
        const d = ev.getOccurrenceDetails(next);
        push(d.item.component, d.startDate, d.endDate);
      } else {
        const end = next.clone();
        end.addDuration(dur);
        push(ev.component, next, end);
      }
    }
  }
  return { fixed, floating };
}

function sortedPairs(xs: number[]): Float64Array {
  const pairs: [number, number][] = [];
  for (let i = 0; i < xs.length; i += 2) pairs.push([xs[i]!, xs[i + 1]!]);
  pairs.sort((a, b) => a[0] - b[0]);
  return Float64Array.from(pairs.flat());
}

/** Reads a calendar now (no cache), writes its health to its row, and caches the result. */
export async function readCalendar(deps: Deps, c: CalendarRow): Promise<BusyEntry> {
  const at = deps.clock.now().getTime();
  const from = at - 8 * DAY;
  const to = at + HORIZON_DAYS * DAY;
  let entry: BusyEntry;
  try {
    const fixed: number[] = [];
    const floating: number[] = [];
    // The company's own bookings written into a CalDAV calendar already block through booking_hosts.
    const skipMark = `${deps.config.publicUrl}#${c.companyId}`;
    for (const text of await readCalendarTexts(deps, c, from, to)) {
      const got = await parseBusy(text, from, to, { skipMark });
      fixed.push(...got.fixed);
      floating.push(...got.floating);
    }
    entry = { at, ok: true, error: null, from, to, fixed: sortedPairs(fixed), floating: sortedPairs(floating) };
  } catch (e) {
    const error =
      e instanceof FeedError
        ? e.message
        : `could not read the calendar (${e instanceof Error ? e.message.slice(0, 200) : "error"})`;
    entry = { at, ok: false, error, from, to, fixed: new Float64Array(), floating: new Float64Array() };
  }
  const now = new Date(at);
  await deps.db
    .update(bookingCalendars)
    .set(
      entry.ok
        ? { lastSyncAt: now, lastOkAt: now, lastError: null }
        : { lastSyncAt: now, lastError: entry.error, lastErrorAt: now },
    )
    .where(eq(bookingCalendars.id, c.id));
  cache.set(keyOf(c), entry);
  return entry;
}

/** The cached read of a calendar while fresh, else a new one (one in flight per calendar). */
function busyEntry(deps: Deps, c: CalendarRow): Promise<BusyEntry> {
  const key = keyOf(c);
  const now = deps.clock.now().getTime();
  const hit = cache.get(key);
  if (hit && now - hit.at < (hit.ok ? REFRESH_MS : FAILURE_RETRY_MS) && now >= hit.at) return Promise.resolve(hit);
  let p = inFlight.get(key);
  if (!p) {
    p = readCalendar(deps, c).finally(() => inFlight.delete(key));
    inFlight.set(key, p);
  }
  return p;
}

/**
 * What the calendars of some members say, read before a booking's
 * transaction (no network inside one): per member, their calendars'
 * entries. Members with no calendar are absent.
 */
export interface CalendarSnapshot {
  byUser: Map<number, BusyEntry[]>;
}

export const NO_CALENDARS: CalendarSnapshot = { byUser: new Map() };

/** Reads (or takes from the cache) every calendar of these members of the company. */
export async function loadCalendars(deps: Deps, companyId: number, userIds: number[]): Promise<CalendarSnapshot> {
  if (userIds.length === 0) return NO_CALENDARS;
  const rows = await deps.db
    .select()
    .from(bookingCalendars)
    .where(and(eq(bookingCalendars.companyId, companyId), inArray(bookingCalendars.userId, userIds)));
  if (rows.length === 0) return NO_CALENDARS;
  const entries = await Promise.all(rows.map((r) => busyEntry(deps, r)));
  const byUser = new Map<number, BusyEntry[]>();
  rows.forEach((r, i) => {
    const list = byUser.get(r.userId) ?? [];
    list.push(entries[i]!);
    byUser.set(r.userId, list);
  });
  return { byUser };
}

/**
 * A member's calendar busy times over [from, to) as [start, end) instants,
 * floating ones placed in `timeZone`; null when a calendar could not be
 * read (the member is then busy throughout). Parts of the range a read did
 * not cover are busy.
 */
export function calendarBusy(
  snap: CalendarSnapshot,
  userId: number,
  timeZone: string,
  from: number,
  to: number,
): [number, number][] | null {
  const entries = snap.byUser.get(userId);
  if (!entries) return [];
  const out: [number, number][] = [];
  for (const e of entries) {
    if (!e.ok) return null;
    if (from < e.from) out.push([from, e.from]);
    if (to > e.to) out.push([e.to, to]);
    const f = e.fixed;
    for (let i = 0; i < f.length; i += 2) {
      if (f[i]! >= to) break;
      if (f[i + 1]! > from) out.push([f[i]!, f[i + 1]!]);
    }
    const w = e.floating;
    for (let i = 0; i < w.length; i += 2) {
      if (w[i]! >= to + DAY) break;
      if (w[i + 1]! <= from - DAY) continue;
      const a = wallToInstant(
        Temporal.PlainDateTime.from(new Date(w[i]!).toISOString().slice(0, 19)),
        timeZone,
        "boundary",
      )!;
      const b = wallToInstant(
        Temporal.PlainDateTime.from(new Date(w[i + 1]!).toISOString().slice(0, 19)),
        timeZone,
        "boundary",
      )!;
      if (b > from && a < to) out.push([a, b]);
    }
  }
  return out;
}
