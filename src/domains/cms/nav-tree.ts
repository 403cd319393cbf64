/**
 * Navigation rows → the nested NavigationItem tree of interface.md 2.6. One
 * builder for both readers: REST getNavigation drops items whose parent is
 * missing (a half-deleted submenu never surfaces at the top level), while the
 * nav_items_list tool lifts them to the root so an editor can still see and
 * fix them.
 *
 * @public Serves sites (the navigation of the public site config).
 */
import { asc, eq } from "drizzle-orm";
import type { Db } from "../../core/db";
import { navItems } from "./tables";

type NavRow = typeof navItems.$inferSelect;

export interface NavigationItem {
  id: number;
  label: string;
  href: string;
  sortOrder: number;
  openInNewTab: boolean;
  isButton: boolean;
  parentId: number | null;
  description: string | null;
  icon: string | null;
  featuredImage: string | null;
  columnGroup: number | null;
  children: NavigationItem[];
}

/** A site's navigation rows, siblings in order (sortOrder, then id): what buildNavTree takes. */
export async function navRowsOfSite(q: Pick<Db, "select">, siteId: number): Promise<NavRow[]> {
  return await q
    .select()
    .from(navItems)
    .where(eq(navItems.siteId, siteId))
    .orderBy(asc(navItems.sortOrder), asc(navItems.id));
}

/** `rows` must be sorted by sortOrder then id; every sibling list keeps that order. */
export function buildNavTree(rows: NavRow[], orphans: "drop" | "root"): NavigationItem[] {
  const items = new Map<number, NavigationItem>();
  for (const r of rows)
    items.set(r.id, {
      id: r.id,
      label: r.label,
      href: r.href,
      sortOrder: r.sortOrder,
      openInNewTab: r.openInNewTab,
      isButton: r.isButton,
      parentId: r.parentId ?? null,
      description: r.description ?? null,
      icon: r.icon ?? null,
      featuredImage: r.featuredImage ?? null,
      columnGroup: r.columnGroup ?? null,
      children: [],
    });
  const roots: NavigationItem[] = [];
  for (const r of rows) {
    const item = items.get(r.id)!;
    if (r.parentId === null) roots.push(item);
    else {
      const parent = items.get(r.parentId);
      if (parent) parent.children.push(item);
      else if (orphans === "root") roots.push(item);
    }
  }
  return roots;
}
