/**
 * Racing agents on a real server over MCP (SQLite by default; PostgreSQL
 * under scripts/with-postgres.ts, where the writes really run in parallel
 * and SERIALIZABLE retries the losers): slide moves keep a consistent
 * order, racing publications and slug claims do not tear.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { row, startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { mcpClient, mintMcpKey } from "../fixtures/accounts";

let s: TestServer;
let w: World;
beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

test("40 concurrent slide moves from two agents leave one consistent order", async () => {
  const second = await mcpClient(
    s.url,
    (
      await mintMcpKey(s.deps, {
        userId: w.ownerUserId,
        scopes: ["decks:write"],
        companyIds: [w.A.id],
        name: "Second agent",
      })
    ).key,
  );
  const d = await w.ok(w.owner, "decks_create", {
    title: "Race",
    slides: Array.from({ length: 10 }, (_, i) => ({ layout: "title_body", content: { title: `S${i + 1}` } })),
  });
  const ids: number[] = d.slides.map((x: any) => x.id);
  const calls = Array.from({ length: 40 }, (_, i) =>
    w.call(i % 2 ? second : w.owner, "slides_move", {
      deckId: d.id,
      id: ids[(i * 7) % 10],
      position: 1 + ((i * 3) % 10),
    }),
  );
  const results = await Promise.all(calls);
  for (const r of results) expect(r.isError).toBe(false);
  const answers = results.map((r) => r.data as { revision: number; order: number[] });
  // Each move saw every earlier one: revisions 2..41, once each.
  expect(answers.map((a) => a.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 2));
  const g = await w.ok(w.owner, "decks_get", { id: d.id });
  expect(g.revision).toBe(41);
  expect(g.slides.map((x: any) => x.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  expect([...g.slides.map((x: any) => x.id)].sort((a: number, b: number) => a - b)).toEqual(
    [...ids].sort((a, b) => a - b),
  );
  // The final order is exactly what the last move reported.
  expect(g.slides.map((x: any) => x.id)).toEqual(answers.find((a) => a.revision === 41)!.order);
  // And each answer is the previous one with one slide moved.
  const byRev = new Map(answers.map((a) => [a.revision, a.order]));
  let prev = ids;
  for (let rev = 2; rev <= 41; rev++) {
    const cur = byRev.get(rev)!;
    const moved = prev.filter((id) => cur.indexOf(id) !== prev.indexOf(id));
    const rest = (o: number[], skip: number) => o.filter((x) => x !== skip);
    expect(
      moved.length === 0 || moved.some((m) => JSON.stringify(rest(prev, m)) === JSON.stringify(rest(cur, m))),
    ).toBe(true);
    prev = cur;
  }
}, 60_000);

test("racing adds at the same position each land, and positions stay 1..n", async () => {
  const d = await w.ok(w.owner, "decks_create", {
    title: "Adds",
    slides: [{ layout: "title", content: { title: "first" } }],
  });
  const results = await Promise.all(
    Array.from({ length: 12 }, (_, i) =>
      w.call(w.owner, "slides_add", {
        deckId: d.id,
        position: 1,
        slides: [{ layout: "title_body", content: { title: `n${i}` } }],
      }),
    ),
  );
  for (const r of results) expect(r.isError).toBe(false);
  const g = await w.ok(w.owner, "decks_get", { id: d.id });
  expect(g.slides.map((x: any) => x.position)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  expect(g.slides[12].title).toBe("first");
}, 60_000);

test("two decks racing for one chosen slug: exactly one gets it", async () => {
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) =>
      w.call(w.owner, "decks_create", { title: `Slug ${i}`, slug: "the-one-address" }),
    ),
  );
  expect(results.filter((r) => !r.isError)).toHaveLength(1);
  for (const r of results.filter((r) => r.isError))
    expect(r.text).toContain("The address /d/the-one-address is already taken");
}, 60_000);

test("racing publications of one unchanged deck: one version frozen, asked about again; only the newest link can be approved", async () => {
  const d = await w.ok(w.owner, "decks_create", {
    title: "Publish race",
    slides: [{ layout: "title", content: { title: "x" } }],
  });
  const results = await Promise.all(Array.from({ length: 6 }, () => w.call(w.owner, "decks_publish", { id: d.id })));
  for (const r of results) expect(r.isError).toBe(false);
  const versions = results.map((r) => r.data.version).sort((a: number, b: number) => a - b);
  // The draft never changes between them: each asks about version 1 again rather than freezing a copy.
  expect(versions).toEqual([1, 1, 1, 1, 1, 1]);
  expect(
    Number((await row<{ n: number }>(s.deps, "SELECT count(*) AS n FROM deck_versions WHERE deck_id = ?", d.id))!.n),
  ).toBe(1);
  const pending = (await w.ok(w.owner, "approvals_list", { entityType: "pitch_deck", status: "pending" })).items.filter(
    (a: any) => a.entityId === d.id,
  );
  expect(pending).toHaveLength(1);
}, 60_000);

test("a retried create with the same idempotencyKey makes one deck, racing or not", async () => {
  const args = {
    title: "Once",
    idempotencyKey: "3b1f6c1e-5a0e-4a49-9a55-0d2f3c9b1e77",
    slides: [{ layout: "title", content: { title: "Once" } }],
  };
  const results = await Promise.all(Array.from({ length: 5 }, () => w.call(w.owner, "decks_create", args)));
  for (const r of results) expect(r.isError).toBe(false);
  expect(new Set(results.map((r) => r.data.id)).size).toBe(1);
  expect(results.filter((r) => r.data.replayed === true)).toHaveLength(4);
  expect((await w.ok(w.owner, "decks_list", { search: "Once" })).total).toBe(1);
  expect(await w.err(w.owner, "decks_create", { ...args, title: "Other" })).toContain(
    "was already used with other arguments",
  );
}, 60_000);
