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

async function siteName(db: Tx, siteId: number | null): Promise<string | null> {
  if (siteId === null) return null;
  return (await db.select({ name: sites.name }).from(sites).where(eq(sites.id, siteId)).limit(1))[0]?.name ?? null;
}

async function names(db: Tx, table: typeof categories | typeof tags, ids: number[]): Promise<string> {
  if (ids.length === 0) return "";
  return (await db
      .select({ name: table.name })
      .from(table)
      .where(inArray(table.id, ids)))
    .map((r) => r.name)
    .sort()
    .join(", ");
}

async function linkedIds(db: Tx, postId: number) {
  return {
    categoryIds: (await db.select({ id: postCategories.categoryId }).from(postCategories).where(eq(postCategories.postId, postId))).map((r) => r.id),
    tagIds: (await db.select({ id: postTags.tagId }).from(postTags).where(eq(postTags.postId, postId))).map((r) => r.id),
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

async function typeName(db: Tx, id: number): Promise<string> {
  return (await db.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, id)).limit(1))[0]?.slug ?? String(id);
}

/** Field value as the reviewer reads it. */
async function fieldText(db: Tx, key: string, value: unknown): Promise<string | null> {
  if (value === null || value === undefined) return null;
  if (key === "postTypeId") return await typeName(db, value as number);
  if (key === "categoryIds") return await names(db, categories, value as number[]) || null;
  if (key === "tagIds") return await names(db, tags, value as number[]) || null;
  if (key === "noIndex") return value ? "yes" : "no";
  return displayValue(value);
}

function coverHtml(url: string | null | undefined): string {
  const src = safeUrl(url ?? null);
  return src ? `<figure class="ap-cover"><img alt="Cover image" src="${escapeHtml(src)}"></figure>` : "";
}

async function pendingRevisionOf(db: Tx, link: LinkRow) {
  const revisionId = (link.payload as { revisionId?: unknown } | null)?.revisionId;
  if (typeof revisionId !== "number") return null;
  return (await db.select().from(postRevisions).where(eq(postRevisions.id, revisionId)).limit(1))[0] ?? null;
}

async function postOf(db: Tx, link: LinkRow): Promise<PostRow | undefined> {
  if (link.entityId === null) return undefined;
  return (await db.select().from(posts).where(eq(posts.id, link.entityId)).limit(1))[0];
}

