/**
 * Products: create (with images, options, variants and bulk pricing in one
 * call), update, status transitions, delete, list and get.
 *
 * Status transitions (interface.md leaves them open; decided here):
 *   draft    → active | inactive   (publish, or park without publishing)
 *   inactive → active | draft      (back on sale, or back to editing)
 *   active   → inactive            (withdraw from sale; REST stops serving it)
 * active → draft is refused: a product that has been on sale is withdrawn
 * (inactive) first, so "draft" always means "not yet released".
 * Setting the current status again is a no-op.
 */
import { and, asc, desc, eq, inArray, ne, or, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { slugify, slugNote, uniqueSlug } from "../../core/slug";
import { withdrawLinks } from "../approvals/links";
import { approvedLinkId, holdForApproval, isApprovedRun } from "../approvals/staging";
import { productShownAt } from "../cms/references";
import { checkImageUrl, clean, mutate, storeRead, storeWrite, type Q } from "./access";
import { emit } from "../../core/events";
import { productCreated, productDeleted, productEventData, productStatusChanged, productUpdated } from "./events";
import { productDetail, productInSite, type ProductRow } from "./catalog";
import {
  MAX_METADATA_BYTES,
  type ProductCreateInput,
  type productGetInput,
  type productListInput,
  type productRef,
  type productSetStatusInput,
  type ProductUpdateInput,
} from "./schemas";
import { productCategories, productImages, products, productVariants, type ProductStatus } from "./tables";
import {
  assertSellable,
  checkCompareAt,
  generateMissing,
  insertVariants,
  prepareRules,
  replaceRules,
  resolveOptionPrices,
  variantBrief,
  writeOptions,
} from "./variants";
import { mapSeq } from "../../core/maybe";
import { containsText } from "../../core/sql";
import { countTrue } from "../../core/sql";
import type { Tx } from "../../core/db";

export const STATUS_TRANSITIONS: Record<ProductStatus, readonly ProductStatus[]> = {
  draft: ["active", "inactive"],
  inactive: ["active", "draft"],
  active: ["inactive"],
};

function checkTransition(from: ProductStatus, to: ProductStatus) {
  if (from === to || STATUS_TRANSITIONS[from].includes(to)) return;
  throw conflict(
    `A product cannot go from ${from} to ${to}. Allowed from ${from}: ${STATUS_TRANSITIONS[from].join(", ")}.` +
      (from === "active" && to === "draft" ? " Set it inactive first." : ""),
  );
}

function checkMetadata(m: unknown) {
  if (m === undefined) return;
  let json: string | undefined;
  try {
    json = JSON.stringify(m);
  } catch {
    throw invalid("metadata must be plain JSON.");
  }
  if (json !== undefined && Buffer.byteLength(json) > MAX_METADATA_BYTES)
    throw invalid(`metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON.`);
}

function normalizeTags(tags: string[] | null | undefined): string[] | null | undefined {
  if (!tags) return tags;
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of tags) {
    const s = t.trim();
    if (!seen.has(s.toLowerCase())) {
      seen.add(s.toLowerCase());
      out.push(s);
    }
  }
  return out;
}

async function checkCategory(q: Q, siteId: number, categoryId: number | null | undefined) {
  if (categoryId === null || categoryId === undefined) return;
  const c = (
    await q
      .select({ id: productCategories.id })
      .from(productCategories)
      .where(and(eq(productCategories.id, categoryId), eq(productCategories.siteId, siteId)))
      .limit(1)
  )[0];
  if (!c) throw invalid(`Product category ${categoryId} does not exist on this site.`);
}

async function slugTaken(q: Q, siteId: number, slug: string, exceptId?: number) {
  const row = (
    await q
      .select({ id: products.id })
      .from(products)
      .where(
        and(eq(products.siteId, siteId), eq(products.slug, slug), exceptId ? ne(products.id, exceptId) : undefined),
      )
      .limit(1)
  )[0];
  return row?.id ?? null;
}

