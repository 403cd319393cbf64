/**
 * Product categories: a tree per site. Invariants kept here:
 *  - no cycles (a category never moves under itself or a descendant);
 *  - at most MAX_CATEGORY_DEPTH levels;
 *  - an active category has only active ancestors, so the REST list (active
 *    categories only) never holds a child whose parent it hides. Deactivating
 *    a category therefore deactivates its subtree; activating one under an
 *    inactive parent, or moving an active one there, is refused.
 * Sibling order is a dense 0..n-1 `order`, rewritten on move and reorder.
 */
import { and, asc, eq, inArray, isNull, ne, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { slugify, slugNote, uniqueSlug } from "../../core/slug";
import { checkImageUrl, clean, mutate, storeRead, storeWrite, type Q } from "./access";
import type {
  categoryCreateInput,
  categoryListInput,
  categoryMoveInput,
  categoryRef,
  categoryReorderInput,
  categoryUpdateInput,
} from "./schemas";
import { productCategories, products } from "./tables";
import { mapSeq } from "../../core/maybe";
import { byText } from "../../core/sql";
import type { Tx } from "../../core/db";

export const MAX_CATEGORY_DEPTH = 6;
/** Categories per site: the list tool returns the whole tree in one answer. */
export const MAX_CATEGORIES = 1000;

type CategoryRow = typeof productCategories.$inferSelect;

/** Pure tree checks, over a list of { id, parentId }. */
export function descendantsOf(all: readonly { id: number; parentId: number | null }[], id: number): number[] {
  const out: number[] = [];
  const stack = [id];
  while (stack.length) {
    const cur = stack.pop()!;
    for (const c of all) if (c.parentId === cur && !out.includes(c.id)) out.push(c.id), stack.push(c.id);
  }
  return out;
}

/** Levels from the root down to and including `id` (a root category has depth 1). */
export function depthOf(all: readonly { id: number; parentId: number | null }[], id: number | null): number {
  let d = 0;
  const seen = new Set<number>();
  for (let cur = id; cur !== null; ) {
    if (seen.has(cur)) throw new Error("category cycle in storage"); // guarded by moveCategory; never expected
    seen.add(cur);
    d++;
    cur = all.find((c) => c.id === cur)?.parentId ?? null;
  }
  return d;
}

/** Why `id` may not move under `newParentId`, or null when it may. */
export function moveProblem(
  all: readonly { id: number; parentId: number | null }[],
  id: number,
  newParentId: number | null,
): string | null {
  if (newParentId === null) return null;
  if (newParentId === id) return "a category cannot be its own parent";
  if (descendantsOf(all, id).includes(newParentId))
    return `category ${newParentId} is inside category ${id}; moving it there would make a cycle`;
  const height = 1 + Math.max(0, ...descendantsOf(all, id).map((d) => depthOf(all, d) - depthOf(all, id)));
  if (depthOf(all, newParentId) + height > MAX_CATEGORY_DEPTH)
    return `the tree may be at most ${MAX_CATEGORY_DEPTH} levels deep`;
  return null;
}

async function allOf(q: Q, siteId: number) {
  return await q
    .select()
    .from(productCategories)
    .where(eq(productCategories.siteId, siteId))
    .orderBy(asc(productCategories.order), asc(byText(productCategories.name)));
}

async function categoryInSite(q: Q, siteId: number, id: number): Promise<CategoryRow> {
  const c = (
    await q
      .select()
      .from(productCategories)
      .where(and(eq(productCategories.id, id), eq(productCategories.siteId, siteId)))
      .limit(1)
  )[0];
  if (!c) throw notFound(`Product category ${id} not found on site ${siteId}.`);
  return c;
}

async function parentInSite(q: Q, siteId: number, parentId: number | null | undefined): Promise<CategoryRow | null> {
  if (parentId === null || parentId === undefined) return null;
  const p = (
    await q
      .select()
      .from(productCategories)
      .where(and(eq(productCategories.id, parentId), eq(productCategories.siteId, siteId)))
      .limit(1)
  )[0];
  if (!p) throw invalid(`Parent category ${parentId} does not exist on this site.`);
  return p;
}

async function siblings(q: Q, siteId: number, parentId: number | null, exceptId?: number) {
  return await q
    .select()
    .from(productCategories)
    .where(
      and(
        eq(productCategories.siteId, siteId),
        parentId === null ? isNull(productCategories.parentId) : eq(productCategories.parentId, parentId),
        exceptId ? ne(productCategories.id, exceptId) : undefined,
      ),
    )
    .orderBy(asc(productCategories.order), asc(byText(productCategories.name)), asc(productCategories.id));
}

async function renumber(tx: Tx, ids: number[], now: Date) {
  await mapSeq(
    ids,
    async (id, i) =>
      await tx.update(productCategories).set({ order: i, updatedAt: now }).where(eq(productCategories.id, id)),
  );
}

async function slugOwner(q: Q, siteId: number, slug: string, exceptId?: number) {
  return (
    (
      await q
        .select({ id: productCategories.id })
        .from(productCategories)
        .where(
          and(
            eq(productCategories.siteId, siteId),
            eq(productCategories.slug, slug),
            exceptId ? ne(productCategories.id, exceptId) : undefined,
          ),
        )
        .limit(1)
    )[0]?.id ?? null
  );
}

const compact = (c: CategoryRow) => ({
  id: c.id,
  slug: c.slug,
  status: c.active ? "active" : "inactive",
  parentId: c.parentId,
  order: c.order,
});

export async function createCategory(ctx: ActorContext, input: v.InferOutput<typeof categoryCreateInput>) {
  await storeWrite(ctx, input.siteId);
  if (input.image) checkImageUrl(input.image, "image");
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const count = (
      await tx
        .select({ n: sql<number>`count(*)` })
        .from(productCategories)
        .where(eq(productCategories.siteId, input.siteId))
        .limit(1)
    )[0]!.n;
    if (count >= MAX_CATEGORIES) throw conflict(`A site has at most ${MAX_CATEGORIES} product categories.`);
    const parent = await parentInSite(tx, input.siteId, input.parentId);
    if (parent && depthOf(await allOf(tx, input.siteId), parent.id) + 1 > MAX_CATEGORY_DEPTH)
      throw invalid(`The category tree may be at most ${MAX_CATEGORY_DEPTH} levels deep.`);
    if (parent && !parent.active && input.active)
      throw conflict(
        `Parent category ${parent.id} is inactive; create this one with active: false or activate the parent first.`,
      );
    let slug: string;
    let note = {};
    if (input.slug) {
      const owner = await slugOwner(tx, input.siteId, input.slug);
      if (owner) throw conflict(`The slug "${input.slug}" is already used by product category ${owner} on this site.`);
      slug = input.slug;
    } else {
      const base = slugify(input.name, "category");
      slug = await uniqueSlug(base, async (s) => (await slugOwner(tx, input.siteId, s)) !== null);
      note = slugNote(base, slug, "product category");
    }
    const sibs = await siblings(tx, input.siteId, parent?.id ?? null);
    const row = (
      await tx
        .insert(productCategories)
        .values({
          siteId: input.siteId,
          parentId: parent?.id ?? null,
          name: input.name.trim(),
          slug,
          description: clean(input.description) ?? null,
          image: input.image ?? null,
          order: sibs.length,
          active: input.active,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    if (input.order !== undefined && input.order < sibs.length) {
      const ids = sibs.map((s) => s.id);
      ids.splice(input.order, 0, row.id);
      await renumber(tx, ids, now);
    }
    await audit(tx, ctx, "product_categories.create", {
      type: "product_category",
      id: row.id,
      siteId: input.siteId,
      detail: { slug },
    });
    return { ...compact(await categoryInSite(tx, input.siteId, row.id)), ...note };
  });
}

export async function updateCategory(ctx: ActorContext, input: v.InferOutput<typeof categoryUpdateInput>) {
  await storeWrite(ctx, input.siteId);
  if (input.image) checkImageUrl(input.image, "image");
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const before = await categoryInSite(tx, input.siteId, input.id);
    const set: Partial<CategoryRow> = { updatedAt: now };
    if (input.name !== undefined) set.name = input.name.trim();
    if (input.description !== undefined) set.description = clean(input.description) ?? null;
    if (input.image !== undefined) set.image = input.image;
    if (input.slug !== undefined && input.slug !== before.slug) {
      const owner = await slugOwner(tx, input.siteId, input.slug, before.id);
      if (owner) throw conflict(`The slug "${input.slug}" is already used by product category ${owner} on this site.`);
      set.slug = input.slug;
    }
    let alsoDeactivated: number[] = [];
    if (input.active === true && !before.active && before.parentId !== null) {
      const parent = await categoryInSite(tx, input.siteId, before.parentId);
      if (!parent.active)
        throw conflict(`Parent category ${parent.id} ("${parent.name}") is inactive; activate it first.`);
    }
    if (input.active !== undefined) set.active = input.active;
    if (input.active === false) {
      const all = await allOf(tx, input.siteId);
      alsoDeactivated = descendantsOf(all, before.id).filter((id) => all.find((c) => c.id === id)!.active);
      if (alsoDeactivated.length)
        await tx
          .update(productCategories)
          .set({ active: false, updatedAt: now })
          .where(inArray(productCategories.id, alsoDeactivated));
    }
    const row = (await tx.update(productCategories).set(set).where(eq(productCategories.id, before.id)).returning())[0];
    await audit(tx, ctx, "product_categories.update", {
      type: "product_category",
      id: row.id,
      siteId: input.siteId,
      detail: { fields: Object.keys(set).filter((k) => k !== "updatedAt"), alsoDeactivated },
    });
    return { ...compact(row), alsoDeactivated };
  });
}

