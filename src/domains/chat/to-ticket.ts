/**
 * A chat that needs follow-up becomes a ticket (chat_conversations_to_ticket):
 * the visitor is the requester, so they need an email to be answered by; the
 * transcript is the ticket's first message; the chat and the ticket point at
 * each other (the conversation's ticketId, the ticket's sourceChatId).
 *
 * The transcript is one message, quoted, rather than a requester message per
 * visitor line and an agent reply per agent line: the chat's agent replies
 * were not emails to the requester, and as ticket replies they would count
 * as the ticket's first response, so the SLA would read "met" on a ticket
 * nobody has answered yet. Internal notes are left out, as in the emailed
 * transcript.
 *
 * The chat's files go with it: recorded on the ticket's first message
 * (the visitor's as the requester's, the agents' as agents'), sharing the
 * stored bytes, so they count once against the company's file budget.
 *
 * Once only: the conversation's row is locked for the whole call
 * (onConversation), so of two racing calls the second waits and finds the
 * ticket the first opened, and returns it. A ticket deleted since reads as
 * none, and converting again opens a new one.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import {
  checkTicketsWrite,
  openTicketFromChat,
  TICKET_MAX_BODY,
  type TicketPriority,
  ticketSummary,
} from "../tickets/intake";
import { chatRead, ref, usersById, type ConversationRow } from "./access";
import { filesOfConversation } from "./attachments";
import { onConversation } from "./conversations";
import type { toTicketInput } from "./schemas";
import { chatConversations, chatMessages, type ChatPriority } from "./tables";

/** A chat's priority as a ticket's: the chat's "none" and "medium" are a ticket's normal. */
const PRIORITY: Record<ChatPriority, TicketPriority> = {
  none: "normal",
  low: "low",
  medium: "normal",
  high: "high",
  urgent: "urgent",
};

/**
 * The visitor's and agents' messages as one quoted text, oldest first; when
 * longer than a ticket message may be, the oldest are left out and the text
 * says how many.
 */
async function transcript(tx: Db, c: ConversationRow, visitorName: string | null) {
  const rows = await tx
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.conversationId, c.id), inArray(chatMessages.kind, ["visitor", "agent"])))
    .orderBy(asc(chatMessages.id));
  const authors = await usersById(
    tx,
    rows.map((m) => m.userId),
  );
  const who = (m: (typeof rows)[number]) =>
    m.kind === "visitor"
      ? `${visitorName ?? "Visitor"} (visitor)`
      : `${authors.get(m.userId ?? -1)?.name ?? "Agent"} (agent)`;
  const quoted = rows.map((m) => `[${iso(m.createdAt)}] ${who(m)}:\n${m.body.replace(/^/gm, "> ")}`);
  const head = `Transcript of chat ${ref(c.number)} (started ${iso(c.createdAt)}):`;
  let kept = quoted;
  const size = (parts: string[], omitted: number) =>
    head.length + parts.reduce((n, p) => n + p.length + 2, 0) + (omitted ? 80 : 0);
  while (kept.length > 1 && size(kept, quoted.length - kept.length) > TICKET_MAX_BODY) kept = kept.slice(1);
  const omitted = quoted.length - kept.length;
  const note = omitted ? `\n\n(${omitted} earlier message(s) left out; the whole chat is ${ref(c.number)}.)` : "";
  return {
    body: `${head}${note}\n\n${kept.join("\n\n")}`.slice(0, TICKET_MAX_BODY),
    firstVisitorLine:
      rows
        .find((m) => m.kind === "visitor")
        ?.body.trim()
        .split("\n")[0] ?? null,
  };
}

export async function conversationToTicket(ctx: ActorContext, input: v.InferOutput<typeof toTicketInput>) {
  chatRead(ctx);
  checkTicketsWrite(ctx);
  return onConversation(ctx, input.conversationId, async (c) => {
    const facts = c.facts();
    if (c.row.ticketNumber !== null) {
      const t = await ticketSummary(c.tx, ctx, c.row.ticketNumber);
      if (t)
        return {
          ...t,
          conversationId: c.row.number,
          created: false,
          note: `Conversation ${ref(c.row.number)} already became ticket ${t.ref}.`,
        };
    }
    if (!facts.visitorEmail)
      throw invalid(
        `The visitor of conversation ${ref(c.row.number)} left no email, and a ticket is answered by email. Ask for it in the chat, then try again.`,
      );
    const t = await transcript(c.tx, c.row, facts.visitorName);
    if (t.firstVisitorLine === null)
      throw conflict(`Conversation ${ref(c.row.number)} has no message from the visitor to open a ticket with.`);
    const words = t.firstVisitorLine.length > 80 ? `${t.firstVisitorLine.slice(0, 79)}…` : t.firstVisitorLine;
    const files = (await filesOfConversation(c.tx, c.row.id)).map((f) => ({
      source: f.source === "visitor" ? ("requester" as const) : ("agent" as const),
      file: { ...f, fresh: false },
    }));
    const created = await openTicketFromChat(ctx, {
      files,
      chatNumber: c.row.number,
      subject: input.subject ?? `Chat ${ref(c.row.number)}: ${words}`,
      requesterEmail: facts.visitorEmail,
      requesterName: facts.visitorName,
      body: t.body,
      priority: input.priority ?? PRIORITY[c.row.priority],
      ...((input.assigneeId ?? c.row.assigneeId) !== null && { assigneeId: input.assigneeId ?? c.row.assigneeId! }),
    });
    await c.tx
      .update(chatConversations)
      .set({ ticketNumber: created.id, updatedAt: c.now })
      .where(eq(chatConversations.id, c.row.id));
    await audit(c.tx, ctx, "chat.to_ticket", {
      type: "chat_conversation",
      id: c.row.number,
      detail: { ticket: created.id },
    });
    return {
      id: created.id,
      ref: created.ref,
      status: created.status,
      priority: created.priority,
      conversationId: c.row.number,
      created: true,
    };
  });
}
