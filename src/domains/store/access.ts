/**
 * The first lines of every store verb: scope and role (authorize), tenancy
 * (siteForActor), and for writes one transaction that also bumps the site's
 * content version, so REST ETags change with every catalog change.
 */
import type { ActorContext } from "../../core/context";
import { bumpContentVersion } from "../sites/content-version";
import type { Db, Tx } from "../../core/db";
import { invalid } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { siteForActor, type SiteRow } from "../sites/access";
import { urlProblem } from "../blocks/urls";

/** The database or a transaction (the core's Tx); verbs' helpers accept either. */
export type Q = Db | Tx;

export async function storeRead(ctx: ActorContext, siteId: number): Promise<SiteRow> {
  authorize(ctx, "store:read", { write: false });
  return await siteForActor(ctx, siteId);
}

export async function storeWrite(ctx: ActorContext, siteId: number): Promise<SiteRow> {
  authorize(ctx, "store:write", { write: true });
  return await siteForActor(ctx, siteId);
}

/** Runs `fn` in one transaction and bumps the site's content version in it. */
export async function mutate<T>(ctx: ActorContext, siteId: number, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return ctx.deps.db.transaction(async (tx) => {
    const out = await fn(tx);
    await bumpContentVersion(tx, siteId);
    return out;
  });
}

/** Image and category URLs: absolute http(s) or a site-relative path (no other schemes). */
export function checkImageUrl(url: string, field: string): string {
  const problem = urlProblem(url);
  if (problem) throw invalid(`${field} ${problem}.`);
  if (!/^https?:\/\//i.test(url) && !url.startsWith("/"))
    throw invalid(`${field} must be an absolute http(s) URL or a path starting with /.`);
  return url;
}

/** Text columns are trimmed; an empty optional text becomes null. */
export function clean(s: string | null | undefined): string | null | undefined {
  if (s === undefined || s === null) return s;
  const t = s.trim();
  return t === "" ? null : t;
}
