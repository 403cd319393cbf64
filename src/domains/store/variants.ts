/**
 * Options, variants and bulk pricing of a product. A variant picks exactly
 * one value of every option of its product, and no two variants pick the
 * same combination; callers name values as { "Size": "M" } and we store the
 * ids. Replacing options keeps the ids of options and values whose name or
 * value is unchanged, so existing variants stay valid where they can.
 */
import { eq, inArray } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { conflict, invalid } from "../../core/errors";
import { mutate, checkImageUrl, clean, storeWrite, type Q } from "./access";
import {
  comboKey,
  comboProblem,
  optionTree,
  productInSite,
  variantInSite,
  variantsOf,
  type Combination,
  type OptionTree,
  type ProductRow,
  type VariantRow,
} from "./catalog";
import { MAX_BASIS_POINTS, MAX_CENTS } from "./money";
import { findOverlap, type BulkRule } from "./pricing";
import {
  MAX_VARIANTS,
  type bulkPricingSetInput,
  type bulkRuleInput,
  type optionPrices,
  type optionsInput,
  type productOptionsSetInput,
  type variantCreateInput,
  type variantInput,
  type variantRef,
  type variantsGenerateInput,
  type variantUpdateInput,
} from "./schemas";
import { bulkPricingRules, orderItems, productOptions, productOptionValues, products, productVariants } from "./tables";
import { mapSeq } from "../../core/maybe";
import type { Tx } from "../../core/db";

type OptionsInput = v.InferOutput<typeof optionsInput>;
type VariantInput = v.InferOutput<typeof variantInput>;
type RuleInput = v.InferOutput<typeof bulkRuleInput>;
type OptionPrices = v.InferOutput<typeof optionPrices>;

/** How a write result names a variant it created. */
export const variantBrief = (x: VariantRow) => ({ id: x.id, name: x.name, price: x.price });

const fold = (s: string) => s.trim().toLowerCase();

export function checkCompareAt(price: number, compareAt: number | null | undefined, what: string) {
  if (compareAt !== null && compareAt !== undefined && compareAt <= price)
    throw invalid(
      `${what}compareAtPrice (${compareAt}) must be above price (${price}) when set; use null to clear it.`,
    );
}

/**
 * Writes the option list of a product, reusing the ids of options (matched
 * by name) and values (matched by value) that survive. Returns the new tree.
 */
export async function writeOptions(tx: Tx, productId: number, input: OptionsInput, now: Date): Promise<OptionTree[]> {
  const names = new Set<string>();
  for (const o of input) {
    const n = fold(o.name);
    if (names.has(n)) throw invalid(`Option "${o.name.trim()}" is given twice.`);
    names.add(n);
    const vals = new Set<string>();
    for (const raw of o.values) {
      const val = fold(typeof raw === "string" ? raw : raw.value);
      if (vals.has(val)) throw invalid(`Option "${o.name.trim()}" lists the value "${val}" twice.`);
      vals.add(val);
    }
  }
  const before = await optionTree(tx, productId);
  const keptOptionIds = new Set<number>();
  await mapSeq(input, async (o, oi) => {
    const existing = before.find((b) => fold(b.name) === fold(o.name));
    let optionId: number;
    if (existing) {
      optionId = existing.id;
      await tx.update(productOptions).set({ name: o.name.trim(), order: oi }).where(eq(productOptions.id, optionId));
    } else {
      optionId = (
        await tx
          .insert(productOptions)
          .values({ productId, name: o.name.trim(), order: oi, createdAt: now })
          .returning({ id: productOptions.id })
      )[0].id;
    }
    keptOptionIds.add(optionId);
    const keptValueIds = new Set<number>();
    await mapSeq(o.values, async (raw, vi) => {
      const value = (typeof raw === "string" ? raw : raw.value).trim();
      const label = typeof raw === "string" ? null : (clean(raw.label) ?? null);
      const old = existing?.values.find((x) => fold(x.value) === fold(value));
      if (old) {
        await tx.update(productOptionValues).set({ value, label, order: vi }).where(eq(productOptionValues.id, old.id));
        keptValueIds.add(old.id);
      } else {
        const id = (
          await tx
            .insert(productOptionValues)
            .values({ optionId, value, label, order: vi, createdAt: now })
            .returning({ id: productOptionValues.id })
        )[0].id;
        keptValueIds.add(id);
      }
    });
    const dropValues = (existing?.values ?? []).filter((x) => !keptValueIds.has(x.id)).map((x) => x.id);
    if (dropValues.length) await tx.delete(productOptionValues).where(inArray(productOptionValues.id, dropValues));
  });
  const dropOptions = before.filter((b) => !keptOptionIds.has(b.id)).map((b) => b.id);
  if (dropOptions.length) await tx.delete(productOptions).where(inArray(productOptions.id, dropOptions));
  return await optionTree(tx, productId);
}

