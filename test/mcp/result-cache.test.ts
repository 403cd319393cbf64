/**
 * Read tools that declare `cachedBy` answer from src/mcp/result-cache.ts.
 * What must hold: every such tool reads only the tables it declares and
 * never the clock (checked for each one the registry has, by tracing its
 * SQL); a write through a tool, or another connection's commit, is seen on
 * the next call; authorization and tenancy are decided on every call, the
 * cache notwithstanding; the cache is bounded; and a write that commits
 * while an answer is being read never leaves that answer cached.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq, getTableName } from "drizzle-orm";
import * as v from "valibot";
import { ChangeFeed } from "../../src/core/changes";
import { BUDGET } from "../../src/core/memory-budget";
import type { ActorContext, Deps } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import { openStore } from "../../src/core/open";
import { sites } from "../../src/domains/sites/tables";
import type { ToolDef } from "../../src/mcp/define";
import { registry } from "../../src/mcp/routes";
import { cachedAnswer as cachedResult, resultCacheStats } from "../../src/mcp/result-cache";
import { RESULT_JSON, resultJson } from "../../src/mcp/errors";

/** The answer's text, checking that the JSON kept beside it is that of the same result. */
async function cachedAnswer(...a: Parameters<typeof cachedResult>): Promise<string> {
  const r = await cachedResult(...a);
  expect(typeof (r as any)[RESULT_JSON]).toBe("string");
  expect(JSON.parse(resultJson(r))).toEqual(JSON.parse(JSON.stringify(r)));
  return r.content[0]!.text;
}
import { callTool, mcpClient, mintMcpKey, revokeMcpKey } from "../fixtures/accounts";
import { afterForeignWrite, startTestServer, type TestServer } from "../harness";
import { ON_PG } from "../db";
import { makeWorld, type World } from "../cms/world";
import { traceSqlite } from "../fixtures/sqlite-trace";

// Every SQL text a statement runs while `tracing` is on (SQLite: statements of every connection in this process).
const traced: string[] = [];
let tracing = false;
traceSqlite((sqlText) => {
  if (tracing) traced.push(sqlText);
});

/** Table names a statement reads or writes. */
function tablesIn(sqlText: string): string[] {
  return [...sqlText.matchAll(/\b(?:from|join|into|update)\s+"([A-Za-z0-9_]+)"/gi)].map((m) => m[1]!);
}

let s: TestServer;
let w: World;
let postId: number;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  const post = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Cold brew at home" });
  postId = post.id;
});
afterAll(async () => {
  await s.stop();
});

/** Arguments to run each cached tool with; a tool that declares cachedBy must have a case here. */
const CASES: Record<string, (w: World) => Record<string, unknown>[]> = {
  sites_list: () => [{}, { limit: 1, offset: 1 }],
  sites_get: (w) => [{ siteId: w.siteA }],
  site_domains_list: (w) => [{ siteId: w.siteA }],
  posts_list: (w) => [
    { siteId: w.siteA },
    { siteId: w.siteA, postType: "post", status: "draft", search: "brew", categoryId: 1, tagId: 1, limit: 5 },
  ],
};

function ownerCtx(deps: Deps): ActorContext {
  return {
    deps,
    principal: {
      userId: w.ownerUserId,
      credential: { kind: "mcp_key", id: w.ownerKeyId, name: "Agent key" },
      scopes: ["*"],
      companies: [{ id: w.A.id, name: w.A.name, role: "owner" }],
      requireCmsApproval: false,
    },
    company: { id: w.A.id, name: w.A.name, role: "owner" },
    requestId: "test",
  };
}

test.skipIf(ON_PG)("every cached tool reads only the tables it declares, and never the clock", async () => {
  const cached = registry().tools.filter((t) => t.def.cachedBy);
  expect(cached.map((t) => t.def.name).sort()).toEqual(Object.keys(CASES).sort());
  for (const { def } of cached) {
    const declared = new Set(def.cachedBy!.map((t) => getTableName(t)));
    for (const args of CASES[def.name]!(w)) {
      let clockReads = 0;
      const clock = { now: () => (clockReads++, s.clock.now()), ms: () => (clockReads++, s.clock.ms()) };
      const ctx = ownerCtx({ ...s.deps, clock } as Deps);
      const input = v.parse(def.input, args);
      traced.length = 0;
      tracing = true;
      let answer: unknown;
      try {
        answer = await def.run(ctx, input as never);
      } finally {
        tracing = false;
      }
      const read = new Set(traced.filter((q) => !/^\s*PRAGMA/i.test(q)).flatMap(tablesIn));
      expect(read.size).toBeGreaterThan(0);
      expect({ tool: def.name, args, undeclared: [...read].filter((t) => !declared.has(t)) }).toEqual({
        tool: def.name,
        args,
        undeclared: [],
      });
      expect({ tool: def.name, clockReads }).toEqual({ tool: def.name, clockReads: 0 });
      // Run twice with nothing written between: the same answer (nothing else moves it).
      expect(await def.run(ctx, input as never)).toEqual(answer);
    }
  }
});

