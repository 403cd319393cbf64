import { row } from "../harness";
/** Products, options, variants and bulk pricing through the store tools, on a real migrated store. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storeDomain } from "../../src/domains/store/tools";
import { auditLog } from "../../src/domains/accounts/tables";
import { eq } from "drizzle-orm";
import { sites } from "../../src/domains/sites/tables";
import { approveHeld, call as callAs, errorOf, makeWorld, type World } from "./world";

let w: World;
const call = (name: string, args: Record<string, unknown>) => callAs(storeDomain, w.ctx(), name, args);

beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

describe("products_create / products_get", () => {
  test("creates a full product in one call and reads it back as ProductDetail", async () => {
    const v0 = await w.contentVersion(w.siteId);
    const cat = await call("product_categories_create", { siteId: w.siteId, name: "Mugs" });
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "  Blue Mug  ",
      price: 1999,
      compareAtPrice: 2499,
      costPrice: 800,
      categoryId: cat.id,
      description: "<p>Holds <strong>coffee</strong></p>",
      tags: ["kitchen", "Kitchen", " gift "],
      metadata: { origin: "PT", sizes: [1, 2] },
      seoTitle: "Blue Mug",
      images: [{ url: "https://cdn.example.com/a.jpg", alt: "front" }, { url: "/media/b.jpg" }],
      options: [{ name: "Size", values: ["S", { value: "L", label: "Large" }] }],
      variants: [{ options: { Size: "S" } }, { options: { size: "large" }, price: 2199, compareAtPrice: 2599 }],
      bulkPricing: [{ minQuantity: 10, priceType: "percent_off", amount: 1000 }],
    });
    // The variants the call made come back with their ids, ready for orders and bulk pricing.
    expect(r).toEqual({
      id: expect.any(Number),
      slug: "blue-mug",
      status: "draft",
      variants: [
        { id: expect.any(Number), name: "S", price: 1999 },
        { id: expect.any(Number), name: "Large", price: 2199 },
      ],
    });
    expect(await w.contentVersion(w.siteId)).toBe(v0 + 2);

    const p = await call("products_get", { siteId: w.siteId, slug: "blue-mug" });
    expect(p).toMatchObject({
      id: r.id,
      websiteId: w.siteId,
      name: "Blue Mug",
      price: 1999,
      compareAtPrice: 2499,
      costPrice: 800,
      status: "draft",
      tags: ["kitchen", "gift"],
      metadata: { origin: "PT", sizes: [1, 2] },
      category: { id: cat.id, name: "Mugs", slug: "mugs" },
      description: "<p>Holds <strong>coffee</strong></p>",
    });
    expect(p.images.map((i: any) => [i.url, i.order, i.alt])).toEqual([
      ["https://cdn.example.com/a.jpg", 0, "front"],
      ["/media/b.jpg", 1, null],
    ]);
    expect(p.options).toHaveLength(1);
    expect(p.options[0].values.map((x: any) => [x.value, x.label])).toEqual([
      ["S", null],
      ["L", "Large"],
    ]);
    const [size] = p.options;
    expect(p.variants.map((x: any) => [x.name, x.price, x.compareAtPrice, x.active])).toEqual([
      ["S", 1999, null, true],
      ["Large", 2199, 2599, true],
    ]);
    expect(p.variants[1].optionValues).toEqual([{ optionId: size.id, valueId: size.values[1].id }]);
    expect(p.bulkPricing).toEqual([
      expect.objectContaining({
        variantId: null,
        minQuantity: 10,
        maxQuantity: null,
        priceType: "percent_off",
        amount: 1000,
      }),
    ]);
    const a = (await w.deps.db.select().from(auditLog).where(eq(auditLog.entityId, r.id))).find(
      (x) => x.action === "products.create",
    );
    expect(a).toMatchObject({ companyId: w.companyId, siteId: w.siteId, credentialKind: "mcp_key" });
  });

  test("generated slugs never collide; a chosen slug that is taken is a conflict", async () => {
    const a = await call("products_create", { siteId: w.siteId, name: "Tea Pot", price: 100 });
    const b = await call("products_create", { siteId: w.siteId, name: "Tea pot!", price: 100 });
    expect([a.slug, b.slug]).toEqual(["tea-pot", "tea-pot-2"]);
    const e = await errorOf(() => call("products_create", { siteId: w.siteId, name: "X", slug: "tea-pot", price: 1 }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(`product ${a.id}`);
    // The same slug on another site of the company is fine.
    expect((await call("products_create", { siteId: w.site2Id, name: "Tea Pot", price: 1 })).slug).toBe("tea-pot");
  });

  test("money and quantity validation", async () => {
    const base = { siteId: w.siteId, name: "Bad" };
    for (const [args, msg] of [
      [{ price: -1 }, "must not be negative"],
      [{ price: 19.99 }, "whole cents"],
      [{ price: 1e16 }, "at most 10000000000"],
      [{ price: "1999" }, "must be a number"],
      [{ price: 1000, compareAtPrice: 1000 }, "must be above price"],
      [{ price: 1000, compareAtPrice: 500 }, "must be above price"],
      [{ price: 1, quantity: -3 }, "at least 0"],
      [{ price: 1, quantity: 2 ** 53 }, "at most 1000000"],
      [{ price: 1, lengthIn: -1 }, "must not be negative"],
      [{ price: 1, weightUnit: "stone" }, "weightUnit"],
      [
        { price: 1, bulkPricing: [{ minQuantity: 5, maxQuantity: 2, priceType: "fixed", amount: 1 }] },
        "below minQuantity",
      ],
      [{ price: 1, bulkPricing: [{ minQuantity: 1, priceType: "percent_off", amount: 10001 }] }, "basis points"],
      [{ price: 1, bulkPricing: [{ minQuantity: 1, priceType: "fixed", amount: 1e11 }] }, "at most 10000000000"],
      [{ price: 1, bulkPricing: [{ minQuantity: 0, priceType: "fixed", amount: 1 }] }, "at least 1"],
    ] as const) {
      const e = await errorOf(() => call("products_create", { ...base, ...args }));
      expect(e.code).toBe("validation");
      expect(e.message).toContain(msg);
    }
  });

  test("hostile strings are stored verbatim and never break anything", async () => {
    const name = `Robert'); DROP TABLE products;-- <script>alert(1)</script>`;
    const r = await call("products_create", {
      siteId: w.siteId,
      name,
      price: 5,
      shortDescription: '" OR 1=1 --',
      tags: ["<img src=x onerror=alert(1)>"],
    });
    expect(r.slug).toBe("robert-drop-table-products-script-alert-1-script");
    const p = await call("products_get", { siteId: w.siteId, id: r.id });
    expect(p.name).toBe(name);
    expect(p.shortDescription).toBe('" OR 1=1 --');
    const list = await call("products_list", { siteId: w.siteId, search: "'); drop" });
    expect(list.items.map((x: any) => x.id)).toEqual([r.id]);
  });

  test("unsafe URLs, oversize input and unknown fields are refused", async () => {
    for (const url of [
      "javascript:alert(1)",
      "//evil.example/x.png",
      "data:image/png;base64,AAAA",
      "https://exa mple.com/a.png",
      "ftp://x/y",
    ]) {
      const e = await errorOf(() =>
        call("products_create", { siteId: w.siteId, name: "U", price: 1, images: [{ url }] }),
      );
      expect(e.code).toBe("validation");
    }
    const big = await errorOf(() =>
      call("products_create", { siteId: w.siteId, name: "M", price: 1, metadata: { blob: "x".repeat(20_000) } }),
    );
    expect(big.message).toContain("metadata must be at most");
    const long = await errorOf(() => call("products_create", { siteId: w.siteId, name: "n".repeat(201), price: 1 }));
    expect(long.message).toContain("at most 200");
    const typo = await errorOf(() => call("products_create", { siteId: w.siteId, name: "T", price: 1, prize: 2 }));
    expect(typo.code).toBe("validation");
    const many = await errorOf(() =>
      call("products_create", {
        siteId: w.siteId,
        name: "I",
        price: 1,
        images: Array.from({ length: 21 }, (_, i) => ({ url: `/i${i}.png` })),
      }),
    );
    expect(many.message).toContain("at most 20 images");
    const blank = await errorOf(() => call("products_create", { siteId: w.siteId, name: "   ", price: 1 }));
    expect(blank.message).toContain("blank");
  });

  test("products_get needs exactly one of productId and slug", async () => {
    expect((await errorOf(() => call("products_get", { siteId: w.siteId }))).code).toBe("validation");
    expect((await errorOf(() => call("products_get", { siteId: w.siteId, slug: "nope" }))).code).toBe("not_found");
  });
});

describe("products_update", () => {
  test("changes only what is given, null clears, compare-at is checked against the effective price", async () => {
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Lamp",
      price: 5000,
      compareAtPrice: 6000,
      sku: "L-1",
      images: [{ url: "/a.png" }],
    });
    await call("products_update", { siteId: w.siteId, id: r.id, shortDescription: "Bright", sku: null });
    let p = await call("products_get", { siteId: w.siteId, id: r.id });
    expect(p).toMatchObject({ shortDescription: "Bright", sku: null, price: 5000, compareAtPrice: 6000 });
    expect(p.images).toHaveLength(1);
    // Raising the price to the compare-at price is refused; clearing compare-at at the same time is fine.
    expect(
      (await errorOf(() => call("products_update", { siteId: w.siteId, id: r.id, price: 6000 }))).message,
    ).toContain("above price");
    await call("products_update", {
      siteId: w.siteId,
      id: r.id,
      price: 6000,
      compareAtPrice: null,
      images: [{ url: "/b.png" }, { url: "/c.png" }],
    });
    p = await call("products_get", { siteId: w.siteId, id: r.id });
    expect(p).toMatchObject({ price: 6000, compareAtPrice: null });
    expect(p.images.map((i: any) => i.url)).toEqual(["/b.png", "/c.png"]);
  });

  test("status is not changed by update, and category must belong to the site", async () => {
    const r = await call("products_create", { siteId: w.siteId, name: "Chair", price: 1 });
    expect((await errorOf(() => call("products_update", { siteId: w.siteId, id: r.id, status: "active" }))).code).toBe(
      "validation",
    );
    const otherCat = await call("product_categories_create", { siteId: w.site2Id, name: "Elsewhere" });
    const e = await errorOf(() => call("products_update", { siteId: w.siteId, id: r.id, categoryId: otherCat.id }));
    expect(e.message).toContain("does not exist on this site");
  });
});

describe("status transitions", () => {
  test("draft → active → inactive → draft, never active → draft", async () => {
    const r = await call("products_create", { siteId: w.siteId, name: "Status", price: 10 });
    const v0 = await w.contentVersion(w.siteId);
    expect(await call("products_set_status", { siteId: w.siteId, id: r.id, status: "active" })).toMatchObject({
      status: "active",
      previousStatus: "draft",
    });
    expect(await w.contentVersion(w.siteId)).toBe(v0 + 1);
    const e = await errorOf(() => call("products_set_status", { siteId: w.siteId, id: r.id, status: "draft" }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain("Set it inactive first");
    // Withdrawing an active product waits for a person: nothing changes until approved.
    const held = await call("products_set_status", { siteId: w.siteId, id: r.id, status: "inactive" });
    expect(held).toMatchObject({ status: "active", approval: { linkType: "pending_change", status: "pending" } });
    expect(await w.contentVersion(w.siteId)).toBe(v0 + 1);
    expect(await approveHeld(w, held)).toMatchObject({ applied: "products_set_status", status: "inactive" });
    expect(await call("products_set_status", { siteId: w.siteId, id: r.id, status: "draft" })).toMatchObject({
      status: "draft",
    });
    // Same status again is a no-op.
    expect(await call("products_set_status", { siteId: w.siteId, id: r.id, status: "draft" })).toMatchObject({
      status: "draft",
      previousStatus: "draft",
    });
    expect(
      (await errorOf(() => call("products_set_status", { siteId: w.siteId, id: r.id, status: "archived" }))).code,
    ).toBe("validation");
  });

  test("a product with options cannot be active without an active variant", async () => {
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Shirt",
      price: 1500,
      options: [{ name: "Size", values: ["S", "M"] }],
    });
    expect(
      (await errorOf(() => call("products_set_status", { siteId: w.siteId, id: r.id, status: "active" }))).message,
    ).toContain("at least one active variant");
    const gen = await call("product_variants_generate", { siteId: w.siteId, productId: r.id });
    await call("products_set_status", { siteId: w.siteId, id: r.id, status: "active" });
    // Deactivating the last active variant of an active product is refused.
    await call("product_variants_update", { siteId: w.siteId, id: gen.created[0].id, active: false });
    const e = await errorOf(() =>
      call("product_variants_update", { siteId: w.siteId, id: gen.created[1].id, active: false }),
    );
    expect(e.code).toBe("conflict");
    // Creating directly as active is checked the same way.
    expect(
      (
        await errorOf(() =>
          call("products_create", {
            siteId: w.siteId,
            name: "S2",
            price: 1,
            status: "active",
            options: [{ name: "Size", values: ["S"] }],
          }),
        )
      ).code,
    ).toBe("conflict");
  });
});

describe("variants", () => {
  let productId: number;
  beforeAll(async () => {
    productId = (
      await call("products_create", {
        siteId: w.siteId,
        name: "Hoodie",
        price: 4000,
        options: [
          { name: "Size", values: ["S", "M", "L"] },
          { name: "Colour", values: [{ value: "red", label: "Red" }, "blue"] },
        ],
      })
    ).id;
  });

  test("combinations are validated against the options", async () => {
    const bad = [
      [{ Size: "S" }, 'a value is missing for "Colour"'],
      [{ Size: "XL", Colour: "red" }, '"XL" is not a value of option "Size"'],
      [{ Size: "S", Colour: "red", Fit: "slim" }, '"Fit" is not an option'],
      [{ Size: "S", size: "M", Colour: "red" }, "given twice"],
    ] as const;
    for (const [options, msg] of bad) {
      const e = await errorOf(() => call("product_variants_create", { siteId: w.siteId, productId, options }));
      expect(e.code).toBe("validation");
      expect(e.message).toContain(msg);
    }
    const ok = await call("product_variants_create", {
      siteId: w.siteId,
      productId,
      options: { colour: "RED", SIZE: "s" },
      price: 4200,
      sku: "H-S-R",
    });
    expect(ok).toMatchObject({ name: "S / Red", price: 4200, active: true });
    const dup = await errorOf(() =>
      call("product_variants_create", { siteId: w.siteId, productId, options: { Size: "S", Colour: "Red" } }),
    );
    expect(dup.code).toBe("conflict");
    expect(dup.message).toContain(`variant ${ok.id}`);
    // A product without options cannot take variants.
    const plain = await call("products_create", { siteId: w.siteId, name: "Plain", price: 1 });
    expect(
      (
        await errorOf(() =>
          call("product_variants_create", { siteId: w.siteId, productId: plain.id, options: { Size: "S" } }),
        )
      ).message,
    ).toContain("no options");
  });

  test("generate fills the missing combinations, once", async () => {
    const g = await call("product_variants_generate", { siteId: w.siteId, productId, price: 3900, quantity: 5 });
    expect(g.created.map((x: any) => x.name)).toEqual(["S / blue", "M / Red", "M / blue", "L / Red", "L / blue"]);
    expect(g.skippedExisting).toBe(1);
    const again = await call("product_variants_generate", { siteId: w.siteId, productId });
    expect(again.created).toEqual([]);
    const p = await call("products_get", { siteId: w.siteId, id: productId });
    expect(p.variants).toHaveLength(6);
    expect(p.variants.find((x: any) => x.name === "M / blue")).toMatchObject({ price: 3900, quantity: 5 });
  });

  test("generate refuses more than 100 combinations and writes nothing", async () => {
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Big",
      price: 1,
      options: [
        { name: "A", values: values(11) },
        { name: "B", values: values(10) },
      ],
    });
    const e = await errorOf(() => call("product_variants_generate", { siteId: w.siteId, productId: r.id }));
    expect(e.code).toBe("validation");
    expect(e.message).toContain("110 combinations");
    expect(e.message).toContain("at most 100");
    expect((await call("products_get", { siteId: w.siteId, id: r.id })).variants).toEqual([]);
    const ten = await call("products_create", {
      siteId: w.siteId,
      name: "Ten",
      price: 1,
      options: [
        { name: "A", values: values(10) },
        { name: "B", values: values(10) },
      ],
    });
    expect((await call("product_variants_generate", { siteId: w.siteId, productId: ten.id })).created).toHaveLength(
      100,
    );
  });

  test("changing options keeps surviving ids and refuses to orphan variants unless told", async () => {
    const before = await call("products_get", { siteId: w.siteId, id: productId });
    const e = await errorOf(() =>
      call("product_options_set", {
        siteId: w.siteId,
        productId,
        options: [
          { name: "Size", values: ["S", "M"] },
          { name: "Colour", values: ["red", "blue"] },
        ],
      }),
    );
    expect(e.code).toBe("conflict");
    expect(e.details?.variantIds).toHaveLength(2); // the two L variants
    const after = await call("product_options_set", {
      siteId: w.siteId,
      productId,
      options: [
        { name: "Size", values: ["S", "M"] },
        { name: "Colour", values: [{ value: "red", label: "Crimson" }, "blue"] },
      ],
      deleteInvalidVariants: true,
    });
    expect(after.deletedVariantIds).toHaveLength(2);
    expect(after.options[0].id).toBe(before.options[0].id);
    expect(after.options[1].values[0]).toMatchObject({ id: before.options[1].values[0].id, label: "Crimson" });
    const p = await call("products_get", { siteId: w.siteId, id: productId });
    expect(p.variants).toHaveLength(4);
    // Adding an option invalidates every variant (each lacks a value for it).
    const e2 = await errorOf(() =>
      call("product_options_set", {
        siteId: w.siteId,
        productId,
        options: [
          ...after.options.map((o: any) => ({ name: o.name, values: o.values.map((x: any) => x.value) })),
          { name: "Fit", values: ["slim"] },
        ],
      }),
    );
    expect(e2.details?.variantIds).toHaveLength(4);
    const dupes = await errorOf(() =>
      call("product_options_set", { siteId: w.siteId, productId, options: [{ name: "Size", values: ["S", "s"] }] }),
    );
    expect(dupes.message).toContain("twice");
  });

  test("variant prices: compare-at above price, inactive variants kept but flagged", async () => {
    const p = await call("products_get", { siteId: w.siteId, id: productId });
    const v1 = p.variants[0];
    expect(
      (await errorOf(() => call("product_variants_update", { siteId: w.siteId, id: v1.id, compareAtPrice: v1.price })))
        .message,
    ).toContain("above price");
    await call("product_variants_update", { siteId: w.siteId, id: v1.id, active: false, costPrice: 100 });
    const again = await call("products_get", { siteId: w.siteId, id: productId });
    expect(again.variants.find((x: any) => x.id === v1.id)).toMatchObject({ active: false, costPrice: 100 });
    await call("product_variants_delete", { siteId: w.siteId, id: v1.id });
    expect(
      (await call("products_get", { siteId: w.siteId, id: productId })).variants.some((x: any) => x.id === v1.id),
    ).toBe(false);
  });
});

describe("bulk pricing", () => {
  test("rules per variant and product-wide, overlap refused, replaced as a whole", async () => {
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Pens",
      price: 250,
      options: [{ name: "Ink", values: ["black", "blue"] }],
      variants: [{ options: { Ink: "black" } }, { options: { Ink: "blue" } }],
    });
    const p = await call("products_get", { siteId: w.siteId, id: r.id });
    const black = p.variants[0].id;
    const overlap = await errorOf(() =>
      call("product_bulk_pricing_set", {
        siteId: w.siteId,
        productId: r.id,
        rules: [
          { minQuantity: 10, maxQuantity: 20, priceType: "fixed", amount: 200 },
          { minQuantity: 20, priceType: "fixed", amount: 180 },
        ],
      }),
    );
    expect(overlap.message).toContain("overlap");
    const res = await call("product_bulk_pricing_set", {
      siteId: w.siteId,
      productId: r.id,
      rules: [
        { minQuantity: 10, maxQuantity: 19, priceType: "fixed", amount: 200 },
        { minQuantity: 20, priceType: "percent_off", amount: 2500 },
        { variantOptions: { Ink: "black" }, minQuantity: 5, priceType: "fixed", amount: 190 },
        { variantId: black, minQuantity: 1, maxQuantity: 4, priceType: "fixed", amount: 240 },
      ],
    });
    expect(res.rules).toBe(4);
    const rules = (await call("products_get", { siteId: w.siteId, id: r.id })).bulkPricing;
    expect(rules.filter((x: any) => x.variantId === black)).toHaveLength(2);
    const foreign = await errorOf(() =>
      call("product_bulk_pricing_set", {
        siteId: w.siteId,
        productId: r.id,
        rules: [{ variantId: 999999, minQuantity: 1, priceType: "fixed", amount: 1 }],
      }),
    );
    expect(foreign.message).toContain("not a variant of this product");
    await call("product_bulk_pricing_set", { siteId: w.siteId, productId: r.id, rules: [] });
    expect((await call("products_get", { siteId: w.siteId, id: r.id })).bulkPricing).toEqual([]);
  });
});

describe("products_list and delete", () => {
  test("paginates newest first with filters", async () => {
    const s = w.site2Id;
    for (let i = 0; i < 5; i++) {
      w.clock.advance(1000);
      await call("products_create", {
        siteId: s,
        name: `Item ${i}`,
        price: 100 + i,
        status: i % 2 ? "active" : "draft",
      });
    }
    const p1 = await call("products_list", { siteId: s, limit: 2 });
    expect(p1.items.map((x: any) => x.name)).toEqual(["Item 4", "Item 3"]);
    expect(p1).toMatchObject({ limit: 2, offset: 0, nextOffset: 2 });
    const active = await call("products_list", { siteId: s, status: "active" });
    expect(active.items.map((x: any) => x.name)).toEqual(["Item 3", "Item 1"]);
    expect((await call("products_list", { siteId: s, limit: 101 }).catch((e) => e)).code).toBe("validation");
  });

  test("delete removes the product and everything hanging off it", async () => {
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Gone",
      price: 1,
      images: [{ url: "/x.png" }],
      options: [{ name: "A", values: ["1"] }],
      variants: [{ options: { A: "1" } }],
    });
    expect(await call("products_delete", { siteId: w.siteId, id: r.id })).toEqual({
      id: r.id,
      slug: "gone",
      status: "deleted",
    });
    expect((await errorOf(() => call("products_get", { siteId: w.siteId, id: r.id }))).code).toBe("not_found");
    const orphans = (await row(w.deps, "SELECT count(*) AS n FROM product_variants WHERE product_id = ?", r.id)) as {
      n: number;
    };
    expect(orphans.n).toBe(0);
  });
});

/** A new site of the same company, so counts and slugs start from nothing. */
const freshSite = async () =>
  (await w.deps.db.insert(sites).values({ companyId: w.companyId, name: "Fresh" }).returning())[0]!.id;
