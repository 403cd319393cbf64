/**
 * The tickets a member still works (assigned, not solved or closed), for the
 * team domain's removal answer, and the hand-over that removal performs
 * when it is told to whom (or to nobody). The hand-over runs in the
 * removal's transaction, with an audit row and a `ticket.assigned` event
 * per ticket, so the new assignee is notified like any assignment.
 *
 * @public Serves team (a member's removal and the hand-over of their tickets).
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { emit } from "../../core/events";
import type { Q } from "./access";
import { ticketAssigned } from "./events";
import { tickets } from "./tables";

const OPEN = ["new", "open", "pending"] as const;

export interface OpenTickets {
  openTickets: number;
  /** Up to 10 of their numbers (`#12`), oldest first. */
  numbers: string[];
}

function assignedTo(companyId: number, userId: number) {
  return and(eq(tickets.companyId, companyId), eq(tickets.assigneeId, userId), inArray(tickets.status, [...OPEN]));
}

export async function openTicketsOf(q: Q, companyId: number, userId: number): Promise<OpenTickets> {
  const rows = await q
    .select({ number: tickets.number })
    .from(tickets)
    .where(assignedTo(companyId, userId))
    .orderBy(asc(tickets.number));
  return { openTickets: rows.length, numbers: rows.slice(0, 10).map((r) => `#${r.number}`) };
}

/** Moves `fromUserId`'s open tickets to `toUserId` (null: unassigned); returns their numbers. */
export async function handOverTickets(
  tx: Db,
  ctx: ActorContext,
  fromUserId: number,
  toUserId: number | null,
): Promise<number[]> {
  const rows = await tx
    .select()
    .from(tickets)
    .where(assignedTo(ctx.company.id, fromUserId))
    .orderBy(asc(tickets.number));
  const now = ctx.deps.clock.now();
  for (const t of rows) {
    await tx.update(tickets).set({ assigneeId: toUserId, updatedAt: now }).where(eq(tickets.id, t.id));
    await audit(tx, ctx, "tickets.assign", {
      type: "ticket",
      id: t.number,
      detail: { from: fromUserId, to: toUserId, reason: "member_removed" },
    });
    await emit(
      tx,
      ctx,
      ticketAssigned,
      { id: t.number },
      {
        number: t.number,
        subject: t.subject,
        requesterEmail: t.requesterEmail,
        requesterName: t.requesterName,
        priority: t.priority,
        status: t.status,
        assigneeUserId: toUserId,
        previousAssigneeUserId: fromUserId,
        byUserId: ctx.principal.userId,
      },
    );
  }
  return rows.map((t) => t.number);
}
