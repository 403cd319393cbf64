/**
 * Taking live content down is reviewed, like putting it up: unpublishing or
 * deleting a published post, and withdrawing or deleting an active product,
 * return a pending_change approval envelope; the REST API keeps serving the
 * content (same ETag) until a person approves; approving applies it
 * (re-checked: content that changed meanwhile is a conflict the reviewer
 * sees); rejecting keeps it live. The preview says what disappears and
 * where it is linked from. Content that is not live goes at once. Once
 * approved, REST stops serving it on the next request, whatever ETag the
 * renderer holds.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { mintRestKey } from "../fixtures/rest";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;
let restKey: string;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
  await w.ok(w.owner, "store_settings_update", { siteId: w.siteA, enabled: true });
});
afterAll(async () => {
  await s?.stop();
});

const rest = async (path: string, etag?: string) => {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, {
    headers: { Authorization: `Bearer ${restKey}`, ...(etag ? { "If-None-Match": etag } : {}) },
  });
  await r.text();
  return { status: r.status, etag: r.headers.get("etag") };
};
const decide = async (token: string, decision: "approve" | "reject") =>
  await decideApproval(s.deps, { token }, decision, { decidedBy: "Rita Reviewer" });
/** A post that is live (approved). */
const published = async (title: string, blocks: unknown[] = [{ type: "paragraph", props: { text: title } }]) => {
  const r = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title, blocks });
  expect((await decide(r.approval.token, "approve")).ok).toBe(true);
  return r as { id: number; slug: string };
};
const pageOf = async (url: string) => await (await fetch(w.local(url))).text();

