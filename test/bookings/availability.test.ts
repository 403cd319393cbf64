/**
 * Availability maths against cases computed by hand (the expected instants
 * below were worked out from the zones' published rules, not from the code):
 * two hosts in different zones, the DST weeks of Europe (last Sunday of March
 * and October) and the US (second Sunday of March, first of November),
 * buffers, minimum notice, the booking window, daily/weekly limits counted on
 * the host's calendar, date overrides and time off.
 */
import { describe, expect, test } from "bun:test";
import {
  computeSlots,
  type BusyTime,
  type HostSchedule,
  type SlotRules,
} from "../../src/domains/bookings/availability";

const Z = (s: string) => Date.parse(s);
const iso = (ms: number) => new Date(ms).toISOString().replace(":00.000Z", "Z");
const WEEKDAYS = {
  1: [[540, 1020]],
  2: [[540, 1020]],
  3: [[540, 1020]],
  4: [[540, 1020]],
  5: [[540, 1020]],
} as HostSchedule["weekly"];

function host(userId: number, timeZone: string, over: Partial<HostSchedule> = {}): HostSchedule {
  return { userId, timeZone, weekly: WEEKDAYS, overrides: {}, timeOff: [], busy: [], ...over };
}
function rules(over: Partial<SlotRules> = {}): SlotRules {
  return {
    durationMin: 60,
    intervalMin: 60,
    minNoticeMin: 0,
    bufferBeforeMin: 0,
    bufferAfterMin: 0,
    maxAdvanceDays: null,
    dailyLimit: null,
    weeklyLimit: null,
    mode: "single",
    gridTimeZone: "UTC",
    ...over,
  };
}
/** Slots of one UTC day, as "HH:MMZ" starts. */
function day(r: SlotRules, hosts: HostSchedule[], date: string, now = "2026-01-01T00:00:00Z") {
  return computeSlots(r, hosts, {
    from: Z(`${date}T00:00:00Z`),
    to: Z(`${date}T00:00:00Z`) + 86_400_000,
    now: Z(now),
  }).map((s) => iso(s.start).slice(11));
}
function busy(start: string, end: string, before = 0, after = 0, samePage = true): BusyTime {
  return {
    start: Z(start),
    end: Z(end),
    busyFrom: Z(start) - before * 60_000,
    busyUntil: Z(end) + after * 60_000,
    samePage,
  };
}

