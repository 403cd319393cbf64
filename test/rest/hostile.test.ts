/**
 * Malformed and hostile requests. Every malformed one gets a 4xx envelope
 * whose message names what is wrong; hostile but well-formed ones (SQL or
 * HTML as a search) are answered normally with no matches; nothing is ever
 * a 5xx; and the data is byte-for-byte the same afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { row, rows, startTestServer, tableNames, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { seedRestContent, type RestContent } from "../fixtures/rest-content";
import { rest, type Rest } from "./helpers";

let server: TestServer;
let api: Rest;
let c: RestContent;
let key: string;
let blogKey: string;
let before: string;

const LONG = "a".repeat(10_000);
const SLUG_MSG = /^Invalid slug: use lowercase letters, digits and single hyphens/;
const SITE_MSG = "Invalid site ID";
const enc = encodeURIComponent;

/** Everything a renderer could see, plus every table's row count: compared before and after. */
async function snapshot(): Promise<string> {
  const tables = (await tableNames(server.deps)).filter((t) => t !== "rest_keys");
  const counts: string[] = [];
  for (const t of tables)
    counts.push(`${t}:${(await row<{ n: number }>(server.deps, `SELECT count(*) AS n FROM "${t}"`))!.n}`);
  const keys = await rows(
    server.deps,
    "SELECT id, site_id, secret_hash, revoked_at, expires_at FROM rest_keys ORDER BY id",
  );
  const shop = `/api/v1/sites/${c.sites.shop}`;
  const bodies: string[] = [];
  for (const p of [
    "posts?limit=100",
    "pages",
    "categories",
    "tags",
    "media",
    "products?limit=100",
    "product-categories",
    "config",
  ]) {
    bodies.push((await api.keyed(`${shop}/${p}`, key)).text);
  }
  return JSON.stringify({ counts, keys, bodies });
}

beforeAll(async () => {
  server = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  // Periodic jobs (an integration health check, booking reminders) write on their own clock: held, so the
  // before/after counts compare only what the hostile requests could have written.
  await server.jobs.stop();
  c = await seedRestContent(server.deps);
  key = (await mintRestKey(server.deps, c.sites.shop)).key;
  blogKey = (await mintRestKey(server.deps, c.sites.blog)).key;
  api = await rest(server);
  before = await snapshot();
});
afterAll(() => server.stop());

type Row = [
  label: string,
  path: (shop: string) => string,
  status: number,
  message: string | RegExp,
  headers?: () => Record<string, string>,
  method?: string,
];

const S = (p: string) => (shop: string) => `${shop}${p}`;
const site =
  (id: string, rest = "/posts") =>
  () =>
    `/api/v1/sites/${id}${rest}`;

