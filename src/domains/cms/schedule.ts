/**
 * Scheduled publishing: a post approved with a future publishedAt is
 * published but not served until that instant, and a post with an
 * unpublishAt stops being served at that instant.
 *
 * Visibility never waits for a job: REST reads compare publishedAt and
 * unpublishAt with the clock (public-reads.ts), so a post appears exactly at
 * its instant on every instance. What does wait for the cms.go_live job is
 * what happens once per instant: the post.published / post.unpublished
 * event (outgoing webhooks, cache tags), the content version bump. The job
 * claims each post with a conditional update, so across instances it is
 * announced once. Cached REST bodies cannot outlive an instant either:
 * each site row carries its next instant (sites.nextScheduledAt), which the
 * REST cache keys by (src/rest/routes.ts).
 *
 * The verbs: posts_schedule sets when a post goes live (and/or offline);
 * posts_unschedule cancels. A post not yet approved takes the times with its
 * proposal (the approval page says when it goes live); a post already
 * approved changes its times only once a person approves, like taking it
 * down does.
 */
import { and, eq, gt, isNotNull, lte, min, or } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Tx } from "../../core/db";
import { invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { write } from "../../core/fields";
import { anyRow, type JobDef } from "../../core/jobs";
import { authorize } from "../../core/scopes";
import { latestDecidedLink } from "../approvals/links";
import { latestLinkFor, mintLink } from "../approvals/links";
import { holdForApproval, isApprovedRun } from "../approvals/staging";
import { siteForActor } from "../sites/access";
import { bumpContentVersion, setNextScheduledAt } from "../sites/content-version";
import { companyOfSite } from "../sites/facts";
import { postEventData, postPublished, postUnpublished } from "./events";
import { postInSite, type PostRow } from "./posts";
import { posts } from "./tables";

/** Whether an approved post is waiting for its publishedAt (published, not served yet). */
export function isScheduled(p: Pick<PostRow, "published" | "publishedAt">, now: Date): boolean {
  return p.published && p.publishedAt !== null && p.publishedAt.getTime() > now.getTime();
}

/** "Mon 30 Nov 2026, 09:00 UTC": how the approval page and tool messages name an instant. */
export function instantText(d: Date): string {
  const day = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][d.getUTCDay()];
  const month = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"][d.getUTCMonth()];
  const hhmm = d.toISOString().slice(11, 16);
  return `${day} ${d.getUTCDate()} ${month} ${d.getUTCFullYear()}, ${hhmm} UTC`;
}

/**
 * Recomputes a site's next scheduled instant (the earliest publishedAt or
 * unpublishAt of a published post still ahead of `now`). Call in the
 * transaction of every change to those times, and after each announcement.
 */
export async function refreshNextScheduled(tx: Tx, siteId: number, now: Date): Promise<void> {
  const live = and(eq(posts.siteId, siteId), eq(posts.published, true));
  const up = (
    await tx
      .select({ at: min(posts.publishedAt) })
      .from(posts)
      .where(and(live, gt(posts.publishedAt, now)))
  )[0]?.at;
  const down = (
    await tx
      .select({ at: min(posts.unpublishAt) })
      .from(posts)
      .where(and(live, gt(posts.unpublishAt, now)))
  )[0]?.at;
  const ms = [up, down].filter((x): x is Date => !!x).map((x) => new Date(x).getTime());
  const next = ms.length ? new Date(Math.min(...ms)) : null;
  await setNextScheduledAt(tx, siteId, next);
}

/** Parses an ISO 8601 instant argument; a clear error otherwise. */
function instant(name: string, value: string): Date {
  const t = Date.parse(value);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(value) || Number.isNaN(t))
    throw invalid(`${name} must be an ISO 8601 date-time such as 2026-11-30T09:00:00Z.`);
  return new Date(t);
}

export interface ScheduleInput {
  siteId: number;
  id: number;
  at?: string;
  unpublishAt?: string | null;
}

