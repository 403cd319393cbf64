/**
 * `make bench`: the compiled binary serving the demo data, measured with wrk
 * against a bare Bun.serve returning the same bytes, per ../shared/BENCH.md:
 * server side pinned to core 1, wrk to core 0, warm-up discarded, A/B
 * alternated, median and min–max of several runs, ratio to the bare
 * baseline, peak RSS. Once on SQLite and once on PostgreSQL (a throw-away
 * cluster this script starts on loopback, pinned to core 1 with the server,
 * and stops), then 1 vs 2 instances behind HAProxy (deploy/haproxy.cfg) on
 * the read benchmark, and the size of tools/list in each mode.
 *
 * Env: BENCH_DURATION (default 10s), BENCH_RUNS (default 3), BENCH_ONLY (comma-separated name substrings),
 * BENCH_LOG (access, the default, or off: the server's PLINTH_LOG), BENCH_ENGINES (default sqlite,pg),
 * BENCH_BALANCER (1, the default, or 0: skip the HAProxy part), BENCH_BINARY (default dist/plinth: another
 * build to measure, e.g. a copy of an older one).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import postgres from "postgres";
import { median, sh, waitFor, wrk as runWrk, type WrkResult } from "./wrk";
import {
  ensureDebianPackages,
  SERVICE_PACKAGES,
  startHaproxy,
  startPostgres,
  type HaproxyServer,
  type PostgresServer,
} from "../test/infra/services";

const DURATION = process.env.BENCH_DURATION ?? "10s";
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ONLY = (process.env.BENCH_ONLY ?? "").split(",").filter(Boolean);
const ENGINES = (process.env.BENCH_ENGINES ?? "sqlite,pg").split(",").filter(Boolean) as Engine[];
const BALANCER = process.env.BENCH_BALANCER !== "0" && ENGINES.includes("pg");
const LOG = process.env.BENCH_LOG ?? "access";
const root = new URL("..", import.meta.url).pathname;
const binary = process.env.BENCH_BINARY ?? join(root, "dist/plinth");
const work = mkdtempSync(join(tmpdir(), "plinth-bench-"));
const BARE_PORT = 18788;
const DEMO_EMAIL = "demo@plinth.dev";

type Engine = "sqlite" | "pg";
const ENGINE_NAME: Record<Engine, string> = { sqlite: "SQLite", pg: "PostgreSQL" };

interface Scenario {
  name: string;
  method: "GET" | "POST";
  path: string;
  headers: Record<string, string>;
  body?: string;
}

let luaCount = 0;
function luaFor(s: Scenario): string {
  const file = join(work, `${++luaCount}-${s.name.replace(/\W+/g, "_")}.lua`);
  const lines = [`wrk.method = "${s.method}"`];
  for (const [k, v] of Object.entries(s.headers)) lines.push(`wrk.headers["${k}"] = ${JSON.stringify(v)}`);
  if (s.body) lines.push(`wrk.body = ${JSON.stringify(s.body)}`);
  writeFileSync(file, lines.join("\n") + "\n");
  return file;
}

/** wrk with a Lua script; stops rather than report a figure made of error responses. */
function wrk(url: string, lua: string, conns: number, duration = DURATION): WrkResult {
  const r = runWrk(url, { conns, duration, lua });
  if (r.non2xx) throw new Error(`${url} answered ${r.non2xx} non-2xx/3xx responses; the figures would be meaningless`);
  return r;
}

/** Every process this script spawns and keeps (servers, baselines), ended on any exit, also on Ctrl-C. */
const children = new Set<Subprocess>();
function track(p: Subprocess): Subprocess {
  children.add(p);
  p.exited.then(() => children.delete(p));
  return p;
}
const killChildren = () => {
  for (const p of children) p.kill();
};
process.on("exit", killChildren);
for (const sig of ["SIGINT", "SIGTERM"] as const)
  process.on(sig, () => {
    killChildren();
    // test/infra/services.ts stops PostgreSQL and HAProxy on its own 'exit' hook.
    process.exit(130);
  });

