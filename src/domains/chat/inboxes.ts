/**
 * Inboxes: one per widget. An inbox belongs to a site (its branding styles
 * the widget; its domains are the default allowed origins) and carries the
 * greeting, the away message, business hours and the origins allowed to
 * embed it. Deleting one deletes its conversations (the tool says how many).
 */
import { and, asc, count, eq } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { randomHex } from "../../core/secrets";
import { siteForActor } from "../sites/access";
import { chatRead, chatWrite, checkHours, availability, inboxById, type InboxRow } from "./access";
import { chatInboxCreated, chatInboxDeleted, chatInboxUpdated } from "./events";
import type { inboxCreateInput, inboxListInput, inboxRef, inboxUpdateInput } from "./schemas";
import { chatAttachments, chatConversations, chatInboxes } from "./tables";
import { forgetFiles } from "../tickets/files";

export const DEFAULT_GREETING = "Hi! Ask us anything — we usually reply within a few minutes.";

export function embedSnippet(deps: Pick<Deps, "config">, key: string): string {
  return `<script src="${deps.config.publicUrl}/chat/widget.js" data-inbox="${key}" async></script>`;
}

export function inboxOut(deps: Deps, r: InboxRow) {
  return {
    id: r.id,
    siteId: r.siteId,
    name: r.name,
    greeting: r.greeting,
    awayMessage: r.awayMessage,
    allowedOrigins: r.allowedOrigins,
    businessHours: r.businessHours,
    enabled: r.enabled,
    widgetKey: r.widgetKey,
    embed: embedSnippet(deps, r.widgetKey),
    ...availability(r.businessHours, deps.clock.now().getTime()),
    createdAt: iso(r.createdAt)!,
  };
}

export async function listInboxes(ctx: ActorContext, input: v.InferOutput<typeof inboxListInput>) {
  chatRead(ctx);
  if (input.siteId !== undefined) await siteForActor(ctx, input.siteId);
  const cond = and(
    eq(chatInboxes.companyId, ctx.company.id),
    input.siteId !== undefined ? eq(chatInboxes.siteId, input.siteId) : undefined,
  );
  const total = (await ctx.deps.db.select({ n: count() }).from(chatInboxes).where(cond))[0]!.n;
  const rows = await ctx.deps.db
    .select()
    .from(chatInboxes)
    .where(cond)
    .orderBy(asc(chatInboxes.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    rows.map((r) => inboxOut(ctx.deps, r)),
    total,
    input.limit,
    input.offset,
  );
}

export async function getInbox(ctx: ActorContext, input: v.InferOutput<typeof inboxRef>) {
  chatRead(ctx);
  const r = await inboxById(ctx.deps.db, ctx, input.id);
  const conversations = await ctx.deps.db
    .select({ status: chatConversations.status, n: count() })
    .from(chatConversations)
    .where(eq(chatConversations.inboxId, r.id))
    .groupBy(chatConversations.status);
  return { ...inboxOut(ctx.deps, r), conversations: Object.fromEntries(conversations.map((c) => [c.status, c.n])) };
}

export async function createInbox(ctx: ActorContext, input: v.InferOutput<typeof inboxCreateInput>) {
  chatWrite(ctx);
  checkHours(input.businessHours);
  return ctx.deps.db.transaction(async (tx) => {
    const site = await siteForActor(ctx, input.siteId);
    const now = ctx.deps.clock.now();
    const row = (
      await tx
        .insert(chatInboxes)
        .values({
          companyId: ctx.company.id,
          siteId: site.id,
          name: input.name,
          greeting: input.greeting ?? DEFAULT_GREETING,
          awayMessage: input.awayMessage ?? null,
          widgetKey: `ci_${randomHex(12)}`,
          allowedOrigins: [...new Set(input.allowedOrigins ?? [])],
          businessHours: input.businessHours ?? null,
          enabled: input.enabled ?? true,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "chat.inbox_create", { type: "chat_inbox", id: row.id, siteId: site.id });
    await emit(
      tx,
      ctx,
      chatInboxCreated,
      { id: row.id, siteId: site.id },
      { name: row.name, siteId: site.id, enabled: row.enabled },
    );
    return inboxOut(ctx.deps, row);
  });
}

export async function updateInbox(ctx: ActorContext, input: v.InferOutput<typeof inboxUpdateInput>) {
  chatWrite(ctx);
  checkHours(input.businessHours);
  return ctx.deps.db.transaction(async (tx) => {
    const cur = await inboxById(tx, ctx, input.id);
    const set: Partial<InboxRow> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.greeting !== undefined) set.greeting = input.greeting;
    if (input.awayMessage !== undefined) set.awayMessage = input.awayMessage;
    if (input.allowedOrigins !== undefined) set.allowedOrigins = [...new Set(input.allowedOrigins)];
    if (input.businessHours !== undefined) set.businessHours = input.businessHours;
    if (input.enabled !== undefined) set.enabled = input.enabled;
    const fields = Object.keys(set);
    if (!fields.length) return inboxOut(ctx.deps, cur);
    const row = (
      await tx
        .update(chatInboxes)
        .set({ ...set, updatedAt: ctx.deps.clock.now() })
        .where(eq(chatInboxes.id, cur.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "chat.inbox_update", {
      type: "chat_inbox",
      id: row.id,
      siteId: row.siteId,
      detail: { fields },
    });
    await emit(
      tx,
      ctx,
      chatInboxUpdated,
      { id: row.id, siteId: row.siteId },
      { name: row.name, siteId: row.siteId, enabled: row.enabled, fields },
    );
    return inboxOut(ctx.deps, row);
  });
}

export async function deleteInbox(ctx: ActorContext, input: v.InferOutput<typeof inboxRef>) {
  chatWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const cur = await inboxById(tx, ctx, input.id);
    const n = (await tx.select({ n: count() }).from(chatConversations).where(eq(chatConversations.inboxId, cur.id)))[0]!
      .n;
    // Their files' bytes go too, unless a ticket (a chat turned into one) still holds them.
    const keys = (
      await tx
        .select({ key: chatAttachments.storageKey })
        .from(chatAttachments)
        .innerJoin(chatConversations, eq(chatConversations.id, chatAttachments.conversationId))
        .where(eq(chatConversations.inboxId, cur.id))
        .groupBy(chatAttachments.storageKey)
    ).map((r) => r.key);
    await tx.delete(chatInboxes).where(eq(chatInboxes.id, cur.id));
    await forgetFiles(tx, ctx.deps, keys);
    await audit(tx, ctx, "chat.inbox_delete", {
      type: "chat_inbox",
      id: cur.id,
      siteId: cur.siteId,
      detail: { conversations: n },
    });
    await emit(
      tx,
      ctx,
      chatInboxDeleted,
      { id: cur.id, siteId: cur.siteId },
      { name: cur.name, siteId: cur.siteId, enabled: cur.enabled, conversations: n },
    );
    return { id: cur.id, status: "deleted" as const, conversationsDeleted: n };
  });
}
