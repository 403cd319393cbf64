/**
 * A real server for the hosting pages: Acme (owner Olga, viewer Vic) with
 * two sites and four domains whose monitoring history is known — one
 * healthy with a four-hour outage three days ago (a resolved incident),
 * one down now (an open incident), one whose DNS points elsewhere and
 * whose certificate expires in nine days, one under a site with a hostile
 * name whose certificate issuer, check errors and incident cause carry
 * planted markup (a remote server writes those) — and Rival (owner Rita)
 * with a domain down. The history is written as the hosting job would
 * have written it (hourly uptime checks over 30 days), like the demo's;
 * the next checks are due far in the future, so the running server's job
 * leaves these domains alone and a test can record checks itself through
 * the job's own writer. The clock stands still at 31 January 2030, 12:00 UTC.
 */
import type { Client } from "@modelcontextprotocol/client";
import { ManualClock } from "../../src/core/clock";
import { hostingChecks, hostingDomainState, hostingIncidents } from "../../src/domains/hosting/tables";
import { siteDomains } from "../../src/domains/sites/tables";
import { createSite } from "../../src/domains/sites/verbs";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const NOW = Date.UTC(2030, 0, 31, 12, 0, 0);
export const XSS_SITE = `<script>alert(1)</script> Labs`;
export const XSS_ISSUER = `<img src=x onerror=alert(2)> Evil CA`;
export const XSS_CAUSE = `HTTP 500: <script>alert(3)</script>`;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const FAR = new Date(NOW + 365 * DAY);

export interface HostingWorld {
  s: TestServer;
  olga: Client;
  rita: Client;
  d: { www: number; shop: number; old: number; labs: number };
  rivalDomain: number;
  incidents: { outage: number; shopDown: number; labs: number };
}

type Check = typeof hostingChecks.$inferInsert;