/** The machine's load average (1 min), said beside the figures: other work on a shared machine moves them. */
const loadAvg = () => Number(readFileSync("/proc/loadavg", "utf8").split(" ")[0]);

const fmt = (n: number, d = 0) => n.toFixed(d);
const selected = (name: string) => ONLY.length === 0 || ONLY.some((o) => name.includes(o));

// ---------------------------------------------------------------------------
// Servers

interface Plinth {
  proc: Subprocess;
  port: number;
  base: string;
  banner: string;
  stop(): Promise<void>;
}

let nextPort = 18790;
/** The compiled binary on core 1, its stdout (banner, then the access log as in production) in a file. */
async function startPlinth(store: { dataDir: string; databaseUrl?: string }, waitForKeys: boolean): Promise<Plinth> {
  const port = nextPort++;
  const stdoutFile = join(work, `plinth-${port}.log`);
  const args = [
    binary,
    "serve",
    "--port",
    String(port),
    "--data-dir",
    store.dataDir,
    "--rate-limit",
    "1000000000",
    "--mcp-rate-limit",
    "1000000000",
  ];
  if (store.databaseUrl) args.push("--database-url", store.databaseUrl);
  const proc = track(
    Bun.spawn(["taskset", "-c", "1", ...args], {
      stdout: Bun.file(stdoutFile),
      stderr: "inherit",
      env: { ...process.env, PLINTH_LOG: LOG },
    }),
  );
  let banner = "";
  while (waitForKeys ? !/MCP key/.test(banner) || !/REST key/.test(banner) : !/listening/.test(banner)) {
    if (proc.exitCode !== null) throw new Error("server exited:\n" + banner);
    await Bun.sleep(50);
    banner = await Bun.file(stdoutFile)
      .text()
      .catch(() => "");
  }
  const base = `http://127.0.0.1:${port}`;
  await waitFor(base + "/healthz");
  return {
    proc,
    port,
    base,
    banner,
    async stop() {
      proc.kill();
      await proc.exited;
    },
  };
}

/** Everything of a process group on the server's core: the postmaster and the children it already forked (later ones inherit). */
function pinToServerCore(pid: number) {
  sh(["taskset", "-a", "-p", "-c", "1", String(pid)]);
  const children = Bun.spawnSync(["pgrep", "-P", String(pid)])
    .stdout.toString()
    .split("\n")
    .filter(Boolean);
  for (const c of children)
    Bun.spawnSync(["taskset", "-a", "-p", "-c", "1", c], { stdout: "ignore", stderr: "ignore" });
}

// ---------------------------------------------------------------------------
// One engine: every endpoint against its bare baseline

interface Row {
  name: string;
  bytes: number;
  real: WrkResult[];
  bare: WrkResult[];
  c1: WrkResult;
}
interface EngineResult {
  engine: Engine;
  rows: Row[];
  rssMb: number;
  lists: ListSize[] | null;
}
interface ListSize {
  mode: string;
  tools: number;
  bytes: number;
}

async function bare(bytes: Uint8Array, type: string) {
  const bodyFile = join(work, "body.bin");
  writeFileSync(bodyFile, bytes);
  const p = track(
    Bun.spawn(
      ["taskset", "-c", "1", process.execPath, join(root, "bench/bare.ts"), String(BARE_PORT), bodyFile, type],
      {
        stdout: "ignore",
        stderr: "inherit",
      },
    ),
  );
  await waitFor(`http://127.0.0.1:${BARE_PORT}/`);
  return p;
}

