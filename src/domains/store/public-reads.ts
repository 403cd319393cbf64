/**
 * Public catalog reads for REST v1: active products, one active product with
 * everything a product page needs, and active product categories. Callers
 * have checked the site is public and its store enabled.
 *
 * Visibility: only products with status active; only active variants; bulk
 * rules of the product or of an active variant; only active categories. An
 * inactive category is hidden everywhere: a product in one reports no
 * category (categoryId/categoryName/category null), and filtering by its
 * slug matches nothing, so a renderer never links to a category page that
 * does not exist.
 *
 * Each read is a fixed number of queries whatever the result size (images,
 * options, values, variants and rules are one query each).
 */
import { and, asc, count, desc, eq, inArray, isNull, or, sql, type SQL } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Deps } from "../../core/context";
import { byName, containsFolded, fold } from "../cms/public-reads";
import {
  bulkPricingRules,
  productCategories,
  productImages,
  productOptions,
  productOptionValues,
  products,
  productVariants,
} from "./tables";

export const PRODUCT_SORTS = ["newest", "price_asc", "price_desc", "featured"] as const;
export type ProductSort = (typeof PRODUCT_SORTS)[number];

export interface ProductSummary {
  id: number;
  name: string;
  slug: string;
  shortDescription: string | null;
  price: number;
  compareAtPrice: number | null;
  featured: boolean;
  categoryId: number | null;
  categoryName: string | null;
  image: string | null;
  createdAt: string;
}

export interface ProductListQuery {
  page: number;
  limit: number;
  sort: ProductSort;
  category?: string;
  search?: string;
}

/**
 * Orders: newest = createdAt desc; price_asc / price_desc = price, then
 * newest; featured = featured first, then newest. id breaks every tie so
 * pages never overlap.
 */
const ORDER: Record<ProductSort, SQL[]> = {
  newest: [desc(products.createdAt), desc(products.id)],
  price_asc: [asc(products.price), desc(products.createdAt), desc(products.id)],
  price_desc: [desc(products.price), desc(products.createdAt), desc(products.id)],
  featured: [desc(products.featured), desc(products.createdAt), desc(products.id)],
};

const activeCategory = and(eq(productCategories.id, products.categoryId), eq(productCategories.active, true));

const summaryColumns = {
  id: products.id,
  name: products.name,
  slug: products.slug,
  shortDescription: products.shortDescription,
  price: products.price,
  compareAtPrice: products.compareAtPrice,
  featured: products.featured,
  categoryId: productCategories.id,
  categoryName: productCategories.name,
  // First image by display order: a correlated lookup on the (product_id, sort_order) index.
  // Names are spelled out: drizzle leaves columns in select fields unqualified, which a subquery would rebind.
  image: sql<
    string | null
  >`(SELECT i.url FROM product_images AS i WHERE i.product_id = "products"."id" ORDER BY i.sort_order, i.id LIMIT 1)`,
  createdAt: products.createdAt,
};

type SummaryRow = {
  id: number;
  name: string;
  slug: string;
  shortDescription: string | null;
  price: number;
  compareAtPrice: number | null;
  featured: boolean;
  categoryId: number | null;
  categoryName: string | null;
  image: string | null;
  createdAt: Date;
};

function toSummary(r: SummaryRow): ProductSummary {
  return {
    id: r.id,
    name: r.name,
    slug: r.slug,
    shortDescription: r.shortDescription ?? null,
    price: r.price,
    compareAtPrice: r.compareAtPrice ?? null,
    featured: r.featured,
    categoryId: r.categoryId ?? null,
    categoryName: r.categoryName ?? null,
    image: r.image ?? null,
    createdAt: iso(r.createdAt)!,
  };
}

/**
 * Active products, one page of them, with the total of all matches. The
 * search is a keyword match: every whitespace-separated word must appear
 * (case-insensitively, Unicode-aware) in the name or short description.
 */
