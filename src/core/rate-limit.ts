/**
 * Rate limiting: a token bucket per caller (per REST key or MCP credential,
 * or per client address for calls without one).
 *
 * The bucket holds at most `limit` tokens and refills continuously at
 * `limit` tokens per minute, so a caller may burst up to its whole minute's
 * allowance and is then paced at the configured rate. A request takes `n`
 * tokens (an MCP batch costs one per message) all at once or not at all: a
 * refused request spends nothing, so a client that waits the advertised
 * Retry-After and resends the same request is admitted. A request for more
 * tokens than the bucket can ever hold is refused as `impossible`.
 *
 * Levels are kept in integer token-milliseconds (one token is MINUTE_MS
 * units, refill is `limit` units per ms), so refill boundaries are exact:
 * waiting exactly the advertised time always suffices, and the in-memory and
 * Redis limiters (src/core/rate-limit-redis.ts) agree to the millisecond.
 *
 * The limiter sits behind the small `RateLimiter` interface so a shared store
 * can replace the in-memory one for multi-node deployments; `take` may
 * therefore return a promise.
 */
import type { Clock } from "./clock";

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests per minute for this bucket (X-RateLimit-Limit). */
  limit: number;
  /** Whole requests left right now (X-RateLimit-Remaining); 0 when refused. */
  remaining: number;
  /** Whole seconds until the request would be admitted: 0 when allowed, at least 1 when refused. */
  retryAfterSec: number;
  /**
   * Present when the request asked for more tokens than the limit: it can
   * never pass, and the caller should say so instead of advertising a wait.
   */
  impossible?: true;
}

export interface RateLimiter {
  /** Spends `n` tokens of `bucket` if it holds them all, otherwise none. */
  take(bucket: string, n?: number): RateLimitDecision | Promise<RateLimitDecision>;
  /** Whether one token could be taken now, without spending (for CORS preflights). */
  peek(bucket: string): RateLimitDecision | Promise<RateLimitDecision>;
}

/** The in-memory limiter answers synchronously: the REST hot path depends on it. */
export interface MemoryRateLimiter extends RateLimiter {
  take(bucket: string, n?: number): RateLimitDecision;
  peek(bucket: string): RateLimitDecision;
}

export const MINUTE_MS = 60_000;

/** A token in level units; the refill rate is `limit` units per millisecond. */
export const TOKEN = MINUTE_MS;

/** Rejects token counts no caller should ask for; a request costs at least one. */
export function checkTokens(n: number) {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`rate limit: cannot take ${n} tokens`);
}

/**
 * The refusal for `n` > `limit`. It still advertises a full refill's wait so
 * a caller that ignores `impossible` backs off instead of retrying at once.
 */
export function impossibleDecision(limit: number): RateLimitDecision {
  return { allowed: false, limit, remaining: 0, retryAfterSec: MINUTE_MS / 1000, impossible: true };
}

/**
 * The decision for a bucket at `level` units: after spending when allowed,
 * or as it stands when refused. Shared with the Redis limiter so both report
 * the same numbers.
 */
export function bucketDecision(limit: number, level: number, n: number, allowed: boolean): RateLimitDecision {
  if (allowed) return { allowed, limit, remaining: Math.floor(level / TOKEN), retryAfterSec: 0 };
  const missing = n * TOKEN - level;
  const waitMs = Math.ceil(missing / limit);
  return { allowed, limit, remaining: 0, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) };
}

interface Bucket {
  /** Token-milliseconds available at `at`. */
  level: number;
  at: number;
}

/**
 * Heap cost of one tracked bucket: its Map entry (with the table's growth
 * slack), the Bucket object and the key string. Measured on Bun 1.4.5
 * (bun:jsc heapStats after a flood of 200k distinct callers) at 170 to 340
 * bytes for keys of 8 to 120 Latin-1 characters; the estimate stays above
 * that and counts two bytes a character, as non-Latin-1 keys take.
 */
