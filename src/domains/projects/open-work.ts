/**
 * What a person still owns in a company's projects, so the team domain can
 * answer a member's removal with the open work it would orphan (cards they
 * are assigned to, projects they lead) before it happens; and the hand-over
 * the removal performs when told to whom (or to nobody), through the same
 * card changes cards_update makes (activity, card.assigned / unassigned
 * events, so the new assignee is notified) and a project.updated per lead.
 *
 * @public Serves team (a member's removal and the hand-over of their cards).
 */
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { emit } from "../../core/events";
import { cardKey, type Q } from "./access";
import { applyCardChanges, assigneeIds } from "./cards";
import { projectUpdated } from "./events";
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
  const n = (
    await q
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(cardAssignees)
      .innerJoin(cards, eq(cards.id, cardAssignees.cardId))
      .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
      .where(where)
      .limit(1)
  )[0]!.n;
  const some = await q
    .select({ key: projects.key, number: cards.number })
    .from(cardAssignees)
    .innerJoin(cards, eq(cards.id, cardAssignees.cardId))
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .innerJoin(projects, eq(projects.id, cards.projectId))
    .where(where)
    .orderBy(asc(cards.id))
    .limit(10);
  const leads = await q
    .select({ key: projects.key })
    .from(projects)
    .where(and(eq(projects.companyId, companyId), eq(projects.leadUserId, userId)))
    .orderBy(asc(projects.id));
  return { openCards: n, keys: some.map((r) => `${r.key}-${r.number}`), leads: leads.map((l) => l.key) };
}

/**
 * Takes `fromUserId` off every open card of the company (putting
 * `toUserId` on it instead, unless null or already there) and hands over
 * the projects they lead. Returns the card keys and project keys touched.
 */
export async function handOverOpenWork(
  tx: Db,
  ctx: ActorContext,
  fromUserId: number,
  toUserId: number | null,
): Promise<{ cards: string[]; leads: string[] }> {
  const at = ctx.deps.clock.now();
  const open = await tx
    .select({ card: cards, project: projects })
    .from(cardAssignees)
    .innerJoin(cards, eq(cards.id, cardAssignees.cardId))
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .innerJoin(projects, eq(projects.id, cards.projectId))
    .where(
      and(
        eq(cards.companyId, ctx.company.id),
        eq(cardAssignees.userId, fromUserId),
        inArray(boardColumns.stateGroup, ["backlog", "unstarted", "started"]),
      ),
    )
    .orderBy(asc(cards.id));
  const keys: string[] = [];
  for (const { card, project } of open) {
    const now = (await assigneeIds(tx, card.id)).filter((u) => u !== fromUserId);
    if (toUserId !== null && !now.includes(toUserId)) now.push(toUserId);
    await applyCardChanges(tx, ctx, project, card, {}, { assignees: now }, at);
    keys.push(cardKey(project, card));
  }
  const led = await tx
    .select()
    .from(projects)
    .where(and(eq(projects.companyId, ctx.company.id), eq(projects.leadUserId, fromUserId)))
    .orderBy(asc(projects.id));
  for (const p of led) {
    await tx.update(projects).set({ leadUserId: toUserId, updatedAt: at }).where(eq(projects.id, p.id));
    await audit(tx, ctx, "projects.update", {
      type: "project",
      id: p.id,
      detail: { fields: ["leadUserId"], reason: "member_removed" },
    });
    await emit(
      tx,
      ctx,
      projectUpdated,
      { id: p.id },
      { key: p.key, name: p.name, changes: { leadUserId: [fromUserId, toUserId] } },
    );
  }
  return { cards: keys, leads: led.map((p) => p.key) };
}
