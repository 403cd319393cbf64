/**
 * The CMS toolset: sites and their settings, posts, post types, block
 * templates, taxonomies, navigation and media. Thin declarations over the
 * verbs; every verb checks scope, role and site tenancy itself.
 *
 * Write tools echo a compact result ({ id, slug, status } and `approval`
 * when a link was minted); blocks and rendered html come back only when
 * `include` asks for them.
 */
import { CMS_PATH, cmsPages } from "./pages";
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { siteStagedTargets } from "../sites/staged-targets";
import { siteTools } from "../sites/tools";
import { cmsApprovalSupport } from "./approval-support";
import { blockTemplateApprovalKind, postApprovalKind } from "./approval-kinds";
import { createTemplate, deleteTemplate, getTemplate, listTemplates, updateTemplate } from "./block-templates";
import { blocksSchema, includeSchema } from "./common";
import { deleteMedia, getMedia, listMedia, registerMedia, updateMedia, uploadMedia } from "./media";
import { createNavItem, deleteNavItem, listNav, moveNavItem, reorderNav, updateNavItem } from "./navigation";
import { createPostType, deletePostType, listPostTypes, setPostTypeFields, updatePostType } from "./post-types";
import { createPost, deletePost, getPost, listPosts, unpublishPost, updatePost } from "./posts";
import { createTerm, deleteTerm, getTerm, listTerms, updateTerm } from "./taxonomies";
import { cmsStagedTargets } from "./staged-targets";
import { cmsEvents } from "./events";
import { goLiveJob, schedulePost, unschedulePost } from "./schedule";
import { diffVersions, getVersion, listVersions, restoreVersion } from "./versions";
import { POST_STATUSES, postCategories, postRevisions, posts, postTags, postTypes } from "./tables";
import { siteTables } from "../sites/facts";
import { colorSchema, idSchema, line, slugSchema, textBlock, urlSchema } from "../../core/fields";
import { jsonObject } from "../../core/json-value";
import { fieldDefsSchema } from "./custom-fields";
import { postTypeFieldsResource } from "./field-guide";

const siteId = idSchema;
const search = v.optional(v.pipe(v.string(), v.maxLength(200)));
const nullable = <T extends v.GenericSchema>(s: T) => v.optional(v.nullable(s));

// ----- posts ---------------------------------------------------------------

const postFields = {
  slug: v.optional(slugSchema),
  postType: v.optional(slugSchema),
  blocks: v.optional(blocksSchema),
  excerpt: nullable(textBlock(1000)),
  coverImage: nullable(urlSchema),
  ogImage: nullable(urlSchema),
  seoTitle: nullable(line(200)),
  seoDescription: nullable(textBlock(500)),
  canonicalUrl: nullable(urlSchema),
  customCss: nullable(textBlock(50_000)),
  customJs: nullable(textBlock(50_000)),
  noIndex: nullable(v.boolean()),
  parentPostId: nullable(idSchema),
  categoryIds: v.optional(v.pipe(v.array(idSchema), v.maxLength(50))),
  tagIds: v.optional(v.pipe(v.array(idSchema), v.maxLength(100))),
  fields: nullable(jsonObject("fields")),
  include: includeSchema,
};

