/**
 * Brain records: every kind's create and update, meetings whose action
 * items become tasks, relationships read both ways, backlinks from
 * [[links]] and @mentions, history by credential and restore, deletes,
 * merging people, the org tree, glossary lookups; refusals (bad input,
 * viewers, other tenants) that change nothing; racing writers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { row, rows } from "../harness";
import { makeWorld, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

const events = async (type: string) =>
  (
    await rows<{ data: unknown; entity_id: number }>(
      w.deps,
      "SELECT data, entity_id FROM events WHERE type = ? ORDER BY id",
      type,
    )
  ).map((r) => ({
    id: Number(r.entity_id),
    data: typeof r.data === "string" ? JSON.parse(r.data) : r.data,
  }));

describe("kinds", () => {
  test("every kind is created, read back with its fields, and listed", async () => {
    const ana = await w.call("brain_people_create", {
      title: "Ana Silva",
      email: "Ana@Northwind.test",
      jobTitle: "Head of Marketing",
      internal: false,
    });
    const unit = await w.call("brain_org_units_create", { title: "Design", members: [ana.id] });
    const goal = await w.call("brain_goals_create", {
      title: "Grow retainers",
      owner: "ana@northwind.test",
      targetDate: "2026-12-31",
      status: "on_track",
      progress: 30,
    });
    const ini = await w.call("brain_initiatives_create", {
      title: "Retainer packages",
      owner: ana.id,
      goals: ["Grow retainers"],
    });
    const pb = await w.call("brain_playbooks_create", {
      title: "New client",
      steps: [{ title: "Kickoff" }, { title: "Access", detail: "Portal and drive" }],
    });
    const term = await w.call("brain_glossary_create", {
      title: "Retainer",
      body: "A monthly fee.",
      synonyms: ["hours bank"],
    });
    const task = await w.call("brain_tasks_create", {
      title: "Draft packages",
      assignee: "Ana Silva",
      due: "2026-04-01",
    });
    const g = await w.call("brain_records_get", { id: goal.id });
    expect(g).toMatchObject({
      kind: "goal",
      title: "Grow retainers",
      status: "on_track",
      progress: 30,
      targetDate: "2026-12-31",
      owner: { id: ana.id, title: "Ana Silva" },
      version: 1,
    });
    expect(g.relations).toEqual([
      {
        id: expect.any(Number),
        type: "served_by",
        direction: "in",
        record: { id: ini.id, kind: "initiative", title: "Retainer packages" },
      },
    ]);
    const p = await w.call("brain_records_get", { id: ana.id });
    expect(p.email).toBe("ana@northwind.test");
    expect(p.relations.map((r: { type: string; record: { id: number } }) => [r.type, r.record.id])).toEqual([
      ["works_in", unit.id],
    ]);
    const u = await w.call("brain_records_get", { id: "Design", kind: "org_unit" });
    expect(u.relations.map((r: { type: string }) => r.type)).toEqual(["has_member"]);
    expect((await w.call("brain_records_get", { id: pb.id })).steps).toEqual([
      { title: "Kickoff" },
      { title: "Access", detail: "Portal and drive" },
    ]);
    expect((await w.call("brain_records_get", { id: term.id })).synonyms).toEqual(["hours bank"]);
    expect(await w.call("brain_records_get", { id: `#${task.id}` })).toMatchObject({
      status: "open",
      due: "2026-04-01",
      assignee: { id: ana.id, title: "Ana Silva" },
    });
    const tasks = await w.call("brain_records_list", { kind: "task", person: "ana@northwind.test" });
    expect(tasks.items.map((t: { id: number }) => t.id)).toEqual([task.id]);
    const owned = await w.call("brain_records_list", { person: ana.id, sort: "due" });
    expect(owned.items.map((t: { title: string }) => t.title)).toEqual([
      "Draft packages",
      "Grow retainers",
      "Retainer packages",
    ]);
  });

  test("updates: fields change, null clears, version counts, echo says what changed", async () => {
    const t = await w.call("brain_tasks_create", { title: "Call Bob", due: "2026-03-10" });
    const u = await w.call("brain_tasks_update", { id: t.id, status: "done", due: null });
    expect(u).toEqual({ id: t.id, kind: "task", title: "Call Bob", version: 2, changed: ["status", "due"] });
    const again = await w.call("brain_tasks_update", { id: t.id, status: "done" });
    expect(again.changed).toEqual([]);
    expect(again.version).toBe(2);
    expect(await w.call("brain_records_get", { id: t.id })).toMatchObject({ status: "done", due: null });
  });

  test("meetings: attendees become people, action items become tasks linked to the meeting", async () => {
    const m = await w.call("brain_meetings_create", {
      title: "Kickoff with Globex",
      at: "2026-03-02T10:00:00Z",
      attendees: ["Hank Scorpio", "hank@globex.test", "Ana Silva"],
      decisions: ["Launch in April"],
      actionItems: [
        { text: "Send the proposal", assignee: "Hank Scorpio", due: "2026-03-09" },
        { text: "Book the studio" },
      ],
    });
    expect(m.tasksCreated.map((t: { title: string }) => t.title)).toEqual(["Send the proposal", "Book the studio"]);
    const got = await w.call("brain_records_get", { id: m.id });
    expect(got.actionItems).toEqual([
      { text: "Send the proposal", taskId: m.tasksCreated[0].id },
      { text: "Book the studio", taskId: m.tasksCreated[1].id },
    ]);
    expect(
      got.relations
        .filter((r: { type: string }) => r.type === "attendee")
        .map((r: { record: { title: string } }) => r.record.title),
    ).toEqual(["Hank Scorpio", "hank", "Ana Silva"]);
    expect(got.relations.filter((r: { type: string }) => r.type === "action_item")).toHaveLength(2);
    const task = await w.call("brain_records_get", { id: m.tasksCreated[0].id });
    expect(task).toMatchObject({ kind: "task", due: "2026-03-09", assignee: { title: "Hank Scorpio" } });
    expect(task.backlinks).toEqual([]);
    // Updating keeps the tasks of items still there and makes tasks for new ones only.
    const u = await w.call("brain_meetings_update", {
      id: m.id,
      actionItems: [{ text: "Book the studio" }, { text: "Share the moodboard" }],
    });
    expect(u.tasksCreated.map((t: { title: string }) => t.title)).toEqual(["Share the moodboard"]);
    const created = await events("brain_record.created");
    expect(created.filter((e) => e.data.meetingId === m.id).map((e) => e.data.title)).toEqual([
      "Send the proposal",
      "Book the studio",
      "Share the moodboard",
    ]);
  });

  test("topics by name are created once and tag records both ways", async () => {
    const a = await w.call("brain_notes_create", { title: "SEO basics", topics: ["SEO", "Content"] });
    const b = await w.call("brain_notes_create", { title: "SEO audit", topics: ["seo"] });
    const topic = await w.call("brain_records_get", { id: "SEO", kind: "topic" });
    expect(topic.relations.map((r: { type: string; record: { id: number } }) => [r.type, r.record.id])).toEqual([
      ["subject_of", a.id],
      ["subject_of", b.id],
    ]);
    expect((await w.call("brain_records_list", { topic: "SEO" })).total).toBe(2);
    expect((await w.err("brain_topics_create", { title: "Seo" })).code).toBe("conflict");
  });
});

describe("links", () => {
  test("typed relations are listed both ways and removed", async () => {
    const d1 = await w.call("brain_documents_create", { title: "Brand guide v1" });
    const d2 = await w.call("brain_documents_create", { title: "Brand guide v2" });
    const r = await w.call("brain_relations_add", { fromId: "Brand guide v2", type: "supersedes", toId: d1.id });
    expect(r).toEqual({ fromId: d2.id, type: "supersedes", toId: d1.id, status: "related", changed: true });
    expect((await w.call("brain_relations_add", { fromId: d2.id, type: "supersedes", toId: d1.id })).changed).toBe(
      false,
    );
    expect((await w.call("brain_relations_list", { id: d1.id })).relations).toEqual([
      {
        id: expect.any(Number),
        type: "superseded_by",
        direction: "in",
        record: { id: d2.id, kind: "document", title: "Brand guide v2" },
      },
    ]);
    expect((await w.call("brain_relations_list", { id: d2.id, type: "supersedes" })).relations).toHaveLength(1);
    await w.call("brain_relations_remove", { fromId: d2.id, type: "supersedes", toId: d1.id });
    expect((await w.call("brain_relations_list", { id: d1.id })).relations).toEqual([]);
    expect((await w.err("brain_relations_add", { fromId: d1.id, type: "supersedes", toId: d1.id })).message).toContain(
      "itself",
    );
    expect((await w.err("brain_relations_add", { fromId: d1.id, type: "eats", toId: d2.id })).code).toBe("validation");
  });

  test("backlinks from [[Title]], [[#id]] and @email, including links written before the target existed", async () => {
    const early = await w.call("brain_notes_create", {
      title: "Idea",
      body: "Ties into [[Pricing FAQ]] and @ana@northwind.test.",
    });
    const faq = await w.call("brain_documents_create", {
      title: "Pricing FAQ",
      body: "See [[#" + early.id + "|the idea]].",
    });
    const got = await w.call("brain_records_get", { id: faq.id });
    expect(got.backlinks).toEqual([{ id: early.id, kind: "note", title: "Idea" }]);
    expect((await w.call("brain_records_get", { id: early.id })).backlinks).toEqual([
      { id: faq.id, kind: "document", title: "Pricing FAQ" },
    ]);
    expect(
      (await w.call("brain_records_get", { id: "ana@northwind.test".replace(/.*/, "Ana Silva") })).backlinks.map(
        (b: { id: number }) => b.id,
      ),
    ).toContain(early.id);
    const ev = (await events("brain_record.created")).find((e) => e.id === faq.id)!;
    expect(ev.data.mentionedIds).toEqual([early.id]);
  });
});

