/**
 * Who is on a project: people of the company added or removed by id, email
 * or "me" (resolved in access.ts); each change is audited and announced.
 */
import { and, eq, inArray } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { peopleFor, projectFor, write } from "./access";
import { projectMembersChanged } from "./events";
import type { projectMembersInput } from "./schemas";
import { projectMembers } from "./tables";

export async function addProjectMembers(ctx: ActorContext, input: v.InferOutput<typeof projectMembersInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const p = await projectFor(tx, ctx, input.projectId);
    const people = await peopleFor(tx, ctx, input.users);
    const have = (
      await tx.select({ u: projectMembers.userId }).from(projectMembers).where(eq(projectMembers.projectId, p.id))
    ).map((r) => r.u);
    const added = people.filter((x) => !have.includes(x.id));
    if (added.length)
      await tx.insert(projectMembers).values(added.map((x) => ({ projectId: p.id, userId: x.id, createdAt: at })));
    if (added.length) {
      await audit(tx, ctx, "projects.members_add", {
        type: "project",
        id: p.id,
        detail: { userIds: added.map((x) => x.id) },
      });
      await emit(
        tx,
        ctx,
        projectMembersChanged,
        { id: p.id },
        { key: p.key, name: p.name, addedUserIds: added.map((x) => x.id), removedUserIds: [] },
      );
    }
    return { projectId: p.id, key: p.key, added: added.map((x) => x.email), members: have.length + added.length };
  });
}

export async function removeProjectMembers(ctx: ActorContext, input: v.InferOutput<typeof projectMembersInput>) {
  return write(ctx, async (tx) => {
    const p = await projectFor(tx, ctx, input.projectId);
    const people = await peopleFor(tx, ctx, input.users);
    const ids = people.map((x) => x.id);
    const removed = (
      await tx
        .delete(projectMembers)
        .where(and(eq(projectMembers.projectId, p.id), inArray(projectMembers.userId, ids)))
        .returning({ u: projectMembers.userId })
    ).map((r) => r.u);
    if (removed.length) {
      await audit(tx, ctx, "projects.members_remove", { type: "project", id: p.id, detail: { userIds: removed } });
      await emit(
        tx,
        ctx,
        projectMembersChanged,
        { id: p.id },
        { key: p.key, name: p.name, addedUserIds: [], removedUserIds: removed },
      );
    }
    return { projectId: p.id, key: p.key, removed: people.filter((x) => removed.includes(x.id)).map((x) => x.email) };
  });
}
