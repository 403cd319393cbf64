/**
 * Projects, members, labels and milestones: happy paths, errors a model can
 * act on, keys (generated, renamed, former keys still resolving), archive,
 * deletion answering what depends on it, tenancy and roles in the verbs.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { auditLog, events } from "../../src/core/tables";
import { eq } from "drizzle-orm";
import { makeWorld, type World } from "./world";

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(() => w.close());

const eventsOf = async (type: string) =>
  (await w.deps.db.select().from(events).where(eq(events.type, type))).map((e) => e.data as any);

describe("projects", () => {
  test("create: key from the name, default board, members and lead; event and audit", async () => {
    const p = await w.call("projects_create", {
      name: "Northwind Website",
      lead: "priya@acme.test",
      members: ["me"],
      startDate: "2026-03-01",
      targetDate: "2026-06-30",
      timeZone: "europe/london",
    });
    expect(p.key).toBe("NW");
    expect(p.board.columns.map((c: any) => `${c.name}:${c.stateGroup}`)).toEqual([
      "Backlog:backlog",
      "To do:unstarted",
      "In progress:started",
      "In review:started",
      "Done:done",
      "Cancelled:cancelled",
    ]);
    const got = await w.call("projects_get", { id: "nw" });
    expect(got).toMatchObject({
      id: p.id,
      key: "NW",
      timeZone: "Europe/London",
      lead: { id: w.users.priya },
      status: "active",
    });
    expect(got.members.map((m: any) => m.email)).toEqual(["ada@acme.test", "priya@acme.test"]);
    expect((await eventsOf("project.created")).at(-1)).toEqual({
      key: "NW",
      name: "Northwind Website",
      leadUserId: w.users.priya,
      memberUserIds: [w.users.owner, w.users.priya],
    });
    const a = await w.deps.db.select().from(auditLog).where(eq(auditLog.action, "projects.create"));
    expect(a.at(-1)).toMatchObject({
      companyId: w.companyId,
      userId: w.users.owner,
      entityType: "project",
      entityId: p.id,
    });
  });

  test("a generated key that is taken moves on and says so; a given one is refused", async () => {
    const again = await w.call("projects_create", { name: "New World" });
    expect(again.key).toBe("NW2");
    expect(again.note).toContain("key NW is taken");
    const e = await w.err("projects_create", { name: "X", key: "nw" });
    expect(e.code).toBe("conflict");
    expect(e.message).toBe("Project key NW is already used in Acme; choose another.");
    expect((await w.err("projects_create", { name: "Y", key: "1AB" })).message).toContain("like WEB");
  });

  test("renaming the key keeps old card keys working and the old key reserved", async () => {
    await w.call("projects_create", { name: "Shop", key: "OLD" });
    const c = await w.call("cards_create", { projectId: "OLD", title: "Cart" });
    expect(c.key).toBe("OLD-1");
    expect(await w.call("projects_update", { id: "OLD", key: "SHOP" })).toMatchObject({
      key: "SHOP",
      changed: ["key"],
    });
    expect((await w.call("cards_get", { id: "OLD-1" })).key).toBe("SHOP-1");
    expect((await w.call("projects_get", { id: "OLD" })).key).toBe("SHOP");
    expect((await w.err("projects_create", { name: "Z", key: "OLD" })).message).toContain("already used");
    expect(await w.call("projects_update", { id: "SHOP", name: "Shop" })).toMatchObject({ changed: [] });
  });

  test("update validates dates and time zones; list filters and counts", async () => {
    expect((await w.err("projects_update", { id: "NW", targetDate: "2026-01-01" })).message).toBe(
      "targetDate must be on or after startDate.",
    );
    expect((await w.err("projects_update", { id: "NW", timeZone: "Europe/Nowhere" })).message).toContain(
      "not an IANA time zone",
    );
    expect((await w.err("projects_update", { id: "NW", startDate: "2026-02-30" })).message).toContain(
      "real calendar date",
    );
    await w.call("projects_update", { id: "NW", health: "at_risk", status: "active" });
    const list = await w.call("projects_list", { search: "north" });
    expect(list.items.map((p: any) => p.key)).toEqual(["NW"]);
    expect(list.items[0]).toMatchObject({
      health: "at_risk",
      lead: { id: w.users.priya, name: "Priya Shah" },
      cards: 0,
    });
  });

  test("archive and restore; archived projects take no new cards and leave the default list", async () => {
    await w.call("projects_create", { name: "Dormant", key: "DOR" });
    expect(await w.call("projects_archive", { id: "DOR" })).toMatchObject({ archived: true, changed: true });
    expect(await w.call("projects_archive", { id: "DOR" })).toMatchObject({ changed: false });
    expect((await w.call("projects_list", {})).items.map((p: any) => p.key)).not.toContain("DOR");
    expect((await w.call("projects_list", { archived: true })).items.map((p: any) => p.key)).toEqual(["DOR"]);
    expect((await w.err("cards_create", { projectId: "DOR", title: "x" })).message).toContain("archived");
    await w.call("projects_archive", { id: "DOR", archived: false });
    expect((await w.call("cards_create", { projectId: "DOR", title: "Back" })).key).toBe("DOR-1");
  });

  test("delete answers what depends on it; force deletes it all; an empty project just goes", async () => {
    await w.call("sprints_create", { projectId: "DOR", startDate: "2026-03-02", endDate: "2026-03-06" });
    await w.call("time_logs_create", { cardId: "DOR-1", minutes: 45 });
    const e = await w.err("projects_delete", { id: "DOR" });
    expect(e.code).toBe("conflict");
    expect(e.message).toBe(
      "Project DOR still holds 1 cards (1 open), 1 sprints, 1 time logs (0.8 h). Archive it instead (projects_archive), or pass force: true to delete it with all of that.",
    );
    expect(e.details).toMatchObject({ cards: 1, openCards: 1, sprints: 1, timeLogs: 1 });
    const gone = await w.call("projects_delete", { id: "DOR", force: true });
    expect(gone).toMatchObject({
      key: "DOR",
      status: "deleted",
      deletedWithIt: ["1 cards (1 open)", "1 sprints", "1 time logs (0.8 h)"],
    });
    expect((await w.err("cards_get", { id: "DOR-1" })).code).toBe("not_found");
    const rows = await w.store.query<{ n: number }>("SELECT count(*) AS n FROM card_activity WHERE project_id = ?", [
      gone.id,
    ]);
    expect(Number(rows[0]!.n)).toBe(0);
    const empty = await w.call("projects_create", { name: "Empty", key: "EMP" });
    expect(await w.call("projects_delete", { id: empty.id })).toEqual({ id: empty.id, key: "EMP", status: "deleted" });
  });
});

describe("members, labels, milestones", () => {
  test("members: company members only, by id, email or me; idempotent", async () => {
    expect(
      await w.call("project_members_add", { projectId: "NW", users: [w.users.leo, "LEO@acme.test"] }),
    ).toMatchObject({ added: ["leo@acme.test"], members: 3 });
    expect(await w.call("project_members_add", { projectId: "NW", users: [w.users.leo] })).toMatchObject({ added: [] });
    const e = await w.err("project_members_add", { projectId: "NW", users: [w.users.outsider] });
    expect(e.message).toBe(`User ${w.users.outsider} is not a member of Acme; only its members can be named here.`);
    expect((await w.err("project_members_add", { projectId: "NW", users: ["mallory@rival.test"] })).message).toContain(
      "is not a member of Acme",
    );
    expect((await w.err("project_members_add", { projectId: "NW", users: ["Priya"] })).message).toBe(
      '"Priya" is not a user id, an email or "me".',
    );
    expect(await w.call("project_members_remove", { projectId: "NW", users: ["leo@acme.test"] })).toMatchObject({
      removed: ["leo@acme.test"],
    });
  });

  test("labels: unique per project regardless of case, colours, delete takes them off cards", async () => {
    const bug = await w.call("project_labels_create", { projectId: "NW", name: "Bug", color: "#DC2626" });
    expect(bug).toMatchObject({ name: "Bug", color: "#dc2626" });
    const design = await w.call("project_labels_create", { projectId: "NW", name: "Design" });
    expect(design.color).toMatch(/^#[0-9a-f]{6}$/);
    expect((await w.err("project_labels_create", { projectId: "NW", name: "bug" })).message).toBe(
      `This project already has a label "Bug" (label ${bug.id}).`,
    );
    expect((await w.err("project_labels_create", { projectId: "NW", name: "Red", color: "red" })).message).toContain(
      "#2563eb",
    );
    await w.call("cards_create", { projectId: "NW", title: "Broken nav", labels: ["bug", "DESIGN"] });
    expect((await w.call("cards_get", { id: "NW-1" })).labels.map((l: any) => l.name)).toEqual(["Bug", "Design"]);
    await w.call("project_labels_update", { id: design.id, name: "UX" });
    expect((await w.call("project_labels_list", { projectId: "NW" })).labels.map((l: any) => l.name)).toEqual([
      "Bug",
      "UX",
    ]);
    expect(await w.call("project_labels_delete", { id: bug.id })).toMatchObject({
      status: "deleted",
      removedFromCards: 1,
    });
    expect((await w.call("cards_get", { id: "NW-1" })).labels.map((l: any) => l.name)).toEqual(["UX"]);
  });

  test("milestones: progress counts done cards; deleting detaches cards", async () => {
    const m = await w.call("milestones_create", { projectId: "NW", name: "Beta", targetDate: "2026-04-30" });
    await w.call("cards_update", { id: "NW-1", milestoneId: m.id });
    await w.call("cards_create", { projectId: "NW", title: "Beta page", milestoneId: m.id, columnId: "done" });
    expect((await w.call("projects_get", { id: "NW" })).milestones).toEqual([
      { id: m.id, name: "Beta", targetDate: "2026-04-30", cards: 2, done: 1 },
    ]);
    await w.call("milestones_update", { id: m.id, targetDate: null });
    expect(await w.call("milestones_delete", { id: m.id })).toEqual({ id: m.id, status: "deleted", cardsDetached: 2 });
    expect((await w.call("cards_get", { id: "NW-1" })).milestone).toBeNull();
  });
});

describe("tenancy and roles in the verbs", () => {
  test("another company's project, label, milestone or card is not found, exactly like a missing one", async () => {
    const theirs = await w.call("projects_create", { name: "Secret", key: "SEC" }, w.ctx({ company: "other" }));
    const label = await w.call(
      "project_labels_create",
      { projectId: "SEC", name: "Hidden" },
      w.ctx({ company: "other" }),
    );
    const card = await w.call("cards_create", { projectId: "SEC", title: "Secret plan" }, w.ctx({ company: "other" }));
    expect(card.id).toBeGreaterThan(0);
    for (const [name, args, msg] of [
      ["projects_get", { id: theirs.id }, `Project ${theirs.id} not found.`],
      ["projects_get", { id: "SEC" }, "Project SEC not found."],
      ["cards_get", { id: "SEC-1" }, "Card SEC-1 not found."],
      // By numeric id, not only by key: the company is checked inside that lookup too.
      ["cards_get", { id: card.id }, `Card ${card.id} not found.`],
      ["cards_update", { id: card.id, title: "Mine now" }, `Card ${card.id} not found.`],
      ["project_labels_update", { id: label.id, name: "x" }, `Label ${label.id} not found.`],
      ["projects_delete", { id: theirs.id, force: true }, `Project ${theirs.id} not found.`],
    ] as const) {
      const e = await w.err(name, args as any);
      expect(e.code).toBe("not_found");
      expect(e.message).toBe(msg);
    }
    expect((await w.call("projects_list", {})).items.map((p: any) => p.key)).not.toContain("SEC");
    expect((await w.call("cards_list", { search: "Secret" })).total).toBe(0);
  });

  test("a viewer reads but cannot write; a read-only credential cannot write", async () => {
    const viewer = w.ctx({ role: "viewer", as: w.users.leo });
    expect((await w.call("projects_list", {}, viewer)).total).toBeGreaterThan(0);
    const e = await w.err("projects_create", { name: "Nope" }, viewer);
    expect(e.code).toBe("forbidden");
    expect(e.message).toContain("viewer");
    expect(
      (await w.err("cards_create", { projectId: "NW", title: "x" }, w.ctx({ scopes: ["projects:read"] }))).message,
    ).toContain("projects:write");
    expect((await w.err("projects_list", {}, w.ctx({ scopes: ["tickets:read"] }))).message).toContain("projects:read");
  });
});

describe("open work of a member (for the team domain's removal check)", () => {
  test("counts open cards assigned to them and the projects they lead, in this company only", async () => {
    const { openWorkOf } = await import("../../src/domains/projects/open-work");
    await w.call("projects_create", { name: "Work", key: "WRK", lead: "priya@acme.test" });
    await w.call("cards_create", { projectId: "WRK", title: "Open one", assignees: ["priya@acme.test"] });
    await w.call("cards_create", {
      projectId: "WRK",
      title: "Open two",
      assignees: ["priya@acme.test", "me"],
      columnId: "started",
    });
    await w.call("cards_create", {
      projectId: "WRK",
      title: "Finished",
      assignees: ["priya@acme.test"],
      columnId: "done",
    });
    const before = await openWorkOf(w.deps.db, w.companyId, w.users.priya);
    expect(before.keys).toEqual(expect.arrayContaining(["WRK-1", "WRK-2"]));
    expect(before.keys).not.toContain("WRK-3");
    expect(before.leads).toEqual(["NW", "WRK"]);
    expect(await openWorkOf(w.deps.db, w.otherCompanyId, w.users.priya)).toEqual({ openCards: 0, keys: [], leads: [] });
    await w.call("cards_move", { id: "WRK-1", columnId: "cancelled" });
    expect((await openWorkOf(w.deps.db, w.companyId, w.users.priya)).openCards).toBe(before.openCards - 1);
  });
});
