/**
 * Post versions over the real wire: every approval that changes a post is
 * kept as a version with its approver (post_versions_list/get), versions
 * compare field by field and block by block (post_versions_diff), and
 * restoring one proposes it through the ordinary approval path: nothing is
 * live until another person approves, a requester cannot approve their own
 * restore, a require_cms_approval key's restore is staged. Tenancy: another
 * company's post ids and versions are not found.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { posts, postTypes, postVersions } from "../../src/domains/cms/tables";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "./world";

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
const served = async (slug: string) => {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}/posts/${slug}`, {
    headers: { Authorization: `Bearer ${restKey}` },
  });
  return { status: r.status, body: (await r.json()) as any };
};
const para = (text: string) => ({ type: "paragraph", props: { text } });
const heading = (text: string) => ({ type: "heading", props: { text, level: 2 } });

/** A post published through its approval link, then changed and approved once more: versions 1 and 2. */
async function twoVersions(title: string) {
  const p = await w.ok(w.owner, "posts_create", {
    siteId: w.siteA,
    title,
    excerpt: "First words",
    blocks: [heading("Beans"), para("Roasted on Mondays.")],
  });
  await approve(p.approval.token);
  const u = await w.ok(w.owner, "posts_update", {
    siteId: w.siteA,
    id: p.id,
    title: `${title} (revised)`,
    blocks: [heading("Beans"), para("Roasted on Tuesdays.")],
  });
  const r = await w.call(w.colleague, "approvals_approve", { id: u.approval.id });
  expect(r.isError).toBe(false);
  return { id: p.id as number, slug: p.slug as string, firstApproval: p.approval.id as number, second: u.approval.id };
}

describe("versions are kept on approval", () => {
  test("a first publication and an applied revision are versions 1 and 2, each with its approver and approval", async () => {
    const p = await twoVersions("Monday roast");
    const list = await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: p.id });
    expect(list.total).toBe(2);
    expect(list.items.map((v: any) => v.version)).toEqual([2, 1]);
    expect(list.items[1]).toMatchObject({
      version: 1,
      source: "approval",
      approvalId: p.firstApproval,
      approvedBy: "Rita Reviewer",
      title: "Monday roast",
      status: "published",
      blockCount: 2,
    });
    expect(list.items[0]).toMatchObject({
      version: 2,
      approvalId: p.second,
      approvedVia: "member",
      title: "Monday roast (revised)",
      changed: ["title", "content"],
    });
    // Decided over MCP: the decider is named by the credential that decided.
    expect(list.items[0].approvedBy).toContain("Colleague key");
    expect(list.items[1].changed).toBeUndefined();

    const v1 = await w.ok(w.owner, "post_versions_get", {
      siteId: w.siteA,
      postId: p.id,
      version: 1,
      include: ["blocks", "html"],
    });
    expect(v1).toMatchObject({ postId: p.id, version: 1, title: "Monday roast", excerpt: "First words" });
    expect(v1.blocks[1]).toEqual(para("Roasted on Mondays."));
    expect(v1.html).toContain("Roasted on Mondays.");
    const bare = await w.ok(w.owner, "post_versions_get", { siteId: w.siteA, postId: p.id, version: 2 });
    expect(bare.blocks).toBeUndefined();
    expect(bare.blockCount).toBe(2);
  });

  test("a rejected change and a draft never approved leave no version", async () => {
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Never approved" });
    expect((await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: p.id })).total).toBe(0);
    expect(await w.err(w.owner, "post_versions_get", { siteId: w.siteA, postId: p.id, version: 1 })).toContain(
      "has no version 1",
    );
    const q = await twoVersions("Rejected later");
    const u = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: q.id, title: "Not this" });
    await decideApproval(s.deps, { token: u.approval.token }, "reject", { decidedBy: "Rita" });
    expect((await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: q.id })).total).toBe(2);
  });

  test("a post live before versions were kept: shown as version 1 (live), stored as backfill at its next approval", async () => {
    const type = (
      await s.deps.db
        .insert(postTypes)
        .values({ siteId: w.siteA, slug: "legacy", name: "Legacy" })
        .returning({ id: postTypes.id })
    )[0]!.id;
    const now = new Date(s.clock.ms());
    const id = (
      await s.deps.db
        .insert(posts)
        .values({
          siteId: w.siteA,
          postTypeId: type,
          title: "Old timer",
          slug: "old-timer",
          content: { blocks: [para("From before.")], version: "1" },
          status: "published",
          published: true,
          publishedAt: now,
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: posts.id })
    )[0]!.id;
    const before = await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: id });
    expect(before).toMatchObject({ total: 1, items: [{ version: 1, source: "live", title: "Old timer" }] });
    // Reading wrote nothing.
    expect(await s.deps.db.select().from(postVersions).where(eq(postVersions.postId, id))).toHaveLength(0);

    const u = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id, title: "Old timer, renewed" });
    await approve(u.approval.token);
    const after = await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: id });
    expect(after.items.map((v: any) => [v.version, v.source, v.title])).toEqual([
      [2, "approval", "Old timer, renewed"],
      [1, "backfill", "Old timer"],
    ]);
    expect(after.items[1].approvedBy).toBeNull();
  });
});