describe("one host, DST weeks", () => {
  test("Europe/Berlin: 09:00–17:00 stays 09:00 local across the March change (08:00Z before, 07:00Z after)", () => {
    expect(day(rules(), [host(1, "Europe/Berlin")], "2026-03-27")).toEqual([
      "08:00Z",
      "09:00Z",
      "10:00Z",
      "11:00Z",
      "12:00Z",
      "13:00Z",
      "14:00Z",
      "15:00Z",
    ]);
    expect(day(rules(), [host(1, "Europe/Berlin")], "2026-03-30")).toEqual([
      "07:00Z",
      "08:00Z",
      "09:00Z",
      "10:00Z",
      "11:00Z",
      "12:00Z",
      "13:00Z",
      "14:00Z",
    ]);
    // and back in October
    expect(day(rules(), [host(1, "Europe/Berlin")], "2026-10-23")).toEqual([
      "07:00Z",
      "08:00Z",
      "09:00Z",
      "10:00Z",
      "11:00Z",
      "12:00Z",
      "13:00Z",
      "14:00Z",
    ]);
    expect(day(rules(), [host(1, "Europe/Berlin")], "2026-10-26")).toEqual([
      "08:00Z",
      "09:00Z",
      "10:00Z",
      "11:00Z",
      "12:00Z",
      "13:00Z",
      "14:00Z",
      "15:00Z",
    ]);
  });

  test("America/New_York: 09:00 is 14:00Z before 8 March 2026 and 13:00Z after; back to 14:00Z after 1 November", () => {
    const ny = [host(1, "America/New_York")];
    expect(day(rules(), ny, "2026-03-06")[0]).toBe("14:00Z");
    expect(day(rules(), ny, "2026-03-09")[0]).toBe("13:00Z");
    expect(day(rules(), ny, "2026-10-30")[0]).toBe("13:00Z");
    expect(day(rules(), ny, "2026-11-02")[0]).toBe("14:00Z");
    expect(day(rules(), ny, "2026-11-02")).toHaveLength(8);
  });

  test("spring forward (Berlin, 29 March 2026, 02:00→03:00): 01:00–04:00 is two real hours; 02:00 is never offered", () => {
    const h = host(1, "Europe/Berlin", { weekly: { 7: [[60, 240]] } });
    const range = { from: Z("2026-03-28T12:00:00Z"), to: Z("2026-03-29T12:00:00Z"), now: Z("2026-03-01T00:00:00Z") };
    // 01:00 CET = 00:00Z; 03:00 CEST = 01:00Z; 04:00 CEST = 02:00Z ends the window.
    expect(computeSlots(rules(), [h], range).map((s) => iso(s.start))).toEqual([
      "2026-03-29T00:00Z",
      "2026-03-29T01:00Z",
    ]);
    // Half-hour steps fill the two real hours; the four wall times 02:00–02:30 do not exist.
    expect(computeSlots(rules({ durationMin: 30, intervalMin: 30 }), [h], range).map((s) => iso(s.start))).toEqual([
      "2026-03-29T00:00Z",
      "2026-03-29T00:30Z",
      "2026-03-29T01:00Z",
      "2026-03-29T01:30Z",
    ]);
    // Hours entirely inside the gap hold nothing.
    const gapOnly = host(1, "Europe/Berlin", { weekly: { 7: [[120, 180]] } });
    expect(computeSlots(rules({ durationMin: 15, intervalMin: 15 }), [gapOnly], range)).toEqual([]);
  });

  test("fall back (Berlin, 25 October 2026, 03:00→02:00): 01:00–04:00 offers 01:00, 02:00 (first occurrence) and 03:00 once each", () => {
    const h = host(1, "Europe/Berlin", { weekly: { 7: [[60, 240]] } });
    const slots = computeSlots(rules(), [h], {
      from: Z("2026-10-24T12:00:00Z"),
      to: Z("2026-10-25T12:00:00Z"),
      now: Z("2026-10-01T00:00:00Z"),
    });
    // 01:00 CEST = 23:00Z; 02:00 CEST = 00:00Z; (02:00 CET = 01:00Z is the same wall time again); 03:00 CET = 02:00Z.
    expect(slots.map((s) => iso(s.start))).toEqual(["2026-10-24T23:00Z", "2026-10-25T00:00Z", "2026-10-25T02:00Z"]);
    expect(new Set(slots.map((s) => s.start)).size).toBe(slots.length);
  });

  test("US fall back (New York, 1 November 2026): a 00:00–03:00 day has 00:00, 01:00 (EDT), 02:00 EST", () => {
    const h = host(1, "America/New_York", { weekly: { 7: [[0, 180]] } });
    const slots = computeSlots(rules(), [h], {
      from: Z("2026-11-01T00:00:00Z"),
      to: Z("2026-11-02T00:00:00Z"),
      now: Z("2026-10-01T00:00:00Z"),
    });
    // 00:00 EDT = 04:00Z, 01:00 EDT = 05:00Z, 02:00 EST = 07:00Z; the window ends 03:00 EST = 08:00Z.
    expect(slots.map((s) => iso(s.start))).toEqual(["2026-11-01T04:00Z", "2026-11-01T05:00Z", "2026-11-01T07:00Z"]);
  });

  test("US spring forward (New York, 8 March 2026): a 02:00–02:30 stretch exists on no clock and offers nothing", () => {
    const h = host(1, "America/New_York", { weekly: { 7: [[120, 150]] } });
    expect(
      computeSlots(rules({ durationMin: 30, intervalMin: 30 }), [h], {
        from: Z("2026-03-08T00:00:00Z"),
        to: Z("2026-03-09T00:00:00Z"),
        now: Z("2026-03-01T00:00:00Z"),
      }),
    ).toEqual([]);
  });
});

