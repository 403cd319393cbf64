/**
 * Public content reads for REST v1: published posts and pages, categories,
 * tags and media of one site. Callers have already checked the site is
 * public; every query here is still filtered by site id.
 *
 * Orders (see docs/rest.md):
 *   posts, pages  newest published first (publishedAt desc, a null publishedAt last), then id desc
 *   categories, tags  by name, human alphabetical (case- and accent-insensitive, digits numeric), then id
 *   media         newest first (createdAt desc), then id desc
 *
 * @public Serves store (the same folded name search and ordering in public
 * reads).
 */
import { and, count, desc, eq, gt, inArray, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Deps } from "../../core/context";
import { definitionsOf, type FieldDef, resolveFields } from "./custom-fields";
import { categories, media, postCategories, posts, postTags, postTypes, tags } from "./tables";

/** Alphabetical as a reader expects it: "apple" before "Banana", "Item 2" before "Item 10". */
export const byName = new Intl.Collator("en", { numeric: true }).compare;

/** Case-insensitive "contains", Unicode-aware (SQLite's LIKE folds ASCII only). */
export function containsFolded(haystack: string | null | undefined, needleFolded: string): boolean {
  return !!haystack && haystack.toLocaleLowerCase("en").includes(needleFolded);
}
export const fold = (s: string) => s.toLocaleLowerCase("en");

export interface PostSummary {
  id: number;
  title: string;
  slug: string;
  postType: string;
  excerpt: string | null;
  coverImage: string | null;
  publishedAt: string | null;
}

export interface PostListQuery {
  limit: number;
  offset: number;
  postType?: string;
  category?: string;
  tag?: string;
  search?: string;
}

const summaryColumns = {
  id: posts.id,
  title: posts.title,
  slug: posts.slug,
  postType: postTypes.slug,
  excerpt: posts.excerpt,
  coverImage: posts.coverImage,
  publishedAt: posts.publishedAt,
};

const newestFirst = [sql`${posts.publishedAt} IS NULL`, desc(posts.publishedAt), desc(posts.id)];

function toSummary(r: {
  id: number;
  title: string;
  slug: string;
  postType: string;
  excerpt: string | null;
  coverImage: string | null;
  publishedAt: Date | null;
}): PostSummary {
  return {
    id: r.id,
    title: r.title,
    slug: r.slug,
    postType: r.postType,
    excerpt: r.excerpt ?? null,
    coverImage: r.coverImage ?? null,
    publishedAt: iso(r.publishedAt),
  };
}

/**
 * Served now: published, its publishedAt reached and its unpublishAt not
 * (scheduled publishing, schedule.ts). Compared with the clock on every read,
 * so a post appears and disappears at its instant without waiting for a job.
 */
function servedAt(now: Date): SQL {
  return and(
    eq(posts.published, true),
    or(isNull(posts.publishedAt), lte(posts.publishedAt, now)),
    or(isNull(posts.unpublishAt), gt(posts.unpublishAt, now)),
  )!;
}

function postFilters(siteId: number, q: PostListQuery, now: Date): SQL {
  const conds: SQL[] = [eq(posts.siteId, siteId), servedAt(now)];
  if (q.postType !== undefined) conds.push(eq(postTypes.slug, q.postType));
  if (q.category !== undefined)
    conds.push(
      sql`EXISTS (SELECT 1 FROM ${postCategories} JOIN ${categories} ON ${categories.id} = ${postCategories.categoryId}
           WHERE ${postCategories.postId} = ${posts.id} AND ${categories.siteId} = ${siteId} AND ${categories.slug} = ${q.category})`,
    );
  if (q.tag !== undefined)
    conds.push(
      sql`EXISTS (SELECT 1 FROM ${postTags} JOIN ${tags} ON ${tags.id} = ${postTags.tagId}
           WHERE ${postTags.postId} = ${posts.id} AND ${tags.siteId} = ${siteId} AND ${tags.slug} = ${q.tag})`,
    );
  return and(...conds)!;
}

/**
 * Published posts (all types, or one) in newest-first order with the total
 * of all matches. A search is matched in JS against the titles of the
 * filtered candidates, because SQLite folds case for ASCII only and the spec
 * promises a case-insensitive match.
 */
