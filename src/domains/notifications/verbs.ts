/**
 * A person's inbox: list (unread first), read/unread, mark all read,
 * snooze, archive; and notifications_create for agents and admins.
 *
 * Every inbox verb acts on the caller's own notifications only, in the
 * companies it is given: over MCP the company the call acts for, in the
 * portal every company the person still belongs to. Someone else's
 * notification id answers like one that does not exist. Changing one's own
 * read state writes no audit row (it is nobody else's business and would
 * drown the log); notifications_create does.
 *
 * @public Serves billing and hosting (they notify through the same verb
 * agents call).
 */
import { and, count, desc, eq, gt, gte, inArray, isNotNull, isNull, lte, or, sql, type SQL } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { page, type Page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { companies, memberships, users } from "../../core/tables";
import { notifyDetailed } from "./notify";
import { notifications } from "./tables";

export { notify, notifyDetailed, type NotifyInput } from "./notify";

/** Whose inbox, over which companies. */
export interface Inbox {
  deps: Deps;
  userId: number;
  companyIds: number[];
}

export const VIEWS = ["inbox", "unread", "snoozed", "archived", "all"] as const;
export type View = (typeof VIEWS)[number];

export interface ListFilter {
  view?: View;
  /** Exact type, or a prefix ending in `.*` (`card.*`). */
  type?: string;
  entityType?: string;
  entityId?: number;
  since?: Date;
  limit: number;
  offset: number;
}

/** The inbox of the caller of a tool: their notifications in the company the call acts for. */
export function inboxOf(ctx: ActorContext, write: boolean): Inbox {
  authorize(ctx, write ? "notifications:write" : "notifications:read", { write, minRole: "viewer" });
  return { deps: ctx.deps, userId: ctx.principal.userId, companyIds: [ctx.company.id] };
}

function viewWhere(view: View, now: Date): SQL | undefined {
  const notArchived = isNull(notifications.archivedAt);
  const awake = or(isNull(notifications.snoozedUntil), lte(notifications.snoozedUntil, now));
  switch (view) {
    case "inbox":
      return and(notArchived, awake);
    case "unread":
      return and(notArchived, awake, isNull(notifications.readAt));
    case "snoozed":
      return and(notArchived, gt(notifications.snoozedUntil, now));
    case "archived":
      return isNotNull(notifications.archivedAt);
    case "all":
      return undefined;
  }
}

function mine(box: Inbox): SQL {
  return and(
    eq(notifications.userId, box.userId),
    inArray(notifications.companyId, box.companyIds.length ? box.companyIds : [0]),
  )!;
}

type Row = typeof notifications.$inferSelect;

function itemOut(deps: Deps, r: Row, extra: { company: string; actorName: string | null }, now: Date) {
  const snoozed = r.snoozedUntil && r.snoozedUntil.getTime() > now.getTime();
  return {
    id: r.id,
    companyId: r.companyId,
    company: extra.company,
    type: r.type,
    title: r.title,
    body: r.body,
    link: r.link,
    url: r.link ? `${deps.config.publicUrl}${r.link}` : null,
    entity: r.entityType && r.entityId !== null ? { type: r.entityType, id: r.entityId } : null,
    actor: r.actorUserId !== null ? { userId: r.actorUserId, name: extra.actorName } : null,
    read: r.readAt !== null,
    state: r.archivedAt ? "archived" : snoozed ? "snoozed" : "inbox",
    snoozedUntil: snoozed ? iso(r.snoozedUntil) : null,
    createdAt: iso(r.createdAt)!,
  };
}

export type NotificationItem = ReturnType<typeof itemOut>;

/** Unread notifications in the inbox (not snoozed, not archived). */
export async function unreadCount(box: Inbox): Promise<number> {
  const now = box.deps.clock.now();
  return (
    (
      await box.deps.db
        .select({ n: count() })
        .from(notifications)
        .where(and(mine(box), viewWhere("unread", now)))
    )[0]?.n ?? 0
  );
}

/** The portal's inbox: every company the person belongs to now. */
export async function portalInbox(deps: Deps, userId: number): Promise<Inbox> {
  const rows = await deps.db
    .select({ id: memberships.companyId })
    .from(memberships)
    .where(eq(memberships.userId, userId));
  return { deps, userId, companyIds: rows.map((r) => r.id) };
}

export async function listNotifications(
  box: Inbox,
  f: ListFilter,
): Promise<Page<NotificationItem> & { unreadCount: number }> {
  const { deps } = box;
  const now = deps.clock.now();
  if (f.entityId !== undefined && !f.entityType) throw invalid("entityId needs entityType (e.g. entityType card).");
  let typeWhere: SQL | undefined;
  if (f.type) {
    if (f.type.endsWith(".*")) {
      const prefix = f.type.slice(0, -1);
      if (!/^[a-z][a-z0-9_.]*\.$/.test(prefix))
        throw invalid(`Not a type prefix: "${f.type.slice(0, 80)}" (e.g. card.*).`);
      // The underscore is a LIKE wildcard; names such as sla_breached need it literal.
      typeWhere = sql`${notifications.type} like ${`${prefix.replace(/_/g, "\\_")}%`} escape '\\'`;
    } else typeWhere = eq(notifications.type, f.type);
  }
  const where = and(
    mine(box),
    viewWhere(f.view ?? "inbox", now),
    typeWhere,
    f.entityType ? eq(notifications.entityType, f.entityType) : undefined,
    f.entityId !== undefined ? eq(notifications.entityId, f.entityId) : undefined,
    f.since ? gte(notifications.createdAt, f.since) : undefined,
  );
  const total = (await deps.db.select({ n: count() }).from(notifications).where(where))[0]?.n ?? 0;
  const rows = await deps.db
    .select({ n: notifications, company: companies.name, actorName: users.name, actorEmail: users.email })
    .from(notifications)
    .innerJoin(companies, eq(companies.id, notifications.companyId))
    .leftJoin(users, eq(users.id, notifications.actorUserId))
    .where(where)
    .orderBy(
      sql`case when ${notifications.readAt} is null then 0 else 1 end`,
      desc(notifications.sortAt),
      desc(notifications.id),
    )
    .limit(f.limit)
    .offset(f.offset);
  const items = rows.map((r) =>
    itemOut(deps, r.n, { company: r.company, actorName: r.actorName ?? r.actorEmail }, now),
  );
  return { ...page(items, total, f.limit, f.offset), unreadCount: await unreadCount(box) };
}

/** The ids that are this inbox's; anything else is "not found", whoever it belongs to. */
async function own(box: Inbox, ids: number[]): Promise<number[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) throw invalid("Give at least one notification id.");
  if (unique.length > 100) throw invalid("At most 100 notification ids at once.");
  const found = new Set(
    (
      await box.deps.db
        .select({ id: notifications.id })
        .from(notifications)
        .where(and(mine(box), inArray(notifications.id, unique)))
    ).map((r) => r.id),
  );
  const missing = unique.filter((id) => !found.has(id));
  if (missing.length)
    throw notFound(`No notification ${missing.join(", ")} in your inbox here. List them with notifications_list.`);
  return unique;
}

