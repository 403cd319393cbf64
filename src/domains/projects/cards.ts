/**
 * Cards: create, read, update, delete, list and search. Moves and bulk
 * changes are in moves.ts; checklists, relations, comments and attachments
 * in card-parts.ts. Every write checks the cross-entity rules here, in the
 * verb: assignees are members of the company, labels belong to the card's
 * project, a parent is a card of the same project (and no cycle), a sprint
 * holds only cards of its project, a milestone is the project's.
 *
 * @public Serves brain (its project lookups list cards with the projects'
 * verbs).
 */
import { and, asc, desc, eq, exists, gte, inArray, isNull, lte, not, or, sql, type SQL } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { asciiLower, byText, containsText } from "../../core/sql";
import { users } from "../../core/tables";
import { mediaByIds } from "../cms/media-facts";
import {
  boardFor,
  cardFor,
  cardKey,
  columnFor,
  dateIn,
  namesOf,
  peopleFor,
  projectFor,
  readAccess,
  sprintFor,
  write,
  type CardRow,
  type ColumnRow,
  type ProjectRow,
  type Q,
} from "./access";
import { activityOf, logActivity } from "./activity";
import { cardAssigned, cardCreated, cardDeleted, cardUnassigned, cardUpdated } from "./events";
import { positionFor, touchColumn, type Place } from "./ordering";
import {
  CARD_KEY,
  type CardRef,
  type cardCreateInput,
  type cardGetInput,
  type cardListInput,
  type cardUpdateInput,
  type UserRef,
} from "./schemas";
import {
  boardColumns,
  boards,
  cardAssignees,
  cardAttachments,
  cardComments,
  cardLabels,
  cardRelations,
  cards,
  checklistItems,
  milestones,
  projectLabels,
  projects,
  sprints,
  timeLogs,
  PRIORITY_NAMES,
  type StateGroup,
} from "./tables";

export { PRIORITY_NAMES };

/** What a card event says about the card (events.ts `card`). */
export const cardFacts = (project: ProjectRow, card: CardRow) => ({
  projectId: project.id,
  projectKey: project.key,
  projectName: project.name,
  key: cardKey(project, card),
  title: card.title,
});

export async function assigneeIds(q: Q, cardId: number): Promise<number[]> {
  return (
    await q
      .select({ u: cardAssignees.userId })
      .from(cardAssignees)
      .where(eq(cardAssignees.cardId, cardId))
      .orderBy(asc(cardAssignees.userId))
  ).map((r) => r.u);
}

export async function columnOf(q: Q, columnId: number): Promise<ColumnRow> {
  return (await q.select().from(boardColumns).where(eq(boardColumns.id, columnId)).limit(1))[0]!;
}

/**
 * A column of the project named by id, name or state group. Names and
 * groups are looked up on `boardId` (the card's board), else on the
 * project's first board; an id may name a column of any board of the project.
 */
export async function columnIn(
  q: Q,
  project: ProjectRow,
  boardId: number | null,
  ref: number | string,
): Promise<ColumnRow> {
  if (typeof ref === "number") {
    const c = (
      await q
        .select()
        .from(boardColumns)
        .where(and(eq(boardColumns.id, ref), eq(boardColumns.projectId, project.id)))
        .limit(1)
    )[0];
    if (!c) throw notFound(`Column ${ref} is not a column of project ${project.key}.`);
    return c;
  }
  const board = boardId ?? (await firstBoard(q, project)).id;
  const cols = await q
    .select()
    .from(boardColumns)
    .where(eq(boardColumns.boardId, board))
    .orderBy(asc(boardColumns.position));
  const want = asciiLower(ref.trim());
  const c = cols.find((x) => asciiLower(x.name) === want) ?? cols.find((x) => x.stateGroup === want);
  if (!c)
    throw invalid(
      `No column "${ref.slice(0, 60)}" on this board; its columns: ${cols.map((x) => `${x.id} "${x.name}" (${x.stateGroup})`).join(", ")}.`,
    );
  return c;
}

export async function firstBoard(q: Q, project: ProjectRow) {
  const b = (
    await q
      .select()
      .from(boards)
      .where(eq(boards.projectId, project.id))
      .orderBy(asc(boards.position), asc(boards.id))
      .limit(1)
  )[0];
  if (!b) throw conflict(`Project ${project.key} has no board; create one with boards_create.`);
  return b;
}

/** Label ids of the project for ids or names; a label of another project is refused, naming the project's labels. */
export async function labelIdsFor(q: Q, project: ProjectRow, refs: readonly (number | string)[]): Promise<number[]> {
  if (!refs.length) return [];
  const all = await q.select().from(projectLabels).where(eq(projectLabels.projectId, project.id));
  const out: number[] = [];
  for (const r of refs) {
    const l = typeof r === "number" ? all.find((x) => x.id === r) : all.find((x) => x.nameKey === asciiLower(r.trim()));
    if (!l) {
      const names = all.length
        ? `its labels: ${all
            .map((x) => x.name)
            .sort((a, b) => (asciiLower(a) < asciiLower(b) ? -1 : 1))
            .join(", ")}`
        : "it has no labels yet (project_labels_create)";
      throw invalid(
        `${typeof r === "number" ? `Label ${r}` : `Label "${r.slice(0, 60)}"`} is not a label of project ${project.key}; ${names}.`,
      );
    }
    if (!out.includes(l.id)) out.push(l.id);
  }
  return out;
}

