/**
 * Slide layouts and their typed content fields. Each layout is a strict
 * valibot object: unknown fields are refused (naming the layout's fields),
 * text is bounded, links pass the same URL rule as block content (no
 * javascript:, data: or protocol-relative URLs), and images are media ids,
 * checked against the company's sites by the verbs (media.ts).
 *
 * Tool schemas carry `content` as a loose object so tools/list stays small;
 * deck_layouts_list publishes these schemas, and the verbs validate every
 * slide against them with paths a model can act on
 * (`slides[2].content.plans[0].price`).
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import * as v from "valibot";
import { invalid } from "../../core/errors";
import { urlProblem } from "../blocks/urls";
import { idSchema, line, textBlock } from "../../core/fields";

export const LAYOUTS = [
  "title",
  "title_body",
  "two_columns",
  "image",
  "quote",
  "metrics",
  "pricing",
  "team",
  "closing",
  "image_text",
  "image_full",
  "timeline",
] as const;
export type Layout = (typeof LAYOUTS)[number];

export const MAX_SLIDES = 100;
export const MAX_NOTES = 5000;

const opt = <T extends v.GenericSchema>(s: T) => v.optional(s);
/** A template may hold a placeholder where a URL or an email goes ({{website}}); filling checks the real value. */
const PLACEHOLDER_ONLY = /^\{\{\s*[A-Za-z][A-Za-z0-9_.-]{0,63}\s*\}\}$/;
const EMAIL_RE = /^[\w+-]+(?:\.[\w+-]+)*@[\da-z]+(?:[.-][\da-z]+)*\.[a-z]{2,}$/iu;
const link = v.pipe(
  line(2048),
  v.check(
    (s) => PLACEHOLDER_ONLY.test(s) || urlProblem(s) === null,
    (issue) => `${urlProblem(String(issue.input)) ?? "is not a usable URL"}`,
  ),
);
const email = v.pipe(
  line(254),
  v.check((s) => PLACEHOLDER_ONLY.test(s) || EMAIL_RE.test(s), "an email address like ana@example.com"),
);
const bullets = v.pipe(v.array(line(200)), v.maxLength(8, "at most 8 bullets"));
const heading = line(160);
/** A column's picture (two_columns): a media id of the company's, shown above the column's text. */
const columnImage = v.strictObject({
  imageId: idSchema,
  /** Defaults to the media item's alt text. */
  alt: opt(line(300)),
});
const column = v.strictObject({
  heading: opt(line(120)),
  body: opt(textBlock(800)),
  bullets: opt(bullets),
  image: opt(columnImage),
});
const metric = v.strictObject({ value: line(24), label: line(80), detail: opt(line(160)) });
/** A timeline step: when (free text: "March 2026", "Week 3", "Q2"), what, and a line of detail. */
const step = v.strictObject({ date: line(40), label: line(80), detail: opt(line(160)) });
const plan = v.strictObject({
  name: line(60),
  /** Integer cents, as everywhere in Plinth; absent shows priceLabel ("On request"). */
  price: opt(v.pipe(v.number(), v.integer("price is in whole cents"), v.minValue(0), v.maxValue(10_000_000_000))),
  priceLabel: opt(line(40)),
  period: opt(line(40)),
  description: opt(textBlock(300)),
  features: opt(v.pipe(v.array(line(120)), v.maxLength(10, "at most 10 features"))),
  highlighted: opt(v.boolean()),
});
const member = v.strictObject({
  name: line(100),
  role: opt(line(100)),
  bio: opt(textBlock(300)),
  imageId: opt(idSchema),
});

