/**
 * Keeps the process's memory near what it really holds. Every in-process
 * cache is bounded in bytes; what remains is garbage the collector has not
 * got round to — after a flood of large requests that can be hundreds of MB
 * for a long while. So every few seconds, when RSS is above a soft limit
 * (PLINTH_MEMORY_SOFT_LIMIT_MB, default 160), a full collection runs.
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
 */
const MAX_SHARE = 0.01;
const MAX_BACKOFF = 32;
const MIN_FREED_BYTES = 1024 * 1024;
const REGROW_BYTES = 32 * 1024 * 1024;

export class MemoryGuard {
  private backoff = 1;
  private skip = 0;
  private after = 0;
  /** No collection before this time (ms, `now`) unless RSS regrows: the MAX_SHARE budget. */
  private restUntil = -Infinity;
  /** Full collections run so far. */
  collections = 0;

  constructor(
    private readonly limitBytes: number,
    private readonly rss: () => number = () => process.memoryUsage.rss(),
    private readonly collect: () => void = () => Bun.gc(true),
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** One check; true when it collected. */
  tick(): boolean {
    const before = this.rss();
    // Ticks under the limit count towards the wait too.
    if (before <= this.limitBytes || (this.skip > 0 && before < this.after + REGROW_BYTES)) {
      if (this.skip > 0) this.skip--;
      return false;
    }
    const t0 = this.now();
    if (t0 < this.restUntil && before < this.after + REGROW_BYTES) return false;
    this.collect();
    const t1 = this.now();
    this.restUntil = t1 + (t1 - t0) / MAX_SHARE;
    this.collections++;
    this.after = this.rss();
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

export function startMemoryGuard(softLimitMb: number, everyMs = 2000): () => void {
  const guard = new MemoryGuard(softLimitMb * 1024 * 1024);
  const timer = setInterval(() => guard.tick(), everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
