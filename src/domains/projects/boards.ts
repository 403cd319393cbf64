/**
 * Boards and their columns. A column is a workflow state in one of five
 * groups (backlog, unstarted, started, done, cancelled) that every report
 * reads: "done" is what sprints count as completed. A WIP limit caps the
 * cards a column holds; moves beyond it are refused (moves.ts).
 *
 * Deleting a board or a column that still holds cards answers with what is
 * in it, unless the call says where the cards go (moveCardsToColumnId); a
 * project keeps at least one board and a board at least one column.
 */
import { and, asc, count, eq, inArray, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { asciiLower, byText } from "../../core/sql";
import { users } from "../../core/tables";
import {
  boardFor,
  columnFor,
  dateIn,
  projectFor,
  readAccess,
  write,
  type ColumnRow,
  type ProjectRow,
  type Q,
} from "./access";
import { logActivity } from "./activity";
import { checkWip } from "./cards";
import { boardChanged } from "./events";
import { placeCard } from "./moves";
import { touchColumn } from "./ordering";
import { createBoardColumns, DEFAULT_COLUMNS } from "./projects";
import type {
  boardCreateInput,
  boardDeleteInput,
  boardGetInput,
  boardListInput,
  boardUpdateInput,
  columnCreateInput,
  columnDeleteInput,
  columnReorderInput,
  columnUpdateInput,
} from "./schemas";
import {
  boardColumns,
  boards,
  cardAssignees,
  cardLabels,
  cardRecurrences,
  cards,
  projectLabels,
  type RecurrenceTemplate,
} from "./tables";

/**
 * A project's boards in board order, each with its columns in order (WIP
 * limit, card count, points): what an agent needs to pick a board or a
 * column without fetching every board's cards (boards_get does that).
 * Paged by board; a project has few, but nothing caps how many.
 */
export async function listBoards(ctx: ActorContext, input: v.InferOutput<typeof boardListInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const project = await projectFor(db, ctx, input.projectId);
  const total = (await db.select({ n: count() }).from(boards).where(eq(boards.projectId, project.id)))[0]?.n ?? 0;
  const bs = await db
    .select()
    .from(boards)
    .where(eq(boards.projectId, project.id))
    .orderBy(asc(boards.position), asc(boards.id))
    .limit(input.limit)
    .offset(input.offset);
  const ids = bs.map((b) => b.id);
  const cols = ids.length
    ? await db
        .select()
        .from(boardColumns)
        .where(inArray(boardColumns.boardId, ids))
        .orderBy(asc(boardColumns.position), asc(boardColumns.id))
    : [];
  const totals = ids.length
    ? await db
        .select({
          columnId: cards.columnId,
          n: sql<number>`count(*)`.mapWith(Number),
          points: sql<number>`coalesce(sum(${cards.estimate}), 0)`.mapWith(Number),
        })
        .from(cards)
        .where(inArray(cards.boardId, ids))
        .groupBy(cards.columnId)
    : [];
  const items = bs.map((b) => {
    const columns = cols
      .filter((c) => c.boardId === b.id)
      .map((c) => {
        const t = totals.find((x) => x.columnId === c.id);
        const n = t?.n ?? 0;
        return {
          id: c.id,
          name: c.name,
          stateGroup: c.stateGroup,
          wipLimit: c.wipLimit,
          cardCount: n,
          points: t?.points ?? 0,
          ...(c.wipLimit !== null && n >= c.wipLimit ? { atWipLimit: true } : {}),
        };
      });
    return {
      id: b.id,
      name: b.name,
      cardCount: columns.reduce((s, c) => s + c.cardCount, 0),
      columns,
    };
  });
  return { projectId: project.id, projectKey: project.key, ...page(items, total, input.limit, input.offset) };
}

export async function getBoard(ctx: ActorContext, input: v.InferOutput<typeof boardGetInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const { board, project } = await boardFor(db, ctx, input.id);
  const cols = await db
    .select()
    .from(boardColumns)
    .where(eq(boardColumns.boardId, board.id))
    .orderBy(asc(boardColumns.position));
  const totals = await db
    .select({
      columnId: cards.columnId,
      n: sql<number>`count(*)`.mapWith(Number),
      points: sql<number>`coalesce(sum(${cards.estimate}), 0)`.mapWith(Number),
    })
    .from(cards)
    .where(eq(cards.boardId, board.id))
    .groupBy(cards.columnId);
  const columns = [];
  for (const c of cols) {
    const t = totals.find((x) => x.columnId === c.id);
    const top = input.cardsPerColumn
      ? await db
          .select({
            id: cards.id,
            number: cards.number,
            title: cards.title,
            priority: cards.priority,
            estimate: cards.estimate,
            dueDate: cards.dueDate,
          })
          .from(cards)
          .where(eq(cards.columnId, c.id))
          .orderBy(asc(cards.position))
          .limit(input.cardsPerColumn)
      : [];
    const people = top.length
      ? await db
          .select({ cardId: cardAssignees.cardId, name: users.name, email: users.email })
          .from(cardAssignees)
          .innerJoin(users, eq(users.id, cardAssignees.userId))
          .where(
            inArray(
              cardAssignees.cardId,
              top.map((x) => x.id),
            ),
          )
      : [];
    columns.push({
      id: c.id,
      name: c.name,
      stateGroup: c.stateGroup,
      wipLimit: c.wipLimit,
      cardCount: t?.n ?? 0,
      points: t?.points ?? 0,
      ...(c.wipLimit !== null && (t?.n ?? 0) >= c.wipLimit ? { atWipLimit: true } : {}),
      cards: top.map((x) => ({
        id: x.id,
        key: `${project.key}-${x.number}`,
        title: x.title,
        priority: x.priority,
        estimate: x.estimate,
        dueDate: x.dueDate,
        assignees: people.filter((p) => p.cardId === x.id).map((p) => p.name ?? p.email),
      })),
    });
  }
  return { id: board.id, name: board.name, projectId: project.id, projectKey: project.key, columns };
}

/**
 * Every card of a board in board order, for the portal's board page: what
 * a cards_list item says about a card (key, title, column, estimate, due
 * date and overdue, assignees, label names), in four queries however many
 * cards there are — paging cards_list a hundred at a time costs some forty
 * round trips for a board of 500. The same read check and tenancy lookup
 * as getBoard. At most `cap` cards.
 */
export async function boardCardItems(ctx: ActorContext, boardId: number, cap = 5000) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const { board, project } = await boardFor(db, ctx, boardId);
  const rows = await db
    .select({
      id: cards.id,
      number: cards.number,
      title: cards.title,
      columnId: cards.columnId,
      stateGroup: boardColumns.stateGroup,
      estimate: cards.estimate,
      dueDate: cards.dueDate,
    })
    .from(cards)
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .where(eq(cards.boardId, board.id))
    .orderBy(asc(boardColumns.position), asc(boardColumns.id), asc(cards.position), asc(cards.id))
    .limit(cap);
  const onBoard = db.select({ id: cards.id }).from(cards).where(eq(cards.boardId, board.id));
  const people = rows.length
    ? await db
        .select({ cardId: cardAssignees.cardId, id: users.id, name: users.name, email: users.email })
        .from(cardAssignees)
        .innerJoin(users, eq(users.id, cardAssignees.userId))
        .where(inArray(cardAssignees.cardId, onBoard))
        .orderBy(asc(users.id))
    : [];
  const tags = rows.length
    ? await db
        .select({ cardId: cardLabels.cardId, name: projectLabels.name })
        .from(cardLabels)
        .innerJoin(projectLabels, eq(projectLabels.id, cardLabels.labelId))
        .where(inArray(cardLabels.cardId, onBoard))
        .orderBy(asc(byText(projectLabels.nameKey)))
    : [];
  const whoOf = new Map<number, { id: number; name: string }[]>();
  for (const p of people) whoOf.set(p.cardId, [...(whoOf.get(p.cardId) ?? []), { id: p.id, name: p.name ?? p.email }]);
  const tagsOf = new Map<number, string[]>();
  for (const t of tags) tagsOf.set(t.cardId, [...(tagsOf.get(t.cardId) ?? []), t.name]);
  const today = dateIn(project.timeZone, ctx.deps.clock.now());
  return rows.map((r) => ({
    id: r.id,
    key: `${project.key}-${r.number}`,
    title: r.title,
    columnId: r.columnId,
    estimate: r.estimate,
    dueDate: r.dueDate,
    overdue: !!r.dueDate && r.dueDate < today && r.stateGroup !== "done" && r.stateGroup !== "cancelled",
    assignees: whoOf.get(r.id) ?? [],
    labels: tagsOf.get(r.id) ?? [],
  }));
}

