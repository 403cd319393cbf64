/**
 * REST v1 content: posts, pages, categories, tags, media — every query
 * parameter with its edge values, orders, visibility, tenancy. Exact data
 * from test/fixtures/rest-content.ts; every response is checked against
 * the OpenAPI document by the client in helpers.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { BASE, CONTENT, type RestContent } from "../fixtures/rest-content";
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

/** Every published post of the shop in the documented order: publishedAt desc (nulls last), then id desc. */
const ALL_POSTS = [
  "contact",
  "cafe-etudes",
  "second-post",
  "same-time-b",
  "same-time-a",
  "hello-world",
  "percent-post",
  "about-us",
  "no-date",
];

describe("listPosts", () => {
  test("published posts of every type, newest first, ties by id desc, no date last", async () => {
    const r = await get("/posts");
    expect(r.status).toBe(200);
    expect(slugs(r)).toEqual(ALL_POSTS);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: 9 });
    expect(r.body.data[0]).toEqual({
      id: c.posts.contact,
      title: "Contact",
      slug: "contact",
      postType: "page",
      excerpt: null,
      coverImage: null,
      publishedAt: new Date(BASE - 86_400_000).toISOString(),
    });
    const hello = r.body.data.find((p: any) => p.slug === "hello-world");
    expect(hello).toMatchObject({
      excerpt: "First post",
      coverImage: "https://cdn.example.com/hello.jpg",
      postType: "blog",
    });
    expect(r.body.data.find((p: any) => p.slug === "no-date").publishedAt).toBeNull();
  });

  test("drafts and other sites' posts never appear", async () => {
    const r = await get("/posts?limit=100");
    expect(slugs(r)).not.toContain("draft-post");
    expect(slugs(r)).not.toContain("secret-page");
    expect(r.body.data.map((p: any) => p.id)).not.toContain(c.posts.blogHello);
  });

  test.each([
    ["limit=1", ["contact"], { limit: 1, offset: 0, total: 9 }],
    ["limit=2&offset=2", ["second-post", "same-time-b"], { limit: 2, offset: 2, total: 9 }],
    ["limit=100", ALL_POSTS, { limit: 100, offset: 0, total: 9 }],
    ["limit=101", ALL_POSTS, { limit: 100, offset: 0, total: 9 }],
    ["limit=99999999999999999999", ALL_POSTS, { limit: 100, offset: 0, total: 9 }],
    ["offset=8", ["no-date"], { limit: 20, offset: 8, total: 9 }],
    ["offset=9", [], { limit: 20, offset: 9, total: 9 }],
    ["offset=9007199254740991", [], { limit: 20, offset: 9007199254740991, total: 9 }],
    ["limit=&offset=", ALL_POSTS, { limit: 20, offset: 0, total: 9 }],
    ["unknown=1&_=123", ALL_POSTS, { limit: 20, offset: 0, total: 9 }],
  ])("pagination %s", async (q, expected, pagination) => {
    const r = await get(`/posts?${q}`);
    expect(r.status).toBe(200);
    expect(slugs(r)).toEqual(expected);
    expect(r.body.pagination).toEqual(pagination);
  });

  test("pages never overlap and together are the whole list", async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 9; offset += 2) seen.push(...slugs(await get(`/posts?limit=2&offset=${offset}`)));
    expect(seen).toEqual(ALL_POSTS);
  });

  test.each([
    ["postType=blog", ["second-post", "same-time-b", "same-time-a", "hello-world", "percent-post", "no-date"]],
    ["postType=page", ["contact", "about-us"]],
    ["postType=case-study", ["cafe-etudes"]],
    ["postType=unknown-type", []],
    ["category=news", ["second-post", "hello-world"]],
    ["category=apple", ["hello-world"]],
    ["category=zebra", []],
    ["category=blog-only", []],
    ["tag=typescript", ["second-post", "hello-world"]],
    ["tag=bun", ["hello-world"]],
    ["tag=api", []],
    ["tag=other", []],
    ["category=news&tag=bun", ["hello-world"]],
    ["postType=page&category=news", []],
    ["search=hello", ["hello-world"]],
    ["search=HELLO", ["hello-world"]],
    ["search=same", ["same-time-b", "same-time-a"]],
    ["search=%20time%20", ["same-time-b", "same-time-a"]],
    ["search=CAF%C3%89", ["cafe-etudes"]],
    ["search=%C3%A9tudes", ["cafe-etudes"]],
    ["search=100%25", ["percent-post"]],
    ["search=_under_", ["percent-post"]],
    ["search=%3Cb%3E", ["percent-post"]],
    ["search=%25", ["percent-post"]],
    ["search=_", ["percent-post"]],
    ["search=o", ["contact", "second-post", "hello-world", "percent-post", "about-us", "no-date"]],
    ["search=nothing-matches", []],
    ["search=draft", []],
    ["search='%20OR%201%3D1--", []],
    ["search=%20%20", ALL_POSTS],
    ["search=o&postType=blog&limit=2&offset=1", ["hello-world", "percent-post"]],
  ])("filter %s", async (q, expected) => {
    const r = await get(`/posts?${q}`);
    expect(r.status).toBe(200);
    expect(slugs(r)).toEqual(expected);
  });

  test("search total counts all matches, not the page", async () => {
    const r = await get("/posts?search=o&limit=1");
    expect(slugs(r)).toEqual(["contact"]);
    expect(r.body.pagination).toEqual({ limit: 1, offset: 0, total: 6 });
  });

  test.each([
    ["limit=0", "limit must be a whole number of at least 1 (values above 100 are capped)"],
    ["limit=-1", "limit must be a whole number of at least 1 (values above 100 are capped)"],
    ["limit=abc", "limit must be a whole number of at least 1 (values above 100 are capped)"],
    ["limit=1.5", "limit must be a whole number of at least 1 (values above 100 are capped)"],
    ["offset=-1", "offset must be a whole number from 0 to 9007199254740991"],
    ["offset=9007199254740992", "offset must be a whole number from 0 to 9007199254740991"],
    ["offset=1e3", "offset must be a whole number from 0 to 9007199254740991"],
    ["postType=Blog", /^postType must be a slug/],
    ["category=a_b", /^category must be a slug/],
    ["tag=%3Cscript%3E", /^tag must be a slug/],
    ["search=" + "x".repeat(201), "search must be at most 200 characters"],
    ["limit=5&limit=6", "limit is given more than once; give it at most once"],
  ])("bad %s → 400", async (q, message) => {
    expectError(await get(`/posts?${q.slice(0, 300)}`), 400, message);
  });
});

