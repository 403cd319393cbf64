/**
 * Files in live chat (issue 33) on the real server: the visitor posts them
 * to the widget's API as multipart (the frame's own request, with the
 * visitor token), agents list and fetch them over MCP with the SDK client,
 * downloads are downloads (attachment, nosniff, the sniffed type), the
 * company's one file budget (ticket_attachment_limits_set) holds at the
 * exact byte for chat files too, another company's or another visitor's
 * files are not found, and chat_conversations_to_ticket carries the files
 * to the ticket. Runs on SQLite, and on PostgreSQL under
 * scripts/with-postgres.ts (the media store is then the database).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { eq } from "drizzle-orm";
import { chatAttachments } from "../../src/domains/chat/tables";
import { sites } from "../../src/domains/sites/tables";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
let agent: Client;
let rival: Client;
let inbox: { id: number; widgetKey: string };
let rivalInbox: { id: number; widgetKey: string };

const tool = toolOk;
const fails = async (c: Client, name: string, args: Record<string, unknown>) => {
  const r = await callTool(c, name, args);
  expect(r.isError).toBe(true);
  return r.text;
};
const local = (url: string) => `${s.url}${new URL(url).pathname}`;

const PNG = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.from("fake image body 0123456789")]);
const HTML = Buffer.from("<!doctype html><html><script>alert(document.cookie)</script></html>");

/** The widget's file post: multipart with the visitor token, as the frame's script sends it. */
async function upload(
  key: string,
  files: { name: string; type: string; bytes: Buffer }[],
  o: { token?: string; body?: string; headers?: Record<string, string> } = {},
) {
  const form = new FormData();
  for (const f of files) form.append("file", new File([new Uint8Array(f.bytes)], f.name, { type: f.type }));
  if (o.body !== undefined) form.append("body", o.body);
  const res = await fetch(`${s.url}/chat/api/${key}/files`, {
    method: "POST",
    headers: {
      "Sec-Fetch-Site": "same-origin",
      ...(o.token && { Authorization: `Bearer ${o.token}` }),
      ...o.headers,
    },
    body: form,
  });
  return { status: res.status, json: (await res.json()) as any };
}

async function say(key: string, body: string, o: { token?: string; email?: string } = {}) {
  const res = await fetch(`${s.url}/chat/api/${key}/messages`, {
    method: "POST",
    headers: {
      "Content-Type": "application/json",
      "Sec-Fetch-Site": "same-origin",
      ...(o.token && { Authorization: `Bearer ${o.token}` }),
    },
    body: JSON.stringify({ body, ...(o.email && { email: o.email }) }),
  });
  expect(res.status).toBe(201);
  const j = (await res.json()) as { conversation: number; token?: string };
  return { conversation: j.conversation, token: j.token ?? o.token! };
}

const thread = async (key: string, token: string) =>
  (
    (await (
      await fetch(`${s.url}/chat/api/${key}/messages`, {
        headers: { Authorization: `Bearer ${token}`, "Sec-Fetch-Site": "same-origin" },
      })
    ).json()) as { messages: { id: number; body: string; files?: { id: number; name: string; url: string }[] }[] }
  ).messages;

let vera: { conversation: number; token: string };
let pngId = 0;

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "agent@agency.test", name: "Alex Agent" });
  const r = await createUser(s.deps, { email: "rita@rival.test" });
  const co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  const other = await createCompany(s.deps, { name: "Rival", ownerUserId: r.id });
  const site = (await s.deps.db.insert(sites).values({ companyId: co.id, name: "Brew & Co" }).returning())[0]!;
  const rivalSite = (await s.deps.db.insert(sites).values({ companyId: other.id, name: "Rival Tea" }).returning())[0]!;
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["chat:*", "tickets:*"], companyIds: [companyId] })).key;
  agent = await mcpClient(s.url, await key(u.id, co.id));
  rival = await mcpClient(s.url, await key(r.id, other.id));
  inbox = await tool(agent, "chat_inboxes_create", { siteId: site.id, name: "Brew chat" });
  rivalInbox = await tool(rival, "chat_inboxes_create", { siteId: rivalSite.id, name: "Rival chat" });
  vera = await say(inbox.widgetKey, "My grinder broke, photo coming.", { email: "vera@example.test" });
}, 30_000);
afterAll(async () => {
  for (const c of [agent, rival]) await c?.close();
  await s?.stop();
});