describe("diff", () => {
  test("field by field and block by block; an inserted block reads as one addition", async () => {
    const p = await twoVersions("Diffed");
    const d = await w.ok(w.owner, "post_versions_diff", { siteId: w.siteA, postId: p.id, from: 1, to: 2 });
    expect(d).toMatchObject({ postId: p.id, from: 1, to: 2, identical: false });
    expect(d.fields).toEqual([{ field: "title", before: "Diffed", after: "Diffed (revised)" }]);
    expect(d.blocks).toEqual({
      before: 2,
      after: 2,
      changes: [
        {
          change: "changed",
          position: 2,
          type: "paragraph",
          before: "Roasted on Mondays.",
          after: "Roasted on Tuesdays.",
          props: [{ prop: "text", before: "Roasted on Mondays.", after: "Roasted on Tuesdays." }],
        },
      ],
    });
    // Against live: version 2 is live, so nothing differs.
    expect(await w.ok(w.owner, "post_versions_diff", { siteId: w.siteA, postId: p.id, from: 2 })).toMatchObject({
      to: "live",
      identical: true,
      fields: [],
    });

    const u = await w.ok(w.owner, "posts_update", {
      siteId: w.siteA,
      id: p.id,
      blocks: [para("A new opening."), heading("Beans"), para("Roasted on Tuesdays.")],
    });
    await approve(u.approval.token);
    const ins = await w.ok(w.owner, "post_versions_diff", { siteId: w.siteA, postId: p.id, from: 2, to: 3 });
    expect(ins.fields).toEqual([]);
    expect(ins.blocks.changes).toEqual([{ change: "added", position: 1, type: "paragraph", after: "A new opening." }]);
    const back = await w.ok(w.owner, "post_versions_diff", { siteId: w.siteA, postId: p.id, from: 3, to: 1 });
    expect(back.blocks.changes.map((c: any) => [c.change, c.position, c.type])).toEqual([
      ["removed", 1, "paragraph"],
      ["changed", 2, "paragraph"],
    ]);
  });
});

