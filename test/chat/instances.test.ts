/**
 * Two Plinth servers on one PostgreSQL database (LISTEN/NOTIFY between
 * them), as behind a load balancer. PostgreSQL only: SQLite deployments
 * are one process, where the hub hears every commit directly. a widget's stream on one instance gets the reply an agent
 * sends through the other, an agent's long poll on one wakes on a
 * visitor's message written through the other, a portal page streaming
 * from one shows a conversation resolved over MCP on the other, and so does
 * the visitor's widget.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { sites } from "../../src/domains/sites/tables";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { ON_PG } from "../db";
import { readSse } from "../fixtures/sse";
import { Browser } from "../oauth/helpers";

const PASSWORD = "a long passphrase for tests";

let a: TestServer;
let b: TestServer;
let agentOnB: Client;
let key: string;

beforeAll(async () => {
  if (!ON_PG) return;
  a = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  // One clock for both, as two machines kept in time: what one writes (resolvedAt) the other counts from.
  b = await startTestServer({
    seed: false,
    clock: a.clock,
    config: { rateLimit: 100_000, databaseUrl: a.config.databaseUrl },
  });
  const u = await createUser(a.deps, { email: "agent@agency.test", name: "Alex Agent", password: PASSWORD });
  const co = await createCompany(a.deps, { name: "Agency", ownerUserId: u.id });
  const site = (await a.deps.db.insert(sites).values({ companyId: co.id, name: "Brew" }).returning())[0]!;
  agentOnB = await mcpClient(
    b.url,
    (await mintMcpKey(a.deps, { userId: u.id, scopes: ["chat:*"], companyIds: [co.id] })).key,
  );
  const r = await callTool(agentOnB, "chat_inboxes_create", { siteId: site.id, name: "Brew chat" });
  key = r.data.widgetKey;
});
afterAll(async () => {
  await agentOnB?.close();
  await b?.stop();
  await a?.stop();
});

test.skipIf(!ON_PG)(
  "a reply written on B reaches the visitor streaming from A; a visitor writing on A wakes the agent waiting on B",
  async () => {
    const first = await fetch(`${a.url}/chat/api/${key}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ body: "hello from A" }),
    });
    const v = await first.json();
    const got: string[] = [];
    const ctl = new AbortController();
    void (async () => {
      const r = await fetch(`${a.url}/chat/api/${key}/stream?after=${v.message.id}`, {
        headers: { Authorization: `Bearer ${v.token}` },
        signal: ctl.signal,
      });
      const rd = r.body!.getReader();
      const dec = new TextDecoder();
      try {
        for (;;) {
          const x = await rd.read();
          if (x.done) break;
          for (const l of dec.decode(x.value).split("\n"))
            if (l.startsWith("data: ")) got.push(JSON.parse(l.slice(6)).body);
        }
      } catch {}
    })();
    await Bun.sleep(200);
    const t0 = performance.now();
    const rep = await callTool(agentOnB, "chat_conversations_reply", { id: v.conversation, body: "hello from B" });
    expect(rep.isError).toBe(false);
    while (!got.includes("hello from B") && performance.now() - t0 < 3000) await Bun.sleep(10);
    expect(got).toEqual(["hello from B"]);
    expect(performance.now() - t0).toBeLessThan(1500);
    ctl.abort();

    const { data: start } = await callTool(agentOnB, "chat_messages_wait", {});
    const waiting = callTool(agentOnB, "chat_messages_wait", { after: start.cursor, timeoutSeconds: 8 });
    await Bun.sleep(200);
    const t1 = performance.now();
    await fetch(`${a.url}/chat/api/${key}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${v.token}` },
      body: JSON.stringify({ body: "second, on A" }),
    });
    const woke = (await waiting).data;
    expect(performance.now() - t1).toBeLessThan(1500);
    expect(woke.messages.map((m: any) => m.body)).toEqual(["second, on A"]);
  },
);

test.skipIf(!ON_PG)("a conversation resolved over MCP on B reaches the portal page streaming from A", async () => {
  const first = await fetch(`${a.url}/chat/api/${key}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ body: "status please" }),
  });
  const v = await first.json();
  const portal = new Browser(a.config.publicUrl);
  expect((await portal.signIn("agent@agency.test", PASSWORD)).status).toBe(303);
  const html = await (await portal.get(`/chat/${v.conversation}`)).text();
  const changes = /data-changes="(\d+)"/.exec(html)![1];
  const ctl = new AbortController();
  const got: any[] = [];
  void (async () => {
    const r = await fetch(new URL(`/chat/${v.conversation}/stream?changes=${changes}`, a.url), {
      headers: { cookie: portal.jar.header() },
      signal: ctl.signal,
    });
    const rd = r.body!.getReader();
    const dec = new TextDecoder();
    let buf = "";
    try {
      for (;;) {
        const x = await rd.read();
        if (x.done) break;
        buf += dec.decode(x.value);
        for (const m of buf.matchAll(/event: conversation\ndata: (.*)\n/g)) got.push(JSON.parse(m[1]!));
        buf = buf.slice(buf.lastIndexOf("\n\n") + 2);
      }
    } catch {}
  })();
  await Bun.sleep(300);
  const t0 = performance.now();
  expect(
    (await callTool(agentOnB, "chat_conversations_set_status", { id: v.conversation, status: "resolved" })).isError,
  ).toBe(false);
  while (!got.some((c) => c.status === "resolved") && performance.now() - t0 < 3000) await Bun.sleep(10);
  expect(got.at(-1)).toMatchObject({ id: v.conversation, status: "resolved" });
  expect(performance.now() - t0).toBeLessThan(1500);
  ctl.abort();
});

test.skipIf(!ON_PG)(
  "a conversation resolved and reopened over MCP on B reaches the visitor's widget streaming from A",
  async () => {
    const first = await fetch(`${a.url}/chat/api/${key}/messages`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ body: "are you there?" }),
    });
    const v = await first.json();
    const ctl = new AbortController();
    const statuses: any[] = [];
    void (async () => {
      const r = await fetch(`${a.url}/chat/api/${key}/stream?status=1&after=${v.message.id}`, {
        headers: { Authorization: `Bearer ${v.token}` },
        signal: ctl.signal,
      });
      await readSse(r.body!, (e) => e.event === "status" && statuses.push(e.data), ctl.signal);
    })().catch(() => {});
    const wait = async (n: number) => {
      const t = performance.now();
      while (statuses.length < n && performance.now() - t < 3000) await Bun.sleep(10);
      return performance.now() - t;
    };
    await wait(1);
    expect(statuses).toEqual([{ conversation: v.conversation, status: "open", reopensFor: null }]);
    expect(
      (await callTool(agentOnB, "chat_conversations_set_status", { id: v.conversation, status: "resolved" })).isError,
    ).toBe(false);
    expect(await wait(2)).toBeLessThan(1500);
    expect(statuses[1]).toEqual({ conversation: v.conversation, status: "resolved", reopensFor: 86_400 });
    expect(
      (await callTool(agentOnB, "chat_conversations_set_status", { id: v.conversation, status: "open" })).isError,
    ).toBe(false);
    expect(await wait(3)).toBeLessThan(1500);
    expect(statuses[2]).toEqual({ conversation: v.conversation, status: "open", reopensFor: null });
    ctl.abort();
  },
);
