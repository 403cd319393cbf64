/**
 * The limits an instance enforces, built from its dependencies: in memory
 * for one process, in Redis when PLINTH_REDIS_URL is set so every instance
 * behind a balancer spends from the same allowance (a key limited to N per
 * minute gets N in total, not N per instance).
 */
import { WindowCounter, type AttemptCounter } from "./attempts";
import type { Deps } from "./context";
import { BUDGET } from "./memory-budget";
import { memoryRateLimiter, type RateLimiter } from "./rate-limit";
import { redisRateLimiter, redisWindowCounter } from "./rate-limit-redis";

/**
 * A token bucket per caller; `name` keeps different limits' buckets apart in
 * Redis. In memory each limiter holds at most its share of the budget
 * (src/core/memory-budget.ts): the REST and MCP limits, which every API
 * request takes from, BUDGET.rateLimitMain; the others BUDGET.rateLimitOther.
 */
export function rateLimiter(deps: Pick<Deps, "redis" | "clock">, name: string, limitPerMinute: number): RateLimiter {
  return deps.redis
    ? redisRateLimiter({ redis: deps.redis, clock: deps.clock, limitPerMinute, prefix: `plinth:rate:${name}:` })
    : memoryRateLimiter({
        limitPerMinute,
        clock: deps.clock,
        maxBytes: name === "rest" || name === "mcp" ? BUDGET.rateLimitMain : BUDGET.rateLimitOther,
      });
}

/** Attempts per key in fixed windows (sign-in failures, client registrations). */
export function attemptCounter(
  deps: Pick<Deps, "redis" | "clock">,
  name: string,
  limit: number,
  windowMs: number,
): AttemptCounter {
  return deps.redis
    ? redisWindowCounter({ redis: deps.redis, clock: deps.clock, limit, windowMs, prefix: `plinth:attempts:${name}:` })
    : new WindowCounter(limit, windowMs);
}
