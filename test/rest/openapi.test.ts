/**
 * The OpenAPI 3.1 document checked against interface.md, transcribed here
 * independently of src/rest/openapi.ts: the 13 operations and their paths,
 * parameters with defaults and bounds, declared statuses (rule 4), security,
 * and each resource schema's exact required fields and nullability.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Ajv2020 from "ajv/dist/2020";
import addFormats from "ajv-formats";
import { startTestServer, type TestServer } from "../harness";

let server: TestServer;
let doc: any;

beforeAll(async () => {
  server = await startTestServer({ seed: false, config: { publicUrl: "https://cms.example.com" } });
  doc = await (await fetch(`${server.url}/api/v1/openapi.json`)).json();
});
afterAll(() => server.stop());

const OPS: [string, string, "required" | "optional"][] = [
  ["listPosts", "/sites/{siteId}/posts", "required"],
  ["getPostBySlug", "/sites/{siteId}/posts/{slug}", "required"],
  ["listPages", "/sites/{siteId}/pages", "required"],
  ["listCategories", "/sites/{siteId}/categories", "required"],
  ["listTags", "/sites/{siteId}/tags", "required"],
  ["listMedia", "/sites/{siteId}/media", "required"],
  ["listBlocks", "/sites/{siteId}/blocks", "optional"],
  ["listProducts", "/sites/{siteId}/products", "required"],
  ["getProductBySlug", "/sites/{siteId}/products/{slug}", "required"],
  ["listProductCategories", "/sites/{siteId}/product-categories", "required"],
  ["getBranding", "/sites/{siteId}/branding", "optional"],
  ["getSiteConfig", "/sites/{siteId}/config", "optional"],
  ["getNavigation", "/sites/{siteId}/navigation", "optional"],
];

const op = (path: string) => doc.paths[path].get;
const deref = (x: any) => (x.$ref ? x.$ref.split("/").reduce((o: any, k: string) => (k === "#" ? doc : o[k]), doc) : x);

describe("document", () => {
  test("OpenAPI 3.1, version 1.0.0, served under the public URL", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.info.version).toBe("1.0.0");
    expect(doc.servers).toEqual([{ url: "https://cms.example.com/api/v1" }]);
  });

  test("exactly the 13 operations, all GET", () => {
    expect(Object.keys(doc.paths).sort()).toEqual(OPS.map((o) => o[1]).sort());
    for (const [id, path] of OPS) {
      expect(Object.keys(doc.paths[path])).toEqual(["get"]);
      expect(op(path).operationId).toBe(id);
    }
  });

  test("every $ref resolves", () => {
    const refs: string[] = [];
    const walk = (n: any) => {
      if (Array.isArray(n)) n.forEach(walk);
      else if (n && typeof n === "object")
        for (const [k, v] of Object.entries(n)) k === "$ref" ? refs.push(v as string) : walk(v);
    };
    walk(doc);
    expect(refs.length).toBeGreaterThan(50);
    for (const r of refs) expect(deref({ $ref: r })).toBeDefined();
  });

  test("every schema compiles as JSON Schema 2020-12 (strict)", () => {
    const ajv = new Ajv2020({ strict: true, strictTypes: false });
    addFormats(ajv);
    ajv.addSchema({
      $id: "doc",
      $defs: JSON.parse(JSON.stringify(doc.components.schemas).replaceAll('"#/components/schemas/', '"doc#/$defs/')),
    });
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.getSchema(`doc#/$defs/${name}`)).not.toThrow();
      expect(typeof ajv.getSchema(`doc#/$defs/${name}`)).toBe("function");
    }
  });
});

describe("operations", () => {
  test("security: a key for required operations, optional ({}) for blocks, branding, config, navigation", () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(["apiKeyHeader", "bearerAuth"]);
    expect(doc.components.securitySchemes.apiKeyHeader).toMatchObject({
      type: "apiKey",
      in: "header",
      name: "x-api-key",
    });
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: "http", scheme: "bearer" });
    for (const [, path, auth] of OPS) {
      const sec = op(path).security;
      expect(sec).toContainEqual({ bearerAuth: [] });
      expect(sec).toContainEqual({ apiKeyHeader: [] });
      expect(sec.some((s: any) => Object.keys(s).length === 0)).toBe(auth === "optional");
    }
  });

  test("declared responses follow rule 4 (listBlocks: only 401 and 429; store 404s on listProducts and listProductCategories)", () => {
    for (const [id, path] of OPS) {
      const codes = Object.keys(op(path).responses).sort();
      if (id === "listBlocks") expect(codes).toEqual(["200", "304", "401", "429", "default"]);
      else expect(codes).toEqual(["200", "304", "400", "401", "404", "429", "default"]);
      const r = op(path).responses;
      if (r["404"]) {
        const msg = r["404"].content["application/json"].example.message;
        expect(msg).toBe(id === "listProducts" || id === "listProductCategories" ? "Store not found" : "Not found");
      }
      expect(deref(r["429"]).headers["Retry-After"]).toBeDefined();
      expect(deref(r["429"]).content["application/json"].example.message).toBe("Rate limit exceeded");
      expect(deref(r["401"]).content["application/json"].example.message).toBe("Invalid API key");
      expect(deref(r["304"]).content).toBeUndefined();
      expect(Object.keys(r["200"].headers)).toEqual(
        expect.arrayContaining(["ETag", "X-RateLimit-Limit", "X-RateLimit-Remaining"]),
      );
    }
  });

  test("success envelopes: data shape, pagination kind, cssVars on branding", () => {
    const env = (path: string) => op(path).responses["200"].content["application/json"].schema;
    const expectEnv = (path: string, data: any, extra: Record<string, any> = {}) => {
      const s = env(path);
      expect(s.properties.success).toEqual({ const: true });
      expect(s.properties.data).toEqual(data);
      expect(s.required.sort()).toEqual(["success", "data", ...Object.keys(extra)].sort());
      for (const [k, v] of Object.entries(extra)) expect(s.properties[k]).toEqual(v);
      expect(s.additionalProperties).toBe(false);
    };
    const arr = (n: string) => ({ type: "array", items: { $ref: `#/components/schemas/${n}` } });
    const ref = (n: string) => ({ $ref: `#/components/schemas/${n}` });
    expectEnv("/sites/{siteId}/posts", arr("PostSummary"), { pagination: ref("OffsetPagination") });
    expectEnv("/sites/{siteId}/pages", arr("PostSummary"), { pagination: ref("OffsetPagination") });
    expectEnv("/sites/{siteId}/media", arr("MediaItem"), { pagination: ref("OffsetPagination") });
    expectEnv("/sites/{siteId}/products", arr("ProductSummary"), { pagination: ref("PagePagination") });
    expectEnv("/sites/{siteId}/posts/{slug}", ref("PostDetail"));
    expectEnv("/sites/{siteId}/categories", arr("Category"));
    expectEnv("/sites/{siteId}/tags", arr("Tag"));
    expectEnv("/sites/{siteId}/blocks", arr("Block"));
    expectEnv("/sites/{siteId}/products/{slug}", ref("ProductDetail"));
    expectEnv("/sites/{siteId}/product-categories", arr("ProductCategory"));
    expectEnv("/sites/{siteId}/branding", ref("Branding"), { cssVars: ref("CssVars") });
    expectEnv("/sites/{siteId}/config", ref("SiteConfig"));
    expectEnv("/sites/{siteId}/navigation", arr("NavigationItem"));
  });

  const params = (path: string) =>
    Object.fromEntries(
      op(path)
        .parameters.map(deref)
        .filter((p: any) => p.in === "query")
        .map((p: any) => [p.name, p.schema]),
    );

  test("query parameters with their defaults and bounds", () => {
    const limit = (d: number) => ({ type: "integer", minimum: 1, maximum: 100, default: d });
    const offset = { type: "integer", minimum: 0, maximum: Number.MAX_SAFE_INTEGER, default: 0 };
    const p = params("/sites/{siteId}/posts");
    expect(Object.keys(p).sort()).toEqual(["category", "limit", "offset", "postType", "search", "tag"]);
    expect(p.limit).toEqual(limit(20));
    expect(p.offset).toEqual(offset);
    expect(Object.keys(params("/sites/{siteId}/pages")).sort()).toEqual(["limit", "offset", "search"]);
    const m = params("/sites/{siteId}/media");
    expect(Object.keys(m).sort()).toEqual(["limit", "mimeType", "offset"]);
    expect(m.limit).toEqual(limit(20));
    const pr = params("/sites/{siteId}/products");
    expect(Object.keys(pr).sort()).toEqual(["category", "limit", "page", "search", "sort"]);
    expect(pr.limit).toEqual(limit(24));
    expect(pr.page).toMatchObject({ type: "integer", minimum: 1, default: 1 });
    expect(pr.sort).toEqual({
      type: "string",
      enum: ["newest", "price_asc", "price_desc", "featured"],
      default: "newest",
    });
    for (const path of [
      "/sites/{siteId}/posts/{slug}",
      "/sites/{siteId}/categories",
      "/sites/{siteId}/tags",
      "/sites/{siteId}/blocks",
      "/sites/{siteId}/branding",
      "/sites/{siteId}/config",
      "/sites/{siteId}/navigation",
      "/sites/{siteId}/product-categories",
      "/sites/{siteId}/products/{slug}",
    ]) {
      expect(params(path)).toEqual({});
    }
    for (const [, path] of OPS) {
      const path_ = op(path)
        .parameters.map(deref)
        .filter((x: any) => x.in === "path")
        .map((x: any) => x.name);
      expect(path_).toEqual(path.includes("{slug}") ? ["siteId", "slug"] : ["siteId"]);
      expect(deref(op(path).parameters[0]).schema).toMatchObject({ type: "integer", minimum: 1 });
    }
  });
});

/** interface.md section 2: required fields per resource, and each field's type (with nullability). */
const S = "string",
  N = ["string", "null"],
  I = "integer",
  NI = ["integer", "null"],
  B = "boolean";