/** The sprint a card may join: its project's, not closed; "active" is the project's active sprint. */
export async function sprintTarget(
  q: Q,
  project: ProjectRow,
  ref: number | "active",
): Promise<typeof sprints.$inferSelect> {
  const s =
    ref === "active"
      ? (
          await q
            .select()
            .from(sprints)
            .where(and(eq(sprints.projectId, project.id), eq(sprints.status, "active")))
            .limit(1)
        )[0]
      : (
          await q
            .select()
            .from(sprints)
            .where(and(eq(sprints.id, ref), eq(sprints.projectId, project.id)))
            .limit(1)
        )[0];
  if (!s)
    throw ref === "active"
      ? invalid(`Project ${project.key} has no active sprint.`)
      : notFound(`Sprint ${ref} is not a sprint of project ${project.key}.`);
  if (s.status === "closed")
    throw invalid(`Sprint ${s.id} ("${s.name}") is closed; add cards to a planned or the active sprint.`);
  return s;
}

export async function milestoneIn(q: Q, project: ProjectRow, id: number) {
  const m = (
    await q
      .select()
      .from(milestones)
      .where(and(eq(milestones.id, id), eq(milestones.projectId, project.id)))
      .limit(1)
  )[0];
  if (!m) throw notFound(`Milestone ${id} is not a milestone of project ${project.key}.`);
  return m;
}

/** A parent for `card` (null for a new card): same project, not itself, not one of its own sub-cards. */
export async function parentFor(
  q: Q,
  ctx: ActorContext,
  project: ProjectRow,
  ref: CardRef,
  card: CardRow | null,
): Promise<CardRow> {
  const { card: parent, key } = await cardFor(q, ctx, ref);
  if (parent.projectId !== project.id)
    throw invalid(`${key} is in another project; a sub-card's parent must be a card of ${project.key}.`);
  if (card) {
    if (parent.id === card.id) throw invalid("A card cannot be its own parent.");
    // Walk up from the new parent: meeting the card means it would become its own ancestor.
    let cur: number | null = parent.parentId;
    for (let depth = 0; cur !== null && depth < 1000; depth++) {
      if (cur === card.id)
        throw invalid(`${key} is a sub-card of ${cardKey(project, card)}; making it the parent would make a cycle.`);
      cur = (await q.select({ p: cards.parentId }).from(cards).where(eq(cards.id, cur)).limit(1))[0]?.p ?? null;
    }
  }
  return parent;
}

/** Everything a new card needs besides what the caller said, decided here for people and recurrences alike. */
export interface NewCard {
  project: ProjectRow;
  column: ColumnRow;
  place: Place;
  title: string;
  description: string | null;
  priority: number;
  estimate: number | null;
  dueDate: string | null;
  parentId: number | null;
  milestoneId: number | null;
  sprintId: number | null;
  assigneeIds: number[];
  labelIds: number[];
  checklist: string[];
  recurrenceId?: number | null;
  occurrence?: string | null;
}

/** WIP limit of `column` for `entering` more cards; the refusal names the cards holding it. */
export async function checkWip(q: Q, project: ProjectRow, column: ColumnRow, entering: number): Promise<void> {
  if (column.wipLimit === null || entering <= 0) return;
  const inside = await q
    .select({ number: cards.number })
    .from(cards)
    .where(eq(cards.columnId, column.id))
    .orderBy(asc(cards.position));
  if (inside.length + entering > column.wipLimit) {
    const keys = inside.slice(0, 10).map((c) => `${project.key}-${c.number}`);
    throw conflict(
      `Column "${column.name}" is at its WIP limit: ${inside.length} of ${column.wipLimit} cards (${keys.join(", ")}${inside.length > 10 ? ", …" : ""}), ` +
        `so ${entering === 1 ? "one more does" : `${entering} more do`} not fit. Finish or move a card out first, or raise the limit with board_columns_update.`,
      { columnId: column.id, wipLimit: column.wipLimit, cards: inside.length },
    );
  }
}

