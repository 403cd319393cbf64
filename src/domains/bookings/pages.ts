/**
 * Booking pages (Cal.com's event types): drafted by agents, approved by a
 * person (approval kind `booking_page`, approval-kinds.ts), then public at
 * /b/<slug>.
 *
 *   pending  — never approved; its config is the proposal; /b/<slug> is 404
 *   live     — approved; a change to it waits in `draft` while the approved
 *              config keeps taking bookings
 *   paused   — approved but not taking bookings (set directly, no approval:
 *              closing a page puts nothing new in front of the public)
 *   rejected — never approved and its last proposal was rejected
 */
import { and, asc, count, eq, gt, inArray, ne } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { slugify, slugNote, uniqueSlug } from "../../core/slug";
import { containsText } from "../../core/sql";
import { approvalState, latestLinkFor, mintLink, withdrawLinks } from "../approvals/links";
import { approvedLinkId } from "../approvals/staging";
import { checkConfig, DEFAULTS, type PageConfig, type PageFieldsInput } from "./config";
import { bookingPageCreated, bookingPageDeleted, bookingPageUpdated } from "./events";
import { ensureSchedules, membersById, resolveMember, type Member } from "./schedules";
import { bookingHosts, bookingPages, bookings } from "./tables";
import { canonicalZone } from "./zoned";

export type PageRow = typeof bookingPages.$inferSelect;
const APPROVED = new Set(["live", "paused"]);

export const publicPageUrl = (deps: Pick<Deps, "config">, slug: string) => `${deps.config.publicUrl}/b/${slug}`;

export async function pageById(db: Db, companyId: number, id: number): Promise<PageRow> {
  const p = (
    await db
      .select()
      .from(bookingPages)
      .where(and(eq(bookingPages.id, id), eq(bookingPages.companyId, companyId)))
      .limit(1)
  )[0];
  if (!p) throw notFound(`Booking page ${id} not found.`);
  return p;
}

/** By id or slug (people use slugs); another company's page is "not found". */
export async function pageByRef(
  db: Db,
  companyId: number,
  ref: { id?: number; slug?: string },
  path = "id",
): Promise<PageRow> {
  if ((ref.id === undefined) === (ref.slug === undefined))
    throw invalid(`Give exactly one of ${path === "id" ? "id or slug" : `${path} or pageSlug`}.`);
  if (ref.id !== undefined) return pageById(db, companyId, ref.id);
  const p = (
    await db
      .select()
      .from(bookingPages)
      .where(and(eq(bookingPages.slug, ref.slug!), eq(bookingPages.companyId, companyId)))
      .limit(1)
  )[0];
  if (!p) throw notFound(`Booking page "${ref.slug}" not found.`);
  return p;
}

async function slugTaken(db: Db, slug: string, exceptId: number | null): Promise<boolean> {
  return (
    (
      await db
        .select({ id: bookingPages.id })
        .from(bookingPages)
        .where(and(eq(bookingPages.slug, slug), exceptId === null ? undefined : ne(bookingPages.id, exceptId)))
        .limit(1)
    ).length > 0
  );
}

export async function assertSlugFree(db: Db, slug: string, exceptId: number | null) {
  // Slugs are global (/b/<slug> names no company): say it is taken, never by whom.
  if (await slugTaken(db, slug, exceptId))
    throw conflict(`The booking page address /b/${slug} is already taken; choose another slug.`, { path: "slug" });
}

function hostsOut(members: Member[], ids: number[]) {
  const by = new Map(members.map((m) => [m.userId, m]));
  return ids.map((id) => ({
    userId: id,
    name: by.get(id)?.name ?? null,
    email: by.get(id)?.email ?? null,
    member: by.has(id),
  }));
}

function configOut(c: PageConfig) {
  const { hostUserIds: _h, slug: _s, title: _t, ...rest } = c;
  return rest;
}

/** What changes between two configs, field by field (for results, events and the approval page). */
export function changedFields(a: PageConfig, b: PageConfig): (keyof PageConfig)[] {
  return (Object.keys(b) as (keyof PageConfig)[]).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]));
}