/** { "Size": "m" } → [{ optionId, valueId }]; names and values match case-insensitively, values by value or label. */
export function resolveCombination(tree: OptionTree[], map: Record<string, string>): Combination {
  if (tree.length === 0)
    throw invalid("This product has no options, so it cannot have variants; set its options first.");
  const combo: Combination = [];
  for (const [name, value] of Object.entries(map)) {
    const opt = tree.find((o) => fold(o.name) === fold(name));
    if (!opt)
      throw invalid(
        `"${name}" is not an option of this product; its options are ${tree.map((o) => `"${o.name}"`).join(", ")}.`,
      );
    const val = opt.values.find(
      (x) => fold(x.value) === fold(value) || (x.label !== null && fold(x.label) === fold(value)),
    );
    if (!val)
      throw invalid(
        `"${value}" is not a value of option "${opt.name}"; its values are ${opt.values.map((x) => `"${x.value}"`).join(", ")}.`,
      );
    if (combo.some((p) => p.optionId === opt.id)) throw invalid(`Option "${opt.name}" is given twice.`);
    combo.push({ optionId: opt.id, valueId: val.id });
  }
  const problem = comboProblem(tree, combo);
  if (problem) throw invalid(`Invalid variant options: ${problem}.`);
  return sortCombo(tree, combo);
}

function sortCombo(tree: OptionTree[], combo: Combination): Combination {
  const pos = (id: number) => tree.findIndex((o) => o.id === id);
  return [...combo].sort((a, b) => pos(a.optionId) - pos(b.optionId));
}

function comboName(tree: OptionTree[], combo: Combination): string {
  return sortCombo(tree, combo)
    .map((p) => {
      const val = tree.find((o) => o.id === p.optionId)!.values.find((x) => x.id === p.valueId)!;
      return val.label ?? val.value;
    })
    .join(" / ");
}

function variantValues(input: Partial<VariantInput>) {
  if (input.image) checkImageUrl(input.image, "image");
  const out: Partial<typeof productVariants.$inferInsert> = {};
  if (input.name !== undefined) out.name = input.name.trim();
  if (input.sku !== undefined) out.sku = clean(input.sku) ?? null;
  if (input.barcode !== undefined) out.barcode = clean(input.barcode) ?? null;
  if (input.price !== undefined) out.price = input.price;
  if (input.compareAtPrice !== undefined) out.compareAtPrice = input.compareAtPrice;
  if (input.costPrice !== undefined) out.costPrice = input.costPrice;
  if (input.quantity !== undefined) out.quantity = input.quantity;
  if (input.weight !== undefined) out.weight = clean(input.weight) ?? null;
  if (input.image !== undefined) out.image = input.image;
  if (input.lengthIn !== undefined) out.lengthIn = input.lengthIn;
  if (input.widthIn !== undefined) out.widthIn = input.widthIn;
  if (input.heightIn !== undefined) out.heightIn = input.heightIn;
  if (input.active !== undefined) out.active = input.active;
  return out;
}

