/**
 * Tenancy for everything site-scoped, decided here: a site is reachable by
 * an actor only when it belongs to the company the call acts for. A site of
 * another company answers exactly like a site that does not exist.
 */
import { and, eq } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import { notFound } from "../../core/errors";
import { sites } from "./tables";

export type SiteRow = typeof sites.$inferSelect;

export async function siteForActor(ctx: ActorContext, siteId: number): Promise<SiteRow> {
  const site = (await ctx.deps.db
      .select()
      .from(sites)
      .where(and(eq(sites.id, siteId), eq(sites.companyId, ctx.company.id))).limit(1))[0];
  if (!site) throw notFound(`Site ${siteId} not found in ${ctx.company.name}.`);
  return site;
}
