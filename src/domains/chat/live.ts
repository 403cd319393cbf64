/**
 * Real time for agents over MCP: chat_messages_wait is a long poll. It
 * answers at once when messages newer than `after` exist, otherwise as soon
 * as one is written (on this instance or, on PostgreSQL, another: the hub
 * hears of it through the change feed), or after timeoutSeconds with none.
 * The answer's cursor goes into the next call's `after`, so an agent loop
 * misses nothing between calls: the database, not the wake-up, is the record.
 */
import { and, asc, eq, gt, max } from "drizzle-orm";
import type * as v from "valibot";
import type { ActorContext } from "../../core/context";
import { chatRead, inboxById, messageOut, usersById } from "./access";
import { hubFor } from "./hub";
import type { waitInput } from "./schemas";
import { chatConversations, chatMessages, chatVisitors } from "./tables";

const MAX_ROWS = 100;

export async function waitMessages(ctx: ActorContext, input: v.InferOutput<typeof waitInput>) {
  chatRead(ctx);
  const db = ctx.deps.db;
  if (input.inboxId !== undefined) await inboxById(db, ctx, input.inboxId);
  const scope = and(
    eq(chatMessages.companyId, ctx.company.id),
    input.inboxId !== undefined ? eq(chatConversations.inboxId, input.inboxId) : undefined,
  );
  if (input.after === undefined) {
    const top =
      (
        await db
          .select({ m: max(chatMessages.id) })
          .from(chatMessages)
          .innerJoin(chatConversations, eq(chatConversations.id, chatMessages.conversationId))
          .where(scope)
      )[0]?.m ?? 0;
    return { cursor: top, messages: [], note: "Pass cursor as after to wait for new messages." };
  }
  const read = () =>
    db
      .select({
        m: chatMessages,
        number: chatConversations.number,
        status: chatConversations.status,
        visitorName: chatVisitors.name,
        visitorEmail: chatVisitors.email,
      })
      .from(chatMessages)
      .innerJoin(chatConversations, eq(chatConversations.id, chatMessages.conversationId))
      .innerJoin(chatVisitors, eq(chatVisitors.id, chatConversations.visitorId))
      .where(and(scope, gt(chatMessages.id, input.after!)))
      .orderBy(asc(chatMessages.id))
      .limit(MAX_ROWS);
  // Listen before reading: a message written between the read and the wait still wakes us.
  const stop = new AbortController();
  const hub = hubFor(ctx.deps);
  const woken = hub.waitCompany(ctx.company.id, input.timeoutSeconds * 1000, stop.signal);
  await hub.ready;
  let rows = await read();
  if (!rows.length && input.timeoutSeconds > 0) {
    await woken;
    rows = await read();
  }
  stop.abort();
  const authors = await usersById(
    db,
    rows.map((r) => r.m.userId),
  );
  return {
    cursor: rows.length ? rows[rows.length - 1]!.m.id : input.after,
    messages: rows.map((r) => ({
      ...messageOut(r.m, authors, r.number),
      conversationStatus: r.status,
      visitor: { name: r.visitorName, email: r.visitorEmail },
    })),
  };
}
