/**
 * Team management rules, over the membership verbs (which take no actor).
 * The portal's team page calls these today; the team MCP toolset will too:
 *
 * - owners and admins manage; viewers only see;
 * - only an owner may grant the owner role or change/remove an owner;
 * - a company always keeps at least one owner.
 */
import { and, asc, eq } from "drizzle-orm";
import type { CompanyAccess, Deps } from "../../core/context";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { memberships, ROLES, users, type Role } from "./tables";
import { addMember, isRole, removeMember, userByEmail } from "./verbs";
import { byText } from "../../core/sql";

/** The acting member: the company acted on, and the actor's role there. */
type Membership = CompanyAccess;

export interface Member {
  userId: number;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: Date;
}

export async function listMembers(deps: Deps, companyId: number): Promise<Member[]> {
  return await deps.db
        .select({ userId: users.id, email: users.email, name: users.name, role: memberships.role, joinedAt: memberships.createdAt })
        .from(memberships)
        .innerJoin(users, eq(users.id, memberships.userId))
        .where(eq(memberships.companyId, companyId))
        .orderBy(asc(byText(users.email)));
}

async function roleOf(deps: Deps, companyId: number, userId: number): Promise<Role | null> {
  return (
    (await deps.db
            .select({ role: memberships.role })
            .from(memberships)
            .where(and(eq(memberships.companyId, companyId), eq(memberships.userId, userId))).limit(1))[0]?.role ?? null
  );
}

async function ownerCount(deps: Deps, companyId: number): Promise<number> {
  return (await listMembers(deps, companyId)).filter((m) => m.role === "owner").length;
}

function checkManager(actor: Membership) {
  if (actor.role !== "owner" && actor.role !== "admin")
    throw forbidden(`Only owners and admins of ${actor.name} can manage the team; your role is ${actor.role}.`);
}

function parseRole(raw: string): Role {
  if (!isRole(raw)) throw invalid(`Role must be one of ${ROLES.join(", ")}.`);
  return raw;
}

export async function addMemberByEmail(deps: Deps, actor: Membership, email: string, rawRole: string): Promise<Member> {
  checkManager(actor);
  const role = parseRole(rawRole);
  if (role === "owner" && actor.role !== "owner") throw forbidden("Only an owner can add another owner.");
  const user = await userByEmail(deps, email);
  if (await roleOf(deps, actor.id, user.id)) throw conflict(`${user.email} is already a member of ${actor.name}.`);
  await addMember(deps, actor.id, user.id, role);
  return (await listMembers(deps, actor.id)).find((m) => m.userId === user.id)!;
}

export async function changeRole(deps: Deps, actor: Membership, userId: number, rawRole: string): Promise<void> {
  checkManager(actor);
  const role = parseRole(rawRole);
  const current = await roleOf(deps, actor.id, userId);
  if (!current) throw notFound(`No such member of ${actor.name}.`);
  if ((role === "owner" || current === "owner") && actor.role !== "owner")
    throw forbidden("Only an owner can grant or change the owner role.");
  if (current === "owner" && role !== "owner" && await ownerCount(deps, actor.id) <= 1)
    throw conflict(`${actor.name} must keep at least one owner; make someone else owner first.`);
  await addMember(deps, actor.id, userId, role);
}

export async function removeFromTeam(deps: Deps, actor: Membership, userId: number): Promise<void> {
  checkManager(actor);
  const current = await roleOf(deps, actor.id, userId);
  if (!current) throw notFound(`No such member of ${actor.name}.`);
  if (current === "owner" && actor.role !== "owner") throw forbidden("Only an owner can remove an owner.");
  if (current === "owner" && await ownerCount(deps, actor.id) <= 1)
    throw conflict(`${actor.name} must keep at least one owner; make someone else owner first.`);
  await removeMember(deps, actor.id, userId);
}