/** Inserts a card with its assignees, labels, checklist, activity, audit and event, inside the caller's transaction. */
export async function insertCard(
  tx: Q,
  actor: { ctx: ActorContext | null; at: Date; companyId: number; emitAs: Parameters<typeof emit>[1] },
  n: NewCard,
) {
  await touchColumn(tx, n.column.id);
  await checkWip(tx, n.project, n.column, 1);
  const numbered = (
    await tx
      .update(projects)
      .set({ nextNumber: sql`${projects.nextNumber} + 1` })
      .where(eq(projects.id, n.project.id))
      .returning({ next: projects.nextNumber })
  )[0]!;
  const position = await positionFor(tx, n.column.id, n.place);
  const card = (
    await tx
      .insert(cards)
      .values({
        companyId: actor.companyId,
        projectId: n.project.id,
        number: numbered.next - 1,
        boardId: n.column.boardId,
        columnId: n.column.id,
        position,
        title: n.title,
        description: n.description,
        priority: n.priority,
        estimate: n.estimate,
        dueDate: n.dueDate,
        parentId: n.parentId,
        milestoneId: n.milestoneId,
        sprintId: n.sprintId,
        recurrenceId: n.recurrenceId ?? null,
        occurrence: n.occurrence ?? null,
        createdByUserId: actor.ctx?.principal.userId ?? null,
        completedAt: n.column.stateGroup === "done" ? actor.at : null,
        createdAt: actor.at,
        updatedAt: actor.at,
      })
      .returning()
  )[0]!;
  if (n.assigneeIds.length)
    await tx
      .insert(cardAssignees)
      .values(n.assigneeIds.map((userId) => ({ cardId: card.id, userId, createdAt: actor.at })));
  if (n.labelIds.length)
    await tx.insert(cardLabels).values(n.labelIds.map((labelId) => ({ cardId: card.id, labelId })));
  if (n.checklist.length)
    await tx
      .insert(checklistItems)
      .values(n.checklist.map((text, i) => ({ cardId: card.id, text, position: (i + 1) * 1024, createdAt: actor.at })));
  const key = cardKey(n.project, card);
  await logActivity(tx, actor, card, n.column.stateGroup, "created", {
    column: n.column.name,
    ...(n.recurrenceId ? { recurrenceId: n.recurrenceId, occurrence: n.occurrence } : {}),
  });
  if (actor.ctx) await audit(tx, actor.ctx, "cards.create", { type: "card", id: card.id, detail: { key } });
  const facts = cardFacts(n.project, card);
  await emit(
    tx,
    actor.emitAs,
    cardCreated,
    { id: card.id },
    {
      ...facts,
      columnId: n.column.id,
      stateGroup: n.column.stateGroup,
      assigneeUserIds: n.assigneeIds,
      priority: card.priority,
      dueDate: card.dueDate,
      recurrenceId: n.recurrenceId ?? null,
    },
  );
  if (n.assigneeIds.length)
    await emit(
      tx,
      actor.emitAs,
      cardAssigned,
      { id: card.id },
      {
        ...facts,
        assigneeUserIds: n.assigneeIds,
        allAssigneeUserIds: n.assigneeIds,
        dueDate: card.dueDate,
        priority: card.priority,
      },
    );
  return { card, key };
}

export async function createCard(ctx: ActorContext, input: v.InferOutput<typeof cardCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    let project: ProjectRow;
    let parent: CardRow | null = null;
    if (input.projectId !== undefined) project = await projectFor(tx, ctx, input.projectId);
    else if (input.parentId !== undefined) project = (await cardFor(tx, ctx, input.parentId)).project;
    else throw invalid("Say which project: projectId (id or key such as WEB), or parentId for a sub-card.");
    if (project.archivedAt)
      throw invalid(
        `Project ${project.key} is archived; restore it (projects_archive with archived: false) to add cards.`,
      );
    if (input.parentId !== undefined) parent = await parentFor(tx, ctx, project, input.parentId, null);
    const column =
      input.columnId !== undefined
        ? await columnIn(tx, project, parent?.boardId ?? null, input.columnId)
        : await defaultColumn(tx, project);
    const people = await peopleFor(tx, ctx, input.assignees ?? []);
    const { card, key } = await insertCard(
      tx,
      { ctx, at, companyId: ctx.company.id, emitAs: ctx },
      {
        project,
        column,
        place: { bottom: true },
        title: input.title.trim(),
        description: input.description ?? null,
        priority: input.priority,
        estimate: input.estimate ?? null,
        dueDate: input.dueDate ?? null,
        parentId: parent?.id ?? null,
        milestoneId: input.milestoneId !== undefined ? (await milestoneIn(tx, project, input.milestoneId)).id : null,
        sprintId: input.sprintId !== undefined ? (await sprintTarget(tx, project, input.sprintId)).id : null,
        assigneeIds: people.map((p) => p.id),
        labelIds: await labelIdsFor(tx, project, input.labels ?? []),
        checklist: (input.checklist ?? []).map((s) => s.trim()),
      },
    );
    return {
      id: card.id,
      key,
      title: card.title,
      column: column.name,
      stateGroup: column.stateGroup,
      ...(parent ? { parentKey: cardKey(project, parent) } : {}),
    };
  });
}

