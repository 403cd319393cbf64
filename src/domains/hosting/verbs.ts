/**
 * Reading hosting results (all hosting tools are reads; the job in
 * checks.ts is the only writer). Every read is of the acting company's
 * site domains: another company's domain, site or incident answers like
 * one that does not exist.
 */
import { and, asc, count, desc, eq, gte, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { engine } from "../../core/engine";
import { authorize } from "../../core/scopes";
import { siteForActor } from "../sites/access";
import { canonicalHostname } from "../sites/verbs";
import { siteDomainRows } from "../sites/facts";
import { FAILURES_TO_OPEN } from "./checks";
import { hostingChecks, hostingDomainState, hostingIncidents } from "./tables";

const read = (ctx: ActorContext) => authorize(ctx, "hosting:read", { write: false });

type DomainRow = {
  id: number;
  hostname: string;
  siteId: number;
  siteName: string;
  isPrimary: boolean;
  siteActive: boolean;
};
type State = typeof hostingDomainState.$inferSelect;

/** One of the company's site domains, by id or hostname. */
/** What a domain row of the answers holds, from sites' subquery of site domains. */
function domainColumns(sd: ReturnType<typeof siteDomainRows>) {
  return {
    id: sd.id,
    hostname: sd.hostname,
    siteId: sd.siteId,
    siteName: sd.siteName,
    isPrimary: sd.isPrimary,
    siteActive: sd.siteActive,
  };
}

async function domainFor(ctx: ActorContext, ref: { id?: number; hostname?: string }): Promise<DomainRow> {
  if (ref.id === undefined && ref.hostname === undefined)
    throw invalid("Give the domain's id or hostname (hosting_domains_list).");
  const host = ref.id === undefined ? hostnameOf(ref.hostname!) : null;
  const missing = () =>
    notFound(
      `Domain ${ref.id ?? JSON.stringify(ref.hostname!.slice(0, 100))} not found in ${ctx.company.name}. List them with hosting_domains_list.`,
    );
  // Not a hostname at all: cannot be one of ours.
  if (ref.id === undefined && host === null) throw missing();
  const sd = siteDomainRows(ctx.deps.db);
  const cond = ref.id !== undefined ? eq(sd.id, ref.id) : eq(sd.hostname, host!);
  const r = (
    await ctx.deps.db
      .select(domainColumns(sd))
      .from(sd)
      .where(and(cond, eq(sd.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!r) throw missing();
  return r;
}

function hostnameOf(raw: string): string | null {
  try {
    return canonicalHostname(raw);
  } catch {
    return null;
  }
}

async function stateOf(ctx: ActorContext, domainId: number): Promise<State | undefined> {
  return (
    await ctx.deps.db.select().from(hostingDomainState).where(eq(hostingDomainState.domainId, domainId)).limit(1)
  )[0];
}

function overall(s: State | undefined, siteActive: boolean): string {
  if (!siteActive) return "paused";
  if (!s || s.uptimeStatus === "unknown") return "pending";
  if (s.uptimeStatus === "down") return "down";
  if (s.uptimeStatus === "failing" || s.dnsStatus !== "ok" || (s.tlsStatus !== "valid" && s.tlsStatus !== "unknown"))
    return "degraded";
  return "ok";
}

function summary(d: DomainRow, s: State | undefined, openIncidentId: number | null) {
  return {
    id: d.id,
    hostname: d.hostname,
    siteId: d.siteId,
    site: d.siteName,
    isPrimary: d.isPrimary,
    status: overall(s, d.siteActive),
    uptime: s?.uptimeStatus ?? "unknown",
    dns: s?.dnsStatus ?? "unknown",
    tls: s?.tlsStatus ?? "unknown",
    certExpiresAt: iso(s?.tlsExpiresAt),
    lastResponseMs: s?.lastResponseMs ?? null,
    lastCheckedAt: iso(s?.lastCheckedAt),
    openIncidentId,
  };
}

export const OVERALL = ["ok", "degraded", "down", "pending", "paused"] as const;

export async function listHostingDomains(
  ctx: ActorContext,
  input: { siteId?: number; status?: (typeof OVERALL)[number]; limit: number; offset: number },
) {
  read(ctx);
  const sd = siteDomainRows(ctx.deps.db);
  const conds: SQL[] = [eq(sd.companyId, ctx.company.id)];
  if (input.siteId !== undefined) conds.push(eq(sd.siteId, (await siteForActor(ctx, input.siteId)).id));
  const rows = await ctx.deps.db
    .select({ ...domainColumns(sd), s: hostingDomainState, inc: hostingIncidents.id })
    .from(sd)
    .leftJoin(hostingDomainState, eq(hostingDomainState.domainId, sd.id))
    .leftJoin(hostingIncidents, eq(hostingIncidents.openKey, sd.id))
    .where(and(...conds))
    .orderBy(asc(sd.hostname), asc(sd.id));
  // A company has at most a few hundred domains (20 per site): filtering on the computed status in memory is fine.
  let items = rows.map((r) => summary(r, r.s ?? undefined, r.inc ?? null));
  if (input.status) items = items.filter((i) => i.status === input.status);
  const counts: Record<string, number> = {};
  for (const r of rows) {
    const st = overall(r.s ?? undefined, r.siteActive);
    counts[st] = (counts[st] ?? 0) + 1;
  }
  return {
    ...page(items.slice(input.offset, input.offset + input.limit), items.length, input.limit, input.offset),
    counts,
  };
}

export async function getHostingDomain(ctx: ActorContext, input: { id?: number; hostname?: string }) {
  read(ctx);
  const d = await domainFor(ctx, input);
  const s = await stateOf(ctx, d.id);
  const open = (
    await ctx.deps.db.select().from(hostingIncidents).where(eq(hostingIncidents.openKey, d.id)).limit(1)
  )[0];
  const now = ctx.deps.clock.now();
  const day = await uptimeOf(ctx, d.id, new Date(now.getTime() - 86_400_000), now);
  return {
    ...summary(d, s, open?.id ?? null),
    dnsCheck: {
      status: s?.dnsStatus ?? "unknown",
      required: s?.dnsRequired ?? [],
      found: s?.dnsFound ?? [],
      error: s?.dnsError ?? null,
      checkedAt: iso(s?.dnsCheckedAt),
    },
    certificate: {
      status: s?.tlsStatus ?? "unknown",
      issuer: s?.tlsIssuer ?? null,
      subject: s?.tlsSubject ?? null,
      altNames: s?.tlsAltNames ?? [],
      validFrom: iso(s?.tlsValidFrom),
      expiresAt: iso(s?.tlsExpiresAt),
      daysLeft: s?.tlsExpiresAt ? Math.floor((s.tlsExpiresAt.getTime() - now.getTime()) / 86_400_000) : null,
      error: s?.tlsError ?? null,
      checkedAt: iso(s?.tlsCheckedAt),
    },
    uptimeCheck: {
      status: s?.uptimeStatus ?? "unknown",
      url: `https://${d.hostname}/`,
      lastStatusCode: s?.lastStatusCode ?? null,
      lastResponseMs: s?.lastResponseMs ?? null,
      lastError: s?.lastError ?? null,
      consecutiveFailures: s?.consecutiveFailures ?? 0,
      failuresToOpenIncident: FAILURES_TO_OPEN,
      intervalSec: ctx.deps.config.hosting.intervalSec,
      lastCheckedAt: iso(s?.lastCheckedAt),
      nextCheckAt: iso(s?.nextUptimeAt),
      last24h: day,
    },
    openIncident: open ? incidentOut(open, now) : null,
  };
}

export async function listChecks(
  ctx: ActorContext,
  input: {
    id?: number;
    hostname?: string;
    kind?: "http" | "dns" | "tls";
    ok?: boolean;
    since?: string;
    until?: string;
    limit: number;
    offset: number;
  },
) {
  read(ctx);
  const d = await domainFor(ctx, input);
  const conds: SQL[] = [eq(hostingChecks.domainId, d.id), eq(hostingChecks.companyId, ctx.company.id)];
  if (input.kind) conds.push(eq(hostingChecks.kind, input.kind));
  if (input.ok !== undefined) conds.push(eq(hostingChecks.ok, input.ok));
  if (input.since) conds.push(gte(hostingChecks.checkedAt, instant(input.since, "since")));
  if (input.until) conds.push(lte(hostingChecks.checkedAt, instant(input.until, "until")));
  const where = and(...conds);
  const total = (await ctx.deps.db.select({ n: count() }).from(hostingChecks).where(where).limit(1))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select()
    .from(hostingChecks)
    .where(where)
    .orderBy(desc(hostingChecks.checkedAt), desc(hostingChecks.id))
    .limit(input.limit)
    .offset(input.offset);
  return {
    hostname: d.hostname,
    ...page(
      rows.map((r) => ({
        id: r.id,
        kind: r.kind,
        ok: r.ok,
        status: r.status,
        statusCode: r.statusCode,
        responseMs: r.responseMs,
        error: r.error,
        checkedAt: iso(r.checkedAt),
      })),
      total,
      input.limit,
      input.offset,
    ),
  };
}

function instant(raw: string, path: string): Date {
  const d = new Date(raw);
  if (!/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/.test(raw) || Number.isNaN(d.getTime()))
    throw invalid(`${path} must be an ISO 8601 date or date-time (2026-05-01 or 2026-05-01T12:00:00Z).`, { path });
  return d;
}

function incidentOut(i: typeof hostingIncidents.$inferSelect, now: Date) {
  const end = i.resolvedAt ?? now;
  return {
    id: i.id,
    domainId: i.domainId,
    hostname: i.hostname,
    siteId: i.siteId,
    status: i.resolvedAt ? "resolved" : "open",
    startedAt: iso(i.startedAt),
    openedAt: iso(i.openedAt),
    resolvedAt: iso(i.resolvedAt),
    durationMs: end.getTime() - i.startedAt.getTime(),
    cause: i.cause,
    failedChecks: i.failedChecks,
  };
}

export async function listIncidents(
  ctx: ActorContext,
  input: {
    status?: "open" | "resolved";
    siteId?: number;
    domainId?: number;
    hostname?: string;
    limit: number;
    offset: number;
  },
) {
  read(ctx);
  const conds: SQL[] = [eq(hostingIncidents.companyId, ctx.company.id)];
  if (input.siteId !== undefined) conds.push(eq(hostingIncidents.siteId, (await siteForActor(ctx, input.siteId)).id));
  if (input.domainId !== undefined || input.hostname !== undefined)
    conds.push(
      eq(hostingIncidents.domainId, (await domainFor(ctx, { id: input.domainId, hostname: input.hostname })).id),
    );
  if (input.status === "open") conds.push(isNull(hostingIncidents.resolvedAt));
  if (input.status === "resolved") conds.push(isNotNull(hostingIncidents.resolvedAt));
  const where = and(...conds);
  const total = (await ctx.deps.db.select({ n: count() }).from(hostingIncidents).where(where).limit(1))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select()
    .from(hostingIncidents)
    .where(where)
    .orderBy(desc(hostingIncidents.startedAt), desc(hostingIncidents.id))
    .limit(input.limit)
    .offset(input.offset);
  const now = ctx.deps.clock.now();
  return page(
    rows.map((r) => incidentOut(r, now)),
    total,
    input.limit,
    input.offset,
  );
}

/** Uptime of one domain over [from, to): share of successful checks, response times, and downtime from incidents. */
async function uptimeOf(ctx: ActorContext, domainId: number, from: Date, to: Date) {
  const db = ctx.deps.db;
  const where = and(
    eq(hostingChecks.domainId, domainId),
    eq(hostingChecks.kind, "http"),
    gte(hostingChecks.checkedAt, from),
    lte(hostingChecks.checkedAt, to),
  );
  const agg = (
    await db
      .select({
        n: sql<number>`count(*)`.mapWith(Number),
        up: sql<number>`coalesce(sum(case when ${hostingChecks.ok} then 1 else 0 end), 0)`.mapWith(Number),
        avg: sql<number | null>`avg(case when ${hostingChecks.ok} then ${hostingChecks.responseMs} end)`.mapWith((x) =>
          x === null ? null : Math.round(Number(x)),
        ),
        max: sql<number | null>`max(case when ${hostingChecks.ok} then ${hostingChecks.responseMs} end)`.mapWith((x) =>
          x === null ? null : Number(x),
        ),
      })
      .from(hostingChecks)
      .where(where)
      .limit(1)
  )[0]!;
  // p95 of successful response times: the value at rank ceil(0.95·n), read by offset.
  let p95: number | null = null;
  const okWhere = and(where, eq(hostingChecks.ok, true), isNotNull(hostingChecks.responseMs));
  if (agg.up > 0) {
    const rank = Math.ceil(0.95 * agg.up);
    p95 =
      (
        await db
          .select({ ms: hostingChecks.responseMs })
          .from(hostingChecks)
          .where(okWhere)
          .orderBy(asc(hostingChecks.responseMs), asc(hostingChecks.id))
          .limit(1)
          .offset(rank - 1)
      )[0]?.ms ?? null;
  }
  const incs = await db
    .select()
    .from(hostingIncidents)
    .where(
      and(
        eq(hostingIncidents.domainId, domainId),
        lte(hostingIncidents.startedAt, to),
        or(isNull(hostingIncidents.resolvedAt), gte(hostingIncidents.resolvedAt, from)),
      ),
    );
  let downtimeMs = 0;
  for (const i of incs)
    downtimeMs += Math.max(
      0,
      Math.min((i.resolvedAt ?? to).getTime(), to.getTime()) - Math.max(i.startedAt.getTime(), from.getTime()),
    );
  return {
    from: iso(from),
    to: iso(to),
    checks: agg.n,
    failedChecks: agg.n - agg.up,
    // Two decimals, rounded down: 99.999 % must not read as 100 %.
    uptimePercent: agg.n ? Math.floor((agg.up * 10_000) / agg.n) / 100 : null,
    avgResponseMs: agg.avg,
    p95ResponseMs: p95,
    maxResponseMs: agg.max,
    incidents: incs.length,
    downtimeMs,
  };
}

export async function getUptime(
  ctx: ActorContext,
  input: { id?: number; hostname?: string; siteId?: number; days: number },
) {
  read(ctx);
  const to = ctx.deps.clock.now();
  const from = new Date(to.getTime() - input.days * 86_400_000);
  let doms: DomainRow[];
  if (input.id !== undefined || input.hostname !== undefined) doms = [await domainFor(ctx, input)];
  else {
    const sd = siteDomainRows(ctx.deps.db);
    const conds: SQL[] = [eq(sd.companyId, ctx.company.id)];
    if (input.siteId !== undefined) conds.push(eq(sd.siteId, (await siteForActor(ctx, input.siteId)).id));
    doms = await ctx.deps.db
      .select(domainColumns(sd))
      .from(sd)
      .where(and(...conds))
      .orderBy(asc(sd.hostname))
      .limit(200);
  }
  const items = [];
  for (const d of doms)
    items.push({ id: d.id, hostname: d.hostname, siteId: d.siteId, ...(await uptimeOf(ctx, d.id, from, to)) });
  return { days: input.days, items };
}

/** The UTC day (days since the epoch) of a check, in the engine's own arithmetic: epoch ms on SQLite, timestamptz on PostgreSQL. */
const checkDay = () =>
  engine() === "pg"
    ? sql<number>`floor(extract(epoch from ${hostingChecks.checkedAt}) / 86400)`.mapWith(Number)
    : sql<number>`(${hostingChecks.checkedAt} / 86400000)`.mapWith(Number);

/**
 * Uptime checks of one domain per UTC day over the last `days` days
 * (today included): how many were made and how many failed, in one grouped
 * query (the portal's uptime chart; hosting_checks_list counts the same
 * rows one day at a time). A day without checks is listed with zeros.
 */
export async function uptimeByDay(ctx: ActorContext, input: { id: number; days: number }) {
  read(ctx);
  const d = await domainFor(ctx, { id: input.id });
  const now = ctx.deps.clock.now().getTime();
  const today = Math.floor(now / 86_400_000);
  const first = today - input.days + 1;
  const day = checkDay();
  const rows = await ctx.deps.db
    .select({
      day,
      n: sql<number>`count(*)`.mapWith(Number),
      failed: sql<number>`coalesce(sum(case when ${hostingChecks.ok} then 0 else 1 end), 0)`.mapWith(Number),
    })
    .from(hostingChecks)
    .where(
      and(
        eq(hostingChecks.domainId, d.id),
        eq(hostingChecks.companyId, ctx.company.id),
        eq(hostingChecks.kind, "http"),
        gte(hostingChecks.checkedAt, new Date(first * 86_400_000)),
        lte(hostingChecks.checkedAt, new Date((today + 1) * 86_400_000 - 1)),
      ),
    )
    .groupBy(day);
  const by = new Map(rows.map((r) => [r.day, r]));
  return Array.from({ length: input.days }, (_, i) => {
    const r = by.get(first + i);
    const checks = r?.n ?? 0;
    const failed = r?.failed ?? 0;
    return {
      date: new Date((first + i) * 86_400_000).toISOString().slice(0, 10),
      checks,
      failed,
      // Two decimals, rounded down, as uptimeOf: 99.999 % must not read as 100 %.
      uptimePercent: checks ? Math.floor(((checks - failed) * 10_000) / checks) / 100 : null,
    };
  });
}
