/**
 * Projects (their members: members.ts; labels: labels.ts; milestones:
 * milestones.ts). A project's key prefixes
 * its card keys (WEB-42); renaming the key keeps the old one resolvable.
 * A new project gets one board with the usual workflow unless columns are
 * given. Deleting a project that still holds work answers with what depends
 * on it; force deletes it all, and archiving is the gentle way out.
 */
import { and, asc, eq, inArray, isNotNull, isNull, sql } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { asciiLower, byText, containsText, countTrue } from "../../core/sql";
import { users } from "../../core/tables";
import { checkTimeZone, peopleFor, personFor, projectFor, readAccess, write, type ProjectRow, type Q } from "./access";
import { projectArchived, projectCreated, projectDeleted, projectUpdated } from "./events";
import type {
  projectArchiveInput,
  projectCreateInput,
  projectDeleteInput,
  projectListInput,
  projectUpdateInput,
} from "./schemas";
import {
  boardColumns,
  boards,
  cardRecurrences,
  cards,
  milestones,
  projectLabels,
  projectMembers,
  projects,
  sprints,
  timeLogs,
  type StateGroup,
} from "./tables";

export const DEFAULT_COLUMNS: { name: string; stateGroup: StateGroup; wipLimit?: number }[] = [
  { name: "Backlog", stateGroup: "backlog" },
  { name: "To do", stateGroup: "unstarted" },
  { name: "In progress", stateGroup: "started" },
  { name: "In review", stateGroup: "started" },
  { name: "Done", stateGroup: "done" },
  { name: "Cancelled", stateGroup: "cancelled" },
];

/** WEB from "Website relaunch", NW from "Northwind Website": initials of the words, else the first letters. */
export function keyFromName(name: string): string {
  const words = name
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9 ]+/g, " ")
    .split(/\s+/)
    .filter(Boolean);
  let key =
    words.length >= 2
      ? words
          .map((w) => w[0])
          .join("")
          .slice(0, 4)
      : (words[0] ?? "").slice(0, 3);
  key = key.toUpperCase();
  if (!/^[A-Z]/.test(key)) key = `P${key}`;
  return key.length >= 2 ? key.slice(0, 10) : `${key}P`.slice(0, 10);
}

async function keyTaken(q: Q, companyId: number, key: string, except?: number): Promise<boolean> {
  const rows = await q
    .select({ id: projects.id, key: projects.key, former: projects.formerKeys })
    .from(projects)
    .where(eq(projects.companyId, companyId));
  return rows.some((r) => r.id !== except && (r.key === key || r.former.includes(key)));
}

export async function createBoardColumns(
  tx: Q,
  projectId: number,
  boardId: number,
  specs: { name: string; stateGroup: StateGroup; wipLimit?: number }[],
  at: Date,
) {
  const names = new Set<string>();
  for (const s of specs) {
    const k = asciiLower(s.name.trim());
    if (names.has(k)) throw invalid(`Two columns are named "${s.name}"; column names are unique on a board.`);
    names.add(k);
  }
  return await tx
    .insert(boardColumns)
    .values(
      specs.map((s, i) => ({
        boardId,
        projectId,
        name: s.name.trim(),
        stateGroup: s.stateGroup,
        wipLimit: s.wipLimit ?? null,
        position: (i + 1) * 1024,
        createdAt: at,
        updatedAt: at,
      })),
    )
    .returning();
}