describe("history and restore", () => {
  test("every version with who and which credential; restore makes an old one current as a new version", async () => {
    const d = await w.call("brain_documents_create", { title: "Tone of voice", body: "Friendly." });
    await w.call("brain_documents_update", { id: d.id, body: "Friendly and brief." }, w.ctx({ key: "agent" }));
    await w.call("brain_documents_update", { id: d.id, title: "Voice and tone" });
    const h = await w.call("brain_records_history", { id: d.id });
    expect(
      h.items.map(
        (x: {
          version: number;
          action: string;
          changed: string[];
          credential: { name: string };
          by: { name: string };
        }) => [x.version, x.action, x.changed, x.credential.name, x.by.name],
      ),
    ).toEqual([
      [3, "update", ["title"], "test key", "Ada Owner"],
      [2, "update", ["body"], "agent key", "Priya Shah"],
      [1, "create", ["title", "body"], "test key", "Ada Owner"],
    ]);
    expect((await w.call("brain_records_history", { id: d.id, version: 1 })).body).toBe("Friendly.");
    const r = await w.call("brain_records_restore", { id: d.id, version: 1 });
    expect(r).toMatchObject({ version: 4, title: "Tone of voice", restoredFrom: 1, changed: ["title", "body"] });
    expect(await w.call("brain_records_get", { id: d.id })).toMatchObject({
      title: "Tone of voice",
      body: "Friendly.",
      version: 4,
    });
    expect((await w.err("brain_records_restore", { id: d.id, version: 9 })).code).toBe("not_found");
    const audit = await rows(
      w.deps,
      "SELECT action, credential_id FROM audit_log WHERE entity_type = 'brain_record' AND entity_id = ? ORDER BY id",
      d.id,
    );
    expect(audit.map((a) => a.action)).toEqual([
      "brain.document.create",
      "brain.document.update",
      "brain.document.update",
      "brain.document.restore",
    ]);
    expect(Number(audit[1]!.credential_id)).toBe(w.agentKeyId);
  });

  test("deleting a person leaves their tasks unassigned, as a new version", async () => {
    const p = await w.call("brain_people_create", { title: "Leaving Person" });
    const t = await w.call("brain_tasks_create", { title: "Their task", assignee: p.id });
    await w.call("brain_records_delete", { id: p.id });
    expect(await w.call("brain_records_get", { id: t.id })).toMatchObject({ version: 2 });
    expect((await w.call("brain_records_get", { id: t.id })).assignee).toBeUndefined();
  });

  test("deleting keeps the history readable", async () => {
    const n = await w.call("brain_notes_create", { title: "Temp" });
    expect(await w.call("brain_records_delete", { id: n.id })).toEqual({ id: n.id, status: "deleted" });
    expect((await w.err("brain_records_get", { id: n.id })).code).toBe("not_found");
    const h = await w.call("brain_records_history", { id: n.id });
    expect(h.items.map((x: { action: string }) => x.action)).toEqual(["delete", "create"]);
  });
});

