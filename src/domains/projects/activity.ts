/**
 * A card's activity history: one row per change, written by the verb in the
 * change's transaction. Besides what changed (detail), each row records the
 * card's sprint, estimate and state group after the change: the sprint maths
 * (sprint-maths.ts) replays these rows, so burndown and velocity are computed
 * from what happened, never from numbers stored along the way.
 */
import { desc, eq } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import { iso } from "../../core/clock";
import type { CardRow, Q } from "./access";
import { cardActivity, type StateGroup } from "./tables";

export async function logActivity(
  tx: Q,
  actor: { ctx: ActorContext | null; at: Date },
  card: Pick<CardRow, "id" | "projectId" | "sprintId" | "estimate">,
  stateGroup: StateGroup | "deleted",
  action: string,
  detail: Record<string, unknown>,
): Promise<void> {
  await tx.insert(cardActivity).values({
    cardId: card.id,
    projectId: card.projectId,
    userId: actor.ctx?.principal.userId ?? null,
    action,
    detail,
    sprintId: stateGroup === "deleted" ? null : card.sprintId,
    estimate: card.estimate,
    stateGroup,
    at: actor.at,
  });
}

export async function activityOf(q: Q, cardId: number, limit: number) {
  const rows = await q
    .select()
    .from(cardActivity)
    .where(eq(cardActivity.cardId, cardId))
    .orderBy(desc(cardActivity.at), desc(cardActivity.id))
    .limit(limit);
  return rows.map((r) => ({ at: iso(r.at)!, userId: r.userId, action: r.action, detail: r.detail }));
}
