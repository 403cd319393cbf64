/**
 * Races, on this run's engine: on PostgreSQL through two instances on one
 * database (two pools, calls alternating between them); on SQLite through
 * one store (one process has one writer; bun:sqlite waits for a file lock
 * synchronously, so a second writer in the same process would block the
 * event loop its holder needs). 20 concurrent moves into one spot of a column, WIP limits under
 * concurrent moves, card numbers under concurrent creates, and the one
 * active sprint of a project.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ActorContext } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import { openStore } from "../../src/core/open";
import { AppError } from "../../src/core/errors";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { makeWorld, type World } from "./world";

let w: World;
let second: Store | null = null;
let dir: string;
let url: string | null;
/** The owner acting through the first or the second instance. */
let via: (i: number) => ActorContext;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "plinth-race-"));
  url = ON_PG ? await freshDatabaseUrl() : null;
  const open = async () => {
    const s = openStore(url ? { dataDir: ":memory:", databaseUrl: url } : { dataDir: dir });
    await s.migrate();
    return s;
  };
  w = await makeWorld({ store: await open() });
  if (ON_PG) {
    const s2 = (second = await open());
    const other = { ...w.deps, store: s2, db: s2.db };
    via = (i) => (i % 2 ? { ...w.ctx(), deps: other } : w.ctx());
  } else via = () => w.ctx();
  await w.call("projects_create", { name: "Race", key: "RACE" });
});
afterAll(async () => {
  await second?.close();
  await w.close();
  await dropDatabase(url);
  rmSync(dir, { recursive: true, force: true });
});

const settle = async <T>(ps: Promise<T>[]) => {
  const r = await Promise.allSettled(ps);
  for (const x of r) if (x.status === "rejected" && !(x.reason instanceof AppError)) throw x.reason;
  return r;
};

async function columnKeys(columnId: number): Promise<string[]> {
  const page = await w.call("cards_list", { columnId, limit: 100 });
  return page.items.map((c: any) => c.key);
}

describe("20 concurrent moves into one column", () => {
  test("each lands right after the anchor; the column keeps one total order with no ties", async () => {
    const cols = (await w.call("projects_get", { id: "RACE" })).boards[0].columns;
    const review = cols.find((c: any) => c.name === "In review").id;
    const anchor = (await w.call("cards_create", { projectId: "RACE", title: "Anchor", columnId: review })).key;
    const tail = (await w.call("cards_create", { projectId: "RACE", title: "Tail", columnId: review })).key;
    const movers: string[] = [];
    for (let i = 0; i < 20; i++)
      movers.push(
        (
          await w.call("cards_create", {
            projectId: "RACE",
            title: `Mover ${i}`,
            columnId: i % 2 ? "To do" : "In progress",
          })
        ).key,
      );

    const results = await settle(movers.map((id, i) => w.call("cards_move", { id, afterCardId: anchor }, via(i))));
    expect(results.filter((r) => r.status === "fulfilled").length).toBe(20);

    const order = await columnKeys(review);
    expect(order.length).toBe(22);
    expect(order[0]).toBe(anchor);
    expect(order[21]).toBe(tail);
    expect(new Set(order.slice(1, 21))).toEqual(new Set(movers));
    const positions = await w.store.query<{ position: number }>(
      "SELECT position FROM cards WHERE column_id = ? ORDER BY position",
      [review],
    );
    expect(new Set(positions.map((p) => Number(p.position))).size).toBe(22);
    expect(positions.every((p) => Number(p.position) > 0)).toBe(true);
    // Each move reported the index it got when it committed: right after the anchor.
    const indexes = results
      .map((r) => (r as PromiseFulfilledResult<any>).value.index)
      .sort((a: number, b: number) => a - b);
    expect(indexes).toEqual(Array(20).fill(1));
  });

  test("20 concurrent moves to the top and bottom of one column: all there, distinct positions", async () => {
    const cols = (await w.call("projects_get", { id: "RACE" })).boards[0].columns;
    const done = cols.find((c: any) => c.stateGroup === "done").id;
    const movers: string[] = [];
    for (let i = 0; i < 20; i++)
      movers.push((await w.call("cards_create", { projectId: "RACE", title: `Finisher ${i}` })).key);
    await settle(
      movers.map((id, i) => w.call("cards_move", { id, columnId: done, position: i % 2 ? "top" : "bottom" }, via(i))),
    );
    const order = await columnKeys(done);
    expect(new Set(order)).toEqual(new Set(movers));
    // Tops end up above bottoms.
    const tops = movers.filter((_, i) => i % 2);
    expect(new Set(order.slice(0, 10))).toEqual(new Set(tops));
  });
});

