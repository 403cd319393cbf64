/**
 * The widget's public side over real HTTP, and agents over MCP with the
 * official SDK client: the loader and the frame (CSP frame-ancestors,
 * Referer), the visitor API's checks (same-origin, JSON only, sizes,
 * tokens, rate limit), the SSE stream delivering agent replies live and
 * never notes, and chat_messages_wait waking on a visitor's message.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { sites } from "../../src/domains/sites/tables";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { rows, startTestServer, type TestServer } from "../harness";
import { listenSse, readSse, until } from "../fixtures/sse";

let s: TestServer;
let agent: Client;
let rival: Client;
let inbox: { id: number; widgetKey: string };
let agentKey = "";
let readKey = "";
let noChatKey = "";
let rivalCompany = 0;
const HOST = "http://127.0.0.1:9"; // the embedding site's origin (never contacted)

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  const u = await createUser(s.deps, { email: "agent@agency.test", name: "Alex Agent" });
  const r = await createUser(s.deps, { email: "rival@rival.test" });
  const co = await createCompany(s.deps, { name: "Agency", ownerUserId: u.id });
  const other = await createCompany(s.deps, { name: "Rival", ownerUserId: r.id });
  await addMember(s.deps, co.id, u.id, "owner").catch(() => {});
  const site = (await s.deps.db.insert(sites).values({ companyId: co.id, name: "Brew & Co" }).returning())[0]!;
  agentKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["chat:*"], companyIds: [co.id] })).key;
  readKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["chat:read"], companyIds: [co.id] })).key;
  noChatKey = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["tickets:read"], companyIds: [co.id] })).key;
  rivalCompany = other.id;
  agent = await mcpClient(s.url, agentKey);
  rival = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: r.id, scopes: ["chat:*"], companyIds: [other.id] })).key,
  );
  inbox = await tool(agent, "chat_inboxes_create", { siteId: site.id, name: "Brew chat", allowedOrigins: [HOST] });
});
afterAll(async () => {
  await agent?.close();
  await rival?.close();
  await s?.stop();
});

const tool = toolOk;

const api = (path: string) => `${s.url}/chat/api/${inbox.widgetKey}${path}`;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(api(path), {
    method: "POST",
    headers: { "Content-Type": "application/json", "Sec-Fetch-Site": "same-origin", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });

/** The visitor's SSE stream, collected until stopped. */
const listen = (token: string, after = 0) =>
  listenSse(api(`/stream?after=${after}`), { Authorization: `Bearer ${token}`, "Sec-Fetch-Site": "same-origin" });

