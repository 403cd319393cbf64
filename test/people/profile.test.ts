/**
 * The profile toolset: the caller's own profile, for every member (a viewer
 * included), validated (IANA time zones, working hours), audited with no
 * company, and shown to the team (title, local time).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { auditLog, users } from "../../src/core/tables";
import { isWorkingTime, localClock, normaliseHours } from "../../src/domains/profile/hours";
import { callTool, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { makePeople, type People } from "./world";

let w: People;
beforeAll(async () => {
  w = await makePeople();
});
afterAll(() => w.stop());

const week = (start: string, end: string) =>
  Object.fromEntries(["mon", "tue", "wed", "thu", "fri"].map((d) => [d, [{ start, end }]]));

describe("profile_get / profile_update", () => {
  test("a viewer reads and changes their own profile; the team sees title and local time", async () => {
    w.s.clock.set(Date.parse("2026-07-01T12:00:00Z")); // a Wednesday; New York is on EDT (UTC−4)
    const before = await w.ok(w.viewer, "profile_get");
    expect(before).toMatchObject({
      userId: w.viewer.id,
      email: "vic@agency.example",
      name: "Vic Viewer",
      title: null,
      timeZone: null,
      workingHours: null,
      localTime: null,
    });
    const r = await w.ok(w.viewer, "profile_update", {
      name: "  Vic   Vega ",
      title: "Copywriter",
      timeZone: "America/New_York",
      workingHours: week("09:00", "17:00"),
    });
    expect(r).toEqual({
      userId: w.viewer.id,
      changed: ["name", "title", "timeZone", "workingHours"],
      status: "updated",
    });
    const after = await w.ok(w.viewer, "profile_get");
    expect(after).toMatchObject({
      name: "Vic Vega",
      title: "Copywriter",
      timeZone: "America/New_York",
      localTime: "08:00",
      workingNow: false,
    });
    expect(after.workingHours.mon).toEqual([{ start: "09:00", end: "17:00" }]);
    const vic = (await w.ok(w.owner, "team_members_list", { search: "vic@" })).items[0];
    expect(vic).toMatchObject({
      name: "Vic Vega",
      title: "Copywriter",
      timeZone: "America/New_York",
      localTime: "08:00",
      workingNow: false,
    });
    const audit = await w.s.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "profile.update"), eq(auditLog.userId, w.viewer.id)));
    expect(audit).toHaveLength(1);
    expect(audit[0]!.companyId).toBeNull();
    // null clears.
    await w.ok(w.viewer, "profile_update", { title: null, workingHours: null });
    expect(await w.ok(w.viewer, "profile_get")).toMatchObject({
      title: null,
      workingHours: null,
      timeZone: "America/New_York",
    });
  });

  test("time zones must be IANA names; stored as the runtime spells them", async () => {
    for (const tz of ["Mars/Olympus", "+05:00", "EST5EDT; DROP TABLE users", "Europe/", "Europe/Lisbon/../../x"])
      expect(await w.err(w.admin, "profile_update", { timeZone: tz })).toContain("IANA time zone");
    expect(await w.err(w.admin, "profile_update", { timeZone: "x".repeat(70) })).toContain("timeZone");
    await w.ok(w.admin, "profile_update", { timeZone: "utc" });
    expect((await w.ok(w.admin, "profile_get")).timeZone).toBe("UTC");
    await w.ok(w.admin, "profile_update", { timeZone: "" });
    expect((await w.ok(w.admin, "profile_get")).timeZone).toBeNull();
  });

  test("working hours are checked: weekdays, HH:MM, start before end, no overlap, at most 4 a day", async () => {
    const bad: [unknown, string][] = [
      [{ funday: [{ start: "09:00", end: "10:00" }] }, "not a weekday"],
      [{ mon: [{ start: "9:00", end: "10:00" }] }, "HH:MM"],
      [{ mon: [{ start: "25:00", end: "26:00" }] }, "from 00:00 to 24:00"],
      [{ mon: [{ start: "17:00", end: "09:00" }] }, "ends before it starts"],
      [
        {
          mon: [
            { start: "09:00", end: "12:00" },
            { start: "11:00", end: "13:00" },
          ],
        },
        "overlap",
      ],
      [{ mon: Array.from({ length: 5 }, (_, i) => ({ start: `0${i}:00`, end: `0${i}:30` })) }, "4"],
    ];
    for (const [workingHours, msg] of bad)
      expect(await w.err(w.admin, "profile_update", { workingHours })).toContain(msg);
    await w.ok(w.admin, "profile_update", {
      workingHours: {
        tue: [
          { start: "13:30", end: "24:00" },
          { start: "08:00", end: "12:00" },
        ],
      },
    });
    expect((await w.ok(w.admin, "profile_get")).workingHours).toEqual({
      tue: [
        { start: "08:00", end: "12:00" },
        { start: "13:30", end: "24:00" },
      ],
    });
    expect(await w.err(w.admin, "profile_update", {})).toContain("Nothing to change");
    expect(await w.err(w.admin, "profile_update", { title: "x".repeat(101) })).toContain("title");
  });

  test("notification preferences through the profile", async () => {
    await w.ok(w.admin, "profile_update", { notificationPreferences: [{ type: "card.assigned", email: false }] });
    const p = await w.ok(w.admin, "profile_get");
    expect(p.notificationPreferences.types.find((t: any) => t.type === "card.assigned")).toMatchObject({
      inApp: true,
      email: false,
      own: true,
    });
  });

  test("only profile scopes reach it; a credential without companies still has a profile", async () => {
    const u = (
      await w.s.deps.db
        .insert(users)
        .values({ email: "solo@agency.example", name: "Solo", createdAt: w.s.clock.now() })
        .returning()
    )[0]!;
    const c = await mcpClient(
      w.s.url,
      (await mintMcpKey(w.s.deps, { userId: u.id, scopes: ["profile:write"], companyIds: [] })).key,
    );
    expect(JSON.parse((await callTool(c, "profile_update", { title: "Freelancer" })).text).status).toBe("updated");
    expect(JSON.parse((await callTool(c, "profile_get")).text).title).toBe("Freelancer");
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain("profile_update");
    expect(names).not.toContain("notifications_list");
    const reader = await mcpClient(
      w.s.url,
      (await mintMcpKey(w.s.deps, { userId: u.id, scopes: ["profile:read"], companyIds: [] })).key,
    );
    expect((await reader.listTools()).tools.map((t) => t.name)).not.toContain("profile_update");
  });
});

describe("working time", () => {
  test("local clock and working time across a daylight-saving change (hand-checked instants)", () => {
    const hours = normaliseHours(week("09:00", "17:00"));
    const ny = { timeZone: "America/New_York", workingHours: hours };
    // 2026-03-06 (Friday) 13:59Z = 08:59 EST; 14:00Z = 09:00 EST.
    expect(localClock("America/New_York", new Date("2026-03-06T13:59:00Z"))).toMatchObject({
      day: "fri",
      text: "08:59",
    });
    expect(isWorkingTime(ny, new Date("2026-03-06T13:59:00Z"))).toBe(false);
    expect(isWorkingTime(ny, new Date("2026-03-06T14:00:00Z"))).toBe(true);
    // After the change on 2026-03-08, Monday 09:00 EDT is 13:00Z.
    expect(isWorkingTime(ny, new Date("2026-03-09T12:59:00Z"))).toBe(false);
    expect(isWorkingTime(ny, new Date("2026-03-09T13:00:00Z"))).toBe(true);
    // End is exclusive: 17:00 is off.
    expect(isWorkingTime(ny, new Date("2026-03-09T21:00:00Z"))).toBe(false);
    // Weekend.
    expect(isWorkingTime(ny, new Date("2026-03-07T15:00:00Z"))).toBe(false);
    // No hours or no time zone: always.
    expect(isWorkingTime({ timeZone: null, workingHours: hours }, new Date("2026-03-07T03:00:00Z"))).toBe(true);
  });
});
