/**
 * Posts: drafts written by agents, published only through an approval link.
 *
 * States of a post (our names; `published` is the flag REST reads):
 *   pending    drafted or edited, waiting for approval (never served)
 *   published  approved and served by REST
 *   (scheduled  shown for an approved post whose publishedAt is ahead: see schedule.ts)
 *   rejected   a reviewer rejected the draft (never served); updating it proposes again
 *   archived   taken offline with posts_unpublish; updating it proposes it again
 * A published post that is updated stays published and served as it is: the
 * update waits in post_revisions until its link is approved.
 */
import { and, asc, count, desc, eq, inArray, ne, or, sql } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { bumpContentVersion } from "../sites/content-version";
import { audit } from "../../core/audit";
import { emit } from "../../core/events";
import { postCreated, postDeleted, postEventData, postUnpublished, postUpdated } from "./events";
import { conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { slugify, slugNote, uniqueSlug } from "../../core/slug";
import { renderBlocksHtml } from "../blocks/render";
import { approvalState, latestLinkFor, mintLink, withdrawLinks, type ApprovalEnvelope } from "../approvals/links";
import { approvedLinkId, holdForApproval, isApprovedRun } from "../approvals/staging";
import { siteForActor } from "../sites/access";
import { checkUrl, contentFrom, contentWarnings, type BlocksInput, type Include } from "./common";
import { ensurePostType, postTypeBySlug } from "./post-types";
import { checkFieldValues, definitionsOfType } from "./custom-fields";
import { linksToSlug } from "./references";
import {
  categories,
  postCategories,
  postRevisions,
  posts,
  postTags,
  postTypes,
  tags,
  type BlockContent,
} from "./tables";
import { containsText, jsonContains } from "../../core/sql";
import { byText } from "../../core/sql";
import { preparedRead } from "../../core/prepared";
import { uniqueIds, write } from "../../core/fields";
import type { Tx } from "../../core/db";

export type PostRow = typeof posts.$inferSelect;

/** Fields an agent may set on a post. */
export interface PostFields {
  title?: string;
  slug?: string;
  postType?: string;
  blocks?: BlocksInput;
  excerpt?: string | null;
  coverImage?: string | null;
  ogImage?: string | null;
  seoTitle?: string | null;
  seoDescription?: string | null;
  canonicalUrl?: string | null;
  customCss?: string | null;
  customJs?: string | null;
  noIndex?: boolean | null;
  parentPostId?: number | null;
  categoryIds?: number[];
  tagIds?: number[];
  /** Custom field values by name (custom-fields.ts): merged over the current ones, a null value clears one; null clears all. */
  fields?: Record<string, unknown> | null;
}

/** A validated change set, keyed by column (plus the two link lists): the fields, with the post type and blocks resolved. */
export type PostChanges = Omit<PostFields, "postType" | "blocks"> & { postTypeId?: number; content?: BlockContent };

const COPIED = ["title", "excerpt", "seoTitle", "seoDescription", "customCss", "customJs", "noIndex"] as const;

async function slugOwner(tx: Tx, siteId: number, slug: string, exceptId: number | null) {
  return (
    await tx
      .select({ id: posts.id, title: posts.title })
      .from(posts)
      .where(
        and(eq(posts.siteId, siteId), eq(posts.slug, slug), exceptId === null ? undefined : ne(posts.id, exceptId)),
      )
      .limit(1)
  )[0];
}

export async function assertSlugFree(tx: Tx, siteId: number, slug: string, exceptId: number | null) {
  const owner = await slugOwner(tx, siteId, slug, exceptId);
  if (owner)
    throw conflict(
      `Slug "${slug}" is already used by post ${owner.id} ("${owner.title.slice(0, 80)}") on this site. Choose another slug, or omit slug to have one generated.`,
      { path: "slug" },
    );
}

async function assertIdsOnSite(
  tx: Tx,
  table: typeof categories | typeof tags,
  siteId: number,
  ids: number[],
  field: string,
  noun: string,
) {
  if (ids.length === 0) return;
  const found = new Set(
    (
      await tx
        .select({ id: table.id })
        .from(table)
        .where(and(eq(table.siteId, siteId), inArray(table.id, ids)))
    ).map((r) => r.id),
  );
  const missing = ids.filter((i) => !found.has(i));
  if (missing.length) throw notFound(`${field}: ${noun} ${missing.join(", ")} not found on this site.`);
}

/**
 * Validates caller fields into a change set; `current` is the post being
 * updated (null on create), `pending` the change set of its pending revision
 * (custom fields given now are merged over the pending ones, and checked
 * against the pending post type, as the revision will apply them).
 */
export async function postChanges(
  tx: Tx,
  siteId: number,
  f: PostFields,
  current: PostRow | null,
  pending: Record<string, unknown> | null = null,
): Promise<PostChanges> {
  const c: PostChanges = {};
  for (const k of COPIED) if (f[k] !== undefined) (c as Record<string, unknown>)[k] = f[k];
  if (f.title !== undefined && !f.title.trim()) throw invalid("title must not be blank.", { path: "title" });
  if (f.slug !== undefined) {
    // Kept even when equal to the live slug: it can cancel a slug change waiting in a revision.
    if (f.slug !== current?.slug) await assertSlugFree(tx, siteId, f.slug, current?.id ?? null);
    c.slug = f.slug;
  }
  if (f.postType !== undefined) c.postTypeId = (await ensurePostType(tx, siteId, f.postType)).id;
  if (f.blocks !== undefined) c.content = contentFrom(f.blocks);
  for (const k of ["coverImage", "ogImage", "canonicalUrl"] as const) {
    if (f[k] === undefined) continue;
    checkUrl(k, f[k], k === "canonicalUrl");
    c[k] = f[k];
  }
  if (f.parentPostId !== undefined) {
    if (f.parentPostId !== null) {
      if (current && f.parentPostId === current.id)
        throw invalid("parentPostId cannot be the post itself.", { path: "parentPostId" });
      const parent = (
        await tx
          .select({ id: posts.id, parentPostId: posts.parentPostId })
          .from(posts)
          .where(and(eq(posts.id, f.parentPostId), eq(posts.siteId, siteId)))
          .limit(1)
      )[0];
      if (!parent) throw notFound(`parentPostId: post ${f.parentPostId} not found on this site.`);
      // Walk up from the new parent: reaching the post itself would make a cycle.
      let up = parent.parentPostId;
      for (let i = 0; up !== null && i < 64; i++) {
        if (current && up === current.id)
          throw invalid("parentPostId would make the post its own ancestor.", { path: "parentPostId" });
        up = (await tx.select({ p: posts.parentPostId }).from(posts).where(eq(posts.id, up)).limit(1))[0]?.p ?? null;
      }
    }
    c.parentPostId = f.parentPostId;
  }
  if (f.categoryIds !== undefined) {
    c.categoryIds = uniqueIds("categoryIds", f.categoryIds);
    await assertIdsOnSite(tx, categories, siteId, c.categoryIds, "categoryIds", "category");
  }
  if (f.tagIds !== undefined) {
    c.tagIds = uniqueIds("tagIds", f.tagIds);
    await assertIdsOnSite(tx, tags, siteId, c.tagIds, "tagIds", "tag");
  }
  // Custom fields are checked whenever they or the post type change, and on create (required ones).
  if (f.fields !== undefined || f.postType !== undefined || current === null) {
    const typeId = c.postTypeId ?? (pending?.postTypeId as number | undefined) ?? current!.postTypeId;
    const { slug, defs } = await definitionsOfType(tx, typeId);
    const base = ((pending && "fields" in pending ? pending.fields : current?.fields) ?? {}) as Record<string, unknown>;
    const merged = f.fields === null ? {} : { ...base, ...(f.fields ?? {}) };
    if (defs.length > 0 || Object.keys(merged).length > 0) {
      const checked = await checkFieldValues(tx, siteId, slug, defs, merged);
      if (f.fields !== undefined) c.fields = Object.keys(checked).length ? checked : null;
    } else if (f.fields !== undefined && current?.fields) c.fields = null;
  }
  return c;
}

/** Writes a change set onto a post row (and its category/tag links). */
export async function applyPostChanges(tx: Tx, post: PostRow, c: PostChanges, now: Date, extra: Partial<PostRow> = {}) {
  const { categoryIds, tagIds, ...cols } = c;
  await tx
    .update(posts)
    .set({ ...cols, ...extra, updatedAt: now })
    .where(eq(posts.id, post.id));
  if (categoryIds) {
    await tx.delete(postCategories).where(eq(postCategories.postId, post.id));
    if (categoryIds.length)
      await tx.insert(postCategories).values(categoryIds.map((categoryId) => ({ postId: post.id, categoryId })));
  }
  if (tagIds) {
    await tx.delete(postTags).where(eq(postTags.postId, post.id));
    if (tagIds.length) await tx.insert(postTags).values(tagIds.map((tagId) => ({ postId: post.id, tagId })));
  }
}

export async function postInSite(tx: Tx, siteId: number, id: number): Promise<PostRow> {
  const p = (
    await tx
      .select()
      .from(posts)
      .where(and(eq(posts.id, id), eq(posts.siteId, siteId)))
      .limit(1)
  )[0];
  if (!p) throw notFound(`Post ${id} not found on site ${siteId}.`);
  return p;
}

async function pendingRevision(tx: Tx, postId: number) {
  return (
    await tx
      .select()
      .from(postRevisions)
      .where(and(eq(postRevisions.postId, postId), eq(postRevisions.status, "pending")))
      .orderBy(desc(postRevisions.id))
      .limit(1)
  )[0];
}

/** Change sets are stored as JSON; this is the JSON form (content kept as an object). */
function revisionJson(c: PostChanges): Record<string, unknown> {
  return JSON.parse(JSON.stringify(c)) as Record<string, unknown>;
}

function withContent(out: Record<string, unknown>, content: BlockContent | null, include: Include) {
  if (include.includes("blocks")) out.blocks = content?.blocks ?? [];
  if (include.includes("html")) out.html = renderBlocksHtml(content ?? { blocks: [] });
  return out;
}

/**
 * What a post's approval link proposes, recorded when it is minted so the
 * link reads the same after the decision ("A new blog post — approved and
 * published on …"): a post never published yet (`new`), an edit of a post
 * that was published and is offline now (`republish`), or a pending
 * revision of a live post (`revision`, with the live values it changes).
 */
export type PostProposal = (
  | { proposal: "new" | "republish" }
  | { proposal: "revision"; revisionId: number; before: Record<string, unknown>; beforeBlocks: number }
) & {
  /** Set when the proposal restores a version (post_versions_restore, versions.ts): its number. */
  restoredFrom?: number;
};

const postLink = async (
  ctx: ActorContext,
  tx: Tx,
  post: { id: number; siteId: number; title: string },
  what: PostProposal,
) =>
  await mintLink(tx, ctx, {
    linkType: "entity",
    entityType: "post",
    entityId: post.id,
    siteId: post.siteId,
    title: post.title,
    payload: what as unknown as Record<string, unknown>,
  });

/** The live values a revision would change (content as its block count), for the link's record of "before". */
async function liveValues(tx: Tx, post: PostRow, keys: string[]): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const k of keys) {
    if (k === "content") continue;
    if (k === "categoryIds")
      out[k] = (
        await tx
          .select({ id: postCategories.categoryId })
          .from(postCategories)
          .where(eq(postCategories.postId, post.id))
      ).map((r) => r.id);
    else if (k === "tagIds")
      out[k] = (await tx.select({ id: postTags.tagId }).from(postTags).where(eq(postTags.postId, post.id))).map(
        (r) => r.id,
      );
    else out[k] = (post as Record<string, unknown>)[k] ?? null;
  }
  return out;
}