describe("restore goes through approval", () => {
  test("restoring proposes the version as a revision; live is unchanged until another person approves", async () => {
    const p = await twoVersions("Restorable");
    const r = await w.ok(w.owner, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 1 });
    expect(r).toMatchObject({ id: p.id, status: "published", restoredFrom: 1 });
    expect(r.fields.sort()).toEqual(["blocks", "title"]);
    expect(r.approval.status).toBe("pending");
    expect((await served(p.slug)).body.data.title).toBe("Restorable (revised)");
    expect((await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: p.id })).total).toBe(2);

    // The requester's own key cannot approve it.
    const self = await w.call(w.owner, "approvals_approve", { id: r.approval.id });
    expect(self.isError).toBe(true);
    expect(self.text).toContain("a person decides it on the approval page");

    // The approval page says what it restores and shows the difference from live.
    const html = await (await fetch(w.local(r.approval.url))).text();
    expect(html).toContain("Restores");
    expect(html).toContain("Version 1");
    expect(html).toContain("Restorable (revised)");
    expect(html).toContain("block 2 (paragraph) changed");

    expect((await w.call(w.colleague, "approvals_approve", { id: r.approval.id })).isError).toBe(false);
    const live = (await served(p.slug)).body.data;
    expect(live.title).toBe("Restorable");
    expect(JSON.parse(live.content).blocks[1]).toEqual(para("Roasted on Mondays."));
    const list = await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: p.id });
    expect(list.items[0]).toMatchObject({ version: 3, title: "Restorable", changed: ["title", "content"] });
    expect(
      (await w.ok(w.owner, "post_versions_diff", { siteId: w.siteA, postId: p.id, from: 1, to: 3 })).identical,
    ).toBe(true);
    // Restoring what is live already proposes nothing.
    const again = await w.ok(w.owner, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 3 });
    expect(again.approval).toBeUndefined();
    expect(again.message).toContain("Nothing to restore");
  });

  test("a restore replaces a pending change rather than merging with it", async () => {
    const p = await twoVersions("Pending first");
    await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: p.id, excerpt: "Proposed excerpt" });
    const r = await w.ok(w.owner, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 2 });
    // Version 2 is live except for the pending excerpt: the restore proposes the live excerpt back.
    expect(r.fields).toEqual(["excerpt"]);
    await approve(r.approval.token);
    expect((await served(p.slug)).body.data.excerpt).toBe("First words");
  });

  test("a require_cms_approval key's restore is staged: nothing changes until a person approves it", async () => {
    const p = await twoVersions("Gated restore");
    const before = w.changes();
    const r = await w.ok(w.gated, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 1 });
    expect(r.approval.linkType).toBe("pending_change");
    expect((await served(p.slug)).body.data.title).toBe("Gated restore (revised)");
    expect(await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: p.id })).toMatchObject({ pendingRevision: null });
    expect(w.changes() - before).toBeGreaterThan(0); // the link itself
    await approve(r.approval.token, "Gina Gatekeeper");
    expect((await served(p.slug)).body.data.title).toBe("Gated restore");
    const top = (await w.ok(w.owner, "post_versions_list", { siteId: w.siteA, postId: p.id })).items[0];
    expect(top).toMatchObject({ version: 3, title: "Gated restore", approvedBy: "Gina Gatekeeper" });
  });
});

describe("tenancy and bad input", () => {
  test("another company's post and versions are not found, with any tool; nothing is written", async () => {
    const p = await twoVersions("Ours alone");
    const before = w.changes();
    for (const [tool, extra] of [
      ["post_versions_list", {}],
      ["post_versions_get", { version: 1 }],
      ["post_versions_diff", { from: 1 }],
      ["post_versions_restore", { version: 1 }],
    ] as const) {
      // Through the stranger's own site: the post is not on it.
      const own = await w.err(w.stranger, tool, { siteId: w.siteB, postId: p.id, ...extra });
      expect(own).toContain(`Post ${p.id} not found`);
      // Naming our site: refused at the site.
      const ours = await w.err(w.stranger, tool, { siteId: w.siteA, postId: p.id, ...extra });
      expect(ours).not.toContain("Ours alone");
      // A post of our other site, through the first one.
      expect(await w.err(w.owner, tool, { siteId: w.siteA2, postId: p.id, ...extra })).toContain("not found");
    }
    expect(w.changes()).toBe(before);
  });

  test("version numbers are checked: unknown, zero, fractional, huge", async () => {
    const p = await twoVersions("Numbered");
    expect(await w.err(w.owner, "post_versions_get", { siteId: w.siteA, postId: p.id, version: 9 })).toContain(
      "has no version 9",
    );
    expect(await w.err(w.owner, "post_versions_diff", { siteId: w.siteA, postId: p.id, from: 1, to: 7 })).toContain(
      "has no version 7",
    );
    for (const version of [0, 1.5, 1e300, -1, "1"]) {
      const t = await w.err(w.owner, "post_versions_restore", { siteId: w.siteA, postId: p.id, version });
      expect(t).toContain("version");
    }
  });

  test("a viewer and a read-only key may read versions but not restore", async () => {
    const p = await twoVersions("Viewer sees");
    expect((await w.ok(w.reader, "post_versions_list", { siteId: w.siteA, postId: p.id })).total).toBe(2);
    await expect(
      w.call(w.reader, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 1 }),
    ).rejects.toThrow("needs the sites:write scope");
    expect(await w.err(w.viewer, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 1 })).toMatch(
      /Forbidden|role|viewer/i,
    );
  });

  test("script in a version's title is escaped on the restore's approval page", async () => {
    const p = await twoVersions("<script>alert('v1')</script>");
    const r = await w.ok(w.owner, "post_versions_restore", { siteId: w.siteA, postId: p.id, version: 1 });
    const html = await (await fetch(w.local(r.approval.url))).text();
    expect(html).not.toContain("<script>alert('v1')</script>");
    expect(html).toContain("&lt;script&gt;alert(&#39;v1&#39;)&lt;/script&gt;");
  });
});
