/**
 * Keeps the process's memory near what it really holds. Every in-process
 * cache is bounded in bytes (src/core/memory-budget.ts); what remains is
 * garbage the collector has not got round to — after a flood of large
 * requests that can be hundreds of MB for a long while. So every half
 * second, when RSS is above a soft limit (PLINTH_MEMORY_SOFT_LIMIT_MB,
 * default 160), a full collection runs.
 *
 * Why so often: JSC paces its collections by the heap it sees, but much of
 * a request's garbage is native (request and response bodies, headers,
 * Blobs) and freed only when their small JS wrappers are collected. Under a
 * flood of distinct requests RSS rose ~100 MB in the two seconds between
 * ticks (issue 30, bench/memory.ts); reading RSS costs microseconds, so
 * the guard looks every 500 ms and collects at once when RSS has grown by
 * REGROW_BYTES since the last collection.
 *
 * A full collection takes 40–80 ms of the server's only thread. One that
 * freed (next to) nothing and left RSS above the limit says the memory is
 * live, or kept by the allocator: repeating it every tick would only burn
 * that time. Then the guard waits 2, 4, 8… up to MAX_BACKOFF ticks before
 * the next, unless RSS grows by REGROW_BYTES meanwhile (a new flood); any
 * collection that frees something keeps the every-tick cadence, which is
 * what brings RSS back down after a flood.
 *
 * Under steady load RSS sits above the limit with a few MB of churn that
 * every collection frees (measured: 190–215 MB under MCP load, ~8 MB freed
 * by each 50 ms collection), so that rule alone collected every tick for as
 * long as the load lasted: 2.5 % of the server's time for nothing the
 * collector would not reclaim anyway. So collections also keep to a share
 * of wall time (MAX_SHARE): after one that took d ms the next waits
 * d / MAX_SHARE, unless RSS grows by REGROW_BYTES meanwhile.
 *
 * After a flood a full collection leaves the live heap small again (heap
 * statistics: the same ~60 MB as before it), but RSS stayed 15–25 MB above
 * where it started for as long as we watched: the allocators keep the
 * pages they freed. Bun.shrink() hands them back (with a collection of its
 * own, and JIT code dropped, to be compiled again as requests come), so it
 * runs once per flood: on the first tick after a collection that freed
 * FLOOD_FREED_BYTES at which RSS holds steady (the flood is over) and still
 * above the limit, and at most once in 20 s (under steady heavy load the
 * same signs can recur, and compiled code dropped every few seconds would
 * cost more than the pages are worth). Measured (test/ops/memory-hostile.test.ts' sequence):
 * RSS 10 s after the flood 204 MB without it, 189 MB with it.
 */
const MAX_SHARE = 0.01;
const MAX_BACKOFF = 32;
const MIN_FREED_BYTES = 1024 * 1024;
const REGROW_BYTES = 32 * 1024 * 1024;
const FLOOD_FREED_BYTES = 16 * 1024 * 1024;
const STEADY_BYTES = 2 * 1024 * 1024;
const SHRINK_EVERY_MS = 20_000;

export class MemoryGuard {
  private backoff = 1;
  private skip = 0;
  private after = 0;
  /** No collection before this time (ms, `now`) unless RSS regrows: the MAX_SHARE budget. */
  private restUntil = -Infinity;
  /** Full collections run so far. */
  collections = 0;
  /** Shrinks run so far (one after each flood). */
  shrinks = 0;
  /** RSS at the last tick (or after its collection). */
  private lastRss = 0;
  /** A collection freed a flood's worth since the last shrink. */
  private flooded = false;
  private lastShrink = -Infinity;

  constructor(
    private readonly limitBytes: number,
    private readonly rss: () => number = () => process.memoryUsage.rss(),
    private readonly collect: () => void = () => Bun.gc(true),
    private readonly now: () => number = () => performance.now(),
    // Deprecated in Bun's types, but the only call that hands the allocators' free pages back (see above).
    private readonly shrink: () => void = () => Bun.shrink(),
  ) {}

  /** One check; true when it collected (or shrank). */
  tick(): boolean {
    const before = this.rss();
    const steady = Math.abs(before - this.lastRss) < STEADY_BYTES;
    this.lastRss = before;
    // Ticks under the limit count towards the wait too.
    if (before <= this.limitBytes) {
      this.flooded = false;
      if (this.skip > 0) this.skip--;
      return false;
    }
    if (this.flooded && steady && this.now() - this.lastShrink >= SHRINK_EVERY_MS) {
      this.flooded = false;
      this.shrinks++;
      this.shrink();
      this.lastShrink = this.now();
      return true;
    }
    if (this.skip > 0 && before < this.after + REGROW_BYTES) {
      this.skip--;
      return false;
    }
    const t0 = this.now();
    if (t0 < this.restUntil && before < this.after + REGROW_BYTES) return false;
    this.collect();
    const t1 = this.now();
    this.restUntil = t1 + (t1 - t0) / MAX_SHARE;
    this.collections++;
    this.after = this.lastRss = this.rss();
    if (before - this.after >= FLOOD_FREED_BYTES) this.flooded = true;
    if (this.after > this.limitBytes && before - this.after < MIN_FREED_BYTES) {
      this.backoff = Math.min(this.backoff * 2, MAX_BACKOFF);
      this.skip = this.backoff - 1;
    } else {
      this.backoff = 1;
      this.skip = 0;
    }
    return true;
  }
}

export function startMemoryGuard(softLimitMb: number, everyMs = 500): () => void {
  const guard = new MemoryGuard(softLimitMb * 1024 * 1024);
  const timer = setInterval(() => guard.tick(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