/** Where a card goes when nobody says: the first column of the project's first board. */
export async function defaultColumn(q: Q, project: ProjectRow): Promise<ColumnRow> {
  const board = await firstBoard(q, project);
  const c = (
    await q
      .select()
      .from(boardColumns)
      .where(eq(boardColumns.boardId, board.id))
      .orderBy(asc(boardColumns.position))
      .limit(1)
  )[0];
  if (!c) throw conflict(`Board "${board.name}" has no columns; add one with board_columns_create.`);
  return c;
}

/** Replaces a card's assignees; returns who was added and removed. */
export async function setAssignees(tx: Q, cardId: number, want: number[], at: Date) {
  const have = await assigneeIds(tx, cardId);
  const added = want.filter((u) => !have.includes(u));
  const removed = have.filter((u) => !want.includes(u));
  if (removed.length)
    await tx.delete(cardAssignees).where(and(eq(cardAssignees.cardId, cardId), inArray(cardAssignees.userId, removed)));
  if (added.length) await tx.insert(cardAssignees).values(added.map((userId) => ({ cardId, userId, createdAt: at })));
  return { added, removed, now: [...have.filter((u) => !removed.includes(u)), ...added].sort((a, b) => a - b) };
}

export async function labelIdsOf(q: Q, cardId: number): Promise<number[]> {
  return (
    await q
      .select({ l: cardLabels.labelId })
      .from(cardLabels)
      .where(eq(cardLabels.cardId, cardId))
      .orderBy(asc(cardLabels.labelId))
  ).map((r) => r.l);
}

export async function setLabels(tx: Q, cardId: number, want: number[]) {
  const have = await labelIdsOf(tx, cardId);
  const added = want.filter((l) => !have.includes(l));
  const removed = have.filter((l) => !want.includes(l));
  if (removed.length)
    await tx.delete(cardLabels).where(and(eq(cardLabels.cardId, cardId), inArray(cardLabels.labelId, removed)));
  if (added.length) await tx.insert(cardLabels).values(added.map((labelId) => ({ cardId, labelId })));
  return { added, removed };
}

/**
 * Applies field changes to one card (shared by cards_update and
 * cards_bulk_update): activity row, events (card.updated, card.assigned,
 * card.unassigned). Assignee and label ids are already resolved.
 */
export async function applyCardChanges(
  tx: Q,
  ctx: ActorContext,
  project: ProjectRow,
  card: CardRow,
  set: Partial<
    Pick<
      CardRow,
      "title" | "description" | "priority" | "estimate" | "dueDate" | "parentId" | "milestoneId" | "sprintId"
    >
  >,
  people: { assignees?: number[]; labels?: number[] },
  at: Date,
): Promise<{ card: CardRow; changed: string[] }> {
  const changes: Record<string, [unknown, unknown]> = {};
  for (const [k, val] of Object.entries(set) as [keyof typeof set, unknown][])
    if (card[k] !== val) changes[k] = [card[k], val];
  let assigned: { added: number[]; removed: number[]; now: number[] } | null = null;
  if (people.assignees) assigned = await setAssignees(tx, card.id, people.assignees, at);
  if (people.labels) {
    const l = await setLabels(tx, card.id, people.labels);
    if (l.added.length || l.removed.length) changes.labels = [l.removed, l.added];
  }
  const assignedChanged = !!assigned && (assigned.added.length > 0 || assigned.removed.length > 0);
  if (!Object.keys(changes).length && !assignedChanged) return { card, changed: [] };
  const fields = Object.fromEntries(
    Object.entries(changes)
      .filter(([k]) => k !== "labels")
      .map(([k, [, to]]) => [k, to]),
  );
  const after = (
    await tx
      .update(cards)
      .set({ ...fields, updatedAt: at })
      .where(eq(cards.id, card.id))
      .returning()
  )[0]!;
  const column = await columnOf(tx, after.columnId);
  const facts = cardFacts(project, after);
  const detail: Record<string, unknown> = { ...changes };
  if (assigned && assignedChanged) detail.assignees = [assigned.removed, assigned.added];
  const action =
    Object.keys(changes).length === 1 && "sprintId" in changes
      ? "sprint"
      : Object.keys(changes).length
        ? "updated"
        : "assigned";
  await logActivity(tx, { ctx, at }, after, column.stateGroup, action, detail);
  const all = assigned?.now ?? (await assigneeIds(tx, card.id));
  if (Object.keys(changes).length)
    await emit(tx, ctx, cardUpdated, { id: card.id }, { ...facts, changes, assigneeUserIds: all });
  if (assigned?.added.length)
    await emit(
      tx,
      ctx,
      cardAssigned,
      { id: card.id },
      {
        ...facts,
        assigneeUserIds: assigned.added,
        allAssigneeUserIds: all,
        dueDate: after.dueDate,
        priority: after.priority,
      },
    );
  if (assigned?.removed.length)
    await emit(
      tx,
      ctx,
      cardUnassigned,
      { id: card.id },
      { ...facts, unassignedUserIds: assigned.removed, allAssigneeUserIds: all },
    );
  return { card: after, changed: [...Object.keys(changes), ...(assignedChanged ? ["assignees"] : [])] };
}

