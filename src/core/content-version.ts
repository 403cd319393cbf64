/**
 * Per-site content version. Every write that changes what the REST API
 * serves for a site calls bumpContentVersion inside its transaction; REST
 * ETags are derived from (siteId, contentVersion, request), so a 304 is
 * decided from one indexed row without re-running the content query.
 */
import { eq, sql } from "drizzle-orm";
import { sites } from "../domains/sites/tables";
import type { Db } from "./db";

export async function bumpContentVersion(tx: Pick<Db, "update">, siteId: number) {
  await tx.update(sites)
            .set({ contentVersion: sql`${sites.contentVersion} + 1` })
            .where(eq(sites.id, siteId));
}
