/**
 * For held CMS calls (a require_cms_approval credential's writes; taking a
 * published post down): the entity type recorded on the link (so
 * approvals_list can filter by it), and for calls that change an existing
 * record, the record as it is now, keyed like the tool's arguments (creates
 * have no id, so `current` is null for them). The approval page shows it beside
 * the proposal, and approval refuses to apply a call whose target changed
 * in the meantime (approvals/staging.ts).
 *
 * `present` says how a call reads on the page: blocks rendered as the site
 * would show them, an uploaded image shown, and for a post taken down what
 * disappears and what links to it.
 */
import { and, asc, eq, isNull } from "drizzle-orm";
import type { ActorContext, Deps } from "../../core/context";
import { renderBlocksHtml } from "../blocks/render";
import type { CallPresentation, ChangeRow, HeldCall, StagedTarget } from "../approvals/kinds";
import { blocksDiff } from "../approvals/preview";
import { siteForActor } from "../sites/access";
import { sniffMime } from "./media-sniff";
import { linksToSlug } from "./references";
import {
  blockTemplates,
  categories,
  media,
  navItems,
  postCategories,
  posts,
  postTags,
  postTypes,
  tags,
} from "./tables";

type Input = Record<string, unknown>;

/** Runs a lookup for the input's site and id; null when either is missing or not the actor's. */
async function lookup<T>(
  ctx: ActorContext,
  input: Input,
  fn: (siteId: number, id: number) => Promise<T | undefined>,
): Promise<T | null> {
  if (typeof input.siteId !== "number" || typeof input.id !== "number") return null;
  try {
    const site = await siteForActor(ctx, input.siteId);
    return (await fn(site.id, input.id)) ?? null;
  } catch {
    return null;
  }
}

/** The blocks of a `blocks` argument, in either accepted form (the array, or {blocks, version}). */
function blocksOf(arg: unknown): unknown[] | null {
  if (Array.isArray(arg)) return arg;
  if (arg && typeof arg === "object" && Array.isArray((arg as { blocks?: unknown }).blocks))
    return (arg as { blocks: unknown[] }).blocks;
  return null;
}

/** A `blocks` argument as the reviewer sees it: a row saying what changes, and the blocks rendered. */
async function presentBlocks(call: HeldCall): Promise<CallPresentation> {
  const blocks = blocksOf(call.input.blocks);
  if (!blocks) return {};
  const before = call.before;
  const diff = before ? blocksDiff(before.blocks, blocks) : null;
  const rows: ChangeRow[] = [
    {
      field: "content",
      before: before ? `${Array.isArray(before.blocks) ? before.blocks.length : 0} blocks` : null,
      after: diff ?? `${blocks.length} blocks (shown below)`,
    },
  ];
  return { rows, handled: ["blocks"], html: renderBlocksHtml({ blocks }, { embeds: "link" }) };
}

/** A raster image upload is shown as the image itself; SVG and other types are not inlined. */
async function presentUpload(call: HeldCall): Promise<CallPresentation> {
  const data64 = call.input.dataBase64;
  if (typeof data64 !== "string") return {};
  try {
    const data = Buffer.from(data64, "base64");
    const mime = sniffMime(data);
    if (
      data.length <= 2_000_000 &&
      (mime === "image/png" || mime === "image/jpeg" || mime === "image/gif" || mime === "image/webp")
    )
      return {
        html: `<figure class="ap-upload"><img alt="Uploaded file" src="data:${mime};base64,${data.toString("base64")}"></figure>`,
      };
  } catch {
    /* not shown */
  }
  return {};
}

async function typeLabel(deps: Deps, siteId: unknown, slug: unknown): Promise<string> {
  if (typeof siteId !== "number" || typeof slug !== "string") return "post";
  const t = (
    await deps.db
      .select({ name: postTypes.name })
      .from(postTypes)
      .where(and(eq(postTypes.siteId, siteId), eq(postTypes.slug, slug)))
      .limit(1)
  )[0];
  return (t?.name ?? slug).toLowerCase();
}

/**
 * Unpublishing or deleting a post: what disappears from the site (by the
 * snapshot taken when it was asked for), and what links to it now, so the
 * reviewer knows which links will break.
 */
async function presentTakedown(deps: Deps, call: HeldCall): Promise<CallPresentation> {
  const b = call.before;
  if (!b || typeof b.slug !== "string") return {};
  const label = await typeLabel(deps, call.input.siteId, b.postType);
  const state = b.status === "published" ? "published " : "";
  const what = `${state}${label} “${String(b.title)}”`;
  const unpublish = call.tool === "posts_unpublish";
  const linked =
    typeof call.input.siteId === "number"
      ? await linksToSlug(deps.db, call.input.siteId, b.slug, { exceptPostId: call.input.id as number })
      : [];
  const facts = [
    {
      label: "Disappears",
      value: unpublish
        ? `The ${what} (slug ${b.slug}): the REST API stops serving it. It stays in the CMS, archived, and can be proposed again.`
        : `The ${what} (slug ${b.slug}) and its revisions, for good: the REST API stops serving it.`,
    },
    {
      label: "Linked from",
      value: linked.length
        ? linked.join("\n")
        : "nothing on this site links to it (navigation, posts, block templates)",
    },
  ];
  return {
    proposal: `${unpublish ? "Unpublishing" : "Deleting"} the ${what}`,
    applied: unpublish ? "taken offline" : "deleted",
    facts,
    handled: ["id"],
  };
}

