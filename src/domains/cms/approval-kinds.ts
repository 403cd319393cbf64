/**
 * The CMS's approvable kinds (see approvals/kinds.ts): posts and block
 * templates. Each says how to preview its proposal, what approving makes
 * live, and what rejecting leaves behind.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { bumpContentVersion } from "../../core/content-version";
import { conflict } from "../../core/errors";
import { escapeHtml, renderBlocksHtml } from "../blocks/render";
import { safeUrl } from "../blocks/urls";
import type { ApprovalKind, ApprovalPreview, ChangeRow } from "../approvals/kinds";
import type { LinkRow, Tx } from "../approvals/links";
import { blocksDiff, displayValue } from "../approvals/preview";
import { sites } from "../sites/tables";
import { applyPostChanges, assertSlugFree, type PostChanges, type PostRow } from "./posts";
import { blockTemplates, categories, postCategories, postRevisions, posts, postTags, postTypes, tags, type BlockContent } from "./tables";

const RENDER = { embeds: "link" } as const;

function siteName(db: Tx, siteId: number | null): string | null {
  if (siteId === null) return null;
  return db.select({ name: sites.name }).from(sites).where(eq(sites.id, siteId)).get()?.name ?? null;
}

function names(db: Tx, table: typeof categories | typeof tags, ids: number[]): string {
  if (ids.length === 0) return "";
  return db
    .select({ name: table.name })
    .from(table)
    .where(inArray(table.id, ids))
    .all()
    .map((r) => r.name)
    .sort()
    .join(", ");
}

function linkedIds(db: Tx, postId: number) {
  return {
    categoryIds: db.select({ id: postCategories.categoryId }).from(postCategories).where(eq(postCategories.postId, postId)).all().map((r) => r.id),
    tagIds: db.select({ id: postTags.tagId }).from(postTags).where(eq(postTags.postId, postId)).all().map((r) => r.id),
  };
}

const LABELS: Record<string, string> = {
  title: "Title",
  slug: "Slug",
  postTypeId: "Post type",
  content: "Content",
  excerpt: "Excerpt",
  coverImage: "Cover image",
  ogImage: "Social image",
  seoTitle: "SEO title",
  seoDescription: "SEO description",
  canonicalUrl: "Canonical URL",
  customCss: "Custom CSS",
  customJs: "Custom JavaScript (not run in this preview)",
  noIndex: "Hide from search engines",
  parentPostId: "Parent post",
  categoryIds: "Categories",
  tagIds: "Tags",
};

function typeName(db: Tx, id: number): string {
  return db.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, id)).get()?.slug ?? String(id);
}

/** Field value as the reviewer reads it. */
function fieldText(db: Tx, key: string, value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (key === "postTypeId") return typeName(db, value as number);
  if (key === "categoryIds") return names(db, categories, value as number[]) || null;
  if (key === "tagIds") return names(db, tags, value as number[]) || null;
  if (key === "noIndex") return value ? "yes" : "no";
  return displayValue(value);
}

function coverHtml(url: string | null | undefined): string {
  const src = safeUrl(url ?? null);
  return src ? `<figure class="ap-cover"><img alt="Cover image" src="${escapeHtml(src)}"></figure>` : "";
}

function pendingRevisionOf(db: Tx, link: LinkRow) {
  const revisionId = (link.payload as { revisionId?: unknown } | null)?.revisionId;
  if (typeof revisionId !== "number") return null;
  return db.select().from(postRevisions).where(eq(postRevisions.id, revisionId)).get() ?? null;
}

function postOf(db: Tx, link: LinkRow): PostRow | undefined {
  if (link.entityId === null) return undefined;
  return db.select().from(posts).where(eq(posts.id, link.entityId)).get();
}