export async function pageOut(deps: Deps, p: PageRow) {
  const members = await membersById(deps.db, p.companyId, [
    ...new Set([...p.config.hostUserIds, ...(p.draft?.hostUserIds ?? [])]),
  ]);
  return {
    id: p.id,
    slug: p.slug,
    title: p.title,
    status: p.status,
    url: publicPageUrl(deps, p.slug),
    ...configOut(p.config),
    hosts: hostsOut(members, p.config.hostUserIds),
    pendingChanges: p.draft
      ? Object.fromEntries(
          changedFields(p.config, p.draft).map((k) => [
            k === "hostUserIds" ? "hosts" : k,
            k === "hostUserIds" ? hostsOut(members, p.draft!.hostUserIds) : p.draft![k],
          ]),
        )
      : null,
    approval: approvalState(await latestLinkFor(deps.db, p.companyId, "booking_page", p.id), deps.clock.now()),
    publishedAt: iso(p.publishedAt),
    createdAt: iso(p.createdAt),
    updatedAt: iso(p.updatedAt),
  };
}

export async function listPages(
  ctx: ActorContext,
  input: { status?: string; host?: number | string; search?: string; limit: number; offset: number },
) {
  authorize(ctx, "bookings:read", { write: false });
  const db = ctx.deps.db;
  const conds = [eq(bookingPages.companyId, ctx.company.id)];
  if (input.status) conds.push(eq(bookingPages.status, input.status));
  if (input.search) conds.push(containsText(bookingPages.title, input.search));
  let rows = await db
    .select()
    .from(bookingPages)
    .where(and(...conds))
    .orderBy(asc(bookingPages.id));
  if (input.host !== undefined) {
    const m = await resolveMember(db, ctx.company, input.host);
    rows = rows.filter((r) => r.config.hostUserIds.includes(m.userId));
  }
  const now = ctx.deps.clock.now();
  const slice = rows.slice(input.offset, input.offset + input.limit);
  const upcoming = slice.length
    ? await db
        .select({ pageId: bookings.pageId, n: count() })
        .from(bookings)
        .where(
          and(
            inArray(
              bookings.pageId,
              slice.map((r) => r.id),
            ),
            inArray(bookings.status, ["pending", "accepted"]),
            gt(bookings.startsAt, now),
          ),
        )
        .groupBy(bookings.pageId)
    : [];
  const counts = new Map(upcoming.map((u) => [u.pageId, u.n]));
  return page(
    slice.map((p) => ({
      id: p.id,
      slug: p.slug,
      title: p.title,
      status: p.status,
      url: publicPageUrl(ctx.deps, p.slug),
      durations: p.config.durations,
      hostMode: p.config.hostMode,
      hostUserIds: p.config.hostUserIds,
      requiresConfirmation: p.config.requiresConfirmation,
      hasPendingChanges: p.draft !== null,
      upcomingBookings: counts.get(p.id) ?? 0,
    })),
    rows.length,
    input.limit,
    input.offset,
  );
}

export async function getPage(ctx: ActorContext, input: { id?: number; slug?: string }) {
  authorize(ctx, "bookings:read", { write: false });
  return await pageOut(ctx.deps, await pageByRef(ctx.deps.db, ctx.company.id, input));
}

