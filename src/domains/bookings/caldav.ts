/**
 * Bookings written into CalDAV calendars (RFC 4791): the busy times of
 * every calendar of an account are read like an ICS feed's (calendar-fetch.ts
 * through tsdav, calendar-busy.ts), and here bookings, their moves and
 * cancellations are written to the one calendar the member chose
 * (`write_url`).
 *
 * Writes go out through an outbox (booking_calendar_writes): the booking
 * events' subscriber marks (booking, calendar) pending inside the
 * dispatcher's transaction, so a change is recorded exactly once whatever
 * the number of instances; the job, run by one instance at a time (its
 * lease), brings the calendar up to date with the booking as it is then: a
 * PUT of the event (UID = the booking's invite UID, file <uid>.ics) while
 * the booking holds its slot and the calendar's member is one of its
 * hosts, else a DELETE (404 counts as done). Both are idempotent, so a run
 * repeated after a crash changes nothing more; a change that arrives while
 * a write is in flight bumps the row's version, and the job marks done only
 * the version it wrote. Failures are retried on RETRY_DELAYS_MS, then the
 * row is `failed` and the calendar shows the error (calendars_list,
 * integrations_list).
 *
 * Every request passes the webhooks' address guard and follows no redirect
 * (calendar-fetch.ts `guardedFetch`); the sealed password is opened only to
 * make a request and never returned, logged or put in an error.
 */
import { and, eq, inArray, lte, sql } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { EventRecord, Subscriber } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { inviteInputOf } from "./bookings";
import { type CalendarRow, davError, FeedError, guardedFetch, passwordOf } from "./calendar-fetch";
import { hostEvent } from "./ics";
import { bookingCalendars, bookingCalendarWrites, bookings } from "./tables";

export const RETRY_DELAYS_MS = [10_000, 60_000, 300_000, 1_800_000, 7_200_000];
const BATCH = 50;

const objectUrl = (writeUrl: string, uid: string) => `${writeUrl.endsWith("/") ? writeUrl : `${writeUrl}/`}${uid}.ics`;

/** Brings one calendar up to date with one booking: PUT while it stands with this host, else DELETE. */
async function writeOne(deps: Deps, c: CalendarRow, b: typeof bookings.$inferSelect): Promise<"put" | "delete"> {
  if (!c.writeUrl) return "delete";
  const stands = (b.status === "pending" || b.status === "accepted") && b.hostUserIds.includes(c.userId);
  const auth = `Basic ${Buffer.from(`${c.username ?? ""}:${passwordOf(deps, c)}`).toString("base64")}`;
  const f = guardedFetch(deps);
  let res: Response;
  try {
    res = stands
      ? await f(objectUrl(c.writeUrl, b.uid), {
          method: "PUT",
          headers: { authorization: auth, "content-type": "text/calendar; charset=utf-8" },
          body: hostEvent({ ...(await inviteInputOf(deps, b)), companyId: b.companyId }),
        })
      : await f(objectUrl(c.writeUrl, b.uid), { method: "DELETE", headers: { authorization: auth } });
  } catch (e) {
    throw davError(e);
  }
  await res.body?.cancel();
  if (res.ok || (!stands && res.status === 404)) return stands ? "put" : "delete";
  throw new FeedError(
    res.status === 401 || res.status === 403
      ? `the server refused the write (${res.status}): check the username, password and calendar`
      : `${stands ? "PUT" : "DELETE"} returned HTTP ${res.status}`,
  );
}

// ---------------------------------------------------------------- the outbox

const BOOKING_TYPES = [
  "booking.created",
  "booking.confirmed",
  "booking.rescheduled",
  "booking.updated",
  "booking.cancelled",
  "booking.declined",
  "booking.expired",
];

/**
 * Marks (booking, calendar) pending for the CalDAV calendars (with a write
 * calendar) of the booking's hosts, and for any calendar the booking was
 * written to before (a host handed over, a calendar whose event must go).
 */
