/**
 * Sprints: planned → active → closed, one active sprint per project (checked
 * here and held by a unique index under races). A sprint holds cards of its
 * own project only. Closing moves its unfinished cards (not done, not
 * cancelled) to the sprint the caller names, the next planned sprint
 * ("next", the default: the earliest planned by start date) or the backlog
 * (no sprint). Committed, completed, velocity and burndown come from the
 * card history (sprint-maths.ts).
 */
import { and, asc, desc, eq, inArray, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { users } from "../../core/tables";
import {
  cardFor,
  cardKey,
  projectFor,
  readAccess,
  sprintFor,
  write,
  type ProjectRow,
  type Q,
  type SprintRow,
} from "./access";
import { logActivity } from "./activity";
import { applyCardChanges } from "./cards";
import { sprintChanged, sprintClosed, sprintScopeChanged, sprintStarted } from "./events";
import type {
  sprintCardsInput,
  sprintCloseInput,
  sprintCreateInput,
  sprintListInput,
  sprintUpdateInput,
  velocityInput,
} from "./schemas";
import { burndown, CARRIED_OVER, committedOf, figuresAt, sprintHistory } from "./sprint-maths";
import { boardColumns, cardAssignees, cards, sprints, timeLogs } from "./tables";

const facts = (p: ProjectRow, s: SprintRow) => ({
  projectId: p.id,
  projectKey: p.key,
  name: s.name,
  startDate: s.startDate,
  endDate: s.endDate,
});

const OPEN = ["backlog", "unstarted", "started"] as const;

export async function createSprint(ctx: ActorContext, input: v.InferOutput<typeof sprintCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const p = await projectFor(tx, ctx, input.projectId);
    if (input.endDate < input.startDate) throw invalid("endDate must be on or after startDate.");
    const n = (
      await tx
        .select({ n: sql<number>`count(*)`.mapWith(Number) })
        .from(sprints)
        .where(eq(sprints.projectId, p.id))
        .limit(1)
    )[0]!.n;
    const s = (
      await tx
        .insert(sprints)
        .values({
          projectId: p.id,
          name: input.name?.trim() ?? `Sprint ${n + 1}`,
          goal: input.goal ?? null,
          startDate: input.startDate,
          endDate: input.endDate,
          createdAt: at,
          updatedAt: at,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "sprints.create", { type: "sprint", id: s.id, detail: { projectId: p.id } });
    await emit(tx, ctx, sprintChanged, { id: s.id }, { ...facts(p, s), action: "created", changes: {} });
    return { id: s.id, name: s.name, status: s.status, startDate: s.startDate, endDate: s.endDate, projectKey: p.key };
  });
}

export async function updateSprint(ctx: ActorContext, input: v.InferOutput<typeof sprintUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { sprint, project } = await sprintFor(tx, ctx, input.id);
    const set: Partial<typeof sprints.$inferInsert> = {};
    if (input.name !== undefined) set.name = input.name.trim();
    if (input.goal !== undefined) set.goal = input.goal;
    if (input.startDate !== undefined) set.startDate = input.startDate;
    if (input.endDate !== undefined) set.endDate = input.endDate;
    if (sprint.status === "closed" && (set.startDate || set.endDate))
      throw invalid(`Sprint "${sprint.name}" is closed; its dates are history.`);
    if ((set.endDate ?? sprint.endDate) < (set.startDate ?? sprint.startDate))
      throw invalid("endDate must be on or after startDate.");
    const changes: Record<string, [unknown, unknown]> = {};
    for (const [k, val] of Object.entries(set))
      if (sprint[k as keyof SprintRow] !== val) changes[k] = [sprint[k as keyof SprintRow], val];
    const s = (
      await tx
        .update(sprints)
        .set({ ...set, updatedAt: at })
        .where(eq(sprints.id, sprint.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "sprints.update", { type: "sprint", id: s.id, detail: { fields: Object.keys(changes) } });
    await emit(tx, ctx, sprintChanged, { id: s.id }, { ...facts(project, s), action: "updated", changes });
    return { id: s.id, name: s.name, changed: Object.keys(changes) };
  });
}

async function sprintCardRows(q: Q, sprintId: number) {
  return q
    .select({
      id: cards.id,
      number: cards.number,
      title: cards.title,
      estimate: cards.estimate,
      stateGroup: boardColumns.stateGroup,
      column: boardColumns.name,
    })
    .from(cards)
    .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
    .where(eq(cards.sprintId, sprintId))
    .orderBy(asc(cards.number));
}

export async function startSprint(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { sprint, project } = await sprintFor(tx, ctx, input.id);
    if (sprint.status !== "planned")
      throw conflict(`Sprint "${sprint.name}" is ${sprint.status}; only a planned sprint can start.`);
    const active = (
      await tx
        .select()
        .from(sprints)
        .where(and(eq(sprints.projectId, project.id), eq(sprints.status, "active")))
        .limit(1)
    )[0];
    if (active)
      throw conflict(
        `Project ${project.key} already has an active sprint: ${active.id} ("${active.name}"). Close it first (sprints_close).`,
        { activeSprintId: active.id },
      );
    const s = (
      await tx
        .update(sprints)
        .set({ status: "active", activeProjectId: project.id, startedAt: at, updatedAt: at })
        .where(eq(sprints.id, sprint.id))
        .returning()
    )[0]!;
    const inside = await sprintCardRows(tx, s.id);
    const committed = inside.filter((c) => c.stateGroup !== "cancelled").reduce((t, c) => t + (c.estimate ?? 0), 0);
    const people = inside.length
      ? [
          ...new Set(
            (
              await tx
                .select({ u: cardAssignees.userId })
                .from(cardAssignees)
                .where(
                  inArray(
                    cardAssignees.cardId,
                    inside.map((c) => c.id),
                  ),
                )
            ).map((r) => r.u),
          ),
        ]
      : [];
    await audit(tx, ctx, "sprints.start", { type: "sprint", id: s.id, detail: { committed } });
    await emit(
      tx,
      ctx,
      sprintStarted,
      { id: s.id },
      {
        ...facts(project, s),
        goal: s.goal,
        committedPoints: committed,
        cardCount: inside.length,
        assigneeUserIds: people.sort((a, b) => a - b),
      },
    );
    return { id: s.id, name: s.name, status: s.status, committedPoints: committed, cards: inside.length };
  });
}