/** The config an input makes of `base` (defaults for a new page), hosts resolved among members. */
async function configFrom(
  tx: Db,
  ctx: ActorContext,
  base: PageConfig | null,
  input: PageFieldsInput & { title?: string },
  slug: string,
): Promise<{ config: PageConfig; members: Member[] }> {
  let hostUserIds = base?.hostUserIds;
  let members: Member[] = [];
  if (input.hosts !== undefined) {
    members = [];
    for (const [i, ref] of input.hosts.entries()) {
      try {
        members.push(await resolveMember(tx, ctx.company, ref));
      } catch (e) {
        throw invalid(`hosts[${i}]: ${(e as Error).message}`, { path: `hosts[${i}]` });
      }
    }
    hostUserIds = members.map((m) => m.userId);
  } else if (!hostUserIds) {
    // No hosts named on a new page: the person whose agent drafts it hosts it.
    members = [
      await resolveMember(tx, ctx.company, ctx.principal.userId).catch(() => {
        throw invalid(`Name the page's hosts: you are not a member of ${ctx.company.name} yourself.`, {
          path: "hosts",
        });
      }),
    ];
    hostUserIds = [ctx.principal.userId];
  } else members = await membersById(tx, ctx.company.id, hostUserIds);
  const { hosts: _h, location, where, ...fields } = input;
  const config: PageConfig = {
    ...DEFAULTS,
    timeZone: "UTC",
    ...(base ?? {}),
    ...(fields as Partial<PageConfig>),
    title: input.title ?? base?.title ?? "",
    slug,
    hostUserIds,
  } as PageConfig;
  config.timeZone = canonicalZone(config.timeZone);
  if (location !== undefined || where !== undefined) {
    const kind = location ?? config.location.kind;
    // A new kind of place without a new detail drops the old detail (an address is no meeting URL).
    config.location = {
      kind,
      value: where !== undefined ? where : kind === config.location.kind ? config.location.value : null,
    };
    // A place that is no video call drops the video link (as a new kind drops the old detail).
    if (kind !== "video" && input.videoLink === undefined && config.videoLink) config.videoLink = null;
  }
  if (input.questions)
    config.questions = input.questions.map((q) => ({
      id: q.id,
      label: q.label,
      type: q.type,
      required: q.required ?? false,
      ...(q.options ? { options: q.options } : {}),
    }));
  if (input.hostMode === undefined && base === null && hostUserIds.length > 1) config.hostMode = "round_robin";
  checkConfig(config);
  return { config, members };
}

const pageLink = (ctx: ActorContext, tx: Db, p: { id: number; title: string }, payload: Record<string, unknown>) =>
  mintLink(tx, ctx, {
    linkType: "entity",
    entityType: "booking_page",
    entityId: p.id,
    siteId: null,
    title: p.title,
    payload,
  });