export async function createProject(ctx: ActorContext, input: v.InferOutput<typeof projectCreateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const timeZone = input.timeZone ? checkTimeZone(input.timeZone) : "UTC";
    if (input.startDate && input.targetDate && input.targetDate < input.startDate)
      throw invalid("targetDate must be on or after startDate.");
    let key = (input.key ?? keyFromName(input.name)).toUpperCase();
    let note: string | undefined;
    if (await keyTaken(tx, ctx.company.id, key)) {
      if (input.key) throw conflict(`Project key ${key} is already used in ${ctx.company.name}; choose another.`);
      const base = key.slice(0, 8);
      let n = 2;
      while (await keyTaken(tx, ctx.company.id, `${base}${n}`)) n++;
      key = `${base}${n}`;
      note = `key ${keyFromName(input.name)} is taken, so this project is ${key}. If this call was a retry, delete the duplicate or pass idempotencyKey.`;
    }
    const lead = input.lead !== undefined ? await personFor(tx, ctx, input.lead) : null;
    const members = await peopleFor(tx, ctx, [...(input.members ?? []), ...(lead ? [lead.id] : [])]);
    const p = (
      await tx
        .insert(projects)
        .values({
          companyId: ctx.company.id,
          key,
          name: input.name.trim(),
          description: input.description ?? null,
          status: input.status,
          health: input.health ?? null,
          leadUserId: lead?.id ?? null,
          startDate: input.startDate ?? null,
          targetDate: input.targetDate ?? null,
          timeZone,
          createdAt: at,
          updatedAt: at,
        })
        .returning()
    )[0]!;
    if (members.length)
      await tx.insert(projectMembers).values(members.map((m) => ({ projectId: p.id, userId: m.id, createdAt: at })));
    const board = (
      await tx
        .insert(boards)
        .values({ projectId: p.id, name: "Board", position: 1024, createdAt: at, updatedAt: at })
        .returning()
    )[0]!;
    const columns = await createBoardColumns(tx, p.id, board.id, DEFAULT_COLUMNS, at);
    await audit(tx, ctx, "projects.create", { type: "project", id: p.id, detail: { key } });
    await emit(
      tx,
      ctx,
      projectCreated,
      { id: p.id },
      { key, name: p.name, leadUserId: p.leadUserId, memberUserIds: members.map((m) => m.id) },
    );
    return {
      id: p.id,
      key,
      name: p.name,
      board: { id: board.id, columns: columns.map((c) => ({ id: c.id, name: c.name, stateGroup: c.stateGroup })) },
      ...(note ? { note } : {}),
    };
  });
}

export async function updateProject(ctx: ActorContext, input: v.InferOutput<typeof projectUpdateInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const p = await projectFor(tx, ctx, input.id);
    const set: Partial<typeof projects.$inferInsert> = {};
    if (input.name !== undefined) set.name = input.name.trim();
    if (input.description !== undefined) set.description = input.description;
    if (input.status !== undefined) set.status = input.status;
    if (input.health !== undefined) set.health = input.health;
    if (input.lead !== undefined)
      set.leadUserId = input.lead === null ? null : (await personFor(tx, ctx, input.lead)).id;
    if (input.startDate !== undefined) set.startDate = input.startDate;
    if (input.targetDate !== undefined) set.targetDate = input.targetDate;
    if (input.timeZone !== undefined) set.timeZone = checkTimeZone(input.timeZone);
    if (input.key !== undefined && input.key.toUpperCase() !== p.key) {
      const key = input.key.toUpperCase();
      const other = (
        await tx
          .select({ id: projects.id, key: projects.key, former: projects.formerKeys })
          .from(projects)
          .where(eq(projects.companyId, ctx.company.id))
      ).find((r) => r.id !== p.id && (r.key === key || r.former.includes(key)));
      if (other)
        throw conflict(
          `Project key ${key} is already used in ${ctx.company.name} (project ${other.key}); choose another.`,
        );
      set.key = key;
      // The old key keeps resolving (WEB-42 still finds the card), and is not given to another project.
      set.formerKeys = [...p.formerKeys.filter((k) => k !== key), p.key];
    }
    const start = set.startDate !== undefined ? set.startDate : p.startDate;
    const target = set.targetDate !== undefined ? set.targetDate : p.targetDate;
    if (start && target && target < start) throw invalid("targetDate must be on or after startDate.");
    const changes: Record<string, [unknown, unknown]> = {};
    for (const [k, val] of Object.entries(set))
      if (k !== "formerKeys" && JSON.stringify(p[k as keyof ProjectRow]) !== JSON.stringify(val))
        changes[k] = [p[k as keyof ProjectRow], val];
    if (!Object.keys(changes).length) return { id: p.id, key: p.key, changed: [] };
    const after = (
      await tx
        .update(projects)
        .set({ ...set, updatedAt: at })
        .where(eq(projects.id, p.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "projects.update", { type: "project", id: p.id, detail: { fields: Object.keys(changes) } });
    await emit(tx, ctx, projectUpdated, { id: p.id }, { key: after.key, name: after.name, changes });
    return { id: p.id, key: after.key, changed: Object.keys(changes) };
  });
}

