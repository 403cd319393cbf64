/**
 * The in-memory token bucket on its own (ManualClock, no server): batches of
 * n tokens taken all or nothing, Retry-After that is exactly enough, batches
 * larger than the limit, exact refill boundaries, and memory bounded in bytes
 * under a flood of distinct callers.
 */
import { describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import { ManualClock } from "../../src/core/clock";
import { bucketBytes, memoryRateLimiter } from "../../src/core/rate-limit";

/** A deterministic generator, so a failing property run can be replayed. */
function prng(seed: number) {
  return () => {
    seed = (seed * 1664525 + 1013904223) >>> 0;
    return seed / 2 ** 32;
  };
}

describe("batches of n tokens", () => {
  test("a refused batch spends nothing; the advertised wait is exactly enough", () => {
    const clock = new ManualClock(0);
    const rl = memoryRateLimiter({ limitPerMinute: 60, clock }); // a token a second
    expect(rl.take("c", 55)).toEqual({ allowed: true, limit: 60, remaining: 5, retryAfterSec: 0 });
    const refused = { allowed: false, limit: 60, remaining: 0, retryAfterSec: 5 };
    expect(rl.take("c", 10)).toEqual(refused);
    expect(rl.take("c", 10)).toEqual(refused); // the first refusal took nothing
    expect(rl.peek("c")).toMatchObject({ allowed: true, remaining: 5 });
    clock.advance(4_999);
    expect(rl.take("c", 10)).toEqual({ ...refused, retryAfterSec: 1 });
    clock.advance(1);
    expect(rl.take("c", 10)).toEqual({ allowed: true, limit: 60, remaining: 0, retryAfterSec: 0 });
  });

  test("a client that waits Retry-After and resends its batch gets the full rate", () => {
    const clock = new ManualClock(0);
    const rl = memoryRateLimiter({ limitPerMinute: 60, clock });
    let passed = 0;
    while (clock.ms() < 10 * 60_000) {
      const d = rl.take("client", 25);
      if (d.allowed) passed++;
      else clock.advance(d.retryAfterSec * 1000);
    }
    // 60 tokens to start, then 60 a minute: (60 + 600) / 25 batches.
    expect(passed).toBe(Math.floor((60 + 600) / 25));
  });

  test("property: Retry-After is the first whole second at which the same batch passes", () => {
    const rand = prng(7);
    for (let run = 0; run < 300; run++) {
      const clock = new ManualClock(1_700_000_000_000);
      const limit = 1 + Math.floor(rand() * 1000);
      const rl = memoryRateLimiter({ limitPerMinute: limit, clock });
      rl.take("k", limit); // empty
      clock.advance(Math.floor(rand() * 90_000));
      const n = 1 + Math.floor(rand() * limit);
      const first = rl.take("k", n);
      if (first.allowed) continue;
      expect(first.retryAfterSec).toBeGreaterThanOrEqual(1);
      if (first.retryAfterSec > 1) {
        clock.advance((first.retryAfterSec - 1) * 1000);
        expect(rl.take("k", n).allowed).toBe(false);
        clock.advance(1000);
      } else clock.advance(1000);
      expect(rl.take("k", n).allowed).toBe(true);
    }
  });

  test("a batch larger than the limit is impossible, spends nothing and says so", () => {
    const clock = new ManualClock(0);
    const rl = memoryRateLimiter({ limitPerMinute: 5, clock });
    const impossible = { allowed: false, impossible: true as const, limit: 5, remaining: 0, retryAfterSec: 60 };
    expect(rl.take("b", 6)).toEqual(impossible);
    expect(rl.take("b", 5)).toEqual({ allowed: true, limit: 5, remaining: 0, retryAfterSec: 0 });
    expect(rl.take("b", 6)).toEqual(impossible); // impossible even with an empty bucket, not "wait"
    expect(rl.take("b", 1)).toMatchObject({ allowed: false, retryAfterSec: 12 });
    expect(rl.take("b", 1).impossible).toBeUndefined();
  });

  test("a token count that is not a positive integer is a programming error", () => {
    const rl = memoryRateLimiter({ limitPerMinute: 5, clock: new ManualClock(0) });
    for (const n of [0, -1, 1.5, NaN]) expect(() => rl.take("x", n)).toThrow(RangeError);
  });
});

describe("refill", () => {
  test("boundaries are exact to the millisecond, including at rates that do not divide a minute", () => {
    const clock = new ManualClock(0);
    const rl = memoryRateLimiter({ limitPerMinute: 7, clock }); // a token every 8571.43 ms
    rl.take("s", 7);
    expect(rl.take("s")).toMatchObject({ allowed: false, retryAfterSec: 9 });
    clock.advance(8_571);
    expect(rl.take("s").allowed).toBe(false);
    clock.advance(1);
    expect(rl.take("s")).toMatchObject({ allowed: true, remaining: 0 });

    const fast = memoryRateLimiter({ limitPerMinute: 600, clock }); // one per 100 ms
    fast.take("f", 600);
    clock.advance(99);
    expect(fast.take("f").allowed).toBe(false);
    clock.advance(1);
    expect(fast.take("f").allowed).toBe(true);
    clock.advance(30_000 + 100);
    expect(fast.take("f", 300)).toMatchObject({ allowed: true, remaining: 1 });
  });

  test("the largest configurable limit stays exact", () => {
    const clock = new ManualClock(0);
    const limit = 1_000_000_000;
    const rl = memoryRateLimiter({ limitPerMinute: limit, clock });
    expect(rl.take("big", limit)).toMatchObject({ allowed: true, remaining: 0 });
    clock.advance(3);
    expect(rl.take("big", 50_000)).toMatchObject({ allowed: true, remaining: 0 }); // 3 ms = 50,000 tokens
    expect(rl.take("big")).toMatchObject({ allowed: false, retryAfterSec: 1 });
    clock.advance(60_000 * 24 * 365);
    expect(rl.take("big", limit)).toMatchObject({ allowed: true, remaining: 0 }); // full, never more
  });

  test("a clock stepping back mints nothing; stepping forward again resumes the refill", () => {
    const clock = new ManualClock(600_000);
    const rl = memoryRateLimiter({ limitPerMinute: 60, clock });
    rl.take("p", 60);
    clock.set(0);
    expect(rl.take("p")).toMatchObject({ allowed: false, retryAfterSec: 1 });
    clock.set(600_000 + 2_000);
    expect(rl.take("p", 2)).toMatchObject({ allowed: true, remaining: 0 });
  });
});

describe("memory bound", () => {
  test("full buckets are dropped before a live one, however old", () => {
    const clock = new ManualClock(0);
    const key = (i: number) => `f${String(i).padStart(4, "0")}`; // all keys cost the same
    const perBucket = bucketBytes(key(0));
    const rl = memoryRateLimiter({ limitPerMinute: 60, clock, maxBytes: 474 * perBucket });
    rl.take("busy", 60); // oldest, empty for a minute
    for (let i = 0; i < 300; i++) rl.take(key(i)); // refilled within a second
    clock.advance(2_000);
    for (let i = 300; i < 600; i++) rl.take(key(i)); // passes the bound: a sweep
    expect(rl.take("busy", 60)).toMatchObject({ allowed: false, retryAfterSec: 58 });
  });

  test("200k distinct callers stay within maxBytes; a caller that keeps calling is not forgotten", () => {
    const clock = new ManualClock(0);
    const maxBytes = 2 * 1024 * 1024;
    const heap = () => {
      Bun.gc(true);
      return heapStats().heapSize;
    };
    const before = heap();
    const rl = memoryRateLimiter({ limitPerMinute: 60, clock, maxBytes });
    rl.take("abuser", 60);
    for (let i = 0; i < 200_000; i++) {
      rl.take(`ip:10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
      if (i % 1000 === 0) expect(rl.take("abuser").allowed).toBe(false);
    }
    const grown = heap() - before;
    // Unbounded, these 200k buckets take about 29 MB; the estimate per bucket is above the real cost.
    expect(grown).toBeLessThan(maxBytes);
    expect(rl.take("abuser")).toMatchObject({ allowed: false, remaining: 0 });
  });
});