export async function moveCategory(ctx: ActorContext, input: v.InferOutput<typeof categoryMoveInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const cat = await categoryInSite(tx, input.siteId, input.id);
    const parent = await parentInSite(tx, input.siteId, input.parentId);
    const problem = moveProblem(await allOf(tx, input.siteId), cat.id, input.parentId);
    if (problem) throw invalid(`Cannot move category ${cat.id}: ${problem}.`);
    if (parent && !parent.active && cat.active)
      throw conflict(
        `Category ${parent.id} is inactive; an active category cannot move under it. Deactivate this one or activate the parent first.`,
      );
    const oldSibs = (await siblings(tx, input.siteId, cat.parentId, cat.id)).map((s) => s.id);
    const newSibs = (await siblings(tx, input.siteId, input.parentId, cat.id)).map((s) => s.id);
    const position = Math.min(input.position ?? newSibs.length, newSibs.length);
    newSibs.splice(position, 0, cat.id);
    await tx
      .update(productCategories)
      .set({ parentId: input.parentId, updatedAt: now })
      .where(eq(productCategories.id, cat.id));
    if (cat.parentId !== input.parentId) await renumber(tx, oldSibs, now);
    await renumber(tx, newSibs, now);
    await audit(tx, ctx, "product_categories.move", {
      type: "product_category",
      id: cat.id,
      siteId: input.siteId,
      detail: { from: cat.parentId, to: input.parentId, position },
    });
    return compact(await categoryInSite(tx, input.siteId, cat.id));
  });
}

