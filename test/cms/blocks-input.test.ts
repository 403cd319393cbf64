/**
 * Block content as agents hold it: posts_create, posts_update and the
 * block_templates_* writes take `blocks` as the bare array or as exactly
 * the content object blocks://schema documents ({"blocks": [...],
 * "version": "1"}); another version is refused with a clear message. The
 * post title is the page's h1 (the schema says so); a level-1 heading in
 * a body is accepted and reported in `warnings`, the same array that lists
 * product slugs naming no product.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { blockSchemaMarkdown } from "../../src/domains/blocks/markdown";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "./world";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

const BLOCKS = [
  { type: "heading", props: { text: "Why it matters", level: 2 } },
  { type: "paragraph", props: { text: "Fresh coffee tastes better." } },
];

describe("the documented content object is accepted wherever blocks are", () => {
  test("posts_create and posts_update: the object and the bare array store the same content", async () => {
    const a = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "As object",
      blocks: { blocks: BLOCKS, version: "1" },
      include: ["blocks"],
    });
    const b = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "As array",
      blocks: BLOCKS,
      include: ["blocks"],
    });
    expect(a.blocks).toEqual(b.blocks);
    expect(a.warnings).toBeUndefined();
    // version may be left out, as on any write.
    const c = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "No version",
      blocks: { blocks: BLOCKS },
      include: ["blocks"],
    });
    expect(c.blocks).toEqual(b.blocks);
    const more = [...BLOCKS, { type: "quote", props: { text: "Taste first." } }];
    const u = await w.ok(w.owner, "posts_update", {
      siteId: w.siteA,
      id: a.id,
      blocks: { blocks: more, version: "1" },
      include: ["blocks"],
    });
    expect(u.blocks).toHaveLength(3);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: a.id, include: ["blocks"] })).blocks).toHaveLength(
      3,
    );
  });

  test("block templates too", async () => {
    const t = await w.ok(w.owner, "block_templates_create", {
      siteId: w.siteA,
      name: "Object form",
      blocks: { blocks: BLOCKS, version: "1" },
      include: ["blocks"],
    });
    expect(t.blocks).toHaveLength(2);
    const u = await w.ok(w.owner, "block_templates_update", {
      siteId: w.siteA,
      id: t.id,
      blocks: { blocks: BLOCKS.slice(0, 1), version: "1" },
      include: ["blocks"],
    });
    expect(u.blocks).toHaveLength(1);
  });

  test("another version, other keys and other types are refused, naming what to send; nothing is written", async () => {
    const before = w.changes();
    const v2 = await w.err(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Future",
      blocks: { blocks: BLOCKS, version: "2" },
    });
    expect(v2).toContain('blocks.version "2"');
    expect(v2).toContain('the current one is "1"');
    expect(
      await w.err(w.owner, "block_templates_create", {
        siteId: w.siteA,
        name: "Future",
        blocks: { blocks: BLOCKS, version: "0.9" },
      }),
    ).toContain('blocks.version "0.9"');
    expect(
      await w.err(w.owner, "posts_create", {
        siteId: w.siteA,
        title: "Extra",
        blocks: { blocks: BLOCKS, version: "1", theme: "dark" },
      }),
    ).toContain("theme");
    const str = await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "Text", blocks: "<p>hi</p>" });
    expect(str).toContain("blocks");
    // The blocks inside the object are validated like the array, with their paths.
    expect(
      await w.err(w.owner, "posts_create", {
        siteId: w.siteA,
        title: "Bad",
        blocks: { blocks: [{ type: "heading", props: { text: "x", level: 9 } }] },
      }),
    ).toContain("blocks[0].props.level");
    expect(w.changes()).toBe(before);
  });

  test("the published schema offers both forms", async () => {
    const listed = (await w.owner.listTools()).tools.find((t) => t.name === "posts_create")!;
    const blocks = (listed.inputSchema.properties as Record<string, any>).blocks;
    expect(blocks.anyOf.map((x: any) => x.type)).toEqual(["array", "object"]);
    expect(blocks.anyOf[1]).toMatchObject({
      properties: { blocks: { type: "array" }, version: { type: "string" } },
      required: ["blocks"],
    });
  });
});

describe("the title is the page's h1", () => {
  test("blocks://schema says so, and that either form of blocks is accepted", () => {
    const md = blockSchemaMarkdown();
    expect(md).toContain("A post's `title` is rendered as the page's `<h1>`");
    expect(md).toContain("or as the bare array of blocks");
    expect(md).not.toContain("Use one level-1 heading per page");
  });

  test("a level-1 heading in a post body is accepted with a warning (nested ones too); level 2 is not", async () => {
    const r = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Espresso guide",
      blocks: [
        { type: "heading", props: { text: "Espresso guide", level: 1 } },
        { type: "section", props: {}, children: [{ type: "heading", props: { text: "Also big", level: 1 } }] },
      ],
    });
    expect(r.status).toBe("pending");
    expect(r.warnings).toEqual([
      "blocks[0] is a level-1 heading: the post's title is already the page's h1, so this makes a second one. Use level 2 for sections, or drop it if it repeats the title.",
      "blocks[1].children[0] is a level-1 heading: the post's title is already the page's h1, so this makes a second one. Use level 2 for sections, or drop it if it repeats the title.",
    ]);
    const u = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, blocks: BLOCKS });
    expect(u.warnings).toBeUndefined();
    const t = await w.ok(w.owner, "block_templates_create", {
      siteId: w.siteA,
      name: "Big title",
      blocks: [{ type: "heading", props: { text: "Hi", level: 1 } }],
    });
    expect(t.warnings).toEqual([
      expect.stringContaining("the title of a post built from this template is already the page's h1"),
    ]);
  });

  test("heading and product-slug warnings share one array", async () => {
    const r = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Shop picks",
      blocks: [
        { type: "heading", props: { text: "Shop picks", level: 1 } },
        { type: "product-card", props: { productSlug: "no-such-product" } },
      ],
    });
    expect(r.warnings).toHaveLength(2);
    expect(r.warnings[0]).toStartWith("blocks[0] is a level-1 heading");
    expect(r.warnings[1]).toContain('no product "no-such-product"');
  });
});
