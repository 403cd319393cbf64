/**
 * The demo's work management (db/seed/demo-projects.ts), read back through
 * the tools on a freshly seeded server: two Northwind projects, a running
 * sprint whose burndown and velocity come from five weeks of history, time
 * logs, and a recurrence waiting for Monday.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ActorContext } from "../../src/core/context";
import { workDomains } from "../../src/domains/projects/tools";
import { startTestServer, type TestServer } from "../harness";
import { companies, users } from "../../src/core/tables";
import { eq } from "drizzle-orm";
import * as v from "valibot";

let s: TestServer;
let ctx: ActorContext;
const tools = new Map(workDomains.flatMap((d) => d.tools).map((t) => [t.name, t]));
const call = async (name: string, args: Record<string, unknown>): Promise<any> =>
  tools.get(name)!.run(ctx, v.parse(tools.get(name)!.input, args));

beforeAll(async () => {
  s = await startTestServer({ seed: true });
  const nw = (await s.deps.db.select().from(companies).where(eq(companies.name, "Northwind Studio")))[0]!;
  const demo = (await s.deps.db.select().from(users).where(eq(users.email, "demo@plinth.dev")))[0]!;
  const company = { id: nw.id, name: nw.name, role: "owner" as const };
  ctx = {
    deps: s.deps,
    principal: {
      userId: demo.id,
      credential: { kind: "cli", id: 0, name: "t" },
      scopes: ["*"],
      companies: [company],
      requireCmsApproval: false,
    },
    company,
    requestId: "t",
  };
});
afterAll(() => s.stop());

describe("Northwind's projects in the demo", () => {
  test("two projects with boards, labels, milestones and members", async () => {
    const list = await call("projects_list", {});
    expect(list.items.map((p: any) => p.key)).toEqual(["HCW", "NWB"]);
    const hcw = await call("projects_get", { id: "HCW" });
    expect(hcw.labels.map((l: any) => l.name)).toEqual(["Bug", "Content", "Design", "Frontend", "SEO"]);
    expect(hcw.milestones.length).toBe(2);
    expect(hcw.members.length).toBe(3);
    expect(hcw.activeSprint.name).toBe("Sprint 3: shop and polish");
    const nwb = await call("projects_get", { id: "NWB" });
    expect(nwb.boards[0].columns.find((c: any) => c.name === "In progress")).toMatchObject({ wipLimit: 2, cards: 2 });
  });

  test("a running sprint with history: committed, scope change, burndown down to today", async () => {
    const sprints = (await call("sprints_list", { projectId: "HCW" })).items;
    expect(sprints.map((x: any) => x.status)).toEqual(["planned", "active", "closed", "closed"]);
    const active = await call("sprints_get", { id: sprints[1].id });
    // Committed: HCW-12..16 (8+5+3+3+2) and HCW-10 carried over (3); a 1-point bug joined later.
    expect(active).toMatchObject({ committedPoints: 24, scopePoints: 25, completedPoints: 9, remainingPoints: 16 });
    const b = await call("sprints_burndown", { id: sprints[1].id });
    expect(b.points.length).toBeGreaterThanOrEqual(7);
    expect(b.points[0].remainingPoints).toBe(24);
    expect(b.points.at(-1).remainingPoints).toBe(16);
    const v = await call("sprints_velocity", { projectId: "HCW" });
    // Sprint 1: 27 committed, 19 done (HCW-6 carried); sprint 2: 31 committed (HCW-6 + 5 cards), 28 done (HCW-10 carried).
    expect(v.sprints.map((x: any) => [x.committedPoints, x.completedPoints, x.carriedOverPoints])).toEqual([
      [31, 28, 3],
      [27, 19, 8],
    ]);
    expect(v.velocity).toBe(23.5);
  });

  test("time logged day by day, and a recurrence due next Monday", async () => {
    const t = await call("time_logs_list", { projectId: "HCW", limit: 1 });
    expect(t.total).toBeGreaterThan(15);
    expect(t.totals.minutes).toBeGreaterThan(4000);
    expect(t.totals.billableMinutes).toBe(t.totals.minutes - 60);
    const r = (await call("card_recurrences_list", {})).items;
    expect(r).toHaveLength(1);
    expect(r[0].schedule).toBe("weekly on mo at 09:00 (Europe/London)");
    expect(new Date(r[0].nextAt).getTime()).toBeGreaterThan(s.clock.ms());
    const c = await call("cards_get", { id: "HCW-13", include: ["comments"] });
    expect(c.checklist).toMatchObject({ done: 2, total: 4 });
  });
});
