/**
 * The post_chat_message action over a real server, MCP client and the
 * widget's visitor API: a visitor opening a conversation triggers an
 * automation that replies (templated from the event) and adds an internal
 * note; the reply reaches the visitor's SSE stream live, the note never;
 * validation before enabling; the dry run writes nothing; a creator whose
 * key lost chat:write gets a failed run saying so.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { eq } from "drizzle-orm";
import { mcpKeys } from "../../src/domains/accounts/tables";
import { runQueued } from "../jobs";
import { sites } from "../../src/domains/sites/tables";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { rows, startTestServer, type TestServer } from "../harness";
import { listenSse, until } from "../fixtures/sse";
import { caughtUp } from "./settle";

let s: TestServer;
let agent: Client;
let noChat: Client;
let inbox: { id: number; widgetKey: string };
let keyId = 0;

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  // The tests run automations themselves; the background runner would race them for the same rows.
  await s.jobs.stop();
  const u = await createUser(s.deps, { email: "ada@agency.test", name: "Ada Agent" });
  const co = await createCompany(s.deps, { name: "Brew", ownerUserId: u.id });
  const site = (await s.deps.db.insert(sites).values({ companyId: co.id, name: "Brew & Co" }).returning())[0]!;
  const k = await mintMcpKey(s.deps, { userId: u.id, scopes: ["chat:*", "automations:*"], companyIds: [co.id] });
  keyId = k.id;
  agent = await mcpClient(s.url, k.key);
  noChat = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: u.id, scopes: ["chat:read", "automations:*"], companyIds: [co.id] })).key,
  );
  inbox = await tool(agent, "chat_inboxes_create", { siteId: site.id, name: "Brew chat" });
});
afterAll(async () => {
  await agent?.close();
  await noChat?.close();
  await s?.stop();
});

const tool = toolOk;

const api = (path: string) => `${s.url}/chat/api/${inbox.widgetKey}${path}`;
const visitorPost = async (body: Record<string, unknown>, token?: string) => {
  const r = await fetch(api("/messages"), {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Sec-Fetch-Site": "same-origin",
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify(body),
  });
  expect(r.status).toBe(201);
  return (await r.json()) as { token: string; conversation: number; message: { id: number } };
};

/** The visitor's SSE stream, collected until stopped. */
const listen = (token: string, after = 0) =>
  listenSse(api(`/stream?after=${after}`), { Authorization: `Bearer ${token}`, "Sec-Fetch-Site": "same-origin" });

const messageCount = async () => Number((await rows(s.deps, "SELECT count(*) AS n FROM chat_messages"))[0]!.n);

async function settle() {
  await caughtUp(s);
  await runQueued(s.deps);
  await caughtUp(s);
}