export async function hostingWorld(): Promise<HostingWorld> {
  const s = await startTestServer({ seed: false, clock: new ManualClock(NOW), config: { rateLimit: 100_000 } });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  const web = (await createSite(s.deps, { companyId: acme.id, name: "Acme Web" })).id;
  const labs = (await createSite(s.deps, { companyId: acme.id, name: XSS_SITE })).id;
  const rivalSite = (await createSite(s.deps, { companyId: rival.id, name: "Rival Web" })).id;

  /** A domain with its state and history in one transaction, so the job never adopts it half-made. */
  const domain = async (o: {
    siteId: number;
    companyId: number;
    hostname: string;
    primary?: boolean;
    /** Hours ago of failed uptime checks (hourly checks over 30 days). */
    down?: (hoursAgo: number) => boolean;
    dns?: "ok" | "misconfigured";
    tls?: { status: string; expiresInDays: number; issuer: string };
    error?: string;
    incidents?: { startedHoursAgo: number; resolvedHoursAgo: number | null; cause: string }[];
  }) =>
    await s.deps.db.transaction(async (tx) => {
      const d = (
        await tx
          .insert(siteDomains)
          .values({ siteId: o.siteId, hostname: o.hostname, isPrimary: o.primary ?? false })
          .returning()
      )[0]!;
      const checks: Check[] = [];
      for (let h = 30 * 24; h >= 1; h--) {
        const failed = o.down?.(h) ?? false;
        checks.push({
          domainId: d.id,
          companyId: o.companyId,
          kind: "http",
          ok: !failed,
          status: failed ? "down" : "up",
          statusCode: failed ? 500 : 200,
          responseMs: failed ? 1500 : 90 + ((h * 37) % 50),
          error: failed ? (o.error ?? "HTTP 500") : null,
          checkedAt: new Date(NOW - h * HOUR),
        });
      }
      checks.push({
        domainId: d.id,
        companyId: o.companyId,
        kind: "dns",
        ok: (o.dns ?? "ok") === "ok",
        status: o.dns ?? "ok",
        error: o.dns === "misconfigured" ? "records do not point at the hosting target" : null,
        checkedAt: new Date(NOW - 30 * 60_000),
      });
      for (let i = 0; i < checks.length; i += 300) await tx.insert(hostingChecks).values(checks.slice(i, i + 300));
      const last = checks.filter((c) => c.kind === "http").at(-1)!;
      const downNow = !last.ok;
      const tls = o.tls ?? { status: "valid", expiresInDays: 60, issuer: "Let's Encrypt R11" };
      await tx.insert(hostingDomainState).values({
        domainId: d.id,
        siteId: o.siteId,
        companyId: o.companyId,
        hostname: o.hostname,
        dnsStatus: o.dns ?? "ok",
        dnsRequired: [{ type: "CNAME", name: o.hostname, value: "sites.plinth.test" }],
        dnsFound:
          o.dns === "misconfigured"
            ? [{ type: "A", name: o.hostname, value: "198.51.100.23" }]
            : [{ type: "CNAME", name: o.hostname, value: "sites.plinth.test" }],
        dnsError: o.dns === "misconfigured" ? "records do not point at the hosting target" : null,
        dnsCheckedAt: new Date(NOW - 30 * 60_000),
        tlsStatus: tls.status,
        tlsIssuer: tls.issuer,
        tlsSubject: o.hostname,
        tlsAltNames: [o.hostname],
        tlsValidFrom: new Date(NOW - 30 * DAY),
        tlsExpiresAt: new Date(NOW + tls.expiresInDays * DAY),
        tlsCheckedAt: new Date(NOW - 30 * 60_000),
        uptimeStatus: downNow ? "down" : "up",
        lastStatusCode: last.statusCode ?? null,
        lastResponseMs: last.responseMs ?? null,
        lastError: last.error ?? null,
        lastCheckedAt: last.checkedAt,
        consecutiveFailures: downNow ? 3 : 0,
        failingSince: downNow ? new Date(NOW - 3 * HOUR) : null,
        nextUptimeAt: FAR,
        nextCertAt: FAR,
      });
      const ids: number[] = [];
      for (const i of o.incidents ?? [])
        ids.push(
          (
            await tx
              .insert(hostingIncidents)
              .values({
                domainId: d.id,
                siteId: o.siteId,
                companyId: o.companyId,
                hostname: o.hostname,
                startedAt: new Date(NOW - i.startedHoursAgo * HOUR),
                openedAt: new Date(NOW - (i.startedHoursAgo - 2) * HOUR),
                resolvedAt: i.resolvedHoursAgo === null ? null : new Date(NOW - i.resolvedHoursAgo * HOUR),
                cause: i.cause,
                failedChecks: i.startedHoursAgo - (i.resolvedHoursAgo ?? 0),
                openKey: i.resolvedHoursAgo === null ? d.id : null,
              })
              .returning()
          )[0]!.id,
        );
      return { id: d.id, incidents: ids };
    });

  // Three days ago, 10:00–14:00 UTC: four failed checks, one resolved incident.
  const outageHours = (h: number) => h >= 3 * 24 - 2 && h <= 3 * 24 + 1;
  const www = await domain({
    siteId: web,
    companyId: acme.id,
    hostname: "www.acme.test",
    primary: true,
    down: outageHours,
    incidents: [{ startedHoursAgo: 3 * 24 + 1, resolvedHoursAgo: 3 * 24 - 3, cause: "HTTP 502" }],
  });
  const shop = await domain({
    siteId: web,
    companyId: acme.id,
    hostname: "shop.acme.test",
    down: (h) => h <= 3,
    error: "connect ECONNREFUSED",
    incidents: [{ startedHoursAgo: 3, resolvedHoursAgo: null, cause: "connect ECONNREFUSED" }],
  });
  const old = await domain({
    siteId: web,
    companyId: acme.id,
    hostname: "old.acme.test",
    dns: "misconfigured",
    tls: { status: "expiring", expiresInDays: 9, issuer: "Let's Encrypt R11" },
  });
  const labsD = await domain({
    siteId: labs,
    companyId: acme.id,
    hostname: "labs.acme.test",
    primary: true,
    down: (h) => h === 50 || h === 51 || h === 52,
    error: XSS_CAUSE,
    tls: { status: "valid", expiresInDays: 40, issuer: XSS_ISSUER },
    incidents: [{ startedHoursAgo: 52, resolvedHoursAgo: 49, cause: XSS_CAUSE }],
  });
  const rivalD = await domain({
    siteId: rivalSite,
    companyId: rival.id,
    hostname: "rival.test",
    primary: true,
    down: (h) => h <= 5,
    incidents: [{ startedHoursAgo: 5, resolvedHoursAgo: null, cause: "Rival secret outage" }],
  });

  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  return {
    s,
    olga: await mcpClient(s.url, await key(olga.id, acme.id)),
    rita: await mcpClient(s.url, await key(rita.id, rival.id)),
    d: { www: www.id, shop: shop.id, old: old.id, labs: labsD.id },
    rivalDomain: rivalD.id,
    incidents: { outage: www.incidents[0]!, shopDown: shop.incidents[0]!, labs: labsD.incidents[0]! },
  };
}