describe("two hosts in different zones", () => {
  const berlin = () => host(1, "Europe/Berlin");
  const ny = () => host(2, "America/New_York");

  test("all together: the shared hours move as each zone changes on its own date", () => {
    const r = rules({ mode: "collective", gridTimeZone: "Europe/Berlin" });
    // Tue 3 March: Berlin 08–16Z, NY (EST) 14–22Z → 14:00Z, 15:00Z.
    expect(day(r, [berlin(), ny()], "2026-03-03")).toEqual(["14:00Z", "15:00Z"]);
    // Tue 10 March: NY already on EDT (13–21Z), Berlin still CET (08–16Z) → three hours.
    expect(day(r, [berlin(), ny()], "2026-03-10")).toEqual(["13:00Z", "14:00Z", "15:00Z"]);
    // Tue 31 March: both on summer time: Berlin 07–15Z, NY 13–21Z → two hours again.
    expect(day(r, [berlin(), ny()], "2026-03-31")).toEqual(["13:00Z", "14:00Z"]);
    expect(
      computeSlots(r, [berlin(), ny()], { from: Z("2026-03-10T00:00:00Z"), to: Z("2026-03-11T00:00:00Z"), now: 0 })[0]!
        .hostUserIds,
    ).toEqual([1, 2]);
  });

  test("all together: one host's booking blocks the slot for the page", () => {
    const r = rules({ mode: "collective", gridTimeZone: "Europe/Berlin" });
    const b = berlin();
    b.busy = [busy("2026-03-10T14:00:00Z", "2026-03-10T15:00:00Z", 0, 0, false)];
    expect(day(r, [b, ny()], "2026-03-10")).toEqual(["13:00Z", "15:00Z"]);
  });

  test("round robin: the union of both hosts, each slot naming who is free", () => {
    const r = rules({ mode: "round_robin" });
    const slots = computeSlots(r, [berlin(), ny()], {
      from: Z("2026-03-10T00:00:00Z"),
      to: Z("2026-03-11T00:00:00Z"),
      now: 0,
    });
    // Berlin 08:00Z..15:00Z starts, NY 13:00Z..20:00Z starts; 13–15Z both.
    expect(slots.map((s) => `${iso(s.start).slice(11)}:${s.hostUserIds.join("+")}`)).toEqual([
      "08:00Z:1",
      "09:00Z:1",
      "10:00Z:1",
      "11:00Z:1",
      "12:00Z:1",
      "13:00Z:1+2",
      "14:00Z:1+2",
      "15:00Z:1+2",
      "16:00Z:2",
      "17:00Z:2",
      "18:00Z:2",
      "19:00Z:2",
      "20:00Z:2",
    ]);
  });

  test("round robin: a half-hour zone's grid joins the other's (Asia/Kolkata 09:00 = 03:30Z)", () => {
    const r = rules({ mode: "round_robin", durationMin: 60, intervalMin: 60 });
    const india = host(3, "Asia/Kolkata", { weekly: { 2: [[540, 720]] } });
    const utc = host(4, "UTC", { weekly: { 2: [[240, 420]] } });
    expect(day(r, [india, utc], "2026-03-10").length).toBe(6);
    expect(day(r, [india, utc], "2026-03-10")).toEqual(["03:30Z", "04:00Z", "04:30Z", "05:00Z", "05:30Z", "06:00Z"]);
  });
});

