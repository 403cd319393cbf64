/**
 * Counting attempts per key in fixed windows (failed sign-ins per email and
 * per address, client registrations per address). WindowCounter keeps state
 * in memory, per server: for a single process a restart forgetting a lockout
 * is an acceptable trade for no writes on every failed attempt; instances
 * behind one load balancer share a Redis counter instead (AttemptCounter).
 * Time comes from the injected Clock so tests move it instead of sleeping.
 */

/** Above this many tracked keys, finished windows are swept before adding more. */
const MAX_KEYS = 50_000;

/**
 * Failed attempts per key in fixed windows. WindowCounter answers from
 * memory; the Redis counter (src/core/rate-limit-redis.ts) shares counts
 * across instances and answers with promises, so callers await every result.
 */
export interface AttemptCounter {
  /** Milliseconds until `key` may try again, or 0 when it is under the limit. */
  blockedFor(key: string, now: number): number | Promise<number>;
  /** Counts one attempt. */
  add(key: string, now: number): void | Promise<void>;
  /** Counts an attempt and returns the wait, if this attempt is over the limit. */
  hit(key: string, now: number): number | Promise<number>;
  /** Forgets `key`'s window (after a successful sign-in). */
  clear(key: string): void | Promise<void>;
}

export class WindowCounter implements AttemptCounter {
  private windows = new Map<string, { start: number; count: number }>();
  constructor(
    readonly limit: number,
    readonly windowMs: number,
  ) {}

  /** Milliseconds until `key` may try again, or 0 when it is under the limit. */
  blockedFor(key: string, now: number): number {
    const w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) return 0;
    return w.count >= this.limit ? w.start + this.windowMs - now : 0;
  }

  /** Counts one attempt. */
  add(key: string, now: number) {
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      if (this.windows.size >= MAX_KEYS) this.sweep(now);
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count++;
  }

  /** Counts an attempt and returns the wait, if this attempt is over the limit. */
  hit(key: string, now: number): number {
    const wait = this.blockedFor(key, now);
    if (wait > 0) return wait;
    this.add(key, now);
    return 0;
  }

  clear(key: string) {
    this.windows.delete(key);
  }

  private sweep(now: number) {
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(k);
    // Still full of live windows: forget the oldest rather than grow without bound.
    if (this.windows.size >= MAX_KEYS) this.windows.delete(this.windows.keys().next().value!);
  }
}
