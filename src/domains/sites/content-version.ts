/**
 * Per-site content version. Every write that changes what the REST API
 * serves for a site calls bumpContentVersion inside its transaction; REST
 * ETags are derived from (siteId, contentVersion, request), so a 304 is
 * decided from one indexed row without re-running the content query.
 *
 * It lives with the sites table it bumps; every domain whose writes show
 * on a site (cms, store, branding) calls it.
 *
 * A site also carries the next instant at which scheduled content goes
 * live or comes down (nextScheduledAt): until then REST may reuse what it
 * cached, from then on it may not (cms/schedule.ts sets it).
 *
 * @public Serves every domain whose writes show on a site (cms, store,
 * branding).
 */
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../core/db";
import { sites } from "./tables";

export async function bumpContentVersion(tx: Pick<Db, "update">, siteId: number) {
  await tx
    .update(sites)
    .set({ contentVersion: sql`${sites.contentVersion} + 1` })
    .where(eq(sites.id, siteId));
}

/** The next instant scheduled content of the site changes (null: none); REST's cache and ETags are bounded by it. */
export async function setNextScheduledAt(tx: Pick<Db, "update">, siteId: number, next: Date | null) {
  await tx.update(sites).set({ nextScheduledAt: next }).where(eq(sites.id, siteId));
}
