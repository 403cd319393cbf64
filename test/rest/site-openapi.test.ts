/**
 * A site's own OpenAPI document, /api/v1/sites/{siteId}/openapi.json, over
 * the real wire: the global document plus one PostFields_<slug> and
 * PostDetail_<slug> per post type of that site (never another site's), each
 * field type mapped to what REST really serves (real PostDetail bodies are
 * validated against it), refused exactly like getPostBySlug for bad ids and
 * keys, ETag/304 moving with post_type_fields_set, and hostile labels kept
 * as data inside the JSON. Post types and fields are set through a real MCP
 * client, as an agent would.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { products } from "../../src/domains/store/tables";
import { restTemplate } from "../../src/rest/routes";
import { sites } from "../../src/domains/sites/tables";
import { makeWorld, type World } from "../cms/world";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { OpenApiChecker } from "./helpers";

let s: TestServer;
let w: World;
let keyA: string;
let keyA2: string;
let typeId: number;
let caseSlug: string;
let blogSlug: string;

const HOSTILE_LABEL = 'Client "</script><script>alert(1)</script> \\ {"$ref":"#/x"} \u2028';
const HOSTILE_HELP = 'Line one\n"}]},"paths":{},"x":[{"\n<!-- -->';

const DEFS = [
  { name: "client", label: HOSTILE_LABEL, help: HOSTILE_HELP, type: "text", required: true },
  { name: "story", type: "rich_text" },
  { name: "rooms", type: "number" },
  { name: "featured", type: "boolean" },
  { name: "launched", type: "date" },
  { name: "logo", type: "media" },
  { name: "related", type: "reference", to: "post" },
  { name: "product", type: "reference", to: "product" },
  { name: "industry", type: "select", options: ["Hospitality", 'Re"tail'] },
  { name: "results", type: "list", of: { type: "text" }, maxItems: 3 },
  { name: "gallery", type: "list", of: { type: "media" } },
];

const approve = async (token: string) => {
  const o = await decideApproval(s.deps, { token }, "approve", { decidedBy: "Rita Reviewer" });
  if (!o.ok) throw new Error(o.message);
};
const get = async (path: string, headers: Record<string, string> = {}, method = "GET") => {
  const r = await fetch(`${s.url}/api/v1${path}`, { method, headers });
  const text = await r.text();
  return { status: r.status, headers: r.headers, text, body: text ? JSON.parse(text) : null };
};
const bearer = (key: string) => ({ Authorization: `Bearer ${key}` });
const docOf = (siteId: number, key: string, headers: Record<string, string> = {}) =>
  get(`/sites/${siteId}/openapi.json`, { ...bearer(key), ...headers });

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  w = await makeWorld(s);
  keyA = (await mintRestKey(s.deps, w.siteA)).key;
  keyA2 = (await mintRestKey(s.deps, w.siteA2)).key;
  typeId = (
    await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: 'Case "study" </script>', slug: "case-study" })
  ).id;
  await w.ok(w.owner, "post_type_fields_set", { siteId: w.siteA, id: typeId, fields: DEFS });
  // Post types of another site of the same company and of another company: never in site A's document.
  const other = (await w.ok(w.owner, "post_types_create", { siteId: w.siteA2, name: "Event" })).id;
  await w.ok(w.owner, "post_type_fields_set", {
    siteId: w.siteA2,
    id: other,
    fields: [{ name: "venue", type: "text" }],
  });
  await w.ok(w.stranger, "post_types_create", { siteId: w.siteB, name: "Rival" });

  const logo = (
    await w.ok(w.owner, "media_register", {
      siteId: w.siteA,
      url: "https://cdn.example/hotel.png",
      mimeType: "image/png",
      width: 400,
      height: 200,
    })
  ).id;
  const product = (
    await s.deps.db
      .insert(products)
      .values({ siteId: w.siteA, name: "Hotel Blend", slug: "hotel-blend", price: 1200, status: "active" })
      .returning({ id: products.id })
  )[0]!.id;
  const blog = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Related story" });
  await approve(blog.approval.token);
  blogSlug = blog.slug;
  const p = await w.ok(w.owner, "posts_create", {
    siteId: w.siteA,
    title: "Harbor Lights Hotel",
    postType: "case-study",
    fields: {
      client: "Harbor Lights",
      story: "## Pods out",
      rooms: 64,
      featured: true,
      launched: "2026-03-01",
      logo,
      related: blog.id,
      product,
      industry: 'Re"tail',
      results: ["64 rooms"],
      gallery: [logo],
    },
  });
  await approve(p.approval.token);
  caseSlug = p.slug;
});
afterAll(async () => {
  await s?.stop();
});

const schemasOf = (doc: any) => doc.components.schemas;

describe("the site's document", () => {
  test("the global document plus one PostFields_/PostDetail_ per post type of this site only", async () => {
    const global = (await get("/openapi.json")).body;
    const r = await docOf(w.siteA, keyA);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toBe("application/json; charset=UTF-8");
    const doc = r.body;
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers).toEqual(global.servers);
    const added = Object.keys(schemasOf(doc))
      .filter((n) => !(n in schemasOf(global)))
      .sort();
    expect(added).toEqual(["PostDetail_blog", "PostDetail_case-study", "PostFields_blog", "PostFields_case-study"]);
    for (const [name, schema] of Object.entries(schemasOf(global)))
      expect([name, schemasOf(doc)[name]]).toEqual([name, schema]);
    // Only getPostBySlug differs, and only in what data is.
    for (const path of Object.keys(global.paths))
      if (path !== "/sites/{siteId}/posts/{slug}") expect(doc.paths[path]).toEqual(global.paths[path]);
    const data =
      doc.paths["/sites/{siteId}/posts/{slug}"].get.responses["200"].content["application/json"].schema.properties.data;
    expect(data).toEqual({
      oneOf: [{ $ref: "#/components/schemas/PostDetail_blog" }, { $ref: "#/components/schemas/PostDetail_case-study" }],
      discriminator: {
        propertyName: "postType",
        mapping: {
          blog: "#/components/schemas/PostDetail_blog",
          "case-study": "#/components/schemas/PostDetail_case-study",
        },
      },
    });
    // Site A2's document has its own type and not A's.
    const a2 = (await docOf(w.siteA2, keyA2)).body;
    expect(Object.keys(schemasOf(a2)).filter((n) => n.startsWith("PostFields_"))).toEqual(["PostFields_event"]);
    expect(r.text).not.toContain("venue");
    expect(r.text).not.toContain("rival");
  });

  test("valid: every $ref resolves, every schema compiles (strict 2020-12), the discriminator compiles", async () => {
    const doc = (await docOf(w.siteA, keyA)).body;
    const refs: string[] = [];
    const walk = (n: any) => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === "object")
        for (const [k, v] of Object.entries(n)) k === "$ref" ? refs.push(v as string) : walk(v);
    };
    walk(doc);
    for (const r of refs) {
      const target = r
        .slice(2)
        .split("/")
        .reduce((o: any, k: string) => o?.[k], doc);
      expect([r, target !== undefined]).toEqual([r, true]);
    }
    const ajv = new Ajv2020({ strict: true, strictTypes: false, discriminator: true });
    addFormats(ajv);
    const defs = JSON.parse(JSON.stringify(schemasOf(doc)).replaceAll('"#/components/schemas/', '"doc#/$defs/'));
    ajv.addSchema({ $id: "doc", $defs: defs });
    for (const name of Object.keys(schemasOf(doc))) expect(typeof ajv.getSchema(`doc#/$defs/${name}`)).toBe("function");
    const data =
      doc.paths["/sites/{siteId}/posts/{slug}"].get.responses["200"].content["application/json"].schema.properties.data;
    // Ajv refuses a discriminator whose branches do not each fix postType (it reads no mapping: the
    // mapping, checked above, names the same schemas).
    const { mapping, ...discriminator } = data.discriminator;
    expect(Object.keys(mapping)).toHaveLength(data.oneOf.length);
    const v = ajv.compile(
      JSON.parse(JSON.stringify({ ...data, discriminator }).replaceAll('"#/components/schemas/', '"doc#/$defs/')),
    );
    expect(v({ postType: "no-such-type" })).toBe(false);
  });

  test("each field type mapped to what PostDetail.fields serves", async () => {
    const sc = schemasOf((await docOf(w.siteA, keyA)).body);
    const f = sc["PostFields_case-study"];
    expect(f.type).toBe("object");
    expect(f.additionalProperties).toBe(false);
    // resolveFields serves every defined field.
    expect(f.required).toEqual(DEFS.map((d) => d.name));
    const p = f.properties;
    expect(p.client).toMatchObject({
      type: ["string", "null"],
      maxLength: 2000,
      title: HOSTILE_LABEL,
      description: HOSTILE_HELP,
    });
    expect(p.story).toMatchObject({ type: ["string", "null"], contentMediaType: "text/markdown" });
    expect(p.rooms).toMatchObject({ type: ["number", "null"] });
    expect(p.featured).toEqual({ type: ["boolean", "null"] });
    expect(p.launched).toEqual({ type: ["string", "null"], format: "date" });
    const media = p.logo.anyOf[0];
    expect(p.logo.anyOf[1]).toEqual({ type: "null" });
    expect(Object.keys(media.properties).sort()).toEqual(
      ["alt", "caption", "height", "id", "mimeType", "thumbnailUrl", "url", "width"].sort(),
    );
    expect(p.related.anyOf[0].properties.type).toEqual({ const: "post" });
    expect(Object.keys(p.related.anyOf[0].properties).sort()).toEqual(["id", "postType", "slug", "title", "type"]);
    expect(p.product.anyOf[0].properties.type).toEqual({ const: "product" });
    expect(Object.keys(p.product.anyOf[0].properties).sort()).toEqual(["id", "name", "slug", "type"]);
    expect(p.industry).toEqual({ type: ["string", "null"], enum: ["Hospitality", 'Re"tail', null] });
    expect(p.results).toEqual({ type: "array", items: { type: "string", maxLength: 2000 }, maxItems: 3 });
    expect(p.gallery).toEqual({ type: "array", items: media, maxItems: 100 });
    // A type without fields: PostDetail_blog allows no fields member.
    expect(sc.PostFields_blog.properties).toEqual({});
    expect(sc.PostDetail_blog.properties.fields).toBe(false);
    expect(sc["PostDetail_case-study"].required).toContain("fields");
    expect(sc["PostDetail_case-study"].properties.postType).toEqual({ const: "case-study" });
  });

  test("real PostDetail bodies validate against it; a wrong value does not", async () => {
    const checker = new OpenApiChecker((await docOf(w.siteA, keyA)).body);
    for (const slug of [caseSlug, blogSlug]) {
      const path = `/api/v1/sites/${w.siteA}/posts/${slug}`;
      const r = await get(path.slice(7), bearer(keyA));
      expect(r.status).toBe(200);
      checker.check("GET", path, r);
    }
    const r = await get(`/sites/${w.siteA}/posts/${caseSlug}`, bearer(keyA));
    expect(r.body.data.fields.logo.url).toBe("https://cdn.example/hotel.png");
    const bad = structuredClone(r.body);
    bad.data.fields.rooms = "64";
    expect(() => checker.check("GET", `/api/v1/sites/${w.siteA}/posts/${caseSlug}`, { ...r, body: bad })).toThrow(
      /does not match/,
    );
    const blogWithFields = (await get(`/sites/${w.siteA}/posts/${blogSlug}`, bearer(keyA))).body;
    blogWithFields.data.fields = {};
    expect(() =>
      checker.check("GET", `/api/v1/sites/${w.siteA}/posts/${blogSlug}`, { ...r, body: blogWithFields }),
    ).toThrow(/does not match/);
  });
});

describe("refused exactly like other site endpoints", () => {
  test("no key, another site's key, an expired key, a bad id, an unknown or inactive site", async () => {
    const expiresAt = new Date(s.clock.ms() + 60_000);
    const expiring = (await mintRestKey(s.deps, w.siteA, { expiresAt })).key;
    expect((await docOf(w.siteA, expiring)).status).toBe(200);
    s.clock.set(expiresAt);
    const inactive = (
      await s.deps.db
        .insert(sites)
        .values({ companyId: w.A.id, name: "Off", active: false })
        .returning({ id: sites.id })
    )[0]!.id;
    const offKey = (await mintRestKey(s.deps, inactive)).key;
    const cases: [string, Record<string, string>, number, string][] = [
      [`${w.siteA}`, {}, 401, "API key required"],
      [`${w.siteA}`, bearer(keyA2), 401, "Invalid API key"],
      [`${w.siteA}`, { "x-api-key": "svc_live_nope" }, 401, "Invalid API key"],
      [`${w.siteA}`, bearer(expiring), 401, "Invalid API key"],
      ["abc", bearer(keyA), 400, "Invalid site ID"],
      ["0", bearer(keyA), 400, "Invalid site ID"],
      [`${inactive}`, bearer(offKey), 404, "Not found"],
    ];
    for (const [site, headers, status, message] of cases) {
      const doc = await get(`/sites/${site}/openapi.json`, headers);
      const posts = await get(`/sites/${site}/posts/${caseSlug}`, headers);
      expect([site, doc.status, doc.body]).toEqual([site, status, { success: false, message }]);
      expect(doc.body).toEqual(posts.body);
      expect(doc.headers.get("www-authenticate")).toBe(posts.headers.get("www-authenticate"));
      expect(doc.headers.get("cache-control")).toBe("no-store");
    }
  });

  test("methods other than GET/HEAD are 405; a trailing slash is 404; logs and metrics name its template", async () => {
    expect((await get(`/sites/${w.siteA}/openapi.json`, bearer(keyA), "POST")).status).toBe(405);
    expect((await get(`/sites/${w.siteA}/openapi.json/`, bearer(keyA))).status).toBe(404);
    // The template of a request refused before routing (a 405, a 429) is still the document's.
    expect(restTemplate(`http://h/api/v1/sites/${w.siteA}/openapi.json`)).toBe("/api/v1/sites/{siteId}/openapi.json");
    expect(restTemplate("http://h/api/v1/sites/1/openapi.json/x")).toBe("unmatched");
  });
});

describe("caching", () => {
  test("ETag and 304 like other keyed reads; post_type_fields_set changes it; the global document does not move", async () => {
    const globalBefore = await get("/openapi.json");
    const first = await docOf(w.siteA, keyA);
    const etag = first.headers.get("etag")!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(first.headers.get("cache-control")).toBe("private, no-cache");
    const again = await docOf(w.siteA, keyA, { "If-None-Match": etag });
    expect([again.status, again.text, again.headers.get("etag")]).toEqual([304, "", etag]);
    // A second read (from the response cache) is the same bytes; HEAD has the same ETag and no body.
    expect((await docOf(w.siteA, keyA)).text).toBe(first.text);
    const head = await get(`/sites/${w.siteA}/openapi.json`, bearer(keyA), "HEAD");
    expect([head.status, head.text, head.headers.get("etag")]).toEqual([200, "", etag]);
    // Site A2's document has its own ETag.
    expect((await docOf(w.siteA2, keyA2)).headers.get("etag")).not.toBe(etag);

    await w.ok(w.owner, "post_type_fields_set", {
      siteId: w.siteA,
      id: typeId,
      fields: [...DEFS, { name: "quote", type: "text" }],
    });
    const after = await docOf(w.siteA, keyA, { "If-None-Match": etag });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(etag);
    expect(schemasOf(after.body)["PostFields_case-study"].properties.quote).toEqual({
      type: ["string", "null"],
      maxLength: 2000,
    });
    // A new post type (which bumps nothing else) shows at once too.
    await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Recipe" });
    const withRecipe = await docOf(w.siteA, keyA, { "If-None-Match": after.headers.get("etag")! });
    expect(withRecipe.status).toBe(200);
    expect(schemasOf(withRecipe.body).PostFields_recipe).toBeDefined();

    const globalAfter = await get("/openapi.json");
    expect(globalAfter.text).toBe(globalBefore.text);
    expect(globalAfter.headers.get("etag")).toBe(globalBefore.headers.get("etag"));
    await w.ok(w.owner, "post_type_fields_set", { siteId: w.siteA, id: typeId, fields: DEFS });
  });
});

describe("hostile names and labels", () => {
  test("labels and help stay data inside the JSON; names are refused at definition", async () => {
    const r = await docOf(w.siteA, keyA);
    // Parsed already (get() JSON.parse'd it); the texts come back exactly, in string position.
    const p = schemasOf(r.body)["PostFields_case-study"].properties;
    expect(p.client.title).toBe(HOSTILE_LABEL);
    expect(p.client.description).toBe(HOSTILE_HELP);
    expect(r.body.paths.x).toBeUndefined();
    // Quotes and backslashes escaped: the label's JSON-looking text is no JSON of the document.
    expect(r.text).not.toContain('"$ref":"#/x"');
    expect(r.text).toContain('{\\"$ref\\":\\"#/x\\"}');
    expect(schemasOf(r.body)["PostDetail_case-study"].description).toBe(
      'A post of type case-study (Case "study" </script>), with its custom fields.',
    );
    for (const name of ["Bad name", 'a"b', "__proto__", "a/b", "x".repeat(41), "é"]) {
      const t = await w.err(w.owner, "post_type_fields_set", {
        siteId: w.siteA,
        id: typeId,
        fields: [{ name, type: "text" }],
      });
      expect(t).toContain("must start with a lower-case letter");
    }
  });
});