describe("post_chat_message", () => {
  let autoId = 0;

  test("validated before enabling: text required, unknown keys, a conversation needed outside chat events, chat:write needed", async () => {
    const noText = await callTool(agent, "automations_create", {
      name: "x",
      trigger: { type: "event", eventType: "chat.conversation_created" },
      actions: [{ type: "post_chat_message", with: { internal: "yes", colour: "red" } }],
    });
    expect(noText.isError).toBe(true);
    expect(noText.text).toContain("with.text is required");
    expect(noText.text).toContain("with.colour is not known");
    expect(noText.text).toContain("with.internal must be true or false");
    const noConv = await callTool(agent, "automations_create", {
      name: "x",
      trigger: { type: "event", eventType: "post.published" },
      actions: [{ type: "post_chat_message", with: { text: "hi" } }],
    });
    expect(noConv.isError).toBe(true);
    expect(noConv.text).toContain("give with.conversationId");
    expect(noConv.text).not.toContain("would refuse"); // one problem, said once
    const noteStatus = await callTool(agent, "automations_create", {
      name: "x",
      trigger: { type: "event", eventType: "chat.conversation_created" },
      actions: [{ type: "post_chat_message", with: { text: "hi", internal: true, status: "resolved" } }],
    });
    expect(noteStatus.text).toContain("with.status applies to replies");
    const scope = await callTool(noChat, "automations_create", {
      name: "x",
      trigger: { type: "event", eventType: "chat.conversation_created" },
      actions: [{ type: "post_chat_message", with: { text: "hi" } }],
    });
    expect(scope.isError).toBe(true);
    expect(scope.text).toContain("chat_conversations_reply needs the chat:write scope");
    const tooLong = await callTool(agent, "automations_create", {
      name: "x",
      trigger: { type: "schedule", cron: "0 9 * * 1" },
      actions: [{ type: "post_chat_message", with: { conversationId: 0, text: "hi" } }],
    });
    expect(tooLong.isError).toBe(true);
    expect(tooLong.text).toContain("chat_conversations_reply would refuse these arguments");
    expect(Number((await rows(s.deps, "SELECT count(*) AS n FROM automations"))[0]!.n)).toBe(0);
  });

  test("a visitor opening a conversation gets the templated reply live on their stream; the note stays internal", async () => {
    const a = await tool(agent, "automations_create", {
      name: "Greet new chats",
      trigger: { type: "event", eventType: "chat.conversation_created" },
      actions: [
        {
          type: "post_chat_message",
          with: {
            text: "Hi {{trigger.data.visitorName}}, thanks for writing to {{trigger.data.inboxName}}! We answer within the hour.",
            status: "pending",
          },
        },
        {
          type: "post_chat_message",
          with: { text: "AUTO-NOTE greeted; first words: {{trigger.data.body}}", internal: true },
        },
      ],
      enabled: true,
    });
    autoId = a.id;
    const v = await visitorPost({ body: "Do you roast <b>decaf</b>?", name: "Vera" });
    const stream = listen(v.token);
    await until(() => stream.got.length === 1);
    const before = performance.now();
    await settle();
    await until(() => stream.got.some((m) => m.from === "agent"));
    const reply = stream.got.find((m) => m.from === "agent")!;
    expect(reply.body).toBe("Hi Vera, thanks for writing to Brew chat! We answer within the hour.");
    expect(reply.receivedAt - before).toBeLessThan(3000);
    await Bun.sleep(200);
    expect(JSON.stringify(stream.got)).not.toContain("AUTO-NOTE");
    stream.stop();
    // In the conversation, as the agent reads it: the reply by the creator, then the note.
    const conv = await tool(agent, "chat_conversations_get", { id: v.conversation });
    expect(conv.status).toBe("pending");
    const bodies = conv.messages.items.map((m: any) => [m.kind, m.body]);
    expect(bodies).toEqual([
      ["visitor", "Do you roast <b>decaf</b>?"],
      ["agent", "Hi Vera, thanks for writing to Brew chat! We answer within the hour."],
      ["note", "AUTO-NOTE greeted; first words: Do you roast <b>decaf</b>?"],
    ]);
    const runs = await tool(agent, "automation_runs_list", { automationId: autoId });
    expect(runs.items.map((r: any) => r.status)).toEqual(["succeeded"]);
    const run = await tool(agent, "automation_runs_get", { id: runs.items[0].id });
    expect(run.steps.map((x: any) => [x.type, x.status])).toEqual([
      ["post_chat_message", "succeeded"],
      ["post_chat_message", "succeeded"],
    ]);
    expect(run.steps[0].output).toMatchObject({ id: v.conversation, status: "pending" });
    expect(run.steps[1].output).toMatchObject({ id: v.conversation, internal: true });
    // Its own reply (chat.message_created by the run) does not trigger it again: it listens to conversation_created only.
    expect((await tool(agent, "automation_runs_list", { automationId: autoId })).total).toBe(1);
    const audits = await rows(
      s.deps,
      "SELECT action, credential_kind FROM audit_log WHERE action IN ('chat.reply', 'chat.note') ORDER BY id",
    );
    expect(audits.map((r) => [r.action, r.credential_kind])).toEqual([
      ["chat.reply", "automation"],
      ["chat.note", "automation"],
    ]);
  });

  test("a reply into a conversation given by id, from any event; the dry run writes nothing", async () => {
    const v = await visitorPost({ body: "Hello?" });
    const a = await tool(agent, "automations_create", {
      name: "Echo card moves",
      trigger: { type: "webhook" },
      actions: [
        {
          type: "post_chat_message",
          with: { conversationId: "{{trigger.data.conversation}}", text: "Update: {{trigger.data.note}}" },
        },
      ],
    });
    const n = await messageCount();
    const dry = await tool(agent, "automations_test", {
      id: a.id,
      sample: { conversation: v.conversation, note: "your order shipped" },
    });
    expect(dry.note).toBe("Dry run: nothing was written or sent.");
    expect(dry.steps).toEqual([
      {
        index: 0,
        type: "post_chat_message",
        input: { conversationId: v.conversation, text: "Update: your order shipped" },
        ok: true,
        problems: [],
      },
    ]);
    const bad = await tool(agent, "automations_test", { id: a.id, sample: { note: "x" } });
    expect(bad.steps[0].ok).toBe(false);
    // The dry run refuses with the live run's own message (the sample names no conversation).
    expect(bad.steps[0].problems).toEqual([
      "No conversation: give with.conversationId (a conversation number) or trigger on a chat event.",
    ]);
    expect(await messageCount()).toBe(n);
    expect(
      Number((await rows(s.deps, "SELECT count(*) AS n FROM automation_runs WHERE automation_id = ?", a.id))[0]!.n),
    ).toBe(0);
  });

  test("a creator whose key lost chat:write gets a failed run with a clear error, and nothing is posted", async () => {
    await settle(); // the previous test's conversation is greeted first
    await s.deps.db
      .update(mcpKeys)
      .set({ scopes: ["chat:read", "automations:*"] })
      .where(eq(mcpKeys.id, keyId));
    const n = await messageCount();
    const v = await visitorPost({ body: "Anyone there?" });
    await settle();
    const runs = await tool(noChat, "automation_runs_list", { automationId: autoId, status: "failed" });
    expect(runs.total).toBe(1);
    const run = await tool(noChat, "automation_runs_get", { id: runs.items[0].id });
    expect(run.error).toContain("Step 0 (post_chat_message) failed");
    expect(run.error).toContain("chat:write");
    expect(await messageCount()).toBe(n + 1); // the visitor's message only
    const conv = (
      await rows(
        s.deps,
        "SELECT count(*) AS n FROM chat_messages m JOIN chat_conversations c ON c.id = m.conversation_id WHERE c.number = ? AND m.kind <> 'visitor'",
        v.conversation,
      )
    )[0]!;
    expect(Number(conv.n)).toBe(0);
    await s.deps.db
      .update(mcpKeys)
      .set({ scopes: ["chat:*", "automations:*"] })
      .where(eq(mcpKeys.id, keyId));
  });
});