export const postApprovalKind: ApprovalKind = {
  entityType: "post",
  label: "Post",

  preview(deps: Deps, link: LinkRow): ApprovalPreview | null {
    const db = deps.db;
    const post = postOf(db, link);
    if (!post) return null;
    const rev = pendingRevisionOf(db, link);
    const changes = (rev?.changes ?? {}) as PostChanges;
    const live = { ...post, ...linkedIds(db, post.id) } as Record<string, unknown>;
    const proposed = { ...live, ...changes } as Record<string, unknown>;
    const content = (proposed.content as BlockContent | null) ?? { blocks: [], version: "1" };
    const facts: { label: string; value: string }[] = [];
    const site = siteName(db, post.siteId);
    if (site) facts.push({ label: "Site", value: site });
    facts.push({ label: "Post type", value: typeName(db, proposed.postTypeId as number) });
    facts.push({ label: "Slug", value: proposed.slug as string });
    for (const k of ["excerpt", "categoryIds", "tagIds", "seoTitle", "seoDescription", "canonicalUrl", "noIndex"] as const) {
      const t = fieldText(db, k, proposed[k]);
      if (t !== null && (k !== "noIndex" || proposed[k])) facts.push({ label: LABELS[k]!, value: t });
    }
    for (const k of ["customCss", "customJs"] as const) {
      const v = proposed[k] as string | null;
      if (v) facts.push({ label: LABELS[k]!, value: v.length > 500 ? `${v.slice(0, 500)}… (${v.length} characters)` : v });
    }
    const rows: ChangeRow[] = [];
    if (rev) {
      for (const k of Object.keys(changes)) {
        if (k === "content") {
          rows.push({ field: "Content", before: `${post.content?.blocks.length ?? 0} blocks`, after: blocksDiff(post.content?.blocks, changes.content?.blocks) ?? "no block changes" });
          continue;
        }
        rows.push({ field: LABELS[k] ?? k, before: fieldText(db, k, live[k]), after: fieldText(db, k, (changes as Record<string, unknown>)[k]) });
      }
    }
    const typeLabel = (
      db.select({ name: postTypes.name }).from(postTypes).where(eq(postTypes.id, proposed.postTypeId as number)).get()?.name ?? "post"
    ).toLowerCase();
    return {
      title: proposed.title as string,
      summary: rev
        ? `Changes to the published ${typeLabel} “${post.title}”. The live version stays online unchanged until you approve.`
        : post.publishedAt
          ? `An edited ${typeLabel} that is offline now; approving publishes it again.`
          : `A new ${typeLabel}, not yet published: approving publishes it on the site.`,
      facts,
      changes: rows,
      html: coverHtml(proposed.coverImage as string | null) + renderBlocksHtml(content, RENDER),
      ...(rev ? { liveHtml: `<h1 class="ap-title">${escapeHtml(post.title)}</h1>${coverHtml(post.coverImage)}${renderBlocksHtml(post.content ?? { blocks: [] }, RENDER)}` } : {}),
    };
  },

  approve(tx, deps, link, d) {
    const post = postOf(tx, link);
    if (!post) throw conflict("The post no longer exists.");
    const rev = pendingRevisionOf(tx, link);
    if (rev) {
      if (rev.status !== "pending") throw conflict(`This revision is ${rev.status}, so it cannot be applied.`);
      const changes = rev.changes as PostChanges;
      if (changes.slug !== undefined && changes.slug !== post.slug) assertSlugFree(tx, post.siteId, changes.slug, post.id);
      // Categories or tags deleted since the proposal are dropped rather than failing the whole change.
      if (changes.categoryIds)
        changes.categoryIds = tx.select({ id: categories.id }).from(categories).where(and(eq(categories.siteId, post.siteId), inArray(categories.id, changes.categoryIds.length ? changes.categoryIds : [-1]))).all().map((r) => r.id);
      if (changes.tagIds)
        changes.tagIds = tx.select({ id: tags.id }).from(tags).where(and(eq(tags.siteId, post.siteId), inArray(tags.id, changes.tagIds.length ? changes.tagIds : [-1]))).all().map((r) => r.id);
      if (changes.postTypeId !== undefined && !tx.select({ id: postTypes.id }).from(postTypes).where(eq(postTypes.id, changes.postTypeId)).get())
        throw conflict("The proposed post type no longer exists.");
      applyPostChanges(tx, post, changes, d.now);
      tx.update(postRevisions).set({ status: "applied" }).where(eq(postRevisions.id, rev.id)).run();
    } else {
      if (post.status !== "pending") throw conflict(`The post is ${post.status} now, so this request no longer applies.`);
      tx.update(posts)
        .set({ status: "published", published: true, publishedAt: post.publishedAt ?? d.now, updatedAt: d.now })
        .where(eq(posts.id, post.id))
        .run();
    }
    bumpContentVersion(tx, post.siteId);
    const now = tx.select({ slug: posts.slug, status: posts.status }).from(posts).where(eq(posts.id, post.id)).get()!;
    return { postId: post.id, slug: now.slug, status: now.status, ...(rev ? { revisionId: rev.id } : {}) };
  },

  reject(tx, _deps, link) {
    const rev = pendingRevisionOf(tx, link);
    if (rev) {
      if (rev.status === "pending") tx.update(postRevisions).set({ status: "rejected" }).where(eq(postRevisions.id, rev.id)).run();
      return;
    }
    const post = postOf(tx, link);
    if (post && post.status === "pending") tx.update(posts).set({ status: "rejected" }).where(eq(posts.id, post.id)).run();
  },
};

