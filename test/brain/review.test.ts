/**
 * Review of brain writes: a credential set to review has its writes held
 * (nothing changes until approved), some writes are always held (deleting
 * a document, a goal's new owner, merging people); a review lists what
 * would change against the record now; approving applies atomically and
 * re-validates (conflict when the target moved on); rejecting needs a
 * reason; deciding needs brain:approve and never the requester's own agent
 * credential; items show in the approvals inbox.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { decideApproval, getApproval, listApprovals } from "../../src/domains/approvals/verbs";
import { commits, row } from "../harness";
import { makeWorld, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

/** Priya's agent key, its writes sent to review; Ada (owner, portal session or her own key) decides. */
const agent = () => w.ctx({ key: "agent" });
const ada = () => w.ctx();

describe("per-credential review", () => {
  test("an agent may put itself under review; only brain:approve lifts it", async () => {
    expect(
      await w.call("brain_review_policy_set", { review: true }, w.ctx({ key: "agent", scopes: ["brain:write"] })),
    ).toEqual({ credentialKind: "mcp_key", credentialId: w.agentKeyId, review: true });
    expect(
      (await w.err("brain_review_policy_set", { review: false }, w.ctx({ key: "agent", scopes: ["brain:write"] })))
        .code,
    ).toBe("forbidden");
    expect((await w.call("brain_review_policy_get", {}, agent())).thisCredential.review).toBe(true);
    expect((await w.call("brain_review_policy_get", {}, ada())).credentials).toEqual([
      { kind: "mcp_key", id: w.agentKeyId },
    ]);
  });

  test("a held create changes nothing until approved, then applies as the requester", async () => {
    const before = Number((await row<{ n: number }>(w.deps, "SELECT count(*) AS n FROM brain_records"))!.n);
    const held = await w.call("brain_notes_create", { title: "Held note", body: "Agent wrote this." }, agent());
    expect(held.status).toBe("in_review");
    expect(held.review.url).toMatch(/\/approve\/[0-9a-f]{64}$/);
    expect(Number((await row<{ n: number }>(w.deps, "SELECT count(*) AS n FROM brain_records"))!.n)).toBe(before);
    expect((await w.call("brain_search", { query: "held" })).total).toBe(0);
    const list = await w.call("brain_reviews_list", { status: "pending" });
    expect(list.items.map((i: { id: number; tool: string }) => [i.id, i.tool])).toEqual([
      [held.review.id, "brain_notes_create"],
    ]);
    const ok = await w.call("brain_reviews_approve", { id: held.review.id, comment: "fine" }, ada());
    expect(ok).toMatchObject({ id: held.review.id, ok: true, status: "approved" });
    const found = await w.call("brain_search", { query: "held" });
    expect(found.items.map((i: { title: string }) => i.title)).toEqual(["Held note"]);
    const h = await w.call("brain_records_history", { id: found.items[0].id });
    expect(h.items[0]).toMatchObject({
      action: "create",
      by: { userId: w.users.priya },
      credential: { name: "agent key" },
      reviewId: held.review.id,
    });
  });

  test("a held update shows the diff against the record now; a change meanwhile is a conflict and nothing applies", async () => {
    const d = await w.call(
      "brain_documents_create",
      { title: "Proposal template", body: "Intro\nScope\nPrice\n" },
      ada(),
    );
    const held = await w.call("brain_documents_update", { id: d.id, body: "Intro\nScope\nPrice\nTerms\n" }, agent());
    expect(held).toMatchObject({ id: d.id, status: "in_review" });
    expect((await w.call("brain_records_get", { id: d.id })).body).toBe("Intro\nScope\nPrice\n");
    const r = await w.call("brain_reviews_get", { id: held.review.id });
    expect(r.record).toEqual({ id: d.id, kind: "document", title: "Proposal template", version: 1 });
    expect(r.changes).toEqual([
      {
        field: "body",
        current: "Intro\nScope\nPrice\n",
        proposed: "Intro\nScope\nPrice\nTerms\n",
        changedSinceRequest: false,
      },
    ]);
    expect(r.bodyDiff).toContain("+Terms");
    expect(r.movedOn).toBe(false);
    // Someone edits the body meanwhile: the reviewer approved a change against what they saw.
    await w.call("brain_documents_update", { id: d.id, body: "Intro\nScope\n" }, ada());
    const r2 = await w.call("brain_reviews_get", { id: held.review.id });
    expect(r2.movedOn).toBe(true);
    expect(r2.changes[0].changedSinceRequest).toBe(true);
    const c = commits(w.deps);
    const out = await w.call("brain_reviews_approve", { id: held.review.id }, ada());
    expect(out.ok).toBe(false);
    expect(out.reason).toBe("conflict");
    expect(out.status).toBe("pending");
    expect(out.message).toContain("modified after the change was requested (body changed)");
    expect((await w.call("brain_records_get", { id: d.id })).body).toBe("Intro\nScope\n");
    expect(commits(w.deps)).toBe(c + 1); // only the error note on the review
    expect((await w.call("brain_reviews_list", { status: "pending" })).items[0].lastError).toContain("modified");
    // A change to another field does not block it.
    const held2 = await w.call("brain_documents_update", { id: d.id, body: "Intro\nScope\nTerms\n" }, agent());
    await w.call("brain_documents_update", { id: d.id, title: "Proposal template v2" }, ada());
    expect((await w.call("brain_reviews_approve", { id: held2.review.id }, ada())).ok).toBe(true);
    expect(await w.call("brain_records_get", { id: d.id })).toMatchObject({
      title: "Proposal template v2",
      body: "Intro\nScope\nTerms\n",
    });
  });

  test("reject needs a reason and leaves everything as it was", async () => {
    const n = await w.call("brain_notes_create", { title: "Stays" }, ada());
    const held = await w.call("brain_records_delete", { id: n.id }, agent());
    expect(held.status).toBe("in_review");
    expect((await w.err("brain_reviews_reject", { id: held.review.id, reason: "" }, ada())).code).toBe("validation");
    const out = await w.call("brain_reviews_reject", { id: held.review.id, reason: "We keep this note." }, ada());
    expect(out).toMatchObject({ ok: true, status: "rejected" });
    expect((await w.call("brain_records_get", { id: n.id })).title).toBe("Stays");
    expect((await w.call("brain_reviews_get", { id: held.review.id })).comment).toBe("We keep this note.");
    // Decided is decided: approving now does nothing.
    const again = await w.call("brain_reviews_approve", { id: held.review.id }, ada());
    expect(again.ok).toBe(false);
    expect((await w.call("brain_records_get", { id: n.id })).title).toBe("Stays");
  });

  test("deciding needs brain:approve and an owner or admin; a viewer, a brain:write key and the requester's own agent key are refused", async () => {
    const held = await w.call("brain_notes_create", { title: "Needs a decider" }, agent());
    const id = held.review.id;
    expect((await w.err("brain_reviews_approve", { id }, w.ctx({ scopes: ["brain:write"] }))).code).toBe("forbidden");
    expect((await w.err("brain_reviews_approve", { id }, w.ctx({ role: "viewer", as: w.users.leo }))).code).toBe(
      "forbidden",
    );
    expect(
      (await w.err("brain_reviews_reject", { id, reason: "no" }, w.ctx({ role: "viewer", as: w.users.leo }))).code,
    ).toBe("forbidden");
    const self = await w.err("brain_reviews_approve", { id }, w.ctx({ key: "main", as: w.users.priya }));
    expect(self.code).toBe("forbidden");
    expect(self.message).toContain("You asked for this change yourself");
    // An OAuth token is an agent credential too, not only an MCP key; rejecting is refused the same way.
    for (const [tool, args] of [
      ["brain_reviews_approve", { id }],
      ["brain_reviews_reject", { id, reason: "no" }],
    ] as const) {
      const viaOauth = await w.err(tool, args, w.ctx({ key: "oauth", as: w.users.priya }));
      expect(viaOauth.code).toBe("forbidden");
      expect(viaOauth.message).toContain("You asked for this change yourself");
    }
    expect((await w.call("brain_reviews_get", { id })).status).toBe("pending");
    // A credential under review cannot approve anything.
    await w.call("brain_review_policy_set", { credentialKind: "mcp_key", credentialId: 999, review: true }, ada());
    expect((await w.call("brain_review_policy_get", {}, ada())).credentials).toContainEqual({
      kind: "mcp_key",
      id: 999,
    });
    // Another company's reviewer does not even see it.
    expect((await w.err("brain_reviews_approve", { id }, w.ctx({ company: "other" }))).code).toBe("not_found");
    expect((await w.call("brain_reviews_approve", { id }, w.ctx({ scopes: ["brain:approve"] }))).ok).toBe(true);
  });

  test("held items show in the approvals inbox as pending changes", async () => {
    const held = await w.call("brain_notes_create", { title: "Inbox item" }, agent());
    const inbox = await listApprovals(w.ctx({ key: "session" }), { status: "pending", limit: 20, offset: 0 });
    const item = inbox.items.find((i) => i.id === held.review.id)!;
    expect(item).toMatchObject({
      linkType: "pending_change",
      entityType: "brain_record",
      tool: "brain_notes_create",
      title: "New note: Inbox item",
    });
  });

  test("the approval page previews a held brain write and deciding there applies it", async () => {
    const d = await w.call("brain_documents_create", { title: "Page preview doc", body: "Old <b>text</b>" }, ada());
    const held = await w.call(
      "brain_documents_update",
      { id: d.id, body: "New <script>alert(1)</script> text" },
      agent(),
    );
    const view = await getApproval(w.ctx({ key: "session" }), held.review.id, { html: true });
    expect(view.proposal!.changes).toContainEqual({
      field: "body",
      before: "Old <b>text</b>",
      after: "New <script>alert(1)</script> text",
    });
    expect(view.html).not.toContain("<script>alert(1)");
    const out = await decideApproval(w.deps, { token: held.review.token }, "approve", {
      decidedBy: "Ana (approval link)",
    });
    expect(out.ok).toBe(true);
    expect((await w.call("brain_records_get", { id: d.id })).body).toBe("New <script>alert(1)</script> text");
  });

  test("lifting review: the agent's writes apply directly again", async () => {
    await w.call(
      "brain_review_policy_set",
      { credentialKind: "mcp_key", credentialId: w.agentKeyId, review: false },
      ada(),
    );
    const n = await w.call("brain_notes_create", { title: "Direct" }, agent());
    expect(n.status).toBeUndefined();
    expect(n.version).toBe(1);
  });
});

