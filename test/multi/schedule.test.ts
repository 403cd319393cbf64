/**
 * Scheduled publishing across instances: two servers on one PostgreSQL
 * database with one ManualClock (as in races.test.ts), each with a warm REST
 * cache. At the instant both serve the post without waiting for a job, and
 * when both instances' runners (and two direct passes at once) reach the
 * instant, post.published — what outgoing webhooks fan out from — is
 * written exactly once. On SQLite: one server, the same checks.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { events } from "../../src/core/tables";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { announceDue } from "../../src/domains/cms/schedule";
import { makeWorld, type World } from "../cms/world";
import { ON_PG } from "../db";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";

let a: TestServer;
let b: TestServer | undefined;
let servers: TestServer[];
let w: World;
let restKey: string;

beforeAll(async () => {
  a = await startTestServer({ seed: false });
  if (ON_PG)
    b = await startTestServer({
      seed: false,
      clock: a.clock,
      config: { databaseUrl: a.config.databaseUrl, publicUrl: a.config.publicUrl },
    });
  servers = b ? [a, b] : [a];
  w = await makeWorld(a);
  restKey = (await mintRestKey(a.deps, w.siteA)).key;
}, 60_000);

afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

const slugs = async (s: TestServer) => {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}/posts`, { headers: { Authorization: `Bearer ${restKey}` } });
  expect(r.status).toBe(200);
  return ((await r.json()) as any).data.map((p: { slug: string }) => p.slug) as string[];
};

test("every instance serves the post at its instant; post.published is written once", async () => {
  const T = a.clock.ms() + 3_600_000;
  const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Across instances" });
  await w.ok(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: new Date(T).toISOString() });
  const o = await decideApproval(a.deps, { token: p.approval.token }, "approve", { decidedBy: "Rita" });
  expect(o.ok).toBe(true);
  for (const s of servers) expect(await slugs(s)).not.toContain("across-instances");

  a.clock.set(T - 1);
  for (const s of servers) expect(await slugs(s)).not.toContain("across-instances");
  a.clock.set(T);
  for (const s of servers) expect(await slugs(s)).toContain("across-instances");

  const claimed = await Promise.all(servers.flatMap((s) => [announceDue(s.deps), s.jobs.runDue().then(() => 0)]));
  await Promise.all(servers.map((s) => s.jobs.runDue()));
  const published = await a.deps.db
    .select()
    .from(events)
    .where(and(eq(events.type, "post.published"), eq(events.entityId, p.id)));
  expect(published).toHaveLength(1);
  expect(claimed.reduce((x, y) => x + y, 0)).toBeLessThanOrEqual(1);
  for (const s of servers) expect(await slugs(s)).toContain("across-instances");
}, 60_000);