function templateOf(db: Tx, link: LinkRow) {
  if (link.entityId === null) return undefined;
  return db.select().from(blockTemplates).where(eq(blockTemplates.id, link.entityId)).get();
}

export const blockTemplateApprovalKind: ApprovalKind = {
  entityType: "block_template",
  label: "Block template",

  preview(deps, link) {
    const t = templateOf(deps.db, link);
    if (!t) return null;
    const isUpdate = t.status === "published" && t.draftContent !== null;
    const proposed = isUpdate ? t.draftContent! : t.content;
    const facts = [{ label: "Slug", value: t.slug }];
    const site = siteName(deps.db, t.siteId);
    if (site) facts.unshift({ label: "Site", value: site });
    if (t.description) facts.push({ label: "Description", value: t.description });
    return {
      title: t.name,
      summary: isUpdate
        ? `Changes to the block template “${t.name}”. Agents keep using the approved version until you approve.`
        : "A new block template: approving makes it available to build pages from.",
      facts,
      changes: isUpdate ? [{ field: "Content", before: `${t.content.blocks.length} blocks`, after: blocksDiff(t.content.blocks, proposed.blocks) ?? "no block changes" }] : [],
      html: renderBlocksHtml(proposed, RENDER),
      ...(isUpdate ? { liveHtml: renderBlocksHtml(t.content, RENDER) } : {}),
    };
  },

  approve(tx, _deps, link, d) {
    const t = templateOf(tx, link);
    if (!t) throw conflict("The block template no longer exists.");
    if (t.status === "published" && t.draftContent) {
      tx.update(blockTemplates).set({ content: t.draftContent, draftContent: null, updatedAt: d.now }).where(eq(blockTemplates.id, t.id)).run();
    } else if (t.status === "pending") {
      tx.update(blockTemplates).set({ status: "published", updatedAt: d.now }).where(eq(blockTemplates.id, t.id)).run();
    } else {
      throw conflict(`The block template is ${t.status} with nothing pending, so this request no longer applies.`);
    }
    return { blockTemplateId: t.id, slug: t.slug, status: "published" };
  },

  reject(tx, _deps, link, d) {
    const t = templateOf(tx, link);
    if (!t) return;
    if (t.status === "published") tx.update(blockTemplates).set({ draftContent: null, updatedAt: d.now }).where(eq(blockTemplates.id, t.id)).run();
    else if (t.status === "pending") tx.update(blockTemplates).set({ status: "rejected", updatedAt: d.now }).where(eq(blockTemplates.id, t.id)).run();
  },
};
