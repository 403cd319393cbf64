/**
 * The 13 operations of REST v1 (interface.md 4.1), declared as data: path,
 * auth mode, whether the site's store must be enabled, query parameters,
 * response shape, and the domain read that produces the data. routes.ts runs
 * every operation through the same pipeline; openapi.ts documents them from
 * the same declarations.
 */
import type { Deps } from "../core/context";
import { blockCatalogEntries } from "../domains/blocks/catalog";
import { cssVarsFor } from "../domains/branding/css-vars";
import { getPublicBranding } from "../domains/branding/public-reads";
import {
  getPublishedPostBySlug,
  listCategories,
  listMedia,
  listPublishedPosts,
  listTags,
} from "../domains/cms/public-reads";
import { getNavigationTree, getSiteConfig, type PublicSiteState } from "../domains/sites/public-reads";
import {
  getActiveProductBySlug,
  listActiveProductCategories,
  listActiveProducts,
  PRODUCT_SORTS,
  type ProductSort,
} from "../domains/store/public-reads";
import type { ParamSpec } from "./params";

export interface RestResult {
  data: unknown;
  pagination?: Record<string, number>;
  cssVars?: Record<string, string>;
}

export interface Operation {
  operationId: string;
  /** OpenAPI path under /api/v1, e.g. /sites/{siteId}/posts/{slug}. */
  path: string;
  tag: string;
  summary: string;
  description: string;
  /** required: a key for this site must be presented; optional: anonymous calls are served too. */
  auth: "required" | "optional";
  /** listBlocks serves one catalog for every site: the site is never looked up (spec 4.1). */
  siteLookup: boolean;
  /** Products endpoints answer 404 "Store not found" unless the site has an enabled store. */
  store: boolean;
  /** The path ends in {slug}. */
  slug: boolean;
  query: ParamSpec[];
  /** components/schemas name (or inline schema) of `data`. */
  data: { ref: string } | { arrayOf: string };
  pagination?: "offset" | "page";
  /** Extra top-level members of the success envelope (branding's cssVars). */
  topLevel?: Record<string, string>;
  /** Declared error statuses beyond 304 (spec rule 4). */
  errors: (400 | 401 | 404 | 429)[];
  /** What 404 means for this operation, for the OpenAPI description. */
  notFound?: string;
  /** null: the slug names nothing visible (404 "Not found"). */
  run(deps: Deps, site: PublicSiteState, q: Record<string, any>, slug: string): Promise<RestResult | null>;
}

const limitParam = (dflt: number): ParamSpec => ({
  name: "limit",
  kind: "integer",
  min: 1,
  max: 100,
  cap: true,
  default: dflt,
  description: `Items per page, ${dflt} by default. Values above 100 are capped to 100 (the effective value is in pagination.limit); below 1 is a 400.`,
});
const offsetParam: ParamSpec = {
  name: "offset",
  kind: "integer",
  min: 0,
  max: Number.MAX_SAFE_INTEGER,
  default: 0,
  description: "Items to skip, 0 by default. Past the end gives an empty page with the real total.",
};
const searchParam = (what: string): ParamSpec => ({
  name: "search",
  kind: "text",
  maxLength: 200,
  description: `${what} At most 200 characters; surrounding spaces are ignored.`,
});

const offsetPage = (q: { limit: number; offset: number }, total: number) => ({
  limit: q.limit,
  offset: q.offset,
  total,
});

const ALL = [400, 401, 404, 429] as (400 | 401 | 404 | 429)[];
const SITE_404 = 'The site does not exist or is not active (message "Not found").';

