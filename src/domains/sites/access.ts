/**
 * Tenancy for everything site-scoped, decided here: a site is reachable by
 * an actor only when it belongs to the company the call acts for. A site of
 * another company answers exactly like a site that does not exist.
 *
 * Every site-scoped tool call starts here, so the rows are kept in memory
 * until the sites table changes (src/core/changes.ts, on every instance), as
 * REST keeps its site state (src/rest/hot-lookups.ts): a site row holds
 * nothing that expires with time. Inside a transaction the row is read from
 * that transaction and never cached.
 *
 * @public Serves every site-scoped domain (cms, store, branding, decks, chat,
 * hosting, surveys).
 */
import { eq, sql } from "drizzle-orm";
import type { ChangeWatch } from "../../core/changes";
import type { ActorContext } from "../../core/context";
import { notFound } from "../../core/errors";
import { preparedRead } from "../../core/prepared";
import { sites } from "./tables";

export type SiteRow = typeof sites.$inferSelect;

const siteById = preparedRead<{ siteId: number }, SiteRow[]>("site_by_id", (db) =>
  db
    .select()
    .from(sites)
    .where(eq(sites.id, sql.placeholder("siteId"))),
);

/** Bounds memory against many distinct site ids; a full cache simply starts over. Only existing sites are kept. */
const MAX_CACHED_SITES = 10_000;
const caches = new WeakMap<object, { watch: ChangeWatch; byId: Map<number, Readonly<SiteRow>> }>();

async function siteRow(ctx: ActorContext, siteId: number): Promise<SiteRow | undefined> {
  const { store } = ctx.deps;
  if (store.inTransaction()) return (await siteById(store, { siteId }))[0];
  let c = caches.get(store);
  if (!c) caches.set(store, (c = { watch: store.changes.watch(["sites"]), byId: new Map() }));
  if (c.watch.changed()) c.byId.clear();
  const hit = c.byId.get(siteId);
  if (hit) return hit;
  const before = c.watch.current();
  const row = (await siteById(store, { siteId }))[0];
  if (row && c.watch.current() === before) {
    if (c.byId.size >= MAX_CACHED_SITES) c.byId.clear();
    c.byId.set(siteId, Object.freeze(row));
  }
  return row;
}

export async function siteForActor(ctx: ActorContext, siteId: number): Promise<SiteRow> {
  const site = await siteRow(ctx, siteId);
  if (!site || site.companyId !== ctx.company.id) throw notFound(`Site ${siteId} not found in ${ctx.company.name}.`);
  return site;
}
