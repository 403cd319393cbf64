/**
 * REST v1 commerce: listProducts, getProductBySlug, listProductCategories —
 * visibility (active products, variants, categories), sorts, filters,
 * page-based pagination, live productCount, "Store not found".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bumpContentVersion } from "../../src/domains/sites/content-version";
import { products } from "../../src/domains/store/tables";
import type { TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { BASE, type RestContent } from "../fixtures/rest-content";
import { expectError, restWorld, type Rest } from "./helpers";

let server: TestServer;
let api: Rest;
let c: RestContent;
let key: string;
let shop: string;

beforeAll(async () => ({ server, api, c, key, shop } = await restWorld()));
afterAll(() => server.stop());

const get = (path: string) => api.keyed(shop + path, key);
const slugs = (r: { body: any }) => r.body.data.map((x: any) => x.slug);
const at = (days: number) => new Date(BASE - days * 86_400_000).toISOString();

const NEWEST = ["cap", "secret-sale-item", "premium-hoodie", "uebergroesse-jacket", "classic-tee"];

describe("listProducts", () => {
  test("active products, newest first, with summaries", async () => {
    const r = await get("/products");
    expect(r.status).toBe(200);
    expect(slugs(r)).toEqual(NEWEST);
    expect(r.body.pagination).toEqual({ page: 1, limit: 24, total: 5, totalPages: 1 });
    const byslug = Object.fromEntries(r.body.data.map((p: any) => [p.slug, p]));
    expect(byslug["classic-tee"]).toEqual({
      id: c.products.tee,
      name: "Classic Tee",
      slug: "classic-tee",
      shortDescription: "A soft cotton tee",
      price: 2000,
      compareAtPrice: 2500,
      featured: false,
      categoryId: c.productCategories.apparel,
      categoryName: "Apparel",
      image: "https://cdn.example.com/tee-a.jpg", // order 0 wins over the older-id order 1
      createdAt: at(5),
    });
    expect(byslug["premium-hoodie"]).toMatchObject({ image: null, featured: true, compareAtPrice: null });
    // In an inactive category: the category is hidden, the product is not.
    expect(byslug["secret-sale-item"]).toMatchObject({ categoryId: null, categoryName: null });
    expect(byslug["uebergroesse-jacket"]).toMatchObject({ categoryId: null, categoryName: null });
  });

  test.each([
    ["sort=newest", NEWEST],
    ["sort=price_asc", ["secret-sale-item", "cap", "classic-tee", "premium-hoodie", "uebergroesse-jacket"]],
    ["sort=price_desc", ["uebergroesse-jacket", "premium-hoodie", "classic-tee", "cap", "secret-sale-item"]],
    ["sort=featured", ["premium-hoodie", "cap", "secret-sale-item", "uebergroesse-jacket", "classic-tee"]],
    ["sort=", NEWEST],
    ["category=apparel", ["premium-hoodie", "classic-tee"]],
    ["category=accessories", ["cap"]],
    ["category=sale", []],
    ["category=shirts", []],
    ["category=hidden", []],
    ["category=no-such", []],
    ["category=apparel&sort=price_desc", ["premium-hoodie", "classic-tee"]],
    ["search=tee", ["classic-tee"]],
    ["search=COTTON", ["classic-tee"]],
    ["search=warm", ["premium-hoodie"]],
    ["search=%C3%BCber", ["uebergroesse-jacket"]],
    ["search=KALTE", ["uebergroesse-jacket"]],
    ["search=soft%20tee", ["classic-tee"]],
    ["search=soft%20hoodie", []],
    ["search=e&sort=price_asc", ["secret-sale-item", "classic-tee", "premium-hoodie", "uebergroesse-jacket"]],
    ["search=draft", []],
    ["search=e&category=apparel", ["premium-hoodie", "classic-tee"]],
  ])("%s", async (q, expected) => {
    const r = await get(`/products?${q}`);
    expect(r.status).toBe(200);
    expect(slugs(r)).toEqual(expected);
    expect(r.body.pagination.total).toBe(expected.length);
  });

  test.each([
    ["limit=2", ["cap", "secret-sale-item"], { page: 1, limit: 2, total: 5, totalPages: 3 }],
    ["limit=2&page=2", ["premium-hoodie", "uebergroesse-jacket"], { page: 2, limit: 2, total: 5, totalPages: 3 }],
    ["limit=2&page=3", ["classic-tee"], { page: 3, limit: 2, total: 5, totalPages: 3 }],
    ["limit=2&page=4", [], { page: 4, limit: 2, total: 5, totalPages: 3 }],
    ["page=9007199254740991", [], { page: 9007199254740991, limit: 24, total: 5, totalPages: 1 }],
    ["limit=500", NEWEST, { page: 1, limit: 100, total: 5, totalPages: 1 }],
    ["limit=1&search=e&page=2", ["premium-hoodie"], { page: 2, limit: 1, total: 4, totalPages: 4 }],
    ["category=sale", [], { page: 1, limit: 24, total: 0, totalPages: 0 }],
  ])("pagination %s", async (q, expected, pagination) => {
    const r = await get(`/products?${q}`);
    expect(slugs(r)).toEqual(expected);
    expect(r.body.pagination).toEqual(pagination);
  });

  test.each([
    ["page=0", /^page must be a whole number from 1 to/],
    ["page=-1", /^page must be/],
    ["page=abc", /^page must be/],
    ["page=99999999999999999999", /^page must be/],
    ["limit=0", /^limit must be/],
    ["sort=cheapest", "sort must be one of newest, price_asc, price_desc, featured"],
    ["sort=NEWEST", "sort must be one of newest, price_asc, price_desc, featured"],
    ["sort=newest&sort=price_asc", "sort is given more than once; give it at most once"],
    ["category=Apparel", /^category must be a slug/],
    ["search=" + "y".repeat(201), "search must be at most 200 characters"],
  ])("bad %s → 400", async (q, message) => {
    expectError(await get(`/products?${q}`), 400, message);
  });
});

describe("getProductBySlug", () => {
  test("full detail: images by order, options with values by order, active variants only, rules of visible variants", async () => {
    const r = await get("/products/classic-tee");
    expect(r.status).toBe(200);
    const d = r.body.data;
    expect(d).toMatchObject({
      id: c.products.tee,
      websiteId: c.sites.shop,
      categoryId: c.productCategories.apparel,
      name: "Classic Tee",
      slug: "classic-tee",
      description: "<p>Soft cotton</p>",
      shortDescription: "A soft cotton tee",
      sku: "TEE-1",
      barcode: "0001",
      price: 2000,
      compareAtPrice: 2500,
      costPrice: 800,
      trackInventory: true,
      quantity: 40,
      weight: "0.2",
      weightUnit: "kg",
      lengthIn: 10.5,
      widthIn: 8,
      heightIn: 0.5,
      status: "active",
      featured: false,
      designable: false,
      seoTitle: "Tee",
      seoDescription: "Buy the tee",
      tags: ["cotton", "summer"],
      metadata: { origin: "PT" },
      createdAt: at(5),
      updatedAt: at(5),
      category: { id: c.productCategories.apparel, name: "Apparel", slug: "apparel" },
    });
    expect(d.images).toEqual([
      {
        id: c.images.a,
        productId: c.products.tee,
        url: "https://cdn.example.com/tee-a.jpg",
        alt: "Front",
        order: 0,
        createdAt: at(5),
      },
      {
        id: c.images.b,
        productId: c.products.tee,
        url: "https://cdn.example.com/tee-b.jpg",
        alt: null,
        order: 1,
        createdAt: at(5),
      },
    ]);
    expect(d.options.map((o: any) => [o.name, o.values.map((v: any) => v.value)])).toEqual([
      ["Size", ["s", "m", "l"]],
      ["Colour", ["red"]],
    ]);
    expect(d.options[0].values[0]).toEqual({
      id: c.values.sizeS,
      optionId: c.options.size,
      value: "s",
      label: "Small",
      order: 0,
      createdAt: at(5),
    });
    expect(d.options[1].values[0].label).toBeNull();
    expect(d.variants.map((v: any) => v.id)).toEqual([c.variants.vS, c.variants.vL]);
    expect(d.variants[0]).toEqual({
      id: c.variants.vS,
      productId: c.products.tee,
      name: "S / Red",
      sku: "TEE-S",
      barcode: null,
      price: 2000,
      compareAtPrice: 2500,
      costPrice: null,
      quantity: 10,
      weight: null,
      image: null,
      lengthIn: 1.5,
      widthIn: null,
      heightIn: null,
      active: true,
      optionValues: [
        { optionId: c.options.size, valueId: c.values.sizeS },
        { optionId: c.options.colour, valueId: c.values.red },
      ],
      createdAt: at(5),
      updatedAt: at(5),
    });
    expect(d.variants[1]).toMatchObject({ price: 2200, quantity: null });
    expect(d.bulkPricing).toEqual([
      {
        id: c.rules.product10,
        productId: c.products.tee,
        variantId: null,
        minQuantity: 10,
        maxQuantity: 49,
        priceType: "percent_off",
        amount: 1000,
        createdAt: at(5),
      },
      {
        id: c.rules.variantS,
        productId: c.products.tee,
        variantId: c.variants.vS,
        minQuantity: 20,
        maxQuantity: null,
        priceType: "fixed",
        amount: 1700,
        createdAt: at(5),
      },
    ]);
  });

  test("a product with nothing attached has empty lists and null category", async () => {
    const r = await get("/products/uebergroesse-jacket");
    expect(r.body.data).toMatchObject({
      images: [],
      options: [],
      variants: [],
      bulkPricing: [],
      category: null,
      categoryId: null,
      tags: null,
      metadata: null,
    });
  });

  test("a product in an inactive category reports no category", async () => {
    const r = await get("/products/secret-sale-item");
    expect(r.body.data).toMatchObject({ category: null, categoryId: null });
  });

  test.each(["draft-thing", "old-thing", "off-product", "closed-product", "nope"])(
    "%s → 404 Not found",
    async (slug) => {
      expectError(await get(`/products/${slug}`), 404, "Not found");
    },
  );

  test("bad slug → 400", async () => {
    expectError(await get("/products/Classic-Tee"), 400, /^Invalid slug/);
  });
});

describe("listProductCategories", () => {
  test("active categories by order then name, with live productCount", async () => {
    const r = await get("/product-categories");
    expect(r.body.data).toEqual([
      {
        id: c.productCategories.sale,
        name: "Sale",
        slug: "sale",
        description: null,
        image: null,
        parentId: null,
        order: 0,
        productCount: 0,
      },
      {
        id: c.productCategories.accessories,
        name: "Accessories",
        slug: "accessories",
        description: null,
        image: null,
        parentId: null,
        order: 1,
        productCount: 1,
      },
      {
        id: c.productCategories.apparel,
        name: "Apparel",
        slug: "apparel",
        description: "Clothes",
        image: "https://cdn.example.com/apparel.jpg",
        parentId: null,
        order: 1,
        productCount: 2,
      },
      {
        id: c.productCategories.shirts,
        name: "Shirts",
        slug: "shirts",
        description: null,
        image: null,
        parentId: c.productCategories.apparel,
        order: 2,
        productCount: 0,
      },
    ]);
  });

  test("productCount is live: a product turned active counts after the writer bumps the content version", async () => {
    const db = server.deps.db;
    await db.transaction(async (tx) => {
      await tx.update(products).set({ status: "active" }).where(eq(products.id, c.products.draft));
      await bumpContentVersion(tx, c.sites.shop);
    });
    try {
      const r = await get("/product-categories");
      expect(r.body.data.find((x: any) => x.slug === "apparel").productCount).toBe(3);
      expect(slugs(await get("/products?category=apparel"))).toEqual(["draft-thing", "premium-hoodie", "classic-tee"]);
    } finally {
      await db.transaction(async (tx) => {
        await tx.update(products).set({ status: "draft" }).where(eq(products.id, c.products.draft));
        await bumpContentVersion(tx, c.sites.shop);
      });
    }
    expect((await get("/product-categories")).body.data.find((x: any) => x.slug === "apparel").productCount).toBe(2);
  });
});

describe("Store not found", () => {
  test.each([
    ["blog (no store row)", "blog"],
    ["closed (store disabled)", "closed"],
  ] as const)("%s: every product endpoint → 404 Store not found", async (_label, which) => {
    const id = c.sites[which];
    const k = (await mintRestKey(server.deps, id)).key;
    for (const p of ["products", "products/closed-product", "product-categories"]) {
      expectError(await api.keyed(`/api/v1/sites/${id}/${p}`, k), 404, "Store not found");
    }
    // The rest of the site is served, and config says there is no store.
    const cfg = await api.get(`/api/v1/sites/${id}/config`);
    expect(cfg.body.data.storeEnabled).toBe(false);
  });

  test("an inactive site with a store is Not found, not Store not found", async () => {
    const k = (await mintRestKey(server.deps, c.sites.off)).key;
    expectError(await api.keyed(`/api/v1/sites/${c.sites.off}/products`, k), 404, "Not found");
  });
});
