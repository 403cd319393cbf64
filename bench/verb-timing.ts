/**
 * What bench/cards.ts and bench/crm.ts share: timing tools' verbs in
 * process (server time per call, no HTTP), running the same script again on
 * a throw-away PostgreSQL cluster in a child, and the side-by-side table.
 */
import { join } from "node:path";
import * as v from "valibot";

export interface Row {
  name: string;
  median: number;
  p95: number;
  calls: number;
  bytes: number;
}

export interface Measured {
  engine: string;
  rows: Row[];
  seedMs: number;
}

type Tool = { input: v.GenericSchema; run(ctx: never, input: unknown): Promise<unknown> };

/** Each scenario `[name, tool, args, calls?]`: warm-up calls (result size kept), then timed calls. */
export async function timeTools(
  tools: Map<string, Tool>,
  ctx: unknown,
  scenarios: readonly (readonly [string, string, Record<string, unknown>, number?])[],
  opts: { calls: number; warmup: number },
): Promise<Row[]> {
  const rows: Row[] = [];
  for (const [name, tool, args, n = opts.calls] of scenarios) {
    const def = tools.get(tool)!;
    const input = v.parse(def.input, args);
    let bytes = 0;
    for (let i = 0; i < Math.min(opts.warmup, n); i++)
      bytes = JSON.stringify(await def.run(ctx as never, input)).length;
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const a = performance.now();
      await def.run(ctx as never, input);
      times.push(performance.now() - a);
    }
    times.sort((x, y) => x - y);
    rows.push({
      name,
      median: times[Math.floor(times.length / 2)]!,
      p95: times[Math.floor(times.length * 0.95)]!,
      calls: n,
      bytes,
    });
  }
  return rows;
}

/**
 * Measures on SQLite here and, unless `skipPg`, on PostgreSQL in a child of
 * scripts/with-postgres.ts running this same script with `childFlag` set
 * (the child prints its result as one JSON line and exits).
 */
export async function onBothEngines(
  label: string,
  script: string,
  childFlag: string,
  skipPg: boolean,
  measure: () => Promise<Measured>,
): Promise<{ sqlite: Measured; pg: Measured | null }> {
  if (process.env[childFlag]) {
    console.log(JSON.stringify(await measure()));
    process.exit(0);
  }
  const root = new URL("..", import.meta.url).pathname;
  const sqlite = await measure();
  let pg: Measured | null = null;
  if (!skipPg) {
    console.error(`${label}: measuring PostgreSQL (scripts/with-postgres.ts)…`);
    const child = Bun.spawnSync([process.execPath, join(root, "scripts/with-postgres.ts"), process.execPath, script], {
      env: { ...process.env, [childFlag]: "1", PLINTH_LOG: "off" },
      stdout: "pipe",
      stderr: "inherit",
    });
    const line = child.stdout.toString().trim().split("\n").at(-1) ?? "";
    if (child.exitCode === 0 && line.startsWith("{")) pg = JSON.parse(line);
    else console.error(`${label}: PostgreSQL run failed (exit ${child.exitCode}); SQLite only.`);
  }
  return { sqlite, pg };
}

/** The SQLite | PostgreSQL table, one line per read. */
export function printSideBySide(sqlite: Measured, pg: Measured | null): void {
  const ms = (x: number | undefined) => (x === undefined ? "–" : x < 10 ? x.toFixed(2) : x.toFixed(1));
  console.log(`| read | SQLite median | SQLite p95 | PostgreSQL median | PostgreSQL p95 | result bytes |`);
  console.log(`|---|---:|---:|---:|---:|---:|`);
  for (const r of sqlite.rows) {
    const p = pg?.rows.find((x) => x.name === r.name);
    console.log(`| ${r.name} | ${ms(r.median)} | ${ms(r.p95)} | ${ms(p?.median)} | ${ms(p?.p95)} | ${r.bytes} |`);
  }
}