export async function closeSprint(ctx: ActorContext, input: v.InferOutput<typeof sprintCloseInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { sprint, project } = await sprintFor(tx, ctx, input.id);
    if (sprint.status !== "active")
      throw conflict(`Sprint "${sprint.name}" is ${sprint.status}; only the active sprint can be closed.`);
    let target: SprintRow | null = null;
    if (input.carryOverTo === "next")
      target =
        (
          await tx
            .select()
            .from(sprints)
            .where(and(eq(sprints.projectId, project.id), eq(sprints.status, "planned")))
            .orderBy(asc(sprints.startDate), asc(sprints.id))
            .limit(1)
        )[0] ?? null;
    else if (typeof input.carryOverTo === "number") {
      target =
        (
          await tx
            .select()
            .from(sprints)
            .where(and(eq(sprints.id, input.carryOverTo), eq(sprints.projectId, project.id)))
            .limit(1)
        )[0] ?? null;
      if (!target) throw invalid(`Sprint ${input.carryOverTo} is not a sprint of ${project.key}.`);
      if (target.status !== "planned")
        throw invalid(`Unfinished cards go to a planned sprint; sprint ${target.id} is ${target.status}.`);
    }
    const unfinished = await tx
      .select()
      .from(cards)
      .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
      .where(and(eq(cards.sprintId, sprint.id), inArray(boardColumns.stateGroup, [...OPEN])))
      .orderBy(asc(cards.number));
    const carried = unfinished.map((r) => r.cards);
    if (carried.length) {
      await tx
        .update(cards)
        .set({ sprintId: target?.id ?? null, updatedAt: at })
        .where(
          inArray(
            cards.id,
            carried.map((c) => c.id),
          ),
        );
      for (const r of unfinished)
        await logActivity(
          tx,
          { ctx, at },
          { ...r.cards, sprintId: target?.id ?? null },
          r.board_columns.stateGroup,
          CARRIED_OVER,
          { sprint: [sprint.id, target?.id ?? null] },
        );
    }
    const points = carried.reduce((t, c) => t + (c.estimate ?? 0), 0);
    const s = (
      await tx
        .update(sprints)
        .set({
          status: "closed",
          activeProjectId: null,
          closedAt: at,
          updatedAt: at,
          carriedOver: { toSprintId: target?.id ?? null, cardIds: carried.map((c) => c.id), points },
        })
        .where(eq(sprints.id, sprint.id))
        .returning()
    )[0]!;
    const history = await sprintHistory(tx, [s.id]);
    const committed = committedOf(history, s) ?? 0;
    const done = figuresAt(history, s.id, at.getTime(), at.getTime());
    const keys = carried.map((c) => cardKey(project, c));
    await audit(tx, ctx, "sprints.close", {
      type: "sprint",
      id: s.id,
      detail: { committed, completed: done.completedPoints, carriedOver: keys, to: target?.id ?? null },
    });
    await emit(
      tx,
      ctx,
      sprintClosed,
      { id: s.id },
      {
        ...facts(project, s),
        committedPoints: committed,
        completedPoints: done.completedPoints,
        carriedOverCardKeys: keys,
        carriedOverPoints: points,
        carriedOverToSprintId: target?.id ?? null,
      },
    );
    return {
      id: s.id,
      name: s.name,
      status: s.status,
      committedPoints: committed,
      completedPoints: done.completedPoints,
      carriedOver: { cards: keys, points, to: target ? { id: target.id, name: target.name } : "backlog" },
    };
  });
}

