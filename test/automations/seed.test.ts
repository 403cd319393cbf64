/**
 * The demo seed's automations part: per demo company an enabled automation
 * with two versions and a run history, and a webhook subscription with a
 * delivery log, readable through the tools; nothing is left pending (a demo
 * server never calls the example URLs), and the seeded automation passes
 * the same validation as one an agent makes.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { companies } from "../../src/core/tables";
import { checkDefinition } from "../../src/domains/automations/definition";
import { automationRuns, automations, webhookDeliveries, webhookEndpoints } from "../../src/domains/automations/tables";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ seed: true });
});
afterAll(() => s.stop());

test("each demo company has an automation with run history and a webhook with deliveries", async () => {
  const cs = await s.deps.db.select().from(companies);
  const withAutomation = new Set(
    (await s.deps.db.select({ c: automations.companyId }).from(automations)).map((r) => r.c),
  );
  const withHook = new Set(
    (await s.deps.db.select({ c: webhookEndpoints.companyId }).from(webhookEndpoints)).map((r) => r.c),
  );
  const demo = cs.filter((c) => /Harbor|Northwind/.test(c.name));
  expect(demo.length).toBe(2);
  for (const c of demo) {
    expect(withAutomation.has(c.id)).toBe(true);
    expect(withHook.has(c.id)).toBe(true);
    const runs = await s.deps.db.select().from(automationRuns).where(eq(automationRuns.companyId, c.id));
    expect(runs.map((r) => r.status).sort()).toEqual(["failed", "skipped", "succeeded", "succeeded"]);
    const ds = await s.deps.db.select().from(webhookDeliveries).where(eq(webhookDeliveries.companyId, c.id));
    expect(ds.length).toBeGreaterThanOrEqual(3);
    expect(ds.some((d) => d.status === "pending")).toBe(false);
    expect(ds.some((d) => d.status === "failed")).toBe(true);
  }
});

test("the disabled chat greeting automation passes validation: enabling it works as for one an agent made", async () => {
  const greet = await s.deps.db.select().from(automations).where(eq(automations.name, "Greet new chats"));
  expect(greet.map((a) => a.enabled)).toEqual([false, false]);
  for (const a of greet) expect(checkedAs(a)).toEqual({ problems: [], warnings: [] });
});

/** The save-time check as the automation's creator (an owner, in the portal). */
function checkedAs(a: typeof automations.$inferSelect) {
  const ctx = {
    deps: s.deps,
    principal: {
      userId: a.createdByUserId,
      credential: { kind: "session", id: 0, name: "portal" },
      scopes: ["*"],
      companies: [],
      requireCmsApproval: false,
    },
    company: { id: a.companyId, name: "", role: "owner" },
  } as any;
  return checkDefinition(ctx, { trigger: a.trigger, conditions: a.conditions, actions: a.actions }, new Set());
}

test("the lead follow-up (a 2-day wait, then a branch on an earlier step's output) is valid; its run shows both", async () => {
  const rows = await s.deps.db.select().from(automations).where(eq(automations.name, "Follow up new leads"));
  expect(rows.map((a) => a.enabled)).toEqual([false, false]);
  for (const a of rows) {
    expect(checkedAs(a).problems).toEqual([]);
    expect(a.actions.map((x) => x.type)).toEqual(["wait", "call_tool", "if"]);
    const [run] = await s.deps.db.select().from(automationRuns).where(eq(automationRuns.automationId, a.id));
    expect(run!.steps.map((x) => [x.type, x.branch ?? null, x.path ?? x.index])).toEqual([
      ["wait", null, 0],
      ["call_tool", null, 1],
      ["if", "then", 2],
      ["send_email", null, "actions[2].with.then[0]"],
    ]);
    expect(Date.parse(run!.steps[0]!.finishedAt!) - Date.parse(run!.steps[0]!.startedAt)).toBe(2 * 86_400_000);
  }
});
