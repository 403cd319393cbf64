/**
 * Issue 30's reproduction at full scale: a real server process (SQLite, or
 * PostgreSQL under scripts/with-postgres.ts) receives the hostile sequence
 * of test/fixtures/hostile.ts — 200,000 distinct-query REST requests,
 * 20,000 bad tokens of each kind, 20,000 tools/list variants and tools/call
 * with varied arguments, 20,000 distinct public page URLs — while its RSS
 * is read from /proc. Prints RSS after warm-up, each phase's peak, the
 * overall peak and RSS once the memory guard has had a few turns. Not part
 * of `make test` (minutes long); the test that keeps this bounded runs a
 * tenth of it (test/ops/memory-hostile.test.ts).
 *
 *   bun bench/memory.ts                      # SQLite
 *   bun scripts/with-postgres.ts bun bench/memory.ts
 *   BENCH_MEMORY_SCALE=0.1 bun bench/memory.ts
 *   BENCH_MEMORY_SERVER_ARGS=--smol bun bench/memory.ts   (flags for bun itself)
 */
import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../test/db";
import { FULL, runSequence, serve, type Counts } from "../test/fixtures/hostile";

const scale = Number(process.env.BENCH_MEMORY_SCALE ?? 1);
const counts = Object.fromEntries(
  Object.entries(FULL).map(([k, v]) => [k, Math.max(1, Math.round(v * scale))]),
) as unknown as Counts;
const serverArgs = (process.env.BENCH_MEMORY_SERVER_ARGS ?? "").split(" ").filter(Boolean);
// BENCH_MEMORY_HEAP=1: what is live after warm-up and after the sequence (bench/memory-heap.ts; printed at the end).
const heapOut = process.env.BENCH_MEMORY_HEAP ? join(tmpdir(), `plinth-memory-heap-${process.pid}.txt`) : null;
if (heapOut) serverArgs.push("--preload", join(import.meta.dir, "memory-heap.ts"));

const databaseUrl = ON_PG ? await freshDatabaseUrl() : null;
const s = await serve(databaseUrl, serverArgs, heapOut ? { BENCH_MEMORY_HEAP_OUT: heapOut } : {});
const heap = async (label: string) => {
  if (!heapOut) return;
  appendFileSync(heapOut, `${label}: `);
  s.proc.kill("SIGUSR2");
  await Bun.sleep(1500);
};
const f = (mb: number) => mb.toFixed(1);
try {
  console.log(`engine ${ON_PG ? "PostgreSQL" : "SQLite"}, scale ${scale}, server args [${serverArgs.join(" ")}]`);
  console.log(`RSS at start ${f(s.rssMb())} MB`);
  // Warm-up: a hundredth of every kind of request, then a few turns of the memory guard.
  const warm = Object.fromEntries(Object.entries(FULL).map(([k, v]) => [k, Math.ceil(v / 100)])) as unknown as Counts;
  await runSequence(s, warm);
  await Bun.sleep(6000);
  const afterWarm = s.rssMb();
  console.log(`RSS after warm-up ${f(afterWarm)} MB`);
  await heap("after warm-up");
  const t0 = performance.now();
  const { peakMb } = await runSequence(s, counts, {
    onPhase: (name, peak, end) =>
      console.log(
        `  ${name.padEnd(40)} peak ${f(peak)} MB, end ${f(end)} MB (${((performance.now() - t0) / 1000).toFixed(0)} s)`,
      ),
  });
  console.log(`peak under the sequence ${f(peakMb)} MB`);
  await heap("after the sequence");
  let waited = 0;
  for (const at of [2, 4, 10, 30]) {
    await Bun.sleep((at - waited) * 1000);
    waited = at;
    console.log(`  +${at} s: ${f(s.rssMb())} MB`);
  }
  if (heapOut) console.log(readFileSync(heapOut, "utf8"));
} finally {
  if (heapOut) rmSync(heapOut, { force: true });
  await s.stop();
  await dropDatabase(databaseUrl);
}
