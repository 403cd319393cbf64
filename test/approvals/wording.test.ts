/**
 * A link describes its proposal as it was made, and its outcome, in every
 * state, on the approval page and in approvals_get alike: an approved new
 * post reads "A new blog post — approved and published on … by …", never
 * as an edit of something offline. Entity links (posts, block templates)
 * and staged changes; pending, approved, rejected, expired, superseded and
 * withdrawn.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/core/clock";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

const WHEN = String.raw`\d{4}-\d\d-\d\d \d\d:\d\d UTC`;
const decide = async (token: string, decision: "approve" | "reject") => {
  const o = await decideApproval(s.deps, { token }, decision, { decidedBy: "Rita Reviewer", comment: null });
  if (!o.ok) throw new Error(o.message);
};
const summary = async (id: number) => (await w.ok(w.owner, "approvals_get", { id })).proposal.summary as string;
/** The summary line as the approval page shows it. */
const pageSummary = async (url: string) => {
  const html = await (await fetch(w.local(url))).text();
  return (
    /<p class="ap-summary">([^<]*)<\/p>/
      .exec(html)?.[1]
      ?.replace(/&#39;/g, "'")
      .replace(/&quot;/g, '"')
      .replace(/&amp;/g, "&") ?? null
  );
};
const post = (title: string) =>
  w.ok(w.owner, "posts_create", { siteId: w.siteA, title, blocks: [{ type: "paragraph", props: { text: title } }] });

describe("posts", () => {
  test("a new post: pending, then approved — described as new, with who and when", async () => {
    const r = await post("Fresh beans");
    expect(await summary(r.approval.id)).toBe(
      "A new blog post, not yet published: approving publishes it on the site.",
    );
    await decide(r.approval.token, "approve");
    const line = await summary(r.approval.id);
    expect(line).toMatch(new RegExp(`^A new blog post — approved and published on ${WHEN} by Rita Reviewer\\.$`));
    expect(line).not.toContain("offline");
    expect(await pageSummary(r.approval.url)).toBe(line);
  });

  test("a new post rejected, expired, superseded", async () => {
    const rejected = await post("Not this one");
    await decide(rejected.approval.token, "reject");
    expect(await summary(rejected.approval.id)).toMatch(
      new RegExp(`^A new blog post — rejected on ${WHEN} by Rita Reviewer: nothing was published\\.$`),
    );

    const old = await post("Superseded draft");
    const newer = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: old.id, excerpt: "Second try" });
    expect(await summary(old.approval.id)).toMatch(
      new RegExp(`^A new blog post — replaced by a newer request on ${WHEN}, the one to decide\\.$`),
    );
    expect(await summary(newer.approval.id)).toBe(
      "A new blog post, not yet published: approving publishes it on the site.",
    );

    const lapsing = await post("Too late");
    s.clock.advance(15 * DAY_MS);
    const line = await summary(lapsing.approval.id);
    expect(line).toMatch(
      new RegExp(`^A new blog post — expired on ${WHEN} without a decision: nothing was published\\.$`),
    );
    // The page for a lapsed link shows the header only (410); approvals_get keeps the wording.
    expect((await fetch(w.local(lapsing.approval.url))).status).toBe(410);
  });

  test("changes to a live post: the recorded live values stay the 'before' after approval", async () => {
    const r = await post("Cupping notes");
    await decide(r.approval.token, "approve");
    const upd = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, title: "Cupping notes, spring" });
    expect(await summary(upd.approval.id)).toBe(
      "Changes to the published blog post “Cupping notes”. The live version stays online unchanged until you approve.",
    );
    await decide(upd.approval.token, "approve");
    const got = await w.ok(w.owner, "approvals_get", { id: upd.approval.id });
    expect(got.proposal.summary).toMatch(
      new RegExp(
        `^Changes to the published blog post “Cupping notes, spring” — approved and applied to the live version on ${WHEN} by Rita Reviewer\\.$`,
      ),
    );
    expect(got.proposal.changes).toEqual([{ field: "Title", before: "Cupping notes", after: "Cupping notes, spring" }]);
    const rejected = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, excerpt: "Never shown" });
    await decide(rejected.approval.token, "reject");
    expect(await summary(rejected.approval.id)).toMatch(
      / — rejected on .* by Rita Reviewer: the live version stayed as it was\.$/,
    );
  });

  test("an edit of a post taken offline: published again", async () => {
    const r = await post("Back soon");
    await decide(r.approval.token, "approve");
    const off = await w.ok(w.owner, "posts_unpublish", { siteId: w.siteA, id: r.id });
    await decide(off.approval.token, "approve");
    expect(await summary(off.approval.id)).toMatch(
      new RegExp(
        `^Unpublishing the published blog post “Back soon” — approved and taken offline on ${WHEN} by Rita Reviewer\\.$`,
      ),
    );
    const again = await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: r.id, excerpt: "Returned" });
    expect(await summary(again.approval.id)).toBe(
      "An edited blog post that is offline now; approving publishes it again.",
    );
    await decide(again.approval.token, "approve");
    expect(await summary(again.approval.id)).toMatch(
      new RegExp(
        `^An edited blog post that was offline — approved and published again on ${WHEN} by Rita Reviewer\\.$`,
      ),
    );
  });
});

