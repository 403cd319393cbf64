/**
 * Removing (or leaving as) a member who still owns open work, over the
 * wire: the refusal lists their open cards, led projects and open tickets
 * and changes nothing; reassignTo hands all of it to another owner or admin
 * in the removal's transaction (who is notified, as for any assignment);
 * force leaves it unassigned; done and solved work stays as it was. The
 * portal's team page offers the same choice in a form.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { events } from "../../src/core/tables";
import { memberships } from "../../src/domains/accounts/tables";
import { notifications } from "../../src/domains/notifications/tables";
import { cardAssignees, cards, projects } from "../../src/domains/projects/tables";
import { tickets } from "../../src/domains/tickets/tables";
import { addMember, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { pageText, readForms } from "../oauth/helpers";
import { makePeople, PASSWORD, type People, type Person } from "./world";

let w: People;
beforeAll(async () => {
  w = await makePeople();
});
afterAll(async () => await w?.stop());

/** Another member of Acme with a "*" key. */
async function member(email: string, name: string, role: "admin" | "viewer" = "admin"): Promise<Person> {
  const u = await createUser(w.s.deps, { email, name, password: PASSWORD });
  await addMember(w.s.deps, w.A.id, u.id, role);
  const k = await mintMcpKey(w.s.deps, { userId: u.id, scopes: ["*"], companyIds: [w.A.id] });
  return { id: u.id, email, client: await mcpClient(w.s.url, k.key), keyId: k.id };
}

const isMember = async (userId: number) =>
  (
    await w.s.deps.db
      .select()
      .from(memberships)
      .where(and(eq(memberships.companyId, w.A.id), eq(memberships.userId, userId)))
  ).length === 1;
async function assigneesOf(key: string) {
  const [pk, n] = key.split("-");
  const p = (
    await w.s.deps.db
      .select()
      .from(projects)
      .where(and(eq(projects.companyId, w.A.id), eq(projects.key, pk!)))
  )[0]!;
  const c = (
    await w.s.deps.db
      .select()
      .from(cards)
      .where(and(eq(cards.projectId, p.id), eq(cards.number, Number(n))))
  )[0]!;
  return (await w.s.deps.db.select().from(cardAssignees).where(eq(cardAssignees.cardId, c.id)))
    .map((r) => r.userId)
    .sort();
}
const leadOf = async (key: string) =>
  (
    await w.s.deps.db
      .select()
      .from(projects)
      .where(and(eq(projects.companyId, w.A.id), eq(projects.key, key)))
  )[0]!.leadUserId;
const ticketAssignee = async (n: number) =>
  (
    await w.s.deps.db
      .select()
      .from(tickets)
      .where(and(eq(tickets.companyId, w.A.id), eq(tickets.number, n)))
  )[0]!.assigneeId;

/** Gives `p` a led project, an open and a done card, an open and a solved ticket; returns their keys and numbers. */
async function workFor(p: Person, key: string) {
  await w.ok(w.owner, "projects_create", { name: `Project ${key}`, key, lead: p.email });
  await w.ok(w.owner, "cards_create", { projectId: key, title: "Open card", assignees: [p.email, w.owner.email] });
  await w.ok(w.owner, "cards_create", { projectId: key, title: "Finished card", assignees: [p.email] });
  await w.ok(w.owner, "cards_move", { id: `${key}-2`, columnId: "Done" });
  const open = await w.ok(w.owner, "tickets_create", {
    subject: `Help ${key}`,
    requesterEmail: "client@example.test",
    body: "Please help.",
    assigneeId: p.email,
  });
  const solved = await w.ok(w.owner, "tickets_create", {
    subject: `Solved ${key}`,
    requesterEmail: "client@example.test",
    body: "Thanks.",
    assigneeId: p.email,
  });
  await w.ok(w.owner, "tickets_set_status", { id: solved.id, status: "solved" });
  return { open: open.id as number, solved: solved.id as number };
}