async function measure(base: string, s: Scenario): Promise<Row> {
  const res = await fetch(base + s.path, { method: s.method, headers: s.headers, body: s.body });
  const bytes = new Uint8Array(await res.arrayBuffer());
  const text = new TextDecoder().decode(bytes);
  if (res.status !== 200 || text.includes('"isError":true'))
    throw new Error(`${s.name}: status ${res.status}: ${text.slice(0, 300)}`);
  const b = await bare(bytes, res.headers.get("content-type") ?? "application/json");
  const lua = luaFor(s);
  const realUrl = base + s.path;
  const bareUrl = `http://127.0.0.1:${BARE_PORT}${s.path}`;
  try {
    wrk(realUrl, lua, 50, "3s"); // warm-up, discarded
    wrk(bareUrl, lua, 50, "3s");
    const row: Row = { name: s.name, bytes: bytes.length, real: [], bare: [], c1: wrk(realUrl, lua, 1, "5s") };
    for (let i = 0; i < RUNS; i++) {
      row.real.push(wrk(realUrl, lua, 50));
      row.bare.push(wrk(bareUrl, lua, 50));
    }
    return row;
  } finally {
    b.kill();
    await b.exited;
  }
}

async function credentials(base: string, banner: string) {
  const restKey = /REST key \(site (\d+)\):\s+(svc_live_[0-9a-f]{64})/.exec(banner)!;
  const siteId = restKey[1]!;
  const mcpKey = /(svc_mcp_[0-9a-f]{64})/.exec(banner)![1]!;
  const auth = { Authorization: `Bearer ${restKey[2]}` };
  const mcpHeaders = (key: string, extra: Record<string, string> = {}) => ({
    Authorization: `Bearer ${key}`,
    "Content-Type": "application/json",
    Accept: "application/json, text/event-stream",
    "MCP-Protocol-Version": "2025-06-18",
    ...extra,
  });
  const call = async (name: string, args: unknown) => {
    const r: any = await fetch(base + "/api/mcp", {
      method: "POST",
      headers: mcpHeaders(mcpKey),
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    }).then((r) => r.json());
    if (r.result?.isError || !r.result) throw new Error(`${name}: ${JSON.stringify(r).slice(0, 300)}`);
    return JSON.parse(r.result.content[0].text);
  };
  return { siteId, mcpKey, auth, mcpHeaders, call };
}

