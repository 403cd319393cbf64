/**
 * cms://post-types/fields: what an agent reads before writing a post of a
 * type with custom fields, as blocks://schema is for blocks. The field
 * types and how a value is written, then every post type with fields on
 * the company's sites (a connection reaching one company: the resource
 * is the company's data, like brand://default), each as a table and as the JSON Schema
 * of the `fields` argument of posts_create / posts_update.
 *
 * fieldsJsonSchema is the one source of a post type's JSON Schema: in its
 * "write" form here, in its "served" form (what REST PostDetail.fields
 * holds: every field present, resolved media and references, null when
 * unset) in the site's OpenAPI document (src/rest/openapi.ts).
 */
import { asc, isNotNull, and } from "drizzle-orm";
import type { ResourceDef } from "../../mcp/define";
import { inCompanySites, siteName } from "../sites/facts";
import { definitionsOf, type FieldDef, type FieldItem, NUMBER_MAX, RICH_TEXT_MAX, TEXT_MAX } from "./custom-fields";
import { postTypes } from "./tables";

const TYPES = `| Type | Write | REST PostDetail.fields serves |
|---|---|---|
| text | one line, up to ${TEXT_MAX} characters | the text |
| rich_text | Markdown, several lines, up to ${RICH_TEXT_MAX} characters | the Markdown (the renderer formats it) |
| number | a number between -${NUMBER_MAX} and ${NUMBER_MAX} | the number |
| boolean | true or false | the boolean |
| date | a calendar date, "YYYY-MM-DD" | the same string |
| media | a media id (media_list) of one of the company's sites | { id, url, thumbnailUrl, mimeType, alt, caption, width, height } |
| reference | a post id or product id (\`to\`) of the same site | { type: "post", id, slug, title, postType } while served, { type: "product", id, slug, name } while active; else null |
| select | one of the field's \`options\` | the option |
| list | an array of the item type \`of\` (at most \`maxItems\`, default 100) | the array (items that no longer resolve left out) |`;

/** The JSON Schema of one value as posts_create takes it. */
function itemSchema(item: FieldItem): Record<string, unknown> {
  switch (item.type) {
    case "text":
      return { type: "string", maxLength: TEXT_MAX };
    case "rich_text":
      return { type: "string", maxLength: RICH_TEXT_MAX, contentMediaType: "text/markdown" };
    case "number":
      return { type: "number", minimum: -NUMBER_MAX, maximum: NUMBER_MAX };
    case "boolean":
      return { type: "boolean" };
    case "date":
      return { type: "string", format: "date" };
    case "media":
      return { type: "integer", minimum: 1, description: "media id" };
    case "reference":
      return { type: "integer", minimum: 1, description: `${item.to} id` };
    case "select":
      return { type: "string", enum: item.options };
  }
}

const nstr = { type: ["string", "null"] };
const nint = { type: ["integer", "null"] };
const closed = (properties: Record<string, unknown>) => ({
  type: "object",
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
});
/** A media field as REST serves it (custom-fields.ts MediaRef). */
const MEDIA_REF = closed({
  id: { type: "integer" },
  url: { type: "string" },
  thumbnailUrl: nstr,
  mimeType: { type: "string" },
  alt: nstr,
  caption: nstr,
  width: nint,
  height: nint,
});
/** A reference as REST serves it (custom-fields.ts Ref). */
const POST_REF = closed({
  type: { const: "post" },
  id: { type: "integer" },
  slug: { type: "string" },
  title: { type: "string" },
  postType: { type: "string" },
});
const PRODUCT_REF = closed({
  type: { const: "product" },
  id: { type: "integer" },
  slug: { type: "string" },
  name: { type: "string" },
});

/** The JSON Schema of one value as REST PostDetail.fields serves it (resolveFields): never null inside a list. */
function servedItemSchema(item: FieldItem): Record<string, unknown> {
  switch (item.type) {
    case "media":
      return MEDIA_REF;
    case "reference":
      return item.to === "product" ? PRODUCT_REF : POST_REF;
    default:
      // The other types are served as written.
      return itemSchema(item);
  }
}

