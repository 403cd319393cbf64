/**
 * `bun bench/survey-page.ts` (after `make build`): the public survey page
 * `/s/<slug>` of the compiled binary serving the demo data, against a bare
 * Bun.serve returning a copy of the same page (same bytes count, same
 * content type), measured with wrk as bench/run.ts does (../shared/BENCH.md):
 * server pinned to core 1, wrk to core 0, warm-up discarded, A/B
 * alternated, medians with min–max, the ratio to the bare baseline, p50 at
 * one connection.
 *
 * The page comes from the surveys domain's first-page cache, keyed by
 * (survey, version, language): a hit does no database work and fills the
 * per-response holes (CSP nonce, form token, double-submit cookie, hidden
 * fields) with string joins. Each response still differs (fresh nonce and
 * token), so the bare side serves one captured copy.
 *
 * Env: BENCH_DURATION (default 10s), BENCH_RUNS (default 3).
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { median, sh, waitFor, wrk, type WrkResult } from "./wrk";

const DURATION = process.env.BENCH_DURATION ?? "10s";
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const root = new URL("..", import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), "plinth-bench-survey-"));
const PORT = 18797;
const BARE_PORT = 18798;
const SLUG = "harbor-visit-feedback";

if (!existsSync(join(root, "dist/plinth"))) sh(["make", "-C", root, "build"]);
const dataDir = join(work, "data");
const server = Bun.spawn(
  ["taskset", "-c", "1", join(root, "dist/plinth"), "serve", "--port", String(PORT), "--data-dir", dataDir],
  {
    stdout: "ignore",
    stderr: "inherit",
    env: { ...process.env, PLINTH_LOG: "off" },
  },
);
const base = `http://127.0.0.1:${PORT}`;
await waitFor(`${base}/healthz`);
// The demo seed finishes before the server listens; the survey page must answer 200.
let res = await fetch(`${base}/s/${SLUG}`);
for (let i = 0; res.status !== 200 && i < 100; i++) {
  await Bun.sleep(100);
  res = await fetch(`${base}/s/${SLUG}`);
}
const bytes = new Uint8Array(await res.arrayBuffer());
if (res.status !== 200) throw new Error(`/s/${SLUG}: status ${res.status}`);
const bodyFile = join(work, "page.html");
writeFileSync(bodyFile, bytes);
const bare = Bun.spawn(
  [
    "taskset",
    "-c",
    "1",
    process.execPath,
    join(root, "bench/bare.ts"),
    String(BARE_PORT),
    bodyFile,
    res.headers.get("content-type") ?? "text/html",
  ],
  {
    stdout: "ignore",
    stderr: "inherit",
  },
);
await waitFor(`http://127.0.0.1:${BARE_PORT}/`);

const realUrl = `${base}/s/${SLUG}`;
const bareUrl = `http://127.0.0.1:${BARE_PORT}/s/${SLUG}`;
wrk(realUrl, { conns: 50, duration: "3s" });
wrk(bareUrl, { conns: 50, duration: "3s" });
const c1 = wrk(realUrl, { conns: 1, duration: "5s" });
const real: WrkResult[] = [];
const base2: WrkResult[] = [];
for (let i = 0; i < RUNS; i++) {
  real.push(wrk(realUrl, { conns: 50, duration: DURATION }));
  base2.push(wrk(bareUrl, { conns: 50, duration: DURATION }));
}
bare.kill();
server.kill();
await Promise.all([bare.exited, server.exited]);
rmSync(work, { recursive: true, force: true });
const bad = real.reduce((n, r) => n + r.non2xx, 0);
if (bad) throw new Error(`the survey page answered ${bad} non-2xx responses; the figures would be meaningless`);

const rr = real.map((x) => x.rps);
const med = median(rr);
const bmed = median(base2.map((x) => x.rps));
console.log(
  [
    `Runs: ${RUNS} × ${DURATION} per side, wrk -t1 -c50 (pinned core 0), server pinned core 1; warm-up 3 s discarded.`,
    "",
    "| page | bytes | req/s median (min–max) | bare req/s median | ratio | p50 ms | p99 ms | p50 ms at -c1 |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
    `| GET /s/${SLUG} | ${bytes.length} | ${med.toFixed(0)} (${Math.min(...rr).toFixed(0)}–${Math.max(...rr).toFixed(0)}) | ${bmed.toFixed(0)} | ${(med / bmed).toFixed(2)} | ${median(real.map((x) => x.p50)).toFixed(2)} | ${median(real.map((x) => x.p99)).toFixed(2)} | ${c1.p50.toFixed(3)} |`,
  ].join("\n"),
);