const MALFORMED: Row[] = [
  // siteId
  ["siteId letters", site("abc"), 400, SITE_MSG],
  ["siteId negative", site("-1"), 400, SITE_MSG],
  ["siteId zero", site("0"), 400, SITE_MSG],
  ["siteId leading zero", site("01"), 400, SITE_MSG],
  ["siteId exponent", site("1e3"), 400, SITE_MSG],
  ["siteId decimal", site("1.0"), 400, SITE_MSG],
  ["siteId hex", site("0x10"), 400, SITE_MSG],
  ["siteId huge", site("99999999999999999999"), 400, SITE_MSG],
  ["siteId 2^53", site("9007199254740992"), 400, SITE_MSG],
  ["siteId with space", site(enc(" 1")), 400, SITE_MSG],
  ["siteId with NUL", site("1%00"), 400, SITE_MSG],
  ["siteId Arabic-Indic digit", site(enc("١")), 400, SITE_MSG],
  ["siteId SQL", site(enc("1 OR 1=1")), 400, SITE_MSG],
  ["siteId HTML", site(enc("<script>")), 400, SITE_MSG],
  ["siteId 10k chars", site(LONG), 400, SITE_MSG],
  ["siteId bad percent-encoding", site("%ZZ"), 400, SITE_MSG],
  ["siteId double-encoded digit", site("%2531"), 400, SITE_MSG],
  ["siteId on an optional endpoint", site("-7", "/config"), 400, SITE_MSG],
  ["siteId on blocks", site("x", "/blocks"), 400, SITE_MSG],
  // slugs
  ["post slug SQL", S(`/posts/${enc("'; DROP TABLE posts;--")}`), 400, SLUG_MSG],
  ["post slug HTML", S(`/posts/${enc("<script>alert(1)</script>")}`), 400, SLUG_MSG],
  ["post slug 10k chars", S(`/posts/${LONG}`), 400, SLUG_MSG],
  ["post slug encoded traversal", S(`/posts/${enc("../../etc/passwd")}`), 400, SLUG_MSG],
  ["post slug upper case", S("/posts/HELLO-WORLD"), 400, SLUG_MSG],
  ["post slug unicode", S(`/posts/${enc("héllo")}`), 400, SLUG_MSG],
  ["post slug space", S("/posts/hello%20world"), 400, SLUG_MSG],
  ["post slug NUL", S("/posts/hello%00"), 400, SLUG_MSG],
  ["post slug double-encoded", S("/posts/hello%252Dworld"), 400, SLUG_MSG],
  ["post slug trailing hyphen", S("/posts/hello-"), 400, SLUG_MSG],
  ["post slug underscore", S("/posts/hello_world"), 400, SLUG_MSG],
  ["product slug SQL", S(`/products/${enc("x' OR '1'='1")}`), 400, SLUG_MSG],
  ["product slug HTML", S(`/products/${enc("<img src=x onerror=alert(1)>")}`), 400, SLUG_MSG],
  ["product slug 10k chars", S(`/products/${LONG}`), 400, SLUG_MSG],
  // limit / offset / page
  ["limit=0", S("/posts?limit=0"), 400, /^limit must be a whole number of at least 1/],
  ["limit=abc", S("/posts?limit=abc"), 400, /^limit must be/],
  ["limit=-5", S("/posts?limit=-5"), 400, /^limit must be/],
  ["limit=1e2", S("/posts?limit=1e2"), 400, /^limit must be/],
  ["limit=0x10", S("/media?limit=0x10"), 400, /^limit must be/],
  ["limit=+5", S("/pages?limit=%2B5"), 400, /^limit must be/],
  ["limit with space", S("/posts?limit=%205"), 400, /^limit must be/],
  ["limit unicode digits", S(`/posts?limit=${enc("١٠")}`), 400, /^limit must be/],
  ["limit repeated", S("/posts?limit=5&limit=6"), 400, "limit is given more than once; give it at most once"],
  ["offset=-1", S("/posts?offset=-1"), 400, /^offset must be a whole number from 0 to/],
  ["offset=abc", S("/media?offset=abc"), 400, /^offset must be/],
  ["offset=1.5", S("/pages?offset=1.5"), 400, /^offset must be/],
  ["offset huge", S("/posts?offset=99999999999999999999"), 400, /^offset must be/],
  ["offset repeated", S("/posts?offset=1&offset=1"), 400, /^offset is given more than once/],
  ["page=0", S("/products?page=0"), 400, /^page must be a whole number from 1 to/],
  ["page=-1", S("/products?page=-1"), 400, /^page must be/],
  ["page=abc", S("/products?page=abc"), 400, /^page must be/],
  ["page huge", S("/products?page=99999999999999999999"), 400, /^page must be/],
  ["products limit=0", S("/products?limit=0"), 400, /^limit must be/],
  // sort and filters
  ["sort unknown", S("/products?sort=cheapest"), 400, "sort must be one of newest, price_asc, price_desc, featured"],
  ["sort SQL", S(`/products?sort=${enc("price_asc; DROP TABLE products")}`), 400, /^sort must be one of/],
  ["sort HTML", S(`/products?sort=${enc("<b>")}`), 400, /^sort must be one of/],
  ["sort repeated", S("/products?sort=newest&sort=featured"), 400, /^sort is given more than once/],
  ["search 10k chars", S(`/posts?search=${LONG}`), 400, "search must be at most 200 characters"],
  ["product search 10k chars", S(`/products?search=${LONG}`), 400, "search must be at most 200 characters"],
  ["search repeated", S("/posts?search=a&search=b"), 400, /^search is given more than once/],
  ["category HTML", S(`/posts?category=${enc("<script>")}`), 400, /^category must be a slug/],
  ["category SQL", S(`/posts?category=${enc("'; DROP TABLE categories;--")}`), 400, /^category must be a slug/],
  ["category 10k chars", S(`/products?category=${LONG}`), 400, /^category must be a slug/],
  ["category repeated", S("/posts?category=news&category=apple"), 400, /^category is given more than once/],
  ["tag with space", S("/posts?tag=a%20b"), 400, /^tag must be a slug/],
  ["tag upper case", S("/posts?tag=Bun"), 400, /^tag must be a slug/],
  ["postType traversal", S(`/posts?postType=${enc("../page")}`), 400, /^postType must be a slug/],
  ["mimeType percent", S("/media?mimeType=%25"), 400, /^mimeType must be a MIME type/],
  ["mimeType with parameters", S(`/media?mimeType=${enc("image/png;x=1")}`), 400, /^mimeType must be a MIME type/],
  ["mimeType SQL", S(`/media?mimeType=${enc("' or ''='")}`), 400, /^mimeType must be a MIME type/],
  ["mimeType 10k chars", S(`/media?mimeType=${LONG}`), 400, /^mimeType must be a MIME type/],
  ["mimeType repeated", S("/media?mimeType=image&mimeType=video"), 400, /^mimeType is given more than once/],
  // credentials
  ["no key", S("/posts"), 401, "API key required", () => ({})],
  ["SQL as key", S("/posts"), 401, "Invalid API key", () => ({ Authorization: "Bearer ' OR 1=1 --" })],
  ["HTML as key", S("/tags"), 401, "Invalid API key", () => ({ "x-api-key": "<script>alert(1)</script>" })],
  ["10k-char key", S("/posts"), 401, "Invalid API key", () => ({ "x-api-key": LONG })],
  ["non-hex key", S("/posts"), 401, "Invalid API key", () => ({ Authorization: `Bearer svc_live_${"g".repeat(64)}` })],
  ["latin-1 key", S("/config"), 401, "Invalid API key", () => ({ Authorization: "Bearer svc_live_\u00e9" })],
  ["another site's key", S("/posts"), 401, "Invalid API key", () => ({ Authorization: `Bearer ${blogKey}` })],
  ["two keys in one header", S("/posts"), 401, "Invalid API key", () => ({ Authorization: `Bearer ${key} ${key}` })],
  // paths and methods
  ["extra path segment", S("/posts/hello-world/x"), 404, "Not found"],
  ["unknown resource", S("/users"), 404, "Not found"],
  [
    "store-less site's products",
    () => `/api/v1/sites/${c.sites.blog}/products`,
    404,
    "Store not found",
    () => ({ Authorization: `Bearer ${blogKey}` }),
  ],
  ["DELETE", S("/posts/hello-world"), 405, /^Method DELETE not allowed/, undefined, "DELETE"],
  ["POST with a body-less request", S("/posts"), 405, /^Method POST not allowed/, undefined, "POST"],
  // Refused on both engines alike: PostgreSQL cannot compare text holding NUL.
  ["NUL in search", S("/posts?search=a%00b"), 400, "search must not contain the NUL character"],
];