describe("removing a member who owns open work", () => {
  test("refused with the list of their work, changing nothing; bad successors are refused by name", async () => {
    const dan = await member("dan@agency.example", "Dan Dev");
    const t = await workFor(dan, "WEB");
    const before = w.changes();
    const msg = await w.err(w.owner, "team_members_remove", { email: "dan@agency.example" });
    expect(msg).toContain(
      `Dan Dev still owns open work in Acme Agency: 1 open card (WEB-1); lead of project WEB; 1 open ticket (#${t.open}).`,
    );
    expect(msg).toContain("reassignTo");
    expect(msg).toContain("force: true");
    expect(w.changes()).toBe(before);
    expect(await isMember(dan.id)).toBe(true);
    expect(await w.err(w.owner, "team_members_remove", { userId: dan.id, reassignTo: w.viewer.email })).toContain(
      "Vic Viewer is a viewer of Acme Agency and cannot take over work",
    );
    expect(await w.err(w.owner, "team_members_remove", { userId: dan.id, reassignTo: dan.id })).toContain(
      "someone other than the member who leaves",
    );
    expect(await w.err(w.owner, "team_members_remove", { userId: dan.id, reassignTo: w.stranger.email })).toContain(
      "reassignTo: sam@rival.example is not a member",
    );
    expect(await w.err(dan, "team_leave", {})).toContain("You still own open work in Acme Agency");
    expect(w.changes()).toBe(before);
  });

  test("reassignTo hands over open cards, led projects and open tickets in one step; the new owner is notified; done work is left as it was", async () => {
    const eve = await member("eve@agency.example", "Eve Engineer");
    const bea = await member("bea@agency.example", "Bea Backup");
    const t = await workFor(eve, "APP");
    const r = await w.ok(w.owner, "team_members_remove", { userId: eve.id, reassignTo: "bea@agency.example" });
    expect(r).toEqual({
      userId: eve.id,
      email: "eve@agency.example",
      status: "removed",
      handedOver: {
        to: { userId: bea.id, email: "bea@agency.example" },
        cards: ["APP-1"],
        leads: ["APP"],
        tickets: [`#${t.open}`],
      },
    });
    expect(await isMember(eve.id)).toBe(false);
    expect(await assigneesOf("APP-1")).toEqual([w.owner.id, bea.id].sort());
    expect(await assigneesOf("APP-2")).toEqual([eve.id]);
    expect(await leadOf("APP")).toBe(bea.id);
    expect(await ticketAssignee(t.open)).toBe(bea.id);
    expect(await ticketAssignee(t.solved)).toBe(eve.id);
    const ev = (await w.s.deps.db.select().from(events).where(eq(events.type, "member.removed"))).at(-1)!;
    expect(ev.data).toEqual({
      userId: eve.id,
      email: "eve@agency.example",
      role: "admin",
      left: false,
      handedOverToUserId: bea.id,
    });
    await w.settle();
    const told = await w.s.deps.db.select().from(notifications).where(eq(notifications.userId, bea.id));
    expect(told.map((n) => [n.type, n.title]).sort()).toEqual([
      ["card.assigned", "APP-1 Open card"],
      ["ticket.assigned", `#${t.open} Help APP`],
    ]);
  });

  test("force removes and leaves the work unassigned; leaving with force works the same", async () => {
    const fay = await member("fay@agency.example", "Fay Freelance");
    const t = await workFor(fay, "OPS");
    const r = await w.ok(w.owner, "team_members_remove", { email: "fay@agency.example", force: true });
    expect(r.handedOver).toEqual({ to: null, cards: ["OPS-1"], leads: ["OPS"], tickets: [`#${t.open}`] });
    expect(await assigneesOf("OPS-1")).toEqual([w.owner.id]);
    expect(await leadOf("OPS")).toBeNull();
    expect(await ticketAssignee(t.open)).toBeNull();
    const gus = await member("gus@agency.example", "Gus Gone");
    await w.ok(w.owner, "cards_create", { projectId: "OPS", title: "Gus's card", assignees: [gus.email] });
    expect((await w.ok(gus, "team_leave", { force: true })).handedOver).toEqual({
      to: null,
      cards: ["OPS-3"],
      leads: [],
      tickets: [],
    });
    expect(await isMember(gus.id)).toBe(false);
  });

  test("a member without open work is removed as before, with no hand-over in the answer", async () => {
    const hal = await member("hal@agency.example", "Hal Helper", "viewer");
    expect(await w.ok(w.admin, "team_members_remove", { userId: hal.id, reassignTo: w.owner.email })).toEqual({
      userId: hal.id,
      email: "hal@agency.example",
      status: "removed",
    });
  });

  test("the portal's team page: Remove answers with the open work and a form to hand it over; sending it removes and hands over", async () => {
    const ivy = await member("ivy@agency.example", "Ivy Intern");
    const t = await workFor(ivy, "CMS");
    const b = await w.browser(w.owner);
    const csrf = await b.csrf("/team");
    const refused = await b.post(`/team/${ivy.id}/remove`, { _csrf: csrf });
    expect(refused.status).toBe(409);
    const html = await refused.text();
    expect(await pageText(html)).toContain(
      `Ivy Intern still owns open work in Acme Agency: 1 open card (CMS-1); lead of project CMS; 1 open ticket (#${t.open})`,
    );
    const form = (await readForms(html)).find(
      (f) => f.action === `/team/${ivy.id}/remove` && f.fields.some((x) => x.name === "reassignTo"),
    )!;
    expect(form).toBeDefined();
    // Viewers and Ivy herself are not offered.
    const offered = [
      .../<select id="reassignTo"[^>]*>(.*?)<\/select>/s.exec(html)![1]!.matchAll(/<option value="(\d*)"/g),
    ].map((m) => m[1]);
    expect(offered).not.toContain(String(w.viewer.id));
    expect(offered).not.toContain(String(ivy.id));
    expect(offered).toContain(String(w.admin.id));
    expect(offered.at(-1)).toBe("");
    expect(await isMember(ivy.id)).toBe(true);
    const done = await b.post(`/team/${ivy.id}/remove`, { _csrf: csrf, handover: "1", reassignTo: String(w.admin.id) });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("/team?done=removed");
    expect(await isMember(ivy.id)).toBe(false);
    expect(await leadOf("CMS")).toBe(w.admin.id);
    expect(await ticketAssignee(t.open)).toBe(w.admin.id);
  });
});