export interface WriteResult {
  id: number;
  slug: string;
  status: string;
  approval?: ApprovalEnvelope;
  [k: string]: unknown;
}

export async function createPost(
  ctx: ActorContext,
  input: PostFields & { siteId: number; title: string; include?: Include },
): Promise<WriteResult> {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const c = await postChanges(tx, site.id, { ...input, postType: input.postType ?? "blog" }, null);
    const base = slugify(input.title, "post");
    const slug = c.slug ?? (await uniqueSlug(base, async (s) => !!(await slugOwner(tx, site.id, s, null))));
    const { categoryIds, tagIds, ...cols } = c;
    const row = (
      await tx
        .insert(posts)
        .values({
          ...cols,
          siteId: site.id,
          postTypeId: c.postTypeId!,
          title: input.title,
          slug,
          content: c.content ?? { blocks: [], version: "1" },
          status: "pending",
          published: false,
          authorUserId: ctx.principal.userId,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    await applyPostChanges(tx, row, { categoryIds, tagIds }, now);
    const approval = await postLink(ctx, tx, row, { proposal: "new" });
    await audit(tx, ctx, "posts.create", {
      type: "post",
      id: row.id,
      siteId: site.id,
      detail: { slug, approvalId: approval.id },
    });
    await emit(
      tx,
      ctx,
      postCreated,
      { id: row.id, siteId: site.id },
      { ...(await postEventData(tx, row)), approvalId: approval.id, authorUserId: row.authorUserId ?? null },
    );
    const warnings = await contentWarnings(tx, site.id, c.content, "post");
    return withContent(
      { id: row.id, slug, status: "pending", ...(c.slug ? {} : slugNote(base, slug, "post")), approval, ...warnings },
      row.content,
      input.include ?? [],
    ) as WriteResult;
  });
}

export async function updatePost(
  ctx: ActorContext,
  input: PostFields & { siteId: number; id: number; include?: Include },
  opts: { restoredFrom?: number } = {},
): Promise<WriteResult> {
  const restored = opts.restoredFrom === undefined ? {} : { restoredFrom: opts.restoredFrom };
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const post = await postInSite(tx, site.id, input.id);
    const prev = post.published ? await pendingRevision(tx, post.id) : undefined;
    const c = await postChanges(tx, site.id, input, post, prev?.changes ?? null);
    if (post.published) {
      // Live stays live: the change waits in a revision. Changes accumulate, so
      // re-calling with nothing new re-proposes (and re-mints) the pending ones.
      const merged = { ...(prev?.changes ?? {}), ...revisionJson(c) };
      if (Object.keys(merged).length === 0)
        return withContent(
          {
            id: post.id,
            slug: post.slug,
            status: post.status,
            message: "Nothing to change: the post is published as it is.",
          },
          post.content,
          input.include ?? [],
        ) as WriteResult;
      if (prev) await tx.update(postRevisions).set({ status: "superseded" }).where(eq(postRevisions.id, prev.id));
      const rev = (
        await tx
          .insert(postRevisions)
          .values({
            postId: post.id,
            changes: merged,
            status: "pending",
            createdByUserId: ctx.principal.userId,
            createdAt: now,
          })
          .returning({ id: postRevisions.id })
      )[0];
      const approval = await postLink(
        ctx,
        tx,
        { ...post, title: (merged.title as string | undefined) ?? post.title },
        {
          proposal: "revision",
          revisionId: rev.id,
          before: await liveValues(tx, post, Object.keys(merged)),
          beforeBlocks: post.content?.blocks.length ?? 0,
          ...restored,
        },
      );
      await audit(tx, ctx, "posts.update", {
        type: "post",
        id: post.id,
        siteId: site.id,
        detail: { revisionId: rev.id, fields: Object.keys(merged), approvalId: approval.id, ...restored },
      });
      await emit(
        tx,
        ctx,
        postUpdated,
        { id: post.id, siteId: site.id },
        {
          ...(await postEventData(tx, post)),
          fields: Object.keys(merged),
          revisionId: rev.id,
          approvalId: approval.id,
        },
      );
      const proposed = (merged.content as BlockContent | undefined) ?? post.content;
      return withContent(
        {
          id: post.id,
          slug: post.slug,
          status: post.status,
          pendingRevision: { id: rev.id, fields: Object.keys(merged) },
          approval,
          ...(await contentWarnings(tx, site.id, c.content, "post")),
        },
        proposed,
        input.include ?? [],
      ) as WriteResult;
    }
    await applyPostChanges(tx, post, c, now, { status: "pending" });
    const updated = await postInSite(tx, site.id, post.id);
    const approval = await postLink(ctx, tx, updated, {
      proposal: post.publishedAt ? "republish" : "new",
      ...restored,
    });
    await audit(tx, ctx, "posts.update", {
      type: "post",
      id: post.id,
      siteId: site.id,
      detail: { fields: Object.keys(c), approvalId: approval.id, ...restored },
    });
    await emit(
      tx,
      ctx,
      postUpdated,
      { id: post.id, siteId: site.id },
      {
        ...(await postEventData(tx, updated, [post.slug])),
        fields: Object.keys(c),
        revisionId: null,
        approvalId: approval.id,
      },
    );
    const warnings = await contentWarnings(tx, site.id, c.content, "post");
    return withContent(
      { id: post.id, slug: updated.slug, status: "pending", approval, ...warnings },
      updated.content,
      input.include ?? [],
    ) as WriteResult;
  });
}