describe("people, org units, glossary", () => {
  test("org units form a tree with members; a cycle is refused", async () => {
    const agency = await w.call("brain_org_units_create", { title: "Agency" });
    const studio = await w.call("brain_org_units_create", { title: "Studio", parent: agency.id });
    const web = await w.call("brain_org_units_create", { title: "Web team", parent: "Studio" });
    await w.call("brain_people_create", { title: "Leo Martin", orgUnits: ["Web team"] });
    const tree = await w.call("brain_org_units_tree", { root: "Agency" });
    expect(tree.units[0]).toMatchObject({
      title: "Agency",
      children: [{ title: "Studio", children: [{ title: "Web team", members: [{ title: "Leo Martin" }] }] }],
    });
    expect((await w.err("brain_org_units_update", { id: agency.id, parent: web.id })).message).toContain(
      "org units form a tree",
    );
    expect((await w.err("brain_org_units_update", { id: studio.id, parent: studio.id })).message).toContain("tree");
  });

  test("glossary lookup by term or synonym, case-insensitive", async () => {
    await w.call("brain_glossary_create", {
      title: "Sprint",
      body: "Two weeks of planned work.",
      synonyms: ["Iteration"],
    });
    expect(
      (await w.call("brain_glossary_lookup", { term: "iteration" })).matches.map((m: { term: string }) => m.term),
    ).toEqual(["Sprint"]);
    expect((await w.call("brain_glossary_lookup", { term: "SPRINT" })).matches).toHaveLength(1);
    expect((await w.call("brain_glossary_lookup", { term: "velocity" })).matches).toEqual([]);
  });

  test("a person's email is unique; updating to a taken one is a conflict", async () => {
    await w.call("brain_people_create", { title: "Cleo", email: "cleo@x.test" });
    const dana = await w.call("brain_people_create", { title: "Dana" });
    expect((await w.err("brain_people_create", { title: "Cleo again", email: "CLEO@x.test" })).code).toBe("conflict");
    expect((await w.err("brain_people_update", { id: dana.id, email: "cleo@x.test" })).code).toBe("conflict");
    expect((await w.err("brain_people_create", { title: "Bad", email: "not-an-email" })).message).toContain("email");
  });
});