/** posts_schedule: when a post goes live (at) and/or offline (unpublishAt; null clears it). */
export async function schedulePost(ctx: ActorContext, input: ScheduleInput) {
  authorize(ctx, "sites:write", { write: true });
  if (input.at === undefined && input.unpublishAt === undefined)
    throw invalid("Give at (when the post goes live), unpublishAt (when it goes offline), or both.");
  const site = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  const at = input.at === undefined ? undefined : instant("at", input.at);
  const off = input.unpublishAt == null ? input.unpublishAt : instant("unpublishAt", input.unpublishAt);
  if (at && at.getTime() <= now.getTime()) throw invalid("at must be in the future.");
  if (off && off.getTime() <= now.getTime()) throw invalid("unpublishAt must be in the future.");
  return write(ctx, async (tx) => {
    const post = await postInSite(tx, site.id, input.id);
    const goesLive = at ?? post.publishedAt;
    if (off && goesLive && off.getTime() <= Math.max(goesLive.getTime(), now.getTime()))
      throw invalid("unpublishAt must be after the post goes live.");
    if (post.published) {
      if (at && !isScheduled(post, now))
        throw invalid(
          "The post is live already; at only moves a post that has not gone live yet (unpublishAt still works).",
        );
      if (!isApprovedRun(ctx)) {
        const approval = await holdForApproval(ctx, {
          tool: "posts_schedule",
          input: { siteId: input.siteId, id: input.id, at: input.at, unpublishAt: input.unpublishAt },
          entityId: post.id,
          siteId: post.siteId,
          title: `Schedule post: ${post.title}`,
        });
        return {
          id: post.id,
          slug: post.slug,
          status: isScheduled(post, now) ? "scheduled" : post.status,
          approval,
          message:
            "Nothing changed yet: the post is approved, so changing when it is served needs a person's approval. Share approval.url with a reviewer.",
        };
      }
      const set: Partial<PostRow> = { updatedAt: now };
      if (at) Object.assign(set, { publishedAt: at, awaitingGoLive: true });
      if (off !== undefined) set.unpublishAt = off;
      await tx.update(posts).set(set).where(eq(posts.id, post.id));
      await bumpContentVersion(tx, site.id);
      await refreshNextScheduled(tx, site.id, now);
      await audit(tx, ctx, "posts.schedule", {
        type: "post",
        id: post.id,
        siteId: site.id,
        detail: { at: input.at, unpublishAt: input.unpublishAt },
      });
      const after = await postInSite(tx, site.id, post.id);
      return { id: post.id, slug: post.slug, ...scheduleFacts(after, now) };
    }
    // Not approved yet: the times travel with the proposal; approving applies them.
    const set: Partial<PostRow> = { updatedAt: now, status: "pending" };
    if (at) set.publishedAt = at;
    if (off !== undefined) set.unpublishAt = off;
    await tx.update(posts).set(set).where(eq(posts.id, post.id));
    await audit(tx, ctx, "posts.schedule", {
      type: "post",
      id: post.id,
      siteId: site.id,
      detail: { at: input.at, unpublishAt: input.unpublishAt },
    });
    const open = await latestLinkFor(tx, ctx.company.id, "post", post.id);
    const approval =
      open && open.status === "pending" && open.linkType === "entity"
        ? undefined
        : await mintLink(tx, ctx, {
            linkType: "entity",
            entityType: "post",
            entityId: post.id,
            siteId: post.siteId,
            title: post.title,
            payload: {
              proposal: post.publishedAt && post.publishedAt.getTime() <= now.getTime() ? "republish" : "new",
            },
          });
    const after = await postInSite(tx, site.id, post.id);
    return {
      id: post.id,
      slug: post.slug,
      status: "pending",
      ...(approval ? { approval } : {}),
      ...scheduleFacts(after, now),
      message: approval
        ? "Share approval.url with a reviewer; once approved the post goes live at publishedAt."
        : "The open approval link now says when the post goes live; once approved it goes live at publishedAt.",
    };
  });
}