export const postApprovalKind: ApprovalKind = {
  entityType: "post",
  label: "Post",

  async preview(deps: Deps, link: LinkRow): Promise<ApprovalPreview | null> {
    const db = deps.db;
    const post = await postOf(db, link);
    if (!post) return null;
    const rev = await pendingRevisionOf(db, link);
    const changes = (rev?.changes ?? {}) as PostChanges;
    const live = { ...post, ...await linkedIds(db, post.id) } as Record<string, unknown>;
    const proposed = { ...live, ...changes } as Record<string, unknown>;
    const content = (proposed.content as BlockContent | null) ?? { blocks: [], version: "1" };
    const facts: { label: string; value: string }[] = [];
    const site = await siteName(db, post.siteId);
    if (site) facts.push({ label: "Site", value: site });
    facts.push({ label: "Post type", value: await typeName(db, proposed.postTypeId as number) });
    facts.push({ label: "Slug", value: proposed.slug as string });
    for (const k of ["excerpt", "categoryIds", "tagIds", "seoTitle", "seoDescription", "canonicalUrl", "noIndex"] as const) {
      const t = await fieldText(db, k, proposed[k]);
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
        rows.push({ field: LABELS[k] ?? k, before: await fieldText(db, k, live[k]), after: await fieldText(db, k, (changes as Record<string, unknown>)[k]) });
      }
    }
    const typeLabel = (
      (await db.select({ name: postTypes.name }).from(postTypes).where(eq(postTypes.id, proposed.postTypeId as number)).limit(1))[0]?.name ?? "post"
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

  async approve(tx, deps, link, d) {
    const post = await postOf(tx, link);
    if (!post) throw conflict("The post no longer exists.");
    const rev = await pendingRevisionOf(tx, link);
    if (rev) {
      if (rev.status !== "pending") throw conflict(`This revision is ${rev.status}, so it cannot be applied.`);
      const changes = rev.changes as PostChanges;
      if (changes.slug !== undefined && changes.slug !== post.slug) await assertSlugFree(tx, post.siteId, changes.slug, post.id);
      // Categories or tags deleted since the proposal are dropped rather than failing the whole change.
      if (changes.categoryIds)
        changes.categoryIds = (await tx.select({ id: categories.id }).from(categories).where(and(eq(categories.siteId, post.siteId), inArray(categories.id, changes.categoryIds.length ? changes.categoryIds : [-1])))).map((r) => r.id);
      if (changes.tagIds)
        changes.tagIds = (await tx.select({ id: tags.id }).from(tags).where(and(eq(tags.siteId, post.siteId), inArray(tags.id, changes.tagIds.length ? changes.tagIds : [-1])))).map((r) => r.id);
      if (changes.postTypeId !== undefined && !(await tx.select({ id: postTypes.id }).from(postTypes).where(eq(postTypes.id, changes.postTypeId)).limit(1))[0])
        throw conflict("The proposed post type no longer exists.");
      await applyPostChanges(tx, post, changes, d.now);
      await tx.update(postRevisions).set({ status: "applied" }).where(eq(postRevisions.id, rev.id));
    } else {
      if (post.status !== "pending") throw conflict(`The post is ${post.status} now, so this request no longer applies.`);
      await tx.update(posts)
                        .set({ status: "published", published: true, publishedAt: post.publishedAt ?? d.now, updatedAt: d.now })
                        .where(eq(posts.id, post.id));
    }
    await bumpContentVersion(tx, post.siteId);
    const now = (await tx.select({ slug: posts.slug, status: posts.status }).from(posts).where(eq(posts.id, post.id)).limit(1))[0]!;
    return { postId: post.id, slug: now.slug, status: now.status, ...(rev ? { revisionId: rev.id } : {}) };
  },

  async reject(tx, _deps, link) {
    const rev = await pendingRevisionOf(tx, link);
    if (rev) {
      if (rev.status === "pending") await tx.update(postRevisions).set({ status: "rejected" }).where(eq(postRevisions.id, rev.id));
      return;
    }
    const post = await postOf(tx, link);
    if (post && post.status === "pending") await tx.update(posts).set({ status: "rejected" }).where(eq(posts.id, post.id));
  },
};

async function templateOf(db: Tx, link: LinkRow) {
  if (link.entityId === null) return undefined;
  return (await db.select().from(blockTemplates).where(eq(blockTemplates.id, link.entityId)).limit(1))[0];
}

export const blockTemplateApprovalKind: ApprovalKind = {
  entityType: "block_template",
  label: "Block template",

  async preview(deps, link) {
    const t = await templateOf(deps.db, link);
    if (!t) return null;
    const isUpdate = t.status === "published" && t.draftContent !== null;
    const proposed = isUpdate ? t.draftContent! : t.content;
    const facts = [{ label: "Slug", value: t.slug }];
    const site = await siteName(deps.db, t.siteId);
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

  async approve(tx, _deps, link, d) {
    const t = await templateOf(tx, link);
    if (!t) throw conflict("The block template no longer exists.");
    if (t.status === "published" && t.draftContent) {
      await tx.update(blockTemplates).set({ content: t.draftContent, draftContent: null, updatedAt: d.now }).where(eq(blockTemplates.id, t.id));
    } else if (t.status === "pending") {
      await tx.update(blockTemplates).set({ status: "published", updatedAt: d.now }).where(eq(blockTemplates.id, t.id));
    } else {
      throw conflict(`The block template is ${t.status} with nothing pending, so this request no longer applies.`);
    }
    return { blockTemplateId: t.id, slug: t.slug, status: "published" };
  },

  async reject(tx, _deps, link, d) {
    const t = await templateOf(tx, link);
    if (!t) return;
    if (t.status === "published") await tx.update(blockTemplates).set({ draftContent: null, updatedAt: d.now }).where(eq(blockTemplates.id, t.id));
    else if (t.status === "pending") await tx.update(blockTemplates).set({ status: "rejected", updatedAt: d.now }).where(eq(blockTemplates.id, t.id));
  },
};
