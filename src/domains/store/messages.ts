/**
 * Customer messages: threads a customer started (recorded here when they
 * arrive by mail, form or phone), staff replies, and open/closed status.
 * A closed thread takes no replies until it is reopened, so a reply is never
 * sent into a conversation someone has already wrapped up.
 */
import { and, asc, desc, eq, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { mutate, storeRead, storeWrite, type Q } from "./access";
import type { messageCreateInput, messageListInput, messageRef, messageReplyInput } from "./schemas";
import { customerMessageReplies, customerMessages, customers } from "./tables";

type MessageRow = typeof customerMessages.$inferSelect;

async function messageInSite(q: Q, siteId: number, id: number): Promise<MessageRow> {
  const m = (
    await q
      .select()
      .from(customerMessages)
      .where(and(eq(customerMessages.id, id), eq(customerMessages.siteId, siteId)))
      .limit(1)
  )[0];
  if (!m) throw notFound(`Customer message ${id} not found on site ${siteId}.`);
  return m;
}

export async function createMessage(ctx: ActorContext, input: v.InferOutput<typeof messageCreateInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  const email = input.email.trim().toLowerCase();
  return mutate(ctx, input.siteId, async (tx) => {
    const customer = (
      await tx
        .select({ id: customers.id })
        .from(customers)
        .where(and(eq(customers.siteId, input.siteId), eq(customers.email, email)))
        .limit(1)
    )[0];
    const m = (
      await tx
        .insert(customerMessages)
        .values({
          siteId: input.siteId,
          customerId: customer?.id ?? null,
          email,
          subject: input.subject.trim(),
          status: "open",
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    await tx
      .insert(customerMessageReplies)
      .values({ messageId: m.id, author: "customer", userId: null, body: input.body, createdAt: now });
    await audit(tx, ctx, "customer_messages.create", { type: "customer_message", id: m.id, siteId: input.siteId });
    return { id: m.id, status: m.status, customerId: m.customerId };
  });
}

export async function replyToMessage(ctx: ActorContext, input: v.InferOutput<typeof messageReplyInput>) {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const m = await messageInSite(tx, input.siteId, input.id);
    if (m.status === "closed")
      throw conflict(`Message ${m.id} is closed; reopen it with customer_messages_reopen before replying.`);
    const r = (
      await tx
        .insert(customerMessageReplies)
        .values({ messageId: m.id, author: "staff", userId: ctx.principal.userId, body: input.body, createdAt: now })
        .returning()
    )[0];
    await tx.update(customerMessages).set({ updatedAt: now }).where(eq(customerMessages.id, m.id));
    await audit(tx, ctx, "customer_messages.reply", {
      type: "customer_message",
      id: m.id,
      siteId: input.siteId,
      detail: { replyId: r.id },
    });
    return { id: m.id, replyId: r.id, status: m.status };
  });
}

async function setStatus(ctx: ActorContext, input: v.InferOutput<typeof messageRef>, status: "open" | "closed") {
  await storeWrite(ctx, input.siteId);
  const now = ctx.deps.clock.now();
  return mutate(ctx, input.siteId, async (tx) => {
    const m = await messageInSite(tx, input.siteId, input.id);
    if (m.status !== status) {
      await tx.update(customerMessages).set({ status, updatedAt: now }).where(eq(customerMessages.id, m.id));
      await audit(tx, ctx, status === "closed" ? "customer_messages.close" : "customer_messages.reopen", {
        type: "customer_message",
        id: m.id,
        siteId: input.siteId,
      });
    }
    return { id: m.id, status, previousStatus: m.status };
  });
}

export const closeMessage = async (ctx: ActorContext, input: v.InferOutput<typeof messageRef>) =>
  await setStatus(ctx, input, "closed");
export const reopenMessage = async (ctx: ActorContext, input: v.InferOutput<typeof messageRef>) =>
  await setStatus(ctx, input, "open");

export async function getMessage(ctx: ActorContext, input: v.InferOutput<typeof messageRef>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const m = await messageInSite(db, input.siteId, input.id);
  const replies = await db
    .select()
    .from(customerMessageReplies)
    .where(eq(customerMessageReplies.messageId, m.id))
    .orderBy(asc(customerMessageReplies.createdAt), asc(customerMessageReplies.id));
  return {
    id: m.id,
    email: m.email,
    customerId: m.customerId,
    subject: m.subject,
    status: m.status,
    createdAt: iso(m.createdAt)!,
    updatedAt: iso(m.updatedAt)!,
    replies: replies.map((r) => ({
      id: r.id,
      author: r.author,
      userId: r.userId,
      body: r.body,
      createdAt: iso(r.createdAt)!,
    })),
  };
}

export async function listMessages(ctx: ActorContext, input: v.InferOutput<typeof messageListInput>) {
  await storeRead(ctx, input.siteId);
  const db = ctx.deps.db;
  const where = and(
    eq(customerMessages.siteId, input.siteId),
    input.status ? eq(customerMessages.status, input.status) : undefined,
  );
  const total = (await db.select({ n: sql<number>`count(*)` }).from(customerMessages).where(where).limit(1))[0]!.n;
  const rows = await db
    .select({
      m: customerMessages,
      // Spelled out: drizzle leaves columns unqualified inside sql``, which a correlated subquery cannot afford.
      replies: sql<number>`(select count(*) from customer_message_replies r where r.message_id = ${customerMessages}.id)`,
      lastAuthor: sql<
        string | null
      >`(select r.author from customer_message_replies r where r.message_id = ${customerMessages}.id order by r.id desc limit 1)`,
    })
    .from(customerMessages)
    .where(where)
    .orderBy(desc(customerMessages.updatedAt), desc(customerMessages.id))
    .limit(input.limit)
    .offset(input.offset);
  const items = rows.map(({ m, replies, lastAuthor }) => ({
    id: m.id,
    email: m.email,
    customerId: m.customerId,
    subject: m.subject,
    status: m.status,
    messages: replies,
    awaitingReply: m.status === "open" && lastAuthor === "customer",
    updatedAt: iso(m.updatedAt)!,
  }));
  return page(items, total, input.limit, input.offset);
}