export async function updateCard(ctx: ActorContext, input: v.InferOutput<typeof cardUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.id);
    const set: Parameters<typeof applyCardChanges>[4] = {};
    if (input.title !== undefined) set.title = input.title.trim();
    if (input.description !== undefined) set.description = input.description;
    if (input.priority !== undefined) set.priority = input.priority;
    if (input.estimate !== undefined) set.estimate = input.estimate;
    if (input.dueDate !== undefined) set.dueDate = input.dueDate;
    if (input.parentId !== undefined)
      set.parentId = input.parentId === null ? null : (await parentFor(tx, ctx, project, input.parentId, card)).id;
    if (input.milestoneId !== undefined)
      set.milestoneId = input.milestoneId === null ? null : (await milestoneIn(tx, project, input.milestoneId)).id;
    if (input.sprintId !== undefined)
      set.sprintId = input.sprintId === null ? null : (await sprintTarget(tx, project, input.sprintId)).id;
    const people = {
      assignees: input.assignees ? (await peopleFor(tx, ctx, input.assignees)).map((p) => p.id) : undefined,
      labels: input.labels ? await labelIdsFor(tx, project, input.labels) : undefined,
    };
    const r = await applyCardChanges(tx, ctx, project, card, set, people, at);
    if (r.changed.length)
      await audit(tx, ctx, "cards.update", { type: "card", id: card.id, detail: { key, fields: r.changed } });
    return { id: card.id, key, changed: r.changed };
  });
}

export async function deleteCard(ctx: ActorContext, input: { id: CardRef }) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { card, project, key } = await cardFor(tx, ctx, input.id);
    const subCards = await tx
      .select({ id: cards.id, number: cards.number })
      .from(cards)
      .where(eq(cards.parentId, card.id));
    const logged = (
      await tx.select({ n: sql<number>`count(*)` }).from(timeLogs).where(eq(timeLogs.cardId, card.id)).limit(1)
    )[0]!.n;
    const people = await assigneeIds(tx, card.id);
    if (subCards.length)
      await tx.update(cards).set({ parentId: null, updatedAt: at }).where(eq(cards.parentId, card.id));
    // The history stays: a last row takes the card out of its sprint, so burndowns show it leaving scope.
    await logActivity(tx, { ctx, at }, card, "deleted", "deleted", { key, title: card.title });
    await tx.delete(cards).where(eq(cards.id, card.id));
    await audit(tx, ctx, "cards.delete", { type: "card", id: card.id, detail: { key, title: card.title } });
    await emit(tx, ctx, cardDeleted, { id: card.id }, { ...cardFacts(project, card), assigneeUserIds: people });
    return {
      id: card.id,
      key,
      status: "deleted",
      ...(subCards.length ? { detachedSubCards: subCards.map((s) => `${project.key}-${s.number}`) } : {}),
      ...(logged ? { timeLogsKept: logged } : {}),
    };
  });
}

// ---------------------------------------------------------------------------
// Reading