export async function createBoard(ctx: ActorContext, input: v.InferOutput<typeof boardCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const p = await projectFor(tx, ctx, input.projectId);
    const last = (
      await tx
        .select({ p: sql<number>`coalesce(max(${boards.position}), 0)`.mapWith(Number) })
        .from(boards)
        .where(eq(boards.projectId, p.id))
        .limit(1)
    )[0]!.p;
    const b = (
      await tx
        .insert(boards)
        .values({ projectId: p.id, name: input.name.trim(), position: last + 1024, createdAt: at, updatedAt: at })
        .returning()
    )[0]!;
    const cols = await createBoardColumns(tx, p.id, b.id, input.columns ?? DEFAULT_COLUMNS, at);
    await audit(tx, ctx, "boards.create", { type: "board", id: b.id, detail: { projectId: p.id } });
    await emit(
      tx,
      ctx,
      boardChanged,
      { id: b.id },
      { projectId: p.id, name: b.name, action: "created", columnId: null, changes: {} },
    );
    return {
      id: b.id,
      name: b.name,
      projectKey: p.key,
      columns: cols.map((c) => ({ id: c.id, name: c.name, stateGroup: c.stateGroup })),
    };
  });
}

export async function updateBoard(ctx: ActorContext, input: v.InferOutput<typeof boardUpdateInput>) {
  return write(ctx, async (tx) => {
    const { board, project } = await boardFor(tx, ctx, input.id);
    const name = input.name.trim();
    await tx.update(boards).set({ name, updatedAt: ctx.deps.clock.now() }).where(eq(boards.id, board.id));
    await audit(tx, ctx, "boards.update", { type: "board", id: board.id, detail: { name } });
    await emit(
      tx,
      ctx,
      boardChanged,
      { id: board.id },
      { projectId: project.id, name, action: "renamed", columnId: null, changes: { name: [board.name, name] } },
    );
    return { id: board.id, name };
  });
}

