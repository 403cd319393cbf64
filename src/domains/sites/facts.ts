/**
 * @public What other domains may read about sites without reaching into
 * sites' tables: a site's name and host names, whether a site is one of a
 * company's, a company's primary site, and a condition that keeps a query
 * to a company's sites, and the site domains as a subquery to join. Served
 * to cms, decks, chat, branding, hosting and the media lookups of
 * cms/media-facts.ts.
 *
 * Reads only, taking the caller's transaction or database (`q`), so a
 * query stays inside the transaction it was in. Tenancy: functions that
 * take a company id filter by it in the query; those that take only a site
 * id are for callers that hold the id from a row of their own company (an
 * inbox, a deck, a post), as their queries did before they moved here.
 */
import { and, asc, eq, inArray, type SQL, type SQLWrapper } from "drizzle-orm";
import type { Db } from "../../core/db";
import { siteDomains, sites } from "./tables";

type Q = Pick<Db, "select">;

/** The table a read about a site depends on, for a tool's cachedBy (posts_list lists a site's posts). */
export const siteTables = [sites] as const;

/**
 * `column IN (the ids of the company's sites)`: keeps a query over rows
 * that hang from a site (media, domains) to one company, in the same SQL
 * statement (a subquery where the query used to join sites).
 */
export function inCompanySites(siteIdColumn: SQLWrapper, q: Q, companyId: number): SQL {
  return inArray(siteIdColumn, q.select({ id: sites.id }).from(sites).where(eq(sites.companyId, companyId)));
}

/** `column IN (the ids of active sites)`: keeps a query over rows that hang from a site to the sites that are live. */
export function inActiveSites(siteIdColumn: SQLWrapper, q: Q): SQL {
  return inArray(siteIdColumn, q.select({ id: sites.id }).from(sites).where(eq(sites.active, true)));
}

/**
 * Every site domain with what a reader needs of its site (name, company,
 * whether it is active), as a subquery a domain joins its own per-domain
 * rows to in one statement (hosting's check state and incidents). Filter
 * it by `companyId` for a company's domains.
 */
export function siteDomainRows(q: Q) {
  return q
    .select({
      id: siteDomains.id,
      hostname: siteDomains.hostname,
      siteId: siteDomains.siteId,
      isPrimary: siteDomains.isPrimary,
      siteName: sites.name,
      siteActive: sites.active,
      companyId: sites.companyId,
    })
    .from(siteDomains)
    .innerJoin(sites, eq(sites.id, siteDomains.siteId))
    .as("site_domain_rows");
}

/** The site `siteId` when it belongs to `companyId`, else null (another company's site answers like a missing one). */
export async function siteOfCompany(
  q: Q,
  companyId: number,
  siteId: number,
): Promise<{ id: number; name: string } | null> {
  return (
    (
      await q
        .select({ id: sites.id, name: sites.name })
        .from(sites)
        .where(and(eq(sites.id, siteId), eq(sites.companyId, companyId)))
        .limit(1)
    )[0] ?? null
  );
}

/** A site's name, or null when there is no such site. */
/** The company a site belongs to (for a job holding a site id from a row of its own), or null. */
export async function companyOfSite(q: Q, siteId: number): Promise<number | null> {
  return (await q.select({ c: sites.companyId }).from(sites).where(eq(sites.id, siteId)).limit(1))[0]?.c ?? null;
}

export async function siteName(q: Q, siteId: number): Promise<string | null> {
  return (await q.select({ name: sites.name }).from(sites).where(eq(sites.id, siteId)).limit(1))[0]?.name ?? null;
}

/** The company's primary site: its first active site (lowest id), or null when it has none. */
export async function primarySiteId(q: Q, companyId: number): Promise<number | null> {
  return (
    (
      await q
        .select({ id: sites.id })
        .from(sites)
        .where(and(eq(sites.companyId, companyId), eq(sites.active, true)))
        .orderBy(asc(sites.id))
        .limit(1)
    )[0]?.id ?? null
  );
}

/** The host names a site answers on: its domains' host names, then its own domain field when set. */
export async function siteHostnames(q: Q, siteId: number): Promise<string[]> {
  const site = (await q.select({ domain: sites.domain }).from(sites).where(eq(sites.id, siteId)).limit(1))[0];
  const hosts = (
    await q.select({ h: siteDomains.hostname }).from(siteDomains).where(eq(siteDomains.siteId, siteId))
  ).map((r) => r.h);
  if (site?.domain) hosts.push(site.domain);
  return hosts;
}