export async function getCard(ctx: ActorContext, input: v.InferOutput<typeof cardGetInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const { card, project, key } = await cardFor(db, ctx, input.id);
  const column = await columnOf(db, card.columnId);
  const board = (
    await db.select({ id: boards.id, name: boards.name }).from(boards).where(eq(boards.id, card.boardId)).limit(1)
  )[0]!;
  const assignees = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(cardAssignees)
    .innerJoin(users, eq(users.id, cardAssignees.userId))
    .where(eq(cardAssignees.cardId, card.id))
    .orderBy(asc(users.id));
  const labels = await db
    .select({ id: projectLabels.id, name: projectLabels.name, color: projectLabels.color })
    .from(cardLabels)
    .innerJoin(projectLabels, eq(projectLabels.id, cardLabels.labelId))
    .where(eq(cardLabels.cardId, card.id))
    .orderBy(asc(byText(projectLabels.nameKey)));
  const items = await db
    .select()
    .from(checklistItems)
    .where(eq(checklistItems.cardId, card.id))
    .orderBy(asc(checklistItems.position), asc(checklistItems.id));
  const parent = card.parentId
    ? (
        await db
          .select({ id: cards.id, number: cards.number, title: cards.title })
          .from(cards)
          .where(eq(cards.id, card.parentId))
          .limit(1)
      )[0]
    : undefined;
  const subs = await db
    .select({ id: cards.id, number: cards.number, title: cards.title, stateGroup: boardColumns.stateGroup })
    .from(cards)
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .where(eq(cards.parentId, card.id))
    .orderBy(asc(cards.number));
  const relations = await relationsOf(db, card.id);
  const attachedRows = await db
    .select({ mediaId: cardAttachments.mediaId, addedAt: cardAttachments.createdAt })
    .from(cardAttachments)
    .where(eq(cardAttachments.cardId, card.id))
    .orderBy(asc(cardAttachments.id));
  // Media rows live in cms (its public media-facts); an attachment whose media is gone is left out, as the join did.
  const files = await mediaByIds(
    db,
    attachedRows.map((a) => a.mediaId),
  );
  const attachments = attachedRows.flatMap((a) => {
    const m = files.get(a.mediaId);
    return m ? [{ mediaId: m.id, filename: m.filename, mimeType: m.mimeType, url: m.url, addedAt: a.addedAt }] : [];
  });
  const time = (
    await db
      .select({
        minutes: sql<number>`coalesce(sum(${timeLogs.minutes}), 0)`.mapWith(Number),
        billable:
          sql<number>`coalesce(sum(case when ${timeLogs.billable} then ${timeLogs.minutes} else 0 end), 0)`.mapWith(
            Number,
          ),
      })
      .from(timeLogs)
      .where(eq(timeLogs.cardId, card.id))
      .limit(1)
  )[0]!;
  const commentCount = (
    await db.select({ n: sql<number>`count(*)` }).from(cardComments).where(eq(cardComments.cardId, card.id)).limit(1)
  )[0]!.n;
  const sprint = card.sprintId
    ? (
        await db
          .select({ id: sprints.id, name: sprints.name, status: sprints.status })
          .from(sprints)
          .where(eq(sprints.id, card.sprintId))
          .limit(1)
      )[0]
    : null;
  const milestone = card.milestoneId
    ? (
        await db
          .select({ id: milestones.id, name: milestones.name })
          .from(milestones)
          .where(eq(milestones.id, card.milestoneId))
          .limit(1)
      )[0]
    : null;
  const out: Record<string, unknown> = {
    id: card.id,
    key,
    projectId: project.id,
    title: card.title,
    description: card.description,
    board,
    column: { id: column.id, name: column.name, stateGroup: column.stateGroup },
    priority: card.priority,
    priorityName: PRIORITY_NAMES[card.priority],
    estimate: card.estimate,
    dueDate: card.dueDate,
    assignees,
    labels,
    parent: parent ? { id: parent.id, key: `${project.key}-${parent.number}`, title: parent.title } : null,
    subCards: subs.map((s) => ({
      id: s.id,
      key: `${project.key}-${s.number}`,
      title: s.title,
      stateGroup: s.stateGroup,
    })),
    sprint: sprint ?? null,
    milestone: milestone ?? null,
    checklist: {
      done: items.filter((i) => i.done).length,
      total: items.length,
      items: items.map((i) => ({ id: i.id, text: i.text, done: i.done })),
    },
    relations,
    attachments: attachments.map((a) => ({ ...a, addedAt: iso(a.addedAt) })),
    timeLogged: { minutes: time.minutes, billableMinutes: time.billable },
    commentCount,
    recurrenceId: card.recurrenceId,
    createdAt: iso(card.createdAt),
    updatedAt: iso(card.updatedAt),
    completedAt: iso(card.completedAt),
  };
  if (input.include.includes("comments")) {
    const rows = await db
      .select()
      .from(cardComments)
      .where(eq(cardComments.cardId, card.id))
      .orderBy(desc(cardComments.createdAt), desc(cardComments.id))
      .limit(50);
    const who = await namesOf(
      db,
      rows.flatMap((r) => (r.authorUserId ? [r.authorUserId] : [])),
    );
    out.comments = rows.reverse().map((r) => ({
      id: r.id,
      author: r.authorUserId ? (who.get(r.authorUserId)?.name ?? who.get(r.authorUserId)?.email ?? null) : null,
      authorUserId: r.authorUserId,
      body: r.body,
      mentionedUserIds: r.mentionedUserIds,
      createdAt: iso(r.createdAt),
      editedAt: iso(r.editedAt),
    }));
  }
  if (input.include.includes("activity")) out.activity = await activityOf(db, card.id, 100);
  return out;
}

/** A card's relations, each as seen from this card: blocks / blocked_by / duplicates / duplicated_by / relates. */
export async function relationsOf(q: Q, cardId: number) {
  const rows = await q
    .select({ kind: cardRelations.kind, from: cardRelations.fromCardId, to: cardRelations.toCardId })
    .from(cardRelations)
    .where(or(eq(cardRelations.fromCardId, cardId), eq(cardRelations.toCardId, cardId)));
  if (!rows.length) return [];
  const otherIds = rows.map((r) => (r.from === cardId ? r.to : r.from));
  const others = await q
    .select({
      id: cards.id,
      number: cards.number,
      title: cards.title,
      key: projects.key,
      stateGroup: boardColumns.stateGroup,
    })
    .from(cards)
    .innerJoin(projects, eq(projects.id, cards.projectId))
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .where(inArray(cards.id, otherIds));
  const byId = new Map(others.map((o) => [o.id, o]));
  return rows.map((r) => {
    const outgoing = r.from === cardId;
    const o = byId.get(outgoing ? r.to : r.from)!;
    const kind =
      r.kind === "relates" ? "relates" : outgoing ? r.kind : r.kind === "blocks" ? "blocked_by" : "duplicated_by";
    return { kind, card: { id: o.id, key: `${o.key}-${o.number}`, title: o.title, stateGroup: o.stateGroup } };
  });
}