describe("WIP limits under concurrent moves", () => {
  test("a column with room for 2 takes exactly 2 of 10 racing cards; the others are refused with the reason", async () => {
    const col = await w.call("board_columns_create", {
      boardId: (await w.call("projects_get", { id: "RACE" })).boards[0].id,
      name: "QA",
      stateGroup: "started",
      wipLimit: 5,
    });
    for (let i = 0; i < 3; i++)
      await w.call("cards_create", { projectId: "RACE", title: `In QA ${i}`, columnId: col.id });
    const racers: string[] = [];
    for (let i = 0; i < 10; i++)
      racers.push((await w.call("cards_create", { projectId: "RACE", title: `Racer ${i}` })).key);
    const r = await settle(racers.map((id, i) => w.call("cards_move", { id, columnId: "QA" }, via(i))));
    const ok = r.filter((x) => x.status === "fulfilled");
    const refused = r.filter((x) => x.status === "rejected") as PromiseRejectedResult[];
    expect(ok.length).toBe(2);
    expect(refused.length).toBe(8);
    for (const x of refused) {
      expect(x.reason.code).toBe("conflict");
      expect(x.reason.message).toStartWith('Column "QA" is at its WIP limit: 5 of 5 cards');
    }
    expect((await columnKeys(col.id)).length).toBe(5);
  });

  test("a bulk move that would overflow is refused whole", async () => {
    const col = (await w.call("projects_get", { id: "RACE" })).boards[0].columns.find((c: any) => c.name === "QA");
    const keys = (
      await w.call("cards_list", { projectId: "RACE", search: "Racer", stateGroups: ["backlog"] })
    ).items.map((c: any) => c.key);
    const e = await w.err("cards_bulk_update", { ids: keys.slice(0, 2), columnId: col.id, priority: 1 });
    expect(e.message).toContain("2 more do not fit");
    expect((await w.call("cards_get", { id: keys[0] })).priority).toBe(0);
  });
});

describe("numbers and the active sprint", () => {
  test("30 concurrent creates get the numbers after the last one, each once", async () => {
    const before = (await w.call("cards_list", { projectId: "RACE", orderBy: "created", limit: 1 })).total as number;
    const r = await settle(
      Array.from({ length: 30 }, (_, i) => w.call("cards_create", { projectId: "RACE", title: `Burst ${i}` }, via(i))),
    );
    const keys = r.map((x) => (x as PromiseFulfilledResult<any>).value.key as string);
    const numbers = keys.map((k) => Number(k.split("-")[1])).sort((a, b) => a - b);
    expect(numbers).toEqual(Array.from({ length: 30 }, (_, i) => before + 1 + i));
  });

  test("two sprints started at once: one starts, the other is told which is active", async () => {
    const a = (await w.call("sprints_create", { projectId: "RACE", startDate: "2026-03-02", endDate: "2026-03-13" }))
      .id;
    const b = (await w.call("sprints_create", { projectId: "RACE", startDate: "2026-03-02", endDate: "2026-03-13" }))
      .id;
    const r = await settle([w.call("sprints_start", { id: a }, via(0)), w.call("sprints_start", { id: b }, via(1))]);
    expect(r.filter((x) => x.status === "fulfilled").length).toBe(1);
    const loser = r.find((x) => x.status === "rejected") as PromiseRejectedResult;
    expect(loser.reason.code).toBe("conflict");
    expect((await w.call("sprints_list", { projectId: "RACE", status: "active" })).total).toBe(1);
  });
});
