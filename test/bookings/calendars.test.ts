/**
 * Connected calendars over a real server and MCP client, against an ICS
 * feed this test serves on loopback: the busy times of a feed (a weekly
 * RRULE in Europe/Berlin with an EXDATE and a moved occurrence, across the
 * DST change; a weekly event in America/New_York, whose DST changes three
 * weeks earlier; a zone known only from the feed's VTIMEZONE; an all-day event; a UTC event; a floating time; a "show as
 * free" event) remove exactly their slots from a page's free times, on one-
 * host, round-robin and all-together pages; a feed that cannot be read
 * leaves its host no times and shows in calendars_list and integrations;
 * private addresses are refused when the guard is on; another company
 * sees none of it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { REFRESH_MS } from "../../src/domains/bookings/calendar-busy";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";

const NOW = Date.UTC(2030, 2, 4, 8, 0, 0); // Monday 4 March 2030, 08:00Z
const WEEK = ["09:00-17:00"];
const HOURS = { mon: WEEK, tue: WEEK, wed: WEEK, thu: WEEK, fri: WEEK };

const FEED = `BEGIN:VCALENDAR
VERSION:2.0
PRODID:-//Plinth test//EN
BEGIN:VTIMEZONE
TZID:W. Europe Standard Time
BEGIN:STANDARD
DTSTART:16010101T030000
TZOFFSETFROM:+0200
TZOFFSETTO:+0100
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=10
END:STANDARD
BEGIN:DAYLIGHT
DTSTART:16010101T020000
TZOFFSETFROM:+0100
TZOFFSETTO:+0200
RRULE:FREQ=YEARLY;BYDAY=-1SU;BYMONTH=3
END:DAYLIGHT
END:VTIMEZONE
BEGIN:VEVENT
UID:weekly-berlin@test
DTSTAMP:20300101T000000Z
SUMMARY:Team sync
DTSTART;TZID=Europe/Berlin:20300304T100000
DTEND;TZID=Europe/Berlin:20300304T110000
RRULE:FREQ=WEEKLY;COUNT=6
EXDATE;TZID=Europe/Berlin:20300311T100000
END:VEVENT
BEGIN:VEVENT
UID:weekly-berlin@test
DTSTAMP:20300101T000000Z
RECURRENCE-ID;TZID=Europe/Berlin:20300318T100000
SUMMARY:Team sync (moved)
DTSTART;TZID=Europe/Berlin:20300318T140000
DTEND;TZID=Europe/Berlin:20300318T150000
END:VEVENT
BEGIN:VEVENT
UID:weekly-ny@test
DTSTAMP:20300101T000000Z
SUMMARY:New York stand-up
DTSTART;TZID=America/New_York:20300305T090000
DTEND;TZID=America/New_York:20300305T093000
RRULE:FREQ=WEEKLY;BYDAY=TU;UNTIL=20300403T000000Z
END:VEVENT
BEGIN:VEVENT
UID:all-day@test
DTSTAMP:20300101T000000Z
SUMMARY:Offsite
DTSTART;VALUE=DATE:20300306
DTEND;VALUE=DATE:20300307
END:VEVENT
BEGIN:VEVENT
UID:utc@test
DTSTAMP:20300101T000000Z
SUMMARY:Dentist
DTSTART:20300305T123000Z
DTEND:20300305T131500Z
END:VEVENT
BEGIN:VEVENT
UID:floating@test
DTSTAMP:20300101T000000Z
SUMMARY:Gym
DTSTART:20300308T090000
DTEND:20300308T100000
END:VEVENT
BEGIN:VEVENT
UID:windows-zone@test
DTSTAMP:20300101T000000Z
SUMMARY:Outlook meeting
DTSTART;TZID=W. Europe Standard Time:20300307T110000
DTEND;TZID=W. Europe Standard Time:20300307T113000
END:VEVENT
BEGIN:VEVENT
UID:duration@test
DTSTAMP:20300101T000000Z
SUMMARY:Call with a length instead of an end
DTSTART:20300307T140000Z
DURATION:PT1H
END:VEVENT
BEGIN:VEVENT
UID:free@test
DTSTAMP:20300101T000000Z
SUMMARY:Focus (shown as free)
TRANSP:TRANSPARENT
DTSTART:20300307T090000Z
DTEND:20300307T120000Z
END:VEVENT
END:VCALENDAR
`.replace(/\n/g, "\r\n");

let s: TestServer;
let w: World;
let feed: ReturnType<typeof Bun.serve>;
let feedStatus = 200;
let feedHits = 0;
let me = 0;
let colleague = 0;
let single = "";
let robin = "";
let together = "";

const feedUrl = () => `http://127.0.0.1:${feed.port}/private/abcdef0123456789/basic.ics`;

beforeAll(async () => {
  feed = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch() {
      feedHits++;
      if (feedStatus !== 200) return new Response("unavailable", { status: feedStatus });
      return new Response(FEED, { headers: { "content-type": "text/calendar" } });
    },
  });
  s = await startTestServer({ seed: false, clock: new ManualClock(NOW), config: { webhooksAllowPrivate: true } });
  w = await makeWorld(s);
  me = (await w.ok(w.owner, "whoami", {})).userId;
  colleague = (await w.ok(w.colleague, "whoami", {})).userId;
  for (const member of [me, colleague])
    await w.ok(w.owner, "booking_schedules_set", { member, timeZone: "Europe/Berlin", weeklyHours: HOURS });
  const live = async (title: string, extra: Record<string, unknown>) => {
    const p = await w.ok(w.owner, "booking_pages_create", {
      title,
      durations: [60],
      minNotice: 0,
      timeZone: "Europe/Berlin",
      ...extra,
    });
    await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
    return p.slug as string;
  };
  single = await live("Calendar call", {});
  robin = await live("Either of us", { hosts: [me, colleague], hostMode: "round_robin" });
  together = await live("Both of us", { hosts: [me, colleague], hostMode: "collective" });
}, 60_000);
afterAll(async () => {
  feed?.stop(true);
  await s?.stop();
});

/** Free starts of a page over [from, to) as Berlin wall times "YYYY-MM-DD HH:MM", with the hosts when several. */
async function free(slug: string, from: string, to: string): Promise<string[]> {
  const r = await w.ok(w.owner, "booking_availability_get", { pageSlug: slug, from, to, timeZone: "Europe/Berlin" });
  const out: string[] = [];
  for (const [day, times] of Object.entries(r.days as Record<string, string[]>))
    for (const t of times) out.push(`${day} ${t}`);
  return out;
}