const postTools = [
  defineTool({
    name: "posts_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List posts",
    description: "A site's posts (all states), newest first; search: titles.",
    input: v.object({
      siteId,
      postType: v.optional(slugSchema),
      status: v.optional(v.picklist([...POST_STATUSES, "scheduled"])),
      categoryId: v.optional(idSchema),
      tagId: v.optional(idSchema),
      search,
      ...pageInput,
    }),
    cachedBy: [...siteTables, posts, postTypes, postRevisions, postCategories, postTags],
    run: async (ctx, input) => await listPosts(ctx, input),
  }),
  defineTool({
    name: "posts_get",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "Get a post",
    description: "A post by id or slug; blocks and html only with include.",
    input: v.object({ siteId, id: v.optional(idSchema), slug: v.optional(slugSchema), include: includeSchema }),
    run: async (ctx, input) => await getPost(ctx, input),
  }),
  defineTool({
    name: "posts_create",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    approval: "post",
    title: "Create a post",
    description:
      "Draft a post (postType blog or page); headings from h2. blocks://schema. Live once approved (approval.url).",
    input: v.object({ siteId, title: line(300), ...postFields }),
    run: async (ctx, input) => await createPost(ctx, input),
  }),
  defineTool({
    name: "posts_update",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    approval: "post",
    title: "Update a post",
    description: "Change a post (null clears); a live post's change needs approval.",
    input: v.object({ siteId, id: idSchema, title: v.optional(line(300)), ...postFields }),
    run: async (ctx, input) => await updatePost(ctx, input),
  }),
  defineTool({
    name: "posts_unpublish",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Unpublish a post",
    description: "Take a published post offline (archived); needs approval.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await unpublishPost(ctx, input),
  }),
  defineTool({
    name: "posts_delete",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Delete a post",
    description: "Delete a post for good; a published one needs approval.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await deletePost(ctx, input),
  }),
  defineTool({
    name: "posts_schedule",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: false,
    title: "Schedule a post",
    description: "Set when a post goes live or offline; an approved post's change needs approval.",
    input: v.object({
      siteId,
      id: idSchema,
      at: v.optional(
        v.pipe(v.string(), v.maxLength(40), v.description("a future ISO 8601 instant, e.g. 2026-11-30T09:00:00Z")),
      ),
      unpublishAt: v.optional(
        v.pipe(
          v.nullable(v.pipe(v.string(), v.maxLength(40))),
          v.description("a future ISO 8601 instant; null clears it"),
        ),
      ),
    }),
    run: async (ctx, input) => await schedulePost(ctx, input),
  }),
  defineTool({
    name: "posts_unschedule",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: false,
    title: "Cancel a post's schedule",
    description: "Cancel a scheduled go-live or unpublishing (a live post's needs approval).",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await unschedulePost(ctx, input),
  }),
];

// ----- post versions -----------------------------------------------------------

const versionNumber = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1_000_000));

const versionTools = [
  defineTool({
    name: "post_versions_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List a post's versions",
    description: "Approved versions of a post, newest first, with approver.",
    input: v.object({ siteId, postId: idSchema, ...pageInput }),
    run: async (ctx, input) => await listVersions(ctx, input),
  }),
  defineTool({
    name: "post_versions_get",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "Get a post version",
    description: "One approved version of a post; blocks and html with include.",
    input: v.object({ siteId, postId: idSchema, version: versionNumber, include: includeSchema }),
    run: async (ctx, input) => await getVersion(ctx, input),
  }),
  defineTool({
    name: "post_versions_diff",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "Compare post versions",
    description: "What changed between two versions, or a version and live, by block.",
    input: v.object({ siteId, postId: idSchema, from: versionNumber, to: v.optional(versionNumber) }),
    run: async (ctx, input) => await diffVersions(ctx, input),
  }),
  defineTool({
    name: "post_versions_restore",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    approval: "post",
    title: "Restore a post version",
    description: "Propose a version's content again; live once approved.",
    input: v.object({ siteId, postId: idSchema, version: versionNumber }),
    run: async (ctx, input) => await restoreVersion(ctx, input),
  }),
];

// ----- post types ------------------------------------------------------------

const postTypeTools = [
  defineTool({
    name: "post_types_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List post types",
    description: "A site's post types with post counts.",
    input: v.object({ siteId, ...pageInput }),
    run: async (ctx, input) => await listPostTypes(ctx, input),
  }),
  defineTool({
    name: "post_types_create",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Create a post type",
    description: "Create a post type such as case-study; posts name it in postType.",
    input: v.object({ siteId, name: line(100), slug: v.optional(slugSchema), description: nullable(textBlock(500)) }),
    run: async (ctx, input) => await createPostType(ctx, input),
  }),
  defineTool({
    name: "post_types_update",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Update a post type",
    description: "Rename a post type or change its slug or description.",
    input: v.object({
      siteId,
      id: idSchema,
      name: v.optional(line(100)),
      slug: v.optional(slugSchema),
      description: nullable(textBlock(500)),
    }),
    run: async (ctx, input) => await updatePostType(ctx, input),
  }),
  defineTool({
    name: "post_type_fields_set",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Set a post type's custom fields",
    description: "Replace a post type's custom fields; see cms://post-types/fields.",
    input: v.object({ siteId, id: idSchema, fields: fieldDefsSchema }),
    run: async (ctx, input) => await setPostTypeFields(ctx, input),
  }),
  defineTool({
    name: "post_types_delete",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Delete a post type",
    description: "Delete a post type no post uses.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await deletePostType(ctx, input),
  }),
];

