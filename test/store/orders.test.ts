/** Orders: catalog pricing with bulk tiers and discounts checked against hand-computed totals, stock, lifecycle. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
// The domain list first, as the server loads it: entered from store/tools, the
// store → approvals → domain list import cycle meets storeDomain uninitialised.
import "../../src/domains";
import { DAY_MS } from "../../src/core/clock";
import { storeDomain } from "../../src/domains/store/tools";
import { auditLog } from "../../src/domains/accounts/tables";
import { eq } from "drizzle-orm";
import { call as callAs, errorOf, makeWorld, type World } from "./world";

let w: World;
const call = (name: string, args: Record<string, unknown>) => callAs(storeDomain, w.ctx(), name, args);
let mug: number; // 999 cents; 10-49: 10 % off; 50+: 700
let shirt: number; // options Size S/M; S 1500, M 1700; M has own rule 5+: 1400; product-wide 3+: 5 % off
let shirtS: number, shirtM: number;
let tracked: number; // trackInventory, 5 in stock

const stock = async (productId: number) => (await call("products_get", { siteId: w.siteId, id: productId })).quantity;

beforeAll(async () => {
  w = await makeWorld();
  await call("store_settings_update", { siteId: w.siteId, enabled: true, currency: "eur" });
  mug = (
    await call("products_create", {
      siteId: w.siteId,
      name: "Mug",
      price: 999,
      sku: "MUG",
      status: "active",
      bulkPricing: [
        { minQuantity: 10, maxQuantity: 49, priceType: "percent_off", amount: 1000 },
        { minQuantity: 50, priceType: "fixed", amount: 700 },
      ],
    })
  ).id;
  shirt = (
    await call("products_create", {
      siteId: w.siteId,
      name: "Shirt",
      price: 1500,
      options: [{ name: "Size", values: ["S", "M"] }],
      variants: [
        { options: { Size: "S" }, sku: "SH-S" },
        { options: { Size: "M" }, price: 1700 },
      ],
    })
  ).id;
  const p = await call("products_get", { siteId: w.siteId, id: shirt });
  [shirtS, shirtM] = p.variants.map((x: any) => x.id);
  await call("product_bulk_pricing_set", {
    siteId: w.siteId,
    productId: shirt,
    rules: [
      { minQuantity: 3, priceType: "percent_off", amount: 500 },
      { variantId: shirtM, minQuantity: 5, priceType: "fixed", amount: 1400 },
    ],
  });
  await call("products_set_status", { siteId: w.siteId, id: shirt, status: "active" });
  tracked = (
    await call("products_create", {
      siteId: w.siteId,
      name: "Lamp",
      price: 12345,
      trackInventory: true,
      quantity: 5,
      status: "active",
    })
  ).id;
});
afterAll(() => w.close());

describe("orders_create pricing", () => {
  test("bulk tiers per line, variant rule over product rule, exact totals", async () => {
    const o = await call("orders_create", {
      siteId: w.siteId,
      customer: { email: "Ana@Example.com", name: "Ana" },
      items: [
        { productId: mug, quantity: 12 }, //            999 × 0.9 = 899.1 → 899; × 12 = 10788
        { productId: shirt, variantId: shirtS, quantity: 3 }, // 1500 × 0.95 = 1425; × 3 = 4275
        { productId: shirt, variantId: shirtM, quantity: 5 }, // own rule: 1400 × 5 = 7000
      ],
    });
    expect(o.items.map((l: any) => [l.name, l.sku, l.unitPrice, l.quantity, l.lineTotal])).toEqual([
      ["Mug", "MUG", 899, 12, 10788],
      ["Shirt — S", "SH-S", 1425, 3, 4275],
      ["Shirt — M", null, 1400, 5, 7000],
    ]);
    expect(o).toMatchObject({ status: "pending", currency: "EUR", subtotal: 22063, discountTotal: 0, total: 22063 });
    expect(o.customer).toMatchObject({ email: "ana@example.com", name: "Ana" });
  });

  test("the M variant below its own tier falls back to the product-wide rule", async () => {
    // 4 × M: own rule starts at 5, product-wide 3+ applies: 1700 × 0.95 = 1615; × 4 = 6460
    const o = await call("orders_create", {
      siteId: w.siteId,
      items: [{ productId: shirt, variantId: shirtM, quantity: 4 }],
    });
    expect(o.items[0]).toMatchObject({ unitPrice: 1615, lineTotal: 6460 });
    expect(o.total).toBe(6460);
  });

  test("percent discount code: round half up once on the subtotal", async () => {
    await call("discounts_create", { siteId: w.siteId, code: "spring-12", kind: "percent", amount: 1250 });
    // mug × 50 → 700 × 50 = 35000; mug-free line: shirt S × 1 = 1500. Subtotal 36500.
    // 36500 × 12.5 % = 4562.5 → 4563; total 31937
    const o = await call("orders_create", {
      siteId: w.siteId,
      items: [
        { productId: mug, quantity: 50 },
        { productId: shirt, variantId: shirtS, quantity: 1 },
      ],
      discountCode: "Spring-12",
    });
    expect(o).toMatchObject({ subtotal: 36500, discountCode: "SPRING-12", discountTotal: 4563, total: 31937 });
    expect(o.items.reduce((a: number, l: any) => a + l.lineTotal, 0)).toBe(o.subtotal);
  });

  test("fixed discount with a minimum subtotal, a window and a usage limit", async () => {
    const start = new Date(w.clock.ms() + DAY_MS).toISOString();
    const end = new Date(w.clock.ms() + 3 * DAY_MS).toISOString();
    const d = await call("discounts_create", {
      siteId: w.siteId,
      code: "TENOFF",
      kind: "fixed",
      amount: 1000,
      minSubtotal: 5000,
      startsAt: start,
      endsAt: end,
      usageLimit: 2,
    });
    const order = (extra: Record<string, unknown> = {}) =>
      call("orders_create", {
        siteId: w.siteId,
        items: [{ productId: mug, quantity: 6 }],
        discountCode: "tenoff",
        ...extra,
      }); // 999 × 6 = 5994
    expect((await errorOf(() => order())).message).toContain("is valid from");
    w.clock.advance(DAY_MS);
    const o1 = await order();
    expect(o1).toMatchObject({ subtotal: 5994, discountTotal: 1000, total: 4994 });
    const small = await errorOf(() =>
      call("orders_create", { siteId: w.siteId, items: [{ productId: mug, quantity: 1 }], discountCode: "TENOFF" }),
    );
    expect(small.message).toContain("at least 5000");
    const o2 = await order();
    expect((await errorOf(() => order())).message).toContain("usage limit of 2");
    // Cancelling a pending order releases its use.
    await call("orders_update_status", { siteId: w.siteId, id: o2.id, status: "cancelled" });
    expect((await call("discounts_get", { siteId: w.siteId, id: d.id })).usedCount).toBe(1);
    await order();
    w.clock.advance(3 * DAY_MS);
    await call("discounts_update", { siteId: w.siteId, id: d.id, usageLimit: 10 });
    expect((await errorOf(() => order())).message).toContain("expired");
    await call("discounts_update", { siteId: w.siteId, id: d.id, endsAt: null, active: false });
    expect((await errorOf(() => order())).message).toContain("not active");
    expect((await errorOf(() => order({ discountCode: "NOPE" }))).message).toContain("does not exist");
    expect((await errorOf(() => call("discounts_delete", { siteId: w.siteId, id: d.id }))).code).toBe("conflict");
  });

  test("a fixed discount larger than the order makes it free, not negative", async () => {
    await call("discounts_create", { siteId: w.siteId, code: "HUGE", kind: "fixed", amount: 1_000_000 });
    const o = await call("orders_create", {
      siteId: w.siteId,
      items: [{ productId: mug, quantity: 1 }],
      discountCode: "HUGE",
    });
    expect(o).toMatchObject({ subtotal: 999, discountTotal: 999, total: 0 });
  });

  test("refuses what cannot be sold, with reasons", async () => {
    const draft = (await call("products_create", { siteId: w.siteId, name: "Draft", price: 1 })).id;
    const cases: [Record<string, unknown>[], string, string][] = [
      [[{ productId: draft, quantity: 1 }], "conflict", "is draft"],
      [[{ productId: shirt, quantity: 1 }], "validation", "give the variantId"],
      [[{ productId: mug, variantId: shirtS, quantity: 1 }], "validation", "is not a variant of product"],
      [[{ productId: 999999, quantity: 1 }], "not_found", "not found"],
      [[{ productId: mug, quantity: 0 }], "validation", "at least 1"],
      [[{ productId: mug, quantity: 2.5 }], "validation", "integer"],
      [
        [
          { productId: mug, quantity: 1 },
          { productId: mug, quantity: 2 },
        ],
        "validation",
        "repeats",
      ],
      [[], "validation", "at least one item"],
    ];
    for (const [items, code, msg] of cases) {
      const e = await errorOf(() => call("orders_create", { siteId: w.siteId, items }));
      expect([e.code, e.message]).toEqual([code, expect.stringContaining(msg)]);
    }
    await call("product_variants_update", { siteId: w.siteId, id: shirtS, active: false });
    expect(
      (
        await errorOf(() =>
          call("orders_create", { siteId: w.siteId, items: [{ productId: shirt, variantId: shirtS, quantity: 1 }] }),
        )
      ).message,
    ).toContain("inactive");
    await call("product_variants_update", { siteId: w.siteId, id: shirtS, active: true });
    // Prices in the input are not accepted at all.
    expect(
      (
        await errorOf(() =>
          call("orders_create", { siteId: w.siteId, items: [{ productId: mug, quantity: 1, unitPrice: 1 }] }),
        )
      ).code,
    ).toBe("validation");
  });

  test("an order above the total cap is refused, not rounded", async () => {
    const pricey = (
      await call("products_create", { siteId: w.siteId, name: "Jet", price: 10_000_000_000, status: "active" })
    ).id;
    const e = await errorOf(() =>
      call("orders_create", { siteId: w.siteId, items: [{ productId: pricey, quantity: 1_000_000 }] }),
    );
    expect(e.message).toContain("exceed the maximum");
  });

  test("a disabled store takes no orders", async () => {
    await call("store_settings_update", { siteId: w.siteId, enabled: false });
    expect(
      (await errorOf(() => call("orders_create", { siteId: w.siteId, items: [{ productId: mug, quantity: 1 }] })))
        .message,
    ).toContain("no enabled store");
    await call("store_settings_update", { siteId: w.siteId, enabled: true });
  });
});

describe("stock and lifecycle", () => {
  test("tracked stock is taken, refused when short, returned on cancel and on refund before fulfilment", async () => {
    const o1 = await call("orders_create", { siteId: w.siteId, items: [{ productId: tracked, quantity: 3 }] });
    expect(await stock(tracked)).toBe(2);
    const short = await errorOf(() =>
      call("orders_create", {
        siteId: w.siteId,
        items: [
          { productId: tracked, quantity: 3 },
          { productId: mug, quantity: 1 },
        ],
      }),
    );
    expect(short.code).toBe("conflict");
    expect(short.message).toContain('Insufficient stock for "Lamp": 3 requested, 2 available');
    expect(await stock(tracked)).toBe(2); // the refused order took nothing
    await call("orders_update_status", { siteId: w.siteId, id: o1.id, status: "cancelled" });
    expect(await stock(tracked)).toBe(5);
    // cancelled is final
    expect(
      (await errorOf(() => call("orders_update_status", { siteId: w.siteId, id: o1.id, status: "paid" }))).message,
    ).toContain("final");

    const o2 = await call("orders_create", { siteId: w.siteId, items: [{ productId: tracked, quantity: 5 }] });
    expect(await stock(tracked)).toBe(0);
    await call("orders_update_status", { siteId: w.siteId, id: o2.id, status: "paid" });
    expect(await call("orders_update_status", { siteId: w.siteId, id: o2.id, status: "refunded" })).toMatchObject({
      restocked: true,
    });
    expect(await stock(tracked)).toBe(5);

    const o3 = await call("orders_create", { siteId: w.siteId, items: [{ productId: tracked, quantity: 2 }] });
    await call("orders_update_status", { siteId: w.siteId, id: o3.id, status: "paid" });
    expect(
      (await errorOf(() => call("orders_update_status", { siteId: w.siteId, id: o3.id, status: "cancelled" }))).message,
    ).toContain("Allowed from paid: fulfilled, refunded");
    await call("orders_update_status", { siteId: w.siteId, id: o3.id, status: "fulfilled" });
    expect(await call("orders_update_status", { siteId: w.siteId, id: o3.id, status: "refunded" })).toMatchObject({
      restocked: false,
    });
    expect(await stock(tracked)).toBe(3);
  });

  test("tracked variants use their own quantity; null counts as none", async () => {
    const p = await call("products_create", {
      siteId: w.siteId,
      name: "Cap",
      price: 800,
      trackInventory: true,
      options: [{ name: "Colour", values: ["red", "blue"] }],
      variants: [{ options: { Colour: "red" }, quantity: 2 }, { options: { Colour: "blue" } }],
      status: "active",
    });
    const [red, blue] = (await call("products_get", { siteId: w.siteId, id: p.id })).variants;
    await call("orders_create", { siteId: w.siteId, items: [{ productId: p.id, variantId: red.id, quantity: 2 }] });
    const again = await call("products_get", { siteId: w.siteId, id: p.id });
    expect(again.variants[0].quantity).toBe(0);
    expect(
      (
        await errorOf(() =>
          call("orders_create", { siteId: w.siteId, items: [{ productId: p.id, variantId: blue.id, quantity: 1 }] }),
        )
      ).message,
    ).toContain("0 available");
  });

  test("cancelling after the ordered variant was deleted does not put its stock on the product", async () => {
    const p = await call("products_create", {
      siteId: w.siteId,
      name: "Scarf",
      price: 900,
      trackInventory: true,
      quantity: 7,
      options: [{ name: "Colour", values: ["grey", "navy"] }],
      variants: [
        { options: { Colour: "grey" }, quantity: 4 },
        { options: { Colour: "navy" }, quantity: 1 },
      ],
      status: "active",
    });
    const [grey] = (await call("products_get", { siteId: w.siteId, id: p.id })).variants;
    const o = await call("orders_create", {
      siteId: w.siteId,
      items: [{ productId: p.id, variantId: grey.id, quantity: 3 }],
    });
    await call("product_variants_delete", { siteId: w.siteId, id: grey.id });
    expect(await call("orders_update_status", { siteId: w.siteId, id: o.id, status: "cancelled" })).toMatchObject({
      status: "cancelled",
    });
    expect(await stock(p.id)).toBe(7);
    expect((await call("orders_get", { siteId: w.siteId, id: o.id })).items[0]).toMatchObject({
      variantId: null,
      name: "Scarf — grey",
      lineTotal: 2700,
    });
  });

  test("untracked products never run out", async () => {
    await call("orders_create", { siteId: w.siteId, items: [{ productId: mug, quantity: 1_000_000 }] });
    expect(await stock(mug)).toBeNull();
  });

  test("orders_list and orders_get", async () => {
    const page = await call("orders_list", { siteId: w.siteId, limit: 3 });
    expect(page.items).toHaveLength(3);
    expect(page.total).toBeGreaterThan(3);
    const one = await call("orders_get", { siteId: w.siteId, id: page.items[0].id });
    expect(one.items.reduce((a: number, l: any) => a + l.lineTotal, 0)).toBe(one.subtotal);
    expect(one.subtotal - one.discountTotal).toBe(one.total);
    const cancelled = await call("orders_list", { siteId: w.siteId, status: "cancelled" });
    expect(cancelled.items.every((o: any) => o.status === "cancelled")).toBe(true);
    expect(cancelled.total).toBe(3);
  });
});

describe("customers", () => {
  test("unique emails per site, case-insensitive; stats on get", async () => {
    const c = await call("customers_create", { siteId: w.siteId, email: "Bo@Example.com", name: "Bo" });
    expect(c.email).toBe("bo@example.com");
    expect((await errorOf(() => call("customers_create", { siteId: w.siteId, email: "BO@example.com" }))).code).toBe(
      "conflict",
    );
    expect((await errorOf(() => call("customers_create", { siteId: w.siteId, email: "not-an-email" }))).code).toBe(
      "validation",
    );
    expect(
      (await errorOf(() => call("customers_create", { siteId: w.siteId, email: "x@y.z", phone: "<script>" }))).code,
    ).toBe("validation");
    const o = await call("orders_create", {
      siteId: w.siteId,
      customerId: c.id,
      items: [{ productId: mug, quantity: 2 }],
    });
    await call("orders_update_status", { siteId: w.siteId, id: o.id, status: "paid" });
    expect(await call("customers_get", { siteId: w.siteId, id: c.id })).toMatchObject({ orders: 1, totalSpent: 1998 });
    await call("customers_update", { siteId: w.siteId, id: c.id, name: null, phone: "+351 912 345 678" });
    const found = await call("customers_list", { siteId: w.siteId, search: "BO@" });
    expect(found.items).toEqual([expect.objectContaining({ id: c.id, name: null, phone: "+351 912 345 678" })]);
    expect(
      (
        await errorOf(() =>
          call("orders_create", {
            siteId: w.siteId,
            customerId: c.id,
            customer: { email: "a@b.c" },
            items: [{ productId: mug, quantity: 1 }],
          }),
        )
      ).code,
    ).toBe("validation");
  });
});

describe("orders record how each line was priced", () => {
  test("lines show list price, the bulk rule applied and unit price; the order the code's terms; later catalog changes rewrite nothing", async () => {
    const tumbler = await call("products_create", {
      siteId: w.siteId,
      name: "Tumbler",
      price: 999,
      status: "active",
      bulkPricing: [
        { minQuantity: 10, maxQuantity: 49, priceType: "percent_off", amount: 1000 },
        { minQuantity: 50, priceType: "fixed", amount: 700 },
      ],
    });
    const tee = await call("products_create", {
      siteId: w.siteId,
      name: "Tee",
      price: 1500,
      options: [{ name: "Size", values: ["S", "M"] }],
      variants: [{ options: { Size: "S" } }, { options: { Size: "M" }, price: 1700 }],
      bulkPricing: [
        { minQuantity: 3, priceType: "percent_off", amount: 500 },
        { variantOptions: { Size: "M" }, minQuantity: 5, priceType: "fixed", amount: 1400 },
      ],
      status: "active",
    });
    const [teeS, teeM] = tee.variants.map((x: any) => x.id);
    const coaster = await call("products_create", { siteId: w.siteId, name: "Coaster", price: 450, status: "active" });
    const rulesOf = async (id: number) => (await call("products_get", { siteId: w.siteId, id })).bulkPricing;
    const tumblerTier = (await rulesOf(tumbler.id)).find((r: any) => r.minQuantity === 10);
    const teeRules = await rulesOf(tee.id);
    const teeWide = teeRules.find((r: any) => r.variantId === null);
    const teeM5 = teeRules.find((r: any) => r.variantId === teeM);
    await call("discounts_create", { siteId: w.siteId, code: "RECORD15", kind: "percent", amount: 1500 });

    const o = await call("orders_create", {
      siteId: w.siteId,
      items: [
        { productId: tumbler.id, quantity: 12 }, //                   999 × 0.9 = 899.1 → 899; × 12 = 10788
        { productId: tee.id, variantId: teeS, quantity: 3 }, //        product-wide 5 %: 1500 → 1425; × 3 = 4275
        { productId: tee.id, variantId: teeM, quantity: 5 }, //        M's own fixed rule: 1400 × 5 = 7000
        { productId: coaster.id, quantity: 2 }, //                    no rule: 450 × 2 = 900
      ],
      discountCode: "record15",
    });
    const rule = (r: any) => ({
      id: r.id,
      minQuantity: r.minQuantity,
      maxQuantity: r.maxQuantity,
      priceType: r.priceType,
      amount: r.amount,
    });
    expect(o.items.map((l: any) => [l.name, l.quantity, l.listPrice, l.bulkRule, l.unitPrice, l.lineTotal])).toEqual([
      [
        "Tumbler",
        12,
        999,
        { id: tumblerTier.id, minQuantity: 10, maxQuantity: 49, priceType: "percent_off", amount: 1000 },
        899,
        10788,
      ],
      ["Tee — S", 3, 1500, rule(teeWide), 1425, 4275],
      ["Tee — M", 5, 1700, rule(teeM5), 1400, 7000],
      ["Coaster", 2, 450, null, 450, 900],
    ]);
    // 10788 + 4275 + 7000 + 900 = 22963; 15 % = 3444.45 → 3444; total 19519.
    expect(o).toMatchObject({ subtotal: 22963, discountTotal: 3444, total: 19519, discountCode: "RECORD15" });
    expect(o.discount).toEqual({ code: "RECORD15", kind: "percent", amount: 1500, discountTotal: 3444 });
    // Every number can be checked without the catalog: unit from list price and rule, line from unit, total from lines and terms.
    for (const l of o.items) {
      expect(l.lineTotal).toBe(l.unitPrice * l.quantity);
      if (!l.bulkRule) expect(l.unitPrice).toBe(l.listPrice);
      else if (l.bulkRule.priceType === "fixed") expect(l.unitPrice).toBe(l.bulkRule.amount);
      else expect(l.unitPrice).toBe(Math.round((l.listPrice * (10000 - l.bulkRule.amount)) / 10000));
    }

    // Prices, tiers and the code change afterwards; the order still says what was charged and why.
    await call("products_update", { siteId: w.siteId, id: tumbler.id, price: 1099 });
    await call("product_variants_update", { siteId: w.siteId, id: teeM, price: 1900 });
    await call("product_bulk_pricing_set", {
      siteId: w.siteId,
      productId: tumbler.id,
      rules: [{ minQuantity: 10, priceType: "fixed", amount: 850 }],
    });
    await call("product_bulk_pricing_set", { siteId: w.siteId, productId: tee.id, rules: [] });
    const code = (await call("discounts_list", { siteId: w.siteId })).items.find((d: any) => d.code === "RECORD15");
    await call("discounts_update", { siteId: w.siteId, id: code.id, amount: 500 });
    expect(await call("orders_get", { siteId: w.siteId, id: o.id })).toEqual(o);
  });

  test("an order without a code has discount null", async () => {
    const coaster = (await call("products_list", { siteId: w.siteId, search: "Coaster" })).items[0];
    const o = await call("orders_create", { siteId: w.siteId, items: [{ productId: coaster.id, quantity: 1 }] });
    expect(o).toMatchObject({ discount: null, discountCode: null, discountTotal: 0 });
    expect(o.items[0]).toMatchObject({ listPrice: 450, unitPrice: 450, bulkRule: null });
  });
});

describe("orders_update and orders_delete", () => {
  let coaster: number;
  beforeAll(async () => {
    coaster = (await call("products_create", { siteId: w.siteId, name: "Cork coaster", price: 300, status: "active" }))
      .id;
  });
  const audits = async (action: string, id: number) =>
    (await w.deps.db.select().from(auditLog).where(eq(auditLog.entityId, id))).filter(
      (a) => a.action === action && a.entityType === "order",
    );

  test("a pending order's notes and customer change; once paid they are refused", async () => {
    const o = await call("orders_create", {
      siteId: w.siteId,
      customer: { email: "first@x.test" },
      items: [{ productId: coaster, quantity: 1 }],
      notes: "Ring twice",
    });
    const first = o.customer;
    expect(await call("orders_update", { siteId: w.siteId, id: o.id, notes: "Leave at the door" })).toEqual({
      id: o.id,
      status: "pending",
      customer: first,
      notes: "Leave at the door",
    });
    const byEmail = await call("orders_update", {
      siteId: w.siteId,
      id: o.id,
      customer: { email: "Second@X.test", name: "Sam" },
    });
    expect(byEmail.customer).toEqual({ id: expect.any(Number), email: "second@x.test", name: "Sam" });
    const third = await call("customers_create", { siteId: w.siteId, email: "third@x.test" });
    expect(
      await call("orders_update", { siteId: w.siteId, id: o.id, customerId: third.id, notes: null }),
    ).toMatchObject({ customer: { id: third.id }, notes: null });
    expect((await call("orders_update", { siteId: w.siteId, id: o.id, customerId: null })).customer).toBeNull();
    const got = await call("orders_get", { siteId: w.siteId, id: o.id });
    expect(got).toMatchObject({ customer: null, notes: null, total: 300 });

    const refused: [Record<string, unknown>, string, string][] = [
      [
        { customerId: third.id, customer: { email: "a@b.test" } },
        "validation",
        "Give customerId or customer, not both.",
      ],
      [{}, "validation", "Nothing to update"],
      [{ customerId: 999999 }, "not_found", "Customer 999999 not found"],
      [{ status: "paid" }, "validation", "status"],
    ];
    for (const [args, code, msg] of refused) {
      const e = await errorOf(() => call("orders_update", { siteId: w.siteId, id: o.id, ...args }));
      expect([e.code, e.message]).toEqual([code, expect.stringContaining(msg)]);
    }
    await call("orders_update_status", { siteId: w.siteId, id: o.id, status: "paid" });
    const paid = await errorOf(() => call("orders_update", { siteId: w.siteId, id: o.id, notes: "Too late" }));
    expect([paid.code, paid.message]).toEqual([
      "conflict",
      `Order ${o.id} is paid; only pending orders can be edited (its notes and customer stay as they were).`,
    ]);
    expect(await audits("orders.update", o.id)).toHaveLength(4);
  });

  test("deleting a pending order gives back its stock and its code use; a cancelled one is just removed", async () => {
    const vase = await call("products_create", {
      siteId: w.siteId,
      name: "Vase",
      price: 3000,
      trackInventory: true,
      quantity: 4,
      status: "active",
    });
    const once = await call("discounts_create", {
      siteId: w.siteId,
      code: "ONCE",
      kind: "fixed",
      amount: 500,
      usageLimit: 1,
    });
    const o1 = await call("orders_create", {
      siteId: w.siteId,
      items: [{ productId: vase.id, quantity: 3 }],
      discountCode: "ONCE",
    });
    expect(await stock(vase.id)).toBe(1);
    expect((await call("discounts_get", { siteId: w.siteId, id: once.id })).usedCount).toBe(1);
    const v0 = await w.contentVersion(w.siteId);
    expect(await call("orders_delete", { siteId: w.siteId, id: o1.id })).toEqual({
      id: o1.id,
      status: "deleted",
      previousStatus: "pending",
      restocked: true,
    });
    expect(await w.contentVersion(w.siteId)).toBe(v0 + 1);
    expect(await stock(vase.id)).toBe(4);
    expect((await call("discounts_get", { siteId: w.siteId, id: once.id })).usedCount).toBe(0);
    expect((await errorOf(() => call("orders_get", { siteId: w.siteId, id: o1.id }))).code).toBe("not_found");
    expect(await audits("orders.delete", o1.id)).toEqual([
      expect.objectContaining({
        siteId: w.siteId,
        detail: { previousStatus: "pending", total: 8500, restocked: true },
      }),
    ]);

    // The single-use code is usable again; cancelling returns the stock once, deleting afterwards does not return it twice.
    const o2 = await call("orders_create", {
      siteId: w.siteId,
      items: [{ productId: vase.id, quantity: 2 }],
      discountCode: "ONCE",
    });
    await call("orders_update_status", { siteId: w.siteId, id: o2.id, status: "cancelled" });
    expect(await stock(vase.id)).toBe(4);
    expect(await call("orders_delete", { siteId: w.siteId, id: o2.id })).toEqual({
      id: o2.id,
      status: "deleted",
      previousStatus: "cancelled",
      restocked: false,
    });
    expect(await stock(vase.id)).toBe(4);
    expect((await call("discounts_get", { siteId: w.siteId, id: once.id })).usedCount).toBe(0);
    // No order records the code any more, so it can be deleted now.
    expect(await call("discounts_delete", { siteId: w.siteId, id: once.id })).toMatchObject({ status: "deleted" });
  });

  test("paid, fulfilled and refunded orders are kept, with what to do instead", async () => {
    const o = await call("orders_create", { siteId: w.siteId, items: [{ productId: coaster, quantity: 2 }] });
    const refuse = async () => {
      const e = await errorOf(() => call("orders_delete", { siteId: w.siteId, id: o.id }));
      expect(e.code).toBe("conflict");
      return e.message;
    };
    await call("orders_update_status", { siteId: w.siteId, id: o.id, status: "paid" });
    expect(await refuse()).toBe(
      `Order ${o.id} is paid; only pending or cancelled orders can be deleted, and a paid order is the record of a payment: refund it instead (orders_update_status, status "refunded").`,
    );
    await call("orders_update_status", { siteId: w.siteId, id: o.id, status: "fulfilled" });
    expect(await refuse()).toContain(
      'a fulfilled order is the record of a sale: refund it instead (orders_update_status, status "refunded")',
    );
    await call("orders_update_status", { siteId: w.siteId, id: o.id, status: "refunded" });
    expect(await refuse()).toContain("refunded is final");
    expect((await call("orders_get", { siteId: w.siteId, id: o.id })).status).toBe("refunded");
    expect(await audits("orders.delete", o.id)).toEqual([]);
  });
});

describe("discount and tier boundaries: the exact cent, the exact millisecond, the last use", () => {
  let sticker: number; // 1 cent, no bulk rules: `n` stickers make a subtotal of exactly n cents
  beforeAll(async () => {
    sticker = (await call("products_create", { siteId: w.siteId, name: "Sticker", price: 1, status: "active" })).id;
  });
  const orderOf = (cents: number, discountCode?: string) =>
    call("orders_create", {
      siteId: w.siteId,
      items: [{ productId: sticker, quantity: cents }],
      ...(discountCode ? { discountCode } : {}),
    });
  const discount = async (id: number) => await call("discounts_get", { siteId: w.siteId, id });

  test("a fixed discount of the subtotal plus one cent makes the total 0, never -1; of the subtotal, 0; one cent less leaves 1", async () => {
    await call("discounts_create", { siteId: w.siteId, code: "FIFTY", kind: "fixed", amount: 5000 });
    for (const [subtotal, discountTotal, total] of [
      [4999, 4999, 0],
      [5000, 5000, 0],
      [5001, 5000, 1],
    ]) {
      const o = await orderOf(subtotal!, "fifty");
      expect(o).toMatchObject({ subtotal, discountTotal, total });
      expect(await call("orders_get", { siteId: w.siteId, id: o.id })).toMatchObject({
        subtotal,
        discountTotal,
        total,
      });
    }
  });

  test("an order exactly at minSubtotal qualifies; one cent below does not and uses nothing", async () => {
    const d = await call("discounts_create", {
      siteId: w.siteId,
      code: "MIN4995",
      kind: "percent",
      amount: 1000,
      minSubtotal: 4995,
    });
    const below = await errorOf(() => orderOf(4994, "MIN4995"));
    expect([below.code, below.message]).toEqual([
      "validation",
      "The discount code MIN4995 needs a subtotal of at least 4995 cents (this order has 4994).",
    ]);
    expect((await discount(d.id)).usedCount).toBe(0);
    // 4995 × 10 % = 499.5 → 500
    expect(await orderOf(4995, "MIN4995")).toMatchObject({ subtotal: 4995, discountTotal: 500, total: 4495 });
    expect((await discount(d.id)).usedCount).toBe(1);
  });

  test("one ms before startsAt not yet valid, at exactly startsAt valid; one ms before endsAt valid, at exactly endsAt expired", async () => {
    const startsAt = w.clock.ms() + DAY_MS;
    const endsAt = startsAt + DAY_MS;
    const d = await call("discounts_create", {
      siteId: w.siteId,
      code: "WINDOW",
      kind: "fixed",
      amount: 100,
      startsAt: new Date(startsAt).toISOString(),
      endsAt: new Date(endsAt).toISOString(),
    });
    const at = async (t: number) => {
      w.clock.set(t);
      const usableNow = (await discount(d.id)).usableNow as boolean;
      try {
        const o = await orderOf(1000, "window");
        return { usableNow, total: o.total };
      } catch (e: any) {
        return { usableNow, refused: e.message as string };
      }
    };
    expect(await at(startsAt - 1)).toEqual({
      usableNow: false,
      refused: `The discount code WINDOW is valid from ${new Date(startsAt).toISOString()}.`,
    });
    expect(await at(startsAt)).toEqual({ usableNow: true, total: 900 });
    expect(await at(endsAt - 1)).toEqual({ usableNow: true, total: 900 });
    expect(await at(endsAt)).toEqual({
      usableNow: false,
      refused: `The discount code WINDOW expired at ${new Date(endsAt).toISOString()}.`,
    });
    expect((await discount(d.id)).usedCount).toBe(2);
  });

  test("a window must last at least a millisecond: endsAt equal to startsAt is refused, one ms after is accepted", async () => {
    const startsAt = new Date(w.clock.ms() + DAY_MS);
    const same = await errorOf(() =>
      call("discounts_create", {
        siteId: w.siteId,
        code: "EMPTY",
        kind: "fixed",
        amount: 1,
        startsAt: startsAt.toISOString(),
        endsAt: startsAt.toISOString(),
      }),
    );
    expect([same.code, same.message]).toEqual(["validation", "endsAt must be after startsAt."]);
    const d = await call("discounts_create", {
      siteId: w.siteId,
      code: "BLINK",
      kind: "fixed",
      amount: 1,
      startsAt: startsAt.toISOString(),
      endsAt: new Date(startsAt.getTime() + 1).toISOString(),
    });
    const moved = await errorOf(() =>
      call("discounts_update", { siteId: w.siteId, id: d.id, endsAt: startsAt.toISOString() }),
    );
    expect(moved.message).toBe("endsAt must be after startsAt.");
  });

  test("usage limit: the last allowed use succeeds, the next is refused; raising the limit by one allows exactly one more", async () => {
    const d = await call("discounts_create", {
      siteId: w.siteId,
      code: "LASTUSE",
      kind: "fixed",
      amount: 100,
      usageLimit: 1,
    });
    expect(await orderOf(1000, "LASTUSE")).toMatchObject({ discountTotal: 100, total: 900 });
    expect(await discount(d.id)).toMatchObject({ usedCount: 1, usableNow: false });
    const next = await errorOf(() => orderOf(1000, "LASTUSE"));
    expect(next.message).toBe("The discount code LASTUSE has reached its usage limit of 1.");
    await call("discounts_update", { siteId: w.siteId, id: d.id, usageLimit: 2 });
    expect((await discount(d.id)).usableNow).toBe(true);
    expect(await orderOf(1000, "LASTUSE")).toMatchObject({ discountTotal: 100 });
    expect((await errorOf(() => orderOf(1000, "LASTUSE"))).message).toContain("usage limit of 2");
    expect((await discount(d.id)).usedCount).toBe(2);
  });

  test("a tier applies from exactly minQuantity through exactly maxQuantity, not one unit either side", async () => {
    // Mug: 999; 10–49 at 10 % off (899); 50 and more at 700.
    const unit = async (quantity: number) =>
      (await call("orders_create", { siteId: w.siteId, items: [{ productId: mug, quantity }] })).items[0]
        .unitPrice as number;
    expect([await unit(9), await unit(10), await unit(49), await unit(50)]).toEqual([999, 899, 899, 700]);
  });

  test("a one-quantity tier (minQuantity = maxQuantity) is accepted and prices exactly that quantity", async () => {
    const p = await call("products_create", {
      siteId: w.siteId,
      name: "Trio",
      price: 600,
      status: "active",
      bulkPricing: [
        { minQuantity: 3, maxQuantity: 3, priceType: "fixed", amount: 500 },
        { minQuantity: 4, priceType: "fixed", amount: 450 },
      ],
    });
    const unit = async (quantity: number) =>
      (await call("orders_create", { siteId: w.siteId, items: [{ productId: p.id, quantity }] })).items[0]
        .unitPrice as number;
    expect([await unit(2), await unit(3), await unit(4)]).toEqual([600, 500, 450]);
  });
});
