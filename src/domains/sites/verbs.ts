/**
 * Site verbs for agents: read sites, manage their domains and environment
 * variables. (Creating sites and REST keys belongs to the portal and CLI:
 * `createSite` here, `plinth sites create`.)
 *
 * Domains: hostnames are unique across the whole service (one hostname can
 * only point at one site), so a taken hostname is a conflict that names no
 * other tenant. The primary domain is what REST serves as SiteConfig.domain.
 * Ownership is not verified here (no DNS check in this build): `verified`
 * stays false until a hosting integration sets it.
 *
 * Environment variables are configuration for the site's renderer. Values
 * marked secret are never returned by any tool after they are set.
 *
 * @public Serves hosting and accounts (canonical host names, a company's
 * sites).
 */
import { and, asc, count, eq, ne, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ChangeWatch } from "../../core/changes";
import type { ActorContext, Deps } from "../../core/context";
import { bumpContentVersion } from "./content-version";
import { conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { startSiteBrand } from "../branding/company-default";
import { siteContentCounts } from "../cms/media-facts";
import { siteForActor, type SiteRow } from "./access";
import { siteDomains, siteEnvVars, sites } from "./tables";
import { companies } from "../../core/tables";
import { byText } from "../../core/sql";
import { preparedRead } from "../../core/prepared";
import { write } from "../../core/fields";
import type { Tx } from "../../core/db";

export const MAX_DOMAINS_PER_SITE = 20;
export const MAX_ENV_VARS_PER_SITE = 200;
export const MAX_ENV_VALUE = 32_768;

/** What siteView shows, and all that sites_list reads. */
const siteViewColumns = {
  id: sites.id,
  name: sites.name,
  domain: sites.domain,
  subdomain: sites.subdomain,
  description: sites.description,
  active: sites.active,
  createdAt: sites.createdAt,
  updatedAt: sites.updatedAt,
};
type SiteViewRow = Pick<SiteRow, keyof typeof siteViewColumns>;

function siteView(s: SiteViewRow) {
  return {
    id: s.id,
    name: s.name,
    domain: s.domain,
    subdomain: s.subdomain,
    description: s.description,
    active: s.active,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
}

type SiteRef = { id: number; name: string; domain: string | null };

/**
 * Each company's sites (id, name, primary domain), cached in memory until the
 * sites table changes (src/core/changes.ts, on every instance): whoami lists
 * them on every call, and they are plain rows, nothing that expires with time.
 */
const siteRefCaches = new WeakMap<object, { watch: ChangeWatch; byCompany: Map<number, readonly SiteRef[]> }>();
/** Bounds memory against many distinct companies; a full cache simply starts over. */
const MAX_CACHED_COMPANIES = 10_000;

const companySiteRefs = preparedRead<
  { companyId: number },
  { id: number; name: string; domain: string | null; subdomain: string | null }[]
>("sites_refs_by_company", (db) =>
  db
    .select({ id: sites.id, name: sites.name, domain: sites.domain, subdomain: sites.subdomain })
    .from(sites)
    .where(eq(sites.companyId, sql.placeholder("companyId")))
    .orderBy(asc(sites.id)),
);

/** The sites of each company, in id order: what whoami shows so a model never pairs a site with the wrong company. */
export async function sitesByCompany(
  deps: Deps,
  companyIds: readonly number[],
): Promise<Map<number, readonly SiteRef[]>> {
  const out = new Map<number, readonly SiteRef[]>();
  if (!companyIds.length) return out;
  const { store } = deps;
  // Inside a transaction the rows may be uncommitted: read them, never cache them.
  let cache = store.inTransaction() ? undefined : siteRefCaches.get(store);
  if (!cache && !store.inTransaction())
    siteRefCaches.set(store, (cache = { watch: store.changes.watch(["sites"]), byCompany: new Map() }));
  if (cache?.watch.changed()) cache.byCompany.clear();
  for (const companyId of companyIds) {
    let refs = cache?.byCompany.get(companyId);
    if (!refs) {
      const before = cache?.watch.current();
      refs = (await companySiteRefs(store, { companyId })).map((r) => ({
        id: r.id,
        name: r.name,
        domain: r.domain ?? r.subdomain,
      }));
      // Kept only if no change to sites committed while the read was under way (see ChangeWatch.current).
      if (cache && cache.watch.current() === before) {
        if (cache.byCompany.size >= MAX_CACHED_COMPANIES) cache.byCompany.clear();
        cache.byCompany.set(companyId, refs);
      }
    }
    out.set(companyId, refs);
  }
  return out;
}

// sites_list in one statement (one round trip on PostgreSQL): the page with the total beside each row, a
// scalar subquery evaluated once (measured cheaper on SQLite than a second statement, and than a window
// count). Only a page past the end, which has no row to carry it, pays a second statement for the total.
const sitePage = preparedRead<
  { companyId: number; limit: number; offset: number },
  (SiteViewRow & { total: number })[]
>("sites_page_by_company", (db) =>
  db
    .select({
      ...siteViewColumns,
      total:
        sql<number>`(select count(*) from ${sites} where ${sites.companyId} = ${sql.placeholder("companyId")})`.mapWith(
          Number,
        ),
    })
    .from(sites)
    .where(eq(sites.companyId, sql.placeholder("companyId")))
    .orderBy(asc(sites.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset")),
);
const siteCount = preparedRead<{ companyId: number }, { n: number }[]>("sites_count_by_company", (db) =>
  db
    .select({ n: count() })
    .from(sites)
    .where(eq(sites.companyId, sql.placeholder("companyId"))),
);

/**
 * A new site of a company, for the CLI (no agent tool creates sites:
 * interface.md 5.3 gives sites:write no such verb). Its brand profile
 * starts as a copy of the company's default profile, in the same
 * transaction, so the site is never seen without it.
 */
export async function createSite(
  deps: Deps,
  input: { companyId: number; name: string; description?: string | null },
): Promise<ReturnType<typeof siteView> & { companyId: number; brandFields: string[] }> {
  const name = input.name.trim();
  if (!name || name.length > 200 || /[\u0000-\u001f\u007f]/.test(name))
    throw invalid("A site's name must be 1 to 200 characters on one line.", { path: "name" });
  const description = input.description?.trim() || null;
  if (description && description.length > 2000)
    throw invalid("A site's description must be at most 2000 characters.", { path: "description" });
  return await deps.db.transaction(async (tx) => {
    const company = (
      await tx.select({ id: companies.id }).from(companies).where(eq(companies.id, input.companyId)).limit(1)
    )[0];
    if (!company) throw notFound(`Company ${input.companyId} not found.`);
    const now = deps.clock.now();
    const site = (
      await tx
        .insert(sites)
        .values({ companyId: company.id, name, description, createdAt: now, updatedAt: now })
        .returning()
    )[0]!;
    const brandFields = await startSiteBrand(tx, company.id, site.id, now);
    return { ...siteView(site), companyId: company.id, brandFields };
  });
}

export async function listSites(ctx: ActorContext, input: { limit: number; offset: number }) {
  authorize(ctx, "sites:read", { write: false });
  const { store } = ctx.deps;
  const companyId = ctx.company.id;
  const rows = await sitePage(store, { companyId, limit: input.limit, offset: input.offset });
  const total = rows.length ? rows[0]!.total : ((await siteCount(store, { companyId }))[0]?.n ?? 0);
  return page(rows.map(siteView), total, input.limit, input.offset);
}

export async function getSite(ctx: ActorContext, input: { siteId: number }) {
  authorize(ctx, "sites:read", { write: false });
  const s = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  return {
    ...siteView(s),
    domains: (await db.select().from(siteDomains).where(eq(siteDomains.siteId, s.id)).orderBy(asc(siteDomains.id))).map(
      domainView,
    ),
    counts: await siteContentCounts(db, s.id),
  };
}

// ---------------------------------------------------------------------------
// Domains

type DomainRow = typeof siteDomains.$inferSelect;

function domainView(d: DomainRow) {
  return { id: d.id, hostname: d.hostname, isPrimary: d.isPrimary, verified: d.verified, createdAt: iso(d.createdAt) };
}

const LABEL_RE = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/** A public DNS hostname in canonical form (lower case, IDN as punycode), or a validation error. */
export function canonicalHostname(raw: string): string {
  const trimmed = raw.trim().replace(/\.$/, "");
  let host: string;
  try {
    if (/[/?#@:\s\\]/.test(trimmed)) throw new Error();
    host = new URL(`http://${trimmed}/`).hostname;
  } catch {
    throw invalid(
      `hostname "${raw.slice(0, 100)}" is not a hostname; give just the name, like www.example.com (no scheme, path or port).`,
      { path: "hostname" },
    );
  }
  const labels = host.split(".");
  if (host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL_RE.test(l)) || /^\d+$/.test(labels.at(-1)!))
    throw invalid(
      `hostname "${raw.slice(0, 100)}" must be a public domain name like www.example.com (not an IP address or single label).`,
      { path: "hostname" },
    );
  if (host === "localhost" || host.endsWith(".localhost") || host.endsWith(".local") || host.endsWith(".internal"))
    throw invalid(`hostname "${host}" is reserved for local networks.`, { path: "hostname" });
  return host;
}

async function domainInSite(tx: Tx, siteId: number, id: number): Promise<DomainRow> {
  const d = (
    await tx
      .select()
      .from(siteDomains)
      .where(and(eq(siteDomains.id, id), eq(siteDomains.siteId, siteId)))
      .limit(1)
  )[0];
  if (!d) throw notFound(`Domain ${id} not found on site ${siteId}.`);
  return d;
}

/** Makes `id` the site's only primary domain and mirrors it to sites.domain (served by REST). */
async function setPrimary(tx: Tx, siteId: number, id: number | null, now: Date) {
  await tx.update(siteDomains).set({ isPrimary: false }).where(eq(siteDomains.siteId, siteId));
  let hostname: string | null = null;
  if (id !== null) {
    await tx.update(siteDomains).set({ isPrimary: true }).where(eq(siteDomains.id, id));
    hostname =
      (await tx.select({ h: siteDomains.hostname }).from(siteDomains).where(eq(siteDomains.id, id)).limit(1))[0]?.h ??
      null;
  }
  await tx.update(sites).set({ domain: hostname, updatedAt: now }).where(eq(sites.id, siteId));
  await bumpContentVersion(tx, siteId);
}

export async function listDomains(ctx: ActorContext, input: { siteId: number }) {
  authorize(ctx, "sites:read", { write: false });
  const s = await siteForActor(ctx, input.siteId);
  const rows = await ctx.deps.db
    .select()
    .from(siteDomains)
    .where(eq(siteDomains.siteId, s.id))
    .orderBy(asc(siteDomains.id));
  return { items: rows.map(domainView), total: rows.length };
}

export async function addDomain(ctx: ActorContext, input: { siteId: number; hostname: string; primary?: boolean }) {
  authorize(ctx, "sites:write", { write: true });
  const s = await siteForActor(ctx, input.siteId);
  const hostname = canonicalHostname(input.hostname);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const taken = (
      await tx
        .select({ siteId: siteDomains.siteId })
        .from(siteDomains)
        .where(eq(siteDomains.hostname, hostname))
        .limit(1)
    )[0];
    if (taken)
      throw conflict(
        taken.siteId === s.id
          ? `${hostname} is already a domain of this site.`
          : `${hostname} is already in use by another site.`,
        { path: "hostname" },
      );
    const n =
      (await tx.select({ n: count() }).from(siteDomains).where(eq(siteDomains.siteId, s.id)).limit(1))[0]?.n ?? 0;
    if (n >= MAX_DOMAINS_PER_SITE) throw conflict(`A site can have at most ${MAX_DOMAINS_PER_SITE} domains.`);
    const row = (
      await tx
        .insert(siteDomains)
        .values({ siteId: s.id, hostname, isPrimary: false, verified: false, createdAt: now })
        .returning()
    )[0];
    // The first domain becomes primary: a site with domains always has one.
    const primary = input.primary ?? n === 0;
    if (primary) await setPrimary(tx, s.id, row.id, now);
    await audit(tx, ctx, "site_domains.add", {
      type: "site_domain",
      id: row.id,
      siteId: s.id,
      detail: { hostname, primary },
    });
    return { ...domainView({ ...row, isPrimary: primary }) };
  });
}

export async function updateDomain(ctx: ActorContext, input: { siteId: number; id: number; primary: boolean }) {
  authorize(ctx, "sites:write", { write: true });
  const s = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const d = await domainInSite(tx, s.id, input.id);
    if (input.primary && !d.isPrimary) await setPrimary(tx, s.id, d.id, now);
    if (!input.primary && d.isPrimary) await setPrimary(tx, s.id, null, now);
    await audit(tx, ctx, "site_domains.update", {
      type: "site_domain",
      id: d.id,
      siteId: s.id,
      detail: { primary: input.primary },
    });
    return domainView({ ...d, isPrimary: input.primary });
  });
}

export async function removeDomain(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const s = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const d = await domainInSite(tx, s.id, input.id);
    await tx.delete(siteDomains).where(eq(siteDomains.id, d.id));
    if (d.isPrimary) {
      // Promote the oldest remaining domain, so the site keeps a primary while it has domains.
      const next = (
        await tx
          .select({ id: siteDomains.id })
          .from(siteDomains)
          .where(and(eq(siteDomains.siteId, s.id), ne(siteDomains.id, d.id)))
          .orderBy(asc(siteDomains.id))
          .limit(1)
      )[0];
      await setPrimary(tx, s.id, next?.id ?? null, now);
    }
    await audit(tx, ctx, "site_domains.remove", {
      type: "site_domain",
      id: d.id,
      siteId: s.id,
      detail: { hostname: d.hostname },
    });
    return { id: d.id, hostname: d.hostname, status: "removed" };
  });
}

