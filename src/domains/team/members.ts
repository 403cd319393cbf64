/**
 * Members and roles of the company a call acts for. The portal's team page
 * and the team tools call these same verbs. The rules:
 *
 * - owners and admins manage; viewers see (and may leave);
 * - only an owner grants the owner role or changes or removes an owner;
 * - a company always keeps at least one owner: the last owner can neither
 *   leave, be removed nor be demoted;
 * - a removed member's credentials stop reaching the company on their very
 *   next request (memberships are read live on every request);
 * - a member who still owns open work (open cards they are assigned to,
 *   projects they lead, open tickets assigned to them) is not removed (nor
 *   leaves) silently: the answer lists that work, and the call says who
 *   takes it over (`reassignTo`, an owner or admin) or that it is left
 *   unassigned (`force`). The hand-over happens in the removal's
 *   transaction, through the projects and tickets domains' own functions
 *   (their events notify the new owner).
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
import { handOverOpenWork, openWorkOf } from "../projects/open-work";
import { handOverTickets, openTicketsOf } from "../tickets/open-work";
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
    throw forbidden(
      `Only owners and admins of ${ctx.company.name} can manage the team; your role is ${ctx.company.role}.`,
    );
}

export async function listMembers(
  ctx: ActorContext,
  f: { role?: Role; search?: string; limit: number; offset: number },
) {
  authorize(ctx, "team:read", { write: false });
  const { deps } = ctx;
  const where = and(
    eq(memberships.companyId, ctx.company.id),
    f.role ? eq(memberships.role, f.role) : undefined,
    f.search ? sql`(${containsText(users.email, f.search)} or ${containsText(users.name, f.search)})` : undefined,
  );
  const total =
    (
      await deps.db
        .select({ n: count() })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(where)
    )[0]?.n ?? 0;
  const rows = await deps.db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: memberships.role,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(where)
    .orderBy(asc(byText(users.email)))
    .limit(f.limit)
    .offset(f.offset);
  const profiles = await profilesOf(
    deps,
    rows.map((r) => r.userId),
  );
  const now = deps.clock.now();
  const items = rows.map((r) => {
    const p = profiles.get(r.userId)!;
    return {
      userId: r.userId,
      email: r.email,
      name: r.name,
      role: r.role,
      title: p.title,
      timeZone: p.timeZone,
      ...localNow(p, now),
      joinedAt: iso(r.joinedAt)!,
    };
  });
  return page(items, total, f.limit, f.offset);
}

export type MemberItem = Awaited<ReturnType<typeof listMembers>>["items"][number];

/** The member `ref` names in the acting company; anyone else is "not found". */
export async function memberOf(ctx: ActorContext, ref: MemberRef) {
  if ((ref.userId === undefined) === (ref.email === undefined))
    throw invalid("Name the member by userId or by email (one of them).");
  const by = ref.userId !== undefined ? eq(users.id, ref.userId) : eq(users.email, ref.email!.trim().toLowerCase());
  const row = (
    await ctx.deps.db
      .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.companyId, ctx.company.id), by))
      .limit(1)
  )[0];
  if (!row)
    throw notFound(
      `${ref.email ?? `User ${ref.userId}`} is not a member of ${ctx.company.name}. List members with team_members_list.`,
    );
  return row;
}

async function ownerCount(ctx: ActorContext): Promise<number> {
  return (
    (
      await ctx.deps.db
        .select({ n: count() })
        .from(memberships)
        .where(and(eq(memberships.companyId, ctx.company.id), eq(memberships.role, "owner")))
    )[0]?.n ?? 0
  );
}

const LAST_OWNER = (ctx: ActorContext) =>
  `${ctx.company.name} must keep at least one owner; make someone else owner first.`;

export async function changeRole(ctx: ActorContext, ref: MemberRef, rawRole: string) {
  authorize(ctx, "team:write", { write: true });
  checkManager(ctx);
  const role = parseRole(rawRole);
  return await ctx.deps.store.transaction(async (tx) => {
    const m = await memberOf(ctx, ref);
    if ((role === "owner" || m.role === "owner") && ctx.company.role !== "owner")
      throw forbidden("Only an owner can grant or change the owner role.");
    if (m.role === role)
      return { userId: m.userId, email: m.email, role, previousRole: m.role, status: "unchanged" as const };
    if (m.role === "owner" && (await ownerCount(ctx)) <= 1) throw conflict(LAST_OWNER(ctx));
    await tx
      .update(memberships)
      .set({ role })
      .where(and(eq(memberships.companyId, ctx.company.id), eq(memberships.userId, m.userId)));
    await audit(tx, ctx, "team.role_change", {
      type: "user",
      id: m.userId,
      detail: { email: m.email, role, previousRole: m.role },
    });
    await emit(
      tx,
      ctx,
      memberRoleChanged,
      { id: m.userId },
      { userId: m.userId, email: m.email, role, previousRole: m.role },
    );
    return { userId: m.userId, email: m.email, role, previousRole: m.role, status: "updated" as const };
  });
}

/** What to do with a departing member's open work: hand it to someone, or leave it unassigned. */
export interface HandOver {
  /** The member (user id or email) who takes it over. */
  reassignTo?: number | string;
  /** Remove anyway, leaving their open cards, projects and tickets without them. */
  force?: boolean;
}