/**
 * optionPrices ({ "Size": { "L": 300 } }) resolved against the tree: value id →
 * cents added. Names and values match as variant options do (case-insensitive,
 * value or label); anything that names no option or value is refused.
 */
export function resolveOptionPrices(tree: OptionTree[], prices: OptionPrices | undefined): Map<number, number> {
  const out = new Map<number, number>();
  if (tree.length === 0 && Object.keys(prices ?? {}).length)
    throw invalid("optionPrices need options, and this product has none; set its options first.");
  for (const [name, values] of Object.entries(prices ?? {})) {
    const opt = tree.find((o) => fold(o.name) === fold(name));
    if (!opt)
      throw invalid(
        `optionPrices: "${name}" is not an option of this product; its options are ${tree.map((o) => `"${o.name}"`).join(", ")}.`,
      );
    for (const [value, amount] of Object.entries(values)) {
      const val = opt.values.find(
        (x) => fold(x.value) === fold(value) || (x.label !== null && fold(x.label) === fold(value)),
      );
      if (!val)
        throw invalid(
          `optionPrices.${opt.name}: "${value}" is not a value of option "${opt.name}"; its values are ${opt.values.map((x) => `"${x.value}"`).join(", ")}.`,
        );
      if (out.has(val.id)) throw invalid(`optionPrices.${opt.name} prices the value "${val.value}" twice.`);
      out.set(val.id, amount);
    }
  }
  return out;
}

/** The base price plus the option prices of a combination; refused when it leaves 0 … MAX_CENTS. */
function comboPrice(base: number, combo: Combination, deltas: Map<number, number>, name: string): number {
  const price = combo.reduce((sum, p) => sum + (deltas.get(p.valueId) ?? 0), base);
  if (price < 0 || price > MAX_CENTS)
    throw invalid(
      `Variant "${name}" would cost ${price} cents (base ${base} plus its optionPrices); a price is 0 to ${MAX_CENTS} cents.`,
    );
  return price;
}

/**
 * Inserts variants after checking combinations against the tree, each other
 * and what exists. A variant given without a price costs the product's price
 * plus its optionPrices (`deltas`).
 */