describe("refusals change nothing", () => {
  const count = async () => Number((await row<{ n: number }>(w.deps, "SELECT count(*) AS n FROM brain_records"))!.n);

  test("bad input is a clear validation error", async () => {
    const before = await count();
    const cases: [string, Record<string, unknown>, RegExp][] = [
      ["brain_notes_create", { title: "" }, /blank|Invalid/],
      ["brain_notes_create", { title: "a\u0000b" }, /control/],
      ["brain_notes_create", { title: "x", body: "y".repeat(200_001) }, /200000|length/i],
      ["brain_meetings_create", { title: "No time" }, /at/],
      ["brain_meetings_create", { title: "Bad time", at: "tomorrow" }, /ISO date-time/],
      ["brain_tasks_create", { title: "x", due: "2026-02-30" }, /date/],
      ["brain_tasks_create", { title: "x", status: "later" }, /status|Invalid/],
      ["brain_goals_create", { title: "x", progress: 101 }, /100|Invalid/],
      ["brain_tasks_create", { title: "x", assignee: "Nobody Known" }, /No person/],
      ["brain_notes_create", { title: "x", topics: [{ a: 1 }] }, /record id/],
      ["brain_notes_create", { title: "x", extra: 1 }, /extra|Invalid key/i],
      ["brain_records_get", { id: 2 ** 53 }, /record id|not found/],
    ];
    for (const [tool, args, re] of cases) {
      const e = await w.err(tool, args);
      expect(["validation", "not_found"]).toContain(e.code);
      expect(e.message).toMatch(re);
    }
    expect(await count()).toBe(before);
  });

  test("a viewer reads but cannot write; a read-only key cannot write; another company's ids are not found", async () => {
    const n = await w.call("brain_notes_create", { title: "Private plan" });
    const viewer = w.ctx({ role: "viewer", as: w.users.leo });
    expect((await w.call("brain_records_get", { id: n.id }, viewer)).title).toBe("Private plan");
    expect((await w.err("brain_notes_update", { id: n.id, title: "Hacked" }, viewer)).code).toBe("forbidden");
    expect((await w.err("brain_notes_create", { title: "x" }, w.ctx({ scopes: ["brain:read"] }))).code).toBe(
      "forbidden",
    );
    const other = w.ctx({ company: "other" });
    for (const [tool, args] of [
      ["brain_records_get", { id: n.id }],
      ["brain_notes_update", { id: n.id, title: "x" }],
      ["brain_records_delete", { id: n.id }],
      ["brain_records_history", { id: n.id }],
      ["brain_relations_list", { id: n.id }],
    ] as const) {
      expect((await w.err(tool, args, other)).code).toBe("not_found");
    }
    expect((await w.err("brain_records_get", { id: "Private plan" }, other)).code).toBe("not_found");
    expect((await w.call("brain_records_get", { id: n.id })).title).toBe("Private plan");
  });

  test("naming a record of the wrong kind says what it is", async () => {
    const n = await w.call("brain_notes_create", { title: "Just a note" });
    expect((await w.err("brain_tasks_update", { id: n.id, status: "done" })).message).toBe(
      `Record ${n.id} is a note (“Just a note”), not a task.`,
    );
  });
});

