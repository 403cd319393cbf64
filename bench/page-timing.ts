/**
 * The measuring loop of the portal page benches (board-page, tickets-page,
 * ops-pages): one signed-in page, requested one at a time over loopback
 * (so the time is the server's: no queueing), alternating with a bare
 * Bun.serve that returns the very same bytes (A B A B …) after a warm-up;
 * the median and p95 of each side. The page's own figure is the page's
 * time less the bare one's.
 */
import type { Browser } from "../test/oauth/helpers";

export interface PageTiming {
  path: string;
  bytes: number;
  /** How often `marker` occurs in the page (its rows), 0 without one. */
  shown: number;
  p50: number;
  p95: number;
  bare50: number;
  bare95: number;
}

const quantile = (xs: number[], p: number) =>
  [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))]!;

/** Times GET `path` as `b`'s person, `calls` times a side after `warmup` rounds; any status but 200 stops the bench. */
export async function timePage(
  b: Browser,
  path: string,
  opts: { calls: number; warmup: number; marker?: RegExp },
): Promise<PageTiming> {
  const first = await b.get(path);
  if (first.status !== 200) throw new Error(`${path}: ${first.status}`);
  const body = new Uint8Array(await first.arrayBuffer());
  const shown = opts.marker ? (new TextDecoder().decode(body).match(opts.marker) ?? []).length : 0;
  const bare = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: () => new Response(body, { headers: { "Content-Type": "text/html; charset=UTF-8" } }),
  });
  const bareUrl = `http://127.0.0.1:${bare.port}/`;
  const real: number[] = [];
  const base: number[] = [];
  for (let i = 0; i < opts.calls + opts.warmup; i++) {
    let t = performance.now();
    const r = await b.get(path);
    await r.arrayBuffer();
    if (r.status !== 200) throw new Error(`${path}: ${r.status}`);
    if (i >= opts.warmup) real.push(performance.now() - t);
    t = performance.now();
    await (await fetch(bareUrl)).arrayBuffer();
    if (i >= opts.warmup) base.push(performance.now() - t);
  }
  bare.stop(true);
  return {
    path,
    bytes: body.length,
    shown,
    p50: quantile(real, 0.5),
    p95: quantile(real, 0.95),
    bare50: quantile(base, 0.5),
    bare95: quantile(base, 0.95),
  };
}
