/**
 * `bun bench/tickets-page.ts` (PostgreSQL: `bun scripts/with-postgres.ts bun
 * bench/tickets-page.ts`): server time of the portal's ticket queue
 * (`GET /tickets`, src/domains/tickets/pages.tsx) over a company of 5,000
 * tickets — issue 31's figure for the tickets page set — with its filters
 * (SLA breached, due within 4 hours, assigned to me) and one ticket's page.
 *
 * Method (../shared/BENCH.md, as bench/board-page.ts): a real server
 * (test/harness.ts) on a fresh database; the tickets are made through the
 * createTicket verb, as tickets_create makes them, on a clock walked back
 * a minute per ticket so their SLA states spread (most breached, a few due
 * soon, the newest ok) over four priorities and six assignees; the owner
 * signs in over HTTP. Then one request at a time over loopback (the time is
 * the server's: no queueing), the page and a bare Bun.serve returning the
 * very same bytes alternating after a warm-up (bench/page-timing.ts); median and p95 of each.
 *
 * Env: BENCH_TICKETS_CALLS (default 60 per side), BENCH_TICKETS (default 5000).
 */
import { ManualClock } from "../src/core/clock";
import type { ActorContext } from "../src/core/context";
import { assignTicket, createTicket } from "../src/domains/tickets/tickets";
import { addMember, createCompany, createUser } from "../test/fixtures/accounts";
import { startTestServer } from "../test/harness";
import { Browser } from "../test/oauth/helpers";
import { timePage } from "./page-timing";

const CALLS = Number(process.env.BENCH_TICKETS_CALLS ?? 60);
const TICKETS = Number(process.env.BENCH_TICKETS ?? 5000);
const PASSWORD = "a long passphrase for the bench";
const MINUTE = 60_000;

const now = Date.now();
const clock = new ManualClock(now);
const s = await startTestServer({ seed: false, clock, config: { rateLimit: 1_000_000 } });
try {
  const owner = await createUser(s.deps, { email: "owner@bench.test", name: "Olga Owner", password: PASSWORD });
  const company = await createCompany(s.deps, { name: "Bench Co", ownerUserId: owner.id });
  const people = [owner.id];
  for (let i = 0; i < 5; i++) {
    const u = await createUser(s.deps, { email: `p${i}@bench.test`, name: `Agent ${i}` });
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
  const priorities = ["low", "normal", "high", "urgent"] as const;
  const t0 = performance.now();
  let last = 0;
  for (let i = 0; i < TICKETS; i++) {
    // Oldest first, a minute apart, ending now: the newest are within their targets.
    clock.set(new Date(now - (TICKETS - i) * MINUTE));
    const made = (await createTicket(ctx, {
      subject: `Order ${10_000 + i}: ${["refund", "delivery", "login", "invoice", "export"][i % 5]} question`,
      requesterEmail: `customer${i % 700}@example.test`,
      requesterName: `Customer ${i % 700}`,
      body: "Hello, I have a question about my order. Could you have a look? Thanks.",
      priority: priorities[i % 4]!,
    })) as { id: number };
    if (i % 3 === 0) await assignTicket(ctx, { id: made.id, assigneeId: people[i % people.length]! });
    last = made.id;
  }
  clock.set(new Date(now));
  const seeded = performance.now() - t0;

  const b = new Browser(s.url);
  const signedIn = await b.signIn("owner@bench.test", PASSWORD);
  if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status}`);

  const measure = (path: string) => timePage(b, path, { calls: CALLS, warmup: 10, marker: /data-ticket=/g });

  const rows = [
    await measure("/tickets"),
    await measure("/tickets?page=100"),
    await measure("/tickets?sla=breached&sort=due"),
    await measure("/tickets?sla=soon"),
    await measure("/tickets?assignee=me&priority=high"),
    await measure(`/tickets/${last}`),
  ];
  const engine = process.env.PLINTH_ENGINE === "pg" ? "PostgreSQL" : "SQLite";
  console.log(
    [
      `${engine}: ${TICKETS} tickets made through createTicket in ${(seeded / 1000).toFixed(1)} s; ${CALLS} requests per side after 10 warm-up, one at a time over loopback, page and bare alternating.`,
      "",
      "| page | rows | bytes | p50 ms | p95 ms | bare p50 ms | page − bare p50 ms |",
      "|---|---:|---:|---:|---:|---:|---:|",
      ...rows.map(
        (r) =>
          `| GET ${r.path} | ${r.shown} | ${r.bytes} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.bare50.toFixed(2)} | ${(r.p50 - r.bare50).toFixed(1)} |`,
      ),
    ].join("\n"),
  );
} finally {
  await Promise.race([s.stop(), Bun.sleep(10_000)]);
}
process.exit(0);
