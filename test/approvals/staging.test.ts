/**
 * require_cms_approval: every sites:write / media:write call of such a
 * credential is staged as a pending_change link and applied only on
 * approval, re-validated against the state at that moment.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { encode as encodePng } from "fast-png";
import { addMember, removeMember, revokeMcpKey, mintMcpKey, mcpClient, createUser } from "../fixtures/accounts";
import { row, rows, startTestServer, type TestServer } from "../harness";
import { anyoneWithLink } from "../fixtures/approvals";
import { makeWorld, SAMPLE_BLOCKS, toolNames, type World } from "../cms/world";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  // These tests are about the page's mechanics and what deciding does; who may decide is who-decides.test.ts.
  await anyoneWithLink(s.deps, w.A.id);
});
afterAll(async () => {
  await s?.stop();
});

const count = async (sql: string, ...args: unknown[]) => (await row<{ n: number }>(s.deps, sql, ...args))!.n;

describe("staging", () => {
  test("write tools stay listed for a gated credential: they are staged, not hidden", async () => {
    const names = await toolNames(w.gated);
    for (const n of ["posts_create", "media_upload", "categories_delete", "nav_items_create", "site_env_vars_set"])
      expect(names).toContain(n);
  });

  test("a staged call changes nothing, returns a pending_change envelope, and is applied on approval by a person", async () => {
    const before = await count("SELECT count(*) AS n FROM nav_items");
    const staged = await w.ok(w.gated, "nav_items_create", { siteId: w.siteA, label: "Shop", href: "/shop" });
    expect(staged).toMatchObject({
      status: "staged",
      staged: { tool: "nav_items_create" },
      approval: { linkType: "pending_change", status: "pending" },
    });
    expect(staged.approval.token).toMatch(/^[0-9a-f]{64}$/);
    expect(await count("SELECT count(*) AS n FROM nav_items")).toBe(before);

    const got = await w.ok(w.owner, "approvals_get", { id: staged.approval.id });
    expect(got).toMatchObject({
      linkType: "pending_change",
      entityType: "nav_item",
      tool: "nav_items_create",
      status: "pending",
      credential: { name: "Careful agent" },
    });
    const listed = await w.ok(w.owner, "approvals_list", {
      linkType: "pending_change",
      entityType: "nav_item",
      status: "pending",
    });
    expect(listed.items.map((a: any) => a.id)).toEqual([staged.approval.id]);
    expect(got.proposal.changes).toEqual(expect.arrayContaining([{ field: "label", before: null, after: "Shop" }]));

    // The credential that staged it cannot wave it through itself.
    expect(await w.err(w.gated, "approvals_approve", { id: staged.approval.id })).toStartWith("Forbidden");
    const ok = await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(ok).toMatchObject({ status: "approved", result: { applied: "nav_items_create" } });
    const nav = await w.ok(w.owner, "nav_items_list", { siteId: w.siteA });
    expect(nav.items.map((i: any) => i.label)).toContain("Shop");
    // The change is recorded as the requester's, through their key; the decision as the approver's.
    const audit = await rows<{ action: string; cred: number }>(
      s.deps,
      "SELECT action, credential_id AS cred FROM audit_log WHERE action IN ('nav_items.create', 'approvals.approve') ORDER BY id DESC LIMIT 2",
    );
    expect(audit).toEqual([
      { action: "approvals.approve", cred: w.colleagueKeyId },
      { action: "nav_items.create", cred: w.gatedKeyId },
    ]);
  });

  test("an invalid staged call is refused at once, and no link is minted", async () => {
    const links = await count("SELECT count(*) AS n FROM approval_links");
    const bad = await w.err(w.gated, "posts_create", {
      siteId: w.siteA,
      title: "Bad",
      blocks: [{ type: "heading", props: { text: "x", level: 9 } }],
    });
    expect(bad).toContain("blocks[0].props.level");
    expect(await w.err(w.gated, "categories_create", { siteId: w.siteB, name: "Elsewhere" })).toStartWith("Not found");
    await w.ok(w.owner, "tags_create", { siteId: w.siteA, name: "Taken", slug: "taken" });
    expect(await w.err(w.gated, "tags_create", { siteId: w.siteA, name: "Again", slug: "taken" })).toStartWith(
      "Conflict",
    );
    expect(await count("SELECT count(*) AS n FROM approval_links")).toBe(links);
  });

  test("a change whose target moved on is not applied blindly: the reviewer sees the conflict, the link stays pending", async () => {
    const cat = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Original" });
    const staged = await w.ok(w.gated, "categories_update", { siteId: w.siteA, id: cat.id, name: "Proposed" });
    const preview = await w.ok(w.owner, "approvals_get", { id: staged.approval.id });
    expect(preview.proposal.changes).toEqual(
      expect.arrayContaining([{ field: "name", before: "Original", after: "Proposed" }]),
    );
    await w.ok(w.owner, "categories_update", { siteId: w.siteA, id: cat.id, name: "Edited meanwhile" });
    const msg = await w.err(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(msg).toContain("modified after the change was requested");
    expect(msg).toContain("name");
    const after = await w.ok(w.owner, "approvals_get", { id: staged.approval.id });
    expect(after).toMatchObject({ status: "pending", lastError: expect.stringContaining("modified") });
    expect((await w.ok(w.owner, "categories_get", { siteId: w.siteA, id: cat.id })).name).toBe("Edited meanwhile");
    // On the public page the same conflict is shown instead of applied.
    const page = await fetch(w.local(staged.approval.url));
    const cookie = page.headers.get("set-cookie")!.split(";")[0]!;
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(await page.text())![1]!;
    const post = await fetch(w.local(staged.approval.url), {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: cookie, Origin: s.url },
      body: new URLSearchParams({ csrf, decision: "approve" }).toString(),
      redirect: "manual",
    });
    expect(post.status).toBe(409);
    expect(await post.text()).toContain("could not be applied");
    expect(await w.ok(w.colleague, "approvals_reject", { id: staged.approval.id })).toMatchObject({
      status: "rejected",
    });
  });

  test("a staged delete keeps the item until approved", async () => {
    const tag = await w.ok(w.owner, "tags_create", { siteId: w.siteA, name: "Doomed" });
    const staged = await w.ok(w.gated, "tags_delete", { siteId: w.siteA, id: tag.id });
    expect(staged.id).toBe(tag.id);
    expect((await w.ok(w.owner, "tags_list", { siteId: w.siteA, search: "Doomed" })).total).toBe(1);
    await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect((await w.ok(w.owner, "tags_list", { siteId: w.siteA, search: "Doomed" })).total).toBe(0);
  });

  test("a staged upload writes no file until approved; secrets of staged env vars are never shown", async () => {
    // Files in the media store (data dir, database or bucket) under the site's prefix.
    const files = async () => {
      let n = 0;
      for await (const _ of s.deps.blobs.keys(`${w.siteA}/`)) n++;
      return n;
    };
    const png = Buffer.from(
      encodePng({ width: 4, height: 3, data: new Uint8Array(4 * 3 * 4).fill(200), channels: 4, depth: 8 }),
    ).toString("base64");
    const before = await files();
    const staged = await w.ok(w.gated, "media_upload", { siteId: w.siteA, filename: "dot.png", dataBase64: png });
    expect(await files()).toBe(before);
    expect((await w.ok(w.owner, "approvals_get", { id: staged.approval.id, include: ["html"] })).html).toContain(
      'src="data:image/png;base64,',
    );
    const ok = await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(await files()).toBe(before + 1);
    const item = await w.ok(w.owner, "media_get", { siteId: w.siteA, id: ok.result.id });
    expect(item).toMatchObject({ filename: "dot.png", mimeType: "image/png", width: 4, height: 3 });

    const env = await w.ok(w.gated, "site_env_vars_set", {
      siteId: w.siteA,
      key: "STRIPE_SECRET",
      value: "sk_live_topsecret",
      secret: true,
    });
    const shown = await w.ok(w.owner, "approvals_get", { id: env.approval.id, include: ["html"] });
    expect(JSON.stringify(shown)).not.toContain("sk_live_topsecret");
    const page = await (await fetch(w.local(env.approval.url))).text();
    expect(page).not.toContain("sk_live_topsecret");
    expect(page).toContain("STRIPE_SECRET");
  });

  test("approval re-checks the requester: a lost membership, a viewer role or a revoked key stops the change", async () => {
    const u = await createUser(s.deps, { email: "temp-agent@cms.test", name: "Temp" });
    await addMember(s.deps, w.A.id, u.id, "admin");
    const key = await mintMcpKey(s.deps, {
      userId: u.id,
      scopes: ["*"],
      companyIds: [w.A.id],
      requireCmsApproval: true,
      name: "Temp key",
    });
    const c = await mcpClient(s.url, key.key);
    const one = await w.ok(c, "tags_create", { siteId: w.siteA, name: "From temp one" });
    const two = await w.ok(c, "tags_create", { siteId: w.siteA, name: "From temp two" });
    const three = await w.ok(c, "tags_create", { siteId: w.siteA, name: "From temp three" });

    await removeMember(s.deps, w.A.id, u.id);
    await addMember(s.deps, w.A.id, u.id, "viewer");
    expect(await w.err(w.owner, "approvals_approve", { id: one.approval.id })).toContain("viewer");
    await removeMember(s.deps, w.A.id, u.id);
    expect(await w.err(w.owner, "approvals_approve", { id: two.approval.id })).toContain("no longer a member");
    await addMember(s.deps, w.A.id, u.id, "admin");
    await revokeMcpKey(s.deps, key.id);
    expect(await w.err(w.owner, "approvals_approve", { id: three.approval.id })).toContain("revoked");
    expect((await w.ok(w.owner, "tags_list", { siteId: w.siteA, search: "From temp" })).total).toBe(0);
    for (const l of [one, two, three])
      expect((await w.ok(w.owner, "approvals_get", { id: l.approval.id })).status).toBe("pending");
  });

  test("staged posts_create: nothing exists until approved; approving publishes it in one step", async () => {
    const posts = await count("SELECT count(*) AS n FROM posts");
    const staged = await w.ok(w.gated, "posts_create", { siteId: w.siteA, title: "Gated post", blocks: SAMPLE_BLOCKS });
    expect(await count("SELECT count(*) AS n FROM posts")).toBe(posts);
    const ok = await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(ok.result).toMatchObject({ applied: "posts_create", slug: "gated-post", status: "published" });
    const post = await w.ok(w.owner, "posts_get", { siteId: w.siteA, slug: "gated-post" });
    expect(post).toMatchObject({ published: true, approval: { status: "approved" } });
  });
});