// ---------------------------------------------------------------------------
// Environment variables

type EnvRow = typeof siteEnvVars.$inferSelect;

export const ENV_KEY_RE = /^[A-Z_][A-Z0-9_]{0,127}$/;

function envView(e: EnvRow) {
  return { key: e.key, value: e.secret ? null : e.value, secret: e.secret, updatedAt: iso(e.updatedAt) };
}

export async function listEnvVars(ctx: ActorContext, input: { siteId: number }) {
  authorize(ctx, "sites:read", { write: false });
  const s = await siteForActor(ctx, input.siteId);
  const rows = await ctx.deps.db
    .select()
    .from(siteEnvVars)
    .where(eq(siteEnvVars.siteId, s.id))
    .orderBy(asc(byText(siteEnvVars.key)));
  return { items: rows.map(envView), total: rows.length };
}

export async function setEnvVar(
  ctx: ActorContext,
  input: { siteId: number; key: string; value: string; secret?: boolean },
) {
  authorize(ctx, "sites:write", { write: true });
  const s = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const cur = (
      await tx
        .select()
        .from(siteEnvVars)
        .where(and(eq(siteEnvVars.siteId, s.id), eq(siteEnvVars.key, input.key)))
        .limit(1)
    )[0];
    // Once secret, always secret: un-marking would reveal the value through the next list.
    const secret = (input.secret ?? cur?.secret ?? false) || (cur?.secret ?? false);
    if (cur) {
      await tx
        .update(siteEnvVars)
        .set({ value: input.value, secret, updatedAt: now })
        .where(eq(siteEnvVars.id, cur.id));
    } else {
      const n =
        (await tx.select({ n: count() }).from(siteEnvVars).where(eq(siteEnvVars.siteId, s.id)).limit(1))[0]?.n ?? 0;
      if (n >= MAX_ENV_VARS_PER_SITE)
        throw conflict(`A site can have at most ${MAX_ENV_VARS_PER_SITE} environment variables.`);
      await tx
        .insert(siteEnvVars)
        .values({ siteId: s.id, key: input.key, value: input.value, secret, createdAt: now, updatedAt: now });
    }
    // The value is never written to the audit log.
    await audit(tx, ctx, "site_env_vars.set", {
      type: "site_env_var",
      siteId: s.id,
      detail: { key: input.key, secret, created: !cur },
    });
    return { key: input.key, secret, status: cur ? "updated" : "created" };
  });
}

export async function deleteEnvVar(ctx: ActorContext, input: { siteId: number; key: string }) {
  authorize(ctx, "sites:write", { write: true });
  const s = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const cur = (
      await tx
        .select()
        .from(siteEnvVars)
        .where(and(eq(siteEnvVars.siteId, s.id), eq(siteEnvVars.key, input.key)))
        .limit(1)
    )[0];
    if (!cur) throw notFound(`Environment variable ${input.key} is not set on site ${s.id}.`);
    await tx.delete(siteEnvVars).where(eq(siteEnvVars.id, cur.id));
    await audit(tx, ctx, "site_env_vars.delete", { type: "site_env_var", siteId: s.id, detail: { key: input.key } });
    return { key: input.key, status: "deleted" };
  });
}
