/**
 * Hosting checks against a loopback DNS server and a loopback HTTPS server
 * with a certificate made here: DNS records required vs found, certificate
 * issuer and expiry (moving the clock), uptime with incidents opened after
 * three failures in a row and resolved on recovery (events, notifications
 * to owners and admins only), uptime % over a window (hand-computed), the
 * job's catch-up and retention, and the read tools' tenancy.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq, gte } from "drizzle-orm";
import { events } from "../../src/core/tables";
import { notifications } from "../../src/domains/notifications/tables";
import { hostingDomain } from "../../src/domains/hosting/tools";
import { FAILURES_TO_OPEN, hostingJob } from "../../src/domains/hosting/checks";
import { runHostingChecks } from "../jobs";
import { checkTls, requiredRecords } from "../../src/domains/hosting/probes";
import { hostingChecks, hostingDomainState } from "../../src/domains/hosting/tables";
import { siteDomains } from "../../src/domains/sites/tables";
import { makeWorld, type World } from "./world";
import { makeCert, startDns, startHttps, type Zone } from "./net";

const DAY = 86_400_000;
let w: World;
let dns: Awaited<ReturnType<typeof startDns>>;
let web: Awaited<ReturnType<typeof startHttps>>;
let cert: Awaited<ReturnType<typeof makeCert>>;
const zones = new Map<string, Zone>();
const status = new Map<string, number>();
const ids: Record<string, number> = {};
let add: (siteId: number, hostname: string, isPrimary?: boolean) => Promise<number>;
// Real time: the TLS library checks certificate dates against the machine's clock.
const T0 = new Date(Math.floor(Date.now() / 1000) * 1000);

beforeAll(async () => {
  zones.set("sites.plinth.test", { A: ["127.0.0.1"] });
  zones.set("www.acme.test", { CNAME: "sites.plinth.test" });
  zones.set("acme.test", { A: ["127.0.0.1"] });
  zones.set("down.acme.test", { A: ["127.0.0.2"] }); // nothing listens there: refused
  zones.set("broken.acme.test", { A: ["127.0.0.1"] });
  zones.set("stray.acme.test", { A: ["127.0.0.1", "127.0.0.9"] });
  zones.set("rival.test", { A: ["127.0.0.1"] });
  dns = await startDns(zones);
  cert = await makeCert(
    ["www.acme.test", "acme.test", "down.acme.test", "broken.acme.test", "stray.acme.test", "rival.test"],
    new Date(T0.getTime() - 30 * DAY),
    new Date(T0.getTime() + 60 * DAY),
  );
  web = await startHttps(cert, (h) => status.get(h) ?? 200);
  w = await makeWorld(hostingDomain, {
    start: T0,
    config: {
      hosting: {
        dnsServers: [dns.server],
        target: ["sites.plinth.test", "127.0.0.1"],
        httpsPort: web.port,
        caFile: cert.caFile,
        intervalSec: 60,
      },
    },
  });
  add = async (siteId: number, hostname: string, isPrimary = false) =>
    (ids[hostname] = (await w.deps.db.insert(siteDomains).values({ siteId, hostname, isPrimary }).returning())[0]!.id);
  await add(w.siteId, "www.acme.test", true);
  await add(w.siteId, "acme.test");
  await add(w.siteId, "down.acme.test");
  await add(w.siteId, "broken.acme.test");
  await add(w.siteId, "gone.acme.test");
  await add(w.siteId, "stray.acme.test");
  await add(w.otherSiteId, "rival.test", true);
  status.set("broken.acme.test", 503);
});
afterAll(async () => {
  await w?.close();
  await web?.close();
  dns?.close();
});

const tick = async (ms = 60_000) => {
  w.clock.advance(ms);
  return runHostingChecks(w.deps);
};
const get = (hostname: string, ctx = w.ctx()) => w.call("hosting_domains_get", { hostname }, ctx);

describe("required records", () => {
  test("subdomains need a CNAME to the target host, apexes A/AAAA records to its addresses", () => {
    const t = ["sites.plinth.test", "203.0.113.7", "2001:db8::7"];
    expect(requiredRecords("www.acme.test", t)).toEqual([
      { type: "CNAME", name: "www.acme.test", value: "sites.plinth.test" },
    ]);
    expect(requiredRecords("acme.test", t)).toEqual([
      { type: "A", name: "acme.test", value: "203.0.113.7" },
      { type: "AAAA", name: "acme.test", value: "2001:db8::7" },
    ]);
    // Only a host configured: even an apex is told to use it (an ALIAS/ANAME at the DNS provider).
    expect(requiredRecords("acme.test", ["sites.plinth.test"])).toEqual([
      { type: "CNAME", name: "acme.test", value: "sites.plinth.test" },
    ]);
    expect(requiredRecords("acme.test", [])).toEqual([]);
  });
});

describe("the first run", () => {
  test("checks every domain of an active site once: DNS, certificate and uptime", async () => {
    const r = await runHostingChecks(w.deps);
    expect(r).toEqual({ http: 7, cert: 7 });

    const www = await get("www.acme.test");
    expect(www).toMatchObject({
      id: ids["www.acme.test"],
      status: "ok",
      uptime: "up",
      dns: "ok",
      tls: "valid",
      isPrimary: true,
      openIncidentId: null,
    });
    expect(www.dnsCheck.required).toEqual([{ type: "CNAME", name: "www.acme.test", value: "sites.plinth.test" }]);
    expect(www.dnsCheck.found).toContainEqual({ type: "CNAME", name: "www.acme.test", value: "sites.plinth.test" });
    expect(www.certificate).toMatchObject({
      status: "valid",
      issuer: "Test CA — www.acme.test",
      subject: "Test CA — www.acme.test",
      daysLeft: 60,
      error: null,
    });
    expect(www.certificate.altNames).toContain("www.acme.test");
    expect(Date.parse(www.certificate.expiresAt)).toBe(T0.getTime() + 60 * DAY);
    expect(www.uptimeCheck).toMatchObject({
      status: "up",
      lastStatusCode: 200,
      url: "https://www.acme.test/",
      consecutiveFailures: 0,
    });
    expect(www.uptimeCheck.lastResponseMs).toBeGreaterThanOrEqual(0);
    // The request reached our server with the domain as Host, through our DNS.
    expect(web.hits).toContain("www.acme.test");

    expect(await get("acme.test")).toMatchObject({
      status: "ok",
      dns: "ok",
      dnsCheck: { required: [{ type: "A", name: "acme.test", value: "127.0.0.1" }] },
    });
    const down = await get("down.acme.test");
    expect(down).toMatchObject({
      status: "degraded",
      uptime: "failing",
      dns: "misconfigured",
      tls: "error",
      uptimeCheck: { consecutiveFailures: 1, lastStatusCode: null },
    });
    expect(down.dnsCheck.found).toEqual([{ type: "A", name: "down.acme.test", value: "127.0.0.2" }]);
    expect(await get("broken.acme.test")).toMatchObject({
      uptime: "failing",
      uptimeCheck: { lastStatusCode: 503, lastError: "HTTP 503" },
    });
    expect(await get("gone.acme.test")).toMatchObject({ dns: "missing", tls: "error", uptime: "failing" });
    // A stray address besides ours sends some visitors elsewhere.
    expect(await get("stray.acme.test")).toMatchObject({ dns: "misconfigured" });
  });

  test("a certificate not made for the name is invalid; one nobody trusts is invalid too", async () => {
    zones.set("other.acme.test", { A: ["127.0.0.1"] });
    const cfg = w.deps.config.hosting;
    const mismatch = await checkTls(cfg, "other.acme.test", w.clock.now());
    expect(mismatch).toMatchObject({ status: "invalid", error: "certificate is not for other.acme.test" });
    const untrusted = await checkTls({ ...cfg, caFile: null }, "www.acme.test", w.clock.now());
    expect(untrusted.status).toBe("invalid");
    expect(untrusted.error).toMatch(/^untrusted certificate/);
    // The uptime check refuses both too: a visitor's browser would.
    const { checkHttp } = await import("../../src/domains/hosting/probes");
    expect(await checkHttp(cfg, "other.acme.test")).toMatchObject({ ok: false, statusCode: null });
    expect(await checkHttp({ ...cfg, caFile: null }, "www.acme.test")).toMatchObject({ ok: false, statusCode: null });
    expect(await checkHttp(cfg, "www.acme.test")).toMatchObject({ ok: true, statusCode: 200, error: null });
    zones.delete("other.acme.test");
  });

  test("a DNS server failing is an error, not a missing record", async () => {
    zones.set("flaky.acme.test", { fail: true });
    const { checkDns } = await import("../../src/domains/hosting/probes");
    const r = await checkDns(w.deps.config.hosting, "flaky.acme.test");
    expect(r.status).toBe("error");
    expect(r.error).toMatch(/^DNS lookup failed/);
    zones.delete("flaky.acme.test");
  });
});

describe("incidents", () => {
  test("open at the third failure in a row (not the second), from the first failure; owners and admins are told", async () => {
    const firstFailure = (await get("down.acme.test")).uptimeCheck.lastCheckedAt;
    await tick();
    let d = await get("down.acme.test");
    expect(d).toMatchObject({ uptime: "failing", openIncidentId: null, uptimeCheck: { consecutiveFailures: 2 } });
    expect(FAILURES_TO_OPEN).toBe(3);
    await tick();
    d = await get("down.acme.test");
    expect(d).toMatchObject({ status: "down", uptime: "down", uptimeCheck: { consecutiveFailures: 3 } });
    expect(d.openIncident).toMatchObject({
      status: "open",
      hostname: "down.acme.test",
      startedAt: firstFailure,
      failedChecks: 3,
    });
    expect(d.openIncident.durationMs).toBe(120_000);

    const ev = await w.deps.db
      .select()
      .from(events)
      .where(and(eq(events.type, "uptime_incident.opened"), eq(events.entityId, d.openIncidentId)));
    expect(ev).toHaveLength(1);
    expect(ev[0]!.data).toMatchObject({
      hostname: "down.acme.test",
      domainId: ids["down.acme.test"],
      failedChecks: 3,
      startedAt: firstFailure,
    });
    const told = await w.deps.db
      .select()
      .from(notifications)
      .where(eq(notifications.type, "hosting.incident_opened"))
      .orderBy(asc(notifications.userId));
    const downTold = told.filter((n) => n.title === "down.acme.test is down");
    expect(downTold.map((n) => n.userId).sort()).toEqual([w.users.owner, w.users.admin].sort());
    expect(downTold.every((n) => n.companyId === w.companyId)).toBe(true);
    // The rival's people hear nothing of it.
    expect(told.some((n) => n.userId === w.users.outsider || n.userId === w.users.viewer)).toBe(false);
  });

  test("a fourth failure extends the incident; recovery resolves it once, with its duration", async () => {
    await tick();
    const open = await w.call("hosting_incidents_list", { status: "open", hostname: "down.acme.test" });
    expect(open.total).toBe(1);
    expect(open.items[0]).toMatchObject({ failedChecks: 4, durationMs: 180_000 });
    zones.set("down.acme.test", { A: ["127.0.0.1"] });
    await tick();
    const d = await get("down.acme.test");
    expect(d).toMatchObject({
      uptime: "up",
      openIncidentId: null,
      openIncident: null,
      uptimeCheck: { consecutiveFailures: 0 },
    });
    const resolved = await w.call("hosting_incidents_list", { status: "resolved", domainId: ids["down.acme.test"] });
    expect(resolved.items).toHaveLength(1);
    // Failures at t0, +1, +2, +3 min; success at +4 min.
    expect(resolved.items[0]).toMatchObject({ status: "resolved", durationMs: 240_000, failedChecks: 4 });
    await tick();
    const ev = await w.deps.db.select().from(events).where(eq(events.type, "uptime_incident.resolved"));
    expect(ev.filter((e) => (e.data as any).hostname === "down.acme.test")).toHaveLength(1);
    expect((ev[0]!.data as any).durationMs).toBe(240_000);
    expect(
      (await w.deps.db.select().from(notifications).where(eq(notifications.type, "hosting.incident_resolved"))).filter(
        (n) => n.title === "down.acme.test is back up",
      ),
    ).toHaveLength(2);
  });

  test("uptime % over the window, hand-computed: 4 failures in 6 checks", async () => {
    const u = await w.call("hosting_uptime_get", { hostname: "down.acme.test", days: 1 });
    expect(u.items).toHaveLength(1);
    // Checks at t0..t0+5 min: 4 down, 2 up → 2/6 = 33.333… → 33.33 (rounded down).
    expect(u.items[0]).toMatchObject({
      checks: 6,
      failedChecks: 4,
      uptimePercent: 33.33,
      incidents: 1,
      downtimeMs: 240_000,
    });
    const www = (await w.call("hosting_uptime_get", { hostname: "www.acme.test", days: 1 })).items[0];
    expect(www).toMatchObject({ checks: 6, failedChecks: 0, uptimePercent: 100, incidents: 0, downtimeMs: 0 });
    expect(www.p95ResponseMs).toBeLessThanOrEqual(www.maxResponseMs);
    const all = await w.call("hosting_uptime_get", { siteId: w.siteId, days: 30 });
    expect(all.items.map((i: any) => i.hostname)).toEqual([
      "acme.test",
      "broken.acme.test",
      "down.acme.test",
      "gone.acme.test",
      "stray.acme.test",
      "www.acme.test",
    ]);
  });

  test("response times: average, p95 (nearest rank) and max of successful checks, hand-computed", async () => {
    const id = ids["acme.test"]!;
    const start = new Date(w.clock.now().getTime() + DAY);
    // 20 successful checks of 10, 20, … 200 ms and one failure of 5000 ms, on a day of their own.
    await w.deps.db.insert(hostingChecks).values([
      ...Array.from({ length: 20 }, (_, i) => ({
        domainId: id,
        companyId: w.companyId,
        kind: "http",
        ok: true,
        status: "up",
        statusCode: 200,
        responseMs: (i + 1) * 10,
        checkedAt: new Date(start.getTime() + i * 60_000),
      })),
      {
        domainId: id,
        companyId: w.companyId,
        kind: "http",
        ok: false,
        status: "down",
        statusCode: null,
        responseMs: 5000,
        checkedAt: new Date(start.getTime() + 20 * 60_000),
      },
    ]);
    const saved = w.clock.now();
    w.clock.set(new Date(start.getTime() + 21 * 60_000));
    const u = (await w.call("hosting_uptime_get", { id, days: 1 })).items[0];
    w.clock.set(saved);
    // Mean of 10..200 = 105; p95 = rank ceil(0.95·20) = 19 → 190; max 200; 20/21 = 95.238… → 95.23.
    expect(u).toMatchObject({
      checks: 21,
      failedChecks: 1,
      avgResponseMs: 105,
      p95ResponseMs: 190,
      maxResponseMs: 200,
      uptimePercent: 95.23,
    });
    await w.deps.db
      .delete(hostingChecks)
      .where(and(eq(hostingChecks.domainId, id), gte(hostingChecks.checkedAt, start)));
  });

  test("check history filters by kind and outcome, newest first", async () => {
    const h = await w.call("hosting_checks_list", { hostname: "down.acme.test", kind: "http" });
    expect(h.total).toBe(6);
    expect(h.items.map((c: any) => c.ok)).toEqual([true, true, false, false, false, false]);
    const fails = await w.call("hosting_checks_list", { id: ids["down.acme.test"], kind: "http", ok: false, limit: 2 });
    expect(fails).toMatchObject({ total: 4, nextOffset: 2 });
    const dnsChecks = await w.call("hosting_checks_list", { hostname: "down.acme.test", kind: "dns" });
    expect(dnsChecks.items.map((c: any) => c.status)).toEqual(["misconfigured"]);
    const since = new Date(w.clock.now().getTime() - 90_000).toISOString();
    expect((await w.call("hosting_checks_list", { hostname: "down.acme.test", kind: "http", since })).total).toBe(2);
    expect((await w.err("hosting_checks_list", { hostname: "down.acme.test", since: "yesterday" })).code).toBe(
      "validation",
    );
  });
});

describe("certificates and DNS over time", () => {
  test("checked hourly: the certificate turns expiring 14 days before its end, then expired; each change is an event and a notification", async () => {
    const before = (await w.call("hosting_checks_list", { hostname: "www.acme.test", kind: "tls" })).total;
    await tick(30 * 60_000); // not yet an hour since the last certificate check
    expect((await w.call("hosting_checks_list", { hostname: "www.acme.test", kind: "tls" })).total).toBe(before);
    // 47 days later: 13 days left.
    w.clock.set(new Date(T0.getTime() + 47 * DAY));
    await runHostingChecks(w.deps);
    const exp = await get("www.acme.test");
    expect(exp).toMatchObject({ tls: "expiring", status: "degraded", certificate: { daysLeft: 13 } });
    const ev = (await w.deps.db.select().from(events).where(eq(events.type, "site_domain.health_changed"))).map(
      (e) => e.data as any,
    );
    expect(ev).toContainEqual({
      hostname: "www.acme.test",
      siteId: w.siteId,
      check: "tls",
      from: "valid",
      to: "expiring",
      error: null,
    });
    const told = (
      await w.deps.db.select().from(notifications).where(eq(notifications.type, "hosting.certificate_problem"))
    ).filter((n) => n.title === "The certificate of www.acme.test is expiring");
    expect(told).toHaveLength(2);
    w.clock.set(new Date(T0.getTime() + 61 * DAY));
    await runHostingChecks(w.deps);
    expect(await get("www.acme.test")).toMatchObject({ tls: "expired", certificate: { daysLeft: -1 } });
  });

  test("after downtime the job checks each domain once, not once per missed interval", async () => {
    const before = (await w.call("hosting_checks_list", { hostname: "acme.test", kind: "http" })).total;
    w.clock.advance(3 * DAY);
    await runHostingChecks(w.deps);
    expect((await w.call("hosting_checks_list", { hostname: "acme.test", kind: "http" })).total).toBe(before + 1);
  });

  test("history older than 90 days is deleted", async () => {
    const total = async () => (await w.deps.db.select({ id: hostingChecks.id }).from(hostingChecks)).length;
    const n = await total();
    expect(n).toBeGreaterThan(20);
    w.clock.advance(92 * DAY);
    await runHostingChecks(w.deps);
    // Only the run just made remains: 7 domains × (http + dns + tls).
    expect(await total()).toBe(21);
  });

  test("the job is declared and runs through the job runner", async () => {
    const r = await w.jobs();
    w.clock.advance(120_000);
    expect(await r.runDue()).toEqual([{ name: "hosting.checks", ok: true }]);
    expect(await r.runDue()).toEqual([]);
  });
});

describe("reading: lists, tenancy and access", () => {
  test("the list shows the company's domains with counts, filters by status and site", async () => {
    const l = await w.call("hosting_domains_list", {});
    expect(l.total).toBe(6);
    expect(l.items.map((i: any) => i.hostname)).not.toContain("rival.test");
    expect(Object.values(l.counts).reduce((a: number, b: any) => a + b, 0)).toBe(6);
    const down = await w.call("hosting_domains_list", { status: "down" });
    expect(down.items.map((i: any) => i.hostname).sort()).toEqual(["broken.acme.test", "gone.acme.test"]);
    expect((await w.call("hosting_domains_list", { siteId: w.siteId, limit: 2 })).nextOffset).toBe(2);
  });

  test("another company's domain, site or hostname is not found; a viewer reads; other scopes are refused", async () => {
    expect((await w.err("hosting_domains_get", { id: ids["rival.test"] })).code).toBe("not_found");
    expect((await w.err("hosting_domains_get", { hostname: "rival.test" })).code).toBe("not_found");
    expect((await w.err("hosting_domains_get", { hostname: "'; drop table sites; --" })).code).toBe("not_found");
    expect((await w.err("hosting_domains_get", {})).code).toBe("validation");
    expect((await w.err("hosting_domains_list", { siteId: w.otherSiteId })).code).toBe("not_found");
    expect((await w.err("hosting_incidents_list", { siteId: w.otherSiteId })).code).toBe("not_found");
    expect((await w.err("hosting_uptime_get", { id: ids["rival.test"] })).code).toBe("not_found");
    expect((await w.err("hosting_checks_list", { id: ids["rival.test"] })).code).toBe("not_found");
    expect((await get("www.acme.test", w.ctx({ role: "viewer", scopes: ["hosting:read"] }))).hostname).toBe(
      "www.acme.test",
    );
    expect((await w.err("hosting_domains_list", {}, w.ctx({ scopes: ["sites:read"] }))).code).toBe("forbidden");
    const rival = await w.call("hosting_domains_list", {}, w.ctx({ company: "other" }));
    expect(rival.items.map((i: any) => i.hostname)).toEqual(["rival.test"]);
  });

  test("a domain of an inactive site is paused and no longer checked; a removed domain takes its history with it", async () => {
    const { sites } = await import("../../src/domains/sites/tables");
    await w.deps.db.update(sites).set({ active: false }).where(eq(sites.id, w.otherSiteId));
    const before = (await w.deps.db.select().from(hostingChecks).where(eq(hostingChecks.domainId, ids["rival.test"]!)))
      .length;
    await tick(3600_000);
    expect(
      (await w.deps.db.select().from(hostingChecks).where(eq(hostingChecks.domainId, ids["rival.test"]!))).length,
    ).toBe(before);
    expect((await w.call("hosting_domains_list", {}, w.ctx({ company: "other" }))).items[0].status).toBe("paused");
    await w.deps.db.delete(siteDomains).where(eq(siteDomains.id, ids["gone.acme.test"]!));
    expect(
      (await w.deps.db.select().from(hostingChecks).where(eq(hostingChecks.domainId, ids["gone.acme.test"]!))).length,
    ).toBe(0);
    expect((await w.err("hosting_domains_get", { hostname: "gone.acme.test" })).code).toBe("not_found");
  });
});

describe("reserved names", () => {
  test("documentation names (.example, .invalid, example.com/.net/.org) are never probed; a look-alike is", async () => {
    const reserved = ["shop.example", "example.com", "www.example.org", "x.invalid"];
    for (const h of reserved) await add(w.siteId, h);
    await add(w.siteId, "notexample.com");
    await tick(3600_000);
    for (const h of reserved) {
      expect(await get(h)).toMatchObject({ status: "pending", uptime: "unknown", dns: "unknown" });
      expect((await w.deps.db.select().from(hostingChecks).where(eq(hostingChecks.domainId, ids[h]!))).length).toBe(0);
    }
    // Not a reserved name: checked like any other (our DNS has no record of it).
    expect(await get("notexample.com")).toMatchObject({ dns: "missing", uptime: "failing" });
  });
});

describe("the job's pending check (an idle server claims no lease)", () => {
  const pending = () => hostingJob.pending!(w.deps);
  test("nothing due after a run; then each kind of work on its own makes it true, and the run does that work", async () => {
    await tick(3600_000);
    expect(await pending()).toBe(false);

    // Only a DNS/TLS check due (uptime not): a 2-hour uptime interval would leave the hourly checks to this branch.
    const [state] = await w.deps.db
      .select()
      .from(hostingDomainState)
      .where(eq(hostingDomainState.domainId, ids["acme.test"]!));
    await w.deps.db
      .update(hostingDomainState)
      .set({ nextCertAt: w.clock.now() })
      .where(eq(hostingDomainState.id, state!.id));
    expect(await pending()).toBe(true);
    const tlsBefore = (await w.call("hosting_checks_list", { hostname: "acme.test", kind: "tls" })).total;
    await runHostingChecks(w.deps);
    expect((await w.call("hosting_checks_list", { hostname: "acme.test", kind: "tls" })).total).toBe(tlsBefore + 1);
    expect(await pending()).toBe(false);

    // Only history past its retention.
    await w.deps.db.insert(hostingChecks).values({
      domainId: ids["acme.test"]!,
      companyId: state!.companyId,
      kind: "http",
      ok: true,
      status: "up",
      checkedAt: new Date(w.clock.ms() - 91 * DAY),
    });
    expect(await pending()).toBe(true);
    await runHostingChecks(w.deps);
    expect(await pending()).toBe(false);

    // Only a new domain to adopt (a reserved name: adopted, never probed).
    await add(w.siteId, "later.example");
    expect(await pending()).toBe(true);
    await runHostingChecks(w.deps);
    expect(
      (await w.deps.db.select().from(hostingDomainState).where(eq(hostingDomainState.domainId, ids["later.example"]!)))
        .length,
    ).toBe(1);
    expect(await pending()).toBe(false);
  });
});
