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
 */
const MAX_BACKOFF = 32;
const MIN_FREED_BYTES = 1024 * 1024;
const REGROW_BYTES = 32 * 1024 * 1024;

export class MemoryGuard {
  private backoff = 1;
  private skip = 0;
  private after = 0;
  /** Full collections run so far. */
  collections = 0;

  constructor(
    private readonly limitBytes: number,
    private readonly rss: () => number = () => process.memoryUsage.rss(),
    private readonly collect: () => void = () => Bun.gc(true),
  ) {}

  /** One check; true when it collected. */
  tick(): boolean {
    const before = this.rss();
    // Ticks under the limit count towards the wait too.
    if (before <= this.limitBytes || (this.skip > 0 && before < this.after + REGROW_BYTES)) {
      if (this.skip > 0) this.skip--;
      return false;
    }
    this.collect();
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