export const cmsStagedTargets: StagedTarget[] = [
  {
    entityType: "post",
    tools: ["posts_create", "posts_update", "posts_delete", "posts_unpublish"],
    present: async (deps, call) =>
      call.tool === "posts_delete" || call.tool === "posts_unpublish"
        ? await presentTakedown(deps, call)
        : await presentBlocks(call),
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) => {
        const db = ctx.deps.db;
        const p = (
          await db
            .select()
            .from(posts)
            .where(and(eq(posts.id, id), eq(posts.siteId, siteId)))
            .limit(1)
        )[0];
        if (!p) return undefined;
        return {
          title: p.title,
          slug: p.slug,
          status: p.status,
          postType:
            (
              await db.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, p.postTypeId)).limit(1)
            )[0]?.slug ?? null,
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
          categoryIds: (
            await db.select({ id: postCategories.categoryId }).from(postCategories).where(eq(postCategories.postId, id))
          )
            .map((r) => r.id)
            .sort((a, b) => a - b),
          tagIds: (await db.select({ id: postTags.tagId }).from(postTags).where(eq(postTags.postId, id)))
            .map((r) => r.id)
            .sort((a, b) => a - b),
        };
      }),
  },
  {
    entityType: "post_type",
    tools: ["post_types_create", "post_types_update", "post_types_delete"],
    current: async (ctx, input) =>
      await lookup(
        ctx,
        input,
        async (siteId, id) =>
          (
            await ctx.deps.db
              .select({ name: postTypes.name, slug: postTypes.slug, description: postTypes.description })
              .from(postTypes)
              .where(and(eq(postTypes.id, id), eq(postTypes.siteId, siteId)))
              .limit(1)
          )[0],
      ),
  },
  {
    entityType: "category",
    tools: ["categories_create", "categories_update", "categories_delete"],
    current: async (ctx, input) =>
      await lookup(
        ctx,
        input,
        async (siteId, id) =>
          (
            await ctx.deps.db
              .select({
                name: categories.name,
                slug: categories.slug,
                description: categories.description,
                color: categories.color,
              })
              .from(categories)
              .where(and(eq(categories.id, id), eq(categories.siteId, siteId)))
              .limit(1)
          )[0],
      ),
  },
  {
    entityType: "tag",
    tools: ["tags_create", "tags_update", "tags_delete"],
    current: async (ctx, input) =>
      await lookup(
        ctx,
        input,
        async (siteId, id) =>
          (
            await ctx.deps.db
              .select({ name: tags.name, slug: tags.slug })
              .from(tags)
              .where(and(eq(tags.id, id), eq(tags.siteId, siteId)))
              .limit(1)
          )[0],
      ),
  },
  {
    entityType: "nav_item",
    tools: ["nav_items_create", "nav_items_update", "nav_items_move", "nav_items_delete"],
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) => {
        const n = (
          await ctx.deps.db
            .select()
            .from(navItems)
            .where(and(eq(navItems.id, id), eq(navItems.siteId, siteId)))
            .limit(1)
        )[0];
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
        const ids = (
          await ctx.deps.db
            .select({ id: navItems.id })
            .from(navItems)
            .where(
              and(
                eq(navItems.siteId, site.id),
                parentId === null ? isNull(navItems.parentId) : eq(navItems.parentId, parentId),
              ),
            )
            .orderBy(asc(navItems.sortOrder), asc(navItems.id))
        ).map((r) => r.id);
        return { parentId, ids };
      } catch {
        return null;
      }
    },
  },
  {
    entityType: "block_template",
    tools: ["block_templates_create", "block_templates_update", "block_templates_delete"],
    present: async (_deps, call) => await presentBlocks(call),
    current: async (ctx, input) =>
      await lookup(ctx, input, async (siteId, id) => {
        const t = (
          await ctx.deps.db
            .select()
            .from(blockTemplates)
            .where(and(eq(blockTemplates.id, id), eq(blockTemplates.siteId, siteId)))
            .limit(1)
        )[0];
        if (!t) return undefined;
        return {
          name: t.name,
          slug: t.slug,
          description: t.description,
          status: t.status,
          blocks: (t.draftContent ?? t.content).blocks,
        };
      }),
  },
  {
    entityType: "media",
    tools: ["media_upload", "media_register", "media_update", "media_delete"],
    present: async (_deps, call) => await presentUpload(call),
    current: async (ctx, input) =>
      await lookup(
        ctx,
        input,
        async (siteId, id) =>
          (
            await ctx.deps.db
              .select({
                filename: media.filename,
                alt: media.alt,
                caption: media.caption,
                url: media.url,
                mimeType: media.mimeType,
              })
              .from(media)
              .where(and(eq(media.id, id), eq(media.siteId, siteId)))
              .limit(1)
          )[0],
      ),
  },
];
