/**
 * REST rate limiting: a token bucket per caller (per REST key, or per client
 * address for calls without a valid key).
 *
 * The bucket holds at most `limit` tokens and refills continuously at
 * `limit` tokens per minute, so a caller may burst up to its whole minute's
 * allowance and is then paced at the configured rate. Each request takes one
 * token; with none left the request is refused (429) and `retryAfterSec`
 * says when the next token arrives: the moment the caller's window has
 * room again.
 *
 * The limiter sits behind the small `RateLimiter` interface so a shared store
 * (Redis, a database) can replace the in-memory one for multi-node
 * deployments; `take` may therefore return a promise.
 */
import type { Clock } from "./clock";

export interface RateLimitDecision {
  allowed: boolean;
  /** Requests per minute for this bucket (X-RateLimit-Limit). */
  limit: number;
  /** Whole requests left right now (X-RateLimit-Remaining); 0 when refused. */
  remaining: number;
  /** Whole seconds until the next request would be admitted; 0 when allowed. */
  retryAfterSec: number;
}

export interface RateLimiter {
  /** Spends one token of `bucket` if there is one. */
  take(bucket: string): RateLimitDecision | Promise<RateLimitDecision>;
  /** The bucket's state without spending (for CORS preflights). */
  peek(bucket: string): RateLimitDecision | Promise<RateLimitDecision>;
}

/** The in-memory limiter answers synchronously. */
export interface MemoryRateLimiter extends RateLimiter {
  take(bucket: string): RateLimitDecision;
  peek(bucket: string): RateLimitDecision;
}

interface Bucket {
  tokens: number;
  at: number;
}

const MINUTE_MS = 60_000;

export function memoryRateLimiter(opts: { limitPerMinute: number; clock: Clock; maxBuckets?: number }): MemoryRateLimiter {
  const limit = opts.limitPerMinute;
  const perMs = limit / MINUTE_MS;
  const maxBuckets = opts.maxBuckets ?? 100_000;
  const buckets = new Map<string, Bucket>();
  let lastSweep = opts.clock.ms();

  function refill(b: Bucket, now: number) {
    // A clock that steps backwards must not mint or burn tokens.
    const elapsed = Math.max(0, now - b.at);
    b.tokens = Math.min(limit, b.tokens + elapsed * perMs);
    b.at = Math.max(b.at, now);
  }

  /**
   * Forget buckets that have refilled completely: they hold no information
   * a fresh bucket would not. Keeps memory bounded by recent callers.
   */
  function sweep(now: number) {
    if (now - lastSweep < MINUTE_MS && buckets.size < maxBuckets) return;
    lastSweep = now;
    for (const [k, b] of buckets) {
      refill(b, now);
      if (b.tokens >= limit) buckets.delete(k);
    }
  }

  function decide(b: Bucket, allowed: boolean): RateLimitDecision {
    return {
      allowed,
      limit,
      remaining: allowed ? Math.floor(b.tokens) : 0,
      retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil((1 - b.tokens) / perMs / 1000)),
    };
  }

  return {
    take(key) {
      const now = opts.clock.ms();
      sweep(now);
      let b = buckets.get(key);
      if (!b) {
        b = { tokens: limit, at: now };
        buckets.set(key, b);
      } else refill(b, now);
      if (b.tokens >= 1) {
        b.tokens -= 1;
        return decide(b, true);
      }
      return decide(b, false);
    },
    peek(key) {
      const b = buckets.get(key);
      if (!b) return { allowed: true, limit, remaining: limit, retryAfterSec: 0 };
      const copy = { ...b };
      refill(copy, opts.clock.ms());
      return decide(copy, copy.tokens >= 1);
    },
  };
}
