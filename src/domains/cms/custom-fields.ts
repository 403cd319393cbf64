/**
 * Custom fields per post type: typed definitions on the post type
 * (post_types.fields, set whole by post_type_fields_set), values per post
 * (posts.fields), checked on every write of a post and served to renderers
 * as PostDetail.fields.
 *
 * Types: text (one line), rich_text (Markdown, multi-line), number, boolean,
 * date (YYYY-MM-DD), media (a media id of one of the company's sites),
 * reference (a post or product id of the same site), select (one of its
 * options), and list (of any of these but list). Errors name the field path
 * as an agent wrote it, `fields.results[1]`, so it can fix that value.
 *
 * Values are stored as given (ids for media and references); REST resolves
 * them when it serves the post (resolveFields), tenant-checked there again,
 * so a media item or product deleted later reads as null, not as a dangling id.
 */
import { and, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import type { Tx } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { line, textBlock } from "../../core/fields";
import { productRefsOfSite } from "../store/facts";
import { companyOfSite, inCompanySites } from "../sites/facts";
import { media, posts, postTypes } from "./tables";

export const FIELD_TYPES = [
  "text",
  "rich_text",
  "number",
  "boolean",
  "date",
  "media",
  "reference",
  "select",
  "list",
] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

/** What a list holds: any type but list, with its own options or target. */
export interface FieldItem {
  type: Exclude<FieldType, "list">;
  options?: string[];
  to?: "post" | "product";
}

export interface FieldDef {
  name: string;
  label?: string;
  help?: string;
  type: FieldType;
  required?: boolean;
  /** select (and a list of select): the allowed values. */
  options?: string[];
  /** reference (and a list of reference): what it points at. */
  to?: "post" | "product";
  /** list: what each item is, and how many at most. */
  of?: FieldItem;
  maxItems?: number;
}

export const MAX_FIELDS = 40;
export const TEXT_MAX = 2000;
export const RICH_TEXT_MAX = 20_000;
/** Larger magnitudes lose integer precision in JSON clients; refused rather than rounded. */
export const NUMBER_MAX = 1e15;
const LIST_MAX = 100;

const options = v.pipe(v.array(line(100)), v.minLength(1), v.maxLength(100));
const target = v.picklist(["post", "product"]);
const itemSchema = v.strictObject({
  type: v.picklist(FIELD_TYPES.filter((t) => t !== "list") as Exclude<FieldType, "list">[]),
  options: v.optional(options),
  to: v.optional(target),
});

/** One definition, as post_type_fields_set takes it. */
export const fieldDefSchema = v.strictObject({
  name: v.pipe(
    v.string(),
    v.regex(/^[a-z][a-zA-Z0-9_]{0,39}$/, "must start with a lower-case letter: letters, digits, _ (up to 40)"),
  ),
  label: v.optional(line(100)),
  help: v.optional(textBlock(300)),
  type: v.picklist(FIELD_TYPES),
  required: v.optional(v.boolean()),
  options: v.optional(options),
  to: v.optional(target),
  of: v.optional(itemSchema),
  maxItems: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIST_MAX))),
});
export const fieldDefsSchema = v.pipe(v.array(fieldDefSchema), v.maxLength(MAX_FIELDS));

/** The cross-property rules valibot cannot say: options only on select, `to` on reference, `of` on list. */
export function checkDefinitions(defs: FieldDef[]): FieldDef[] {
  const seen = new Set<string>();
  defs.forEach((d, i) => {
    const at = `fields[${i}]`;
    if (seen.has(d.name)) throw invalid(`${at}.name: "${d.name}" is defined twice.`, { path: `${at}.name` });
    seen.add(d.name);
    checkShape(at, d);
    if (d.type === "list") {
      if (!d.of) throw invalid(`${at}.of: a list says what it holds, e.g. {"type": "text"}.`, { path: `${at}.of` });
      checkShape(`${at}.of`, d.of);
    } else {
      if (d.of) throw invalid(`${at}.of: only a list has items.`, { path: `${at}.of` });
      if (d.maxItems !== undefined) throw invalid(`${at}.maxItems: only a list has it.`, { path: `${at}.maxItems` });
    }
  });
  return defs;
}

function checkShape(at: string, d: { type: FieldType; options?: string[]; to?: string }) {
  if (d.type === "select" && !d.options)
    throw invalid(`${at}.options: a select lists its options.`, { path: `${at}.options` });
  if (d.type !== "select" && d.options)
    throw invalid(`${at}.options: only a select has options.`, { path: `${at}.options` });
  if (d.type === "select" && new Set(d.options).size !== d.options!.length)
    throw invalid(`${at}.options: each option once.`, { path: `${at}.options` });
  if (d.type === "reference" && !d.to)
    throw invalid(`${at}.to: a reference says what it points at: "post" or "product".`, { path: `${at}.to` });
  if (d.type !== "reference" && d.to) throw invalid(`${at}.to: only a reference has a target.`, { path: `${at}.to` });
}

