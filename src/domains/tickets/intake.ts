/**
 * Tickets opened from elsewhere in Plinth: what another domain may ask of
 * the tickets domain without reaching into its tables. Today a chat
 * conversation turned into a ticket (chat_conversations_to_ticket): the
 * ticket remembers the chat it came from, and the chat asks here whether
 * the ticket it opened still exists.
 *
 * @public Serves chat (chat_conversations_to_ticket).
 */
import { and, eq } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { ref, ticketsWrite } from "./access";
import type { StoredFile } from "./attachments";
import { MAX_BODY } from "./schemas";
import { TICKET_PRIORITIES, type TicketPriority, tickets } from "./tables";
import { createTicket } from "./tickets";

export { MAX_BODY as TICKET_MAX_BODY, TICKET_PRIORITIES, type TicketPriority };

/** Refuses (forbidden) unless the caller may write tickets: checked before anything else is done. */
export const checkTicketsWrite = (ctx: ActorContext) => ticketsWrite(ctx);

/** Ticket `number` of the acting company as a caller outside tickets sees it; null when it does not exist (deleted). */
export async function ticketSummary(q: Pick<Db, "select">, ctx: ActorContext, number: number) {
  const t = (
    await q
      .select({ number: tickets.number, status: tickets.status, priority: tickets.priority })
      .from(tickets)
      .where(and(eq(tickets.companyId, ctx.company.id), eq(tickets.number, number)))
      .limit(1)
  )[0];
  return t ? { id: t.number, ref: ref(t.number), status: t.status, priority: t.priority } : null;
}

/**
 * Opens a ticket for chat `chatNumber`'s visitor with `body` (the
 * transcript) as its first message; inside the caller's transaction when
 * there is one (a savepoint), so the chat's link and the ticket commit
 * together.
 */
export async function openTicketFromChat(
  ctx: ActorContext,
  input: {
    chatNumber: number;
    subject: string;
    requesterEmail: string;
    requesterName: string | null;
    body: string;
    priority: TicketPriority;
    assigneeId?: number | string;
    /** The chat's files, already stored: recorded on the ticket's first message, sharing their keys. */
    files?: { source: "requester" | "agent"; file: StoredFile }[];
  },
) {
  return createTicket(
    ctx,
    {
      subject: input.subject,
      requesterEmail: input.requesterEmail,
      requesterName: input.requesterName ?? undefined,
      body: input.body,
      priority: input.priority,
      ...(input.assigneeId !== undefined && { assigneeId: input.assigneeId }),
    },
    { sourceChatNumber: input.chatNumber, files: input.files ?? [] },
  );
}
