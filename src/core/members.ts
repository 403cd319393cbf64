/**
 * Who a user reference names inside the acting company: a user id, an email
 * address or "me", looked up among the company's members only (a person
 * of another company answers exactly like no one). Tickets and chat
 * (assignees) and the CRM (owners) each take such references; they share
 * this one lookup and each keeps its own refusal, because each names the
 * fix in its own words (which role may work tickets, which field was wrong).
 */
import { and, eq } from "drizzle-orm";
import type { ActorContext } from "./context";
import type { Db } from "./db";
import type { Role } from "./roles";
import { memberships, users } from "./tables";

export interface Member {
  id: number;
  name: string | null;
  email: string;
  role: Role;
}

/** The member of ctx's company that `who` names (id, email, "me"), or null when it names none. */
export async function memberOfCompany(
  q: Pick<Db, "select">,
  ctx: ActorContext,
  who: number | string,
): Promise<Member | null> {
  const byEmail = typeof who === "string" && who !== "me";
  const userId = who === "me" ? ctx.principal.userId : typeof who === "number" ? who : null;
  const row = (
    await q
      .select({ id: users.id, name: users.name, email: users.email, role: memberships.role })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(
        and(
          eq(memberships.companyId, ctx.company.id),
          byEmail ? eq(users.email, (who as string).toLowerCase()) : eq(users.id, userId!),
        ),
      )
      .limit(1)
  )[0];
  return row ?? null;
}