export async function insertVariants(
  tx: Tx,
  product: ProductRow,
  tree: OptionTree[],
  inputs: VariantInput[],
  now: Date,
  deltas = new Map<number, number>(),
): Promise<VariantRow[]> {
  const existing = await variantsOf(tx, product.id);
  if (existing.length + inputs.length > MAX_VARIANTS)
    throw invalid(
      `A product has at most ${MAX_VARIANTS} variants; it has ${existing.length} and ${inputs.length} more were given.`,
    );
  const taken = new Map(existing.map((x) => [comboKey(x.optionValues), x]));
  const givenHere = new Set<string>();
  return await mapSeq(inputs, async (input) => {
    const combo = resolveCombination(tree, input.options);
    const key = comboKey(combo);
    // A variant given earlier in this call is not named by id: if the call fails, that row never existed.
    if (givenHere.has(key))
      throw conflict(
        `Two of the variants given have the same options (${comboName(tree, combo)}); give each combination once.`,
      );
    const clash = taken.get(key);
    if (clash) throw conflict(`A variant with this combination already exists (variant ${clash.id}, "${clash.name}").`);
    const fields = variantValues(input);
    const price = fields.price ?? comboPrice(product.price, combo, deltas, comboName(tree, combo));
    checkCompareAt(price, fields.compareAtPrice, `Variant "${comboName(tree, combo)}": `);
    const row = (
      await tx
        .insert(productVariants)
        .values({
          ...fields,
          productId: product.id,
          name: fields.name ?? comboName(tree, combo),
          price,
          optionValues: combo,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    givenHere.add(key);
    taken.set(key, row);
    return row;
  });
}

/**
 * Creates a variant for every combination of option values that has none
 * yet, priced `base` plus its optionPrices. The full grid is capped at
 * MAX_VARIANTS: a bigger one is refused before anything is written.
 */
export async function generateMissing(
  tx: Tx,
  product: ProductRow,
  tree: OptionTree[],
  opts: { base: number; quantity: number | null; active: boolean; deltas: Map<number, number> },
  now: Date,
) {
  if (tree.length === 0)
    throw invalid("This product has no options; set options (e.g. Size: S, M, L) before generating variants.");
  const count = tree.reduce((n, o) => n * o.values.length, 1);
  if (count > MAX_VARIANTS)
    throw invalid(
      `The options make ${count} combinations (${tree.map((o) => `${o.values.length} ${o.name}`).join(" × ")}); at most ${MAX_VARIANTS} variants can be generated. Remove some option values.`,
    );
  let combos: Combination[] = [[]];
  for (const o of tree) combos = combos.flatMap((c) => o.values.map((x) => [...c, { optionId: o.id, valueId: x.id }]));
  const existing = await variantsOf(tx, product.id);
  const taken = new Set(existing.map((x) => comboKey(x.optionValues)));
  const fresh = combos.filter((c) => !taken.has(comboKey(c)));
  if (existing.length + fresh.length > MAX_VARIANTS)
    throw invalid(
      `The product would have ${existing.length + fresh.length} variants; the maximum is ${MAX_VARIANTS}. Delete variants that no longer fit first.`,
    );
  const priced = fresh.map((combo) => {
    const name = comboName(tree, combo);
    return { combo, name, price: comboPrice(opts.base, combo, opts.deltas, name) };
  });
  const created = await mapSeq(
    priced,
    async (x) =>
      (
        await tx
          .insert(productVariants)
          .values({
            productId: product.id,
            name: x.name,
            price: x.price,
            quantity: opts.quantity,
            active: opts.active,
            optionValues: x.combo,
            createdAt: now,
            updatedAt: now,
          })
          .returning()
      )[0],
  );
  return { created, skippedExisting: combos.length - fresh.length };
}

/** Checks and resolves bulk rules; variants may be named by id or by their option values. */
export async function prepareRules(
  q: Q,
  productId: number,
  tree: OptionTree[],
  inputs: RuleInput[],
): Promise<BulkRule[]> {
  const variants = await variantsOf(q, productId);
  const rules = inputs.map((r, i): BulkRule => {
    const where = `Bulk pricing rule ${i + 1}`;
    if (r.variantId != null && r.variantOptions) throw invalid(`${where}: give variantId or variantOptions, not both.`);
    let variantId: number | null = null;
    if (r.variantId != null) {
      if (!variants.some((x) => x.id === r.variantId))
        throw invalid(`${where}: variant ${r.variantId} is not a variant of this product.`);
      variantId = r.variantId;
    } else if (r.variantOptions) {
      const key = comboKey(resolveCombination(tree, r.variantOptions));
      const match = variants.find((x) => comboKey(x.optionValues) === key);
      if (!match) throw invalid(`${where}: no variant has those options; create it first.`);
      variantId = match.id;
    }
    const max = r.maxQuantity ?? null;
    if (max !== null && max < r.minQuantity)
      throw invalid(`${where}: maxQuantity (${max}) is below minQuantity (${r.minQuantity}).`);
    if (r.priceType === "fixed" && r.amount > MAX_CENTS)
      throw invalid(`${where}: a fixed amount is a price in cents, at most ${MAX_CENTS}.`);
    if (r.priceType === "percent_off" && (r.amount < 1 || r.amount > MAX_BASIS_POINTS))
      throw invalid(`${where}: percent_off is in basis points, 1 to ${MAX_BASIS_POINTS} (1000 = 10 %).`);
    return { variantId, minQuantity: r.minQuantity, maxQuantity: max, priceType: r.priceType, amount: r.amount };
  });
  const overlap = findOverlap(rules);
  if (overlap) {
    const fmt = (r: BulkRule) => `${r.minQuantity}–${r.maxQuantity ?? "∞"}`;
    // By name, not id: in products_create the variant was made by this call, and a refused call leaves no row behind.
    const named = variants.find((x) => x.id === overlap[0].variantId);
    const scope =
      overlap[0].variantId === null
        ? "product-wide rules"
        : `rules for variant "${named?.name ?? overlap[0].variantId}"`;
    throw invalid(
      `Bulk pricing quantity ranges overlap (${scope}: ${fmt(overlap[0])} and ${fmt(overlap[1])}); each quantity may match one rule per scope.`,
    );
  }
  return rules;
}

export async function replaceRules(tx: Tx, productId: number, rules: BulkRule[], now: Date) {
  await tx.delete(bulkPricingRules).where(eq(bulkPricingRules.productId, productId));
  for (const r of rules) await tx.insert(bulkPricingRules).values({ ...r, productId, createdAt: now });
}

/**
 * Deletes variants. Order lines that took stock from them keep their record
 * but have nowhere to return it to, so a later cancel must not put it on the
 * product instead (their variant link becomes null on delete).
 */
async function dropVariants(tx: Tx, ids: number[]) {
  if (!ids.length) return;
  await tx.update(orderItems).set({ stockTaken: false }).where(inArray(orderItems.variantId, ids));
  await tx.delete(productVariants).where(inArray(productVariants.id, ids));
}

async function touch(tx: Tx, productId: number, now: Date) {
  await tx.update(products).set({ updatedAt: now }).where(eq(products.id, productId));
}

/** An active product with options must keep at least one active variant, or nothing could be bought. */
export async function assertSellable(q: Q, product: ProductRow) {
  if (product.status !== "active") return;
  const tree = await optionTree(q, product.id);
  if (tree.length === 0) return;
  if (!(await variantsOf(q, product.id)).some((x) => x.active))
    throw conflict(
      `Product ${product.id} is active and has options, so it needs at least one active variant; set it inactive first or add a variant.`,
    );
}

// Verbs

export async function setProductOptions(ctx: ActorContext, input: v.InferOutput<typeof productOptionsSetInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const product = await productInSite(tx, input.siteId, input.productId);
    const tree = await writeOptions(tx, product.id, input.options, now);
    const invalidVariants = (await variantsOf(tx, product.id)).filter(
      (x) => comboProblem(tree, x.optionValues) !== null,
    );
    if (invalidVariants.length && !input.deleteInvalidVariants)
      throw conflict(
        `These variants would no longer match the options: ${invalidVariants.map((x) => `${x.id} ("${x.name}")`).join(", ")}. ` +
          "Pass deleteInvalidVariants: true to delete them, or keep their option values.",
        { variantIds: invalidVariants.map((x) => x.id) },
      );
    await dropVariants(
      tx,
      invalidVariants.map((x) => x.id),
    );
    await touch(tx, product.id, now);
    await assertSellable(tx, product);
    await audit(tx, ctx, "products.options_set", {
      type: "product",
      id: product.id,
      siteId: input.siteId,
      detail: { options: tree.length, deletedVariants: invalidVariants.length },
    });
    return {
      id: product.id,
      slug: product.slug,
      status: product.status,
      options: tree.map((o) => ({
        id: o.id,
        name: o.name,
        values: o.values.map((x) => ({ id: x.id, value: x.value, label: x.label })),
      })),
      deletedVariantIds: invalidVariants.map((x) => x.id),
    };
  });
}

export async function createVariant(ctx: ActorContext, input: v.InferOutput<typeof variantCreateInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const product = await productInSite(tx, input.siteId, input.productId);
    const { siteId: _s, productId: _p, ...variant } = input;
    const [row] = await insertVariants(tx, product, await optionTree(tx, product.id), [variant], now);
    await touch(tx, product.id, now);
    await audit(tx, ctx, "product_variants.create", {
      type: "product_variant",
      id: row!.id,
      siteId: input.siteId,
      detail: { productId: product.id },
    });
    return {
      id: row!.id,
      productId: product.id,
      name: row!.name,
      price: row!.price,
      active: row!.active,
      optionValues: row!.optionValues,
    };
  });
}

