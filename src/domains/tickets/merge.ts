/**
 * Merging a duplicate into the ticket that carries on: the source's replies
 * and notes move to the target (each keeps the number it was written on,
 * `mergedFromId`, and stays a reply or a note), its tags join the target's,
 * a system note on the target says what happened, and the source closes
 * pointing at the target. Tickets merged into the source earlier are
 * repointed at the target, so a pointer is always one hop.
 *
 * When the source brings a customer message nobody has answered yet (a
 * requester reply newer than the last agent reply in the combined thread),
 * a pending or solved target reopens (reason "merge") and its resolution
 * clock runs again: the customer is waiting, whichever ticket they wrote on.
 *
 * Refused: merging a ticket into itself, a ticket already merged, into a
 * ticket that was itself merged (the answer names where to merge instead),
 * a closed ticket either way (closed is final), and another company's
 * ticket (not found, as if it did not exist).
 */
import { and, eq, max, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { ticketByNumber, ticketsWrite } from "./access";
import { ticketMerged } from "./events";
import { moveStatus, onTicket, type TicketTx } from "./lifecycle";
import type { ticketMergeInput } from "./schemas";
import { recordBreaches, type TicketRow } from "./sla";
import { ticketAttachments, ticketMessages, tickets, ticketTags } from "./tables";

export async function mergeTickets(ctx: ActorContext, input: v.InferOutput<typeof ticketMergeInput>) {
  ticketsWrite(ctx);
  if (input.id === input.targetId)
    throw invalid(`Ticket #${input.id} cannot be merged into itself; targetId names the ticket that carries on.`);
  return onTicket(ctx, input.id, async (c) => {
    const source = c.row;
    let target = await ticketByNumber(c.tx, ctx, input.targetId);
    const numberOf = async (id: number) =>
      (await c.tx.select({ n: tickets.number }).from(tickets).where(eq(tickets.id, id)).limit(1))[0]?.n;
    if (source.mergedIntoId !== null)
      throw conflict(`Ticket #${source.number} was already merged into #${await numberOf(source.mergedIntoId)}.`);
    if (target.mergedIntoId !== null) {
      const into = await numberOf(target.mergedIntoId);
      throw conflict(`Ticket #${target.number} was itself merged into #${into}; merge into #${into} instead.`, {
        mergeInto: into,
      });
    }
    if (source.status === "closed")
      throw conflict(`Ticket #${source.number} is closed, and closed tickets are final; it cannot be merged.`);
    if (target.status === "closed")
      throw conflict(`Ticket #${target.number} is closed, and closed tickets are final; merge into an open ticket.`);
    target = await recordBreaches(c.tx, ctx, target, c.now);
    const customerAt = await lastReply(c, source.id, "requester");

    const moved = await c.tx
      .update(ticketMessages)
      .set({
        ticketId: target.id,
        mergedFromNumber: sql`coalesce(${ticketMessages.mergedFromNumber}, ${source.number})`,
      })
      .where(eq(ticketMessages.ticketId, source.id))
      .returning({ id: ticketMessages.id });
    // The files go with their messages.
    await c.tx.update(ticketAttachments).set({ ticketId: target.id }).where(eq(ticketAttachments.ticketId, source.id));
    const sourceTags = await c.tx
      .select({ tag: ticketTags.tag })
      .from(ticketTags)
      .where(eq(ticketTags.ticketId, source.id));
    if (sourceTags.length)
      await c.tx
        .insert(ticketTags)
        .values(sourceTags.map((r) => ({ ticketId: target.id, tag: r.tag })))
        .onConflictDoNothing();
    const tagCount = (
      await c.tx.select({ tag: ticketTags.tag }).from(ticketTags).where(eq(ticketTags.ticketId, target.id))
    ).length;
    const from = source.requesterName ? `${source.requesterName} <${source.requesterEmail}>` : source.requesterEmail;
    await c.tx.insert(ticketMessages).values({
      ticketId: target.id,
      kind: "note",
      author: "system",
      userId: null,
      body: `Ticket #${source.number} ("${source.subject}", from ${from}) was merged into this ticket; its ${moved.length} message(s) moved here.`,
      createdAt: c.now,
    });
    await c.tx.update(tickets).set({ mergedIntoId: target.id }).where(eq(tickets.mergedIntoId, source.id));
    const reopened = await reopenIfUnanswered(c, ctx, target, customerAt);
    await c.tx.update(tickets).set({ updatedAt: c.now, lastMessageAt: c.now }).where(eq(tickets.id, target.id));
    await moveStatus(c, ctx, "closed", "merge", { mergedIntoId: target.id });

    await audit(c.tx, ctx, "tickets.merge", {
      type: "ticket",
      id: source.number,
      detail: { into: target.number, movedMessages: moved.length, ...(reopened && { reopenedTarget: true }) },
    });
    await emit(
      c.tx,
      ctx,
      ticketMerged,
      { id: source.number },
      {
        number: source.number,
        subject: source.subject,
        requesterEmail: source.requesterEmail,
        requesterName: source.requesterName,
        targetNumber: target.number,
        targetSubject: target.subject,
        targetRequesterEmail: target.requesterEmail,
        movedMessages: moved.length,
        assigneeUserId: source.assigneeId,
        targetAssigneeUserId: target.assigneeId,
      },
    );
    const warnings: string[] = [];
    if (source.requesterEmail !== target.requesterEmail)
      warnings.push(
        `The requesters differ: replies on #${target.number} go to ${target.requesterEmail}, not ${source.requesterEmail}.`,
      );
    if (tagCount > 20)
      warnings.push(
        `#${target.number} now has ${tagCount} tags (20 is the usual limit); remove some with tickets_update removeTags.`,
      );
    return {
      id: source.number,
      status: "closed" as const,
      mergedIntoId: target.number,
      movedMessages: moved.length,
      ...(reopened && { targetStatus: "open" as const }),
      ...(warnings.length && { warnings }),
    };
  });
}

/** The newest public reply by `author` on ticket row `ticketId` (null: none). */
async function lastReply(c: TicketTx, ticketId: number, author: "agent" | "requester"): Promise<number | null> {
  const at = (
    await c.tx
      .select({ at: max(ticketMessages.createdAt) })
      .from(ticketMessages)
      .where(
        and(eq(ticketMessages.ticketId, ticketId), eq(ticketMessages.kind, "reply"), eq(ticketMessages.author, author)),
      )
  )[0]?.at;
  return at == null ? null : new Date(at).getTime();
}

/**
 * Reopens a pending or solved target when the source's newest customer
 * message (`customerAt`, read before the move) is newer than every agent
 * reply now on the target. Returns whether it reopened.
 */
async function reopenIfUnanswered(c: TicketTx, ctx: ActorContext, target: TicketRow, customerAt: number | null) {
  if (customerAt === null || (target.status !== "pending" && target.status !== "solved")) return false;
  const agentAt = await lastReply(c, target.id, "agent");
  if (agentAt !== null && agentAt >= customerAt) return false;
  await moveStatus({ tx: c.tx, row: target, policy: c.policy, now: c.now }, ctx, "open", "merge");
  return true;
}
