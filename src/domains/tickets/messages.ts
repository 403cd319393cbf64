/**
 * The thread of a ticket: public agent replies (what the requester is
 * emailed), internal notes (agents only: never emailed, never in an event
 * payload, always marked `internal: true`), and the requester's messages.
 *
 * Replies and notes are separate tools on purpose: one tool with an
 * "internal" flag makes a forgotten flag a private note sent to a customer,
 * the mistake help-desk users complain about most.
 */
import { and, asc, count, eq } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { messageOut, ref, refuseClosed, ticketByNumber, ticketsRead, ticketsWrite, usersOf } from "./access";
import { attachmentOut, discardStored, prepareFiles, recordFiles, type StoredFile } from "./attachments";
import { ticketNoteAdded, ticketReplied, ticketRequesterReplied } from "./events";
import { checkTransition, moveStatus, onTicket } from "./lifecycle";
import type { messageListInput, ticketNoteInput, ticketReplyInput } from "./schemas";
import { createTicket } from "./tickets";
import { ticketMessages, tickets, ticketTags } from "./tables";

/** A public reply from an agent; the first one meets the first-response target. */
export async function replyToTicket(ctx: ActorContext, input: v.InferOutput<typeof ticketReplyInput>) {
  ticketsWrite(ctx);
  // Files are checked and stored before the transaction, and removed again when it does not commit.
  const files = await prepareFiles(ctx, input.attachments);
  try {
    return await replyWithFiles(ctx, input, files);
  } catch (e) {
    await discardStored(ctx.deps, files);
    throw e;
  }
}

async function replyWithFiles(ctx: ActorContext, input: v.InferOutput<typeof ticketReplyInput>, files: StoredFile[]) {
  return onTicket(ctx, input.id, async (c) => {
    const t = c.row;
    refuseClosed(t, "reply");
    // Validate the requested status before writing anything (from the status the reply itself leads to).
    const implied = t.status === "new" ? "open" : t.status;
    if (input.status !== undefined && input.status !== implied)
      checkTransition({ ...t, status: implied }, input.status);
    const msg = (
      await c.tx
        .insert(ticketMessages)
        .values({
          ticketId: t.id,
          kind: "reply",
          author: "agent",
          userId: ctx.principal.userId,
          body: input.body,
          createdAt: c.now,
        })
        .returning()
    )[0]!;
    const attached = await recordFiles(
      c.tx,
      ctx.deps,
      {
        companyId: t.companyId,
        ticketId: t.id,
        messageId: msg.id,
        source: "agent",
        userId: ctx.principal.userId || null,
      },
      files,
    );
    c.row = (
      await c.tx
        .update(tickets)
        .set({ firstRespondedAt: t.firstRespondedAt ?? c.now, lastMessageAt: c.now, updatedAt: c.now })
        .where(eq(tickets.id, t.id))
        .returning()
    )[0]!;
    if (implied !== t.status) await moveStatus(c, ctx, implied, "agent");
    if (input.status !== undefined && input.status !== c.row.status) await moveStatus(c, ctx, input.status, "agent");
    await audit(c.tx, ctx, "tickets.reply", { type: "ticket", id: t.number, detail: { messageId: msg.id } });
    await emit(
      c.tx,
      ctx,
      ticketReplied,
      { id: t.number },
      {
        number: t.number,
        subject: t.subject,
        requesterEmail: t.requesterEmail,
        requesterName: t.requesterName,
        messageId: msg.id,
        body: input.body,
        authorUserId: ctx.principal.userId,
        status: c.row.status,
        assigneeUserId: c.row.assigneeId,
      },
    );
    return {
      id: t.number,
      messageId: msg.id,
      status: c.row.status,
      firstResponse: t.firstRespondedAt === null,
      ...(attached.length && { attachments: attached.map(attachmentOut) }),
    };
  });
}

/** An internal note: agents only, never sent to the requester. Allowed until the ticket is closed. */
export async function addNote(ctx: ActorContext, input: v.InferOutput<typeof ticketNoteInput>) {
  ticketsWrite(ctx);
  return onTicket(ctx, input.id, async (c) => {
    const t = c.row;
    refuseClosed(t, "add the note");
    const msg = (
      await c.tx
        .insert(ticketMessages)
        .values({
          ticketId: t.id,
          kind: "note",
          author: "agent",
          userId: ctx.principal.userId,
          body: input.body,
          createdAt: c.now,
        })
        .returning()
    )[0]!;
    await c.tx.update(tickets).set({ updatedAt: c.now }).where(eq(tickets.id, t.id));
    await audit(c.tx, ctx, "tickets.note", { type: "ticket", id: t.number, detail: { messageId: msg.id } });
    await emit(
      c.tx,
      ctx,
      ticketNoteAdded,
      { id: t.number },
      {
        number: t.number,
        subject: t.subject,
        messageId: msg.id,
        authorUserId: ctx.principal.userId,
        assigneeUserId: t.assigneeId,
      },
    );
    return { id: t.number, messageId: msg.id, internal: true, status: t.status };
  });
}

