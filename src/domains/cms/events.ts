/**
 * What the CMS tells the rest of Plinth (automations, outgoing webhooks, a
 * renderer revalidating its cache): a post was drafted, changed, published,
 * rejected, taken down or deleted. Pages are posts whose postType is
 * "page", so one family of events covers both; receivers filter on
 * postType. Every payload carries the slugs and cache tags a renderer needs
 * (src/domains/sites/cache-tags.ts).
 */
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { defineEvent } from "../../core/events";
import { cacheTags } from "../sites/cache-tags";
import { postTypes, type posts } from "./tables";
import type { Tx } from "../../core/db";

const post = {
  postId: v.number(),
  slug: v.string(),
  postType: v.string(),
  title: v.string(),
  status: v.string(),
  /** Whether the post is served now (after the change). */
  published: v.boolean(),
  cacheTags: v.array(v.string()),
};

export const postCreated = defineEvent({
  type: "post.created",
  entity: "post",
  description: "A post or page was drafted; it waits for approval (approvalId) and is not served yet.",
  payload: v.object({ ...post, approvalId: v.nullable(v.number()), authorUserId: v.nullable(v.number()) }),
});

export const postUpdated = defineEvent({
  type: "post.updated",
  entity: "post",
  description:
    "A post's draft changed (fields); for a live post the change waits as a revision (revisionId) until approved.",
  payload: v.object({
    ...post,
    fields: v.array(v.string()),
    revisionId: v.nullable(v.number()),
    approvalId: v.nullable(v.number()),
  }),
});

export const postPublished = defineEvent({
  type: "post.published",
  entity: "post",
  description: "A post went live or a live post's revision was applied (a person approved); revalidate cacheTags.",
  payload: v.object({
    ...post,
    /** "new" (first time), "republish" (was taken down), "revision" (live post changed). */
    proposal: v.picklist(["new", "republish", "revision"]),
    previousSlug: v.nullable(v.string()),
    approvalId: v.number(),
    approvedBy: v.string(),
  }),
});

export const postRejected = defineEvent({
  type: "post.rejected",
  entity: "post",
  description: "A reviewer rejected a post's draft or revision; what is live (if anything) stays as it was.",
  payload: v.object({ ...post, approvalId: v.number(), comment: v.nullable(v.string()) }),
});

export const postUnpublished = defineEvent({
  type: "post.unpublished",
  entity: "post",
  description: "A live post was taken offline (archived); revalidate cacheTags.",
  payload: v.object(post),
});

export const postDeleted = defineEvent({
  type: "post.deleted",
  entity: "post",
  description: "A post was deleted; wasPublished says whether it was served (then revalidate cacheTags).",
  payload: v.object({ ...post, wasPublished: v.boolean() }),
});

export const cmsEvents = [postCreated, postUpdated, postPublished, postRejected, postUnpublished, postDeleted];

/** The shared part of a post event, from the row as it is after the change. */
export async function postEventData(tx: Tx, p: typeof posts.$inferSelect, extraSlugs: (string | null)[] = []) {
  const t = (
    await tx.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.id, p.postTypeId)).limit(1)
  )[0];
  return {
    postId: p.id,
    slug: p.slug,
    postType: t?.slug ?? "post",
    title: p.title,
    status: p.status,
    published: p.published,
    cacheTags: cacheTags(p.siteId, "post", p.id, [p.slug, ...extraSlugs]),
  };
}
