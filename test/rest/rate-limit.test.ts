/**
 * REST rate limiting: the token bucket itself (with a ManualClock), and over
 * HTTP a server limited to 3 requests a minute: per-key and per-address
 * buckets, X-RateLimit-* on every response, 429 with Retry-After.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { memoryRateLimiter } from "../../src/core/rate-limit";
import { clientBucket } from "../../src/rest/routes";
import { startTestServer, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { seedRestContent, type RestContent } from "../fixtures/rest-content";
import { expectError, rest, type Rest } from "./helpers";

describe("memoryRateLimiter", () => {
  test("bursts to the limit, then refills at limit per minute", () => {
    const clock = new ManualClock(0);
    const rl = memoryRateLimiter({ limitPerMinute: 6, clock });
    const takes = Array.from({ length: 7 }, () => rl.take("a"));
    expect(takes.map((d) => [d.allowed, d.remaining])).toEqual([
      [true, 5],
      [true, 4],
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, 0],
    ]);
    expect(takes[6]).toEqual({ allowed: false, limit: 6, remaining: 0, retryAfterSec: 10 });
    clock.advance(4_000);
    expect(rl.take("a")).toMatchObject({ allowed: false, retryAfterSec: 6 });
    clock.advance(6_000);
    expect(rl.take("a")).toMatchObject({ allowed: true, remaining: 0 });
    clock.advance(60_000);
    expect(rl.take("a")).toMatchObject({ allowed: true, remaining: 5 }); // full again, never above the limit
    expect(rl.take("b")).toMatchObject({ allowed: true, remaining: 5 }); // buckets are independent
  });

  test("Retry-After rounds up and is at least one second", () => {
    const clock = new ManualClock(0);
    const rl = memoryRateLimiter({ limitPerMinute: 600, clock });
    for (let i = 0; i < 600; i++) rl.take("k");
    expect(rl.take("k")).toMatchObject({ allowed: false, retryAfterSec: 1 }); // a token every 100 ms
  });

  test("peek does not spend; a clock stepping back mints nothing", () => {
    const clock = new ManualClock(100_000);
    const rl = memoryRateLimiter({ limitPerMinute: 2, clock });
    expect(rl.peek("p")).toMatchObject({ allowed: true, remaining: 2 });
    rl.take("p");
    rl.take("p");
    expect(rl.peek("p")).toMatchObject({ allowed: false, remaining: 0 });
    clock.set(0);
    expect(rl.take("p").allowed).toBe(false);
    clock.set(100_000 + 30_000);
    expect(rl.take("p").allowed).toBe(true);
  });

  test("a sweep never forgets a bucket that has not refilled", () => {
    const clock = new ManualClock(0);
    const rl = memoryRateLimiter({ limitPerMinute: 1, clock, maxBuckets: 10 });
    rl.take("busy");
    for (let i = 0; i < 9; i++) rl.take(`idle${i}`);
    clock.advance(30_000);
    rl.take("x"); // size 11 ≥ 10 triggers a sweep; nothing has refilled yet
    expect(rl.take("busy").allowed).toBe(false);
    clock.advance(60_000);
    expect(rl.take("busy").allowed).toBe(true);
  });
});

describe("clientBucket", () => {
  test.each([
    ["203.0.113.7", "ip:203.0.113.7"],
    ["::ffff:203.0.113.7", "ip:203.0.113.7"],
    ["2001:db8:1:2:3:4:5:6", "ip6:2001:db8:1:2::/64"],
    ["2001:db8:1:2:ffff::1", "ip6:2001:db8:1:2::/64"],
    ["2001:0db8:0001:0002::", "ip6:2001:db8:1:2::/64"],
    ["2001:db8::1", "ip6:2001:db8:0:0::/64"],
    ["::1", "ip6:0:0:0:0::/64"],
    [undefined, "ip:unknown"],
  ])("%p → %p", (addr, bucket) => {
    expect(clientBucket(addr)).toBe(bucket);
  });
});

describe("over HTTP (limit 3 per minute)", () => {
  let server: TestServer;
  let api: Rest;
  let c: RestContent;
  let shop: string;

  beforeAll(async () => {
    server = await startTestServer({ seed: false, config: { rateLimit: 3 } });
    c = await seedRestContent(server.deps);
    shop = `/api/v1/sites/${c.sites.shop}`;
    api = await rest(server); // spends one anonymous token
  });
  afterAll(() => server.stop());
  // Every test starts with full buckets.
  beforeEach(() => server.clock.advance(120_000));

  const limits = (r: { headers: Headers }) => [
    r.headers.get("x-ratelimit-limit"),
    r.headers.get("x-ratelimit-remaining"),
  ];

  test("a key gets 3, then 429 with Retry-After, and recovers with time", async () => {
    const { key } = await mintRestKey(server.deps, c.sites.shop);
    const seen = [];
    for (let i = 0; i < 3; i++) {
      const r = await api.keyed(`${shop}/tags`, key);
      expect(r.status).toBe(200);
      seen.push(limits(r));
    }
    expect(seen).toEqual([
      ["3", "2"],
      ["3", "1"],
      ["3", "0"],
    ]);
    const refused = await api.keyed(`${shop}/tags`, key);
    expectError(refused, 429, "Rate limit exceeded");
    expect(limits(refused)).toEqual(["3", "0"]);
    expect(refused.headers.get("retry-after")).toBe("20"); // one token every 20 s
    expect(refused.headers.get("access-control-allow-origin")).toBe("*");
    server.clock.advance(15_000);
    expect((await api.keyed(`${shop}/tags`, key)).headers.get("retry-after")).toBe("5");
    server.clock.advance(5_000);
    const back = await api.keyed(`${shop}/tags`, key);
    expect(back.status).toBe(200);
    expect(limits(back)).toEqual(["3", "0"]);
  });

  test("each key has its own bucket, and anonymous callers share their address's", async () => {
    const a = (await mintRestKey(server.deps, c.sites.shop)).key;
    const b = (await mintRestKey(server.deps, c.sites.shop)).key;
    for (let i = 0; i < 3; i++) await api.keyed(`${shop}/tags`, a);
    expect((await api.keyed(`${shop}/tags`, a)).status).toBe(429);
    expect((await api.keyed(`${shop}/tags`, b)).status).toBe(200);
    expect((await api.get(`${shop}/config`)).status).toBe(200);
    expect((await api.get(`${shop}/navigation`)).status).toBe(200);
    expect((await api.get(`${shop}/branding`)).status).toBe(200);
    expectError(await api.get(`${shop}/config`), 429, "Rate limit exceeded");
    expect((await api.keyed(`${shop}/config`, b)).status).toBe(200); // the key is not the address
  });

  test("bad keys are charged to the address, so guessing keys is limited too", async () => {
    const bogus = (i: number) => `svc_live_${String(i).padStart(64, "0")}`;
    for (let i = 0; i < 3; i++) expectError(await api.keyed(`${shop}/tags`, bogus(i)), 401, "Invalid API key");
    expectError(await api.keyed(`${shop}/tags`, bogus(9)), 429, "Rate limit exceeded");
    expectError(await api.get(`${shop}/config`), 429, "Rate limit exceeded");
  });

  test("every kind of response spends a token and carries the headers: 400, 404, 304", async () => {
    const { key } = await mintRestKey(server.deps, c.sites.shop);
    const r1 = await api.keyed("/api/v1/sites/abc/tags", key);
    expect([r1.status, ...limits(r1)]).toEqual([400, "3", "2"]);
    const r2 = await api.keyed(`${shop}/posts/nope`, key);
    expect([r2.status, ...limits(r2)]).toEqual([404, "3", "1"]);
    const ok = await api.keyed(`${shop}/tags`, key);
    expect([ok.status, ...limits(ok)]).toEqual([200, "3", "0"]);
    server.clock.advance(20_000);
    const r3 = await api.keyed(`${shop}/tags`, key, { "If-None-Match": ok.headers.get("etag")! });
    expect([r3.status, ...limits(r3)]).toEqual([304, "3", "0"]);
  });

  test("CORS preflights are free and report the address's bucket", async () => {
    for (let i = 0; i < 5; i++) {
      const r = await api.get(
        `${shop}/posts`,
        { Origin: "https://x.example", "Access-Control-Request-Method": "GET" },
        "OPTIONS",
      );
      expect(r.status).toBe(204);
      expect(limits(r)).toEqual(["3", "3"]);
    }
    expect((await api.get(`${shop}/config`)).status).toBe(200);
  });
});