describe("the visitor sends files", () => {
  test("a PNG lands in the visitor's conversation with a link in their thread; a hostile name stays text", async () => {
    const name = "<img src=x onerror=alert(1)>.png";
    const r = await upload(inbox.widgetKey, [{ name, type: "image/png", bytes: PNG }], {
      token: vera.token,
      body: "Here it is",
    });
    expect(r.status).toBe(201);
    expect(r.json.conversation).toBe(vera.conversation);
    expect(r.json.message.body).toBe("Here it is");
    expect(r.json.message.files).toHaveLength(1);
    const f = r.json.message.files[0];
    pngId = f.id;
    expect(f).toMatchObject({ name, type: "image/png", size: PNG.length });
    const mine = await thread(inbox.widgetKey, vera.token);
    expect(mine.at(-1)!.files!.map((x) => x.id)).toEqual([pngId]);
    const res = await fetch(local(f.url));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toStartWith("attachment;");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
  });

  test("HTML claimed as an image is refused with a message naming the file; nothing is stored", async () => {
    const before = (await tool(agent, "chat_attachments_list", { conversationId: vera.conversation })).items.length;
    const r = await upload(inbox.widgetKey, [{ name: "cat.png", type: "image/png", bytes: HTML }], {
      token: vera.token,
    });
    expect(r.status).toBe(400);
    expect(r.json.error).toContain("cat.png");
    expect(r.json.error).toContain("refused");
    expect((await tool(agent, "chat_attachments_list", { conversationId: vera.conversation })).items).toHaveLength(
      before,
    );
  });

  test("no file, a cross-site post, JSON and an unknown token are refused", async () => {
    expect((await upload(inbox.widgetKey, [], { token: vera.token, body: "x" })).json.error).toContain("Choose a file");
    const cross = await upload(inbox.widgetKey, [{ name: "a.png", type: "image/png", bytes: PNG }], {
      token: vera.token,
      headers: { "Sec-Fetch-Site": "cross-site" },
    });
    expect(cross.status).toBe(403);
    const unknown = await upload(inbox.widgetKey, [{ name: "a.png", type: "image/png", bytes: PNG }], {
      token: "cv_000000000000000000000000000000000000000000000000",
    });
    expect(unknown.status).toBe(401);
    const json = await fetch(`${s.url}/chat/api/${inbox.widgetKey}/files`, {
      method: "POST",
      headers: {
        "Content-Type": "application/json",
        "Sec-Fetch-Site": "same-origin",
        Authorization: `Bearer ${vera.token}`,
      },
      body: "{}",
    });
    expect(json.status).toBe(400);
  });

  test("another visitor's thread carries no link to Vera's file", async () => {
    const other = await say(inbox.widgetKey, "Hi, I am someone else");
    expect(other.conversation).not.toBe(vera.conversation);
    const theirs = await thread(inbox.widgetKey, other.token);
    expect(theirs.flatMap((m) => m.files ?? [])).toEqual([]);
    const mine = await thread(inbox.widgetKey, vera.token);
    expect(mine.flatMap((m) => m.files ?? []).map((f) => f.id)).toContain(pngId);
  });
});

