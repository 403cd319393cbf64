/** A project's milestones: named dates cards can be aimed at. */
import { and, eq, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { projectFor, write, type Q } from "./access";
import { milestoneChanged } from "./events";
import type { milestoneCreateInput, milestoneUpdateInput } from "./schemas";
import { cards, milestones, projects } from "./tables";

async function milestoneFor(q: Q, ctx: ActorContext, id: number) {
  const row = (
    await q
      .select({ milestone: milestones, project: projects })
      .from(milestones)
      .innerJoin(projects, eq(projects.id, milestones.projectId))
      .where(and(eq(milestones.id, id), eq(projects.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Milestone ${id} not found.`);
  return row;
}

export async function createMilestone(ctx: ActorContext, input: v.InferOutput<typeof milestoneCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const p = await projectFor(tx, ctx, input.projectId);
    const m = (
      await tx
        .insert(milestones)
        .values({
          projectId: p.id,
          name: input.name.trim(),
          description: input.description ?? null,
          targetDate: input.targetDate ?? null,
          createdAt: at,
          updatedAt: at,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "milestones.create", { type: "milestone", id: m.id, detail: { projectId: p.id } });
    await emit(
      tx,
      ctx,
      milestoneChanged,
      { id: m.id },
      { projectId: p.id, action: "created", name: m.name, targetDate: m.targetDate },
    );
    return { id: m.id, name: m.name, targetDate: m.targetDate, projectKey: p.key };
  });
}

export async function updateMilestone(ctx: ActorContext, input: v.InferOutput<typeof milestoneUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { milestone, project } = await milestoneFor(tx, ctx, input.id);
    const set: Partial<typeof milestones.$inferInsert> = {};
    if (input.name !== undefined) set.name = input.name.trim();
    if (input.description !== undefined) set.description = input.description;
    if (input.targetDate !== undefined) set.targetDate = input.targetDate;
    const m = (
      await tx
        .update(milestones)
        .set({ ...set, updatedAt: at })
        .where(eq(milestones.id, milestone.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "milestones.update", { type: "milestone", id: m.id, detail: { fields: Object.keys(set) } });
    await emit(
      tx,
      ctx,
      milestoneChanged,
      { id: m.id },
      { projectId: project.id, action: "updated", name: m.name, targetDate: m.targetDate },
    );
    return { id: m.id, name: m.name, targetDate: m.targetDate };
  });
}

export async function deleteMilestone(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const { milestone, project } = await milestoneFor(tx, ctx, input.id);
    const on = (
      await tx
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(cards)
        .where(eq(cards.milestoneId, milestone.id))
        .limit(1)
    )[0]!.n;
    await tx.delete(milestones).where(eq(milestones.id, milestone.id));
    await audit(tx, ctx, "milestones.delete", {
      type: "milestone",
      id: milestone.id,
      detail: { name: milestone.name, cards: on },
    });
    await emit(
      tx,
      ctx,
      milestoneChanged,
      { id: milestone.id },
      { projectId: project.id, action: "deleted", name: milestone.name, targetDate: milestone.targetDate },
    );
    return { id: milestone.id, status: "deleted", ...(on ? { cardsDetached: on } : {}) };
  });
}