describe("always reviewed", () => {
  test("deleting a document, whoever asks", async () => {
    const d = await w.call("brain_documents_create", { title: "Contract template" });
    const held = await w.call("brain_records_delete", { id: d.id }, ada());
    expect(held).toMatchObject({ id: d.id, status: "in_review", reason: "Deleting a document is always reviewed." });
    expect((await w.call("brain_records_get", { id: d.id })).title).toBe("Contract template");
    // Approved by another member (Ada cannot approve her own agent request, but a portal session is the person).
    expect((await w.call("brain_reviews_approve", { id: held.review.id }, w.ctx({ key: "session" }))).ok).toBe(true);
    expect((await w.err("brain_records_get", { id: d.id })).code).toBe("not_found");
    // Notes are deleted at once.
    const n = await w.call("brain_notes_create", { title: "Scratch" });
    expect(await w.call("brain_records_delete", { id: n.id })).toEqual({ id: n.id, status: "deleted" });
  });

  test("changing a goal's owner (setting the first owner is not a change)", async () => {
    const a = await w.call("brain_people_create", { title: "Owner A" });
    const b = await w.call("brain_people_create", { title: "Owner B" });
    const g = await w.call("brain_goals_create", { title: "Win two retainers" });
    expect((await w.call("brain_goals_update", { id: g.id, owner: a.id })).changed).toEqual(["owner"]);
    const held = await w.call("brain_goals_update", { id: g.id, owner: b.id, progress: 10 });
    expect(held.status).toBe("in_review");
    expect((await w.call("brain_records_get", { id: g.id })).owner.id).toBe(a.id);
    expect(
      (await w.call("brain_reviews_get", { id: held.review.id })).changes.map(
        (c: { field: string; current: string; proposed: string }) => [c.field, c.current, c.proposed],
      ),
    ).toEqual([
      ["owner", String(a.id), String(b.id)],
      ["progress", null, "10"],
    ]);
    expect((await w.call("brain_reviews_approve", { id: held.review.id }, w.ctx({ key: "session" }))).ok).toBe(true);
    expect((await w.call("brain_records_get", { id: g.id })).owner.id).toBe(b.id);
  });

  test("merging people: held; approved, links, tasks and emails move to the kept person", async () => {
    const keep = await w.call("brain_people_create", { title: "Robert Jones", email: "rob@client.test" });
    const dup = await w.call("brain_people_create", { title: "Bob Jones", email: "bob@client.test", jobTitle: "CTO" });
    const t = await w.call("brain_tasks_create", { title: "Ask Bob for access", assignee: dup.id });
    const n = await w.call("brain_notes_create", {
      title: "Call notes",
      body: "Talked to @bob@client.test and [[Bob Jones]].",
    });
    const held = await w.call("brain_people_merge", { id: keep.id, mergeIds: [dup.id] });
    expect(held.status).toBe("in_review");
    expect((await w.call("brain_records_get", { id: dup.id })).title).toBe("Bob Jones");
    const out = await w.call("brain_reviews_approve", { id: held.review.id }, w.ctx({ key: "session" }));
    expect(out.ok).toBe(true);
    expect((await w.err("brain_records_get", { id: dup.id })).code).toBe("not_found");
    const kept = await w.call("brain_records_get", { id: keep.id });
    expect(kept).toMatchObject({ email: "rob@client.test", jobTitle: "CTO", aliases: ["bob@client.test"] });
    expect(kept.backlinks.map((b: { id: number }) => b.id)).toContain(n.id);
    expect((await w.call("brain_records_get", { id: t.id })).assignee.id).toBe(keep.id);
    const ev = await row<{ data: unknown }>(w.deps, "SELECT data FROM events WHERE type = 'brain_person.merged'");
    expect(JSON.parse(typeof ev!.data === "string" ? ev!.data : JSON.stringify(ev!.data))).toEqual({
      title: "Robert Jones",
      mergedIds: [dup.id],
      mergedTitles: ["Bob Jones"],
    });
  });

  test("a merge whose duplicate changed after the request is refused", async () => {
    const keep = await w.call("brain_people_create", { title: "Keep Me" });
    const dup = await w.call("brain_people_create", { title: "Dup Me" });
    const held = await w.call("brain_people_merge", { id: keep.id, mergeIds: [dup.id] });
    await w.call("brain_people_update", { id: dup.id, jobTitle: "Changed" });
    const out = await w.call("brain_reviews_approve", { id: held.review.id }, w.ctx({ key: "session" }));
    expect(out.ok).toBe(false);
    expect(out.reason).toBe("conflict");
    expect((await w.call("brain_records_get", { id: dup.id })).jobTitle).toBe("Changed");
  });

  test("a held write whose record was deleted meanwhile cannot be applied", async () => {
    const d = await w.call("brain_documents_create", { title: "Gone soon" });
    const heldDelete = await w.call("brain_records_delete", { id: d.id });
    // The document is deleted another way? Documents are always reviewed, so go through a second review that is approved first.
    const heldDelete2 = await w.call("brain_records_delete", { id: d.id });
    expect((await w.call("brain_reviews_approve", { id: heldDelete2.review.id }, w.ctx({ key: "session" }))).ok).toBe(
      true,
    );
    const out = await w.call("brain_reviews_approve", { id: heldDelete.review.id }, w.ctx({ key: "session" }));
    expect(out.ok).toBe(false);
    expect(out.message).toContain("no longer exists");
  });
});
