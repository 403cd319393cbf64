/**
 * `bun bench/ops-pages.ts` (PostgreSQL: `bun scripts/with-postgres.ts bun
 * bench/ops-pages.ts`): server time of the bookings, store and hosting page
 * sets of issue 31 (src/domains/{bookings/portal,store/pages,hosting/pages}.tsx)
 * over a company with a busy calendar, a store with many orders, and a
 * domain checked every minute for 30 days.
 *
 * Method (../shared/BENCH.md, as bench/tickets-page.ts): a real server
 * (test/harness.ts) on a fresh database. Bookings are made through `book`
 * on a live page (set live directly: the approval flow is not what is
 * measured), orders through `createOrder`; the hosting history is written
 * as the job writes it (one uptime check a minute, 43,200 rows, and the
 * state row), like the demo's. The owner signs in over HTTP; then one
 * request at a time over loopback, the page and a bare Bun.serve returning
 * the very same bytes alternating after a warm-up (bench/page-timing.ts); median and p95 of each.
 * The hosting domain page is the one to watch: its chart counts each of
 * its 30 days through hosting_checks_list's verb (60 counts).
 *
 * Env: BENCH_OPS_CALLS (default 40 per side), BENCH_OPS_BOOKINGS (default
 * 1000), BENCH_OPS_ORDERS (default 2000).
 */
import { eq } from "drizzle-orm";
import { ManualClock } from "../src/core/clock";
import type { ActorContext } from "../src/core/context";
import { book } from "../src/domains/bookings/bookings";
import { createPage } from "../src/domains/bookings/pages";
import { bookingPages } from "../src/domains/bookings/tables";
import { hostingChecks, hostingDomainState } from "../src/domains/hosting/tables";
import { siteDomains } from "../src/domains/sites/tables";
import { createSite } from "../src/domains/sites/verbs";
import { createOrder } from "../src/domains/store/orders";
import { createProduct, setProductStatus } from "../src/domains/store/products";
import { updateStoreSettings } from "../src/domains/store/settings";
import { createCompany, createUser } from "../test/fixtures/accounts";
import { startTestServer } from "../test/harness";
import { Browser } from "../test/oauth/helpers";
import { timePage } from "./page-timing";

const CALLS = Number(process.env.BENCH_OPS_CALLS ?? 40);
const BOOKINGS = Number(process.env.BENCH_OPS_BOOKINGS ?? 1000);
const ORDERS = Number(process.env.BENCH_OPS_ORDERS ?? 2000);
const PASSWORD = "a long passphrase for the bench";
const MINUTE = 60_000;
const DAY = 86_400_000;

