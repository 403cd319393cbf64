/** Typed relationships as tools: add, remove, list from either end. */
import { and, eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { readAccess, recordFor, writeAccess, type RecordRef } from "./access";
import { relationChanged } from "./events";
import { addEdge, relationsOf, storedRelation, type RelationName } from "./links";
import { holdIfNeeded } from "./review";
import { brainRelations } from "./tables";

export async function changeRelation(
  ctx: ActorContext,
  input: { fromId: RecordRef; type: RelationName; toId: RecordRef },
  action: "added" | "removed",
) {
  writeAccess(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const from = await recordFor(tx, ctx, input.fromId);
    const to = await recordFor(tx, ctx, input.toId);
    if (from.id === to.id) throw invalid("A record cannot be related to itself.");
    const tool = action === "added" ? "brain_relations_add" : "brain_relations_remove";
    const held = await holdIfNeeded(tx, ctx, {
      tool,
      input: { fromId: from.id, type: input.type, toId: to.id },
      record: null,
      title: `${action === "added" ? "Relate" : "Unrelate"}: ${from.title} ${input.type} ${to.title}`,
    });
    if (held) return held;
    // Named from either end; stored once, in the direction of its forward type.
    const { type, reversed } = storedRelation(input.type);
    const [src, dst] = reversed ? [to, from] : [from, to];
    const at = ctx.deps.clock.now();
    let changed: boolean;
    if (action === "added") changed = await addEdge(tx, ctx.company.id, src.id, dst.id, type, ctx.principal.userId, at);
    else
      changed =
        (
          await tx
            .delete(brainRelations)
            .where(
              and(eq(brainRelations.fromId, src.id), eq(brainRelations.toId, dst.id), eq(brainRelations.type, type)),
            )
            .returning({ id: brainRelations.id })
        ).length > 0;
    if (changed) {
      await audit(tx, ctx, `brain.relation.${action === "added" ? "add" : "remove"}`, {
        type: "brain_record",
        id: src.id,
        detail: { type, toId: dst.id },
      });
      await emit(
        tx,
        ctx,
        relationChanged,
        { id: src.id },
        { action, type, fromId: src.id, toId: dst.id, fromTitle: src.title, toTitle: dst.title },
      );
    }
    return {
      fromId: from.id,
      type: input.type,
      toId: to.id,
      status: action === "added" ? "related" : "unrelated",
      changed,
    };
  });
}

export async function listRelations(ctx: ActorContext, input: { id: RecordRef; type?: RelationName }) {
  readAccess(ctx);
  const row = await recordFor(ctx.deps.db, ctx, input.id);
  return { id: row.id, title: row.title, relations: await relationsOf(ctx.deps.db, row, input.type) };
}
