/**
 * chat_conversations_to_ticket over the real wire: a visitor writes through
 * the widget's HTTP API, an agent (official SDK client) turns the chat into
 * a ticket; the links both ways, the quoted transcript, once only even when
 * two calls race, and the refusals (no email, no visitor message, another
 * company's chat, a viewer, a key without tickets:write).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { sites } from "../../src/domains/sites/tables";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { commits, rows, startTestServer, type TestServer } from "../harness";

let s: TestServer;
let agent: Client;
let viewer: Client;
let chatOnly: Client;
let rival: Client;
let inbox: { id: number; widgetKey: string };
let rivalChat = 0;
let agentId = 0;

const tool = toolOk;
const fails = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = await callTool(c, name, args);
  expect(r.isError).toBe(true);
  return r.text;
};

/** A visitor writes through the widget API; returns the conversation number and the token. */
async function visit(widgetKey: string, body: string, who: { name?: string; email?: string; token?: string } = {}) {
  const r = await fetch(`${s.url}/chat/api/${widgetKey}/messages`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Sec-Fetch-Site": "same-origin",
      ...(who.token && { Authorization: `Bearer ${who.token}` }),
    },
    body: JSON.stringify({ body, ...(who.name && { name: who.name }), ...(who.email && { email: who.email }) }),
  });
  expect(r.status).toBe(201);
  const j = (await r.json()) as { conversation: number; token?: string };
  return { conversation: j.conversation, token: j.token ?? who.token! };
}

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "agent@agency.test", name: "Alex Agent" });
  const v = await createUser(s.deps, { email: "viewer@agency.test" });
  const r = await createUser(s.deps, { email: "rita@rival.test" });
  const co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  const other = await createCompany(s.deps, { name: "Rival", ownerUserId: r.id });
  await addMember(s.deps, co.id, v.id, "viewer");
  agentId = u.id;
  const site = (await s.deps.db.insert(sites).values({ companyId: co.id, name: "Brew & Co" }).returning())[0]!;
  const rivalSite = (await s.deps.db.insert(sites).values({ companyId: other.id, name: "Rival Tea" }).returning())[0]!;
  const key = async (userId: number, scopes: string[], companyId = co.id) =>
    (await mintMcpKey(s.deps, { userId, scopes, companyIds: [companyId] })).key;
  agent = await mcpClient(s.url, await key(u.id, ["chat:*", "tickets:*"]));
  viewer = await mcpClient(s.url, await key(v.id, ["chat:*", "tickets:*"]));
  chatOnly = await mcpClient(s.url, await key(u.id, ["chat:*", "tickets:read"]));
  rival = await mcpClient(s.url, await key(r.id, ["chat:*", "tickets:*"], other.id));
  inbox = await tool(agent, "chat_inboxes_create", { siteId: site.id, name: "Brew chat" });
  const rivalInbox = await tool(rival, "chat_inboxes_create", { siteId: rivalSite.id, name: "Rival chat" });
  rivalChat = (await visit(rivalInbox.widgetKey, "rival secret", { email: "r@rival-customer.test" })).conversation;
});
afterAll(async () => {
  for (const c of [agent, viewer, chatOnly, rival]) await c?.close();
  await s?.stop();
});