/** Moves every card of `columnIds` to `target`, keeping their order, after one WIP check for all of them. */
async function moveAllCards(
  tx: Q,
  ctx: ActorContext,
  project: ProjectRow,
  columnIds: number[],
  target: ColumnRow,
  at: Date,
): Promise<number> {
  const moving = await tx
    .select()
    .from(cards)
    .where(inArray(cards.columnId, columnIds))
    .orderBy(asc(cards.columnId), asc(cards.position));
  if (!moving.length) return 0;
  await touchColumn(tx, target.id);
  await checkWip(tx, project, target, moving.length);
  for (const c of moving) await placeCard(tx, ctx, project, c, target, { bottom: true }, at);
  return moving.length;
}

/** Recurrences that make their cards in one of these columns fall back to the project's first column. */
async function detachRecurrences(tx: Q, projectId: number, columnIds: number[], at: Date): Promise<number[]> {
  const rs = await tx.select().from(cardRecurrences).where(eq(cardRecurrences.projectId, projectId));
  const hit = rs.filter((r) => r.template.columnId !== null && columnIds.includes(r.template.columnId));
  for (const r of hit) {
    const template: RecurrenceTemplate = { ...r.template, columnId: null };
    await tx.update(cardRecurrences).set({ template, updatedAt: at }).where(eq(cardRecurrences.id, r.id));
  }
  return hit.map((r) => r.id);
}

