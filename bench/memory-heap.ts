/**
 * Preloaded into the server by `BENCH_MEMORY_HEAP=1 bun bench/memory.ts`:
 * on SIGUSR2 the server runs a full collection and appends what is still
 * live to $BENCH_MEMORY_HEAP_OUT — JSC's heap and extra (off-heap, e.g.
 * ArrayBuffer) sizes, RSS, and the object types with the most instances —
 * so a run tells live data (a cache that grew) from garbage or memory the
 * allocator keeps.
 */
import { appendFileSync } from "node:fs";
import { heapStats } from "bun:jsc";

const out = process.env.BENCH_MEMORY_HEAP_OUT ?? "/tmp/plinth-memory-heap.txt";
process.on("SIGUSR2", () => {
  const before = process.memoryUsage.rss();
  Bun.gc(true);
  const h = heapStats();
  const m = process.memoryUsage();
  const top = Object.entries(h.objectTypeCounts)
    .sort((a, b) => b[1] - a[1])
    .slice(0, 25)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ");
  const mb = (n: number) => (n / 1048576).toFixed(1);
  appendFileSync(
    out,
    `rss ${mb(before)} -> ${mb(m.rss)} MB after gc; heapSize ${mb(h.heapSize)} heapCapacity ${mb(h.heapCapacity)} extra ${mb(h.extraMemorySize)} arrayBuffers ${mb(m.arrayBuffers)} objects ${h.objectCount}\n  ${top}\n`,
  );
});