export async function listActiveProducts(
  deps: Deps,
  siteId: number,
  q: ProductListQuery,
): Promise<{ items: ProductSummary[]; total: number }> {
  const conds: SQL[] = [eq(products.siteId, siteId), eq(products.status, "active")];
  if (q.category !== undefined) {
    const cat = (
      await deps.db
        .select({ id: productCategories.id })
        .from(productCategories)
        .where(
          and(
            eq(productCategories.siteId, siteId),
            eq(productCategories.slug, q.category),
            eq(productCategories.active, true),
          ),
        )
        .limit(1)
    )[0];
    if (!cat) return { items: [], total: 0 };
    conds.push(eq(products.categoryId, cat.id));
  }
  const where = and(...conds)!;
  const offset = (q.page - 1) * q.limit;
  if (q.search !== undefined) {
    const words = fold(q.search).split(/\s+/).filter(Boolean);
    const candidates = await deps.db
      .select({ id: products.id, name: products.name, shortDescription: products.shortDescription })
      .from(products)
      .where(where)
      .orderBy(...ORDER[q.sort]);
    const matched = candidates.filter((c) =>
      words.every((w) => containsFolded(c.name, w) || containsFolded(c.shortDescription, w)),
    );
    const pageIds = matched.slice(offset, offset + q.limit).map((c) => c.id);
    if (!pageIds.length) return { items: [], total: matched.length };
    const rows = await deps.db
      .select(summaryColumns)
      .from(products)
      .leftJoin(productCategories, activeCategory)
      .where(inArray(products.id, pageIds))
      .orderBy(...ORDER[q.sort]);
    return { items: rows.map(toSummary), total: matched.length };
  }
  const total = (await deps.db.select({ n: count() }).from(products).where(where).limit(1))[0]!.n;
  if (offset >= total) return { items: [], total };
  const rows = await deps.db
    .select(summaryColumns)
    .from(products)
    .leftJoin(productCategories, activeCategory)
    .where(where)
    .orderBy(...ORDER[q.sort])
    .limit(q.limit)
    .offset(offset);
  return { items: rows.map(toSummary), total };
}

export interface ProductImage {
  id: number;
  productId: number;
  url: string;
  alt: string | null;
  order: number;
  createdAt: string;
}
export interface ProductOptionValue {
  id: number;
  optionId: number;
  value: string;
  label: string | null;
  order: number;
  createdAt: string;
}
export interface ProductOption {
  id: number;
  productId: number;
  name: string;
  order: number;
  createdAt: string;
  values: ProductOptionValue[];
}
export interface ProductVariant {
  id: number;
  productId: number;
  name: string;
  sku: string | null;
  barcode: string | null;
  price: number;
  compareAtPrice: number | null;
  costPrice: number | null;
  quantity: number | null;
  weight: string | null;
  image: string | null;
  lengthIn: number | null;
  widthIn: number | null;
  heightIn: number | null;
  active: boolean;
  optionValues: { optionId: number; valueId: number }[];
  createdAt: string;
  updatedAt: string;
}
export interface BulkPricingRule {
  id: number;
  productId: number;
  variantId: number | null;
  minQuantity: number;
  maxQuantity: number | null;
  priceType: "fixed" | "percent_off";
  amount: number;
  createdAt: string;
}
export interface ProductDetail {
  id: number;
  websiteId: number;
  categoryId: number | null;
  name: string;
  slug: string;
  description: string | null;
  shortDescription: string | null;
  sku: string | null;
  barcode: string | null;
  price: number;
  compareAtPrice: number | null;
  costPrice: number | null;
  trackInventory: boolean;
  quantity: number | null;
  weight: string | null;
  weightUnit: string | null;
  lengthIn: number | null;
  widthIn: number | null;
  heightIn: number | null;
  status: "active" | "inactive" | "draft";
  featured: boolean;
  designable: boolean;
  seoTitle: string | null;
  seoDescription: string | null;
  tags: string[] | null;
  metadata: unknown;
  createdAt: string;
  updatedAt: string;
  images: ProductImage[];
  options: ProductOption[];
  variants: ProductVariant[];
  bulkPricing: BulkPricingRule[];
  category: { id: number; name: string; slug: string } | null;
}

