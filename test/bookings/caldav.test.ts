/**
 * CalDAV accounts against a real CalDAV server (Debian's Radicale on
 * loopback, started here), over a real Plinth server and MCP client: the
 * account's events make its member busy; a booking is written to the
 * chosen calendar (UID = the booking's invite UID), moved when the booking
 * is rescheduled and removed when it is cancelled, through the outbox and
 * its job, with retries when the server refuses; Plinth's own events read
 * back do not block twice; the password is sealed, never returned, and in
 * no table in the clear.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ManualClock } from "../../src/core/clock";
import { aiToolCalls } from "../../src/domains/ai/tables";
import { RETRY_DELAYS_MS } from "../../src/domains/bookings/caldav";
import { bookingCalendars, bookingCalendarWrites } from "../../src/domains/bookings/tables";
import { caughtUp } from "../automations/settle";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, tableNames, type TestServer } from "../harness";
import { ensureDebianPackages, type RadicaleServer, SERVICE_PACKAGES, startRadicale } from "../infra/services";
import { writeCalendars } from "../jobs";

const NOW = Date.UTC(2030, 2, 4, 8, 0, 0); // Monday 4 March 2030, 08:00Z
const WEEK = ["09:00-17:00"];
const PASSWORD = "Tr0ub4dor-and-3-horses";
const EXTERNAL = `BEGIN:VCALENDAR\r
VERSION:2.0\r
PRODID:-//Plinth test//EN\r
BEGIN:VEVENT\r
UID:dentist@test\r
DTSTAMP:20300101T000000Z\r
SUMMARY:Dentist\r
DTSTART:20300305T100000Z\r
DTEND:20300305T110000Z\r
END:VEVENT\r
END:VCALENDAR\r
`;

let rad: RadicaleServer;
let s: TestServer;
let w: World;
let slug = "";
let robin = "";
let me = 0;
let calendarId = 0;
const auth = `Basic ${Buffer.from(`ann:${PASSWORD}`).toString("base64")}`;
const dav = (path: string, init: RequestInit = {}) =>
  fetch(`${rad.url}${path}`, { ...init, headers: { authorization: auth, ...(init.headers ?? {}) } });

async function pump() {
  await caughtUp(s, ["bookings.calendar_writes"]);
  return await writeCalendars(s.deps);
}

beforeAll(async () => {
  await ensureDebianPackages([SERVICE_PACKAGES.radicale]);
  rad = await startRadicale();
  rad.addUser("ann", PASSWORD);
  expect((await dav("ann/work/", { method: "MKCALENDAR" })).status).toBe(201);
  expect((await dav("ann/personal/", { method: "MKCALENDAR" })).status).toBe(201);
  const put = await dav("ann/personal/dentist.ics", {
    method: "PUT",
    headers: { "content-type": "text/calendar" },
    body: EXTERNAL,
  });
  expect(put.status).toBe(201);
  s = await startTestServer({ seed: false, clock: new ManualClock(NOW), config: { webhooksAllowPrivate: true } });
  // The test drives the outbox itself; the background runner would race it for the rows.
  await s.jobs.stop();
  w = await makeWorld(s);
  me = (await w.ok(w.owner, "whoami", {})).userId;
  const colleague = (await w.ok(w.colleague, "whoami", {})).userId;
  for (const member of [me, colleague])
    await w.ok(w.owner, "booking_schedules_set", {
      member,
      timeZone: "UTC",
      weeklyHours: { mon: WEEK, tue: WEEK, wed: WEEK, thu: WEEK, fri: WEEK },
    });
  const p = await w.ok(w.owner, "booking_pages_create", { title: "CalDAV call", durations: [60], minNotice: 0 });
  await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
  slug = p.slug;
  const r = await w.ok(w.owner, "booking_pages_create", {
    title: "Either of us",
    durations: [60],
    minNotice: 0,
    hosts: [me, colleague],
    hostMode: "round_robin",
  });
  await w.ok(w.colleague, "approvals_approve", { id: r.approval.id });
  robin = r.slug;
}, 120_000);
afterAll(async () => {
  await s?.stop();
  await rad?.stop();
});

const free = async (from: string, to: string) =>
  (await w.ok(w.owner, "booking_availability_get", { pageSlug: slug, from, to })).slots.map((x: any) => x.startsAt);

/** The event file of a booking in ann's work calendar, or null. */
async function written(uid: string): Promise<string | null> {
  const r = await dav(`ann/work/${uid}.ics`);
  if (r.status === 404) return null;
  expect(r.status).toBe(200);
  return await r.text();
}

