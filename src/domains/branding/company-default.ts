/**
 * A company's default brand profile (brand_defaults): the brand of a
 * company that has no active site yet, read by brand://default and
 * branding_get_profile without a site, set by branding_update_profile with
 * siteId null; and what a new site's profile starts from. A copy, not a
 * link: changing the default later changes no existing site, as a brand
 * guide handed to a new site would not.
 *
 * Kept apart from profiles.ts so a caller pulls in only the tables: sites
 * imports this file inside its own import graph.
 *
 * @public Serves sites (a new site's profile starts from the company
 * default, in the transaction that creates the site).
 */
import { eq } from "drizzle-orm";
import type { Db } from "../../core/db";
import { brandDefaults, brandProfiles } from "./tables";

type Q = Pick<Db, "select" | "insert">;

/** The company's default profile row, or null when none was ever set. */
export async function companyDefaultRow(q: Pick<Db, "select">, companyId: number) {
  return (await q.select().from(brandDefaults).where(eq(brandDefaults.companyId, companyId)).limit(1))[0] ?? null;
}

/**
 * Gives the new site `siteId` the company's default profile, if it has one
 * with fields set. Call in the transaction that inserts the site. Returns
 * the fields copied (none: the site starts on the built-in defaults).
 */
export async function startSiteBrand(tx: Q, companyId: number, siteId: number, now: Date): Promise<string[]> {
  const row = await companyDefaultRow(tx, companyId);
  const data = row?.data ?? {};
  if (!Object.keys(data).length) return [];
  await tx.insert(brandProfiles).values({ siteId, data, createdAt: now, updatedAt: now });
  return Object.keys(data);
}