const names = (variants: { name: string; price: number }[]) => variants.map((x) => [x.name, x.price]);

describe("products_create generates variants, priced by option value", () => {
  test("generateVariants makes every combination at the product's price plus its optionPrices", async () => {
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Field Jacket",
      price: 2000,
      status: "active",
      options: [
        { name: "Size", values: ["S", "M", "L", "XL"] },
        { name: "Colour", values: ["red", { value: "blue", label: "Navy" }] },
      ],
      generateVariants: true,
      // Names and values match as variant options do: any case, value or label.
      optionPrices: { size: { L: 300, xl: 500 }, Colour: { Navy: 150 } },
    });
    // Hand-computed: base 2000; + 300 for L, + 500 for XL, + 150 for Navy, added up.
    const expected = [
      ["S / red", 2000],
      ["S / Navy", 2150],
      ["M / red", 2000],
      ["M / Navy", 2150],
      ["L / red", 2300],
      ["L / Navy", 2450],
      ["XL / red", 2500],
      ["XL / Navy", 2650],
    ];
    expect(r.status).toBe("active");
    expect(names(r.variants)).toEqual(expected);
    const p = await call("products_get", { siteId: w.siteId, id: r.id });
    expect(p.variants.map((x: any) => [x.name, x.price, x.active, x.quantity])).toEqual(
      expected.map(([n, c]) => [n, c, true, null]),
    );
    expect(p.variants.map((x: any) => x.id)).toEqual(r.variants.map((x: any) => x.id));
  });

  test("explicit variants come first and keep their own price; unpriced ones take optionPrices; generation fills the rest", async () => {
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Apron",
      price: 1000,
      options: [{ name: "Size", values: ["S", "M", "L"] }],
      variants: [{ options: { Size: "M" }, price: 1111, sku: "AP-M" }, { options: { Size: "L" } }],
      generateVariants: true,
      optionPrices: { Size: { L: 250, S: -100 } },
    });
    // M: its own 1111 (optionPrices never override a given price); L: 1000 + 250; S (generated): 1000 − 100.
    expect(names(r.variants)).toEqual([
      ["M", 1111],
      ["L", 1250],
      ["S", 900],
    ]);
    // Bulk pricing in the same call can name a generated variant.
    const withRule = await call("products_create", {
      siteId: w.siteId,
      name: "Apron Two",
      price: 1000,
      options: [{ name: "Size", values: ["S", "M"] }],
      generateVariants: true,
      bulkPricing: [{ variantOptions: { Size: "M" }, minQuantity: 5, priceType: "fixed", amount: 800 }],
    });
    const rules = (await call("products_get", { siteId: w.siteId, id: withRule.id })).bulkPricing;
    expect(rules).toEqual([expect.objectContaining({ variantId: withRule.variants[1].id, amount: 800 })]);
  });

  test("product_variants_generate takes optionPrices too, over its own base price", async () => {
    const r = await call("products_create", {
      siteId: w.siteId,
      name: "Beanie",
      price: 4000,
      options: [{ name: "Size", values: ["S", "M", "L"] }],
      variants: [{ options: { Size: "S" } }],
    });
    const g = await call("product_variants_generate", {
      siteId: w.siteId,
      productId: r.id,
      price: 3900,
      optionPrices: { Size: { L: 400, S: 9999 } },
    });
    // S exists and is left alone; M: 3900; L: 3900 + 400.
    expect(g.created).toEqual([
      { id: expect.any(Number), name: "M", price: 3900 },
      { id: expect.any(Number), name: "L", price: 4300 },
    ]);
    expect(g.skippedExisting).toBe(1);
    expect((await call("products_get", { siteId: w.siteId, id: r.id })).variants.map((x: any) => x.price)).toEqual([
      4000, 3900, 4300,
    ]);
    const plain = await call("products_create", { siteId: w.siteId, name: "Plain beanie", price: 1 });
    const e = await errorOf(() =>
      call("product_variants_generate", { siteId: w.siteId, productId: plain.id, optionPrices: { Size: { L: 1 } } }),
    );
    expect([e.code, e.message]).toEqual([
      "validation",
      "optionPrices need options, and this product has none; set its options first.",
    ]);
  });

  test("optionPrices that name nothing, prices out of range and misplaced flags are refused, and nothing is written", async () => {
    const site = await freshSite();
    const base = {
      siteId: site,
      name: "Cap",
      price: 1000,
      options: [{ name: "Size", values: ["S", { value: "L", label: "Large" }] }],
      generateVariants: true,
    };
    const cases: [Record<string, unknown>, string][] = [
      [
        { optionPrices: { Fit: { slim: 100 } } },
        'optionPrices: "Fit" is not an option of this product; its options are "Size"',
      ],
      [
        { optionPrices: { Size: { XL: 100 } } },
        'optionPrices.Size: "XL" is not a value of option "Size"; its values are "S", "L"',
      ],
      [{ optionPrices: { Size: { L: 100, large: 200 } } }, 'optionPrices.Size prices the value "L" twice'],
      [{ optionPrices: { Size: { S: -1001 } } }, 'Variant "S" would cost -1 cents'],
      [{ optionPrices: { Size: { S: 1.5 } } }, "whole cents"],
      [
        { generateVariants: false, optionPrices: { Size: { L: 100 } } },
        "optionPrices price the variants this call creates",
      ],
      [{ options: undefined }, "generateVariants needs options"],
    ];
    for (const [extra, msg] of cases) {
      const e = await errorOf(() => call("products_create", { ...base, ...extra }));
      expect([e.code, e.message]).toEqual(["validation", expect.stringContaining(msg)]);
    }
    expect((await call("products_list", { siteId: site })).total).toBe(0);
  });

  test("generation in products_create keeps the 100-variant cap and writes nothing past it", async () => {
    const site = await freshSite();
    const values = (n: number) => Array.from({ length: n }, (_, i) => `v${i}`);
    const e = await errorOf(() =>
      call("products_create", {
        siteId: site,
        name: "Grid",
        price: 1,
        options: [
          { name: "A", values: values(11) },
          { name: "B", values: values(10) },
        ],
        generateVariants: true,
      }),
    );
    expect([e.code, e.message]).toEqual([
      "validation",
      expect.stringContaining("The options make 110 combinations (11 A × 10 B); at most 100"),
    ]);
    // With one explicit variant, 99 more fit exactly; the grid of 100 is complete.
    const ok = await call("products_create", {
      siteId: site,
      name: "Grid",
      price: 1,
      options: [
        { name: "A", values: values(10) },
        { name: "B", values: values(10) },
      ],
      variants: [{ options: { A: "v9", B: "v9" }, price: 7 }],
      generateVariants: true,
    });
    expect(ok.slug).toBe("grid"); // the refused call left no product behind to push the slug to grid-2
    expect(ok.variants).toHaveLength(100);
    expect(ok.variants[0]).toMatchObject({ name: "v9 / v9", price: 7 });
  });
});