export async function deleteSprint(ctx: ActorContext, input: { id: number }) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { sprint, project } = await sprintFor(tx, ctx, input.id);
    if (sprint.status === "active")
      throw conflict(`Sprint "${sprint.name}" is active; close it first (sprints_close).`);
    if (sprint.status === "closed")
      throw conflict(
        `Sprint "${sprint.name}" is closed; closed sprints are the history velocity is computed from and are kept.`,
      );
    const inside = await sprintCardRows(tx, sprint.id);
    for (const c of inside) {
      const card = (await tx.select().from(cards).where(eq(cards.id, c.id)).limit(1))[0]!;
      await applyCardChanges(tx, ctx, project, card, { sprintId: null }, {}, at);
    }
    await tx.delete(sprints).where(eq(sprints.id, sprint.id));
    await audit(tx, ctx, "sprints.delete", {
      type: "sprint",
      id: sprint.id,
      detail: { name: sprint.name, cardsToBacklog: inside.length },
    });
    await emit(
      tx,
      ctx,
      sprintChanged,
      { id: sprint.id },
      { ...facts(project, sprint), action: "deleted", changes: {} },
    );
    return {
      id: sprint.id,
      status: "deleted",
      ...(inside.length ? { cardsMovedToBacklog: inside.map((c) => `${project.key}-${c.number}`) } : {}),
    };
  });
}

async function changeScope(ctx: ActorContext, input: v.InferOutput<typeof sprintCardsInput>, add: boolean) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const { sprint, project } = await sprintFor(tx, ctx, input.sprintId);
    if (sprint.status === "closed")
      throw invalid(`Sprint "${sprint.name}" is closed; plan the cards into another sprint.`);
    const changed: string[] = [];
    const seen = new Set<number>();
    for (const ref of input.cardIds) {
      const { card, project: cp, key } = await cardFor(tx, ctx, ref);
      if (seen.has(card.id)) continue;
      seen.add(card.id);
      if (cp.id !== project.id)
        throw invalid(
          `${key} belongs to project ${cp.key}; sprint "${sprint.name}" holds only cards of ${project.key}.`,
        );
      if (add ? card.sprintId === sprint.id : card.sprintId !== sprint.id) {
        if (!add) throw invalid(`${key} is not in sprint "${sprint.name}".`);
        continue;
      }
      await applyCardChanges(tx, ctx, project, card, { sprintId: add ? sprint.id : null }, {}, at);
      changed.push(key);
    }
    if (changed.length) {
      await audit(tx, ctx, add ? "sprints.cards_add" : "sprints.cards_remove", {
        type: "sprint",
        id: sprint.id,
        detail: { keys: changed },
      });
      await emit(
        tx,
        ctx,
        sprintScopeChanged,
        { id: sprint.id },
        { ...facts(project, sprint), addedKeys: add ? changed : [], removedKeys: add ? [] : changed },
      );
    }
    return { sprintId: sprint.id, [add ? "added" : "removed"]: changed };
  });
}

export const addSprintCards = (ctx: ActorContext, input: v.InferOutput<typeof sprintCardsInput>) =>
  changeScope(ctx, input, true);
export const removeSprintCards = (ctx: ActorContext, input: v.InferOutput<typeof sprintCardsInput>) =>
  changeScope(ctx, input, false);

// ---------------------------------------------------------------------------
// Reading

export async function listSprints(ctx: ActorContext, input: v.InferOutput<typeof sprintListInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const p = await projectFor(db, ctx, input.projectId);
  const where = and(eq(sprints.projectId, p.id), input.status ? eq(sprints.status, input.status) : undefined);
  const total = (
    await db
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(sprints)
      .where(where)
      .limit(1)
  )[0]!.n;
  const rows = await db
    .select()
    .from(sprints)
    .where(where)
    .orderBy(desc(sprints.startDate), desc(sprints.id))
    .limit(input.limit)
    .offset(input.offset);
  const ids = rows.map((r) => r.id);
  const counts = ids.length
    ? await db
        .select({
          sprintId: cards.sprintId,
          n: sql<number>`count(*)`.mapWith(Number),
          points: sql<number>`coalesce(sum(${cards.estimate}), 0)`.mapWith(Number),
        })
        .from(cards)
        .where(inArray(cards.sprintId, ids))
        .groupBy(cards.sprintId)
    : [];
  return page(
    rows.map((s) => {
      const c = counts.find((x) => x.sprintId === s.id);
      return {
        id: s.id,
        name: s.name,
        status: s.status,
        goal: s.goal,
        startDate: s.startDate,
        endDate: s.endDate,
        cards: c?.n ?? 0,
        points: c?.points ?? 0,
        closedAt: iso(s.closedAt),
      };
    }),
    total,
    input.limit,
    input.offset,
  );
}

