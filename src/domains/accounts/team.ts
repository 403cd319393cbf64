/**
 * The members of a company, for code that only needs the list (operator
 * tools, other domains checking who belongs). Managing the team (roles,
 * removal, invitations, with their rules, audit and events) is the team
 * domain's: src/domains/team/members.ts and invitations.ts, which the
 * portal's team page and the team tools call.
 */
import { asc, eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { byText } from "../../core/sql";
import { memberships, users, type Role } from "./tables";

export interface Member {
  userId: number;
  email: string;
  name: string | null;
  role: Role;
  joinedAt: Date;
}

export async function listMembers(deps: Deps, companyId: number): Promise<Member[]> {
  return await deps.db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: memberships.role,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.companyId, companyId))
    .orderBy(asc(byText(users.email)));
}