/** A served single value may be null: unset, or a media item or reference that no longer resolves. */
function orNull(s: Record<string, unknown>): Record<string, unknown> {
  if (typeof s.type === "string" && s.type !== "object")
    return { ...s, type: [s.type, "null"], ...(Array.isArray(s.enum) ? { enum: [...s.enum, null] } : {}) };
  return { anyOf: [s, { type: "null" }] };
}

/**
 * The JSON Schema of a post type's custom fields. "write": the `fields`
 * argument of posts_create / posts_update (ids, only required fields
 * required). "served": REST PostDetail.fields (custom-fields.ts
 * resolveFields): every defined field present, media and references
 * resolved to objects, a single value null when unset, a list [] when empty.
 */
export function fieldsJsonSchema(defs: FieldDef[], form: "write" | "served" = "write"): Record<string, unknown> {
  const item = form === "write" ? itemSchema : servedItemSchema;
  const properties: Record<string, unknown> = {};
  for (const d of defs) {
    const s =
      d.type === "list"
        ? { type: "array", items: item(d.of!), maxItems: d.maxItems ?? 100 }
        : form === "write"
          ? item(d as FieldItem)
          : orNull(item(d as FieldItem));
    properties[d.name] = { ...s, ...(d.label ? { title: d.label } : {}), ...(d.help ? { description: d.help } : {}) };
  }
  return {
    type: "object",
    properties,
    required: (form === "write" ? defs.filter((d) => d.required) : defs).map((d) => d.name),
    additionalProperties: false,
  };
}

function typeWords(d: FieldDef): string {
  const item = (i: { type: string; options?: string[]; to?: string }) =>
    i.type === "select"
      ? `select: ${i.options!.map((o) => JSON.stringify(o)).join(", ")}`
      : i.type === "reference"
        ? `reference to a ${i.to}`
        : i.type;
  return d.type === "list" ? `list of ${item(d.of!)}${d.maxItems ? ` (at most ${d.maxItems})` : ""}` : item(d);
}

const cell = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

export const postTypeFieldsResource: ResourceDef = {
  uri: "cms://post-types/fields",
  name: "Custom fields of post types",
  description:
    "The custom field types and, per site, each post type's fields with the JSON Schema of posts_create's `fields`. " +
    "Read it before writing a post of a type with fields. Offered only to connections that reach exactly one company; " +
    "others read the definitions in post_types_list.",
  mimeType: "text/markdown",
  scope: "sites:read",
  // The company's own post types: offered to connections that reach one company, as brand://default is.
  singleCompanyOnly: true,
  async read(ctx) {
    const companies = ctx.company ? [ctx.company] : [];
    const out = [
      "# Custom fields of post types",
      "",
      "A post type may define custom fields (post_type_fields_set). posts_create and posts_update take their values in `fields`, " +
        "an object by field name: on update the names given replace those values, a null value clears one, `fields: null` clears all. " +
        "Every write checks them against the post's type; an error names the field path, e.g. `fields.results[1]`. " +
        "Required fields must have a value (an empty list counts as none). REST serves them, resolved, as PostDetail.fields.",
      "",
      TYPES,
      "",
    ];
    let any = false;
    for (const company of companies) {
      const types = await ctx.deps.db
        .select()
        .from(postTypes)
        .where(and(inCompanySites(postTypes.siteId, ctx.deps.db, company.id), isNotNull(postTypes.fields)))
        .orderBy(asc(postTypes.siteId), asc(postTypes.slug));
      for (const t of types) {
        const defs = definitionsOf(t);
        if (!defs.length) continue;
        any = true;
        out.push(
          `## ${t.slug} (post type ${t.id}, site ${t.siteId} "${cell((await siteName(ctx.deps.db, t.siteId)) ?? "")}")`,
          "",
          "| Field | Type | Required | Label |",
          "|---|---|---|---|",
          ...defs.map(
            (d) => `| ${d.name} | ${cell(typeWords(d))} | ${d.required ? "yes" : "no"} | ${cell(d.label ?? "")} |`,
          ),
          "",
          "```json",
          JSON.stringify(fieldsJsonSchema(defs), null, 2),
          "```",
          "",
        );
      }
    }
    if (!any) out.push("No post type on the sites you reach defines custom fields yet.");
    return out.join("\n");
  },
};
