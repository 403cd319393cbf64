/**
 * The block reference served as MCP resource `blocks://schema`: generated
 * from the catalog so it cannot drift from what the validator accepts. A
 * model is told to read it before posts_create / posts_update, so it says
 * exactly what the validator checks, with examples that pass it.
 *
 * @public Serves accounts (the blocks://schema resource).
 */
import {
  BLOCK_CATALOG,
  BLOCK_CATEGORIES,
  CONTENT_VERSION,
  MAX_BLOCK_ID,
  MAX_BLOCKS,
  MAX_DEPTH,
  MAX_URL,
  type BlockCategory,
  type BlockContent,
  type BlockDefinition,
  type InputSpec,
} from "./catalog";

const CATEGORY_BLURB: Record<BlockCategory, string> = {
  basic: "Text and simple elements.",
  layout: "Containers that arrange other blocks; they hold nested blocks in `children`.",
  component: "Ready-made page sections.",
  media: "Images, video, audio, embeds and downloads.",
  ecommerce: "Live views of the site's store catalogue; they render nothing when the site has no enabled store.",
};

/** A complete post body using many block kinds; the tests check it validates. */
export const EXAMPLE_CONTENT: BlockContent = {
  version: CONTENT_VERSION,
  blocks: [
    {
      id: "intro-hero",
      type: "hero",
      props: {
        eyebrow: "Brew guide",
        heading: "Dialling in espresso at home",
        subheading: "A repeatable recipe, and what to change when the shot runs fast or slow.",
        ctaLabel: "Shop espresso",
        ctaHref: "/shop/espresso",
      },
    },
    {
      type: "section",
      props: { padding: "lg" },
      children: [
        { type: "heading", props: { text: "The starting recipe", level: 2, anchor: "recipe" } },
        { type: "paragraph", props: { text: "Start with a 1:2 ratio and adjust one variable at a time." } },
        {
          type: "list",
          props: { ordered: true, items: ["18 g of coffee in", "36 g of espresso out", "27–30 seconds"] },
        },
      ],
    },
    {
      type: "columns",
      props: { gap: "lg" },
      children: [
        {
          type: "column",
          props: { width: 6 },
          children: [
            {
              type: "image",
              props: {
                src: "https://cdn.example.com/espresso-shot.jpg",
                alt: "An espresso shot pouring",
                width: 1600,
                height: 1067,
              },
            },
          ],
        },
        {
          type: "column",
          props: { width: 6 },
          children: [
            { type: "quote", props: { text: "Taste first, then look at the numbers.", cite: "Our head roaster" } },
          ],
        },
      ],
    },
    {
      type: "faq",
      props: {
        heading: "Troubleshooting",
        items: [
          { question: "The shot tastes sour", answer: "Grind finer or raise the yield." },
          { question: "The shot tastes bitter", answer: "Grind coarser or shorten the shot." },
        ],
      },
    },
    {
      type: "product-grid",
      props: { heading: "Espresso roasts", categorySlug: "espresso", limit: 3, sort: "featured" },
    },
    {
      type: "cta",
      props: { heading: "Questions?", buttonLabel: "Ask a barista", buttonHref: "mailto:hello@example.com" },
    },
  ],
};

function cell(s: string): string {
  return s.replace(/\|/g, "\\|").replace(/\n/g, " ");
}

function typeLabel(spec: InputSpec): string {
  switch (spec.kind) {
    case "text":
      return spec.multiline ? "text (multi-line)" : "text";
    case "enum":
      return "enum";
    case "integer":
      return "integer";
    case "boolean":
      return "boolean";
    case "url":
      return "url";
    case "color":
      return "color";
    case "slug":
      return "slug";
    case "slugList":
      return "array of slugs";
    case "textList":
      return "array of text";
    case "list":
      return "array of objects";
  }
}

function constraints(spec: InputSpec): string {
  const parts: string[] = [];
  switch (spec.kind) {
    case "text":
      if (spec.minLength) parts.push("non-empty");
      parts.push(`max ${spec.maxLength} chars`);
      if (spec.patternHint) parts.push(spec.patternHint);
      break;
    case "enum":
      parts.push(`one of ${spec.values.map((v) => `\`${v}\``).join(", ")}`);
      if (spec.default !== undefined) parts.push(`default \`${spec.default}\``);
      break;
    case "integer":
      parts.push(`${spec.min}–${spec.max}`);
      if (spec.default !== undefined) parts.push(`default ${spec.default}`);
      break;
    case "boolean":
      if (spec.default !== undefined) parts.push(`default ${spec.default}`);
      break;
    case "url":
      parts.push(spec.httpsOnly ? "absolute https:// only" : "http(s), mailto:, tel: or relative");
      break;
    case "color":
      parts.push("`#rgb` or `#rrggbb`");
      break;
    case "slug":
      parts.push("lower-case slug");
      break;
    case "slugList":
      parts.push(`${spec.minItems}–${spec.maxItems} items, each a lower-case slug`);
      break;
    case "textList":
      parts.push(`${spec.minItems}–${spec.maxItems} items, each non-empty, max ${spec.itemMaxLength} chars`);
      break;
    case "list":
      parts.push(`${spec.minItems}–${spec.maxItems} items; fields below`);
      break;
  }
  return parts.join("; ");
}

