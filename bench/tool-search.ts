/**
 * tools_search (src/mcp/tool-search.ts) in process, no database: how long the
 * index takes to build and how much heap it holds, and the time per query
 * over the everyday requests of test/mcp/search-queries.ts through the
 * tool's own handler (scope filter, ranking, entries), with the top-1 and
 * top-3 hit rates with and without the domains' vocabulary. The figures in
 * bench/README.md "Tool search" come from here.
 *
 *   bun bench/tool-search.ts        # BENCH_SEARCH_ROUNDS (default 5)
 */
import { buildCatalog } from "../src/mcp/catalog";
import * as v from "valibot";
import type { Principal } from "../src/core/context";
import { domains } from "../src/domains";
import { DISCOVERY_LISTED } from "../src/mcp/discovery";
import { buildRegistry, type Registry } from "../src/mcp/registry";
import { buildToolSearch } from "../src/mcp/tool-search";
import { SEARCH_QUERIES } from "../test/mcp/search-queries";

const ROUNDS = Number(process.env.BENCH_SEARCH_ROUNDS ?? 5);
const principal = {
  userId: 1,
  scopes: ["*"],
  companies: [{ id: 1, name: "Acme", role: "owner" }],
  requireCmsApproval: false,
} as unknown as Principal;

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * p)]!;

async function run(reg: Registry, query: string): Promise<string[]> {
  const tool = reg.byName.get("tools_search")!.def;
  const ctx = { principal, requestId: "bench" } as Parameters<typeof tool.run>[0];
  const r = (await tool.run(ctx, v.parse(tool.input, { query, limit: 3 }))) as { tools: { name: string }[] };
  return r.tools.map((t) => t.name);
}

async function rates(reg: Registry) {
  let top1 = 0;
  let top3 = 0;
  for (const { q, want } of SEARCH_QUERIES) {
    const got = await run(reg, q);
    if (want.includes(got[0] ?? "")) top1++;
    if (got.some((n) => want.includes(n))) top3++;
  }
  return `top-1 ${((100 * top1) / SEARCH_QUERIES.length).toFixed(1)} %, top-3 ${((100 * top3) / SEARCH_QUERIES.length).toFixed(1)} %`;
}

const reg = buildRegistry(buildCatalog(domains));
const tools = reg.tools.filter((t) => !DISCOVERY_LISTED.has(t.def.name));

// Build: the first one warms the code, then ten are timed and kept alive to weigh them.
buildToolSearch(tools, reg.toolsets, domains);
const heap = () => {
  Bun.gc(true);
  return process.memoryUsage().heapUsed;
};
const kept: unknown[] = [];
const before = heap();
const builds: number[] = [];
for (let i = 0; i < 10; i++) {
  const t0 = performance.now();
  kept.push(buildToolSearch(tools, reg.toolsets, domains));
  builds.push(performance.now() - t0);
}
const perIndex = (heap() - before) / kept.length;

// Queries: the first pass builds the registry's index and is discarded.
for (const { q } of SEARCH_QUERIES) await run(reg, q);
const rounds: number[] = [];
const each: number[] = [];
// Each query's best round: its own cost, without the pauses a shared machine adds.
const best = new Map<string, number>();
for (let r = 0; r < ROUNDS; r++) {
  const t0 = performance.now();
  for (const { q } of SEARCH_QUERIES) {
    const t = performance.now();
    await run(reg, q);
    const ms = performance.now() - t;
    each.push(ms);
    best.set(q, Math.min(best.get(q) ?? Number.POSITIVE_INFINITY, ms));
  }
  rounds.push((performance.now() - t0) / SEARCH_QUERIES.length);
}

console.log(`tools_search over ${tools.length} tools, ${SEARCH_QUERIES.length} everyday requests`);
console.log(
  `  hit rate without vocabulary: ${await rates(buildRegistry(buildCatalog(domains.map((d) => ({ ...d, vocabulary: undefined })))))}`,
);
console.log(`  hit rate with vocabulary:    ${await rates(reg)}`);
console.log(
  `  index build: min ${Math.min(...builds).toFixed(1)} ms, median ${median(builds).toFixed(1)} ms; heap ${(perIndex / 1024 / 1024).toFixed(1)} MiB`,
);
console.log(
  `  per query (${ROUNDS} rounds): median ${median(each).toFixed(2)} ms, p95 ${pct(each, 0.95).toFixed(2)} ms, max ${Math.max(...each).toFixed(2)} ms; mean per round ${median(rounds).toFixed(2)} ms (median of rounds)`,
);
const bests = [...best.values()];
console.log(
  `  per query, best of its ${ROUNDS} rounds: median ${median(bests).toFixed(2)} ms, p95 ${pct(bests, 0.95).toFixed(2)} ms, max ${Math.max(...bests).toFixed(2)} ms`,
);
console.log(
  `  load average ${(await import("node:os"))
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(" ")}`,
);
