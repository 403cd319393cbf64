/**
 * The first lines of every verb of this folder: scope and role
 * (authorize), then the tenant filter — every project, card, sprint, label
 * or person named in a call is looked up through the acting company, so
 * another company's id is "not found", exactly like an id that does not exist.
 *
 * Human identifiers resolve here, in one place: a card key (WEB-42, also
 * under a project's former key), a project key (WEB), a person by id, email
 * or "me".
 */
import { and, asc, eq, inArray, or } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { jsonContains } from "../../core/sql";
import { memberships, users } from "../../core/tables";
import type { CardRef, ProjectRef, UserRef } from "./schemas";
import { boardColumns, boards, cards, projects, sprints } from "./tables";

export type Q = Pick<Db, "select" | "selectDistinct" | "insert" | "update" | "delete">;
export type ProjectRow = typeof projects.$inferSelect;
export type CardRow = typeof cards.$inferSelect;
export type ColumnRow = typeof boardColumns.$inferSelect;
export type SprintRow = typeof sprints.$inferSelect;

export function readAccess(ctx: ActorContext) {
  authorize(ctx, "projects:read", { write: false });
}
export function writeAccess(ctx: ActorContext) {
  authorize(ctx, "projects:write", { write: true });
}

/** One transaction for a write verb: its change, audit row and events commit together. */
export function write<T>(ctx: ActorContext, fn: (tx: Db) => Promise<T>): Promise<T> {
  writeAccess(ctx);
  return ctx.deps.db.transaction(fn);
}

export const cardKey = (p: { key: string }, c: { number: number }) => `${p.key}-${c.number}`;

export async function projectFor(q: Q, ctx: ActorContext, ref: ProjectRef): Promise<ProjectRow> {
  const company = ctx.company.id;
  if (typeof ref === "number") {
    const p = (
      await q
        .select()
        .from(projects)
        .where(and(eq(projects.id, ref), eq(projects.companyId, company)))
        .limit(1)
    )[0];
    if (!p) throw notFound(`Project ${ref} not found.`);
    return p;
  }
  const key = ref.toUpperCase();
  const rows = await q
    .select()
    .from(projects)
    .where(
      and(eq(projects.companyId, company), or(eq(projects.key, key), jsonContains(projects.formerKeys, `"${key}"`))),
    )
    .orderBy(asc(projects.id))
    .limit(5);
  const p = rows.find((r) => r.key === key) ?? rows.find((r) => r.formerKeys.includes(key));
  if (!p) throw notFound(`Project ${ref} not found.`);
  return p;
}

export interface ResolvedCard {
  card: CardRow;
  project: ProjectRow;
  key: string;
}

export async function cardFor(q: Q, ctx: ActorContext, ref: CardRef): Promise<ResolvedCard> {
  if (typeof ref === "number") {
    const row = (
      await q
        .select({ card: cards, project: projects })
        .from(cards)
        .innerJoin(projects, eq(projects.id, cards.projectId))
        .where(and(eq(cards.id, ref), eq(cards.companyId, ctx.company.id)))
        .limit(1)
    )[0];
    if (!row) throw notFound(`Card ${ref} not found.`);
    return { ...row, key: cardKey(row.project, row.card) };
  }
  const dash = ref.lastIndexOf("-");
  const project = await projectFor(q, ctx, ref.slice(0, dash)).catch(() => {
    throw notFound(`Card ${ref} not found.`);
  });
  const number = Number(ref.slice(dash + 1));
  const card = (
    await q
      .select()
      .from(cards)
      .where(and(eq(cards.projectId, project.id), eq(cards.number, number)))
      .limit(1)
  )[0];
  if (!card) throw notFound(`Card ${ref.toUpperCase()} not found.`);
  return { card, project, key: cardKey(project, card) };
}

