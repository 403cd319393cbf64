/**
 * Held store calls (approvals/kinds.ts StagedTarget): withdrawing or
 * deleting an active product waits for a person's approval for everyone
 * (products.ts), and a require_cms_approval credential's changes to what
 * the storefront sells (products, prices, stock, variants, options, bulk
 * pricing, categories, discount codes, reviews shown, store settings) wait
 * for one too. Each snapshot is what approval re-checks: a record that
 * changed since the request (renamed, repriced, already withdrawn) is not
 * changed blindly; the reviewer sees the conflict. Snapshots are keyed like
 * the tools' arguments, so the approval page shows "live → proposed" per
 * argument. The takedown presentation says what disappears and where the
 * site shows or links to it.
 */
import { and, asc, eq, inArray, isNull } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import { iso } from "../../core/clock";
import type { StagedTarget } from "../approvals/kinds";
import { productShownAt } from "../cms/references";
import { siteForActor } from "../sites/access";
import {
  bulkPricingRules,
  discounts,
  productCategories,
  productOptions,
  productOptionValues,
  products,
  productVariants,
  reviews,
  stores,
} from "./tables";

type Input = Record<string, unknown>;
type Snapshot = Record<string, unknown>;

/**
 * The record's ids are the subject, named by its snapshot (product, name),
 * not a change: the page leaves them out of "live → proposed".
 */
const idsAreNoChange: StagedTarget["present"] = async (_deps, call) =>
  call.before ? { handled: ["id", "productId"] } : {};

/**
 * Runs `read` for the input's site (the actor's, or null) and the number
 * in `key`; null when either is missing, not the actor's, or not found.
 * Tenancy: every read below filters by the site this returns.
 */
async function onSite(
  ctx: ActorContext,
  input: Input,
  key: string | null,
  read: (siteId: number, id: number) => Promise<Snapshot | null | undefined>,
): Promise<Snapshot | null> {
  if (typeof input.siteId !== "number") return null;
  const id = key === null ? 0 : input[key];
  if (typeof id !== "number") return null;
  try {
    const site = await siteForActor(ctx, input.siteId);
    return (await read(site.id, id)) ?? null;
  } catch {
    return null;
  }
}

/**
 * A product of the site as the product tools name its fields. Not its
 * stock: sales move it, and a sale is no reason to refuse a takedown or a
 * rename a person approved (a variant's snapshot has its stock: setting
 * stock is what that reviewer approves).
 */
async function productSnapshot(ctx: ActorContext, siteId: number, id: number): Promise<Snapshot | null> {
  const p = (
    await ctx.deps.db
      .select()
      .from(products)
      .where(and(eq(products.id, id), eq(products.siteId, siteId)))
      .limit(1)
  )[0];
  if (!p) return null;
  return {
    name: p.name,
    slug: p.slug,
    status: p.status,
    price: p.price,
    compareAtPrice: p.compareAtPrice,
    sku: p.sku,
    description: p.description,
    shortDescription: p.shortDescription,
    featured: p.featured,
    categoryId: p.categoryId,
    seoTitle: p.seoTitle,
    seoDescription: p.seoDescription,
    tags: p.tags ?? [],
    updatedAt: iso(p.updatedAt),
  };
}

