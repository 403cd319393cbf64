/**
 * The parts of a card: checklist items, relations (blocks / blocked by /
 * duplicates / relates, with cycle detection), comments with @mentions, and
 * attachments (media items of the company's sites, by id).
 *
 * Mentions: `@priya` (an email's local part, when exactly one member has it)
 * or `@priya@northwind.example` (a full email) names a member of the
 * company; handles that name nobody, or more than one member, are returned
 * as warnings and notify no one.
 */
import { and, asc, eq, inArray, or, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { memberships, users } from "../../core/tables";
import { mediaByIds, mediaOfCompany as companyMedia } from "../cms/media-facts";
import { cardFor, write, type CardRow, type Q } from "./access";
import { logActivity } from "./activity";
import { assigneeIds, cardFacts, columnOf } from "./cards";
import {
  cardAttachmentChanged,
  cardChecklistChanged,
  cardRelationChanged,
  commentCreated,
  commentDeleted,
  commentUpdated,
} from "./events";
import type {
  attachmentInput,
  checklistAddInput,
  checklistUpdateInput,
  commentCreateInput,
  commentUpdateInput,
  relationInput,
  relationRemoveInput,
} from "./schemas";
import {
  cardAttachments,
  cardComments,
  cardRelations,
  cards,
  checklistItems,
  projects,
  type RelationKind,
} from "./tables";

async function touch(tx: Q, card: CardRow, at: Date) {
  await tx.update(cards).set({ updatedAt: at }).where(eq(cards.id, card.id));
}

async function activity(
  tx: Q,
  ctx: ActorContext,
  card: CardRow,
  at: Date,
  action: string,
  detail: Record<string, unknown>,
) {
  const column = await columnOf(tx, card.columnId);
  await logActivity(tx, { ctx, at }, card, column.stateGroup, action, detail);
}

// ---------------------------------------------------------------------------
// Checklists

async function checklistCounts(tx: Q, cardId: number) {
  const rows = await tx
    .select({ done: checklistItems.done })
    .from(checklistItems)
    .where(eq(checklistItems.cardId, cardId));
  return { done: rows.filter((r) => r.done).length, total: rows.length };
}

async function itemFor(tx: Q, ctx: ActorContext, id: number) {
  const row = (
    await tx
      .select({ item: checklistItems, cardId: cards.id })
      .from(checklistItems)
      .innerJoin(cards, eq(cards.id, checklistItems.cardId))
      .where(and(eq(checklistItems.id, id), eq(cards.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Checklist item ${id} not found.`);
  return { item: row.item, ...(await cardFor(tx, ctx, row.cardId)) };
}

export async function addChecklistItems(ctx: ActorContext, input: v.InferOutput<typeof checklistAddInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.cardId);
    const last = (
      await tx
        .select({ p: sql<number>`coalesce(max(${checklistItems.position}), 0)` })
        .from(checklistItems)
        .where(eq(checklistItems.cardId, card.id))
        .limit(1)
    )[0]!.p;
    const rows = await tx
      .insert(checklistItems)
      .values(
        input.items.map((text, i) => ({
          cardId: card.id,
          text: text.trim(),
          position: Number(last) + (i + 1) * 1024,
          createdAt: at,
        })),
      )
      .returning({ id: checklistItems.id, text: checklistItems.text });
    await touch(tx, card, at);
    await activity(tx, ctx, card, at, "checklist", { added: input.items.length });
    const counts = await checklistCounts(tx, card.id);
    await audit(tx, ctx, "cards.checklist_add", { type: "card", id: card.id, detail: { key, items: rows.length } });
    await emit(
      tx,
      ctx,
      cardChecklistChanged,
      { id: card.id },
      {
        ...cardFacts(project, card),
        action: "added",
        item: rows
          .map((r) => r.text)
          .join("; ")
          .slice(0, 300),
        ...counts,
      },
    );
    return { cardId: card.id, key, items: rows, ...counts };
  });
}

export async function updateChecklistItem(ctx: ActorContext, input: v.InferOutput<typeof checklistUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { item, card, project, key } = await itemFor(tx, ctx, input.id);
    const set: Partial<typeof checklistItems.$inferInsert> = {};
    if (input.text !== undefined) set.text = input.text.trim();
    if (input.done !== undefined && input.done !== item.done) {
      set.done = input.done;
      set.doneAt = input.done ? at : null;
      set.doneByUserId = input.done ? ctx.principal.userId : null;
    }
    if (input.index !== undefined) {
      const others = (
        await tx
          .select({ id: checklistItems.id })
          .from(checklistItems)
          .where(eq(checklistItems.cardId, card.id))
          .orderBy(asc(checklistItems.position), asc(checklistItems.id))
      ).filter((r) => r.id !== item.id);
      others.splice(Math.min(input.index, others.length), 0, { id: item.id });
      // Checklists are short: renumber the whole list.
      for (let i = 0; i < others.length; i++)
        if (others[i]!.id !== item.id)
          await tx
            .update(checklistItems)
            .set({ position: (i + 1) * 1024 })
            .where(eq(checklistItems.id, others[i]!.id));
      set.position = (others.findIndex((o) => o.id === item.id) + 1) * 1024;
    }
    if (Object.keys(set).length) await tx.update(checklistItems).set(set).where(eq(checklistItems.id, item.id));
    await touch(tx, card, at);
    const counts = await checklistCounts(tx, card.id);
    await activity(tx, ctx, card, at, "checklist", {
      item: item.text,
      ...(set.done !== undefined ? { done: set.done } : {}),
      ...(set.text ? { text: [item.text, set.text] } : {}),
    });
    await audit(tx, ctx, "cards.checklist_update", { type: "card", id: card.id, detail: { key, itemId: item.id } });
    await emit(
      tx,
      ctx,
      cardChecklistChanged,
      { id: card.id },
      { ...cardFacts(project, card), action: "updated", item: set.text ?? item.text, ...counts },
    );
    return { id: item.id, cardKey: key, text: set.text ?? item.text, done: set.done ?? item.done, checklist: counts };
  });
}

export async function deleteChecklistItem(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { item, card, project, key } = await itemFor(tx, ctx, input.id);
    await tx.delete(checklistItems).where(eq(checklistItems.id, item.id));
    await touch(tx, card, at);
    const counts = await checklistCounts(tx, card.id);
    await activity(tx, ctx, card, at, "checklist", { removed: item.text });
    await audit(tx, ctx, "cards.checklist_delete", { type: "card", id: card.id, detail: { key, itemId: item.id } });
    await emit(
      tx,
      ctx,
      cardChecklistChanged,
      { id: card.id },
      { ...cardFacts(project, card), action: "deleted", item: item.text, ...counts },
    );
    return { id: item.id, status: "deleted", cardKey: key, ...counts };
  });
}

// ---------------------------------------------------------------------------
// Relations

/** Stored direction and kind for what the caller said from `cardId`'s side. */
function stored(
  kind: typeof import("./schemas").RELATION_INPUTS[number],
  a: number,
  b: number,
): { from: number; to: number; kind: RelationKind } {
  if (kind === "blocked_by") return { from: b, to: a, kind: "blocks" };
  if (kind === "duplicated_by") return { from: b, to: a, kind: "duplicates" };
  if (kind === "relates") return { from: Math.min(a, b), to: Math.max(a, b), kind: "relates" };
  return { from: a, to: b, kind };
}

/** The path from `start` to `goal` along `kind` edges, if any (breadth first, bounded). */
async function pathAlong(tx: Q, kind: RelationKind, start: number, goal: number): Promise<number[] | null> {
  const prev = new Map<number, number>([[start, start]]);
  let frontier = [start];
  for (let steps = 0; frontier.length && steps < 10_000; steps++) {
    const edges = await tx
      .select({ from: cardRelations.fromCardId, to: cardRelations.toCardId })
      .from(cardRelations)
      .where(and(eq(cardRelations.kind, kind), inArray(cardRelations.fromCardId, frontier)));
    const next: number[] = [];
    for (const e of edges) {
      if (prev.has(e.to)) continue;
      prev.set(e.to, e.from);
      if (e.to === goal) {
        const path = [goal];
        for (let c = goal; c !== start; ) path.unshift((c = prev.get(c)!));
        return path;
      }
      next.push(e.to);
    }
    frontier = next;
  }
  return null;
}

async function keysOf(tx: Q, ids: number[]): Promise<string[]> {
  const rows = await tx
    .select({ id: cards.id, number: cards.number, key: projects.key })
    .from(cards)
    .innerJoin(projects, eq(projects.id, cards.projectId))
    .where(inArray(cards.id, ids));
  const m = new Map(rows.map((r) => [r.id, `${r.key}-${r.number}`]));
  return ids.map((i) => m.get(i) ?? String(i));
}

export async function addRelation(ctx: ActorContext, input: v.InferOutput<typeof relationInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const a = await cardFor(tx, ctx, input.cardId);
    const b = await cardFor(tx, ctx, input.otherCardId);
    if (a.card.id === b.card.id) throw invalid("A card cannot relate to itself.");
    const s = stored(input.kind, a.card.id, b.card.id);
    const dup = (
      await tx
        .select({ id: cardRelations.id })
        .from(cardRelations)
        .where(
          and(eq(cardRelations.fromCardId, s.from), eq(cardRelations.toCardId, s.to), eq(cardRelations.kind, s.kind)),
        )
        .limit(1)
    )[0];
    if (dup) return { cardKey: a.key, kind: input.kind, otherCardKey: b.key, status: "exists" };
    if (s.kind !== "relates") {
      // Adding from → to closes a cycle exactly when `to` already reaches `from`.
      const loop = await pathAlong(tx, s.kind, s.to, s.from);
      if (loop) {
        const keys = await keysOf(tx, [...loop, s.to]);
        throw conflict(
          `That would make a ${s.kind} cycle: ${keys.join(` ${s.kind} `)}. Remove one of those relations first.`,
        );
      }
    }
    await tx.insert(cardRelations).values({ fromCardId: s.from, toCardId: s.to, kind: s.kind, createdAt: at });
    const [fromKey, toKey] = await keysOf(tx, [s.from, s.to]);
    for (const side of [a, b]) {
      await touch(tx, side.card, at);
      await activity(tx, ctx, side.card, at, "relation", { added: `${fromKey} ${s.kind} ${toKey}` });
    }
    await audit(tx, ctx, "cards.relation_add", {
      type: "card",
      id: a.card.id,
      detail: { from: fromKey, kind: s.kind, to: toKey },
    });
    await emit(
      tx,
      ctx,
      cardRelationChanged,
      { id: a.card.id },
      { ...cardFacts(a.project, a.card), action: "added", kind: s.kind, fromKey: fromKey!, toKey: toKey! },
    );
    return { cardKey: a.key, kind: input.kind, otherCardKey: b.key, status: "added" };
  });
}

export async function removeRelation(ctx: ActorContext, input: v.InferOutput<typeof relationRemoveInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const a = await cardFor(tx, ctx, input.cardId);
    const b = await cardFor(tx, ctx, input.otherCardId);
    const pair = or(
      and(eq(cardRelations.fromCardId, a.card.id), eq(cardRelations.toCardId, b.card.id)),
      and(eq(cardRelations.fromCardId, b.card.id), eq(cardRelations.toCardId, a.card.id)),
    );
    const s = input.kind ? stored(input.kind, a.card.id, b.card.id) : null;
    const rows = await tx
      .select()
      .from(cardRelations)
      .where(
        s
          ? and(eq(cardRelations.fromCardId, s.from), eq(cardRelations.toCardId, s.to), eq(cardRelations.kind, s.kind))
          : pair,
      );
    if (!rows.length)
      throw notFound(`${a.key} and ${b.key} have no ${input.kind ?? ""} relation`.replace("  ", " ") + ".");
    await tx.delete(cardRelations).where(
      inArray(
        cardRelations.id,
        rows.map((r) => r.id),
      ),
    );
    for (const r of rows) {
      const [fromKey, toKey] = await keysOf(tx, [r.fromCardId, r.toCardId]);
      await emit(
        tx,
        ctx,
        cardRelationChanged,
        { id: a.card.id },
        { ...cardFacts(a.project, a.card), action: "removed", kind: r.kind, fromKey: fromKey!, toKey: toKey! },
      );
    }
    for (const side of [a, b]) {
      await touch(tx, side.card, at);
      await activity(tx, ctx, side.card, at, "relation", { removed: rows.map((r) => r.kind) });
    }
    await audit(tx, ctx, "cards.relation_remove", {
      type: "card",
      id: a.card.id,
      detail: { other: b.key, kinds: rows.map((r) => r.kind) },
    });
    return { cardKey: a.key, otherCardKey: b.key, removed: rows.length, status: "deleted" };
  });
}

// ---------------------------------------------------------------------------
// Comments

const HANDLE = /(^|[^\w.@])@([A-Za-z0-9._%+-]+(?:@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+)?)/g;

/** Members a comment @mentions, and the handles that named nobody (or more than one member). */
export async function mentionsIn(
  q: Q,
  ctx: ActorContext,
  body: string,
): Promise<{ userIds: number[]; warnings: string[] }> {
  const handles = [...new Set([...body.matchAll(HANDLE)].map((m) => m[2]!.replace(/[.]+$/, "").toLowerCase()))].slice(
    0,
    50,
  );
  if (!handles.length) return { userIds: [], warnings: [] };
  const members = await q
    .select({ id: users.id, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.companyId, ctx.company.id));
  const userIds: number[] = [];
  const warnings: string[] = [];
  for (const h of handles) {
    const hits = h.includes("@")
      ? members.filter((m) => m.email === h)
      : members.filter((m) => m.email.split("@")[0] === h);
    if (hits.length === 1) {
      if (!userIds.includes(hits[0]!.id)) userIds.push(hits[0]!.id);
    } else if (hits.length > 1) warnings.push(`@${h} matches ${hits.length} members; mention them by full email.`);
    else if (h.includes("@") || !/^\d/.test(h))
      warnings.push(`@${h} is not a member of ${ctx.company.name}; nobody was notified for it.`);
  }
  return { userIds, warnings };
}

const excerpt = (s: string) => (s.length > 200 ? `${s.slice(0, 197)}…` : s);

async function commentFor(tx: Q, ctx: ActorContext, id: number) {
  const row = (
    await tx
      .select({ comment: cardComments })
      .from(cardComments)
      .innerJoin(cards, eq(cards.id, cardComments.cardId))
      .where(and(eq(cardComments.id, id), eq(cards.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Comment ${id} not found.`);
  return { comment: row.comment, ...(await cardFor(tx, ctx, row.comment.cardId)) };
}

export async function createComment(ctx: ActorContext, input: v.InferOutput<typeof commentCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.cardId);
    const { userIds, warnings } = await mentionsIn(tx, ctx, input.body);
    const c = (
      await tx
        .insert(cardComments)
        .values({
          cardId: card.id,
          authorUserId: ctx.principal.userId,
          body: input.body,
          mentionedUserIds: userIds,
          createdAt: at,
        })
        .returning()
    )[0]!;
    await touch(tx, card, at);
    await activity(tx, ctx, card, at, "comment", { commentId: c.id });
    await audit(tx, ctx, "cards.comment", { type: "comment", id: c.id, detail: { key } });
    await emit(
      tx,
      ctx,
      commentCreated,
      { id: c.id },
      {
        ...cardFacts(project, card),
        cardId: card.id,
        authorUserId: ctx.principal.userId,
        excerpt: excerpt(input.body),
        mentionedUserIds: userIds,
        assigneeUserIds: await assigneeIds(tx, card.id),
      },
    );
    return { id: c.id, cardKey: key, mentionedUserIds: userIds, ...(warnings.length ? { warnings } : {}) };
  });
}

export async function updateComment(ctx: ActorContext, input: v.InferOutput<typeof commentUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { comment, card, project, key } = await commentFor(tx, ctx, input.id);
    if (comment.authorUserId !== ctx.principal.userId && ctx.company.role !== "owner")
      throw forbidden("Only the comment's author (or an owner) can edit it; post a new comment instead.");
    const { userIds, warnings } = await mentionsIn(tx, ctx, input.body);
    await tx
      .update(cardComments)
      .set({ body: input.body, mentionedUserIds: userIds, editedAt: at })
      .where(eq(cardComments.id, comment.id));
    await audit(tx, ctx, "cards.comment_update", { type: "comment", id: comment.id, detail: { key } });
    const fresh = userIds.filter((u) => !comment.mentionedUserIds.includes(u));
    await emit(
      tx,
      ctx,
      commentUpdated,
      { id: comment.id },
      {
        ...cardFacts(project, card),
        cardId: card.id,
        excerpt: excerpt(input.body),
        mentionedUserIds: userIds,
        newlyMentionedUserIds: fresh,
      },
    );
    return { id: comment.id, cardKey: key, mentionedUserIds: userIds, ...(warnings.length ? { warnings } : {}) };
  });
}