/** Columns shared by create and update, from the input fields that were given. */
function scalarValues(input: Partial<ProductCreateInput>) {
  const out: Partial<typeof products.$inferInsert> = {};
  const texts = ["description", "shortDescription", "sku", "barcode", "weight", "seoTitle", "seoDescription"] as const;
  for (const k of texts)
    if (input[k] !== undefined) out[k] = k === "description" ? input[k] : (clean(input[k]) ?? null);
  const direct = [
    "price",
    "compareAtPrice",
    "costPrice",
    "trackInventory",
    "quantity",
    "weightUnit",
    "lengthIn",
    "widthIn",
    "heightIn",
    "featured",
    "designable",
    "categoryId",
  ] as const;
  for (const k of direct) if (input[k] !== undefined) (out as any)[k] = input[k];
  if (input.name !== undefined) out.name = input.name.trim();
  if (input.tags !== undefined) out.tags = normalizeTags(input.tags) ?? null;
  if (input.metadata !== undefined) out.metadata = input.metadata;
  return out;
}

async function writeImages(tx: Tx, productId: number, images: { url: string; alt?: string | null }[], now: Date) {
  await tx.delete(productImages).where(eq(productImages.productId, productId));
  await mapSeq(
    images,
    async (img, i) =>
      await tx
        .insert(productImages)
        .values({ productId, url: img.url, alt: clean(img.alt) ?? null, order: i, createdAt: now }),
  );
}

const compact = (p: ProductRow) => ({ id: p.id, slug: p.slug, status: p.status });

export async function createProduct(ctx: ActorContext, input: ProductCreateInput) {
  await storeWrite(ctx, input.siteId);
  checkCompareAt(input.price, input.compareAtPrice, "");
  checkMetadata(input.metadata);
  input.images?.forEach((img, i) => checkImageUrl(img.url, `images[${i}].url`));
  input.variants?.forEach((x, i) => x.image && checkImageUrl(x.image, `variants[${i}].image`));
  const hasOptions = !!input.options?.length;
  if (input.variants?.length && !hasOptions)
    throw invalid("variants need options: give options (e.g. Size: S, M, L) with the variants.");
  if (input.generateVariants && !hasOptions)
    throw invalid("generateVariants needs options: give options (e.g. Size: S, M, L) to generate their combinations.");
  if (input.optionPrices && !input.generateVariants && !input.variants?.length)
    throw invalid(
      "optionPrices price the variants this call creates: pass generateVariants: true (or variants), or use product_variants_generate later.",
    );
  const status = input.status ?? "draft";
  if (status !== "draft") checkTransition("draft", status);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    await checkCategory(tx, input.siteId, input.categoryId);
    let slug: string;
    let note = {};
    if (input.slug) {
      const owner = await slugTaken(tx, input.siteId, input.slug);
      if (owner) throw conflict(`The slug "${input.slug}" is already used by product ${owner} on this site.`);
      slug = input.slug;
    } else {
      const base = slugify(input.name, "product");
      slug = await uniqueSlug(base, async (s) => (await slugTaken(tx, input.siteId, s)) !== null);
      note = slugNote(base, slug, "product");
    }
    // Status is written with the row: checks below speak of this call, never of the
    // new row's id, which does not exist once a refusal rolls the call back.
    const product = (
      await tx
        .insert(products)
        .values({
          ...scalarValues(input),
          name: input.name.trim(),
          price: input.price,
          siteId: input.siteId,
          slug,
          status,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    if (input.images) await writeImages(tx, product.id, input.images, now);
    const tree = input.options ? await writeOptions(tx, product.id, input.options, now) : [];
    const deltas = resolveOptionPrices(tree, input.optionPrices);
    const variants = input.variants?.length ? await insertVariants(tx, product, tree, input.variants, now, deltas) : [];
    if (input.generateVariants)
      variants.push(
        ...(
          await generateMissing(tx, product, tree, { base: product.price, quantity: null, active: true, deltas }, now)
        ).created,
      );
    if (input.bulkPricing?.length)
      await replaceRules(tx, product.id, await prepareRules(tx, product.id, tree, input.bulkPricing), now);
    if (status === "active" && tree.length && !variants.some((x) => x.active))
      throw conflict(
        "A product with options needs at least one active variant to be created as active: pass variants (or generateVariants: true), " +
          "or create it as draft and activate it after adding variants.",
      );
    await audit(tx, ctx, "products.create", {
      type: "product",
      id: product.id,
      siteId: input.siteId,
      detail: { slug, status, variants: variants.length },
    });
    await emit(tx, ctx, productCreated, { id: product.id, siteId: input.siteId }, productEventData(product));
    return { ...compact(product), ...note, ...(variants.length ? { variants: variants.map(variantBrief) } : {}) };
  });
}

export async function updateProduct(ctx: ActorContext, input: ProductUpdateInput) {
  await storeWrite(ctx, input.siteId);
  checkMetadata(input.metadata);
  input.images?.forEach((img, i) => checkImageUrl(img.url, `images[${i}].url`));
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const before = await productInSite(tx, input.siteId, input.id);
    await checkCategory(tx, input.siteId, input.categoryId);
    const values = scalarValues(input);
    checkCompareAt(
      values.price ?? before.price,
      values.compareAtPrice !== undefined ? values.compareAtPrice : before.compareAtPrice,
      "",
    );
    if (input.slug && input.slug !== before.slug) {
      const owner = await slugTaken(tx, input.siteId, input.slug, before.id);
      if (owner) throw conflict(`The slug "${input.slug}" is already used by product ${owner} on this site.`);
      values.slug = input.slug;
    }
    if (input.images) await writeImages(tx, before.id, input.images, now);
    const product = (
      await tx
        .update(products)
        .set({ ...values, updatedAt: now })
        .where(eq(products.id, before.id))
        .returning()
    )[0];
    const fields = Object.keys(values).concat(input.images ? ["images"] : []);
    await audit(tx, ctx, "products.update", {
      type: "product",
      id: product.id,
      siteId: input.siteId,
      detail: { fields },
    });
    const previousSlug = product.slug !== before.slug ? before.slug : null;
    await emit(
      tx,
      ctx,
      productUpdated,
      { id: product.id, siteId: input.siteId },
      { ...productEventData(product, [previousSlug]), fields, previousSlug },
    );
    return compact(product);
  });
}