export async function listPublishedPosts(
  deps: Deps,
  siteId: number,
  q: PostListQuery,
): Promise<{ items: PostSummary[]; total: number }> {
  const where = postFilters(siteId, q, deps.clock.now());
  if (q.search !== undefined) {
    const needle = fold(q.search);
    const candidates = await deps.db
      .select({ id: posts.id, title: posts.title })
      .from(posts)
      .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
      .where(where)
      .orderBy(...newestFirst);
    const matched = candidates.filter((c) => containsFolded(c.title, needle));
    const pageIds = matched.slice(q.offset, q.offset + q.limit).map((c) => c.id);
    if (!pageIds.length) return { items: [], total: matched.length };
    const rows = await deps.db
      .select(summaryColumns)
      .from(posts)
      .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
      .where(inArray(posts.id, pageIds))
      .orderBy(...newestFirst);
    return { items: rows.map(toSummary), total: matched.length };
  }
  const total = (
    await deps.db
      .select({ n: count() })
      .from(posts)
      .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
      .where(where)
      .limit(1)
  )[0]!.n;
  if (q.offset >= total) return { items: [], total };
  const rows = await deps.db
    .select(summaryColumns)
    .from(posts)
    .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
    .where(where)
    .orderBy(...newestFirst)
    .limit(q.limit)
    .offset(q.offset);
  return { items: rows.map(toSummary), total };
}

export interface CategoryEmbedded {
  id: number;
  name: string;
  slug: string;
  color: string | null;
}
export interface TagEmbedded {
  id: number;
  name: string;
  slug: string;
}

export interface PostDetail {
  id: number;
  websiteId: number;
  title: string;
  slug: string;
  postType: string;
  excerpt: string | null;
  /** JSON-encoded `{ blocks, version }`; clients parse it themselves. */
  content: string | null;
  coverImage: string | null;
  ogImage: string | null;
  published: boolean;
  publishedAt: string | null;
  seoTitle: string | null;
  seoDescription: string | null;
  canonicalUrl: string | null;
  customCss: string | null;
  customJs: string | null;
  noIndex: boolean | null;
  parentPostId: number | null;
  createdAt: string;
  updatedAt: string;
  categories: CategoryEmbedded[];
  tags: TagEmbedded[];
  /**
   * The post type's custom fields, resolved (custom-fields.ts). Present only
   * when the type defines fields: the body of any other post stays exactly
   * what the contract lists, byte for byte, with the same ETag.
   */
  fields?: Record<string, unknown>;
}

/** A published post of the site by slug, with its categories and tags; null when there is none. */
export async function getPublishedPostBySlug(deps: Deps, siteId: number, slug: string): Promise<PostDetail | null> {
  const r = (
    await deps.db
      .select({ post: posts, postType: postTypes.slug, typeFields: postTypes.fields })
      .from(posts)
      .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
      .where(and(eq(posts.siteId, siteId), eq(posts.slug, slug), servedAt(deps.clock.now())))
      .limit(1)
  )[0];
  if (!r) return null;
  const p = r.post;
  const cats = (
    await deps.db
      .select({ id: categories.id, name: categories.name, slug: categories.slug, color: categories.color })
      .from(postCategories)
      .innerJoin(categories, eq(categories.id, postCategories.categoryId))
      .where(and(eq(postCategories.postId, p.id), eq(categories.siteId, siteId)))
  )
    .map((c) => ({ ...c, color: c.color ?? null }))
    .sort((a, b) => byName(a.name, b.name) || a.id - b.id);
  const tagRows = (
    await deps.db
      .select({ id: tags.id, name: tags.name, slug: tags.slug })
      .from(postTags)
      .innerJoin(tags, eq(tags.id, postTags.tagId))
      .where(and(eq(postTags.postId, p.id), eq(tags.siteId, siteId)))
  ).sort((a, b) => byName(a.name, b.name) || a.id - b.id);
  const defs = definitionsOf({ fields: r.typeFields });
  return {
    id: p.id,
    websiteId: p.siteId,
    title: p.title,
    slug: p.slug,
    postType: r.postType,
    excerpt: p.excerpt ?? null,
    content: p.content
      ? JSON.stringify({ blocks: p.content.blocks ?? [], version: String(p.content.version ?? "") })
      : null,
    coverImage: p.coverImage ?? null,
    ogImage: p.ogImage ?? null,
    published: p.published,
    publishedAt: iso(p.publishedAt),
    seoTitle: p.seoTitle ?? null,
    seoDescription: p.seoDescription ?? null,
    canonicalUrl: p.canonicalUrl ?? null,
    customCss: p.customCss ?? null,
    customJs: p.customJs ?? null,
    noIndex: p.noIndex ?? null,
    parentPostId: p.parentPostId ?? null,
    createdAt: iso(p.createdAt)!,
    updatedAt: iso(p.updatedAt)!,
    categories: cats,
    tags: tagRows,
    ...(defs.length ? { fields: await resolveFields(deps.db, siteId, defs, p.fields, deps.clock.now()) } : {}),
  };
}

