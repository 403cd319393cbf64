/**
 * Sprint numbers, computed by replaying card_activity (activity.ts): every
 * row holds a card's sprint, estimate and state group after a change, so a
 * card's state at any instant is its last row at or before that instant.
 *
 * At an instant T, for sprint S, a card counts when its state at T is in S:
 *   scope     = points of its cards that are not cancelled,
 *   completed = points of its cards in a done column,
 *   remaining = scope − completed.
 * Committed is the scope when the sprint started. For a closed sprint every
 * figure is taken just before its close moved the unfinished cards on
 * (rows the close wrote are left out), so carry-over never looks like work
 * done. Cards without an estimate count 0 points (and 1 card).
 *
 * Burndown: one point per calendar day of the sprint in the project's time
 * zone, at the end of that day (or now for today, or the close for the day
 * it closed); the ideal line falls evenly from committed to 0 over all the
 * sprint's days. Calendar days, weekends included.
 */
import { and, asc, inArray } from "drizzle-orm";
import type { Q } from "./access";
import { addDays, dayStart, daysBetween } from "./access";
import { cardActivity } from "./tables";

export interface HistoryRow {
  cardId: number;
  id: number;
  at: number;
  action: string;
  sprintId: number | null;
  estimate: number | null;
  stateGroup: string;
}

/** The action the close writes for each card it carries over: left out when judging the closed sprint. */
export const CARRIED_OVER = "carried_over";

/** Every history row of every card that was ever in one of `sprintIds`, per card in order. */
export async function sprintHistory(q: Q, sprintIds: number[]): Promise<Map<number, HistoryRow[]>> {
  const out = new Map<number, HistoryRow[]>();
  if (!sprintIds.length) return out;
  const ever = q
    .selectDistinct({ cardId: cardActivity.cardId })
    .from(cardActivity)
    .where(inArray(cardActivity.sprintId, sprintIds));
  const rows = await q
    .select({
      cardId: cardActivity.cardId,
      id: cardActivity.id,
      at: cardActivity.at,
      action: cardActivity.action,
      sprintId: cardActivity.sprintId,
      estimate: cardActivity.estimate,
      stateGroup: cardActivity.stateGroup,
    })
    .from(cardActivity)
    .where(and(inArray(cardActivity.cardId, ever)))
    .orderBy(asc(cardActivity.cardId), asc(cardActivity.at), asc(cardActivity.id));
  for (const r of rows) {
    const list = out.get(r.cardId) ?? [];
    list.push({ ...r, at: r.at.getTime() });
    out.set(r.cardId, list);
  }
  return out;
}

export interface Figures {
  scopePoints: number;
  completedPoints: number;
  remainingPoints: number;
  scopeCards: number;
  completedCards: number;
  remainingCards: number;
}

/** The card's state at `t`: its last row at or before t (a closed sprint's own carry-over rows left out). */
function stateAt(rows: HistoryRow[], t: number, ignoreCarryFrom: number | null): HistoryRow | null {
  let found: HistoryRow | null = null;
  for (const r of rows) {
    if (r.at > t) break;
    if (ignoreCarryFrom !== null && r.action === CARRIED_OVER && r.at === t) continue;
    found = r;
  }
  return found;
}

/** Scope, completed and remaining of `sprintId` at instant `t`. */
export function figuresAt(
  history: Map<number, HistoryRow[]>,
  sprintId: number,
  t: number,
  closedAt: number | null,
): Figures {
  const f: Figures = {
    scopePoints: 0,
    completedPoints: 0,
    remainingPoints: 0,
    scopeCards: 0,
    completedCards: 0,
    remainingCards: 0,
  };
  // At the close instant itself, the close's carry-over rows are not yet "what happened in the sprint".
  const ignore = closedAt !== null && t >= closedAt ? sprintId : null;
  const at = closedAt !== null ? Math.min(t, closedAt) : t;
  for (const rows of history.values()) {
    const s = stateAt(rows, at, ignore);
    if (!s || s.sprintId !== sprintId || s.stateGroup === "deleted" || s.stateGroup === "cancelled") continue;
    const pts = s.estimate ?? 0;
    f.scopePoints += pts;
    f.scopeCards++;
    if (s.stateGroup === "done") {
      f.completedPoints += pts;
      f.completedCards++;
    }
  }
  f.remainingPoints = f.scopePoints - f.completedPoints;
  f.remainingCards = f.scopeCards - f.completedCards;
  return f;
}

export interface SprintTimes {
  id: number;
  startDate: string;
  endDate: string;
  startedAt: Date | null;
  closedAt: Date | null;
}

export function committedOf(history: Map<number, HistoryRow[]>, s: SprintTimes): number | null {
  return s.startedAt ? figuresAt(history, s.id, s.startedAt.getTime(), null).scopePoints : null;
}

export interface BurndownPoint {
  date: string;
  /** The instant the figures are taken at (ISO). */
  at: string;
  scopePoints: number;
  completedPoints: number;
  remainingPoints: number;
  remainingCards: number;
  idealPoints: number;
}

export function burndown(
  history: Map<number, HistoryRow[]>,
  s: SprintTimes,
  timeZone: string,
  now: number,
): { committed: number | null; days: number; points: BurndownPoint[] } {
  const days = daysBetween(s.startDate, s.endDate) + 1;
  if (!s.startedAt) return { committed: null, days, points: [] };
  const committed = committedOf(history, s)!;
  const stop = Math.min(now, s.closedAt?.getTime() ?? Infinity);
  const points: BurndownPoint[] = [];
  for (let i = 0; i < days; i++) {
    const date = addDays(s.startDate, i);
    if (dayStart(timeZone, date).getTime() > stop) break;
    const t = Math.min(dayStart(timeZone, addDays(date, 1)).getTime(), stop);
    const f = figuresAt(history, s.id, t, s.closedAt?.getTime() ?? null);
    points.push({
      date,
      at: new Date(t).toISOString(),
      scopePoints: f.scopePoints,
      completedPoints: f.completedPoints,
      remainingPoints: f.remainingPoints,
      remainingCards: f.remainingCards,
      idealPoints: Math.round(((committed * (days - (i + 1))) / days) * 100) / 100,
    });
  }
  return { committed, days, points };
}