export function definitionsOf(type: { fields: unknown } | undefined | null): FieldDef[] {
  return Array.isArray(type?.fields) ? (type.fields as FieldDef[]) : [];
}

// ---------------------------------------------------------------------------
// Values

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const SINGLE_LINE = /^[^\u0000-\u001f\u007f]*$/;
const MULTI_LINE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;

function fail(path: string, message: string): never {
  throw invalid(`${path} ${message}`, { path });
}

function describeValue(x: unknown): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return "a list";
  return typeof x === "object" ? "an object" : `a ${typeof x}`;
}

/** Ids to check against the database after the shapes: media of the company, posts and products of the site. */
interface Pending {
  media: Map<number, string>;
  post: Map<number, string>;
  product: Map<number, string>;
}

function checkValue(path: string, item: FieldItem, x: unknown, ids: Pending): unknown {
  switch (item.type) {
    case "text":
    case "rich_text": {
      if (typeof x !== "string") fail(path, `must be text, not ${describeValue(x)}.`);
      const max = item.type === "text" ? TEXT_MAX : RICH_TEXT_MAX;
      if (x.length > max) fail(path, `is ${x.length} characters; at most ${max}.`);
      if (!(item.type === "text" ? SINGLE_LINE : MULTI_LINE).test(x))
        fail(path, item.type === "text" ? "must be one line without control characters." : "has control characters.");
      return x;
    }
    case "number":
      if (typeof x !== "number" || !Number.isFinite(x)) fail(path, `must be a number, not ${describeValue(x)}.`);
      if (Math.abs(x) > NUMBER_MAX) fail(path, `is too large: at most ${NUMBER_MAX} either way.`);
      return x;
    case "boolean":
      if (typeof x !== "boolean") fail(path, `must be true or false, not ${describeValue(x)}.`);
      return x;
    case "date": {
      const m = typeof x === "string" ? DATE_RE.exec(x) : null;
      const d = m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))) : null;
      if (!m || !d || d.toISOString().slice(0, 10) !== x)
        fail(path, "must be a calendar date written YYYY-MM-DD, e.g. 2026-11-30.");
      return x;
    }
    case "select":
      if (typeof x !== "string" || !item.options!.includes(x))
        fail(path, `must be one of ${item.options!.map((o) => JSON.stringify(o)).join(", ")}.`);
      return x;
    case "media":
    case "reference": {
      const kind = item.type === "media" ? "media" : item.to!;
      if (typeof x !== "number" || !Number.isSafeInteger(x) || x < 1)
        fail(path, `must be the id of a ${kind === "media" ? "media item" : kind} (a positive integer).`);
      ids[kind].set(x, path);
      return x;
    }
  }
}

/**
 * The post's values checked against its type's definitions: the object as
 * it will be stored (keys in definition order, nulls left out). `siteId` is
 * the post's site; media may be any site's of its company.
 */
export async function checkFieldValues(
  tx: Tx,
  siteId: number,
  typeSlug: string,
  defs: FieldDef[],
  values: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const known = new Set(defs.map((d) => d.name));
  for (const k of Object.keys(values))
    if (!known.has(k))
      fail(
        `fields.${k}`,
        defs.length
          ? `is not a field of post type "${typeSlug}"; its fields are ${defs.map((d) => d.name).join(", ")}.`
          : `is not a field: post type "${typeSlug}" has no custom fields (post_type_fields_set defines them).`,
      );
  const ids: Pending = { media: new Map(), post: new Map(), product: new Map() };
  const out: Record<string, unknown> = {};
  for (const d of defs) {
    const path = `fields.${d.name}`;
    const x = values[d.name];
    if (x === undefined || x === null || (d.type === "list" && Array.isArray(x) && x.length === 0)) {
      if (d.required) fail(path, `is required by post type "${typeSlug}".`);
      continue;
    }
    if (d.type === "list") {
      if (!Array.isArray(x)) fail(path, `must be a list, not ${describeValue(x)}.`);
      const max = d.maxItems ?? LIST_MAX;
      if (x.length > max) fail(path, `has ${x.length} items; at most ${max}.`);
      out[d.name] = x.map((item, i) => checkValue(`${path}[${i}]`, d.of!, item, ids));
    } else out[d.name] = checkValue(path, d as FieldItem, x, ids);
  }
  await checkIds(tx, siteId, ids);
  return out;
}