describe("messages speak of the call, never of a row the failed call created", () => {
  test("active with options but no active variant: the refusal names no product id", async () => {
    const site = await freshSite();
    const msg =
      "A product with options needs at least one active variant to be created as active: pass variants (or generateVariants: true), " +
      "or create it as draft and activate it after adding variants.";
    const options = [{ name: "Size", values: ["S", "M"] }];
    for (const extra of [{}, { variants: [{ options: { Size: "S" }, active: false }] }]) {
      const e = await errorOf(() =>
        call("products_create", { siteId: site, name: "Shirt", price: 1500, status: "active", options, ...extra }),
      );
      expect([e.code, e.message]).toEqual(["conflict", msg]);
      expect(e.message).not.toMatch(/\d/);
    }
    expect((await call("products_list", { siteId: site })).total).toBe(0);
    // The same call with generated variants goes through.
    expect(
      (
        await call("products_create", {
          siteId: site,
          name: "Shirt",
          price: 1500,
          status: "active",
          options,
          generateVariants: true,
        })
      ).slug,
    ).toBe("shirt");
  });

  test("two variants with the same options in one call, and overlapping rules of a new variant, are described, not numbered", async () => {
    const site = await freshSite();
    const dup = await errorOf(() =>
      call("products_create", {
        siteId: site,
        name: "Pen",
        price: 250,
        options: [{ name: "Ink", values: ["black", "blue"] }],
        variants: [{ options: { Ink: "black" } }, { options: { ink: "BLACK" } }],
      }),
    );
    expect([dup.code, dup.message]).toEqual([
      "conflict",
      "Two of the variants given have the same options (black); give each combination once.",
    ]);
    const overlap = await errorOf(() =>
      call("products_create", {
        siteId: site,
        name: "Pen",
        price: 250,
        options: [{ name: "Ink", values: ["black", "blue"] }],
        generateVariants: true,
        bulkPricing: [
          { variantOptions: { Ink: "black" }, minQuantity: 10, maxQuantity: 20, priceType: "fixed", amount: 200 },
          { variantOptions: { Ink: "black" }, minQuantity: 15, priceType: "fixed", amount: 190 },
        ],
      }),
    );
    expect(overlap.message).toContain('(rules for variant "black": 10–20 and 15–∞)');
    expect(overlap.message).not.toMatch(/variant \d/);
    expect((await call("products_list", { siteId: site })).total).toBe(0);
  });
});

describe("products_list featured filter", () => {
  test("featured: true and false pick each side; omitted lists both", async () => {
    const site = await freshSite();
    const a = await call("products_create", { siteId: site, name: "Star", price: 1, featured: true });
    const b = await call("products_create", { siteId: site, name: "Plain", price: 1 });
    const c = await call("products_create", {
      siteId: site,
      name: "Also star",
      price: 1,
      featured: true,
      status: "active",
    });
    const ids = async (args: Record<string, unknown>) =>
      (await call("products_list", { siteId: site, ...args })).items.map((x: any) => x.id).sort();
    expect(await ids({ featured: true })).toEqual([a.id, c.id].sort());
    expect(await ids({ featured: false })).toEqual([b.id]);
    expect(await ids({})).toEqual([a.id, b.id, c.id].sort());
    expect(await ids({ featured: true, status: "active" })).toEqual([c.id]);
    expect((await call("products_list", { siteId: site, featured: true })).total).toBe(2);
    expect((await errorOf(() => call("products_list", { siteId: site, featured: "yes" }))).code).toBe("validation");
  });
});