describe("concurrency", () => {
  test("racing creates of one topic name: one wins, the others are told it exists", async () => {
    const results = await Promise.allSettled(
      Array.from({ length: 6 }, () => w.call("brain_topics_create", { title: "Racing topic" })),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    for (const r of results.filter((r) => r.status === "rejected"))
      expect((r as PromiseRejectedResult).reason.code).toBe("conflict");
    expect(
      Number(
        (await row<{ n: number }>(w.deps, "SELECT count(*) AS n FROM brain_records WHERE title = 'Racing topic'"))!.n,
      ),
    ).toBe(1);
  });

  test("racing updates of one document: every applied update is one version; none lost silently", async () => {
    const d = await w.call("brain_documents_create", { title: "Shared doc", body: "0" });
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => w.call("brain_documents_update", { id: d.id, body: `v${i + 1}` })),
    );
    const ok = results.filter((r) => r.status === "fulfilled").length;
    for (const r of results.filter((r) => r.status === "rejected"))
      expect((r as PromiseRejectedResult).reason.code).toBe("conflict");
    const got = await w.call("brain_records_get", { id: d.id });
    expect(got.version).toBe(1 + ok);
    const h = await w.call("brain_records_history", { id: d.id, limit: 100 });
    expect(h.total).toBe(1 + ok);
  });
});
