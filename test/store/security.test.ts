/**
 * Every store tool, called the way the adapter calls it, refuses: a viewer
 * (writes), a credential without the store scope, a read-only credential
 * (writes), a site of another company, and ids of another company's rows
 * on the caller's own site. Each tool has sample arguments here so that a
 * new tool without them fails this file.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { storeDomain } from "../../src/domains/store/tools";
import { call, errorOf, makeWorld, type World } from "./world";

let w: World;
interface Ids {
  site: number;
  product: number;
  variant: number;
  category: number;
  category2: number;
  customer: number;
  order: number;
  discount: number;
  review: number;
  message: number;
}
let mine: Ids;
let theirs: Ids;

async function seed(ctx: ReturnType<World["ctx"]>, site: number): Promise<Ids> {
  const c = (name: string, args: Record<string, unknown>) => call(storeDomain, ctx, name, args);
  await c("store_settings_update", { siteId: site, enabled: true });
  const category = (await c("product_categories_create", { siteId: site, name: "Cat" })).id;
  const category2 = (await c("product_categories_create", { siteId: site, name: "Cat 2" })).id;
  const product = (
    await c("products_create", {
      siteId: site,
      name: "P",
      price: 100,
      options: [{ name: "Size", values: ["S", "M"] }],
      variants: [{ options: { Size: "S" } }],
      status: "active",
    })
  ).id;
  const variant = (await c("products_get", { siteId: site, id: product })).variants[0].id;
  const customer = (await c("customers_create", { siteId: site, email: "c@x.test" })).id;
  const order = (
    await c("orders_create", {
      siteId: site,
      customerId: customer,
      items: [{ productId: product, variantId: variant, quantity: 1 }],
    })
  ).id;
  const discount = (await c("discounts_create", { siteId: site, code: "SAVE10", kind: "percent", amount: 1000 })).id;
  const review = (await c("reviews_create", { siteId: site, productId: product, authorName: "A", rating: 4 })).id;
  const message = (
    await c("customer_messages_create", { siteId: site, email: "c@x.test", subject: "Hi", body: "Hello" })
  ).id;
  return { site, product, variant, category, category2, customer, order, discount, review, message };
}

/** Valid arguments for each tool, over the given ids. */
function sample(name: string, x: Ids): Record<string, unknown> {
  const s = { siteId: x.site };
  const table: Record<string, Record<string, unknown>> = {
    products_list: s,
    products_get: { ...s, id: x.product },
    products_create: { ...s, name: "New", price: 1 },
    products_update: { ...s, id: x.product, name: "Renamed" },
    products_set_status: { ...s, id: x.product, status: "inactive" },
    products_delete: { ...s, id: x.product },
    product_options_set: { ...s, productId: x.product, options: [{ name: "Size", values: ["S", "M"] }] },
    product_variants_create: { ...s, productId: x.product, options: { Size: "M" } },
    product_variants_update: { ...s, id: x.variant, price: 150 },
    product_variants_delete: { ...s, id: x.variant },
    product_variants_generate: { ...s, productId: x.product },
    product_bulk_pricing_set: { ...s, productId: x.product, rules: [] },
    product_categories_list: s,
    product_categories_create: { ...s, name: "C" },
    product_categories_update: { ...s, id: x.category, name: "C2" },
    product_categories_move: { ...s, id: x.category, parentId: x.category2 },
    product_categories_reorder: { ...s, parentId: x.category2, orderedIds: [] },
    product_categories_delete: { ...s, id: x.category },
    store_settings_get: s,
    store_settings_update: { ...s, taxInclusive: true },
    customers_list: s,
    customers_get: { ...s, id: x.customer },
    customers_create: { ...s, email: "new@x.test" },
    customers_update: { ...s, id: x.customer, name: "N" },
    orders_list: s,
    orders_get: { ...s, id: x.order },
    orders_create: { ...s, items: [{ productId: x.product, variantId: x.variant, quantity: 1 }] },
    orders_update: { ...s, id: x.order, notes: "Gift wrap", customerId: x.customer },
    orders_update_status: { ...s, id: x.order, status: "paid" },
    orders_delete: { ...s, id: x.order },
    discounts_list: s,
    discounts_get: { ...s, id: x.discount },
    discounts_create: { ...s, code: "NEW1", kind: "fixed", amount: 100 },
    discounts_update: { ...s, id: x.discount, active: false },
    discounts_delete: { ...s, id: x.discount },
    reviews_list: s,
    reviews_create: { ...s, productId: x.product, authorName: "B", rating: 5 },
    reviews_moderate: { ...s, id: x.review, action: "approve" },
    customer_messages_list: s,
    customer_messages_get: { ...s, id: x.message },
    customer_messages_create: { ...s, email: "d@x.test", subject: "S", body: "B" },
    customer_messages_reply: { ...s, id: x.message, body: "R" },
    customer_messages_close: { ...s, id: x.message },
    customer_messages_reopen: { ...s, id: x.message },
  };
  const args = table[name];
  if (!args) throw new Error(`security.test.ts has no sample arguments for ${name}; add them`);
  return args;
}

