/**
 * Limits shared by every instance behind one load balancer, kept in Redis:
 * the token bucket of src/core/rate-limit.ts and the fixed-window attempt
 * counter of src/core/attempts.ts. With per-process state, N instances
 * would each admit a caller's whole allowance: N times the configured limit.
 *
 * Each decision is one Lua script, so concurrent takes on one bucket from any
 * number of connections cannot both spend the same tokens. The time is the
 * caller's injected clock passed as an argument, not Redis's TIME: instances
 * run NTP-synced clocks, tests drive a ManualClock, and both implementations
 * then compute identical decisions from identical inputs.
 *
 * Redis being unreachable must not take the service down: decisions then fail
 * open (admit; the limits are not enforced), one log line per connection at
 * most every 10 seconds says so, and `healthy()` reports it for /readyz.
 */
import type Redis from "ioredis";
import type { AttemptCounter } from "./attempts";
import type { Clock } from "./clock";
import {
  bucketDecision,
  checkTokens,
  impossibleDecision,
  MINUTE_MS,
  TOKEN,
  type RateLimitDecision,
  type RateLimiter,
} from "./rate-limit";

/**
 * The bucket is a hash of `l`, its level in token-milliseconds, and `t`, the
 * clock time of that level; the arithmetic is rate-limit.ts's (integers, exact
 * in Lua's doubles, written with %.17g so nothing is rounded). It expires when
 * it would have refilled, so idle callers leave nothing behind.
 * ARGV: now, limit per minute, tokens wanted, 1 to spend or 0 to peek.
 * Returns {1 if admitted, the level after spending or as it stands}.
 */
const TAKE_TOKENS = `
local now, limit, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local minute = ${MINUTE_MS}
local cap = limit * ${TOKEN}
local s = redis.call('HMGET', KEYS[1], 'l', 't')
local level, at = tonumber(s[1]), tonumber(s[2])
if level == nil or at == nil then
  level, at = cap, now
elseif now > at then
  level = level + math.min(now - at, minute) * limit
  at = now
end
-- Also covers a bucket filled by an instance configured with a higher limit.
level = math.min(level, cap)
local need = n * ${TOKEN}
local ok = level >= need
if ARGV[4] == '1' then
  if ok then level = level - need end
  redis.call('HSET', KEYS[1], 'l', string.format('%.17g', level), 't', string.format('%.17g', at))
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', math.ceil((cap - level) / limit)))
end
return {ok and 1 or 0, string.format('%.17g', level)}
`;

/**
 * The window is a hash of `s`, the clock time it started, and `c`, the
 * attempts counted in it; WindowCounter's rules, and it expires with the
 * window. ARGV: now, limit, window ms, and the mode: 'blocked' only answers,
 * 'hit' counts unless over the limit, 'add' counts regardless.
 * Returns the milliseconds to wait (0 when not blocked or after counting).
 */
const COUNT_ATTEMPT = `
local now, limit, win, mode = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]
local s = redis.call('HMGET', KEYS[1], 's', 'c')
local start, count = tonumber(s[1]), tonumber(s[2])
local live = start ~= nil and count ~= nil and now - start < win
if mode ~= 'add' and live and count >= limit then return string.format('%.17g', start + win - now) end
if mode == 'blocked' then return '0' end
if live then
  redis.call('HINCRBY', KEYS[1], 'c', 1)
else
  redis.call('HSET', KEYS[1], 's', string.format('%.17g', now), 'c', 1)
  redis.call('PEXPIRE', KEYS[1], string.format('%.0f', win))
end
return '0'
`;

interface Scripts {
  plinthTakeTokens(key: string, now: number, limit: number, n: number, spend: 0 | 1): Promise<[number, string]>;
  plinthCountAttempt(
    key: string,
    now: number,
    limit: number,
    windowMs: number,
    mode: "blocked" | "hit" | "add",
  ): Promise<string>;
}

/** Loaded once per connection, then sent by hash (ioredis falls back to EVAL on NOSCRIPT). */
function scripted(redis: Redis): Redis & Scripts {
  redis.defineCommand("plinthTakeTokens", { numberOfKeys: 1, lua: TAKE_TOKENS });
  redis.defineCommand("plinthCountAttempt", { numberOfKeys: 1, lua: COUNT_ATTEMPT });
  return redis as Redis & Scripts;
}

const LOG_EVERY_MS = 10_000;
/**
 * How long a failure marks the connection unhealthy without a success since:
 * an instance taken out of rotation for it gets no traffic to prove Redis
 * back, so the mark must fade by itself.
 */
const FAILURE_SHOWS_MS = 10_000;

interface Health {
  ok: boolean;
  failedAt: number;
  loggedAt: number;
}

/** Per connection: the limiters and counters sharing a client report one outage once. */
const health = new WeakMap<Redis, Health>();