describe("agents fetch them", () => {
  test("list and get over MCP: metadata, a 15-minute link with safe headers, the bytes", async () => {
    const list = await tool(agent, "chat_attachments_list", { conversationId: vera.conversation });
    expect(list.items.map((a: any) => a.id)).toContain(pngId);
    expect(list.items.find((a: any) => a.id === pngId)).toMatchObject({ source: "visitor", mimeType: "image/png" });
    const a = await tool(agent, "chat_attachments_get", { id: pngId });
    expect(a.conversationId).toBe(vera.conversation);
    expect(Buffer.from(a.dataBase64, "base64").equals(PNG)).toBe(true);
    const res = await fetch(local(a.downloadUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toStartWith("attachment;");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    const url = local(a.downloadUrl);
    expect((await fetch(`${url.slice(0, -3)}${url.endsWith("AAA") ? "BBB" : "AAA"}`)).status).toBe(404);
    s.clock.advance(15 * 60_000 + 1);
    expect((await fetch(url)).status).toBe(404);
  });

  test("another company's file and conversation are not found", async () => {
    expect(await fails(rival, "chat_attachments_get", { id: pngId })).toContain("not found");
    expect(await fails(rival, "chat_attachments_list", { conversationId: vera.conversation })).toContain("not found");
    const theirs = await say(rivalInbox.widgetKey, "rival visitor");
    const up = await upload(rivalInbox.widgetKey, [{ name: "r.png", type: "image/png", bytes: PNG }], {
      token: theirs.token,
    });
    expect(up.status).toBe(201);
    expect(await fails(agent, "chat_attachments_get", { id: up.json.message.files[0].id })).toContain("not found");
  });
});

describe("one company budget", () => {
  test("a file of exactly maxFileBytes is taken, one byte more is refused", async () => {
    await tool(agent, "ticket_attachment_limits_set", { maxFileBytes: 2048 });
    const text = (n: number) => [{ name: `f${n}.txt`, type: "text/plain", bytes: Buffer.alloc(n, "a") }];
    expect((await upload(inbox.widgetKey, text(2048), { token: vera.token })).status).toBe(201);
    const over = await upload(inbox.widgetKey, text(2049), { token: vera.token });
    expect(over.status).toBe(413);
    expect(over.json.error).toContain("2048");
  });

  test("chat files count in the company's total, which holds at the exact byte", async () => {
    const used = (await tool(agent, "ticket_attachment_limits_set", {})).usedBytes as number;
    expect(used).toBe(PNG.length + 2048);
    await tool(agent, "ticket_attachment_limits_set", { maxTotalBytes: used + 100 });
    const at = (n: number) => [{ name: `t${n}.txt`, type: "text/plain", bytes: Buffer.alloc(n, "b") }];
    const over = await upload(inbox.widgetKey, at(101), { token: vera.token });
    expect(over.status).toBe(413);
    expect(over.json.error).toContain("tickets and chats");
    expect((await upload(inbox.widgetKey, at(100), { token: vera.token })).status).toBe(201);
    await tool(agent, "ticket_attachment_limits_set", { maxTotalBytes: 1024 * 1024 * 1024 });
  });
});

describe("a chat becomes a ticket", () => {
  test("its files go with it, sharing the stored bytes", async () => {
    const files = (await tool(agent, "chat_attachments_list", { conversationId: vera.conversation })).items;
    const used = (await tool(agent, "ticket_attachment_limits_set", {})).usedBytes;
    const t = await tool(agent, "chat_conversations_to_ticket", { conversationId: vera.conversation });
    const onTicket = (await tool(agent, "ticket_attachments_list", { ticketId: t.id })).items;
    expect(onTicket.map((a: any) => [a.filename, a.sizeBytes, a.source])).toEqual(
      files.map((a: any) => [a.filename, a.sizeBytes, "requester"]),
    );
    const png = onTicket.find((a: any) => a.mimeType === "image/png");
    const got = await tool(agent, "ticket_attachments_get", { id: png.id });
    expect(Buffer.from(got.dataBase64, "base64").equals(PNG)).toBe(true);
    expect((await tool(agent, "ticket_attachment_limits_set", {})).usedBytes).toBe(used);
  });
});

describe("deleting an inbox", () => {
  test("its conversations' files leave the store", async () => {
    const theirs = await say(rivalInbox.widgetKey, "one more");
    const up = await upload(rivalInbox.widgetKey, [{ name: "gone.png", type: "image/png", bytes: PNG }], {
      token: theirs.token,
    });
    expect(up.status).toBe(201);
    const keys = (
      await s.deps.db
        .select({ key: chatAttachments.storageKey })
        .from(chatAttachments)
        .where(eq(chatAttachments.id, up.json.message.files[0].id))
    ).map((r) => r.key);
    expect(keys).toHaveLength(1);
    expect(await s.deps.blobs.read(keys[0]!)).not.toBeNull();
    await tool(rival, "chat_inboxes_delete", { id: rivalInbox.id });
    // Outside the database store the bytes go once the deletion has committed (forgetFiles): wait for it.
    let gone = false;
    for (let i = 0; i < 200 && !gone; i++) {
      gone = (await s.deps.blobs.read(keys[0]!)) === null;
      if (!gone) await Bun.sleep(10);
    }
    expect(gone).toBe(true);
  });
});