describe("block templates and staged changes", () => {
  test("a new template and changes to an approved one, before and after the decision", async () => {
    const t = await w.ok(w.owner, "block_templates_create", {
      siteId: w.siteA,
      name: "Hero band",
      blocks: [{ type: "paragraph", props: { text: "v1" } }],
    });
    expect(await summary(t.approval.id)).toBe(
      "A new block template: approving makes it available to build pages from.",
    );
    await decide(t.approval.token, "approve");
    expect(await summary(t.approval.id)).toMatch(
      new RegExp(`^A new block template — approved and made available on ${WHEN} by Rita Reviewer\\.$`),
    );
    const u = await w.ok(w.owner, "block_templates_update", {
      siteId: w.siteA,
      id: t.id,
      blocks: [{ type: "paragraph", props: { text: "v2" } }],
    });
    expect(await summary(u.approval.id)).toBe(
      "Changes to the block template “Hero band”. Agents keep using the approved version until you approve.",
    );
    await decide(u.approval.token, "approve");
    expect(await summary(u.approval.id)).toMatch(
      new RegExp(`^Changes to the block template “Hero band” — approved and applied on ${WHEN} by Rita Reviewer\\.$`),
    );
  });

  test("a staged change: held, approved, rejected, withdrawn", async () => {
    const cat = await w.ok(w.owner, "categories_create", { siteId: w.siteA, name: "Origins" });
    const a = await w.ok(w.gated, "categories_update", { siteId: w.siteA, id: cat.id, name: "Single origins" });
    expect(await summary(a.approval.id)).toBe(
      "A change to an existing category, held for approval: nothing is changed until you approve.",
    );
    await decide(a.approval.token, "approve");
    const approved = await w.ok(w.owner, "approvals_get", { id: a.approval.id });
    expect(approved.proposal.summary).toMatch(
      new RegExp(`^A change to an existing category — approved and applied on ${WHEN} by Rita Reviewer\\.$`),
    );
    // What it changed, against what was live when it was asked for.
    expect(approved.proposal.changes).toEqual(
      expect.arrayContaining([{ field: "name", before: "Origins", after: "Single origins" }]),
    );
    expect(await pageSummary(a.approval.url)).toBe(approved.proposal.summary);

    const b = await w.ok(w.gated, "tags_create", { siteId: w.siteA, name: "Washed" });
    await decide(b.approval.token, "reject");
    expect(await summary(b.approval.id)).toMatch(
      new RegExp(`^A change — rejected on ${WHEN} by Rita Reviewer: nothing was changed\\.$`),
    );

    const p = await post("Soon gone");
    const c = await w.ok(w.gated, "posts_update", { siteId: w.siteA, id: p.id, excerpt: "Staged" });
    await w.ok(w.owner, "posts_delete", { siteId: w.siteA, id: p.id });
    expect(await summary(c.approval.id)).toMatch(
      new RegExp(`^A change to an existing post — withdrawn on ${WHEN}: the item it was about was deleted\\.$`),
    );
  });
});
