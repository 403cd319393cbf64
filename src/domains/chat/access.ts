/**
 * The first lines of every chat verb: scope and role, lookups within the
 * acting company (another company's inbox or conversation answers exactly
 * like one that does not exist), and the shapes tools return.
 */
import { and, eq, inArray, sql } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { forUpdate } from "../../core/sql";
import { DAYS, isTimeZone, parseWeekHours } from "../tickets/business-time";
import {
  chatConversations,
  chatCounters,
  chatInboxes,
  chatLabels,
  type chatMessages,
  chatVisitors,
  type InboxHours,
} from "./tables";
import { users } from "../../core/tables";
import { memberOfCompany } from "../../core/members";

export type Q = Pick<Db, "select">;
export type InboxRow = typeof chatInboxes.$inferSelect;
export type ConversationRow = typeof chatConversations.$inferSelect;
export type MessageRow = typeof chatMessages.$inferSelect;
export type VisitorRow = typeof chatVisitors.$inferSelect;

export const chatRead = (ctx: ActorContext) => authorize(ctx, "chat:read", { write: false });
export const chatWrite = (ctx: ActorContext) => authorize(ctx, "chat:write", { write: true });

export const ref = (n: number) => `#${n}`;

export async function inboxById(q: Q, ctx: ActorContext, id: number): Promise<InboxRow> {
  const row = (
    await q
      .select()
      .from(chatInboxes)
      .where(and(eq(chatInboxes.id, id), eq(chatInboxes.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Chat inbox ${id} not found in ${ctx.company.name}. Find inboxes with chat_inboxes_list.`);
  return row;
}

export async function conversationByNumber(q: Q, ctx: ActorContext, number: number): Promise<ConversationRow> {
  const row = (
    await q
      .select()
      .from(chatConversations)
      .where(and(eq(chatConversations.companyId, ctx.company.id), eq(chatConversations.number, number)))
      .limit(1)
  )[0];
  if (!row)
    throw notFound(
      `Conversation #${number} not found in ${ctx.company.name}. Find conversations with chat_conversations_list.`,
    );
  return row;
}

export interface LockedConversation {
  row: ConversationRow;
  inbox: { id: number; name: string };
  visitor: { id: number; name: string | null; email: string | null };
}

/**
 * A conversation a verb is about to change, with what its events name (the
 * inbox, the visitor), in one statement; on PostgreSQL the conversation's
 * row is locked until the transaction ends, so writers of one conversation
 * take turns and each reads what the previous one left. The verbs run
 * read committed (conversations.ts): that lock is what they serialise on.
 */
export async function lockConversation(q: Q, ctx: ActorContext, number: number): Promise<LockedConversation> {
  const r = (
    await forUpdate(
      q
        .select({
          row: chatConversations,
          inbox: { id: chatInboxes.id, name: chatInboxes.name },
          visitor: { id: chatVisitors.id, name: chatVisitors.name, email: chatVisitors.email },
        })
        .from(chatConversations)
        .innerJoin(chatInboxes, eq(chatInboxes.id, chatConversations.inboxId))
        .innerJoin(chatVisitors, eq(chatVisitors.id, chatConversations.visitorId))
        .where(and(eq(chatConversations.companyId, ctx.company.id), eq(chatConversations.number, number)))
        .limit(1),
      chatConversations,
    )
  )[0];
  if (!r)
    throw notFound(
      `Conversation #${number} not found in ${ctx.company.name}. Find conversations with chat_conversations_list.`,
    );
  return r;
}

/** The next conversation number of a company (an atomic upsert: racing visitors get distinct numbers). */
export async function nextNumber(tx: Db, companyId: number): Promise<number> {
  const r = await tx
    .insert(chatCounters)
    .values({ companyId, lastNumber: 1 })
    .onConflictDoUpdate({ target: chatCounters.companyId, set: { lastNumber: sql`${chatCounters.lastNumber} + 1` } })
    .returning({ n: chatCounters.lastNumber });
  return r[0]!.n;
}

/** An assignee: a member of the company who can write (owner or admin). */
export async function assigneeOf(
  q: Q,
  ctx: ActorContext,
  who: number | string,
): Promise<{ id: number; name: string | null; email: string }> {
  const row = await memberOfCompany(q, ctx, who);
  if (!row)
    throw invalid(
      `assigneeId ${JSON.stringify(who)} is not a member of ${ctx.company.name}; assign one of its owners or admins.`,
    );
  if (row.role === "viewer")
    throw invalid(
      `${row.name ?? row.email} is a viewer of ${ctx.company.name} and cannot answer chats; assign an owner or admin.`,
    );
  return { id: row.id, name: row.name, email: row.email };
}

export async function userIdOf(q: Q, ctx: ActorContext, who: number | string): Promise<number | null> {
  if (who === "me") return ctx.principal.userId;
  if (typeof who === "number") return who;
  return (
    (await q.select({ id: users.id }).from(users).where(eq(users.email, who.toLowerCase())).limit(1))[0]?.id ?? null
  );
}

export async function usersById(q: Q, ids: (number | null)[]) {
  const want = [...new Set(ids.filter((x): x is number => x !== null))];
  if (!want.length) return new Map<number, { id: number; name: string | null; email: string }>();
  const rows = await q
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.id, want));
  return new Map(rows.map((r) => [r.id, r]));
}

export async function labelsOf(q: Q, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  for (const r of await q.select().from(chatLabels).where(inArray(chatLabels.conversationId, ids)))
    out.get(r.conversationId)!.push(r.label);
  for (const l of out.values()) l.sort();
  return out;
}

/** Business hours checked the way the tickets SLA reads them; throws a clear error. */
export function checkHours(h: InboxHours | null | undefined) {
  if (!h) return;
  if (!isTimeZone(h.timeZone))
    throw invalid(`businessHours.timeZone "${h.timeZone.slice(0, 64)}" is not an IANA time zone, e.g. Europe/Berlin.`);
  parseWeekHours(h.hours, "businessHours.hours");
}

/** Whether the inbox is within its hours at `now`, and if not when it opens next (ISO). */
export function availability(h: InboxHours | null, now: number): { open: boolean; opensAt: string | null } {
  if (!h) return { open: true, opensAt: null };
  let week: ReturnType<typeof parseWeekHours>;
  try {
    week = parseWeekHours(h.hours);
  } catch {
    return { open: true, opensAt: null };
  }
  const here = Temporal.Instant.fromEpochMilliseconds(now).toZonedDateTimeISO(h.timeZone);
  // Eight days ahead always reaches the next opening of a week with at least one interval.
  for (let i = 0; i <= 8; i++) {
    const date = here.toPlainDate().add({ days: i });
    for (const iv of week[DAYS[date.dayOfWeek - 1]!]) {
      const at = (m: number) =>
        (m === 1440 ? date.add({ days: 1 }) : date)
          .toPlainDateTime({ hour: Math.floor((m % 1440) / 60), minute: m % 60 })
          .toZonedDateTime(h.timeZone, { disambiguation: "compatible" }).epochMilliseconds;
      const from = at(iv.start);
      const to = at(iv.end);
      if (now >= from && now < to) return { open: true, opensAt: null };
      if (from > now) return { open: false, opensAt: new Date(from).toISOString() };
    }
  }
  return { open: false, opensAt: null };
}

export interface ConvExtras {
  labels: Map<number, string[]>;
  users: Map<number, { id: number; name: string | null; email: string }>;
  visitors: Map<number, { id: number; name: string | null; email: string | null }>;
  inboxes: Map<number, { id: number; name: string; siteId: number }>;
}

export async function extrasFor(q: Q, rows: ConversationRow[]): Promise<ConvExtras> {
  const vis = [...new Set(rows.map((r) => r.visitorId))];
  const ibs = [...new Set(rows.map((r) => r.inboxId))];
  return {
    labels: await labelsOf(
      q,
      rows.map((r) => r.id),
    ),
    users: await usersById(
      q,
      rows.map((r) => r.assigneeId),
    ),
    visitors: new Map(
      (vis.length
        ? await q
            .select({ id: chatVisitors.id, name: chatVisitors.name, email: chatVisitors.email })
            .from(chatVisitors)
            .where(inArray(chatVisitors.id, vis))
        : []
      ).map((v) => [v.id, v]),
    ),
    inboxes: new Map(
      (ibs.length
        ? await q
            .select({ id: chatInboxes.id, name: chatInboxes.name, siteId: chatInboxes.siteId })
            .from(chatInboxes)
            .where(inArray(chatInboxes.id, ibs))
        : []
      ).map((i) => [i.id, i]),
    ),
  };
}

/** A conversation as tools show it: `id` is its number. waitingSince: the visitor's unanswered message. */
export function conversationOut(c: ConversationRow, x: ConvExtras) {
  const waiting =
    c.lastVisitorMessageAt && (!c.lastAgentMessageAt || c.lastAgentMessageAt < c.lastVisitorMessageAt)
      ? c.lastVisitorMessageAt
      : null;
  return {
    id: c.number,
    ref: ref(c.number),
    status: c.status,
    snoozedUntil: iso(c.snoozedUntil),
    priority: c.priority,
    inbox: x.inboxes.get(c.inboxId) ?? { id: c.inboxId, name: "", siteId: 0 },
    visitor: x.visitors.get(c.visitorId) ?? { id: c.visitorId, name: null, email: null },
    assignee: c.assigneeId === null ? null : (x.users.get(c.assigneeId) ?? null),
    labels: x.labels.get(c.id) ?? [],
    pageUrl: c.pageUrl,
    waitingSince: iso(waiting),
    createdAt: iso(c.createdAt)!,
    lastMessageAt: iso(c.lastMessageAt)!,
    resolvedAt: iso(c.resolvedAt),
    // Only on a conversation turned into a ticket (chat_conversations_to_ticket): others read as before.
    ...(c.ticketNumber !== null && { ticketId: c.ticketNumber }),
  };
}

/** A message as tools show it: a note always says internal: true. */
export function messageOut(m: MessageRow, authors: Map<number, { id: number; name: string | null }>, number?: number) {
  return {
    id: m.id,
    ...(number !== undefined && { conversationId: number }),
    kind: m.kind,
    internal: m.kind === "note",
    user: m.userId === null ? null : (authors.get(m.userId) ?? { id: m.userId, name: null }),
    body: m.body,
    createdAt: iso(m.createdAt)!,
  };
}

/** Payload fields every conversation event carries. */
export function convFacts(
  c: ConversationRow,
  inbox: { id: number; name: string },
  visitor: { id: number; name: string | null; email: string | null },
) {
  return {
    number: c.number,
    inboxId: inbox.id,
    inboxName: inbox.name,
    visitorId: visitor.id,
    visitorName: visitor.name,
    visitorEmail: visitor.email,
    assigneeUserId: c.assigneeId,
  };
}

export async function factsFor(q: Q, c: ConversationRow) {
  const r = (
    await q
      .select({
        inbox: { id: chatInboxes.id, name: chatInboxes.name },
        visitor: { id: chatVisitors.id, name: chatVisitors.name, email: chatVisitors.email },
      })
      .from(chatInboxes)
      .innerJoin(chatVisitors, eq(chatVisitors.id, c.visitorId))
      .where(eq(chatInboxes.id, c.inboxId))
      .limit(1)
  )[0]!;
  return convFacts(c, r.inbox, r.visitor);
}