export async function deleteComment(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { comment, card, project, key } = await commentFor(tx, ctx, input.id);
    if (comment.authorUserId !== ctx.principal.userId && ctx.company.role !== "owner")
      throw forbidden("Only the comment's author (or an owner) can delete it.");
    await tx.delete(cardComments).where(eq(cardComments.id, comment.id));
    await activity(tx, ctx, card, at, "comment", { deleted: comment.id });
    await audit(tx, ctx, "cards.comment_delete", { type: "comment", id: comment.id, detail: { key } });
    await emit(tx, ctx, commentDeleted, { id: comment.id }, { ...cardFacts(project, card), cardId: card.id });
    return { id: comment.id, status: "deleted", cardKey: key };
  });
}

// ---------------------------------------------------------------------------
// Attachments

async function mediaOfCompany(tx: Q, ctx: ActorContext, mediaId: number) {
  const m = (await companyMedia(tx, ctx.company.id, [mediaId]))[0];
  if (!m)
    throw notFound(`Media ${mediaId} not found in ${ctx.company.name}'s sites (upload it with media_upload first).`);
  return m;
}

export async function addAttachment(ctx: ActorContext, input: v.InferOutput<typeof attachmentInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.cardId);
    const m = await mediaOfCompany(tx, ctx, input.mediaId);
    const had = (
      await tx
        .select({ id: cardAttachments.id })
        .from(cardAttachments)
        .where(and(eq(cardAttachments.cardId, card.id), eq(cardAttachments.mediaId, m.id)))
        .limit(1)
    )[0];
    if (had) return { cardKey: key, mediaId: m.id, filename: m.filename, status: "exists" };
    await tx
      .insert(cardAttachments)
      .values({ cardId: card.id, mediaId: m.id, addedByUserId: ctx.principal.userId, createdAt: at });
    await touch(tx, card, at);
    await activity(tx, ctx, card, at, "attachment", { added: m.filename, mediaId: m.id });
    await audit(tx, ctx, "cards.attachment_add", { type: "card", id: card.id, detail: { key, mediaId: m.id } });
    await emit(
      tx,
      ctx,
      cardAttachmentChanged,
      { id: card.id },
      { ...cardFacts(project, card), action: "added", mediaId: m.id, filename: m.filename },
    );
    return { cardKey: key, mediaId: m.id, filename: m.filename, url: m.url, status: "added" };
  });
}