export async function updateVariant(ctx: ActorContext, input: v.InferOutput<typeof variantUpdateInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const { variant, product } = await variantInSite(tx, input.siteId, input.id);
    const { siteId: _s, id: _v, options, ...rest } = input;
    const fields = variantValues(rest);
    if (options) {
      const tree = await optionTree(tx, product.id);
      const combo = resolveCombination(tree, options);
      const clash = (await variantsOf(tx, product.id)).find(
        (x) => x.id !== variant.id && comboKey(x.optionValues) === comboKey(combo),
      );
      if (clash)
        throw conflict(`A variant with this combination already exists (variant ${clash.id}, "${clash.name}").`);
      fields.optionValues = combo;
    }
    const price = fields.price ?? variant.price;
    const compareAt = fields.compareAtPrice !== undefined ? fields.compareAtPrice : variant.compareAtPrice;
    checkCompareAt(price, compareAt, "");
    const row = (
      await tx
        .update(productVariants)
        .set({ ...fields, updatedAt: now })
        .where(eq(productVariants.id, variant.id))
        .returning()
    )[0];
    await touch(tx, product.id, now);
    await assertSellable(tx, product);
    await audit(tx, ctx, "product_variants.update", {
      type: "product_variant",
      id: variant.id,
      siteId: input.siteId,
      detail: { fields: Object.keys(fields) },
    });
    return {
      id: row.id,
      productId: product.id,
      name: row.name,
      price: row.price,
      active: row.active,
      optionValues: row.optionValues,
    };
  });
}

