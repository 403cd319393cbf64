/**
 * `bun bench/board-page.ts` (PostgreSQL: `bun scripts/with-postgres.ts bun
 * bench/board-page.ts`): server time of the portal's kanban board
 * (`GET /projects/WEB`, src/domains/projects/pages.tsx) for a project of
 * 500 cards on six columns, each card with a label, an assignee and an
 * estimate, and a move form per card — the figure issue 31 asks for (under
 * 200 ms). Also the sprint page, which draws two charts on the server.
 *
 * Method (../shared/BENCH.md): a real server (test/harness.ts, the same
 * app the binary serves) on a fresh database; the owner signs in over
 * HTTP; the cards are made through the createCard verb, as an agent's
 * cards_create makes them. Then, one request at a time over loopback (so
 * the time is the server's: no queueing), the page and a bare Bun.serve
 * returning the very same bytes alternate (A B A B …) after a warm-up
 * (bench/page-timing.ts); we report median and p95 of each and the page's
 * time less the bare one's.
 *
 * Env: BENCH_BOARD_CALLS (default 60 per side), BENCH_BOARD_CARDS (default 500).
 */
import { ManualClock } from "../src/core/clock";
import type { ActorContext } from "../src/core/context";
import { createCard } from "../src/domains/projects/cards";
import { createProject } from "../src/domains/projects/projects";
import { addSprintCards, createSprint, startSprint } from "../src/domains/projects/sprints";
import { addMember, createCompany, createUser } from "../test/fixtures/accounts";
import { startTestServer } from "../test/harness";
import { Browser } from "../test/oauth/helpers";
import { timePage } from "./page-timing";

const CALLS = Number(process.env.BENCH_BOARD_CALLS ?? 60);
const CARDS = Number(process.env.BENCH_BOARD_CARDS ?? 500);
const PASSWORD = "a long passphrase for the bench";

const s = await startTestServer({ seed: false, clock: new ManualClock(Date.now()), config: { rateLimit: 1_000_000 } });
try {
  const owner = await createUser(s.deps, { email: "owner@bench.test", name: "Olga Owner", password: PASSWORD });
  const company = await createCompany(s.deps, { name: "Bench Co", ownerUserId: owner.id });
  const people = [owner.id];
  for (let i = 0; i < 5; i++) {
    const u = await createUser(s.deps, { email: `p${i}@bench.test`, name: `Person ${i}` });
    await addMember(s.deps, company.id, u.id, "admin");
    people.push(u.id);
  }
  const c = { id: company.id, name: company.name, role: "owner" as const };
  const ctx: ActorContext = {
    deps: s.deps,
    principal: {
      userId: owner.id,
      credential: { kind: "session", id: 0, name: "bench" },
      scopes: ["*"],
      companies: [c],
      requireCmsApproval: false,
    },
    company: c,
    requestId: "bench",
  };
  const project = (await createProject(ctx, {
    name: "Website relaunch",
    key: "WEB",
    members: people,
    status: "active",
  } as never)) as { id: number; board: { columns: { id: number; name: string }[] } };
  const columns = project.board.columns;
  const t0 = performance.now();
  const made: number[] = [];
  for (let i = 0; i < CARDS; i++) {
    const card = (await createCard(ctx, {
      projectId: project.id,
      title: `Card ${i + 1}: ${["Design", "Build", "Write", "Review", "Test"][i % 5]} the ${["home", "services", "contact", "blog", "shop"][i % 5]} page`,
      columnId: columns[i % 5]!.id,
      estimate: (i % 8) + 1,
      priority: i % 5,
      assignees: [people[i % people.length]!],
      labels: [],
      checklist: [],
    } as never)) as { id: number };
    made.push(card.id);
  }
  // A sprint with history for the sprint page's charts.
  const today = new Date().toISOString().slice(0, 10);
  const sprint = (await createSprint(ctx, {
    projectId: project.id,
    name: "Sprint 1",
    startDate: today,
    endDate: today,
  } as never)) as { id: number };
  await addSprintCards(ctx, { sprintId: sprint.id, cardIds: made.slice(0, 40) });
  await startSprint(ctx, { id: sprint.id });
  const seeded = performance.now() - t0;

  const b = new Browser(s.url);
  const signedIn = await b.signIn("owner@bench.test", PASSWORD);
  if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status}`);

  const measure = (path: string) => timePage(b, path, { calls: CALLS, warmup: 10 });

  const rows = [
    await measure("/projects/WEB"),
    await measure(`/projects/WEB/sprints/${sprint.id}`),
    await measure("/projects"),
  ];
  const engine = process.env.PLINTH_ENGINE === "pg" ? "PostgreSQL" : "SQLite";
  console.log(
    [
      `${engine}: ${CARDS} cards made through createCard in ${(seeded / 1000).toFixed(1)} s; ${CALLS} requests per side after 10 warm-up, one at a time over loopback, page and bare alternating.`,
      "",
      "| page | bytes | p50 ms | p95 ms | bare p50 / p95 ms | page − bare p50 ms |",
      "|---|---:|---:|---:|---:|---:|",
      ...rows.map(
        (r) =>
          `| GET ${r.path} | ${r.bytes} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.bare50.toFixed(2)} / ${r.bare95.toFixed(2)} | ${(r.p50 - r.bare50).toFixed(1)} |`,
      ),
    ].join("\n"),
  );
} finally {
  // Once on PostgreSQL the stop waited on the throw-away database after the figures were printed: give it 10 s.
  await Promise.race([s.stop(), Bun.sleep(10_000)]);
}
process.exit(0);
