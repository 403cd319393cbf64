/**
 * The OpenAPI 3.1 document of REST v1, served at /api/v1/openapi.json.
 * Resource schemas are hand-written JSON Schema (2020-12) transcribing
 * interface.md section 2 field by field: `required` lists exactly the
 * spec's required fields, nullable fields are typed `[T, "null"]`, and no
 * other properties are allowed. Paths, parameters and responses come from
 * the operation declarations in operations.ts and the parameter specs in
 * params.ts, so the document cannot drift from what the routes do. The REST
 * tests validate every response they receive against this document.
 *
 * Each site also has its own copy, /api/v1/sites/{siteId}/openapi.json
 * (buildSiteOpenApiDocument): the same document plus the site's post types,
 * so a renderer's generated client knows each type's custom fields. The
 * global document stays what it is for every site.
 */
import { MAX_SLUG } from "../core/slug";
import { BLOCK_CATEGORIES } from "../domains/blocks/catalog";
import { fieldsJsonSchema } from "../domains/cms/field-guide";
import type { PostTypeFields } from "../domains/cms/public-reads";
import { OPERATIONS, type Operation } from "./operations";
import { openApiParameter } from "./params";

type Schema = Record<string, unknown>;

const str: Schema = { type: "string" };
const nstr: Schema = { type: ["string", "null"] };
const int: Schema = { type: "integer" };
const nint: Schema = { type: ["integer", "null"] };
const nnum: Schema = { type: ["number", "null"] };
const bool: Schema = { type: "boolean" };
const nbool: Schema = { type: ["boolean", "null"] };
const dt: Schema = { type: "string", format: "date-time" };
const ndt: Schema = { type: ["string", "null"], format: "date-time" };
const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const nullable = (s: Schema): Schema => ({ anyOf: [s, { type: "null" }] });
const arr = (items: Schema): Schema => ({ type: "array", items });
const d = (s: Schema, description: string): Schema => ({ ...s, description });

function obj(properties: Record<string, Schema>, required: string[], description?: string): Schema {
  for (const r of required) if (!(r in properties)) throw new Error(`openapi: required ${r} is not a property`);
  return { type: "object", ...(description ? { description } : {}), properties, required, additionalProperties: false };
}

/** An object of optional string fields (Branding's nested objects). */
const strings = (names: readonly string[], description: string): Schema =>
  obj(Object.fromEntries(names.map((n) => [n, str])), [], description);

