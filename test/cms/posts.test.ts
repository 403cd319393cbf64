/** Posts tools over MCP: drafting, updating (revisions of live posts), reading, unpublishing, deleting. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { mintRestKey } from "../fixtures/rest";
import { row, startTestServer, type TestServer } from "../harness";
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

const approve = async (token: string) => {
  const o = await decideApproval(s.deps, { token }, "approve", { decidedBy: "test reviewer" });
  if (!o.ok) throw new Error(o.message);
};
const rest = async (path: string) => {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, { headers: { Authorization: `Bearer ${restKey}` } });
  return { status: r.status, body: (await r.json()) as any };
};
const version = async () =>
  ((await row(s.deps, "SELECT content_version AS v FROM sites WHERE id = ?", w.siteA)) as { v: number }).v;

describe("happy paths", () => {
  test("create echoes { id, slug, status, approval } only; include returns blocks and html", async () => {
    const r = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Brew Guide: V60!",
      blocks: SAMPLE_BLOCKS,
    });
    expect(Object.keys(r).sort()).toEqual(["approval", "id", "slug", "status"]);
    expect(r).toMatchObject({ slug: "brew-guide-v60", status: "pending" });
    const full = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "With include",
      blocks: SAMPLE_BLOCKS,
      include: ["blocks", "html"],
    });
    expect(full.blocks).toEqual(SAMPLE_BLOCKS.map((b) => ({ ...b })));
    expect(full.html).toContain("Single-origin espresso");
  });

  test("slugs are generated unique per site; the same slug may exist on another site", async () => {
    const a = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Same Title" });
    const b = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Same title" });
    const c = await w.ok(w.owner, "posts_create", { siteId: w.siteA2, title: "Same title" });
    expect([a.slug, b.slug, c.slug]).toEqual(["same-title", "same-title-2", "same-title"]);
    const accents = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Café Crème — été" });
    expect(accents.slug).toBe("cafe-creme-ete");
    const symbols = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "!!!" });
    expect(symbols.slug).toBe("post");
  });

  test("get by id or slug; list filters by type, status, category, tag and search, and paginates", async () => {
    const cat = await w.ok(w.owner, "categories_create", { siteId: w.siteA2, name: "News" });
    const tag = await w.ok(w.owner, "tags_create", { siteId: w.siteA2, name: "Launch" });
    const p1 = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA2,
      title: "Alpha launch",
      categoryIds: [cat.id],
      tagIds: [tag.id],
    });
    await w.ok(w.owner, "posts_create", { siteId: w.siteA2, title: "About us", postType: "page" });
    await w.ok(w.owner, "posts_create", { siteId: w.siteA2, title: "Beta 50% off" });
    await approve(p1.approval.token);
    const got = await w.ok(w.owner, "posts_get", { siteId: w.siteA2, slug: "alpha-launch" });
    expect(got).toMatchObject({
      id: p1.id,
      postType: "blog",
      status: "published",
      published: true,
      categories: [{ id: cat.id, name: "News", slug: "news" }],
      tags: [{ name: "Launch" }],
    });
    expect(got.blocks).toBeUndefined();
    expect(
      (await w.ok(w.owner, "posts_list", { siteId: w.siteA2, postType: "page" })).items.map((p: any) => p.title),
    ).toEqual(["About us"]);
    expect(
      (await w.ok(w.owner, "posts_list", { siteId: w.siteA2, status: "published" })).items.map((p: any) => p.id),
    ).toEqual([p1.id]);
    expect((await w.ok(w.owner, "posts_list", { siteId: w.siteA2, categoryId: cat.id })).total).toBe(1);
    expect((await w.ok(w.owner, "posts_list", { siteId: w.siteA2, tagId: tag.id })).total).toBe(1);
    expect(
      (await w.ok(w.owner, "posts_list", { siteId: w.siteA2, search: "50%" })).items.map((p: any) => p.title),
    ).toEqual(["Beta 50% off"]);
    expect((await w.ok(w.owner, "posts_list", { siteId: w.siteA2, search: "%" })).total).toBe(1);
    expect((await w.ok(w.owner, "posts_list", { siteId: w.siteA2, postType: "no-such-type" })).total).toBe(0);
    const page1 = await w.ok(w.owner, "posts_list", { siteId: w.siteA2, limit: 2 });
    // Four posts on this site: the three above and "Same title" from the slug test.
    expect(page1).toMatchObject({ total: 4, limit: 2, offset: 0, nextOffset: 2 });
    const page2 = await w.ok(w.owner, "posts_list", { siteId: w.siteA2, limit: 2, offset: 2 });
    expect(page2.nextOffset).toBeNull();
    expect(new Set([...page1.items, ...page2.items].map((p: any) => p.id)).size).toBe(4);
  });

  test("publishing bumps the content version; drafts do not", async () => {
    const v0 = await version();
    const r = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Versioned" });
    expect(await version()).toBe(v0);
    await approve(r.approval.token);
    expect(await version()).toBe(v0 + 1);
    await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, title: "Versioned 2" });
    expect(await version()).toBe(v0 + 1);
  });

  test("updates of a live post accumulate in one revision; approving applies all of them", async () => {
    const cat = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Guides" });
    const r = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Accumulate",
      blocks: [{ type: "paragraph", props: { text: "v1" } }],
    });
    await approve(r.approval.token);
    const u1 = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, title: "Accumulated" });
    const u2 = await w.ok(w.owner, "posts_update", {
      siteId: w.siteA,
      id: r.id,
      categoryIds: [cat.id],
      slug: "accumulated",
    });
    expect(u2.pendingRevision.fields.sort()).toEqual(["categoryIds", "slug", "title"]);
    expect((await w.ok(w.owner, "approvals_get", { id: u1.approval.id })).status).toBe("superseded");
    expect((await rest("/posts/accumulate")).body.data.title).toBe("Accumulate");
    const got = await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id, include: ["blocks"] });
    expect(got.pendingRevision.fields.sort()).toEqual(["categoryIds", "slug", "title"]);
    await approve(u2.approval.token);
    expect((await rest("/posts/accumulate")).status).toBe(404);
    const served = (await rest("/posts/accumulated")).body.data;
    expect(served).toMatchObject({ title: "Accumulated", categories: [{ slug: "guides" }] });
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).pendingRevision).toBeNull();
    // A pending slug change can be taken back by sending the live slug again.
    await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, slug: "renamed-again" });
    const back = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, slug: "accumulated" });
    await approve(back.approval.token);
    expect((await rest("/posts/accumulated")).status).toBe(200);
    // Nothing left to change: no link.
    const same = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id });
    expect(same.approval).toBeUndefined();
    expect(same.status).toBe("published");
  });

  test("unpublish takes a post offline (once approved); updating it proposes it again; delete removes it and withdraws its links", async () => {
    const r = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Offline soon" });
    await approve(r.approval.token);
    expect((await rest("/posts/offline-soon")).status).toBe(200);
    const held = await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: r.id });
    expect(held).toMatchObject({ status: "published", approval: { linkType: "pending_change" } });
    await approve(held.approval.token);
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).status).toBe("archived");
    expect((await rest("/posts/offline-soon")).status).toBe(404);
    const again = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, excerpt: "Back" });
    expect(again.status).toBe("pending");
    const del = await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: r.id });
    expect(del).toMatchObject({ id: r.id, status: "deleted" });
    expect((await w.ok(w.owner, "approvals_get", { id: again.approval.id })).status).toBe("withdrawn");
    expect(await w.err(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).toStartWith("Not found");
  });
});

describe("errors", () => {
  test("block content errors name the offending path, nested ones too; nothing is written", async () => {
    const before = w.changes();
    const cases: [unknown[], string][] = [
      [
        [
          { type: "heading", props: { text: "ok" } },
          { type: "marquee", props: {} },
        ],
        "blocks[1].type",
      ],
      [[{ type: "heading", props: { text: "x", size: 3 } }], "blocks[0].props.size"],
      [[{ type: "heading", props: { text: "x", level: "2" } }], "blocks[0].props.level"],
      [
        [SAMPLE_BLOCKS[0], SAMPLE_BLOCKS[1], SAMPLE_BLOCKS[2], { type: "heading", props: { text: "x", level: 7 } }],
        "blocks[3].props.level",
      ],
      [
        [
          {
            type: "columns",
            props: {},
            children: [{ type: "column", props: {}, children: [{ type: "paragraph", props: { text: 5 } }] }],
          },
        ],
        "blocks[0].children[0].children[0].props.text",
      ],
      [[{ type: "button", props: { label: "x", href: "javascript:alert(1)" } }], "blocks[0].props.href"],
    ];
    for (const [blocks, path] of cases) {
      const msg = await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "Invalid", blocks });
      expect(msg).toContain(path);
    }
    const upd = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Valid first" });
    const before2 = w.changes();
    expect(
      await w.err(w.owner, "posts_update", { siteId: w.siteA, id: upd.id, blocks: [{ type: "nope", props: {} }] }),
    ).toContain("blocks[0].type");
    expect(w.changes()).toBe(before2);
    expect(before).toBeLessThan(before2);
  });

  test("a taken slug is a conflict naming the holder; bad slugs, unknown types, foreign terms are refused", async () => {
    const a = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Holder", slug: "holder" });
    const msg = await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "Other", slug: "holder" });
    expect(msg).toStartWith("Conflict");
    expect(msg).toContain(`post ${a.id}`);
    const b = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Second" });
    expect(await w.err(w.owner, "posts_update", { siteId: w.siteA, id: b.id, slug: "holder" })).toStartWith("Conflict");
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x", slug: "Bad Slug" })).toStartWith(
      "Invalid arguments",
    );
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x", postType: "case-study" })).toContain(
      "Available: blog",
    );
    const foreignCat = await w.ok(w.stranger, "categories_create", { siteId: w.siteB, name: "Theirs" });
    expect(
      await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x", categoryIds: [foreignCat.id] }),
    ).toContain(`category ${foreignCat.id} not found`);
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x", categoryIds: [1, 1] })).toContain(
      "more than once",
    );
    expect(
      await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x", coverImage: "javascript:alert(1)" }),
    ).toContain("coverImage");
    expect(
      await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x", canonicalUrl: "http://insecure.example/x" }),
    ).toContain("canonicalUrl");
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "   " })).toContain("title");
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "a\u0000b" })).toStartWith(
      "Invalid arguments",
    );
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x".repeat(301) })).toStartWith(
      "Invalid arguments",
    );
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA })).toStartWith("Invalid arguments");
    expect(await w.err(w.owner, "posts_get", { siteId: w.siteA })).toContain("exactly one of id or slug");
    expect(await w.err(w.owner, "posts_get", { siteId: w.siteA, id: 9_007_199_254_740_991 })).toStartWith("Not found");
    expect(await w.err(w.owner, "posts_list", { siteId: w.siteA, limit: 1000 })).toStartWith("Invalid arguments");
    expect(await w.err(w.owner, "posts_unpublish", { siteId: w.siteA, id: 999_999 })).toStartWith("Not found");
    const draftOnly = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Never live" });
    expect(await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: draftOnly.id })).toMatchObject({
      status: "pending",
      message: "The post is not published.",
    });
  });

  test("parent posts: unknown, self and cycles are refused; a parent with children cannot be deleted", async () => {
    const parent = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Parent", postType: "page" });
    const child = await w.ok(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Child",
      postType: "page",
      parentPostId: parent.id,
    });
    expect(await w.err(w.owner, "posts_update", { siteId: w.siteA, id: parent.id, parentPostId: parent.id })).toContain(
      "itself",
    );
    expect(await w.err(w.owner, "posts_update", { siteId: w.siteA, id: parent.id, parentPostId: child.id })).toContain(
      "ancestor",
    );
    expect(await w.err(w.owner, "posts_create", { siteId: w.siteA, title: "x", parentPostId: 999_999 })).toStartWith(
      "Not found",
    );
    const msg = await w.err(w.owner, "posts_delete", { siteId: w.siteA, id: parent.id });
    expect(msg).toContain("parent of 1 post");
    expect(msg).toContain(`${child.id} ("Child")`);
  });

  test("approving a revision whose slug was taken meanwhile is a conflict shown to the reviewer", async () => {
    const r = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Racer" });
    await approve(r.approval.token);
    const u = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, slug: "finish-line" });
    await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Finish line" });
    const o = await decideApproval(s.deps, { token: u.approval.token }, "approve", { decidedBy: "t" });
    expect(o.ok).toBe(false);
    expect(o.message).toContain('Slug "finish-line" is already used');
    expect((await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id })).slug).toBe("racer");
  });
});

describe("security", () => {
  test("another company's site and posts are invisible and untouchable", async () => {
    const theirs = await w.ok(w.stranger, "posts_create", { siteId: w.siteB, title: "Their post" });
    for (const [tool, args] of [
      ["posts_list", { siteId: w.siteB }],
      ["posts_get", { siteId: w.siteB, id: theirs.id }],
      ["posts_create", { siteId: w.siteB, title: "Intrusion" }],
      ["posts_update", { siteId: w.siteB, id: theirs.id, title: "Hacked" }],
      ["posts_delete", { siteId: w.siteB, id: theirs.id }],
      ["posts_unpublish", { siteId: w.siteB, id: theirs.id }],
      // Their post id through my own site: not found, not theirs.
      ["posts_get", { siteId: w.siteA, id: theirs.id }],
      ["posts_update", { siteId: w.siteA, id: theirs.id, title: "Hacked" }],
      ["posts_delete", { siteId: w.siteA, id: theirs.id }],
    ] as const) {
      const msg = await w.err(w.owner, tool, args as Record<string, unknown>);
      expect(msg).toStartWith("Not found");
      expect(msg).not.toContain("Rival");
      expect(msg).not.toContain("Their post");
    }
    expect((await w.ok(w.stranger, "posts_get", { siteId: w.siteB, id: theirs.id })).title).toBe("Their post");
  });

  test("a viewer reads but cannot write; SQL and HTML in strings are stored as text", async () => {
    expect((await w.ok(w.viewer, "posts_list", { siteId: w.siteA })).total).toBeGreaterThan(0);
    const before = w.changes();
    expect(await w.err(w.viewer, "posts_create", { siteId: w.siteA, title: "Viewer post" })).toContain("viewer");
    expect(w.changes()).toBe(before);
    const evil = `Robert'); DROP TABLE posts;-- <script>alert(1)</script>`;
    const r = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: evil, excerpt: evil });
    const got = await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: r.id });
    expect(got.title).toBe(evil);
    expect(got.excerpt).toBe(evil);
    expect((await w.ok(w.owner, "posts_list", { siteId: w.siteA, search: "'); drop" })).total).toBe(1);
  });
});
