/**
 * Site navigation as a tree of items (REST getNavigation serves it nested).
 *
 * Order among siblings is `sortOrder`, kept dense (0, 1, 2 …) by every write,
 * so "position" in the tools is simply an index. A site holds at most
 * MAX_NAV_ITEMS items, nested at most MAX_NAV_DEPTH levels (a mega menu's
 * columns and links); moving an item under its own descendant is refused.
 */
import { buildNavTree, type NavigationItem } from "./nav-tree";
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { bumpContentVersion } from "../sites/content-version";
import { conflict, invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { siteForActor } from "../sites/access";
import { checkUrl } from "./common";
import { navItems } from "./tables";
import { mapSeq } from "../../core/maybe";
import { uniqueIds, write } from "../../core/fields";
import type { Tx } from "../../core/db";

export const MAX_NAV_ITEMS = 500;
export const MAX_NAV_DEPTH = 3;

type NavRow = typeof navItems.$inferSelect;

export interface NavFields {
  label?: string;
  href?: string;
  openInNewTab?: boolean;
  isButton?: boolean;
  description?: string | null;
  icon?: string | null;
  featuredImage?: string | null;
  columnGroup?: number | null;
}

export type NavItemView = NavigationItem;

async function allItems(tx: Tx, siteId: number): Promise<NavRow[]> {
  return await tx
    .select()
    .from(navItems)
    .where(eq(navItems.siteId, siteId))
    .orderBy(asc(navItems.sortOrder), asc(navItems.id));
}

/** The items as a tree, siblings by sortOrder; an item whose parent is gone is shown at the root. */
export function navTree(rows: NavRow[]): NavItemView[] {
  return buildNavTree(rows, "root");
}

function depthOf(rows: Map<number, NavRow>, id: number | null): number {
  let d = 0;
  for (let cur = id; cur !== null && d <= MAX_NAV_DEPTH + 1; d++) cur = rows.get(cur)?.parentId ?? null;
  return d;
}

function subtreeIds(rows: NavRow[], id: number): number[] {
  const out = [id];
  for (let i = 0; i < out.length; i++) for (const r of rows) if (r.parentId === out[i]) out.push(r.id);
  return out;
}

function heightOf(rows: NavRow[], id: number): number {
  const kids = rows.filter((r) => r.parentId === id);
  return 1 + (kids.length ? Math.max(...kids.map((k) => heightOf(rows, k.id))) : 0);
}

async function siblings(tx: Tx, siteId: number, parentId: number | null) {
  return (
    await tx
      .select({ id: navItems.id })
      .from(navItems)
      .where(
        and(
          eq(navItems.siteId, siteId),
          parentId === null ? isNull(navItems.parentId) : eq(navItems.parentId, parentId),
        ),
      )
      .orderBy(asc(navItems.sortOrder), asc(navItems.id))
  ).map((r) => r.id);
}

async function renumber(tx: Tx, ids: number[], parentId: number | null, now: Date) {
  await mapSeq(
    ids,
    async (id, i) =>
      await tx.update(navItems).set({ sortOrder: i, parentId, updatedAt: now }).where(eq(navItems.id, id)),
  );
}

async function itemInSite(tx: Tx, siteId: number, id: number, field = "id"): Promise<NavRow> {
  const r = (
    await tx
      .select()
      .from(navItems)
      .where(and(eq(navItems.id, id), eq(navItems.siteId, siteId)))
      .limit(1)
  )[0];
  if (!r) throw notFound(`${field}: navigation item ${id} not found on site ${siteId}.`);
  return r;
}

function checkFields(f: NavFields) {
  checkUrl("href", f.href);
  checkUrl("featuredImage", f.featuredImage);
}

function placeAt(list: number[], id: number, position: number | undefined): number[] {
  const out = list.filter((x) => x !== id);
  const at = position === undefined ? out.length : Math.min(position, out.length);
  out.splice(at, 0, id);
  return out;
}

export async function listNav(ctx: ActorContext, input: { siteId: number }) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const rows = await allItems(ctx.deps.db, site.id);
  return { items: navTree(rows), total: rows.length };
}

export async function createNavItem(
  ctx: ActorContext,
  input: NavFields & { siteId: number; label: string; href: string; parentId?: number | null; position?: number },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  checkFields(input);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const rows = await allItems(tx, site.id);
    if (rows.length >= MAX_NAV_ITEMS)
      throw conflict(`This site already has ${MAX_NAV_ITEMS} navigation items, the most allowed.`);
    const parentId = input.parentId ?? null;
    if (parentId !== null) {
      await itemInSite(tx, site.id, parentId, "parentId");
      if (depthOf(new Map(rows.map((r) => [r.id, r])), parentId) + 1 > MAX_NAV_DEPTH)
        throw invalid(
          `Navigation is at most ${MAX_NAV_DEPTH} levels deep; item ${parentId} is already at the deepest level.`,
          { path: "parentId" },
        );
    }
    const row = (
      await tx
        .insert(navItems)
        .values({
          siteId: site.id,
          parentId,
          label: input.label,
          href: input.href,
          openInNewTab: input.openInNewTab ?? false,
          isButton: input.isButton ?? false,
          description: input.description ?? null,
          icon: input.icon ?? null,
          featuredImage: input.featuredImage ?? null,
          columnGroup: input.columnGroup ?? null,
          sortOrder: 0,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    const order = placeAt(await siblings(tx, site.id, parentId), row.id, input.position);
    await renumber(tx, order, parentId, now);
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "nav_items.create", { type: "nav_item", id: row.id, siteId: site.id });
    return { id: row.id, label: row.label, parentId, sortOrder: order.indexOf(row.id) };
  });
}