// ----- block templates ---------------------------------------------------------

const templateTools = [
  defineTool({
    name: "block_templates_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List block templates",
    description: "A site's block templates (approved: status published).",
    input: v.object({
      siteId,
      status: v.optional(v.picklist(["pending", "published", "rejected"])),
      search,
      ...pageInput,
    }),
    run: async (ctx, input) => await listTemplates(ctx, input),
  }),
  defineTool({
    name: "block_templates_get",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "Get a block template",
    description: "A block template by id or slug; include blocks or html.",
    input: v.object({ siteId, id: v.optional(idSchema), slug: v.optional(slugSchema), include: includeSchema }),
    run: async (ctx, input) => await getTemplate(ctx, input),
  }),
  defineTool({
    name: "block_templates_create",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    approval: "block_template",
    title: "Create a block template",
    description: "Draft a block template (blocks://schema); usable once approved.",
    input: v.object({
      siteId,
      name: line(200),
      slug: v.optional(slugSchema),
      description: nullable(textBlock(1000)),
      blocks: blocksSchema,
      include: includeSchema,
    }),
    run: async (ctx, input) => await createTemplate(ctx, input),
  }),
  defineTool({
    name: "block_templates_update",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    approval: "block_template",
    title: "Update a block template",
    description: "Change a block template; an approved one's new blocks need approval.",
    input: v.object({
      siteId,
      id: idSchema,
      name: v.optional(line(200)),
      slug: v.optional(slugSchema),
      description: nullable(textBlock(1000)),
      blocks: v.optional(blocksSchema),
      include: includeSchema,
    }),
    run: async (ctx, input) => await updateTemplate(ctx, input),
  }),
  defineTool({
    name: "block_templates_delete",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Delete a block template",
    description: "Delete a block template; posts keep their copy of its blocks.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await deleteTemplate(ctx, input),
  }),
];

// ----- taxonomies --------------------------------------------------------------

const categoryFields = { description: nullable(textBlock(1000)), color: nullable(colorSchema) };

const taxonomyTools = [
  defineTool({
    name: "categories_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List categories",
    description: "A site's post categories by name, with colour and post count.",
    input: v.object({ siteId, search, ...pageInput }),
    run: async (ctx, input) => await listTerms(ctx, "category", input),
  }),
  defineTool({
    name: "categories_get",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "Get a category",
    description: "A post category with its post count.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await getTerm(ctx, "category", input),
  }),
  defineTool({
    name: "categories_create",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Create a category",
    description: "Create a post category (colour #rgb or #rrggbb).",
    input: v.object({ siteId, name: line(100), slug: v.optional(slugSchema), ...categoryFields }),
    run: async (ctx, input) => await createTerm(ctx, "category", input),
  }),
  defineTool({
    name: "categories_update",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Update a category",
    description: "Change a post category (null clears description or colour).",
    input: v.object({
      siteId,
      id: idSchema,
      name: v.optional(line(100)),
      slug: v.optional(slugSchema),
      ...categoryFields,
    }),
    run: async (ctx, input) => await updateTerm(ctx, "category", input),
  }),
  defineTool({
    name: "categories_delete",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Delete a category",
    description: "Delete a category no post uses (the error names those that do).",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await deleteTerm(ctx, "category", input),
  }),
  defineTool({
    name: "tags_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "List tags",
    description: "A site's tags by name, with post counts.",
    input: v.object({ siteId, search, ...pageInput }),
    run: async (ctx, input) => await listTerms(ctx, "tag", input),
  }),
  defineTool({
    name: "tags_create",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Create a tag",
    description: "Create a tag for posts.",
    input: v.object({ siteId, name: line(100), slug: v.optional(slugSchema) }),
    run: async (ctx, input) => await createTerm(ctx, "tag", input),
  }),
  defineTool({
    name: "tags_update",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Update a tag",
    description: "Rename a tag or change its slug.",
    input: v.object({ siteId, id: idSchema, name: v.optional(line(100)), slug: v.optional(slugSchema) }),
    run: async (ctx, input) => await updateTerm(ctx, "tag", input),
  }),
  defineTool({
    name: "tags_delete",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Delete a tag",
    description: "Delete a tag no post uses (the error names those that do).",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await deleteTerm(ctx, "tag", input),
  }),
];

