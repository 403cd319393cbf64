/**
 * CPU cost per request of the MCP read path next to REST listPosts, measured
 * as process CPU time (user + system, `process.cpuUsage()`) divided by the
 * requests served. Unlike requests per second, this stays meaningful on a
 * machine shared with other work: time spent waiting for a core is not
 * counted. See bench/README.md ("MCP CPU per call").
 *
 * Usage: bun bench/mcp-cpu.ts
 * Env: DIR (data dir, seeded once and reused; default a fresh temp dir),
 * N (requests per scenario per round, default 5000), ROUNDS (default 5),
 * MODE (inproc | http | both, default both), ONLY (scenario name substring),
 * LOG (access | off, default access: log lines go to a file in DIR),
 * C (concurrent requests of the HTTP load child, default 8), SQLSTAT=1 (count
 * and time every SQLite statement), NOREC=1 (drop the tool-call observers,
 * i.e. AI history recording, to see its share; diagnostic only), NOPOLL=1
 * (SQLite: skip the per-check look for another process's commits — the
 * mapped WAL-index header, or `PRAGMA data_version` without the mapping —
 * to see its share; diagnostic only — foreign commits go unseen),
 * PLINTH_DATABASE_URL (a fresh PostgreSQL database: the same on that engine).
 *
 * inproc: `app.fetch(new Request(…))` in this process; no HTTP.
 * http: the real Bun.serve of startServer in this process, loaded by a child
 * process over loopback; only THIS process's CPU is counted (the child's is
 * the client's). `bare` is a Bun.serve in this process answering the same
 * bytes as sites_list: the fixed HTTP cost every endpoint pays.
 * Scenarios alternate within each round (A B C D, A B C D, …); the figure is
 * the median over rounds.
 */
import { mkdtempSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { startServer } from "../src/server";
import { createApp } from "../src/app";
import { traceSqlite } from "../test/fixtures/sqlite-trace";

// SQLSTAT=1: count and time every SQLite statement run (which queries a call makes, and what they cost).
const sqlStats = new Map<string, [number, number]>();
if (process.env.SQLSTAT)
  traceSqlite((sqlText, ms) => {
    const k = sqlText.slice(0, 160);
    const e = sqlStats.get(k) ?? [0, 0];
    e[0]++;
    e[1] += ms;
    sqlStats.set(k, e);
  });

const dir = process.env.DIR ?? mkdtempSync(join(tmpdir(), "mcp-cpu-"));
const N = Number(process.env.N ?? 5000);
const ROUNDS = Number(process.env.ROUNDS ?? 5);
const MODE = process.env.MODE ?? "both";
const C = Number(process.env.C ?? 8);
const logMode = (process.env.LOG ?? "access") as "access" | "off";

const cfg = loadConfig(
  { "data-dir": dir, port: "0", host: "127.0.0.1", "rate-limit": "100000000", "mcp-rate-limit": "100000000" },
  { ...process.env, PLINTH_LOG: logMode } as any, // PLINTH_DATABASE_URL selects PostgreSQL
);
const logFile = Bun.file(join(dir, "access.log")).writer();
const s = await startServer(cfg, {
  accessLog: async (chunk: string) => {
    logFile.write(chunk);
    await logFile.flush();
  },
});
const credsPath = join(dir, "creds.json");
if (s.demo) await Bun.write(credsPath, JSON.stringify(s.demo));
if (!existsSync(credsPath)) throw new Error(`${dir} holds data but no creds.json: use a fresh DIR`);
const demo = JSON.parse(await Bun.file(credsPath).text());
// NOREC=1: without the tool-call observers (AI history), to see what recording costs per call. Diagnostic only.
if (process.env.NOREC) (await import("../src/mcp/routes")).registry().observers.length = 0;
// NOPOLL=1: no look for other processes' commits per cache check (src/core/changes.ts, wal-index.ts). Diagnostic only.
if (process.env.NOPOLL) (s.deps.store.changes as unknown as { poll: null }).poll = null;
const app = createApp(s.deps);

interface Scenario {
  name: string;
  path: string;
  init: RequestInit;
}
const mcpHeaders = {
  authorization: `Bearer ${demo.mcpKey}`,
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2025-06-18",
  host: "127.0.0.1",
};
const tool = (name: string, args: Record<string, unknown>): Scenario => ({
  name: `mcp ${name}`,
  path: "/api/mcp",
  init: {
    method: "POST",
    headers: mcpHeaders,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
  },
});
const clientId = demo.defaultCompany.id;
const scenarios: Scenario[] = [
  {
    name: "rest listPosts",
    path: `/api/v1/sites/${demo.siteId}/posts?limit=20`,
    init: { headers: { authorization: `Bearer ${demo.restKey}` } },
  },
  tool("whoami", {}),
  tool("sites_list", { clientId }),
  tool("posts_list", { clientId, siteId: Number(demo.siteId), limit: 10 }),
].filter((x) => !process.env.ONLY || x.name.includes(process.env.ONLY));

// Every answer must be a success, and a tool must not answer with an error result.
async function check(name: string, r: Response) {
  const b = await r.text();
  if (r.status >= 300 || b.includes('"isError":true')) throw new Error(`${name}: ${r.status} ${b.slice(0, 300)}`);
  return b;
}
const sample = scenarios.find((x) => x.name === "mcp sites_list") ?? scenarios[0]!;
const bareBody = await check("sample", await app.fetch(new Request(`http://127.0.0.1${sample.path}`, sample.init)));
const bare = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () => new Response(bareBody, { headers: { "content-type": "application/json" } }),
});

