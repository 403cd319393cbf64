/**
 * Canned responses: saved replies per company, picked by short code
 * (chat_conversations_reply takes cannedId: an id or the short code).
 * "{{name}}" in the content becomes the visitor's first name.
 */
import { and, asc, count, eq, or } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { containsText } from "../../core/sql";
import { chatRead, chatWrite, type Q } from "./access";
import { chatCannedCreated, chatCannedDeleted, chatCannedUpdated } from "./events";
import type { cannedCreateInput, cannedListInput, cannedRef, cannedUpdateInput } from "./schemas";
import { chatCannedResponses } from "./tables";

type Row = typeof chatCannedResponses.$inferSelect;

const out = (r: Row) => ({ id: r.id, shortCode: r.shortCode, content: r.content, updatedAt: iso(r.updatedAt)! });

export async function cannedByRef(q: Q, ctx: ActorContext, ref: number | string): Promise<Row> {
  const row = (
    await q
      .select()
      .from(chatCannedResponses)
      .where(
        and(
          eq(chatCannedResponses.companyId, ctx.company.id),
          typeof ref === "number"
            ? eq(chatCannedResponses.id, ref)
            : eq(chatCannedResponses.shortCode, ref.toLowerCase()),
        ),
      )
      .limit(1)
  )[0];
  if (!row)
    throw notFound(
      `Canned response ${JSON.stringify(ref)} not found in ${ctx.company.name}. See chat_canned_responses_list.`,
    );
  return row;
}

async function codeFree(q: Q, ctx: ActorContext, code: string, except?: number) {
  const taken = (
    await q
      .select({ id: chatCannedResponses.id })
      .from(chatCannedResponses)
      .where(and(eq(chatCannedResponses.companyId, ctx.company.id), eq(chatCannedResponses.shortCode, code)))
      .limit(1)
  )[0];
  if (taken && taken.id !== except)
    throw conflict(`Short code "${code}" is taken by canned response ${taken.id}; pick another or update that one.`);
}

export async function listCanned(ctx: ActorContext, input: v.InferOutput<typeof cannedListInput>) {
  chatRead(ctx);
  const db = ctx.deps.db;
  const cond = and(
    eq(chatCannedResponses.companyId, ctx.company.id),
    input.q !== undefined
      ? or(containsText(chatCannedResponses.shortCode, input.q), containsText(chatCannedResponses.content, input.q))
      : undefined,
  );
  const total = (await db.select({ n: count() }).from(chatCannedResponses).where(cond))[0]!.n;
  const rows = await db
    .select()
    .from(chatCannedResponses)
    .where(cond)
    .orderBy(asc(chatCannedResponses.shortCode))
    .limit(input.limit)
    .offset(input.offset);
  return page(rows.map(out), total, input.limit, input.offset);
}

export async function createCanned(ctx: ActorContext, input: v.InferOutput<typeof cannedCreateInput>) {
  chatWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    await codeFree(tx, ctx, input.shortCode);
    const now = ctx.deps.clock.now();
    const row = (
      await tx
        .insert(chatCannedResponses)
        .values({
          companyId: ctx.company.id,
          shortCode: input.shortCode,
          content: input.content,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "chat.canned_create", { type: "chat_canned_response", id: row.id });
    await emit(tx, ctx, chatCannedCreated, { id: row.id }, { shortCode: row.shortCode });
    return out(row);
  });
}

export async function updateCanned(ctx: ActorContext, input: v.InferOutput<typeof cannedUpdateInput>) {
  chatWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const cur = await cannedByRef(tx, ctx, input.id);
    const set: Partial<Row> = {};
    if (input.shortCode !== undefined && input.shortCode !== cur.shortCode) {
      await codeFree(tx, ctx, input.shortCode, cur.id);
      set.shortCode = input.shortCode;
    }
    if (input.content !== undefined && input.content !== cur.content) set.content = input.content;
    const fields = Object.keys(set);
    if (!fields.length) return out(cur);
    const row = (
      await tx
        .update(chatCannedResponses)
        .set({ ...set, updatedAt: ctx.deps.clock.now() })
        .where(eq(chatCannedResponses.id, cur.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "chat.canned_update", { type: "chat_canned_response", id: row.id, detail: { fields } });
    await emit(tx, ctx, chatCannedUpdated, { id: row.id }, { shortCode: row.shortCode, fields });
    return out(row);
  });
}

export async function deleteCanned(ctx: ActorContext, input: v.InferOutput<typeof cannedRef>) {
  chatWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const cur = await cannedByRef(tx, ctx, input.id);
    await tx.delete(chatCannedResponses).where(eq(chatCannedResponses.id, cur.id));
    await audit(tx, ctx, "chat.canned_delete", { type: "chat_canned_response", id: cur.id });
    await emit(tx, ctx, chatCannedDeleted, { id: cur.id }, { shortCode: cur.shortCode });
    return { id: cur.id, status: "deleted" as const };
  });
}
