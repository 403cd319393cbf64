/**
 * The CMS's approvable kinds (see approvals/kinds.ts): posts and block
 * templates, declared on the cms Domain. Each says how to preview its
 * proposal, what approving makes live, and what rejecting leaves behind.
 *
 * A link reads as what it proposed, whatever happened since: the proposal
 * (new, an edit of an offline post, a revision of a live one) is recorded
 * on the link when it is minted (posts.ts, block-templates.ts), and the
 * summary adds the outcome ("A new blog post — approved and published on …
 * by …"). Links minted before that record are read by inference.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { bumpContentVersion } from "../sites/content-version";
import { emit } from "../../core/events";
import { postEventData, postPublished, postRejected } from "./events";
import { iso } from "../../core/clock";
import { conflict } from "../../core/errors";
import { escapeHtml, renderBlocksHtml } from "../blocks/render";
import { safeUrl } from "../blocks/urls";
import type { ApprovalKind, ApprovalLink, ApprovalPreview, ChangeRow } from "../approvals/kinds";
import { blocksDiff, displayValue, summarize } from "../approvals/preview";
import { effectiveStatus } from "../approvals/links";
import { siteName as nameOfSite } from "../sites/facts";
import { applyPostChanges, assertSlugFree, type PostChanges, type PostProposal, type PostRow } from "./posts";
import {
  blockTemplates,
  categories,
  postCategories,
  postRevisions,
  posts,
  postTags,
  postTypes,
  tags,
  type BlockContent,
} from "./tables";
import type { Tx } from "../../core/db";
import { instantText, refreshNextScheduled } from "./schedule";
import { diffBlocks, liveBeforeHistory, recordVersion } from "./versions";

const RENDER = { embeds: "link" } as const;

async function siteName(db: Tx, siteId: number | null): Promise<string | null> {
  return siteId === null ? null : await nameOfSite(db, siteId);
}

async function names(db: Tx, table: typeof categories | typeof tags, ids: number[]): Promise<string> {
  if (ids.length === 0) return "";
  return (await db.select({ name: table.name }).from(table).where(inArray(table.id, ids)))
    .map((r) => r.name)
    .sort()
    .join(", ");
}

async function linkedIds(db: Tx, postId: number) {
  return {
    categoryIds: (
      await db.select({ id: postCategories.categoryId }).from(postCategories).where(eq(postCategories.postId, postId))
    ).map((r) => r.id),
    tagIds: (await db.select({ id: postTags.tagId }).from(postTags).where(eq(postTags.postId, postId))).map(
      (r) => r.id,
    ),
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
  fields: "Custom fields",
};

async function typeName(db: Tx, id: number): Promise<string> {
  return (
    (await db.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, id)).limit(1))[0]?.slug ??
    String(id)
  );
}

/** Field value as the reviewer reads it. */
async function fieldText(db: Tx, key: string, value: unknown): Promise<string | null> {
  if (value === null || value === undefined) return null;
  if (key === "postTypeId") return await typeName(db, value as number);
  if (key === "categoryIds") return (await names(db, categories, value as number[])) || null;
  if (key === "tagIds") return (await names(db, tags, value as number[])) || null;
  if (key === "noIndex") return value ? "yes" : "no";
  // Custom fields one per line, "name: value", so the reviewer reads them rather than JSON.
  if (key === "fields" && typeof value === "object")
    return (
      displayValue(
        Object.entries(value as Record<string, unknown>)
          .map(([k, x]) => `${k}: ${typeof x === "string" ? x : JSON.stringify(x)}`)
          .join("\n"),
      ) || null
    );
  return displayValue(value);
}

const WORDS = 120;
const quoted = (t: string | undefined) => `“${t && t.length > WORDS ? `${t.slice(0, WORDS)}…` : (t ?? "")}”`;