describe("a CalDAV account", () => {
  test("a wrong password or calendar is refused with a reason, and nothing is kept", async () => {
    const bad = await w.err(w.owner, "calendars_connect", {
      kind: "caldav",
      url: rad.url,
      username: "ann",
      password: "not-the-password",
    });
    expect(bad).toContain("refused the username or password");
    expect(bad).not.toContain("not-the-password");
    const which = await w.err(w.owner, "calendars_connect", {
      kind: "caldav",
      url: rad.url,
      username: "ann",
      password: PASSWORD,
      writeCalendar: "holidays",
    });
    expect(which).toContain('writeCalendar "holidays" is not one of the account\'s calendars');
    expect(which).not.toContain(PASSWORD);
    expect(await w.err(w.owner, "calendars_connect", { kind: "caldav", url: rad.url, username: "ann" })).toContain(
      "needs username and password",
    );
    expect((await w.ok(w.owner, "calendars_list", {})).items).toEqual([]);
  });

  test("connecting logs in, lists the calendars, keeps the password sealed; its events make the member busy", async () => {
    const c = await w.ok(w.owner, "calendars_connect", {
      kind: "caldav",
      url: rad.url,
      username: "ann",
      password: PASSWORD,
      writeCalendar: "work",
    });
    calendarId = c.id;
    expect(c).toMatchObject({ kind: "caldav", status: "ok", username: "ann", writeCalendar: `${rad.url}ann/work/` });
    expect(c.busyTimes).toBe(1);
    expect(JSON.stringify(c)).not.toContain(PASSWORD);
    const [row] = await s.deps.db.select().from(bookingCalendars).where(eq(bookingCalendars.id, calendarId));
    expect(row!.secret).toMatch(/^s1\./);
    const tue = await free("2030-03-05T09:00:00Z", "2030-03-05T12:00:00Z");
    expect(tue).toEqual(["2030-03-05T09:00:00.000Z", "2030-03-05T11:00:00.000Z"]);
  });

  let uid = "";
  test("a booking is written to the chosen calendar; Plinth's own event read back does not block twice", async () => {
    const b = await w.ok(w.owner, "bookings_create", {
      pageSlug: slug,
      startsAt: "2030-03-04T13:00:00Z",
      name: "Ada Lovelace",
      email: "ada@example.test",
    });
    uid = b.uid;
    expect(await written(uid)).toBeNull();
    expect(await pump()).toBe(1);
    const ics = (await written(uid))!;
    expect(ics).toContain(`UID:${uid}@`);
    expect(ics).toContain("DTSTART:20300304T130000Z");
    expect(ics).toContain("SUMMARY:CalDAV call: Ada Lovelace");
    expect(ics).not.toContain("METHOD:");
    expect(ics).not.toContain("ATTENDEE");
    expect((await dav("ann/personal/dentist.ics")).status).toBe(200);
    // Read back: the dentist only (the booking blocks through the booking itself).
    expect((await w.ok(w.owner, "calendars_check", { id: calendarId })).busyTimes).toBe(1);
    expect(await pump()).toBe(0);
  });

  test("a reschedule moves the event (same file, SEQUENCE 1); a cancellation removes it", async () => {
    await w.ok(w.owner, "bookings_reschedule", { uid, startsAt: "2030-03-06T15:00:00Z" });
    expect(await pump()).toBe(1);
    const ics = (await written(uid))!;
    expect(ics).toContain("DTSTART:20300306T150000Z");
    expect(ics).toContain("SEQUENCE:1");
    const listing = await (await dav("ann/work/", { method: "PROPFIND", headers: { depth: "1" } })).text();
    expect(listing.match(/\.ics</g)?.length).toBe(1);

    await w.ok(w.owner, "bookings_cancel", { uid, reason: "Ill" });
    expect(await pump()).toBe(1);
    expect(await written(uid)).toBeNull();
  });

  test("a write the server refuses is retried on the backoff and lands once it can; the calendar shows the error meanwhile", async () => {
    const b = await w.ok(w.owner, "bookings_create", {
      pageSlug: slug,
      startsAt: "2030-03-07T09:00:00Z",
      name: "Grace Hopper",
      email: "grace@example.test",
    });
    // The write calendar is gone from the server for a while.
    expect((await dav("ann/work/", { method: "DELETE" })).status).toBeLessThan(300);
    expect(await pump()).toBe(0);
    const [row] = await s.deps.db.select().from(bookingCalendarWrites).where(eq(bookingCalendarWrites.bookingId, b.id));
    expect(row).toMatchObject({ calendarId, state: "pending", attempts: 1 });
    expect(row!.lastError).toContain("PUT returned HTTP");
    const listed = (await w.ok(w.owner, "calendars_list", {})).items[0];
    expect(listed.status).toBe("failing");
    expect(listed.lastError).toContain("PUT returned HTTP");
    // Not due before its delay.
    expect(await pump()).toBe(0);
    expect((await dav("ann/work/", { method: "MKCALENDAR" })).status).toBe(201);
    s.clock.advance(RETRY_DELAYS_MS[0]! + 1000);
    expect(await pump()).toBe(1);
    expect(await written(b.uid)).toContain("DTSTART:20300307T090000Z");
  });

  test("a booking handed to another host leaves the former host's calendar", async () => {
    const b = await w.ok(w.owner, "bookings_create", {
      pageSlug: robin,
      startsAt: "2030-03-07T14:00:00Z",
      name: "Hedy Lamarr",
      email: "hedy@example.test",
    });
    if (b.hostUserIds[0] !== me) await w.ok(w.owner, "bookings_reassign", { uid: b.uid, host: me });
    await pump();
    expect(await written(b.uid)).toContain("DTSTART:20300307T140000Z");
    const r = await w.ok(w.owner, "bookings_reassign", { uid: b.uid });
    expect(r.hostUserIds).not.toContain(me);
    expect(await pump()).toBe(1);
    expect(await written(b.uid)).toBeNull();
  });

  test("the password is in no tool result, no table in the clear, and not in AI history", async () => {
    for (const name of ["calendars_list", "integrations_list"])
      expect(JSON.stringify(await w.ok(w.owner, name, {}))).not.toContain(PASSWORD);
    expect(JSON.stringify(await w.ok(w.owner, "calendars_check", { id: calendarId }))).not.toContain(PASSWORD);
    // AI history recorded the connect call (its arguments redacted).
    const deadline = Date.now() + 5000;
    let calls: { tool: string }[] = [];
    while (Date.now() < deadline) {
      calls = await s.deps.db.select({ tool: aiToolCalls.tool }).from(aiToolCalls);
      if (calls.some((c) => c.tool === "calendars_connect")) break;
      await Bun.sleep(50);
    }
    expect(calls.some((c) => c.tool === "calendars_connect")).toBe(true);
    const b64 = Buffer.from(PASSWORD).toString("base64");
    for (const t of await tableNames(s.deps)) {
      const rows = await s.deps.store.query(`select * from ${t}`);
      const text = JSON.stringify(rows, (_k, v) => (v instanceof Uint8Array ? Buffer.from(v).toString("latin1") : v));
      expect({ table: t, found: text.includes(PASSWORD) || text.includes(b64) }).toEqual({ table: t, found: false });
    }
  });

  test("another company cannot see, check or disconnect it", async () => {
    expect(await w.err(w.stranger, "calendars_check", { id: calendarId })).toContain("not found");
    expect(await w.err(w.stranger, "calendars_disconnect", { id: calendarId })).toContain("not found");
    expect(
      (await w.ok(w.stranger, "integrations_list", {})).items.some((x: any) => x.kind === "booking_calendar"),
    ).toBe(false);
  });
});