const cpu = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};

async function inproc(sc: Scenario): Promise<number> {
  const url = `http://127.0.0.1${sc.path}`;
  const c0 = cpu();
  for (let i = 0; i < N; i++) {
    const r = await app.fetch(new Request(url, sc.init));
    if (i === 0) await check(sc.name, r);
    else await r.arrayBuffer();
  }
  return (cpu() - c0) / N;
}

// The load child: C loops of fetch over keep-alive, N requests in all, then exits.
const child = `
const [url, init, n, c] = [process.argv[2], JSON.parse(process.argv[3]), Number(process.argv[4]), Number(process.argv[5])];
let left = n, bad = 0;
await Promise.all(Array.from({ length: c }, async () => {
  while (left-- > 0) { const r = await fetch(url, init); await r.arrayBuffer(); if (r.status >= 300) bad++; }
}));
if (bad) { console.error(bad + " bad answers"); process.exit(1); }
`;
const childPath = join(dir, "load-child.ts");
await Bun.write(childPath, child);

async function overHttp(url: string, init: RequestInit): Promise<number> {
  const c0 = cpu();
  const p = Bun.spawn([process.execPath, childPath, url, JSON.stringify(init), String(N), String(C)], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if ((await p.exited) !== 0) throw new Error(`load child failed for ${url}`);
  return (cpu() - c0) / N;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const results = new Map<string, number[]>();
const note = (k: string, v: number) => results.set(k, [...(results.get(k) ?? []), v]);

// Warm-up: JIT and caches, discarded.
for (const sc of scenarios)
  for (let i = 0; i < 1000; i++)
    await (await app.fetch(new Request(`http://127.0.0.1${sc.path}`, sc.init))).arrayBuffer();

for (let r = 0; r < ROUNDS; r++) {
  for (const sc of scenarios) {
    if (MODE !== "http") note(`inproc ${sc.name}`, await inproc(sc));
    if (MODE !== "inproc") note(`http ${sc.name}`, await overHttp(`${s.url}${sc.path}`, sc.init));
  }
  if (MODE !== "inproc")
    note("http bare (same bytes as sites_list)", await overHttp(`http://127.0.0.1:${bare.port}/`, {}));
}

console.log(
  `CPU µs per request, median of ${ROUNDS} rounds × ${N} requests (min–max); log=${logMode}, http concurrency ${C}`,
);
for (const [k, xs] of results)
  console.log(
    `${k.padEnd(44)} ${median(xs).toFixed(1).padStart(7)}  (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`,
  );
const m = (k: string) => (results.has(k) ? median(results.get(k)!) : NaN);
for (const mode of ["inproc", "http"]) {
  const rest = m(`${mode} rest listPosts`);
  if (Number.isNaN(rest)) continue;
  const ratios = scenarios
    .filter((x) => x.name.startsWith("mcp"))
    .map((x) => `${x.name.slice(4)} ${(rest / m(`${mode} ${x.name}`)).toFixed(2)}`);
  console.log(`${mode}: MCP throughput ÷ REST listPosts (= REST CPU ÷ MCP CPU): ${ratios.join(", ")}`);
}
// SQLite: how often a cache check had to ask data_version (src/core/wal-index.ts; every check without the mapping).
if (s.deps.store.engine === "sqlite") console.log(`data_version readings: ${s.deps.store.changes.exactReads}`);
for (const [k, [n, ms]] of [...sqlStats].sort((a, b) => b[1][1] - a[1][1]).slice(0, 15))
  console.log(String(n).padStart(8), `${ms.toFixed(0)} ms`.padStart(9), k);
bare.stop(true);
await s.stop();
