/**
 * Bookings benchmarks (not tests), apart from bench/run.ts:
 *
 * 1. Availability for a 3-month window: a round-robin page with two hosts in
 *    different zones (Berlin, New York), buffers and a daily limit, and 500
 *    existing bookings made through the booking verb. Server time per call,
 *    in process: the verb (`booking_availability_get`'s whole work: four
 *    queries and the maths), and the same call through the MCP endpoint
 *    (a real tools/call over loopback HTTP to the same process). On this run's engine:
 *      bun bench/bookings.ts                                  (SQLite)
 *      bun scripts/with-postgres.ts bun bench/bookings.ts     (PostgreSQL)
 * 2. The public page /b/<slug> from its version-keyed cache, with wrk,
 *    against a bare Bun.serve returning the same bytes (as bench/run.ts does
 *    for REST): `bun bench/bookings.ts --http` starts dist/plinth (PLINTH_BIN;
 *    `src/main.ts` when not built) on a fresh demo data dir (the demo seed has booking pages). Server pinned to
 *    core 1, wrk to core 0, warm-up discarded, A/B alternated.
 *
 * Env: BENCH_ITER (default 60), BENCH_DURATION (default 5s), BENCH_RUNS (default 3).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { wrk } from "./wrk";

const ITER = Number(process.env.BENCH_ITER ?? 60);
const WARM = 30;
const root = new URL("..", import.meta.url).pathname;

const pct = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (ms: number) => ms.toFixed(2);

async function availability() {
  process.env.PLINTH_LOG = "off";
  const { ManualClock } = await import("../src/core/clock");
  const { startTestServer } = await import("../test/harness");
  const { createCompany, createUser, addMember, mintMcpKey } = await import("../test/fixtures/accounts");
  const { bookingsDomain } = await import("../src/domains/bookings/tools");
  const { book } = await import("../src/domains/bookings/bookings");
  const { freeSlots } = await import("../src/domains/bookings/free-slots");
  const { decideApproval } = await import("../src/domains/approvals/verbs");
  const { ON_PG } = await import("../test/db");

  const start = Date.UTC(2030, 0, 7, 6, 0, 0); // Monday 7 January 2030
  const s = await startTestServer({ seed: false, clock: new ManualClock(start) });
  try {
    const owner = await createUser(s.deps, { email: "owner@bench.test", name: "Owner" });
    const c = await createCompany(s.deps, { name: "Bench Co", ownerUserId: owner.id });
    const berlin = await createUser(s.deps, { email: "berlin@bench.test", name: "Berlin" });
    const ny = await createUser(s.deps, { email: "ny@bench.test", name: "New York" });
    await addMember(s.deps, c.id, berlin.id, "admin");
    await addMember(s.deps, c.id, ny.id, "admin");
    const ctx = {
      deps: s.deps,
      principal: {
        userId: owner.id,
        credential: { kind: "mcp_key" as const, id: 1, name: "bench" },
        scopes: ["*"],
        companies: [{ id: c.id, name: c.name, role: "owner" as const }],
        requireCmsApproval: false,
      },
      company: { id: c.id, name: c.name, role: "owner" as const },
      requestId: "bench",
    };
    const tool = (name: string, args: Record<string, unknown>) =>
      bookingsDomain.tools.find((t) => t.name === name)!.run(ctx, args as never) as Promise<any>;
    const week = ["08:00-18:00"];
    const hours = { mon: week, tue: week, wed: week, thu: week, fri: week };
    await tool("booking_schedules_set", { member: berlin.id, timeZone: "Europe/Berlin", weeklyHours: hours });
    await tool("booking_schedules_set", { member: ny.id, timeZone: "America/New_York", weeklyHours: hours });
    const p = await tool("booking_pages_create", {
      title: "Bench call",
      durations: [30, 60],
      hosts: [berlin.id, ny.id],
      hostMode: "round_robin",
      minNotice: 0,
      bufferBefore: 5,
      bufferAfter: 10,
      slotInterval: 15,
      dailyLimit: 12,
      maxAdvanceDays: 120,
    });
    const o = await decideApproval(s.deps, { token: p.approval.token }, "approve", { decidedBy: "bench" });
    if (!o.ok) throw new Error(o.message);
    // 500 bookings through the booking verb, spread over the 3 months (every free slot of a stride).
    // Free times month by month (a listing names at most 1000 of them).
    const slots: { startsAt: string }[] = [];
    for (let m = 0; m < 3; m++)
      slots.push(
        ...(
          await freeSlots(ctx, {
            pageId: p.id,
            from: new Date(start + m * 30 * 86_400_000).toISOString(),
            to: new Date(start + (m + 1) * 30 * 86_400_000).toISOString(),
          })
        ).slots,
      );
    const visitor = { deps: s.deps, companyId: c.id, ctx: null };
    let made = 0;
    for (let i = 0; made < 500 && i < slots.length * 4; i++) {
      const at = slots[Math.floor((i * 7919) % slots.length)]!;
      try {
        await book(visitor, p.id, {
          startsAt: new Date(at.startsAt),
          name: `V${i}`,
          email: `v${i}@bench.test`,
          source: "public",
        });
        made++;
      } catch {
        /* taken or over the daily limit: the next one */
      }
    }
    const args = {
      pageId: p.id,
      from: new Date(start).toISOString(),
      to: new Date(start + 91 * 86_400_000).toISOString(),
    };
    const { pageSlots } = await import("../src/domains/bookings/availability-load");
    const { pageById } = await import("../src/domains/bookings/pages");
    const row = await pageById(s.deps.db, c.id, p.id);
    const maths: number[] = [];
    for (let i = 0; i < ITER + WARM; i++) {
      const t0 = performance.now();
      await pageSlots(s.deps.db, c.id, row, { from: start, to: start + 91 * 86_400_000, now: start, durationMin: 30 });
      if (i >= WARM) maths.push(performance.now() - t0);
    }
    const verb: number[] = [];
    let count = 0;
    for (let i = 0; i < ITER + WARM; i++) {
      const t0 = performance.now();
      const r = await freeSlots(ctx, args);
      const dt = performance.now() - t0;
      count = r.count;
      if (i >= WARM) verb.push(dt);
    }
    // The same call as a client makes it: tools/call over the MCP endpoint, in process.
    const key = await mintMcpKey(s.deps, { userId: owner.id, scopes: ["bookings:read"], companyIds: [c.id] });
    const body = JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "booking_availability_get", arguments: args },
    });
    const mcp: number[] = [];
    for (let i = 0; i < ITER + WARM; i++) {
      const t0 = performance.now();
      const res = await fetch(`${s.url}/api/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${key.key}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body,
      });
      const text = await res.text();
      const dt = performance.now() - t0;
      if (res.status !== 200 || text.includes('"isError":true'))
        throw new Error(`MCP call failed: ${text.slice(0, 300)}`);
      if (i >= WARM) mcp.push(dt);
    }
    console.log(
      `\n## Availability, 3 months, 2 hosts (Berlin + New York, round robin), ${made} bookings — ${ON_PG ? "PostgreSQL" : "SQLite"}\n`,
    );
    console.log(`free slots in the window: ${count}; ${ITER} calls after ${WARM} warm-up\n`);
    console.log("| path | p50 ms | p99 ms | mean ms |\n|---|---:|---:|---:|");
    for (const [name, xs] of [
      ["availability (queries + maths)", maths],
      ["the whole verb (+ listing up to 1000 times in the zone)", verb],
      ["MCP tools/call over loopback HTTP", mcp],
    ] as const)
      console.log(
        `| ${name} | ${fmt(pct(xs, 50))} | ${fmt(pct(xs, 99))} | ${fmt(xs.reduce((a, b) => a + b, 0) / xs.length)} |`,
      );
  } finally {
    await s.stop();
  }
}