describe("bookings, buffers, notice, window", () => {
  const utc = (over: Partial<HostSchedule> = {}) => host(1, "UTC", over);

  test("buffers: a 10:00–11:00 booking with 15-minute buffers, and a page with 15-minute buffers", () => {
    const r = rules({ durationMin: 30, intervalMin: 30, bufferBeforeMin: 15, bufferAfterMin: 15 });
    const h = utc({ busy: [busy("2026-03-23T10:00:00Z", "2026-03-23T11:00:00Z", 15, 15)] });
    // 09:00 ok (its after-buffer ends 09:45, where the booking's before-buffer starts: buffers may touch);
    // 09:30 (its buffer runs into 10:00), 10:00, 10:30, 11:00 (buffer before from 10:45) are out; 11:30 ok.
    expect(day(r, [h], "2026-03-23").slice(0, 4)).toEqual(["09:00Z", "11:30Z", "12:00Z", "12:30Z"]);
    // Without page buffers, the booking's own buffers still keep 09:30 (ends 10:00 > 09:45) and 11:00 (starts < 11:15) away.
    expect(day(rules({ durationMin: 30, intervalMin: 30 }), [h], "2026-03-23").slice(0, 3)).toEqual([
      "09:00Z",
      "11:30Z",
      "12:00Z",
    ]);
  });

  test("an existing meeting keeps its own buffers when they differ from the page's", () => {
    // Booked elsewhere with 0 before / 30 after: busy 10:00–11:30. The page: 30 minutes every 15, 15 before / 0 after.
    // 09:30–10:00 ends as the meeting starts (no after-buffer of ours, none before theirs): ok. 09:45 overlaps it.
    // 11:15 starts inside its 30-minute after-buffer; 11:30 is free (our before-buffer may overlap their buffer).
    const r = rules({ durationMin: 30, intervalMin: 15, bufferBeforeMin: 15, bufferAfterMin: 0 });
    const h = utc({ busy: [busy("2026-03-23T10:00:00Z", "2026-03-23T11:00:00Z", 0, 30, false)] });
    expect(day(r, [h], "2026-03-23").slice(0, 6)).toEqual(["09:00Z", "09:15Z", "09:30Z", "11:30Z", "11:45Z", "12:00Z"]);
    // The other way round: the meeting has 30 before / 0 after (busy 09:30–11:00); the page 0 before / 15 after.
    // 09:00–09:30 touches its before-buffer: ok; 09:15 runs into it. 11:00 starts as it ends: ok.
    const r2 = rules({ durationMin: 30, intervalMin: 15, bufferBeforeMin: 0, bufferAfterMin: 15 });
    const h2 = utc({ busy: [busy("2026-03-23T10:00:00Z", "2026-03-23T11:00:00Z", 30, 0, false)] });
    expect(day(r2, [h2], "2026-03-23").slice(0, 3)).toEqual(["09:00Z", "11:00Z", "11:15Z"]);
  });

  test("buffers may reach outside working hours: the first slot is at the opening time", () => {
    expect(day(rules({ bufferBeforeMin: 30, bufferAfterMin: 30 }), [utc()], "2026-03-23")[0]).toBe("09:00Z");
  });

  test("the grid does not shift after an odd-length booking: 09:00–09:40 taken → next 10:00", () => {
    const h = utc({ busy: [busy("2026-03-23T09:00:00Z", "2026-03-23T09:40:00Z")] });
    expect(day(rules({ durationMin: 30, intervalMin: 30 }), [h], "2026-03-23").slice(0, 2)).toEqual([
      "10:00Z",
      "10:30Z",
    ]);
  });

  test("minimum notice: 60 minutes from 08:20 → the first start is 09:30 on a half-hour grid", () => {
    expect(
      day(
        rules({ durationMin: 30, intervalMin: 30, minNoticeMin: 60 }),
        [utc()],
        "2026-03-23",
        "2026-03-23T08:20:00Z",
      )[0],
    ).toBe("09:30Z");
    // Notice of a whole day moves past today
    expect(day(rules({ minNoticeMin: 24 * 60 }), [utc()], "2026-03-23", "2026-03-23T08:20:00Z")).toEqual([]);
    // Nothing in the past, even without notice
    expect(day(rules(), [utc()], "2026-03-23", "2026-03-23T12:10:00Z")[0]).toBe("13:00Z");
  });

  test("booking window: 2 days ahead from Monday 08:00 ends Wednesday 08:00", () => {
    const r = rules({ maxAdvanceDays: 2 });
    const now = "2026-03-23T08:00:00Z";
    expect(day(r, [utc()], "2026-03-24", now)).toHaveLength(8);
    expect(day(r, [utc()], "2026-03-25", now)).toEqual([]);
  });

  test("slot interval shorter than the meeting: overlapping starts every 15 minutes, the last ending at 17:00", () => {
    const s = day(rules({ durationMin: 60, intervalMin: 15 }), [utc()], "2026-03-23");
    expect(s[0]).toBe("09:00Z");
    expect(s[1]).toBe("09:15Z");
    expect(s[s.length - 1]).toBe("16:00Z");
    expect(s).toHaveLength(29);
  });
});