describe("a published post", () => {
  test("posts_unpublish is held: REST serves it with the same ETag until approved, then 404 with a new ETag", async () => {
    const post = await published("Roasting at home");
    const nav = await w.ok(w.owner, "nav_items_create", {
      siteId: w.siteA,
      label: "Roasting guide",
      href: `/blog/${post.slug}`,
    });
    const other = await published("Where to start", [
      { type: "button", props: { label: "Read the roasting guide", href: `/blog/${post.slug}` } },
    ]);
    await published("Unrelated", [{ type: "button", props: { label: "Elsewhere", href: `/blog/${post.slug}-not` } }]);

    const before = await rest(`/posts/${post.slug}`);
    expect(before.status).toBe(200);
    const list = await rest("/posts");

    const held = await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: post.id });
    expect(held).toMatchObject({
      id: post.id,
      slug: post.slug,
      status: "published",
      approval: { linkType: "pending_change", status: "pending" },
    });
    expect(held.approval.token).toMatch(/^[0-9a-f]{64}$/);
    expect(held.message).toContain("needs a person's approval");
    expect(held.linkedFrom).toEqual([
      `navigation item ${nav.id} ("Roasting guide", /blog/${post.slug})`,
      `post ${other.id} ("Where to start") links to it`,
    ]);

    // Nothing changed: same content, same ETag, a 304 for the renderer that holds it.
    expect(await rest(`/posts/${post.slug}`)).toEqual(before);
    expect((await rest(`/posts/${post.slug}`, before.etag!)).status).toBe(304);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: post.id })).status).toBe("published");

    // The reviewer sees what disappears and what links to it.
    const got = await w.ok(w.colleague, "approvals_get", { id: held.approval.id });
    expect(got).toMatchObject({
      linkType: "pending_change",
      entityType: "post",
      entityId: post.id,
      tool: "posts_unpublish",
      status: "pending",
    });
    expect(got.proposal.summary).toBe(
      `Unpublishing the published blog post “Roasting at home”, held for approval: nothing is changed until you approve.`,
    );
    const facts = Object.fromEntries(got.proposal.facts.map((f: any) => [f.label, f.value]));
    expect(facts.Disappears).toContain(`(slug ${post.slug}): the REST API stops serving it`);
    expect(facts["Linked from"]).toContain(`navigation item ${nav.id} ("Roasting guide"`);
    expect(facts["Linked from"]).toContain(`post ${other.id} ("Where to start")`);
    const page = await pageOf(held.approval.url);
    expect(page).toContain("Linked from");
    expect(page).toContain("Roasting guide");

    expect((await decide(held.approval.token, "approve")).ok).toBe(true);
    expect((await rest(`/posts/${post.slug}`)).status).toBe(404);
    const after = await rest("/posts");
    expect(after.etag).not.toBe(list.etag);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: post.id })).status).toBe("archived");
    expect((await w.ok(w.owner, "approvals_get", { id: held.approval.id })).result).toMatchObject({
      applied: "posts_unpublish",
      status: "archived",
    });
  });

  test("posts_delete is held; rejecting keeps it live; approving a new request deletes it and ends approved, not withdrawn", async () => {
    const post = await published("Seasonal menu");
    const first = await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: post.id });
    expect(first).toMatchObject({ status: "published", approval: { linkType: "pending_change" } });
    expect(first.linkedFrom).toBeUndefined();
    expect((await decide(first.approval.token, "reject")).ok).toBe(true);
    expect((await rest(`/posts/${post.slug}`)).status).toBe(200);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: post.id })).published).toBe(true);

    const second = await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: post.id });
    const etag = (await rest("/posts")).etag;
    expect((await decide(second.approval.token, "approve")).ok).toBe(true);
    expect((await rest(`/posts/${post.slug}`)).status).toBe(404);
    expect((await rest("/posts")).etag).not.toBe(etag);
    expect(await w.err(w.owner, "posts_get", { siteId: w.siteA, id: post.id })).toStartWith("Not found");
    const link = await w.ok(w.owner, "approvals_get", { id: second.approval.id });
    expect(link).toMatchObject({ status: "approved", result: { applied: "posts_delete", status: "deleted" } });
    // The deleted post is still described as it was proposed, with the outcome.
    expect(link.proposal.summary).toMatch(
      /^Deleting the published blog post “Seasonal menu” — approved and deleted on \d{4}-\d\d-\d\d \d\d:\d\d UTC by Rita Reviewer\.$/,
    );
  });

  test("a post that changed after the request is not taken down blindly: the reviewer sees the conflict", async () => {
    const post = await published("Cold brew");
    const held = await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: post.id });
    const rev = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: post.id, title: "Cold brew, revised" });
    expect((await decide(rev.approval.token, "approve")).ok).toBe(true);
    const out = await decide(held.approval.token, "approve");
    expect(out).toMatchObject({ ok: false, reason: "conflict" });
    expect(out.message).toContain("modified after the change was requested");
    expect(out.message).toContain("title");
    expect((await rest(`/posts/${post.slug}`)).status).toBe(200);
    expect(await w.ok(w.owner, "approvals_get", { id: held.approval.id })).toMatchObject({
      status: "pending",
      lastError: expect.stringContaining("modified"),
    });
    // Unpublished meanwhile by another approved request: also a conflict, and nothing more happens.
    const again = await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: post.id });
    const del = await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: post.id });
    expect((await decide(again.approval.token, "approve")).ok).toBe(true);
    const late = await decide(del.approval.token, "approve");
    expect(late).toMatchObject({ ok: false, reason: "conflict" });
    expect(late.message).toContain("status");
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: post.id })).status).toBe("archived");
  });

  test("drafts, never-published and unpublished posts are removed at once", async () => {
    const draft = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Never published" });
    const links = (await w.ok(w.owner, "approvals_list", { status: "pending", linkType: "pending_change" })).total;
    expect(await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: draft.id })).toMatchObject({
      status: "pending",
      message: "The post is not published.",
    });
    expect(await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: draft.id })).toEqual({
      id: draft.id,
      slug: draft.slug,
      status: "deleted",
    });
    expect(await w.err(w.owner, "posts_get", { siteId: w.siteA, id: draft.id })).toStartWith("Not found");
    expect((await w.ok(w.owner, "approvals_list", { status: "pending", linkType: "pending_change" })).total).toBe(
      links,
    );
    // Its own open draft link is withdrawn, as before.
    expect((await w.ok(w.owner, "approvals_get", { id: draft.approval.id })).status).toBe("withdrawn");
  });

  test("a require_cms_approval credential taking a live post down is reviewed once", async () => {
    const post = await published("Gated takedown");
    const staged = await w.ok(w.gated, "posts_delete", { siteId: w.siteA, id: post.id });
    expect(staged).toMatchObject({ status: "staged", approval: { linkType: "pending_change" } });
    expect((await rest(`/posts/${post.slug}`)).status).toBe(200);
    const ok = await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(ok).toMatchObject({ status: "approved", result: { applied: "posts_delete", status: "deleted" } });
    expect((await rest(`/posts/${post.slug}`)).status).toBe(404);
    // No second link was left waiting.
    const open = await w.ok(w.owner, "approvals_list", {
      status: "pending",
      entityType: "post",
      linkType: "pending_change",
    });
    expect(open.items.filter((a: any) => a.entityId === post.id)).toEqual([]);
  });
});