/**
 * How a revision's blocks differ from the live ones, block by block with
 * the words that change (aligned as post_versions_diff aligns them, so an
 * inserted block reads as one addition): "2 → 3 blocks: block 1 (paragraph)
 * added: “A new opening.”; block 3 (paragraph) changed: “Mondays” → “Tuesdays”".
 * Plain text: the page escapes it. Null when no block changes.
 */
function blockChangesText(before: unknown[], after: unknown[]): string | null {
  const changes = diffBlocks(before, after);
  if (changes.length === 0) return null;
  const parts = changes
    .slice(0, 12)
    .map((c) =>
      c.change === "changed"
        ? `block ${c.position} (${c.type}) changed: ${quoted(c.before)} → ${quoted(c.after)}`
        : c.change === "added"
          ? `block ${c.position} (${c.type}) added: ${quoted(c.after)}`
          : `block ${c.position} (${c.type}) removed: ${quoted(c.before)}`,
    );
  return `${before.length} → ${after.length} blocks: ${parts.join("; ")}${changes.length > 12 ? "; …" : ""}`;
}

function coverHtml(url: string | null | undefined): string {
  const src = safeUrl(url ?? null);
  return src ? `<figure class="ap-cover"><img alt="Cover image" src="${escapeHtml(src)}"></figure>` : "";
}

async function pendingRevisionOf(db: Tx, link: ApprovalLink) {
  const revisionId = (link.payload as { revisionId?: unknown } | null)?.revisionId;
  if (typeof revisionId !== "number") return null;
  return (await db.select().from(postRevisions).where(eq(postRevisions.id, revisionId)).limit(1))[0] ?? null;
}

async function postOf(db: Tx, link: ApprovalLink): Promise<PostRow | undefined> {
  if (link.entityId === null) return undefined;
  return (await db.select().from(posts).where(eq(posts.id, link.entityId)).limit(1))[0];
}

/**
 * What a post link proposed: recorded on links minted since it was, else
 * inferred (a revision link names its revision; a post first published by
 * this very approval, or never published, was new).
 */
function proposalOf(link: ApprovalLink, post: PostRow, hasRevision: boolean): PostProposal {
  const recorded = link.payload as Partial<PostProposal> | null;
  if (recorded?.proposal === "revision" && recorded.before && typeof recorded.beforeBlocks === "number")
    return recorded as PostProposal;
  if (recorded?.proposal === "new" || recorded?.proposal === "republish") return { proposal: recorded.proposal };
  if (hasRevision) return { proposal: "revision", revisionId: 0, before: {}, beforeBlocks: 0 };
  const firstPublishedByThis =
    link.status === "approved" &&
    post.publishedAt &&
    link.decidedAt &&
    Math.abs(post.publishedAt.getTime() - link.decidedAt.getTime()) < 1000;
  return { proposal: !post.publishedAt || firstPublishedByThis ? "new" : "republish" };
}

