/** validateContent / assertValidContent: each kind of error, at its exact path. */
import { describe, expect, test } from "bun:test";
import { AppError } from "../../src/core/errors";
import { CONTENT_VERSION, MAX_BLOCKS, MAX_DEPTH, type Block } from "../../src/domains/blocks/catalog";
import { EXAMPLE_CONTENT } from "../../src/domains/blocks/markdown";
import { assertValidContent, MAX_ERRORS, validateContent, type ContentError } from "../../src/domains/blocks/validate";

function errorsOf(content: unknown): ContentError[] {
  const r = validateContent(content);
  if (r.ok) throw new Error("expected invalid content");
  return r.errors;
}
const blocks = (...b: unknown[]) => ({ blocks: b, version: "1" });
const para = (text: unknown = "Hello") => ({ type: "paragraph", props: { text } });

describe("validateContent: valid content", () => {
  test("the reference example passes and comes back equal", () => {
    const r = validateContent(EXAMPLE_CONTENT);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toEqual(EXAMPLE_CONTENT);
  });

  test("accepts the JSON-encoded form REST serves", () => {
    const r = validateContent(JSON.stringify(EXAMPLE_CONTENT));
    expect(r.ok && r.value).toEqual(EXAMPLE_CONTENT);
  });

  test("normalises: version filled, props defaulted, nulls dropped, slots always present, input not aliased", () => {
    const input = {
      blocks: [
        { type: "divider" },
        { type: "heading", props: { text: "Hi", level: null, align: "center" } },
        { id: "s1", type: "section", props: {} },
        { type: "paragraph", props: { text: "x" }, children: [] },
      ],
    };
    const r = validateContent(input);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value).toEqual({
      version: CONTENT_VERSION,
      blocks: [
        { type: "divider", props: {} },
        { type: "heading", props: { text: "Hi", align: "center" } },
        { id: "s1", type: "section", props: {}, children: [] },
        { type: "paragraph", props: { text: "x" } },
      ],
    });
    (r.value.blocks[1]!.props as any).text = "changed";
    expect(input.blocks[1]!.props!.text).toBe("Hi");
  });

  test("an empty post is valid", () => {
    expect(validateContent({ blocks: [] })).toEqual({ ok: true, value: { blocks: [], version: "1" } });
  });

  test("hostile strings are data, not errors", () => {
    const hostile = `<script>alert("x")</script>' OR 1=1; DROP TABLE posts; -- <img src=x onerror=alert(1)> ${"\u202e"}émoji 🎉`;
    const r = validateContent(
      blocks(
        para(hostile),
        { type: "heading", props: { text: hostile } },
        { type: "list", props: { items: [hostile] } },
      ),
    );
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value.blocks[0]!.props.text).toBe(hostile);
  });

  test("max lengths count characters, not UTF-16 units", () => {
    expect(validateContent(blocks({ type: "heading", props: { text: "🎉".repeat(300) } })).ok).toBe(true);
    expect(errorsOf(blocks({ type: "heading", props: { text: "🎉".repeat(301) } }))).toEqual([
      { path: "blocks[0].props.text", message: "must be at most 300 characters (got 301)" },
    ]);
  });

  test("nesting up to the depth cap is fine", () => {
    let b: Block = para() as Block;
    for (let i = 1; i < MAX_DEPTH; i++) b = { type: "section", props: {}, children: [b] };
    expect(validateContent(blocks(b)).ok).toBe(true);
  });
});