/**
 * Taking a published post down (posts_delete, posts_unpublish) is held for
 * a person's approval, like a draft going up: the call returns a
 * pending_change approval envelope, the post stays served until a person
 * approves, and approving runs the same call again (isApprovedRun), which
 * then applies it, unless the post changed meanwhile (the reviewer sees
 * the conflict). Posts that are not live are deleted or left at once.
 */
async function holdTakedown(
  ctx: ActorContext,
  tx: Tx,
  post: PostRow,
  tool: "posts_delete" | "posts_unpublish",
  input: { siteId: number; id: number },
) {
  const verb = tool === "posts_delete" ? "deleted" : "unpublished";
  const approval = await holdForApproval(ctx, {
    tool,
    input: { siteId: input.siteId, id: input.id },
    entityId: post.id,
    siteId: post.siteId,
    title: `${tool === "posts_delete" ? "Delete" : "Unpublish"} post: ${post.title}`,
  });
  const linkedFrom = await linksToSlug(tx, post.siteId, post.slug, { exceptPostId: post.id });
  return {
    id: post.id,
    slug: post.slug,
    status: post.status,
    approval,
    ...(linkedFrom.length ? { linkedFrom } : {}),
    message:
      `Nothing changed yet: the post is live, so taking it down needs a person's approval. Share approval.url with a reviewer; ` +
      `the post is ${verb} when they approve, and stays served until then.` +
      (linkedFrom.length ? " linkedFrom lists what links to it now; those links break once it is gone." : ""),
  };
}