export const LAYOUT_SCHEMAS = {
  title: v.strictObject({
    title: heading,
    subtitle: opt(textBlock(300)),
    presenter: opt(line(120)),
    date: opt(line(60)),
  }),
  title_body: v.strictObject({ title: heading, body: opt(textBlock(1500)), bullets: opt(bullets) }),
  two_columns: v.strictObject({ title: opt(heading), left: column, right: column }),
  image: v.strictObject({
    title: opt(heading),
    imageId: idSchema,
    caption: opt(textBlock(300)),
    /** Defaults to the media item's alt text. */
    alt: opt(line(300)),
    fit: opt(v.picklist(["cover", "contain"])),
  }),
  image_text: v.strictObject({
    title: opt(heading),
    imageId: idSchema,
    /** Defaults to the media item's alt text. */
    alt: opt(line(300)),
    body: opt(textBlock(800)),
    bullets: opt(bullets),
    /** Where the picture goes; the text takes the other half. */
    side: opt(v.picklist(["left", "right"])),
  }),
  image_full: v.strictObject({
    /** Set on a scrim over the picture's lower part (its contrast is checked, scrim.ts). */
    title: opt(heading),
    imageId: idSchema,
    caption: opt(textBlock(300)),
    /** Defaults to the media item's alt text. */
    alt: opt(line(300)),
  }),
  timeline: v.strictObject({
    title: opt(heading),
    steps: v.pipe(v.array(step), v.minLength(3, "at least 3 steps"), v.maxLength(8, "at most 8 steps")),
  }),
  quote: v.strictObject({
    quote: textBlock(600),
    author: opt(line(120)),
    role: opt(line(120)),
    imageId: opt(idSchema),
  }),
  metrics: v.strictObject({
    title: opt(heading),
    metrics: v.pipe(v.array(metric), v.minLength(1, "at least 1 metric"), v.maxLength(6, "at most 6 metrics")),
  }),
  pricing: v.strictObject({
    title: opt(heading),
    currency: opt(v.pipe(v.string(), v.regex(/^[A-Z]{3}$/, "an ISO 4217 code like USD or EUR"))),
    plans: v.pipe(v.array(plan), v.minLength(1, "at least 1 plan"), v.maxLength(4, "at most 4 plans")),
    note: opt(textBlock(300)),
  }),
  team: v.strictObject({
    title: opt(heading),
    members: v.pipe(v.array(member), v.minLength(1, "at least 1 member"), v.maxLength(8, "at most 8 members")),
  }),
  closing: v.strictObject({
    title: heading,
    subtitle: opt(textBlock(300)),
    contactName: opt(line(120)),
    email: opt(email),
    phone: opt(line(40)),
    website: opt(link),
    ctaLabel: opt(line(60)),
    ctaUrl: opt(link),
  }),
} satisfies Record<Layout, v.GenericSchema>;

/** One line per layout for deck_layouts_list, and an example an agent can copy. */
export const LAYOUT_INFO: Record<Layout, { use: string; example: Record<string, unknown> }> = {
  title: {
    use: "Opening slide in the brand colour, with the logo.",
    example: { title: "A new shop for Harbor Coffee", subtitle: "Proposal, May 2026", presenter: "Northwind Studio" },
  },
  title_body: {
    use: "A heading with a paragraph and/or up to 8 bullets.",
    example: {
      title: "What we heard",
      body: "Orders peak on Mondays.",
      bullets: ["Checkout is slow on phones", "Subscriptions are manual"],
    },
  },
  two_columns: {
    use: "Compare or pair two things side by side; each column may show a picture from the media library above its text (image.imageId).",
    example: {
      title: "Today and tomorrow",
      left: { heading: "Today", bullets: ["3 tools"], image: { imageId: 12, alt: "Three browser tabs" } },
      right: { heading: "With Plinth", bullets: ["1 dashboard"], image: { imageId: 13 } },
    },
  },
  image: {
    use: "One picture from the media library (imageId), with caption.",
    example: { title: "The new home page", imageId: 12, caption: "Desktop and phone", fit: "contain" },
  },
  image_text: {
    use: "A picture from the media library (imageId) beside a paragraph and/or bullets; side left (default) or right.",
    example: {
      title: "Ordering from a phone",
      imageId: 12,
      bullets: ["Reorder in two taps", "Invoices in the account"],
      side: "left",
    },
  },
  image_full: {
    use: "A picture covering the slide, title and caption on a scrim.",
    example: { title: "Where we work", imageId: 12, caption: "The studio in the old sail loft" },
  },
  timeline: {
    use: "3 to 8 dated steps in order, left to right.",
    example: {
      title: "Eight weeks to launch",
      steps: [
        { date: "Week 1", label: "Workshop", detail: "Your team and ours, one day" },
        { date: "Weeks 2–6", label: "Build" },
        { date: "Week 8", label: "Launch" },
      ],
    },
  },
  quote: {
    use: "A testimonial or key statement.",
    example: { quote: "Our orders doubled in a quarter.", author: "Maya Chen", role: "Owner, Harbor Coffee" },
  },
  metrics: {
    use: "1 to 6 big numbers with labels.",
    example: {
      title: "Results",
      metrics: [
        { value: "2×", label: "online orders" },
        { value: "48%", label: "repeat customers" },
      ],
    },
  },
  pricing: {
    use: "1 to 4 plans; price in integer cents (or priceLabel).",
    example: {
      title: "Options",
      currency: "USD",
      plans: [
        { name: "Launch", price: 1200000, period: "one-off", features: ["Shop", "Training"], highlighted: true },
        { name: "Care", price: 45000, period: "per month" },
      ],
    },
  },
  team: {
    use: "1 to 8 people with role, short bio and photo (imageId).",
    example: { title: "Your team", members: [{ name: "Priya Shah", role: "Lead developer" }] },
  },
  closing: {
    use: "Final slide in the brand colour: thanks, contact and a call to action.",
    example: {
      title: "Thank you",
      email: "hello@northwind.example",
      ctaLabel: "Book a call",
      ctaUrl: "https://northwind.example/contact",
    },
  },
};

