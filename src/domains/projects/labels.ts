/**
 * A project's labels: a name unique within the project (case-insensitive)
 * and a colour (the next of a fixed palette when none is given). Deleting a
 * label takes it off every card.
 */
import { and, asc, eq, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { conflict, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { asciiLower, byText } from "../../core/sql";
import { projectFor, readAccess, write, type Q } from "./access";
import { labelChanged } from "./events";
import type { labelCreateInput, labelUpdateInput } from "./schemas";
import { cardLabels, projectLabels, projects } from "./tables";

const LABEL_COLOURS = ["#2563eb", "#dc2626", "#16a34a", "#9333ea", "#ea580c", "#0891b2", "#ca8a04", "#db2777"];

async function labelFor(q: Q, ctx: ActorContext, id: number) {
  const row = (
    await q
      .select({ label: projectLabels, project: projects })
      .from(projectLabels)
      .innerJoin(projects, eq(projects.id, projectLabels.projectId))
      .where(and(eq(projectLabels.id, id), eq(projects.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Label ${id} not found.`);
  return row;
}

async function labelNameFree(q: Q, projectId: number, name: string, except?: number) {
  const dup = (
    await q
      .select({ id: projectLabels.id, name: projectLabels.name })
      .from(projectLabels)
      .where(and(eq(projectLabels.projectId, projectId), eq(projectLabels.nameKey, asciiLower(name))))
      .limit(1)
  )[0];
  if (dup && dup.id !== except) throw conflict(`This project already has a label "${dup.name}" (label ${dup.id}).`);
}

export async function listLabels(ctx: ActorContext, input: { projectId: number | string }) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const p = await projectFor(db, ctx, input.projectId);
  const rows = await db
    .select({
      id: projectLabels.id,
      name: projectLabels.name,
      color: projectLabels.color,
      description: projectLabels.description,
    })
    .from(projectLabels)
    .where(eq(projectLabels.projectId, p.id))
    .orderBy(asc(byText(projectLabels.nameKey)));
  return { projectId: p.id, key: p.key, labels: rows };
}

export async function createLabel(ctx: ActorContext, input: v.InferOutput<typeof labelCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const p = await projectFor(tx, ctx, input.projectId);
    const name = input.name.trim();
    await labelNameFree(tx, p.id, name);
    const count = (
      await tx
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(projectLabels)
        .where(eq(projectLabels.projectId, p.id))
        .limit(1)
    )[0]!.n;
    const color = (input.color ?? LABEL_COLOURS[count % LABEL_COLOURS.length]!).toLowerCase();
    const l = (
      await tx
        .insert(projectLabels)
        .values({
          projectId: p.id,
          name,
          nameKey: asciiLower(name),
          color,
          description: input.description ?? null,
          createdAt: at,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "labels.create", { type: "label", id: l.id, detail: { projectId: p.id, name } });
    await emit(tx, ctx, labelChanged, { id: l.id }, { projectId: p.id, action: "created", name, color });
    return { id: l.id, name, color, projectKey: p.key };
  });
}

export async function updateLabel(ctx: ActorContext, input: v.InferOutput<typeof labelUpdateInput>) {
  return write(ctx, async (tx) => {
    const { label, project } = await labelFor(tx, ctx, input.id);
    const set: Partial<typeof projectLabels.$inferInsert> = {};
    if (input.name !== undefined) {
      const name = input.name.trim();
      await labelNameFree(tx, project.id, name, label.id);
      set.name = name;
      set.nameKey = asciiLower(name);
    }
    if (input.color !== undefined) set.color = input.color.toLowerCase();
    if (input.description !== undefined) set.description = input.description;
    const l = Object.keys(set).length
      ? (await tx.update(projectLabels).set(set).where(eq(projectLabels.id, label.id)).returning())[0]!
      : label;
    await audit(tx, ctx, "labels.update", { type: "label", id: l.id, detail: { fields: Object.keys(set) } });
    await emit(
      tx,
      ctx,
      labelChanged,
      { id: l.id },
      { projectId: project.id, action: "updated", name: l.name, color: l.color },
    );
    return { id: l.id, name: l.name, color: l.color };
  });
}

export async function deleteLabel(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const { label, project } = await labelFor(tx, ctx, input.id);
    const on = (
      await tx
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(cardLabels)
        .where(eq(cardLabels.labelId, label.id))
        .limit(1)
    )[0]!.n;
    await tx.delete(projectLabels).where(eq(projectLabels.id, label.id));
    await audit(tx, ctx, "labels.delete", { type: "label", id: label.id, detail: { name: label.name, cards: on } });
    await emit(
      tx,
      ctx,
      labelChanged,
      { id: label.id },
      { projectId: project.id, action: "deleted", name: label.name, color: label.color },
    );
    return { id: label.id, name: label.name, status: "deleted", removedFromCards: on };
  });
}