export async function deletePost(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const post = await postInSite(tx, site.id, input.id);
    const children = await tx
      .select({ id: posts.id, title: posts.title })
      .from(posts)
      .where(eq(posts.parentPostId, post.id))
      .limit(6);
    if (children.length)
      throw conflict(
        `Post ${post.id} is the parent of ${children.length > 5 ? "more than 5" : children.length} post(s): ${children
          .slice(0, 5)
          .map((p) => `${p.id} ("${p.title.slice(0, 60)}")`)
          .join(", ")}. Move or delete them first.`,
      );
    if (post.published && !isApprovedRun(ctx)) return await holdTakedown(ctx, tx, post, "posts_delete", input);
    await tx.delete(posts).where(eq(posts.id, post.id));
    await withdrawLinks(tx, ctx.company.id, "post", post.id, ctx.deps.clock.now(), approvedLinkId(ctx));
    if (post.published) await bumpContentVersion(tx, site.id);
    const data = await postEventData(tx, post);
    await audit(tx, ctx, "posts.delete", {
      type: "post",
      id: post.id,
      siteId: site.id,
      detail: { slug: post.slug, wasPublished: post.published },
    });
    await emit(
      tx,
      ctx,
      postDeleted,
      { id: post.id, siteId: site.id },
      { ...data, status: "deleted", published: false, wasPublished: post.published },
    );
    return { id: post.id, slug: post.slug, status: "deleted" };
  });
}