export async function archiveProject(ctx: ActorContext, input: v.InferOutput<typeof projectArchiveInput>) {
  return write(ctx, async (tx) => {
    const at = ctx.deps.clock.now();
    const p = await projectFor(tx, ctx, input.id);
    if (!!p.archivedAt === input.archived) return { id: p.id, key: p.key, archived: input.archived, changed: false };
    await tx
      .update(projects)
      .set({ archivedAt: input.archived ? at : null, updatedAt: at })
      .where(eq(projects.id, p.id));
    if (input.archived)
      // An archived project makes no new cards: its recurrences pause (restoring does not resume them; the job would catch up on everything missed).
      await tx.update(cardRecurrences).set({ active: false, updatedAt: at }).where(eq(cardRecurrences.projectId, p.id));
    await audit(tx, ctx, input.archived ? "projects.archive" : "projects.restore", {
      type: "project",
      id: p.id,
      detail: { key: p.key },
    });
    await emit(tx, ctx, projectArchived, { id: p.id }, { key: p.key, name: p.name, archived: input.archived });
    return { id: p.id, key: p.key, archived: input.archived, changed: true };
  });
}

/** What still depends on a project, as counts and lines a person reads. */
async function projectDependents(q: Q, projectId: number) {
  const c = (
    await q
      .select({
        cards: sql<number>`count(*)`.mapWith(Number),
        open: countTrue(sql`${boardColumns.stateGroup} not in ('done', 'cancelled')`),
      })
      .from(cards)
      .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
      .where(eq(cards.projectId, projectId))
      .limit(1)
  )[0]!;
  const s = (
    await q
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(sprints)
      .where(eq(sprints.projectId, projectId))
      .limit(1)
  )[0]!.n;
  const t = (
    await q
      .select({
        n: sql<number>`count(*)`.mapWith(Number),
        minutes: sql<number>`coalesce(sum(${timeLogs.minutes}), 0)`.mapWith(Number),
      })
      .from(timeLogs)
      .where(eq(timeLogs.projectId, projectId))
      .limit(1)
  )[0]!;
  const r = (
    await q
      .select({ n: sql<number>`count(*)`.mapWith(Number) })
      .from(cardRecurrences)
      .where(and(eq(cardRecurrences.projectId, projectId), eq(cardRecurrences.active, true)))
      .limit(1)
  )[0]!.n;
  const lines: string[] = [];
  if (c.cards) lines.push(`${c.cards} cards (${c.open} open)`);
  if (s) lines.push(`${s} sprints`);
  if (t.n) lines.push(`${t.n} time logs (${(t.minutes / 60).toFixed(1)} h)`);
  if (r) lines.push(`${r} active recurrences`);
  return { cards: c.cards, open: c.open, sprints: s, timeLogs: t.n, minutes: t.minutes, recurrences: r, lines };
}