const schemas: Record<string, Schema> = {
  Error: obj(
    { success: { const: false }, message: d(str, "Human-readable reason.") },
    ["success", "message"],
    "Error envelope.",
  ),
  OffsetPagination: obj(
    {
      limit: d(int, "Effective limit."),
      offset: d(int, "Effective offset."),
      total: d(int, "All matching items."),
    },
    ["limit", "offset", "total"],
  ),
  PagePagination: obj(
    {
      page: d(int, "1-based page."),
      limit: d(int, "Effective limit."),
      total: d(int, "All matching items."),
      totalPages: d(int, "ceil(total / limit); 0 when nothing matches."),
    },
    ["page", "limit", "total", "totalPages"],
  ),
  PostSummary: obj(
    {
      id: int,
      title: str,
      slug: str,
      postType: d(str, "Post type slug, e.g. blog, page, case-study."),
      excerpt: nstr,
      coverImage: d(nstr, "URL."),
      publishedAt: ndt,
    },
    ["id", "title", "slug", "postType", "publishedAt"],
  ),
  PostDetail: obj(
    {
      id: int,
      websiteId: d(int, "The site id."),
      title: str,
      slug: str,
      postType: str,
      excerpt: nstr,
      content: d(
        nstr,
        "JSON-encoded string of an object { blocks: array, version: string }; clients parse it themselves.",
      ),
      coverImage: nstr,
      ogImage: nstr,
      published: bool,
      publishedAt: ndt,
      seoTitle: nstr,
      seoDescription: nstr,
      canonicalUrl: nstr,
      customCss: nstr,
      customJs: nstr,
      noIndex: nbool,
      parentPostId: nint,
      createdAt: dt,
      updatedAt: dt,
      categories: arr(ref("CategoryEmbedded")),
      tags: arr(ref("TagEmbedded")),
      fields: d(
        { type: "object" },
        "The post type's custom fields by name, present only when the type defines some: text, numbers, booleans, dates (YYYY-MM-DD), select values, media items, references ({ type: post | product, … }) or lists of these; unset: null. Each post type's JSON Schema: the MCP resource cms://post-types/fields.",
      ),
    },
    ["id", "title", "slug", "postType", "published", "websiteId", "createdAt", "updatedAt", "categories", "tags"],
  ),
  Category: obj({ id: int, name: str, slug: str, description: nstr, color: d(nstr, "Hex colour string.") }, [
    "id",
    "name",
    "slug",
  ]),
  CategoryEmbedded: obj({ id: int, name: str, slug: str, color: nstr }, ["id", "name", "slug"]),
  Tag: obj({ id: int, name: str, slug: str }, ["id", "name", "slug"]),
  TagEmbedded: obj({ id: int, name: str, slug: str }, ["id", "name", "slug"]),
  MediaItem: obj(
    {
      id: int,
      filename: d(str, "Original file name."),
      mimeType: str,
      url: d(str, "URL of the original file."),
      thumbnailUrl: nstr,
      alt: nstr,
      caption: nstr,
      width: d(nint, "Pixels."),
      height: d(nint, "Pixels."),
    },
    ["id", "filename", "mimeType", "url"],
  ),
  Block: obj(
    {
      type: d(str, "Machine identifier used as the type field in block JSON."),
      name: d(str, "Display name."),
      category: { type: "string", enum: [...BLOCK_CATEGORIES] },
      inputs: d(arr(str), "Accepted input field names."),
    },
    ["type", "name", "category", "inputs"],
  ),
  ProductSummary: obj(
    {
      id: int,
      name: str,
      slug: str,
      shortDescription: nstr,
      price: d(int, "Cents."),
      compareAtPrice: d(nint, "Cents; null when unset."),
      featured: bool,
      categoryId: d(nint, "Null when uncategorized (or the category is inactive)."),
      categoryName: nstr,
      image: d(nstr, "URL of the first image by display order; null when none."),
      createdAt: dt,
    },
    ["id", "name", "slug", "price"],
  ),
  ProductDetail: obj(
    {
      id: int,
      websiteId: int,
      categoryId: nint,
      name: str,
      slug: str,
      description: d(nstr, "HTML."),
      shortDescription: nstr,
      sku: nstr,
      barcode: nstr,
      price: d(int, "Cents."),
      compareAtPrice: d(nint, "Cents."),
      costPrice: d(nint, "Cents."),
      trackInventory: bool,
      quantity: nint,
      weight: nstr,
      weightUnit: nstr,
      lengthIn: nnum,
      widthIn: nnum,
      heightIn: nnum,
      status: { type: "string", enum: ["active", "inactive", "draft"] },
      featured: bool,
      designable: bool,
      seoTitle: nstr,
      seoDescription: nstr,
      tags: { type: ["array", "null"], items: str },
      metadata: d({}, "Any JSON value; null when unset."),
      createdAt: dt,
      updatedAt: dt,
      images: arr(ref("ProductImage")),
      options: arr(ref("ProductOption")),
      variants: d(arr(ref("ProductVariant")), "Only variants with active = true."),
      bulkPricing: arr(ref("BulkPricingRule")),
      category: nullable(ref("ProductCategoryRef")),
    },
    [
      "id",
      "websiteId",
      "name",
      "slug",
      "price",
      "status",
      "createdAt",
      "updatedAt",
      "images",
      "options",
      "variants",
      "bulkPricing",
    ],
  ),
  ProductImage: obj({ id: int, productId: int, url: str, alt: nstr, order: int, createdAt: dt }, [
    "id",
    "productId",
    "url",
    "order",
    "createdAt",
  ]),
  ProductOption: obj(
    { id: int, productId: int, name: str, order: int, createdAt: dt, values: arr(ref("ProductOptionValue")) },
    ["id", "productId", "name", "order", "createdAt", "values"],
  ),
  ProductOptionValue: obj(
    {
      id: int,
      optionId: int,
      value: d(str, "Internal value."),
      label: d(nstr, "Display label."),
      order: int,
      createdAt: dt,
    },
    ["id", "optionId", "value", "order", "createdAt"],
  ),
  ProductVariant: obj(
    {
      id: int,
      productId: int,
      name: str,
      sku: nstr,
      barcode: nstr,
      price: d(int, "Cents."),
      compareAtPrice: nint,
      costPrice: nint,
      quantity: nint,
      weight: nstr,
      image: nstr,
      lengthIn: nnum,
      widthIn: nnum,
      heightIn: nnum,
      active: bool,
      optionValues: arr(obj({ optionId: int, valueId: int }, ["optionId", "valueId"])),
      createdAt: dt,
      updatedAt: dt,
    },
    ["id", "productId", "name", "price", "quantity", "active", "createdAt", "updatedAt", "optionValues"],
  ),
  BulkPricingRule: obj(
    {
      id: int,
      productId: int,
      variantId: nint,
      minQuantity: int,
      maxQuantity: nint,
      priceType: { type: "string", enum: ["fixed", "percent_off"] },
      amount: d(int, "fixed: price in cents; percent_off: basis points (1000 = 10 % off)."),
      createdAt: dt,
    },
    ["id", "productId", "minQuantity", "priceType", "amount", "createdAt"],
  ),
  ProductCategory: obj(
    {
      id: int,
      name: str,
      slug: str,
      description: nstr,
      image: nstr,
      parentId: d(nint, "Null for top level."),
      order: int,
      productCount: d(int, "Live count of active products in the category."),
    },
    ["id", "name", "slug", "order", "productCount"],
  ),
  ProductCategoryRef: obj({ id: int, name: str, slug: str }, ["id", "name", "slug"]),
  Branding: obj(
    {
      primaryColor: d(str, "Hex; renderer default #2563eb."),
      secondaryColor: d(str, "Hex; renderer default #1e40af."),
      accentColor: d(str, "Hex; renderer default #f59e0b."),
      backgroundColor: d(str, "Hex; renderer default #ffffff."),
      textColor: d(str, "Hex; renderer default #111827."),
      headingFont: str,
      bodyFont: str,
      logoUrl: str,
      logoSquareUrl: str,
      logoRectUrl: str,
      logoIconUrl: str,
      logoText: str,
      logoAlt: str,
      navTemplate: str,
      navPosition: str,
      navBackground: str,
      navTextColor: str,
      borderRadius: d(str, "CSS value."),
      linkColor: str,
      linkHoverColor: str,
      faviconUrl: str,
      ogImageUrl: str,
      buttonStyle: strings(
        [
          "primaryBg",
          "primaryText",
          "primaryHoverBg",
          "secondaryBg",
          "secondaryText",
          "secondaryHoverBg",
          "borderRadius",
          "variant",
        ],
        "Button colours and shape.",
      ),
      buttonPresets: arr(
        strings(
          [
            "id",
            "name",
            "backgroundColor",
            "color",
            "borderRadius",
            "fontWeight",
            "textTransform",
            "paddingX",
            "paddingY",
          ],
          "A button preset; id is a stable UUID.",
        ),
      ),
      typography: {
        type: "object",
        description: "Keyed by element name (h1, body, …).",
        additionalProperties: strings(
          ["font", "size", "weight", "lineHeight", "letterSpacing"],
          "Type style of one element.",
        ),
      },
      darkMode: strings(
        ["primaryColor", "backgroundColor", "textColor", "navBackground", "navTextColor"],
        "Dark-mode overrides.",
      ),
    },
    [],
    "Only the values that are set are present; the listed defaults are for renderers to apply.",
  ),
  CssVars: {
    type: "object",
    description: "CSS custom property name to value, only for branding values that are set (naming in docs/rest.md).",
    propertyNames: { pattern: "^--[a-z0-9-]+$" },
    additionalProperties: str,
  },
  SiteConfig: obj(
    {
      id: d(int, "Site id."),
      storeEnabled: d(bool, "True when an enabled store is configured."),
      name: str,
      domain: d(nstr, "Custom domain."),
      subdomain: nstr,
      description: nstr,
      customLayout: d({}, "Any JSON value or null."),
      branding: ref("Branding"),
      cssVars: ref("CssVars"),
      navigation: arr(ref("NavigationItem")),
    },
    ["id", "storeEnabled"],
  ),
  NavigationItem: obj(
    {
      id: int,
      label: str,
      href: d(str, "Relative or absolute."),
      sortOrder: d(int, "Ascending within siblings."),
      openInNewTab: bool,
      isButton: d(bool, "Render as a call-to-action button."),
      children: d(arr(ref("NavigationItem")), "Always present; empty when none."),
      parentId: d(nint, "Null for a root item."),
      description: d(nstr, "Mega-menu subtitle."),
      icon: d(nstr, "Icon name."),
      featuredImage: d(nstr, "URL."),
      columnGroup: d(nint, "Column grouping hint."),
    },
    ["id", "label", "href", "sortOrder", "openInNewTab", "isButton", "children"],
  ),
};