/** Tools whose sample refers to no row of the site other than the site itself. */
const SITE_ONLY = new Set([
  "products_list",
  "products_create",
  "product_categories_list",
  "product_categories_create",
  "store_settings_get",
  "store_settings_update",
  "customers_list",
  "customers_create",
  "orders_list",
  "discounts_list",
  "discounts_create",
  "reviews_list",
  "customer_messages_list",
  "customer_messages_create",
]);

beforeAll(async () => {
  w = await makeWorld();
  mine = await seed(w.ctx(), w.siteId);
  theirs = await seed(w.ctx({ company: "other" }), w.otherSiteId);
});
afterAll(() => w.close());

const tools = () => storeDomain.tools;

describe("every store tool", () => {
  test("is declared with the store scope matching its read-only flag", () => {
    expect(tools().length).toBeGreaterThanOrEqual(40);
    for (const t of tools()) {
      expect(t.toolset).toBe("store");
      expect(t.scope).toBe(t.readOnly ? "store:read" : "store:write");
    }
  });

  test("a viewer may read but not write", async () => {
    const viewer = w.ctx({ role: "viewer" });
    for (const t of tools()) {
      const args = sample(t.name, mine);
      if (t.readOnly) {
        await call(storeDomain, viewer, t.name, args);
      } else {
        const e = await errorOf(() => call(storeDomain, viewer, t.name, args));
        expect([t.name, e.code, e.message]).toEqual([t.name, "forbidden", expect.stringContaining("viewer")]);
      }
    }
  });

  test("a read-only credential may read but not write; another domain's scope gets nothing", async () => {
    const reader = w.ctx({ scopes: ["store:read"] });
    const stranger = w.ctx({ scopes: ["sites:write", "branding:*"] });
    for (const t of tools()) {
      const args = sample(t.name, mine);
      if (t.readOnly) await call(storeDomain, reader, t.name, args);
      else
        expect([t.name, (await errorOf(() => call(storeDomain, reader, t.name, args))).message]).toEqual([
          t.name,
          expect.stringContaining("store:write"),
        ]);
      expect([t.name, (await errorOf(() => call(storeDomain, stranger, t.name, args))).code]).toEqual([
        t.name,
        "forbidden",
      ]);
    }
  });

  test("another company's site answers as not found, and nothing of it changes", async () => {
    const before = await w.contentVersion(theirs.site);
    for (const t of tools()) {
      const e = await errorOf(() => call(storeDomain, w.ctx(), t.name, sample(t.name, theirs)));
      expect([t.name, e.code, e.message]).toEqual([
        t.name,
        "not_found",
        expect.stringContaining(`Site ${theirs.site} not found`),
      ]);
    }
    expect(await w.contentVersion(theirs.site)).toBe(before);
  });

  test("another company's rows cannot be reached through one's own site", async () => {
    const before = await w.contentVersion(theirs.site);
    for (const t of tools()) {
      if (SITE_ONLY.has(t.name)) continue;
      // Own site id, the other tenant's row ids.
      const args = { ...sample(t.name, theirs), siteId: mine.site };
      const e = await errorOf(() => call(storeDomain, w.ctx(), t.name, args));
      expect([t.name, ["not_found", "validation"].includes(e.code)]).toEqual([t.name, true]);
    }
    expect(await w.contentVersion(theirs.site)).toBe(before);
    // And their rows are intact.
    const theirProduct = await call(storeDomain, w.ctx({ company: "other" }), "products_get", {
      siteId: theirs.site,
      id: theirs.product,
    });
    expect(theirProduct.name).toBe("P");
  });

  test("malformed site ids and wrong types are validation errors", async () => {
    for (const t of tools()) {
      for (const siteId of [0, -1, 1.5, "1", null, 2 ** 60]) {
        const e = await errorOf(() => call(storeDomain, w.ctx(), t.name, { ...sample(t.name, mine), siteId }));
        expect([t.name, e.code]).toEqual([t.name, "validation"]);
      }
      const missing = await errorOf(() => call(storeDomain, w.ctx(), t.name, {}));
      expect([t.name, missing.code]).toEqual([t.name, "validation"]);
    }
  });
});
