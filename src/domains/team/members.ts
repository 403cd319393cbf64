/**
 * Members and roles of the company a call acts for. The portal's team page
 * and the team tools call these same verbs. The rules:
 *
 * - owners and admins manage; viewers see (and may leave);
 * - only an owner grants the owner role or changes or removes an owner;
 * - a company always keeps at least one owner: the last owner can neither
 *   leave, be removed nor be demoted;
 * - a removed member's credentials stop reaching the company on their very
 *   next request (memberships are read live on every request).
 */
import { and, asc, count, eq, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { ROLES, type Role } from "../../core/roles";
import { authorize } from "../../core/scopes";
import { containsText, byText } from "../../core/sql";
import { memberships, users } from "../../core/tables";
import { localNow, profilesOf } from "../profile/verbs";
import { memberRemoved, memberRoleChanged } from "./events";

/** A member named by user id or by email (what people use). */
export interface MemberRef {
  userId?: number;
  email?: string;
}

export function parseRole(raw: string): Role {
  if (!(ROLES as readonly string[]).includes(raw)) throw invalid(`Role must be one of ${ROLES.join(", ")}.`);
  return raw as Role;
}

function checkManager(ctx: ActorContext) {
  if (ctx.company.role !== "owner" && ctx.company.role !== "admin")
    throw forbidden(`Only owners and admins of ${ctx.company.name} can manage the team; your role is ${ctx.company.role}.`);
}

export async function listMembers(ctx: ActorContext, f: { role?: Role; search?: string; limit: number; offset: number }) {
  authorize(ctx, "team:read", { write: false });
  const { deps } = ctx;
  const where = and(
    eq(memberships.companyId, ctx.company.id),
    f.role ? eq(memberships.role, f.role) : undefined,
    f.search ? sql`(${containsText(users.email, f.search)} or ${containsText(users.name, f.search)})` : undefined,
  );
  const total = (await deps.db.select({ n: count() }).from(memberships).innerJoin(users, eq(users.id, memberships.userId)).where(where))[0]?.n ?? 0;
  const rows = await deps.db
    .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, joinedAt: memberships.createdAt })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(where)
    .orderBy(asc(byText(users.email)))
    .limit(f.limit)
    .offset(f.offset);
  const profiles = await profilesOf(deps, rows.map((r) => r.userId));
  const now = deps.clock.now();
  const items = rows.map((r) => {
    const p = profiles.get(r.userId)!;
    return { userId: r.userId, email: r.email, name: r.name, role: r.role, title: p.title, timeZone: p.timeZone, ...localNow(p, now), joinedAt: iso(r.joinedAt)! };
  });
  return page(items, total, f.limit, f.offset);
}

export type MemberItem = Awaited<ReturnType<typeof listMembers>>["items"][number];

/** The member `ref` names in the acting company; anyone else is "not found". */
export async function memberOf(ctx: ActorContext, ref: MemberRef) {
  if ((ref.userId === undefined) === (ref.email === undefined)) throw invalid("Name the member by userId or by email (one of them).");
  const by = ref.userId !== undefined ? eq(users.id, ref.userId) : eq(users.email, ref.email!.trim().toLowerCase());
  const row = (
    await ctx.deps.db
      .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.companyId, ctx.company.id), by))
      .limit(1)
  )[0];
  if (!row) throw notFound(`${ref.email ?? `User ${ref.userId}`} is not a member of ${ctx.company.name}. List members with team_members_list.`);
  return row;
}

async function ownerCount(ctx: ActorContext): Promise<number> {
  return (
    (await ctx.deps.db
      .select({ n: count() })
      .from(memberships)
      .where(and(eq(memberships.companyId, ctx.company.id), eq(memberships.role, "owner"))))[0]?.n ?? 0
  );
}

const LAST_OWNER = (ctx: ActorContext) => `${ctx.company.name} must keep at least one owner; make someone else owner first.`;

export async function changeRole(ctx: ActorContext, ref: MemberRef, rawRole: string) {
  authorize(ctx, "team:write", { write: true });
  checkManager(ctx);
  const role = parseRole(rawRole);
  return await ctx.deps.store.transaction(async (tx) => {
    const m = await memberOf(ctx, ref);
    if ((role === "owner" || m.role === "owner") && ctx.company.role !== "owner") throw forbidden("Only an owner can grant or change the owner role.");
    if (m.role === role) return { userId: m.userId, email: m.email, role, previousRole: m.role, status: "unchanged" as const };
    if (m.role === "owner" && (await ownerCount(ctx)) <= 1) throw conflict(LAST_OWNER(ctx));
    await tx.update(memberships).set({ role }).where(and(eq(memberships.companyId, ctx.company.id), eq(memberships.userId, m.userId)));
    await audit(tx, ctx, "team.role_change", { type: "user", id: m.userId, detail: { email: m.email, role, previousRole: m.role } });
    await emit(tx, ctx, memberRoleChanged, { id: m.userId }, { userId: m.userId, email: m.email, role, previousRole: m.role });
    return { userId: m.userId, email: m.email, role, previousRole: m.role, status: "updated" as const };
  });
}

async function remove(ctx: ActorContext, m: { userId: number; email: string; role: Role }, left: boolean) {
  return await ctx.deps.store.transaction(async (tx) => {
    if (m.role === "owner" && (await ownerCount(ctx)) <= 1) throw conflict(LAST_OWNER(ctx));
    await tx.delete(memberships).where(and(eq(memberships.companyId, ctx.company.id), eq(memberships.userId, m.userId)));
    await audit(tx, ctx, left ? "team.leave" : "team.remove", { type: "user", id: m.userId, detail: { email: m.email, role: m.role } });
    await emit(tx, ctx, memberRemoved, { id: m.userId }, { userId: m.userId, email: m.email, role: m.role, left });
    return { userId: m.userId, email: m.email, status: "removed" as const };
  });
}

/** Removes a member; it takes effect on their next request, whatever credential they use. */
export async function removeMember(ctx: ActorContext, ref: MemberRef) {
  authorize(ctx, "team:write", { write: true });
  const m = await memberOf(ctx, ref);
  if (m.userId === ctx.principal.userId) return await leaveTeam(ctx);
  checkManager(ctx);
  if (m.role === "owner" && ctx.company.role !== "owner") throw forbidden("Only an owner can remove an owner.");
  return await remove(ctx, m, false);
}

/** The caller leaves the company (any role; the last owner cannot). */
export async function leaveTeam(ctx: ActorContext) {
  authorize(ctx, "team:write", { write: true, minRole: "viewer" });
  const m = await memberOf(ctx, { userId: ctx.principal.userId });
  return await remove(ctx, m, true);
}