describe("loader and frame", () => {
  test("widget.js is small, cacheable, and names no other host", async () => {
    const r = await fetch(`${s.url}/chat/widget.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get("content-type")).toContain("javascript");
    const js = await r.text();
    expect(js.length).toBeLessThan(1500);
    expect(js).not.toMatch(/https?:\/\//);
    expect(js).toContain('"/chat/frame/"');
  });

  test("the frame may be framed only by allowed origins; a foreign Referer is refused; unknown and disabled keys are 404", async () => {
    const r = await fetch(`${s.url}/chat/frame/${inbox.widgetKey}?page=${encodeURIComponent(HOST + "/pricing")}`, {
      headers: { Referer: `${HOST}/pricing` },
    });
    expect(r.status).toBe(200);
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toContain(`frame-ancestors ${HOST}`);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await r.text();
    expect(html).toContain("Brew &amp; Co");
    expect(html).not.toMatch(/<(img|link|iframe)\b/);
    const foreign = await fetch(`${s.url}/chat/frame/${inbox.widgetKey}`, {
      headers: { Referer: "https://evil.test/" },
    });
    expect(foreign.status).toBe(403);
    expect((await fetch(`${s.url}/chat/frame/ci_${"0".repeat(24)}`)).status).toBe(404);
    expect((await fetch(`${s.url}/chat/frame/..%2f..%2fetc`)).status).toBe(404);
    const off = await tool(agent, "chat_inboxes_create", {
      siteId: (await tool(agent, "chat_inboxes_get", { id: inbox.id })).siteId,
      name: "Off",
      enabled: false,
    });
    expect((await fetch(`${s.url}/chat/frame/${off.widgetKey}`)).status).toBe(404);
  });

  test("greeting and site name a hostile agent wrote are escaped in the frame", async () => {
    await tool(agent, "chat_inboxes_update", { id: inbox.id, greeting: `<img src=x onerror=alert(1)>"'` });
    const html = await (await fetch(`${s.url}/chat/frame/${inbox.widgetKey}`)).text();
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;");
    expect(html).not.toContain("<img src=x");
    await tool(agent, "chat_inboxes_update", { id: inbox.id, greeting: "Hi! Ask us anything." });
    // The page address the loader passes is data in a JSON block, never markup.
    const evil = await (
      await fetch(
        `${s.url}/chat/frame/${inbox.widgetKey}?page=${encodeURIComponent("http://x/</script><script>alert(1)</script>")}`,
      )
    ).text();
    expect(evil).not.toContain("</script><script>alert(1)");
    expect(evil).toContain("\\u003c/script>");
    const js = await (
      await fetch(`${s.url}/chat/frame/${inbox.widgetKey}?page=${encodeURIComponent("javascript:alert(1)")}`)
    ).text();
    expect(js).not.toContain("javascript:alert");
  });
});

describe("visitor API", () => {
  test("refuses cross-site requests, non-JSON, oversized and malformed bodies, and unknown tokens, writing nothing", async () => {
    const before = (await rows(s.deps, "SELECT count(*) AS n FROM chat_messages"))[0]!.n;
    expect((await post("/messages", { body: "hi" }, { "Sec-Fetch-Site": "cross-site" })).status).toBe(403);
    expect(
      (await post("/messages", { body: "hi" }, { Origin: "https://evil.test", "Sec-Fetch-Site": "" })).status,
    ).toBe(403);
    expect((await post("/messages", "body=hi", { "Content-Type": "application/x-www-form-urlencoded" })).status).toBe(
      400,
    );
    expect((await post("/messages", "{not json")).status).toBe(400);
    expect((await post("/messages", "[1,2]")).status).toBe(400);
    expect((await post("/messages", { body: "x".repeat(20_000) })).status).toBe(413);
    const long = await post("/messages", { body: "x".repeat(4001) });
    expect(long.status).toBe(400);
    expect((await long.json()).error).toContain("at most 4000");
    expect((await post("/messages", { body: 42 })).status).toBe(400);
    expect((await post("/messages", { body: "hi" }, { Authorization: "Bearer cv_" + "a".repeat(48) })).status).toBe(
      401,
    );
    expect((await fetch(api("/messages"), { headers: { Authorization: "Bearer nonsense" } })).status).toBe(401);
    expect(
      (
        await fetch(`${s.url}/chat/api/ci_${"1".repeat(24)}/messages`, {
          method: "POST",
          headers: { "Content-Type": "application/json" },
          body: "{}",
        })
      ).status,
    ).toBe(404);
    expect((await rows(s.deps, "SELECT count(*) AS n FROM chat_messages"))[0]!.n).toBe(before);
  });

  test("a visitor token works only on its own inbox", async () => {
    const first = await (await post("/messages", { body: "token check" })).json();
    const other = await tool(agent, "chat_inboxes_create", {
      siteId: (await tool(agent, "chat_inboxes_get", { id: inbox.id })).siteId,
      name: "Other",
    });
    const r = await fetch(`${s.url}/chat/api/${other.widgetKey}/messages`, {
      headers: { Authorization: `Bearer ${first.token}` },
    });
    expect(r.status).toBe(401);
  });

  test("live both ways: the agent's long poll wakes on the visitor's message; the reply arrives on the visitor's stream, the note never", async () => {
    const first = await post("/messages", {
      body: "Hello, <b>anyone</b>?",
      name: "Vera Visitor",
      pageUrl: `${HOST}/menu`,
    });
    expect(first.status).toBe(201);
    const v = await first.json();
    expect(v.token).toMatch(/^cv_/);
    expect(v.message).toMatchObject({ from: "visitor", body: "Hello, <b>anyone</b>?" });
    const { cursor } = await tool(agent, "chat_messages_wait", {});
    const stream = listen(v.token);
    // The agent waits; the visitor writes meanwhile.
    const waiting = tool(agent, "chat_messages_wait", { after: cursor, timeoutSeconds: 8 });
    await Bun.sleep(150);
    const sentAt = performance.now();
    const second = await post("/messages", { body: "Do you have oat milk?" }, { Authorization: `Bearer ${v.token}` });
    expect(second.status).toBe(201);
    const woke = await waiting;
    expect(performance.now() - sentAt).toBeLessThan(1500);
    expect(woke.messages.map((m: any) => [m.kind, m.body, m.conversationId])).toEqual([
      ["visitor", "Do you have oat milk?", v.conversation],
    ]);
    expect(woke.cursor).toBe(woke.messages[0].id);
    // The agent answers and notes; only the answer reaches the visitor, at once.
    await tool(agent, "chat_conversations_add_note", { id: v.conversation, body: "VIP-NOTE do not share" });
    const replyAt = performance.now();
    await tool(agent, "chat_conversations_reply", { id: v.conversation, body: "Yes, and almond too." });
    await until(() => stream.got.some((m) => m.body === "Yes, and almond too."));
    const reply = stream.got.find((m) => m.body === "Yes, and almond too.")!;
    expect(reply.receivedAt - replyAt).toBeLessThan(1000);
    expect(reply).toMatchObject({ from: "agent", author: "Alex" });
    await Bun.sleep(300);
    expect(JSON.stringify(stream.got)).not.toContain("VIP-NOTE");
    // The stream caught up on the visitor's own earlier messages and sent each once.
    const ids = stream.got.map((m) => m.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(stream.got.map((m) => m.body)).toEqual([
      "Hello, <b>anyone</b>?",
      "Do you have oat milk?",
      "Yes, and almond too.",
    ]);
    // Resuming after the last id misses nothing and repeats nothing.
    stream.stop();
    await tool(agent, "chat_conversations_reply", { id: v.conversation, body: "Anything else?" });
    const again = listen(v.token, reply.id);
    await until(() => again.got.length >= 1);
    await Bun.sleep(200);
    expect(again.got.map((m) => m.body)).toEqual(["Anything else?"]);
    again.stop();
    // The thread as the widget loads it.
    const thread = await (await fetch(api("/messages"), { headers: { Authorization: `Bearer ${v.token}` } })).json();
    expect(thread.messages.map((m: any) => m.from)).toEqual(["visitor", "visitor", "agent", "agent"]);
    expect(JSON.stringify(thread)).not.toContain("VIP-NOTE");
    // Another company's agent sees none of it.
    expect((await callTool(rival, "chat_conversations_get", { id: v.conversation })).isError).toBe(true);
    const rw = await tool(rival, "chat_messages_wait", { after: 0, timeoutSeconds: 0 });
    expect(rw.messages).toEqual([]);
  });

  test("a stream opened after an idle spell gets only what follows `after`, nothing written while nobody listened", async () => {
    const v = await (await post("/messages", { body: "idle 1" })).json();
    const auth = { Authorization: `Bearer ${v.token}` };
    await post("/messages", { body: "idle 2" }, auth);
    const third = await (await post("/messages", { body: "idle 3" }, auth)).json();
    const stream = listen(v.token, third.message.id);
    await Bun.sleep(150);
    await tool(agent, "chat_conversations_reply", { id: v.conversation, body: "after idle" });
    await until(() => stream.got.length >= 1);
    await Bun.sleep(200);
    stream.stop();
    expect(stream.got.map((m) => m.body)).toEqual(["after idle"]);
  });

  test("the visitor leaves an email and gets the transcript (no notes); the profile is validated", async () => {
    const v = await (await post("/messages", { body: "Send me this chat" })).json();
    const auth = { Authorization: `Bearer ${v.token}` };
    await tool(agent, "chat_conversations_add_note", { id: v.conversation, body: "NOTE-NOT-FOR-MAIL" });
    expect((await post("/transcript", {}, auth)).status).toBe(400);
    expect((await post("/profile", { email: "not an email" }, auth)).status).toBe(400);
    const p = await post("/profile", { email: "Vera@Example.com", name: "Vera" }, auth);
    expect(await p.json()).toEqual({ name: "Vera", email: "vera@example.com" });
    const t = await post("/transcript", {}, auth);
    expect(t.status).toBe(200);
    expect(await t.json()).toEqual({ to: "vera@example.com", messages: 1 });
    const mail = (await rows(s.deps, "SELECT * FROM mail_outbox WHERE tag = 'chat.transcript' ORDER BY id DESC"))[0]!;
    expect(mail.text).toContain("Send me this chat");
    expect(mail.text).not.toContain("NOTE-NOT-FOR-MAIL");
  });

  test("agents' SSE feed: credential and scope checked; visitor messages and notes arrive live; after= resumes", async () => {
    const feed = (q: string, token: string | null) =>
      fetch(`${s.url}/chat/agent/stream${q}`, { headers: token ? { Authorization: `Bearer ${token}` } : {} });
    expect((await feed("", null)).status).toBe(401);
    expect((await feed("", "svc_mcp_" + "0".repeat(64))).status).toBe(401);
    expect((await feed("", noChatKey)).status).toBe(403);
    expect((await feed(`?clientId=${rivalCompany}`, agentKey)).status).toBe(400);
    expect((await feed("?after=abc", agentKey)).status).toBe(400);
    const feedStream = listenSse(`${s.url}/chat/agent/stream`, { Authorization: `Bearer ${readKey}` });
    const got = feedStream.got;
    await Bun.sleep(100);
    const v = await (await post("/messages", { body: "agent feed check", name: "Feed Visitor" })).json();
    await until(() => got.some((m) => m.body === "agent feed check"));
    await tool(agent, "chat_conversations_add_note", { id: v.conversation, body: "feed note" });
    await until(() => got.some((m) => m.body === "feed note"));
    expect(got.find((m) => m.body === "agent feed check")).toMatchObject({
      kind: "visitor",
      conversationId: v.conversation,
      visitor: { name: "Feed Visitor" },
    });
    expect(got.find((m) => m.body === "feed note")).toMatchObject({
      kind: "note",
      internal: true,
      user: { name: "Alex Agent" },
    });
    feedStream.stop();
    // Resuming after the visitor's message replays exactly what followed.
    const ctl2 = new AbortController();
    const r2 = await fetch(`${s.url}/chat/agent/stream?after=${v.message.id}`, {
      headers: { Authorization: `Bearer ${readKey}` },
      signal: ctl2.signal,
    });
    const rd2 = r2.body!.getReader();
    let text = "";
    while (!text.includes("feed note")) text += new TextDecoder().decode((await rd2.read()).value);
    ctl2.abort();
    expect(text).not.toContain("agent feed check");
  });

  test("on the real server, the snooze job reopens a conversation when the clock passes snoozedUntil, and events are delivered", async () => {
    s.clock.advance(120_000); // a fresh minute of the per-address post allowance
    const v = await (await post("/messages", { body: "remind me later" })).json();
    const sn = await tool(agent, "chat_conversations_snooze", { id: v.conversation, minutes: 30 });
    expect(sn.status).toBe("snoozed");
    s.clock.advance(29 * 60_000);
    await s.jobs.runDue();
    expect((await tool(agent, "chat_conversations_get", { id: v.conversation })).status).toBe("snoozed");
    s.clock.advance(60_000);
    await s.jobs.runDue();
    expect((await tool(agent, "chat_conversations_get", { id: v.conversation })).status).toBe("open");
    await s.dispatcher.drain();
    const ev = await rows(
      s.deps,
      "SELECT data FROM events WHERE type = 'chat.conversation_status_changed' ORDER BY id DESC LIMIT 1",
    );
    expect(JSON.stringify(ev[0]!.data)).toContain("snooze_ended");
  });

  test("posts are rate limited per address (20 a minute), refilled a minute later", async () => {
    s.clock.advance(120_000);
    let status = 0;
    let n = 0;
    for (; n < 30; n++) {
      status = (await post("/messages", { body: `spam ${n}` })).status;
      if (status === 429) break;
    }
    expect(status).toBe(429);
    expect(n).toBe(20);
    s.clock.advance(60_000);
    expect((await post("/messages", { body: "later" })).status).toBe(201);
  });
});

/** One SSE record as sent: its `id:` (absent on status records), event name and data. */
interface Rec {
  id: string | null;
  event: string | null;
  data: any;
}

/**
 * The visitor's stream as the frame opens it (`status=1`), every record kept
 * with its id and event name; `lastEventId` resumes the way EventSource does
 * (the header, no `after`).
 */
function follow(token: string, o: { after?: number; lastEventId?: number; status?: boolean } = {}) {
  const got: Rec[] = [];
  let raw = "";
  const ctl = new AbortController();
  const q = [o.status === false ? "" : "status=1", o.after !== undefined ? `after=${o.after}` : ""]
    .filter(Boolean)
    .join("&");
  const headers: Record<string, string> = { Authorization: `Bearer ${token}`, "Sec-Fetch-Site": "same-origin" };
  if (o.lastEventId !== undefined) headers["Last-Event-ID"] = String(o.lastEventId);
  void (async () => {
    const r = await fetch(api(`/stream?${q}`), { headers, signal: ctl.signal });
    expect(r.status).toBe(200);
    await readSse(
      r.body!,
      (e) => {
        raw += `${e.raw}\n\n`;
        got.push({ id: e.id, event: e.event, data: e.data });
      },
      ctl.signal,
    );
  })().catch(() => {});
  return {
    got,
    raw: () => raw,
    statuses: () => got.filter((r) => r.event === "status").map((r) => r.data),
    messages: () => got.filter((r) => r.event === "message").map((r) => r.data),
    stop: () => ctl.abort(),
  };
}

const open = (conversation: number) => ({ conversation, status: "open", reopensFor: null });
const resolved = (conversation: number, reopensFor = 86_400) => ({ conversation, status: "resolved", reopensFor });

describe("the widget is told its conversation's status", () => {
  test("an agent's resolve and reopen reach the visitor's open stream; pending and snooze show as open; only the status, and only to that visitor", async () => {
    s.clock.advance(120_000); // a fresh minute of the per-address allowances
    // The other visitor's conversation is the OLDER one: a status sent to every widget would then pass the stream's
    // "is this your current conversation" check, and show here.
    const other = await (await post("/messages", { body: "other visitor" })).json();
    const v = await (
      await post("/messages", { body: "resolve me", name: "Rosa Resolve", email: "rosa@example.test" })
    ).json();
    expect(v.conversation).toBeGreaterThan(other.conversation);
    const mine = follow(v.token, { after: v.message.id });
    const theirs = follow(other.token, { after: other.message.id });
    const plain = follow(v.token, { after: v.message.id, status: false });
    // On connect: the current status, no messages (none after `after`).
    await until(() => mine.statuses().length === 1 && theirs.statuses().length === 1);
    expect(mine.statuses()).toEqual([open(v.conversation)]);
    expect(theirs.statuses()).toEqual([open(other.conversation)]);

    // Agent-only changes reach no widget: a note, assignment, priority, labels, pending, a snooze.
    await tool(agent, "chat_conversations_add_note", { id: v.conversation, body: "NOTE-SECRET about Rosa" });
    await tool(agent, "chat_conversations_assign", { id: v.conversation, assigneeId: "me" });
    await tool(agent, "chat_conversations_update", {
      id: v.conversation,
      priority: "urgent",
      addLabels: ["vip-secret"],
    });
    await tool(agent, "chat_conversations_set_status", { id: v.conversation, status: "pending" });
    await tool(agent, "chat_conversations_snooze", { id: v.conversation, minutes: 60 });

    const t0 = performance.now();
    await tool(agent, "chat_conversations_set_status", { id: v.conversation, status: "resolved" });
    await until(() => mine.statuses().length === 2);
    expect(performance.now() - t0).toBeLessThan(1500);
    expect(mine.statuses()).toEqual([open(v.conversation), resolved(v.conversation)]);
    // Exactly these keys, nothing an agent keeps to themselves; and no id: Last-Event-ID stays the last message's.
    const rec = mine.got.find((r) => r.event === "status" && r.data.status === "resolved")!;
    expect(Object.keys(rec.data).sort()).toEqual(["conversation", "reopensFor", "status"]);
    expect(rec.id).toBeNull();
    // The capture holds the records as sent (so the absences below mean something).
    expect(mine.raw()).toContain(`event: status\ndata: {"conversation":${v.conversation},"status":"resolved"`);
    for (const secret of [
      "NOTE-SECRET",
      "agent@agency.test",
      "Alex",
      "urgent",
      "vip-secret",
      "snoozed",
      "pending",
      "rosa@example.test",
      "Rosa",
    ])
      expect(mine.raw()).not.toContain(secret);

    await tool(agent, "chat_conversations_set_status", { id: v.conversation, status: "open" });
    await until(() => mine.statuses().length === 3);
    expect(mine.statuses()[2]).toEqual(open(v.conversation));

    // The visitor writes after a resolve: the same conversation is reopened, and the stream says so after the message.
    await tool(agent, "chat_conversations_set_status", { id: v.conversation, status: "resolved" });
    await until(() => mine.statuses().length === 4);
    const again = await (
      await post("/messages", { body: "one more thing" }, { Authorization: `Bearer ${v.token}` })
    ).json();
    expect(again.conversation).toBe(v.conversation);
    await until(() => mine.statuses().length === 5);
    expect(mine.statuses().slice(3)).toEqual([resolved(v.conversation), open(v.conversation)]);
    expect(mine.messages().map((m) => m.body)).toEqual(["one more thing"]);

    // A reply that resolves: the message, then the status.
    await tool(agent, "chat_conversations_reply", { id: v.conversation, body: "Glad to help!", status: "resolved" });
    await until(() => mine.statuses().length === 6);
    expect(mine.got.slice(-2).map((r) => r.event)).toEqual(["message", "status"]);

    await Bun.sleep(300);
    mine.stop();
    theirs.stop();
    plain.stop();
    // The other visitor of the same inbox heard nothing of it, and a stream that did not ask for statuses got messages only.
    expect(theirs.got).toEqual([{ id: null, event: "status", data: open(other.conversation) }]);
    expect(theirs.raw()).toContain(`"conversation":${other.conversation}`);
    expect(theirs.raw()).not.toContain(`"conversation":${v.conversation}`);
    expect(plain.got.map((r) => r.event)).toEqual(["message", "message"]);
    expect(plain.raw()).toContain("event: message");
    expect(plain.raw()).not.toContain("event: status");
  });

  test("a widget that was away while its conversation was resolved resumes by Last-Event-ID: missed messages, then the current status; past 24 hours a message starts a new conversation", async () => {
    s.clock.advance(120_000);
    const v = await (await post("/messages", { body: "before the drop" })).json();
    const first = follow(v.token, { after: v.message.id });
    await until(() => first.statuses().length === 1);
    first.stop();
    // While nobody listens: a reply, and a resolve.
    const rep = await tool(agent, "chat_conversations_reply", {
      id: v.conversation,
      body: "answered while you were away",
    });
    await tool(agent, "chat_conversations_set_status", { id: v.conversation, status: "resolved" });
    s.clock.advance(3600_000);
    const back = follow(v.token, { lastEventId: v.message.id });
    await until(() => back.statuses().length === 1);
    await Bun.sleep(200);
    // The message keeps its id (what the next resume starts from); the status comes after it, with none.
    expect(back.got).toEqual([
      {
        id: String(rep.messageId),
        event: "message",
        data: expect.objectContaining({ body: "answered while you were away" }),
      },
      { id: null, event: "status", data: resolved(v.conversation, 23 * 3600) },
    ]);
    back.stop();

    // The thread the frame loads says it too (a field added beside the old ones).
    const thread = await (await fetch(api("/messages"), { headers: { Authorization: `Bearer ${v.token}` } })).json();
    expect(Object.keys(thread).sort()).toEqual(["messages", "status", "visitor"]);
    expect(thread.status).toEqual(resolved(v.conversation, 23 * 3600));

    // A day later the rule has turned: the widget is told a message starts a new conversation, and that is what happens.
    s.clock.advance(23 * 3600_000 + 1000);
    const later = follow(v.token, { lastEventId: rep.messageId });
    await until(() => later.statuses().length === 1);
    expect(later.statuses()).toEqual([resolved(v.conversation, 0)]);
    const fresh = await (
      await post("/messages", { body: "new question" }, { Authorization: `Bearer ${v.token}` })
    ).json();
    expect(fresh.conversation).toBeGreaterThan(v.conversation);
    await until(() => later.statuses().length === 2);
    expect(later.statuses()[1]).toEqual(open(fresh.conversation));
    // The old conversation stays resolved; its changes no longer move the widget, which follows the newest.
    expect((await tool(agent, "chat_conversations_get", { id: v.conversation })).status).toBe("resolved");
    await tool(agent, "chat_conversations_set_status", { id: v.conversation, status: "open" });
    await tool(agent, "chat_conversations_set_status", { id: fresh.conversation, status: "resolved" });
    await until(() => later.statuses().length === 3);
    await Bun.sleep(300);
    later.stop();
    expect(later.statuses().slice(2)).toEqual([resolved(fresh.conversation)]);
  });

  test("status follows only for status=1: hostile values of it get the plain stream; status is refused without the visitor's token, and on another company's inbox", async () => {
    s.clock.advance(120_000);
    const v = await (await post("/messages", { body: "status input check" })).json();
    const auth = { Authorization: `Bearer ${v.token}`, "Sec-Fetch-Site": "same-origin" };
    for (const q of [
      "status=%3Cscript%3Ealert(1)%3C%2Fscript%3E",
      "status=true",
      "status=1%00",
      "status=01",
      `status=${"1".repeat(5000)}`,
      "status[]=1",
    ]) {
      const ctl = new AbortController();
      const r = await fetch(api(`/stream?${q}`), { headers: auth, signal: ctl.signal });
      expect(r.status).toBe(200);
      const events: (string | null)[] = [];
      const reading = readSse(r.body!, (e) => void events.push(e.event), ctl.signal);
      await until(() => events.length === 1);
      await Bun.sleep(50);
      ctl.abort();
      await reading;
      expect(events).toEqual(["message"]);
    }
    // Without a token, with a made-up one, and with a real one on another company's inbox: refused, never a status.
    const rivalSite = (
      await s.deps.db.insert(sites).values({ companyId: rivalCompany, name: "Rival site" }).returning()
    )[0]!;
    const rivalInbox = await tool(rival, "chat_inboxes_create", {
      siteId: rivalSite.id,
      name: "Rival chat",
      allowedOrigins: [HOST],
    });
    const asks: [string, Record<string, string>][] = [
      [api("/stream?status=1"), { "Sec-Fetch-Site": "same-origin" }],
      [api("/stream?status=1"), { Authorization: "Bearer cv_" + "0".repeat(43), "Sec-Fetch-Site": "same-origin" }],
      [`${s.url}/chat/api/${rivalInbox.widgetKey}/stream?status=1`, auth],
      [`${s.url}/chat/api/${rivalInbox.widgetKey}/messages`, auth],
    ];
    for (const [url, headers] of asks) {
      const r = await fetch(url, { headers });
      expect(r.status).toBe(401);
      const body = await r.json();
      expect(body).toEqual({ error: expect.any(String) });
      expect(JSON.stringify(body)).not.toContain("status");
    }
  });
});
