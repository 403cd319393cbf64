/**
 * What a person still owns in a company's projects, so the team domain can
 * answer a member's removal with the open work it would orphan (cards they
 * are assigned to, projects they lead) before it happens. Reads only.
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { Q } from "./access";
import { boardColumns, cardAssignees, cards, projects } from "./tables";

export interface OpenWork {
  /** Open cards (not done, not cancelled) the person is assigned to. */
  openCards: number;
  /** Up to 10 of their keys, oldest first. */
  keys: string[];
  /** Projects the person leads. */
  leads: string[];
}

export async function openWorkOf(q: Q, companyId: number, userId: number): Promise<OpenWork> {
  const where = and(
    eq(cards.companyId, companyId),
    eq(cardAssignees.userId, userId),
    inArray(boardColumns.stateGroup, ["backlog", "unstarted", "started"]),
  );
  const n = (await q
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(cardAssignees)
    .innerJoin(cards, eq(cards.id, cardAssignees.cardId))
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .where(where)
    .limit(1))[0]!.n;
  const some = await q
    .select({ key: projects.key, number: cards.number })
    .from(cardAssignees)
    .innerJoin(cards, eq(cards.id, cardAssignees.cardId))
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .innerJoin(projects, eq(projects.id, cards.projectId))
    .where(where)
    .orderBy(asc(cards.id))
    .limit(10);
  const leads = await q.select({ key: projects.key }).from(projects).where(and(eq(projects.companyId, companyId), eq(projects.leadUserId, userId))).orderBy(asc(projects.id));
  return { openCards: n, keys: some.map((r) => `${r.key}-${r.number}`), leads: leads.map((l) => l.key) };
}
