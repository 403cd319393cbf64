/**
 * A world for bookings verb tests: the store world (two companies, this
 * run's engine) plus two more members of the company in other zones, and
 * helpers to make a live page (drafted, then approved as a reviewer would).
 * The clock stands on Monday 4 March 2030, 08:00 UTC.
 */
import { eq } from "drizzle-orm";
import { users, memberships } from "../../src/domains/accounts/tables";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { bookingsDomain } from "../../src/domains/bookings/tools";
import { events } from "../../src/core/tables";
import { call, makeWorld as storeWorld, type World as StoreWorld } from "../store/world";

export const NOW = Date.UTC(2030, 2, 4, 8, 0, 0); // Monday 4 March 2030, 08:00Z

export interface World extends StoreWorld {
  ownerId: number;
  berlinId: number;
  nyId: number;
  strangerId: number;
  tool(name: string, args: Record<string, unknown>, ctx?: ReturnType<StoreWorld["ctx"]>): Promise<any>;
  approve(token: string): Promise<Record<string, unknown> | null>;
  livePage(args: Record<string, unknown>): Promise<{ id: number; slug: string }>;
  events(type?: string): Promise<{ type: string; entityId: number; data: any }[]>;
}

export async function makeWorld(): Promise<World> {
  const w = await storeWorld();
  w.clock.set(NOW);
  const db = w.deps.db;
  const ownerId = (await db.select({ id: users.id }).from(users).where(eq(users.email, "owner@example.test")))[0]!.id;
  const mk = async (email: string, name: string, company: number) => {
    const u = (await db.insert(users).values({ email, name }).returning())[0]!;
    await db.insert(memberships).values({ companyId: company, userId: u.id, role: "admin" });
    return u.id;
  };
  const berlinId = await mk("lena@example.test", "Lena Berlin", w.companyId);
  const nyId = await mk("noah@example.test", "Noah York", w.companyId);
  const strangerId = await mk("rival@example.test", "Rita Rival", w.otherCompanyId);
  const tool = (name: string, args: Record<string, unknown>, ctx = w.ctx()) => call(bookingsDomain, ctx, name, args);
  const approve = async (token: string) => {
    const o = await decideApproval(w.deps, { token }, "approve", { decidedBy: "a reviewer" });
    if (!o.ok) throw new Error(o.message);
    return o.approval.result;
  };
  return {
    ...w,
    ownerId,
    berlinId,
    nyId,
    strangerId,
    tool,
    approve,
    async livePage(args) {
      const r = await tool("booking_pages_create", args);
      await approve(r.approval.token);
      return { id: r.id, slug: r.slug };
    },
    async events(type) {
      const rows = await db.select().from(events).orderBy(events.id);
      return rows
        .filter((r) => !type || r.type === type)
        .map((r) => ({ type: r.type, entityId: r.entityId, data: r.data }));
    },
  };
}
