/**
 * What the hot read paths rely on (src/core/prepared.ts, src/core/changes.ts):
 * a prepared read sees the open transaction's own rows and never leaks them
 * outside it; a write in this process moves only the caches built from the
 * tables it wrote (a silent one none), while on SQLite a commit from another
 * connection still moves every cache.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { eq, sql } from "drizzle-orm";
import type { Store } from "../../src/core/db";
import { preparedRead } from "../../src/core/prepared";
import { companies } from "../../src/domains/accounts/tables";
import { sites } from "../../src/domains/sites/tables";
import { ON_PG, openTestStore } from "../db";

let store: Store;
let companyId: number;
let siteId: number;

const siteName = preparedRead<{ id: number }, { name: string }[]>("test_site_name", (db) =>
  db
    .select({ name: sites.name })
    .from(sites)
    .where(eq(sites.id, sql.placeholder("id"))),
);

beforeAll(async () => {
  store = await openTestStore();
  companyId = (await store.db.insert(companies).values({ name: "Hot Reads" }).returning({ id: companies.id }))[0]!.id;
  siteId = (await store.db.insert(sites).values({ companyId, name: "Before" }).returning({ id: sites.id }))[0]!.id;
});
afterAll(() => store.close());

test("a prepared read sees its transaction's own rows, and nothing uncommitted outside it", async () => {
  expect(await siteName(store, { id: siteId })).toEqual([{ name: "Before" }]);
  await expect(
    store.transaction(async (tx) => {
      await tx.update(sites).set({ name: "Inside" }).where(eq(sites.id, siteId));
      expect(await siteName(store, { id: siteId })).toEqual([{ name: "Inside" }]);
      throw new Error("roll back");
    }),
  ).rejects.toThrow("roll back");
  expect(await siteName(store, { id: siteId })).toEqual([{ name: "Before" }]);
  await store.transaction(
    async (tx) => void (await tx.update(sites).set({ name: "After" }).where(eq(sites.id, siteId))),
  );
  expect(await siteName(store, { id: siteId })).toEqual([{ name: "After" }]);
});

test("a write moves the caches of the tables it wrote, and a silent one moves none", async () => {
  const sitesWatch = store.changes.watch(["sites"]);
  const companiesWatch = store.changes.watch(["companies"]);
  sitesWatch.changed();
  companiesWatch.changed();
  await store.transaction(
    async (tx) => void (await tx.update(sites).set({ name: "Again" }).where(eq(sites.id, siteId))),
  );
  expect(sitesWatch.changed()).toBe(true);
  expect(companiesWatch.changed()).toBe(false);
  await store.transaction(
    async (tx) => void (await tx.update(companies).set({ name: "Quiet" }).where(eq(companies.id, companyId))),
    { silent: true },
  );
  expect(sitesWatch.changed()).toBe(false);
  expect(companiesWatch.changed()).toBe(false);
});

test.skipIf(ON_PG)("SQLite: a commit from another connection (a CLI beside the server) moves every cache", async () => {
  const watch = store.changes.watch(["companies"]);
  watch.changed();
  const other = new Database(store.sqlite!.filename);
  try {
    other.query("UPDATE sites SET name = 'Elsewhere' WHERE id = ?").run(siteId);
  } finally {
    other.close();
  }
  expect(watch.changed()).toBe(true);
  expect(await siteName(store, { id: siteId })).toEqual([{ name: "Elsewhere" }]);
});

test("a raw write that names its tables moves only their caches; bulkInsert stores what the builder stores", async () => {
  const { bulkInsert } = await import("../../src/core/bulk");
  const sitesWatch = store.changes.watch(["sites"]);
  const companiesWatch = store.changes.watch(["companies"]);
  sitesWatch.changed();
  companiesWatch.changed();
  await store.transaction(
    async () =>
      void (await bulkInsert(store, sites, [
        { companyId, name: "Bulk A", active: false },
        { companyId, name: "Bulk B" },
      ])),
  );
  expect(sitesWatch.changed()).toBe(true);
  expect(companiesWatch.changed()).toBe(false);
  // The same rows through the builder: every column reads back alike (booleans, defaults, timestamps).
  await store.db.insert(sites).values([
    { companyId, name: "Built A", active: false },
    { companyId, name: "Built B" },
  ]);
  const rows = await store.db.select().from(sites).where(eq(sites.companyId, companyId));
  const shape = (name: string) => {
    const {
      id,
      name: _n,
      createdAt,
      updatedAt,
      ...rest
    } = rows.find((r) => r.name === name)! as Record<string, unknown> & { createdAt: Date; updatedAt: Date };
    expect(createdAt).toBeInstanceOf(Date);
    expect(updatedAt).toBeInstanceOf(Date);
    return rest;
  };
  expect(shape("Bulk A")).toEqual(shape("Built A"));
  expect(shape("Bulk B")).toEqual(shape("Built B"));
  expect(shape("Bulk A").active).toBe(false);
  expect(shape("Bulk B").active).toBe(true);
});

test("bulkInsert writes a batch of any size in power-of-two chunks, every row once and in order", async () => {
  const { bulkInsert, chunkSize } = await import("../../src/core/bulk");
  expect([1, 2, 3, 127, 128, 129, 1000].map(chunkSize)).toEqual([1, 2, 2, 64, 128, 128, 128]);
  const other = (await store.db.insert(companies).values({ name: "Bulk chunks" }).returning({ id: companies.id }))[0]!
    .id;
  // 203 = 128 + 64 + 8 + 2 + 1: five shapes, each boundary crossed.
  const names = Array.from({ length: 203 }, (_, i) => `Chunk ${String(i).padStart(3, "0")}`);
  await store.transaction(async () => {
    await bulkInsert(
      store,
      sites,
      names.map((name, i) => ({ companyId: other, name, active: i % 2 === 0 })),
    );
    if (ON_PG) {
      // The same connection as the inserts: each shape is a prepared statement there (QueryOptions.prepare).
      const prepared = await store.query<{ statement: string }>("SELECT statement FROM pg_prepared_statements");
      const shapes = prepared
        .filter((p) => p.statement.startsWith('insert into "sites"'))
        .map((p) => (p.statement.match(/\(\$/g) ?? []).length);
      expect(shapes.sort((a, b) => a - b)).toEqual([1, 2, 8, 64, 128]);
    }
  });
  const rows = await store.db
    .select({ id: sites.id, name: sites.name, active: sites.active })
    .from(sites)
    .where(eq(sites.companyId, other))
    .orderBy(sites.id);
  expect(rows.map((r) => r.name)).toEqual(names);
  expect(rows.map((r) => r.active)).toEqual(names.map((_, i) => i % 2 === 0));
});

test.skipIf(ON_PG)("SQLite: a raw write that names no table moves every cache", async () => {
  const watch = store.changes.watch(["companies"]);
  watch.changed();
  await store.query("UPDATE sites SET name = 'Raw' WHERE id = ?", [siteId]);
  expect(watch.changed()).toBe(true);
});