/** A product's options as product_options_set takes them, and its bulk pricing as product_bulk_pricing_set does. */
async function productParts(ctx: ActorContext, siteId: number, productId: number): Promise<Snapshot | null> {
  const p = await productSnapshot(ctx, siteId, productId);
  if (!p) return null;
  const db = ctx.deps.db;
  const opts = await db
    .select()
    .from(productOptions)
    .where(eq(productOptions.productId, productId))
    .orderBy(asc(productOptions.order), asc(productOptions.id));
  const values = opts.length
    ? await db
        .select()
        .from(productOptionValues)
        .where(
          inArray(
            productOptionValues.optionId,
            opts.map((o) => o.id),
          ),
        )
        .orderBy(asc(productOptionValues.order), asc(productOptionValues.id))
    : [];
  const rules = await db
    .select()
    .from(bulkPricingRules)
    .where(eq(bulkPricingRules.productId, productId))
    .orderBy(asc(bulkPricingRules.minQuantity), asc(bulkPricingRules.id));
  return {
    product: p.name,
    status: p.status,
    options: opts.map((o) => ({ name: o.name, values: values.filter((x) => x.optionId === o.id).map((x) => x.value) })),
    rules: rules.map((r) => ({
      minQuantity: r.minQuantity,
      maxQuantity: r.maxQuantity,
      priceType: r.priceType,
      amount: r.amount,
      ...(r.variantId !== null ? { variantId: r.variantId } : {}),
    })),
  };
}

const productTarget: StagedTarget = {
  entityType: "product",
  tools: ["products_create", "products_update", "products_delete", "products_set_status"],
  current: async (ctx, input) => await onSite(ctx, input, "id", (siteId, id) => productSnapshot(ctx, siteId, id)),
  async present(deps, call) {
    const b = call.before;
    // The product is named by the snapshot; its id is no change to show.
    if (!b || typeof b.slug !== "string" || typeof call.input.siteId !== "number") return b ? { handled: ["id"] } : {};
    const what = `${b.status === "active" ? "active " : ""}product “${String(b.name)}”`;
    if (call.tool === "products_set_status" && call.input.status === "active")
      return {
        proposal: `Putting the ${what} on sale`,
        applied: "put on sale",
        facts: [{ label: "Appears", value: `The product (slug ${b.slug}) in the REST API and the store's pages.` }],
        handled: ["id"],
      };
    const takedown = call.tool === "products_delete" || (call.tool === "products_set_status" && b.status === "active");
    if (!takedown) return { handled: ["id"] };
    const del = call.tool === "products_delete";
    const shown = await productShownAt(deps.db, call.input.siteId, {
      slug: b.slug,
      featured: b.featured === true,
      categoryId: typeof b.categoryId === "number" ? b.categoryId : null,
    });
    return {
      proposal: del
        ? `Deleting the ${what}`
        : `Withdrawing the ${what} from sale (status ${String(call.input.status)})`,
      applied: del ? "deleted" : "withdrawn",
      facts: [
        {
          label: "Disappears",
          value: del
            ? `The ${what} (slug ${b.slug}) with its images, options, variants and reviews, for good: the REST API stops serving it. Past orders keep their lines.`
            : `The ${what} (slug ${b.slug}) from the REST API and the store's pages; it stays in the catalogue, ${String(call.input.status)}, and can be set active again.`,
        },
        {
          label: "Linked from",
          value: shown.length ? shown.join("\n") : "nothing on this site shows or links to it (blocks, navigation)",
        },
      ],
      handled: ["id"],
    };
  },
};

