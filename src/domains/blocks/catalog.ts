/**
 * The block catalog: every block type a post's content may hold, in one place.
 *
 * Everything else about blocks is derived from this list: REST `listBlocks`
 * (blockCatalogEntries), the MCP `blocks://schema` Markdown (markdown.ts), the
 * write-side validator (validate.ts) and the safe preview renderer (render.ts).
 * Adding a block type means adding one entry here plus its case in render.ts;
 * the tests fail until both exist.
 *
 * Block JSON (docs/blocks.md):
 *   content = { "blocks": Block[], "version": "1" }
 *   Block   = { "id"?: string, "type": string, "props": {...}, "children"?: Block[] }
 * `children` exists only on layout blocks that declare a slot.
 *
 * @public Serves cms (post and template content).
 */

/** The inner content-format version carried in `content.version` (interface.md section 9). */
export const CONTENT_VERSION = "1";

export const BLOCK_CATEGORIES = ["basic", "layout", "component", "media", "ecommerce"] as const;
export type BlockCategory = (typeof BLOCK_CATEGORIES)[number];

/** Deepest allowed nesting: top-level blocks are depth 1. */
export const MAX_DEPTH = 8;
/** Most blocks (counting nested ones) one content object may hold. */
export const MAX_BLOCKS = 2000;
/** Longest allowed block `id`. */
export const MAX_BLOCK_ID = 64;
export const BLOCK_ID_RE = /^[A-Za-z0-9_-]+$/;
/** URLs: longest accepted value. */
export const MAX_URL = 2048;

export interface Block {
  id?: string;
  type: string;
  props: Record<string, unknown>;
  children?: Block[];
}

export interface BlockContent {
  blocks: Block[];
  version: string;
}

interface InputBase {
  required: boolean;
  /** Written for a model: what the input means and how it is used. */
  description: string;
}

/** Plain text. Never interpreted as HTML or Markdown: renderers escape it. */
export interface TextInput extends InputBase {
  kind: "text";
  maxLength: number;
  minLength?: number;
  /** Line breaks are kept (rendered as line breaks); otherwise they are still allowed but collapsed by renderers. */
  multiline?: boolean;
  pattern?: RegExp;
  /** Human wording of `pattern`, shown in errors and in the Markdown reference. */
  patternHint?: string;
}
export interface EnumInput extends InputBase {
  kind: "enum";
  values: readonly string[];
  default?: string;
}
export interface IntegerInput extends InputBase {
  kind: "integer";
  min: number;
  max: number;
  default?: number;
}
export interface BooleanInput extends InputBase {
  kind: "boolean";
  default?: boolean;
}
/** http(s) absolute, site-relative (`/…`, `#…`, `?…`) or mailto:/tel: URLs. Nothing else (no javascript:, data:). */
export interface UrlInput extends InputBase {
  kind: "url";
  /** Only absolute https:// URLs (third-party frames). */
  httpsOnly?: boolean;
}
/** `#rgb` or `#rrggbb`. */
export interface ColorInput extends InputBase {
  kind: "color";
}
/** A lower-case slug (`a-z`, `0-9`, single hyphens), e.g. a product or category slug. */
export interface SlugInput extends InputBase {
  kind: "slug";
}
/** An array of slugs, e.g. the products a block shows, in order. */
export interface SlugListInput extends InputBase {
  kind: "slugList";
  minItems: number;
  maxItems: number;
}
/** An array of plain-text strings. */
export interface TextListInput extends InputBase {
  kind: "textList";
  minItems: number;
  maxItems: number;
  itemMaxLength: number;
}
/** An array of small records, each validated against `fields` (one level; fields are not lists of records). */
export interface ListInput extends InputBase {
  kind: "list";
  minItems: number;
  maxItems: number;
  fields: Record<string, FieldInput>;
}

