/**
 * The Redis limits against a real redis-server (test/infra/services.ts):
 * the token bucket decides exactly as the in-memory one on the same calls,
 * instances on separate connections share one allowance, concurrent takes
 * never overspend, idle keys expire, and a Redis that is down or stalled
 * admits everything without throwing. The attempt counter matches
 * WindowCounter the same way.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Redis from "ioredis";
import { ManualClock } from "../../src/core/clock";
import { memoryRateLimiter, type RateLimitDecision, type RateLimiter } from "../../src/core/rate-limit";
import { redisRateLimiter, redisWindowCounter } from "../../src/core/rate-limit-redis";
import { type AttemptCounter, WindowCounter } from "../../src/core/attempts";
import {
  ensureDebianPackages,
  PackageInstallError,
  type RedisServer,
  SERVICE_PACKAGES,
  startRedis,
} from "../infra/services";

const skipReason = await ensureDebianPackages([SERVICE_PACKAGES.redis]).then(
  () => null,
  (e: unknown) => {
    if (e instanceof PackageInstallError) return e.message;
    throw e;
  },
);
if (skipReason) console.warn(`test/core/rate-limit-redis.test.ts SKIPPED: ${skipReason}`);
const suite = skipReason ? describe.skip : describe;

const servers: RedisServer[] = [];
const clients: Redis[] = [];
let server: RedisServer;
let a: Redis;
let b: Redis;

async function connect(url: string): Promise<Redis> {
  const r = new Redis(url, { lazyConnect: true });
  r.on("error", () => {}); // reconnect noise once a server is stopped on purpose
  clients.push(r);
  await r.connect();
  await r.ping();
  return r;
}

beforeAll(async () => {
  if (skipReason) return;
  server = await startRedis();
  servers.push(server);
  a = await connect(server.url);
  b = await connect(server.url);
});

afterAll(async () => {
  for (const c of clients) c.disconnect();
  await Promise.all(servers.map((s) => s.stop()));
});

let prefixes = 0;
/** Each test keeps to its own keys. */
const freshPrefix = () => `test${++prefixes}:`;

/** A deterministic generator, so a failing run can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

const quiet = () => {};

type LimiterOp = { advance: number } | { take: string; n?: number } | { peek: string };

async function runLimiter(rl: RateLimiter, clock: ManualClock, ops: LimiterOp[]): Promise<RateLimitDecision[]> {
  const out: RateLimitDecision[] = [];
  for (const op of ops) {
    if ("advance" in op) clock.advance(op.advance);
    else if ("take" in op) out.push(await rl.take(op.take, op.n));
    else out.push(await rl.peek(op.peek));
  }
  return out;
}

/** The same operations against the memory limiter and a Redis one, from the same start time. */
async function bothLimiters(limit: number, ops: LimiterOp[]) {
  const start = 1_700_000_000_000;
  const memClock = new ManualClock(start);
  const redisClock = new ManualClock(start);
  const mem = await runLimiter(memoryRateLimiter({ limitPerMinute: limit, clock: memClock }), memClock, ops);
  const shared = redisRateLimiter({
    redis: a,
    limitPerMinute: limit,
    clock: redisClock,
    prefix: freshPrefix(),
    log: quiet,
  });
  const red = await runLimiter(shared, redisClock, ops);
  return { mem, red };
}

