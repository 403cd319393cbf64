/**
 * The store pages in headless Chromium (issue 31): a site's orders with
 * status and totals, one order with its lines, totals and payment state,
 * and the products with status, price, stock and what awaits approval,
 * against a real server whose stores an agent filled over MCP. A viewer
 * sees and cannot act (no forms; a post is refused); an admin moves an
 * order through its statuses and publishes and withdraws products, and
 * orders_get / products_get over MCP and the site's REST API show each
 * (withdrawing a product on sale waits for approval, and REST serves it
 * until a person approves); another company's ids are 404; planted markup
 * stays text; a post without the CSRF token or from another origin is
 * refused; axe-core finds nothing serious; at 390 px nothing overflows
 * sideways. Screenshots go to test-artifacts/ (docs/img/ keeps one each
 * with PLINTH_DOC_SHOTS=1). Runs on SQLite and, through
 * scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import { toolOk } from "../fixtures/accounts";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { PASSWORD, type StoreWorld, storeWorld, XSS_EMAIL, XSS_NAME, XSS_NOTES } from "./portal-world";

let w: StoreWorld;
let browser: Browser;

beforeAll(async () => {
  w = await storeWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

// Closing the server on a busy machine can outlast the default 5 s.
afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
}, 30_000);

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);
const ids = (page: Page, table: string, key: string) =>
  page
    .locator(`#${table} tbody tr`)
    .evaluateAll((els, k) => els.map((e) => Number((e as HTMLElement).dataset[k])), key);
const squash = (t: string) => t.replace(/\s+/g, " ").trim();
const csrfOf = (page: Page) => page.locator('header input[name="_csrf"]').first().inputValue();
const rest = (path: string) =>
  fetch(`${w.s.url}/api/v1/sites/${w.site.shop}${path}`, { headers: { Authorization: `Bearer ${w.restKey}` } });
const post = (page: Page, path: string, form: Record<string, string>, origin = w.s.url) =>
  page.request.post(`${w.s.url}${path}`, { form, headers: { Origin: origin }, maxRedirects: 0 });

describe("store pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["orders", "/store"],
      ["orders-paid", "/store/orders?status=paid"],
      ["order", `/store/orders/${w.o.paid}`],
      ["products", "/store/products"],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "store",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: (name) => (name === "orders-paid" ? undefined : `store-${name}.png`),
    });
  }, 120_000);

  test("the orders list what orders_list lists, with totals in the store's currency and counts per status", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/store/orders`);
    expect(page.url()).toBe(`${w.s.url}/store/orders`);
    const listed = (await toolOk(w.olga, "orders_list", { siteId: w.site.shop, limit: 100 })).items as {
      id: number;
      total: number;
      status: string;
    }[];
    expect(await ids(page, "orders", "order")).toEqual(listed.map((o) => o.id));
    const total = (id: number) => page.locator(`tr[data-order="${id}"] td.total`).innerText();
    // Two mugs at €12.50; the paid order is a mug and a tee less 10 %.
    expect(await total(w.o.pending)).toBe("€25.00");
    expect(listed.find((o) => o.id === w.o.paid)!.total).toBe(2925);
    expect(await total(w.o.paid)).toBe("€29.25");
    expect(await page.locator(`tr[data-order="${w.o.paid}"] .badge`).innerText()).toBe("paid");
    // Cancelled and refunded orders brought nothing in: the page's total leaves them out.
    const worth = listed.filter((o) => !["cancelled", "refunded"].includes(o.status)).reduce((n, o) => n + o.total, 0);
    expect(worth).toBe(2500 + 2925 + 2000 + 100);
    expect(squash(await page.locator("#page-total").innerText())).toBe(
      "4 of the 5 orders shown are not cancelled or refunded; together €75.25",
    );
    expect(await page.locator("#status-filter").innerText()).toContain("All (5)");
    expect(await page.locator('#status-filter a[data-status="pending"]').innerText()).toBe("pending (2)");
    // The status tabs filter as orders_list does.
    for (const status of ["pending", "paid", "cancelled", "refunded"] as const) {
      const res = await page.goto(`${w.s.url}/store/orders?status=${status}`);
      expect(res!.status()).toBe(200);
      const mcp = (await toolOk(w.olga, "orders_list", { siteId: w.site.shop, status, limit: 100 })).items;
      expect({ status, shown: await ids(page, "orders", "order") }).toEqual({
        status,
        shown: mcp.map((o: { id: number }) => o.id),
      });
    }
    expect(await page.locator("main").innerText()).toContain("No refunded orders.");
    for (const query of ["status=shipped", "site=abc", "status=<b>"]) {
      const res = await page.goto(`${w.s.url}/store/orders?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 400 });
    }
    // The site picker: the outlet's products in pounds.
    await page.goto(`${w.s.url}/store/products`);
    await page.locator("#site").selectOption(String(w.site.outlet));
    await Promise.all([page.waitForURL(/site=/), page.click('form[aria-label="Choose a site"] button')]);
    expect(await ids(page, "products", "product")).toEqual([w.p.outletLamp]);
    expect(await page.locator(`tr[data-product="${w.p.outletLamp}"] td.num`).innerText()).toBe("£49.99");
    await ctx.close();
  }, 30_000);

  test("an order shows its lines, discount, totals and payment state as orders_get has them", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/store/orders/${w.o.paid}`);
    const o = await toolOk(w.olga, "orders_get", { siteId: w.site.shop, id: w.o.paid });
    const lines = page.locator("#lines tbody:first-of-type tr");
    expect(await lines.count()).toBe(o.items.length);
    expect(
      await lines.evaluateAll((rs) => rs.map((r) => [...r.querySelectorAll("td")].map((td) => td.innerText.trim()))),
    ).toEqual([
      ["Blue Mug\nSKU MUG-1", "1", "€12.50", "€12.50"],
      ["Tee", "1", "€20.00", "€20.00"],
    ]);
    const totals = await page.locator("#totals").innerText();
    expect(totals).toContain("€32.50");
    expect(totals).toContain("SPRING10");
    expect(totals).toContain("−€3.25");
    expect(await page.locator("#order-total").innerText()).toBe("€29.25");
    expect(await page.locator("#payment").innerText()).toBe("Paid, not yet fulfilled");
    expect(await page.locator("aside").innerText()).toContain("dana@customer.test");
    await page.goto(`${w.s.url}/store/orders/${w.o.cancelled}`);
    expect(await page.locator("#payment").innerText()).toBe("Cancelled before payment");
    expect(await page.locator("aside").innerText()).toContain("cancelled is final");
    await ctx.close();
  }, 30_000);

  test("a viewer sees orders and products but gets no forms, and every post is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/store/orders/${w.o.pending}`);
    expect(await page.locator("main form[method=post], main button").count()).toBe(0);
    expect(await page.locator("main").innerText()).toContain("owners and admins change its status");
    await page.goto(`${w.s.url}/store/products`);
    expect((await ids(page, "products", "product")).length).toBe(5);
    expect(await page.locator("main form[method=post]").count()).toBe(0);
    const beforeOrder = await toolOk(w.olga, "orders_get", { siteId: w.site.shop, id: w.o.pending });
    const beforeProduct = await toolOk(w.olga, "products_get", { siteId: w.site.shop, id: w.p.draft });
    const csrf = await csrfOf(page);
    const order = await post(page, `/store/orders/${w.o.pending}/status`, { _csrf: csrf, status: "paid" });
    expect(order.status()).toBe(403);
    const product = await post(page, `/store/products/${w.p.draft}/status`, { _csrf: csrf, status: "active" });
    expect(product.status()).toBe(403);
    expect(await toolOk(w.olga, "orders_get", { siteId: w.site.shop, id: w.o.pending })).toEqual(beforeOrder);
    expect(await toolOk(w.olga, "products_get", { siteId: w.site.shop, id: w.p.draft })).toEqual(beforeProduct);
    await ctx.close();
  }, 30_000);

  test("an admin marks an order paid, then fulfilled; orders_get over MCP shows each, a stale form is a 409", async () => {
    const { ctx, page, seen } = await signIn("sam@acme.test");
    const get = async () => await toolOk(w.olga, "orders_get", { siteId: w.site.shop, id: w.o.pending });
    await page.goto(`${w.s.url}/store/orders/${w.o.pending}`);
    expect(await page.locator("#order-actions button").allInnerTexts()).toEqual(["Mark paid", "Cancel order"]);
    await Promise.all([page.waitForURL(/done=status/), page.click('#order-actions button[data-status="paid"]')]);
    expect((await get()).status).toBe("paid");
    expect(await page.locator("#payment").innerText()).toBe("Paid, not yet fulfilled");
    expect(await page.locator("#order-actions button").allInnerTexts()).toEqual(["Mark fulfilled", "Refund"]);
    await Promise.all([page.waitForURL(/done=status/), page.click('#order-actions button[data-status="fulfilled"]')]);
    expect((await get()).status).toBe("fulfilled");
    // A form shown while it was pending (cancel) is refused now, and changes nothing.
    const csrf = await csrfOf(page);
    const stale = await post(page, `/store/orders/${w.o.pending}/status`, {
      _csrf: csrf,
      status: "cancelled",
      from: "pending",
    });
    expect(stale.status()).toBe(409);
    expect(await stale.text()).toContain("This order became fulfilled since the page was shown");
    // A transition the verb refuses is a 409 with its reason.
    const refused = await post(page, `/store/orders/${w.o.pending}/status`, { _csrf: csrf, status: "pending" });
    expect(refused.status()).toBe(409);
    expect(await refused.text()).toContain("An order cannot go from fulfilled to pending.");
    const bogus = await post(page, `/store/orders/${w.o.pending}/status`, { _csrf: csrf, status: "shipped" });
    expect(bogus.status()).toBe(400);
    expect((await get()).status).toBe("fulfilled");
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("an admin publishes a draft (REST serves it) and withdraws a product on sale: it awaits approval until approved", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/store/products`);
    expect((await rest("/products/winter-scarf")).status).toBe(404);
    const row = (id: number) => page.locator(`tr[data-product="${id}"]`);
    expect(await row(w.p.draft).locator("td.status").innerText()).toBe("draft");
    expect(await row(w.p.draft).locator("button").allInnerTexts()).toEqual(["Put on sale", "Park"]);
    await Promise.all([
      page.waitForURL(/done=published/),
      row(w.p.draft).locator('button[data-status="active"]').click(),
    ]);
    expect((await toolOk(w.olga, "products_get", { siteId: w.site.shop, id: w.p.draft })).status).toBe("active");
    expect((await rest("/products/winter-scarf")).status).toBe(200);
    expect(await row(w.p.draft).locator("td.status").innerText()).toBe("on sale");

    // Withdrawing the mug, on sale, is held for a person's approval; REST keeps serving it.
    await Promise.all([page.waitForURL(/done=held/), row(w.p.mug).locator('button[data-status="inactive"]').click()]);
    expect(await page.locator(".notice.warn").innerText()).toContain("waits for a person's approval");
    expect((await toolOk(w.olga, "products_get", { siteId: w.site.shop, id: w.p.mug })).status).toBe("active");
    expect((await rest("/products/blue-mug")).status).toBe(200);
    const badge = row(w.p.mug).locator("a.awaits");
    expect(await badge.innerText()).toBe("awaits approval");
    expect(await row(w.p.mug).locator("form").count()).toBe(0);
    const href = (await badge.getAttribute("href"))!;
    expect(href).toMatch(/^\/approvals\/\d+$/);
    expect(await page.locator("#awaiting").innerText()).toContain("Withdraw product: Blue Mug");
    const review = await page.goto(`${w.s.url}${href}`);
    expect(review!.status()).toBe(200);
    expect(await page.locator("main").innerText()).toContain("Blue Mug");
    // A colleague approves over MCP: now it is withdrawn, REST stops serving it, and nothing awaits.
    await toolOk(w.sam, "approvals_approve", { id: Number(href.split("/").pop()) });
    expect((await rest("/products/blue-mug")).status).toBe(404);
    await page.goto(`${w.s.url}/store/products`);
    expect(await row(w.p.mug).locator("td.status").innerText()).toBe("withdrawn");
    expect(await page.locator("#awaiting").count()).toBe(0);
    // A form shown before someone else changed the product is refused, not applied.
    const stale = await post(page, `/store/products/${w.p.mug}/status`, {
      _csrf: await csrfOf(page),
      status: "inactive",
      from: "active",
    });
    expect(stale.status()).toBe(409);
    expect(await stale.text()).toContain("This product became inactive since the page was shown");
    await ctx.close();
  }, 60_000);

  test("stock and prices: out of stock said in words, compare-at price struck", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/store/products`);
    const row = (id: number) => page.locator(`tr[data-product="${id}"]`);
    expect(await row(w.p.cap).locator("td.stock").innerText()).toBe("out of stock");
    expect(await row(w.p.tee).locator("td.stock").innerText()).toBe("1 in stock");
    expect(await row(w.p.draft).locator("td.stock").innerText()).toBe("not tracked");
    expect(await row(w.p.tee).locator("td.num").innerText()).toBe("€20.00");
    expect(await row(w.p.cap).locator("td.num").innerText()).toBe("€9.00");
    await ctx.close();
  }, 30_000);

  test("planted markup stays text in products, order lines, notes and customers", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/store/products`);
    expect((await page.locator(`tr[data-product="${w.p.hostile}"] td`).first().innerText()).split("\n")[0]).toBe(
      XSS_NAME,
    );
    await page.goto(`${w.s.url}/store/orders`);
    expect(await page.locator(`tr[data-order="${w.o.hostile}"]`).innerText()).toContain(XSS_EMAIL);
    await page.goto(`${w.s.url}/store/orders/${w.o.hostile}`);
    expect(await page.locator("#lines tbody td").first().innerText()).toBe(XSS_NAME);
    expect(await page.locator("#notes").innerText()).toBe(XSS_NOTES);
    expect(await page.locator("main img, main script, main b").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's orders, products and sites are 404 both ways", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/store/orders`);
    expect(await ids(rita.page, "orders", "order")).toEqual([w.rivalOrder]);
    for (const path of [
      `/store/orders/${w.o.pending}`,
      `/store/orders?site=${w.site.shop}`,
      `/store/products?site=${w.site.shop}`,
    ])
      expect({ path, status: (await rita.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    const csrf = await csrfOf(rita.page);
    const before = await toolOk(w.olga, "orders_get", { siteId: w.site.shop, id: w.o.cancelled });
    expect(
      (await post(rita.page, `/store/orders/${w.o.cancelled}/status`, { _csrf: csrf, status: "paid" })).status(),
    ).toBe(404);
    expect(
      (await post(rita.page, `/store/products/${w.p.tee}/status`, { _csrf: csrf, status: "inactive" })).status(),
    ).toBe(404);
    expect(await toolOk(w.olga, "orders_get", { siteId: w.site.shop, id: w.o.cancelled })).toEqual(before);
    const olga = await signIn("olga@acme.test");
    for (const path of [
      `/store/orders/${w.rivalOrder}`,
      `/store/orders?site=${w.site.rival}`,
      "/store/orders/abc",
      "/store/orders/0",
    ])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    expect(
      (
        await post(olga.page, `/store/products/${w.rivalProduct}/status`, {
          _csrf: await csrfOf(olga.page),
          status: "inactive",
        })
      ).status(),
    ).toBe(404);
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/store/orders/${w.o.cancelled}`);
    const before = await toolOk(w.olga, "products_get", { siteId: w.site.shop, id: w.p.tee });
    await expectForgedPostsRefused(page, w.s.url, `/store/products/${w.p.tee}/status`, { status: "inactive" });
    expect(await toolOk(w.olga, "products_get", { siteId: w.site.shop, id: w.p.tee })).toEqual(before);
    await ctx.close();
  }, 30_000);
});