describe("what a renderer sees once a takedown is approved", () => {
  /** A REST read with its parsed body; `etag` is sent as If-None-Match, as a renderer holding it would. */
  const read = async (path: string, etag?: string) => {
    const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, {
      headers: { Authorization: `Bearer ${restKey}`, ...(etag ? { "If-None-Match": etag } : {}) },
    });
    const text = await r.text();
    return { status: r.status, etag: r.headers.get("etag"), body: text ? JSON.parse(text) : null };
  };
  const slugs = (r: { body: any }) => (r.body.data as { slug: string }[]).map((p) => p.slug);

  for (const tool of ["posts_delete", "posts_unpublish"] as const)
    test(`${tool}, approved by id: getPostBySlug is 404 and listPosts drops it on the next request, even with the old ETags`, async () => {
      const post = await published(`Taken down by ${tool}`);
      // The renderer holds both bodies and revalidates them: 304s, so they are cached on both sides.
      const one = await read(`/posts/${post.slug}`);
      const list = await read("/posts?limit=100");
      expect(one.status).toBe(200);
      expect(slugs(list)).toContain(post.slug);
      expect((await read(`/posts/${post.slug}`, one.etag!)).status).toBe(304);
      expect((await read("/posts?limit=100", list.etag!)).status).toBe(304);

      const held = await w.ok(w.owner, tool, { siteId: w.siteA, id: post.id });
      expect(await w.ok(w.colleague, "approvals_approve", { id: held.approval.id })).toMatchObject({
        status: "approved",
        result: { applied: tool },
      });

      const gone = await read(`/posts/${post.slug}`, one.etag!);
      expect(gone).toMatchObject({ status: 404, etag: null });
      expect((await read(`/posts/${post.slug}`)).status).toBe(404);
      const after = await read("/posts?limit=100", list.etag!);
      expect(after.status).toBe(200);
      expect(after.etag).not.toBe(list.etag);
      expect(slugs(after)).not.toContain(post.slug);
      expect(slugs(await read("/posts"))).not.toContain(post.slug);
    });
});