export async function deleteProject(ctx: ActorContext, input: v.InferOutput<typeof projectDeleteInput>) {
  return write(ctx, async (tx) => {
    const p = await projectFor(tx, ctx, input.id);
    const dep = await projectDependents(tx, p.id);
    if (dep.lines.length && !input.force)
      throw conflict(
        `Project ${p.key} still holds ${dep.lines.join(", ")}. Archive it instead (projects_archive), or pass force: true to delete it with all of that.`,
        {
          cards: dep.cards,
          openCards: dep.open,
          sprints: dep.sprints,
          timeLogs: dep.timeLogs,
          recurrences: dep.recurrences,
        },
      );
    await tx.delete(projects).where(eq(projects.id, p.id));
    await audit(tx, ctx, "projects.delete", {
      type: "project",
      id: p.id,
      detail: { key: p.key, ...dep, lines: undefined },
    });
    await emit(
      tx,
      ctx,
      projectDeleted,
      { id: p.id },
      { key: p.key, name: p.name, cards: dep.cards, sprints: dep.sprints, timeLogs: dep.timeLogs },
    );
    return { id: p.id, key: p.key, status: "deleted", ...(dep.lines.length ? { deletedWithIt: dep.lines } : {}) };
  });
}

export async function listProjects(ctx: ActorContext, input: v.InferOutput<typeof projectListInput>) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const where = and(
    eq(projects.companyId, ctx.company.id),
    input.archived ? isNotNull(projects.archivedAt) : isNull(projects.archivedAt),
    input.status ? eq(projects.status, input.status) : undefined,
    input.search?.trim() ? containsText(projects.name, input.search.trim()) : undefined,
  );
  const total = (await db.select({ n: sql<number>`count(*)` }).from(projects).where(where).limit(1))[0]!.n;
  const rows = await db
    .select()
    .from(projects)
    .where(where)
    .orderBy(asc(byText(projects.key)))
    .limit(input.limit)
    .offset(input.offset);
  const ids = rows.map((r) => r.id);
  const counts = ids.length
    ? await db
        .select({
          projectId: cards.projectId,
          cards: sql<number>`count(*)`.mapWith(Number),
          open: countTrue(sql`${boardColumns.stateGroup} not in ('done', 'cancelled')`),
        })
        .from(cards)
        .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
        .where(inArray(cards.projectId, ids))
        .groupBy(cards.projectId)
    : [];
  const active = ids.length
    ? await db
        .select({ projectId: sprints.projectId, id: sprints.id, name: sprints.name, endDate: sprints.endDate })
        .from(sprints)
        .where(and(inArray(sprints.projectId, ids), eq(sprints.status, "active")))
    : [];
  const leads = ids.length
    ? await db
        .select({ id: users.id, name: users.name, email: users.email })
        .from(users)
        .where(inArray(users.id, rows.flatMap((r) => (r.leadUserId ? [r.leadUserId] : [])).concat([0])))
    : [];
  const items = rows.map((r) => {
    const c = counts.find((x) => x.projectId === r.id);
    const s = active.find((x) => x.projectId === r.id);
    const lead = leads.find((l) => l.id === r.leadUserId);
    return {
      id: r.id,
      key: r.key,
      name: r.name,
      status: r.status,
      health: r.health,
      lead: lead ? { id: lead.id, name: lead.name ?? lead.email } : null,
      startDate: r.startDate,
      targetDate: r.targetDate,
      cards: c?.cards ?? 0,
      openCards: c?.open ?? 0,
      activeSprint: s ? { id: s.id, name: s.name, endDate: s.endDate } : null,
      ...(r.archivedAt ? { archivedAt: iso(r.archivedAt) } : {}),
    };
  });
  return page(items, total, input.limit, input.offset);
}