suite("redisRateLimiter", () => {
  test("decides as the memory limiter: batches, refusals, impossible batches, peeks", async () => {
    const ops: LimiterOp[] = [
      { take: "c", n: 55 },
      { take: "c", n: 10 },
      { take: "c", n: 10 },
      { peek: "c" },
      { advance: 4_999 },
      { take: "c", n: 10 },
      { advance: 1 },
      { take: "c", n: 10 },
      { take: "c", n: 61 },
      { take: "d" },
      { peek: "never-seen" },
      { advance: -30_000 }, // the clock steps back: nothing minted
      { take: "c" },
      { advance: 90_000 },
      { take: "c", n: 60 },
    ];
    const { mem, red } = await bothLimiters(60, ops);
    expect(red).toEqual(mem);
    expect(red.map((d) => [d.allowed, d.remaining, d.retryAfterSec, d.impossible ?? false])).toEqual([
      [true, 5, 0, false],
      [false, 0, 5, false],
      [false, 0, 5, false],
      [true, 5, 0, false],
      [false, 0, 1, false],
      [true, 0, 0, false],
      [false, 0, 60, true],
      [true, 59, 0, false],
      [true, 60, 0, false],
      [false, 0, 1, false],
      [true, 0, 0, false],
    ]);
  });

  test("decides as the memory limiter on 2,000 random operations, at rates that do not divide a minute", async () => {
    for (const [seed, limit] of [
      [1, 7],
      [2, 600],
      [3, 1_000_000_000],
    ] as const) {
      const rand = prng(seed);
      const ops: LimiterOp[] = [];
      for (let i = 0; i < 700; i++) {
        const r = rand();
        const bucket = ["a", "b", "c"][Math.floor(rand() * 3)]!;
        if (r < 0.55) ops.push({ take: bucket, n: 1 + Math.floor(rand() * Math.min(limit * 1.2, 2 * limit + 1)) });
        else if (r < 0.65) ops.push({ peek: bucket });
        else if (r < 0.95) ops.push({ advance: Math.floor(rand() * 15_000) });
        else ops.push({ advance: -Math.floor(rand() * 5_000) });
      }
      const { mem, red } = await bothLimiters(limit, ops);
      expect(red).toEqual(mem);
    }
  });

  test("two instances on separate connections share one allowance", async () => {
    const clock = new ManualClock(0);
    const prefix = freshPrefix();
    const one = redisRateLimiter({ redis: a, limitPerMinute: 5, clock, prefix, log: quiet });
    const two = redisRateLimiter({ redis: b, limitPerMinute: 5, clock, prefix, log: quiet });
    const seen: boolean[] = [];
    for (let i = 0; i < 10; i++) seen.push((await (i % 2 ? one : two).take("shared")).allowed);
    expect(seen.filter(Boolean).length).toBe(5);
    clock.advance(12_000); // one token for both together
    expect((await one.take("shared")).allowed).toBe(true);
    expect(await two.take("shared")).toMatchObject({ allowed: false, retryAfterSec: 12 });
  });

  test("50 concurrent takes on a bucket of 20 admit exactly 20", async () => {
    const clock = new ManualClock(0);
    const prefix = freshPrefix();
    const limiters = [a, b].map((redis) => redisRateLimiter({ redis, limitPerMinute: 20, clock, prefix, log: quiet }));
    const decisions = await Promise.all(Array.from({ length: 50 }, (_, i) => limiters[i % 2]!.take("hot")));
    const admitted = decisions.filter((d) => d.allowed);
    expect(admitted.length).toBe(20);
    // Each admitted take saw its own level: no two spent the same token.
    expect(admitted.map((d) => d.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  test("a bucket's key lives as long as its refill and then vanishes; peeks write nothing", async () => {
    const clock = new ManualClock(0);
    const prefix = freshPrefix();
    const rl = redisRateLimiter({ redis: a, limitPerMinute: 600, clock, prefix, log: quiet }); // a token per 100 ms
    await rl.peek("idle");
    expect(await a.exists(prefix + "idle")).toBe(0);
    await rl.take("idle", 3);
    const ttl = await a.pttl(prefix + "idle");
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(300);
    await Bun.sleep(350);
    expect(await a.exists(prefix + "idle")).toBe(0);
  });

  test("scripts flushed from Redis are loaded again (NOSCRIPT)", async () => {
    const rl = redisRateLimiter({
      redis: a,
      limitPerMinute: 3,
      clock: new ManualClock(0),
      prefix: freshPrefix(),
      log: quiet,
    });
    await rl.take("s");
    await a.script("FLUSH");
    expect(await rl.take("s")).toMatchObject({ allowed: true, remaining: 1 });
    expect(rl.healthy()).toBe(true);
  });

  test("a batch larger than the limit is refused without asking Redis", async () => {
    const rl = redisRateLimiter({
      redis: a,
      limitPerMinute: 3,
      clock: new ManualClock(0),
      prefix: freshPrefix(),
      log: quiet,
    });
    expect(await rl.take("x", 4)).toEqual({
      allowed: false,
      impossible: true,
      limit: 3,
      remaining: 0,
      retryAfterSec: 60,
    });
    await expect(rl.take("x", 0)).rejects.toThrow(RangeError);
  });
});

suite("Redis unavailable", () => {
  test("a stopped server: every take is admitted, one log line per 10 s, healthy() false", async () => {
    const down = await startRedis();
    servers.push(down);
    const redis = await connect(down.url);
    const clock = new ManualClock(0);
    const lines: string[] = [];
    const log = (l: string) => void lines.push(l);
    const rl = redisRateLimiter({ redis, limitPerMinute: 2, clock, log });
    const counter = redisWindowCounter({ redis, limit: 1, windowMs: 60_000, prefix: "login:", clock, log });
    await rl.take("k", 2);
    expect((await rl.take("k")).allowed).toBe(false);
    expect(await counter.hit("e", 0)).toBe(0);
    expect(await counter.hit("e", 0)).toBeGreaterThan(0);
    expect(rl.healthy() && counter.healthy()).toBe(true);

    await down.stop();
    for (let i = 0; i < 200 && redis.status === "ready"; i++) await Bun.sleep(10);
    const started = performance.now();
    for (let i = 0; i < 20; i++)
      expect(await rl.take("k")).toEqual({ allowed: true, limit: 2, remaining: 1, retryAfterSec: 0 });
    expect(await rl.peek("k")).toMatchObject({ allowed: true, remaining: 2 });
    expect(await counter.hit("e", 0)).toBe(0);
    expect(await counter.blockedFor("e", 0)).toBe(0);
    await counter.add("e", 0);
    await counter.clear("e");
    expect(performance.now() - started).toBeLessThan(500); // no waiting on the dead connection
    expect(rl.healthy() || counter.healthy()).toBe(false);
    expect(lines.length).toBe(1);
    expect(lines[0]).toMatch(/Redis unavailable/);

    clock.advance(9_999);
    await rl.take("k");
    expect(lines.length).toBe(1);
    clock.advance(1);
    await counter.hit("e", 0);
    expect(lines.length).toBe(2);
  });

  test("a stalled server: a take without a reply in time is admitted; unhealthy for 10 s or until one is answered", async () => {
    const clock = new ManualClock(0);
    const lines: string[] = [];
    const rl = redisRateLimiter({
      redis: a,
      limitPerMinute: 1,
      clock,
      prefix: freshPrefix(),
      timeoutMs: 50,
      log: (l) => void lines.push(l),
    });
    await rl.take("slow");
    await b.call("CLIENT", "PAUSE", "300", "ALL");
    const started = performance.now();
    expect(await rl.take("slow")).toMatchObject({ allowed: true });
    expect(performance.now() - started).toBeLessThan(250);
    expect(rl.healthy()).toBe(false);
    expect(lines).toEqual([expect.stringMatching(/no reply within 50 ms/)]);
    clock.advance(9_999);
    expect(rl.healthy()).toBe(false);
    clock.advance(1);
    expect(rl.healthy()).toBe(true); // an old failure fades without traffic
    await Bun.sleep(350);
    expect(await rl.take("slow")).toMatchObject({ allowed: false });
    expect(rl.healthy()).toBe(true);
  });
});

type CounterOp = { op: "hit" | "add" | "blockedFor"; key: string; at: number } | { op: "clear"; key: string };

async function runCounter(c: AttemptCounter, ops: CounterOp[]): Promise<(number | undefined)[]> {
  const out: (number | undefined)[] = [];
  for (const o of ops) {
    if (o.op === "clear") out.push((await c.clear(o.key)) ?? undefined);
    else if (o.op === "add") out.push((await c.add(o.key, o.at)) ?? undefined);
    else out.push(await c[o.op](o.key, o.at));
  }
  return out;
}

suite("redisWindowCounter", () => {
  const WINDOW = 15 * 60_000;
  const counters = (limit: number) =>
    [
      new WindowCounter(limit, WINDOW),
      redisWindowCounter({
        redis: a,
        limit,
        windowMs: WINDOW,
        prefix: freshPrefix(),
        clock: new ManualClock(0),
        log: quiet,
      }),
    ] as const;

  test("matches WindowCounter on a table of operations", async () => {
    const t0 = 1_700_000_000_000;
    const ops: CounterOp[] = [
      { op: "hit", key: "ann", at: t0 },
      { op: "hit", key: "ann", at: t0 + 1_000 },
      { op: "add", key: "ann", at: t0 + 2_000 },
      { op: "hit", key: "ann", at: t0 + 3_000 },
      { op: "blockedFor", key: "ann", at: t0 + 4_000 },
      { op: "add", key: "ann", at: t0 + 5_000 }, // counts even when over the limit
      { op: "blockedFor", key: "bob", at: t0 + 5_000 },
      { op: "blockedFor", key: "ann", at: t0 + WINDOW - 1 },
      { op: "blockedFor", key: "ann", at: t0 + WINDOW },
      { op: "hit", key: "ann", at: t0 + WINDOW }, // a new window
      { op: "hit", key: "ann", at: t0 - 60_000 }, // a clock stepping back stays in the window
      { op: "hit", key: "ann", at: t0 + WINDOW + 1 },
      { op: "blockedFor", key: "ann", at: t0 + WINDOW + 2 },
      { op: "clear", key: "ann" },
      { op: "blockedFor", key: "ann", at: t0 + WINDOW + 3 },
      { op: "hit", key: "ann", at: t0 + WINDOW + 3 },
    ];
    const [mem, red] = counters(3);
    const expected = await runCounter(mem, ops);
    expect(await runCounter(red, ops)).toEqual(expected);
    expect(expected).toEqual([
      0,
      0,
      undefined,
      WINDOW - 3_000,
      WINDOW - 4_000,
      undefined,
      0,
      1,
      0,
      0,
      0,
      0,
      WINDOW - 2,
      undefined,
      0,
      0,
    ]);
  });

  test("matches WindowCounter on 1,000 random operations", async () => {
    const rand = prng(11);
    let at = 1_700_000_000_000;
    const ops: CounterOp[] = [];
    for (let i = 0; i < 1_000; i++) {
      at += Math.floor(rand() * 120_000) - 10_000;
      const key = ["x", "y"][Math.floor(rand() * 2)]!;
      const r = rand();
      ops.push(r < 0.02 ? { op: "clear", key } : { op: r < 0.6 ? "hit" : r < 0.8 ? "add" : "blockedFor", key, at });
    }
    const [mem, red] = counters(4);
    expect(await runCounter(red, ops)).toEqual(await runCounter(mem, ops));
  });

  test("concurrent hits from two connections count each attempt once", async () => {
    const prefix = freshPrefix();
    const clock = new ManualClock(0);
    const pair = [a, b].map((redis) =>
      redisWindowCounter({ redis, limit: 5, windowMs: WINDOW, prefix, clock, log: quiet }),
    );
    const waits = await Promise.all(Array.from({ length: 30 }, (_, i) => pair[i % 2]!.hit("addr", 1_000)));
    expect(waits.filter((w) => w === 0).length).toBe(5);
    expect(waits.filter((w) => w === WINDOW).length).toBe(25);
  });

  test("a window's key expires with the window", async () => {
    const prefix = freshPrefix();
    const c = redisWindowCounter({ redis: a, limit: 2, windowMs: 200, prefix, clock: new ManualClock(0), log: quiet });
    await c.add("k", 0);
    const ttl = await a.pttl(prefix + "k");
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(200);
    await Bun.sleep(250);
    expect(await a.exists(prefix + "k")).toBe(0);
  });
});