// Monday 4 March 2030, 06:00 UTC: the bookings fill the weekdays ahead.
const now = Date.UTC(2030, 2, 4, 6, 0, 0);
const clock = new ManualClock(now);
const s = await startTestServer({ seed: false, clock, config: { rateLimit: 1_000_000 } });
try {
  const owner = await createUser(s.deps, { email: "owner@bench.test", name: "Olga Owner", password: PASSWORD });
  const company = await createCompany(s.deps, { name: "Bench Co", ownerUserId: owner.id });
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
  const t0 = performance.now();

  // Bookings: 15-minute slots, 09:00–17:00 UTC on weekdays, filled in order.
  const page = await createPage(ctx, {
    title: "Office hours",
    durations: [15],
    slotInterval: 15,
    minNotice: 0,
    maxAdvanceDays: 365,
    timeZone: "UTC",
    location: "video",
  });
  await s.deps.db.update(bookingPages).set({ status: "live" }).where(eq(bookingPages.id, page.id));
  let made = 0;
  for (let day = 0; made < BOOKINGS; day++) {
    const d = new Date(now + day * DAY);
    if (d.getUTCDay() === 0 || d.getUTCDay() === 6) continue;
    const nine = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate(), 9);
    for (let k = 0; k < 32 && made < BOOKINGS; k++, made++)
      await book({ deps: s.deps, companyId: company.id, ctx }, page.id, {
        startsAt: new Date(nine + k * 15 * MINUTE),
        name: `Visitor ${made}`,
        email: `visitor${made}@example.test`,
        source: "mcp",
      });
  }
  const tBookings = performance.now() - t0;

  // Store: one site, one product, ORDERS orders.
  const site = (await createSite(s.deps, { companyId: company.id, name: "Bench Shop" })).id;
  await updateStoreSettings(ctx, { siteId: site, enabled: true, currency: "EUR" });
  const product = (await createProduct(ctx, { siteId: site, name: "Mug", price: 1250 } as never)) as { id: number };
  await setProductStatus(ctx, { siteId: site, id: product.id, status: "active" });
  let lastOrder = 0;
  for (let i = 0; i < ORDERS; i++)
    lastOrder = (
      (await createOrder(ctx, {
        siteId: site,
        items: [{ productId: product.id, quantity: 1 + (i % 3) }],
        customer: { email: `customer${i % 300}@example.test` },
      } as never)) as { id: number }
    ).id;
  const tOrders = performance.now() - t0 - tBookings;

  // Hosting: one domain checked every minute for 30 days.
  const domain = (
    await s.deps.db.insert(siteDomains).values({ siteId: site, hostname: "shop.bench.test" }).returning()
  )[0]!;
  const checks: (typeof hostingChecks.$inferInsert)[] = [];
  for (let t = now - 30 * DAY; t < now; t += MINUTE)
    checks.push({
      domainId: domain.id,
      companyId: company.id,
      kind: "http",
      ok: (t / MINUTE) % 997 !== 0,
      status: "up",
      statusCode: 200,
      responseMs: 80 + ((t / MINUTE) % 50),
      checkedAt: new Date(t),
    });
  await s.deps.db.transaction(async (tx) => {
    for (let i = 0; i < checks.length; i += 1000) await tx.insert(hostingChecks).values(checks.slice(i, i + 1000));
    await tx.insert(hostingDomainState).values({
      domainId: domain.id,
      siteId: site,
      companyId: company.id,
      hostname: domain.hostname,
      dnsStatus: "ok",
      dnsRequired: [],
      dnsFound: [],
      tlsStatus: "valid",
      uptimeStatus: "up",
      lastCheckedAt: new Date(now - MINUTE),
      nextUptimeAt: new Date(now + 365 * DAY),
      nextCertAt: new Date(now + 365 * DAY),
    });
  });
  const seeded = performance.now() - t0;

  const b = new Browser(s.url);
  const signedIn = await b.signIn("owner@bench.test", PASSWORD);
  if (signedIn.status !== 303) throw new Error(`sign-in failed: ${signedIn.status}`);

  const measure = (path: string, marker: RegExp) => timePage(b, path, { calls: CALLS, warmup: 5, marker });

  const rows = [
    await measure("/bookings", /data-booking=/g),
    await measure(`/bookings?page=${Math.ceil(BOOKINGS / 25)}`, /data-booking=/g),
    await measure("/bookings/1", /id="move-start"/g),
    await measure("/store/orders", /data-order=/g),
    await measure(`/store/orders?status=pending&page=${Math.ceil(ORDERS / 25)}`, /data-order=/g),
    await measure(`/store/orders/${lastOrder}`, /data-line=/g),
    await measure("/store/products", /data-product=/g),
    await measure("/hosting", /data-domain=/g),
    await measure(`/hosting/domains/${domain.id}`, /data-check=/g),
  ];
  const engine = process.env.PLINTH_ENGINE === "pg" ? "PostgreSQL" : "SQLite";
  console.log(
    [
      `${engine}: ${BOOKINGS} bookings (${(tBookings / 1000).toFixed(1)} s), ${ORDERS} orders (${(tOrders / 1000).toFixed(1)} s), ${checks.length} uptime checks; seeded in ${(seeded / 1000).toFixed(1)} s; ${CALLS} requests per side after 5 warm-up, one at a time over loopback, page and bare alternating.`,
      "",
      "| page | rows | bytes | p50 ms | p95 ms | bare p50 ms |",
      "|---|---:|---:|---:|---:|---:|",
      ...rows.map(
        (r) =>
          `| GET ${r.path} | ${r.shown} | ${r.bytes} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.bare50.toFixed(2)} |`,
      ),
    ].join("\n"),
  );
} finally {
  await Promise.race([s.stop(), Bun.sleep(10_000)]);
}
process.exit(0);