export async function unpublishPost(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const post = await postInSite(tx, site.id, input.id);
    if (!post.published)
      return { id: post.id, slug: post.slug, status: post.status, message: "The post is not published." };
    if (!isApprovedRun(ctx)) return await holdTakedown(ctx, tx, post, "posts_unpublish", input);
    await tx
      .update(posts)
      .set({ published: false, status: "archived", updatedAt: ctx.deps.clock.now() })
      .where(eq(posts.id, post.id));
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "posts.unpublish", { type: "post", id: post.id, siteId: site.id });
    await emit(
      tx,
      ctx,
      postUnpublished,
      { id: post.id, siteId: site.id },
      await postEventData(tx, await postInSite(tx, site.id, post.id)),
    );
    return { id: post.id, slug: post.slug, status: "archived" };
  });
}

// ---------------------------------------------------------------------------
// Reads

async function terms(tx: Tx, postIds: number[]) {
  const cats = postIds.length
    ? await tx
        .select({
          postId: postCategories.postId,
          id: categories.id,
          name: categories.name,
          slug: categories.slug,
          color: categories.color,
        })
        .from(postCategories)
        .innerJoin(categories, eq(categories.id, postCategories.categoryId))
        .where(inArray(postCategories.postId, postIds))
        .orderBy(asc(byText(categories.name)))
    : [];
  const tgs = postIds.length
    ? await tx
        .select({ postId: postTags.postId, id: tags.id, name: tags.name, slug: tags.slug })
        .from(postTags)
        .innerJoin(tags, eq(tags.id, postTags.tagId))
        .where(inArray(postTags.postId, postIds))
        .orderBy(asc(byText(tags.name)))
    : [];
  return { cats, tgs };
}

