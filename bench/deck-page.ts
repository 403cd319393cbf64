/**
 * The public deck page (/d/<slug>) and its PDF, served from the per-version
 * cache, against a bare Bun.serve returning the very same bytes, with the
 * method of bench/run.ts (../shared/BENCH.md): server pinned to core 1, wrk
 * to core 0, warm-up discarded, real and bare alternated, medians with
 * min–max, the ratio to the bare baseline.
 *
 * The page differs per response only by its CSP nonce (same length), so
 * the bare server's bytes are one real response.
 *
 * Usage: `make build && bun bench/deck-page.ts` (uses dist/plinth, or
 * PLINTH_BIN). Env: BENCH_DURATION (default 10s), BENCH_RUNS (default 3).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEMO_DECK_SLUG } from "../db/seed/demo-decks";

const DURATION = process.env.BENCH_DURATION ?? "10s";
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const root = new URL("..", import.meta.url).pathname;
const bin = process.env.PLINTH_BIN ?? join(root, "dist/plinth");
const PORT = 18797;
const BARE_PORT = 18798;

if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first (or set PLINTH_BIN)`);
if (Bun.spawnSync(["sh", "-c", "command -v wrk"]).exitCode !== 0) throw new Error("wrk is missing: apt-get install wrk (make bench installs it)");

const work = mkdtempSync(join(tmpdir(), "plinth-bench-deck-"));

function sh(cmd: string[]): string {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe" });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

async function waitFor(url: string) {
  for (let i = 0; i < 400; i++) {
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`no answer from ${url}`);
}

interface WrkResult {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
}

const toMs = (v: string) => {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
};

function wrk(url: string, conns: number, duration = DURATION): WrkResult {
  const out = sh(["taskset", "-c", "0", "wrk", "-t1", `-c${conns}`, `-d${duration}`, "--latency", url]);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? ""),
    p99: toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? ""),
    bad: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const server = Bun.spawn(["taskset", "-c", "1", bin, "serve", "--port", String(PORT), "--data-dir", join(work, "data"), "--log", "off"], { stdout: "ignore", stderr: "inherit" });
const base = `http://127.0.0.1:${PORT}`;
const rows: string[] = [];
try {
  await waitFor(`${base}/healthz`);
  // The demo is seeded after the server starts listening: wait for its deck.
  for (let i = 0; i < 600 && (await fetch(`${base}/d/${DEMO_DECK_SLUG}`).then((r) => (r.arrayBuffer(), r.status)).catch(() => 0)) !== 200; i++) await Bun.sleep(50);
  for (const [name, path] of [
    ["deck page", `/d/${DEMO_DECK_SLUG}`],
    ["deck PDF", `/d/${DEMO_DECK_SLUG}.pdf`],
  ] as const) {
    const res = await fetch(base + path);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${name}: status ${res.status} (is the demo seeded?)`);
    const file = join(work, "body.bin");
    writeFileSync(file, bytes);
    const bare = Bun.spawn(["taskset", "-c", "1", process.execPath, join(root, "bench/bare.ts"), String(BARE_PORT), file, res.headers.get("content-type")!], { stdout: "ignore", stderr: "inherit" });
    await waitFor(`http://127.0.0.1:${BARE_PORT}/`);
    const real = base + path;
    const bareUrl = `http://127.0.0.1:${BARE_PORT}${path}`;
    wrk(real, 50, "3s");
    wrk(bareUrl, 50, "3s");
    const c1 = wrk(real, 1, "5s");
    const r: WrkResult[] = [];
    const b: WrkResult[] = [];
    for (let i = 0; i < RUNS; i++) {
      r.push(wrk(real, 50));
      b.push(wrk(bareUrl, 50));
    }
    bare.kill();
    await bare.exited;
    if (r.some((x) => x.bad)) throw new Error(`${name} answered non-2xx responses; the figures would be meaningless`);
    const rr = r.map((x) => x.rps);
    const med = median(rr);
    const bmed = median(b.map((x) => x.rps));
    rows.push(
      `| ${name} | ${bytes.length} | ${med.toFixed(0)} (${Math.min(...rr).toFixed(0)}–${Math.max(...rr).toFixed(0)}) | ${bmed.toFixed(0)} | ${(med / bmed).toFixed(2)} | ${median(r.map((x) => x.p50)).toFixed(2)} | ${median(r.map((x) => x.p99)).toFixed(2)} | ${c1.p50.toFixed(3)} |`,
    );
    console.error(`${name}: ${med.toFixed(0)} req/s vs bare ${bmed.toFixed(0)} (ratio ${(med / bmed).toFixed(2)})`);
  }
} finally {
  server.kill();
  await server.exited;
  rmSync(work, { recursive: true, force: true });
}

console.log(
  [
    `Runs: ${RUNS} × ${DURATION} per side, wrk -t1 -c50 (pinned core 0), server pinned core 1; warm-up 3 s discarded.`,
    "",
    "| endpoint | bytes | req/s median (min–max) | bare req/s median | ratio | p50 ms | p99 ms | p50 ms at -c1 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    ...rows,
  ].join("\n"),
);
