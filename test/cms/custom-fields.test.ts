/**
 * Custom fields per post type over the real wire: definitions set with
 * post_type_fields_set (bad ones refused by path), values checked on every
 * post write with errors naming the field path (wrong types, huge numbers,
 * impossible dates, another company's media, posts and products), values
 * kept through revisions, versions and restores, served resolved as
 * PostDetail.fields over REST (absent for types without fields, ETag moving
 * with the values), described in cms://post-types/fields and in the OpenAPI
 * document.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { products } from "../../src/domains/store/tables";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "./world";

let s: TestServer;
let w: World;
let restKey: string;
let typeId: number;
let logo: number;
let strangerMedia: number;
let otherSiteMedia: number;
let product: number;
let strangerProduct: number;
let related: { id: number; slug: string };
let strangerPost: number;

const DEFS = [
  { name: "client", label: "Client", type: "text", required: true },
  { name: "story", type: "rich_text" },
  { name: "rooms", type: "number" },
  { name: "featured", type: "boolean" },
  { name: "launched", type: "date" },
  { name: "logo", type: "media" },
  { name: "related", type: "reference", to: "post" },
  { name: "product", type: "reference", to: "product" },
  { name: "industry", type: "select", options: ["Hospitality", "Retail"] },
  { name: "results", type: "list", of: { type: "text" }, maxItems: 3 },
];

const approve = async (token: string) => {
  const o = await decideApproval(s.deps, { token }, "approve", { decidedBy: "Rita Reviewer" });
  if (!o.ok) throw new Error(o.message);
};
const rest = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, {
    headers: { Authorization: `Bearer ${restKey}`, ...headers },
  });
  return { status: r.status, etag: r.headers.get("etag"), body: r.status === 304 ? null : ((await r.json()) as any) };
};
const product$ = async (siteId: number, name: string, status: "active" | "draft" = "active") =>
  (
    await s.deps.db
      .insert(products)
      .values({ siteId, name, slug: name.toLowerCase().replace(/ /g, "-"), price: 1200, status })
      .returning({ id: products.id })
  )[0]!.id;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
  typeId = (await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Case study" })).id;
  const reg = async (c: typeof w.owner, siteId: number, name: string) =>
    (
      await w.ok(c, "media_register", {
        siteId,
        url: `https://cdn.example/${name}.png`,
        mimeType: "image/png",
        width: 400,
        height: 200,
        alt: `${name} logo`,
      })
    ).id as number;
  logo = await reg(w.owner, w.siteA, "hotel");
  otherSiteMedia = await reg(w.owner, w.siteA2, "blog-site");
  strangerMedia = await reg(w.stranger, w.siteB, "rival");
  product = await product$(w.siteA, "Hotel Blend");
  strangerProduct = await product$(w.siteB, "Rival Blend");
  const r = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Related story" });
  await approve(r.approval.token);
  related = { id: r.id, slug: r.slug };
  strangerPost = (await w.ok(w.stranger, "posts_create", { siteId: w.siteB, title: "Rival story" })).id;
});
afterAll(async () => {
  await s?.stop();
});

describe("definitions", () => {
  test("set whole, listed with the type; bad definitions refused by path, nothing written", async () => {
    const before = w.changes();
    for (const [defs, words] of [
      [[{ name: "industry", type: "select" }], "fields[0].options: a select lists its options"],
      [
        [
          { name: "a", type: "text" },
          { name: "a", type: "number" },
        ],
        'fields[1].name: "a" is defined twice',
      ],
      [[{ name: "x", type: "reference" }], 'fields[0].to: a reference says what it points at: "post" or "product"'],
      [[{ name: "x", type: "list" }], "fields[0].of: a list says what it holds"],
      [[{ name: "x", type: "list", of: { type: "select" } }], "fields[0].of.options: a select lists its options"],
      [[{ name: "x", type: "text", options: ["a"] }], "fields[0].options: only a select has options"],
      [[{ name: "Bad name", type: "text" }], "must start with a lower-case letter"],
      [[{ name: "x", type: "list", of: { type: "list" } }], "fields"],
      [[{ name: "x", type: "colour" }], "fields"],
    ] as const) {
      const t = await w.err(w.owner, "post_type_fields_set", { siteId: w.siteA, id: typeId, fields: defs });
      expect(t).toContain(words);
    }
    expect(w.changes()).toBe(before);
    const set = await w.ok(w.owner, "post_type_fields_set", { siteId: w.siteA, id: typeId, fields: DEFS });
    expect(set).toMatchObject({ id: typeId, slug: "case-study", fields: DEFS });
    const listed = (await w.ok(w.owner, "post_types_list", { siteId: w.siteA })).items;
    expect(listed.find((t: any) => t.id === typeId).fields).toEqual(DEFS);
    // Types without fields list as before: no fields key.
    expect(listed.every((t: any) => t.id === typeId || !("fields" in t))).toBe(true);
    // Another company's type id: not found.
    expect(await w.err(w.stranger, "post_type_fields_set", { siteId: w.siteB, id: typeId, fields: [] })).toContain(
      "not found",
    );
  });
});

describe("values are checked on every write, errors name the field", () => {
  const create = (fields: unknown) =>
    w.call(w.owner, "posts_create", { siteId: w.siteA, title: "Checked", postType: "case-study", fields });

  test("wrong types, huge numbers, impossible dates, unknown names, missing required: refused, nothing written", async () => {
    const before = w.changes();
    const cases: [unknown, string][] = [
      [{}, 'fields.client is required by post type "case-study"'],
      [{ client: "" + "x".repeat(2001) }, "fields.client is 2001 characters; at most 2000"],
      [{ client: "Line\nbreak" }, "fields.client must be one line"],
      [{ client: 42 }, "fields.client must be text, not a number"],
      [{ client: "H", rooms: "64" }, "fields.rooms must be a number, not a string"],
      [{ client: "H", rooms: 1e300 }, "fields.rooms is too large"],
      [{ client: "H", featured: "yes" }, "fields.featured must be true or false"],
      [{ client: "H", launched: "2026-02-30" }, "fields.launched must be a calendar date written YYYY-MM-DD"],
      [{ client: "H", launched: "30/11/2026" }, "fields.launched must be a calendar date"],
      [{ client: "H", industry: "Mining" }, 'fields.industry must be one of "Hospitality", "Retail"'],
      [{ client: "H", results: ["ok", 7] }, "fields.results[1] must be text, not a number"],
      [{ client: "H", results: "ok" }, "fields.results must be a list, not a string"],
      [{ client: "H", results: ["a", "b", "c", "d"] }, "fields.results has 4 items; at most 3"],
      [{ client: "H", logo: "hotel.png" }, "fields.logo must be the id of a media item"],
      [{ client: "H", colour: "red" }, 'fields.colour is not a field of post type "case-study"'],
      [
        { client: "H", logo: strangerMedia },
        `fields.logo: media item ${strangerMedia} not found in this company's media`,
      ],
      [{ client: "H", related: strangerPost }, `fields.related: post ${strangerPost} not found on this site`],
      [{ client: "H", product: strangerProduct }, `fields.product: product ${strangerProduct} not found on this site`],
      [[1, 2], "fields must be an object, not an array"],
    ];
    for (const [fields, words] of cases) {
      const r = await create(fields);
      expect({ fields, isError: r.isError }).toEqual({ fields, isError: true });
      expect(r.text).toContain(words);
    }
    expect(w.changes()).toBe(before);
    // A type without fields takes none.
    const blog = await w.call(w.owner, "posts_create", { siteId: w.siteA, title: "Blog", fields: { client: "H" } });
    expect(blog.text).toContain('fields.client is not a field: post type "blog" has no custom fields');
  });

  test("a media item of another site of the same company is accepted", async () => {
    const r = await create({ client: "Same company", logo: otherSiteMedia });
    expect(r.isError).toBe(false);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.data.id })).fields).toEqual({
      client: "Same company",
      logo: otherSiteMedia,
    });
  });
});

describe("served over REST, kept through revisions and versions", () => {
  test("PostDetail.fields resolved; types without fields unchanged; ETag moves with the values", async () => {
    const p = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Harbor Lights Hotel",
      postType: "case-study",
      fields: {
        client: "Harbor Lights Hotel",
        story: "## Pods out\nFilter bags in.",
        rooms: 64,
        featured: true,
        launched: "2026-03-01",
        logo,
        related: related.id,
        product,
        industry: "Hospitality",
        results: ["64 rooms", "Fewer complaints"],
      },
    });
    await approve(p.approval.token);
    const got = await rest(`/posts/${p.slug}`);
    expect(got.status).toBe(200);
    expect(got.body.data.fields).toEqual({
      client: "Harbor Lights Hotel",
      story: "## Pods out\nFilter bags in.",
      rooms: 64,
      featured: true,
      launched: "2026-03-01",
      logo: {
        id: logo,
        url: "https://cdn.example/hotel.png",
        thumbnailUrl: "https://cdn.example/hotel.png",
        mimeType: "image/png",
        alt: "hotel logo",
        caption: null,
        width: 400,
        height: 200,
      },
      related: { type: "post", id: related.id, slug: related.slug, title: "Related story", postType: "blog" },
      product: { type: "product", id: product, slug: "hotel-blend", name: "Hotel Blend" },
      industry: "Hospitality",
      results: ["64 rooms", "Fewer complaints"],
    });
    // A blog post's body has no fields key at all.
    const blog = await rest(`/posts/${related.slug}`);
    expect("fields" in blog.body.data).toBe(false);

    // An edit of a field waits for approval: REST and its ETag stay until then.
    const u = await w.ok(w.owner, "posts_update", {
      siteId: w.siteA,
      id: p.id,
      fields: { results: ["64 rooms", "Fewer complaints", "<script>alert(1)</script>"], rooms: null },
    });
    expect(u.pendingRevision.fields).toEqual(["fields"]);
    expect((await rest(`/posts/${p.slug}`, { "If-None-Match": got.etag! })).status).toBe(304);
    const page = await (await fetch(w.local(u.approval.url))).text();
    expect(page).toContain("Custom fields");
    expect(page).not.toContain("<script>alert(1)</script>");
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    await approve(u.approval.token);
    const after = await rest(`/posts/${p.slug}`, { "If-None-Match": got.etag! });
    expect(after.status).toBe(200);
    expect(after.etag).not.toBe(got.etag);
    expect(after.body.data.fields.rooms).toBeNull();
    expect(after.body.data.fields.results).toEqual(["64 rooms", "Fewer complaints", "<script>alert(1)</script>"]);
    expect(after.body.data.fields.client).toBe("Harbor Lights Hotel");

    // Versions keep them; the diff names the field; a restore brings them back through approval.
    const d = await w.ok(w.owner, "post_versions_diff", { siteId: w.siteA, postId: p.id, from: 1, to: 2 });
    expect(d.fields).toEqual([
      {
        field: "fields.results",
        before: ["64 rooms", "Fewer complaints"],
        after: ["64 rooms", "Fewer complaints", "<script>alert(1)</script>"],
      },
      { field: "fields.rooms", before: 64, after: null },
    ]);
    const r = await w.ok(w.owner, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 1 });
    expect(r.fields).toEqual(["fields"]);
    await approve(r.approval.token);
    const restored = (await rest(`/posts/${p.slug}`)).body.data.fields;
    expect(restored.rooms).toBe(64);
    expect(restored.results).toEqual(["64 rooms", "Fewer complaints"]);

    // What no longer resolves reads as null: the product taken off sale, the related post unpublished.
    await s.deps.db.update(products).set({ status: "draft" }).where(eq(products.id, product));
    const un = await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: related.id });
    await approve(un.approval.token);
    const stale = (await rest(`/posts/${p.slug}`)).body.data.fields;
    expect([stale.product, stale.related]).toEqual([null, null]);
  });

  test("a later field set on the type shows as null on REST at once; a removed one disappears", async () => {
    const p = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Type changes",
      postType: "case-study",
      fields: { client: "Quayside" },
    });
    await approve(p.approval.token);
    const before = await rest(`/posts/${p.slug}`);
    expect(Object.keys(before.body.data.fields)).toEqual(DEFS.map((d) => d.name));
    await w.ok(w.owner, "post_type_fields_set", {
      siteId: w.siteA,
      id: typeId,
      fields: [...DEFS.filter((d) => d.name !== "story"), { name: "quote", type: "text" }],
    });
    const after = await rest(`/posts/${p.slug}`, { "If-None-Match": before.etag! });
    expect(after.status).toBe(200);
    expect(after.body.data.fields.quote).toBeNull();
    expect("story" in after.body.data.fields).toBe(false);
    await w.ok(w.owner, "post_type_fields_set", { siteId: w.siteA, id: typeId, fields: DEFS });
  });
});

describe("described for agents and renderers", () => {
  test("cms://post-types/fields lists the type's fields with a JSON Schema; another company's are not in it", async () => {
    const doc = await w.owner.readResource({ uri: "cms://post-types/fields" });
    const text = (doc.contents[0] as { text: string }).text;
    expect(text).toContain(`## case-study (post type ${typeId}, site ${w.siteA}`);
    expect(text).toContain("| results | list of text (at most 3) | no |");
    expect(text).toContain('| industry | select: "Hospitality", "Retail" | no |');
    const schema = JSON.parse(
      text.slice(text.indexOf("```json") + 7, text.indexOf("```", text.indexOf("```json") + 7)),
    );
    expect(schema.required).toEqual(["client"]);
    expect(schema.properties.industry).toEqual({ type: "string", enum: ["Hospitality", "Retail"] });
    expect(schema.additionalProperties).toBe(false);
    const theirs = await w.stranger.readResource({ uri: "cms://post-types/fields" });
    expect((theirs.contents[0] as { text: string }).text).not.toContain("case-study");
  });

  test("the OpenAPI document describes PostDetail.fields", async () => {
    const doc = (await (await fetch(`${s.url}/api/v1/openapi.json`)).json()) as any;
    expect(doc.components.schemas.PostDetail.properties.fields.type).toBe("object");
    expect(doc.components.schemas.PostDetail.required).not.toContain("fields");
  });
});