/**
 * A message from the requester (received by email, phone or chat). It
 * reopens a pending or solved ticket; on a merged ticket it goes to the
 * ticket it was merged into; on a closed one it opens a follow-up ticket.
 */
export async function addRequesterReply(ctx: ActorContext, input: v.InferOutput<typeof ticketNoteInput>) {
  ticketsWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    // Follow merges to the ticket that holds the thread now (one hop: merges repoint older ones).
    let target = await ticketByNumber(tx, ctx, input.id);
    let redirectedFrom: number | null = null;
    if (target.mergedIntoId !== null) {
      const into = (await tx.select().from(tickets).where(eq(tickets.id, target.mergedIntoId)).limit(1))[0];
      if (into) {
        redirectedFrom = target.number;
        target = into;
      }
    }
    if (target.status === "closed") {
      const tags = (
        await tx.select({ tag: ticketTags.tag }).from(ticketTags).where(eq(ticketTags.ticketId, target.id))
      ).map((r) => r.tag);
      const created = await createTicket(
        ctx,
        {
          subject: target.subject,
          requesterEmail: target.requesterEmail,
          requesterName: target.requesterName ?? undefined,
          body: input.body,
          priority: target.priority,
          tags,
        },
        { followUpOf: target },
      );
      return {
        ...created,
        followUpOfId: target.number,
        note: `Ticket #${target.number} is closed, so this message opened follow-up ${ref(created.id)}.`,
      };
    }
    return await onTicket(ctx, target.number, async (c) => {
      const t = c.row;
      const msg = (
        await c.tx
          .insert(ticketMessages)
          .values({
            ticketId: t.id,
            kind: "reply",
            author: "requester",
            userId: null,
            body: input.body,
            createdAt: c.now,
          })
          .returning()
      )[0]!;
      c.row = (
        await c.tx
          .update(tickets)
          .set({ lastMessageAt: c.now, updatedAt: c.now })
          .where(eq(tickets.id, t.id))
          .returning()
      )[0]!;
      const reopened = t.status === "pending" || t.status === "solved";
      if (reopened) await moveStatus(c, ctx, "open", "requester_reply");
      await audit(c.tx, ctx, "tickets.requester_reply", {
        type: "ticket",
        id: t.number,
        detail: { messageId: msg.id, reopened },
      });
      await emit(
        c.tx,
        ctx,
        ticketRequesterReplied,
        { id: t.number },
        {
          number: t.number,
          subject: t.subject,
          requesterEmail: t.requesterEmail,
          requesterName: t.requesterName,
          messageId: msg.id,
          body: input.body,
          status: c.row.status,
          reopened,
          assigneeUserId: c.row.assigneeId,
        },
      );
      return {
        id: t.number,
        messageId: msg.id,
        status: c.row.status,
        reopened,
        ...(redirectedFrom !== null && {
          note: `Ticket #${redirectedFrom} was merged into #${t.number}; the message was added there.`,
        }),
      };
    });
  });
}

export async function listMessages(ctx: ActorContext, input: v.InferOutput<typeof messageListInput>) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const t = await ticketByNumber(db, ctx, input.ticketId);
  const cond = and(eq(ticketMessages.ticketId, t.id), input.kind ? eq(ticketMessages.kind, input.kind) : undefined);
  const total = (await db.select({ n: count() }).from(ticketMessages).where(cond))[0]!.n;
  const rows = await db
    .select()
    .from(ticketMessages)
    .where(cond)
    .orderBy(asc(ticketMessages.createdAt), asc(ticketMessages.id))
    .limit(input.limit)
    .offset(input.offset);
  const authors = await usersOf(
    db,
    rows.map((m) => m.userId),
  );
  if (t.mergedIntoId !== null && total === 0) {
    const into = (
      await db.select({ n: tickets.number }).from(tickets).where(eq(tickets.id, t.mergedIntoId)).limit(1)
    )[0]?.n;
    if (into !== undefined)
      return {
        ...page([], 0, input.limit, input.offset),
        note: `Ticket #${t.number} was merged into #${into}; its messages are there.`,
      };
  }
  return page(
    rows.map((m) => messageOut(m, authors)),
    total,
    input.limit,
    input.offset,
  );
}