const WEEK1: [string, string] = ["2030-03-04T00:00:00Z", "2030-03-09T00:00:00Z"];
const WEEK4_5: [string, string] = ["2030-03-25T00:00:00Z", "2030-04-06T00:00:00Z"];
let before1: string[] = [];
let before45: string[] = [];
let calendarId = 0;

describe("busy times from an ICS feed", () => {
  test("connecting reads the feed once; the address is shown without its secret path", async () => {
    before1 = await free(single, ...WEEK1);
    before45 = await free(single, ...WEEK4_5);
    expect(before1.length).toBe(5 * 8); // 09:00–16:00 Berlin, Monday to Friday (now is 09:00 Berlin)
    const c = await w.ok(w.owner, "calendars_connect", { kind: "ics", url: feedUrl(), name: "Work" });
    calendarId = c.id;
    expect(c).toMatchObject({ userId: me, kind: "ics", name: "Work", status: "ok", lastError: null });
    expect(c.url).toBe(`http://127.0.0.1:${feed.port}/private/abc…`);
    expect(c.busyTimes).toBeGreaterThan(5);
    const list = await w.ok(w.owner, "calendars_list", {});
    expect(list.items.map((x: any) => x.id)).toEqual([calendarId]);
    expect(JSON.stringify(list)).not.toContain("abcdef0123456789");
  });

  test("exactly the feed's slots leave the one-host page: RRULE with EXDATE and a moved occurrence, TZIDs, all-day, UTC, floating", async () => {
    const after = await free(single, ...WEEK1);
    const gone = before1.filter((x) => !after.includes(x));
    expect(after.filter((x) => !before1.includes(x))).toEqual([]);
    expect(gone).toEqual([
      "2030-03-04 10:00", // weekly 10:00 Berlin
      "2030-03-05 13:00", // 12:30–13:15Z = 13:30–14:15 Berlin
      "2030-03-05 14:00",
      "2030-03-05 15:00", // 09:00 New York (EST) = 15:00 Berlin
      ...["09:00", "10:00", "11:00", "12:00", "13:00", "14:00", "15:00", "16:00"].map((t) => `2030-03-06 ${t}`), // all day
      "2030-03-07 11:00", // a zone named by the feed's own VTIMEZONE (Outlook's names are not IANA's)
      "2030-03-07 15:00", // DTSTART 14:00Z with DURATION PT1H
      "2030-03-08 09:00", // floating 09:00: the host's wall clock
    ]);
  });

  test("across the DST changes: New York moves first, Berlin a week later; the moved and excluded occurrences count", async () => {
    const mid = await free(single, "2030-03-11T00:00:00Z", "2030-03-23T00:00:00Z");
    // 11 March: excluded (EXDATE); 12 March: 09:00 EDT = 13:00Z = 14:00 Berlin (CET); 18 March moved to 14:00.
    expect(mid).toContain("2030-03-11 10:00");
    expect(mid).not.toContain("2030-03-12 14:00");
    expect(mid).toContain("2030-03-12 15:00");
    expect(mid).toContain("2030-03-18 10:00");
    expect(mid).not.toContain("2030-03-18 14:00");
    const after = await free(single, ...WEEK4_5);
    expect(before45.filter((x) => !after.includes(x))).toEqual([
      "2030-03-25 10:00", // 09:00Z (CET)
      "2030-03-26 14:00", // New York EDT, Berlin still CET: 13:00Z
      "2030-04-01 10:00", // 08:00Z (CEST): still 10:00 on the wall
      "2030-04-02 15:00", // 13:00Z, Berlin now CEST
    ]);
  });

  test("round robin offers a slot while another host is free; all together does not", async () => {
    const r = await w.ok(w.owner, "booking_availability_get", {
      pageSlug: robin,
      from: "2030-03-04T09:00:00Z",
      to: "2030-03-04T10:00:00Z",
    });
    expect(r.slots).toEqual([{ startsAt: "2030-03-04T09:00:00.000Z", hostUserIds: [colleague] }]);
    const c = await w.ok(w.owner, "booking_availability_get", {
      pageSlug: together,
      from: "2030-03-04T08:00:00Z",
      to: "2030-03-04T11:00:00Z",
    });
    expect(c.slots.map((x: any) => x.startsAt)).toEqual(["2030-03-04T08:00:00.000Z", "2030-03-04T10:00:00.000Z"]);
  });

  test("a busy time cannot be booked, and the round robin books the free host", async () => {
    const msg = await w.err(w.owner, "bookings_create", {
      pageSlug: single,
      startsAt: "2030-03-04T09:00:00Z",
      name: "Ada",
      email: "ada@example.test",
    });
    expect(msg).toContain("no longer available");
    const b = await w.ok(w.owner, "bookings_create", {
      pageSlug: robin,
      startsAt: "2030-03-04T09:00:00Z",
      name: "Ada",
      email: "ada@example.test",
    });
    expect(b.hostUserIds).toEqual([colleague]);
  });

  test("reads are cached: pages do not ask the feed again within the refresh", async () => {
    const hits = feedHits;
    await free(single, ...WEEK1);
    await free(robin, ...WEEK1);
    expect(feedHits).toBe(hits);
    s.clock.advance(REFRESH_MS + 1000);
    await free(single, ...WEEK1);
    expect(feedHits).toBe(hits + 1);
  });

  test("a feed that cannot be read leaves its host no times, never free times, and says so in calendars and integrations", async () => {
    feedStatus = 503;
    s.clock.advance(REFRESH_MS + 1000);
    expect(await free(single, ...WEEK1)).toEqual([]);
    // Round robin: the other host still has times; all together: none.
    const r = await w.ok(w.owner, "booking_availability_get", { pageSlug: robin, from: WEEK1[0], to: WEEK1[1] });
    expect(r.count).toBeGreaterThan(0);
    expect(r.slots.every((x: any) => x.hostUserIds.join() === String(colleague))).toBe(true);
    expect(await free(together, ...WEEK1)).toEqual([]);
    const list = await w.ok(w.owner, "calendars_list", { member: me });
    expect(list.items[0]).toMatchObject({ id: calendarId, status: "failing", lastError: "HTTP 503" });
    const ints = await w.ok(w.owner, "integrations_list", {});
    const mine = ints.items.find((x: any) => x.kind === "booking_calendar");
    expect(mine).toMatchObject({ id: calendarId, status: "failing" });
    expect(mine.health.lastError).toBe("HTTP 503");
    const checked = await w.ok(w.owner, "calendars_check", { id: calendarId });
    expect(checked).toMatchObject({ ok: false, error: "HTTP 503", busyTimes: null });

    feedStatus = 200;
    const ok = await w.ok(w.owner, "calendars_check", { id: calendarId });
    expect(ok).toMatchObject({ ok: true, status: "ok", lastError: null });
    expect(await free(single, ...WEEK1)).toContain("2030-03-04 11:00");
  });

  test("another company sees none of it; bad input is a clear error", async () => {
    expect(await w.err(w.stranger, "calendars_check", { id: calendarId })).toContain(
      `Calendar ${calendarId} not found`,
    );
    expect((await w.ok(w.stranger, "calendars_list", {})).items).toEqual([]);
    expect(await w.err(w.stranger, "calendars_disconnect", { id: calendarId })).toContain("not found");
    expect(await w.err(w.owner, "calendars_connect", { kind: "ics", url: "not a url" })).toContain("not a URL");
    expect(await w.err(w.owner, "calendars_connect", { kind: "ics", url: feedUrl() })).toContain(
      "already has this calendar",
    );
    feedStatus = 404;
    const bad = await w.err(w.owner, "calendars_connect", { kind: "ics", url: `${feedUrl()}?other=1` });
    expect(bad).toContain("Could not read the calendar");
    expect(bad).toContain("HTTP 404");
    feedStatus = 200;
  });

  test("disconnecting frees the host's times again", async () => {
    await w.ok(w.owner, "calendars_disconnect", { id: calendarId });
    // The clock has moved past Monday 09:00 Berlin since `before1` was read.
    expect(await free(single, ...WEEK1)).toEqual(before1.filter((x) => x !== "2030-03-04 09:00"));
    expect((await w.ok(w.owner, "calendars_list", {})).items).toEqual([]);
  });
});

describe("the address guard", () => {
  let guarded: TestServer;
  let g: World;
  beforeAll(async () => {
    guarded = await startTestServer({ seed: false, clock: new ManualClock(NOW) });
    g = await makeWorld(guarded);
  }, 30_000);
  afterAll(async () => {
    await guarded?.stop();
  });

  test("loopback, private and link-local feeds are refused unless private addresses are allowed", async () => {
    for (const url of [
      feedUrl(),
      "http://localhost:8080/a.ics",
      "http://10.1.2.3/cal.ics",
      "http://169.254.169.254/latest",
      "http://[::1]/x.ics",
    ]) {
      const msg = await g.err(g.owner, "calendars_connect", { kind: "ics", url });
      expect(msg).toContain("loopback or private address");
    }
    expect((await g.ok(g.owner, "calendars_list", {})).items).toEqual([]);
  });
});