export async function getSprint(ctx: ActorContext, input: { id: number }) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const { sprint: s, project } = await sprintFor(db, ctx, input.id);
  const history = await sprintHistory(db, [s.id]);
  const now = ctx.deps.clock.ms();
  const f = figuresAt(history, s.id, s.closedAt?.getTime() ?? now, s.closedAt?.getTime() ?? null);
  const inside = await sprintCardRows(db, s.id);
  const people = inside.length
    ? await db
        .select({ cardId: cardAssignees.cardId, name: users.name, email: users.email })
        .from(cardAssignees)
        .innerJoin(users, eq(users.id, cardAssignees.userId))
        .where(
          inArray(
            cardAssignees.cardId,
            inside.map((c) => c.id),
          ),
        )
    : [];
  const time = (
    await db
      .select({
        minutes: sql<number>`coalesce(sum(${timeLogs.minutes}), 0)`.mapWith(Number),
        billable:
          sql<number>`coalesce(sum(case when ${timeLogs.billable} then ${timeLogs.minutes} else 0 end), 0)`.mapWith(
            Number,
          ),
      })
      .from(timeLogs)
      .where(eq(timeLogs.sprintId, s.id))
      .limit(1)
  )[0]!;
  return {
    id: s.id,
    projectKey: project.key,
    name: s.name,
    goal: s.goal,
    status: s.status,
    startDate: s.startDate,
    endDate: s.endDate,
    startedAt: iso(s.startedAt),
    closedAt: iso(s.closedAt),
    committedPoints: committedOf(history, s),
    ...f,
    ...(s.carriedOver ? { carriedOver: s.carriedOver } : {}),
    timeLogged: { minutes: time.minutes, billableMinutes: time.billable },
    cards: inside.slice(0, 200).map((c) => ({
      id: c.id,
      key: `${project.key}-${c.number}`,
      title: c.title,
      column: c.column,
      stateGroup: c.stateGroup,
      estimate: c.estimate,
      assignees: people.filter((x) => x.cardId === c.id).map((x) => x.name ?? x.email),
    })),
  };
}

export async function sprintBurndown(ctx: ActorContext, input: { id: number }) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const { sprint: s, project } = await sprintFor(db, ctx, input.id);
  const history = await sprintHistory(db, [s.id]);
  const b = burndown(history, s, project.timeZone, ctx.deps.clock.ms());
  return {
    sprintId: s.id,
    name: s.name,
    status: s.status,
    timeZone: project.timeZone,
    startDate: s.startDate,
    endDate: s.endDate,
    days: b.days,
    committedPoints: b.committed,
    ...(s.startedAt ? {} : { note: "The sprint has not started: a burndown begins when it does (sprints_start)." }),
    points: b.points,
  };
}

export async function sprintVelocity(ctx: ActorContext, input: v.InferOutput<typeof velocityInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const p = await projectFor(db, ctx, input.projectId);
  const closed = await db
    .select()
    .from(sprints)
    .where(and(eq(sprints.projectId, p.id), eq(sprints.status, "closed")))
    .orderBy(desc(sprints.closedAt), desc(sprints.id))
    .limit(input.count);
  const history = await sprintHistory(
    db,
    closed.map((s) => s.id),
  );
  const rows = closed.map((s) => {
    const committed = committedOf(history, s) ?? 0;
    const done = figuresAt(history, s.id, s.closedAt!.getTime(), s.closedAt!.getTime());
    return {
      id: s.id,
      name: s.name,
      startDate: s.startDate,
      endDate: s.endDate,
      committedPoints: committed,
      completedPoints: done.completedPoints,
      completedCards: done.completedCards,
      carriedOverPoints: s.carriedOver?.points ?? 0,
    };
  });
  const avg = (xs: number[]) =>
    xs.length ? Math.round((xs.reduce((a, b) => a + b, 0) / xs.length) * 100) / 100 : null;
  return {
    projectKey: p.key,
    sprints: rows,
    velocity: avg(rows.map((r) => r.completedPoints)),
    averageCommitted: avg(rows.map((r) => r.committedPoints)),
    ...(rows.length < input.count
      ? { note: `Only ${rows.length} closed sprint${rows.length === 1 ? "" : "s"} so far.` }
      : {}),
  };
}