/** posts_list's columns; hasPendingRevision is answered by the same statement (an EXISTS per row). */
const postListFields = {
  id: posts.id,
  title: posts.title,
  slug: posts.slug,
  postType: postTypes.slug,
  status: posts.status,
  published: posts.published,
  publishedAt: posts.publishedAt,
  awaitingGoLive: posts.awaitingGoLive,
  updatedAt: posts.updatedAt,
  excerpt: posts.excerpt,
  hasPendingRevision:
    sql<boolean>`exists (select 1 from ${postRevisions} where ${postRevisions.postId} = ${posts.id} and ${postRevisions.status} = ${"pending"})`.mapWith(
      Boolean,
    ),
};
type PostListRow = {
  id: number;
  title: string;
  slug: string;
  postType: string;
  status: PostRow["status"];
  published: boolean;
  publishedAt: Date | null;
  awaitingGoLive: boolean;
  updatedAt: Date;
  excerpt: string | null;
  hasPendingRevision: boolean;
};

// The unfiltered list (a site's newest posts), the common call, prepared once (src/core/prepared.ts), in
// one statement: the total rides along as a scalar subquery, as in sites_list (src/domains/sites/verbs.ts).
const sitePostCount = preparedRead<{ siteId: number }, { n: number }[]>("posts_count_by_site", (db) =>
  db
    .select({ n: count() })
    .from(posts)
    .where(eq(posts.siteId, sql.placeholder("siteId"))),
);
const sitePostPage = preparedRead<
  { siteId: number; limit: number; offset: number },
  (PostListRow & { total: number })[]
>("posts_page_by_site", (db) =>
  db
    .select({
      ...postListFields,
      total: sql<number>`(select count(*) from ${posts} where ${posts.siteId} = ${sql.placeholder("siteId")})`.mapWith(
        Number,
      ),
    })
    .from(posts)
    .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
    .where(eq(posts.siteId, sql.placeholder("siteId")))
    .orderBy(desc(posts.updatedAt), desc(posts.id))
    .limit(sql.placeholder("limit"))
    .offset(sql.placeholder("offset")),
);

