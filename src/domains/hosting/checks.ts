/**
 * The background checks (the only writer of hosting data): every site
 * domain of an active site gets an uptime check every `intervalSec`, and a
 * DNS and TLS check every hour. The job works from the database ("whose
 * next check is due by now?"), so a server that was down checks everything
 * once on its next run (it cannot probe the past, and does not pretend to).
 *
 * Uptime incidents: FAILURES_TO_OPEN failed checks in a row open one
 * (started at the first failure of the run), the first success resolves
 * it; both notify the company's owners and admins and emit an event. A DNS
 * or TLS status that changes emits site_domain.health_changed, and a
 * certificate turning expiring, expired or invalid notifies the admins.
 */
import { and, asc, eq, inArray, isNull, lt, lte, ne, notLike, or, sql } from "drizzle-orm";
import * as v from "valibot";
import type { Deps } from "../../core/context";
import { defineEvent, emit } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { memberships } from "../../core/tables";
import { notify } from "../notifications/verbs";
import { inActiveSites, siteDomainRows } from "../sites/facts";
import { checkDns, checkHttp, checkTls, type DnsResult, type HttpResult, type TlsResult } from "./probes";
import { hostingChecks, hostingDomainState, hostingIncidents } from "./tables";

/** Failed uptime checks in a row that open an incident. */
export const FAILURES_TO_OPEN = 3;
/** DNS and certificate checks run this often per domain. */
export const CERT_INTERVAL_MS = 60 * 60_000;
/** Check history older than this is deleted. */
export const RETENTION_DAYS = 90;
/** Domains checked at once. */
const PARALLEL = 8;
/** Domains per round, so one run stays bounded. */
const BATCH = 200;

/**
 * Names reserved for documentation (RFC 2606: the `.example` and `.invalid`
 * TLDs, example.com/.net/.org) can never resolve: they are not probed. The
 * demo's domains are such names, so a demo (air-gapped or not) makes no
 * lookups and keeps its seeded history instead of opening incidents.
 * Hostnames are stored lower case, so LIKE matches alike on both engines.
 */
const RESERVED_TLDS = ["example", "invalid"];
const RESERVED_NAMES = ["example.com", "example.net", "example.org"];
const probeable = () =>
  and(
    ...RESERVED_TLDS.map((t) => notLike(hostingDomainState.hostname, `%.${t}`)),
    ...RESERVED_NAMES.flatMap((n) => [
      ne(hostingDomainState.hostname, n),
      notLike(hostingDomainState.hostname, `%.${n}`),
    ]),
  );

export const incidentOpened = defineEvent({
  type: "uptime_incident.opened",
  entity: "uptime_incident",
  description:
    "A site domain's public URL failed its uptime check several times in a row: hostname, site, when it started, the cause.",
  payload: v.object({
    domainId: v.number(),
    hostname: v.string(),
    siteId: v.number(),
    startedAt: v.string(),
    cause: v.string(),
    failedChecks: v.number(),
  }),
});

export const incidentResolved = defineEvent({
  type: "uptime_incident.resolved",
  entity: "uptime_incident",
  description: "A site domain answered again after an uptime incident: hostname, site, start, end and duration.",
  payload: v.object({
    domainId: v.number(),
    hostname: v.string(),
    siteId: v.number(),
    startedAt: v.string(),
    resolvedAt: v.string(),
    durationMs: v.number(),
  }),
});

export const healthChanged = defineEvent({
  type: "site_domain.health_changed",
  entity: "site_domain",
  description:
    "A site domain's DNS or TLS status changed (check dns|tls, from, to, error), e.g. a certificate became expiring.",
  payload: v.object({
    hostname: v.string(),
    siteId: v.number(),
    check: v.picklist(["dns", "tls"]),
    from: v.string(),
    to: v.string(),
    error: v.nullable(v.string()),
  }),
});

export const hostingEvents = [incidentOpened, incidentResolved, healthChanged];

type State = typeof hostingDomainState.$inferSelect;

