/**
 * Scheduled publishing over the real wire: posts_schedule / posts_unschedule
 * through an SDK client, REST v1 over HTTP, the approval page over HTTP, and
 * the cms.go_live job as the server's runner runs it. Visibility switches at
 * the instant itself (a millisecond before: not served; at: served), the
 * cached body and ETag of before are not served after, and post.published
 * (which outgoing webhooks fan out from) is written once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { events } from "../../src/core/tables";
import { JobRunner } from "../../src/core/jobs";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { announceDue, goLiveJob } from "../../src/domains/cms/schedule";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, SAMPLE_BLOCKS, type World } from "./world";

let s: TestServer;
let w: World;
let restKey: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
});
afterAll(async () => {
  await s?.stop();
});

const approve = async (token: string, by = "Rita Reviewer") => {
  const o = await decideApproval(s.deps, { token }, "approve", { decidedBy: by });
  if (!o.ok) throw new Error(o.message);
};
const rest = async (path: string, headers: Record<string, string> = {}) => {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, {
    headers: { Authorization: `Bearer ${restKey}`, ...headers },
  });
  return { status: r.status, etag: r.headers.get("etag"), body: r.status === 304 ? null : ((await r.json()) as any) };
};
const listed = async (path = "/posts") =>
  ((await rest(`${path}?limit=100`)).body.data as { slug: string }[]).map((p) => p.slug);
const eventsOf = async (type: string, postId: number) =>
  await s.deps.db
    .select()
    .from(events)
    .where(and(eq(events.type, type), eq(events.entityId, postId)));
/**
 * The job as a runner runs it: a fresh runner per call (no memory of a quiet
 * check a millisecond earlier) beside the server's own, which may also run
 * it on its timer; the lease and the per-post claim make the work happen once.
 */
const runJobs = async () => {
  const runner = new JobRunner(s.deps, [goLiveJob]);
  await runner.init();
  await runner.runDue();
};
const iso = (ms: number) => new Date(ms).toISOString();