async function whatIsIn(tx: Q, project: ProjectRow, columns: ColumnRow[]) {
  const counts = await tx
    .select({ columnId: cards.columnId, n: sql<number>`count(*)`.mapWith(Number) })
    .from(cards)
    .where(
      inArray(
        cards.columnId,
        columns.map((c) => c.id),
      ),
    )
    .groupBy(cards.columnId);
  const total = counts.reduce((s, c) => s + c.n, 0);
  const sample = total
    ? (
        await tx
          .select({ number: cards.number })
          .from(cards)
          .where(
            inArray(
              cards.columnId,
              columns.map((c) => c.id),
            ),
          )
          .orderBy(asc(cards.number))
          .limit(5)
      ).map((c) => `${project.key}-${c.number}`)
    : [];
  const lines = columns
    .filter((c) => counts.some((x) => x.columnId === c.id))
    .map((c) => `"${c.name}": ${counts.find((x) => x.columnId === c.id)!.n}`);
  return { total, sample, lines };
}

export async function deleteBoard(ctx: ActorContext, input: v.InferOutput<typeof boardDeleteInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { board, project } = await boardFor(tx, ctx, input.id);
    const others = await tx.select({ id: boards.id }).from(boards).where(eq(boards.projectId, project.id));
    if (others.length <= 1)
      throw conflict(
        `Board "${board.name}" is project ${project.key}'s only board; a project keeps at least one. Delete the project instead.`,
      );
    const cols = await tx.select().from(boardColumns).where(eq(boardColumns.boardId, board.id));
    const inside = await whatIsIn(tx, project, cols);
    let moved = 0;
    if (inside.total) {
      if (input.moveCardsToColumnId === undefined)
        throw conflict(
          `Board "${board.name}" still holds ${inside.total} cards (${inside.lines.join(", ")}; e.g. ${inside.sample.join(", ")}). ` +
            `Pass moveCardsToColumnId (a column of another board of ${project.key}) to move them there, or move them first.`,
          { cards: inside.total },
        );
      const target = await columnFor(tx, ctx, input.moveCardsToColumnId);
      if (target.projectId !== project.id || target.boardId === board.id)
        throw invalid("moveCardsToColumnId must be a column of another board of the same project.");
      moved = await moveAllCards(
        tx,
        ctx,
        project,
        cols.map((c) => c.id),
        target,
        at,
      );
    }
    const recurrences = await detachRecurrences(
      tx,
      project.id,
      cols.map((c) => c.id),
      at,
    );
    await tx.delete(boards).where(eq(boards.id, board.id));
    await audit(tx, ctx, "boards.delete", {
      type: "board",
      id: board.id,
      detail: { name: board.name, movedCards: moved },
    });
    await emit(
      tx,
      ctx,
      boardChanged,
      { id: board.id },
      { projectId: project.id, name: board.name, action: "deleted", columnId: null, changes: { movedCards: moved } },
    );
    return {
      id: board.id,
      status: "deleted",
      ...(moved ? { movedCards: moved } : {}),
      ...(recurrences.length ? { recurrencesNowUseFirstColumn: recurrences } : {}),
    };
  });
}

async function renumberColumns(tx: Q, ids: number[]) {
  for (let i = 0; i < ids.length; i++)
    await tx
      .update(boardColumns)
      .set({ position: (i + 1) * 1024 })
      .where(eq(boardColumns.id, ids[i]!));
}