describe("an active product", () => {
  const product = async (name: string, extra: Record<string, unknown> = {}) =>
    (await w.ok(w.owner, "products_create", { siteId: w.siteA, name, price: 1200, status: "active", ...extra })) as {
      id: number;
      slug: string;
    };

  test("products_delete is held: REST serves it until approved, then 404 with a new ETag; the preview lists where it shows", async () => {
    const cat = await w.ok(w.owner, "product_categories_create", { siteId: w.siteA, name: "Grinders" });
    const p = await product("Hand grinder", { categoryId: cat.id, featured: true });
    const card = await published("Our grinder", [
      { type: "product-card", props: { productSlug: p.slug } },
      { type: "featured-products", props: { heading: "Picks" } },
    ]);
    const nav = await w.ok(w.owner, "nav_items_create", { siteId: w.siteA, label: "Grinder", href: `/shop/${p.slug}` });

    const before = await rest(`/products/${p.slug}`);
    expect(before.status).toBe(200);
    const list = await rest("/products");
    const held = await w.ok(w.owner, "products_delete", { siteId: w.siteA, id: p.id });
    expect(held).toMatchObject({
      id: p.id,
      slug: p.slug,
      status: "active",
      approval: { linkType: "pending_change", status: "pending" },
    });
    expect(held.linkedFrom).toEqual([
      `product category ${cat.id} ("Grinders") lists it`,
      `post ${card.id} ("Our grinder"): product-card block, featured-products block (it is featured)`,
      `navigation item ${nav.id} ("Grinder", /shop/${p.slug})`,
    ]);
    expect(await rest(`/products/${p.slug}`)).toEqual(before);
    expect((await rest("/products")).etag).toBe(list.etag);

    const got = await w.ok(w.owner, "approvals_get", { id: held.approval.id });
    expect(got).toMatchObject({ entityType: "product", entityId: p.id, tool: "products_delete" });
    expect(got.proposal.summary).toStartWith("Deleting the active product “Hand grinder”, held for approval");
    const facts = Object.fromEntries(got.proposal.facts.map((f: any) => [f.label, f.value]));
    expect(facts["Linked from"]).toContain(`product category ${cat.id} ("Grinders") lists it`);
    expect(facts["Linked from"]).toContain("product-card block");
    expect(facts.Disappears).toContain("the REST API stops serving it");

    expect((await decide(held.approval.token, "approve")).ok).toBe(true);
    expect((await rest(`/products/${p.slug}`)).status).toBe(404);
    expect((await rest("/products")).etag).not.toBe(list.etag);
    expect((await w.ok(w.owner, "approvals_get", { id: held.approval.id })).status).toBe("approved");
  });

  test("withdrawing it (inactive) is held; rejecting keeps it on sale; approving takes it off REST", async () => {
    const p = await product("Scale");
    const held = await w.ok(w.owner, "products_set_status", { siteId: w.siteA, id: p.id, status: "inactive" });
    expect(held).toMatchObject({ status: "active", approval: { linkType: "pending_change" } });
    const changes = (await w.ok(w.owner, "approvals_get", { id: held.approval.id })).proposal.changes;
    expect(changes).toEqual([{ field: "status", before: "active", after: "inactive" }]);
    expect((await decide(held.approval.token, "reject")).ok).toBe(true);
    expect((await rest(`/products/${p.slug}`)).status).toBe(200);
    expect((await w.ok(w.owner, "products_get", { siteId: w.siteA, id: p.id })).status).toBe("active");
    // active → draft is still refused at once, with the way to go.
    expect(await w.err(w.owner, "products_set_status", { siteId: w.siteA, id: p.id, status: "draft" })).toContain(
      "Set it inactive first",
    );

    const again = await w.ok(w.owner, "products_set_status", { siteId: w.siteA, id: p.id, status: "inactive" });
    expect((await decide(again.approval.token, "approve")).ok).toBe(true);
    expect((await rest(`/products/${p.slug}`)).status).toBe(404);
    expect((await w.ok(w.owner, "products_get", { siteId: w.siteA, id: p.id })).status).toBe("inactive");
  });

  test("draft and inactive products change at once; a product changed after the request is a conflict", async () => {
    const draft = await w.ok(w.owner, "products_create", { siteId: w.siteA, name: "Prototype", price: 100 });
    expect(await w.ok(w.owner, "products_delete", { siteId: w.siteA, id: draft.id })).toEqual({
      id: draft.id,
      slug: draft.slug,
      status: "deleted",
    });

    const p = await product("Kettle");
    const held = await w.ok(w.owner, "products_delete", { siteId: w.siteA, id: p.id });
    await w.ok(w.owner, "products_update", { siteId: w.siteA, id: p.id, price: 1500 });
    const out = await decide(held.approval.token, "approve");
    expect(out).toMatchObject({ ok: false, reason: "conflict" });
    expect(out.message).toContain("price");
    expect((await rest(`/products/${p.slug}`)).status).toBe(200);
    // Once withdrawn (approved), deleting it needs no further review, and the stale request is withdrawn.
    const off = await w.ok(w.owner, "products_set_status", { siteId: w.siteA, id: p.id, status: "inactive" });
    expect((await decide(off.approval.token, "approve")).ok).toBe(true);
    expect(await w.ok(w.owner, "products_delete", { siteId: w.siteA, id: p.id })).toMatchObject({ status: "deleted" });
    expect((await w.ok(w.owner, "approvals_get", { id: held.approval.id })).status).toBe("withdrawn");
  });
});
