/**
 * Business-time arithmetic against hand-computed instants: weekends, DST
 * changes in both directions and both hemispheres of the Atlantic, holidays,
 * split days, pauses, the exact close of a window.
 */
import { describe, expect, test } from "bun:test";
import { addWorkingTime, isTimeZone, parseWeekHours, type Schedule } from "../../src/domains/tickets/business-time";

const H = 3_600_000;
const M = 60_000;
const nineToFive = {
  mon: ["09:00-17:00"],
  tue: ["09:00-17:00"],
  wed: ["09:00-17:00"],
  thu: ["09:00-17:00"],
  fri: ["09:00-17:00"],
};
const sched = (
  timeZone: string,
  hours: Record<string, string[]> | null = nineToFive,
  holidays: string[] = [],
): Schedule => ({
  timeZone,
  hours: hours ? parseWeekHours(hours) : null,
  holidays: new Set(holidays),
});
const at = (iso: string) => Date.parse(iso);
const add = (start: string, ms: number, s: Schedule, pauses: [string, string][] = []) =>
  new Date(
    addWorkingTime(
      at(start),
      ms,
      s,
      pauses.map(([a, b]) => [at(a), at(b)]),
    ),
  ).toISOString();

describe("business hours across a weekend and a DST change", () => {
  test("Berlin: Fri 15:00 CET + 8 business hours = Mon 15:00 CEST (clocks went forward on Sunday)", () => {
    // Fri 28 Mar 2025 15:00 CET is 14:00Z. Friday gives 15:00–17:00 (2 h); Mon 31 Mar opens 09:00 CEST = 07:00Z; 6 h more → 13:00Z.
    expect(add("2025-03-28T14:00:00Z", 8 * H, sched("Europe/Berlin"))).toBe("2025-03-31T13:00:00.000Z");
  });

  test("New York: Fri 16:00 EDT + 4 business hours = Mon 12:00 EST (clocks went back on Sunday)", () => {
    // Fri 31 Oct 2025 16:00 EDT = 20:00Z: 1 h on Friday; Mon 3 Nov 09:00 EST = 14:00Z; 3 h more → 17:00Z.
    expect(add("2025-10-31T20:00:00Z", 4 * H, sched("America/New_York"))).toBe("2025-11-03T17:00:00.000Z");
  });

  test("a local 09:00-17:00 day keeps its 8 hours on both sides of the change; in UTC it moves by an hour", () => {
    const s = sched("Europe/Berlin");
    expect(add("2025-03-28T08:00:00Z", 8 * H, s)).toBe("2025-03-28T16:00:00.000Z"); // Fri 09–17 CET
    expect(add("2025-03-31T07:00:00Z", 8 * H, s)).toBe("2025-03-31T15:00:00.000Z"); // Mon 09–17 CEST
  });

  test("round-the-clock hours count the real 23-hour day of spring forward", () => {
    const every = Object.fromEntries(
      ["mon", "tue", "wed", "thu", "fri", "sat", "sun"].map((d) => [d, ["00:00-24:00"]]),
    );
    // Sat 29 Mar 12:00 CET = 11:00Z: 12 h to Saturday's midnight (23:00Z); Sunday's 00:00–24:00 lasts 23 h; 12 h into it = Sun 11:00Z (13:00 CEST).
    expect(add("2025-03-29T11:00:00Z", 24 * H, sched("Europe/Berlin", every))).toBe("2025-03-30T11:00:00.000Z");
  });

  test("hours that include the skipped hour: Sunday 01:00-04:00 in New York is 2 real hours on 9 March 2025", () => {
    const s = sched("America/New_York", { sun: ["01:00-04:00"] });
    // 01:00 EST = 06:00Z to 04:00 EDT = 08:00Z (2 h); 150 min needs 30 more: Sun 16 Mar 01:00 EDT = 05:00Z → 05:30Z.
    expect(add("2025-03-09T06:00:00Z", 150 * M, s)).toBe("2025-03-16T05:30:00.000Z");
  });

  test("calendar hours (24/7) are plain elapsed time, whatever the zone", () => {
    expect(add("2025-03-29T12:00:00Z", 24 * H, sched("Europe/Berlin", null))).toBe("2025-03-30T12:00:00.000Z");
  });
});

describe("edges", () => {
  const utc = sched("UTC");

  test("a duration that ends exactly at the close is due at the close, not the next morning", () => {
    expect(add("2025-01-13T09:00:00Z", 8 * H, utc)).toBe("2025-01-13T17:00:00.000Z");
    expect(add("2025-01-13T09:00:00Z", 8 * H + 1, utc)).toBe("2025-01-14T09:00:00.001Z");
  });

  test("starting outside hours counts from the next opening", () => {
    expect(add("2025-01-18T10:00:00Z", 1 * H, utc)).toBe("2025-01-20T10:00:00.000Z"); // Saturday → Monday 09:00 + 1 h
    expect(add("2025-01-13T18:30:00Z", 30 * M, utc)).toBe("2025-01-14T09:30:00.000Z"); // after close → next morning
  });

  test("holidays are skipped (local dates)", () => {
    // Wed 24 Dec 2025 16:00 CET = 15:00Z: 1 h; 25th, 26th holidays, weekend; Mon 29 Dec 09:00 CET = 08:00Z + 1 h.
    expect(add("2025-12-24T15:00:00Z", 2 * H, sched("Europe/Berlin", nineToFive, ["2025-12-25", "2025-12-26"]))).toBe(
      "2025-12-29T09:00:00.000Z",
    );
  });

  test("split days (a lunch break) count only the open intervals", () => {
    const s = sched("UTC", { mon: ["09:00-12:00", "13:00-17:00"] });
    expect(add("2025-01-13T11:00:00Z", 2 * H, s)).toBe("2025-01-13T14:00:00.000Z");
  });

  test("paused stretches do not count, inside a day and across a night", () => {
    expect(add("2025-01-13T09:00:00Z", 8 * H, utc, [["2025-01-13T11:00:00Z", "2025-01-13T13:00:00Z"]])).toBe(
      "2025-01-14T11:00:00.000Z",
    );
    expect(add("2025-01-13T09:00:00Z", 8 * H, utc, [["2025-01-13T16:00:00Z", "2025-01-14T10:00:00Z"]])).toBe(
      "2025-01-14T11:00:00.000Z",
    );
    expect(
      add("2025-01-13T09:00:00Z", 8 * H, sched("UTC", null), [["2025-01-13T10:00:00Z", "2025-01-13T12:00:00Z"]]),
    ).toBe("2025-01-13T19:00:00.000Z");
  });
});

describe("validation", () => {
  test("weekly hours: format, order, overlap, at least one interval", () => {
    expect(() => parseWeekHours({ mon: ["9-17"] })).toThrow('must read "HH:MM-HH:MM"');
    expect(() => parseWeekHours({ mon: ["17:00-09:00"] })).toThrow("ends before it starts");
    expect(() => parseWeekHours({ mon: ["09:00-12:00", "11:00-13:00"] })).toThrow("overlap");
    expect(() => parseWeekHours({})).toThrow("at least one interval");
    expect(() => parseWeekHours({ xyz: ["09:00-10:00"] } as never)).toThrow("is not a day");
    expect(parseWeekHours({ sun: ["00:00-24:00"] }).sun).toEqual([{ start: 0, end: 1440 }]);
  });

  test("time zones are IANA names", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
    expect(isTimeZone("Mars/Olympus")).toBe(false);
    expect(isTimeZone("'; drop table tickets; --")).toBe(false);
  });
});