export interface Category {
  id: number;
  name: string;
  slug: string;
  description: string | null;
  color: string | null;
}

export async function listCategories(deps: Deps, siteId: number): Promise<Category[]> {
  return (
    await deps.db
      .select({
        id: categories.id,
        name: categories.name,
        slug: categories.slug,
        description: categories.description,
        color: categories.color,
      })
      .from(categories)
      .where(eq(categories.siteId, siteId))
  )
    .map((c) => ({ ...c, description: c.description ?? null, color: c.color ?? null }))
    .sort((a, b) => byName(a.name, b.name) || a.id - b.id);
}

export interface Tag {
  id: number;
  name: string;
  slug: string;
}

export async function listTags(deps: Deps, siteId: number): Promise<Tag[]> {
  return (
    await deps.db.select({ id: tags.id, name: tags.name, slug: tags.slug }).from(tags).where(eq(tags.siteId, siteId))
  ).sort((a, b) => byName(a.name, b.name) || a.id - b.id);
}

/** A post type of the site with its custom field definitions (empty when it has none). */
export interface PostTypeFields {
  slug: string;
  name: string;
  fields: FieldDef[];
}

/**
 * Every post type of the site with its field definitions, by slug (code
 * point order, the same on both engines): what the site's OpenAPI document
 * describes, and what its ETag is computed from.
 */
export async function listPostTypeFields(deps: Deps, siteId: number): Promise<PostTypeFields[]> {
  return (
    await deps.db
      .select({ slug: postTypes.slug, name: postTypes.name, fields: postTypes.fields })
      .from(postTypes)
      .where(eq(postTypes.siteId, siteId))
  )
    .map((t) => ({ slug: t.slug, name: t.name, fields: definitionsOf(t) }))
    .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}

export interface MediaItem {
  id: number;
  filename: string;
  mimeType: string;
  url: string;
  thumbnailUrl: string | null;
  alt: string | null;
  caption: string | null;
  width: number | null;
  height: number | null;
}

export interface MediaListQuery {
  limit: number;
  offset: number;
  /**
   * Lower-case prefix of the MIME type: a bare type ("image") matches every
   * subtype ("image/…"); anything with a slash is matched as given.
   */
  mimePrefix?: string;
}

export async function listMedia(
  deps: Deps,
  siteId: number,
  q: MediaListQuery,
): Promise<{ items: MediaItem[]; total: number }> {
  const conds: SQL[] = [eq(media.siteId, siteId)];
  if (q.mimePrefix !== undefined) {
    const prefix = q.mimePrefix.includes("/") ? q.mimePrefix : `${q.mimePrefix}/`;
    // substr instead of LIKE: no wildcard characters to escape.
    conds.push(sql`substr(lower(${media.mimeType}), 1, ${prefix.length}) = ${prefix}`);
  }
  const where = and(...conds)!;
  const total = (await deps.db.select({ n: count() }).from(media).where(where).limit(1))[0]!.n;
  if (q.offset >= total) return { items: [], total };
  const rows = await deps.db
    .select({
      id: media.id,
      filename: media.filename,
      mimeType: media.mimeType,
      url: media.url,
      thumbnailUrl: media.thumbnailUrl,
      alt: media.alt,
      caption: media.caption,
      width: media.width,
      height: media.height,
    })
    .from(media)
    .where(where)
    .orderBy(desc(media.createdAt), desc(media.id))
    .limit(q.limit)
    .offset(q.offset);
  return {
    items: rows.map((m) => ({
      ...m,
      thumbnailUrl: m.thumbnailUrl ?? null,
      alt: m.alt ?? null,
      caption: m.caption ?? null,
      width: m.width ?? null,
      height: m.height ?? null,
    })),
    total,
  };
}