export type FieldInput =
  | TextInput
  | EnumInput
  | IntegerInput
  | BooleanInput
  | UrlInput
  | ColorInput
  | SlugInput
  | SlugListInput
  | TextListInput;
export type InputSpec = FieldInput | ListInput;
export type InputKind = InputSpec["kind"];

/** The nested-block slot of a layout block. */
export interface ChildrenSlot {
  /** Block types allowed directly inside; omitted means any type whose own `parents` rule allows it. */
  allowed?: readonly string[];
  minItems: number;
  maxItems: number;
  description: string;
}

export interface BlockDefinition {
  type: string;
  name: string;
  category: BlockCategory;
  /** Written for a model choosing and filling blocks. */
  description: string;
  inputs: Record<string, InputSpec>;
  /** Present only on layout blocks that hold nested blocks. */
  children?: ChildrenSlot;
  /** When set, the block may only appear directly inside one of these types. */
  parents?: readonly string[];
  /** A valid example of this block, used by the Markdown reference and tested. */
  example: Block;
}

// ---------------------------------------------------------------------------
// Input helpers: keep the catalog below readable.

const text = (maxLength: number, description: string, o: Partial<Omit<TextInput, "kind">> = {}): TextInput => ({
  kind: "text",
  required: false,
  maxLength,
  description,
  ...o,
});
const req = <T extends InputSpec>(spec: T): T => ({ ...spec, required: true });
const enumOf = (values: readonly string[], description: string, def?: string): EnumInput => ({
  kind: "enum",
  required: false,
  values,
  description,
  ...(def !== undefined ? { default: def } : {}),
});
const int = (min: number, max: number, description: string, def?: number): IntegerInput => ({
  kind: "integer",
  required: false,
  min,
  max,
  description,
  ...(def !== undefined ? { default: def } : {}),
});
const bool = (description: string, def?: boolean): BooleanInput => ({
  kind: "boolean",
  required: false,
  description,
  ...(def !== undefined ? { default: def } : {}),
});
const url = (description: string, o: { httpsOnly?: boolean } = {}): UrlInput => ({
  kind: "url",
  required: false,
  description,
  ...o,
});
const color = (description: string): ColorInput => ({ kind: "color", required: false, description });
const slug = (description: string): SlugInput => ({ kind: "slug", required: false, description });
const slugList = (minItems: number, maxItems: number, description: string): SlugListInput => ({
  kind: "slugList",
  required: false,
  minItems,
  maxItems,
  description,
});
const textList = (minItems: number, maxItems: number, itemMaxLength: number, description: string): TextListInput => ({
  kind: "textList",
  required: false,
  minItems,
  maxItems,
  itemMaxLength,
  description,
});
const list = (
  minItems: number,
  maxItems: number,
  fields: Record<string, FieldInput>,
  description: string,
): ListInput => ({
  kind: "list",
  required: false,
  minItems,
  maxItems,
  fields,
  description,
});

const ALIGN = ["left", "center", "right"] as const;
const SPACING = ["none", "sm", "md", "lg", "xl"] as const;
const ANCHOR = text(64, "Fragment id for in-page links (`#anchor`).", {
  pattern: /^[A-Za-z][A-Za-z0-9_-]*$/,
  patternHint: "a letter followed by letters, digits, '-' or '_'",
});
const PRODUCT_SORT = ["newest", "price_asc", "price_desc", "featured"] as const;

// ---------------------------------------------------------------------------

