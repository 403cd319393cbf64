/**
 * The listing's fast local-time labels (a per-day offset memo) agree with
 * Intl at every quarter hour of a year, in zones with ordinary DST, none,
 * half-hour offsets, a 30-minute DST shift (Lord Howe) and transitions at
 * midnight (Santiago).
 */
import { expect, test } from "bun:test";
import { localDate, timeLabel } from "../../src/domains/bookings/render";

test("timeLabel and localDate match Intl across 2026 in seven zones", () => {
  const mismatches: string[] = [];
  for (const tz of [
    "Europe/Berlin",
    "America/New_York",
    "Asia/Kolkata",
    "Australia/Lord_Howe",
    "America/Santiago",
    "Asia/Tokyo",
    "UTC",
  ]) {
    const f = new Intl.DateTimeFormat("en-GB", {
      timeZone: tz,
      hour: "2-digit",
      minute: "2-digit",
      hourCycle: "h23",
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    for (let t = Date.UTC(2026, 0, 1); t < Date.UTC(2027, 0, 1); t += 15 * 60_000) {
      const p = Object.fromEntries(f.formatToParts(t).map((x) => [x.type, x.value]));
      const want = `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}`;
      const got = `${localDate(t, tz)} ${timeLabel(t, tz)}`;
      if (want !== got) mismatches.push(`${tz} ${new Date(t).toISOString()}: ${want} vs ${got}`);
    }
  }
  expect(mismatches.slice(0, 5)).toEqual([]);
});
