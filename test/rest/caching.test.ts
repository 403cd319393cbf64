/**
 * REST v1 for renderers: strong ETags and 304s decided from the site's
 * content version (and a new ETag once a writer bumps it), Cache-Control,
 * Vary, CORS (preflight and exposed headers), HEAD, 405 for other methods.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { bumpContentVersion } from "../../src/domains/sites/content-version";
import { posts } from "../../src/domains/cms/tables";
import { sites } from "../../src/domains/sites/tables";
import type { TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import type { RestContent } from "../fixtures/rest-content";
import { expectError, restWorld, type Rest } from "./helpers";

let server: TestServer;
let api: Rest;
let c: RestContent;
let key: string;
let shop: string;

beforeAll(async () => ({ server, api, c, key, shop } = await restWorld()));
afterAll(() => server.stop());

const EVERY = [
  "posts",
  "posts/hello-world",
  "pages",
  "categories",
  "tags",
  "media",
  "blocks",
  "products",
  "products/classic-tee",
  "product-categories",
  "branding",
  "config",
  "navigation",
];

async function bump(siteId = c.sites.shop) {
  await server.deps.db.transaction(async (tx) => await bumpContentVersion(tx, siteId));
}

describe("ETag and 304", () => {
  test.each(EVERY)("%s: stable strong ETag; If-None-Match answers 304 with no body", async (p) => {
    const a = await api.keyed(`${shop}/${p}`, key);
    const etag = a.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    const b = await api.keyed(`${shop}/${p}`, key);
    expect(b.headers.get("etag")).toBe(etag);
    expect(b.text).toBe(a.text);
    const nm = await api.keyed(`${shop}/${p}`, key, { "If-None-Match": etag });
    expect(nm.status).toBe(304);
    expect(nm.headers.get("etag")).toBe(etag);
    expect(nm.headers.get("cache-control")).toBe("private, no-cache");
    expect(nm.text).toBe("");
  });

  test("If-None-Match forms: list, weak prefix, star; a stale tag gets the body", async () => {
    const a = await api.keyed(`${shop}/posts`, key);
    const etag = a.headers.get("etag")!;
    for (const inm of [`"nope", ${etag}`, `W/${etag}`, "*", ` ${etag} `]) {
      expect((await api.keyed(`${shop}/posts`, key, { "If-None-Match": inm })).status).toBe(304);
    }
    // One hex digit changed (never to itself: a tag ending in 0 must not be "changed" to 0).
    const oneDigitOff = `${etag.slice(0, -2)}${etag.at(-2) === "0" ? "1" : "0"}"`;
    for (const inm of [`"nope"`, etag.slice(1, -1), oneDigitOff, ""]) {
      expect((await api.keyed(`${shop}/posts`, key, { "If-None-Match": inm })).status).toBe(200);
    }
  });

  test("different parameters, different ETags; equivalent parameters, the same", async () => {
    const tag = async (q: string) => (await api.keyed(`${shop}/posts${q}`, key)).headers.get("etag");
    const base = await tag("");
    expect(await tag("?limit=5")).not.toBe(base);
    expect(await tag("?search=o")).not.toBe(base);
    expect(await tag("?limit=20&offset=0")).toBe(base); // the defaults spelled out
    expect(await tag("?limit=&_=cachebuster")).toBe(base); // empty and unknown parameters
    expect(await tag("?limit=100")).toBe(await tag("?limit=5000")); // both mean 100
    expect((await api.keyed(`${shop}/posts/hello-world`, key)).headers.get("etag")).not.toBe(
      (await api.keyed(`${shop}/posts/second-post`, key)).headers.get("etag"),
    );
  });

  test("the same request on two sites has different ETags", async () => {
    const blogKey = (await mintRestKey(server.deps, c.sites.blog)).key;
    const a = await api.keyed(`${shop}/tags`, key);
    const b = await api.keyed(`/api/v1/sites/${c.sites.blog}/tags`, blogKey);
    expect(a.headers.get("etag")).not.toBe(b.headers.get("etag"));
  });

  test("a content change (writer bumps the version) gives a new ETag and the new body", async () => {
    const before = await api.keyed(`${shop}/posts/hello-world`, key);
    const etag = before.headers.get("etag")!;
    await server.deps.db.transaction(async (tx) => {
      await tx.update(posts).set({ title: "Hello, Changed" }).where(eq(posts.id, c.posts.hello));
      await bumpContentVersion(tx, c.sites.shop);
    });
    const after = await api.keyed(`${shop}/posts/hello-world`, key, { "If-None-Match": etag });
    expect(after.status).toBe(200);
    expect(after.body.data.title).toBe("Hello, Changed");
    const newTag = after.headers.get("etag")!;
    expect(newTag).not.toBe(etag);
    expect((await api.keyed(`${shop}/posts/hello-world`, key, { "If-None-Match": newTag })).status).toBe(304);
    // Every endpoint of the site moves to a new ETag; another site's do not.
    const blogKey = (await mintRestKey(server.deps, c.sites.blog)).key;
    const blogTag = (await api.keyed(`/api/v1/sites/${c.sites.blog}/tags`, blogKey)).headers.get("etag")!;
    const shopTag = (await api.keyed(`${shop}/tags`, key)).headers.get("etag")!;
    await bump();
    expect((await api.keyed(`${shop}/tags`, key, { "If-None-Match": shopTag })).status).toBe(200);
    expect((await api.keyed(`/api/v1/sites/${c.sites.blog}/tags`, blogKey, { "If-None-Match": blogTag })).status).toBe(
      304,
    );
  });

  test("304 is decided from the version alone: an unbumped change is not seen (writers must bump)", async () => {
    const before = await api.keyed(`${shop}/posts/second-post`, key);
    await server.deps.db.update(posts).set({ title: "Silently changed" }).where(eq(posts.id, c.posts.second));
    const same = await api.keyed(`${shop}/posts/second-post`, key, { "If-None-Match": before.headers.get("etag")! });
    expect(same.status).toBe(304);
    await bump();
    const fresh = await api.keyed(`${shop}/posts/second-post`, key);
    expect(fresh.body.data.title).toBe("Silently changed");
  });

  test("a deactivated site is 404 on the next request, even with a matching ETag", async () => {
    const r = await api.get(`/api/v1/sites/${c.sites.closed}/config`);
    const etag = r.headers.get("etag")!;
    await server.deps.db.update(sites).set({ active: false }).where(eq(sites.id, c.sites.closed));
    try {
      expectError(await api.get(`/api/v1/sites/${c.sites.closed}/config`, { "If-None-Match": etag }), 404, "Not found");
    } finally {
      await server.deps.db.update(sites).set({ active: true }).where(eq(sites.id, c.sites.closed));
    }
    expect((await api.get(`/api/v1/sites/${c.sites.closed}/config`)).status).toBe(200);
  });

  test("errors never carry an ETag or take a 304", async () => {
    const r = await api.keyed(`${shop}/posts/nope`, key, { "If-None-Match": "*" });
    expect(r.status).toBe(404);
    expect(r.headers.get("etag")).toBeNull();
    expect(r.headers.get("cache-control")).toBe("no-store");
  });

  test("errors carry a request id: the caller's when sane, else a fresh UUID", async () => {
    const own = await api.keyed(`${shop}/posts/nope`, key, { "X-Request-Id": "renderer-42" });
    expect(own.headers.get("x-request-id")).toBe("renderer-42");
    const junk = await api.keyed(`${shop}/posts/nope`, key, { "X-Request-Id": "<script>" });
    expect(junk.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    const none = await api.get(`${shop}/posts`);
    expect(none.status).toBe(401);
    expect(none.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe("Cache-Control and Vary", () => {
  test("keyed: private, no-cache; anonymous: public, max-age=60; every response varies on the key headers", async () => {
    const keyed = await api.keyed(`${shop}/config`, key);
    expect(keyed.headers.get("cache-control")).toBe("private, no-cache");
    const anon = await api.get(`${shop}/config`);
    expect(anon.headers.get("cache-control")).toBe("public, max-age=60");
    const viaHeader = await api.get(`${shop}/config`, { "x-api-key": key });
    expect(viaHeader.headers.get("cache-control")).toBe("private, no-cache");
    for (const r of [keyed, anon, viaHeader]) expect(r.headers.get("vary")).toBe("Authorization, X-API-Key");
    // One URL's shared headers are built once (src/rest/routes.ts okTemplate); what is per request must not be shared.
    expect(new Set([keyed, anon, viaHeader].map((r) => r.headers.get("x-request-id"))).size).toBe(3);
    expect(Number(viaHeader.headers.get("x-ratelimit-remaining"))).toBe(
      Number(keyed.headers.get("x-ratelimit-remaining")) - 1,
    );
    const anon304 = await api.get(`${shop}/config`, { "If-None-Match": anon.headers.get("etag")! });
    expect(anon304.status).toBe(304);
    expect(anon304.headers.get("cache-control")).toBe("public, max-age=60");
  });
});

describe("CORS, HEAD and methods", () => {
  test("every response lets browser code read ETag and the rate-limit headers", async () => {
    const r = await api.keyed(`${shop}/posts`, key, { Origin: "https://renderer.example" });
    expect(r.headers.get("access-control-allow-origin")).toBe("*");
    const exposed = r.headers.get("access-control-expose-headers")!.split(/,\s*/);
    for (const h of ["ETag", "X-RateLimit-Limit", "X-RateLimit-Remaining", "Retry-After"]) expect(exposed).toContain(h);
    const err = await api.get(`${shop}/posts`, { Origin: "https://renderer.example" });
    expect(err.status).toBe(401);
    expect(err.headers.get("access-control-allow-origin")).toBe("*");
  });

  test("preflight OPTIONS is answered without auth, allowing the key headers and If-None-Match", async () => {
    const r = await api.get(
      `${shop}/posts`,
      {
        Origin: "https://renderer.example",
        "Access-Control-Request-Method": "GET",
        "Access-Control-Request-Headers": "authorization, x-api-key, if-none-match",
      },
      "OPTIONS",
    );
    expect(r.status).toBe(204);
    expect(r.headers.get("access-control-allow-methods")).toBe("GET, HEAD, OPTIONS");
    const allowed = r.headers.get("access-control-allow-headers")!.toLowerCase().split(/,\s*/);
    expect(allowed).toEqual(expect.arrayContaining(["authorization", "x-api-key", "if-none-match"]));
    expect(r.headers.get("access-control-max-age")).toBe("86400");
    expect(r.text).toBe("");
  });

  test("an anonymous cross-origin read exposes its ETag", async () => {
    // The check a browser makes: the header is listed in Access-Control-Expose-Headers.
    const r = await api.get(`${shop}/blocks`, { Origin: "https://elsewhere.example" });
    expect(r.headers.get("access-control-expose-headers")).toContain("ETag");
    expect(r.headers.get("etag")).toBeTruthy();
  });

  test("HEAD answers like GET without a body", async () => {
    const g = await api.keyed(`${shop}/posts`, key);
    const h = await api.get(`${shop}/posts`, { Authorization: `Bearer ${key}` }, "HEAD");
    expect(h.status).toBe(200);
    expect(h.text).toBe("");
    expect(h.headers.get("etag")).toBe(g.headers.get("etag")!);
  });

  test.each(["POST", "PUT", "PATCH", "DELETE"])("%s → 405 with Allow", async (method) => {
    const r = await api.get(`${shop}/posts`, { Authorization: `Bearer ${key}` }, method);
    expectError(r, 405, `Method ${method} not allowed: the REST API is read-only (GET)`);
    expect(r.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
  });

  test("unknown paths under /api/v1 get the envelope 404", async () => {
    for (const p of [
      "/api/v1",
      "/api/v1/",
      "/api/v1/sites",
      `${shop}`,
      `${shop}/`,
      `${shop}/posts/`,
      `${shop}/unknown`,
      `${shop}/posts/a/b`,
    ]) {
      expectError(await api.keyed(p, key), 404, "Not found");
    }
  });
});

describe("openapi.json", () => {
  test("served with an ETag and revalidates", async () => {
    const r = await api.get("/api/v1/openapi.json");
    expect(r.status).toBe(200);
    expect(r.body.openapi).toBe("3.1.0");
    expect(r.headers.get("cache-control")).toBe("public, max-age=300");
    const etag = r.headers.get("etag")!;
    const again = await api.get("/api/v1/openapi.json", { "If-None-Match": etag });
    expect(again.status).toBe(304);
    expect(again.text).toBe("");
    expect(again.headers.get("x-ratelimit-limit")).toBe("100000");
  });
});
