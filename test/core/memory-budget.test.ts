/**
 * Every cache that grows with distinct input stays within its byte budget
 * (src/core/memory-budget.ts) whatever keys it is sent, and the budgets
 * add up to what README "Memory" promises: distinct REST URLs, REST bodies
 * and bad REST keys, bad MCP and OAuth tokens, each flooded well past what
 * its budget holds.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WindowCounter } from "../../src/core/attempts";
import { ATTEMPT_COUNTERS, BUDGET, OTHER_RATE_LIMITERS, TOTAL_CACHE_BYTES } from "../../src/core/memory-budget";
import { memoryRateLimiter } from "../../src/core/rate-limit";
import { credentialCacheBytes, resolveBearer } from "../../src/domains/accounts/credentials";
import { ResponseCache } from "../../src/rest/cache";
import { restCacheBytes, restRoutes } from "../../src/rest/routes";
import { startTestServer, type TestServer } from "../harness";

const MiB = 1024 * 1024;
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ seed: false });
});
afterAll(async () => {
  await server?.stop();
});

const hex64 = (i: number) => i.toString(16).padStart(64, "0");

test("the budgets add up to 48 MiB at most, and every rate limiter and attempt counter is counted", () => {
  // The process is ~150 MB after warm-up (README "Memory"): with every cache full it stays under 200.
  expect(TOTAL_CACHE_BYTES).toBeLessThanOrEqual(48 * MiB);
  // rateLimiter(deps, "<name>", …) calls in src, besides the REST and MCP limits: each holds BUDGET.rateLimitOther.
  const names = new Set<string>();
  const counters = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.tsx?$/.test(e.name)) {
        const text = readFileSync(p, "utf8");
        for (const m of text.matchAll(/\brateLimiter\(deps, "([^"]+)"/g)) names.add(m[1]!);
        for (const m of text.matchAll(/\battemptCounter\(deps, "([^"]+)"/g)) counters.add(m[1]!);
      }
    }
  };
  walk(join(import.meta.dir, "../../src"));
  names.delete("rest");
  names.delete("mcp");
  expect(names.size).toBe(OTHER_RATE_LIMITERS);
  expect(counters.size).toBe(ATTEMPT_COUNTERS);
});

test("attempt counters: distinct long keys fill the budget, not past it; the newest windows stay, a long key is its own", () => {
  const c = new WindowCounter(3, 60_000, 64 * 1024);
  const long = (i: number) => `${"x".repeat(300)}${i}@example.com`;
  for (let i = 0; i < 5000; i++) c.add(long(i), 1000);
  expect(c.bytes).toBeLessThanOrEqual(64 * 1024);
  expect(c.bytes).toBeGreaterThan(60 * 1024);
  // Three failures of the newest key lock it; its neighbour sharing 300 characters is not locked.
  c.add(long(4999), 1000);
  c.add(long(4999), 1000);
  expect(c.blockedFor(long(4999), 2000)).toBe(59_000);
  expect(c.blockedFor(long(4998), 2000)).toBe(0);
  // The oldest were forgotten to make room, finished windows first.
  expect(c.blockedFor(long(0), 2000)).toBe(0);
  c.clear(long(4999));
  expect(c.blockedFor(long(4999), 2000)).toBe(0);
  expect(c.bytes).toBeLessThanOrEqual(64 * 1024);
});

test("REST bodies: distinct bases fill the cache to its budget, not past it", () => {
  const cache = new ResponseCache();
  const body = new TextEncoder().encode(JSON.stringify({ success: true, data: "x".repeat(2000) }));
  const n = Math.ceil((2 * BUDGET.restBodies) / body.byteLength);
  for (let i = 0; i < n; i++) cache.set(`1|7|listPosts||search=${i}`, body);
  expect(cache.bytes).toBeLessThanOrEqual(BUDGET.restBodies);
  expect(cache.bytes).toBeGreaterThan(BUDGET.restBodies * 0.9);
  expect(cache.entries).toBeLessThan(n);
});

test("REST: distinct URLs and bad keys keep the parsed URLs and the key lookups within their budgets", async () => {
  const app = restRoutes(server.deps, {
    limiter: memoryRateLimiter({ limitPerMinute: 1_000_000_000, clock: server.clock }),
  });
  // Distinct URLs, each parsed and kept (401: no key; a refused one is kept as well).
  for (let i = 0; i < 3000; i++) {
    const r = await app.fetch(
      new Request(`http://t/api/v1/sites/${1 + (i % 7)}/posts?search=q${i}&limit=${1 + (i % 50)}`),
    );
    expect(r.status).toBe(401);
  }
  // Distinct well-formed keys that match nothing: each hashed and remembered as unknown.
  for (let i = 0; i < 2000; i++) {
    const r = await app.fetch(
      new Request("http://t/api/v1/sites/1/posts", { headers: { Authorization: `Bearer svc_live_${hex64(i)}` } }),
    );
    expect(r.status).toBe(401);
  }
  const held = restCacheBytes(app);
  expect(held.urls).toBeLessThanOrEqual(BUDGET.restUrls);
  expect(held.urls).toBeGreaterThan(BUDGET.restUrls * 0.9);
  expect(held.lookups).toBeLessThanOrEqual(BUDGET.restLookups);
  // The hashes and the unknown hashes are each full to their quarter.
  expect(held.lookups).toBeGreaterThan(BUDGET.restLookups * 0.45);
}, 120_000);

test("MCP keys and OAuth tokens that match nothing keep the credential caches within their budget", async () => {
  for (let i = 0; i < 2000; i++) {
    expect(await resolveBearer(server.deps, `svc_mcp_${hex64(i)}`)).toBeNull();
    expect(await resolveBearer(server.deps, `svc_oauth_${hex64(i)}`)).toBeNull();
  }
  const held = credentialCacheBytes(server.deps);
  expect(held).toBeLessThanOrEqual(BUDGET.credentials);
  // The token shapes are full to their third.
  expect(held).toBeGreaterThan((BUDGET.credentials / 3) * 0.9);
}, 120_000);