/** An image as a version freezes it (and as renderers take it): never a raw URL an agent typed. */
export interface ResolvedImage {
  url: string;
  alt: string | null;
  width: number | null;
  height: number | null;
  mimeType: string;
  /** Where the bytes are when the file is stored here (for the PDF); null for media registered by URL. */
  storageKey: string | null;
}

export interface DeckTheme {
  primary: string;
  secondary: string;
  accent: string;
  background: string;
  text: string;
  /** Text on the primary colour: white or the text colour, whichever reads better. */
  onPrimary: string;
  headingFont: string | null;
  bodyFont: string | null;
  radius: string;
  /** The brand's name (logoText or the site name), shown when there is no logo. */
  name: string;
  logo: {
    url: string;
    alt: string;
    mimeType: string | null;
    storageKey: string | null;
    /**
     * The logo's measured ink (logo.ts): a colour, null for an opaque image,
     * "" when it could not be measured; absent in versions frozen before it was.
     */
    ink?: string | null;
  } | null;
}

/** A slide as a version holds it: its fields, notes and the images they name. */
export interface VersionSlide {
  id: number;
  layout: Layout;
  content: Record<string, unknown>;
  notes: string | null;
  images: Record<string, ResolvedImage>;
}

export function isLayout(s: unknown): s is Layout {
  return typeof s === "string" && (LAYOUTS as readonly string[]).includes(s);
}

function fieldsOf(layout: Layout): string[] {
  return Object.keys(LAYOUT_SCHEMAS[layout].entries);
}

/** `a.b[2].c` from a valibot issue path. */
function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
  }
  return out;
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string")
    return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value);
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value).slice(0, 40)}`;
}

/** The one message for an invalid field: where, what is wrong, and what the layout accepts when the field is unknown. */
function issueMessage(layout: Layout, issue: v.BaseIssue<unknown>, at: string): string {
  const p = issuePath(issue);
  const where = p ? `${at}.${p}` : at;
  if (issue.type === "strict_object" && issue.expected === "never") {
    const parent = p.replace(/(^|\.)[^.[\]]+$/, "");
    const fields = parent === "" ? fieldsOf(layout) : nestedFields(layout, parent);
    const key = p.slice(parent ? parent.length + 1 : 0);
    return `${where}: unknown field ${JSON.stringify(key).slice(0, 80)}; ${parent ? `${at}.${parent}` : `layout ${layout}`} takes ${fields.join(", ")}`;
  }
  if (issue.input === undefined) return `${where}: missing (required by layout ${layout})`;
  const req = (issue as { requirement?: unknown }).requirement;
  const isText = typeof issue.input === "string";
  let what: string;
  if (issue.type === "max_length")
    what = isText
      ? `at most ${req} characters`
      : issue.message.startsWith("at most")
        ? issue.message
        : `at most ${req} items`;
  else if (issue.type === "min_length")
    what = isText
      ? "must not be empty"
      : issue.message.startsWith("at least")
        ? issue.message
        : `at least ${req} items`;
  else if (issue.kind === "schema")
    what = `must be ${issue.expected === "Object" ? "an object" : issue.expected === "Array" ? "an array" : `a ${issue.expected}`}`;
  else what = issue.message.replace(/^Invalid (type|length|format|key|value): /, "");
  return `${where}: ${what} (got ${describe(issue.input)})`;
}

/** Field names of the object schema at `path` (e.g. "plans[0]", "left") inside a layout. */
function nestedFields(layout: Layout, path: string): string[] {
  let node: unknown = LAYOUT_SCHEMAS[layout];
  for (const part of path.split(".")) {
    const name = part.replace(/\[\d+\]$/, "");
    node = unwrap(node);
    node = (node as { entries?: Record<string, unknown> }).entries?.[name];
    node = unwrap(node);
    if (/\[\d+\]$/.test(part)) node = unwrap((node as { item?: unknown }).item);
  }
  const entries = (unwrap(node) as { entries?: object } | undefined)?.entries;
  return entries ? Object.keys(entries) : [];
}

function unwrap(node: unknown): unknown {
  let n = node as { type?: string; wrapped?: unknown; pipe?: unknown[] } | undefined;
  for (let i = 0; i < 5 && n; i++) {
    if (n.type === "optional" || n.type === "nullable") n = n.wrapped as typeof n;
    else if (Array.isArray(n.pipe) && n.pipe[0] !== n) n = n.pipe[0] as typeof n;
    else break;
  }
  return n;
}

/**
 * The slide's content, validated for its layout; throws a validation error
 * naming the field path (`at` is where the content sits in the call,
 * e.g. "slides[2].content"). Up to 5 problems are reported at once.
 */
export function validateContent(layout: Layout, content: unknown, at: string): Record<string, unknown> {
  if (content === null || typeof content !== "object" || Array.isArray(content))
    throw invalid(`${at} must be an object of the ${layout} layout's fields (${fieldsOf(layout).join(", ")}).`, {
      path: at,
    });
  const r = v.safeParse(LAYOUT_SCHEMAS[layout], content);
  if (!r.success) {
    const msgs = r.issues.slice(0, 5).map((i) => issueMessage(layout, i, at));
    throw invalid(`${msgs.join("; ")}. See deck_layouts_list for each layout's fields.`, { path: at, layout });
  }
  return r.output as Record<string, unknown>;
}

