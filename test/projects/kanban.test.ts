/**
 * Boards, columns and moves: placing cards top/bottom/before/after, the
 * gap ordering renumbering a column when a spot runs out, WIP limits with
 * their message, columns by name or state group, completedAt, bulk
 * changes (all or nothing), and deleting boards and columns that still hold
 * cards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { events } from "../../src/core/tables";
import { GAP } from "../../src/domains/projects/ordering";
import { makeWorld, type World } from "./world";

let w: World;
let board: number;
let cols: Record<string, number>;

const inColumn = async (columnId: number) =>
  (await w.call("cards_list", { columnId, limit: 100 })).items.map((c: any) => c.key);
const make = async (title: string, columnId?: string | number) =>
  (await w.call("cards_create", { projectId: "KAN", title, ...(columnId !== undefined ? { columnId } : {}) }))
    .key as string;

beforeAll(async () => {
  w = await makeWorld();
  const p = await w.call("projects_create", { name: "Kanban", key: "KAN" });
  board = p.board.id;
  cols = Object.fromEntries(p.board.columns.map((c: any) => [c.name, c.id]));
});
afterAll(() => w.close());

describe("moves and order", () => {
  test("top, bottom, before and after; the index says where it landed", async () => {
    const a = await make("A");
    const b = await make("B");
    const c = await make("C");
    expect(await inColumn(cols.Backlog!)).toEqual([a, b, c]);
    expect(await w.call("cards_move", { id: c, position: "top" })).toMatchObject({ column: "Backlog", index: 0 });
    expect(await w.call("cards_move", { id: a, beforeCardId: b })).toMatchObject({ index: 1 });
    expect(await inColumn(cols.Backlog!)).toEqual([c, a, b]);
    expect(await w.call("cards_move", { id: c, afterCardId: b })).toMatchObject({ index: 2 });
    expect(await inColumn(cols.Backlog!)).toEqual([a, b, c]);
    // Into another column next to a card there.
    expect(await w.call("cards_move", { id: b, columnId: "In progress" })).toMatchObject({
      column: "In progress",
      stateGroup: "started",
      index: 0,
    });
    expect(await w.call("cards_move", { id: a, afterCardId: b })).toMatchObject({ column: "In progress", index: 1 });
    expect(await inColumn(cols["In progress"]!)).toEqual([b, a]);
  });

  test("moves say what is wrong: no destination, both anchors, an anchor in another column, itself", async () => {
    const [x, y] = [await make("X"), await make("Y", "To do")];
    expect((await w.err("cards_move", { id: x })).message).toContain("Say where to");
    expect((await w.err("cards_move", { id: x, afterCardId: y, beforeCardId: y })).message).toBe(
      "Give afterCardId or beforeCardId, not both.",
    );
    expect((await w.err("cards_move", { id: x, columnId: "Backlog", afterCardId: y })).message).toContain(
      'is in another column ("To do")',
    );
    expect((await w.err("cards_move", { id: x, afterCardId: x })).message).toBe(
      "A card cannot be placed next to itself.",
    );
    expect((await w.err("cards_move", { id: x, columnId: "Shipping" })).message).toContain('No column "Shipping"');
  });

  test("placing many cards into one spot renumbers the column and keeps every order", async () => {
    const col = (await w.call("board_columns_create", { boardId: board, name: "Stack", stateGroup: "unstarted" })).id;
    const first = await make("First", col);
    const last = await make("Last", col);
    const between: string[] = [];
    // 20 placements right after "First": each lands before the previous one; the 65536 gap runs out after 16.
    for (let i = 0; i < 20; i++) {
      const k = await make(`Between ${i}`);
      await w.call("cards_move", { id: k, afterCardId: first });
      between.unshift(k);
    }
    expect(await inColumn(col)).toEqual([first, ...between, last]);
    const pos = (
      await w.store.query<{ position: number }>("SELECT position FROM cards WHERE column_id = ? ORDER BY position", [
        col,
      ])
    ).map((r) => Number(r.position));
    expect(new Set(pos).size).toBe(22);
    // A renumber happened: the last card is no longer at its first position, 2 × GAP.
    expect(pos.at(-1)).not.toBe(2 * GAP);
    expect(pos.every((p) => p > 0)).toBe(true);
  });

  test("done columns set completedAt; leaving clears it; the move event says so", async () => {
    const k = await make("Ship it");
    const r = await w.call("cards_move", { id: k, columnId: "done" });
    expect(r).toMatchObject({ column: "Done", stateGroup: "done" });
    expect((await w.call("cards_get", { id: k })).completedAt).toBe(w.clock.now().toISOString());
    const moved = (await w.deps.db.select().from(events).where(eq(events.type, "card.moved"))).at(-1)!.data as any;
    expect(moved).toMatchObject({
      key: k,
      fromStateGroup: "backlog",
      toStateGroup: "done",
      completed: true,
      toColumnId: cols.Done,
    });
    await w.call("cards_move", { id: k, columnId: "In review" });
    expect((await w.call("cards_get", { id: k })).completedAt).toBeNull();
  });
});

describe("WIP limits", () => {
  test("a full column refuses the next card naming its cards; moving within it is fine; raising the limit lets it in", async () => {
    const col = (
      await w.call("board_columns_create", {
        boardId: board,
        name: "Doing now",
        stateGroup: "started",
        wipLimit: 2,
        afterColumnId: cols["In progress"],
      })
    ).id;
    const [p, q, r] = [await make("P", col), await make("Q", col), await make("R")];
    const e = await w.err("cards_move", { id: r, columnId: "Doing now" });
    expect(e.code).toBe("conflict");
    expect(e.message).toBe(
      `Column "Doing now" is at its WIP limit: 2 of 2 cards (${p}, ${q}), so one more does not fit. Finish or move a card out first, or raise the limit with board_columns_update.`,
    );
    expect(e.details).toEqual({ columnId: col, wipLimit: 2, cards: 2 });
    expect((await w.err("cards_create", { projectId: "KAN", title: "S", columnId: col })).message).toContain(
      "WIP limit",
    );
    await w.call("cards_move", { id: q, position: "top" });
    expect(await inColumn(col)).toEqual([q, p]);
    const lowered = await w.call("board_columns_update", { id: col, wipLimit: 1 });
    expect(lowered.warnings).toEqual([
      '"Doing now" holds 2 cards, over its new limit of 1: no card can enter until it is under.',
    ]);
    await w.call("board_columns_update", { id: col, wipLimit: null });
    await w.call("cards_move", { id: r, columnId: col });
    expect((await w.call("boards_get", { id: board })).columns.find((c: any) => c.id === col)).toMatchObject({
      cardCount: 3,
      wipLimit: null,
    });
  });
});

describe("columns and boards", () => {
  test("create after a column, rename, reorder (every column once), names unique per board", async () => {
    const before = (await w.call("boards_get", { id: board, cardsPerColumn: 0 })).columns.map((c: any) => c.id);
    expect(
      (await w.err("board_columns_create", { boardId: board, name: "done", stateGroup: "done" })).message,
    ).toContain('already has a column "Done"');
    expect((await w.err("board_columns_reorder", { boardId: board, columnIds: before.slice(1) })).message).toContain(
      "every column",
    );
    const reversed = [...before].reverse();
    await w.call("board_columns_reorder", { boardId: board, columnIds: reversed });
    expect((await w.call("boards_get", { id: board, cardsPerColumn: 0 })).columns.map((c: any) => c.id)).toEqual(
      reversed,
    );
    await w.call("board_columns_reorder", { boardId: board, columnIds: before });
    expect(await w.call("board_columns_update", { id: cols["To do"], name: "Ready" })).toMatchObject({
      changed: ["name"],
    });
    expect((await w.call("cards_create", { projectId: "KAN", title: "ready?", columnId: "ready" })).column).toBe(
      "Ready",
    );
  });

  test("changing a column's state group moves its cards' state in the history", async () => {
    const col = (await w.call("board_columns_create", { boardId: board, name: "Shipped", stateGroup: "started" })).id;
    const k = await make("Shipped thing", col);
    await w.call("board_columns_update", { id: col, stateGroup: "done" });
    const got = await w.call("cards_get", { id: k, include: ["activity"] });
    expect(got.column.stateGroup).toBe("done");
    expect(got.completedAt).not.toBeNull();
    expect(got.activity[0]).toMatchObject({ action: "moved", detail: { stateGroup: ["started", "done"] } });
    expect(
      (await w.call("cards_list", { projectId: "KAN", stateGroups: ["done"] })).items.map((c: any) => c.key),
    ).toContain(k);
  });

  test("deleting a column with cards answers what is there; moveCardsToColumnId moves them; the last column stays", async () => {
    const col = (await w.call("board_columns_create", { boardId: board, name: "Parking", stateGroup: "backlog" })).id;
    const [a, b] = [await make("Parked A", col), await make("Parked B", col)];
    const rec = await w.call("card_recurrences_create", {
      projectId: "KAN",
      title: "Weekly",
      rule: "FREQ=WEEKLY",
      columnId: col,
    });
    const e = await w.err("board_columns_delete", { id: col });
    expect(e.code).toBe("conflict");
    expect(e.message).toBe(
      `Column "Parking" still holds 2 cards (e.g. ${a}, ${b}). Pass moveCardsToColumnId to move them to another column of KAN, or move them first.`,
    );
    const r = await w.call("board_columns_delete", { id: col, moveCardsToColumnId: cols.Backlog });
    expect(r).toEqual({ id: col, status: "deleted", movedCards: 2, recurrencesNowUseFirstColumn: [rec.id] });
    expect((await inColumn(cols.Backlog!)).slice(-2)).toEqual([a, b]);
    const single = await w.call("boards_create", {
      projectId: "KAN",
      name: "Single",
      columns: [{ name: "Only", stateGroup: "backlog" }],
    });
    expect((await w.err("board_columns_delete", { id: single.columns[0].id })).message).toContain("only column");
  });

  test("deleting a board with cards answers what is there; the last board stays", async () => {
    const extra = await w.call("boards_create", {
      projectId: "KAN",
      name: "Design board",
      columns: [
        { name: "Ideas", stateGroup: "backlog" },
        { name: "Approved", stateGroup: "done" },
      ],
    });
    const k = (await w.call("cards_create", { projectId: "KAN", title: "Moodboard", columnId: extra.columns[0].id }))
      .key;
    const e = await w.err("boards_delete", { id: extra.id });
    expect(e.message).toBe(
      `Board "Design board" still holds 1 cards ("Ideas": 1; e.g. ${k}). Pass moveCardsToColumnId (a column of another board of KAN) to move them there, or move them first.`,
    );
    expect(
      (await w.err("boards_delete", { id: extra.id, moveCardsToColumnId: extra.columns[1].id })).message,
    ).toContain("another board");
    expect(await w.call("boards_delete", { id: extra.id, moveCardsToColumnId: cols.Backlog })).toMatchObject({
      status: "deleted",
      movedCards: 1,
    });
    expect((await w.call("cards_get", { id: k })).board.id).toBe(board);
    const solo = await w.call("projects_create", { name: "Solo", key: "SOLO" });
    expect((await w.err("boards_delete", { id: solo.board.id })).message).toContain("only board");
  });

  test("boards_get shows columns with counts and top cards", async () => {
    const b = await w.call("boards_get", { id: board, cardsPerColumn: 2 });
    const backlog = b.columns.find((c: any) => c.name === "Backlog");
    expect(backlog.cards.length).toBe(2);
    expect(backlog.cardCount).toBeGreaterThan(2);
    expect(b).toMatchObject({ projectKey: "KAN", name: "Board" });
  });
});

describe("bulk changes", () => {
  test("move and change many cards at once; adds and removes labels and people; events per card", async () => {
    await w.call("project_labels_create", { projectId: "KAN", name: "Urgent" });
    const keys = [await make("Bulk 1"), await make("Bulk 2"), await make("Bulk 3")];
    await w.call("cards_update", { id: keys[0], assignees: ["priya@acme.test"] });
    const r = await w.call("cards_bulk_update", {
      ids: [...keys, keys[0]],
      columnId: "In review",
      priority: 2,
      addLabels: ["urgent"],
      addAssignees: ["me"],
      removeAssignees: ["priya@acme.test"],
    });
    expect(r.updated).toBe(3);
    expect(r.cards.map((c: any) => c.key)).toEqual(keys);
    expect(r.cards[0].changed).toEqual(["priority", "labels", "assignees", "column"]);
    for (const k of keys) {
      const c = await w.call("cards_get", { id: k });
      expect(c).toMatchObject({ priority: 2, column: { name: "In review" }, labels: [{ name: "Urgent" }] });
      expect(c.assignees.map((a: any) => a.id)).toEqual([w.users.owner]);
    }
    expect(
      (await w.call("cards_list", { columnId: cols["In review"], limit: 100 })).items.slice(-3).map((c: any) => c.key),
    ).toEqual(keys);
  });

  test("one bad card refuses the whole call and changes nothing", async () => {
    const keys = [await make("Safe 1"), await make("Safe 2")];
    await w.call("projects_create", { name: "Elsewhere", key: "ELS" });
    const other = (await w.call("cards_create", { projectId: "ELS", title: "Other" })).key;
    const e = await w.err("cards_bulk_update", { ids: [...keys, other], addLabels: ["Urgent"] });
    expect(e.message).toBe(
      'Label "Urgent" is not a label of project ELS; it has no labels yet (project_labels_create).',
    );
    for (const k of keys) expect((await w.call("cards_get", { id: k })).labels).toEqual([]);
    expect((await w.err("cards_bulk_update", { ids: keys })).message).toContain("Nothing to change");
    expect((await w.err("cards_bulk_update", { ids: [...keys, "KAN-9999"], priority: 1 })).code).toBe("not_found");
    expect((await w.call("cards_get", { id: keys[0] })).priority).toBe(0);
  });
});
