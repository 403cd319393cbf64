/**
 * Store blocks that name products: a slug that names no product of the site
 * is a warning in the write result (posts and block templates, over MCP),
 * never an error; the content is saved as given. REST's block catalog shows
 * featured-products' new input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { productReferenceWarnings } from "../../src/domains/blocks/references";
import { startTestServer, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  // Products of site A (one a draft: it still counts, the agent meant it); one on A's other site only.
  await w.ok(w.owner, "products_create", { siteId: w.siteA, name: "House Espresso", price: 1600, status: "active" });
  await w.ok(w.owner, "products_create", { siteId: w.siteA, name: "Gift Card", price: 2500 });
  await w.ok(w.owner, "products_create", { siteId: w.siteA2, name: "Blog Mug", price: 900 });
});
afterAll(async () => {
  await s?.stop();
});

const BLOCKS = [
  { type: "product-card", props: { productSlug: "house-espresso" } },
  {
    type: "featured-products",
    props: { heading: "Gift ideas", productSlugs: ["gift-card", "house-espreso", "blog-mug"] },
  },
  { type: "section", props: {}, children: [{ type: "add-to-cart", props: { productSlug: "tote-bag" } }] },
];
const EXPECTED = [
  'blocks[1].props.productSlugs[1]: no product "house-espreso" on this site',
  'blocks[1].props.productSlugs[2]: no product "blog-mug" on this site',
  'blocks[2].children[0].props.productSlug: no product "tote-bag" on this site',
];

describe("product slugs that name nothing are warnings", () => {
  test("posts_create and posts_update list them by path; the content is saved as given", async () => {
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Gift guide", blocks: BLOCKS });
    expect(p).toMatchObject({ status: "pending", warnings: EXPECTED });
    const got = await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id, include: ["blocks"] });
    expect(got.blocks[1].props.productSlugs).toEqual(["gift-card", "house-espreso", "blog-mug"]);

    const fixed = await w.ok(w.owner, "posts_update", {
      siteId: w.siteA,
      id: p.id,
      blocks: [BLOCKS[0], { type: "featured-products", props: { productSlugs: ["gift-card"] } }],
    });
    expect(fixed.warnings).toBeUndefined();
    // An update that does not touch the blocks says nothing about them.
    const retitled = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: p.id, title: "Gift guide 2025" });
    expect(retitled.warnings).toBeUndefined();
    const again = await w.ok(w.owner, "posts_update", {
      siteId: w.siteA,
      id: p.id,
      blocks: [{ type: "product-card", props: { productSlug: "nope" } }],
    });
    expect(again.warnings).toEqual(['blocks[0].props.productSlug: no product "nope" on this site']);
    // On A's other site the mug exists and the espresso does not.
    const other = await w.ok(w.owner, "posts_create", { siteId: w.siteA2, title: "Mugs", blocks: [BLOCKS[1]] });
    expect(other.warnings).toEqual([
      'blocks[0].props.productSlugs[0]: no product "gift-card" on this site',
      'blocks[0].props.productSlugs[1]: no product "house-espreso" on this site',
    ]);
  });

  test("block_templates_create and block_templates_update warn the same way", async () => {
    const t = await w.ok(w.owner, "block_templates_create", { siteId: w.siteA, name: "Gift row", blocks: BLOCKS });
    expect(t.warnings).toEqual(EXPECTED);
    const u = await w.ok(w.owner, "block_templates_update", { siteId: w.siteA, id: t.id, blocks: [BLOCKS[0]] });
    expect(u.warnings).toBeUndefined();
    expect(
      await w.ok(w.owner, "block_templates_update", { siteId: w.siteA, id: t.id, blocks: [BLOCKS[2]] }),
    ).toMatchObject({
      warnings: ['blocks[0].children[0].props.productSlug: no product "tote-bag" on this site'],
    });
  });

  test("the shape is still validated as before: a bad slug in the list is an error, not a warning", async () => {
    const text = await w.err(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Bad",
      blocks: [{ type: "featured-products", props: { productSlugs: ["ok", "Not A Slug"] } }],
    });
    expect(text).toContain("blocks[0].props.productSlugs[1]: must be a slug");
    const empty = await w.err(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Bad",
      blocks: [{ type: "featured-products", props: { productSlugs: [] } }],
    });
    expect(empty).toContain("blocks[0].props.productSlugs: must have 1 to 24 items (got 0)");
  });

  test("many missing slugs are capped, with a count of the rest", async () => {
    const blocks = Array.from({ length: 30 }, (_, i) => ({
      type: "product-card",
      props: { productSlug: `missing-${i}` },
    }));
    const lines = await productReferenceWarnings(s.deps.db, w.siteA, { blocks });
    expect(lines).toHaveLength(21);
    expect(lines[0]).toBe('blocks[0].props.productSlug: no product "missing-0" on this site');
    expect(lines[20]).toBe("(and 10 more product slugs that name no product on this site)");
    expect(await productReferenceWarnings(s.deps.db, w.siteA, { blocks: [] })).toEqual([]);
  });
});

describe("REST", () => {
  test("listBlocks shows productSlugs among featured-products' inputs", async () => {
    const { key } = await mintRestKey(s.deps, w.siteA);
    const res = await fetch(`${s.url}/api/v1/sites/${w.siteA}/blocks`, { headers: { Authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as any;
    const list = Array.isArray(body) ? body : body.data;
    expect(list.find((b: any) => b.type === "featured-products").inputs).toEqual([
      "heading",
      "productSlugs",
      "limit",
      "columns",
    ]);
  });
});