/** A member's open work in the acting company, as counts, some keys, and a line a person reads. */
export async function openWorkSummary(ctx: ActorContext, userId: number) {
  const db = ctx.deps.db;
  const p = await openWorkOf(db, ctx.company.id, userId);
  const t = await openTicketsOf(db, ctx.company.id, userId);
  const more = (n: number, shown: string[]) => (n > shown.length ? `${shown.join(", ")}, …` : shown.join(", "));
  const parts = [
    p.openCards ? `${p.openCards} open card${p.openCards === 1 ? "" : "s"} (${more(p.openCards, p.keys)})` : null,
    p.leads.length ? `lead of project${p.leads.length === 1 ? "" : "s"} ${p.leads.join(", ")}` : null,
    t.openTickets
      ? `${t.openTickets} open ticket${t.openTickets === 1 ? "" : "s"} (${more(t.openTickets, t.numbers)})`
      : null,
  ].filter((x): x is string => x !== null);
  return {
    openCards: p.openCards,
    cards: p.keys,
    leads: p.leads,
    openTickets: t.openTickets,
    tickets: t.numbers,
    text: parts.join("; "),
    any: parts.length > 0,
  };
}

/** The member who takes the work over: another owner or admin of the company. */
async function successorOf(ctx: ActorContext, ref: number | string, leaving: { userId: number }) {
  const to = await memberOf(ctx, typeof ref === "number" ? { userId: ref } : { email: ref }).catch((e) => {
    throw invalid(`reassignTo: ${(e as Error).message}`, { path: "reassignTo" });
  });
  if (to.userId === leaving.userId)
    throw invalid("reassignTo must be someone other than the member who leaves.", { path: "reassignTo" });
  if (to.role === "viewer")
    throw invalid(
      `reassignTo: ${to.name ?? to.email} is a viewer of ${ctx.company.name} and cannot take over work; choose an owner or admin.`,
      { path: "reassignTo" },
    );
  return to;
}

async function remove(
  ctx: ActorContext,
  m: { userId: number; email: string; name: string | null; role: Role },
  left: boolean,
  how: HandOver,
) {
  return await ctx.deps.store.transaction(async (tx) => {
    if (m.role === "owner" && (await ownerCount(ctx)) <= 1) throw conflict(LAST_OWNER(ctx));
    const work = await openWorkSummary(ctx, m.userId);
    let handedOver: {
      to: { userId: number; email: string } | null;
      cards: string[];
      leads: string[];
      tickets: string[];
    } | null = null;
    if (work.any) {
      if (how.reassignTo === undefined && !how.force) {
        const who = left ? "You still own" : `${m.name ?? m.email} still owns`;
        throw conflict(
          `${who} open work in ${ctx.company.name}: ${work.text}. Say who takes it over (reassignTo: an owner's or admin's id or email), or ${left ? "leave" : "remove them"} anyway with force: true to leave it unassigned.`,
          {
            openCards: work.openCards,
            cards: work.cards,
            leads: work.leads,
            openTickets: work.openTickets,
            tickets: work.tickets,
          },
        );
      }
      const to = how.reassignTo !== undefined ? await successorOf(ctx, how.reassignTo, m) : null;
      const p = await handOverOpenWork(tx, ctx, m.userId, to?.userId ?? null);
      const t = await handOverTickets(tx, ctx, m.userId, to?.userId ?? null);
      handedOver = {
        to: to && { userId: to.userId, email: to.email },
        cards: p.cards,
        leads: p.leads,
        tickets: t.map((n) => `#${n}`),
      };
    }
    await tx
      .delete(memberships)
      .where(and(eq(memberships.companyId, ctx.company.id), eq(memberships.userId, m.userId)));
    await audit(tx, ctx, left ? "team.leave" : "team.remove", {
      type: "user",
      id: m.userId,
      detail: {
        email: m.email,
        role: m.role,
        ...(handedOver && {
          handedOverTo: handedOver.to?.userId ?? null,
          cards: handedOver.cards.length,
          leads: handedOver.leads,
          tickets: handedOver.tickets.length,
        }),
      },
    });
    await emit(
      tx,
      ctx,
      memberRemoved,
      { id: m.userId },
      { userId: m.userId, email: m.email, role: m.role, left, handedOverToUserId: handedOver?.to?.userId ?? null },
    );
    return { userId: m.userId, email: m.email, status: "removed" as const, ...(handedOver && { handedOver }) };
  });
}

/** Removes a member; it takes effect on their next request, whatever credential they use. */
export async function removeMember(ctx: ActorContext, ref: MemberRef, how: HandOver = {}) {
  authorize(ctx, "team:write", { write: true });
  const m = await memberOf(ctx, ref);
  if (m.userId === ctx.principal.userId) return await leaveTeam(ctx, how);
  checkManager(ctx);
  if (m.role === "owner" && ctx.company.role !== "owner") throw forbidden("Only an owner can remove an owner.");
  return await remove(ctx, m, false, how);
}

/** The caller leaves the company (any role; the last owner cannot). */
export async function leaveTeam(ctx: ActorContext, how: HandOver = {}) {
  authorize(ctx, "team:write", { write: true, minRole: "viewer" });
  const m = await memberOf(ctx, { userId: ctx.principal.userId });
  return await remove(ctx, m, true, how);
}