export const storeStagedTargets: StagedTarget[] = [
  productTarget,
  {
    // Calls replacing a product's options or bulk pricing: the lists they replace.
    entityType: "product",
    present: idsAreNoChange,
    tools: ["product_options_set", "product_bulk_pricing_set"],
    current: async (ctx, input) => await onSite(ctx, input, "productId", (siteId, id) => productParts(ctx, siteId, id)),
  },
  {
    // Calls adding variants: the product they are added to (its price is not the variants', so it is not shown as theirs).
    entityType: "product",
    present: idsAreNoChange,
    tools: ["product_variants_create", "product_variants_generate"],
    current: async (ctx, input) =>
      await onSite(ctx, input, "productId", async (siteId, id) => {
        const p = await productSnapshot(ctx, siteId, id);
        return p && { product: p.name, status: p.status };
      }),
  },
  {
    entityType: "product_variant",
    present: idsAreNoChange,
    tools: ["product_variants_update", "product_variants_delete"],
    current: async (ctx, input) =>
      await onSite(ctx, input, "id", async (siteId, id) => {
        const r = (
          await ctx.deps.db
            .select({ v: productVariants, product: products.name })
            .from(productVariants)
            .innerJoin(products, eq(products.id, productVariants.productId))
            .where(and(eq(productVariants.id, id), eq(products.siteId, siteId)))
            .limit(1)
        )[0];
        if (!r) return null;
        const x = r.v;
        return {
          product: r.product,
          name: x.name,
          sku: x.sku,
          price: x.price,
          compareAtPrice: x.compareAtPrice,
          quantity: x.quantity,
          image: x.image,
          active: x.active,
          updatedAt: iso(x.updatedAt),
        };
      }),
  },
  {
    entityType: "product_category",
    present: idsAreNoChange,
    tools: ["product_categories_update", "product_categories_move", "product_categories_delete"],
    current: async (ctx, input) =>
      await onSite(ctx, input, "id", async (siteId, id) => {
        const c = (
          await ctx.deps.db
            .select()
            .from(productCategories)
            .where(and(eq(productCategories.id, id), eq(productCategories.siteId, siteId)))
            .limit(1)
        )[0];
        return (
          c && {
            name: c.name,
            slug: c.slug,
            description: c.description,
            image: c.image,
            active: c.active,
            parentId: c.parentId,
            position: c.order,
          }
        );
      }),
  },
  {
    entityType: "product_category",
    present: idsAreNoChange,
    tools: ["product_categories_reorder"],
    current: async (ctx, input) =>
      await onSite(ctx, input, null, async (siteId) => {
        const parentId = typeof input.parentId === "number" ? input.parentId : null;
        const ids = (
          await ctx.deps.db
            .select({ id: productCategories.id })
            .from(productCategories)
            .where(
              and(
                eq(productCategories.siteId, siteId),
                parentId === null ? isNull(productCategories.parentId) : eq(productCategories.parentId, parentId),
              ),
            )
            .orderBy(asc(productCategories.order), asc(productCategories.id))
        ).map((r) => r.id);
        return { parentId, orderedIds: ids };
      }),
  },
  {
    entityType: "discount",
    present: idsAreNoChange,
    tools: ["discounts_update", "discounts_delete"],
    current: async (ctx, input) =>
      await onSite(ctx, input, "id", async (siteId, id) => {
        const d = (
          await ctx.deps.db
            .select()
            .from(discounts)
            .where(and(eq(discounts.id, id), eq(discounts.siteId, siteId)))
            .limit(1)
        )[0];
        return (
          d && {
            code: d.code,
            kind: d.kind,
            amount: d.amount,
            minSubtotal: d.minSubtotal,
            startsAt: iso(d.startsAt),
            endsAt: iso(d.endsAt),
            usageLimit: d.usageLimit,
            active: d.active,
          }
        );
      }),
  },
  {
    entityType: "review",
    present: idsAreNoChange,
    tools: ["reviews_moderate"],
    current: async (ctx, input) =>
      await onSite(ctx, input, "id", async (siteId, id) => {
        const r = (
          await ctx.deps.db
            .select({ review: reviews, product: products.name })
            .from(reviews)
            .innerJoin(products, eq(products.id, reviews.productId))
            .where(and(eq(reviews.id, id), eq(reviews.siteId, siteId)))
            .limit(1)
        )[0];
        return (
          r && {
            product: r.product,
            authorName: r.review.authorName,
            rating: r.review.rating,
            title: r.review.title,
            body: r.review.body,
            status: r.review.status,
          }
        );
      }),
  },
  {
    entityType: "store",
    tools: ["store_settings_update"],
    current: async (ctx, input) =>
      await onSite(ctx, input, null, async (siteId) => {
        const s = (await ctx.deps.db.select().from(stores).where(eq(stores.siteId, siteId)).limit(1))[0];
        // No store yet: the first update creates it with these defaults (what the storefront serves until then).
        return { enabled: s?.enabled ?? false, currency: s?.currency ?? null, taxInclusive: s?.taxInclusive ?? false };
      }),
  },
];
