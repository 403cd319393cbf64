/**
 * `bun bench/email.ts`: email at 50,000 subscribers (issue 14), on the
 * run's engine (`make bench` runs it plainly for SQLite and under
 * scripts/with-postgres.ts for PostgreSQL).
 *
 *  1. Segment evaluation: email_segments_count over 50,000 subscribers
 *     with subscriber-field rules and with CRM-field rules (each
 *     subscriber's address has a CRM contact with a lifecycle stage,
 *     custom tier, score and company), and a campaign's audience size.
 *     Verbs timed in process as the MCP adapter calls them (median, p95).
 *     Target: under 200 ms.
 *  2. Queuing a campaign to 50,000 subscribers: the delivery job's batches
 *     (queueNextBatch), timed end to end.
 *  3. Sending it to a loopback SMTP server (smtp-server, in this process,
 *     discarding what it receives) at the campaign's rate, by the delivery
 *     job run once per second of a ManualClock: the rate is checked in that
 *     clock's time (most messages in any 60 s window), the wall time is how
 *     fast this machine does the work, and the resident memory is sampled
 *     every 5 % of the way (flat memory: it must not grow with the count).
 *
 * BENCH_EMAIL_SUBSCRIBERS (default 50,000), BENCH_EMAIL_RATE (per minute,
 * default 12,000: the job's most per second, 200, times 60),
 * BENCH_EMAIL_CALLS (default 10 per read), BENCH_EMAIL_SEND=0 skips part 3,
 * BENCH_EMAIL_SEND_SECONDS (default 180) bounds part 3's wall time: each
 * message opens its own SMTP connection (the mail core's transport is not
 * pooled), about 110 ms each over loopback under Bun, so all 50,000 would
 * take 1.5 hours; the bench sends what fits and reports the rate reached.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SMTPServer } from "smtp-server";
import { timeTools } from "./verb-timing";

const N = Number(process.env.BENCH_EMAIL_SUBSCRIBERS ?? 50_000);
const RATE = Number(process.env.BENCH_EMAIL_RATE ?? 12_000);
const CALLS = Number(process.env.BENCH_EMAIL_CALLS ?? 10);
const SEND = process.env.BENCH_EMAIL_SEND !== "0";
const SEND_SECONDS = Number(process.env.BENCH_EMAIL_SEND_SECONDS ?? 180);

process.env.PLINTH_LOG ??= "off";
const { loadConfig } = await import("../src/config");
const { ManualClock } = await import("../src/core/clock");
const { openStore } = await import("../src/core/open");
const { engine } = await import("../src/core/engine");
const { closeMailTransport } = await import("../src/core/mail");
const { companies, memberships, users } = await import("../src/core/tables");
const crm = await import("../src/domains/crm/tables");
const { contactSearch, companySearch } = await import("../src/domains/crm/access");
const em = await import("../src/domains/email/tables");
const { emailDomain } = await import("../src/domains/email/tools");
const { foldSubscriber } = await import("../src/domains/email/segment-rules");
const { deliver, queueNextBatch } = await import("../src/domains/email/delivery");
const { and, eq, count } = await import("drizzle-orm");
// The catalog registers every domain's events (emit refuses unlisted types).
await import("../src/catalog");

const rssMb = () => process.memoryUsage().rss / 1048576;
const hwmMb = () => Number(/VmHWM:\s+(\d+)/.exec(readFileSync("/proc/self/status", "utf8"))?.[1] ?? 0) / 1024;

const dir = mkdtempSync(join(tmpdir(), "plinth-bench-email-"));
const url = engine() === "pg" ? await (await import("../test/db")).freshDatabaseUrl() : null;
const store = openStore(url ? { dataDir: dir, databaseUrl: url } : { dataDir: dir });
await store.migrate();
const clock = new ManualClock(new Date("2026-06-30T12:00:00Z"));
const now = clock.now();
const deps = {
  store,
  db: store.db,
  config: {
    ...loadConfig({}, {}),
    dataDir: dir,
    publicUrl: "https://plinth.bench",
    mailFrom: "Bench <news@bench.test>",
  },
  clock,
  redis: null,
  blobs: null as never,
};

// ---------------------------------------------------------------- data
let seed = 11;
const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
const FIRST = ["Zoë", "José", "Anna", "Björn", "Chloé", "Ines", "Noor", "Kai", "Léa", "Mateo", "Priya", "Sven"];
const LAST = ["Müller", "García", "Lindqvist", "Dubois", "Okafor", "Nguyen", "Haddad", "Rossi", "Smith", "Weber"];
const t0 = performance.now();
const insert = async (table: any, rows: any[], returning = false) => {
  const out: { id: number }[] = [];
  for (let i = 0; i < rows.length; i += 500) {
    const r = await store.transaction(async (tx) =>
      returning
        ? await tx
            .insert(table)
            .values(rows.slice(i, i + 500))
            .returning({ id: table.id })
        : void (await tx.insert(table).values(rows.slice(i, i + 500))),
    );
    if (r) out.push(...r);
  }
  return out;
};
const co = (await store.transaction((tx) => tx.insert(companies).values({ name: "Bench Agency" }).returning()))[0]!;
const u = (
  await store.transaction((tx) => tx.insert(users).values({ email: "owner@bench.test", name: "Owner" }).returning())
)[0]!;
await store.transaction((tx) => tx.insert(memberships).values({ companyId: co.id, userId: u.id, role: "owner" }));
const ORGS = Math.max(1, Math.floor(N / 10));
const orgIds = await insert(
  crm.crmCompanies,
  Array.from({ length: ORGS }, (_, i) => {
    const name = `${pick(LAST)} ${pick(["GmbH", "Ltd", "Studio"])} ${i}`;
    const domain = `org${i}.example`;
    return {
      companyId: co.id,
      name,
      domain,
      size: "11-50",
      industry: pick(["Retail", "Software", "Legal"]),
      ownerId: u.id,
      tags: [],
      custom: {},
      search: companySearch({ name, domain }),
      createdAt: now,
      updatedAt: now,
    };
  }),
  true,
);
await insert(crm.fieldDefs, [
  {
    companyId: co.id,
    object: "contact",
    key: "tier",
    label: "Tier",
    type: "select",
    options: ["gold", "silver", "bronze"],
    required: false,
    createdAt: now,
  },
]);
const people = Array.from({ length: N }, (_, i) => {
  const firstName = pick(FIRST);
  const lastName = pick(LAST);
  return { firstName, lastName, email: `p${i}@org${i % ORGS}.example` };
});
// Nine in ten subscribers have a CRM contact.
const withContact = people.filter((_, i) => i % 10 !== 9);
const cids = await insert(
  crm.contacts,
  withContact.map((p, i) => ({
    companyId: co.id,
    firstName: p.firstName,
    lastName: p.lastName,
    emails: [p.email],
    phones: [],
    jobTitle: null,
    crmCompanyId: orgIds[i % ORGS]!.id,
    ownerId: u.id,
    lifecycleStage: pick(["lead", "mql", "customer"]),
    tags: i % 10 === 0 ? ["vip"] : [],
    custom: { tier: pick(["gold", "silver", "bronze"]) },
    score: Math.floor(rand() * 100),
    search: contactSearch({ firstName: p.firstName, lastName: p.lastName, emails: [p.email], phones: [] }),
    createdAt: now,
    updatedAt: now,
  })),
  true,
);
await insert(
  crm.contactEmails,
  withContact.map((p, i) => ({ companyId: co.id, email: p.email, contactId: cids[i]!.id })),
);
const list = (
  await store.transaction((tx) =>
    tx
      .insert(em.emailLists)
      .values({ companyId: co.id, name: "Newsletter", optIn: "single", createdAt: now, updatedAt: now })
      .returning(),
  )
)[0]!;
const subIds = await insert(
  em.emailSubscribers,
  people.map((p, i) => {
    const row = {
      email: p.email,
      name: `${p.firstName} ${p.lastName}`,
      attributes: { plan: i % 4 === 0 ? "pro" : "free", seats: i % 50 },
    };
    // The folded copy the subscriber verbs write with every row.
    return { companyId: co.id, ...row, fold: foldSubscriber(row), blocklisted: false, createdAt: now, updatedAt: now };
  }),
  true,
);
await insert(
  em.emailMemberships,
  subIds.map((s) => ({
    companyId: co.id,
    listId: list.id,
    subscriberId: s.id,
    status: "subscribed",
    confirmedAt: now,
    createdAt: now,
    updatedAt: now,
  })),
);
const segment = (
  await store.transaction((tx) =>
    tx
      .insert(em.emailSegments)
      .values({
        companyId: co.id,
        name: "Gold customers",
        rules: {
          match: "all",
          conditions: [
            { field: "crm.lifecycleStage", op: "eq", value: "customer" },
            { field: "crm.custom.tier", op: "eq", value: "gold" },
          ],
        },
        createdAt: now,
        updatedAt: now,
      })
      .returning(),
  )
)[0]!;
const campaignRow = (rate: number, segmentIds: number[] = []) => ({
  companyId: co.id,
  name: "Bench campaign",
  subject: "Hello {{ name | there }}",
  html: '<h1>Hello {{ name | there }}</h1><p>Our news, with <a href="https://bench.test/a">a link</a>.</p>',
  text: "Hello {{ name | there }}\n\nOur news.",
  listIds: [list.id],
  segmentIds,
  status: "draft",
  approvedAt: now,
  approvedBy: "Bench",
  ratePerMinute: rate,
  createdAt: now,
  updatedAt: now,
});
const preview = (
  await store.transaction((tx) =>
    tx
      .insert(em.emailCampaigns)
      .values(campaignRow(RATE, [segment.id]))
      .returning(),
  )
)[0]!;
if (engine() === "pg") await store.query("ANALYZE");
const seedMs = performance.now() - t0;

// ---------------------------------------------------------------- 1. segments
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
const tools = new Map(emailDomain.tools.map((x) => [x.name, x]));
const rules = (...conditions: unknown[]) => ({ rules: { match: "all", conditions } });
const rows = await timeTools(
  tools as never,
  ctx,
  [
    [
      "email_segments_count: attributes.plan = pro",
      "email_segments_count",
      rules({ field: "attributes.plan", op: "eq", value: "pro" }),
    ],
    [
      "email_segments_count: crm.lifecycleStage = customer",
      "email_segments_count",
      rules({ field: "crm.lifecycleStage", op: "eq", value: "customer" }),
    ],
    [
      "email_segments_count: crm tier gold + score ≥ 50",
      "email_segments_count",
      rules({ field: "crm.custom.tier", op: "eq", value: "gold" }, { field: "crm.score", op: "gte", value: 50 }),
    ],
    [
      "email_segments_count: crm.company.industry = Retail",
      "email_segments_count",
      rules({ field: "crm.company.industry", op: "eq", value: "Retail" }),
    ],
    [
      'email_segments_count: name contains "ë" (folded)',
      "email_segments_count",
      rules({ field: "name", op: "contains", value: "ë" }),
    ],
    [
      "email_segments_count: attributes.seats ≥ 25 or plan starts with PR (any)",
      "email_segments_count",
      {
        rules: {
          match: "any",
          conditions: [
            { field: "attributes.seats", op: "gte", value: 25 },
            { field: "attributes.plan", op: "starts_with", value: "PR" },
          ],
        },
      },
    ],
    [
      "email_segments_count: crm.firstName starts with a",
      "email_segments_count",
      rules({ field: "crm.firstName", op: "starts_with", value: "a" }),
    ],
    [
      "email_segments_count: crm.tags = vip",
      "email_segments_count",
      rules({ field: "crm.tags", op: "eq", value: "vip" }),
    ],
    ["email_segments_count: no CRM contact", "email_segments_count", rules({ field: "crm.contact", op: "not_exists" })],
    ["email_campaigns_get: audience = list ∩ CRM segment", "email_campaigns_get", { id: preview.id }],
  ],
  { calls: CALLS, warmup: 2 },
);
const ms = (x: number) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
console.log(`\n## Email at ${N.toLocaleString("en")} subscribers (${engine() === "pg" ? "PostgreSQL" : "SQLite"})\n`);
console.log(
  `Data written in ${(seedMs / 1000).toFixed(1)} s: ${N.toLocaleString("en")} subscribers on one list, ${withContact.length.toLocaleString("en")} CRM contacts, ${ORGS.toLocaleString("en")} CRM companies.\n`,
);
console.log(`### Segment evaluation (server time per call, ms; ${CALLS} calls after 2 warm-up; target under 200 ms)\n`);
console.log("| read | median | p95 | result bytes |\n|---|---:|---:|---:|");
for (const r of rows) console.log(`| ${r.name} | ${ms(r.median)} | ${ms(r.p95)} | ${r.bytes} |`);

// ---------------------------------------------------------------- 2. queue
const camp = (
  await store.transaction((tx) =>
    tx
      .insert(em.emailCampaigns)
      .values({ ...campaignRow(RATE), status: "sending", startedAt: now })
      .returning(),
  )
)[0]!;
const rssBeforeQueue = rssMb();
const q0 = performance.now();
let batches = 0;
while (!(await queueNextBatch(deps as never, camp.id))) batches++;
const queueMs = performance.now() - q0;
const queued = (
  await store.db.select({ n: count() }).from(em.emailSends).where(eq(em.emailSends.campaignId, camp.id))
)[0]!.n;
console.log(`\n### Queuing a campaign to ${N.toLocaleString("en")} subscribers\n`);
console.log(
  `${queued.toLocaleString("en")} send rows in ${(queueMs / 1000).toFixed(2)} s (${batches + 1} batches of 500, ${Math.round(queued / (queueMs / 1000)).toLocaleString("en")} rows/s); RSS ${rssBeforeQueue.toFixed(0)} → ${rssMb().toFixed(0)} MB.`,
);

// ---------------------------------------------------------------- 3. send
if (SEND) {
  let received = 0;
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS", "AUTH"],
    logger: false,
    // No reverse DNS of 127.0.0.1 per connection: that, not Plinth, would be measured.
    disableReverseLookup: true,
    size: 1024 * 1024,
    onData(stream, _session, cb) {
      stream.on("data", () => {});
      stream.on("end", () => {
        received++;
        cb();
      });
    },
  });
  await new Promise<void>((ok) => smtp.listen(0, "127.0.0.1", ok));
  const port = (smtp.server.address() as { port: number }).port;
  deps.config.smtpUrl = `smtp://127.0.0.1:${port}`;
  closeMailTransport();
  const samples: { pct: number; rss: number }[] = [];
  const s0 = performance.now();
  const clockStart = clock.now().getTime();
  let next = 0;
  let nextAt = 0;
  for (let _sec = 0; ; _sec++) {
    await deliver(deps as never);
    const pct = Math.floor((received / queued) * 100);
    // Every 5 % of the way, and every 15 s of wall time (a bounded run may not get far).
    if (pct >= next || performance.now() - s0 >= nextAt) {
      samples.push({ pct: Math.round((received / queued) * 1000) / 10, rss: rssMb() });
      next = pct + 5;
      nextAt = performance.now() - s0 + 15_000;
    }
    const open = (
      await store.db
        .select({ n: count() })
        .from(em.emailSends)
        .where(and(eq(em.emailSends.campaignId, camp.id), eq(em.emailSends.status, "queued")))
    )[0]!.n;
    if (open === 0 || performance.now() - s0 > SEND_SECONDS * 1000) break;
    clock.advance(1000);
  }
  const wall = performance.now() - s0;
  const simulated = clock.now().getTime() - clockStart;
  // Most messages in any 60 s window of the clock's time.
  const times = (
    await store.db
      .select({ at: em.emailSends.lastAttemptAt })
      .from(em.emailSends)
      .where(eq(em.emailSends.campaignId, camp.id))
  )
    .filter((r) => r.at)
    .map((r) => r.at!.getTime())
    .sort((a, b) => a - b);
  let maxWindow = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i]! - times[j]! >= 60_000) j++;
    maxWindow = Math.max(maxWindow, i - j + 1);
  }
  const sent = (
    await store.db
      .select({ n: count() })
      .from(em.emailSends)
      .where(and(eq(em.emailSends.campaignId, camp.id), eq(em.emailSends.status, "sent")))
  )[0]!.n;
  console.log(`\n### Sending it to a loopback SMTP server at ${RATE.toLocaleString("en")} per minute\n`);
  console.log(
    `${sent.toLocaleString("en")} of ${queued.toLocaleString("en")} sent${sent < queued ? ` (stopped after ${SEND_SECONDS} s of wall time)` : ""}, ${received.toLocaleString("en")} received by the server; clock time ${(simulated / 60_000).toFixed(1)} min (at the rate: ≥ ${(sent / RATE).toFixed(1)}), most in any 60 s window ${maxWindow.toLocaleString("en")} (limit ${RATE.toLocaleString("en")}).`,
  );
  console.log(
    `Wall time ${(wall / 1000).toFixed(1)} s (${Math.round(sent / (wall / 1000))} messages/s on this machine).`,
  );
  console.log(
    `RSS while sending (MB, at % sent): ${samples.map((s) => `${s.pct}%: ${s.rss.toFixed(0)}`).join(", ")}; peak RSS of the process (VmHWM, seeding included) ${hwmMb().toFixed(0)} MB.`,
  );
  closeMailTransport();
  await new Promise<void>((ok) => smtp.close(() => ok()));
}

await store.close();
if (url) await (await import("../test/db")).dropDatabase(url);
rmSync(dir, { recursive: true, force: true });