const HOSTILE_BUT_VALID: [string, string][] = [
  ["SQL in search", `/posts?search=${enc("' OR 1=1 --")}`],
  ["UNION in search", `/posts?search=${enc("x' UNION SELECT secret_hash FROM rest_keys --")}`],
  ["HTML in search", `/posts?search=${enc("<script>alert(1)</script>")}`],
  ["LIKE wildcards only", `/products?search=${enc("%_%")}`],
  ["double-encoded quote", "/posts?search=%2527"],
  ["emoji", `/posts?search=${enc("🦄")}`],
  ["RTL override", `/products?search=${enc("\u202Eabc")}`],
  ["unknown category", "/posts?category=does-not-exist"],
  ["array-style parameter (ignored)", "/posts?limit[]=5&search=zzz"],
];

describe("malformed requests", () => {
  test("the table is big enough", () => {
    expect(MALFORMED.length).toBeGreaterThanOrEqual(60);
  });

  // One argument per row: bun would take a missing trailing parameter for a done callback.
  test.each(MALFORMED.map((row) => [row[0], row] as const))("%s", async (_label, row) => {
    const [, path, status, message, headers, method = "GET"] = row;
    const shop = `/api/v1/sites/${c.sites.shop}`;
    const h = headers ? headers() : { Authorization: `Bearer ${key}` };
    const r = await api.get(path(shop), h, method);
    expect(r.status).toBe(status);
    expect(r.body.success).toBe(false);
    if (typeof message === "string") expect(r.body.message).toBe(message);
    else expect(r.body.message).toMatch(message);
    // A useful message is short and never echoes the hostile input back.
    expect(r.body.message.length).toBeLessThan(200);
    expect(r.body.message).not.toContain("<script>");
  });
});

describe("hostile but well-formed requests", () => {
  test.each(HOSTILE_BUT_VALID)("%s → 200 with no matches", async (_label, p) => {
    const r = await api.keyed(`/api/v1/sites/${c.sites.shop}${p}`, key);
    expect(r.status).toBe(200);
    expect(r.body.data).toEqual([]);
    expect(r.body.pagination.total).toBe(0);
  });
});

describe("afterwards", () => {
  test("the data is unchanged and the server still serves normally", async () => {
    expect(await snapshot()).toBe(before);
    const r = await api.keyed(`/api/v1/sites/${c.sites.shop}/posts/hello-world`, key);
    expect(r.status).toBe(200);
  });
});