export async function removeAttachment(ctx: ActorContext, input: v.InferOutput<typeof attachmentInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.cardId);
    const attached = (
      await tx
        .select({ id: cardAttachments.id })
        .from(cardAttachments)
        .where(and(eq(cardAttachments.cardId, card.id), eq(cardAttachments.mediaId, input.mediaId)))
        .limit(1)
    )[0];
    const file = attached && (await mediaByIds(tx, [input.mediaId])).get(input.mediaId);
    if (!attached || !file) throw notFound(`Media ${input.mediaId} is not attached to ${key}.`);
    const row = { id: attached.id, filename: file.filename };
    await tx.delete(cardAttachments).where(eq(cardAttachments.id, row.id));
    await touch(tx, card, at);
    await activity(tx, ctx, card, at, "attachment", { removed: row.filename, mediaId: input.mediaId });
    await audit(tx, ctx, "cards.attachment_remove", {
      type: "card",
      id: card.id,
      detail: { key, mediaId: input.mediaId },
    });
    await emit(
      tx,
      ctx,
      cardAttachmentChanged,
      { id: card.id },
      { ...cardFacts(project, card), action: "removed", mediaId: input.mediaId, filename: row.filename },
    );
    return { cardKey: key, mediaId: input.mediaId, status: "deleted" };
  });
}