describe("limits, overrides, time off", () => {
  test("daily limit 2: a day with two bookings of this page closes; bookings of other pages do not count", () => {
    const h = host(1, "UTC", {
      busy: [
        busy("2026-03-23T09:00:00Z", "2026-03-23T10:00:00Z"),
        busy("2026-03-23T11:00:00Z", "2026-03-23T12:00:00Z"),
        busy("2026-03-24T09:00:00Z", "2026-03-24T10:00:00Z", 0, 0, false),
      ],
    });
    expect(day(rules({ dailyLimit: 2 }), [h], "2026-03-23")).toEqual([]);
    expect(day(rules({ dailyLimit: 2 }), [h], "2026-03-24")).toHaveLength(7);
  });

  test("weekly limit 3 (weeks start Monday): Mon 2 + Tue 1 closes the rest of the week; next Monday opens", () => {
    const h = host(1, "UTC", {
      busy: [
        busy("2026-03-23T09:00:00Z", "2026-03-23T10:00:00Z"),
        busy("2026-03-23T11:00:00Z", "2026-03-23T12:00:00Z"),
        busy("2026-03-24T09:00:00Z", "2026-03-24T10:00:00Z"),
      ],
    });
    const r = rules({ weeklyLimit: 3 });
    expect(day(r, [h], "2026-03-25")).toEqual([]);
    expect(day(r, [h], "2026-03-27")).toEqual([]);
    expect(day(r, [h], "2026-03-30")).toHaveLength(8);
  });

  test("limits count on the host's calendar: 16:00Z Monday is Tuesday 01:00 in Tokyo", () => {
    // Tokyo host working 00:00–03:00 and 09:00–12:00 local every day; daily limit 1.
    const all = [
      [0, 180],
      [540, 720],
    ] as [number, number][];
    const h = host(1, "Asia/Tokyo", {
      weekly: { 1: all, 2: all, 3: all },
      busy: [busy("2026-03-23T16:00:00Z", "2026-03-23T17:00:00Z")],
    });
    const r = rules({ dailyLimit: 1 });
    const slots = computeSlots(r, [h], { from: Z("2026-03-22T15:00:00Z"), to: Z("2026-03-25T15:00:00Z"), now: 0 }).map(
      (s) => iso(s.start),
    );
    // Monday 23 (JST) = 22 Mar 15:00Z .. 23 Mar 15:00Z: open (00:00–03:00 JST = 15:00–18:00Z on the 22nd; 09–12 JST = 00–03Z on the 23rd).
    expect(slots.filter((s) => s < "2026-03-23T15:00Z")).toEqual([
      "2026-03-22T15:00Z",
      "2026-03-22T16:00Z",
      "2026-03-22T17:00Z",
      "2026-03-23T00:00Z",
      "2026-03-23T01:00Z",
      "2026-03-23T02:00Z",
    ]);
    // Tuesday 24 (JST), which holds the booking, is closed.
    expect(slots.filter((s) => s >= "2026-03-23T15:00Z" && s < "2026-03-24T15:00Z")).toEqual([]);
    // Wednesday 25 (JST) is open again.
    expect(slots.filter((s) => s >= "2026-03-24T15:00Z")).toHaveLength(6);
  });

  test("a date override replaces the weekly hours; an empty one closes the day", () => {
    const h = host(1, "Europe/London", { overrides: { "2026-03-24": [[600, 720]], "2026-03-25": [] } });
    // London is on GMT until 29 March.
    expect(day(rules(), [h], "2026-03-24")).toEqual(["10:00Z", "11:00Z"]);
    expect(day(rules(), [h], "2026-03-25")).toEqual([]);
    // A Saturday override opens a day the weekly hours leave closed.
    const sat = host(1, "Europe/London", { overrides: { "2026-03-28": [[540, 660]] } });
    expect(day(rules(), [sat], "2026-03-28")).toEqual(["09:00Z", "10:00Z"]);
  });

  test("time off removes whole local days, inclusive, in the host's zone", () => {
    const h = host(1, "America/Los_Angeles", { timeOff: [{ start: "2026-03-24", end: "2026-03-25" }] });
    // LA is on PDT (UTC−7) since 8 March: 09:00 = 16:00Z.
    expect(day(rules(), [h], "2026-03-23")[0]).toBe("16:00Z");
    expect(
      computeSlots(rules(), [h], { from: Z("2026-03-24T07:00:00Z"), to: Z("2026-03-26T07:00:00Z"), now: 0 }),
    ).toEqual([]);
    expect(day(rules(), [h], "2026-03-26")[0]).toBe("16:00Z");
  });

  test("a round-robin slot stays while one host is free; it names only the free one", () => {
    const a = host(1, "UTC", { busy: [busy("2026-03-23T09:00:00Z", "2026-03-23T10:00:00Z")] });
    const b = host(2, "UTC");
    const first = computeSlots(rules({ mode: "round_robin" }), [a, b], {
      from: Z("2026-03-23T09:00:00Z"),
      to: Z("2026-03-23T10:00:00Z"),
      now: 0,
    });
    expect(first).toEqual([{ start: Z("2026-03-23T09:00:00Z"), end: Z("2026-03-23T10:00:00Z"), hostUserIds: [2] }]);
  });
});

