/**
 * Moving cards between columns and within one, and changing many cards in
 * one call. A move names its column by id, name or state group ("In
 * Review", "done"), so an agent never has to look up a workflow transition
 * first, and places the card at the top, the bottom, or before/after another
 * card. WIP limits are checked against the cards already in the column, with
 * the column's row written first so concurrent moves cannot both squeeze in
 * (ordering.ts). A bulk change is all or nothing: one refused card refuses
 * the call and nothing changes.
 */
import { and, eq, lt, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { cardFor, peopleFor, write, type CardRow, type ColumnRow, type ProjectRow, type Q } from "./access";
import { logActivity } from "./activity";
import {
  applyCardChanges,
  assigneeIds,
  cardFacts,
  checkWip,
  columnIn,
  columnOf,
  labelIdsFor,
  labelIdsOf,
  milestoneIn,
  sprintTarget,
} from "./cards";
import { cardMoved } from "./events";
import { park, positionFor, touchColumn, type Place } from "./ordering";
import type { cardBulkInput, cardMoveInput } from "./schemas";
import { cards } from "./tables";

/** Puts `card` at `place` in `to` (WIP already checked by the caller when it enters a new column). */
export async function placeCard(
  tx: Q,
  ctx: ActorContext,
  project: ProjectRow,
  card: CardRow,
  to: ColumnRow,
  place: Place,
  at: Date,
): Promise<CardRow> {
  const from = card.columnId === to.id ? to : await columnOf(tx, card.columnId);
  if (from.id === to.id) await park(tx, card.id);
  const position = await positionFor(tx, to.id, place);
  const entersDone = to.stateGroup === "done" && from.stateGroup !== "done";
  const after = (
    await tx
      .update(cards)
      .set({
        columnId: to.id,
        boardId: to.boardId,
        position,
        completedAt: to.stateGroup === "done" ? (entersDone ? at : card.completedAt) : null,
        updatedAt: at,
      })
      .where(eq(cards.id, card.id))
      .returning()
  )[0]!;
  await logActivity(
    tx,
    { ctx, at },
    after,
    to.stateGroup,
    "moved",
    from.id === to.id ? { reordered: to.name } : { column: [from.name, to.name] },
  );
  await emit(
    tx,
    ctx,
    cardMoved,
    { id: card.id },
    {
      ...cardFacts(project, after),
      fromColumnId: from.id,
      toColumnId: to.id,
      fromStateGroup: from.stateGroup,
      toStateGroup: to.stateGroup,
      completed: entersDone,
      assigneeUserIds: await assigneeIds(tx, card.id),
    },
  );
  return after;
}

async function indexIn(q: Q, columnId: number, position: number): Promise<number> {
  return (
    await q
      .select({ n: sql<number>`count(*)` })
      .from(cards)
      .where(and(eq(cards.columnId, columnId), lt(cards.position, position)))
      .limit(1)
  )[0]!.n;
}

export async function moveCard(ctx: ActorContext, input: v.InferOutput<typeof cardMoveInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.id);
    const anchorRef = input.afterCardId ?? input.beforeCardId;
    if (input.afterCardId !== undefined && input.beforeCardId !== undefined)
      throw invalid("Give afterCardId or beforeCardId, not both.");
    if (anchorRef !== undefined && input.position !== undefined)
      throw invalid("Give position (top/bottom) or afterCardId/beforeCardId, not both.");
    if (input.columnId === undefined && anchorRef === undefined && input.position === undefined)
      throw invalid(
        'Say where to: columnId (id, name or state group such as "done"), and/or position, afterCardId or beforeCardId.',
      );
    const anchor = anchorRef !== undefined ? await cardFor(tx, ctx, anchorRef) : null;
    if (anchor && anchor.card.id === card.id) throw invalid("A card cannot be placed next to itself.");
    if (anchor && anchor.project.id !== project.id) throw invalid(`${anchor.key} is in another project.`);
    let to =
      input.columnId !== undefined
        ? await columnIn(tx, project, card.boardId, input.columnId)
        : anchor
          ? await columnOf(tx, anchor.card.columnId)
          : await columnOf(tx, card.columnId);
    if (anchor && anchor.card.columnId !== to.id)
      throw invalid(
        `${anchor.key} is in another column ("${(await columnOf(tx, anchor.card.columnId)).name}"); place the card next to a card of "${to.name}".`,
      );
    await touchColumn(tx, to.id);
    to = await columnOf(tx, to.id);
    if (card.columnId !== to.id) await checkWip(tx, project, to, 1);
    const place: Place = anchor
      ? input.afterCardId !== undefined
        ? { after: { id: anchor.card.id, position: anchor.card.position } }
        : { before: { id: anchor.card.id, position: anchor.card.position } }
      : input.position === "top"
        ? { top: true }
        : { bottom: true };
    const from = card.columnId;
    const after = await placeCard(tx, ctx, project, card, to, place, at);
    await audit(tx, ctx, "cards.move", {
      type: "card",
      id: card.id,
      detail: { key, fromColumnId: from, toColumnId: to.id },
    });
    return {
      id: card.id,
      key,
      column: to.name,
      columnId: to.id,
      stateGroup: to.stateGroup,
      index: await indexIn(tx, to.id, after.position),
    };
  });
}