test("a write through a tool is seen on the next call, and a repeated call is a hit", async () => {
  const before = resultCacheStats(s.deps.store.changes);
  const list1 = await w.ok(w.owner, "sites_list");
  const list2 = await w.ok(w.owner, "sites_list");
  expect(list2).toEqual(list1);
  const after = resultCacheStats(s.deps.store.changes);
  expect(after.misses - before.misses).toBe(1);
  expect(after.hits - before.hits).toBe(1);
  expect(list1.items.find((x: any) => x.id === w.siteA).domain).toBeNull();

  expect((await w.ok(w.owner, "site_domains_list", { siteId: w.siteA })).total).toBe(0);
  await w.ok(w.owner, "site_domains_add", { siteId: w.siteA, hostname: "cache.example.com" });
  expect((await w.ok(w.owner, "sites_list")).items.find((x: any) => x.id === w.siteA).domain).toBe("cache.example.com");
  expect((await w.ok(w.owner, "site_domains_list", { siteId: w.siteA })).items.map((d: any) => d.hostname)).toEqual([
    "cache.example.com",
  ]);
  expect((await w.ok(w.owner, "sites_get", { siteId: w.siteA })).domains.map((d: any) => d.hostname)).toEqual([
    "cache.example.com",
  ]);

  const posts1 = await w.ok(w.owner, "posts_list", { siteId: w.siteA });
  expect(posts1.items.map((p: any) => p.title)).toEqual(["Cold brew at home"]);
  const counts1 = (await w.ok(w.owner, "sites_get", { siteId: w.siteA })).counts;
  await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: postId, title: "Cold brew, slowly" });
  await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Pour-over basics" });
  expect((await w.ok(w.owner, "posts_list", { siteId: w.siteA })).items.map((p: any) => p.title).sort()).toEqual([
    "Cold brew, slowly",
    "Pour-over basics",
  ]);
  expect((await w.ok(w.owner, "sites_get", { siteId: w.siteA })).counts.posts).toBe(counts1.posts + 1);
  // A filtered page is its own entry, and follows the same writes.
  expect((await w.ok(w.owner, "posts_list", { siteId: w.siteA, search: "pour" })).total).toBe(1);
});

test("another connection's commit is seen on the next call (a CLI beside the server; another instance)", async () => {
  const name = `Renamed ${crypto.randomUUID().slice(0, 6)}`;
  const nameOf = async () => (await w.ok(w.owner, "sites_list")).items.find((x: any) => x.id === w.siteA2).name;
  expect(await nameOf()).toBe("Acme Blog");
  expect(await nameOf()).toBe("Acme Blog"); // now answered from the cache
  const other: Store = openStore({ dataDir: s.dataDir, databaseUrl: s.config.databaseUrl });
  try {
    await other.transaction(async (tx) => {
      await tx.update(sites).set({ name }).where(eq(sites.id, w.siteA2));
    });
  } finally {
    await other.close();
  }
  await afterForeignWrite();
  expect(await nameOf()).toBe(name);
});

test("who may call is decided on every call, whatever is cached", async () => {
  // The owner's answer is cached; a key of another company asking for the same site is told it does not exist.
  await w.ok(w.owner, "sites_get", { siteId: w.siteA });
  expect(await w.err(w.stranger, "sites_get", { siteId: w.siteA })).toContain("not found");
  const theirs = await w.ok(w.stranger, "sites_list");
  expect(theirs.items.map((x: any) => x.id)).toEqual([w.siteB]);
  // A key without sites:read cannot reach the tool at all.
  const mediaOnly = await mintMcpKey(s.deps, {
    userId: w.ownerUserId,
    scopes: ["media:read"],
    companyIds: [w.A.id],
    name: "Media only",
  });
  const c = await mcpClient(s.url, mediaOnly.key);
  try {
    const r = await callTool(c, "sites_list", {}).catch((e) => ({ isError: true, data: null, text: String(e) }));
    expect(r.isError).toBe(true);
    expect(r.text).toContain("sites_list needs the sites:read scope");
  } finally {
    await c.close();
  }
  // A key revoked after its answers were cached is refused on its next call.
  const k = await mintMcpKey(s.deps, {
    userId: w.ownerUserId,
    scopes: ["*"],
    companyIds: [w.A.id],
    name: "Soon revoked",
  });
  const kc = await mcpClient(s.url, k.key);
  expect((await callTool(kc, "sites_list", {})).isError).toBe(false);
  await revokeMcpKey(s.deps, k.id);
  await expect(callTool(kc, "sites_list", {})).rejects.toThrow();
  await kc.close().catch(() => {});
});

