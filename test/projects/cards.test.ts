/**
 * Cards and their parts through the tools: cross-entity rules (assignees
 * are company members, labels of the card's project, parents in the same
 * project without cycles, media of the company's sites), search and
 * filters, relations with cycle detection, comments with @mentions,
 * checklists, attachments, activity, deletion, hostile input, and the
 * events a notifications subscriber will read.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { events } from "../../src/core/tables";
import { makeWorld, type World } from "./world";

let w: World;
const lastEvent = async (type: string) => {
  const rows = await w.deps.db.select().from(events).where(eq(events.type, type));
  return rows.at(-1)?.data as any;
};

beforeAll(async () => {
  w = await makeWorld();
  await w.call("projects_create", { name: "Website", key: "WEB" });
  await w.call("projects_create", { name: "Brand", key: "BRD" });
  for (const name of ["Bug", "Design", "Copy"]) await w.call("project_labels_create", { projectId: "WEB", name });
  await w.call("project_labels_create", { projectId: "BRD", name: "Logo" });
});
afterAll(() => w.close());

describe("create and update", () => {
  test("a full card, with an event carrying what notifications need", async () => {
    const c = await w.call("cards_create", {
      projectId: "WEB",
      title: "  Hero section  ",
      description: "## Goal\nA **bold** hero.",
      columnId: "To do",
      assignees: ["me", "priya@acme.test"],
      labels: ["design"],
      priority: 2,
      estimate: 5,
      dueDate: "2026-03-20",
      checklist: ["Copy", "Image"],
    });
    expect(c).toEqual({ id: c.id, key: "WEB-1", title: "Hero section", column: "To do", stateGroup: "unstarted" });
    const got = await w.call("cards_get", { id: "web-1" });
    expect(got).toMatchObject({
      key: "WEB-1",
      description: "## Goal\nA **bold** hero.",
      priority: 2,
      priorityName: "high",
      estimate: 5,
      dueDate: "2026-03-20",
      column: { name: "To do", stateGroup: "unstarted" },
      checklist: { done: 0, total: 2 },
      labels: [{ name: "Design" }],
    });
    expect(got.assignees.map((a: any) => a.email)).toEqual(["ada@acme.test", "priya@acme.test"]);
    expect(await lastEvent("card.assigned")).toEqual({
      projectId: got.projectId,
      projectKey: "WEB",
      projectName: "Website",
      key: "WEB-1",
      title: "Hero section",
      assigneeUserIds: [w.users.owner, w.users.priya],
      allAssigneeUserIds: [w.users.owner, w.users.priya],
      dueDate: "2026-03-20",
      priority: 2,
    });
  });

  test("cross-entity rules: members only, this project's labels, real milestones and sprints", async () => {
    expect(
      (await w.err("cards_create", { projectId: "WEB", title: "x", assignees: [w.users.outsider] })).message,
    ).toContain("is not a member of Acme");
    const e = await w.err("cards_create", { projectId: "WEB", title: "x", labels: ["Logo"] });
    expect(e.message).toBe('Label "Logo" is not a label of project WEB; its labels: Bug, Copy, Design.');
    expect((await w.err("cards_create", { projectId: "WEB", title: "x", columnId: "Doing" })).message).toContain(
      'No column "Doing" on this board; its columns:',
    );
    expect((await w.err("cards_create", { projectId: "WEB", title: "x", sprintId: "active" })).message).toBe(
      "Project WEB has no active sprint.",
    );
    expect((await w.err("cards_create", { projectId: "WEB", title: "x", milestoneId: 999 })).code).toBe("not_found");
    expect((await w.err("cards_create", { title: "x" })).message).toContain("Say which project");
    // Nothing was created by the refusals.
    expect((await w.call("cards_list", { projectId: "WEB" })).total).toBe(1);
  });

  test("sub-cards stay in their project and never form a cycle", async () => {
    const sub = await w.call("cards_create", { parentId: "WEB-1", title: "Hero copy" });
    expect(sub).toMatchObject({ key: "WEB-2", parentKey: "WEB-1" });
    const subsub = await w.call("cards_create", { parentId: "WEB-2", title: "Headline" });
    expect((await w.err("cards_update", { id: "WEB-1", parentId: subsub.key })).message).toBe(
      "WEB-3 is a sub-card of WEB-1; making it the parent would make a cycle.",
    );
    expect((await w.err("cards_update", { id: "WEB-1", parentId: "WEB-1" })).message).toBe(
      "A card cannot be its own parent.",
    );
    await w.call("cards_create", { projectId: "BRD", title: "Logo v2" });
    expect((await w.err("cards_update", { id: "BRD-1", parentId: "WEB-1" })).message).toContain("another project");
    const got = await w.call("cards_get", { id: "WEB-1" });
    expect(got.subCards.map((s: any) => s.key)).toEqual(["WEB-2"]);
  });

  test("update replaces assignees and labels, reports what changed, emits assigned/unassigned", async () => {
    const r = await w.call("cards_update", {
      id: "WEB-1",
      assignees: ["leo@acme.test", "me"],
      labels: ["Bug"],
      priority: 1,
      dueDate: null,
    });
    expect(r).toEqual({ id: r.id, key: "WEB-1", changed: ["priority", "dueDate", "labels", "assignees"] });
    expect((await lastEvent("card.assigned")).assigneeUserIds).toEqual([w.users.leo]);
    expect(await lastEvent("card.unassigned")).toMatchObject({
      key: "WEB-1",
      unassignedUserIds: [w.users.priya],
      allAssigneeUserIds: [w.users.owner, w.users.leo],
    });
    expect(await lastEvent("card.updated")).toMatchObject({
      key: "WEB-1",
      changes: { priority: [2, 1], dueDate: ["2026-03-20", null] },
    });
    expect(await w.call("cards_update", { id: "WEB-1", priority: 1 })).toMatchObject({ changed: [] });
  });
});

describe("list and search", () => {
  beforeAll(async () => {
    await w.call("cards_create", {
      projectId: "WEB",
      title: "Fix 50% discount banner",
      labels: ["Bug"],
      priority: 1,
      dueDate: "2026-03-01",
      assignees: ["priya@acme.test"],
    });
    await w.call("cards_create", {
      projectId: "WEB",
      title: "Footer links",
      description: "The footer needs legal links",
      dueDate: "2026-04-15",
      columnId: "done",
      estimate: 2,
    });
    await w.call("cards_create", { projectId: "WEB", title: "About page", columnId: "In progress", priority: 3 });
  });
  const keys = async (args: Record<string, unknown>) => (await w.call("cards_list", args)).items.map((c: any) => c.key);

  test("filters: state groups, assignee (me, email, none), labels, priorities, due dates, text, key", async () => {
    expect(await keys({ projectId: "WEB", stateGroups: ["done"] })).toEqual(["WEB-5"]);
    expect(await keys({ projectId: "WEB", assignee: "me" })).toEqual(["WEB-1"]);
    expect(await keys({ projectId: "WEB", assignee: "priya@acme.test" })).toEqual(["WEB-4"]);
    expect(await keys({ projectId: "WEB", assignee: "none", orderBy: "created" })).toEqual([
      "WEB-6",
      "WEB-5",
      "WEB-3",
      "WEB-2",
    ]);
    expect(await keys({ projectId: "WEB", labels: ["bug"], orderBy: "created" })).toEqual(["WEB-4", "WEB-1"]);
    expect(await keys({ labels: ["Bug"], orderBy: "created" })).toEqual(["WEB-4", "WEB-1"]);
    expect(await keys({ projectId: "WEB", priorities: [1], orderBy: "created" })).toEqual(["WEB-4", "WEB-1"]);
    expect(await keys({ projectId: "WEB", dueBefore: "2026-03-31" })).toEqual(["WEB-4"]);
    expect(await keys({ projectId: "WEB", dueAfter: "2026-03-31" })).toEqual(["WEB-5"]);
    expect(await keys({ search: "FOOTER" })).toEqual(["WEB-5"]);
    expect(await keys({ search: "legal" })).toEqual(["WEB-5"]);
    expect(await keys({ search: "50%" })).toEqual(["WEB-4"]);
    expect(await keys({ search: "%" })).toEqual(["WEB-4"]);
    expect(await keys({ search: "web-6" })).toEqual(["WEB-6"]);
  });

  test("orders: board order by default, priority (none last), due (none last); overdue marked; pages", async () => {
    expect(await keys({ projectId: "WEB" })).toEqual(["WEB-2", "WEB-3", "WEB-4", "WEB-1", "WEB-6", "WEB-5"]);
    expect(await keys({ projectId: "WEB", orderBy: "priority" })).toEqual([
      "WEB-4",
      "WEB-1",
      "WEB-6",
      "WEB-5",
      "WEB-3",
      "WEB-2",
    ]);
    expect((await keys({ projectId: "WEB", orderBy: "due" })).slice(0, 2)).toEqual(["WEB-4", "WEB-5"]);
    const page = await w.call("cards_list", { projectId: "WEB", limit: 2, offset: 2 });
    expect(page).toMatchObject({ total: 6, limit: 2, offset: 2, nextOffset: 4 });
    const overdue = (await w.call("cards_list", { search: "discount" })).items[0];
    expect(overdue).toMatchObject({
      key: "WEB-4",
      overdue: true,
      labels: ["Bug"],
      assignees: [{ id: w.users.priya, name: "Priya Shah" }],
    });
  });

  test("a company without projects gets an empty page, in every order", async () => {
    for (const orderBy of ["board", "updated", "priority", "due"])
      expect(await w.call("cards_list", { orderBy }, w.ctx({ company: "other" }))).toEqual({
        items: [],
        total: 0,
        limit: 20,
        offset: 0,
        nextOffset: null,
      });
  });

  test("unknown filters are refused clearly", async () => {
    expect((await w.err("cards_list", { labels: ["Nope"] })).message).toBe('No project of Acme has a label "Nope".');
    expect((await w.err("cards_list", { assignee: "ghost@acme.test" })).message).toContain("is not a member");
    expect((await w.err("cards_list", { sprintId: 4242 })).code).toBe("not_found");
  });
});

describe("relations", () => {
  test("blocks, blocked_by and duplicates, seen from each side; cycles refused with the path", async () => {
    await w.call("card_relations_add", { cardId: "WEB-1", kind: "blocks", otherCardId: "WEB-4" });
    await w.call("card_relations_add", { cardId: "WEB-6", kind: "blocked_by", otherCardId: "WEB-4" }); // WEB-4 blocks WEB-6
    expect(
      await w.call("card_relations_add", { cardId: "WEB-4", kind: "blocked_by", otherCardId: "WEB-1" }),
    ).toMatchObject({ status: "exists" });
    const e = await w.err("card_relations_add", { cardId: "WEB-6", kind: "blocks", otherCardId: "WEB-1" });
    expect(e.code).toBe("conflict");
    expect(e.message).toBe(
      "That would make a blocks cycle: WEB-1 blocks WEB-4 blocks WEB-6 blocks WEB-1. Remove one of those relations first.",
    );
    await w.call("card_relations_add", { cardId: "WEB-5", kind: "duplicates", otherCardId: "WEB-3" });
    expect(
      (await w.err("card_relations_add", { cardId: "WEB-3", kind: "duplicates", otherCardId: "WEB-5" })).message,
    ).toContain("duplicates cycle");
    expect(
      (await w.err("card_relations_add", { cardId: "WEB-3", kind: "relates", otherCardId: "WEB-3" })).message,
    ).toBe("A card cannot relate to itself.");
    await w.call("card_relations_add", { cardId: "WEB-3", kind: "relates", otherCardId: "BRD-1" });
    const four = await w.call("cards_get", { id: "WEB-4" });
    expect(four.relations.map((r: any) => `${r.kind} ${r.card.key}`).sort()).toEqual([
      "blocked_by WEB-1",
      "blocks WEB-6",
    ]);
    const three = await w.call("cards_get", { id: "WEB-3" });
    expect(three.relations.map((r: any) => `${r.kind} ${r.card.key}`).sort()).toEqual([
      "duplicated_by WEB-5",
      "relates BRD-1",
    ]);
    expect(await w.call("card_relations_remove", { cardId: "WEB-6", otherCardId: "WEB-4" })).toMatchObject({
      removed: 1,
      status: "deleted",
    });
    // With that link gone, the cycle is allowed to close the other way.
    await w.call("card_relations_add", { cardId: "WEB-6", kind: "blocks", otherCardId: "WEB-1" });
    expect((await w.err("card_relations_remove", { cardId: "WEB-6", otherCardId: "WEB-5" })).code).toBe("not_found");
  });
});

describe("comments, checklists, attachments, activity", () => {
  test("@mentions resolve to members; unknown and foreign handles are warnings; the event lists who to notify", async () => {
    const c = await w.call("card_comments_create", {
      cardId: "WEB-1",
      body: "@priya can you check? cc @leo@acme.test and @mallory, mail me at x@y.z",
    });
    expect(c.mentionedUserIds).toEqual([w.users.priya, w.users.leo]);
    expect(c.warnings).toEqual(["@mallory is not a member of Acme; nobody was notified for it."]);
    expect(await lastEvent("comment.created")).toMatchObject({
      key: "WEB-1",
      title: "Hero section",
      projectKey: "WEB",
      authorUserId: w.users.owner,
      mentionedUserIds: [w.users.priya, w.users.leo],
      assigneeUserIds: [w.users.owner, w.users.leo],
    });
    const edited = await w.call("card_comments_update", { id: c.id, body: "@priya and @ada" });
    expect(edited.mentionedUserIds).toEqual([w.users.priya, w.users.owner]);
    expect((await lastEvent("comment.updated")).newlyMentionedUserIds).toEqual([w.users.owner]);
    // Only the author (or an owner) edits a comment.
    expect(
      (await w.err("card_comments_update", { id: c.id, body: "mine now" }, w.ctx({ role: "admin", as: w.users.priya })))
        .code,
    ).toBe("forbidden");
    const got = await w.call("cards_get", { id: "WEB-1", include: ["comments"] });
    expect(got.comments).toEqual([expect.objectContaining({ author: "Ada Owner", body: "@priya and @ada" })]);
    expect(got.commentCount).toBe(1);
    expect(await w.call("card_comments_delete", { id: c.id })).toMatchObject({ status: "deleted" });
  });

  test("checklist: add, tick, reorder, remove with counts", async () => {
    const added = await w.call("card_checklist_items_add", { cardId: "WEB-1", items: ["QA"] });
    expect(added).toMatchObject({ done: 0, total: 3 });
    const items = (await w.call("cards_get", { id: "WEB-1" })).checklist.items;
    expect(await w.call("card_checklist_items_update", { id: items[0].id, done: true })).toMatchObject({
      done: true,
      checklist: { done: 1, total: 3 },
    });
    await w.call("card_checklist_items_update", { id: items[2].id, index: 0 });
    expect((await w.call("cards_get", { id: "WEB-1" })).checklist.items.map((i: any) => i.text)).toEqual([
      "QA",
      "Copy",
      "Image",
    ]);
    expect(await w.call("card_checklist_items_delete", { id: items[1].id })).toMatchObject({
      status: "deleted",
      done: 1,
      total: 2,
    });
    expect((await w.err("card_checklist_items_update", { id: 99999, done: true })).code).toBe("not_found");
  });

  test("attachments: the company's media only; removing the media removes the attachment", async () => {
    expect(await w.call("card_attachments_add", { cardId: "WEB-1", mediaId: w.mediaId })).toMatchObject({
      filename: "brief.pdf",
      status: "added",
    });
    expect(await w.call("card_attachments_add", { cardId: "WEB-1", mediaId: w.mediaId })).toMatchObject({
      status: "exists",
    });
    const e = await w.err("card_attachments_add", { cardId: "WEB-1", mediaId: w.otherMediaId });
    expect(e.code).toBe("not_found");
    expect(e.message).not.toContain("secret");
    expect((await w.call("cards_get", { id: "WEB-1" })).attachments).toEqual([
      expect.objectContaining({ mediaId: w.mediaId, filename: "brief.pdf", url: "https://cdn.example.com/brief.pdf" }),
    ]);
    expect(await w.call("card_attachments_remove", { cardId: "WEB-1", mediaId: w.mediaId })).toMatchObject({
      status: "deleted",
    });
    expect((await w.err("card_attachments_remove", { cardId: "WEB-1", mediaId: w.mediaId })).message).toBe(
      `Media ${w.mediaId} is not attached to WEB-1.`,
    );
  });

  test("activity records each change with who did it, newest first", async () => {
    const act = (await w.call("cards_get", { id: "WEB-1", include: ["activity"] })).activity;
    const actions = act.map((a: any) => a.action);
    expect(actions.at(-1)).toBe("created");
    for (const a of ["updated", "relation", "comment", "checklist", "attachment"]) expect(actions).toContain(a);
    expect(act.every((a: any) => a.userId === w.users.owner)).toBe(true);
  });
});

describe("delete", () => {
  test("a deleted card detaches its sub-cards, keeps its time, and its key stays unused", async () => {
    await w.call("time_logs_create", { cardId: "WEB-2", minutes: 30 });
    const r = await w.call("cards_delete", { id: "WEB-2" });
    expect(r).toMatchObject({ key: "WEB-2", status: "deleted", detachedSubCards: ["WEB-3"], timeLogsKept: 1 });
    expect((await w.call("cards_get", { id: "WEB-3" })).parent).toBeNull();
    expect((await w.call("time_logs_list", { projectId: "WEB" })).totals.minutes).toBe(30);
    expect((await w.call("cards_create", { projectId: "WEB", title: "Next" })).key).toBe("WEB-7");
    expect(await lastEvent("card.deleted")).toMatchObject({ key: "WEB-2", title: "Hero copy" });
  });
});

describe("hostile and malformed input", () => {
  test("SQL, HTML and huge values are stored as text or refused, never a 500", async () => {
    const evil = `Robert'); DROP TABLE cards;-- <script>alert(1)</script>`;
    const c = await w.call("cards_create", {
      projectId: "WEB",
      title: evil,
      description: "<img src=x onerror=alert(1)>",
    });
    expect((await w.call("cards_get", { id: c.key })).title).toBe(evil);
    expect((await w.call("cards_list", { search: "DROP TABLE" })).items.map((x: any) => x.key)).toEqual([c.key]);
    expect((await w.err("cards_create", { projectId: "WEB", title: "x".repeat(256) })).code).toBe("validation");
    expect((await w.err("cards_create", { projectId: "WEB", title: "two\nlines" })).code).toBe("validation");
    expect((await w.err("cards_create", { projectId: "WEB", title: "   " })).code).toBe("validation");
    expect((await w.err("cards_create", { projectId: "WEB", title: "x", estimate: 1e12 })).code).toBe("validation");
    expect((await w.err("cards_create", { projectId: "WEB", title: "x", priority: 5 })).code).toBe("validation");
    expect((await w.err("cards_get", { id: "WEB-99999999" })).code).toBe("not_found");
    expect((await w.err("cards_get", { id: Number.MAX_SAFE_INTEGER })).code).toBe("not_found");
    expect((await w.err("cards_get", { id: "WEB 1; --" })).code).toBe("validation");
    expect((await w.err("cards_get", { id: 0 })).code).toBe("not_found");
    expect((await w.err("cards_create", { projectId: "WEB", title: "x", dueDate: "2026-13-01" })).code).toBe(
      "validation",
    );
  });

  test("refused writes change nothing", async () => {
    const before = (await w.store.query<{ n: number }>("SELECT count(*) AS n FROM cards"))[0]!.n;
    const commits = w.store.changes.commits;
    await w.err("cards_create", { projectId: "WEB", title: "x", labels: ["Nope"] });
    await w.err("cards_update", { id: "WEB-1", assignees: [w.users.outsider] });
    expect((await w.store.query<{ n: number }>("SELECT count(*) AS n FROM cards"))[0]!.n).toBe(before);
    expect(w.store.changes.commits).toBe(commits);
    const assigned = await w.deps.db
      .select()
      .from(events)
      .where(and(eq(events.type, "card.assigned")));
    expect(assigned.every((e) => !(e.data as any).assigneeUserIds.includes(w.users.outsider))).toBe(true);
  });
});
