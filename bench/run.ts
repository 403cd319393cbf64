/**
 * `make bench`: the compiled binary serving the demo data, measured with wrk
 * against a bare Bun.serve returning the same bytes, per ../shared/BENCH.md:
 * server pinned to core 1, wrk to core 0, warm-up discarded, A/B alternated,
 * median and min–max of several runs, ratio to the bare baseline, peak RSS.
 *
 * Env: BENCH_DURATION (default 10s), BENCH_RUNS (default 3), BENCH_ONLY (comma-separated name substrings).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const DURATION = process.env.BENCH_DURATION ?? "10s";
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ONLY = (process.env.BENCH_ONLY ?? "").split(",").filter(Boolean);
const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "plinth-bench-"));
const PORT = 18787;
const BARE_PORT = 18788;

interface Scenario {
  name: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

function sh(cmd: string[]): string {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

async function waitFor(url: string) {
  for (let i = 0; i < 200; i++) {
    try {
      await fetch(url);
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`no answer from ${url}`);
}

function luaFor(s: Scenario): string {
  const file = join(work, s.name.replace(/\W+/g, "_") + ".lua");
  const lines = [`wrk.method = "${s.method}"`];
  for (const [k, v] of Object.entries(s.headers)) lines.push(`wrk.headers["${k}"] = ${JSON.stringify(v)}`);
  if (s.body) lines.push(`wrk.body = ${JSON.stringify(s.body)}`);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

interface WrkResult { rps: number; p50: number; p99: number; non2xx: number }

function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

function wrk(url: string, lua: string, conns: number, duration = DURATION): WrkResult {
  const out = sh(["taskset", "-c", "0", "wrk", "-t1", `-c${conns}`, `-d${duration}`, "--latency", "-s", lua, url]);
  const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN);
  const p50 = toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? "");
  const p99 = toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? "");
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  return { rps, p50, p99, non2xx };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, d = 0) => n.toFixed(d);

// 1. Start the compiled binary on a fresh data dir (it seeds the demo site).
const dataDir = join(work, "data");
const server = Bun.spawn(
  ["taskset", "-c", "1", join(root, "dist/plinth"), "serve", "--port", String(PORT), "--data-dir", dataDir, "--rate-limit", "1000000000", "--mcp-rate-limit", "1000000000"],
  { stdout: "pipe", stderr: "inherit" },
);
let banner = "";
const reader = server.stdout.getReader();
while (!/MCP key/.test(banner) || !/REST key/.test(banner)) {
  const { value, done } = await reader.read();
  if (done) throw new Error("server exited:\n" + banner);
  banner += new TextDecoder().decode(value);
}
const restKey = /REST key \(site (\d+)\):\s+(svc_live_[0-9a-f]{64})/.exec(banner)!;
const siteId = restKey[1]!;
const mcpKey = /(svc_mcp_[0-9a-f]{64})/.exec(banner)![1]!;
const base = `http://127.0.0.1:${PORT}`;
await waitFor(base + "/api/v1/openapi.json");

const auth = { Authorization: `Bearer ${restKey[2]}` };
const first = async (path: string, key: string) => {
  const r = await fetch(base + path, { headers: auth });
  const j: any = await r.json();
  return j.data[0][key];
};
const postSlug = await first(`/api/v1/sites/${siteId}/posts?limit=1`, "slug");
const productSlug = await first(`/api/v1/sites/${siteId}/products?limit=1`, "slug");
const mcpHeaders = {
  Authorization: `Bearer ${mcpKey}`,
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "MCP-Protocol-Version": "2025-06-18",
};
const whoami = await fetch(base + "/api/mcp", {
  method: "POST",
  headers: mcpHeaders,
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }),
}).then((r) => r.json() as any);
const clientId = JSON.parse(whoami.result.content[0].text).defaultClientId;
const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

const all: Scenario[] = [
  { name: "listPosts", method: "GET", path: `/api/v1/sites/${siteId}/posts?limit=20`, headers: auth },
  { name: "getPostBySlug", method: "GET", path: `/api/v1/sites/${siteId}/posts/${postSlug}`, headers: auth },
  { name: "listProducts", method: "GET", path: `/api/v1/sites/${siteId}/products`, headers: auth },
  { name: "getProductBySlug", method: "GET", path: `/api/v1/sites/${siteId}/products/${productSlug}`, headers: auth },
  { name: "getSiteConfig", method: "GET", path: `/api/v1/sites/${siteId}/config`, headers: {} },
  { name: "mcp tools/call whoami", method: "POST", path: "/api/mcp", headers: mcpHeaders, body: rpc("tools/call", { name: "whoami", arguments: {} }) },
  { name: "mcp tools/call read tool", method: "POST", path: "/api/mcp", headers: mcpHeaders, body: rpc("tools/call", { name: "sites_list", arguments: { clientId } }) },
  { name: "mcp tools/list (scope *)", method: "POST", path: "/api/mcp", headers: mcpHeaders, body: rpc("tools/list", {}) },
];
const scenarios = all.filter((s) => ONLY.length === 0 || ONLY.some((o) => s.name.includes(o)));

interface Row { name: string; bytes: number; real: WrkResult[]; bare: WrkResult[]; c1: WrkResult }
const rows: Row[] = [];
for (const s of scenarios) {
  const res = await fetch(base + s.path, { method: s.method, headers: s.headers, body: s.body });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (res.status !== 200) throw new Error(`${s.name}: status ${res.status}: ${new TextDecoder().decode(bytes).slice(0, 300)}`);
  const bodyFile = join(work, "body.bin");
  writeFileSync(bodyFile, bytes);
  const bare = Bun.spawn(
    ["taskset", "-c", "1", process.execPath, join(root, "bench/bare.ts"), String(BARE_PORT), bodyFile, res.headers.get("content-type") ?? "application/json"],
    { stdout: "ignore", stderr: "inherit" },
  );
  await waitFor(`http://127.0.0.1:${BARE_PORT}/`);
  const lua = luaFor(s);
  const realUrl = base + s.path;
  const bareUrl = `http://127.0.0.1:${BARE_PORT}${s.path}`;
  wrk(realUrl, lua, 50, "3s"); // warm-up, discarded
  wrk(bareUrl, lua, 50, "3s");
  const row: Row = { name: s.name, bytes: bytes.length, real: [], bare: [], c1: wrk(realUrl, lua, 1, "5s") };
  for (let i = 0; i < RUNS; i++) {
    row.real.push(wrk(realUrl, lua, 50));
    row.bare.push(wrk(bareUrl, lua, 50));
  }
  bare.kill();
  await bare.exited;
  const bad = row.real.reduce((n, r) => n + r.non2xx, 0);
  // A figure made of error responses measures nothing: stop rather than report it.
  if (bad) throw new Error(`${s.name} answered ${bad} non-2xx/3xx responses; the figures would be meaningless`);
  rows.push(row);
  const r = median(row.real.map((x) => x.rps)), b = median(row.bare.map((x) => x.rps));
  console.error(`${s.name}: ${fmt(r)} req/s vs bare ${fmt(b)} (ratio ${(r / b).toFixed(2)})`);
}

const status = readFileSync(`/proc/${server.pid}/status`, "utf8");
const hwmKb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
server.kill();
await server.exited;
rmSync(work, { recursive: true, force: true });

const listPosts = rows.find((r) => r.name === "listPosts");
const lines = [
  `Runs: ${RUNS} × ${DURATION} per side, wrk -t1 -c50 (pinned core 0), server pinned core 1; warm-up 3 s discarded.`,
  "",
  "| endpoint | bytes | req/s median (min–max) | bare req/s median | ratio | p50 ms | p99 ms | p50 ms at -c1 |",
  "|---|---:|---:|---:|---:|---:|---:|---:|",
];
for (const r of rows) {
  const rr = r.real.map((x) => x.rps), br = r.bare.map((x) => x.rps);
  const med = median(rr), bmed = median(br);
  lines.push(
    `| ${r.name} | ${r.bytes} | ${fmt(med)} (${fmt(Math.min(...rr))}–${fmt(Math.max(...rr))}) | ${fmt(bmed)} | ${(med / bmed).toFixed(2)} | ${median(r.real.map((x) => x.p50)).toFixed(2)} | ${median(r.real.map((x) => x.p99)).toFixed(2)} | ${r.c1.p50.toFixed(3)} |`,
  );
}
if (listPosts) {
  const lp = median(listPosts.real.map((x) => x.rps));
  lines.push("", "MCP throughput relative to REST listPosts in the same run:");
  for (const r of rows.filter((r) => r.name.startsWith("mcp")))
    lines.push(`- ${r.name}: ${(median(r.real.map((x) => x.rps)) / lp).toFixed(2)}`);
}
lines.push("", `Server peak RSS (VmHWM): ${(hwmKb / 1024).toFixed(1)} MB`);
console.log(lines.join("\n"));
