/** Content: post types, posts (and their pending revisions), taxonomies, media, navigation, block templates. */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  primaryKey,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { users } from "../../core/tables";
import { sites } from "../sites/tables";

/** Block content as stored; REST serves it JSON-encoded in PostDetail.content. */
export interface BlockContent {
  blocks: unknown[];
  version: string;
}

export const postTypes = table(
  "post_types",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    slug: text("slug").notNull(),
    name: text("name").notNull(),
    description: text("description"),
    /** Custom field definitions (custom-fields.ts FieldDef[]); null or empty: the type has none. */
    fields: json<Record<string, unknown>[]>("fields"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("post_types_site_slug").on(t.siteId, t.slug)],
);

export const POST_STATUSES = ["draft", "pending", "published", "rejected", "archived"] as const;
export type PostStatus = (typeof POST_STATUSES)[number];

export const posts = table(
  "posts",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    postTypeId: integer("post_type_id")
      .notNull()
      .references(() => postTypes.id),
    title: text("title").notNull(),
    slug: text("slug").notNull(),
    excerpt: text("excerpt"),
    content: json<BlockContent>("content"),
    coverImage: text("cover_image"),
    ogImage: text("og_image"),
    /** Workflow state; `published` is the public flag the REST API reads. */
    status: text("status").$type<PostStatus>().notNull().default("draft"),
    published: bool("published").notNull().default(false),
    /**
     * When the post is served from. An approved post whose publishedAt is
     * still ahead is scheduled: published but not served until that instant
     * (REST reads compare it with now; the cms.go_live job announces it).
     */
    publishedAt: time("published_at"),
    /** When a served post stops being served (scheduled unpublishing); null = no end. */
    unpublishAt: time("unpublish_at"),
    /** Approved for a future publishedAt and not yet announced (post.published) by the cms.go_live job. */
    awaitingGoLive: bool("awaiting_go_live").notNull().default(false),
    seoTitle: text("seo_title"),
    seoDescription: text("seo_description"),
    canonicalUrl: text("canonical_url"),
    customCss: text("custom_css"),
    customJs: text("custom_js"),
    noIndex: bool("no_index"),
    parentPostId: integer("parent_post_id"),
    /** Values of the post type's custom fields, checked on every write (custom-fields.ts); null: none set. */
    fields: json<Record<string, unknown>>("fields"),
    authorUserId: integer("author_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("posts_site_slug").on(t.siteId, t.slug),
    index("posts_site_pub").on(t.siteId, t.published, t.publishedAt),
    index("posts_type").on(t.postTypeId),
    // posts_list's order (newest change first): walked in reverse, a page stops after its rows instead of sorting the site's posts.
    index("posts_site_updated").on(t.siteId, t.updatedAt, t.id),
  ],
);

/**
 * A proposed change to an already published post. The live row keeps being
 * served until the revision's approval link is approved.
 */
export const postRevisions = table(
  "post_revisions",
  {
    id: id(),
    postId: integer("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    changes: json<Record<string, unknown>>("changes").notNull(),
    status: text("status").notNull().default("pending"), // pending | applied | rejected | superseded
    createdByUserId: integer("created_by_user_id"),
    createdAt: createdAt(),
  },
  (t) => [index("post_revisions_post").on(t.postId)],
);

/**
 * The history of a post's live content: one row per approval that changed
 * what the post is (a first publication, a republication, an applied
 * revision), numbered per post from 1, holding the whole post as it was
 * right after that approval and who approved it. Never edited; restoring
 * one proposes its content again through the normal approval path
 * (versions.ts). Unlike post_revisions (the one pending proposal), these
 * are what was live.
 */
export const postVersions = table(
  "post_versions",
  {
    id: id(),
    postId: integer("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    snapshot: json<Record<string, unknown>>("snapshot").notNull(),
    /** "approval" (recorded as a link was approved) or "backfill" (the live post as it was before history began). */
    source: text("source").notNull().default("approval"),
    approvalId: integer("approval_id"),
    /** The decider's display line as the approval recorded it (decidedBy); null for a backfill. */
    approvedBy: text("approved_by"),
    approvedByUserId: integer("approved_by_user_id"),
    /** How the decider proved who they were: member, reviewer or link. */
    approvedVia: text("approved_via"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("post_versions_post_version").on(t.postId, t.version), index("post_versions_site").on(t.siteId)],
);

export const categories = table(
  "categories",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    description: text("description"),
    color: text("color"),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("categories_site_slug").on(t.siteId, t.slug)],
);

export const tags = table(
  "tags",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("tags_site_slug").on(t.siteId, t.slug)],
);

export const postCategories = table(
  "post_categories",
  {
    postId: integer("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    categoryId: integer("category_id")
      .notNull()
      .references(() => categories.id),
  },
  (t) => [primaryKey({ columns: [t.postId, t.categoryId] }), index("post_categories_cat").on(t.categoryId)],
);

export const postTags = table(
  "post_tags",
  {
    postId: integer("post_id")
      .notNull()
      .references(() => posts.id, { onDelete: "cascade" }),
    tagId: integer("tag_id")
      .notNull()
      .references(() => tags.id),
  },
  (t) => [primaryKey({ columns: [t.postId, t.tagId] }), index("post_tags_tag").on(t.tagId)],
);

export const media = table(
  "media",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    filename: text("filename").notNull(),
    mimeType: text("mime_type").notNull(),
    url: text("url").notNull(),
    /** Path under the data dir's media folder when the file is stored locally; null for registered URLs. */
    storageKey: text("storage_key"),
    thumbnailUrl: text("thumbnail_url"),
    alt: text("alt"),
    caption: text("caption"),
    width: integer("width"),
    height: integer("height"),
    sizeBytes: integer("size_bytes"),
    createdAt: createdAt(),
  },
  (t) => [index("media_site_created").on(t.siteId, t.createdAt)],
);

export const navItems = table(
  "nav_items",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    parentId: integer("parent_id"),
    label: text("label").notNull(),
    href: text("href").notNull(),
    sortOrder: integer("sort_order").notNull().default(0),
    openInNewTab: bool("open_in_new_tab").notNull().default(false),
    isButton: bool("is_button").notNull().default(false),
    description: text("description"),
    icon: text("icon"),
    featuredImage: text("featured_image"),
    columnGroup: integer("column_group"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index("nav_site").on(t.siteId)],
);

export const blockTemplates = table(
  "block_templates",
  {
    id: id(),
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    description: text("description"),
    content: json<BlockContent>("content").notNull(),
    /** Approved content stays in `content`; a pending proposal waits in `draftContent`. */
    draftContent: json<BlockContent>("draft_content"),
    status: text("status").notNull().default("draft"), // draft | pending | published | rejected
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("block_templates_site_slug").on(t.siteId, t.slug)],
);
