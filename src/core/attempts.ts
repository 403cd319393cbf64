/**
 * Counting attempts per key in fixed windows (failed sign-ins per email and
 * per address, client registrations per address). WindowCounter keeps state
 * in memory, per server: for a single process a restart forgetting a lockout
 * is an acceptable trade for no writes on every failed attempt; instances
 * behind one load balancer share a Redis counter instead (AttemptCounter).
 * Time comes from the injected Clock so tests move it instead of sleeping.
 */

import { createHash } from "node:crypto";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "./memory-budget";

/** Longer keys (an address or an email a client chose) are kept as their hash, so an entry's size is bounded. */
const MAX_KEY_CHARS = 64;
const keyOf = (key: string): string =>
  key.length <= MAX_KEY_CHARS ? key : `#${createHash("sha256").update(key).digest("base64url")}`;
/** The window object and its two numbers. */
const WINDOW_BYTES = 48;

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
  private held = 0;
  constructor(
    readonly limit: number,
    readonly windowMs: number,
    /** What the windows may hold; past it finished windows are swept, then the oldest go (BUDGET.attempts). */
    private readonly maxBytes: number = BUDGET.attempts,
  ) {}

  /** The bytes the windows hold, as counted against maxBytes. */
  get bytes(): number {
    return this.held;
  }

  /** Milliseconds until `key` may try again, or 0 when it is under the limit. */
  blockedFor(key: string, now: number): number {
    const w = this.windows.get(keyOf(key));
    if (!w || now - w.start >= this.windowMs) return 0;
    return w.count >= this.limit ? w.start + this.windowMs - now : 0;
  }

  /** Counts one attempt. */
  add(key: string, now: number) {
    const k = keyOf(key);
    let w = this.windows.get(k);
    if (!w || now - w.start >= this.windowMs) {
      const size = ENTRY_OVERHEAD + WINDOW_BYTES + stringBytes(k);
      if (!w && this.held + size > this.maxBytes) this.sweep(now, this.maxBytes - size);
      if (!w) this.held += size;
      w = { start: now, count: 0 };
      this.windows.set(k, w);
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
    this.forget(keyOf(key));
  }

  private forget(k: string) {
    if (this.windows.delete(k)) this.held -= ENTRY_OVERHEAD + WINDOW_BYTES + stringBytes(k);
  }

  /** Down to `room` bytes: finished windows first, then (still full of live ones) the oldest, rather than grow without bound. */
  private sweep(now: number, room: number) {
    for (const [k, w] of this.windows) if (now - w.start >= this.windowMs) this.forget(k);
    while (this.held > room && this.windows.size > 0) this.forget(this.windows.keys().next().value!);
  }
}
