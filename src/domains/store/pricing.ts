/**
 * Pricing, pure and exact. Everything here takes and returns integer cents;
 * intermediate products run in BigInt so nothing can lose precision.
 *
 * Rounding rule (written once, here): a `percent_off` bulk rule of `bp` basis
 * points turns a unit price `p` into round-half-up(p × (10000 − bp) / 10000),
 * computed once per unit; a line total is that unit price × quantity, and an
 * order subtotal is the exact sum of its line totals. A percent discount code
 * takes round-half-up(subtotal × bp / 10000) off the subtotal, once per order.
 *
 * @example
 * unitPrice(999, rules, 12, null)    // 10 % off from 10 units: 899 (899.1 rounds down)
 * orderTotals([{ unitPrice: 899, quantity: 12 }], { kind: "percent", amount: 500 })
 * // { lineTotals: [10788], subtotal: 10788, discountTotal: 539, total: 10249 }
 */
import { invalid } from "../../core/errors";
import { MAX_BASIS_POINTS, MAX_ORDER_CENTS, divRoundHalfUp } from "./money";

export interface BulkRule {
  id?: number;
  variantId: number | null;
  minQuantity: number;
  maxQuantity: number | null;
  priceType: "fixed" | "percent_off";
  amount: number;
}

function matches(rule: BulkRule, quantity: number): boolean {
  return rule.minQuantity <= quantity && (rule.maxQuantity === null || quantity <= rule.maxQuantity);
}

/** The rule that applies to `quantity` units: a rule for this variant wins over a product-wide one. */
export function applicableRule(
  rules: readonly BulkRule[],
  quantity: number,
  variantId: number | null,
): BulkRule | null {
  if (variantId !== null) {
    const own = rules.find((r) => r.variantId === variantId && matches(r, quantity));
    if (own) return own;
  }
  return rules.find((r) => r.variantId === null && matches(r, quantity)) ?? null;
}

export function applyRule(basePrice: number, rule: BulkRule | null): number {
  if (!rule) return basePrice;
  if (rule.priceType === "fixed") return rule.amount;
  const keep = BigInt(MAX_BASIS_POINTS - rule.amount);
  return Number(divRoundHalfUp(BigInt(basePrice) * keep, BigInt(MAX_BASIS_POINTS)));
}

/** Unit price in cents for `quantity` units of a product (variantId null) or one of its variants. */
export function unitPrice(basePrice: number, rules: readonly BulkRule[], quantity: number, variantId: number | null) {
  const rule = applicableRule(rules, quantity, variantId);
  return { unitPrice: applyRule(basePrice, rule), rule };
}

export interface DiscountTerms {
  kind: "percent" | "fixed";
  /** percent: basis points; fixed: cents. */
  amount: number;
}

export interface Totals {
  lineTotals: number[];
  subtotal: number;
  discountTotal: number;
  total: number;
}

/**
 * Line totals, subtotal, discount and total. Refuses (validation error) an
 * order whose subtotal would pass MAX_ORDER_CENTS, so every number returned
 * is a safe integer.
 */
export function orderTotals(
  lines: readonly { unitPrice: number; quantity: number }[],
  discount?: DiscountTerms | null,
): Totals {
  const lineTotals = lines.map((l) => BigInt(l.unitPrice) * BigInt(l.quantity));
  const subtotal = lineTotals.reduce((a, b) => a + b, 0n);
  if (subtotal > BigInt(MAX_ORDER_CENTS))
    throw invalid(`The order subtotal would exceed the maximum of ${MAX_ORDER_CENTS} cents.`);
  let discountTotal = 0n;
  if (discount) {
    discountTotal =
      discount.kind === "percent"
        ? divRoundHalfUp(subtotal * BigInt(discount.amount), BigInt(MAX_BASIS_POINTS))
        : BigInt(discount.amount);
    if (discountTotal > subtotal) discountTotal = subtotal; // a discount never makes a total negative
  }
  return {
    lineTotals: lineTotals.map(Number),
    subtotal: Number(subtotal),
    discountTotal: Number(discountTotal),
    total: Number(subtotal - discountTotal),
  };
}

/**
 * Bulk rules of one scope (the same variant, or product-wide) must not
 * overlap, or the price of a quantity would be ambiguous. Returns the first
 * overlapping pair, or null.
 */
export function findOverlap(rules: readonly BulkRule[]): [BulkRule, BulkRule] | null {
  const byScope = new Map<number | null, BulkRule[]>();
  for (const r of rules) {
    const list = byScope.get(r.variantId) ?? [];
    list.push(r);
    byScope.set(r.variantId, list);
  }
  for (const list of byScope.values()) {
    const sorted = [...list].sort((a, b) => a.minQuantity - b.minQuantity);
    for (let i = 1; i < sorted.length; i++) {
      const prev = sorted[i - 1]!;
      const cur = sorted[i]!;
      if (prev.maxQuantity === null || cur.minQuantity <= prev.maxQuantity) return [prev, cur];
    }
  }
  return null;
}