async function runEngine(engine: Engine, pg: PostgresServer | null): Promise<EngineResult> {
  const store = {
    dataDir: join(work, `data-${engine}`),
    databaseUrl: pg ? await freshDatabase(pg, "plinth_bench") : undefined,
  };
  const server = await startPlinth(store, true);
  const { base } = server;
  const { siteId, mcpKey, auth, mcpHeaders, call } = await credentials(base, server.banner);
  // The peak we report is the serving peak: the first start's demo seed (a one-off, collected before the
  // server listens) is forgotten by resetting VmHWM (Linux: "5" to clear_refs).
  writeFileSync(`/proc/${server.proc.pid}/clear_refs`, "5");

  const first = async (path: string, key: string) => {
    const r = await fetch(base + path, { headers: auth });
    const j: any = await r.json();
    return j.data[0][key];
  };
  const postSlug = await first(`/api/v1/sites/${siteId}/posts?limit=1`, "slug");
  const productSlug = await first(`/api/v1/sites/${siteId}/products?limit=1`, "slug");
  const clientId = (await call("whoami", {})).defaultClientId as number;
  // The write benchmark: customers_update on one customer, always to the same values. It rewrites one
  // row in place (plus, as every write does, one audit_log row), so the data stays the same size
  // however long it runs; posts_update would mint a new revision and approval link on every call.
  // Looked up only when measured, so an older build without the store tools can still run the REST rows (BENCH_BINARY).
  const WRITE = "mcp tools/call write tool (customers_update)";
  const customer = selected(WRITE)
    ? (await call("customers_list", { clientId, siteId: Number(siteId), limit: 1 })).items[0]
    : { id: 0, name: "" };
  const rpc = (method: string, params: unknown) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  const tool = (name: string, args: unknown) => rpc("tools/call", { name, arguments: args });
  const mh = mcpHeaders(mcpKey);

  const all: Scenario[] = [
    { name: "listPosts", method: "GET", path: `/api/v1/sites/${siteId}/posts?limit=20`, headers: auth },
    { name: "getPostBySlug", method: "GET", path: `/api/v1/sites/${siteId}/posts/${postSlug}`, headers: auth },
    { name: "listProducts", method: "GET", path: `/api/v1/sites/${siteId}/products`, headers: auth },
    { name: "getProductBySlug", method: "GET", path: `/api/v1/sites/${siteId}/products/${productSlug}`, headers: auth },
    { name: "getSiteConfig", method: "GET", path: `/api/v1/sites/${siteId}/config`, headers: {} },
    { name: "mcp tools/call whoami", method: "POST", path: "/api/mcp", headers: mh, body: tool("whoami", {}) },
    {
      name: "mcp tools/call read tool (sites_list)",
      method: "POST",
      path: "/api/mcp",
      headers: mh,
      body: tool("sites_list", { clientId }),
    },
    {
      name: "mcp tools/call read tool (posts_list)",
      method: "POST",
      path: "/api/mcp",
      headers: mh,
      body: tool("posts_list", { clientId, siteId: Number(siteId), limit: 10 }),
    },
    // The full listing, asked for: a "*" key lists discovery by default (src/mcp/listing.ts; sizes: bench/listing.ts).
    {
      name: "mcp tools/list (scope *)",
      method: "POST",
      path: "/api/mcp",
      headers: mcpHeaders(mcpKey, { "X-MCP-Discovery": "false" }),
      body: rpc("tools/list", {}),
    },
    // Last: every call commits, and the reads above are measured on the data as seeded.
    {
      name: WRITE,
      method: "POST",
      path: "/api/mcp",
      headers: mh,
      body: tool("customers_update", { clientId, siteId: Number(siteId), id: customer.id, name: customer.name }),
    },
  ];

  const rows: Row[] = [];
  for (const s of all.filter((s) => selected(s.name))) {
    const row = await measure(base, s);
    rows.push(row);
    const r = median(row.real.map((x) => x.rps)),
      b = median(row.bare.map((x) => x.rps));
    console.error(`[${engine}] ${s.name}: ${fmt(r)} req/s vs bare ${fmt(b)} (ratio ${(r / b).toFixed(2)})`);
  }

  // tools/list in each mode, from this server (the registry is the same on both engines).
  let lists: ListSize[] | null = null;
  if (engine === ENGINES[0]) {
    const env: Record<string, string> = store.databaseUrl ? { PLINTH_DATABASE_URL: store.databaseUrl } : {};
    const single = sh(
      [
        binary,
        "mcp-keys",
        "create",
        "--email",
        DEMO_EMAIL,
        "--scopes",
        "*",
        "--companies",
        String(clientId),
        "--name",
        "bench single-company",
        "--data-dir",
        store.dataDir,
      ],
      env,
    ).trim();
    const size = async (mode: string, key: string, extra: Record<string, string> = {}): Promise<ListSize> => {
      const r = await fetch(base + "/api/mcp", {
        method: "POST",
        headers: mcpHeaders(key, extra),
        body: rpc("tools/list", {}),
      });
      const bytes = new Uint8Array(await r.arrayBuffer());
      const j = JSON.parse(new TextDecoder().decode(bytes));
      return { mode, tools: j.result.tools.length, bytes: bytes.length };
    };
    lists = [
      await size("full, single company", single, { "X-MCP-Discovery": "false" }),
      await size("full, several companies", mcpKey, { "X-MCP-Discovery": "false" }),
      await size("discovery (X-MCP-Discovery: 1), single company", single, { "X-MCP-Discovery": "1" }),
      await size("discovery (X-MCP-Discovery: 1), several companies", mcpKey, { "X-MCP-Discovery": "1" }),
    ];
  }

  const status = readFileSync(`/proc/${server.proc.pid}/status`, "utf8");
  const rssMb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
  await server.stop();
  return { engine, rows, rssMb, lists };
}

