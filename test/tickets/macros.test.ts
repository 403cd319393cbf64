/**
 * Macros over the real wire (official SDK client against the real server):
 * saved per company, applied in one call (reply with its variables filled,
 * tags, assignee, status) with one audit row and each part's events; a part
 * that cannot apply refuses the whole naming the part, writing nothing;
 * tenancy, viewers and read-only keys.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { commits, jsonValue, rows, startTestServer, type TestServer } from "../harness";

let s: TestServer;
let owner: Client;
let viewer: Client;
let reader: Client;
let rival: Client;
let co: { id: number; name: string };
let ids: { owner: number; admin: number };

const tool = toolOk;
const fails = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = await callTool(c, name, args);
  expect(r.isError).toBe(true);
  return r.text;
};
const ticket = async (email: string, name = "Jo Requester") =>
  (await tool(owner, "tickets_create", { subject: "Refund", requesterEmail: email, requesterName: name, body: "Help" }))
    .id as number;
const eventsOf = async (number: number) =>
  (
    await rows(
      s.deps,
      "SELECT type, data FROM events WHERE company_id = ? AND entity_id = ? ORDER BY id",
      co.id,
      number,
    )
  ).map((e: any) => ({ type: e.type, data: jsonValue(e.data) as any }));

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "owner@agency.test", name: "Olivia Owner" });
  const a = await createUser(s.deps, { email: "admin@agency.test", name: "Adam Admin" });
  const v = await createUser(s.deps, { email: "viewer@agency.test" });
  const r = await createUser(s.deps, { email: "rita@rival.test" });
  co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  const other = await createCompany(s.deps, { name: "Rival", ownerUserId: r.id });
  await addMember(s.deps, co.id, a.id, "admin");
  await addMember(s.deps, co.id, v.id, "viewer");
  ids = { owner: u.id, admin: a.id };
  const key = async (userId: number, scopes: string[], companyId = co.id) =>
    (await mintMcpKey(s.deps, { userId, scopes, companyIds: [companyId] })).key;
  owner = await mcpClient(s.url, await key(u.id, ["tickets:*"]));
  viewer = await mcpClient(s.url, await key(v.id, ["tickets:*"]));
  reader = await mcpClient(s.url, await key(u.id, ["tickets:read"]));
  rival = await mcpClient(s.url, await key(r.id, ["tickets:*"], other.id));
});
afterAll(async () => {
  for (const c of [owner, viewer, reader, rival]) await c?.close();
  await s?.stop();
});

describe("macros", () => {
  test("apply: the reply with variables filled, tags, assignee and status at once; one audit row, each part's events", async () => {
    const m = await tool(owner, "ticket_macros_create", {
      name: "Refund sent",
      body: "Hi {{ticket.requester.first_name}}, the refund for {{ticket.number}} ({{ticket.subject}}) is on its way. {{agent.name}}",
      status: "pending",
      addTags: ["refund", "billing"],
      removeTags: ["triage"],
      assigneeId: "admin@agency.test",
    });
    expect(m).toMatchObject({
      name: "Refund sent",
      status: "pending",
      addTags: ["billing", "refund"],
      assigneeId: ids.admin,
    });
    expect((await tool(owner, "ticket_macros_list", {})).items.map((x: any) => x.name)).toEqual(["Refund sent"]);

    const id = await ticket("jo@shop.test");
    await tool(owner, "tickets_update", { id, addTags: ["triage", "vip"] });
    const auditsBefore = (await rows(s.deps, "SELECT count(*) AS n FROM audit_log"))[0]!.n;
    const r = await tool(owner, "tickets_apply_macro", { ticketId: `#${id}`, macroId: m.id });
    expect(r).toMatchObject({
      id,
      macroId: m.id,
      applied: ["tags", "assignee", "reply", "status"],
      status: "pending",
      assigneeId: ids.admin,
      tags: ["billing", "refund", "vip"],
    });
    expect(Number((await rows(s.deps, "SELECT count(*) AS n FROM audit_log"))[0]!.n)).toBe(Number(auditsBefore) + 1);
    const got = await tool(owner, "tickets_get", { id });
    expect(got.messages.at(-1)).toMatchObject({
      kind: "reply",
      author: "agent",
      body: `Hi Jo, the refund for #${id} (Refund) is on its way. Olivia Owner`,
    });
    expect(got.sla.firstResponse.state).toBe("met");
    const ev = (await eventsOf(id)).slice(-5);
    expect(ev.map((e) => e.type)).toEqual([
      "ticket.updated",
      "ticket.assigned",
      "ticket.status_changed",
      "ticket.status_changed",
      "ticket.replied",
    ]);
    expect(ev[0]!.data.changes).toEqual({ tags: ["billing", "refund", "vip"] });
    expect(ev[1]!.data).toMatchObject({ assigneeUserId: ids.admin, previousAssigneeUserId: null });
    expect(ev.slice(2, 4).map((e) => [e.data.from, e.data.to])).toEqual([
      ["new", "open"],
      ["open", "pending"],
    ]);
    expect(ev[4]!.data).toMatchObject({ status: "pending", body: expect.stringContaining("Hi Jo") });
  });

  test("a part that cannot apply refuses the whole, naming the part, and writes nothing", async () => {
    const m = await tool(owner, "ticket_macros_create", {
      name: "To Adam",
      body: "Adam takes it.",
      assigneeId: ids.admin,
    });
    const id = await ticket("kim@shop.test");
    await rows(s.deps, "UPDATE memberships SET role = 'viewer' WHERE user_id = ? AND company_id = ?", ids.admin, co.id);
    const before = commits(s.deps);
    const e = await fails(owner, "tickets_apply_macro", { ticketId: id, macroId: m.id });
    expect(e).toContain('Macro "To Adam" was not applied (nothing changed): its assignee part');
    expect(e).toContain("is a viewer of Agency");
    expect(commits(s.deps)).toBe(before);
    await rows(s.deps, "UPDATE memberships SET role = 'admin' WHERE user_id = ? AND company_id = ?", ids.admin, co.id);
    expect((await tool(owner, "tickets_get", { id })).messagesTotal).toBe(1);

    const reopen = await tool(owner, "ticket_macros_create", { name: "Reopen", status: "open", addTags: ["again"] });
    const solved = await ticket("lee@shop.test");
    await tool(owner, "tickets_set_status", { id: solved, status: "solved" });
    await tool(owner, "tickets_set_status", { id: solved, status: "closed" });
    expect(await fails(owner, "tickets_apply_macro", { ticketId: solved, macroId: reopen.id })).toContain("closed");
    const pend = await tool(owner, "ticket_macros_create", { name: "Wait", status: "pending", addTags: ["waiting"] });
    const s2 = await ticket("sol@shop.test");
    await tool(owner, "tickets_set_status", { id: s2, status: "solved" });
    const e2 = await fails(owner, "tickets_apply_macro", { ticketId: s2, macroId: pend.id });
    expect(e2).toContain('Macro "Wait" was not applied (nothing changed): its status part');
    expect(e2).toContain("cannot go from solved to pending");
    expect((await tool(owner, "tickets_get", { id: s2 })).tags).toEqual([]);
  });

  test("saving: unknown variables, no part, duplicate names are refused; update and null clear; delete", async () => {
    expect(await fails(owner, "ticket_macros_create", { name: "Bad", body: "Hi {{customer.name}}" })).toContain(
      "{{customer.name}}, which is not a macro variable",
    );
    expect(await fails(owner, "ticket_macros_create", { name: "Empty" })).toContain("at least one part");
    expect(await fails(owner, "ticket_macros_create", { name: "Refund sent", status: "solved" })).toContain(
      'A macro named "Refund sent" exists',
    );
    expect(await fails(owner, "ticket_macros_create", { name: "X", status: "closed" })).toContain("status");
    expect(await fails(owner, "ticket_macros_create", { name: "X", assigneeId: "nobody@else.test" })).toContain(
      "not a member of Agency",
    );
    const m = await tool(owner, "ticket_macros_create", { name: "Tmp", body: "x", status: "solved" });
    const up = await tool(owner, "ticket_macros_update", { id: m.id, body: null, name: "Solve" });
    expect(up).toMatchObject({ name: "Solve", body: null, status: "solved" });
    expect(await fails(owner, "ticket_macros_update", { id: m.id, status: null })).toContain("at least one part");
    expect(await tool(owner, "ticket_macros_delete", { id: m.id })).toEqual({ id: m.id, status: "deleted" });
    expect(await fails(owner, "ticket_macros_delete", { id: m.id })).toContain(`Macro ${m.id} not found in Agency`);
  });

  test("tenancy, viewers and read-only keys", async () => {
    const theirs = await tool(rival, "ticket_macros_create", { name: "Rival macro", status: "solved" });
    const id = await ticket("ten@shop.test");
    expect(await fails(owner, "tickets_apply_macro", { ticketId: id, macroId: theirs.id })).toContain(
      `Macro ${theirs.id} not found in Agency`,
    );
    expect(await fails(owner, "ticket_macros_update", { id: theirs.id, name: "Mine" })).toContain(
      "not found in Agency",
    );
    expect((await tool(rival, "ticket_macros_list", {})).items.map((x: any) => x.name)).toEqual(["Rival macro"]);
    const mine = (await tool(owner, "ticket_macros_list", { q: "refund" })).items[0];
    expect(await fails(viewer, "tickets_apply_macro", { ticketId: id, macroId: mine.id })).toContain("Forbidden");
    expect((await tool(reader, "ticket_macros_list", {})).total).toBeGreaterThan(0);
    await expect(
      reader.callTool({ name: "tickets_apply_macro", arguments: { ticketId: id, macroId: mine.id } }),
    ).rejects.toThrow("tickets_apply_macro needs the tickets:write scope");
    expect(await fails(owner, "tickets_apply_macro", { ticketId: id, macroId: "one" })).toContain("macroId");
  });
});
