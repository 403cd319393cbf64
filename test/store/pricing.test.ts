/** The pricing function against hand-computed cases (see the rounding rule in pricing.ts). */
import { describe, expect, test } from "bun:test";
import { MAX_ORDER_CENTS } from "../../src/domains/store/money";
import { findOverlap, orderTotals, unitPrice, type BulkRule } from "../../src/domains/store/pricing";

const rules: BulkRule[] = [
  { variantId: null, minQuantity: 10, maxQuantity: 49, priceType: "percent_off", amount: 1000 },
  { variantId: null, minQuantity: 50, maxQuantity: null, priceType: "fixed", amount: 700 },
  { variantId: 7, minQuantity: 5, maxQuantity: null, priceType: "fixed", amount: 850 },
];

describe("unitPrice", () => {
  test("no rule below the first tier", () => {
    expect(unitPrice(999, rules, 1, null)).toEqual({ unitPrice: 999, rule: null });
    expect(unitPrice(999, rules, 9, null).unitPrice).toBe(999);
  });
  test("percent_off rounds the unit price half up, once per unit", () => {
    // 999 × 0.9 = 899.1 → 899
    expect(unitPrice(999, rules, 10, null).unitPrice).toBe(899);
    expect(unitPrice(999, rules, 49, null).unitPrice).toBe(899);
    // 105 × 0.5 = 52.5 → 53 (half up); 1 × 0.5 = 0.5 → 1
    const half: BulkRule[] = [
      { variantId: null, minQuantity: 1, maxQuantity: null, priceType: "percent_off", amount: 5000 },
    ];
    expect(unitPrice(105, half, 1, null).unitPrice).toBe(53);
    expect(unitPrice(1, half, 1, null).unitPrice).toBe(1);
    // 3 × 0.6667 = 2.0001 → 2
    const third: BulkRule[] = [
      { variantId: null, minQuantity: 1, maxQuantity: null, priceType: "percent_off", amount: 3333 },
    ];
    expect(unitPrice(3, third, 1, null).unitPrice).toBe(2);
    // 100 % off is free, not negative
    const all: BulkRule[] = [
      { variantId: null, minQuantity: 1, maxQuantity: null, priceType: "percent_off", amount: 10000 },
    ];
    expect(unitPrice(12345, all, 3, null).unitPrice).toBe(0);
  });
  test("fixed tier with an open upper bound", () => {
    expect(unitPrice(999, rules, 50, null).unitPrice).toBe(700);
    expect(unitPrice(999, rules, 1_000_000, null).unitPrice).toBe(700);
  });
  test("a variant's own rule wins over the product-wide one", () => {
    expect(unitPrice(1200, rules, 10, 7).unitPrice).toBe(850);
    expect(unitPrice(1200, rules, 60, 7).unitPrice).toBe(850);
  });
  test("a variant without a matching own rule falls back to product-wide rules", () => {
    expect(unitPrice(1200, rules, 3, 7).unitPrice).toBe(1200);
    expect(unitPrice(1200, rules, 10, 8).unitPrice).toBe(1080);
  });
  test("another variant's rule never applies to a product-level line", () => {
    expect(unitPrice(999, rules, 5, null).unitPrice).toBe(999);
  });
});

describe("orderTotals", () => {
  const lines = [
    { unitPrice: 899, quantity: 12 }, // 10788
    { unitPrice: 700, quantity: 50 }, // 35000
    { unitPrice: 53, quantity: 3 }, //   159
  ];
  test("subtotal is the exact sum of the lines", () => {
    expect(orderTotals(lines)).toEqual({
      lineTotals: [10788, 35000, 159],
      subtotal: 45947,
      discountTotal: 0,
      total: 45947,
    });
  });
  test("percent discount rounds half up once on the subtotal", () => {
    // 45947 × 12.5 % = 5743.375 → 5743
    expect(orderTotals(lines, { kind: "percent", amount: 1250 })).toMatchObject({ discountTotal: 5743, total: 40204 });
    // 10 × 5 % = 0.5 → 1
    expect(orderTotals([{ unitPrice: 5, quantity: 2 }], { kind: "percent", amount: 500 })).toMatchObject({
      discountTotal: 1,
      total: 9,
    });
  });
  test("a fixed discount never takes the total below zero", () => {
    expect(orderTotals(lines, { kind: "fixed", amount: 1000 })).toMatchObject({ discountTotal: 1000, total: 44947 });
    expect(orderTotals(lines, { kind: "fixed", amount: 99_999 })).toMatchObject({ discountTotal: 45947, total: 0 });
    // At the exact cent: one more than the subtotal is free (never -1), the subtotal itself free, one less leaves a cent.
    expect(orderTotals(lines, { kind: "fixed", amount: 45948 })).toMatchObject({
      subtotal: 45947,
      discountTotal: 45947,
      total: 0,
    });
    expect(orderTotals(lines, { kind: "fixed", amount: 45947 })).toMatchObject({ discountTotal: 45947, total: 0 });
    expect(orderTotals(lines, { kind: "fixed", amount: 45946 })).toMatchObject({ discountTotal: 45946, total: 1 });
  });
  test("no drift across many lines with awkward amounts", () => {
    const many = Array.from({ length: 100 }, (_, i) => ({ unitPrice: 333 + i, quantity: 3 }));
    const t = orderTotals(many, { kind: "percent", amount: 3333 });
    expect(t.subtotal).toBe(t.lineTotals.reduce((a, b) => a + b, 0));
    // Σ (333+i)·3 for i < 100 = 3·(33300 + 4950) = 114750; 114750 × 0.3333 = 38246.175 → 38246
    expect(t).toMatchObject({ subtotal: 114750, discountTotal: 38246, total: 76504 });
  });
  test("an order above the cap is refused instead of losing precision", () => {
    expect(() => orderTotals([{ unitPrice: 10_000_000_000, quantity: 1_000_000 }])).toThrow(/exceed/);
    const atCap = orderTotals([{ unitPrice: MAX_ORDER_CENTS / 1_000_000, quantity: 1_000_000 }], {
      kind: "percent",
      amount: 9999,
    });
    expect(atCap.subtotal).toBe(MAX_ORDER_CENTS);
    expect(Number.isSafeInteger(atCap.discountTotal)).toBe(true);
    expect(atCap.discountTotal + atCap.total).toBe(MAX_ORDER_CENTS);
  });
});

describe("findOverlap", () => {
  const r = (variantId: number | null, min: number, max: number | null): BulkRule => ({
    variantId,
    minQuantity: min,
    maxQuantity: max,
    priceType: "fixed",
    amount: 1,
  });
  test("adjacent ranges do not overlap", () => {
    expect(findOverlap([r(null, 1, 9), r(null, 10, 19), r(null, 20, null)])).toBeNull();
  });
  test("a shared boundary overlaps", () => {
    expect(findOverlap([r(null, 10, 20), r(null, 1, 10)])).toEqual([r(null, 1, 10), r(null, 10, 20)]);
  });
  test("an open-ended range overlaps everything above it", () => {
    expect(findOverlap([r(null, 5, null), r(null, 100, 200)])).not.toBeNull();
  });
  test("different scopes may cover the same quantities", () => {
    expect(findOverlap([r(null, 1, null), r(3, 1, null), r(4, 1, 10)])).toBeNull();
    expect(findOverlap([r(3, 1, 10), r(3, 5, 6)])).not.toBeNull();
  });
});