/**
 * Withdrawing or deleting an ACTIVE product takes it off the live site, so
 * it is held for a person's approval (like a post taken down): the call
 * returns a pending_change approval envelope, the product stays on sale
 * and served until a person approves, and approving runs the same call
 * again (isApprovedRun), which then applies it unless the product changed
 * meanwhile. Draft and inactive products change at once.
 */
async function holdTakedown(
  ctx: ActorContext,
  tx: Tx,
  p: ProductRow,
  tool: "products_delete" | "products_set_status",
  input: Record<string, unknown>,
) {
  const approval = await holdForApproval(ctx, {
    tool,
    input,
    entityId: p.id,
    siteId: p.siteId,
    title:
      tool === "products_delete"
        ? `Delete product: ${p.name}`
        : `Withdraw product: ${p.name} (set ${String(input.status)})`,
  });
  const linkedFrom = await productShownAt(tx, p.siteId, {
    slug: p.slug,
    featured: p.featured,
    categoryId: p.categoryId,
  });
  return {
    ...compact(p),
    approval,
    ...(linkedFrom.length ? { linkedFrom } : {}),
    message:
      `Nothing changed yet: the product is active (on sale), so taking it off the site needs a person's approval. Share approval.url with a reviewer; ` +
      `it is ${tool === "products_delete" ? "deleted" : `set ${String(input.status)}`} when they approve, and stays on sale until then.` +
      (linkedFrom.length ? " linkedFrom lists where the site shows or links to it now." : ""),
  };
}

export async function setProductStatus(ctx: ActorContext, input: v.InferOutput<typeof productSetStatusInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return ctx.deps.db.transaction(async (outer) => {
    const current = await productInSite(outer, input.siteId, input.id);
    checkTransition(current.status, input.status);
    if (current.status === input.status) return { ...compact(current), previousStatus: current.status };
    if (current.status === "active" && !isApprovedRun(ctx))
      return await holdTakedown(ctx, outer, current, "products_set_status", input);
    return mutate(ctx, input.siteId, async (tx) => {
      const before = await productInSite(tx, input.siteId, input.id);
      const product = (
        await tx
          .update(products)
          .set({ status: input.status, updatedAt: now })
          .where(eq(products.id, before.id))
          .returning()
      )[0];
      await assertSellable(tx, product);
      await audit(tx, ctx, "products.set_status", {
        type: "product",
        id: product.id,
        siteId: input.siteId,
        detail: { from: before.status, to: input.status },
      });
      await emit(
        tx,
        ctx,
        productStatusChanged,
        { id: product.id, siteId: input.siteId },
        { ...productEventData(product), previousStatus: before.status },
      );
      return { ...compact(product), previousStatus: before.status };
    });
  });
}

