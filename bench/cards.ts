/**
 * `make bench` (also alone: `bun bench/cards.ts`): server time per call of
 * the work-management reads on a big project, on SQLite and PostgreSQL.
 *
 * A project with 10,000 cards (6 columns, 6 people, 8 labels) and three
 * months of history (six two-week sprints of 150 cards, each card created,
 * planned, started and finished on its own days, plus a 13-week "quarter"
 * sprint of 1,000 cards) is written straight into the tables, in the shape
 * the verbs write it. Then each read tool's verb is called in-process, as
 * the MCP adapter calls it (arguments parsed by the tool's own schema, then
 * its verb: scope, tenancy and every query), and timed: median and p95 of
 * the calls after a warm-up. That is server time per call, without HTTP and
 * JSON-RPC framing (bench/run.ts measures those over the wire).
 *
 * Run without PLINTH_ENGINE, it measures SQLite here and PostgreSQL in a
 * child through scripts/with-postgres.ts (a temp cluster from Debian's
 * packages), then prints both side by side. BENCH_CARDS_PG=0 skips
 * PostgreSQL; BENCH_CARDS_CALLS (default 200) sets the calls per read.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onBothEngines, printSideBySide, timeTools, type Measured } from "./verb-timing";

const CALLS = Number(process.env.BENCH_CARDS_CALLS ?? 200);

async function measure(): Promise<Measured> {
  const { loadConfig } = await import("../src/config");
  const { ManualClock } = await import("../src/core/clock");
  const { openStore } = await import("../src/core/open");
  const { engine } = await import("../src/core/engine");
  const { companies, memberships, users } = await import("../src/core/tables");
  const t = await import("../src/domains/projects/tables");
  const { workDomains } = await import("../src/domains/projects/tools");
  // The catalog registers every domain's events (emit refuses unlisted types).
  await import("../src/catalog");

  const dir = mkdtempSync(join(tmpdir(), "plinth-bench-cards-"));
  const url = engine() === "pg" ? await (await import("../test/db")).freshDatabaseUrl() : null;
  const store = openStore(url ? { dataDir: dir, databaseUrl: url } : { dataDir: dir });
  await store.migrate();
  const now = Date.parse("2026-06-30T12:00:00Z");
  const clock = new ManualClock(now);
  const deps = {
    store,
    db: store.db,
    config: { ...loadConfig({}, {}), dataDir: dir },
    clock,
    redis: null,
    blobs: null as never,
  };
  const DAY = 86_400_000;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);

  // Deterministic pseudo-random numbers, so every run measures the same data.
  let seed = 42;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;

  const t0 = performance.now();
  const insert = async <T>(table: any, rows: T[]) => {
    for (let i = 0; i < rows.length; i += 500)
      await store.transaction(async (tx) => void (await tx.insert(table).values(rows.slice(i, i + 500) as any)));
  };
  const co = (await store.transaction((tx) => tx.insert(companies).values({ name: "Bench Agency" }).returning()))[0]!;
  const people: number[] = [];
  for (let i = 0; i < 6; i++) {
    const u = (
      await store.transaction((tx) =>
        tx
          .insert(users)
          .values({ email: `p${i}@bench.test`, name: `Person ${i}` })
          .returning(),
      )
    )[0]!;
    people.push(u.id);
    await store.transaction((tx) =>
      tx.insert(memberships).values({ companyId: co.id, userId: u.id, role: i === 0 ? "owner" : "admin" }),
    );
  }
  const start = now - 91 * DAY;
  const project = (
    await store.transaction((tx) =>
      tx
        .insert(t.projects)
        .values({
          companyId: co.id,
          key: "BEN",
          name: "Bench",
          nextNumber: 10_001,
          createdAt: new Date(start),
          updatedAt: new Date(start),
        })
        .returning(),
    )
  )[0]!;
  const board = (
    await store.transaction((tx) =>
      tx.insert(t.boards).values({ projectId: project.id, name: "Board", position: 1024 }).returning(),
    )
  )[0]!;
  const groups = ["backlog", "unstarted", "started", "started", "done", "cancelled"] as const;
  const cols = await store.transaction((tx) =>
    tx
      .insert(t.boardColumns)
      .values(
        groups.map((g, i) => ({
          boardId: board.id,
          projectId: project.id,
          name: `Column ${i}`,
          stateGroup: g,
          position: (i + 1) * 1024,
        })),
      )
      .returning(),
  );
  const labels = await store.transaction((tx) =>
    tx
      .insert(t.projectLabels)
      .values(
        ["Bug", "Design", "Frontend", "Backend", "Content", "SEO", "Ops", "Client"].map((n) => ({
          projectId: project.id,
          name: n,
          nameKey: n.toLowerCase(),
          color: "#2563eb",
        })),
      )
      .returning(),
  );
  // Six two-week sprints ending today (the last one active), and a quarter-long one.
  const sprintRows: (typeof t.sprints.$inferInsert)[] = [];
  for (let i = 0; i < 6; i++) {
    const s = start + i * 14 * DAY + DAY;
    sprintRows.push({
      projectId: project.id,
      name: `Sprint ${i + 1}`,
      startDate: day(s),
      endDate: day(s + 13 * DAY),
      status: (i === 5 ? "active" : "closed") as "active" | "closed",
      activeProjectId: i === 5 ? project.id : null,
      startedAt: new Date(s + 9 * 3_600_000),
      closedAt: i === 5 ? null : new Date(s + 13 * DAY + 17 * 3_600_000),
    });
  }
  sprintRows.push({
    projectId: project.id,
    name: "Quarter",
    startDate: day(start + DAY),
    endDate: day(start + 91 * DAY),
    status: "closed" as const,
    activeProjectId: null,
    startedAt: new Date(start + DAY),
    closedAt: new Date(now - DAY),
  });
  const sprints = await store.transaction((tx) => tx.insert(t.sprints).values(sprintRows).returning());

  const WORDS = [
    "invoice",
    "header",
    "footer",
    "checkout",
    "menu",
    "login",
    "map",
    "newsletter",
    "blog",
    "gallery",
    "search",
    "cart",
    "profile",
    "report",
  ];
  const cards: (typeof t.cards.$inferInsert)[] = [];
  const activity: (typeof t.cardActivity.$inferInsert)[] = [];
  const perColumn = new Map<number, number>();
  for (let n = 1; n <= 10_000; n++) {
    // The first 1,000 cards: the quarter sprint; the next 900: the two-week sprints; the other 8,100: the backlog and the board.
    const inQuarter = n <= 1000;
    const sprintIdx = !inQuarter && n <= 1900 ? Math.floor((n - 1001) / 150) : -1;
    const sprint = inQuarter ? sprints[6]! : sprintIdx >= 0 ? sprints[sprintIdx]! : null;
    const sStart = sprint ? sprint.startedAt!.getTime() : start + rand() * 80 * DAY;
    const created = sStart - DAY * (1 + rand() * 5);
    const estimate = pick([1, 2, 3, 5, 8, null]);
    const finished = sprint ? rand() < 0.8 : rand() < 0.3;
    const length = sprint === sprints[6] ? 90 : 13;
    const doneAt = sStart + rand() * length * DAY;
    const col = finished ? cols[4]! : pick(cols.filter((c) => c.stateGroup !== "done"));
    const pos = (perColumn.get(col.id) ?? 0) + 65_536;
    perColumn.set(col.id, pos);
    const id = n;
    cards.push({
      id,
      companyId: co.id,
      projectId: project.id,
      number: n,
      boardId: board.id,
      columnId: col.id,
      position: pos,
      title: `${pick(WORDS)} ${pick(WORDS)} ${n}`,
      description: `Card ${n}: ${pick(WORDS)} work for the ${pick(WORDS)} page.`,
      priority: Math.floor(rand() * 5),
      estimate,
      dueDate: rand() < 0.4 ? day(created + rand() * 60 * DAY) : null,
      sprintId: sprint?.id ?? null,
      createdAt: new Date(created),
      updatedAt: new Date(finished ? doneAt : created),
      completedAt: finished ? new Date(doneAt) : null,
    });
    const row = (at: number, action: string, sprintId: number | null, g: string) =>
      activity.push({
        cardId: id,
        projectId: project.id,
        userId: people[0]!,
        action,
        detail: {},
        sprintId,
        estimate,
        stateGroup: g as never,
        at: new Date(at),
      });
    row(created, "created", null, "backlog");
    if (sprint) {
      row(sStart - 3_600_000, "sprint", sprint.id, "unstarted");
      row(sStart + rand() * (doneAt - sStart), "moved", sprint.id, "started");
      if (finished) row(doneAt, "moved", sprint.id, "done");
      else if (sprint.closedAt && sprint !== sprints[6])
        row(sprint.closedAt.getTime(), "carried_over", null, "started");
    } else if (finished) row(doneAt, "moved", null, "done");
  }
  await insert(t.cards, cards);
  if (engine() === "pg") await store.query("SELECT setval(pg_get_serial_sequence('cards', 'id'), 10000)");
  await insert(t.cardActivity, activity);
  await insert(
    t.cardAssignees,
    cards.map((c, i) => ({ cardId: c.id!, userId: people[i % people.length]! })),
  );
  await insert(
    t.cardLabels,
    cards.map((c, i) => ({ cardId: c.id!, labelId: labels[i % labels.length]!.id })),
  );
  // What autovacuum does soon after a bulk load in production: without statistics PostgreSQL plans blind.
  if (engine() === "pg") await store.query("ANALYZE");
  const seedMs = performance.now() - t0;

  const company = { id: co.id, name: co.name, role: "owner" as const };
  const ctx = {
    deps,
    principal: {
      userId: people[0]!,
      credential: { kind: "cli" as const, id: 0, name: "bench" },
      scopes: ["*"],
      companies: [company],
      requireCmsApproval: false,
    },
    company,
    requestId: "bench",
  };
  const tools = new Map(workDomains.flatMap((d) => d.tools).map((x) => [x.name, x]));
  const scenarios: [string, string, Record<string, unknown>, number?][] = [
    ["cards_list: board order, first page of 50 (10,000 cards)", "cards_list", { projectId: "BEN", limit: 50 }],
    ["cards_list: page 100 of 50 (offset 4,950)", "cards_list", { projectId: "BEN", limit: 50, offset: 4950 }],
    [
      "cards_list: assignee + open state groups",
      "cards_list",
      { projectId: "BEN", assignee: "p2@bench.test", stateGroups: ["unstarted", "started"], limit: 50 },
    ],
    [
      "cards_list: label + priority, by updated",
      "cards_list",
      { projectId: "BEN", labels: ["Frontend"], priorities: [1, 2], orderBy: "updated", limit: 50 },
    ],
    [
      "cards_list: text search (title and description)",
      "cards_list",
      { projectId: "BEN", search: "checkout menu", limit: 50 },
    ],
    ["cards_list: search by key BEN-9876", "cards_list", { search: "BEN-9876" }],
    [
      "cards_list: active sprint, due order",
      "cards_list",
      { projectId: "BEN", sprintId: "active", orderBy: "due", limit: 100 },
    ],
    ["cards_get: one card with everything", "cards_get", { id: "BEN-5000", include: ["comments", "activity"] }],
    ["sprints_burndown: two-week sprint in a 3-month project", "sprints_burndown", { id: sprints[4]!.id }],
    ["sprints_burndown: active sprint (to today)", "sprints_burndown", { id: sprints[5]!.id }],
    [
      "sprints_burndown: 13-week sprint, 1,000 cards",
      "sprints_burndown",
      { id: sprints[6]!.id },
      Math.max(20, Math.floor(CALLS / 4)),
    ],
    ["sprints_velocity: last 6 sprints", "sprints_velocity", { projectId: "BEN", count: 6 }],
  ];
  const rows = await timeTools(tools as never, ctx, scenarios, { calls: CALLS, warmup: 20 });
  await store.close();
  if (url) await (await import("../test/db")).dropDatabase(url);
  rmSync(dir, { recursive: true, force: true });
  return { engine: engine(), rows, seedMs };
}

const { sqlite, pg } = await onBothEngines(
  "bench/cards",
  import.meta.path,
  "PLINTH_BENCH_CARDS_CHILD",
  process.env.BENCH_CARDS_PG === "0",
  measure,
);

console.log(`\n## Work management reads: server time per call (ms), 10,000-card project with 3 months of history\n`);
console.log(
  `Data written in ${(sqlite.seedMs / 1000).toFixed(1)} s (SQLite)${pg ? `, ${(pg.seedMs / 1000).toFixed(1)} s (PostgreSQL)` : ""}; ${CALLS} calls per read after 20 warm-up calls.\n`,
);
printSideBySide(sqlite, pg);
