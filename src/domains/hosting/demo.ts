/**
 * The demo's hosting history: a week of uptime checks (every ten minutes)
 * for each demo site domain, with a 40-minute outage of
 * www.harborcoffee.example two days ago (a resolved incident), the DNS
 * and certificate state of each domain — Harbor's www record still points
 * elsewhere, Northwind's certificate expires in nine days — and the next
 * checks due one interval from now. (A running demo server then checks the
 * .example names for real and reports what it finds.)
 */
import { inArray } from "drizzle-orm";
import { hostingChecks, hostingDomainState, hostingIncidents } from "./tables";
import { siteDomains } from "../sites/tables";
import type { DemoPart } from "../../mcp/define";

const TARGET = "sites.plinth.example";
const STEP = 10 * 60_000;

export const demoHosting: DemoPart = async ({ tx, clock, companies, sites }) => {
  const now = clock.now().getTime();
  const domains = await tx
    .select()
    .from(siteDomains)
    .where(inArray(siteDomains.siteId, [sites.harbor, sites.northwind]));
  const company = (siteId: number) => (siteId === sites.harbor ? companies.harbor : companies.northwind);
  const outageDomain = domains.find((d) => d.hostname === "www.harborcoffee.example");
  const outageStart = now - 2 * 86_400_000 - 3 * 3_600_000;
  const outageEnd = outageStart + 40 * 60_000;
  let outage: { startedAt: Date; openedAt: Date; resolvedAt: Date; failed: number } | null = null;
  for (const d of domains) {
    const companyId = company(d.siteId);
    const rows: (typeof hostingChecks.$inferInsert)[] = [];
    // Response times with a daily rhythm: slower in the busy afternoon, deterministic.
    for (let t = now - 7 * 86_400_000, i = 0; t <= now - STEP; t += STEP, i++) {
      const down = d.id === outageDomain?.id && t >= outageStart && t < outageEnd;
      const hour = new Date(t).getUTCHours();
      const ms =
        80 + (hour >= 13 && hour <= 18 ? 60 : 0) + ((i * 37) % 45) + (d.hostname.startsWith("northwind") ? 40 : 0);
      rows.push(
        down
          ? {
              domainId: d.id,
              companyId,
              kind: "http",
              ok: false,
              status: "down",
              statusCode: 502,
              responseMs: 1200 + ((i * 53) % 300),
              error: "HTTP 502",
              checkedAt: new Date(t),
            }
          : {
              domainId: d.id,
              companyId,
              kind: "http",
              ok: true,
              status: "up",
              statusCode: 200,
              responseMs: ms,
              error: null,
              checkedAt: new Date(t),
            },
      );
    }
    for (let t = now - 7 * 86_400_000; t <= now - 3_600_000; t += 6 * 3_600_000) {
      const www = d.hostname.startsWith("www.");
      rows.push({
        domainId: d.id,
        companyId,
        kind: "dns",
        ok: !www,
        status: www ? "misconfigured" : "ok",
        error: www ? "records do not point at the hosting target" : null,
        checkedAt: new Date(t),
      });
      rows.push({
        domainId: d.id,
        companyId,
        kind: "tls",
        ok: true,
        status: d.hostname === "northwind.example" && t > now - 86_400_000 * 5 ? "expiring" : "valid",
        checkedAt: new Date(t),
      });
    }
    if (d.id === outageDomain?.id) {
      // The incident as the job would have recorded it: from the first failure, opened at the third, resolved at the first success.
      const http = rows.filter((r) => r.kind === "http");
      const first = http.findIndex((r) => !r.ok);
      const failed = http.filter((r) => !r.ok);
      if (first >= 0 && failed.length >= 3)
        outage = {
          startedAt: http[first]!.checkedAt,
          openedAt: failed[2]!.checkedAt,
          resolvedAt: http[first + failed.length]!.checkedAt,
          failed: failed.length,
        };
    }
    for (let i = 0; i < rows.length; i += 500) await tx.insert(hostingChecks).values(rows.slice(i, i + 500));
    const www = d.hostname.startsWith("www.");
    const expires = d.hostname === "northwind.example" ? now + 9 * 86_400_000 : now + 52 * 86_400_000;
    const last = rows.filter((r) => r.kind === "http").at(-1)!;
    await tx.insert(hostingDomainState).values({
      domainId: d.id,
      siteId: d.siteId,
      companyId,
      hostname: d.hostname,
      dnsStatus: www ? "misconfigured" : "ok",
      dnsRequired: www
        ? [{ type: "CNAME", name: d.hostname, value: TARGET }]
        : [{ type: "A", name: d.hostname, value: "203.0.113.40" }],
      dnsFound: www
        ? [{ type: "A", name: d.hostname, value: "198.51.100.23" }]
        : [{ type: "A", name: d.hostname, value: "203.0.113.40" }],
      dnsError: www ? "records do not point at the hosting target" : null,
      dnsCheckedAt: new Date(now - 40 * 60_000),
      tlsStatus: d.hostname === "northwind.example" ? "expiring" : "valid",
      tlsIssuer: "Let's Encrypt — R11",
      tlsSubject: d.hostname,
      tlsAltNames: [d.hostname],
      tlsValidFrom: new Date(expires - 90 * 86_400_000),
      tlsExpiresAt: new Date(expires),
      tlsCheckedAt: new Date(now - 40 * 60_000),
      uptimeStatus: "up",
      lastStatusCode: 200,
      lastResponseMs: last.responseMs,
      lastCheckedAt: last.checkedAt,
      consecutiveFailures: 0,
      nextUptimeAt: new Date(now + 60_000),
      nextCertAt: new Date(now + 20 * 60_000),
      createdAt: d.createdAt,
    });
  }
  if (outageDomain && outage) {
    await tx.insert(hostingIncidents).values({
      domainId: outageDomain.id,
      siteId: outageDomain.siteId,
      companyId: companies.harbor,
      hostname: outageDomain.hostname,
      startedAt: outage.startedAt,
      openedAt: outage.openedAt,
      resolvedAt: outage.resolvedAt,
      cause: "HTTP 502",
      failedChecks: outage.failed,
      openKey: null,
    });
  }
};
