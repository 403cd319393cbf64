/**
 * In-process service time of the hot requests, without HTTP or wrk: the app's
 * own fetch is called in a loop on a freshly seeded store, and each request
 * reports microseconds per call (median of several rounds). For finding
 * where the time goes, not for the figures in bench/README.md (those are
 * `make bench`'s). Run it under Bun's profiler to see the split:
 *
 *   bun bench/profile.ts                      # SQLite
 *   bun scripts/with-postgres.ts bun bench/profile.ts   # PostgreSQL (PLINTH_TEST_PG_URL)
 *   bun --cpu-prof-md --cpu-prof-dir=/tmp/prof bench/profile.ts
 *
 * Env: PROFILE_ONLY (comma-separated name substrings), PROFILE_CALLS (per round, default 5000),
 * PROFILE_JSC=1 (one more round under JavaScriptCore's sampling profiler, bun:jsc `profile`: prints the
 * functions with the most samples, self and inclusive, counted over that round only; stacks end at the
 * last await, so inclusive figures of async functions are lower bounds).
 */
import { catalog } from "../src/catalog";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const pgAdmin = process.env.PLINTH_TEST_PG_URL;
let databaseUrl: string | null = null;
if (pgAdmin) {
  // A database of its own on the cluster with-postgres started.
  const postgres = (await import("postgres")).default;
  const admin = postgres(pgAdmin, { max: 1, onnotice: () => {} });
  const name = `plinth_profile_${process.pid}`;
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  databaseUrl = pgAdmin.replace(/\/[^/]*$/, `/${name}`);
  process.env.PLINTH_DATABASE_URL = databaseUrl;
}

const { loadConfig } = await import("../src/config");
const { openDeps } = await import("../src/core/open");
const { seedDemo } = await import("../db/seed/demo");
const { createApp } = await import("../src/app");
const { Telemetry } = await import("../src/ops/telemetry");
const { AccessLog } = await import("../src/ops/access-log");

const ONLY = (process.env.PROFILE_ONLY ?? "").split(",").filter(Boolean);
const CALLS = Number(process.env.PROFILE_CALLS ?? 5000);
const dataDir = mkdtempSync(join(tmpdir(), "plinth-profile-"));
const config = {
  ...loadConfig({}, {}),
  dataDir,
  databaseUrl,
  rateLimit: 1e9,
  mcpRateLimit: 1e9,
  publicUrl: "http://127.0.0.1:8787",
};
const deps = await openDeps(config, catalog);
const demo = await seedDemo(deps);
// The access log as in production, written nowhere.
const app = createApp(deps, new Telemetry({ log: new AccessLog(() => {}), trustProxy: false }));
const base = "http://127.0.0.1:8787";

const mcpHeaders = {
  Authorization: `Bearer ${demo.mcpKey}`,
  "Content-Type": "application/json",
  Accept: "application/json, text/event-stream",
  "MCP-Protocol-Version": "2025-06-18",
  Host: "127.0.0.1:8787",
};
const rpc = (name: string, args: unknown) =>
  JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } });
const clientId = demo.defaultCompany.id;
const restAuth = { Authorization: `Bearer ${demo.restKey}`, Host: "127.0.0.1:8787" };
const customers = (await (
  await app.fetch(
    new Request(`${base}/api/mcp`, {
      method: "POST",
      headers: mcpHeaders,
      body: rpc("customers_list", { clientId: demo.defaultCompany.id, siteId: demo.siteId, limit: 1 }),
    }),
  )
).json()) as any;
const customer = JSON.parse(customers.result.content[0].text).items[0];

const cases: { name: string; make: () => Request }[] = [
  {
    name: "rest listPosts",
    make: () => new Request(`${base}/api/v1/sites/${demo.siteId}/posts?limit=20`, { headers: restAuth }),
  },
  {
    name: "mcp whoami",
    make: () => new Request(`${base}/api/mcp`, { method: "POST", headers: mcpHeaders, body: rpc("whoami", {}) }),
  },
  {
    name: "mcp sites_list",
    make: () =>
      new Request(`${base}/api/mcp`, { method: "POST", headers: mcpHeaders, body: rpc("sites_list", { clientId }) }),
  },
  {
    name: "mcp posts_list",
    make: () =>
      new Request(`${base}/api/mcp`, {
        method: "POST",
        headers: mcpHeaders,
        body: rpc("posts_list", { clientId, siteId: demo.siteId, limit: 5 }),
      }),
  },
  {
    name: "mcp customers_update",
    make: () =>
      new Request(`${base}/api/mcp`, {
        method: "POST",
        headers: mcpHeaders,
        body: rpc("customers_update", { clientId, siteId: demo.siteId, id: customer.id, name: customer.name }),
      }),
  },
];

function median(xs: number[]) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
}

for (const c of cases.filter((c) => ONLY.length === 0 || ONLY.some((o) => c.name.includes(o)))) {
  const first = await app.fetch(c.make());
  const text = await first.text();
  if (first.status !== 200 || text.includes('"isError":true'))
    throw new Error(`${c.name}: ${first.status} ${text.slice(0, 300)}`);
  const rounds: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    for (let i = 0; i < CALLS; i++) await (await app.fetch(c.make())).arrayBuffer();
    rounds.push(((performance.now() - t0) * 1000) / CALLS);
  }
  console.log(
    `${c.name.padEnd(20)} ${median(rounds).toFixed(1)} µs/call (rounds ${rounds.map((x) => x.toFixed(0)).join(" ")}), ${text.length} bytes`,
  );
  if (process.env.PROFILE_JSC) await sampled(c.make);
}

async function sampled(make: () => Request) {
  const { profile } = await import("bun:jsc");
  const p = await profile(async () => {
    for (let i = 0; i < CALLS; i++) await (await app.fetch(make())).arrayBuffer();
  }, 50);
  const self = new Map<string, number>();
  const incl = new Map<string, number>();
  const traces = p.stackTraces.traces;
  const where = (f: { name: string; sourceURL?: string; line: number }) =>
    `${f.name || "(anonymous)"} ${f.sourceURL ? `${f.sourceURL.replace(/^.*node_modules\//, "~/").replace(root, "")}:${f.line}` : "[native]"}`;
  const root = new URL("..", import.meta.url).pathname;
  for (const t of traces) {
    if (!t.frames.length) continue;
    const top = where(t.frames[0]!);
    self.set(top, (self.get(top) ?? 0) + 1);
    for (const k of new Set(t.frames.map(where))) incl.set(k, (incl.get(k) ?? 0) + 1);
  }
  const show = (m: Map<string, number>, title: string) => {
    console.log(`  ${title} (of ${traces.length} samples):`);
    for (const [k, n] of [...m].sort((a, b) => b[1] - a[1]).slice(0, 40))
      console.log(`    ${((100 * n) / traces.length).toFixed(1).padStart(5)}%  ${k}`);
  };
  show(self, "self");
  show(incl, "inclusive");
}

await deps.close();
rmSync(dataDir, { recursive: true, force: true });
if (pgAdmin) {
  const postgres = (await import("postgres")).default;
  const admin = postgres(pgAdmin, { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists plinth_profile_${process.pid} with (force)`);
  await admin.end();
}