export async function deleteVariant(ctx: ActorContext, input: v.InferOutput<typeof variantRef>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const { variant, product } = await variantInSite(tx, input.siteId, input.id);
    await dropVariants(tx, [variant.id]);
    await touch(tx, product.id, now);
    await assertSellable(tx, product);
    await audit(tx, ctx, "product_variants.delete", {
      type: "product_variant",
      id: variant.id,
      siteId: input.siteId,
      detail: { productId: product.id, name: variant.name },
    });
    return { id: variant.id, productId: product.id, status: "deleted" };
  });
}

export async function generateVariants(ctx: ActorContext, input: v.InferOutput<typeof variantsGenerateInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const product = await productInSite(tx, input.siteId, input.productId);
    const tree = await optionTree(tx, product.id);
    const deltas = resolveOptionPrices(tree, input.optionPrices);
    const { created, skippedExisting } = await generateMissing(
      tx,
      product,
      tree,
      { base: input.price ?? product.price, quantity: input.quantity ?? null, active: input.active, deltas },
      now,
    );
    await touch(tx, product.id, now);
    await audit(tx, ctx, "product_variants.generate", {
      type: "product",
      id: product.id,
      siteId: input.siteId,
      detail: { created: created.length },
    });
    return {
      id: product.id,
      slug: product.slug,
      status: product.status,
      created: created.map(variantBrief),
      skippedExisting,
    };
  });
}

export async function setBulkPricing(ctx: ActorContext, input: v.InferOutput<typeof bulkPricingSetInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const product = await productInSite(tx, input.siteId, input.productId);
    const rules = await prepareRules(tx, product.id, await optionTree(tx, product.id), input.rules);
    await replaceRules(tx, product.id, rules, now);
    await touch(tx, product.id, now);
    await audit(tx, ctx, "products.bulk_pricing_set", {
      type: "product",
      id: product.id,
      siteId: input.siteId,
      detail: { rules: rules.length },
    });
    return { id: product.id, slug: product.slug, status: product.status, rules: rules.length };
  });
}