export const bucketBytes = (key: string) => 224 + 2 * key.length;

/** A byte-triggered sweep frees down to this share of `maxBytes`, so the next one is far off. */
const LOW_WATER = 7 / 8;

export function memoryRateLimiter(opts: {
  limitPerMinute: number;
  clock: Clock;
  /** From this many buckets, refilled ones are dropped early (lossless; live buckets are kept). */
  maxBuckets?: number;
  /** Hard bound on the estimated memory held (bucketBytes per bucket); default 16 MiB. */
  maxBytes?: number;
}): MemoryRateLimiter {
  const limit = opts.limitPerMinute;
  const capacity = limit * TOKEN;
  const maxBuckets = opts.maxBuckets ?? 100_000;
  const maxBytes = opts.maxBytes ?? 16 * 1024 * 1024;
  /**
   * Map order approximates least recently used first: a bucket moves to the
   * end on its first take after each sweep (`at` is its last take), which
   * costs the hot path a comparison rather than a reinsertion per take.
   */
  const buckets = new Map<string, Bucket>();
  let bytes = 0;
  let lastSweep = opts.clock.ms();
  let sweepAtCount = maxBuckets;

  /**
   * The bucket's level at `now`. A clock that steps backwards must not mint
   * or burn tokens. A full refill takes a minute, so longer gaps are cut
   * short before multiplying (keeps the product an exact integer).
   */
  const levelAt = (b: Bucket, now: number) =>
    Math.min(capacity, b.level + Math.min(MINUTE_MS, Math.max(0, now - b.at)) * limit);

  function refill(b: Bucket, now: number) {
    b.level = levelAt(b, now);
    b.at = Math.max(b.at, now);
  }

  function forget(key: string) {
    buckets.delete(key);
    bytes -= bucketBytes(key);
  }

  /**
   * Drops buckets that have refilled completely: they hold nothing a fresh
   * bucket would not. If the estimate still exceeds `budget`, the least
   * recently used go next; forgetting one of those hands its caller a full
   * bucket early, the price of bounded memory under a flood of callers.
   */
  function sweep(now: number, budget: number) {
    lastSweep = now;
    for (const [k, b] of buckets) if (levelAt(b, now) >= capacity) forget(k);
    for (const k of buckets.keys()) {
      if (bytes <= budget) break;
      forget(k);
    }
    // A table full of live buckets is not rescanned for every new caller.
    sweepAtCount = Math.max(maxBuckets, buckets.size + Math.ceil(maxBuckets / 8));
  }

  function bucket(key: string, now: number): Bucket {
    let b = buckets.get(key);
    if (b) {
      if (b.at <= lastSweep) {
        buckets.delete(key);
        buckets.set(key, b);
      }
      refill(b, now);
      return b;
    }
    const cost = bucketBytes(key);
    if (bytes + cost > maxBytes) sweep(now, maxBytes * LOW_WATER - cost);
    else if (buckets.size >= sweepAtCount) sweep(now, maxBytes - cost);
    b = { level: capacity, at: now };
    buckets.set(key, b);
    bytes += cost;
    return b;
  }

  return {
    take(key, n = 1) {
      checkTokens(n);
      if (n > limit) return impossibleDecision(limit);
      const now = opts.clock.ms();
      if (now - lastSweep >= MINUTE_MS) sweep(now, maxBytes);
      const b = bucket(key, now);
      const need = n * TOKEN;
      if (b.level < need) return bucketDecision(limit, b.level, n, false);
      b.level -= need;
      return bucketDecision(limit, b.level, n, true);
    },
    peek(key) {
      const b = buckets.get(key);
      if (!b) return bucketDecision(limit, capacity, 1, true);
      const level = levelAt(b, opts.clock.ms());
      return bucketDecision(limit, level, 1, level >= TOKEN);
    },
  };
}
