/**
 * `make bench` (also alone: `bun bench/brain.ts`): brain search over
 * 100,000 records, and write throughput with the full-text index kept in
 * the writer's transaction, on SQLite and PostgreSQL.
 *
 * 100,000 records of one company (plus 10,000 of another, which must cost
 * nothing but never match) are written straight into brain_records in the
 * shape the verbs write (the FTS5 triggers or the generated tsvector index
 * them as they land). Titles and bodies draw from a fixed vocabulary with a
 * Zipf-like skew, so some words are in most records and some in a handful.
 * Then brain_search and brain_context are called in-process as the MCP
 * adapter calls them (arguments parsed by the tool's schema, then the
 * verb: scope, tenancy, every query) and timed: p50 and p99 after a
 * warm-up. Writes: brain_notes_create through its verb (row, revision,
 * refs, index, audit, event in one transaction), one after another.
 *
 * Without PLINTH_ENGINE it measures SQLite here and PostgreSQL in a child
 * (scripts/with-postgres.ts). BENCH_BRAIN_PG=0 skips PostgreSQL;
 * BENCH_BRAIN_RECORDS (default 100000), BENCH_BRAIN_CALLS (default 200).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

interface Row {
  name: string;
  p50: number;
  p99: number;
  calls: number;
  total: number;
}

const RECORDS = Number(process.env.BENCH_BRAIN_RECORDS ?? 100_000);
const CALLS = Number(process.env.BENCH_BRAIN_CALLS ?? 200);
const WRITES = 500;
const root = new URL("..", import.meta.url).pathname;

const COMMON =
  "client project website design content launch meeting review budget brand campaign report team schedule invoice strategy customer product service market social email page search data analytics plan goal deadline feedback proposal copy image video contract".split(
    " ",
  );
const RARE =
  "espresso zeppelin quokka aurora basalt cinnamon dolphin falcon glacier harbour juniper lagoon meadow nectar orchid pebble quartz saffron tundra velvet".split(
    " ",
  );

async function measure(): Promise<{ engine: string; rows: Row[]; seedMs: number; writesPerSecond: number }> {
  const v = await import("valibot");
  const { loadConfig } = await import("../src/config");
  const { ManualClock } = await import("../src/core/clock");
  const { openStore } = await import("../src/core/open");
  const { engine } = await import("../src/core/engine");
  const { companies, memberships, users } = await import("../src/core/tables");
  const { brainRecords } = await import("../src/domains/brain/tables");
  const { brainDomain } = await import("../src/domains/brain/tools");
  const { titleKey } = await import("../src/domains/brain/kinds");
  // The catalog registers every domain's events (emit refuses unlisted types).
  await import("../src/catalog");

  const dir = mkdtempSync(join(tmpdir(), "plinth-bench-brain-"));
  const url = engine() === "pg" ? await (await import("../test/db")).freshDatabaseUrl() : null;
  const store = openStore(url ? { dataDir: dir, databaseUrl: url } : { dataDir: dir });
  await store.migrate();
  const now = Date.parse("2026-06-30T12:00:00Z");
  const clock = new ManualClock(now);
  const deps = {
    store,
    db: store.db,
    config: { ...loadConfig({}, {}), dataDir: dir, embeddingsUrl: null },
    clock,
    redis: null,
    blobs: null as never,
  };

  // mulberry32: deterministic, so every run measures the same data.
  let seed = 7;
  const rand = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  // Zipf-like: common words often, a long tail of made-up words, rare real words seldom.
  const word = () => {
    const r = rand();
    if (r < 0.55) return COMMON[Math.floor(rand() ** 2 * COMMON.length)]!;
    if (r < 0.999) return `w${Math.floor(rand() ** 3 * 20_000)}`;
    return RARE[Math.floor(rand() * RARE.length)]!;
  };
  const words = (n: number) => Array.from({ length: n }, word).join(" ");
  const KINDS = ["note", "document", "meeting", "task", "person", "topic", "glossary", "goal", "playbook"] as const;

  const t0 = performance.now();
  const co = (await store.transaction((tx) => tx.insert(companies).values({ name: "Bench Agency" }).returning()))[0]!;
  const other = (
    await store.transaction((tx) => tx.insert(companies).values({ name: "Other Agency" }).returning())
  )[0]!;
  const u = (
    await store.transaction((tx) => tx.insert(users).values({ email: "bench@bench.test", name: "Bench" }).returning())
  )[0]!;
  await store.transaction((tx) => tx.insert(memberships).values({ companyId: co.id, userId: u.id, role: "owner" }));
  const fill = async (companyId: number, n: number) => {
    for (let i = 0; i < n; i += 500) {
      const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) => {
        const title = words(4);
        const body = words(40 + Math.floor(rand() * 80));
        const at = new Date(now - Math.floor(rand() * 365) * 86_400_000);
        return {
          companyId,
          kind: KINDS[(i + j) % KINDS.length]!,
          title,
          body,
          data: {},
          searchText: body,
          titleKey: titleKey(title),
          at,
          version: 1,
          createdByUserId: u.id,
          updatedByUserId: u.id,
          createdAt: at,
          updatedAt: at,
        };
      });
      await store.transaction(async (tx) => void (await tx.insert(brainRecords).values(rows)));
    }
  };
  await fill(co.id, RECORDS);
  await fill(other.id, Math.floor(RECORDS / 10));
  if (engine() === "pg") await store.query("ANALYZE");
  else await store.query("INSERT INTO brain_fts(brain_fts) VALUES ('optimize')");
  const seedMs = performance.now() - t0;

  const company = { id: co.id, name: co.name, role: "owner" as const };
  const ctx = {
    deps,
    principal: {
      userId: u.id,
      credential: { kind: "cli" as const, id: 0, name: "bench" },
      scopes: ["*"],
      companies: [company],
      requireCmsApproval: false,
    },
    company,
    requestId: "bench",
  };
  const tools = new Map(brainDomain.tools.map((x) => [x.name, x]));
  const scenarios: [string, string, Record<string, unknown>][] = [
    ["one common word (in most records)", "brain_search", { query: "client" }],
    ["two common words", "brain_search", { query: "design review" }],
    ["a rare word", "brain_search", { query: "zeppelin" }],
    ["a tail word", "brain_search", { query: "w1234" }],
    ["phrase", "brain_search", { query: '"launch meeting"' }],
    ["prefix", "brain_search", { query: "camp*" }],
    ["a OR b -c", "brain_search", { query: "espresso OR quokka -budget" }],
    [
      "kinds + date range",
      "brain_search",
      { query: "invoice", kinds: ["note", "meeting"], from: "2026-03-01", to: "2026-05-31" },
    ],
    ["no match for all words, relaxed to any", "brain_search", { query: "zeppelin w19999" }],
    ["page 10 of 20", "brain_search", { query: "budget", offset: 180 }],
    [
      "brain_context question",
      "brain_context",
      { question: "What did the client say about the brand campaign budget?" },
    ],
  ];
  const rows: Row[] = [];
  for (const [name, tool, args] of scenarios) {
    const def = tools.get(tool)!;
    const input = v.parse(def.input, args);
    let total = 0;
    for (let i = 0; i < 10; i++) {
      const r = (await def.run(ctx as never, input)) as { total?: number; passages?: unknown[] };
      total = r.total ?? r.passages?.length ?? 0;
    }
    const times: number[] = [];
    for (let i = 0; i < CALLS; i++) {
      const a = performance.now();
      await def.run(ctx as never, input);
      times.push(performance.now() - a);
    }
    times.sort((x, y) => x - y);
    rows.push({
      name,
      p50: times[Math.floor(times.length / 2)]!,
      p99: times[Math.min(times.length - 1, Math.floor(times.length * 0.99))]!,
      calls: CALLS,
      total,
    });
  }
  const create = tools.get("brain_notes_create")!;
  const w0 = performance.now();
  for (let i = 0; i < WRITES; i++)
    await create.run(
      ctx as never,
      v.parse(create.input, { title: words(4), body: words(80), topics: i % 10 === 0 ? ["Bench topic"] : undefined }),
    );
  const writesPerSecond = WRITES / ((performance.now() - w0) / 1000);
  await store.close();
  if (url) await (await import("../test/db")).dropDatabase(url);
  if (process.env.BENCH_BRAIN_KEEP) console.error(`bench/brain: data kept in ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  return { engine: engine(), rows, seedMs, writesPerSecond };
}

if (process.env.PLINTH_BENCH_BRAIN_CHILD) {
  console.log(JSON.stringify(await measure()));
  process.exit(0);
}

const sqlite = await measure();
let pg: Awaited<ReturnType<typeof measure>> | null = null;
if (process.env.BENCH_BRAIN_PG !== "0") {
  console.error("bench/brain: measuring PostgreSQL (scripts/with-postgres.ts)…");
  const child = Bun.spawnSync(
    [process.execPath, join(root, "scripts/with-postgres.ts"), process.execPath, join(root, "bench/brain.ts")],
    {
      env: { ...process.env, PLINTH_BENCH_BRAIN_CHILD: "1", PLINTH_LOG: "off" },
      stdout: "pipe",
      stderr: "inherit",
    },
  );
  const line = child.stdout.toString().trim().split("\n").at(-1) ?? "";
  if (child.exitCode === 0 && line.startsWith("{")) pg = JSON.parse(line);
  else console.error(`bench/brain: PostgreSQL run failed (exit ${child.exitCode}); SQLite only.`);
}

const ms = (x: number | undefined) => (x === undefined ? "–" : x < 10 ? x.toFixed(2) : x.toFixed(1));
console.log(
  `\n## Brain search: server time per call (ms), ${RECORDS.toLocaleString("en")} records (+${(RECORDS / 10).toLocaleString("en")} of another company)\n`,
);
console.log(
  `Data written in ${(sqlite.seedMs / 1000).toFixed(1)} s (SQLite)${pg ? `, ${(pg.seedMs / 1000).toFixed(1)} s (PostgreSQL)` : ""}; ${CALLS} calls per query after 10 warm-up calls.\n`,
);
console.log(`| query | matches | SQLite p50 | SQLite p99 | PostgreSQL p50 | PostgreSQL p99 |`);
console.log(`|---|---:|---:|---:|---:|---:|`);
for (const r of sqlite.rows) {
  const p = pg?.rows.find((x) => x.name === r.name);
  console.log(`| ${r.name} | ${r.total} | ${ms(r.p50)} | ${ms(r.p99)} | ${ms(p?.p50)} | ${ms(p?.p99)} |`);
}
console.log(
  `\nWrites (brain_notes_create through its verb, index in the same transaction, one after another): ${sqlite.writesPerSecond.toFixed(0)}/s SQLite${pg ? `, ${pg.writesPerSecond.toFixed(0)}/s PostgreSQL` : ""}.`,
);
