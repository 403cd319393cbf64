/**
 * The first lines of every tickets verb: scope and role, the ticket looked
 * up by its number within the acting company (another company's ticket
 * answers exactly like one that does not exist), and the output shapes.
 */
import { and, eq, inArray } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { breachedTargets, slaView, type TicketRow } from "./sla";
import { type ticketMessages, tickets, ticketTags, type TicketStatus } from "./tables";
import { users } from "../../core/tables";
import { memberOfCompany } from "../../core/members";

export type Q = Pick<Db, "select">;

export function ticketsRead(ctx: ActorContext) {
  authorize(ctx, "tickets:read", { write: false });
}

export function ticketsWrite(ctx: ActorContext) {
  authorize(ctx, "tickets:write", { write: true });
}

export const ref = (n: number) => `#${n}`;

export async function ticketByNumber(q: Q, ctx: ActorContext, number: number): Promise<TicketRow> {
  const t = (
    await q
      .select()
      .from(tickets)
      .where(and(eq(tickets.companyId, ctx.company.id), eq(tickets.number, number)))
      .limit(1)
  )[0];
  if (!t) throw notFound(`Ticket #${number} not found in ${ctx.company.name}. Find tickets with tickets_list.`);
  return t;
}

/** Closed is final (merged tickets are closed too): say so, and what to do instead. */
export function refuseClosed(t: TicketRow, what: string) {
  if (t.status !== "closed") return;
  if (t.mergedIntoId !== null)
    throw conflict(`Ticket #${t.number} was merged and is closed; ${what} on the ticket it was merged into.`);
  throw conflict(
    `Ticket #${t.number} is closed, and closed tickets are final; a new message from the requester opens a follow-up ticket.`,
  );
}

/**
 * Who a user reference names, as an assignee: a member of the company who
 * can work tickets (owner or admin; a viewer cannot reply).
 */
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
      `${row.name ?? row.email} is a viewer of ${ctx.company.name} and cannot work tickets; assign an owner or admin.`,
    );
  return { id: row.id, name: row.name, email: row.email };
}

/** The ids a user filter means: "me", a user id or an email (no match: none). */
export async function userIdOf(q: Q, ctx: ActorContext, who: number | string): Promise<number | null> {
  if (who === "me") return ctx.principal.userId;
  if (typeof who === "number") return who;
  return (
    (await q.select({ id: users.id }).from(users).where(eq(users.email, who.toLowerCase())).limit(1))[0]?.id ?? null
  );
}

export async function tagsOf(q: Q, ids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>(ids.map((id) => [id, []]));
  if (!ids.length) return out;
  const rows = await q.select().from(ticketTags).where(inArray(ticketTags.ticketId, ids));
  for (const r of rows) out.get(r.ticketId)!.push(r.tag);
  // Byte order, the same on both engines (tags are ASCII).
  for (const list of out.values()) list.sort();
  return out;
}

export async function usersById(
  q: Q,
  ids: (number | null)[],
): Promise<Map<number, { id: number; name: string | null; email: string }>> {
  const want = [...new Set(ids.filter((x): x is number => x !== null))];
  if (!want.length) return new Map();
  const rows = await q
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.id, want));
  return new Map(rows.map((r) => [r.id, r]));
}

/** Numbers of tickets by row id (for mergedInto / followUpOf pointers). */
export async function numbersById(q: Q, ids: (number | null)[]): Promise<Map<number, number>> {
  const want = [...new Set(ids.filter((x): x is number => x !== null))];
  if (!want.length) return new Map();
  const rows = await q
    .select({ id: tickets.id, number: tickets.number })
    .from(tickets)
    .where(inArray(tickets.id, want));
  return new Map(rows.map((r) => [r.id, r.number]));
}

export interface Extras {
  tags: Map<number, string[]>;
  users: Map<number, { id: number; name: string | null; email: string }>;
  numbers: Map<number, number>;
}

export async function extrasFor(q: Q, rows: TicketRow[]): Promise<Extras> {
  return {
    tags: await tagsOf(
      q,
      rows.map((r) => r.id),
    ),
    users: await usersById(
      q,
      rows.map((r) => r.assigneeId),
    ),
    numbers: await numbersById(
      q,
      rows.flatMap((r) => [r.mergedIntoId, r.followUpOfId]),
    ),
  };
}

/** A ticket as tools show it: `id` is its number. */
export function ticketOut(t: TicketRow, x: Extras, now: Date) {
  const a = t.assigneeId === null ? null : (x.users.get(t.assigneeId) ?? null);
  return {
    id: t.number,
    ref: ref(t.number),
    subject: t.subject,
    status: t.status as TicketStatus,
    priority: t.priority,
    requester: { email: t.requesterEmail, name: t.requesterName },
    assignee: a,
    tags: x.tags.get(t.id) ?? [],
    breached: breachedTargets(t, now),
    sla: slaView(t, now),
    mergedIntoId: t.mergedIntoId === null ? null : (x.numbers.get(t.mergedIntoId) ?? null),
    followUpOfId: t.followUpOfId === null ? null : (x.numbers.get(t.followUpOfId) ?? null),
    // Only on tickets opened from a chat (chat_conversations_to_ticket): other tickets read as before.
    ...(t.sourceChatNumber !== null && { sourceChatId: t.sourceChatNumber }),
    createdAt: iso(t.createdAt)!,
    updatedAt: iso(t.updatedAt)!,
    lastMessageAt: iso(t.lastMessageAt)!,
    solvedAt: iso(t.solvedAt),
    closedAt: iso(t.closedAt),
  };
}

export async function usersOf(q: Q, ids: (number | null)[]) {
  const want = [...new Set(ids.filter((x): x is number => x !== null))];
  if (!want.length) return new Map<number, { id: number; name: string | null }>();
  const rows = await q.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, want));
  return new Map(rows.map((r) => [r.id, r]));
}

/** A message as tools show it: a note always says `internal: true`. */
export function messageOut(
  m: typeof ticketMessages.$inferSelect,
  authors: Map<number, { id: number; name: string | null }>,
) {
  return {
    id: m.id,
    kind: m.kind,
    internal: m.kind === "note",
    author: m.author,
    user: m.userId === null ? null : (authors.get(m.userId) ?? { id: m.userId, name: null }),
    body: m.body,
    mergedFromId: m.mergedFromNumber,
    createdAt: iso(m.createdAt)!,
  };
}