// ----- navigation ----------------------------------------------------------------

const navFields = {
  openInNewTab: v.optional(v.boolean()),
  isButton: v.optional(v.boolean()),
  description: nullable(line(300)),
  icon: nullable(
    v.pipe(v.string(), v.maxLength(64), v.regex(/^[A-Za-z0-9:_-]+$/, "must be an icon name like arrow-right")),
  ),
  featuredImage: nullable(urlSchema),
  columnGroup: nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100))),
};
const position = v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1000)));

const navTools = [
  defineTool({
    name: "nav_items_list",
    toolset: "cms",
    scope: "sites:read",
    readOnly: true,
    title: "Get the navigation tree",
    description: "A site's navigation as a tree (children nested, in order).",
    input: v.object({ siteId }),
    run: async (ctx, input) => await listNav(ctx, input),
  }),
  defineTool({
    name: "nav_items_create",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Add a navigation item",
    description: "Add a navigation item at the top level or under parentId.",
    input: v.object({
      siteId,
      label: line(100),
      href: urlSchema,
      parentId: nullable(idSchema),
      position,
      ...navFields,
    }),
    run: async (ctx, input) => await createNavItem(ctx, input),
  }),
  defineTool({
    name: "nav_items_update",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Update a navigation item",
    description: "Change a navigation item (nav_items_move changes its place).",
    input: v.object({ siteId, id: idSchema, label: v.optional(line(100)), href: v.optional(urlSchema), ...navFields }),
    run: async (ctx, input) => await updateNavItem(ctx, input),
  }),
  defineTool({
    name: "nav_items_move",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Move a navigation item",
    description: "Move a navigation item under another parent (null = top level).",
    input: v.object({ siteId, id: idSchema, parentId: v.nullable(idSchema), position }),
    run: async (ctx, input) => await moveNavItem(ctx, input),
  }),
  defineTool({
    name: "nav_items_reorder",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    title: "Reorder navigation items",
    description: "Reorder one parent's children (null = root), each once.",
    input: v.object({ siteId, parentId: v.nullable(idSchema), ids: v.pipe(v.array(idSchema), v.maxLength(500)) }),
    run: async (ctx, input) => await reorderNav(ctx, input),
  }),
  defineTool({
    name: "nav_items_delete",
    toolset: "cms",
    scope: "sites:write",
    readOnly: false,
    destructive: true,
    title: "Delete a navigation item",
    description: "Delete a navigation item (with children: withChildren).",
    input: v.object({ siteId, id: idSchema, withChildren: v.optional(v.boolean()) }),
    run: async (ctx, input) => await deleteNavItem(ctx, input),
  }),
];

// ----- media ------------------------------------------------------------------------

const mediaText = { alt: nullable(line(500)), caption: nullable(textBlock(1000)) };

