/**
 * Card order within a column: gap ordering on integers. Positions are
 * positive and unique per column (a unique index); a card placed between
 * two neighbours takes the midpoint, at the bottom the last + GAP, at the
 * top half the first. When two neighbours leave no integer between them
 * (after ~16 placements into the same spot) the column is renumbered
 * GAP apart inside the same transaction, so positions never tie and one
 * placement rewrites at most one column.
 *
 * Integers rather than fractional strings: they order the same on both
 * engines whatever the database collation, and the (column, position) index
 * serves every neighbour lookup.
 *
 * Concurrency: every move into a column first writes that column's row
 * (touchColumn), so concurrent placements into one column serialise — on
 * SQLite by its single writer, on PostgreSQL because SERIALIZABLE makes the
 * second writer of the row retry with fresh neighbours.
 */
import { and, asc, desc, eq, gt, lt, sql } from "drizzle-orm";
import type { Q } from "./access";
import { boardColumns, cards } from "./tables";

export const GAP = 65536;
/** Temporary positions during a renumber: far below any parked card (-id). */
const TEMP_BASE = -(2 ** 50);

export type Place =
  | { top: true }
  | { bottom: true }
  | { after: { id: number; position: number } }
  | { before: { id: number; position: number } };

export async function touchColumn(tx: Q, columnId: number): Promise<void> {
  await tx
    .update(boardColumns)
    .set({ version: sql`${boardColumns.version} + 1` })
    .where(eq(boardColumns.id, columnId));
}

/** Takes a card out of its column's order while it is being placed again in the same column. */
export async function park(tx: Q, cardId: number): Promise<void> {
  await tx.update(cards).set({ position: -cardId }).where(eq(cards.id, cardId));
}

const live = (columnId: number) => and(eq(cards.columnId, columnId), gt(cards.position, 0));

async function edge(tx: Q, columnId: number, last: boolean): Promise<number | null> {
  const r = await tx
    .select({ p: cards.position })
    .from(cards)
    .where(live(columnId))
    .orderBy(last ? desc(cards.position) : asc(cards.position))
    .limit(1);
  return r[0]?.p ?? null;
}

async function neighbour(tx: Q, columnId: number, of: number, after: boolean): Promise<number | null> {
  const r = await tx
    .select({ p: cards.position })
    .from(cards)
    .where(and(live(columnId), after ? gt(cards.position, of) : lt(cards.position, of)))
    .orderBy(after ? asc(cards.position) : desc(cards.position))
    .limit(1);
  return r[0]?.p ?? null;
}

/** Rewrites a column's positions GAP apart, keeping their order; returns id → new position. */
async function renumber(tx: Q, columnId: number): Promise<Map<number, number>> {
  const rows = await tx.select({ id: cards.id }).from(cards).where(live(columnId)).orderBy(asc(cards.position));
  // Two passes: the unique (column, position) index is checked row by row on both engines.
  for (let i = 0; i < rows.length; i++)
    await tx
      .update(cards)
      .set({ position: TEMP_BASE + i })
      .where(eq(cards.id, rows[i]!.id));
  const out = new Map<number, number>();
  for (let i = 0; i < rows.length; i++) {
    const p = (i + 1) * GAP;
    await tx.update(cards).set({ position: p }).where(eq(cards.id, rows[i]!.id));
    out.set(rows[i]!.id, p);
  }
  return out;
}

/**
 * The position for a card placed at `place` in `columnId` (the card itself
 * must not hold a live position there: new, in another column, or parked).
 */
export async function positionFor(tx: Q, columnId: number, place: Place): Promise<number> {
  for (let attempt = 0; attempt < 2; attempt++) {
    if ("bottom" in place) {
      const last = await edge(tx, columnId, true);
      return last === null ? GAP : last + GAP;
    }
    if ("top" in place) {
      const first = await edge(tx, columnId, false);
      if (first === null) return GAP;
      if (first >= 2) return Math.floor(first / 2);
    } else {
      const anchor = "after" in place ? place.after : place.before;
      const other = await neighbour(tx, columnId, anchor.position, "after" in place);
      if ("after" in place && other === null) return anchor.position + GAP;
      const lo = "after" in place ? anchor.position : (other ?? 0);
      const hi = "after" in place ? other! : anchor.position;
      if (hi - lo >= 2) return lo + Math.floor((hi - lo) / 2);
    }
    // No integer left between the neighbours: spread the column out and look again.
    const moved = await renumber(tx, columnId);
    if ("after" in place) place = { after: { id: place.after.id, position: moved.get(place.after.id)! } };
    if ("before" in place) place = { before: { id: place.before.id, position: moved.get(place.before.id)! } };
  }
  throw new Error("no position after renumbering the column");
}