export async function updateNavItem(ctx: ActorContext, input: NavFields & { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  checkFields(input);
  return write(ctx, async (tx) => {
    const cur = await itemInSite(tx, site.id, input.id);
    const set: Partial<NavRow> = {};
    for (const k of [
      "label",
      "href",
      "openInNewTab",
      "isButton",
      "description",
      "icon",
      "featuredImage",
      "columnGroup",
    ] as const)
      if (input[k] !== undefined) (set as Record<string, unknown>)[k] = input[k];
    if (Object.keys(set).length) {
      await tx
        .update(navItems)
        .set({ ...set, updatedAt: ctx.deps.clock.now() })
        .where(eq(navItems.id, cur.id));
      await bumpContentVersion(tx, site.id);
    }
    await audit(tx, ctx, "nav_items.update", {
      type: "nav_item",
      id: cur.id,
      siteId: site.id,
      detail: { fields: Object.keys(set) },
    });
    return { id: cur.id, label: set.label ?? cur.label, parentId: cur.parentId, sortOrder: cur.sortOrder };
  });
}

export async function moveNavItem(
  ctx: ActorContext,
  input: { siteId: number; id: number; parentId: number | null; position?: number },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const rows = await allItems(tx, site.id);
    const cur = await itemInSite(tx, site.id, input.id);
    const parentId = input.parentId;
    if (parentId !== null) {
      await itemInSite(tx, site.id, parentId, "parentId");
      if (subtreeIds(rows, cur.id).includes(parentId))
        throw invalid(
          `Cannot move item ${cur.id} under ${parentId === cur.id ? "itself" : `its own descendant ${parentId}`}.`,
          { path: "parentId" },
        );
      const byId = new Map(rows.map((r) => [r.id, r]));
      if (depthOf(byId, parentId) + heightOf(rows, cur.id) > MAX_NAV_DEPTH)
        throw invalid(
          `Navigation is at most ${MAX_NAV_DEPTH} levels deep; moving item ${cur.id} (with its children) under ${parentId} would exceed it.`,
          { path: "parentId" },
        );
    }
    if (cur.parentId !== parentId)
      await renumber(
        tx,
        (await siblings(tx, site.id, cur.parentId)).filter((x) => x !== cur.id),
        cur.parentId,
        now,
      );
    const order = placeAt(await siblings(tx, site.id, parentId), cur.id, input.position);
    await renumber(tx, order, parentId, now);
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "nav_items.move", {
      type: "nav_item",
      id: cur.id,
      siteId: site.id,
      detail: { from: cur.parentId, to: parentId },
    });
    return { id: cur.id, label: cur.label, parentId, sortOrder: order.indexOf(cur.id) };
  });
}

export async function reorderNav(ctx: ActorContext, input: { siteId: number; parentId: number | null; ids: number[] }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const ids = uniqueIds("ids", input.ids);
  return write(ctx, async (tx) => {
    if (input.parentId !== null) await itemInSite(tx, site.id, input.parentId, "parentId");
    const current = await siblings(tx, site.id, input.parentId);
    const missing = current.filter((id) => !ids.includes(id));
    const foreign = ids.filter((id) => !current.includes(id));
    if (missing.length || foreign.length)
      throw invalid(
        `ids must list exactly the children of ${input.parentId === null ? "the root" : `item ${input.parentId}`} (${current.join(", ") || "none"}).` +
          (missing.length ? ` Missing: ${missing.join(", ")}.` : "") +
          (foreign.length ? ` Not children there: ${foreign.join(", ")}.` : ""),
        { path: "ids" },
      );
    await renumber(tx, ids, input.parentId, ctx.deps.clock.now());
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "nav_items.reorder", {
      type: "nav_item",
      id: input.parentId,
      siteId: site.id,
      detail: { ids },
    });
    return { parentId: input.parentId, ids };
  });
}

export async function deleteNavItem(ctx: ActorContext, input: { siteId: number; id: number; withChildren?: boolean }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const rows = await allItems(tx, site.id);
    const cur = await itemInSite(tx, site.id, input.id);
    const ids = subtreeIds(rows, cur.id);
    if (ids.length > 1 && !input.withChildren) {
      const kids = rows.filter((r) => r.parentId === cur.id);
      throw conflict(
        `Navigation item ${cur.id} ("${cur.label}") has ${kids.length} child item(s): ${kids
          .slice(0, 5)
          .map((k) => `${k.id} ("${k.label}")`)
          .join(", ")}. Move them first, or pass withChildren: true to delete them too.`,
      );
    }
    await tx.delete(navItems).where(inArray(navItems.id, ids));
    await renumber(tx, await siblings(tx, site.id, cur.parentId), cur.parentId, ctx.deps.clock.now());
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "nav_items.delete", {
      type: "nav_item",
      id: cur.id,
      siteId: site.id,
      detail: { deleted: ids },
    });
    return { id: cur.id, status: "deleted", deletedIds: ids };
  });
}