// ---------------------------------------------------------------- HTTP

const DURATION = process.env.BENCH_DURATION ?? "5s";
const RUNS = Number(process.env.BENCH_RUNS ?? 3);

async function waitFor(url: string) {
  for (let i = 0; i < 600; i++) {
    try {
      // 200 only: the server may answer before the demo seed is in.
      if ((await fetch(url)).status === 200) return;
    } catch {
      /* not yet */
    }
    await Bun.sleep(50);
  }
  throw new Error(`no answer from ${url}`);
}

async function http() {
  const work = mkdtempSync(join(tmpdir(), "plinth-bench-bookings-"));
  const PORT = 18797;
  const BARE = 18798;
  // The compiled binary when built (as make bench does, and as the other page benches measure), else the sources.
  const bin = process.env.PLINTH_BIN ?? join(root, "dist/plinth");
  const cmd = existsSync(bin) ? [bin] : [process.execPath, join(root, "src/main.ts")];
  const server = Bun.spawn(
    ["taskset", "-c", "1", ...cmd, "serve", "--port", String(PORT), "--data-dir", join(work, "data"), "--log", "off"],
    { stdout: "ignore", stderr: "inherit" },
  );
  let bare: ReturnType<typeof Bun.spawn> | null = null;
  try {
    const url = `http://127.0.0.1:${PORT}/b/northwind-discovery?tz=Europe/London`;
    await waitFor(url);
    const res = await fetch(url);
    if (res.status !== 200) throw new Error(`the demo booking page answered ${res.status}`);
    const bytes = await res.text();
    const file = join(work, "page.html");
    writeFileSync(file, bytes);
    bare = Bun.spawn(
      [
        "taskset",
        "-c",
        "1",
        process.execPath,
        join(root, "bench/bare.ts"),
        String(BARE),
        file,
        "text/html; charset=UTF-8",
      ],
      { stdout: "ignore" },
    );
    const bareUrl = `http://127.0.0.1:${BARE}/`;
    await waitFor(bareUrl);
    wrk(url, { conns: 50, duration: "3s" });
    wrk(bareUrl, { conns: 50, duration: "3s" });
    const c1 = wrk(url, { conns: 1, duration: "3s" });
    const real: number[] = [];
    const base: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const a = wrk(url, { conns: 50, duration: DURATION });
      if (a.non2xx) throw new Error(`${a.non2xx} non-2xx answers from the booking page`);
      real.push(a.rps);
      base.push(wrk(bareUrl, { conns: 50, duration: DURATION }).rps);
    }
    const med = (xs: number[]) => pct(xs, 50);
    console.log(`\n## Public booking page from its cache (GET /b/northwind-discovery, ${bytes.length} bytes)\n`);
    console.log("| side | req/s median (min–max) | ratio |\n|---|---:|---:|");
    console.log(
      `| /b/<slug> | ${med(real).toFixed(0)} (${Math.min(...real).toFixed(0)}–${Math.max(...real).toFixed(0)}) | ${(med(real) / med(base)).toFixed(2)} |`,
    );
    console.log(
      `| bare Bun.serve, same bytes | ${med(base).toFixed(0)} (${Math.min(...base).toFixed(0)}–${Math.max(...base).toFixed(0)}) | 1.00 |`,
    );
    console.log(
      `\np50 at one connection: ${c1.p50.toFixed(3)} ms. ${RUNS} × ${DURATION} per side, wrk -t1 -c50 (core 0), servers on core 1, 3 s warm-up discarded.`,
    );
  } finally {
    server.kill();
    bare?.kill();
    await server.exited;
    rmSync(work, { recursive: true, force: true });
  }
}

if (process.argv.includes("--http")) await http();
else await availability();
process.exit(0);