type ProductRow = typeof products.$inferSelect;

/**
 * Row → view mappers for ProductDetail's parts. REST reads and the store
 * tools (catalog.ts) both build ProductDetail-shaped answers from them.
 */
export function productImageView(i: typeof productImages.$inferSelect): ProductImage {
  return {
    id: i.id,
    productId: i.productId,
    url: i.url,
    alt: i.alt ?? null,
    order: i.order,
    createdAt: iso(i.createdAt)!,
  };
}

export function optionValueView(v: typeof productOptionValues.$inferSelect): ProductOptionValue {
  return {
    id: v.id,
    optionId: v.optionId,
    value: v.value,
    label: v.label ?? null,
    order: v.order,
    createdAt: iso(v.createdAt)!,
  };
}

export function variantView(x: typeof productVariants.$inferSelect): ProductVariant {
  return {
    id: x.id,
    productId: x.productId,
    name: x.name,
    sku: x.sku ?? null,
    barcode: x.barcode ?? null,
    price: x.price,
    compareAtPrice: x.compareAtPrice ?? null,
    costPrice: x.costPrice ?? null,
    quantity: x.quantity ?? null,
    weight: x.weight ?? null,
    image: x.image ?? null,
    lengthIn: x.lengthIn ?? null,
    widthIn: x.widthIn ?? null,
    heightIn: x.heightIn ?? null,
    active: x.active,
    optionValues: Array.isArray(x.optionValues) ? x.optionValues : [],
    createdAt: iso(x.createdAt)!,
    updatedAt: iso(x.updatedAt)!,
  };
}

export function bulkRuleView(b: typeof bulkPricingRules.$inferSelect): BulkPricingRule {
  return {
    id: b.id,
    productId: b.productId,
    variantId: b.variantId ?? null,
    minQuantity: b.minQuantity,
    maxQuantity: b.maxQuantity ?? null,
    priceType: b.priceType,
    amount: b.amount,
    createdAt: iso(b.createdAt)!,
  };
}

/** ProductDetail's own fields; `categoryId` is passed because REST hides an inactive category. */
export function productFieldsView(p: ProductRow, categoryId: number | null) {
  return {
    id: p.id,
    websiteId: p.siteId,
    categoryId,
    name: p.name,
    slug: p.slug,
    description: p.description ?? null,
    shortDescription: p.shortDescription ?? null,
    sku: p.sku ?? null,
    barcode: p.barcode ?? null,
    price: p.price,
    compareAtPrice: p.compareAtPrice ?? null,
    costPrice: p.costPrice ?? null,
    trackInventory: p.trackInventory,
    quantity: p.quantity ?? null,
    weight: p.weight ?? null,
    weightUnit: p.weightUnit ?? null,
    lengthIn: p.lengthIn ?? null,
    widthIn: p.widthIn ?? null,
    heightIn: p.heightIn ?? null,
    status: p.status,
    featured: p.featured,
    designable: p.designable,
    seoTitle: p.seoTitle ?? null,
    seoDescription: p.seoDescription ?? null,
    tags: p.tags ?? null,
    metadata: p.metadata ?? null,
    createdAt: iso(p.createdAt)!,
    updatedAt: iso(p.updatedAt)!,
  };
}