export async function deleteProduct(ctx: ActorContext, input: v.InferOutput<typeof productRef>) {
  await storeWrite(ctx, input.siteId);
  return ctx.deps.db.transaction(async (outer) => {
    const current = await productInSite(outer, input.siteId, input.id);
    if (current.status === "active" && !isApprovedRun(ctx))
      return await holdTakedown(ctx, outer, current, "products_delete", input);
    return mutate(ctx, input.siteId, async (tx) => {
      const p = await productInSite(tx, input.siteId, input.id);
      // Images, options, variants, bulk rules and reviews go with it; order
      // lines keep their name, sku and prices and lose only the link.
      await tx.delete(products).where(eq(products.id, p.id));
      // Open requests about it (a held withdrawal, say) have nothing left to decide.
      await withdrawLinks(tx, ctx.company.id, "product", p.id, ctx.deps.clock.now(), approvedLinkId(ctx));
      await audit(tx, ctx, "products.delete", {
        type: "product",
        id: p.id,
        siteId: input.siteId,
        detail: { slug: p.slug, name: p.name },
      });
      await emit(
        tx,
        ctx,
        productDeleted,
        { id: p.id, siteId: input.siteId },
        { ...productEventData(p), status: "deleted" },
      );
      return { id: p.id, slug: p.slug, status: "deleted" };
    });
  });
}

export async function getProduct(ctx: ActorContext, input: v.InferOutput<typeof productGetInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  if ((input.id === undefined) === (input.slug === undefined)) throw invalid("Give exactly one of id or slug.");
  const p =
    input.id !== undefined
      ? await productInSite(db, input.siteId, input.id)
      : (
          await db
            .select()
            .from(products)
            .where(and(eq(products.siteId, input.siteId), eq(products.slug, input.slug!)))
            .limit(1)
        )[0];
  if (!p) throw notFound(`No product with slug "${input.slug}" on site ${input.siteId}.`);
  return await productDetail(db, p);
}

export async function listProducts(ctx: ActorContext, input: v.InferOutput<typeof productListInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const where = and(
    eq(products.siteId, input.siteId),
    input.status ? eq(products.status, input.status) : undefined,
    input.categoryId ? eq(products.categoryId, input.categoryId) : undefined,
    input.featured !== undefined ? eq(products.featured, input.featured) : undefined,
    input.search?.trim()
      ? or(containsText(products.name, input.search.trim()), containsText(products.sku, input.search.trim()))
      : undefined,
  );
  const total = (await db.select({ n: sql<number>`count(*)` }).from(products).where(where).limit(1))[0]!.n;
  const rows = await db
    .select({ p: products, categoryName: productCategories.name })
    .from(products)
    .leftJoin(productCategories, eq(productCategories.id, products.categoryId))
    .where(where)
    .orderBy(desc(products.createdAt), desc(products.id))
    .limit(input.limit)
    .offset(input.offset);
  const ids = rows.map((r) => r.p.id);
  const images = ids.length
    ? await db
        .select()
        .from(productImages)
        .where(inArray(productImages.productId, ids))
        .orderBy(asc(productImages.order), asc(productImages.id))
    : [];
  const variantCounts = ids.length
    ? await db
        .select({
          productId: productVariants.productId,
          n: sql<number>`count(*)`,
          active: countTrue(productVariants.active),
        })
        .from(productVariants)
        .where(inArray(productVariants.productId, ids))
        .groupBy(productVariants.productId)
    : [];
  const items = rows.map(({ p, categoryName }) => {
    const vc = variantCounts.find((x) => x.productId === p.id);
    return {
      id: p.id,
      name: p.name,
      slug: p.slug,
      status: p.status,
      price: p.price,
      compareAtPrice: p.compareAtPrice,
      sku: p.sku,
      featured: p.featured,
      categoryId: p.categoryId,
      categoryName: categoryName ?? null,
      image: images.find((i) => i.productId === p.id)?.url ?? null,
      trackInventory: p.trackInventory,
      quantity: p.quantity,
      variants: vc?.n ?? 0,
      activeVariants: vc?.active ?? 0,
      createdAt: iso(p.createdAt)!,
      updatedAt: iso(p.updatedAt)!,
    };
  });
  return page(items, total, input.limit, input.offset);
}
