/**
 * `bun bench/crm.ts` (run by `make bench`): server time per call of CRM
 * search, lists and duplicate finding over 50,000 contacts, on SQLite and
 * PostgreSQL. Target (issue 14): under 200 ms. Segment evaluation over
 * 50,000 subscribers with CRM fields is in bench/email.ts.
 *
 * 50,000 contacts (names with accents, 1–2 emails, phones, tags, custom
 * values, scores), 5,000 CRM companies and 10,000 deals are written straight
 * into the tables in the shape the verbs write them (the folded search
 * column included). Then each read tool's verb is called in-process, as the
 * MCP adapter calls it (arguments parsed by the tool's own schema, then the
 * verb: scope, tenancy and every query), and timed: median and p95 after a
 * warm-up. Server time per call, without HTTP and JSON-RPC framing.
 *
 * Run without PLINTH_ENGINE, it measures SQLite here and PostgreSQL in a
 * child through scripts/with-postgres.ts. BENCH_CRM_PG=0 skips PostgreSQL;
 * BENCH_CRM_CALLS (default 50) sets the calls per read.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { onBothEngines, printSideBySide, timeTools, type Measured } from "./verb-timing";

const CALLS = Number(process.env.BENCH_CRM_CALLS ?? 50);
const CONTACTS = 50_000;

async function measure(): Promise<Measured> {
  const { loadConfig } = await import("../src/config");
  const { ManualClock } = await import("../src/core/clock");
  const { openStore } = await import("../src/core/open");
  const { engine } = await import("../src/core/engine");
  const { companies, memberships, users } = await import("../src/core/tables");
  const t = await import("../src/domains/crm/tables");
  const { contactSearch, companySearch, dealSearch } = await import("../src/domains/crm/access");
  const { crmDomain } = await import("../src/domains/crm/tools");
  // The catalog registers every domain's events (emit refuses unlisted types).
  await import("../src/catalog");

  const dir = mkdtempSync(join(tmpdir(), "plinth-bench-crm-"));
  const url = engine() === "pg" ? await (await import("../test/db")).freshDatabaseUrl() : null;
  const store = openStore(url ? { dataDir: dir, databaseUrl: url } : { dataDir: dir });
  await store.migrate();
  const now = new Date("2026-06-30T12:00:00Z");
  const deps = {
    store,
    db: store.db,
    config: { ...loadConfig({}, {}), dataDir: dir },
    clock: new ManualClock(now),
    redis: null,
    blobs: null as never,
  };

  let seed = 7;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]!;
  const FIRST = [
    "Zoë",
    "José",
    "Anna",
    "Björn",
    "Chloé",
    "Ines",
    "Noor",
    "Kai",
    "Léa",
    "Mateo",
    "Priya",
    "Sven",
    "Amélie",
    "Tomás",
    "Grace",
    "Omar",
    "Yuki",
    "Søren",
    "Ana",
    "Liam",
  ];
  const LAST = [
    "Müller",
    "García",
    "Lindqvist",
    "Dubois",
    "Okafor",
    "Nguyen",
    "Haddad",
    "Kowalski",
    "Rossi",
    "Ærø",
    "Smith",
    "Núñez",
    "Weber",
    "Park",
    "Costa",
    "Ó Briain",
    "Berg",
    "Kim",
    "Silva",
    "Jones",
  ];

  const t0 = performance.now();
  const insert = async <T>(table: any, rows: T[], returning = false) => {
    const out: any[] = [];
    for (let i = 0; i < rows.length; i += 500) {
      const r = await store.transaction(async (tx) =>
        returning
          ? await tx
              .insert(table)
              .values(rows.slice(i, i + 500) as any)
              .returning({ id: table.id })
          : void (await tx.insert(table).values(rows.slice(i, i + 500) as any)),
      );
      if (r) out.push(...r);
    }
    return out as { id: number }[];
  };
  const co = (await store.transaction((tx) => tx.insert(companies).values({ name: "Bench Agency" }).returning()))[0]!;
  const u = (
    await store.transaction((tx) => tx.insert(users).values({ email: "owner@bench.test", name: "Owner" }).returning())
  )[0]!;
  await store.transaction((tx) => tx.insert(memberships).values({ companyId: co.id, userId: u.id, role: "owner" }));
  const orgs = Array.from({ length: 5000 }, (_, i) => {
    const name = `${pick(LAST)} ${pick(["GmbH", "Ltd", "& Co", "Studio", "Labs"])} ${i}`;
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
  });
  const orgIds = await insert(t.crmCompanies, orgs, true);
  const contactRows = Array.from({ length: CONTACTS }, (_, i) => {
    const firstName = pick(FIRST);
    const lastName = pick(LAST);
    const emails = [
      `${i}.${firstName
        .normalize("NFKD")
        .replace(/\p{M}/gu, "")
        .toLowerCase()
        .replace(/[^a-z]/g, "")}@org${i % 5000}.example`,
      ...(i % 3 === 0 ? [`p${i}@gmail.com`] : []),
    ];
    const phones = [
      {
        number: `+44 20 ${String(7000 + (i % 3000)).padStart(4, "0")} ${String(i).padStart(5, "0").slice(-4)}`,
        label: null,
      },
    ];
    return {
      companyId: co.id,
      firstName,
      lastName,
      emails,
      phones,
      jobTitle: pick(["CEO", "Head of Marketing", "Developer", "Founder"]),
      crmCompanyId: orgIds[i % 5000]!.id,
      ownerId: u.id,
      lifecycleStage: pick(["lead", "mql", "customer"]) as "lead",
      tags: i % 10 === 0 ? ["vip"] : [],
      custom: { tier: pick(["gold", "silver", "bronze"]) },
      score: Math.floor(rand() * 100),
      search: contactSearch({ firstName, lastName, emails, phones }),
      createdAt: now,
      updatedAt: new Date(now.getTime() - i * 1000),
    };
  });
  const cids = await insert(t.contacts, contactRows, true);
  await insert(
    t.contactEmails,
    contactRows.flatMap((c, i) => c.emails.map((email) => ({ companyId: co.id, email, contactId: cids[i]!.id }))),
  );
  const p = (
    await store.transaction((tx) =>
      tx.insert(t.pipelines).values({ companyId: co.id, name: "Sales", createdAt: now }).returning(),
    )
  )[0]!;
  const st = await insert(
    t.stages,
    [
      ["Lead", 10, "open"],
      ["Proposal", 50, "open"],
      ["Won", 100, "won"],
      ["Lost", 0, "lost"],
    ].map(([name, probability, kind], position) => ({ pipelineId: p.id, name, position, probability, kind })),
    true,
  );
  const dealRows = Array.from({ length: 10_000 }, (_, i) => {
    const name = `${orgs[i % 5000]!.name} – project ${i}`;
    return {
      companyId: co.id,
      name,
      amountCents: 10_000 + i * 100,
      currency: "EUR",
      pipelineId: p.id,
      stageId: st[i % 4]!.id,
      expectedClose: `2026-${String((i % 12) + 1).padStart(2, "0")}-15`,
      ownerId: u.id,
      crmCompanyId: orgIds[i % 5000]!.id,
      lostReason: i % 4 === 3 ? "price" : null,
      custom: {},
      search: dealSearch({ name }),
      stageChangedAt: now,
      closedAt: null,
      createdAt: now,
      updatedAt: now,
    };
  });
  await insert(t.deals, dealRows);
  if (engine() === "pg") await store.query("ANALYZE");
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
  const tools = new Map(crmDomain.tools.map((x) => [x.name, x]));
  const scenarios: [string, string, Record<string, unknown>, number?][] = [
    ['crm_search: one name, accents folded ("muller")', "crm_search", { q: "muller" }],
    ['crm_search: two words ("zoe garcia")', "crm_search", { q: "zoe garcia" }],
    ["crm_search: email fragment", "crm_search", { q: "4711.", types: ["contact"] }],
    ['crm_search: domain ("org4711.example")', "crm_search", { q: "org4711.example" }],
    ["crm_search: phone, national format", "crm_search", { q: "020 7123" }],
    ["crm_search: no match", "crm_search", { q: "qqqqzzzz" }],
    ["contacts_list: first page, by updated", "contacts_list", { limit: 50 }],
    [
      "contacts_list: q + lifecycle + tag",
      "contacts_list",
      { q: "anna", lifecycleStage: "customer", tag: "vip", limit: 50 },
    ],
    [
      "contacts_list: custom tier = gold, by score",
      "contacts_list",
      { custom: { tier: "gold" }, sort: "score", limit: 50 },
    ],
    ["contacts_get: by email", "contacts_get", { id: "25000.anna@org0.example" }],
    ["deals_list: open, by close date", "deals_list", { status: "open", sort: "close", limit: 50 }],
    ["pipelines_forecast: 10,000 deals", "pipelines_forecast", { id: p.id, from: "2026-01", months: 12 }],
    // Reads every live contact once: fewer calls.
    ["crm_duplicates_find: all 50,000 contacts", "crm_duplicates_find", { limit: 20 }, Math.min(CALLS, 10)],
    ["crm_duplicates_find: companies", "crm_duplicates_find", { object: "company", limit: 20 }, Math.min(CALLS, 10)],
  ];
  // contacts_get needs an address that exists: the 25,000th contact's.
  scenarios[9]![2] = { id: contactRows[25_000]!.emails[0]! };
  const rows = await timeTools(tools as never, ctx, scenarios, { calls: CALLS, warmup: 5 });
  await store.close();
  if (url) await (await import("../test/db")).dropDatabase(url);
  rmSync(dir, { recursive: true, force: true });
  return { engine: engine(), rows, seedMs };
}

const { sqlite, pg } = await onBothEngines(
  "bench/crm",
  import.meta.path,
  "PLINTH_BENCH_CRM_CHILD",
  process.env.BENCH_CRM_PG === "0",
  measure,
);

console.log(
  `\n## CRM reads: server time per call (ms), ${CONTACTS.toLocaleString("en")} contacts, 5,000 companies, 10,000 deals\n`,
);
console.log(
  `Data written in ${(sqlite.seedMs / 1000).toFixed(1)} s (SQLite)${pg ? `, ${(pg.seedMs / 1000).toFixed(1)} s (PostgreSQL)` : ""}; ${CALLS} calls per read after 5 warm-up calls. Target: under 200 ms.\n`,
);
printSideBySide(sqlite, pg);