const RESOURCES: Record<string, { required: string[]; types: Record<string, string | string[]> }> = {
  PostSummary: {
    required: ["id", "title", "slug", "postType", "publishedAt"],
    types: { id: I, title: S, slug: S, postType: S, excerpt: N, coverImage: N, publishedAt: N },
  },
  PostDetail: {
    required: [
      "id",
      "title",
      "slug",
      "postType",
      "published",
      "websiteId",
      "createdAt",
      "updatedAt",
      "categories",
      "tags",
    ],
    types: {
      id: I,
      websiteId: I,
      title: S,
      slug: S,
      postType: S,
      excerpt: N,
      content: N,
      coverImage: N,
      ogImage: N,
      published: B,
      publishedAt: N,
      seoTitle: N,
      seoDescription: N,
      canonicalUrl: N,
      customCss: N,
      customJs: N,
      noIndex: ["boolean", "null"],
      parentPostId: NI,
      createdAt: S,
      updatedAt: S,
      categories: "array",
      tags: "array",
    },
  },
  Category: { required: ["id", "name", "slug"], types: { id: I, name: S, slug: S, description: N, color: N } },
  CategoryEmbedded: { required: ["id", "name", "slug"], types: { id: I, name: S, slug: S, color: N } },
  Tag: { required: ["id", "name", "slug"], types: { id: I, name: S, slug: S } },
  TagEmbedded: { required: ["id", "name", "slug"], types: { id: I, name: S, slug: S } },
  MediaItem: {
    required: ["id", "filename", "mimeType", "url"],
    types: { id: I, filename: S, mimeType: S, url: S, thumbnailUrl: N, alt: N, caption: N, width: NI, height: NI },
  },
  Block: {
    required: ["type", "name", "category", "inputs"],
    types: { type: S, name: S, category: S, inputs: "array" },
  },
  ProductSummary: {
    required: ["id", "name", "slug", "price"],
    types: {
      id: I,
      name: S,
      slug: S,
      shortDescription: N,
      price: I,
      compareAtPrice: NI,
      featured: B,
      categoryId: NI,
      categoryName: N,
      image: N,
      createdAt: S,
    },
  },
  ProductDetail: {
    required: [
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
    types: {
      id: I,
      websiteId: I,
      categoryId: NI,
      name: S,
      slug: S,
      description: N,
      shortDescription: N,
      sku: N,
      barcode: N,
      price: I,
      compareAtPrice: NI,
      costPrice: NI,
      trackInventory: B,
      quantity: NI,
      weight: N,
      weightUnit: N,
      lengthIn: ["number", "null"],
      widthIn: ["number", "null"],
      heightIn: ["number", "null"],
      status: S,
      featured: B,
      designable: B,
      seoTitle: N,
      seoDescription: N,
      tags: ["array", "null"],
      createdAt: S,
      updatedAt: S,
      images: "array",
      options: "array",
      variants: "array",
      bulkPricing: "array",
    },
  },
  ProductImage: {
    required: ["id", "productId", "url", "order", "createdAt"],
    types: { id: I, productId: I, url: S, alt: N, order: I, createdAt: S },
  },
  ProductOption: {
    required: ["id", "productId", "name", "order", "createdAt", "values"],
    types: { id: I, productId: I, name: S, order: I, createdAt: S, values: "array" },
  },
  ProductOptionValue: {
    required: ["id", "optionId", "value", "order", "createdAt"],
    types: { id: I, optionId: I, value: S, label: N, order: I, createdAt: S },
  },
  ProductVariant: {
    required: ["id", "productId", "name", "price", "quantity", "active", "createdAt", "updatedAt", "optionValues"],
    types: {
      id: I,
      productId: I,
      name: S,
      price: I,
      quantity: NI,
      active: B,
      createdAt: S,
      updatedAt: S,
      optionValues: "array",
      sku: N,
      barcode: N,
      weight: N,
      image: N,
      compareAtPrice: NI,
      costPrice: NI,
      lengthIn: ["number", "null"],
      widthIn: ["number", "null"],
      heightIn: ["number", "null"],
    },
  },
  BulkPricingRule: {
    required: ["id", "productId", "minQuantity", "priceType", "amount", "createdAt"],
    types: {
      id: I,
      productId: I,
      minQuantity: I,
      priceType: S,
      amount: I,
      createdAt: S,
      variantId: NI,
      maxQuantity: NI,
    },
  },
  ProductCategory: {
    required: ["id", "name", "slug", "order", "productCount"],
    types: { id: I, name: S, slug: S, order: I, productCount: I, description: N, image: N, parentId: NI },
  },
  ProductCategoryRef: { required: ["id", "name", "slug"], types: { id: I, name: S, slug: S } },
  SiteConfig: {
    required: ["id", "storeEnabled"],
    types: { id: I, storeEnabled: B, name: S, domain: N, subdomain: N, description: N, navigation: "array" },
  },
  NavigationItem: {
    required: ["id", "label", "href", "sortOrder", "openInNewTab", "isButton", "children"],
    types: {
      id: I,
      label: S,
      href: S,
      sortOrder: I,
      openInNewTab: B,
      isButton: B,
      children: "array",
      parentId: NI,
      description: N,
      icon: N,
      featuredImage: N,
      columnGroup: NI,
    },
  },
  OffsetPagination: { required: ["limit", "offset", "total"], types: { limit: I, offset: I, total: I } },
  PagePagination: {
    required: ["page", "limit", "total", "totalPages"],
    types: { page: I, limit: I, total: I, totalPages: I },
  },
  Error: { required: ["success", "message"], types: { message: S } },
};

describe("resource schemas", () => {
  test.each(Object.keys(RESOURCES))(
    "%s: exact required fields, types and nullability; nothing else allowed",
    (name) => {
      const s = doc.components.schemas[name];
      const want = RESOURCES[name]!;
      expect([...s.required].sort()).toEqual([...want.required].sort());
      expect(s.additionalProperties).toBe(false);
      for (const [field, type] of Object.entries(want.types))
        expect([field, s.properties[field]?.type]).toEqual([field, type]);
    },
  );

  test("dates are date-time; enums as in the spec; nullable refs", () => {
    const sc = doc.components.schemas;
    expect(sc.PostSummary.properties.publishedAt.format).toBe("date-time");
    expect(sc.PostDetail.properties.createdAt.format).toBe("date-time");
    expect(sc.ProductDetail.properties.status.enum).toEqual(["active", "inactive", "draft"]);
    expect(sc.BulkPricingRule.properties.priceType.enum).toEqual(["fixed", "percent_off"]);
    expect(sc.Block.properties.category.enum).toEqual(["basic", "layout", "component", "media", "ecommerce"]);
    expect(sc.ProductDetail.properties.category).toEqual({
      anyOf: [{ $ref: "#/components/schemas/ProductCategoryRef" }, { type: "null" }],
    });
    expect(sc.CssVars.additionalProperties).toEqual({ type: "string" });
    expect(sc.Branding.required).toEqual([]);
    expect(Object.keys(sc.Branding.properties)).toHaveLength(26);
  });
});
