/**
 * The demo's surveys, seeded into a fresh store: Harbor's open survey with
 * its responses reads back through the same verbs agents use (summary
 * figures counted by hand from db/seed/demo-surveys.ts), its paths agree
 * with the skip logic, and its public page is served.
 */
import { catalog } from "../../src/catalog";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { loadConfig } from "../../src/config";
import { openBlobStore } from "../../src/core/blobs";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { companies, users } from "../../src/core/tables";
import { seedDemo } from "../../db/seed/demo";
import { answersOnPath, walk } from "../../src/domains/surveys/logic";
import { surveyPublicRoutes } from "../../src/domains/surveys/public-pages";
import { summarizeResponses, listResponses } from "../../src/domains/surveys/responses";
import { getSurvey } from "../../src/domains/surveys/surveys";
import { surveyResponses, surveys } from "../../src/domains/surveys/tables";
import { openTestStore } from "../db";
import { testMediaConfig } from "../harness";

let deps: Deps;
let dataDir: string;
let ctx: ActorContext;

beforeAll(async () => {
  const store = await openTestStore();
  dataDir = mkdtempSync(join(tmpdir(), "plinth-survey-demo-"));
  const config = { ...loadConfig({ "data-dir": dataDir }, {}), ...(await testMediaConfig(store.engine === "pg")) };
  deps = {
    store,
    db: store.db,
    config,
    clock: new ManualClock(new Date("2031-03-15T12:00:00Z")),
    redis: null,
    blobs: openBlobStore({ config, store }),
    catalog,
  };
  await seedDemo(deps);
  const harbor = (await deps.db.select().from(companies).where(eq(companies.name, "Harbor Coffee Roasters")))[0]!;
  const demo = (await deps.db.select().from(users).where(eq(users.email, "demo@plinth.dev")))[0]!;
  const company = { id: harbor.id, name: harbor.name, role: "admin" as const };
  ctx = {
    deps,
    company,
    requestId: "t",
    principal: {
      userId: demo.id,
      credential: { kind: "cli", id: 0, name: "test" },
      scopes: ["*"],
      companies: [company],
      requireCmsApproval: false,
    },
  };
}, 60_000);
afterAll(async () => {
  await deps?.store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("Harbor's survey is open with 26 responses, 23 finished, in two languages", async () => {
  const s = await getSurvey(ctx, { slug: "harbor-visit-feedback" });
  expect(s).toMatchObject({
    status: "open",
    acceptingResponses: true,
    responseCount: 23,
    approval: { status: "approved" },
  });
  expect(s.definition.languages).toEqual(["en", "de"]);
  expect((await listResponses(ctx, { surveySlug: "harbor-visit-feedback", limit: 1, offset: 0 })).total).toBe(26);
});

test("its summary reads as counted by hand: NPS 12 promoters, 6 passives, 5 detractors of 23 finished → 30.43", async () => {
  const sum = await summarizeResponses(ctx, { surveySlug: "harbor-visit-feedback", finished: true });
  expect(sum).toMatchObject({ responses: 23, finished: 23, completionRate: 100 });
  const nps = sum.questions.find((q) => q.id === "nps") as any;
  expect(nps.nps).toEqual({ score: 30.43, promoters: 12, passives: 6, detractors: 5 });
  // Every response, finished or not: 26 of which 13 promoters, 6 detractors.
  const all = (await summarizeResponses(ctx, { surveySlug: "harbor-visit-feedback" })).questions.find(
    (q) => q.id === "nps",
  ) as any;
  expect(all.nps).toEqual({ score: 26.92, promoters: 13, passives: 7, detractors: 6 });
  // The improvement question is only asked of non-promoters: 11 finished ones saw it.
  expect(sum.questions.find((q) => q.id === "improve")).toMatchObject({ seen: 11, answered: 11 });
});

test("every stored path is the one the skip logic gives, and answers stay on it", async () => {
  const s = (await deps.db.select().from(surveys).where(eq(surveys.slug, "harbor-visit-feedback")))[0]!;
  const rows = await deps.db.select().from(surveyResponses).where(eq(surveyResponses.surveyId, s.id));
  for (const r of rows) {
    const route = walk(s.definition, r.answers, r.hidden);
    expect(r.path).toEqual(r.finished ? route.pages : route.pages.slice(0, r.path.length));
    expect(r.answers).toEqual(answersOnPath(s.definition, r.path, r.answers));
  }
});

test("its public page is served; Northwind's closed one says it is closed", async () => {
  const app = surveyPublicRoutes(deps);
  const open = await app.request("/harbor-visit-feedback?lang=de");
  expect(open.status).toBe(200);
  expect(await open.text()).toContain("Wie wahrscheinlich ist es, dass Sie Harbor Coffee einem Freund empfehlen?");
  expect((await app.request("/northwind-onboarding")).status).toBe(410);
});
