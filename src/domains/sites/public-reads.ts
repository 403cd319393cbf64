/**
 * Public reads of a site: whether it is served at all (and at which content
 * version), its configuration bundle and its navigation tree. Used by REST
 * v1; callers decide visibility from `publicSiteState` first.
 */
import { buildNavTree, type NavigationItem } from "../cms/nav-tree";
import { asc, eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { cssVarsFor, type CssVars } from "../branding/css-vars";
import { getPublicBranding, type Branding } from "../branding/public-reads";
import { navItems } from "../cms/tables";
import { sites } from "./tables";

export interface PublicSiteState {
  id: number;
  /** Inactive sites are served as if they did not exist. */
  active: boolean;
  contentVersion: number;
  /** A store row exists and is enabled. */
  storeEnabled: boolean;
}

type StateRow = { id: number; active: number; content_version: number; store_enabled: number };
const stateStatements = new WeakMap<object, ReturnType<typeof prepareState>>();
function prepareState(deps: Deps) {
  return deps.store.sqlite.prepare<StateRow, [number]>(
    // A scalar subquery, not a LEFT JOIN: SQLite plans the join several times slower here.
    `SELECT id, active, content_version, coalesce((SELECT enabled FROM stores WHERE site_id = sites.id), 0) AS store_enabled
       FROM sites WHERE id = ?`,
  );
}

/**
 * One indexed lookup answering everything REST needs before deciding a
 * response: existence, activity, content version (for the ETag) and store
 * status. Prepared once; REST caches its answers (src/rest/hot-lookups.ts).
 */
export function publicSiteState(deps: Deps, siteId: number): PublicSiteState | null {
  let stmt = stateStatements.get(deps.store.sqlite);
  if (!stmt) {
    stmt = prepareState(deps);
    stateStatements.set(deps.store.sqlite, stmt);
  }
  const r = stmt.get(siteId);
  if (!r) return null;
  return { id: r.id, active: r.active === 1, contentVersion: r.content_version, storeEnabled: r.store_enabled === 1 };
}

export type { NavigationItem };

/**
 * The site's navigation as a tree of roots (parentId null), siblings sorted
 * by sortOrder then id. Items whose parent does not exist (or that sit in a
 * parent cycle) are unreachable from a root and are left out rather than
 * promoted, so a half-deleted submenu never surfaces at the top level.
 */
export function getNavigationTree(deps: Deps, siteId: number): NavigationItem[] {
  const rows = deps.db
    .select()
    .from(navItems)
    .where(eq(navItems.siteId, siteId))
    .orderBy(asc(navItems.sortOrder), asc(navItems.id))
    .all();
  return buildNavTree(rows, "drop");
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
export function getSiteConfig(deps: Deps, state: PublicSiteState): SiteConfig {
  const site = deps.db
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
    .get()!;
  const branding = getPublicBranding(deps, state.id);
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
    navigation: getNavigationTree(deps, state.id),
  };
}