describe("validateContent: errors with exact paths", () => {
  test("content that is not an object, bad JSON, missing blocks, unknown fields, wrong version", () => {
    expect(errorsOf(null)[0]!.path).toBe("content");
    expect(errorsOf([])[0]!.message).toContain("must be an object");
    expect(errorsOf("{not json")).toEqual([{ path: "content", message: "is a string but not valid JSON" }]);
    expect(errorsOf({ version: "1" })).toEqual([
      { path: "blocks", message: "is required: an array of blocks (may be empty)" },
    ]);
    expect(errorsOf({ blocks: {} })[0]).toEqual({ path: "blocks", message: "must be an array of blocks, got object" });
    expect(errorsOf({ blocks: [], html: "<p>" })[0]!.path).toBe("html");
    expect(errorsOf({ blocks: [], version: "2" })[0]!.path).toBe("version");
    expect(errorsOf({ blocks: [], version: 1 })[0]!.message).toContain('must be "1"');
  });

  test("a block that is not an object, or has unknown top-level fields", () => {
    expect(errorsOf(blocks("paragraph"))[0]).toMatchObject({ path: "blocks[0]" });
    const e = errorsOf(blocks({ type: "paragraph", props: { text: "x" }, text: "y" }));
    expect(e).toEqual([{ path: "blocks[0].text", message: expect.stringContaining('inputs go inside "props"') }]);
  });

  test("missing and unknown block types, with a suggestion", () => {
    expect(errorsOf(blocks({ props: {} }))).toEqual([
      { path: "blocks[0].type", message: expect.stringContaining("is required") },
    ]);
    expect(errorsOf(blocks({ type: 3 }))[0]!.path).toBe("blocks[0].type");
    const e = errorsOf(blocks(para(), para(), para(), { type: "paragrph", props: {} }));
    expect(e).toHaveLength(1);
    expect(e[0]!.path).toBe("blocks[3].type");
    expect(e[0]!.message).toContain('unknown block type "paragrph"; did you mean "paragraph"?');
    expect(errorsOf(blocks({ type: "marquee" }))[0]!.message).not.toContain("did you mean");
  });

  test("unknown input, including prototype names", () => {
    for (const key of ["colour", "__proto__", "constructor", "toString"]) {
      const props = JSON.parse(`{"text":"x","${key}":"y"}`);
      const e = errorsOf(blocks({ type: "heading", props }));
      expect(e).toEqual([
        {
          path: `blocks[0].props.${key}`,
          message: expect.stringContaining(`unknown input "${key}" for block "heading"`),
        },
      ]);
    }
    expect(errorsOf(blocks({ type: "heading", props: { text: "x", levl: 2 } }))[0]!.message).toContain(
      'did you mean "level"?',
    );
  });

  test("props that is not an object", () => {
    expect(errorsOf(blocks({ type: "divider", props: [] }))).toEqual([
      { path: "blocks[0].props", message: "must be an object, got array" },
    ]);
  });

  test("wrong input types", () => {
    const cases: [unknown, string, string][] = [
      [
        { type: "heading", props: { text: "x", level: "2" } },
        "blocks[0].props.level",
        "must be an integer from 1 to 6, got string",
      ],
      [
        { type: "heading", props: { text: "x", level: 2.5 } },
        "blocks[0].props.level",
        "must be an integer from 1 to 6, got 2.5",
      ],
      [{ type: "heading", props: { text: 42 } }, "blocks[0].props.text", "must be a string, got number"],
      [{ type: "list", props: { items: "a, b" } }, "blocks[0].props.items", "must be an array of strings, got string"],
      [
        { type: "list", props: { items: ["a"], ordered: "yes" } },
        "blocks[0].props.ordered",
        "must be true or false, got string",
      ],
      [{ type: "faq", props: { items: [["q", "a"]] } }, "blocks[0].props.items[0]", "must be an object, got array"],
      [{ type: "image", props: { src: 7, alt: "" } }, "blocks[0].props.src", "must be a URL string, got number"],
    ];
    for (const [block, path, message] of cases) expect(errorsOf(blocks(block))).toEqual([{ path, message }]);
  });

  test("constraint violations", () => {
    const cases: [unknown, string, string][] = [
      [
        { type: "heading", props: { text: "x", level: 7 } },
        "blocks[0].props.level",
        "must be an integer from 1 to 6, got 7",
      ],
      [{ type: "heading", props: { text: "x", level: 1e300 } }, "blocks[0].props.level", "from 1 to 6"],
      [{ type: "heading", props: { text: "" } }, "blocks[0].props.text", "must not be empty"],
      [{ type: "heading", props: { text: "   " } }, "blocks[0].props.text", "must not be empty"],
      [{ type: "heading", props: { text: "x".repeat(301) } }, "blocks[0].props.text", "at most 300 characters"],
      [
        { type: "heading", props: { text: "x", align: "justify" } },
        "blocks[0].props.align",
        'must be one of "left", "center", "right"',
      ],
      [
        { type: "heading", props: { text: "x", anchor: "1st section" } },
        "blocks[0].props.anchor",
        "a letter followed by",
      ],
      [{ type: "paragraph", props: { text: "a\u0000b" } }, "blocks[0].props.text", "control characters"],
      [{ type: "section", props: { background: "red" } }, "blocks[0].props.background", "hex colour"],
      [{ type: "section", props: { background: "#12345g" } }, "blocks[0].props.background", "hex colour"],
      [
        { type: "product-card", props: { productSlug: "House Espresso" } },
        "blocks[0].props.productSlug",
        "must be a slug",
      ],
      [
        { type: "featured-products", props: { productSlugs: ["house-espresso", "Gift Card"] } },
        "blocks[0].props.productSlugs[1]",
        "must be a slug",
      ],
      [
        { type: "featured-products", props: { productSlugs: ["a", 7] } },
        "blocks[0].props.productSlugs[1]",
        "must be a slug",
      ],
      [
        { type: "featured-products", props: { productSlugs: "house-espresso" } },
        "blocks[0].props.productSlugs",
        "must be an array of slugs, got string",
      ],
      [
        { type: "featured-products", props: { productSlugs: Array(25).fill("a") } },
        "blocks[0].props.productSlugs",
        "must have 1 to 24 items (got 25)",
      ],
      [{ type: "list", props: { items: [] } }, "blocks[0].props.items", "must have 1 to 100 items (got 0)"],
      [{ type: "list", props: { items: ["ok", ""] } }, "blocks[0].props.items[1]", "must not be empty"],
      [
        { type: "tabs", props: { tabs: Array(13).fill({ label: "a", body: "b" }) } },
        "blocks[0].props.tabs",
        "must have 1 to 12 items (got 13)",
      ],
      [
        { type: "pricing-table", props: { tiers: [{ name: "A", price: -1 }] } },
        "blocks[0].props.tiers[0].price",
        "from 0 to 100000000, got -1",
      ],
      [
        { type: "pricing-table", props: { currency: "usd", tiers: [{ name: "A", price: 1 }] } },
        "blocks[0].props.currency",
        "three upper-case letters",
      ],
      [
        { type: "embed", props: { url: "http://example.com/v", title: "t" } },
        "blocks[0].props.url",
        "absolute https://",
      ],
      [{ type: "embed", props: { url: "/local", title: "t" } }, "blocks[0].props.url", "absolute https://"],
    ];
    for (const [block, path, message] of cases) {
      const e = errorsOf(blocks(block));
      expect(e).toHaveLength(1);
      expect(e[0]!.path).toBe(path);
      expect(e[0]!.message).toContain(message);
    }
  });

  test("unsafe and malformed URLs are refused; safe forms pass", () => {
    const bad = [
      "javascript:alert(1)",
      "JaVaScRiPt:alert(1)",
      "java\tscript:alert(1)",
      " javascript:alert(1)",
      "data:text/html,<script>alert(1)</script>",
      "vbscript:msgbox",
      "file:///etc/passwd",
      "//evil.example/x.png",
      "/\\evil.example",
      "https://",
      "http:/x",
      "/has space.png",
      "x".repeat(2049),
      "",
    ];
    for (const src of bad) {
      const e = errorsOf(blocks({ type: "image", props: { src, alt: "" } }));
      expect(e.map((x) => x.path)).toEqual(["blocks[0].props.src"]);
    }
    for (const src of [
      "https://cdn.example.com/a.jpg?x=1#y",
      "http://example.com",
      "/media/a.jpg",
      "a.jpg",
      "#top",
      "?p=2",
      "mailto:a@b.c",
      "tel:+15551234",
    ]) {
      expect(validateContent(blocks({ type: "image", props: { src, alt: "" } })).ok).toBe(true);
    }
  });

  test("missing required inputs, in props and inside list items", () => {
    expect(errorsOf(blocks({ type: "heading", props: {} }))).toEqual([
      { path: "blocks[0].props.text", message: "is required (The heading text.)" },
    ]);
    expect(errorsOf(blocks({ type: "heading", props: { text: null } }))).toEqual([
      { path: "blocks[0].props.text", message: "is required" },
    ]);
    expect(errorsOf(blocks({ type: "image" })).map((e) => e.path)).toEqual([
      "blocks[0].props.src",
      "blocks[0].props.alt",
    ]);
    expect(
      errorsOf(blocks({ type: "faq", props: { items: [{ question: "q", answer: "a" }, { question: "q2" }] } })),
    ).toEqual([{ path: "blocks[0].props.items[1].answer", message: "is required (The answer.)" }]);
    expect(
      errorsOf(blocks({ type: "faq", props: { items: [{ question: "q", answer: "a", extra: 1 }] } }))[0]!.path,
    ).toBe("blocks[0].props.items[0].extra");
  });

  test("children: only on layout blocks, typed slots, parent rules, slot sizes", () => {
    expect(errorsOf(blocks({ type: "paragraph", props: { text: "x" }, children: [para()] }))).toEqual([
      { path: "blocks[0].children", message: expect.stringContaining('"paragraph" blocks cannot hold children') },
    ]);
    expect(errorsOf(blocks({ type: "column", props: {} }))).toEqual([
      { path: "blocks[0].type", message: '"column" blocks may only appear directly inside "columns"' },
    ]);
    expect(errorsOf(blocks({ type: "columns", props: {}, children: [{ type: "column", props: {} }, para()] }))).toEqual(
      [{ path: "blocks[0].children[1].type", message: '"columns" may only contain "column" blocks, not "paragraph"' }],
    );
    expect(errorsOf(blocks({ type: "columns", props: {}, children: [] }))[0]).toMatchObject({
      path: "blocks[0].children",
      message: expect.stringContaining("1 to 6 blocks (got 0)"),
    });
    expect(errorsOf(blocks({ type: "section", props: {}, children: "x" }))[0]).toEqual({
      path: "blocks[0].children",
      message: "must be an array of blocks, got string",
    });
    const deep = blocks(para(), {
      type: "section",
      props: {},
      children: [
        para(),
        {
          type: "columns",
          props: {},
          children: [
            { type: "column", props: {} },
            { type: "column", props: {}, children: [{ type: "image", props: { src: "javascript:x", alt: "" } }] },
          ],
        },
      ],
    });
    expect(errorsOf(deep)).toEqual([
      {
        path: "blocks[1].children[1].children[1].children[0].props.src",
        message: expect.stringContaining('scheme "javascript:"'),
      },
    ]);
  });

  test("too-deep nesting", () => {
    let b: Block = para() as Block;
    for (let i = 0; i < MAX_DEPTH; i++) b = { type: "section", props: {}, children: [b] };
    const e = errorsOf(blocks(b));
    expect(e).toEqual([
      {
        path: "blocks[0]" + ".children[0]".repeat(MAX_DEPTH - 1) + ".children",
        message: `blocks are nested too deeply (at most ${MAX_DEPTH} levels)`,
      },
    ]);
  });

  test("hostile depth (thousands of levels) fails fast without a stack overflow", () => {
    let b: any = para();
    for (let i = 0; i < 20000; i++) b = { type: "section", props: {}, children: [b] };
    const e = errorsOf(blocks(b));
    expect(e).toHaveLength(1);
    expect(e[0]!.message).toContain("nested too deeply");
  });

  test("too many blocks, counting nested ones", () => {
    expect(validateContent({ blocks: Array.from({ length: MAX_BLOCKS }, () => ({ type: "divider" })) }).ok).toBe(true);
    expect(errorsOf({ blocks: Array.from({ length: MAX_BLOCKS + 1 }, () => ({ type: "divider" })) })).toEqual([
      { path: `blocks[${MAX_BLOCKS}]`, message: expect.stringContaining(`at most ${MAX_BLOCKS} blocks`) },
    ]);
    // 1000 sections + 1001 dividers: the 2001st block is the last section's child.
    const nested = {
      blocks: Array.from({ length: 1000 }, (_, i) => ({
        type: "section",
        props: {},
        children: i === 0 ? [{ type: "divider" }, { type: "divider" }] : [{ type: "divider" }],
      })),
    };
    expect(errorsOf(nested)).toEqual([
      { path: "blocks[999].children[0]", message: expect.stringContaining("at most 2000 blocks") },
    ]);
    // A million blocks is refused without visiting them all.
    const t = performance.now();
    expect(errorsOf({ blocks: new Array(1_000_000).fill({ type: "divider" }) })).toHaveLength(1);
    expect(performance.now() - t).toBeLessThan(500);
  });

  test("block ids: shape and uniqueness", () => {
    expect(errorsOf(blocks({ id: "a b", type: "divider" }))[0]!.path).toBe("blocks[0].id");
    expect(errorsOf(blocks({ id: 5, type: "divider" }))[0]!.path).toBe("blocks[0].id");
    expect(errorsOf(blocks({ id: "x".repeat(65), type: "divider" }))[0]!.path).toBe("blocks[0].id");
    expect(errorsOf(blocks({ id: "a", type: "section", children: [{ id: "a", type: "divider" }] }))).toEqual([
      { path: "blocks[0].children[0].id", message: 'duplicate block id "a"; ids must be unique within the content' },
    ]);
  });

  test("every problem is reported, up to a cap", () => {
    const e = errorsOf(blocks({ type: "heading", props: { level: 0, align: "up" } }, { type: "nope" }));
    expect(e.map((x) => x.path)).toEqual([
      "blocks[0].props.level",
      "blocks[0].props.align",
      "blocks[0].props.text",
      "blocks[1].type",
    ]);
    expect(errorsOf({ blocks: Array.from({ length: 500 }, () => ({ type: "nope" })) })).toHaveLength(MAX_ERRORS);
  });
});

describe("assertValidContent", () => {
  test("returns the normalised value", () => {
    expect(assertValidContent({ blocks: [{ type: "divider" }] })).toEqual({
      blocks: [{ type: "divider", props: {} }],
      version: "1",
    });
  });

  test("throws a validation AppError naming the first paths, with all errors in details", () => {
    const content = blocks(
      para(""),
      { type: "heading", props: { text: "x", level: 9 } },
      { type: "x1" },
      { type: "x2" },
    );
    let err: unknown;
    try {
      assertValidContent(content);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError;
    expect(e.code).toBe("validation");
    expect(e.message).toStartWith(
      "Invalid block content: blocks[0].props.text: must not be empty; blocks[1].props.level: must be an integer from 1 to 6, got 9; blocks[2].type:",
    );
    expect(e.message).toContain("(and 1 more)");
    expect(e.message).toContain("blocks://schema");
    expect((e.details!.errors as ContentError[]).map((x) => x.path)).toEqual([
      "blocks[0].props.text",
      "blocks[1].props.level",
      "blocks[2].type",
      "blocks[3].type",
    ]);
  });
});
