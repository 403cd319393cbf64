/**
 * What every write to a ticket shares: one transaction that first records
 * the SLA breaches the ticket has reached by now (so a late reply reports
 * the breach it made, even before the job runs), the status transitions,
 * and ticket numbers.
 *
 * Transitions (the same table as docs/tickets.md):
 *   new     → open, pending, solved
 *   open    → pending, solved
 *   pending → open, solved
 *   solved  → open, closed
 *   closed  → none: closed is final
 * Besides: a public agent reply moves new → open; assigning a new ticket
 * opens it; a requester reply reopens pending and solved tickets (a closed
 * one gets a follow-up ticket instead); solved tickets close by themselves
 * after the policy's autoCloseDays; merging closes the merged ticket.
 */
import { eq, sql } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict } from "../../core/errors";
import { emit } from "../../core/events";
import { ticketByNumber } from "./access";
import { ticketStatusChanged } from "./events";
import { clockAfter, policyOf, recordBreaches, type Policy, type TicketRow } from "./sla";
import { ticketCounters, tickets, type TicketStatus } from "./tables";

export const TRANSITIONS: Record<TicketStatus, readonly TicketStatus[]> = {
  new: ["open", "pending", "solved"],
  open: ["pending", "solved"],
  pending: ["open", "solved"],
  solved: ["open", "closed"],
  closed: [],
};

/** Ticket numbers start here in every company, so #1001 never reads like a count. */
export const FIRST_NUMBER = 1001;

/** The next number of the company, atomically (a row lock on PostgreSQL, the single writer on SQLite). */
export async function nextNumber(tx: Db, companyId: number): Promise<number> {
  const r = await tx
    .insert(ticketCounters)
    .values({ companyId, lastNumber: FIRST_NUMBER })
    .onConflictDoUpdate({
      target: ticketCounters.companyId,
      set: { lastNumber: sql`${ticketCounters.lastNumber} + 1` },
    })
    .returning({ n: ticketCounters.lastNumber });
  return r[0]!.n;
}

export interface TicketTx {
  tx: Db;
  row: TicketRow;
  policy: Policy;
  now: Date;
}

/** Runs `fn` on ticket `number` of the acting company in one transaction, after recording due breaches. */
export async function onTicket<T>(ctx: ActorContext, number: number, fn: (t: TicketTx) => Promise<T>): Promise<T> {
  return ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const found = await ticketByNumber(tx, ctx, number);
    const row = await recordBreaches(tx, ctx, found, now);
    const policy = await policyOf(tx, ctx.company.id);
    return await fn({ tx, row, policy, now });
  });
}

export function checkTransition(t: TicketRow, to: TicketStatus) {
  const allowed = TRANSITIONS[t.status];
  if (allowed.includes(to)) return;
  if (t.status === "closed") throw conflict(`Ticket #${t.number} is closed, and closed tickets are final.`);
  throw conflict(
    `Ticket #${t.number} cannot go from ${t.status} to ${to}; from ${t.status} it can go to ${allowed.join(" or ")}.`,
    { from: t.status, to, allowed: [...allowed] },
  );
}

/**
 * Moves a ticket to `to` (checked by the caller), with its SLA clock, and
 * emits ticket.status_changed. Returns the updated row.
 */
export async function moveStatus(
  c: TicketTx,
  ctx: Pick<ActorContext, "deps" | "company"> & { principal?: ActorContext["principal"] },
  to: TicketStatus,
  reason: "agent" | "requester_reply" | "merge",
  extra: Partial<typeof tickets.$inferInsert> = {},
): Promise<TicketRow> {
  const t = c.row;
  if (t.status === to) return t;
  const clock = clockAfter(t, to, c.now, c.policy);
  const updated = (
    await c.tx
      .update(tickets)
      .set({
        status: to,
        ...clock,
        solvedAt: to === "solved" ? c.now : to === "closed" ? t.solvedAt : null,
        closedAt: to === "closed" ? c.now : null,
        updatedAt: c.now,
        ...extra,
      })
      .where(eq(tickets.id, t.id))
      .returning()
  )[0]!;
  await emit(
    c.tx,
    ctx,
    ticketStatusChanged,
    { id: t.number },
    {
      number: t.number,
      subject: updated.subject,
      requesterEmail: t.requesterEmail,
      requesterName: t.requesterName,
      from: t.status,
      to,
      reason,
      assigneeUserId: updated.assigneeId,
    },
  );
  c.row = updated;
  return updated;
}