const intHeader = (description: string) => ({ description, schema: { type: "integer" } });
const headers = {
  ETag: { description: "Strong validator of this representation; send it back in If-None-Match.", schema: str },
  CacheControl: {
    description: "private, no-cache for keyed calls; public, max-age=60 for anonymous ones; no-store on errors.",
    schema: str,
  },
  RateLimitLimit: intHeader("Requests per minute allowed for the key (or client address)."),
  RateLimitRemaining: intHeader("Requests left now; 0 on a 429."),
  RetryAfter: intHeader("Seconds until the next request will be admitted."),
};
const rateHeaders = {
  "X-RateLimit-Limit": { $ref: "#/components/headers/RateLimitLimit" },
  "X-RateLimit-Remaining": { $ref: "#/components/headers/RateLimitRemaining" },
};
const errorContent = (example: string) => ({
  "application/json": { schema: ref("Error"), example: { success: false, message: example } },
});

const responses: Record<string, Schema> = {
  NotModified: {
    description: "Not Modified: If-None-Match matched the current ETag. No body.",
    headers: {
      ETag: { $ref: "#/components/headers/ETag" },
      "Cache-Control": { $ref: "#/components/headers/CacheControl" },
      ...rateHeaders,
    },
  },
  BadRequest: {
    description: 'A path or query parameter is malformed or out of range (e.g. "Invalid site ID", "limit must be …").',
    headers: rateHeaders,
    content: errorContent("Invalid site ID"),
  },
  Unauthorized: {
    description:
      'No key on an endpoint that needs one ("API key required"), or a key that is unknown, expired, revoked or for another site ("Invalid API key").',
    headers: { ...rateHeaders, "WWW-Authenticate": { schema: str } },
    content: errorContent("Invalid API key"),
  },
  TooManyRequests: {
    description: "Rate limit exceeded.",
    headers: { ...rateHeaders, "Retry-After": { $ref: "#/components/headers/RetryAfter" } },
    content: errorContent("Rate limit exceeded"),
  },
  Error: {
    description: "Any other error (e.g. 405 for a method other than GET/HEAD/OPTIONS).",
    headers: rateHeaders,
    content: errorContent("Not found"),
  },
};