export const postApprovalKind: ApprovalKind = {
  entityType: "post",
  label: "Post",

  async preview(deps: Deps, link: ApprovalLink): Promise<ApprovalPreview | null> {
    const db = deps.db;
    const post = await postOf(db, link);
    if (!post) return null;
    const rev = await pendingRevisionOf(db, link);
    const pending = effectiveStatus(link, deps.clock.now()) === "pending";
    const what = proposalOf(link, post, rev !== null);
    const changes = (rev?.changes ?? {}) as PostChanges;
    const live = { ...post, ...(await linkedIds(db, post.id)) } as Record<string, unknown>;
    const proposed = { ...live, ...changes } as Record<string, unknown>;
    const content = (proposed.content as BlockContent | null) ?? { blocks: [], version: "1" };
    const facts: { label: string; value: string }[] = [];
    const site = await siteName(db, post.siteId);
    if (site) facts.push({ label: "Site", value: site });
    facts.push({ label: "Post type", value: await typeName(db, proposed.postTypeId as number) });
    facts.push({ label: "Slug", value: proposed.slug as string });
    const restoredFrom = (link.payload as { restoredFrom?: unknown } | null)?.restoredFrom;
    if (typeof restoredFrom === "number")
      facts.unshift({ label: "Restores", value: `Version ${restoredFrom}: the changes below bring it back` });
    for (const k of [
      "excerpt",
      "categoryIds",
      "tagIds",
      "seoTitle",
      "seoDescription",
      "canonicalUrl",
      "noIndex",
      "fields",
    ] as const) {
      const t = await fieldText(db, k, proposed[k]);
      if (t !== null && (k !== "noIndex" || proposed[k])) facts.push({ label: LABELS[k]!, value: t });
    }
    for (const k of ["customCss", "customJs"] as const) {
      const v = proposed[k] as string | null;
      if (v)
        facts.push({ label: LABELS[k]!, value: v.length > 500 ? `${v.slice(0, 500)}… (${v.length} characters)` : v });
    }
    // "Before" is the live version while the link is open; once decided, the values recorded when it was proposed.
    const recorded = what.proposal === "revision" && !pending ? what : null;
    const rows: ChangeRow[] = [];
    if (rev) {
      for (const k of Object.keys(changes)) {
        if (k === "content") {
          const beforeBlocks = recorded ? recorded.beforeBlocks : (post.content?.blocks.length ?? 0);
          const diff = recorded ? null : blockChangesText(post.content?.blocks ?? [], changes.content?.blocks ?? []);
          rows.push({
            field: "Content",
            before: `${beforeBlocks} blocks`,
            after: diff ?? `${changes.content?.blocks.length ?? 0} blocks${recorded ? "" : " (no block changes)"}`,
          });
          continue;
        }
        const before = recorded ? recorded.before[k] : live[k];
        rows.push({
          field: LABELS[k] ?? k,
          before: await fieldText(db, k, before),
          after: await fieldText(db, k, (changes as Record<string, unknown>)[k]),
        });
      }
    }
    const typeLabel = (
      (
        await db
          .select({ name: postTypes.name })
          .from(postTypes)
          .where(eq(postTypes.id, proposed.postTypeId as number))
          .limit(1)
      )[0]?.name ?? "post"
    ).toLowerCase();
    const words =
      what.proposal === "revision"
        ? {
            proposal: `Changes to the published ${typeLabel} “${post.title}”`,
            pending: `Changes to the published ${typeLabel} “${post.title}”. The live version stays online unchanged until you approve.`,
            applied: "applied to the live version",
            kept: "the live version stayed as it was",
          }
        : what.proposal === "republish"
          ? {
              proposal: `An edited ${typeLabel} that was offline`,
              pending: `An edited ${typeLabel} that is offline now; approving publishes it again.`,
              applied: "published again",
              kept: "nothing was published",
            }
          : {
              proposal: `A new ${typeLabel}`,
              pending: `A new ${typeLabel}, not yet published: approving publishes it on the site.`,
              applied: "published",
              kept: "nothing was published",
            };
    if (!rev && proposed.publishedAt instanceof Date && proposed.publishedAt.getTime() > deps.clock.now().getTime())
      facts.unshift({ label: "Schedule", value: `Goes live ${instantText(proposed.publishedAt)}` });
    if (proposed.unpublishAt instanceof Date)
      facts.push({ label: "Goes offline", value: instantText(proposed.unpublishAt) });
    const changedSince = !pending && post.updatedAt.getTime() > (link.decidedAt ?? link.expiresAt).getTime();
    if (changedSince)
      facts.push({
        label: "Since then",
        value: `The ${typeLabel} was changed again on ${iso(post.updatedAt)}; the preview shows it as it is now.`,
      });
    return {
      title: proposed.title as string,
      summary: summarize(link, deps.clock.now(), words),
      facts,
      changes: rows,
      html: coverHtml(proposed.coverImage as string | null) + renderBlocksHtml(content, RENDER),
      ...(rev && pending
        ? {
            liveHtml: `<h1 class="ap-title">${escapeHtml(post.title)}</h1>${coverHtml(post.coverImage)}${renderBlocksHtml(post.content ?? { blocks: [] }, RENDER)}`,
          }
        : {}),
    };
  },

  async approve(tx, deps, link, d) {
    const post = await postOf(tx, link);
    if (!post) throw conflict("The post no longer exists.");
    const rev = await pendingRevisionOf(tx, link);
    // A post live since before versions were kept: its live state becomes version 1 before this change lands.
    const backfill = await liveBeforeHistory(tx, post);
    if (rev) {
      if (rev.status !== "pending") throw conflict(`This revision is ${rev.status}, so it cannot be applied.`);
      const changes = rev.changes as PostChanges;
      if (changes.slug !== undefined && changes.slug !== post.slug)
        await assertSlugFree(tx, post.siteId, changes.slug, post.id);
      // Categories or tags deleted since the proposal are dropped rather than failing the whole change.
      if (changes.categoryIds)
        changes.categoryIds = (
          await tx
            .select({ id: categories.id })
            .from(categories)
            .where(
              and(
                eq(categories.siteId, post.siteId),
                inArray(categories.id, changes.categoryIds.length ? changes.categoryIds : [-1]),
              ),
            )
        ).map((r) => r.id);
      if (changes.tagIds)
        changes.tagIds = (
          await tx
            .select({ id: tags.id })
            .from(tags)
            .where(and(eq(tags.siteId, post.siteId), inArray(tags.id, changes.tagIds.length ? changes.tagIds : [-1])))
        ).map((r) => r.id);
      if (
        changes.postTypeId !== undefined &&
        !(await tx.select({ id: postTypes.id }).from(postTypes).where(eq(postTypes.id, changes.postTypeId)).limit(1))[0]
      )
        throw conflict("The proposed post type no longer exists.");
      await applyPostChanges(tx, post, changes, d.now);
      await tx.update(postRevisions).set({ status: "applied" }).where(eq(postRevisions.id, rev.id));
    } else {
      if (post.status !== "pending")
        throw conflict(`The post is ${post.status} now, so this request no longer applies.`);
      // A future publishedAt schedules it: published, served from that instant, announced then (schedule.ts).
      const publishedAt = post.publishedAt ?? d.now;
      await tx
        .update(posts)
        .set({
          status: "published",
          published: true,
          publishedAt,
          awaitingGoLive: publishedAt.getTime() > d.now.getTime(),
          updatedAt: d.now,
        })
        .where(eq(posts.id, post.id));
    }
    await bumpContentVersion(tx, post.siteId);
    await refreshNextScheduled(tx, post.siteId, d.now);
    const version = await recordVersion(tx, post.id, link.id, d, backfill);
    const after = (await tx.select().from(posts).where(eq(posts.id, post.id)).limit(1))[0]!;
    const now = { slug: after.slug, status: after.status };
    const previousSlug = after.slug !== post.slug ? post.slug : null;
    if (after.awaitingGoLive)
      return { postId: post.id, slug: now.slug, status: "scheduled", publishedAt: iso(after.publishedAt), version };
    await emit(
      tx,
      { deps, company: { id: link.companyId } },
      postPublished,
      { id: post.id, siteId: post.siteId },
      {
        ...(await postEventData(tx, after, [previousSlug])),
        proposal: rev ? "revision" : post.publishedAt ? "republish" : "new",
        previousSlug,
        approvalId: link.id,
        approvedBy: d.decidedBy,
      },
    );
    return { postId: post.id, slug: now.slug, status: now.status, ...(rev ? { revisionId: rev.id } : {}), version };
  },

  async reject(tx, deps, link, d) {
    const rev = await pendingRevisionOf(tx, link);
    if (rev && rev.status === "pending")
      await tx.update(postRevisions).set({ status: "rejected" }).where(eq(postRevisions.id, rev.id));
    const post = await postOf(tx, link);
    if (!rev && post && post.status === "pending")
      await tx.update(posts).set({ status: "rejected" }).where(eq(posts.id, post.id));
    const after = post && (await tx.select().from(posts).where(eq(posts.id, post.id)).limit(1))[0];
    if (after)
      await emit(
        tx,
        { deps, company: { id: link.companyId } },
        postRejected,
        { id: after.id, siteId: after.siteId },
        {
          ...(await postEventData(tx, after)),
          approvalId: link.id,
          comment: d.comment,
        },
      );
  },
};

