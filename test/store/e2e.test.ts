/**
 * Over the real wire: an agent drives the store and branding tools through
 * the MCP endpoint with the official SDK client, and the REST API serves the
 * result (with a new ETag) to a renderer holding a REST key.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { sites } from "../../src/domains/sites/tables";
import { startTestServer, type TestServer } from "../harness";
import {
  addMember,
  callTool,
  createCompany,
  createUser,
  mcpClient,
  mintMcpKey,
  rawMcp,
  toolOk,
} from "../fixtures/accounts";
import { mintRestKey } from "../fixtures/rest";

let s: TestServer;
let owner: Client;
let siteId: number;
let otherSiteId: number;
let restKey: string;
let keys: { owner: string; readOnly: string; viewer: string; multi: string };

const api = async (path: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${s.url}/api/v1/sites/${siteId}${path}`, {
    headers: { Authorization: `Bearer ${restKey}`, ...headers },
  });
  const text = await res.text();
  return { status: res.status, etag: res.headers.get("etag"), body: text ? JSON.parse(text) : null };
};

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "owner@shop.test" });
  const viewer = await createUser(s.deps, { email: "viewer@shop.test" });
  const co = await createCompany(s.deps, { name: "Shop Co", ownerUserId: u.id });
  const other = await createCompany(s.deps, { name: "Other Co", ownerUserId: u.id });
  await addMember(s.deps, co.id, viewer.id, "viewer");
  const now = s.clock.now();
  siteId = (
    await s.deps.db.insert(sites).values({ companyId: co.id, name: "Shop", createdAt: now, updatedAt: now }).returning()
  )[0].id;
  otherSiteId = (
    await s.deps.db
      .insert(sites)
      .values({ companyId: other.id, name: "Elsewhere", createdAt: now, updatedAt: now })
      .returning()
  )[0].id;
  restKey = (await mintRestKey(s.deps, siteId)).key;
  keys = {
    owner: (await mintMcpKey(s.deps, { userId: u.id, scopes: ["store:*", "branding:*"], companyIds: [co.id] })).key,
    readOnly: (await mintMcpKey(s.deps, { userId: u.id, scopes: ["store:read", "branding:read"], companyIds: [co.id] }))
      .key,
    viewer: (await mintMcpKey(s.deps, { userId: viewer.id, scopes: ["store:*", "branding:*"], companyIds: [co.id] }))
      .key,
    multi: (await mintMcpKey(s.deps, { userId: u.id, scopes: ["*"], companyIds: [co.id, other.id] })).key,
  };
  owner = await mcpClient(s.url, keys.owner);
});
afterAll(async () => {
  await owner?.close();
  await s.stop();
});

const tool = (name: string, args: Record<string, unknown>, c = owner) => toolOk(c, name, args);

describe("an agent builds a catalog; REST serves it", () => {
  test("products created and activated over MCP appear in listProducts with image, categoryName and order", async () => {
    expect((await api("/products")).status).toBe(404); // no store yet: "Store not found"
    await tool("store_settings_update", { siteId, enabled: true, currency: "EUR" });
    const cat = await tool("product_categories_create", { siteId, name: "Mugs" });
    const mug = await tool("products_create", {
      siteId,
      name: "Blue Mug",
      price: 1800,
      compareAtPrice: 2400,
      shortDescription: "Stoneware",
      categoryId: cat.id,
      images: [
        { url: "https://cdn.example.com/mug-front.jpg", alt: "front" },
        { url: "https://cdn.example.com/mug-back.jpg" },
      ],
    });
    s.clock.advance(60_000);
    const tee = await tool("products_create", {
      siteId,
      name: "Tee",
      price: 2500,
      images: [{ url: "/media/tee.png" }],
    });
    s.clock.advance(60_000);
    await tool("products_create", { siteId, name: "Hidden Draft", price: 100 });

    // Drafts are invisible.
    let list = await api("/products");
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([]);

    await tool("products_set_status", { siteId, id: mug.id, status: "active" });
    await tool("products_set_status", { siteId, id: tee.id, status: "active" });
    list = await api("/products");
    expect(list.body.data.map((p: any) => p.slug)).toEqual(["tee", "blue-mug"]); // newest first
    expect(list.body.pagination).toEqual({ page: 1, limit: 24, total: 2, totalPages: 1 });
    expect(list.body.data[1]).toMatchObject({
      id: mug.id,
      name: "Blue Mug",
      price: 1800,
      compareAtPrice: 2400,
      categoryId: cat.id,
      categoryName: "Mugs",
      image: "https://cdn.example.com/mug-front.jpg",
    });
    // A /media/ path Plinth serves leaves REST absolute, for renderers on other hosts.
    expect(list.body.data[0]).toMatchObject({ categoryName: null, image: `${s.config.publicUrl}/media/tee.png` });
    expect((await api("/products?sort=price_asc")).body.data.map((p: any) => p.slug)).toEqual(["blue-mug", "tee"]);
    // Reordering images over MCP changes the summary image.
    await tool("products_update", {
      siteId,
      id: mug.id,
      images: [{ url: "https://cdn.example.com/mug-back.jpg" }, { url: "https://cdn.example.com/mug-front.jpg" }],
    });
    expect((await api("/products?sort=price_asc")).body.data[0].image).toBe("https://cdn.example.com/mug-back.jpg");
    const cats = await api("/product-categories");
    expect(cats.body.data).toEqual([expect.objectContaining({ id: cat.id, name: "Mugs", productCount: 1 })]);
  });

  test("an inactive variant never appears in getProductBySlug, and each write gives a new ETag", async () => {
    const shirt = await tool("products_create", {
      siteId,
      name: "Shirt",
      price: 3000,
      options: [{ name: "Size", values: ["S", "M", "L"] }],
    });
    const gen = await tool("product_variants_generate", { siteId, productId: shirt.id });
    expect(gen.created).toHaveLength(3);
    await tool("product_bulk_pricing_set", {
      siteId,
      productId: shirt.id,
      rules: [
        { minQuantity: 10, priceType: "percent_off", amount: 1000 },
        { variantId: gen.created[2].id, minQuantity: 5, priceType: "fixed", amount: 2500 },
      ],
    });
    await tool("products_set_status", { siteId, id: shirt.id, status: "active" });
    const first = await api("/products/shirt");
    expect(first.status).toBe(200);
    expect(first.body.data.variants.map((x: any) => x.name)).toEqual(["S", "M", "L"]);
    expect(first.etag).toBeTruthy();
    expect((await api("/products/shirt", { "If-None-Match": first.etag! })).status).toBe(304);

    await tool("product_variants_update", { siteId, id: gen.created[2].id, active: false });
    const after = await api("/products/shirt", { "If-None-Match": first.etag! });
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(first.etag);
    expect(after.body.data.variants.map((x: any) => x.name)).toEqual(["S", "M"]);
    expect(after.body.data.variants.every((x: any) => x.active)).toBe(true);
    // The MCP view still has it, flagged.
    const full = await tool("products_get", { siteId, id: shirt.id });
    expect(full.variants.find((x: any) => x.id === gen.created[2].id)).toMatchObject({ active: false });
    // Withdrawing the product takes it off REST, once a person approves.
    const held = await tool("products_set_status", { siteId, id: shirt.id, status: "inactive" });
    expect(held.approval.linkType).toBe("pending_change");
    expect((await api("/products/shirt")).status).toBe(200);
    expect(
      (await decideApproval(s.deps, { token: held.approval.token }, "approve", { decidedBy: "a reviewer" })).ok,
    ).toBe(true);
    expect((await api("/products/shirt")).status).toBe(404);
  });

  test("orders over MCP take stock that REST then reports", async () => {
    const lamp = await tool("products_create", {
      siteId,
      name: "Lamp",
      price: 4999,
      trackInventory: true,
      quantity: 3,
      status: "active",
    });
    await tool("discounts_create", { siteId, code: "WELCOME", kind: "percent", amount: 1000 });
    const o = await tool("orders_create", {
      siteId,
      customer: { email: "buyer@x.test" },
      items: [{ productId: lamp.id, quantity: 2 }],
      discountCode: "welcome",
    });
    // 4999 × 2 = 9998; 10 % = 999.8 → 1000; total 8998
    expect(o).toMatchObject({ subtotal: 9998, discountTotal: 1000, total: 8998, currency: "EUR", status: "pending" });
    expect((await api("/products/lamp")).body.data.quantity).toBe(1);
    const refused = await callTool(owner, "orders_create", { siteId, items: [{ productId: lamp.id, quantity: 2 }] });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain("Insufficient stock");
  });

  test("variants generated in products_create with optionPrices are what REST serves; orders over MCP record the price they used", async () => {
    const r = await tool("products_create", {
      siteId,
      name: "Hoodie",
      price: 4000,
      status: "active",
      options: [
        { name: "Size", values: ["M", "XL"] },
        { name: "Colour", values: ["grey", "black"] },
      ],
      generateVariants: true,
      optionPrices: { Size: { XL: 500 }, Colour: { black: 250 } },
    });
    const expected = [
      ["M / grey", 4000],
      ["M / black", 4250],
      ["XL / grey", 4500],
      ["XL / black", 4750],
    ];
    expect(r.variants.map((x: any) => [x.name, x.price])).toEqual(expected);
    const rest = await api("/products/hoodie");
    expect(rest.status).toBe(200);
    expect(rest.body.data.variants.map((x: any) => [x.id, x.name, x.price])).toEqual(
      r.variants.map((x: any) => [x.id, x.name, x.price]),
    );
    const o = await tool("orders_create", {
      siteId,
      items: [{ productId: r.id, variantId: r.variants[3].id, quantity: 2 }],
    });
    expect(o.items[0]).toMatchObject({ listPrice: 4750, unitPrice: 4750, bulkRule: null, lineTotal: 9500 });
    const gone = await tool("orders_delete", { siteId, id: o.id });
    expect(gone).toEqual({ id: o.id, status: "deleted", previousStatus: "pending", restocked: true });
  });
});

describe("branding over MCP is what REST serves", () => {
  test("updates show in getBranding with cssVars, and in brand://default", async () => {
    const before = await fetch(`${s.url}/api/v1/sites/${siteId}/branding`);
    const etag = before.headers.get("etag")!;
    await tool("branding_update_profile", {
      siteId,
      branding: { primaryColor: "#0F766E", bodyFont: "Inter, sans-serif", darkMode: { backgroundColor: "#000" } },
    });
    const res = await fetch(`${s.url}/api/v1/sites/${siteId}/branding`, { headers: { "If-None-Match": etag } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    expect(body.data).toEqual({
      primaryColor: "#0f766e",
      bodyFont: "Inter, sans-serif",
      darkMode: { backgroundColor: "#000000" },
    });
    expect(body.cssVars).toEqual(
      expect.objectContaining({
        "--color-primary": "#0f766e",
        "--font-body": "Inter, sans-serif",
        "--dark-color-background": "#000000",
      }),
    );
    const profile = await tool("branding_get_profile", { siteId });
    expect(profile.cssVars).toEqual(body.cssVars);

    const doc = await owner.readResource({ uri: "brand://default" });
    expect((doc.contents[0] as any).mimeType).toBe("application/json");
    expect(JSON.parse((doc.contents[0] as any).text)).toMatchObject({ siteId, branding: body.data });
    const audit = await tool("branding_audit", { siteId });
    expect(audit.summary.checked).toBeGreaterThan(0);
  });

  test("a multi-company connection is not offered brand://default and uses branding_get_profile with clientId", async () => {
    const c = await mcpClient(s.url, keys.multi);
    try {
      expect((await c.listResources()).resources.map((r) => r.uri)).not.toContain("brand://default");
      await expect(c.readResource({ uri: "brand://default" })).rejects.toThrow();
      const noClient = await callTool(c, "branding_get_profile", { siteId });
      expect(noClient.isError).toBe(true);
      expect(noClient.text).toContain("clientId");
    } finally {
      await c.close();
    }
  });
});

describe("security over the wire", () => {
  test("a viewer can read but every write is refused", async () => {
    const c = await mcpClient(s.url, keys.viewer);
    try {
      expect((await callTool(c, "products_list", { siteId })).isError).toBe(false);
      expect((await callTool(c, "branding_get_profile", { siteId })).isError).toBe(false);
      for (const [name, args] of [
        ["products_create", { siteId, name: "Nope", price: 1 }],
        ["branding_update_profile", { siteId, branding: { primaryColor: "#000000" } }],
        ["orders_create", { siteId, items: [{ productId: 1, quantity: 1 }] }],
      ] as const) {
        const r = await callTool(c, name, args);
        expect([name, r.isError, r.text]).toEqual([name, true, expect.stringContaining("viewer")]);
      }
    } finally {
      await c.close();
    }
  });

  test("a read-only credential does not even see the write tools", async () => {
    const c = await mcpClient(s.url, keys.readOnly);
    try {
      const names = (await c.listTools()).tools.map((t) => t.name);
      expect(names).toContain("products_list");
      expect(names).toContain("branding_audit");
      expect(names).not.toContain("products_create");
      expect(names).not.toContain("branding_update_profile");
      const r = await callTool(c, "products_create", { siteId, name: "Nope", price: 1 }).catch((e) => ({
        isError: true,
        text: String(e),
      }));
      expect(r.isError).toBe(true);
    } finally {
      await c.close();
    }
  });

  test("another company's site, hostile and malformed input: clean tool errors, never a 500", async () => {
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["products_list", { siteId: otherSiteId }, /not found/i],
      ["products_create", { siteId, name: "X", price: 1e300 }, /Invalid/],
      ["products_create", { siteId, name: "X", price: -5 }, /Invalid/],
      [
        "products_create",
        { siteId, name: "<script>alert(1)</script>", price: 1, images: [{ url: "javascript:alert(1)" }] },
        /Invalid/,
      ],
      ["orders_create", { siteId, items: [{ productId: "1 OR 1=1", quantity: 1 }] }, /Invalid/],
      ["branding_update_profile", { siteId, branding: { headingFont: "x; } body { display:none" } }, /Invalid/],
      ["branding_check_contrast", { foreground: "#fff", background: "url(x)" }, /Invalid/],
      ["product_categories_move", { siteId, id: 1, parentId: 1 }, /cycle|own parent|not found/i],
    ];
    for (const [name, args, msg] of cases) {
      const r = await callTool(owner, name, args);
      expect([name, r.isError, r.text]).toEqual([name, true, expect.stringMatching(msg)]);
    }
    const huge = await rawMcp(s.url, keys.owner, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "products_create", arguments: { siteId, name: "x".repeat(100_000), price: 1 } },
    });
    expect(huge.status).toBeLessThan(500);
  });
});