async function freshDatabase(pg: PostgresServer, name: string): Promise<string> {
  const admin = postgres(pg.adminUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  return pg.adminUrl.replace(/\/[^/]*$/, `/${name}`);
}

// ---------------------------------------------------------------------------
// 1 vs 2 instances behind HAProxy (PostgreSQL), on the read benchmark

interface BalancerRow {
  name: string;
  direct: number[];
  one: number[];
  two: number[];
}

async function runBalancer(pg: PostgresServer): Promise<BalancerRow[]> {
  const databaseUrl = await freshDatabase(pg, "plinth_balancer");
  const a = await startPlinth({ dataDir: join(work, "balancer-a"), databaseUrl }, true);
  const b = await startPlinth({ dataDir: join(work, "balancer-b"), databaseUrl }, false);
  const proxies: HaproxyServer[] = [];
  try {
    proxies.push(await startHaproxy([{ host: "127.0.0.1", port: a.port }]));
    proxies.push(
      await startHaproxy([
        { host: "127.0.0.1", port: a.port },
        { host: "127.0.0.1", port: b.port },
      ]),
    );
    for (const p of proxies) pinToServerCore(p.pid);
    const [one, two] = proxies as [HaproxyServer, HaproxyServer];
    const { siteId, mcpKey, auth, mcpHeaders, call } = await credentials(a.base, a.banner);
    const clientId = (await call("whoami", {})).defaultClientId as number;
    const scenarios: Scenario[] = [
      { name: "listPosts", method: "GET", path: `/api/v1/sites/${siteId}/posts?limit=20`, headers: auth },
      {
        name: "mcp tools/call read tool (sites_list)",
        method: "POST",
        path: "/api/mcp",
        headers: mcpHeaders(mcpKey),
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "sites_list", arguments: { clientId } },
        }),
      },
    ];
    const rows: BalancerRow[] = [];
    for (const s of scenarios.filter((s) => selected(s.name) || selected("balancer"))) {
      const lua = luaFor(s);
      const urls = [a.base + s.path, one.url + s.path, two.url + s.path];
      for (const u of urls) wrk(u, lua, 50, "3s"); // warm-up: each instance's caches, HAProxy's connections
      const row: BalancerRow = { name: s.name, direct: [], one: [], two: [] };
      for (let i = 0; i < RUNS; i++) {
        row.direct.push(wrk(urls[0]!, lua, 50).rps);
        row.one.push(wrk(urls[1]!, lua, 50).rps);
        row.two.push(wrk(urls[2]!, lua, 50).rps);
      }
      rows.push(row);
      console.error(
        `[balancer] ${s.name}: direct ${fmt(median(row.direct))}, 1 instance ${fmt(median(row.one))}, 2 instances ${fmt(median(row.two))} req/s`,
      );
    }
    return rows;
  } finally {
    for (const p of proxies) await p.stop();
    await a.stop();
    await b.stop();
  }
}

// ---------------------------------------------------------------------------

let pg: PostgresServer | null = null;
const results: EngineResult[] = [];
const loads: number[] = [loadAvg()];
const sampler = setInterval(() => loads.push(loadAvg()), 10_000);
let balancer: BalancerRow[] = [];
try {
  if (ENGINES.includes("pg")) {
    await ensureDebianPackages([SERVICE_PACKAGES.postgres, ...(BALANCER ? [SERVICE_PACKAGES.haproxy] : [])]);
    pg = await startPostgres({ database: "postgres" });
    pinToServerCore(pg.pid);
    console.error(`PostgreSQL ${pg.version} on 127.0.0.1:${pg.port}, pinned to core 1`);
  }
  for (const e of ENGINES) results.push(await runEngine(e, e === "pg" ? pg : null));
  if (BALANCER && pg) balancer = await runBalancer(pg);
} finally {
  clearInterval(sampler);
  await pg?.stop();
  rmSync(work, { recursive: true, force: true });
}

// ---------------------------------------------------------------------------
// Report