// ---------------------------------------------------------------------------
// The cache itself, on a change feed of its own.

function fakeTool(name: string): ToolDef {
  return {
    name,
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    description: "test",
    input: v.object({}),
    cachedBy: [sites],
    run: () => null,
  };
}
function fakeCtx(feed: ChangeFeed, companyId = 1): ActorContext {
  return {
    deps: { store: { changes: feed } } as unknown as Deps,
    principal: {
      userId: 1,
      credential: { kind: "mcp_key", id: 1, name: "k" },
      scopes: ["*"],
      companies: [],
      requireCmsApproval: false,
    },
    company: { id: companyId, name: "Acme", role: "owner" },
    requestId: "t",
  };
}

test("a write committing while an answer is read leaves that answer stale", async () => {
  const feed = new ChangeFeed();
  const tool = fakeTool("race_list");
  let n = 0;
  const first = await cachedAnswer(fakeCtx(feed), tool, {}, async () => {
    n++;
    feed.local(["sites"]); // another request's write commits mid-read
    return { n };
  });
  expect(first).toBe('{"n":1}');
  expect(await cachedAnswer(fakeCtx(feed), tool, {}, async () => ({ n: ++n }))).toBe('{"n":2}');
  expect(await cachedAnswer(fakeCtx(feed), tool, {}, async () => ({ n: ++n }))).toBe('{"n":2}');
  // A write to a table the tool does not read leaves its answer alone.
  feed.local(["posts"]);
  expect(await cachedAnswer(fakeCtx(feed), tool, {}, async () => ({ n: ++n }))).toBe('{"n":2}');
  // Each company (and each argument set) is its own entry.
  expect(await cachedAnswer(fakeCtx(feed, 2), tool, {}, async () => ({ n: ++n }))).toBe('{"n":3}');
  expect(await cachedAnswer(fakeCtx(feed), tool, { offset: 1 }, async () => ({ n: ++n }))).toBe('{"n":4}');
  // A failed read is not cached.
  const failing = fakeTool("failing_list");
  await expect(cachedAnswer(fakeCtx(feed), failing, {}, async () => Promise.reject(new Error("boom")))).rejects.toThrow(
    "boom",
  );
  expect(await cachedAnswer(fakeCtx(feed), failing, {}, async () => "fine")).toBe("fine");
});

test("the cache is bounded in bytes under distinct arguments, and skips oversized answers", async () => {
  const feed = new ChangeFeed();
  const tool = fakeTool("bounded_list");
  // Small answers under distinct arguments (~0.6 KB an entry as counted): far more than the budget holds.
  const n = 30_000;
  for (let i = 0; i < n; i++) await cachedAnswer(fakeCtx(feed), tool, { offset: i }, async () => ({ i }));
  const { entries, bytes } = resultCacheStats(feed);
  expect(bytes).toBeLessThanOrEqual(BUDGET.mcpResults);
  expect(bytes).toBeGreaterThan(BUDGET.mcpResults * 0.9);
  expect(entries).toBeLessThan(n);
  // The oldest went first: offset 0 is read again, the newest is still a hit.
  let ran = 0;
  await cachedAnswer(fakeCtx(feed), tool, { offset: 0 }, async () => (ran++, { i: 0 }));
  await cachedAnswer(fakeCtx(feed), tool, { offset: n - 1 }, async () => (ran++, { i: n - 1 }));
  expect(ran).toBe(1);

  const big = new ChangeFeed();
  const text = "x".repeat(50_000); // the text and its result JSON, ~205 KB as counted: 4 MiB holds 20, 8 MiB 41
  for (let i = 0; i < 60; i++) await cachedAnswer(fakeCtx(big), tool, { i }, async () => text);
  expect(resultCacheStats(big).entries).toBeLessThanOrEqual(Math.ceil(BUDGET.mcpResults / 204_000));
  expect(resultCacheStats(big).entries).toBeGreaterThanOrEqual(Math.floor(BUDGET.mcpResults / 206_000));
  const huge = new ChangeFeed();
  await cachedAnswer(fakeCtx(huge), tool, {}, async () => "y".repeat(200_000));
  expect(resultCacheStats(huge).entries).toBe(0);
  // Long arguments (a long search string) make long keys: answered, not kept.
  await cachedAnswer(fakeCtx(huge), tool, { search: "z".repeat(1900) }, async () => "ok");
  expect(resultCacheStats(huge).entries).toBe(1);
  await cachedAnswer(fakeCtx(huge), tool, { search: "z".repeat(2100) }, async () => "ok");
  expect(resultCacheStats(huge).entries).toBe(1);
});
