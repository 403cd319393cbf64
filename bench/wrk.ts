/**
 * What every HTTP benchmark here shares (method: ../shared/BENCH.md): wrk
 * pinned to core 0 (the server goes on core 1), its figures parsed, and the
 * small helpers around it. One copy, so the benchmarks measure the same way.
 */

export interface WrkResult {
  rps: number;
  /** Latency percentiles in milliseconds. */
  p50: number;
  p99: number;
  /** Responses that were not 2xx/3xx. */
  non2xx: number;
}

/** Runs a command; its stdout, or an error with its stderr. */
export function sh(cmd: string[], env?: Record<string, string>): string {
  const p = Bun.spawnSync(cmd, { stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  if (p.exitCode !== 0) throw new Error(`${cmd.join(" ")} failed: ${p.stderr.toString()}`);
  return p.stdout.toString();
}

/** Waits until `url` answers at all (any status), at most `seconds`. */
export async function waitFor(url: string, seconds = 20): Promise<void> {
  for (let i = 0; i < seconds * 20; i++) {
    try {
      await (await fetch(url)).arrayBuffer();
      return;
    } catch {
      await Bun.sleep(50);
    }
  }
  throw new Error(`no answer from ${url}`);
}

/** wrk's "812.00us" / "1.20ms" / "2.01s" in milliseconds. */
export function toMs(v: string): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(v.trim());
  if (!m) return NaN;
  const n = Number(m[1]);
  return m[2] === "us" ? n / 1000 : m[2] === "s" ? n * 1000 : n;
}

/** One wrk run from core 0: `-t1 -c<conns> -d<duration> --latency`, with a Lua script when given. */
export function wrk(url: string, opts: { conns: number; duration: string; lua?: string }): WrkResult {
  const out = sh([
    "taskset",
    "-c",
    "0",
    "wrk",
    "-t1",
    `-c${opts.conns}`,
    `-d${opts.duration}`,
    "--latency",
    ...(opts.lua ? ["-s", opts.lua] : []),
    url,
  ]);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    p50: toMs(/\s50%\s+(\S+)/.exec(out)?.[1] ?? ""),
    p99: toMs(/\s99%\s+(\S+)/.exec(out)?.[1] ?? ""),
    non2xx: Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0),
  };
}

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
