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
import { median, waitFor, wrk, type WrkResult } from "./wrk";
import { DEMO_DECK_SLUG } from "../src/domains/decks/demo";

const DURATION = process.env.BENCH_DURATION ?? "10s";
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const root = new URL("..", import.meta.url).pathname;
const bin = process.env.PLINTH_BIN ?? join(root, "dist/plinth");
const PORT = 18797;
const BARE_PORT = 18798;

if (!existsSync(bin)) throw new Error(`${bin} is missing: run \`make build\` first (or set PLINTH_BIN)`);
if (Bun.spawnSync(["sh", "-c", "command -v wrk"]).exitCode !== 0)
  throw new Error("wrk is missing: apt-get install wrk (make bench installs it)");

const work = mkdtempSync(join(tmpdir(), "plinth-bench-deck-"));

const server = Bun.spawn(
  ["taskset", "-c", "1", bin, "serve", "--port", String(PORT), "--data-dir", join(work, "data"), "--log", "off"],
  { stdout: "ignore", stderr: "inherit" },
);
const base = `http://127.0.0.1:${PORT}`;
const rows: string[] = [];
try {
  await waitFor(`${base}/healthz`);
  // The demo is seeded after the server starts listening: wait for its deck.
  for (
    let i = 0;
    i < 600 &&
    (await fetch(`${base}/d/${DEMO_DECK_SLUG}`)
      .then((r) => (r.arrayBuffer(), r.status))
      .catch(() => 0)) !== 200;
    i++
  )
    await Bun.sleep(50);
  for (const [name, path] of [
    ["deck page", `/d/${DEMO_DECK_SLUG}`],
    ["deck PDF", `/d/${DEMO_DECK_SLUG}.pdf`],
  ] as const) {
    const res = await fetch(base + path);
    const bytes = new Uint8Array(await res.arrayBuffer());
    if (res.status !== 200) throw new Error(`${name}: status ${res.status} (is the demo seeded?)`);
    const file = join(work, "body.bin");
    writeFileSync(file, bytes);
    const bare = Bun.spawn(
      [
        "taskset",
        "-c",
        "1",
        process.execPath,
        join(root, "bench/bare.ts"),
        String(BARE_PORT),
        file,
        res.headers.get("content-type")!,
      ],
      { stdout: "ignore", stderr: "inherit" },
    );
    await waitFor(`http://127.0.0.1:${BARE_PORT}/`);
    const real = base + path;
    const bareUrl = `http://127.0.0.1:${BARE_PORT}${path}`;
    wrk(real, { conns: 50, duration: "3s" });
    wrk(bareUrl, { conns: 50, duration: "3s" });
    const c1 = wrk(real, { conns: 1, duration: "5s" });
    const r: WrkResult[] = [];
    const b: WrkResult[] = [];
    for (let i = 0; i < RUNS; i++) {
      r.push(wrk(real, { conns: 50, duration: DURATION }));
      b.push(wrk(bareUrl, { conns: 50, duration: DURATION }));
    }
    bare.kill();
    await bare.exited;
    if (r.some((x) => x.non2xx))
      throw new Error(`${name} answered non-2xx responses; the figures would be meaningless`);
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