export interface RedisLimitOptions {
  /** An ioredis client; its connection is the caller's to open and close. */
  redis: Redis;
  /** The time decisions are made at (the limiter), and the outage log is paced by. */
  clock: Clock;
  /** A call without a reply within this many ms is treated as Redis down (fails open). Default 200. */
  timeoutMs?: number;
  /** Where the outage line goes; default console.error. */
  log?: (line: string) => void;
}

/** Runs `op` against Redis, or answers `fallback()` when Redis is not connected, fails or is slow. */
function guard(opts: RedisLimitOptions, what: string) {
  const { redis, clock } = opts;
  const timeoutMs = opts.timeoutMs ?? 200;
  const log = opts.log ?? console.error;
  const state = health.get(redis) ?? { ok: true, failedAt: -Infinity, loggedAt: -Infinity };
  health.set(redis, state);

  function failed(reason: string) {
    const now = clock.ms();
    state.ok = false;
    state.failedAt = now;
    if (now - state.loggedAt < LOG_EVERY_MS) return;
    state.loggedAt = now;
    log(`${what}: Redis unavailable (${reason}); not enforced until it answers again`);
  }

  return {
    async run<T>(op: () => Promise<T>, fallback: () => T): Promise<T> {
      // Not connected: answer at once rather than queue behind a reconnect.
      if (redis.status !== "ready") {
        failed(`connection ${redis.status}`);
        return fallback();
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      try {
        const late = new Promise<never>((_, reject) => {
          timer = setTimeout(() => reject(new Error(`no reply within ${timeoutMs} ms`)), timeoutMs);
        });
        const value = await Promise.race([op(), late]);
        state.ok = true;
        return value;
      } catch (e) {
        failed(e instanceof Error ? e.message : String(e));
        return fallback();
      } finally {
        clearTimeout(timer);
      }
    },
    healthy: () => redis.status === "ready" && (state.ok || clock.ms() - state.failedAt >= FAILURE_SHOWS_MS),
  };
}

export interface RedisRateLimiter extends RateLimiter {
  take(bucket: string, n?: number): Promise<RateLimitDecision>;
  peek(bucket: string): Promise<RateLimitDecision>;
  /** False while Redis is not connected, or failed in the last 10 s with no success since: requests are then admitted unchecked. */
  healthy(): boolean;
}

/**
 * The token bucket of memoryRateLimiter, shared through Redis. Each instance
 * passes the same `limitPerMinute`; give the REST and MCP limiters distinct
 * prefixes (their bucket names may coincide).
 */
export function redisRateLimiter(
  opts: RedisLimitOptions & {
    limitPerMinute: number;
    /** Key prefix; the bucket name follows. Default "plinth:rate:". */
    prefix?: string;
  },
): RedisRateLimiter {
  const limit = opts.limitPerMinute;
  const prefix = opts.prefix ?? "plinth:rate:";
  const redis = scripted(opts.redis);
  const g = guard(opts, "rate limit");

  const ask = (bucket: string, n: number, spend: 0 | 1, fallback: () => RateLimitDecision) =>
    g.run(async () => {
      const [ok, level] = await redis.plinthTakeTokens(prefix + bucket, opts.clock.ms(), limit, n, spend);
      return bucketDecision(limit, Number(level), n, ok === 1);
    }, fallback);

  return {
    async take(bucket, n = 1) {
      checkTokens(n);
      if (n > limit) return impossibleDecision(limit);
      return ask(bucket, n, 1, () => bucketDecision(limit, (limit - n) * TOKEN, n, true));
    },
    peek(bucket) {
      return ask(bucket, 1, 0, () => bucketDecision(limit, limit * TOKEN, 1, true));
    },
    healthy: g.healthy,
  };
}

export interface RedisAttemptCounter extends AttemptCounter {
  blockedFor(key: string, now: number): Promise<number>;
  add(key: string, now: number): Promise<void>;
  hit(key: string, now: number): Promise<number>;
  clear(key: string): Promise<void>;
  /** False while Redis is not connected, or failed in the last 10 s with no success since: no attempt is then blocked. */
  healthy(): boolean;
}

/**
 * WindowCounter's fixed windows, shared through Redis. Every counter needs
 * its own `prefix` (sign-ins per email, per address, registrations...).
 */
export function redisWindowCounter(
  opts: RedisLimitOptions & {
    limit: number;
    windowMs: number;
    /** Key prefix; the counted key follows. */
    prefix: string;
  },
): RedisAttemptCounter {
  const { limit, windowMs, prefix } = opts;
  const redis = scripted(opts.redis);
  const g = guard(opts, "attempt limit");
  const count = (key: string, now: number, mode: "blocked" | "hit" | "add") =>
    g.run(
      async () => Number(await redis.plinthCountAttempt(prefix + key, now, limit, windowMs, mode)),
      () => 0,
    );

  return {
    blockedFor: (key, now) => count(key, now, "blocked"),
    hit: (key, now) => count(key, now, "hit"),
    async add(key, now) {
      await count(key, now, "add");
    },
    async clear(key) {
      await g.run(
        async () => void (await redis.del(prefix + key)),
        () => undefined,
      );
    },
    healthy: g.healthy,
  };
}