async function checkIds(tx: Tx, siteId: number, ids: Pending) {
  const missing = async (kind: keyof Pending, found: number[]) => {
    const have = new Set(found);
    for (const [id, path] of ids[kind])
      if (!have.has(id))
        throw notFound(
          `${path}: ${kind === "media" ? "media item" : kind} ${id} not found ${kind === "media" ? "in this company's media" : "on this site"}.`,
        );
  };
  if (ids.media.size) {
    const found = await tx
      .select({ id: media.id })
      .from(media)
      .where(
        and(
          inArray(media.id, [...ids.media.keys()]),
          inCompanySites(media.siteId, tx, (await companyOfSite(tx, siteId)) ?? -1),
        ),
      );
    await missing(
      "media",
      found.map((r) => r.id),
    );
  }
  if (ids.post.size) {
    const found = await tx
      .select({ id: posts.id })
      .from(posts)
      .where(and(inArray(posts.id, [...ids.post.keys()]), eq(posts.siteId, siteId)));
    await missing(
      "post",
      found.map((r) => r.id),
    );
  }
  if (ids.product.size)
    await missing(
      "product",
      (await productRefsOfSite(tx, siteId, [...ids.product.keys()])).map((r) => r.id),
    );
}

/** The definitions of a post type by id (the post's own type). */
export async function definitionsOfType(tx: Tx, postTypeId: number): Promise<{ slug: string; defs: FieldDef[] }> {
  const t = (
    await tx
      .select({ slug: postTypes.slug, fields: postTypes.fields })
      .from(postTypes)
      .where(eq(postTypes.id, postTypeId))
      .limit(1)
  )[0];
  return { slug: t?.slug ?? "?", defs: definitionsOf(t) };
}

// ---------------------------------------------------------------------------
// Serving (REST PostDetail.fields)

/** A media field as a renderer needs it: the file and how to show it. */
export interface MediaRef {
  id: number;
  url: string;
  thumbnailUrl: string | null;
  mimeType: string;
  alt: string | null;
  caption: string | null;
  width: number | null;
  height: number | null;
}
/** A reference as a renderer links it: to a post served now, or a product on sale; else null. */
export type Ref =
  | { type: "post"; id: number; slug: string; title: string; postType: string }
  | { type: "product"; id: number; slug: string; name: string };

/**
 * Every defined field of a served post, resolved: an unset field is null (a
 * list: []), a media id becomes the media item (of the post's company), a
 * reference the post (served on this site now) or product (active on this
 * site). What no longer resolves reads as null, and is left out of a list.
 */
export async function resolveFields(
  tx: Tx,
  siteId: number,
  defs: FieldDef[],
  values: Record<string, unknown> | null,
  now: Date,
): Promise<Record<string, unknown>> {
  const vals = values ?? {};
  const want: Record<"media" | "post" | "product", Set<number>> = {
    media: new Set(),
    post: new Set(),
    product: new Set(),
  };
  const kindOf = (item: FieldItem) =>
    item.type === "media" ? "media" : item.type === "reference" ? (item.to ?? null) : null;
  for (const d of defs) {
    const item = (d.type === "list" ? d.of : d) as FieldItem | undefined;
    const kind = item && kindOf(item);
    if (!kind) continue;
    const x = vals[d.name];
    for (const id of Array.isArray(x) ? x : [x]) if (typeof id === "number") want[kind].add(id);
  }
  const mediaById = new Map<number, MediaRef>();
  if (want.media.size) {
    const company = (await companyOfSite(tx, siteId)) ?? -1;
    for (const m of await tx
      .select({
        id: media.id,
        url: media.url,
        thumbnailUrl: media.thumbnailUrl,
        mimeType: media.mimeType,
        alt: media.alt,
        caption: media.caption,
        width: media.width,
        height: media.height,
      })
      .from(media)
      .where(and(inArray(media.id, [...want.media]), inCompanySites(media.siteId, tx, company))))
      mediaById.set(m.id, m);
  }
  const postById = new Map<number, Ref>();
  if (want.post.size)
    for (const p of await tx
      .select({
        id: posts.id,
        slug: posts.slug,
        title: posts.title,
        postType: postTypes.slug,
        published: posts.published,
        publishedAt: posts.publishedAt,
        unpublishAt: posts.unpublishAt,
      })
      .from(posts)
      .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
      .where(and(inArray(posts.id, [...want.post]), eq(posts.siteId, siteId))))
      if (
        p.published &&
        (!p.publishedAt || p.publishedAt.getTime() <= now.getTime()) &&
        (!p.unpublishAt || p.unpublishAt.getTime() > now.getTime())
      )
        postById.set(p.id, { type: "post", id: p.id, slug: p.slug, title: p.title, postType: p.postType });
  const productById = new Map<number, Ref>();
  for (const p of await productRefsOfSite(tx, siteId, [...want.product], true))
    productById.set(p.id, { type: "product", ...p });
  const one = (item: FieldItem, x: unknown): unknown => {
    if (x === undefined || x === null) return null;
    const kind = kindOf(item);
    if (kind === "media") return mediaById.get(x as number) ?? null;
    if (kind === "post") return postById.get(x as number) ?? null;
    if (kind === "product") return productById.get(x as number) ?? null;
    return x;
  };
  const out: Record<string, unknown> = {};
  for (const d of defs) {
    const x = vals[d.name];
    out[d.name] =
      d.type === "list"
        ? (Array.isArray(x) ? x : []).map((i) => one(d.of!, i)).filter((i) => i !== null)
        : one(d as FieldItem, x);
  }
  return out;
}