/** A probeable domain of an active site whose uptime (or DNS/TLS) check is due. */
const httpDue = (deps: Deps, now: Date) =>
  and(inActiveSites(hostingDomainState.siteId, deps.db), probeable(), lte(hostingDomainState.nextUptimeAt, now));
const certDue = (deps: Deps, now: Date) =>
  and(inActiveSites(hostingDomainState.siteId, deps.db), probeable(), lte(hostingDomainState.nextCertAt, now));
/** Check history past its retention. */
const expired = (now: Date) => lt(hostingChecks.checkedAt, new Date(now.getTime() - RETENTION_DAYS * 86_400_000));

/** Domains of active sites that have no check state yet. */
function unadopted(deps: Deps, limit: number) {
  const sd = siteDomainRows(deps.db);
  return deps.db
    .select({ id: sd.id, siteId: sd.siteId, hostname: sd.hostname, companyId: sd.companyId })
    .from(sd)
    .leftJoin(hostingDomainState, eq(hostingDomainState.domainId, sd.id))
    .where(and(eq(sd.siteActive, true), isNull(hostingDomainState.id)))
    .limit(limit);
}

/** Creates the state row of every domain of an active site that has none yet (checked at once). */
async function adoptNewDomains(deps: Deps, now: Date): Promise<void> {
  const missing = await unadopted(deps, 1000);
  if (!missing.length) return;
  // Bookkeeping no cache reads: silent, like the history trim below.
  await deps.store.transaction(
    async (tx) => {
      for (const d of missing)
        await tx
          .insert(hostingDomainState)
          .values({
            domainId: d.id,
            siteId: d.siteId,
            companyId: d.companyId,
            hostname: d.hostname,
            dnsRequired: [],
            dnsFound: [],
            nextUptimeAt: now,
            nextCertAt: now,
            createdAt: now,
          })
          .onConflictDoNothing();
    },
    { silent: true },
  );
}

async function admins(deps: Deps, companyId: number): Promise<number[]> {
  const rows = await deps.db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.companyId, companyId), inArray(memberships.role, ["owner", "admin"])));
  return rows.map((r) => r.userId);
}

async function pool<T>(items: T[], fn: (t: T) => Promise<void>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, items.length) }, async () => {
      while (i < items.length) await fn(items[i++]!);
    }),
  );
}

/** Still the domain we probed, and its site still active? (It may have been removed while we waited on the network.) */
async function stillThere(deps: Deps, s: State): Promise<boolean> {
  const r = await deps.db
    .select({ id: hostingDomainState.id })
    .from(hostingDomainState)
    .where(eq(hostingDomainState.id, s.id))
    .limit(1);
  return r.length === 1;
}

