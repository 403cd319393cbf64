/**
 * The demo's CRMs, read through the crm tools as the demo user: pipelines
 * with deals in every stage in both companies, stage histories, a merged
 * duplicate that can still be undone, tasks, views, scores, and tickets on
 * a contact's timeline.
 */
import { catalog } from "../../src/catalog";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { loadConfig } from "../../src/config";
import { openBlobStore } from "../../src/core/blobs";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { companies, memberships, users } from "../../src/domains/accounts/tables";
import { domains } from "../../src/domains";
import { seedDemo } from "../../db/seed/demo";
import { openTestStore } from "../db";
import { testMediaConfig } from "../harness";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("both CRMs: every stage of every pipeline holds a deal; histories, merge, tasks, views, scores, tickets on the timeline", async () => {
  const store = await openTestStore();
  const dataDir = mkdtempSync(join(tmpdir(), "plinth-seed-crm-"));
  dirs.push(dataDir);
  const config = { ...loadConfig({ "data-dir": dataDir }, {}), ...(await testMediaConfig(store.engine === "pg")) };
  const deps: Deps = {
    store,
    db: store.db,
    config,
    clock: new ManualClock(new Date("2031-03-17T16:00:00Z")),
    redis: null,
    blobs: openBlobStore({ config, store }),
    catalog,
  };
  await seedDemo(deps);
  const demo = (await deps.db.select().from(users).where(eq(users.email, "demo@plinth.dev")))[0]!;
  const ctxFor = async (name: string): Promise<ActorContext> => {
    const c = (await deps.db.select().from(companies).where(eq(companies.name, name)))[0]!;
    const m = (await deps.db.select().from(memberships).where(eq(memberships.companyId, c.id))).find(
      (r) => r.userId === demo.id,
    )!;
    const company = { id: c.id, name: c.name, role: m.role };
    return {
      deps,
      principal: {
        userId: demo.id,
        credential: { kind: "cli", id: 0, name: "test" },
        scopes: ["*"],
        companies: [company],
        requireCmsApproval: false,
      },
      company,
      requestId: "t",
    };
  };
  const all = domains.flatMap((d) => d.tools);
  const call = async (ctx: ActorContext, name: string, args: Record<string, unknown>): Promise<any> => {
    const t = all.find((x) => x.name === name)!;
    return await t.run(ctx, v.parse(t.input, args));
  };
  const nw = await ctxFor("Northwind Studio");
  const hb = await ctxFor("Harbor Coffee Roasters");
  for (const [ctx, n] of [
    [nw, 2],
    [hb, 1],
  ] as const) {
    const pipes = (await call(ctx, "pipelines_list", {})).items;
    expect(pipes.length).toBe(n);
    for (const p of pipes)
      for (const s of p.stages) expect([p.name, s.name, s.deals > 0]).toEqual([p.name, s.name, true]);
  }
  const won = (await call(nw, "deals_list", { status: "won", limit: 100 })).items;
  expect(won.length).toBe(2);
  const fjord = await call(nw, "deals_get", { id: won.find((d: any) => d.name.includes("SEO")).id });
  expect(fjord.stageHistory.map((h: any) => h.to)).toEqual(["Lead", "Qualified", "Proposal", "Negotiation", "Won"]);
  expect(fjord.stageHistory[1].at < fjord.stageHistory[4].at).toBe(true);
  const merges = (await call(nw, "crm_merges_list", {})).items;
  expect(merges.length).toBe(1);
  expect(merges[0].undoable).toBe(true);
  expect((await call(nw, "contacts_get", { id: "j.weber@gmail.com" })).firstName).toBe("Jonas");
  const tl = await call(nw, "crm_timeline_get", { contactId: "anna@lumenbakery.example", limit: 50 });
  expect(tl.items.some((i: any) => i.type === "ticket")).toBe(true);
  expect(tl.items.some((i: any) => i.type === "note")).toBe(true);
  expect((await call(nw, "crm_activities_list", { openTasks: true })).total).toBe(3);
  expect((await call(nw, "crm_views_list", {})).total).toBe(2);
  const referral = await call(nw, "contacts_list", {
    viewId: (await call(nw, "crm_views_list", { object: "contact" })).items[0].id,
  });
  expect(referral.items[0].score).toBeGreaterThan(0);
  const fc = await call(nw, "pipelines_forecast", { id: (await call(nw, "pipelines_list", {})).items[0].id });
  expect(fc.currencies[0].weightedCents).toBeGreaterThan(0);
  expect((await call(hb, "crm_search", { q: "lighthouse" })).items.map((i: any) => i.type).sort()).toEqual([
    "company",
    "contact",
    "deal",
  ]);
  await store.close();
});