export async function reorderCategories(ctx: ActorContext, input: v.InferOutput<typeof categoryReorderInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    if (input.parentId !== null) await categoryInSite(tx, input.siteId, input.parentId);
    const current = (await siblings(tx, input.siteId, input.parentId)).map((s) => s.id);
    const given = new Set(input.orderedIds);
    if (given.size !== input.orderedIds.length) throw invalid("orderedIds lists a category twice.");
    const missing = current.filter((id) => !given.has(id));
    const foreign = input.orderedIds.filter((id) => !current.includes(id));
    if (missing.length || foreign.length)
      throw invalid(
        `orderedIds must list exactly the children of ${input.parentId === null ? "the top level" : `category ${input.parentId}`}: ${current.join(", ") || "(none)"}.` +
          (foreign.length ? ` Not children there: ${foreign.join(", ")}.` : "") +
          (missing.length ? ` Missing: ${missing.join(", ")}.` : ""),
      );
    await renumber(tx, input.orderedIds, now);
    await audit(tx, ctx, "product_categories.reorder", {
      type: "product_category",
      id: input.parentId,
      siteId: input.siteId,
      detail: { orderedIds: input.orderedIds },
    });
    return { parentId: input.parentId, orderedIds: input.orderedIds };
  });
}

export async function deleteCategory(ctx: ActorContext, input: v.InferOutput<typeof categoryRef>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const cat = await categoryInSite(tx, input.siteId, input.id);
    const children = await siblings(tx, input.siteId, cat.id);
    if (children.length)
      throw conflict(
        `Category ${cat.id} has ${children.length} subcategories (${children.map((c) => c.id).join(", ")}); move or delete them first.`,
      );
    const uncategorized = (
      await tx.select({ n: sql<number>`count(*)` }).from(products).where(eq(products.categoryId, cat.id)).limit(1)
    )[0]!.n;
    await tx.update(products).set({ categoryId: null, updatedAt: now }).where(eq(products.categoryId, cat.id));
    await tx.delete(productCategories).where(eq(productCategories.id, cat.id));
    await renumber(
      tx,
      (await siblings(tx, input.siteId, cat.parentId)).map((s) => s.id),
      now,
    );
    await audit(tx, ctx, "product_categories.delete", {
      type: "product_category",
      id: cat.id,
      siteId: input.siteId,
      detail: { slug: cat.slug, uncategorized },
    });
    return { id: cat.id, slug: cat.slug, status: "deleted", productsUncategorized: uncategorized };
  });
}

/**
 * Every category in tree order (depth-first, siblings by order then name),
 * with `productCount` as REST computes it (active products directly in the
 * category) and `totalProducts` of any status.
 */
export async function listCategories(ctx: ActorContext, input: v.InferOutput<typeof categoryListInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const all = await allOf(db, input.siteId);
  const counts = await db
    .select({
      id: products.categoryId,
      active: sql<number>`sum(case when ${products.status} = 'active' then 1 else 0 end)`,
      total: sql<number>`count(*)`,
    })
    .from(products)
    .where(eq(products.siteId, input.siteId))
    .groupBy(products.categoryId);
  const out: ReturnType<typeof row>[] = [];
  function row(c: CategoryRow, depth: number) {
    const n = counts.find((x) => x.id === c.id);
    return {
      id: c.id,
      name: c.name,
      slug: c.slug,
      description: c.description,
      image: c.image,
      parentId: c.parentId,
      order: c.order,
      active: c.active,
      depth,
      productCount: n?.active ?? 0,
      totalProducts: n?.total ?? 0,
      updatedAt: iso(c.updatedAt)!,
    };
  }
  const walk = (parentId: number | null, depth: number) => {
    for (const c of all.filter((x) => x.parentId === parentId)) {
      if (!input.includeInactive && !c.active) continue;
      out.push(row(c, depth));
      walk(c.id, depth + 1);
    }
  };
  walk(null, 1);
  return { items: out, total: out.length };
}