export async function createPage(ctx: ActorContext, input: PageFieldsInput & { title: string }) {
  authorize(ctx, "bookings:write", { write: true });
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    if (input.slug !== undefined) await assertSlugFree(tx, input.slug, null);
    const base = slugify(input.title, "meeting");
    const slug = input.slug ?? (await uniqueSlug(base, (s) => slugTaken(tx, s, null)));
    const { config, members } = await configFrom(tx, ctx, null, input, slug);
    const warnings = await ensureSchedules(tx, ctx.company.id, members, config.timeZone, now);
    const row = (
      await tx
        .insert(bookingPages)
        .values({
          companyId: ctx.company.id,
          slug,
          title: config.title,
          status: "pending",
          config,
          draft: null,
          version: 1,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    const approval = await pageLink(ctx, tx, row, { proposal: "new", config });
    await audit(tx, ctx, "booking_pages.create", {
      type: "booking_page",
      id: row.id,
      detail: { slug, approvalId: approval.id },
    });
    await emit(
      tx,
      ctx,
      bookingPageCreated,
      { id: row.id },
      { slug, title: config.title, status: "pending", hostUserIds: config.hostUserIds, approvalId: approval.id },
    );
    return {
      id: row.id,
      slug,
      status: "pending",
      url: publicPageUrl(ctx.deps, slug),
      ...(input.slug ? {} : slugNote(base, slug, "booking page")),
      approval,
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

export async function updatePage(
  ctx: ActorContext,
  input: PageFieldsInput & { id: number; title?: string; paused?: boolean },
) {
  authorize(ctx, "bookings:write", { write: true });
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const p = await pageById(tx, ctx.company.id, input.id);
    const { id: _id, paused, ...fields } = input;
    const approved = APPROVED.has(p.status);
    if (paused !== undefined && !approved)
      throw invalid(`Only an approved page can be paused or resumed; this one is ${p.status}.`, { path: "paused" });
    const proposes = Object.keys(fields).length > 0;
    // Base of the proposal: a change already waiting is built on, not lost.
    const base = approved ? (p.draft ?? p.config) : p.config;
    let next: PageConfig | null = null;
    let members: Member[] = [];
    let warnings: string[] = [];
    if (proposes || !approved) {
      const slug = fields.slug ?? base.slug;
      if (slug !== p.slug) await assertSlugFree(tx, slug, p.id);
      ({ config: next, members } = await configFrom(tx, ctx, base, fields, slug));
      warnings = await ensureSchedules(tx, ctx.company.id, members, next.timeZone, now);
    }
    const status = paused === undefined ? p.status : paused ? "paused" : "live";
    const set: Partial<PageRow> = { updatedAt: now, status };
    if (status !== p.status) set.version = p.version + 1;
    let approval;
    // No changes on a page whose proposal waits (its link may have expired): a fresh link for the same proposal.
    if (!next && approved && paused === undefined && p.draft)
      approval = await pageLink(
        ctx,
        tx,
        { id: p.id, title: p.draft.title },
        { proposal: "update", config: p.draft, before: p.config },
      );
    if (next) {
      if (approved) {
        const changed = changedFields(p.config, next);
        set.draft = changed.length ? next : null;
      } else {
        set.config = next;
        set.title = next.title;
        set.slug = next.slug;
        set.status = "pending";
      }
      if (!approved || set.draft)
        approval = await pageLink(
          ctx,
          tx,
          { id: p.id, title: next.title },
          approved ? { proposal: "update", config: next, before: p.config } : { proposal: "new", config: next },
        );
    }
    await tx.update(bookingPages).set(set).where(eq(bookingPages.id, p.id));
    // A proposal that came back to the live page leaves nothing to approve: its open link goes.
    if (approved && next && !set.draft && p.draft) await withdrawLinks(tx, ctx.company.id, "booking_page", p.id, now);
    const fieldsChanged = [
      ...(next ? changedFields(approved ? p.config : p.config, next) : []),
      ...(status !== p.status ? ["paused"] : []),
    ].map((k) => (k === "hostUserIds" ? "hosts" : k));
    await audit(tx, ctx, "booking_pages.update", {
      type: "booking_page",
      id: p.id,
      detail: { fields: fieldsChanged, ...(approval ? { approvalId: approval.id } : {}) },
    });
    await emit(
      tx,
      ctx,
      bookingPageUpdated,
      { id: p.id },
      {
        slug: set.slug ?? p.slug,
        title: set.title ?? p.title,
        status: set.status ?? p.status,
        hostUserIds: (set.config ?? p.config).hostUserIds,
        fields: fieldsChanged,
        pending: !!approval,
        approvalId: approval?.id ?? null,
      },
    );
    return {
      id: p.id,
      slug: set.slug ?? p.slug,
      status: set.status ?? p.status,
      ...(approved ? { hasPendingChanges: set.draft !== undefined ? set.draft !== null : p.draft !== null } : {}),
      ...(approval ? { approval } : {}),
      ...(approved && next && !set.draft && !approval
        ? { note: "Nothing to approve: the proposal equals the live page." }
        : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

export async function deletePage(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "bookings:write", { write: true });
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const p = await pageById(tx, ctx.company.id, input.id);
    const upcoming =
      (
        await tx
          .select({ n: count() })
          .from(bookings)
          .where(
            and(eq(bookings.pageId, p.id), inArray(bookings.status, ["pending", "accepted"]), gt(bookings.endsAt, now)),
          )
      )[0]?.n ?? 0;
    if (upcoming > 0)
      throw conflict(
        `Booking page "${p.slug}" has ${upcoming} upcoming booking(s): cancel them (bookings_cancel) or pause the page (booking_pages_update paused: true) instead.`,
      );
    await tx.update(bookingHosts).set({ pageId: null }).where(eq(bookingHosts.pageId, p.id));
    await tx.delete(bookingPages).where(eq(bookingPages.id, p.id));
    await withdrawLinks(tx, ctx.company.id, "booking_page", p.id, now, approvedLinkId(ctx));
    await audit(tx, ctx, "booking_pages.delete", { type: "booking_page", id: p.id, detail: { slug: p.slug } });
    await emit(tx, ctx, bookingPageDeleted, { id: p.id }, { slug: p.slug, title: p.title });
    return { id: p.id, slug: p.slug, status: "deleted" };
  });
}
