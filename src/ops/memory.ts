/**
 * Keeps the process's memory near what it really holds. Every in-process
 * cache is bounded in bytes; what remains is garbage the collector has not
 * got round to — after a flood of large requests that can be hundreds of MB
 * for a long while. So every few seconds, when RSS is above a soft limit
 * (PLINTH_MEMORY_SOFT_LIMIT_MB, default 160), a full collection runs. It
 * costs a few milliseconds, and only while memory is high.
 */
export function startMemoryGuard(softLimitMb: number, everyMs = 2000): () => void {
  const limit = softLimitMb * 1024 * 1024;
  const timer = setInterval(() => {
    if (process.memoryUsage.rss() > limit) Bun.gc(true);
  }, everyMs);
  timer.unref();
  return () => clearInterval(timer);
}