export async function recordHttp(deps: Deps, s: State, r: HttpResult, at: Date): Promise<void> {
  const adminIds = await admins(deps, s.companyId);
  await deps.db.transaction(async (tx) => {
    const cur = (await tx.select().from(hostingDomainState).where(eq(hostingDomainState.id, s.id)).limit(1))[0];
    if (!cur) return;
    const failures = r.ok ? 0 : cur.consecutiveFailures + 1;
    const failingSince = r.ok ? null : (cur.failingSince ?? at);
    await tx.insert(hostingChecks).values({
      domainId: cur.domainId,
      companyId: cur.companyId,
      kind: "http",
      ok: r.ok,
      status: r.ok ? "up" : "down",
      statusCode: r.statusCode,
      responseMs: r.responseMs,
      error: r.error,
      checkedAt: at,
    });
    await tx
      .update(hostingDomainState)
      .set({
        uptimeStatus: r.ok ? "up" : failures >= FAILURES_TO_OPEN ? "down" : "failing",
        lastStatusCode: r.statusCode,
        lastResponseMs: r.responseMs,
        lastError: r.error,
        lastCheckedAt: at,
        consecutiveFailures: failures,
        failingSince,
        nextUptimeAt: new Date(at.getTime() + deps.config.hosting.intervalSec * 1000),
      })
      .where(eq(hostingDomainState.id, cur.id));
    const actor = { deps, company: { id: cur.companyId } };
    const open = (
      await tx.select().from(hostingIncidents).where(eq(hostingIncidents.openKey, cur.domainId)).limit(1)
    )[0];
    if (!r.ok && !open && failures >= FAILURES_TO_OPEN) {
      const cause = r.error ?? "failed";
      const inc = (
        await tx
          .insert(hostingIncidents)
          .values({
            domainId: cur.domainId,
            siteId: cur.siteId,
            companyId: cur.companyId,
            hostname: cur.hostname,
            startedAt: failingSince!,
            openedAt: at,
            cause,
            failedChecks: failures,
            openKey: cur.domainId,
          })
          .returning()
      )[0]!;
      await emit(
        tx,
        actor,
        incidentOpened,
        { id: inc.id, siteId: cur.siteId },
        {
          domainId: cur.domainId,
          hostname: cur.hostname,
          siteId: cur.siteId,
          startedAt: failingSince!.toISOString(),
          cause,
          failedChecks: failures,
        },
      );
      await notify(deps, {
        companyId: cur.companyId,
        userIds: adminIds,
        type: "hosting.incident_opened",
        title: `${cur.hostname} is down`,
        body: `${failures} checks in a row failed since ${failingSince!.toISOString()}: ${cause}`,
        entity: { type: "uptime_incident", id: inc.id },
      });
    } else if (!r.ok && open) {
      await tx
        .update(hostingIncidents)
        .set({ failedChecks: sql`${hostingIncidents.failedChecks} + 1` })
        .where(eq(hostingIncidents.id, open.id));
    } else if (r.ok && open) {
      await tx.update(hostingIncidents).set({ resolvedAt: at, openKey: null }).where(eq(hostingIncidents.id, open.id));
      const durationMs = at.getTime() - open.startedAt.getTime();
      await emit(
        tx,
        actor,
        incidentResolved,
        { id: open.id, siteId: cur.siteId },
        {
          domainId: cur.domainId,
          hostname: cur.hostname,
          siteId: cur.siteId,
          startedAt: open.startedAt.toISOString(),
          resolvedAt: at.toISOString(),
          durationMs,
        },
      );
      await notify(deps, {
        companyId: cur.companyId,
        userIds: adminIds,
        type: "hosting.incident_resolved",
        title: `${cur.hostname} is back up`,
        body: `Down for ${Math.round(durationMs / 60_000)} min (since ${open.startedAt.toISOString()}).`,
        entity: { type: "uptime_incident", id: open.id },
      });
    }
  });
}

const BAD_TLS = new Set(["expiring", "expired", "invalid"]);

export async function recordCert(deps: Deps, s: State, dns: DnsResult, t: TlsResult, at: Date): Promise<void> {
  const adminIds = await admins(deps, s.companyId);
  await deps.db.transaction(async (tx) => {
    const cur = (await tx.select().from(hostingDomainState).where(eq(hostingDomainState.id, s.id)).limit(1))[0];
    if (!cur) return;
    await tx.insert(hostingChecks).values([
      {
        domainId: cur.domainId,
        companyId: cur.companyId,
        kind: "dns",
        ok: dns.status === "ok",
        status: dns.status,
        error: dns.error,
        checkedAt: at,
      },
      {
        domainId: cur.domainId,
        companyId: cur.companyId,
        kind: "tls",
        ok: t.status === "valid" || t.status === "expiring",
        status: t.status,
        error: t.error,
        checkedAt: at,
      },
    ]);
    await tx
      .update(hostingDomainState)
      .set({
        dnsStatus: dns.status,
        dnsRequired: dns.required,
        dnsFound: dns.found,
        dnsError: dns.error,
        dnsCheckedAt: at,
        tlsStatus: t.status,
        tlsIssuer: t.issuer,
        tlsSubject: t.subject,
        tlsAltNames: t.altNames,
        tlsValidFrom: t.validFrom,
        tlsExpiresAt: t.expiresAt,
        tlsError: t.error,
        tlsCheckedAt: at,
        nextCertAt: new Date(at.getTime() + CERT_INTERVAL_MS),
      })
      .where(eq(hostingDomainState.id, cur.id));
    const actor = { deps, company: { id: cur.companyId } };
    const changes: ["dns" | "tls", string, string, string | null][] = [];
    if (cur.dnsStatus !== dns.status) changes.push(["dns", cur.dnsStatus, dns.status, dns.error]);
    if (cur.tlsStatus !== t.status) changes.push(["tls", cur.tlsStatus, t.status, t.error]);
    for (const [check, from, to, error] of changes)
      await emit(
        tx,
        actor,
        healthChanged,
        { id: cur.domainId, siteId: cur.siteId },
        { hostname: cur.hostname, siteId: cur.siteId, check, from, to, error },
      );
    if (cur.tlsStatus !== t.status && BAD_TLS.has(t.status))
      await notify(deps, {
        companyId: cur.companyId,
        userIds: adminIds,
        type: "hosting.certificate_problem",
        title: `The certificate of ${cur.hostname} is ${t.status}`,
        body: t.expiresAt
          ? `Issued by ${t.issuer ?? "unknown"}, expires ${t.expiresAt.toISOString()}.${t.error ? ` ${t.error}` : ""}`
          : t.error,
        entity: { type: "site_domain", id: cur.domainId },
      });
  });
}