export async function columnFor(
  q: Q,
  ctx: ActorContext,
  columnId: number,
): Promise<ColumnRow & { projectCompany: number }> {
  const row = (
    await q
      .select({ column: boardColumns, companyId: projects.companyId })
      .from(boardColumns)
      .innerJoin(projects, eq(projects.id, boardColumns.projectId))
      .where(and(eq(boardColumns.id, columnId), eq(projects.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Column ${columnId} not found.`);
  return { ...row.column, projectCompany: row.companyId };
}

export async function boardFor(q: Q, ctx: ActorContext, boardId: number) {
  const row = (
    await q
      .select({ board: boards, project: projects })
      .from(boards)
      .innerJoin(projects, eq(projects.id, boards.projectId))
      .where(and(eq(boards.id, boardId), eq(projects.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Board ${boardId} not found.`);
  return row;
}

export async function sprintFor(
  q: Q,
  ctx: ActorContext,
  sprintId: number,
): Promise<{ sprint: SprintRow; project: ProjectRow }> {
  const row = (
    await q
      .select({ sprint: sprints, project: projects })
      .from(sprints)
      .innerJoin(projects, eq(projects.id, sprints.projectId))
      .where(and(eq(sprints.id, sprintId), eq(projects.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Sprint ${sprintId} not found.`);
  return row;
}

export interface Person {
  id: number;
  email: string;
  name: string | null;
}

/**
 * Company members named by id, email or "me". Someone who is not a member
 * of the acting company (another tenant's user, an unknown email) is
 * refused the same way, naming only what the caller sent.
 */
export async function peopleFor(q: Q, ctx: ActorContext, refs: readonly UserRef[]): Promise<Person[]> {
  if (!refs.length) return [];
  const ids = new Set<number>();
  const emails = new Set<string>();
  for (const r of refs) {
    if (typeof r === "number") ids.add(r);
    else if (r.trim().toLowerCase() === "me") ids.add(ctx.principal.userId);
    else if (/^[^\s@]+@[^\s@]+$/.test(r.trim())) emails.add(r.trim().toLowerCase());
    else throw invalid(`"${r.slice(0, 80)}" is not a user id, an email or "me".`);
  }
  const rows = await q
    .select({ id: users.id, email: users.email, name: users.name })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(
      and(
        eq(memberships.companyId, ctx.company.id),
        or(
          ids.size ? inArray(users.id, [...ids]) : undefined,
          emails.size ? inArray(users.email, [...emails]) : undefined,
        ),
      ),
    );
  const found = new Map(rows.map((r) => [r.id, r]));
  const byEmail = new Map(rows.map((r) => [r.email, r]));
  const out: Person[] = [];
  for (const r of refs) {
    const p =
      typeof r === "number"
        ? found.get(r)
        : r.trim().toLowerCase() === "me"
          ? found.get(ctx.principal.userId)
          : byEmail.get(r.trim().toLowerCase());
    if (!p)
      throw invalid(
        `${typeof r === "number" ? `User ${r}` : `"${r.slice(0, 80)}"`} is not a member of ${ctx.company.name}; only its members can be named here.`,
      );
    if (!out.some((o) => o.id === p.id)) out.push(p);
  }
  return out;
}

export async function personFor(q: Q, ctx: ActorContext, ref: UserRef): Promise<Person> {
  return (await peopleFor(q, ctx, [ref]))[0]!;
}

/** Names of people by id (for results), in one query. */
export async function namesOf(q: Q, userIds: readonly number[]): Promise<Map<number, Person>> {
  if (!userIds.length) return new Map();
  const rows = await q
    .select({ id: users.id, email: users.email, name: users.name })
    .from(users)
    .where(inArray(users.id, [...new Set(userIds)]));
  return new Map(rows.map((r) => [r.id, r]));
}

// ---------------------------------------------------------------------------
// Calendar days in a time zone (Temporal is built into Bun).

/** The canonical IANA name, or a clear refusal. */
export function checkTimeZone(tz: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: tz }).resolvedOptions().timeZone;
  } catch {
    throw invalid(`timeZone "${tz.slice(0, 64)}" is not an IANA time zone such as Europe/London or America/New_York.`);
  }
}

/** The calendar date (YYYY-MM-DD) at `at` in `tz`. */
export function dateIn(tz: string, at: Date): string {
  return Temporal.Instant.fromEpochMilliseconds(at.getTime()).toZonedDateTimeISO(tz).toPlainDate().toString();
}

/** The instant a local calendar day starts in `tz`. */
export function dayStart(tz: string, date: string): Date {
  return new Date(Temporal.PlainDate.from(date).toZonedDateTime({ timeZone: tz }).epochMilliseconds);
}

export function addDays(date: string, n: number): string {
  return Temporal.PlainDate.from(date).add({ days: n }).toString();
}

export function daysBetween(from: string, to: string): number {
  return Temporal.PlainDate.from(from).until(Temporal.PlainDate.from(to), { largestUnit: "days" }).days;
}