const PRIORITY_ORDER = sql`case when ${cards.priority} = 0 then 5 else ${cards.priority} end`;

export async function listCards(ctx: ActorContext, input: v.InferOutput<typeof cardListInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const where: (SQL | undefined)[] = [eq(cards.companyId, ctx.company.id)];
  let project: ProjectRow | null = null;
  if (input.projectId !== undefined) {
    project = await projectFor(db, ctx, input.projectId);
    where.push(eq(cards.projectId, project.id));
  }
  if (input.boardId !== undefined) where.push(eq(cards.boardId, (await boardFor(db, ctx, input.boardId)).board.id));
  if (input.columnId !== undefined) where.push(eq(cards.columnId, (await columnFor(db, ctx, input.columnId)).id));
  if (input.stateGroups?.length) where.push(inArray(boardColumns.stateGroup, input.stateGroups));
  if (input.assignee !== undefined) where.push(await assigneeFilter(ctx, input.assignee));
  if (input.labels?.length) where.push(await labelFilter(ctx, project, input.labels));
  if (input.priorities?.length) where.push(inArray(cards.priority, input.priorities));
  if (input.sprintId !== undefined) {
    if (input.sprintId === "none") where.push(isNull(cards.sprintId));
    else if (input.sprintId === "active") {
      const active = db
        .select({ id: sprints.id })
        .from(sprints)
        .where(and(eq(sprints.status, "active"), project ? eq(sprints.projectId, project.id) : undefined));
      where.push(inArray(cards.sprintId, active));
    } else where.push(eq(cards.sprintId, (await sprintFor(db, ctx, input.sprintId)).sprint.id));
  }
  if (input.milestoneId !== undefined) where.push(eq(cards.milestoneId, input.milestoneId));
  if (input.dueBefore) where.push(lte(cards.dueDate, input.dueBefore));
  if (input.dueAfter) where.push(gte(cards.dueDate, input.dueAfter));
  const q = input.search?.trim();
  if (q) {
    if (CARD_KEY.test(q)) {
      const dash = q.lastIndexOf("-");
      where.push(and(eq(projects.key, q.slice(0, dash).toUpperCase()), eq(cards.number, Number(q.slice(dash + 1)))));
    } else where.push(or(containsText(cards.title, q), containsText(cards.description, q)));
  }
  const cond = and(...where);
  // Join only what the filters and the order need: counting and sorting 10,000 cards is most of a list's cost.
  const needColumns = !!input.stateGroups?.length;
  const needProjects = !!q && CARD_KEY.test(q);
  const scoped = <T extends { innerJoin: (...args: never[]) => unknown }>(query: T): T => {
    let out = query as any;
    if (needColumns) out = out.innerJoin(boardColumns, eq(boardColumns.id, cards.columnId));
    if (needProjects) out = out.innerJoin(projects, eq(projects.id, cards.projectId));
    return out;
  };
  const total = (
    await scoped(db.select({ n: sql<number>`count(*)` }).from(cards).$dynamic())
      .where(cond)
      .limit(1)
  )[0]!.n;
  let order: SQL[];
  if (input.orderBy === "updated") order = [desc(cards.updatedAt), desc(cards.id)];
  else if (input.orderBy === "created") order = [desc(cards.createdAt), desc(cards.id)];
  else if (input.orderBy === "priority") order = [asc(PRIORITY_ORDER), desc(cards.updatedAt), desc(cards.id)];
  else if (input.orderBy === "due")
    order = [
      asc(sql`case when ${cards.dueDate} is null then 1 else 0 end`),
      asc(cards.dueDate),
      asc(PRIORITY_ORDER),
      asc(cards.id),
    ];
  else {
    // Board order: each column's rank (project, board, column positions) decided here, so the sort needs no join.
    const columns = await db
      .select({ id: boardColumns.id })
      .from(boardColumns)
      .innerJoin(boards, eq(boards.id, boardColumns.boardId))
      .innerJoin(projects, eq(projects.id, boardColumns.projectId))
      .where(and(eq(projects.companyId, ctx.company.id), project ? eq(projects.id, project.id) : undefined))
      .orderBy(
        asc(projects.id),
        asc(boards.position),
        asc(boards.id),
        asc(boardColumns.position),
        asc(boardColumns.id),
      );
    // (No column at all means no card either: a constant ORDER BY term would read as a column number.)
    order = columns.length
      ? [
          asc(
            sql.join(
              [
                sql`case ${cards.columnId}`,
                ...columns.map((c, i) => sql`when ${sql.raw(String(c.id))} then ${sql.raw(String(i))}`),
                sql`end`,
              ],
              sql` `,
            ),
          ),
          asc(cards.position),
          asc(cards.id),
        ]
      : [asc(cards.id)];
  }
  const pageIds = (
    await scoped(db.select({ id: cards.id }).from(cards).$dynamic())
      .where(cond)
      .orderBy(...order)
      .limit(input.limit)
      .offset(input.offset)
  ).map((r: { id: number }) => r.id);
  const details = pageIds.length
    ? await db
        .select({
          id: cards.id,
          number: cards.number,
          key: projects.key,
          timeZone: projects.timeZone,
          title: cards.title,
          columnId: cards.columnId,
          column: boardColumns.name,
          stateGroup: boardColumns.stateGroup,
          priority: cards.priority,
          estimate: cards.estimate,
          dueDate: cards.dueDate,
          sprintId: cards.sprintId,
          parentId: cards.parentId,
          updatedAt: cards.updatedAt,
        })
        .from(cards)
        .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
        .innerJoin(projects, eq(projects.id, cards.projectId))
        .where(inArray(cards.id, pageIds))
    : [];
  const byId = new Map(details.map((d) => [d.id, d]));
  const rows = pageIds.map((i: number) => byId.get(i)!);
  const ids = rows.map((r) => r.id);
  const people = ids.length
    ? await db
        .select({ cardId: cardAssignees.cardId, id: users.id, name: users.name, email: users.email })
        .from(cardAssignees)
        .innerJoin(users, eq(users.id, cardAssignees.userId))
        .where(inArray(cardAssignees.cardId, ids))
        .orderBy(asc(users.id))
    : [];
  const tags = ids.length
    ? await db
        .select({ cardId: cardLabels.cardId, name: projectLabels.name })
        .from(cardLabels)
        .innerJoin(projectLabels, eq(projectLabels.id, cardLabels.labelId))
        .where(inArray(cardLabels.cardId, ids))
        .orderBy(asc(byText(projectLabels.nameKey)))
    : [];
  const todayIn = new Map<string, string>();
  const today = (tz: string) =>
    todayIn.get(tz) ?? (todayIn.set(tz, dateIn(tz, ctx.deps.clock.now())), todayIn.get(tz)!);
  const items = rows.map((r) => ({
    id: r.id,
    key: `${r.key}-${r.number}`,
    title: r.title,
    columnId: r.columnId,
    column: r.column,
    stateGroup: r.stateGroup,
    priority: r.priority,
    estimate: r.estimate,
    dueDate: r.dueDate,
    ...(r.dueDate && r.dueDate < today(r.timeZone) && r.stateGroup !== "done" && r.stateGroup !== "cancelled"
      ? { overdue: true }
      : {}),
    assignees: people.filter((p) => p.cardId === r.id).map((p) => ({ id: p.id, name: p.name ?? p.email })),
    labels: tags.filter((t) => t.cardId === r.id).map((t) => t.name),
    sprintId: r.sprintId,
    parentId: r.parentId,
    updatedAt: iso(r.updatedAt),
  }));
  return page(items, total, input.limit, input.offset);
}

