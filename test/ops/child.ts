/**
 * `plinth serve` as a real child process (`bun src/main.ts serve`), on a
 * fresh data dir (and on `make test-pg`, a fresh PostgreSQL database), with
 * its stdout and stderr collected line by line, for tests of what only a
 * process shows: signals, exit codes, what it prints.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";

export const ROOT = join(import.meta.dir, "../..");
export const MAIN = join(ROOT, "src/main.ts");

export interface ServeProcess {
  proc: ReturnType<typeof Bun.spawn>;
  /** Where it listens, from its first line. */
  url: string;
  port: number;
  dataDir: string;
  databaseUrl: string | null;
  out: string[];
  err: string[];
  /** The first stdout line matching `re` (waiting for it, at most `ms`). */
  line(re: RegExp, ms?: number): Promise<string>;
  /** Kills it if still running, removes its data. */
  cleanup(): Promise<void>;
}

/** The environment of a child: ours without any PLINTH_ setting, plus `env`. */
export function childEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith("PLINTH_")) out[k] = v;
  return { ...out, ...env };
}

/** Appends a child's output to `into`, line by line, as it arrives. */
export async function collectLines(stream: ReadableStream<Uint8Array>, into: string[]) {
  const decoder = new TextDecoder();
  let buf = "";
  for await (const chunk of stream) {
    buf += decoder.decode(chunk, { stream: true });
    const lines = buf.split("\n");
    buf = lines.pop()!;
    into.push(...lines);
  }
  if (buf) into.push(buf);
}

export async function spawnServe(
  args: string[] = [],
  env: Record<string, string | undefined> = {},
): Promise<ServeProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "plinth-child-"));
  const databaseUrl = ON_PG ? await freshDatabaseUrl() : null;
  const proc = Bun.spawn([process.execPath, MAIN, "serve", "--port", "0", "--data-dir", dataDir, ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: childEnv({ PLINTH_DATABASE_URL: databaseUrl ?? undefined, ...env }),
  });
  const out: string[] = [];
  const err: string[] = [];
  void collectLines(proc.stdout as ReadableStream<Uint8Array>, out);
  void collectLines(proc.stderr as ReadableStream<Uint8Array>, err);
  const line = async (re: RegExp, ms = 30_000) => {
    const end = Date.now() + ms;
    for (;;) {
      const hit = out.find((l) => re.test(l));
      if (hit) return hit;
      if (Date.now() > end || proc.exitCode !== null)
        throw new Error(`no line matching ${re} (exit ${proc.exitCode}):\n${out.join("\n")}\n${err.join("\n")}`);
      await Bun.sleep(20);
    }
  };
  const first = await line(/^Plinth is listening on /);
  const url = /listening on (http:\/\/\S+)/.exec(first)![1]!;
  return {
    proc,
    url,
    port: Number(new URL(url).port),
    dataDir,
    databaseUrl,
    out,
    err,
    line,
    async cleanup() {
      if (proc.exitCode === null) proc.kill("SIGKILL");
      await proc.exited;
      rmSync(dataDir, { recursive: true, force: true });
      await dropDatabase(databaseUrl);
    },
  };
}