describe("getPostBySlug", () => {
  test("full detail with content, SEO fields, categories and tags by name", async () => {
    const r = await get("/posts/hello-world");
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      success: true,
      data: {
        id: c.posts.hello,
        websiteId: c.sites.shop,
        title: "Hello World",
        slug: "hello-world",
        postType: "blog",
        excerpt: "First post",
        content: JSON.stringify(CONTENT),
        coverImage: "https://cdn.example.com/hello.jpg",
        ogImage: "https://cdn.example.com/og.jpg",
        published: true,
        publishedAt: new Date(BASE - 5 * 86_400_000).toISOString(),
        seoTitle: "Hello SEO",
        seoDescription: "About hello",
        canonicalUrl: "https://shop.example.com/hello-world",
        customCss: ".x{color:red}",
        customJs: "console.log(1)",
        noIndex: false,
        parentPostId: null,
        createdAt: new Date(BASE - 30 * 86_400_000).toISOString(),
        updatedAt: new Date(BASE - 20 * 86_400_000).toISOString(),
        categories: [
          { id: c.cats.apple, name: "apple", slug: "apple", color: null },
          { id: c.cats.news, name: "News", slug: "news", color: "#ff0000" },
        ],
        tags: [
          { id: c.tags.bun, name: "Bun", slug: "bun" },
          { id: c.tags.typescript, name: "typescript", slug: "typescript" },
        ],
      },
    });
    expect(JSON.parse(r.body.data.content)).toEqual(CONTENT);
  });

  test("pages are posts too; a post without content has content null and empty lists", async () => {
    const r = await get("/posts/about-us");
    expect(r.body.data).toMatchObject({ postType: "page", content: null, categories: [], tags: [], noIndex: null });
  });

  test.each(["draft-post", "secret-page", "no-such-post", "off-post"])("%s → 404 Not found", async (slug) => {
    expectError(await get(`/posts/${slug}`), 404, "Not found");
  });

  test("the same slug on another site is that site's post, not this one", async () => {
    const other = (await mintRestKey(server.deps, c.sites.blog)).key;
    const r = await api.keyed(`/api/v1/sites/${c.sites.blog}/posts/hello-world`, other);
    expect(r.body.data).toMatchObject({ id: c.posts.blogHello, title: "Hello from Blog", websiteId: c.sites.blog });
  });

  test.each([
    ["Hello-World", 400],
    ["hello_world", 400],
    ["hello--world", 400],
    ["%3Cscript%3E", 400],
    ["x".repeat(121), 400],
    ["x".repeat(120), 404],
  ])("slug %s → %d", async (slug, status) => {
    const r = await get(`/posts/${slug}`);
    expect(r.status).toBe(status);
    if (status === 400)
      expect(r.body.message).toBe(
        "Invalid slug: use lowercase letters, digits and single hyphens, at most 120 characters",
      );
  });
});