async function assigneeFilter(ctx: ActorContext, ref: UserRef): Promise<SQL> {
  const db = ctx.deps.db;
  if (typeof ref === "string" && ref.trim().toLowerCase() === "none")
    return not(exists(db.select({ x: sql`1` }).from(cardAssignees).where(eq(cardAssignees.cardId, cards.id))));
  const [p] = await peopleFor(db, ctx, [ref]);
  // "id in (their cards)": the user index finds their few cards, instead of a lookup per card of the project.
  return inArray(
    cards.id,
    db.select({ id: cardAssignees.cardId }).from(cardAssignees).where(eq(cardAssignees.userId, p!.id)),
  );
}

async function labelFilter(
  ctx: ActorContext,
  project: ProjectRow | null,
  refs: readonly (number | string)[],
): Promise<SQL> {
  const db = ctx.deps.db;
  let ids: number[];
  if (project) ids = await labelIdsFor(db, project, refs);
  else {
    // Across projects a name means that label in every project that has one.
    const names = refs.filter((r): r is string => typeof r === "string").map((r) => asciiLower(r.trim()));
    const numbers = refs.filter((r): r is number => typeof r === "number");
    const rows = await db
      .select({ id: projectLabels.id })
      .from(projectLabels)
      .innerJoin(projects, eq(projects.id, projectLabels.projectId))
      .where(
        and(
          eq(projects.companyId, ctx.company.id),
          or(
            names.length ? inArray(projectLabels.nameKey, names) : undefined,
            numbers.length ? inArray(projectLabels.id, numbers) : undefined,
          ),
        ),
      );
    ids = rows.map((r) => r.id);
    if (!ids.length)
      throw invalid(
        `No project of ${ctx.company.name} has a label ${refs.map((r) => JSON.stringify(r)).join(" or ")}.`,
      );
  }
  return inArray(
    cards.id,
    ctx.deps.db.select({ id: cardLabels.cardId }).from(cardLabels).where(inArray(cardLabels.labelId, ids)),
  );
}

export type { StateGroup };