/** An active product of the site by slug, with its images, options and values, active variants, bulk pricing and category. */
export async function getActiveProductBySlug(deps: Deps, siteId: number, slug: string): Promise<ProductDetail | null> {
  const r = (
    await deps.db
      .select({
        p: products,
        catId: productCategories.id,
        catName: productCategories.name,
        catSlug: productCategories.slug,
      })
      .from(products)
      .leftJoin(productCategories, activeCategory)
      .where(and(eq(products.siteId, siteId), eq(products.slug, slug), eq(products.status, "active")))
      .limit(1)
  )[0];
  if (!r) return null;
  const p = r.p;
  const images = (
    await deps.db
      .select()
      .from(productImages)
      .where(eq(productImages.productId, p.id))
      .orderBy(asc(productImages.order), asc(productImages.id))
  ).map(productImageView);
  const optionRows = await deps.db
    .select()
    .from(productOptions)
    .where(eq(productOptions.productId, p.id))
    .orderBy(asc(productOptions.order), asc(productOptions.id));
  const valueRows = optionRows.length
    ? await deps.db
        .select()
        .from(productOptionValues)
        .where(
          inArray(
            productOptionValues.optionId,
            optionRows.map((o) => o.id),
          ),
        )
        .orderBy(asc(productOptionValues.order), asc(productOptionValues.id))
    : [];
  const valuesByOption = new Map<number, ProductOptionValue[]>();
  for (const v of valueRows) {
    const value = optionValueView(v);
    const list = valuesByOption.get(v.optionId);
    if (list) list.push(value);
    else valuesByOption.set(v.optionId, [value]);
  }
  const options = optionRows.map((o) => ({
    id: o.id,
    productId: o.productId,
    name: o.name,
    order: o.order,
    createdAt: iso(o.createdAt)!,
    values: valuesByOption.get(o.id) ?? [],
  }));
  const variants = (
    await deps.db
      .select()
      .from(productVariants)
      .where(and(eq(productVariants.productId, p.id), eq(productVariants.active, true)))
      .orderBy(asc(productVariants.id))
  ).map(variantView);
  const activeVariantIds = variants.map((x) => x.id);
  const bulkPricing = (
    await deps.db
      .select()
      .from(bulkPricingRules)
      .where(
        and(
          eq(bulkPricingRules.productId, p.id),
          activeVariantIds.length
            ? or(isNull(bulkPricingRules.variantId), inArray(bulkPricingRules.variantId, activeVariantIds))
            : isNull(bulkPricingRules.variantId),
        ),
      )
      .orderBy(asc(bulkPricingRules.minQuantity), asc(bulkPricingRules.id))
  ).map(bulkRuleView);
  const category = r.catId !== null ? { id: r.catId, name: r.catName!, slug: r.catSlug! } : null;
  return {
    ...productFieldsView(p, category?.id ?? null),
    images,
    options,
    variants,
    bulkPricing,
    category,
  };
}

export interface ProductCategory {
  id: number;
  name: string;
  slug: string;
  description: string | null;
  image: string | null;
  parentId: number | null;
  order: number;
  productCount: number;
}

/**
 * Active categories by order, then name, then id; productCount is counted
 * live (active products directly in the category) in the same query.
 * A category whose parent is inactive keeps its parentId: the tree is the
 * renderer's to draw, and the parent's absence from the list says enough.
 */
export async function listActiveProductCategories(deps: Deps, siteId: number): Promise<ProductCategory[]> {
  return (
    await deps.db
      .select({
        id: productCategories.id,
        name: productCategories.name,
        slug: productCategories.slug,
        description: productCategories.description,
        image: productCategories.image,
        parentId: productCategories.parentId,
        order: productCategories.order,
        // Qualified by hand: drizzle leaves select-field columns unqualified, and "id" would bind to products.
        productCount: sql<number>`(SELECT count(*) FROM products AS p WHERE p.category_id = "product_categories"."id" AND p.status = 'active' AND p.site_id = ${siteId})`,
      })
      .from(productCategories)
      .where(and(eq(productCategories.siteId, siteId), eq(productCategories.active, true)))
  )
    .map((c) => ({
      ...c,
      description: c.description ?? null,
      image: c.image ?? null,
      parentId: c.parentId ?? null,
      productCount: Number(c.productCount),
    }))
    .sort((a, b) => a.order - b.order || byName(a.name, b.name) || a.id - b.id);
}