function successSchema(op: Operation): Schema {
  const data = "ref" in op.data ? ref(op.data.ref) : arr(ref(op.data.arrayOf));
  const properties: Record<string, Schema> = { success: { const: true }, data };
  const required = ["success", "data"];
  if (op.pagination) {
    properties.pagination = ref(op.pagination === "offset" ? "OffsetPagination" : "PagePagination");
    required.push("pagination");
  }
  for (const [k, name] of Object.entries(op.topLevel ?? {})) {
    properties[k] = ref(name);
    required.push(k);
  }
  return obj(properties, required);
}

const SITE_ID_PARAM = {
  name: "siteId",
  in: "path",
  required: true,
  description:
    'Numeric site id: decimal digits without leading zeros, at most 2^53 - 1 (anything else is 400 "Invalid site ID").',
  schema: { type: "integer", minimum: 1, maximum: Number.MAX_SAFE_INTEGER },
};
const SLUG_PARAM = {
  name: "slug",
  in: "path",
  required: true,
  description: "Lowercase letters, digits and single hyphens (anything else is 400).",
  schema: { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", maxLength: MAX_SLUG },
};

function operationObject(op: Operation): Schema {
  const res: Record<string, Schema> = {
    "200": {
      description: "OK",
      headers: {
        ETag: { $ref: "#/components/headers/ETag" },
        "Cache-Control": { $ref: "#/components/headers/CacheControl" },
        ...rateHeaders,
      },
      content: { "application/json": { schema: successSchema(op) } },
    },
    "304": { $ref: "#/components/responses/NotModified" },
  };
  for (const s of op.errors) {
    if (s === 400) res["400"] = { $ref: "#/components/responses/BadRequest" };
    if (s === 401) res["401"] = { $ref: "#/components/responses/Unauthorized" };
    if (s === 404) {
      const storeOnly = op.operationId === "listProducts" || op.operationId === "listProductCategories";
      res["404"] = {
        description: op.notFound ?? "Not found.",
        headers: rateHeaders,
        content: errorContent(storeOnly ? "Store not found" : "Not found"),
      };
    }
    if (s === 429) res["429"] = { $ref: "#/components/responses/TooManyRequests" };
  }
  res.default = { $ref: "#/components/responses/Error" };
  const security =
    op.auth === "required"
      ? [{ bearerAuth: [] }, { apiKeyHeader: [] }]
      : [{ bearerAuth: [] }, { apiKeyHeader: [] }, {}];
  return {
    operationId: op.operationId,
    tags: [op.tag],
    summary: op.summary,
    description: `${op.description}${op.auth === "optional" ? " Authentication is optional; a key that is presented must be valid for this site." : ""}`,
    security,
    parameters: [
      { $ref: "#/components/parameters/siteId" },
      ...(op.slug ? [{ $ref: "#/components/parameters/slug" }] : []),
      ...op.query.map(openApiParameter),
      {
        name: "If-None-Match",
        in: "header",
        required: false,
        description: "An ETag from an earlier response; a match answers 304 with no body.",
        schema: str,
      },
    ],
    responses: res,
  };
}

export function buildOpenApiDocument(serverUrl: string): Schema {
  const paths: Record<string, Schema> = {};
  for (const op of OPERATIONS) paths[op.path] = { get: operationObject(op) };
  return {
    openapi: "3.1.0",
    jsonSchemaDialect: "https://json-schema.org/draft/2020-12/schema",
    info: {
      title: "Plinth REST API",
      version: "1.0.0",
      description:
        "Read-only API over a site's published content, media, block catalog, commerce catalog and configuration, for headless renderers. Every response is a JSON envelope; see docs/rest.md for orders, limits, caching and rate limits.",
    },
    servers: [{ url: `${serverUrl.replace(/\/$/, "")}/api/v1` }],
    tags: [
      { name: "Content", description: "Posts, pages, categories, tags." },
      { name: "Media", description: "Media library." },
      { name: "Blocks", description: "Block type catalog." },
      { name: "Commerce", description: "Products and product categories (sites with an enabled store)." },
      { name: "Site", description: "Branding, configuration, navigation." },
    ],
    paths,
    components: {
      schemas,
      headers,
      responses,
      parameters: { siteId: SITE_ID_PARAM, slug: SLUG_PARAM },
      securitySchemes: {
        bearerAuth: {
          type: "http",
          scheme: "bearer",
          description: "Authorization: Bearer svc_live_… (checked first when both forms are sent).",
        },
        apiKeyHeader: { type: "apiKey", in: "header", name: "x-api-key", description: "x-api-key: svc_live_…" },
      },
    },
  };
}

/** Where a site's own document is served, under /api/v1. */
export const SITE_OPENAPI_PATH = "/sites/{siteId}/openapi.json";

/**
 * The document of one site: the global document, plus per post type of the
 * site a schema PostFields_<slug> (its custom fields as REST serves them,
 * from the same fieldsJsonSchema as cms://post-types/fields) and
 * PostDetail_<slug> (PostDetail with that postType, and those fields,
 * always present, or none for a type without fields), and
 * getPostBySlug answering one of those, told apart by postType. A post
 * type's slug is lower-case letters, digits and hyphens, so the names are
 * valid component names; labels and help texts are data inside the JSON.
 * A site without post types (no post yet) gets the global document as is.
 */
export function buildSiteOpenApiDocument(serverUrl: string, siteId: number, types: readonly PostTypeFields[]): Schema {
  const doc = buildOpenApiDocument(serverUrl) as any;
  if (!types.length) return doc;
  doc.info = {
    ...doc.info,
    description: `${doc.info.description} This is site ${siteId}'s copy: getPostBySlug answers PostDetail_<postType> for each of the site's post types, with its custom fields as PostFields_<postType>.`,
  };
  const added: Record<string, Schema> = {};
  const mapping: Record<string, string> = {};
  for (const t of types) {
    added[`PostFields_${t.slug}`] = {
      ...fieldsJsonSchema(t.fields, "served"),
      description: t.fields.length
        ? `Custom fields of post type ${t.slug} (${t.name}), as PostDetail.fields serves them: every field present, null when unset (a list: empty).`
        : `Post type ${t.slug} (${t.name}) defines no custom fields: its posts carry no fields member.`,
    };
    // PostDetail's own properties with these two, flat (not allOf): discriminators and client generators read it directly.
    const base = schemas.PostDetail as { properties: Record<string, Schema>; required: string[] };
    added[`PostDetail_${t.slug}`] = obj(
      {
        ...base.properties,
        postType: { const: t.slug },
        // JSON Schema `false`: a post of a type without fields has no fields member.
        fields: t.fields.length ? ref(`PostFields_${t.slug}`) : (false as unknown as Schema),
      },
      t.fields.length ? [...base.required, "fields"] : base.required,
      `A post of type ${t.slug} (${t.name})${t.fields.length ? ", with its custom fields" : ""}.`,
    );
    mapping[t.slug] = `#/components/schemas/PostDetail_${t.slug}`;
  }
  doc.components = { ...doc.components, schemas: { ...doc.components.schemas, ...added } };
  const path = "/sites/{siteId}/posts/{slug}";
  const get = structuredClone(doc.paths[path].get);
  get.description += " The post's schema follows its postType (PostDetail_<postType>).";
  get.responses["200"].content["application/json"].schema.properties.data = {
    oneOf: types.map((t) => ref(`PostDetail_${t.slug}`)),
    discriminator: { propertyName: "postType", mapping },
  };
  doc.paths = { ...doc.paths, [path]: { get } };
  return doc;
}