export const OPERATIONS: readonly Operation[] = [
  {
    operationId: "listPosts",
    path: "/sites/{siteId}/posts",
    tag: "Content",
    summary: "List published posts",
    description:
      "Published posts of every type (or of one postType), newest first: publishedAt descending (posts without a publishedAt last), then id descending.",
    auth: "required",
    siteLookup: true,
    store: false,
    slug: false,
    query: [
      limitParam(20),
      offsetParam,
      {
        name: "postType",
        kind: "slug",
        description: "Post type slug (e.g. blog, page, case-study); omitted means all types.",
      },
      { name: "category", kind: "slug", description: "Only posts in the category with this slug." },
      { name: "tag", kind: "slug", description: "Only posts with the tag of this slug." },
      searchParam("Case-insensitive match anywhere in the title."),
    ],
    data: { arrayOf: "PostSummary" },
    pagination: "offset",
    errors: ALL,
    notFound: SITE_404,
    async run(deps, site, q) {
      const r = await listPublishedPosts(deps, site.id, {
        limit: q.limit,
        offset: q.offset,
        postType: q.postType,
        category: q.category,
        tag: q.tag,
        search: q.search,
      });
      return { data: r.items, pagination: offsetPage(q as any, r.total) };
    },
  },
  {
    operationId: "getPostBySlug",
    path: "/sites/{siteId}/posts/{slug}",
    tag: "Content",
    summary: "Get a published post by slug",
    description: "A published post (of any type) with full content, SEO fields, categories and tags (each by name).",
    auth: "required",
    siteLookup: true,
    store: false,
    slug: true,
    query: [],
    data: { ref: "PostDetail" },
    errors: ALL,
    notFound: 'The site is unknown or inactive, or it has no published post with this slug (message "Not found").',
    run: async (deps, site, _q, slug) => {
      const post = await getPublishedPostBySlug(deps, site.id, slug);
      return post && { data: post };
    },
  },
  {
    operationId: "listPages",
    path: "/sites/{siteId}/pages",
    tag: "Content",
    summary: "List published pages",
    description:
      "Published posts whose postType is page, in the same order as listPosts (newest publishedAt first, then id descending).",
    auth: "required",
    siteLookup: true,
    store: false,
    slug: false,
    query: [limitParam(20), offsetParam, searchParam("Case-insensitive match anywhere in the title.")],
    data: { arrayOf: "PostSummary" },
    pagination: "offset",
    errors: ALL,
    notFound: SITE_404,
    async run(deps, site, q) {
      const r = await listPublishedPosts(deps, site.id, {
        limit: q.limit,
        offset: q.offset,
        postType: "page",
        search: q.search,
      });
      return { data: r.items, pagination: offsetPage(q as any, r.total) };
    },
  },
  {
    operationId: "listCategories",
    path: "/sites/{siteId}/categories",
    tag: "Content",
    summary: "List post categories",
    description:
      "Every category of the site, alphabetically by name (case- and accent-insensitive, numbers in numeric order), then id.",
    auth: "required",
    siteLookup: true,
    store: false,
    slug: false,
    query: [],
    data: { arrayOf: "Category" },
    errors: ALL,
    notFound: SITE_404,
    run: async (deps, site) => ({ data: await listCategories(deps, site.id) }),
  },
  {
    operationId: "listTags",
    path: "/sites/{siteId}/tags",
    tag: "Content",
    summary: "List tags",
    description: "Every tag of the site, alphabetically by name, then id.",
    auth: "required",
    siteLookup: true,
    store: false,
    slug: false,
    query: [],
    data: { arrayOf: "Tag" },
    errors: ALL,
    notFound: SITE_404,
    run: async (deps, site) => ({ data: await listTags(deps, site.id) }),
  },
  {
    operationId: "listMedia",
    path: "/sites/{siteId}/media",
    tag: "Media",
    summary: "List media library items",
    description: "Media items, newest first (createdAt descending, then id descending).",
    auth: "required",
    siteLookup: true,
    store: false,
    slug: false,
    query: [
      limitParam(20),
      offsetParam,
      {
        name: "mimeType",
        kind: "mime",
        description:
          "MIME type prefix filter, case-insensitive: a bare type (image) matches all its subtypes (image/jpeg, image/png); a value with a slash (image/png, image/p) is matched as a prefix; image/* equals image; all or omitted returns every type.",
      },
    ],
    data: { arrayOf: "MediaItem" },
    pagination: "offset",
    errors: ALL,
    notFound: SITE_404,
    async run(deps, site, q) {
      const r = await listMedia(deps, site.id, { limit: q.limit, offset: q.offset, mimePrefix: q.mimeType });
      return { data: r.items, pagination: offsetPage(q as any, r.total) };
    },
  },
  {
    operationId: "listBlocks",
    path: "/sites/{siteId}/blocks",
    tag: "Blocks",
    summary: "List the block catalog",
    description:
      "The block types a post's content may use. The same catalog for every site: siteId only scopes the key and the rate limit, so the site is not looked up.",
    auth: "optional",
    siteLookup: false,
    store: false,
    slug: false,
    query: [],
    data: { arrayOf: "Block" },
    errors: [401, 429],
    run: async () => ({ data: blockCatalogEntries() }),
  },
  {
    operationId: "listProducts",
    path: "/sites/{siteId}/products",
    tag: "Commerce",
    summary: "List active products",
    description:
      "Active products, one page at a time. sort: newest (createdAt descending), price_asc / price_desc (then newest), featured (featured first, then newest); id breaks ties.",
    auth: "required",
    siteLookup: true,
    store: true,
    slug: false,
    query: [
      {
        name: "category",
        kind: "slug",
        description:
          "Only products directly in the active category with this slug (an unknown or inactive category gives an empty list).",
      },
      searchParam("Keyword match: every word must appear, case-insensitively, in the name or short description."),
      {
        name: "sort",
        kind: "enum",
        values: PRODUCT_SORTS,
        default: "newest",
        description: "Order of the list, newest by default.",
      },
      {
        name: "page",
        kind: "integer",
        min: 1,
        max: Number.MAX_SAFE_INTEGER,
        default: 1,
        description: "1-based page number. Past the last page gives an empty page with the real total.",
      },
      limitParam(24),
    ],
    data: { arrayOf: "ProductSummary" },
    pagination: "page",
    errors: ALL,
    notFound: 'The site is unknown or inactive ("Not found"), or it has no enabled store ("Store not found").',
    async run(deps, site, q) {
      const r = await listActiveProducts(deps, site.id, {
        page: q.page,
        limit: q.limit,
        sort: q.sort as ProductSort,
        category: q.category,
        search: q.search,
      });
      return {
        data: r.items,
        pagination: { page: q.page, limit: q.limit, total: r.total, totalPages: Math.ceil(r.total / q.limit) },
      };
    },
  },
  {
    operationId: "getProductBySlug",
    path: "/sites/{siteId}/products/{slug}",
    tag: "Commerce",
    summary: "Get an active product by slug",
    description:
      "An active product with images (by order), options with their values (by order), active variants only, bulk pricing (by minQuantity) and its category.",
    auth: "required",
    siteLookup: true,
    store: true,
    slug: true,
    query: [],
    data: { ref: "ProductDetail" },
    errors: ALL,
    notFound:
      'The site is unknown or inactive ("Not found"), it has no enabled store ("Store not found"), or no active product has this slug ("Not found").',
    run: async (deps, site, _q, slug) => {
      const p = await getActiveProductBySlug(deps, site.id, slug);
      return p && { data: p };
    },
  },
  {
    operationId: "listProductCategories",
    path: "/sites/{siteId}/product-categories",
    tag: "Commerce",
    summary: "List active product categories",
    description:
      "Active categories by order, then name, then id; productCount is the live count of active products directly in the category.",
    auth: "required",
    siteLookup: true,
    store: true,
    slug: false,
    query: [],
    data: { arrayOf: "ProductCategory" },
    errors: ALL,
    notFound: 'The site is unknown or inactive ("Not found"), or it has no enabled store ("Store not found").',
    run: async (deps, site) => ({ data: await listActiveProductCategories(deps, site.id) }),
  },
  {
    operationId: "getBranding",
    path: "/sites/{siteId}/branding",
    tag: "Site",
    summary: "Get branding and CSS variables",
    description:
      "The branding values that are set (no defaults filled in) and, beside data, cssVars derived from them.",
    auth: "optional",
    siteLookup: true,
    store: false,
    slug: false,
    query: [],
    data: { ref: "Branding" },
    topLevel: { cssVars: "CssVars" },
    errors: ALL,
    notFound: SITE_404,
    async run(deps, site) {
      const branding = await getPublicBranding(deps, site.id);
      return { data: branding, cssVars: cssVarsFor(branding) };
    },
  },
  {
    operationId: "getSiteConfig",
    path: "/sites/{siteId}/config",
    tag: "Site",
    summary: "Get the site configuration bundle",
    description:
      "Site identity, whether the store is enabled, branding, cssVars and the navigation tree, in one response.",
    auth: "optional",
    siteLookup: true,
    store: false,
    slug: false,
    query: [],
    data: { ref: "SiteConfig" },
    errors: ALL,
    notFound: SITE_404,
    run: async (deps, site) => ({ data: await getSiteConfig(deps, site) }),
  },
  {
    operationId: "getNavigation",
    path: "/sites/{siteId}/navigation",
    tag: "Site",
    summary: "Get the navigation tree",
    description:
      "Root items (parentId null) with children nested; siblings sorted by sortOrder, then id. Items whose parent is missing are left out.",
    auth: "optional",
    siteLookup: true,
    store: false,
    slug: false,
    query: [],
    data: { arrayOf: "NavigationItem" },
    errors: ALL,
    notFound: SITE_404,
    run: async (deps, site) => ({ data: await getNavigationTree(deps, site.id) }),
  },
];
