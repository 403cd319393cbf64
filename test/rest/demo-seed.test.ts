/**
 * REST v1 against the bundled demo data (db/seed/demo.ts), with the key the
 * first start prints. Expectations come from the database rows, so these
 * tests check the rules (visibility, order, counts, trees) on realistic
 * data rather than repeating the seed's literals.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { posts, postTypes } from "../../src/domains/cms/tables";
import { sites } from "../../src/domains/sites/tables";
import { products, productVariants } from "../../src/domains/store/tables";
import { startTestServer, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { expectError, rest, type Rest } from "./helpers";

let server: TestServer;
let api: Rest;
let key: string;
let base: string;
let siteBySub: Record<string, number>;

beforeAll(async () => {
  server = await startTestServer({ config: { rateLimit: 100_000 } });
  expect(server.demo).not.toBeNull();
  key = server.demo!.restKey;
  base = `/api/v1/sites/${server.demo!.siteId}`;
  api = await rest(server);
  siteBySub = Object.fromEntries(
    (await server.deps.db.select({ id: sites.id, sub: sites.subdomain }).from(sites)).map((s) => [s.sub, s.id]),
  );
});
afterAll(() => server.stop());

const get = (p: string) => api.keyed(base + p, key);

async function all(path: string, pageParam: "offset" | "page"): Promise<any[]> {
  const out: any[] = [];
  for (let i = 0; ; i++) {
    const q = pageParam === "offset" ? `offset=${i * 7}&limit=7` : `page=${i + 1}&limit=7`;
    const r = await get(`${path}${path.includes("?") ? "&" : "?"}${q}`);
    expect(r.status).toBe(200);
    if (!r.body.data.length) return out;
    out.push(...r.body.data);
  }
}

describe("demo site with the printed key", () => {
  test("the printed key is a live key for the demo site", () => {
    expect(key).toMatch(/^svc_live_[0-9a-f]{64}$/);
    expect(server.demo!.siteId).toBe(siteBySub["harbor-coffee"]!);
  });

  test("posts: exactly the published rows, newest first, pages walk the whole list", async () => {
    const allRows = await server.deps.db.select().from(posts).where(eq(posts.siteId, server.demo!.siteId));
    // Published and not waiting for a future publishedAt (the demo's scheduled post is not served yet).
    const rows = allRows.filter((p) => p.published && !p.awaitingGoLive);
    expect(allRows.filter((p) => p.awaitingGoLive).length).toBe(1);
    expect(rows.length).toBeGreaterThan(20);
    expect(allRows.length).toBeGreaterThan(rows.length); // there are drafts to hide
    const first = await get("/posts");
    expect(first.body.pagination).toEqual({ limit: 20, offset: 0, total: rows.length });
    const walked = await all("/posts", "offset");
    const expected = [...rows].sort(
      (a, b) => (b.publishedAt?.getTime() ?? -Infinity) - (a.publishedAt?.getTime() ?? -Infinity) || b.id - a.id,
    );
    expect(walked.map((p) => p.id)).toEqual(expected.map((p) => p.id));
  });

  test("every listed post opens by slug; drafts do not", async () => {
    const list = await all("/posts", "offset");
    for (const p of list) {
      const r = await get(`/posts/${p.slug}`);
      expect(r.status).toBe(200);
      expect(r.body.data).toMatchObject({ id: p.id, published: true, websiteId: server.demo!.siteId });
      if (r.body.data.content !== null) {
        const content = JSON.parse(r.body.data.content);
        expect(Array.isArray(content.blocks)).toBe(true);
        expect(typeof content.version).toBe("string");
      }
    }
    const drafts = (await server.deps.db.select().from(posts).where(eq(posts.siteId, server.demo!.siteId))).filter(
      (p) => !p.published || p.awaitingGoLive,
    );
    expect(drafts.length).toBeGreaterThan(0);
    for (const d of drafts) expectError(await get(`/posts/${d.slug}`), 404, "Not found");
  });

  test("pages are the published posts of type page; search is literal (%)", async () => {
    const pageType = (
      await server.deps.db.select().from(postTypes).where(eq(postTypes.siteId, server.demo!.siteId))
    ).find((t) => t.slug === "page")!;
    const pages = (await server.deps.db.select().from(posts).where(eq(posts.postTypeId, pageType.id))).filter(
      (p) => p.published,
    );
    const r = await get("/pages?limit=100");
    expect(r.body.data.map((p: any) => p.id).sort()).toEqual(pages.map((p) => p.id).sort());
    const pct = await get("/posts?search=100%25");
    expect(pct.body.data.length).toBeGreaterThan(0);
    for (const p of pct.body.data) expect(p.title).toContain("100%");
  });

  test("products: only active ones, every sort consistent, every detail with only active variants", async () => {
    const active = (
      await server.deps.db.select().from(products).where(eq(products.siteId, server.demo!.siteId))
    ).filter((p) => p.status === "active");
    const listed = await all("/products", "page");
    expect(listed.map((p) => p.id).sort()).toEqual(active.map((p) => p.id).sort());
    const asc = await all("/products?sort=price_asc", "page");
    for (let i = 1; i < asc.length; i++) expect(asc[i].price).toBeGreaterThanOrEqual(asc[i - 1].price);
    const featured = await all("/products?sort=featured", "page");
    const firstPlain = featured.findIndex((p) => !p.featured);
    expect(featured.slice(firstPlain).every((p) => !p.featured)).toBe(true);
    for (const p of listed) {
      const d = await get(`/products/${p.slug}`);
      expect(d.status).toBe(200);
      const dbActive = (
        await server.deps.db.select().from(productVariants).where(eq(productVariants.productId, p.id))
      ).filter((v) => v.active);
      expect(d.body.data.variants.map((v: any) => v.id).sort()).toEqual(dbActive.map((v) => v.id).sort());
      expect(d.body.data.images.map((i: any) => i.order)).toEqual(
        [...d.body.data.images.map((i: any) => i.order)].sort((a, b) => a - b),
      );
      expect(p.image).toBe(d.body.data.images[0]?.url ?? null);
    }
    for (const slug of ["panama-geisha-lot-7", "holiday-blend-2023", "acaia-pearl-scale"])
      expectError(await get(`/products/${slug}`), 404, "Not found");
  });

  test("product categories: active only, ordered, counts match the product list", async () => {
    const cats = (await get("/product-categories")).body.data;
    expect(cats.length).toBeGreaterThan(3);
    for (let i = 1; i < cats.length; i++) expect(cats[i].order).toBeGreaterThanOrEqual(cats[i - 1].order);
    for (const cat of cats) {
      const r = await get(`/products?category=${cat.slug}&limit=100`);
      expect(r.body.pagination.total).toBe(cat.productCount);
    }
  });

  test("media newest first, filters by type prefix", async () => {
    const all_ = (await get("/media?limit=100")).body.data;
    expect(all_.length).toBeGreaterThan(20);
    const images = (await get("/media?mimeType=image&limit=100")).body.data;
    expect(images.length).toBeGreaterThan(0);
    expect(images.every((m: any) => m.mimeType.startsWith("image/"))).toBe(true);
    expect(images.length).toBeLessThan(all_.length);
  });

  test("categories and tags alphabetical", async () => {
    for (const p of ["/categories", "/tags"]) {
      const names = (await get(p)).body.data.map((x: any) => x.name);
      expect(names.length).toBeGreaterThan(3);
      expect(names).toEqual([...names].sort(new Intl.Collator("en", { numeric: true }).compare));
    }
  });

  test("branding, config and navigation without a key", async () => {
    const b = await api.get(`${base}/branding`);
    expect(Object.keys(b.body.data).length).toBeGreaterThan(20);
    expect(b.body.cssVars["--color-primary"]).toBe(b.body.data.primaryColor);
    expect(b.body.cssVars["--font-heading"]).toBe(b.body.data.headingFont);
    const cfg = (await api.get(`${base}/config`)).body.data;
    expect(cfg).toMatchObject({
      id: server.demo!.siteId,
      storeEnabled: true,
      name: "Harbor Coffee Roasters",
      subdomain: "harbor-coffee",
    });
    const nav = (await api.get(`${base}/navigation`)).body.data;
    expect(cfg.navigation).toEqual(nav);
    expect(nav.length).toBe(5);
    const check = (items: any[], parentId: number | null) => {
      for (let i = 0; i < items.length; i++) {
        expect(items[i].parentId).toBe(parentId);
        if (i) expect(items[i].sortOrder).toBeGreaterThanOrEqual(items[i - 1].sortOrder);
        check(items[i].children, items[i].id);
      }
    };
    check(nav, null);
    expect(nav.some((n: any) => n.children.length > 0)).toBe(true);
    expect((await api.get(`${base}/blocks`)).body.data.length).toBeGreaterThan(10);
  });
});

describe("the other demo sites", () => {
  test("Northwind: store row disabled → Store not found; partial branding", async () => {
    const id = siteBySub.northwind!;
    const k = (await mintRestKey(server.deps, id)).key;
    for (const p of ["products", "product-categories", "products/anything"])
      expectError(await api.keyed(`/api/v1/sites/${id}/${p}`, k), 404, "Store not found");
    expect((await api.keyed(`/api/v1/sites/${id}/posts`, k)).status).toBe(200);
    expect((await api.get(`/api/v1/sites/${id}/config`)).body.data.storeEnabled).toBe(false);
  });

  test("retired: inactive → Not found everywhere, even with its own key", async () => {
    const id = siteBySub["harbor-wholesale"]!;
    const k = (await mintRestKey(server.deps, id)).key;
    for (const p of ["posts", "products", "config", "navigation", "branding"])
      expectError(await api.keyed(`/api/v1/sites/${id}/${p}`, k), 404, "Not found");
  });

  test("events: no store row → Store not found; no branding, no navigation", async () => {
    const id = siteBySub["harbor-events"]!;
    const k = (await mintRestKey(server.deps, id)).key;
    expectError(await api.keyed(`/api/v1/sites/${id}/products`, k), 404, "Store not found");
    expect((await api.get(`/api/v1/sites/${id}/branding`)).body).toEqual({ success: true, data: {}, cssVars: {} });
    expect((await api.get(`/api/v1/sites/${id}/navigation`)).body.data).toEqual([]);
  });

  test("the demo key is for the demo site only", async () => {
    expectError(await api.keyed(`/api/v1/sites/${siteBySub.northwind}/posts`, key), 401, "Invalid API key");
  });
});