async function change(box: Inbox, ids: number[], set: Partial<Row>): Promise<{ updated: number; unreadCount: number }> {
  return await box.deps.store.transaction(async (tx) => {
    const mineIds = await own(box, ids);
    const rows = await tx
      .update(notifications)
      .set(set)
      .where(and(mine(box), inArray(notifications.id, mineIds)))
      .returning({ id: notifications.id });
    return { updated: rows.length, unreadCount: await unreadCount(box) };
  });
}

/** Where opening a notification leads: its link and the company it is about (a portal link such as /chat/57 means that company's #57). */
export async function targetOf(box: Inbox, id: number): Promise<{ link: string | null; companyId: number } | null> {
  await own(box, [id]);
  return (
    (
      await box.deps.db
        .select({ link: notifications.link, companyId: notifications.companyId })
        .from(notifications)
        .where(eq(notifications.id, id))
        .limit(1)
    )[0] ?? null
  );
}

export async function markRead(box: Inbox, ids: number[], read: boolean) {
  const now = box.deps.clock.now();
  // Unread means back in the inbox: a snoozed or archived one returns.
  return await change(box, ids, read ? { readAt: now } : { readAt: null, archivedAt: null, snoozedUntil: null });
}

export async function markAllRead(box: Inbox, f: { type?: string; before?: Date } = {}) {
  const now = box.deps.clock.now();
  return await box.deps.store.transaction(async (tx) => {
    const rows = await tx
      .update(notifications)
      .set({ readAt: now })
      .where(
        and(
          mine(box),
          viewWhere("unread", now),
          f.type ? eq(notifications.type, f.type) : undefined,
          f.before ? lte(notifications.createdAt, f.before) : undefined,
        ),
      )
      .returning({ id: notifications.id });
    return { updated: rows.length, unreadCount: await unreadCount(box) };
  });
}