/** Media ids a slide's content names, with where (for errors). */
export function imageRefs(content: Record<string, unknown>): { id: number; path: string }[] {
  const out: { id: number; path: string }[] = [];
  const walk = (x: unknown, path: string) => {
    if (Array.isArray(x)) return x.forEach((y, i) => walk(y, `${path}[${i}]`));
    if (!x || typeof x !== "object") return;
    for (const [k, y] of Object.entries(x)) {
      if (k === "imageId" && typeof y === "number") out.push({ id: y, path: path ? `${path}.${k}` : k });
      else walk(y, path ? `${path}.${k}` : k);
    }
  };
  walk(content, "");
  return out;
}

/** Every string of a value with its path, for placeholders and text replacement. */
export function mapStrings<T>(x: T, fn: (s: string, path: string) => string, path = ""): T {
  if (typeof x === "string") return fn(x, path) as T;
  if (Array.isArray(x)) return x.map((y, i) => mapStrings(y, fn, `${path}[${i}]`)) as T;
  if (x && typeof x === "object") {
    const out: Record<string, unknown> = {};
    for (const [k, y] of Object.entries(x)) out[k] = mapStrings(y, fn, path ? `${path}.${k}` : k);
    return out as T;
  }
  return x;
}

const OPEN_Q = `"“”„«»'‘’‹›`;
const WRAPPED = new RegExp(`^[${OPEN_Q}]+\\s*([\\s\\S]*?)\\s*[${OPEN_Q}]+([.!?…]?)$`);

/**
 * A quote without the quotation marks it was typed with ("…", “…”, «…»,
 * '…'): every renderer sets its own opening mark, so typed ones would show
 * twice. Only a pair around the whole text goes; quotes inside stay.
 */
export function bareQuote(s: string): string {
  const t = s.trim();
  const m = WRAPPED.exec(t);
  // `"Yes" and "no"` is two quotes, not one wrapped pair.
  return m?.[1] && !/["“”«»]/.test(m[1]) ? `${m[1]}${m[2] ?? ""}` : t;
}

/** The text a slide shows, joined (for the too-much-text warning and summaries). */
export function slideText(content: Record<string, unknown>): string {
  const parts: string[] = [];
  mapStrings(content, (s, path) => {
    if (!/(^|\.)(url|ctaUrl|website|email|fit|currency|side)$/.test(path)) parts.push(s);
    return s;
  });
  return parts.join(" ");
}

/** The slide's heading for lists: its title, or what stands in for one. */
export function slideTitle(layout: Layout, content: Record<string, unknown>): string | null {
  const c = content as Record<string, any>;
  const t = c.title ?? (layout === "quote" ? c.quote : null);
  return typeof t === "string" ? (t.length > 80 ? `${t.slice(0, 79)}…` : t) : null;
}

/** Slides read best with little text: a warning (not a refusal) past this many characters. */
export const TEXT_WARN_AT = 700;

export function textWarning(position: number, layout: Layout, content: Record<string, unknown>): string | null {
  const n = slideText(content).length;
  return n > TEXT_WARN_AT
    ? `slide ${position} (${layout}) holds about ${n} characters of text; slides read best under ${TEXT_WARN_AT} (move detail to the speaker notes or split the slide)`
    : null;
}

let layoutDocs: unknown[] | null = null;

/** deck_layouts_list's answer: each layout, what it is for, its fields as JSON Schema, and an example. */
export function layoutReference(): unknown[] {
  layoutDocs ??= LAYOUTS.map((layout) => {
    const schema = plainSchema(toJsonSchema(LAYOUT_SCHEMAS[layout], { errorMode: "ignore" })) as Record<
      string,
      unknown
    >;
    delete schema.$schema;
    return { layout, use: LAYOUT_INFO[layout].use, fields: schema, example: LAYOUT_INFO[layout].example };
  });
  return layoutDocs;
}

/** JSON Schema without the control-character patterns every text field carries (they teach nothing). */
function plainSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(plainSchema);
  if (!node || typeof node !== "object") return node;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(node)) {
    if (k === "pattern" && typeof x === "string" && x.includes("\\u0000")) continue;
    if (k === "minLength" && x === 1) continue;
    out[k] = plainSchema(x);
  }
  return out;
}