describe("scheduled go-live", () => {
  test("approved with a future time: not served a millisecond before, served at the instant; announced once", async () => {
    const T = Math.ceil((s.clock.ms() + 3_600_000) / 1000) * 1000;
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Monday launch", blocks: SAMPLE_BLOCKS });
    const sch = await w.ok(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: iso(T) });
    expect(sch).toMatchObject({ status: "pending", publishedAt: iso(T) });
    // The open link of posts_create now carries the time: no second link.
    expect(sch.approval).toBeUndefined();

    // The approval page says when it goes live.
    const page = await (await fetch(w.local(p.approval.url))).text();
    const when = new Date(T);
    expect(page).toContain("Goes live");
    expect(page).toContain(`${when.getUTCFullYear()}`);
    expect(page).toContain("UTC");

    await approve(p.approval.token);
    const got = await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id });
    expect(got.status).toBe("scheduled");
    const slugsBy = async (status: string) =>
      (await w.ok(w.owner, "posts_list", { siteId: w.siteA, status, limit: 100 })).items.map((x: any) => x.slug);
    expect(await slugsBy("scheduled")).toEqual(["monday-launch"]);
    expect(await slugsBy("published")).not.toContain("monday-launch");

    // Warm the cache before the instant: the body and ETag of "not there".
    const before = await rest("/posts");
    expect(before.body.data.map((x: any) => x.slug)).not.toContain("monday-launch");
    expect((await rest("/posts/monday-launch")).status).toBe(404);
    expect(await listed("/pages")).not.toContain("monday-launch");

    s.clock.set(T - 1);
    await runJobs();
    expect(await listed()).not.toContain("monday-launch");
    expect((await rest("/posts/monday-launch")).status).toBe(404);
    expect(await eventsOf("post.published", p.id)).toHaveLength(0);
    // Same version, before the instant: the cached answer still revalidates.
    expect((await rest("/posts", { "If-None-Match": before.etag! })).status).toBe(304);

    s.clock.set(T);
    // At the instant, before any job has run: served, and the old ETag no longer matches.
    const atList = await rest("/posts", { "If-None-Match": before.etag! });
    expect(atList.status).toBe(200);
    expect(atList.body.data[0].slug).toBe("monday-launch");
    expect(atList.body.data[0].publishedAt).toBe(iso(T));
    expect((await rest("/posts/monday-launch")).status).toBe(200);

    // Two instances passing the instant together (each past its own lease): the post is claimed once.
    const claimed = await Promise.all([announceDue(s.deps), announceDue(s.deps)]);
    expect(claimed[0] + claimed[1]).toBe(1);
    await runJobs();
    const pub = await eventsOf("post.published", p.id);
    expect(pub).toHaveLength(1);
    expect(pub[0]!.data).toMatchObject({ postId: p.id, published: true, approvedBy: "Rita Reviewer", proposal: "new" });
    expect((pub[0]!.data as any).cacheTags).toContain(`site:${w.siteA}:post:${p.id}`);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).status).toBe("published");
    expect(await slugsBy("published")).toContain("monday-launch");
    expect(await slugsBy("scheduled")).toEqual([]);
    // After the job the version moved on: answers are cached and revalidate again.
    const after = await rest("/posts");
    expect((await rest("/posts", { "If-None-Match": after.etag! })).status).toBe(304);
  });

  test("scheduled unpublishing: served until the millisecond before, gone at the instant, announced once", async () => {
    const now = s.clock.ms();
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Flash sale" });
    await approve(p.approval.token);
    expect(await listed()).toContain("flash-sale");
    const U = now + 7_200_000;
    const held = await w.ok(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, unpublishAt: iso(U) });
    // A live post's times change only once a person approves.
    expect(held.approval.token).toBeString();
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).unpublishAt ?? null).toBeNull();
    await approve(held.approval.token);
    const warm = await rest("/posts/flash-sale");
    expect(warm.status).toBe(200);
    s.clock.set(U - 1);
    expect((await rest("/posts/flash-sale")).status).toBe(200);
    s.clock.set(U);
    expect((await rest("/posts/flash-sale", { "If-None-Match": warm.etag! })).status).toBe(404);
    expect(await listed()).not.toContain("flash-sale");
    await runJobs();
    await runJobs();
    expect(await eventsOf("post.unpublished", p.id)).toHaveLength(1);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).status).toBe("archived");
  });

  test("reschedule and cancel: a scheduled post moves only with approval; cancelling returns it to draft", async () => {
    const now = s.clock.ms();
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Moving target" });
    await w.ok(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: iso(now + 3_600_000) });
    await approve(p.approval.token);
    const moved = await w.ok(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: iso(now + 7_200_000) });
    expect(moved.status).toBe("scheduled");
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).publishedAt).toBe(iso(now + 3_600_000));
    await approve(moved.approval.token, "Second Reviewer");
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).publishedAt).toBe(iso(now + 7_200_000));
    s.clock.set(now + 3_600_000);
    expect(await listed()).not.toContain("moving-target");

    const cancelled = await w.ok(w.owner, "posts_unschedule", { siteId: w.siteA, id: p.id });
    expect(cancelled).toMatchObject({ status: "draft", publishedAt: null });
    s.clock.set(now + 7_200_000);
    await runJobs();
    expect(await listed()).not.toContain("moving-target");
    expect(await eventsOf("post.published", p.id)).toHaveLength(0);
  });
});

describe("refusals", () => {
  test("bad and past times, another company's post, a viewer, a read-only key", async () => {
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Guarded" });
    const future = iso(s.clock.ms() + 86_400_000);
    expect(await w.err(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: "next monday" })).toContain(
      "ISO 8601",
    );
    expect(await w.err(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: iso(s.clock.ms() - 1) })).toContain(
      "future",
    );
    expect(await w.err(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id })).toContain("Give at");
    expect(
      await w.err(w.owner, "posts_schedule", {
        siteId: w.siteA,
        id: p.id,
        at: future,
        unpublishAt: iso(s.clock.ms() + 3_600_000),
      }),
    ).toContain("after the post goes live");
    const n = w.changes();
    expect(await w.err(w.stranger, "posts_schedule", { siteId: w.siteB, id: p.id, at: future })).toMatch(/not found/i);
    expect(await w.err(w.stranger, "posts_unschedule", { siteId: w.siteB, id: p.id })).toMatch(/not found/i);
    expect(await w.err(w.viewer, "posts_schedule", { siteId: w.siteA, id: p.id, at: future })).toBeString();
    expect(w.call(w.reader, "posts_schedule", { siteId: w.siteA, id: p.id, at: future })).rejects.toThrow(
      "sites:write",
    );
    expect(w.changes()).toBe(n);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).publishedAt).toBeNull();
  });

  test("a live post cannot be moved into the future", async () => {
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Already out" });
    await approve(p.approval.token);
    expect(
      await w.err(w.owner, "posts_schedule", { siteId: w.siteA, id: p.id, at: iso(s.clock.ms() + 60_000) }),
    ).toContain("live already");
  });
});
