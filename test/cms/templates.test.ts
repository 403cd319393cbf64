/** Block templates: drafted through approval like posts; a live template keeps its approved blocks until a change is approved. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, SAMPLE_BLOCKS, type World } from "./world";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

const decide = async (token: string, d: "approve" | "reject") =>
  await decideApproval(s.deps, { token }, d, { decidedBy: "tester" });

describe("happy paths", () => {
  test("create → pending with a link; approve → published; update proposes new blocks while the approved ones stay", async () => {
    const t = await w.ok(w.owner, "block_templates_create", {
      siteId: w.siteA,
      name: "Landing hero",
      blocks: SAMPLE_BLOCKS.slice(0, 2),
    });
    expect(t).toMatchObject({
      slug: "landing-hero",
      status: "pending",
      approval: { linkType: "entity", status: "pending" },
    });
    expect(t.blocks).toBeUndefined();
    expect((await decide(t.approval.token, "approve")).ok).toBe(true);
    expect(await w.ok(w.owner, "block_templates_get", { siteId: w.siteA, id: t.id })).toMatchObject({
      status: "published",
      hasPendingChanges: false,
      blockCount: 2,
    });

    const u = await w.ok(w.owner, "block_templates_update", {
      siteId: w.siteA,
      id: t.id,
      blocks: SAMPLE_BLOCKS,
      description: "Top of the home page",
    });
    expect(u).toMatchObject({ status: "published", hasPendingChanges: true });
    const live = await w.ok(w.owner, "block_templates_get", {
      siteId: w.siteA,
      slug: "landing-hero",
      include: ["blocks"],
    });
    expect(live.blocks).toHaveLength(2);
    expect(live.pendingBlocks).toHaveLength(SAMPLE_BLOCKS.length);
    expect(live.description).toBe("Top of the home page");
    const preview = await w.ok(w.owner, "approvals_get", { id: u.approval.id });
    expect(preview.proposal.changes[0]).toMatchObject({ field: "Content", before: "2 blocks" });
    expect((await decide(u.approval.token, "approve")).ok).toBe(true);
    const after = await w.ok(w.owner, "block_templates_get", {
      siteId: w.siteA,
      id: t.id,
      include: ["blocks", "html"],
    });
    expect(after.blocks).toHaveLength(SAMPLE_BLOCKS.length);
    expect(after.html).toContain("Shop coffee");
    expect(after.hasPendingChanges).toBe(false);
  });

  test("reject: a new template becomes rejected; a rejected change to a live one leaves it as it was", async () => {
    const t = await w.ok(w.owner, "block_templates_create", { siteId: w.siteA, name: "Footer", blocks: [] });
    await decide(t.approval.token, "reject");
    expect(
      (await w.ok(w.owner, "block_templates_list", { siteId: w.siteA, status: "rejected" })).items.map(
        (x: any) => x.id,
      ),
    ).toEqual([t.id]);
    const again = await w.ok(w.owner, "block_templates_update", {
      siteId: w.siteA,
      id: t.id,
      blocks: [SAMPLE_BLOCKS[1]],
    });
    expect(again.status).toBe("pending");
    await decide(again.approval.token, "approve");
    const u = await w.ok(w.owner, "block_templates_update", { siteId: w.siteA, id: t.id, blocks: [SAMPLE_BLOCKS[0]] });
    await decide(u.approval.token, "reject");
    const got = await w.ok(w.owner, "block_templates_get", { siteId: w.siteA, id: t.id, include: ["blocks"] });
    expect(got).toMatchObject({ status: "published", hasPendingChanges: false });
    expect(got.blocks).toEqual([SAMPLE_BLOCKS[1]]);
  });

  test("label-only edits of a live template apply at once without a link; delete withdraws open links", async () => {
    const t = await w.ok(w.owner, "block_templates_create", { siteId: w.siteA, name: "Banner", blocks: [] });
    await decide(t.approval.token, "approve");
    const r = await w.ok(w.owner, "block_templates_update", { siteId: w.siteA, id: t.id, name: "Promo banner" });
    expect(r.approval).toBeUndefined();
    const u = await w.ok(w.owner, "block_templates_update", { siteId: w.siteA, id: t.id, blocks: [SAMPLE_BLOCKS[0]] });
    await w.ok(w.owner, "block_templates_delete", { siteId: w.siteA, id: t.id });
    expect((await w.ok(w.owner, "approvals_get", { id: u.approval.id })).status).toBe("withdrawn");
    expect(await decide(u.approval.token, "approve")).toMatchObject({ ok: false, reason: "withdrawn" });
  });
});

describe("errors and security", () => {
  test("invalid blocks name their path; slugs conflict; missing or foreign templates are not found", async () => {
    expect(
      await w.err(w.owner, "block_templates_create", {
        siteId: w.siteA,
        name: "Bad",
        blocks: [{ type: "hero", props: { nope: 1 } }],
      }),
    ).toContain("blocks[0].props");
    await w.ok(w.owner, "block_templates_create", { siteId: w.siteA, name: "Taken", slug: "taken", blocks: [] });
    expect(
      await w.err(w.owner, "block_templates_create", { siteId: w.siteA, name: "Other", slug: "taken", blocks: [] }),
    ).toStartWith("Conflict");
    expect(await w.err(w.owner, "block_templates_create", { siteId: w.siteA, name: "No blocks" })).toStartWith(
      "Invalid arguments",
    );
    expect(await w.err(w.owner, "block_templates_list", { siteId: w.siteA, status: "archived" })).toStartWith(
      "Invalid arguments",
    );
    expect(await w.err(w.owner, "block_templates_get", { siteId: w.siteA, slug: "no-such-template" })).toStartWith(
      "Not found",
    );
    expect(await w.err(w.owner, "block_templates_get", { siteId: w.siteA })).toContain("exactly one of id or slug");
    const theirs = await w.ok(w.stranger, "block_templates_create", {
      siteId: w.siteB,
      name: "Rival template",
      blocks: [],
    });
    const before = w.changes();
    for (const [tool, args] of [
      ["block_templates_get", { siteId: w.siteA, id: theirs.id }],
      ["block_templates_update", { siteId: w.siteA, id: theirs.id, name: "Mine" }],
      ["block_templates_delete", { siteId: w.siteA, id: theirs.id }],
      ["block_templates_list", { siteId: w.siteB }],
    ] as const) {
      const msg = await w.err(w.owner, tool, args as Record<string, unknown>);
      expect(msg).toStartWith("Not found");
      expect(msg).not.toContain("Rival");
    }
    expect(w.changes()).toBe(before);
    await w.ok(w.viewer, "whoami");
    const v0 = w.changes();
    expect(await w.err(w.viewer, "block_templates_create", { siteId: w.siteA, name: "V", blocks: [] })).toContain(
      "viewer",
    );
    expect(w.changes()).toBe(v0);
  });
});