async function templateOf(db: Tx, link: ApprovalLink) {
  if (link.entityId === null) return undefined;
  return (await db.select().from(blockTemplates).where(eq(blockTemplates.id, link.entityId)).limit(1))[0];
}

export const blockTemplateApprovalKind: ApprovalKind = {
  entityType: "block_template",
  label: "Block template",

  async preview(deps, link) {
    const t = await templateOf(deps.db, link);
    if (!t) return null;
    const pending = effectiveStatus(link, deps.clock.now()) === "pending";
    const recorded = (link.payload as { proposal?: unknown } | null)?.proposal;
    // Links minted before the proposal was recorded: an open one reads the template; a decided one its age.
    const isUpdate =
      recorded === "update" ||
      (recorded === undefined &&
        (pending
          ? t.status === "published" && t.draftContent !== null
          : Math.abs(t.createdAt.getTime() - link.createdAt.getTime()) > 2000));
    // While open, an update proposes the draft beside the approved content; once decided the draft is gone (applied or dropped).
    const open = isUpdate && pending && t.draftContent !== null;
    const proposed = open ? t.draftContent! : t.content;
    const facts = [{ label: "Slug", value: t.slug }];
    const site = await siteName(deps.db, t.siteId);
    if (site) facts.unshift({ label: "Site", value: site });
    if (t.description) facts.push({ label: "Description", value: t.description });
    if (isUpdate && !pending && link.status !== "approved")
      facts.push({ label: "Shown", value: "The approved version in use; the proposed blocks were not kept." });
    return {
      title: t.name,
      summary: summarize(
        link,
        deps.clock.now(),
        isUpdate
          ? {
              proposal: `Changes to the block template “${t.name}”`,
              pending: `Changes to the block template “${t.name}”. Agents keep using the approved version until you approve.`,
              kept: "the approved version stayed in use",
            }
          : {
              proposal: "A new block template",
              pending: "A new block template: approving makes it available to build pages from.",
              applied: "made available",
              kept: "it was not made available",
            },
      ),
      facts,
      changes: open
        ? [
            {
              field: "Content",
              before: `${t.content.blocks.length} blocks`,
              after: blocksDiff(t.content.blocks, proposed.blocks) ?? "no block changes",
            },
          ]
        : [],
      html: renderBlocksHtml(proposed, RENDER),
      ...(open ? { liveHtml: renderBlocksHtml(t.content, RENDER) } : {}),
    };
  },

  async approve(tx, _deps, link, d) {
    const t = await templateOf(tx, link);
    if (!t) throw conflict("The block template no longer exists.");
    if (t.status === "published" && t.draftContent) {
      await tx
        .update(blockTemplates)
        .set({ content: t.draftContent, draftContent: null, updatedAt: d.now })
        .where(eq(blockTemplates.id, t.id));
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
    if (t.status === "published")
      await tx.update(blockTemplates).set({ draftContent: null, updatedAt: d.now }).where(eq(blockTemplates.id, t.id));
    else if (t.status === "pending")
      await tx.update(blockTemplates).set({ status: "rejected", updatedAt: d.now }).where(eq(blockTemplates.id, t.id));
  },
};