describe("a chat becomes a ticket", () => {
  test("visitor as requester, quoted transcript without notes, links both ways, once only", async () => {
    const v = await visit(inbox.widgetKey, "My order #77 never arrived.\nIt was paid on Monday.", {
      name: "Vera Visitor",
      email: "Vera@Example.test",
    });
    await tool(agent, "chat_conversations_reply", { id: v.conversation, body: "Sorry! Let me check with shipping." });
    await tool(agent, "chat_conversations_add_note", { id: v.conversation, body: "internal: courier lost it" });
    await tool(agent, "chat_conversations_update", { id: v.conversation, priority: "high" });
    await tool(agent, "chat_conversations_assign", { id: v.conversation, assigneeId: "me" });

    const t = await tool(agent, "chat_conversations_to_ticket", { conversationId: v.conversation });
    expect(t).toMatchObject({ status: "open", priority: "high", conversationId: v.conversation, created: true });
    const ticket = await tool(agent, "tickets_get", { id: t.id });
    expect(ticket).toMatchObject({
      subject: `Chat #${v.conversation}: My order #77 never arrived.`,
      requester: { email: "vera@example.test", name: "Vera Visitor" },
      assignee: { id: agentId },
      sourceChatId: v.conversation,
    });
    expect(ticket.messages).toHaveLength(1);
    const body: string = ticket.messages[0].body;
    expect(ticket.messages[0]).toMatchObject({ author: "requester", kind: "reply" });
    expect(body).toContain(`Transcript of chat #${v.conversation}`);
    expect(body).toContain("Vera Visitor (visitor):\n> My order #77 never arrived.\n> It was paid on Monday.");
    expect(body).toContain("Alex Agent (agent):\n> Sorry! Let me check with shipping.");
    expect(body).not.toContain("courier lost it");
    expect((await tool(agent, "chat_conversations_get", { id: v.conversation })).ticketId).toBe(t.id);

    const again = await tool(agent, "chat_conversations_to_ticket", { conversationId: v.conversation });
    expect(again).toMatchObject({
      id: t.id,
      created: false,
      note: `Conversation #${v.conversation} already became ticket #${t.id}.`,
    });
    expect((await tool(agent, "tickets_list", { requester: "vera@example.test" })).total).toBe(1);
  });

  test("two racing calls open one ticket; both answer with it", async () => {
    const v = await visit(inbox.widgetKey, "Race me", { email: "racer@example.test" });
    const out = await Promise.all(
      [1, 2, 3].map(() =>
        tool(agent, "chat_conversations_to_ticket", { conversationId: v.conversation, subject: "Racing" }),
      ),
    );
    expect(new Set(out.map((o) => o.id)).size).toBe(1);
    expect(out.filter((o) => o.created).length).toBe(1);
    expect((await tool(agent, "tickets_list", { requester: "racer@example.test" })).total).toBe(1);
    const linked = await rows(s.deps, "SELECT count(*) AS n FROM tickets WHERE source_chat_number = ?", v.conversation);
    expect(Number(linked[0]!.n)).toBe(1);
  });

  test("a deleted ticket reads as none, and converting again opens a new one", async () => {
    const v = await visit(inbox.widgetKey, "Delete me later", { email: "del@example.test" });
    const first = await tool(agent, "chat_conversations_to_ticket", { conversationId: v.conversation });
    await tool(agent, "tickets_delete", { id: first.id });
    const second = await tool(agent, "chat_conversations_to_ticket", {
      conversationId: v.conversation,
      priority: "urgent",
    });
    expect(second).toMatchObject({ created: true, priority: "urgent" });
    expect(second.id).not.toBe(first.id);
  });
});

describe("refusals", () => {
  test("no visitor email, bad arguments, another company's chat: clear errors, nothing written", async () => {
    const anon = await visit(inbox.widgetKey, "Anonymous question");
    const mailed = await visit(inbox.widgetKey, "Assign me wrongly", { email: "wrong@example.test" });
    const before = commits(s.deps);
    expect(await fails(agent, "chat_conversations_to_ticket", { conversationId: anon.conversation })).toContain(
      `The visitor of conversation #${anon.conversation} left no email`,
    );
    expect(await fails(agent, "chat_conversations_to_ticket", { conversationId: rivalChat + 1000 })).toContain(
      "not found in Agency",
    );
    expect(
      await fails(agent, "chat_conversations_to_ticket", { conversationId: anon.conversation, priority: "meh" }),
    ).toContain('priority must be one of ("low" | "normal" | "high" | "urgent")');
    expect(await fails(agent, "chat_conversations_to_ticket", { conversationId: "x" })).toContain("conversationId");
    expect(
      await fails(agent, "chat_conversations_to_ticket", {
        conversationId: mailed.conversation,
        assigneeId: "rita@rival.test",
      }),
    ).toContain("not a member of Agency");
    expect(commits(s.deps)).toBe(before);
    // Rival's chat numbers overlap Agency's: Rival's chat #1 stays Rival's.
    expect(rivalChat).toBe(1);
    const mine = await tool(agent, "chat_conversations_to_ticket", { conversationId: 1 });
    expect((await tool(agent, "tickets_get", { id: mine.id })).requester.email).toBe("vera@example.test");
    expect((await tool(rival, "tickets_list", {})).total).toBe(0);
  });

  test("a viewer is refused; a key without tickets:write does not see the tool", async () => {
    const v = await visit(inbox.widgetKey, "Viewer try", { email: "viewer-try@example.test" });
    expect(await fails(viewer, "chat_conversations_to_ticket", { conversationId: v.conversation })).toContain(
      "Forbidden",
    );
    const names = (await chatOnly.listTools()).tools.map((t) => t.name);
    expect(names).toContain("chat_conversations_get");
    expect(names).not.toContain("chat_conversations_to_ticket");
    await expect(
      chatOnly.callTool({ name: "chat_conversations_to_ticket", arguments: { conversationId: v.conversation } }),
    ).rejects.toThrow("needs the tickets:write scope");
    expect((await tool(agent, "tickets_list", { requester: "viewer-try@example.test" })).total).toBe(0);
  });
});