const out: string[] = [
  `Runs: ${RUNS} × ${DURATION} per side, wrk -t1 -c50 (pinned core 0), server side pinned core 1 (Plinth${
    pg ? ", PostgreSQL" : ""
  }${balancer.length ? ", HAProxy" : ""}); warm-up 3 s discarded; access log ${LOG}.`,
  `Load average (1 min) on this 2-core machine while it ran: median ${median(loads).toFixed(1)}, max ${Math.max(...loads).toFixed(1)} (the bench itself accounts for about 2).`,
];
const rpsOf = (r: Row) => median(r.real.map((x) => x.rps));
const ratioOf = (r: Row) => rpsOf(r) / median(r.bare.map((x) => x.rps));
for (const res of results) {
  out.push(
    "",
    `### ${ENGINE_NAME[res.engine]}`,
    "",
    "| endpoint | bytes | req/s median (min–max) | bare req/s median | ratio | p50 ms | p99 ms | p50 ms at -c1 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  );
  for (const r of res.rows) {
    const rr = r.real.map((x) => x.rps);
    out.push(
      `| ${r.name} | ${r.bytes} | ${fmt(rpsOf(r))} (${fmt(Math.min(...rr))}–${fmt(Math.max(...rr))}) | ${fmt(median(r.bare.map((x) => x.rps)))} | ${ratioOf(r).toFixed(2)} | ${median(r.real.map((x) => x.p50)).toFixed(2)} | ${median(r.real.map((x) => x.p99)).toFixed(2)} | ${r.c1.p50.toFixed(3)} |`,
    );
  }
  out.push("", `Server peak RSS (VmHWM): ${res.rssMb.toFixed(1)} MB`);
}

if (results.length) {
  const names = [...new Set(results.flatMap((r) => r.rows.map((x) => x.name)))];
  out.push(
    "",
    "### Side by side",
    "",
    `| endpoint | ${results.map((r) => `${ENGINE_NAME[r.engine]} ratio to bare | ${ENGINE_NAME[r.engine]} ÷ listPosts`).join(" | ")} |`,
  );
  out.push(`|---|${results.map(() => "---:|---:").join("|")}|`);
  for (const n of names) {
    const cells = results.map((res) => {
      const r = res.rows.find((x) => x.name === n);
      const lp = res.rows.find((x) => x.name === "listPosts");
      if (!r) return "– | –";
      return `${ratioOf(r).toFixed(2)} | ${lp && n.startsWith("mcp") ? (rpsOf(r) / rpsOf(lp)).toFixed(2) : "–"}`;
    });
    out.push(`| ${n} | ${cells.join(" | ")} |`);
  }
}

if (balancer.length) {
  out.push(
    "",
    "### 1 vs 2 instances behind HAProxy (PostgreSQL)",
    "",
    "| endpoint | direct req/s | HAProxy → 1 instance | HAProxy → 2 instances | 2 ÷ 1 |",
    "|---|---:|---:|---:|---:|",
  );
  for (const r of balancer) {
    const d = median(r.direct),
      o = median(r.one),
      t = median(r.two);
    out.push(
      `| ${r.name} | ${fmt(d)} | ${fmt(o)} (${(o / d).toFixed(2)} of direct) | ${fmt(t)} (${(t / d).toFixed(2)} of direct) | ${(t / o).toFixed(2)} |`,
    );
  }
}

const lists = results.find((r) => r.lists)?.lists;
if (lists) {
  out.push(
    "",
    "### tools/list size (whole JSON-RPC answer; tokens ≈ bytes ÷ 4)",
    "",
    "| mode | tools | bytes | bytes per tool | ≈ tokens |",
    "|---|---:|---:|---:|---:|",
  );
  for (const l of lists)
    out.push(`| ${l.mode} | ${l.tools} | ${l.bytes} | ${fmt(l.bytes / l.tools)} | ${fmt(l.bytes / 4)} |`);
}
console.log(out.join("\n"));
