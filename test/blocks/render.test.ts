/**
 * renderBlocksHtml must be safe on content it has never seen validated: the
 * approval page renders drafts with it. Rendered HTML is parsed back with
 * Bun's HTMLRewriter (a real HTML tokenizer) to check what a browser would see.
 */
import { describe, expect, test } from "bun:test";
import { BLOCK_CATALOG, getBlockDefinition, type Block, type InputSpec } from "../../src/domains/blocks/catalog";
import { EXAMPLE_CONTENT } from "../../src/domains/blocks/markdown";
import { escapeHtml, RENDERED_TYPES, renderBlocksHtml } from "../../src/domains/blocks/render";
import { safeUrl } from "../../src/domains/blocks/urls";

interface El {
  tag: string;
  attrs: [string, string][];
}

/** HTMLRewriter hands attribute values over undecoded; a browser decodes them. */
const decode = (s: string) =>
  s.replace(/&(quot|#39|lt|gt|amp);/g, (_, e: string) => ({ quot: '"', "#39": "'", lt: "<", gt: ">", amp: "&" })[e]!);

async function parse(html: string): Promise<{ elements: El[]; text: string }> {
  const elements: El[] = [];
  let text = "";
  await new HTMLRewriter()
    .on("*", {
      element: (e) =>
        void elements.push({
          tag: e.tagName,
          attrs: [...e.attributes].map(([k, v]) => [k, decode(v)] as [string, string]),
        }),
    })
    .onDocument({ text: (t) => void (text += t.text) })
    .transform(new Response(html))
    .text();
  return { elements, text };
}

const URL_ATTRS = new Set(["href", "src", "poster", "action", "formaction", "data", "srcset"]);

/** What a browser would treat as script or navigation to script must not exist. */
function assertSafe(elements: El[]) {
  for (const el of elements) {
    expect(["script", "style", "object", "embed", "base", "meta", "link", "form", "svg", "math"]).not.toContain(el.tag);
    for (const [name, value] of el.attrs) {
      expect(name.startsWith("on")).toBe(false);
      expect(name).toMatch(/^[a-z-]+$/);
      if (URL_ATTRS.has(name)) expect(safeUrl(value)).toBe(value);
      if (name === "style") {
        expect(value.toLowerCase()).not.toContain("javascript");
        expect(value.toLowerCase()).not.toContain("expression(");
        expect(value).not.toMatch(/url\([^")]/); // every url() is a quoted string
      }
    }
  }
}

const HOSTILE = `"><script>alert(1)</script><img src=x onerror=alert(1)>'`;
const HOSTILE_URLS = [
  "javascript:alert(1)",
  "JAVASCRIPT:alert(1)",
  "java\tscript:alert(1)",
  "data:text/html;base64,PHNjcmlwdD4=",
  "//evil.example/x",
  `/ok.jpg" onerror="alert(1)`,
  `/a.jpg');background:url('https://evil.example/x`,
];

/** Props where every input holds an attack of its kind (as if never validated). */
function hostileProps(inputs: Record<string, InputSpec>, url: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(inputs)) {
    switch (spec.kind) {
      case "url":
        out[name] = url;
        break;
      case "color":
        out[name] = "red;background:url(javascript:alert(1))";
        break;
      case "enum":
        out[name] = `x" onmouseover="alert(1)`;
        break;
      case "integer":
        out[name] = `1" onload="alert(1)`;
        break;
      case "boolean":
        out[name] = `true" autofocus onfocus="alert(1)`;
        break;
      case "textList":
      case "slugList":
        out[name] = [HOSTILE, HOSTILE];
        break;
      case "list":
        out[name] = [hostileProps(spec.fields, url), hostileProps(spec.fields, url)];
        break;
      default:
        out[name] = HOSTILE;
    }
  }
  return out;
}

/** Sensible props: each example, so every renderer produces its full output. */
const exampleContent = { version: "1", blocks: BLOCK_CATALOG.map((d) => d.example) };

describe("renderBlocksHtml", () => {
  test("has a renderer for every catalog type, and only those", () => {
    expect([...RENDERED_TYPES].sort()).toEqual(BLOCK_CATALOG.map((d) => d.type).sort());
  });

  test("renders every type's example to markup tagged with its type", async () => {
    for (const d of BLOCK_CATALOG) {
      const html = renderBlocksHtml({ blocks: [d.example] });
      expect(html).toContain(`pb-${d.type}`);
      assertSafe((await parse(html)).elements);
    }
  });

  test("renders the reference example with its structure and text", async () => {
    const html = renderBlocksHtml(EXAMPLE_CONTENT);
    const { elements, text } = await parse(html);
    assertSafe(elements);
    expect(elements.find((e) => e.tag === "h1")).toBeDefined();
    expect(
      elements.filter((e) => e.attrs.some(([k, v]) => k === "class" && v.split(" ").includes("pb-column"))).length,
    ).toBe(2);
    expect(elements.find((e) => e.tag === "img")!.attrs).toContainEqual(["alt", "An espresso shot pouring"]);
    expect(elements.find((e) => e.tag === "ol")).toBeDefined();
    expect(text).toContain("Dialling in espresso at home");
    expect(text).toContain("Grind coarser or shorten the shot.");
    expect(
      elements.find((e) => e.tag === "a" && e.attrs.some(([k, v]) => k === "href" && v === "mailto:hello@example.com")),
    ).toBeDefined();
    // Same output for the JSON-encoded form.
    expect(renderBlocksHtml(JSON.stringify(EXAMPLE_CONTENT))).toBe(html);
  });

  test("script in text is shown as text, never as an element", async () => {
    const html = renderBlocksHtml({
      blocks: [{ type: "paragraph", props: { text: "<script>alert(1)</script>\nline two" } }],
    });
    expect(html).toBe(
      '<p class="pb pb-paragraph pb-align-left pb-size-md">&lt;script&gt;alert(1)&lt;/script&gt;<br>line two</p>',
    );
    const { elements, text } = await parse(html);
    expect(elements.map((e) => e.tag)).toEqual(["p", "br"]);
    expect(text).toContain("&lt;script&gt;"); // HTMLRewriter reports text undecoded
  });

  test("attribute injection through alt, title and ids stays inside the attribute", async () => {
    const html = renderBlocksHtml({
      blocks: [
        { id: `x" onclick="alert(1)`, type: "image", props: { src: "/a.jpg", alt: `" onerror="alert(1)" x="` } },
        {
          type: "embed",
          props: { url: "https://www.youtube.com/embed/x", title: `'><iframe src=javascript:alert(1)>` },
        },
      ],
    });
    const { elements } = await parse(html);
    assertSafe(elements);
    const img = elements.find((e) => e.tag === "img")!;
    expect(img.attrs.map(([k]) => k).sort()).toEqual(["alt", "decoding", "loading", "src"]);
    expect(elements.filter((e) => e.tag === "iframe")).toHaveLength(1);
  });

  test("every block type, filled with attacks in every input, renders nothing executable", async () => {
    for (const url of HOSTILE_URLS) {
      const blocks: Block[] = BLOCK_CATALOG.map((d) => ({
        id: HOSTILE,
        type: d.type,
        props: hostileProps(d.inputs, url),
        ...(d.children ? { children: [{ type: "paragraph", props: { text: HOSTILE } }] } : {}),
      }));
      const html = renderBlocksHtml({ blocks });
      expect(html.length).toBeGreaterThan(1000);
      expect(html).not.toContain("<script");
      expect(html).not.toContain("<img src=x");
      const { elements } = await parse(html);
      assertSafe(elements);
    }
  });

  test("javascript: and other unsafe URLs are dropped, safe ones kept", () => {
    const out = renderBlocksHtml({
      blocks: [
        { type: "button", props: { label: "Go", href: "javascript:alert(1)" } },
        { type: "button", props: { label: "Ok", href: "/shop", openInNewTab: true } },
        { type: "image", props: { src: "data:image/svg+xml,<svg onload=alert(1)>", alt: "" } },
        { type: "embed", props: { url: "http://insecure.example/x", title: "t" } },
      ],
    });
    expect(out).not.toContain("javascript");
    expect(out).not.toContain("data:");
    expect(out).not.toContain("insecure.example");
    expect(out).toContain('<span class="pb-button pb-button-primary">Go</span>');
    expect(out).toContain(
      '<a class="pb-button pb-button-primary" href="/shop" target="_blank" rel="noopener noreferrer">Ok</a>',
    );
  });

  test("URLs inside CSS url() cannot break out of the string", () => {
    const out = renderBlocksHtml({
      blocks: [
        { type: "hero", props: { heading: "h", backgroundImage: `/a.jpg");background:url("https://evil.example/x` } },
      ],
    });
    expect(out).toContain(
      'style="background-image:url(&quot;/a.jpg%22%29;background:url%28%22https://evil.example/x&quot;)"',
    );
  });

  test("colours that are not hex never reach a style attribute", () => {
    const out = renderBlocksHtml({
      blocks: [
        { type: "section", props: { background: "red;position:fixed" }, children: [] },
        { type: "cta", props: { heading: "h", buttonLabel: "b", buttonHref: "/", background: "#abc" } },
      ],
    });
    expect(out).not.toContain("position:fixed");
    expect(out).toContain('style="background-color:#abc"');
  });

  test("malformed content never throws and degrades to nothing or an inert notice", () => {
    for (const c of [
      null,
      5,
      "not json",
      "[]",
      {},
      { blocks: "x" },
      { blocks: [null, 3, "p", [], { type: 5 }, { type: "paragraph", props: "x" }] },
    ]) {
      expect(() => renderBlocksHtml(c)).not.toThrow();
    }
    expect(renderBlocksHtml({ blocks: [{ type: "<marquee>" }] })).toBe(
      '<div class="pb pb-unknown">Unsupported block “&lt;marquee&gt;”.</div>',
    );
    expect(renderBlocksHtml({ blocks: [{ type: "constructor" }] })).toContain("pb-unknown");
  });

  test("nesting and block count are capped like the validator's", () => {
    let b: any = { type: "paragraph", props: { text: "deepest" } };
    for (let i = 0; i < 5000; i++) b = { type: "section", props: {}, children: [b] };
    const out = renderBlocksHtml({ blocks: [b] });
    expect(out).not.toContain("deepest");
    expect(out.split("<section").length - 1).toBe(8);
    const many = renderBlocksHtml({ blocks: new Array(100_000).fill({ type: "divider" }) });
    expect(many.split("<hr").length - 1).toBe(2000);
  });

  test("embeds can be rendered as links for pages that forbid frames", () => {
    const c = { blocks: [{ type: "embed", props: { url: "https://player.vimeo.com/video/1", title: "Tour" } }] };
    expect(renderBlocksHtml(c)).toContain("<iframe");
    expect(renderBlocksHtml(c, { embeds: "link" })).toBe(
      '<p class="pb pb-embed" data-provider="other"><a href="https://player.vimeo.com/video/1" target="_blank" rel="noopener noreferrer">Tour</a></p>',
    );
  });

  test("featured products pick given slugs in order, or fall back to the featured ones", () => {
    const picked = renderBlocksHtml({
      blocks: [
        {
          type: "featured-products",
          props: { heading: "Gifts", productSlugs: ["gift-card", "house-espresso"], limit: 9 },
        },
      ],
    });
    expect(picked).toBe(
      '<div class="pb pb-featured-products pb-placeholder" data-products="gift-card,house-espresso"><h2>Gifts</h2><p>Products: “gift-card”, “house-espresso”.</p></div>',
    );
    expect(renderBlocksHtml({ blocks: [{ type: "featured-products", props: { limit: 6 } }] })).toContain(
      'data-limit="6"',
    );
  });

  test("prices are formatted from integer cents", () => {
    const out = renderBlocksHtml({
      blocks: [
        { type: "pricing-table", props: { currency: "USD", tiers: [{ name: "A", price: 1850, interval: "year" }] } },
      ],
    });
    expect(out).toContain("$18.50<span>/year</span>");
  });

  test("escapeHtml covers the five special characters", () => {
    expect(escapeHtml(`<a href="x" title='y'>&</a>`)).toBe(
      "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;",
    );
  });

  test("every example renders (smoke over the whole catalog in one document)", async () => {
    const { elements } = await parse(renderBlocksHtml(exampleContent));
    assertSafe(elements);
    expect(getBlockDefinition("column")).toBeDefined();
  });
});