export async function listPosts(
  ctx: ActorContext,
  input: {
    siteId: number;
    postType?: string;
    status?: string;
    search?: string;
    categoryId?: number;
    tagId?: number;
    limit: number;
    offset: number;
  },
) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  let total: number;
  let rows: PostListRow[];
  const filtered =
    input.postType !== undefined ||
    !!input.status ||
    !!input.search ||
    input.categoryId !== undefined ||
    input.tagId !== undefined;
  if (!filtered) {
    const { store } = ctx.deps;
    const found = await sitePostPage(store, { siteId: site.id, limit: input.limit, offset: input.offset });
    total = found.length ? found[0]!.total : ((await sitePostCount(store, { siteId: site.id }))[0]?.n ?? 0);
    rows = found.map(({ total: _, ...r }) => r);
  } else {
    const conds = [eq(posts.siteId, site.id)];
    if (input.postType !== undefined) {
      const t = await postTypeBySlug(db, site.id, input.postType);
      if (!t) return page([], 0, input.limit, input.offset);
      conds.push(eq(posts.postTypeId, t.id));
    }
    // "scheduled" is shown for approved posts waiting for their instant; "published" is then what is served.
    if (input.status === "scheduled") conds.push(eq(posts.awaitingGoLive, true));
    else if (input.status) {
      conds.push(eq(posts.status, input.status as PostRow["status"]));
      if (input.status === "published") conds.push(eq(posts.awaitingGoLive, false));
    }
    if (input.search) {
      conds.push(containsText(posts.title, input.search));
    }
    if (input.categoryId !== undefined)
      conds.push(
        inArray(
          posts.id,
          db
            .select({ id: postCategories.postId })
            .from(postCategories)
            .where(eq(postCategories.categoryId, input.categoryId)),
        ),
      );
    if (input.tagId !== undefined)
      conds.push(
        inArray(posts.id, db.select({ id: postTags.postId }).from(postTags).where(eq(postTags.tagId, input.tagId))),
      );
    const where = and(...conds);
    total = (await db.select({ n: count() }).from(posts).where(where))[0]?.n ?? 0;
    rows = await db
      .select(postListFields)
      .from(posts)
      .innerJoin(postTypes, eq(postTypes.id, posts.postTypeId))
      .where(where)
      .orderBy(desc(posts.updatedAt), desc(posts.id))
      .limit(input.limit)
      .offset(input.offset);
  }
  return page(
    rows.map(({ awaitingGoLive, ...r }) => ({
      ...r,
      status: shownStatus({ status: r.status, awaitingGoLive }),
      publishedAt: iso(r.publishedAt),
      updatedAt: iso(r.updatedAt),
    })),
    total,
    input.limit,
    input.offset,
  );
}

/**
 * The status tools show: `scheduled` for an approved post still waiting for
 * its publishedAt (schedule.ts). Read from the row, not the clock: posts_list
 * is cached by its tables, and the cms.go_live job's write at the instant moves it.
 */
function shownStatus(p: { status: string; awaitingGoLive: boolean }): string {
  return p.awaitingGoLive ? "scheduled" : p.status;
}

export async function getPost(
  ctx: ActorContext,
  input: { siteId: number; id?: number; slug?: string; include?: Include },
) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  if ((input.id === undefined) === (input.slug === undefined)) throw invalid("Give exactly one of id or slug.");
  const post = (
    await db
      .select()
      .from(posts)
      .where(
        and(eq(posts.siteId, site.id), input.id !== undefined ? eq(posts.id, input.id) : eq(posts.slug, input.slug!)),
      )
      .limit(1)
  )[0];
  if (!post) throw notFound(`Post ${input.id ?? `"${input.slug}"`} not found on site ${site.id}.`);
  const type = (
    await db.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, post.postTypeId)).limit(1)
  )[0];
  const { cats, tgs } = await terms(db, [post.id]);
  const rev = await pendingRevision(db, post.id);
  const include = input.include ?? [];
  const out: Record<string, unknown> = {
    id: post.id,
    siteId: post.siteId,
    title: post.title,
    slug: post.slug,
    postType: type?.slug ?? null,
    status: shownStatus(post),
    published: post.published,
    publishedAt: iso(post.publishedAt),
    ...(post.unpublishAt ? { unpublishAt: iso(post.unpublishAt) } : {}),
    excerpt: post.excerpt,
    coverImage: post.coverImage,
    ogImage: post.ogImage,
    seoTitle: post.seoTitle,
    seoDescription: post.seoDescription,
    canonicalUrl: post.canonicalUrl,
    customCss: post.customCss,
    customJs: post.customJs,
    noIndex: post.noIndex,
    parentPostId: post.parentPostId,
    categories: cats.map(({ postId: _, ...c }) => c),
    tags: tgs.map(({ postId: _, ...t }) => t),
    ...(post.fields ? { fields: post.fields } : {}),
    blockCount: post.content?.blocks.length ?? 0,
    createdAt: iso(post.createdAt),
    updatedAt: iso(post.updatedAt),
    approval: approvalState(await latestLinkFor(db, ctx.company.id, "post", post.id), ctx.deps.clock.now()),
    pendingRevision: rev ? { id: rev.id, fields: Object.keys(rev.changes), createdAt: iso(rev.createdAt) } : null,
  };
  withContent(out, post.content, include);
  if (rev && include.includes("blocks") && rev.changes.content)
    (out.pendingRevision as Record<string, unknown>).blocks = (rev.changes.content as BlockContent).blocks;
  return out;
}