const DEFINITIONS: BlockDefinition[] = [
  // ----- basic -----
  {
    type: "heading",
    name: "Heading",
    category: "basic",
    description:
      "A section heading (h1–h6). A post's title is already the page's h1: use level 2 and below in post bodies, nested in order.",
    inputs: {
      text: req(text(300, "The heading text.", { minLength: 1 })),
      level: int(1, 6, "Heading level: 1 is the page title, 2 a section, 3 a subsection.", 2),
      align: enumOf(ALIGN, "Horizontal alignment.", "left"),
      anchor: ANCHOR,
    },
    example: { type: "heading", props: { text: "Our sourcing principles", level: 2 } },
  },
  {
    type: "paragraph",
    name: "Paragraph",
    category: "basic",
    description: "A paragraph of plain text. Line breaks are kept. No HTML or Markdown: markup is shown literally.",
    inputs: {
      text: req(text(10000, "The paragraph text.", { minLength: 1, multiline: true })),
      align: enumOf(ALIGN, "Horizontal alignment.", "left"),
      size: enumOf(["sm", "md", "lg"], "Text size; `lg` suits an intro paragraph.", "md"),
    },
    example: {
      type: "paragraph",
      props: { text: "We buy green coffee directly from farms we have visited, and we pay above Fairtrade minimums." },
    },
  },
  {
    type: "list",
    name: "List",
    category: "basic",
    description: "A bulleted or numbered list of short plain-text items.",
    inputs: {
      items: req(textList(1, 100, 1000, "The list items, in order.")),
      ordered: bool("Numbered (true) or bulleted (false).", false),
    },
    example: {
      type: "list",
      props: { items: ["Weigh 15 g of coffee", "Bloom for 30 seconds", "Pour to 250 g"], ordered: true },
    },
  },
  {
    type: "quote",
    name: "Quote",
    category: "basic",
    description: "A pull quote or block quotation with an optional attribution.",
    inputs: {
      text: req(text(2000, "The quoted words.", { minLength: 1, multiline: true })),
      cite: text(200, "Who said it (name, role)."),
      citeUrl: url("Link to the source."),
    },
    example: { type: "quote", props: { text: "Roast for the cup, not for the colour.", cite: "Head roaster" } },
  },
  {
    type: "code",
    name: "Code",
    category: "basic",
    description: "Preformatted code or text shown in a monospace block, exactly as written.",
    inputs: {
      code: req(text(20000, "The code, shown verbatim.", { minLength: 1, multiline: true })),
      language: text(32, "Language hint for syntax highlighting, e.g. `js`, `bash`.", {
        pattern: /^[a-z0-9+#.-]+$/,
        patternHint: "lower-case letters, digits, '+', '#', '.', '-'",
      }),
      caption: text(300, "Caption shown under the code."),
    },
    example: { type: "code", props: { code: "curl https://example.com/api/v1/sites/1/posts", language: "bash" } },
  },
  {
    type: "divider",
    name: "Divider",
    category: "basic",
    description: "A horizontal rule between sections.",
    inputs: {
      style: enumOf(["solid", "dashed", "dotted"], "Line style.", "solid"),
    },
    example: { type: "divider", props: {} },
  },
  {
    type: "button",
    name: "Button",
    category: "basic",
    description: "A single call-to-action link styled as a button.",
    inputs: {
      label: req(text(80, "Button text.", { minLength: 1 })),
      href: req(url("Where the button goes.")),
      variant: enumOf(["primary", "secondary", "outline", "link"], "Visual style from the site's branding.", "primary"),
      presetId: text(64, "Id of one of the site's branding button presets; overrides `variant`."),
      openInNewTab: bool("Open the link in a new tab.", false),
      align: enumOf(ALIGN, "Horizontal alignment.", "left"),
    },
    example: { type: "button", props: { label: "Shop coffee", href: "/shop", variant: "primary" } },
  },

  // ----- layout -----
  {
    type: "section",
    name: "Section",
    category: "layout",
    description: "A full-width band that groups blocks, with optional background colour or image and vertical padding.",
    inputs: {
      background: color("Background colour."),
      backgroundImage: url("Background image URL."),
      textColor: color("Text colour inside the section."),
      padding: enumOf(SPACING, "Vertical padding.", "md"),
      fullWidth: bool("Let content span the full viewport width instead of the content column.", false),
      anchor: ANCHOR,
    },
    children: { minItems: 0, maxItems: 100, description: "Any blocks except `column`." },
    example: {
      type: "section",
      props: { background: "#f5efe6", padding: "lg" },
      children: [{ type: "heading", props: { text: "Visit the roastery", level: 2 } }],
    },
  },
  {
    type: "columns",
    name: "Columns",
    category: "layout",
    description: "A row of side-by-side columns. Holds only `column` blocks; stacks on small screens.",
    inputs: {
      gap: enumOf(SPACING, "Space between columns.", "md"),
      verticalAlign: enumOf(["top", "center", "bottom"], "Vertical alignment of the columns.", "top"),
      stackOnMobile: bool("Stack columns vertically on narrow screens.", true),
    },
    children: { allowed: ["column"], minItems: 1, maxItems: 6, description: "1 to 6 `column` blocks." },
    example: {
      type: "columns",
      props: { gap: "lg" },
      children: [
        { type: "column", props: { width: 6 }, children: [{ type: "paragraph", props: { text: "Left." } }] },
        { type: "column", props: { width: 6 }, children: [{ type: "paragraph", props: { text: "Right." } }] },
      ],
    },
  },
  {
    type: "column",
    name: "Column",
    category: "layout",
    description: "One column of a `columns` row. Only valid directly inside `columns`.",
    inputs: {
      width: int(1, 12, "Width in twelfths of the row (6 = half). Omit to share the row equally."),
    },
    children: { minItems: 0, maxItems: 100, description: "Any blocks except `column`." },
    parents: ["columns"],
    example: {
      type: "column",
      props: { width: 4 },
      children: [{ type: "paragraph", props: { text: "A third of the row." } }],
    },
  },
  {
    type: "grid",
    name: "Grid",
    category: "layout",
    description: "A responsive grid that flows its child blocks into equal columns (e.g. a grid of cards).",
    inputs: {
      columns: int(1, 6, "Columns on wide screens.", 3),
      gap: enumOf(SPACING, "Space between cells.", "md"),
    },
    children: { minItems: 1, maxItems: 60, description: "1 to 60 blocks, one per cell; any type except `column`." },
    example: {
      type: "grid",
      props: { columns: 2 },
      children: [
        { type: "card", props: { title: "Espresso" } },
        { type: "card", props: { title: "Filter" } },
      ],
    },
  },
  {
    type: "spacer",
    name: "Spacer",
    category: "layout",
    description: "Empty vertical space between blocks.",
    inputs: {
      size: enumOf(["xs", "sm", "md", "lg", "xl"], "Height of the space.", "md"),
    },
    example: { type: "spacer", props: { size: "lg" } },
  },

  // ----- component -----
  {
    type: "hero",
    name: "Hero",
    category: "component",
    description:
      "The large banner at the top of a page: headline, supporting line, up to two buttons, optional background image.",
    inputs: {
      heading: req(text(200, "Headline.", { minLength: 1 })),
      subheading: text(500, "Supporting line under the headline.", { multiline: true }),
      eyebrow: text(80, "Short label above the headline."),
      backgroundImage: url("Background image URL."),
      backgroundImageAlt: text(300, "Alt text of the background image; empty when decorative."),
      overlay: bool("Darken the background image so text stays readable.", true),
      align: enumOf(ALIGN, "Text alignment.", "center"),
      ctaLabel: text(80, "Primary button text (needs `ctaHref`)."),
      ctaHref: url("Primary button link."),
      secondaryCtaLabel: text(80, "Secondary button text (needs `secondaryCtaHref`)."),
      secondaryCtaHref: url("Secondary button link."),
    },
    example: {
      type: "hero",
      props: {
        heading: "Small-batch coffee, roasted on Tuesdays",
        subheading: "Seasonal single origins and a house espresso, shipped within 48 hours of roasting.",
        ctaLabel: "Shop the current roast",
        ctaHref: "/shop",
      },
    },
  },
  {
    type: "card",
    name: "Card",
    category: "component",
    description: "A compact teaser: optional image, title, short text and link. Often placed in a `grid`.",
    inputs: {
      title: req(text(200, "Card title.", { minLength: 1 })),
      body: text(1000, "Short supporting text.", { multiline: true }),
      image: url("Image URL."),
      imageAlt: text(300, "Alt text of the image."),
      href: url("Link for the whole card."),
      ctaLabel: text(80, "Link text shown on the card."),
    },
    example: {
      type: "card",
      props: { title: "Brew guides", body: "Step-by-step recipes for every brewer.", href: "/blog" },
    },
  },
  {
    type: "cta",
    name: "Call to action",
    category: "component",
    description: "A highlighted band asking the reader to do one thing, with a heading, text and button.",
    inputs: {
      heading: req(text(200, "Heading.", { minLength: 1 })),
      body: text(1000, "Supporting text.", { multiline: true }),
      buttonLabel: req(text(80, "Button text.", { minLength: 1 })),
      buttonHref: req(url("Button link.")),
      background: color("Background colour."),
      align: enumOf(ALIGN, "Text alignment.", "center"),
    },
    example: {
      type: "cta",
      props: {
        heading: "Never run out",
        body: "Subscribe and save 10 %.",
        buttonLabel: "Start a subscription",
        buttonHref: "/subscriptions",
      },
    },
  },
  {
    type: "accordion",
    name: "Accordion",
    category: "component",
    description: "Collapsible panels, each with a title and plain-text body.",
    inputs: {
      items: req(
        list(
          1,
          50,
          {
            title: req(text(200, "Panel title.", { minLength: 1 })),
            body: req(text(5000, "Panel text.", { minLength: 1, multiline: true })),
          },
          "The panels, in order.",
        ),
      ),
      allowMultiple: bool("Allow several panels open at once.", false),
      defaultOpen: int(0, 49, "Zero-based index of the panel open on load; omit for all closed."),
    },
    example: { type: "accordion", props: { items: [{ title: "Shipping", body: "Orders ship Monday to Thursday." }] } },
  },
  {
    type: "tabs",
    name: "Tabs",
    category: "component",
    description: "Tabbed panels of plain text; the first tab is shown by default.",
    inputs: {
      tabs: req(
        list(
          1,
          12,
          {
            label: req(text(60, "Tab label.", { minLength: 1 })),
            body: req(text(5000, "Tab text.", { minLength: 1, multiline: true })),
          },
          "The tabs, in order.",
        ),
      ),
    },
    example: {
      type: "tabs",
      props: {
        tabs: [
          { label: "Espresso", body: "18 g in, 36 g out, 28 seconds." },
          { label: "Filter", body: "60 g per litre." },
        ],
      },
    },
  },
  {
    type: "testimonial",
    name: "Testimonial",
    category: "component",
    description: "A customer quote with name, role, optional avatar and star rating.",
    inputs: {
      quote: req(text(1000, "What the customer said.", { minLength: 1, multiline: true })),
      author: req(text(120, "Customer name.", { minLength: 1 })),
      role: text(120, "Role or title."),
      company: text(120, "Company."),
      avatar: url("Avatar image URL."),
      rating: int(1, 5, "Star rating."),
    },
    example: { type: "testimonial", props: { quote: "The best decaf I have had.", author: "Priya N.", rating: 5 } },
  },
  {
    type: "pricing-table",
    name: "Pricing table",
    category: "component",
    description: "Side-by-side plans with price, billing interval, feature list and a button each.",
    inputs: {
      heading: text(200, "Heading above the plans."),
      currency: text(3, "ISO 4217 currency code of every price.", {
        pattern: /^[A-Z]{3}$/,
        patternHint: "three upper-case letters, e.g. USD",
      }),
      tiers: req(
        list(
          1,
          6,
          {
            name: req(text(80, "Plan name.", { minLength: 1 })),
            price: req(int(0, 100_000_000, "Price in cents (integer).")),
            interval: enumOf(["one-time", "week", "month", "year"], "Billing interval.", "month"),
            description: text(300, "One line about the plan."),
            features: textList(0, 20, 200, "Included features."),
            ctaLabel: text(80, "Button text."),
            ctaHref: url("Button link."),
            highlighted: bool("Visually emphasise this plan.", false),
          },
          "The plans, in display order.",
        ),
      ),
    },
    example: {
      type: "pricing-table",
      props: {
        currency: "USD",
        tiers: [
          { name: "Monthly bag", price: 1800, interval: "month", features: ["One 340 g bag"] },
          {
            name: "Fortnightly",
            price: 3400,
            interval: "month",
            features: ["Two bags", "Free shipping"],
            highlighted: true,
          },
        ],
      },
    },
  },
  {
    type: "faq",
    name: "FAQ",
    category: "component",
    description: "Frequently asked questions with answers (rendered so search engines can read them).",
    inputs: {
      heading: text(200, "Heading above the questions."),
      items: req(
        list(
          1,
          50,
          {
            question: req(text(300, "The question.", { minLength: 1 })),
            answer: req(text(5000, "The answer.", { minLength: 1, multiline: true })),
          },
          "Questions and answers, in order.",
        ),
      ),
    },
    example: { type: "faq", props: { items: [{ question: "Do you ship abroad?", answer: "Yes, to the EU and UK." }] } },
  },

  // ----- media -----
  {
    type: "image",
    name: "Image",
    category: "media",
    description:
      "A single image with alt text and optional caption and link. `alt` is required; use an empty string only for purely decorative images.",
    inputs: {
      src: req(url("Image URL, e.g. a media library item's url.")),
      alt: req(text(300, "Alternative text describing the image; empty string if decorative.")),
      caption: text(500, "Caption shown under the image."),
      width: int(1, 10000, "Intrinsic width in pixels."),
      height: int(1, 10000, "Intrinsic height in pixels."),
      href: url("Link when the image is clicked."),
      size: enumOf(["small", "medium", "large", "full"], "Display size.", "large"),
    },
    example: {
      type: "image",
      props: {
        src: "https://cdn.example.com/roastery.jpg",
        alt: "The roaster at work",
        caption: "Our 15 kg drum roaster",
      },
    },
  },
  {
    type: "gallery",
    name: "Gallery",
    category: "media",
    description: "Several images shown as a grid, masonry or carousel.",
    inputs: {
      images: req(
        list(
          1,
          60,
          {
            src: req(url("Image URL.")),
            alt: req(text(300, "Alternative text; empty string if decorative.")),
            caption: text(500, "Caption."),
          },
          "The images, in order.",
        ),
      ),
      columns: int(1, 6, "Columns in grid and masonry layouts.", 3),
      layout: enumOf(["grid", "masonry", "carousel"], "Arrangement.", "grid"),
    },
    example: {
      type: "gallery",
      props: {
        images: [
          { src: "https://cdn.example.com/cupping.jpg", alt: "Cupping table" },
          { src: "https://cdn.example.com/beans.jpg", alt: "Green beans" },
        ],
      },
    },
  },
  {
    type: "video",
    name: "Video",
    category: "media",
    description: "A self-hosted video file (e.g. MP4 from the media library). For YouTube or Vimeo use `embed`.",
    inputs: {
      src: req(url("Video file URL.")),
      poster: url("Poster image shown before playback."),
      caption: text(500, "Caption."),
      title: text(200, "Accessible title of the video."),
      autoplay: bool("Start playing on load (implies muted).", false),
      loop: bool("Loop playback.", false),
      muted: bool("Start muted.", false),
      controls: bool("Show playback controls.", true),
    },
    example: {
      type: "video",
      props: {
        src: "https://cdn.example.com/pour-over.mp4",
        poster: "https://cdn.example.com/pour-over-poster.jpg",
        title: "Pour-over in two minutes",
      },
    },
  },
  {
    type: "embed",
    name: "Embed",
    category: "media",
    description: "Third-party content in a sandboxed frame: YouTube, Vimeo, maps, podcasts. Only https URLs.",
    inputs: {
      url: req(
        url("The https URL of the embeddable page (e.g. https://www.youtube.com/embed/ID).", { httpsOnly: true }),
      ),
      title: req(text(200, "Accessible title of the frame.", { minLength: 1 })),
      provider: enumOf(["youtube", "vimeo", "google-maps", "spotify", "other"], "Who serves the embed.", "other"),
      aspectRatio: enumOf(["16:9", "4:3", "1:1", "9:16"], "Frame aspect ratio.", "16:9"),
      caption: text(500, "Caption."),
    },
    example: {
      type: "embed",
      props: { url: "https://www.youtube.com/embed/dQw4w9WgXcQ", title: "Roastery tour", provider: "youtube" },
    },
  },
  {
    type: "audio",
    name: "Audio",
    category: "media",
    description: "An audio file with a player, e.g. a podcast episode.",
    inputs: {
      src: req(url("Audio file URL.")),
      title: text(200, "Title shown with the player."),
      caption: text(500, "Caption."),
    },
    example: {
      type: "audio",
      props: { src: "https://cdn.example.com/episode-12.mp3", title: "Episode 12: Washed vs natural" },
    },
  },
  {
    type: "file",
    name: "File download",
    category: "media",
    description: "A download link to a document, e.g. a PDF from the media library.",
    inputs: {
      href: req(url("File URL.")),
      label: req(text(120, "Link text.", { minLength: 1 })),
      description: text(300, "One line about the file."),
    },
    example: {
      type: "file",
      props: { href: "https://cdn.example.com/wholesale-price-list.pdf", label: "Wholesale price list (PDF)" },
    },
  },

  // ----- ecommerce -----
  {
    type: "product-grid",
    name: "Product grid",
    category: "ecommerce",
    description:
      "A grid of the store's active products, optionally limited to one product category. Needs the site's store.",
    inputs: {
      heading: text(200, "Heading above the grid."),
      categorySlug: slug("Only products in this product category (slug)."),
      sort: enumOf(PRODUCT_SORT, "Order of products.", "newest"),
      limit: int(1, 48, "How many products to show.", 12),
      columns: int(1, 6, "Columns on wide screens.", 3),
      showPrice: bool("Show prices.", true),
    },
    example: { type: "product-grid", props: { heading: "Single origins", categorySlug: "single-origin", limit: 6 } },
  },
  {
    type: "product-card",
    name: "Product card",
    category: "ecommerce",
    description: "One product, by slug, with image, name, price and a link to it.",
    inputs: {
      productSlug: req(slug("The product's slug.")),
      showDescription: bool("Show the short description.", true),
      ctaLabel: text(80, "Link text.", {}),
    },
    example: { type: "product-card", props: { productSlug: "house-espresso" } },
  },
  {
    type: "add-to-cart",
    name: "Add to cart",
    category: "ecommerce",
    description: "An add-to-cart button for one product, with variant picker and optional quantity field.",
    inputs: {
      productSlug: req(slug("The product's slug.")),
      variantSku: text(100, "Preselect the variant with this SKU."),
      label: text(80, "Button text.", {}),
      showQuantity: bool("Show a quantity field.", true),
    },
    example: { type: "add-to-cart", props: { productSlug: "house-espresso", label: "Add to bag" } },
  },
  {
    type: "featured-products",
    name: "Featured products",
    category: "ecommerce",
    description:
      "A row of products: the ones named in `productSlugs`, in that order, or, without it, the store's products marked as featured (newest first, up to `limit`).",
    inputs: {
      heading: text(200, "Heading.", {}),
      productSlugs: slugList(
        1,
        24,
        "Show exactly these products (slugs), in this order, instead of the featured ones. Slugs that name no product of the site are a warning when the content is saved.",
      ),
      limit: int(1, 24, "How many featured products to show (when `productSlugs` is omitted).", 4),
      columns: int(1, 6, "Columns on wide screens.", 4),
    },
    example: {
      type: "featured-products",
      props: { heading: "Gift ideas", productSlugs: ["house-espresso", "gift-card"] },
    },
  },
  {
    type: "category-list",
    name: "Product category list",
    category: "ecommerce",
    description: "Links to the store's active product categories, optionally only the children of one category.",
    inputs: {
      heading: text(200, "Heading."),
      parentSlug: slug("Only the sub-categories of this category (slug); omit for top-level categories."),
      layout: enumOf(["grid", "list"], "Arrangement.", "grid"),
      showImages: bool("Show category images.", true),
      showCounts: bool("Show how many products each category has.", false),
    },
    example: { type: "category-list", props: { heading: "Shop by category", layout: "grid" } },
  },
];

// ---------------------------------------------------------------------------
// Load-time invariants: a broken catalog fails at import, not in production.

function checkCatalog(defs: BlockDefinition[]): void {
  const types = new Set<string>();
  for (const d of defs) {
    if (!/^[a-z][a-z0-9-]*$/.test(d.type)) throw new Error(`block catalog: bad type id ${d.type}`);
    if (types.has(d.type)) throw new Error(`block catalog: duplicate type ${d.type}`);
    types.add(d.type);
    if (!BLOCK_CATEGORIES.includes(d.category)) throw new Error(`block catalog: ${d.type} has unknown category`);
    if (d.children && d.category !== "layout")
      throw new Error(`block catalog: only layout blocks hold children (${d.type})`);
    for (const [name, spec] of Object.entries(d.inputs)) {
      if (name === "children" || name === "id" || name === "type")
        throw new Error(`block catalog: ${d.type}.${name} is reserved`);
      if (spec.kind === "enum" && spec.default !== undefined && !spec.values.includes(spec.default))
        throw new Error(`block catalog: ${d.type}.${name} default not in values`);
      if (
        spec.kind === "integer" &&
        (spec.min > spec.max || (spec.default !== undefined && (spec.default < spec.min || spec.default > spec.max)))
      )
        throw new Error(`block catalog: ${d.type}.${name} bad integer range`);
    }
  }
  for (const d of defs) {
    for (const t of [...(d.children?.allowed ?? []), ...(d.parents ?? [])])
      if (!types.has(t)) throw new Error(`block catalog: ${d.type} refers to unknown type ${t}`);
  }
}
checkCatalog(DEFINITIONS);

function deepFreeze<T>(o: T): T {
  if (o && typeof o === "object" && !(o instanceof RegExp)) {
    for (const v of Object.values(o)) deepFreeze(v);
    Object.freeze(o);
  }
  return o;
}

/** Every block type, in catalog order (grouped by category). */
export const BLOCK_CATALOG: readonly BlockDefinition[] = deepFreeze(DEFINITIONS);

const BY_TYPE: ReadonlyMap<string, BlockDefinition> = new Map(BLOCK_CATALOG.map((d) => [d.type, d]));

export function getBlockDefinition(type: string): BlockDefinition | undefined {
  return BY_TYPE.get(type);
}

/** The spec's Block catalog entry (interface.md 2.4). `inputs` lists prop names; `children` is structural, not an input. */
export interface BlockCatalogEntry {
  type: string;
  name: string;
  category: BlockCategory;
  inputs: string[];
}

const ENTRIES: readonly BlockCatalogEntry[] = deepFreeze(
  BLOCK_CATALOG.map((d) => ({ type: d.type, name: d.name, category: d.category, inputs: Object.keys(d.inputs) })),
);

/** What REST listBlocks serves: precomputed once, identical for every site. */
export function blockCatalogEntries(): readonly BlockCatalogEntry[] {
  return ENTRIES;
}