async function columnNameFree(tx: Q, boardId: number, name: string, except?: number) {
  const cols = await tx
    .select({ id: boardColumns.id, name: boardColumns.name })
    .from(boardColumns)
    .where(eq(boardColumns.boardId, boardId));
  const dup = cols.find((c) => c.id !== except && asciiLower(c.name) === asciiLower(name));
  if (dup) throw conflict(`This board already has a column "${dup.name}" (column ${dup.id}).`);
}

export async function createColumn(ctx: ActorContext, input: v.InferOutput<typeof columnCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { board, project } = await boardFor(tx, ctx, input.boardId);
    const name = input.name.trim();
    await columnNameFree(tx, board.id, name);
    const order = (
      await tx
        .select({ id: boardColumns.id })
        .from(boardColumns)
        .where(eq(boardColumns.boardId, board.id))
        .orderBy(asc(boardColumns.position))
    ).map((c) => c.id);
    if (order.length >= 20) throw invalid("A board has at most 20 columns.");
    const c = (
      await tx
        .insert(boardColumns)
        .values({
          boardId: board.id,
          projectId: project.id,
          name,
          stateGroup: input.stateGroup,
          wipLimit: input.wipLimit ?? null,
          position: 0,
          createdAt: at,
          updatedAt: at,
        })
        .returning()
    )[0]!;
    let at_ = order.length;
    if (input.afterColumnId !== undefined) {
      const i = order.indexOf(input.afterColumnId);
      if (i < 0) throw notFound(`Column ${input.afterColumnId} is not on board "${board.name}".`);
      at_ = i + 1;
    }
    order.splice(at_, 0, c.id);
    await renumberColumns(tx, order);
    await audit(tx, ctx, "boards.column_create", { type: "board", id: board.id, detail: { columnId: c.id, name } });
    await emit(
      tx,
      ctx,
      boardChanged,
      { id: board.id },
      {
        projectId: project.id,
        name: board.name,
        action: "column_created",
        columnId: c.id,
        changes: { name, stateGroup: input.stateGroup },
      },
    );
    return { id: c.id, name, stateGroup: c.stateGroup, wipLimit: c.wipLimit, index: at_ };
  });
}

export async function updateColumn(ctx: ActorContext, input: v.InferOutput<typeof columnUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const col = await columnFor(tx, ctx, input.id);
    const { board, project } = await boardFor(tx, ctx, col.boardId);
    const set: Partial<typeof boardColumns.$inferInsert> = {};
    const changes: Record<string, [unknown, unknown]> = {};
    if (input.name !== undefined && input.name.trim() !== col.name) {
      await columnNameFree(tx, board.id, input.name.trim(), col.id);
      set.name = input.name.trim();
      changes.name = [col.name, set.name];
    }
    if (input.wipLimit !== undefined && input.wipLimit !== col.wipLimit)
      (set.wipLimit = input.wipLimit), (changes.wipLimit = [col.wipLimit, input.wipLimit]);
    if (input.stateGroup !== undefined && input.stateGroup !== col.stateGroup)
      (set.stateGroup = input.stateGroup), (changes.stateGroup = [col.stateGroup, input.stateGroup]);
    if (!Object.keys(changes).length) return { id: col.id, changed: [] };
    await tx
      .update(boardColumns)
      .set({ ...set, updatedAt: at })
      .where(eq(boardColumns.id, col.id));
    const inside = await tx.select().from(cards).where(eq(cards.columnId, col.id));
    if (set.stateGroup) {
      // Every card in the column changed state: recorded per card, so sprint maths sees it at this instant.
      if (set.stateGroup === "done")
        await tx
          .update(cards)
          .set({ completedAt: at })
          .where(and(eq(cards.columnId, col.id)));
      else if (col.stateGroup === "done")
        await tx.update(cards).set({ completedAt: null }).where(eq(cards.columnId, col.id));
      for (const c of inside)
        await logActivity(tx, { ctx, at }, c, set.stateGroup, "moved", {
          stateGroup: [col.stateGroup, set.stateGroup],
          column: col.name,
        });
    }
    await audit(tx, ctx, "boards.column_update", {
      type: "board",
      id: board.id,
      detail: { columnId: col.id, fields: Object.keys(changes) },
    });
    await emit(
      tx,
      ctx,
      boardChanged,
      { id: board.id },
      { projectId: project.id, name: board.name, action: "column_updated", columnId: col.id, changes },
    );
    const limit = set.wipLimit ?? null;
    return {
      id: col.id,
      changed: Object.keys(changes),
      ...(limit !== null && inside.length > limit
        ? {
            warnings: [
              `"${set.name ?? col.name}" holds ${inside.length} cards, over its new limit of ${limit}: no card can enter until it is under.`,
            ],
          }
        : {}),
    };
  });
}

