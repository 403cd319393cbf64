/**
 * Over the real wire: agents work the ticket queue through the MCP endpoint
 * with the official SDK client; scopes, roles and tenancy as a credential
 * meets them; hostile and malformed input; the SLA job on the real server.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { commits, jsonValue, rows, startTestServer, type TestServer } from "../harness";

let s: TestServer;
let owner: Client;
let admin: Client;
let viewer: Client;
let reader: Client;
let multi: Client;
let co: { id: number; name: string };
let other: { id: number; name: string };
let ids: { owner: number; admin: number };

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 }, clock: undefined });
  s.clock.set(Date.parse("2025-01-13T09:00:00Z")); // Mon 09:00 UTC
  const u = await createUser(s.deps, { email: "owner@agency.test", name: "Olivia Owner" });
  const a = await createUser(s.deps, { email: "admin@agency.test", name: "Adam Admin" });
  const v = await createUser(s.deps, { email: "viewer@agency.test" });
  co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  other = await createCompany(s.deps, { name: "Other Tenant", ownerUserId: u.id });
  await addMember(s.deps, co.id, a.id, "admin");
  await addMember(s.deps, co.id, v.id, "viewer");
  ids = { owner: u.id, admin: a.id };
  const key = async (userId: number, scopes: string[], companyIds = [co.id]) =>
    (await mintMcpKey(s.deps, { userId, scopes, companyIds })).key;
  owner = await mcpClient(s.url, await key(u.id, ["tickets:*"]));
  admin = await mcpClient(s.url, await key(a.id, ["tickets:write"]), { era: "legacy" });
  viewer = await mcpClient(s.url, await key(v.id, ["tickets:*"]));
  reader = await mcpClient(s.url, await key(u.id, ["tickets:read"]));
  multi = await mcpClient(s.url, await key(u.id, ["*"], [co.id, other.id]));
});
afterAll(async () => {
  for (const c of [owner, admin, viewer, reader, multi]) await c?.close();
  await s.stop();
});

const tool = toolOk;
const fails = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = await callTool(c, name, args);
  expect(r.isError).toBe(true);
  return r.text;
};

describe("an agent works the queue", () => {
  test("tools are listed by scope: read-only keys see the twelve read tools", async () => {
    const all = (await owner.listTools()).tools.map((t) => t.name).filter((n) => n.startsWith("ticket"));
    expect(all.length).toBe(32);
    const ro = (await reader.listTools()).tools
      .map((t) => t.name)
      .filter((n) => n.startsWith("ticket"))
      .sort();
    expect(ro).toEqual([
      "ticket_attachments_get",
      "ticket_attachments_list",
      "ticket_macros_list",
      "ticket_mailboxes_get",
      "ticket_mailboxes_list",
      "ticket_messages_list",
      "ticket_sla_policy_get",
      "ticket_tags_list",
      "tickets_get",
      "tickets_list",
      "tickets_satisfaction_report",
      "tickets_summary",
    ]);
  });

  test("create (idempotent), reply, note, assign to me, find it in my view", async () => {
    const args = {
      subject: "Cart total wrong",
      requesterEmail: "jo@shop.test",
      requesterName: "Jo",
      body: "Shows €0.",
      priority: "high",
      idempotencyKey: "mail-4711",
    };
    const first = await tool(owner, "tickets_create", args);
    expect(first).toMatchObject({
      id: 1001,
      ref: "#1001",
      status: "new",
      priority: "high",
      firstResponseDueAt: "2025-01-13T13:00:00.000Z",
    });
    const again = await tool(owner, "tickets_create", args);
    expect(again).toMatchObject({ id: 1001, replayed: true });
    expect((await tool(owner, "tickets_list", {})).total).toBe(1);

    await tool(owner, "tickets_add_note", { id: "#1001", body: "Rounding bug in the discount code path." });
    expect(await tool(admin, "tickets_assign", { id: 1001, assigneeId: "me" })).toMatchObject({
      status: "open",
      assigneeId: ids.admin,
    });
    const reply = await tool(admin, "tickets_reply", {
      id: "1001",
      body: "Thanks Jo, fixing it now.",
      status: "pending",
    });
    expect(reply).toMatchObject({ id: 1001, status: "pending", firstResponse: true });

    const mine = await tool(admin, "tickets_list", { assigneeId: "me", status: "unsolved" });
    expect(mine.items.map((t: any) => [t.id, t.status, t.assignee.email])).toEqual([
      [1001, "pending", "admin@agency.test"],
    ]);
    expect((await tool(owner, "tickets_list", { assigneeId: "none" })).total).toBe(0);
    expect((await tool(owner, "tickets_list", { assigneeId: "admin@agency.test" })).total).toBe(1);
    expect((await tool(owner, "tickets_list", { requester: "shop.test" })).total).toBe(1);
    expect((await tool(owner, "tickets_list", { q: "#1001" })).total).toBe(1);

    const got = await tool(owner, "tickets_get", { id: 1001 });
    expect(got.messages.map((m: any) => [m.kind, m.internal, m.author])).toEqual([
      ["reply", false, "requester"],
      ["note", true, "agent"],
      ["reply", false, "agent"],
    ]);
    expect(got.sla.firstResponse).toEqual({
      state: "met",
      dueAt: "2025-01-13T13:00:00.000Z",
      respondedAt: "2025-01-13T09:00:00.000Z",
    });

    const summary = await tool(owner, "tickets_summary", {});
    expect(summary).toMatchObject({ byStatus: { pending: 1 }, active: 1, unassigned: 0, mine: 0, breached: 0 });
  });

  test("concurrent creates with one idempotency key make one ticket", async () => {
    const args = { subject: "Dup mail", requesterEmail: "dup@shop.test", body: "x", idempotencyKey: "mail-dup-1" };
    const out = await Promise.all([1, 2, 3, 4].map(() => tool(owner, "tickets_create", args)));
    expect(new Set(out.map((o) => o.id)).size).toBe(1);
    expect((await tool(owner, "tickets_list", { requester: "dup@shop.test" })).total).toBe(1);
  });

  test("the SLA job on the real server flags a breach once, visible in lists", async () => {
    const t = await tool(owner, "tickets_create", {
      subject: "Outage",
      requesterEmail: "ops@shop.test",
      body: "Down!",
      priority: "urgent",
    });
    s.clock.set(Date.parse(t.firstResponseDueAt));
    s.clock.advance(60_000);
    await s.jobs.runDue();
    s.clock.advance(60_000);
    await s.jobs.runDue();
    const breached = await tool(owner, "tickets_list", { breached: true });
    expect(breached.items.map((i: any) => [i.id, i.breached])).toEqual([[t.id, ["first_response"]]]);
    const ev = await rows(
      s.deps,
      "SELECT data FROM events WHERE type = ? AND entity_id = ?",
      "ticket.sla_breached",
      t.id,
    );
    expect(ev.length).toBe(1);
  });

  test("the SLA policy reads and updates over the wire; bad zones and hours are explained", async () => {
    expect((await tool(owner, "ticket_sla_policy_get", {})).isDefault).toBe(true);
    const up = await tool(owner, "ticket_sla_policy_update", {
      timeZone: "America/New_York",
      businessHours: { mon: ["08:00-12:00", "13:00-17:00"] },
      targets: { low: { firstResponseMinutes: null } },
    });
    expect(up).toMatchObject({
      timeZone: "America/New_York",
      changed: ["timeZone", "businessHours", "targets"],
      targets: { low: { firstResponseMinutes: null, resolutionMinutes: 4800 } },
    });
    expect(await fails(owner, "ticket_sla_policy_update", { timeZone: "Mars/Base" })).toContain(
      "not an IANA time zone",
    );
    expect(await fails(owner, "ticket_sla_policy_update", { businessHours: { mon: ["9-5"] } })).toContain(
      'businessHours.mon[0] must read "HH:MM-HH:MM"',
    );
    expect(await fails(owner, "ticket_sla_policy_update", { businessHours: { funday: ["09:00-10:00"] } })).toContain(
      "Days are mon",
    );
    expect(
      await fails(owner, "ticket_sla_policy_update", { targets: { high: { firstResponseMinutes: 0 } } }),
    ).toContain("1 minute to a year");
  });
});

describe("roles, scopes and tenancy", () => {
  test("a viewer reads but cannot write; a read-only key cannot even see write tools", async () => {
    expect((await tool(viewer, "tickets_list", {})).total).toBeGreaterThan(0);
    const before = commits(s.deps);
    expect(await fails(viewer, "tickets_reply", { id: 1001, body: "hi" })).toContain("Forbidden");
    expect(commits(s.deps)).toBe(before);
    await expect(reader.callTool({ name: "tickets_reply", arguments: { id: 1001, body: "hi" } })).rejects.toThrow(
      "tickets_reply needs the tickets:write scope",
    );
  });

  test("another company's tickets have their own numbers and are unreachable from here", async () => {
    const theirs = await tool(multi, "tickets_create", {
      clientId: other.id,
      subject: "Their secret",
      requesterEmail: "x@other.test",
      body: "confidential",
    });
    expect(theirs.id).toBe(1001);
    const mine = await tool(multi, "tickets_get", { clientId: co.id, id: 1001 });
    expect(mine.subject).toBe("Cart total wrong");
    const total = (await tool(owner, "tickets_list", {})).total;
    const missing = 1000 + total + 1;
    await tool(multi, "tickets_create", {
      clientId: other.id,
      subject: "pad",
      requesterEmail: "x@other.test",
      body: "pad",
    });
    expect(await fails(owner, "tickets_get", { id: missing + 50 })).toContain("not found in Agency");
    expect(await fails(multi, "tickets_list", {})).toContain("clientId is required");
    expect(
      await fails(owner, "tickets_assign", { id: 1001, assigneeId: "owner@agency.test".replace("agency", "other") }),
    ).toContain("not a member of Agency");
  });
});

describe("hostile and malformed input", () => {
  test("wrong types, huge numbers, bad ticket refs and unknown arguments get clear errors", async () => {
    expect(await fails(owner, "tickets_get", { id: "WEB-42" })).toContain('ticket number: 1042 or "#1042"');
    expect(await fails(owner, "tickets_get", { id: 2 ** 60 })).toMatch(/id/);
    expect(await fails(owner, "tickets_get", { id: 0 })).toMatch(/id/);
    expect(await fails(owner, "tickets_get", { id: "#99999999999999999999" })).toMatch(/id/);
    expect(await fails(owner, "tickets_get", { id: Number.MAX_SAFE_INTEGER })).toContain("not found");
    expect(await fails(owner, "tickets_list", { status: "done" })).toContain("status");
    expect(await fails(owner, "tickets_list", { sortBy: "x" })).toContain('unknown argument "sortBy"');
    expect(await fails(owner, "tickets_create", { subject: "x", requesterEmail: "not-an-email", body: "x" })).toContain(
      "requesterEmail",
    );
    expect(await fails(owner, "tickets_create", { subject: " ", requesterEmail: "a@b.test", body: "x" })).toContain(
      "subject",
    );
    expect(await fails(owner, "tickets_update", { id: 1001, addTags: ["Bad Tag!"] })).toContain(
      "Tags are 1-40 letters",
    );
    expect(await fails(owner, "tickets_reply", { id: 1001, body: "x".repeat(70_000) })).toContain("at most 65536");
    expect(await fails(owner, "tickets_add_note", { id: 1001, body: "nul\u0000byte" })).toMatch(
      /NUL|\\u0000|null character/i,
    );
  });

  test("script, HTML and SQL come back as the text they were, and match nothing they should not", async () => {
    const evil = `<script>alert(1)</script>'; DROP TABLE tickets; --`;
    const t = await tool(owner, "tickets_create", {
      subject: evil,
      requesterEmail: "evil@shop.test",
      requesterName: "<b>Eve</b>",
      body: evil,
    });
    expect((await tool(owner, "tickets_get", { id: t.id })).subject).toBe(evil);
    expect((await tool(owner, "tickets_list", { q: "%" })).total).toBe(0);
    expect((await tool(owner, "tickets_list", { q: "'; DROP" })).items.map((i: any) => i.id)).toEqual([t.id]);
    expect((await tool(owner, "tickets_list", { requester: "' or 1=1 --" })).total).toBe(0);
    expect((await tool(owner, "tickets_list", {})).total).toBeGreaterThan(1); // the table is still there
  });
});

describe("merging over the wire", () => {
  test("a duplicate's unanswered message reopens the pending target and its resolution clock", async () => {
    const target = await tool(owner, "tickets_create", {
      subject: "Refund missing",
      requesterEmail: "ria@shop.test",
      body: "Where is my refund?",
    });
    await tool(admin, "tickets_reply", { id: target.id, body: "It is on its way.", status: "pending" });
    expect((await tool(owner, "tickets_get", { id: target.id })).sla.resolution.state).toBe("paused");
    s.clock.advance(30 * 60_000);
    const dup = await tool(owner, "tickets_create", {
      subject: "Refund???",
      requesterEmail: "ria@shop.test",
      body: "Still nothing.",
    });
    const merged = await tool(admin, "tickets_merge", { id: dup.id, targetId: target.id });
    expect(merged).toMatchObject({ id: dup.id, status: "closed", mergedIntoId: target.id, targetStatus: "open" });
    const got = await tool(owner, "tickets_get", { id: target.id });
    expect([got.status, got.sla.resolution.state]).toEqual(["open", "running"]);
    expect(got.messages.at(-2)).toMatchObject({ author: "requester", body: "Still nothing.", mergedFromId: dup.id });
    const changes = await rows(
      s.deps,
      "SELECT data FROM events WHERE type = ? AND entity_id = ? ORDER BY id",
      "ticket.status_changed",
      target.id,
    );
    expect(jsonValue(changes.at(-1)!.data)).toMatchObject({ from: "pending", to: "open", reason: "merge" });
  });
});
