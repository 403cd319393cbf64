/**
 * Public reads of a site: whether it is served at all (and at which content
 * version), its configuration bundle and its navigation tree. Used by REST
 * v1; callers decide visibility from `publicSiteState` first.
 */
import { buildNavTree, navRowsOfSite, type NavigationItem } from "../cms/nav-tree";
import { eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { MaybePromise } from "../../core/maybe";
import { cssVarsFor, type CssVars } from "../branding/css-vars";
import { getPublicBranding, type Branding } from "../branding/public-reads";
import { sites } from "./tables";

export interface PublicSiteState {
  id: number;
  /** Inactive sites are served as if they did not exist. */
  active: boolean;
  contentVersion: number;
  /** A store row exists and is enabled. */
  storeEnabled: boolean;
  /** Epoch ms of the next scheduled post instant (cms/schedule.ts), or null: REST bodies are not reused past it. */
  nextScheduledAt: number | null;
}

type StateRow = {
  id: number;
  active: number | boolean;
  content_version: number;
  store_enabled: number | boolean;
  next_scheduled_at: number | string | Date | null;
};
const stateStatements = new WeakMap<object, (siteId: number) => MaybePromise<StateRow | undefined>>();

/**
 * The state lookup for this store, prepared once: a synchronous bun:sqlite
 * statement on SQLite (REST answers without a promise), a prepared
 * postgres.js query on PostgreSQL. A scalar subquery, not a LEFT JOIN:
 * SQLite plans the join several times slower here.
 */
function stateLookup(deps: Deps) {
  const { store } = deps;
  let lookup = stateStatements.get(store);
  if (lookup) return lookup;
  if (store.sqlite) {
    const stmt = store.sqlite.prepare<StateRow, [number]>(
      `SELECT id, active, content_version, next_scheduled_at, coalesce((SELECT enabled FROM stores WHERE site_id = sites.id), 0) AS store_enabled
         FROM sites WHERE id = ?`,
    );
    lookup = (siteId) => stmt.get(siteId) ?? undefined;
  } else {
    const pg = store.pg!;
    lookup = async (siteId) =>
      (
        await pg<StateRow[]>`SELECT id, active, content_version, next_scheduled_at,
            coalesce((SELECT enabled FROM stores WHERE site_id = sites.id), false) AS store_enabled
          FROM sites WHERE id = ${siteId}`
      )[0];
  }
  stateStatements.set(store, lookup);
  return lookup;
}

function toState(r: StateRow | undefined): PublicSiteState | null {
  if (!r) return null;
  return {
    id: r.id,
    active: r.active === 1 || r.active === true,
    contentVersion: r.content_version,
    storeEnabled: r.store_enabled === 1 || r.store_enabled === true,
    nextScheduledAt: r.next_scheduled_at == null ? null : new Date(r.next_scheduled_at).getTime(),
  };
}

/**
 * One indexed lookup answering everything REST needs before deciding a
 * response: existence, activity, content version (for the ETag) and store
 * status. REST caches its answers (src/rest/hot-lookups.ts).
 */
export function publicSiteState(deps: Deps, siteId: number): MaybePromise<PublicSiteState | null> {
  const r = stateLookup(deps)(siteId);
  return r instanceof Promise ? r.then(toState) : toState(r);
}

export type { NavigationItem };

/**
 * The site's navigation as a tree of roots (parentId null), siblings sorted
 * by sortOrder then id. Items whose parent does not exist (or that sit in a
 * parent cycle) are unreachable from a root and are left out rather than
 * promoted, so a half-deleted submenu never surfaces at the top level.
 */
export async function getNavigationTree(deps: Deps, siteId: number): Promise<NavigationItem[]> {
  return buildNavTree(await navRowsOfSite(deps.db, siteId), "drop");
}

export interface SiteConfig {
  id: number;
  storeEnabled: boolean;
  name: string;
  domain: string | null;
  subdomain: string | null;
  description: string | null;
  customLayout: unknown;
  branding: Branding;
  cssVars: CssVars;
  navigation: NavigationItem[];
}

/** The combined configuration bundle of a site the caller has checked is public. */
export async function getSiteConfig(deps: Deps, state: PublicSiteState): Promise<SiteConfig> {
  const site = (
    await deps.db
      .select({
        id: sites.id,
        name: sites.name,
        domain: sites.domain,
        subdomain: sites.subdomain,
        description: sites.description,
        customLayout: sites.customLayout,
      })
      .from(sites)
      .where(eq(sites.id, state.id))
      .limit(1)
  )[0]!;
  const branding = await getPublicBranding(deps, state.id);
  return {
    id: site.id,
    storeEnabled: state.storeEnabled,
    name: site.name,
    domain: site.domain ?? null,
    subdomain: site.subdomain ?? null,
    description: site.description ?? null,
    customLayout: site.customLayout ?? null,
    branding,
    cssVars: cssVarsFor(branding),
    navigation: await getNavigationTree(deps, state.id),
  };
}
