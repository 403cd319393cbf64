/**
 * A real server for the store pages: Acme (owner Olga, admin Sam, viewer
 * Vic) with two sites — "Acme Shop" in euros with products in every
 * status, one with planted markup, and orders in every status, one with a
 * discount code — and "Acme Outlet" with a product of its own; and Rival
 * (owner Rita) with a store, a product and an order. Sites are made as the
 * CLI makes them; everything in the stores is made over MCP with a real
 * SDK client, as an agent would. A REST key of the shop reads what the
 * site serves.
 */
import type { Client } from "@modelcontextprotocol/client";
import { createSite } from "../../src/domains/sites/verbs";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const XSS_NAME = `<script>alert(1)</script> "><img src=x onerror=alert(2)> Mug`;
export const XSS_NOTES = `Gift wrap <b>please</b> <img src=x onerror=alert(3)>`;
export const XSS_EMAIL = "mallory@evil.test";

export interface StoreWorld {
  s: TestServer;
  olga: Client;
  sam: Client;
  rita: Client;
  ids: { sam: number; vic: number };
  site: { shop: number; outlet: number; rival: number };
  restKey: string;
  /** The shop's products by what they are for. */
  p: { mug: number; tee: number; cap: number; draft: number; hostile: number; outletLamp: number };
  /** The shop's orders by status. */
  o: { pending: number; paid: number; fulfilled: number; cancelled: number; hostile: number };
  rivalOrder: number;
  rivalProduct: number;
}

export async function storeWorld(): Promise<StoreWorld> {
  const s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const sam = await mk("sam@acme.test", "Sam Admin");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  await addMember(s.deps, acme.id, sam.id, "admin");
  const shop = (await createSite(s.deps, { companyId: acme.id, name: "Acme Shop" })).id;
  const outlet = (await createSite(s.deps, { companyId: acme.id, name: "Acme Outlet" })).id;
  const rivalSite = (await createSite(s.deps, { companyId: rival.id, name: "Rival Shop" })).id;
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const sm = await mcpClient(s.url, await key(sam.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);

  await call("store_settings_update", { siteId: shop, enabled: true, currency: "EUR" });
  await call("store_settings_update", { siteId: outlet, enabled: true, currency: "GBP" });
  const product = async (args: Record<string, unknown>, status = "active", c = o) => {
    const p = await call("products_create", { ...args }, c);
    if (status !== "draft") await call("products_set_status", { siteId: args.siteId, id: p.id, status }, c);
    return p.id as number;
  };
  const mug = await product({
    siteId: shop,
    name: "Blue Mug",
    slug: "blue-mug",
    sku: "MUG-1",
    price: 1250,
    compareAtPrice: 1500,
    trackInventory: true,
    quantity: 40,
  });
  const tee = await product({ siteId: shop, name: "Tee", slug: "tee", price: 2000, trackInventory: true, quantity: 3 });
  const cap = await product({ siteId: shop, name: "Cap", slug: "cap", price: 900, trackInventory: true, quantity: 0 });
  const draft = await product({ siteId: shop, name: "Winter Scarf", slug: "winter-scarf", price: 3500 }, "draft");
  const hostile = await product({ siteId: shop, name: XSS_NAME, slug: "hostile-mug", price: 100 });
  const outletLamp = await product({ siteId: outlet, name: "Outlet Lamp", slug: "outlet-lamp", price: 4999 });
  await call("discounts_create", { siteId: shop, code: "SPRING10", kind: "percent", amount: 1000 });

  const order = async (items: { productId: number; quantity: number }[], email: string, extra = {}) =>
    (await call("orders_create", { siteId: shop, items, customer: { email, name: "Casey Customer" }, ...extra }))
      .id as number;
  const status = (id: number, to: string) => call("orders_update_status", { siteId: shop, id, status: to });
  const pending = await order([{ productId: mug, quantity: 2 }], "casey@customer.test");
  const paid = await order(
    [
      { productId: mug, quantity: 1 },
      { productId: tee, quantity: 1 },
    ],
    "dana@customer.test",
    { discountCode: "SPRING10" },
  );
  await status(paid, "paid");
  const fulfilled = await order([{ productId: tee, quantity: 1 }], "erin@customer.test");
  await status(fulfilled, "paid");
  await status(fulfilled, "fulfilled");
  const cancelled = await order([{ productId: mug, quantity: 1 }], "finn@customer.test");
  await status(cancelled, "cancelled");
  const hostileOrder = await order([{ productId: hostile, quantity: 1 }], XSS_EMAIL, { notes: XSS_NOTES });

  await call("store_settings_update", { siteId: rivalSite, enabled: true, currency: "USD" }, r);
  const rivalProduct = await product({ siteId: rivalSite, name: "Rival secret product", price: 700 }, "active", r);
  const rivalOrder = (
    await call(
      "orders_create",
      { siteId: rivalSite, items: [{ productId: rivalProduct, quantity: 1 }], customer: { email: "x@rival.test" } },
      r,
    )
  ).id as number;
  return {
    s,
    olga: o,
    sam: sm,
    rita: r,
    ids: { sam: sam.id, vic: vic.id },
    site: { shop, outlet, rival: rivalSite },
    restKey: (await mintRestKey(s.deps, shop)).key,
    p: { mug, tee, cap, draft, hostile, outletLamp },
    o: { pending, paid, fulfilled, cancelled, hostile: hostileOrder },
    rivalOrder,
    rivalProduct,
  };
}