export const MAX_SNOOZE_MS = 90 * 24 * 3600_000;

/** Hides them until `until`; then they come back unread, at the top. */
export async function snooze(box: Inbox, ids: number[], until: Date) {
  const now = box.deps.clock.now();
  if (until.getTime() <= now.getTime()) throw invalid(`Snooze until a time in the future (now is ${iso(now)}).`);
  if (until.getTime() - now.getTime() > MAX_SNOOZE_MS) throw invalid("Snooze for at most 90 days.");
  const r = await change(box, ids, { snoozedUntil: until, sortAt: until, readAt: null, archivedAt: null });
  return { ...r, snoozedUntil: iso(until) };
}

/** Done with them: out of the inbox (and read). notifications_mark_unread brings one back. */
export async function archive(box: Inbox, ids: number[]) {
  const now = box.deps.clock.now();
  return await change(box, ids, { archivedAt: now, readAt: now, snoozedUntil: null });
}

/**
 * notifications_create: an agent or admin tells members something (a
 * report is ready, a deploy went out). Recipients by user id or email must
 * be members of the company; the caller is not notified of their own message.
 */
export async function createNotifications(
  ctx: ActorContext,
  input: { userIds?: number[]; emails?: string[]; type?: string; title: string; body?: string; link?: string },
) {
  authorize(ctx, "notifications:write", { write: true });
  const { deps } = ctx;
  const emails = [...new Set((input.emails ?? []).map((e) => e.trim().toLowerCase()))];
  const ids = [...new Set(input.userIds ?? [])];
  if (emails.length + ids.length === 0)
    throw invalid(
      "Name at least one recipient in userIds or emails (members of this company; team_members_list lists them).",
    );
  const members = await deps.db
    .select({ id: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.companyId, ctx.company.id),
        or(ids.length ? inArray(users.id, ids) : undefined, emails.length ? inArray(users.email, emails) : undefined),
      ),
    );
  const missing = [
    ...ids.filter((id) => !members.some((m) => m.id === id)).map(String),
    ...emails.filter((e) => !members.some((m) => m.email === e)),
  ];
  if (missing.length)
    throw notFound(`Not a member of ${ctx.company.name}: ${missing.join(", ")}. List members with team_members_list.`);
  return await deps.store.transaction(async (tx) => {
    const r = await notifyDetailed(deps, {
      companyId: ctx.company.id,
      userIds: [...new Set(members.map((m) => m.id))],
      type: input.type ?? "message",
      title: input.title,
      body: input.body ?? null,
      link: input.link ?? null,
      actorUserId: ctx.principal.userId,
    });
    await audit(tx, ctx, "notifications.create", {
      type: "notification",
      id: r.ids[0] ?? null,
      detail: { userIds: r.userIds, type: input.type ?? "message" },
    });
    return { ids: r.ids, created: r.ids.length, skipped: r.skipped };
  });
}