export const calendarWriteSubscriber: Subscriber = {
  name: "bookings.calendar_writes",
  types: BOOKING_TYPES,
  async handle(deps, e: EventRecord) {
    const db = deps.db;
    const b = (
      await db
        .select({ id: bookings.id, hostUserIds: bookings.hostUserIds })
        .from(bookings)
        .where(and(eq(bookings.id, e.entity.id), eq(bookings.companyId, e.companyId)))
        .limit(1)
    )[0];
    if (!b) return;
    const hostCals = await db
      .select({ id: bookingCalendars.id })
      .from(bookingCalendars)
      .where(
        and(
          eq(bookingCalendars.companyId, e.companyId),
          inArray(bookingCalendars.userId, b.hostUserIds.length ? b.hostUserIds : [-1]),
          eq(bookingCalendars.kind, "caldav"),
          sql`${bookingCalendars.writeUrl} is not null`,
        ),
      );
    const before = await db
      .select({ calendarId: bookingCalendarWrites.calendarId })
      .from(bookingCalendarWrites)
      .where(eq(bookingCalendarWrites.bookingId, b.id));
    const ids = [...new Set([...hostCals.map((c) => c.id), ...before.map((r) => r.calendarId)])];
    const now = deps.clock.now();
    for (const calendarId of ids)
      await db
        .insert(bookingCalendarWrites)
        .values({
          companyId: e.companyId,
          bookingId: b.id,
          calendarId,
          state: "pending",
          version: 1,
          attempts: 0,
          nextAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoUpdate({
          target: [bookingCalendarWrites.bookingId, bookingCalendarWrites.calendarId],
          set: {
            state: "pending",
            version: sql`${bookingCalendarWrites.version} + 1`,
            attempts: 0,
            nextAt: now,
            updatedAt: now,
          },
        });
  },
};

const due = (now: Date) => and(eq(bookingCalendarWrites.state, "pending"), lte(bookingCalendarWrites.nextAt, now));

/** Works the due rows of the outbox; returns how many it finished (done or failed). */
export async function writeDue(deps: Deps): Promise<number> {
  const db = deps.db;
  const now = deps.clock.now();
  const rows = await db.select().from(bookingCalendarWrites).where(due(now)).limit(BATCH);
  let finished = 0;
  for (const r of rows) {
    const [c] = await db.select().from(bookingCalendars).where(eq(bookingCalendars.id, r.calendarId)).limit(1);
    const [b] = await db.select().from(bookings).where(eq(bookings.id, r.bookingId)).limit(1);
    if (!c || !b) continue; // cascades remove the row with either
    const mine = and(eq(bookingCalendarWrites.id, r.id), eq(bookingCalendarWrites.version, r.version));
    try {
      const action = await writeOne(deps, c, b);
      const at = deps.clock.now();
      await db
        .update(bookingCalendarWrites)
        .set({ state: "done", lastAction: action, lastError: null, updatedAt: at })
        .where(mine);
      finished++;
    } catch (e) {
      const error = e instanceof FeedError ? e.message : "the write failed";
      const at = deps.clock.now();
      const attempts = r.attempts + 1;
      const giveUp = attempts > RETRY_DELAYS_MS.length;
      await db
        .update(bookingCalendarWrites)
        .set({
          state: giveUp ? "failed" : "pending",
          attempts,
          nextAt: new Date(at.getTime() + (RETRY_DELAYS_MS[attempts - 1] ?? 0)),
          lastError: error,
          updatedAt: at,
        })
        .where(mine);
      await db
        .update(bookingCalendars)
        .set({ lastError: `writing booking ${b.uid.slice(0, 8)}…: ${error}`, lastErrorAt: at })
        .where(eq(bookingCalendars.id, c.id));
      if (giveUp) finished++;
    }
  }
  return finished;
}

export const calendarWriteJob: JobDef = {
  name: "bookings.calendar_writes",
  description: "Writes bookings, moves and cancellations into hosts' CalDAV calendars, with retries.",
  everyMs: 15_000,
  pending: (deps) =>
    anyRow(
      deps.db
        .select({ id: bookingCalendarWrites.id })
        .from(bookingCalendarWrites)
        .where(due(deps.clock.now()))
        .limit(1),
    ),
  run: async (deps) => {
    while ((await writeDue(deps)) >= BATCH) {}
  },
};
