/**
 * The demo as a person evaluating Plinth meets it: a real server seeded on
 * first start, the printed keys used over HTTP. Every REST response is
 * checked against the OpenAPI document by the shared REST client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import * as t from "../tables";
import { fitWithin } from "../../src/domains/cms/media-image";
import { blockCatalogEntries } from "../../src/domains/blocks/catalog";
import { validateContent } from "../../src/domains/blocks/validate";
import { demoSiteIds } from "../../db/seed/demo";
import { rows, startTestServer, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { expectError, rest, type Rest } from "../rest/helpers";
import { readFile } from "./file-formats";
import { mapSeq } from "../../src/core/maybe";

let s: TestServer;
let api: Rest;
let key: string;
let ids: Awaited<ReturnType<typeof demoSiteIds>>;

// A cold first start (the demo's pictures painted, on PostgreSQL the template database made) can take more than the 5 s a hook gets by default.
beforeAll(async () => {
  s = await startTestServer();
  api = await rest(s);
  expect(s.demo).not.toBeNull();
  key = s.demo!.restKey;
  ids = await demoSiteIds(s.deps);
}, 30_000);
afterAll(() => s.stop());

const v1 = (site: number | null, path: string) => `/api/v1/sites/${site}${path}`;

describe("demo over REST", () => {
  test("the printed REST key reads the store site's published posts, not drafts", async () => {
    const published = await s.deps.db
      .select()
      .from(t.posts)
      // Served: published and not waiting for a future publishedAt (the demo's scheduled post).
      .where(and(eq(t.posts.siteId, ids.store!), eq(t.posts.published, true), eq(t.posts.awaitingGoLive, false)));
    const r = await api.keyed(v1(ids.store, "/posts"), key);
    expect(r.status).toBe(200);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: published.length });
    expect(r.body.data).toHaveLength(20);
    const draft = (
      await s.deps.db
        .select()
        .from(t.posts)
        .where(and(eq(t.posts.siteId, ids.store!), eq(t.posts.published, false)))
        .limit(1)
    )[0]!;
    expectError(await api.keyed(v1(ids.store, `/posts/${draft.slug}`), key), 404, "Not found");
  });

  test("post types filter, and a post's content is valid block JSON with categories and tags", async () => {
    const cs = await api.keyed(v1(ids.store, "/posts?postType=case-study&limit=100"), key);
    expect(cs.body.data.length).toBeGreaterThan(3);
    expect(cs.body.data.every((p: any) => p.postType === "case-study")).toBe(true);
    const pages = await api.keyed(v1(ids.store, "/pages?limit=100"), key);
    expect(pages.body.data.every((p: any) => p.postType === "page")).toBe(true);
    const d = await api.keyed(v1(ids.store, "/posts/better-pour-over-at-home"), key);
    expect(d.status).toBe(200);
    expect(validateContent(JSON.parse(d.body.data.content)).ok).toBe(true);
    expect(d.body.data.categories.length).toBeGreaterThan(0);
    expect(d.body.data.tags.length).toBeGreaterThan(0);
  });

  test("search treats % literally", async () => {
    const r = await api.keyed(v1(ids.store, `/posts?search=${encodeURIComponent("100%")}`), key);
    expect(r.body.data.map((p: any) => p.slug)).toEqual(["100-percent-arabica"]);
  });

  test("media: newest first, filterable by type", async () => {
    const all = await api.keyed(v1(ids.store, "/media?limit=100"), key);
    expect(all.body.pagination.total).toBeGreaterThanOrEqual(30);
    const listed = all.body.data.map((m: any) => m.id);
    expect(listed.length).toBe(all.body.pagination.total);
    const rows = await s.deps.db.select().from(t.media).where(eq(t.media.siteId, ids.store!));
    const expected = [...rows].sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime()).map((m) => m.id);
    expect(listed).toEqual(expected);
    const videos = await api.keyed(v1(ids.store, "/media?mimeType=video"), key);
    expect(videos.body.data.length).toBeGreaterThan(0);
    expect(videos.body.data.every((m: any) => m.mimeType === "video/mp4" && m.width > 0)).toBe(true);
  });

  test("blocks need no key and list the whole catalog", async () => {
    const r = await api.get(v1(ids.store, "/blocks"));
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual(blockCatalogEntries());
  });

  test("products: only active ones, active variants, both kinds of bulk pricing", async () => {
    const active = await s.deps.db
      .select()
      .from(t.products)
      .where(and(eq(t.products.siteId, ids.store!), eq(t.products.status, "active")));
    const list = await api.keyed(v1(ids.store, "/products?limit=100"), key);
    expect(list.body.pagination.total).toBe(active.length);
    expect(list.body.data.some((p: any) => p.slug === "panama-geisha-lot-7")).toBe(false);
    const d = await api.keyed(v1(ids.store, "/products/house-espresso"), key);
    expect(new Set(d.body.data.bulkPricing.map((r: any) => r.priceType))).toEqual(new Set(["fixed", "percent_off"]));
    const k = await api.keyed(v1(ids.store, "/products/ethiopia-yirgacheffe-kochere"), key);
    expect(k.body.data.variants.every((v: any) => v.active)).toBe(true);
    expect(k.body.data.variants.length).toBe(5); // 6 combinations, one switched off
    expectError(await api.keyed(v1(ids.store, "/products/holiday-blend-2023"), key), 404, "Not found");
    const cats = await api.keyed(v1(ids.store, "/product-categories"), key);
    expect(cats.body.data.some((c: any) => c.slug === "seasonal")).toBe(false);
    expect(cats.body.data.some((c: any) => c.parentId !== null)).toBe(true);
  });

  test("store states: disabled and missing stores are 'Store not found'; an inactive site is not found", async () => {
    const k2 = (await mintRestKey(s.deps, ids.storeDisabled!)).key;
    expectError(await api.keyed(v1(ids.storeDisabled, "/products"), k2), 404, "Store not found");
    const k4 = (await mintRestKey(s.deps, ids.noStore!)).key;
    expectError(await api.keyed(v1(ids.noStore, "/product-categories"), k4), 404, "Store not found");
    expect((await api.get(v1(ids.store, "/config"))).body.data.storeEnabled).toBe(true);
    expect((await api.get(v1(ids.storeDisabled, "/config"))).body.data.storeEnabled).toBe(false);
    expect((await api.get(v1(ids.noStore, "/config"))).body.data.storeEnabled).toBe(false);
    expectError(await api.get(v1(ids.inactive, "/config")), 404, "Not found");
    // The store site's key does not open another site.
    expect((await api.keyed(v1(ids.storeDisabled, "/posts"), key)).status).toBe(401);
  });

  test("navigation and branding", async () => {
    const nav = await api.get(v1(ids.store, "/navigation"));
    const orders = nav.body.data.map((n: any) => n.sortOrder);
    expect(orders).toEqual([...orders].sort((a: number, b: number) => a - b));
    expect(nav.body.data.some((n: any) => n.children.length > 2)).toBe(true);
    const b = await api.get(v1(ids.store, "/branding"));
    expect(b.body.data.typography.h1.font).toBe("Fraunces");
    expect(Object.keys(b.body.cssVars).length).toBeGreaterThan(5);
  });
});

describe("demo media files over HTTP", () => {
  type Row = typeof t.media.$inferSelect;
  const TYPE_BY_EXT: Record<string, string> = { jpg: "image/jpeg", png: "image/png" };

  /** What the server must answer for a URL: the row it belongs to, and whether it is the row's thumbnail. */
  function expectationsFor(url: string, rows: Row[]) {
    const original = rows.find((r) => r.url === url);
    if (original)
      return {
        row: original,
        mime: original.mimeType,
        size: [original.width, original.height] as const,
        bytes: original.sizeBytes,
      };
    const owner = rows.find((r) => r.thumbnailUrl === url);
    if (!owner) throw new Error(`${url} belongs to no media row`);
    const fit = fitWithin(owner.width!, owner.height!);
    return {
      row: owner,
      mime: TYPE_BY_EXT[url.split(".").pop()!]!,
      size: [fit.width, fit.height] as const,
      bytes: null,
    };
  }

  async function fetchFile(url: string) {
    const res = await fetch(new URL(url, s.url));
    return { res, bytes: new Uint8Array(await res.arrayBuffer()) };
  }

  test("every file the demo refers to, anywhere, is served with its type, size and real pixel dimensions", async () => {
    const mediaRows = await s.deps.db.select().from(t.media);
    // Everywhere a URL can sit: media rows, posts (cover, og, block content), products, variants, categories, branding, navigation.
    const tables = [
      "media",
      "posts",
      "product_images",
      "product_variants",
      "product_categories",
      "brand_profiles",
      "nav_items",
    ];
    const text = (await mapSeq(tables, async (tb) => JSON.stringify(await rows(s.deps, `SELECT * FROM ${tb}`)))).join(
      "\n",
    );
    const urls = [...new Set([...text.matchAll(/\/media\/[^"\\\s)]+/g)].map((m) => m[0]))].sort();
    expect(urls.length).toBeGreaterThan(70); // 42 files, their thumbnails and poster frames
    for (const url of urls) {
      const want = expectationsFor(url, mediaRows);
      const { res, bytes } = await fetchFile(url);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
      expect(res.headers.get("content-type")).toBe(want.mime);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(Number(res.headers.get("content-length"))).toBe(bytes.length);
      if (want.bytes !== null) expect(bytes.length).toBe(want.bytes);
      // Decoded by independent readers: the pixels (or frames) are the size the row says.
      const facts = readFile(want.mime, bytes);
      expect({ url, size: [facts.width, facts.height] }).toEqual({ url, size: [want.size[0], want.size[1]] });
      if (want.mime === "video/mp4") expect([facts.duration, facts.frames]).toEqual([4, 48]);
      // Downloads carry the library's file name (found through the row's storage key).
      if (want.mime === "application/pdf" || want.mime === "video/mp4")
        expect(res.headers.get("content-disposition")).toStartWith(`attachment; filename="${want.row.filename}"`);
    }
  });

  test("what REST readers get are working URLs: media list, covers, products, variants, categories, branding, navigation", async () => {
    const got: string[] = [];
    const media = await api.keyed(v1(ids.store, "/media?limit=100"), key);
    for (const m of media.body.data) got.push(m.url, ...(m.thumbnailUrl ? [m.thumbnailUrl] : []));
    const home = await api.keyed(v1(ids.store, "/posts/home"), key);
    got.push(home.body.data.coverImage);
    const tee = await api.keyed(v1(ids.store, "/products/harbor-logo-tee"), key);
    got.push(...tee.body.data.images.map((i: any) => i.url), ...tee.body.data.variants.map((v: any) => v.image));
    const cats = await api.keyed(v1(ids.store, "/product-categories"), key);
    got.push(...cats.body.data.filter((c: any) => c.image).map((c: any) => c.image));
    const b = (await api.get(v1(ids.store, "/branding"))).body.data;
    got.push(b.logoUrl, b.logoSquareUrl, b.faviconUrl, b.ogImageUrl);
    const nav = (await api.get(v1(ids.store, "/navigation"))).body.data;
    got.push(
      ...nav
        .flatMap((n: any) => n.children)
        .filter((n: any) => n.featuredImage)
        .map((n: any) => n.featuredImage),
    );
    // Absolute, so a renderer on another host can load them (the rows hold /media/… paths).
    expect(got.filter((u) => !(typeof u === "string" && u.startsWith(`${s.config.publicUrl}/media/`)))).toEqual([]);
    expect(new Set(got).size).toBeGreaterThan(60);
    for (const url of new Set(got)) {
      const { res } = await fetchFile(url);
      expect({ url, status: res.status }).toEqual({ url, status: 200 });
    }
  });
});

describe("demo over MCP", () => {
  test("the printed MCP key's whoami reaches both companies with the demo user's roles", async () => {
    const res = await fetch(`${s.url}/api/mcp`, {
      method: "POST",
      headers: {
        Authorization: `Bearer ${s.demo!.mcpKey}`,
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } }),
    });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    const who = JSON.parse(body.result.content[0].text);
    // Harbor first (lowest id): the default company owns the printed REST key's site (test/seed/demo-keys.test.ts).
    expect(who.clients.map((c: any) => [c.company, c.role])).toEqual([
      ["Harbor Coffee Roasters", "admin"],
      ["Northwind Studio", "owner"],
    ]);
    expect(who.defaultClientId).toBe(s.demo!.defaultCompany.id);
    expect(who.scopes).toEqual(["*"]);
  });
});