/** posts_unschedule: cancels a scheduled go-live (back to a draft to propose again) or a scheduled unpublishing. */
export async function unschedulePost(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const post = await postInSite(tx, site.id, input.id);
    const ahead = post.publishedAt !== null && post.publishedAt.getTime() > now.getTime();
    if (!ahead && post.unpublishAt === null)
      return { id: post.id, slug: post.slug, status: post.status, message: "The post has nothing scheduled." };
    if (isScheduled(post, now)) {
      // Nothing is served yet, so cancelling exposes nothing: applied at once, the post goes back to draft.
      await tx
        .update(posts)
        .set({
          published: false,
          status: "draft",
          publishedAt: null,
          unpublishAt: null,
          awaitingGoLive: false,
          updatedAt: now,
        })
        .where(eq(posts.id, post.id));
      await bumpContentVersion(tx, site.id);
    } else if (post.published) {
      // Cancelling an unpublishing keeps a live post online for longer: a person approves that.
      if (!isApprovedRun(ctx)) {
        const approval = await holdForApproval(ctx, {
          tool: "posts_unschedule",
          input: { siteId: input.siteId, id: input.id },
          entityId: post.id,
          siteId: post.siteId,
          title: `Keep post online: ${post.title}`,
        });
        return {
          id: post.id,
          slug: post.slug,
          status: post.status,
          approval,
          message: "Nothing changed yet: share approval.url with a reviewer.",
        };
      }
      await tx.update(posts).set({ unpublishAt: null, updatedAt: now }).where(eq(posts.id, post.id));
      await bumpContentVersion(tx, site.id);
    } else {
      await tx
        .update(posts)
        .set({ publishedAt: ahead ? null : post.publishedAt, unpublishAt: null, updatedAt: now })
        .where(eq(posts.id, post.id));
    }
    await refreshNextScheduled(tx, site.id, now);
    await audit(tx, ctx, "posts.unschedule", { type: "post", id: post.id, siteId: site.id });
    const after = await postInSite(tx, site.id, post.id);
    return { id: post.id, slug: post.slug, status: after.status, ...scheduleFacts(after, now) };
  });
}

/** The schedule part of a tool answer. */
export function scheduleFacts(p: PostRow, now: Date) {
  return {
    ...(isScheduled(p, now) ? { status: "scheduled" } : {}),
    publishedAt: iso(p.publishedAt),
    unpublishAt: iso(p.unpublishAt),
  };
}

const dueLive = (now: Date) =>
  and(eq(posts.awaitingGoLive, true), eq(posts.published, true), lte(posts.publishedAt, now));
const dueOff = (now: Date) => and(eq(posts.published, true), isNotNull(posts.unpublishAt), lte(posts.unpublishAt, now));

/**
 * Announces every instant passed: each post is claimed by a conditional
 * update (a second instance, or a second run, finds it claimed), then its
 * event is written in the same transaction (webhooks fan out from it).
 */
export async function announceDue(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db
    .select()
    .from(posts)
    .where(or(dueLive(now), dueOff(now)))
    .limit(500);
  let done = 0;
  for (const p of due) {
    await deps.db.transaction(async (tx) => {
      const ctx = {
        deps,
        company: { id: (await companyOfSite(tx, p.siteId))! },
      };
      if (p.unpublishAt && p.unpublishAt.getTime() <= now.getTime()) {
        const row = (
          await tx
            .update(posts)
            .set({ published: false, status: "archived", unpublishAt: null, awaitingGoLive: false, updatedAt: now })
            .where(and(eq(posts.id, p.id), dueOff(now)))
            .returning()
        )[0];
        if (!row) return;
        await emit(tx, ctx, postUnpublished, { id: p.id, siteId: p.siteId }, await postEventData(tx, row));
      } else {
        const row = (
          await tx
            .update(posts)
            .set({ awaitingGoLive: false })
            .where(and(eq(posts.id, p.id), dueLive(now)))
            .returning()
        )[0];
        if (!row) return;
        const link = await latestDecidedLink(tx, ctx.company.id, "post", p.id, "approved");
        await emit(
          tx,
          ctx,
          postPublished,
          { id: p.id, siteId: p.siteId },
          {
            ...(await postEventData(tx, row)),
            proposal: "new",
            previousSlug: null,
            approvalId: link?.id ?? 0,
            approvedBy: link?.decidedBy ?? "",
          },
        );
      }
      await bumpContentVersion(tx, p.siteId);
      await refreshNextScheduled(tx, p.siteId, now);
      done++;
    });
  }
  return done;
}

export const goLiveJob: JobDef = {
  name: "cms.go_live",
  description: "Announces scheduled posts at their instant (post.published / post.unpublished, webhooks, cache tags).",
  everyMs: 15_000,
  pending: (deps) => {
    const now = deps.clock.now();
    return anyRow(
      deps.db
        .select({ id: posts.id })
        .from(posts)
        .where(or(dueLive(now), dueOff(now)))
        .limit(1),
    );
  },
  run: async (deps) => {
    await announceDue(deps);
  },
};