const mediaTools = [
  defineTool({
    name: "media_list",
    toolset: "cms",
    scope: "media:read",
    readOnly: true,
    title: "List media",
    description: "A site's media, newest first; mimeType prefix (image).",
    input: v.object({ siteId, mimeType: v.optional(v.pipe(v.string(), v.maxLength(100))), search, ...pageInput }),
    run: async (ctx, input) => await listMedia(ctx, input),
  }),
  defineTool({
    name: "media_get",
    toolset: "cms",
    scope: "media:read",
    readOnly: true,
    title: "Get a media item",
    description: "A media item: URL, thumbnail, type, size, alt text, caption.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await getMedia(ctx, input),
  }),
  defineTool({
    name: "media_upload",
    toolset: "cms",
    scope: "media:write",
    readOnly: false,
    title: "Upload a file",
    description: "Upload a file in base64 or a data: URL; HTML refused.",
    input: v.object({
      siteId,
      filename: line(255),
      dataBase64: v.pipe(v.string(), v.minLength(1)),
      mimeType: v.optional(v.pipe(v.string(), v.maxLength(100))),
      ...mediaText,
    }),
    run: async (ctx, input) => await uploadMedia(ctx, input),
  }),
  defineTool({
    name: "media_register",
    toolset: "cms",
    scope: "media:write",
    readOnly: false,
    title: "Register a file by URL",
    description: "Add a file by its http(s) URL (never fetched); images: width, height.",
    input: v.object({
      siteId,
      url: urlSchema,
      mimeType: v.pipe(v.string(), v.minLength(1), v.maxLength(100)),
      filename: v.optional(line(255)),
      width: nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000))),
      height: nullable(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(100_000))),
      thumbnailUrl: nullable(urlSchema),
      ...mediaText,
    }),
    run: async (ctx, input) => await registerMedia(ctx, input),
  }),
  defineTool({
    name: "media_update",
    toolset: "cms",
    scope: "media:write",
    readOnly: false,
    title: "Update a media item",
    description: "Change a media item's file name, alt text or caption.",
    input: v.object({ siteId, id: idSchema, filename: v.optional(line(255)), ...mediaText }),
    run: async (ctx, input) => await updateMedia(ctx, input),
  }),
  defineTool({
    name: "media_delete",
    toolset: "cms",
    scope: "media:write",
    readOnly: false,
    destructive: true,
    title: "Delete a media item",
    description: "Delete a media item and its file; refused while in use.",
    input: v.object({ siteId, id: idSchema }),
    run: async (ctx, input) => await deleteMedia(ctx, input),
  }),
];

export const cmsTools = [
  ...siteTools,
  ...postTools,
  ...versionTools,
  ...postTypeTools,
  ...templateTools,
  ...taxonomyTools,
  ...navTools,
  ...mediaTools,
];

export const cmsDomain: Domain = {
  scopes: [
    {
      area: "sites",
      title: "Sites & content",
      words: {
        "sites:read": "read sites, posts, pages, navigation, templates and categories",
        "sites:write": "create, change and delete them",
      },
      includes: { "sites:read": ["media:read"] },
    },
    {
      area: "media",
      title: "Media",
      words: { "media:read": "read the media library", "media:write": "upload and delete files" },
    },
  ],
  name: "cms",
  title: "CMS",
  description:
    "Build and run websites: sites, domains and environment variables, posts and pages made of blocks, post types, block templates, " +
    "categories and tags, navigation, and the media library. Posts and block templates are published only after a person approves them.",
  vocabulary: {
    article: ["post"],
    blog: ["post"],
    page: ["post"],
    website: ["site"],
    image: ["media"],
    photo: ["media"],
    picture: ["media"],
    file: ["media"],
    menu: ["nav"],
    "take down": ["unpublish"],
    "content type": ["post", "type"],
    section: ["block", "template"],
    "api key": ["env", "var"],
    secret: ["env", "var"],
    "domain name": ["domain"],
    hostname: ["domain"],
  },
  tools: cmsTools,
  resources: [postTypeFieldsResource],
  approvalKinds: [postApprovalKind, blockTemplateApprovalKind],
  stagedTargets: [...cmsStagedTargets, ...siteStagedTargets],
  approvalSupport: cmsApprovalSupport,
  events: cmsEvents,
  jobs: [goLiveJob],
  portal: { routes: cmsPages, nav: [{ href: CMS_PATH, label: "CMS" }] },
};