describe("listPages", () => {
  test("published pages only, same order as posts", async () => {
    const r = await get("/pages");
    expect(slugs(r)).toEqual(["contact", "about-us"]);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: 2 });
    expect(r.body.data.every((p: any) => p.postType === "page")).toBe(true);
  });
  test.each([
    ["search=CONT", ["contact"], 1],
    ["search=us", ["about-us"], 1],
    ["search=hello", [], 0],
    ["limit=1&offset=1", ["about-us"], 2],
    ["offset=5", [], 2],
    ["postType=blog", ["contact", "about-us"], 2], // not a pages parameter: ignored
  ])("%s", async (q, expected, total) => {
    const r = await get(`/pages?${q}`);
    expect(slugs(r)).toEqual(expected);
    expect(r.body.pagination.total).toBe(total);
  });
  test("bad limit → 400", async () => {
    expectError(await get("/pages?limit=0"), 400, /^limit must be/);
  });
});

describe("listCategories and listTags", () => {
  test("categories alphabetically: case- and accent-insensitive, numbers numeric", async () => {
    const r = await get("/categories");
    expect(r.body.data.map((x: any) => x.name)).toEqual(["apple", "Événements", "Item 2", "Item 10", "News", "Zebra"]);
    expect(r.body.data.find((x: any) => x.slug === "news")).toEqual({
      id: c.cats.news,
      name: "News",
      slug: "news",
      description: "Company news",
      color: "#ff0000",
    });
    expect(r.body.pagination).toBeUndefined();
  });
  test("tags alphabetically, only this site's", async () => {
    const r = await get("/tags");
    expect(r.body.data).toEqual([
      { id: c.tags.api, name: "api", slug: "api" },
      { id: c.tags.bun, name: "Bun", slug: "bun" },
      { id: c.tags.typescript, name: "typescript", slug: "typescript" },
    ]);
  });
  test("a site without categories gets an empty list", async () => {
    const closedKey = (await mintRestKey(server.deps, c.sites.closed)).key;
    const r = await api.keyed(`/api/v1/sites/${c.sites.closed}/categories`, closedKey);
    expect(r.body).toEqual({ success: true, data: [] });
  });
});

describe("listMedia", () => {
  const names = (r: any) => r.body.data.map((m: any) => m.filename);
  test("newest first with every field", async () => {
    const r = await get("/media");
    expect(names(r)).toEqual(["brochure.pdf", "logo.png", "photo.jpg", "clip.mp4", "odd.bin"]);
    expect(r.body.pagination).toEqual({ limit: 20, offset: 0, total: 5 });
    expect(r.body.data[2]).toEqual({
      id: c.media.jpeg,
      filename: "photo.jpg",
      mimeType: "image/jpeg",
      url: "https://cdn.example.com/photo.jpg",
      thumbnailUrl: "https://cdn.example.com/photo-thumb.jpg",
      alt: "A photo",
      caption: "Caption",
      width: 800,
      height: 600,
    });
  });
  test.each([
    ["mimeType=image", ["logo.png", "photo.jpg"], 2],
    ["mimeType=IMAGE", ["logo.png", "photo.jpg"], 2],
    ["mimeType=image/*", ["logo.png", "photo.jpg"], 2],
    ["mimeType=image/", ["logo.png", "photo.jpg"], 2],
    ["mimeType=image/png", ["logo.png"], 1],
    ["mimeType=image/p", ["logo.png"], 1],
    ["mimeType=imagex", ["odd.bin"], 1],
    ["mimeType=application", ["brochure.pdf"], 1],
    ["mimeType=audio", [], 0],
    ["mimeType=all", ["brochure.pdf", "logo.png", "photo.jpg", "clip.mp4", "odd.bin"], 5],
    ["mimeType=", ["brochure.pdf", "logo.png", "photo.jpg", "clip.mp4", "odd.bin"], 5],
    ["limit=2&offset=1", ["logo.png", "photo.jpg"], 5],
    ["mimeType=image&limit=1&offset=1", ["photo.jpg"], 2],
    ["offset=5", [], 5],
  ])("%s", async (q, expected, total) => {
    const r = await get(`/media?${q}`);
    expect(r.status).toBe(200);
    expect(names(r)).toEqual(expected);
    expect(r.body.pagination.total).toBe(total);
  });
  test.each(["mimeType=%25", "mimeType=image%2F%25", "mimeType=a%20b", "mimeType=image/png/x", "offset=-1", "limit=0"])(
    "bad %s → 400",
    async (q) => {
      const r = await get(`/media?${q}`);
      expectError(r, 400, /^(mimeType|offset|limit) must be/);
    },
  );
});
