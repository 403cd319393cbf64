/**
 * Time logs: totals that roll up to the card, the sprint (the one the card
 * was in when the time was logged) and the project; filters; the timesheet
 * per member and date range; corrections; days counted in the project's
 * time zone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeWorld, type World } from "./world";

let w: World;
let sprint: number;
beforeAll(async () => {
  w = await makeWorld({ start: new Date("2026-03-04T23:30:00Z") });
  await w.call("projects_create", { name: "Retainer", key: "RET", timeZone: "Asia/Tokyo" });
  await w.call("projects_create", { name: "Launch", key: "LAU" });
  await w.call("cards_create", { projectId: "RET", title: "Monthly report", estimate: 3 });
  await w.call("cards_create", { projectId: "RET", title: "Bug fixes" });
  await w.call("cards_create", { projectId: "LAU", title: "Press kit" });
  sprint = (await w.call("sprints_create", { projectId: "RET", startDate: "2026-03-02", endDate: "2026-03-13" })).id;
  await w.call("sprint_cards_add", { sprintId: sprint, cardIds: ["RET-1"] });
});
afterAll(() => w.close());

describe("logging and totals", () => {
  test("workedOn defaults to today in the project's zone (Tokyo is already on the 5th)", async () => {
    const r = await w.call("time_logs_create", { cardId: "RET-1", minutes: 90, note: "Draft" });
    expect(r).toMatchObject({
      cardKey: "RET-1",
      user: "ada@acme.test",
      minutes: 90,
      workedOn: "2026-03-05",
      billable: true,
      cardTotalMinutes: 90,
    });
  });

  test("totals roll up: card, sprint (as logged), project; billable apart", async () => {
    await w.call("time_logs_create", {
      cardId: "RET-1",
      minutes: 30,
      workedOn: "2026-03-03",
      userId: "priya@acme.test",
      billable: false,
    });
    await w.call("time_logs_create", { cardId: "RET-2", minutes: 45, workedOn: "2026-03-04", userId: w.users.priya });
    await w.call("time_logs_create", {
      cardId: "LAU-1",
      minutes: 120,
      workedOn: "2026-03-04",
      userId: "priya@acme.test",
    });
    // RET-1 leaves the sprint: time logged while it was in stays on the sprint.
    await w.call("sprint_cards_remove", { sprintId: sprint, cardIds: ["RET-1"] });
    await w.call("time_logs_create", { cardId: "RET-1", minutes: 15, workedOn: "2026-03-05" });

    expect((await w.call("cards_get", { id: "RET-1" })).timeLogged).toEqual({ minutes: 135, billableMinutes: 105 });
    expect((await w.call("sprints_get", { id: sprint })).timeLogged).toEqual({ minutes: 120, billableMinutes: 90 });
    expect((await w.call("projects_get", { id: "RET" })).timeLogged).toEqual({ minutes: 180, billableMinutes: 150 });
    expect((await w.call("time_logs_list", { projectId: "RET" })).totals).toEqual({
      minutes: 180,
      billableMinutes: 150,
      hours: 3,
    });
    expect((await w.call("time_logs_list", { userId: "priya@acme.test", billable: true })).totals.minutes).toBe(165);
    expect((await w.call("time_logs_list", { sprintId: sprint })).total).toBe(2);
    const list = await w.call("time_logs_list", { cardId: "RET-1", from: "2026-03-04" });
    expect(list.items.map((l: any) => [l.workedOn, l.minutes, l.user])).toEqual([
      ["2026-03-05", 15, "Ada Owner"],
      ["2026-03-05", 90, "Ada Owner"],
    ]);
  });

  test("timesheet per member and date range, per day and per project", async () => {
    const t = await w.call("timesheet_get", { userId: "priya@acme.test", from: "2026-03-01", to: "2026-03-07" });
    expect(t.people).toEqual([
      {
        userId: w.users.priya,
        name: "Priya Shah",
        days: { "2026-03-03": 30, "2026-03-04": 165 },
        projects: { LAU: 120, RET: 75 },
        minutes: 195,
        billableMinutes: 165,
        hours: 3.25,
      },
    ]);
    const all = await w.call("timesheet_get", { from: "2026-03-04", to: "2026-03-05", projectId: "RET" });
    expect(all.people.map((p: any) => [p.name, p.minutes])).toEqual([
      ["Ada Owner", 105],
      ["Priya Shah", 45],
    ]);
    expect(all.totals).toEqual({ minutes: 150, billableMinutes: 150 });
    expect(
      (await w.call("timesheet_get", { userId: "leo@acme.test", from: "2026-03-01", to: "2026-03-07" })).people,
    ).toEqual([
      { userId: w.users.leo, name: "Leo Martin", days: {}, projects: {}, minutes: 0, billableMinutes: 0, hours: 0 },
    ]);
    expect((await w.err("timesheet_get", { from: "2026-01-01", to: "2026-06-01" })).message).toBe(
      "A timesheet covers at most 92 days; this asks for 152.",
    );
    expect((await w.err("timesheet_get", { from: "2026-03-05", to: "2026-03-01" })).message).toBe(
      "to must be on or after from.",
    );
  });

  test("corrections and refusals", async () => {
    const log = await w.call("time_logs_create", { cardId: "RET-2", minutes: 60 });
    expect(await w.call("time_logs_update", { id: log.id, minutes: 50, billable: false, note: null })).toMatchObject({
      minutes: 50,
      billable: false,
    });
    expect(await w.call("time_logs_delete", { id: log.id })).toEqual({ id: log.id, status: "deleted" });
    expect((await w.err("time_logs_create", { cardId: "RET-2", minutes: 0 })).code).toBe("validation");
    expect((await w.err("time_logs_create", { cardId: "RET-2", minutes: 24 * 60 + 1 })).code).toBe("validation");
    expect(
      (await w.err("time_logs_create", { cardId: "RET-2", minutes: 10, workedOn: "2026-04-01" })).message,
    ).toContain("future");
    expect(
      (await w.err("time_logs_create", { cardId: "RET-2", minutes: 10, userId: "mallory@rival.test" })).message,
    ).toContain("not a member");
    const theirs = await w.call("projects_create", { name: "Theirs", key: "THR" }, w.ctx({ company: "other" }));
    await w.call("cards_create", { projectId: theirs.id, title: "t" }, w.ctx({ company: "other" }));
    const foreign = await w.call("time_logs_create", { cardId: "THR-1", minutes: 5 }, w.ctx({ company: "other" }));
    expect((await w.err("time_logs_update", { id: foreign.id, minutes: 6 })).message).toBe(
      `Time log ${foreign.id} not found.`,
    );
    expect((await w.call("time_logs_list", {})).items.some((l: any) => l.id === foreign.id)).toBe(false);
  });
});