function inputsTable(inputs: Record<string, InputSpec>, prefix = ""): string[] {
  const rows: string[] = [];
  for (const [name, spec] of Object.entries(inputs)) {
    rows.push(
      `| \`${prefix}${name}\` | ${typeLabel(spec)} | ${spec.required ? "**yes**" : "no"} | ${cell(constraints(spec))} | ${cell(spec.description)} |`,
    );
    if (spec.kind === "list") rows.push(...inputsTable(spec.fields, `${prefix}${name}[].`));
  }
  return rows;
}

function blockSection(d: BlockDefinition): string[] {
  const out = [`### \`${d.type}\` — ${d.name}`, "", d.description, ""];
  if (Object.keys(d.inputs).length) {
    out.push(
      "| Input | Type | Required | Constraints | Description |",
      "|---|---|---|---|---|",
      ...inputsTable(d.inputs),
      "",
    );
  } else {
    out.push("No inputs.", "");
  }
  if (d.children) {
    out.push(`Children: ${d.children.description} (${d.children.minItems}–${d.children.maxItems}).`, "");
  }
  if (d.parents) out.push(`Only valid directly inside ${d.parents.map((p) => `\`${p}\``).join(", ")}.`, "");
  out.push("```json", JSON.stringify(d.example), "```", "");
  return out;
}

function build(): string {
  const out: string[] = [
    "# Block reference",
    "",
    `Post and block-template content is JSON: \`{"blocks": [Block, ...], "version": "${CONTENT_VERSION}"}\`.`,
    "",
    "A Block is:",
    "",
    "```json",
    `{"id": "optional-stable-id", "type": "paragraph", "props": {"text": "Hello"}, "children": []}`,
    "```",
    "",
    "## Rules",
    "",
    `- \`type\` is one of the block types below. \`props\` holds that type's inputs; any other input name is an error.`,
    `- \`children\` (an array of blocks) exists only on layout blocks that say so; other blocks must not have it.`,
    `- \`id\` is optional: 1–${MAX_BLOCK_ID} letters, digits, \`-\`, \`_\`, unique within the content. Use it to keep a block's identity across edits.`,
    `- \`version\` is \`"${CONTENT_VERSION}"\`; it may be omitted on write. The write tools (posts_create, posts_update, block_templates_create, block_templates_update) take \`blocks\` as this whole object or as the bare array of blocks; another \`version\` is refused.`,
    "- A post's `title` is rendered as the page's `<h1>`: start the body's headings at level 2 and do not repeat the title as a heading block. A level-1 `heading` in a post body (or in a block template) is accepted, and the write result lists it under `warnings`.",
    `- Inputs marked **yes** are required. Optional inputs may be omitted or \`null\`; renderers apply the listed default.`,
    "- Text is plain text, never HTML or Markdown: `<b>` is shown literally. Line breaks are kept in multi-line text.",
    '- Integers are JSON numbers, not strings (`2`, not `"2"`). Prices are integer cents.',
    `- URLs: http(s), mailto:, tel:, or relative (\`/shop\`, \`#faq\`); at most ${MAX_URL} characters, no spaces. Other schemes (javascript:, data:) and \`//host\` are refused.`,
    `- Limits: at most ${MAX_DEPTH} levels of nesting and ${MAX_BLOCKS} blocks in all.`,
    "- Store blocks name products by slug (`productSlug`, `productSlugs`). A slug that names no product of the site is not an error: the content is saved and the write result lists it under `warnings`.",
    '- Invalid content is refused with every problem listed by path, e.g. `blocks[2].children[0].props.src: URL scheme "javascript:" is not allowed`.',
    "",
    "## Block types",
    "",
  ];
  for (const cat of BLOCK_CATEGORIES) {
    const defs = BLOCK_CATALOG.filter((d) => d.category === cat);
    out.push(`- **${cat}**: ${defs.map((d) => `\`${d.type}\``).join(", ")}`);
  }
  out.push("");
  for (const cat of BLOCK_CATEGORIES) {
    out.push(`## Category \`${cat}\``, "", CATEGORY_BLURB[cat], "");
    for (const d of BLOCK_CATALOG.filter((x) => x.category === cat)) out.push(...blockSection(d));
  }
  out.push("## A complete post body", "", "```json", JSON.stringify(EXAMPLE_CONTENT, null, 2), "```", "");
  return out.join("\n");
}

let memo: string | undefined;

/** The full Markdown reference; computed on first use, then reused. */
export function blockSchemaMarkdown(): string {
  memo ??= build();
  return memo;
}
