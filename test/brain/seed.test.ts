/**
 * The demo's knowledge bases (db/seed/demo-brain.ts), read back through the
 * brain tools on a freshly seeded server: a few dozen linked records per
 * company, searchable, with backlinks, meetings whose action items became
 * tasks, an org chart and a document with history.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import type { ActorContext } from "../../src/core/context";
import { companies, users } from "../../src/core/tables";
import { brainDomain } from "../../src/domains/brain/tools";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
const ctxs: Record<string, ActorContext> = {};
const tools = new Map(brainDomain.tools.map((t) => [t.name, t]));
const call = async (co: string, name: string, args: Record<string, unknown>): Promise<any> =>
  tools.get(name)!.run(ctxs[co]!, v.parse(tools.get(name)!.input, args));

beforeAll(async () => {
  s = await startTestServer({ seed: true });
  const demo = (await s.deps.db.select().from(users).where(eq(users.email, "demo@plinth.dev")))[0]!;
  for (const name of ["Northwind Studio", "Harbor Coffee Roasters"]) {
    const c = (await s.deps.db.select().from(companies).where(eq(companies.name, name)))[0]!;
    const company = { id: c.id, name: c.name, role: "owner" as const };
    ctxs[name] = {
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
  }
}, 120_000);
afterAll(() => s.stop());

describe("the demo knowledge bases", () => {
  test("a few dozen records in each company, of every kind", async () => {
    const nw = await call("Northwind Studio", "brain_records_list", { limit: 1 });
    const hb = await call("Harbor Coffee Roasters", "brain_records_list", { limit: 1 });
    expect(nw.total).toBeGreaterThanOrEqual(35);
    expect(hb.total).toBeGreaterThanOrEqual(25);
    for (const kind of [
      "note",
      "document",
      "meeting",
      "task",
      "person",
      "topic",
      "glossary",
      "goal",
      "initiative",
      "playbook",
      "org_unit",
    ])
      expect((await call("Northwind Studio", "brain_records_list", { kind, limit: 1 })).total).toBeGreaterThan(0);
  });

  test("search and context answer from it, each company from its own", async () => {
    const r = await call("Northwind Studio", "brain_search", { query: "discount approval" });
    expect(r.items[0].title).toBe("Pricing policy");
    const c = await call("Northwind Studio", "brain_context", { question: "When are invoices due?" });
    expect(c.passages[0].title).toBe("Pricing policy");
    expect((await call("Harbor Coffee Roasters", "brain_search", { query: "discounts" })).total).toBe(0);
    expect(
      (await call("Harbor Coffee Roasters", "brain_search", { query: "cupping" })).items.map((i: any) => i.title),
    ).toContain("Sourcing policy");
  });

  test("links: backlinks, meetings' tasks, the org chart, a document's history", async () => {
    const pricing = await call("Northwind Studio", "brain_records_get", { id: "Pricing policy" });
    expect(pricing.backlinks.map((b: any) => b.title)).toEqual(["Proposal template"]);
    expect(pricing.relations.map((r: any) => r.record.title)).toEqual(["Pricing"]);
    const review = await call("Northwind Studio", "brain_records_get", { id: "Harbor weekly review — beta" });
    expect(review.actionItems.every((a: any) => typeof a.taskId === "number")).toBe(true);
    expect(review.relations.filter((r: any) => r.type === "attendee")).toHaveLength(4);
    const tree = await call("Northwind Studio", "brain_org_units_tree", {});
    expect(tree.units.map((u: any) => u.title)).toEqual(["Northwind Studio"]);
    expect(tree.units[0].children.map((u: any) => u.title)).toEqual(["Design", "Development"]);
    const h = await call("Northwind Studio", "brain_records_history", { id: pricing.id });
    expect(h.items.map((x: any) => x.by.name)).toEqual(["Priya Shah", expect.any(String)]);
    const done = await call("Northwind Studio", "brain_records_list", { kind: "task", status: "done" });
    expect(done.total).toBe(2);
  });

  test("a person linked to the demo CRM's contact shows it and its deal live", async () => {
    const ruth = await call("Northwind Studio", "brain_records_get", { id: "Ruth Okonkwo" });
    expect(ruth.crmContact).toMatchObject({
      source: "crm",
      linkedBy: "link",
      name: "Dr. Ruth Okonkwo",
      email: "ruth.okonkwo@tidewater.example",
    });
    expect(ruth.crmContact.deals.map((d: any) => d.name)).toEqual(["Tidewater Museum – exhibition microsite"]);
  });
});
