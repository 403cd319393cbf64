/**
 * For staged CMS calls: the entity type recorded on the link (so
 * approvals_list can filter by it), and for calls that change an existing
 * record, the record as it is now, keyed like the tool's arguments (creates
 * have no id, so `current` is null for them). The approval page shows it beside
 * the proposal, and approval refuses to apply a call whose target changed
 * in the meantime (approvals/staging.ts).
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import type { StagedTarget } from "../approvals/kinds";
import { siteForActor } from "../sites/access";
import { blockTemplates, categories, media, navItems, postCategories, posts, postTags, postTypes, tags } from "./tables";

type Input = Record<string, unknown>;

/** Runs a lookup for the input's site and id; null when either is missing or not the actor's. */
async function lookup<T>(ctx: ActorContext, input: Input, fn: (siteId: number, id: number) => Promise<T | undefined>): Promise<T | null> {
  if (typeof input.siteId !== "number" || typeof input.id !== "number") return null;
  try {
    const site = await siteForActor(ctx, input.siteId);
    return (await fn(site.id, input.id)) ?? null;
  } catch {
    return null;
  }
}

export const cmsStagedTargets: StagedTarget[] = [
  {
    entityType: "post",
    tools: ["posts_create", "posts_update", "posts_delete", "posts_unpublish"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) => {
                const db = ctx.deps.db;
                const p = (await db.select().from(posts).where(and(eq(posts.id, id), eq(posts.siteId, siteId))).limit(1))[0];
                if (!p) return undefined;
                return {
                  title: p.title,
                  slug: p.slug,
                  status: p.status,
                  postType: (await db.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, p.postTypeId)).limit(1))[0]?.slug ?? null,
                  blocks: p.content?.blocks ?? [],
                  excerpt: p.excerpt,
                  coverImage: p.coverImage,
                  ogImage: p.ogImage,
                  seoTitle: p.seoTitle,
                  seoDescription: p.seoDescription,
                  canonicalUrl: p.canonicalUrl,
                  customCss: p.customCss,
                  customJs: p.customJs,
                  noIndex: p.noIndex,
                  parentPostId: p.parentPostId,
                  categoryIds: (await db.select({ id: postCategories.categoryId }).from(postCategories).where(eq(postCategories.postId, id))).map((r) => r.id).sort((a, b) => a - b),
                  tagIds: (await db.select({ id: postTags.tagId }).from(postTags).where(eq(postTags.postId, id))).map((r) => r.id).sort((a, b) => a - b),
                };
              }),
  },
  {
    entityType: "post_type",
    tools: ["post_types_create", "post_types_update", "post_types_delete"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) =>
                (await ctx.deps.db
                            .select({ name: postTypes.name, slug: postTypes.slug, description: postTypes.description })
                            .from(postTypes)
                            .where(and(eq(postTypes.id, id), eq(postTypes.siteId, siteId))).limit(1))[0],
              ),
  },
  {
    entityType: "category",
    tools: ["categories_create", "categories_update", "categories_delete"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) =>
                (await ctx.deps.db
                            .select({ name: categories.name, slug: categories.slug, description: categories.description, color: categories.color })
                            .from(categories)
                            .where(and(eq(categories.id, id), eq(categories.siteId, siteId))).limit(1))[0],
              ),
  },
  {
    entityType: "tag",
    tools: ["tags_create", "tags_update", "tags_delete"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) =>
                (await ctx.deps.db.select({ name: tags.name, slug: tags.slug }).from(tags).where(and(eq(tags.id, id), eq(tags.siteId, siteId))).limit(1))[0],
              ),
  },
  {
    entityType: "nav_item",
    tools: ["nav_items_create", "nav_items_update", "nav_items_move", "nav_items_delete"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) => {
                const n = (await ctx.deps.db.select().from(navItems).where(and(eq(navItems.id, id), eq(navItems.siteId, siteId))).limit(1))[0];
                if (!n) return undefined;
                return {
                  label: n.label,
                  href: n.href,
                  parentId: n.parentId,
                  position: n.sortOrder,
                  openInNewTab: n.openInNewTab,
                  isButton: n.isButton,
                  description: n.description,
                  icon: n.icon,
                  featuredImage: n.featuredImage,
                  columnGroup: n.columnGroup,
                };
              }),
  },
  {
    entityType: "nav_item",
    tools: ["nav_items_reorder"],
    current: async (ctx, input) => {
      if (typeof input.siteId !== "number") return null;
      try {
        const site = await siteForActor(ctx, input.siteId);
        const parentId = typeof input.parentId === "number" ? input.parentId : null;
        const ids = (await ctx.deps.db
                  .select({ id: navItems.id })
                  .from(navItems)
                  .where(and(eq(navItems.siteId, site.id), parentId === null ? isNull(navItems.parentId) : eq(navItems.parentId, parentId)))
                  .orderBy(asc(navItems.sortOrder), asc(navItems.id)))
          .map((r) => r.id);
        return { parentId, ids };
      } catch {
        return null;
      }
    },
  },
  {
    entityType: "block_template",
    tools: ["block_templates_create", "block_templates_update", "block_templates_delete"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) => {
                const t = (await ctx.deps.db.select().from(blockTemplates).where(and(eq(blockTemplates.id, id), eq(blockTemplates.siteId, siteId))).limit(1))[0];
                if (!t) return undefined;
                return { name: t.name, slug: t.slug, description: t.description, status: t.status, blocks: (t.draftContent ?? t.content).blocks };
              }),
  },
  {
    entityType: "media",
    tools: ["media_upload", "media_register", "media_update", "media_delete"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) =>
                (await ctx.deps.db
                            .select({ filename: media.filename, alt: media.alt, caption: media.caption, url: media.url, mimeType: media.mimeType })
                            .from(media)
                            .where(and(eq(media.id, id), eq(media.siteId, siteId))).limit(1))[0],
              ),
  },
];