test("three months for two hosts with 500 bookings: unique, ordered, inside hours, none overlapping a booking", () => {
  const hosts = [host(1, "Europe/Berlin"), host(2, "America/New_York")];
  const from = Z("2026-02-02T00:00:00Z");
  for (let i = 0; i < 500; i++) {
    const h = hosts[i % 2]!;
    const start = from + Math.floor(i / 2) * 8 * 3_600_000 + (i % 7) * 30 * 60_000;
    h.busy.push(busy(new Date(start).toISOString(), new Date(start + 30 * 60_000).toISOString(), 10, 10));
  }
  const r = rules({ mode: "round_robin", durationMin: 30, intervalMin: 15, bufferBeforeMin: 10, bufferAfterMin: 10 });
  const slots = computeSlots(r, hosts, { from, to: from + 91 * 86_400_000, now: from });
  expect(slots.length).toBeGreaterThan(1000);
  for (let i = 1; i < slots.length; i++) expect(slots[i]!.start).toBeGreaterThan(slots[i - 1]!.start);
  for (const s of slots)
    for (const id of s.hostUserIds) {
      const h = hosts[id - 1]!;
      for (const b of h.busy) {
        expect(s.start - 10 * 60_000 < b.end && b.start < s.end + 10 * 60_000).toBe(false);
      }
    }
});