export async function getProject(ctx: ActorContext, input: { id: number | string }) {
  readAccess(ctx);
  const db = ctx.deps.db;
  const p = await projectFor(db, ctx, input.id);
  const members = await db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(projectMembers)
    .innerJoin(users, eq(users.id, projectMembers.userId))
    .where(eq(projectMembers.projectId, p.id))
    .orderBy(asc(byText(users.email)));
  const lead = p.leadUserId
    ? (
        await db
          .select({ id: users.id, name: users.name, email: users.email })
          .from(users)
          .where(eq(users.id, p.leadUserId))
          .limit(1)
      )[0]
    : null;
  const labels = await db
    .select({ id: projectLabels.id, name: projectLabels.name, color: projectLabels.color })
    .from(projectLabels)
    .where(eq(projectLabels.projectId, p.id))
    .orderBy(asc(byText(projectLabels.nameKey)));
  const ms = await db
    .select()
    .from(milestones)
    .where(eq(milestones.projectId, p.id))
    .orderBy(asc(milestones.targetDate), asc(milestones.id));
  const progress = ms.length
    ? await db
        .select({
          milestoneId: cards.milestoneId,
          total: sql<number>`count(*)`.mapWith(Number),
          done: countTrue(sql`${boardColumns.stateGroup} = 'done'`),
        })
        .from(cards)
        .innerJoin(boardColumns, eq(boardColumns.id, cards.columnId))
        .where(and(eq(cards.projectId, p.id), isNotNull(cards.milestoneId)))
        .groupBy(cards.milestoneId)
    : [];
  const bs = await db
    .select()
    .from(boards)
    .where(eq(boards.projectId, p.id))
    .orderBy(asc(boards.position), asc(boards.id));
  const cols = await db
    .select()
    .from(boardColumns)
    .where(eq(boardColumns.projectId, p.id))
    .orderBy(asc(boardColumns.position));
  const perColumn = await db
    .select({
      columnId: cards.columnId,
      n: sql<number>`count(*)`.mapWith(Number),
      points: sql<number>`coalesce(sum(${cards.estimate}), 0)`.mapWith(Number),
    })
    .from(cards)
    .where(eq(cards.projectId, p.id))
    .groupBy(cards.columnId);
  const active = (
    await db
      .select()
      .from(sprints)
      .where(and(eq(sprints.projectId, p.id), eq(sprints.status, "active")))
      .limit(1)
  )[0];
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
      .where(eq(timeLogs.projectId, p.id))
      .limit(1)
  )[0]!;
  const byGroup: Record<string, number> = {};
  for (const c of cols)
    byGroup[c.stateGroup] = (byGroup[c.stateGroup] ?? 0) + (perColumn.find((x) => x.columnId === c.id)?.n ?? 0);
  return {
    id: p.id,
    key: p.key,
    ...(p.formerKeys.length ? { formerKeys: p.formerKeys } : {}),
    name: p.name,
    description: p.description,
    status: p.status,
    health: p.health,
    lead: lead ? { id: lead.id, name: lead.name, email: lead.email } : null,
    startDate: p.startDate,
    targetDate: p.targetDate,
    timeZone: p.timeZone,
    archivedAt: iso(p.archivedAt),
    members,
    labels,
    milestones: ms.map((m) => {
      const pr = progress.find((x) => x.milestoneId === m.id);
      return { id: m.id, name: m.name, targetDate: m.targetDate, cards: pr?.total ?? 0, done: pr?.done ?? 0 };
    }),
    boards: bs.map((b) => ({
      id: b.id,
      name: b.name,
      columns: cols
        .filter((c) => c.boardId === b.id)
        .map((c) => {
          const n = perColumn.find((x) => x.columnId === c.id);
          return {
            id: c.id,
            name: c.name,
            stateGroup: c.stateGroup,
            wipLimit: c.wipLimit,
            cards: n?.n ?? 0,
            points: n?.points ?? 0,
          };
        }),
    })),
    cardsByStateGroup: byGroup,
    activeSprint: active
      ? { id: active.id, name: active.name, startDate: active.startDate, endDate: active.endDate, goal: active.goal }
      : null,
    timeLogged: { minutes: time.minutes, billableMinutes: time.billable },
    createdAt: iso(p.createdAt),
  };
}