export async function bulkUpdateCards(ctx: ActorContext, input: v.InferOutput<typeof cardBulkInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const resolved = [];
    const seen = new Set<number>();
    for (const ref of input.ids) {
      const r = await cardFor(tx, ctx, ref);
      if (!seen.has(r.card.id)) seen.add(r.card.id), resolved.push(r);
    }
    const fieldsGiven = [
      "sprintId",
      "priority",
      "estimate",
      "dueDate",
      "milestoneId",
      "addLabels",
      "removeLabels",
      "addAssignees",
      "removeAssignees",
    ].some((k) => (input as Record<string, unknown>)[k] !== undefined);
    if (input.columnId === undefined && !fieldsGiven)
      throw invalid("Nothing to change: give columnId and/or fields to set.");
    const addPeople = (await peopleFor(tx, ctx, input.addAssignees ?? [])).map((p) => p.id);
    const dropPeople = (await peopleFor(tx, ctx, input.removeAssignees ?? [])).map((p) => p.id);

    // Decide every target column first, so WIP limits are judged for the whole batch.
    const targets = new Map<number, ColumnRow>();
    if (input.columnId !== undefined)
      for (const r of resolved) targets.set(r.card.id, await columnIn(tx, r.project, r.card.boardId, input.columnId));
    const entering = new Map<number, { column: ColumnRow; project: ProjectRow; n: number }>();
    for (const r of resolved) {
      const to = targets.get(r.card.id);
      if (!to || to.id === r.card.columnId) continue;
      const e = entering.get(to.id) ?? { column: to, project: r.project, n: 0 };
      e.n++;
      entering.set(to.id, e);
    }
    for (const e of entering.values()) {
      await touchColumn(tx, e.column.id);
      await checkWip(tx, e.project, e.column, e.n);
    }

    const out = [];
    for (const r of resolved) {
      let card = r.card;
      const set: Parameters<typeof applyCardChanges>[4] = {};
      if (input.sprintId !== undefined)
        set.sprintId = input.sprintId === null ? null : (await sprintTarget(tx, r.project, input.sprintId)).id;
      if (input.priority !== undefined) set.priority = input.priority;
      if (input.estimate !== undefined) set.estimate = input.estimate;
      if (input.dueDate !== undefined) set.dueDate = input.dueDate;
      if (input.milestoneId !== undefined)
        set.milestoneId = input.milestoneId === null ? null : (await milestoneIn(tx, r.project, input.milestoneId)).id;
      let labels: number[] | undefined;
      if (input.addLabels?.length || input.removeLabels?.length) {
        const add = await labelIdsFor(tx, r.project, input.addLabels ?? []);
        const drop = await labelIdsFor(tx, r.project, input.removeLabels ?? []);
        const have = await labelIdsOf(tx, card.id);
        labels = [...new Set([...have, ...add])].filter((l) => !drop.includes(l));
      }
      let assignees: number[] | undefined;
      if (addPeople.length || dropPeople.length) {
        const have = await assigneeIds(tx, card.id);
        assignees = [...new Set([...have, ...addPeople])].filter((u) => !dropPeople.includes(u));
      }
      const changed = await applyCardChanges(tx, ctx, r.project, card, set, { labels, assignees }, at);
      card = changed.card;
      const to = targets.get(card.id);
      const fields = [...changed.changed];
      if (to && to.id !== card.columnId) {
        await placeCard(tx, ctx, r.project, card, to, { bottom: true }, at);
        fields.push("column");
      }
      out.push({ id: card.id, key: r.key, ...(to ? { column: to.name } : {}), changed: fields });
    }
    await audit(tx, ctx, "cards.bulk_update", {
      type: "card",
      detail: { keys: out.map((o) => o.key), columnId: input.columnId ?? null },
    });
    return { updated: out.filter((o) => o.changed.length).length, cards: out };
  });
}
