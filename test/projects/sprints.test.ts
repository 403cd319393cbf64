/**
 * Sprint maths against hand-computed cases: committed at start, completed
 * at close, carry-over, burndown per day from the history (scope changes,
 * re-estimates, cancellations, deletions mid-sprint), days in a project's
 * time zone across a DST change, and velocity over the last sprints.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { makeWorld, type World } from "./world";

let w: World;
const at = (iso: string) => w.clock.set(new Date(iso));
const card = async (title: string, estimate?: number) =>
  (await w.call("cards_create", { projectId: "WEB", title, ...(estimate !== undefined ? { estimate } : {}) }))
    .key as string;

let s1: number, s2: number, s3: number;
let A: string, B: string, C: string, D: string, E: string, F: string, G: string;

beforeAll(async () => {
  w = await makeWorld({ start: new Date("2026-02-27T10:00:00Z") });
  await w.call("projects_create", { name: "Website", key: "WEB" });
  A = await card("A", 3);
  B = await card("B", 5);
  C = await card("C", 2);
  D = await card("D", 8);
  E = await card("E");
  F = await card("F", 1);
  G = await card("G", 5);
  s1 = (
    await w.call("sprints_create", {
      projectId: "WEB",
      startDate: "2026-03-02",
      endDate: "2026-03-06",
      goal: "Launch the header",
    })
  ).id;
  s2 = (await w.call("sprints_create", { projectId: "WEB", startDate: "2026-03-09", endDate: "2026-03-13" })).id;
  s3 = (await w.call("sprints_create", { projectId: "WEB", startDate: "2026-03-16", endDate: "2026-03-20" })).id;
  await w.call("sprint_cards_add", { sprintId: s1, cardIds: [A, B, C, D, E] });

  // Sprint 1, Monday 2 March to Friday 6 March (UTC).
  at("2026-03-02T09:00:00Z");
  await w.call("sprints_start", { id: s1 });
  at("2026-03-02T15:00:00Z");
  await w.call("cards_move", { id: A, columnId: "done" });
  at("2026-03-03T10:00:00Z");
  await w.call("sprint_cards_add", { sprintId: s1, cardIds: [F] });
  at("2026-03-03T11:00:00Z");
  await w.call("cards_update", { id: B, estimate: 3 });
  at("2026-03-03T16:00:00Z");
  await w.call("cards_move", { id: C, columnId: "cancelled" });
  at("2026-03-04T12:00:00Z");
  await w.call("cards_move", { id: B, columnId: "done" });
  at("2026-03-05T09:30:00Z");
  await w.call("cards_move", { id: F, columnId: "done" });
  at("2026-03-05T14:00:00Z");
  await w.call("cards_delete", { id: E });
  at("2026-03-06T10:00:00Z");
  await w.call("cards_move", { id: D, columnId: "In review" });
});
afterAll(() => w.close());

describe("sprint 1: committed 18, completed 7, D carried over", () => {
  test("the active sprint's figures so far", async () => {
    at("2026-03-06T12:00:00Z");
    const s = await w.call("sprints_get", { id: s1 });
    // Scope now: A 3 (done), B 3 (done), D 8, F 1 (done); C cancelled, E deleted.
    expect(s).toMatchObject({
      status: "active",
      committedPoints: 18,
      scopePoints: 15,
      completedPoints: 7,
      remainingPoints: 8,
      scopeCards: 4,
      completedCards: 3,
    });
  });

  test("closing carries the unfinished card to the next planned sprint", async () => {
    at("2026-03-06T17:00:00Z");
    const closed = await w.call("sprints_close", { id: s1 });
    expect(closed).toMatchObject({
      status: "closed",
      committedPoints: 18,
      completedPoints: 7,
      carriedOver: { cards: [D], points: 8, to: { id: s2 } },
    });
    expect((await w.call("cards_get", { id: D })).sprint).toMatchObject({ id: s2 });
    // Done cards stay in the closed sprint.
    expect((await w.call("cards_get", { id: A })).sprint).toMatchObject({ id: s1 });
  });

  test("burndown per day, the last point at the close, carry-over not counted as done", async () => {
    const b = await w.call("sprints_burndown", { id: s1 });
    expect(b.committedPoints).toBe(18);
    expect(b.days).toBe(5);
    expect(
      b.points.map((p: any) => [
        p.date,
        p.at,
        p.scopePoints,
        p.completedPoints,
        p.remainingPoints,
        p.remainingCards,
        p.idealPoints,
      ]),
    ).toEqual([
      ["2026-03-02", "2026-03-03T00:00:00.000Z", 18, 3, 15, 4, 14.4],
      ["2026-03-03", "2026-03-04T00:00:00.000Z", 15, 3, 12, 4, 10.8],
      ["2026-03-04", "2026-03-05T00:00:00.000Z", 15, 6, 9, 3, 7.2],
      ["2026-03-05", "2026-03-06T00:00:00.000Z", 15, 7, 8, 1, 3.6],
      ["2026-03-06", "2026-03-06T17:00:00.000Z", 15, 7, 8, 1, 0],
    ]);
  });

  test("a closed sprint's figures do not move when its cards change later", async () => {
    at("2026-03-07T10:00:00Z");
    await w.call("cards_move", { id: A, columnId: "In progress" });
    const s = await w.call("sprints_get", { id: s1 });
    expect(s).toMatchObject({ committedPoints: 18, completedPoints: 7, remainingPoints: 8 });
    await w.call("cards_move", { id: A, columnId: "done" });
  });

  test("closed sprints cannot be reopened, started again or deleted", async () => {
    expect((await w.err("sprints_start", { id: s1 })).message).toContain("closed");
    expect((await w.err("sprints_delete", { id: s1 })).message).toContain("history");
    expect((await w.err("sprint_cards_add", { sprintId: s1, cardIds: [G] })).message).toContain("closed");
  });
});

describe("sprints 2 and 3, velocity", () => {
  test("sprint 2: D carried in, G added; closing to the backlog", async () => {
    await w.call("sprint_cards_add", { sprintId: s2, cardIds: [G] });
    at("2026-03-09T09:00:00Z");
    expect(await w.call("sprints_start", { id: s2 })).toMatchObject({ committedPoints: 13, cards: 2 });
    at("2026-03-10T11:00:00Z");
    await w.call("cards_move", { id: D, columnId: "done" });
    at("2026-03-13T17:00:00Z");
    const c = await w.call("sprints_close", { id: s2, carryOverTo: "backlog" });
    expect(c).toMatchObject({
      committedPoints: 13,
      completedPoints: 8,
      carriedOver: { cards: [G], points: 5, to: "backlog" },
    });
    expect((await w.call("cards_get", { id: G })).sprint).toBeNull();
  });

  test("sprint 3: a small sprint fully done", async () => {
    const H = await card("H", 2);
    await w.call("sprint_cards_add", { sprintId: s3, cardIds: [H] });
    at("2026-03-16T09:00:00Z");
    await w.call("sprints_start", { id: s3 });
    at("2026-03-17T09:00:00Z");
    await w.call("cards_move", { id: H, columnId: "done" });
    at("2026-03-20T17:00:00Z");
    expect(await w.call("sprints_close", { id: s3 })).toMatchObject({
      committedPoints: 2,
      completedPoints: 2,
      carriedOver: { cards: [], points: 0, to: "backlog" },
    });
  });

  test("velocity: the average completed over the last sprints", async () => {
    const v3 = await w.call("sprints_velocity", { projectId: "WEB" });
    expect(v3.sprints.map((s: any) => [s.id, s.committedPoints, s.completedPoints, s.carriedOverPoints])).toEqual([
      [s3, 2, 2, 0],
      [s2, 13, 8, 5],
      [s1, 18, 7, 8],
    ]);
    // (2 + 8 + 7) / 3 and (2 + 13 + 18) / 3
    expect(v3.velocity).toBe(5.67);
    expect(v3.averageCommitted).toBe(11);
    expect((await w.call("sprints_velocity", { projectId: "WEB", count: 2 })).velocity).toBe(5);
    expect((await w.call("sprints_velocity", { projectId: "WEB", count: 12 })).note).toBe(
      "Only 3 closed sprints so far.",
    );
  });
});

describe("rules", () => {
  test("one active sprint per project; only planned sprints start; dates in order", async () => {
    const a = (await w.call("sprints_create", { projectId: "WEB", startDate: "2026-03-23", endDate: "2026-03-27" })).id;
    const b = (await w.call("sprints_create", { projectId: "WEB", startDate: "2026-03-30", endDate: "2026-04-03" })).id;
    await w.call("sprints_start", { id: a });
    const e = await w.err("sprints_start", { id: b });
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(`already has an active sprint: ${a}`);
    expect(
      (await w.err("sprints_create", { projectId: "WEB", startDate: "2026-04-10", endDate: "2026-04-01" })).message,
    ).toContain("endDate");
    expect((await w.err("sprints_close", { id: b })).message).toContain("only the active sprint");
    expect((await w.err("sprints_delete", { id: a })).message).toContain("close it first");
  });

  test("a sprint holds only cards of its project", async () => {
    await w.call("projects_create", { name: "Brand", key: "BRD" });
    const other = (await w.call("cards_create", { projectId: "BRD", title: "Logo" })).key;
    const s = (await w.call("sprints_list", { projectId: "WEB", status: "active" })).items[0].id;
    const e = await w.err("sprint_cards_add", { sprintId: s, cardIds: [other] });
    expect(e.message).toBe(`${other} belongs to project BRD; sprint "Sprint 4" holds only cards of WEB.`);
    expect((await w.err("cards_update", { id: other, sprintId: s })).message).toContain(
      "is not a sprint of project BRD",
    );
  });

  test("a planned sprint's deletion sends its cards to the backlog", async () => {
    const s = (await w.call("sprints_create", { projectId: "WEB", startDate: "2026-05-04", endDate: "2026-05-08" })).id;
    const k = await card("Later", 1);
    await w.call("sprint_cards_add", { sprintId: s, cardIds: [k] });
    expect(await w.call("sprints_delete", { id: s })).toEqual({ id: s, status: "deleted", cardsMovedToBacklog: [k] });
    expect((await w.call("cards_get", { id: k })).sprint).toBeNull();
  });
});

describe("burndown days in the project's time zone, across a DST change", () => {
  test("America/New_York: days end at local midnight, 23 hours on 8 March", async () => {
    at("2026-03-06T12:00:00Z");
    await w.call("projects_create", { name: "Campaign", key: "NYC", timeZone: "America/New_York" });
    const k1 = (await w.call("cards_create", { projectId: "NYC", title: "One", estimate: 2 })).key;
    const k2 = (await w.call("cards_create", { projectId: "NYC", title: "Two", estimate: 3 })).key;
    const s = (await w.call("sprints_create", { projectId: "NYC", startDate: "2026-03-07", endDate: "2026-03-10" })).id;
    await w.call("sprint_cards_add", { sprintId: s, cardIds: [k1, k2] });
    at("2026-03-07T14:00:00Z");
    await w.call("sprints_start", { id: s });
    // 23:30 on 8 March in New York (EDT, UTC-4): still the 8th.
    at("2026-03-09T03:30:00Z");
    await w.call("cards_move", { id: k1, columnId: "done" });
    // 00:30 on 9 March local: the 9th.
    at("2026-03-09T04:30:00Z");
    await w.call("cards_move", { id: k2, columnId: "done" });
    at("2026-03-09T12:00:00Z");
    const b = await w.call("sprints_burndown", { id: s });
    expect(b.points.map((p: any) => [p.date, p.at, p.remainingPoints])).toEqual([
      ["2026-03-07", "2026-03-08T05:00:00.000Z", 5], // EST midnight
      ["2026-03-08", "2026-03-09T04:00:00.000Z", 3], // EDT midnight: the 8th had 23 hours
      ["2026-03-09", "2026-03-09T12:00:00.000Z", 0], // today: now
    ]);
    expect(b.points.map((p: any) => p.idealPoints)).toEqual([3.75, 2.5, 1.25]);
  });

  test("a planned sprint has no burndown yet, and says so", async () => {
    const s = (await w.call("sprints_create", { projectId: "NYC", startDate: "2026-04-01", endDate: "2026-04-05" })).id;
    const b = await w.call("sprints_burndown", { id: s });
    expect(b.points).toEqual([]);
    expect(b.committedPoints).toBeNull();
    expect(b.note).toContain("sprints_start");
  });
});