export async function reorderColumns(ctx: ActorContext, input: v.InferOutput<typeof columnReorderInput>) {
  return write(ctx, async (tx) => {
    const { board, project } = await boardFor(tx, ctx, input.boardId);
    const have = (
      await tx
        .select({ id: boardColumns.id })
        .from(boardColumns)
        .where(eq(boardColumns.boardId, board.id))
        .orderBy(asc(boardColumns.position))
    ).map((c) => c.id);
    const want = input.columnIds;
    if (new Set(want).size !== want.length || want.length !== have.length || want.some((i) => !have.includes(i)))
      throw invalid(
        `columnIds must list every column of board "${board.name}" once, in the new order; its columns are ${have.join(", ")}.`,
      );
    await renumberColumns(tx, want);
    await audit(tx, ctx, "boards.columns_reorder", { type: "board", id: board.id, detail: { columnIds: want } });
    await emit(
      tx,
      ctx,
      boardChanged,
      { id: board.id },
      {
        projectId: project.id,
        name: board.name,
        action: "columns_reordered",
        columnId: null,
        changes: { order: [have, want] },
      },
    );
    return { boardId: board.id, columnIds: want };
  });
}

export async function deleteColumn(ctx: ActorContext, input: v.InferOutput<typeof columnDeleteInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const col = await columnFor(tx, ctx, input.id);
    const { board, project } = await boardFor(tx, ctx, col.boardId);
    const siblings = await tx
      .select({ id: boardColumns.id })
      .from(boardColumns)
      .where(eq(boardColumns.boardId, board.id));
    if (siblings.length <= 1)
      throw conflict(`"${col.name}" is the only column of board "${board.name}"; a board keeps at least one.`);
    const inside = await whatIsIn(tx, project, [col]);
    let moved = 0;
    if (inside.total) {
      if (input.moveCardsToColumnId === undefined)
        throw conflict(
          `Column "${col.name}" still holds ${inside.total} cards (e.g. ${inside.sample.join(", ")}). Pass moveCardsToColumnId to move them to another column of ${project.key}, or move them first.`,
          { cards: inside.total },
        );
      const target = await columnFor(tx, ctx, input.moveCardsToColumnId);
      if (target.projectId !== project.id || target.id === col.id)
        throw invalid("moveCardsToColumnId must be another column of the same project.");
      moved = await moveAllCards(tx, ctx, project, [col.id], target, at);
    }
    const recurrences = await detachRecurrences(tx, project.id, [col.id], at);
    await tx.delete(boardColumns).where(eq(boardColumns.id, col.id));
    await audit(tx, ctx, "boards.column_delete", {
      type: "board",
      id: board.id,
      detail: { columnId: col.id, name: col.name, movedCards: moved },
    });
    await emit(
      tx,
      ctx,
      boardChanged,
      { id: board.id },
      {
        projectId: project.id,
        name: board.name,
        action: "column_deleted",
        columnId: col.id,
        changes: { movedCards: moved },
      },
    );
    return {
      id: col.id,
      status: "deleted",
      ...(moved ? { movedCards: moved } : {}),
      ...(recurrences.length ? { recurrencesNowUseFirstColumn: recurrences } : {}),
    };
  });
}
