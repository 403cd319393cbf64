/**
 * REST v1 authentication (interface.md 5.1): both header forms, the
 * Authorization header first, site-bound keys, expiry, revocation, optional
 * auth, the order of checks, and last-used bookkeeping.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { revokeRestKey, restKeyHash, LAST_USED_RESOLUTION_MS } from "../../src/domains/sites/rest-keys";
import { restKeys } from "../../src/domains/sites/tables";
import { ON_PG } from "../db";
import { traceSqlite } from "../fixtures/sqlite-trace";
import { startTestServer, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { seedRestContent, type RestContent } from "../fixtures/rest-content";
import { expectError, rest, type Rest } from "./helpers";

// SQLite: the key lookups this process runs (statements are wrapped before the server's store opens).
let keyLookups = 0;
traceSqlite((sqlText) => {
  if (/FROM rest_keys WHERE secret_hash/.test(sqlText)) keyLookups++;
});

let server: TestServer;
let api: Rest;
let c: RestContent;
let key: string;
let keyId: number;
let blogKey: string;
let shop: string;

beforeAll(async () => {
  server = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  c = await seedRestContent(server.deps);
  ({ key, id: keyId } = await mintRestKey(server.deps, c.sites.shop, { name: "renderer" }));
  blogKey = (await mintRestKey(server.deps, c.sites.blog)).key;
  shop = `/api/v1/sites/${c.sites.shop}`;
  api = await rest(server);
});
afterAll(() => server.stop());

const REQUIRED = [
  "posts",
  "posts/hello-world",
  "pages",
  "categories",
  "tags",
  "media",
  "products",
  "products/classic-tee",
  "product-categories",
];
const OPTIONAL = ["blocks", "branding", "config", "navigation"];
const bogus = "svc_live_" + "0".repeat(64);

describe("header forms", () => {
  test.each(REQUIRED)("%s: Bearer and x-api-key both work, and give the same body", async (p) => {
    const a = await api.get(`${shop}/${p}`, { Authorization: `Bearer ${key}` });
    const b = await api.get(`${shop}/${p}`, { "x-api-key": key });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    expect(b.text).toBe(a.text);
  });

  test.each([
    ["lower-case scheme", () => ({ Authorization: `bearer ${key}` }), 200],
    ["extra spaces", () => ({ Authorization: `Bearer    ${key}  ` }), 200],
    ["x-api-key with spaces", () => ({ "x-api-key": `  ${key} ` }), 200],
    [
      "Authorization wins: valid Bearer, bogus x-api-key",
      () => ({ Authorization: `Bearer ${key}`, "x-api-key": bogus }),
      200,
    ],
    [
      "Authorization wins: bogus Bearer, valid x-api-key",
      () => ({ Authorization: `Bearer ${bogus}`, "x-api-key": key }),
      401,
    ],
    [
      "non-Bearer Authorization is passed over for x-api-key",
      () => ({ Authorization: "Basic dXNlcjpwYXNz", "x-api-key": key }),
      200,
    ],
    ["non-Bearer Authorization alone is no key", () => ({ Authorization: "Basic dXNlcjpwYXNz" }), 401],
    ["empty Bearer", () => ({ Authorization: "Bearer" }), 401],
    ["empty x-api-key", () => ({ "x-api-key": "" }), 401],
    ["key without prefix", () => ({ Authorization: `Bearer ${key.slice("svc_live_".length)}` }), 401],
    ["upper-case hex", () => ({ Authorization: `Bearer ${key.toUpperCase()}` }), 401],
    ["truncated", () => ({ Authorization: `Bearer ${key.slice(0, -1)}` }), 401],
    ["extended", () => ({ Authorization: `Bearer ${key}0` }), 401],
    ["MCP prefix", () => ({ Authorization: `Bearer svc_mcp_${key.slice(9)}` }), 401],
    ["well-formed unknown", () => ({ Authorization: `Bearer ${bogus}` }), 401],
  ] as [string, () => Record<string, string>, number][])("%s → %d", async (_label, headers, status) => {
    const r = await api.get(`${shop}/posts`, headers());
    expect(r.status).toBe(status);
  });

  test("missing key on an auth-required endpoint → 401 API key required", async () => {
    for (const p of REQUIRED) expectError(await api.get(`${shop}/${p}`), 401, "API key required");
  });

  test("optional endpoints: anonymous is fine; a presented key must be valid and for this site", async () => {
    for (const p of OPTIONAL) {
      expect((await api.get(`${shop}/${p}`)).status).toBe(200);
      expect((await api.get(`${shop}/${p}`, { "x-api-key": key })).status).toBe(200);
      expectError(await api.get(`${shop}/${p}`, { "x-api-key": bogus }), 401, "Invalid API key");
      expectError(await api.get(`${shop}/${p}`, { Authorization: `Bearer ${blogKey}` }), 401, "Invalid API key");
      expectError(await api.get(`${shop}/${p}`, { "x-api-key": "" }), 401, "Invalid API key");
    }
  });
});

describe("keys are tied to one site", () => {
  test.each(REQUIRED)("a blog key on the shop's %s → 401 Invalid API key", async (p) => {
    expectError(await api.keyed(`${shop}/${p}`, blogKey), 401, "Invalid API key");
  });

  test("the key check comes before the site check: a shop key on an unknown or inactive site → 401", async () => {
    expectError(await api.keyed("/api/v1/sites/999999/posts", key), 401, "Invalid API key");
    expectError(await api.keyed(`/api/v1/sites/${c.sites.off}/posts`, key), 401, "Invalid API key");
  });

  test("the site id format is checked before the key", async () => {
    expectError(await api.get("/api/v1/sites/x1/posts"), 400, "Invalid site ID");
    expectError(await api.keyed("/api/v1/sites/0/posts", key), 400, "Invalid site ID");
  });

  test("the key of an inactive site reaches the site check → 404", async () => {
    const offKey = (await mintRestKey(server.deps, c.sites.off)).key;
    expectError(await api.keyed(`/api/v1/sites/${c.sites.off}/posts`, offKey), 404, "Not found");
    expectError(await api.get(`/api/v1/sites/${c.sites.off}/config`, { "x-api-key": offKey }), 404, "Not found");
  });

  test("query validation comes after auth: no key and a bad limit → 401", async () => {
    expectError(await api.get(`${shop}/posts?limit=0`), 401, "API key required");
  });
});

describe("expiry and revocation", () => {
  test("a key works until its expiry instant, and not at or after it", async () => {
    const expiresAt = new Date(server.clock.ms() + 60 * 60 * 1000);
    const k = (await mintRestKey(server.deps, c.sites.shop, { expiresAt })).key;
    expect((await api.keyed(`${shop}/tags`, k)).status).toBe(200);
    server.clock.set(expiresAt.getTime() - 1);
    expect((await api.keyed(`${shop}/tags`, k)).status).toBe(200);
    server.clock.set(expiresAt);
    expectError(await api.keyed(`${shop}/tags`, k), 401, "Invalid API key");
    expectError(await api.get(`${shop}/config`, { "x-api-key": k }), 401, "Invalid API key");
    server.clock.advance(24 * 60 * 60 * 1000);
    expectError(await api.keyed(`${shop}/tags`, k), 401, "Invalid API key");
    // Other keys are unaffected by time.
    expect((await api.keyed(`${shop}/tags`, key)).status).toBe(200);
  });

  test("a revoked key is refused on the very next request", async () => {
    const k = await mintRestKey(server.deps, c.sites.shop);
    expect((await api.keyed(`${shop}/tags`, k.key)).status).toBe(200);
    await revokeRestKey(server.deps, k.id);
    expectError(await api.keyed(`${shop}/tags`, k.key), 401, "Invalid API key");
    expectError(await api.get(`${shop}/navigation`, { "x-api-key": k.key }), 401, "Invalid API key");
    expect(async () => await revokeRestKey(server.deps, k.id)).toThrow(/already revoked/);
  });

  test("a wrong key is looked up once, then refused from memory until rest_keys changes; a key made for it then works at once", async () => {
    const token = "svc_live_" + "ab".repeat(32);
    const before = keyLookups;
    for (let i = 0; i < 5; i++) expectError(await api.keyed(`${shop}/tags`, token), 401, "Invalid API key");
    if (!ON_PG) expect(keyLookups - before).toBe(1);
    // A key with exactly this secret appears (as an import or another process could make it): the next request sees it.
    const [row] = await server.deps.db
      .insert(restKeys)
      .values({ siteId: c.sites.shop, name: "imported", hint: token.slice(-4), secretHash: restKeyHash(token)! })
      .returning({ id: restKeys.id });
    expect((await api.keyed(`${shop}/tags`, token)).status).toBe(200);
    await server.deps.db.delete(restKeys).where(eq(restKeys.id, row!.id));
    expectError(await api.keyed(`${shop}/tags`, token), 401, "Invalid API key");
  });

  test("a key deleted from the database stops working", async () => {
    const k = await mintRestKey(server.deps, c.sites.shop);
    expect((await api.keyed(`${shop}/tags`, k.key)).status).toBe(200);
    await server.deps.db.delete(restKeys).where(eq(restKeys.id, k.id));
    expectError(await api.keyed(`${shop}/tags`, k.key), 401, "Invalid API key");
  });
});

describe("last used", () => {
  const lastUsed = async (id: number) =>
    (await server.deps.db.select({ t: restKeys.lastUsedAt }).from(restKeys).where(eq(restKeys.id, id)).limit(1))[0]!.t;

  test("recorded on use, written at most once per second", async () => {
    const k = await mintRestKey(server.deps, c.sites.shop);
    expect(await lastUsed(k.id)).toBeNull();
    const t0 = server.clock.ms();
    await api.keyed(`${shop}/tags`, k.key);
    expect((await lastUsed(k.id))!.getTime()).toBe(t0);
    server.clock.advance(LAST_USED_RESOLUTION_MS - 1);
    await api.keyed(`${shop}/tags`, k.key);
    expect((await lastUsed(k.id))!.getTime()).toBe(t0); // coalesced
    server.clock.advance(1);
    await api.get(`${shop}/config`, { "x-api-key": k.key });
    expect((await lastUsed(k.id))!.getTime()).toBe(t0 + LAST_USED_RESOLUTION_MS);
  });

  test("refused requests do not count as use", async () => {
    const k = await mintRestKey(server.deps, c.sites.shop);
    await revokeRestKey(server.deps, k.id);
    await api.keyed(`${shop}/tags`, k.key);
    expect(await lastUsed(k.id)).toBeNull();
  });

  test("only the hash is stored", async () => {
    const row = (await server.deps.db.select().from(restKeys).where(eq(restKeys.id, keyId)).limit(1))[0]!;
    expect(JSON.stringify(row)).not.toContain(key.slice(9));
    expect(row.secretHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row.hint).toBe(key.slice(0, 15));
    expect(row.name).toBe("renderer");
  });
});