/** One run: adopt new domains, run due uptime checks, then due DNS/TLS checks, then trim old history. */
export async function runHostingChecks(deps: Deps): Promise<{ http: number; cert: number }> {
  const now = deps.clock.now();
  await adoptNewDomains(deps, now);
  const dueHttp = await deps.db
    .select({ s: hostingDomainState })
    .from(hostingDomainState)
    .where(httpDue(deps, now))
    .orderBy(asc(hostingDomainState.nextUptimeAt), asc(hostingDomainState.id))
    .limit(BATCH);
  await pool(dueHttp, async ({ s }) => {
    const r = await checkHttp(deps.config.hosting, s.hostname);
    if (deps.store.closed || !(await stillThere(deps, s))) return;
    await recordHttp(deps, s, r, deps.clock.now());
  });
  const dueCert = await deps.db
    .select({ s: hostingDomainState })
    .from(hostingDomainState)
    .where(certDue(deps, now))
    .orderBy(asc(hostingDomainState.nextCertAt), asc(hostingDomainState.id))
    .limit(BATCH);
  await pool(dueCert, async ({ s }) => {
    const at = deps.clock.now();
    const [dns, t] = await Promise.all([
      checkDns(deps.config.hosting, s.hostname),
      checkTls(deps.config.hosting, s.hostname, at),
    ]);
    if (deps.store.closed || !(await stillThere(deps, s))) return;
    await recordCert(deps, s, dns, t, at);
  });
  if ((await deps.db.select({ id: hostingChecks.id }).from(hostingChecks).where(expired(now)).limit(1)).length)
    await deps.store.transaction((tx) => tx.delete(hostingChecks).where(expired(now)), { silent: true });
  return { http: dueHttp.length, cert: dueCert.length };
}

export const hostingJob: JobDef = {
  name: "hosting.checks",
  description:
    "Uptime checks of every site domain (each interval), DNS and TLS checks (hourly); opens and resolves incidents.",
  everyMs: 10_000,
  leaseMs: 5 * 60_000,
  // One read per step of runHostingChecks: a domain to adopt, an uptime or DNS/TLS check due, history to trim.
  pending: async (deps) => {
    const now = deps.clock.now();
    return (
      (await anyRow(unadopted(deps, 1))) ||
      (await anyRow(
        deps.db
          .select({ id: hostingDomainState.id })
          .from(hostingDomainState)
          .where(or(httpDue(deps, now), certDue(deps, now)))
          .limit(1),
      )) ||
      (await anyRow(deps.db.select({ id: hostingChecks.id }).from(hostingChecks).where(expired(now)).limit(1)))
    );
  },
  run: async (deps) => {
    await runHostingChecks(deps);
  },
};
