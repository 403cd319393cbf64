/**
 * Reading the catalog: a product with everything ProductDetail holds, the
 * option tree variants are checked against, and lookups that enforce the
 * site a row must belong to (a row of another site reads as not found).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { iso } from "../../core/clock";
import { notFound } from "../../core/errors";
import type { Q } from "./access";
import { bulkRuleView, productFieldsView, productImageView, variantView } from "./public-reads";
import {
  bulkPricingRules,
  productCategories,
  productImages,
  productOptions,
  productOptionValues,
  products,
  productVariants,
} from "./tables";

export type ProductRow = typeof products.$inferSelect;
export type VariantRow = typeof productVariants.$inferSelect;
export type Combination = { optionId: number; valueId: number }[];

export interface OptionTree {
  id: number;
  name: string;
  order: number;
  createdAt: Date;
  values: { id: number; value: string; label: string | null; order: number; createdAt: Date }[];
}

export async function productInSite(q: Q, siteId: number, productId: number): Promise<ProductRow> {
  const p = (
    await q
      .select()
      .from(products)
      .where(and(eq(products.id, productId), eq(products.siteId, siteId)))
      .limit(1)
  )[0];
  if (!p) throw notFound(`Product ${productId} not found on site ${siteId}.`);
  return p;
}

export async function variantInSite(
  q: Q,
  siteId: number,
  variantId: number,
): Promise<{ variant: VariantRow; product: ProductRow }> {
  const row = (
    await q
      .select({ variant: productVariants, product: products })
      .from(productVariants)
      .innerJoin(products, eq(products.id, productVariants.productId))
      .where(and(eq(productVariants.id, variantId), eq(products.siteId, siteId)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Variant ${variantId} not found on site ${siteId}.`);
  return row;
}

export async function optionTree(q: Q, productId: number): Promise<OptionTree[]> {
  const opts = await q
    .select()
    .from(productOptions)
    .where(eq(productOptions.productId, productId))
    .orderBy(asc(productOptions.order), asc(productOptions.id));
  if (opts.length === 0) return [];
  const values = await q
    .select()
    .from(productOptionValues)
    .where(
      inArray(
        productOptionValues.optionId,
        opts.map((o) => o.id),
      ),
    )
    .orderBy(asc(productOptionValues.order), asc(productOptionValues.id));
  return opts.map((o) => ({
    id: o.id,
    name: o.name,
    order: o.order,
    createdAt: o.createdAt,
    values: values
      .filter((v) => v.optionId === o.id)
      .map((v) => ({ id: v.id, value: v.value, label: v.label, order: v.order, createdAt: v.createdAt })),
  }));
}

export async function variantsOf(q: Q, productId: number): Promise<VariantRow[]> {
  return await q
    .select()
    .from(productVariants)
    .where(eq(productVariants.productId, productId))
    .orderBy(asc(productVariants.id));
}

/** A stable key for a combination, independent of the order its pairs were given in. */
export function comboKey(c: Combination): string {
  return [...c]
    .sort((a, b) => a.optionId - b.optionId)
    .map((p) => `${p.optionId}:${p.valueId}`)
    .join(",");
}

/** Null when `combo` picks exactly one existing value of every option; otherwise why not. */
export function comboProblem(tree: OptionTree[], combo: Combination): string | null {
  if (tree.length === 0) return "the product has no options, so it cannot have variants";
  const seen = new Set<number>();
  for (const p of combo) {
    const opt = tree.find((o) => o.id === p.optionId);
    if (!opt) return `option ${p.optionId} does not exist on this product`;
    if (seen.has(p.optionId)) return `option "${opt.name}" is given twice`;
    seen.add(p.optionId);
    if (!opt.values.some((val) => val.id === p.valueId))
      return `value ${p.valueId} is not a value of option "${opt.name}"`;
  }
  const missing = tree.filter((o) => !seen.has(o.id)).map((o) => `"${o.name}"`);
  if (missing.length) return `a value is missing for ${missing.join(", ")}`;
  return null;
}

async function imagesOf(q: Q, productId: number) {
  return await q
    .select()
    .from(productImages)
    .where(eq(productImages.productId, productId))
    .orderBy(asc(productImages.order), asc(productImages.id));
}

/** A variant as ProductVariant (the same view REST serves). */
export const variantOut = (v: VariantRow) => variantView(v);

/**
 * The product as ProductDetail (interface.md 2.5) plus, for the portal's
 * agents, inactive variants too (each carries `active`). REST serves the
 * same rows through its own read with inactive variants filtered out.
 */
export async function productDetail(q: Q, p: ProductRow) {
  const tree = await optionTree(q, p.id);
  const category = p.categoryId
    ? ((
        await q
          .select({ id: productCategories.id, name: productCategories.name, slug: productCategories.slug })
          .from(productCategories)
          .where(eq(productCategories.id, p.categoryId))
          .limit(1)
      )[0] ?? null)
    : null;
  const rules = await q
    .select()
    .from(bulkPricingRules)
    .where(eq(bulkPricingRules.productId, p.id))
    .orderBy(asc(bulkPricingRules.variantId), asc(bulkPricingRules.minQuantity));
  return {
    ...productFieldsView(p, p.categoryId),
    images: (await imagesOf(q, p.id)).map(productImageView),
    options: tree.map((o) => ({
      id: o.id,
      productId: p.id,
      name: o.name,
      order: o.order,
      createdAt: iso(o.createdAt)!,
      values: o.values.map((val) => ({
        id: val.id,
        optionId: o.id,
        value: val.value,
        label: val.label,
        order: val.order,
        createdAt: iso(val.createdAt)!,
      })),
    })),
    variants: (await variantsOf(q, p.id)).map(variantOut),
    bulkPricing: rules.map(bulkRuleView),
    category,
  };
}
