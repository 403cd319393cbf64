/**
 * Broad queries: a word in more records than search ranks (RANK_CANDIDATES)
 * answers from the newest matches with a capped total that says so; pages
 * stop there; narrower queries count exactly; prefix queries (whose
 * snippets take another path on SQLite) mark the words they matched.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { titleKey } from "../../src/domains/brain/kinds";
import { RANK_CANDIDATES } from "../../src/domains/brain/search-engine";
import { brainRecords } from "../../src/domains/brain/tables";
import { makeWorld, type World } from "./world";

let w: World;
const N = RANK_CANDIDATES + 50;

beforeAll(async () => {
  w = await makeWorld();
  const at = w.clock.now();
  // Written straight into the table in the verbs' shape (the index follows by trigger / generated column): 2,050 tool calls would take the test's whole budget.
  for (let i = 0; i < N; i += 500) {
    const rows = Array.from({ length: Math.min(500, N - i) }, (_, j) => {
      const n = i + j;
      const title = `Status report ${n}`;
      const body = n % 10 === 0 ? `Weekly campaign numbers for batch ${n}.` : `Weekly numbers for batch ${n}.`;
      return {
        companyId: w.companyId,
        kind: "note" as const,
        title,
        body,
        data: {},
        searchText: body,
        titleKey: titleKey(title),
        at,
        version: 1,
        createdByUserId: w.users.owner,
        updatedByUserId: w.users.owner,
        createdAt: at,
        updatedAt: at,
      };
    });
    await w.store.transaction(async (tx) => void (await tx.insert(brainRecords).values(rows)));
  }
});
afterAll(() => w.close());

describe("broad queries", () => {
  test("a word in every record: the newest are ranked, total capped and said", async () => {
    const r = await w.call("brain_search", { query: "weekly", limit: 5 });
    expect(r.total).toBe(RANK_CANDIDATES);
    expect(r.totalCapped).toBe(true);
    expect(r.note).toContain(`Over ${RANK_CANDIDATES} records match; the newest ${RANK_CANDIDATES} are ranked`);
    expect(r.items).toHaveLength(5);
    const last = await w.call("brain_search", { query: "weekly", limit: 20, offset: RANK_CANDIDATES - 20 });
    expect(last.items).toHaveLength(20);
    expect(last.nextOffset).toBeNull();
    const beyond = await w.call("brain_search", { query: "weekly", limit: 20, offset: RANK_CANDIDATES + 10 });
    expect(beyond.items).toEqual([]);
    expect(beyond.total).toBe(RANK_CANDIDATES);
  });

  test("a narrower query is counted exactly, every match ranked", async () => {
    const r = await w.call("brain_search", { query: "weekly campaign", limit: 3 });
    expect(r.total).toBe(N / 10);
    expect(r.totalCapped).toBeUndefined();
    expect(r.note ?? "").not.toContain("ranked");
  });

  test("prefix: snippets mark the matched words", async () => {
    const r = await w.call("brain_search", { query: "camp* numbers", limit: 3 });
    expect(r.total).toBe(N / 10);
    for (const it of r.items) expect(it.snippet).toContain("«campaign» «numbers»");
  });
});
