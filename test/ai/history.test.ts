/**
 * AI history over a real server: calls made by real MCP clients (the SDK,
 * and raw JSON-RPC where headers and _meta matter) are recorded with a
 * redacted argument summary, status, duration and approval, and grouped
 * into conversations by the client's session or trace id, else by a
 * 30-minute idle gap. Tenancy: another company sees nothing; a viewer sees
 * only their own conversations.
 */
import { buildCatalog } from "../../src/mcp/catalog";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sites } from "../../src/domains/sites/tables";
import {
  flushToolCalls,
  IDLE_GAP_MS,
  observeToolCall,
  recorderStats,
  sessionKeyOf,
} from "../../src/domains/ai/recorder";
import { domains } from "../../src/domains";
import { resolveBearer } from "../../src/domains/accounts/credentials";
import type { Domain } from "../../src/mcp/define";
import { buildRegistry, NO_FILTER } from "../../src/mcp/registry";
import { callTool as mcpCallTool, type McpEnv } from "../../src/mcp/call";
import { summariseArgs } from "../../src/domains/ai/redact";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { row, rows, startTestServer, type TestServer } from "../harness";
import type { Client } from "@modelcontextprotocol/client";

let s: TestServer;
let A: { id: number; name: string };
let B: { id: number; name: string };
let ownerKey: string;
let owner: Client;
let viewer: Client;
let viewerKey: string;
let stranger: Client;
let siteId: number;

async function ok(c: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

async function raw(
  key: string,
  name: string,
  args: Record<string, unknown>,
  extra: { headers?: Record<string, string>; meta?: Record<string, unknown> } = {},
) {
  const res = await rawMcp(
    s.url,
    key,
    {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name, arguments: args, ...(extra.meta && { _meta: extra.meta }) },
    },
    extra.headers,
  );
  expect(res.status).toBe(200);
  return (await res.json()) as any;
}

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  const o = await createUser(s.deps, { email: "olga@agency.test", name: "Olga" });
  const vi = await createUser(s.deps, { email: "vik@agency.test", name: "Vik" });
  const st = await createUser(s.deps, { email: "sam@rival.test", name: "Sam" });
  A = await createCompany(s.deps, { name: "Acme", ownerUserId: o.id });
  B = await createCompany(s.deps, { name: "Rival", ownerUserId: st.id });
  await addMember(s.deps, A.id, vi.id, "viewer");
  siteId = (
    await s.deps.db.insert(sites).values({ companyId: A.id, name: "Acme site" }).returning({ id: sites.id })
  )[0]!.id;
  ownerKey = (await mintMcpKey(s.deps, { userId: o.id, scopes: ["*"], companyIds: [A.id], name: "Olga's laptop" })).key;
  viewerKey = (await mintMcpKey(s.deps, { userId: vi.id, scopes: ["*"], companyIds: [A.id] })).key;
  owner = await mcpClient(s.url, ownerKey);
  viewer = await mcpClient(s.url, viewerKey);
  stranger = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: st.id, scopes: ["*"], companyIds: [B.id] })).key,
  );
});
afterAll(() => s.stop());

describe("recording", () => {
  test("every call is recorded with redacted arguments, status, duration and the approval it minted", async () => {
    const secret = `svc_mcp_${"ab".repeat(32)}`;
    await ok(owner, "whoami");
    const created = await ok(owner, "posts_create", {
      siteId,
      title: "Spring launch",
      excerpt: `paste ${secret} here`,
    });
    expect(created.approval.id).toBeNumber();
    const bad = await callTool(owner, "ai_conversations_search", {
      query: "x",
      password: "hunter2 is my password",
      body: "y".repeat(5000),
    });
    expect(bad.isError).toBe(true);
    await flushToolCalls(s.deps);
    const calls = await rows(s.deps, "SELECT * FROM ai_tool_calls WHERE company_id = ? ORDER BY id", A.id);
    expect(calls.map((c) => c.tool)).toEqual(["whoami", "posts_create", "ai_conversations_search"]);
    const [who, post, search] = calls;
    expect(who!.status).toBe("ok");
    expect(post!.status).toBe("ok");
    expect(Number(post!.approval_id)).toBe(created.approval.id);
    expect(post!.args).not.toContain(secret);
    expect(JSON.parse(post!.args)).toEqual({ siteId, title: "Spring launch", excerpt: "paste [redacted] here" });
    expect(search!.status).toBe("tool_error");
    expect(search!.error).toContain("unknown argument");
    const args = JSON.parse(search!.args);
    expect(args).toEqual({ query: "x", password: "[redacted]", body: "[5,000 chars]" });
    for (const c of calls) {
      expect(Number(c.duration_ms)).toBeGreaterThanOrEqual(0);
      expect(Number(c.duration_ms)).toBeLessThan(10_000);
      expect(c.credential_kind).toBe("mcp_key");
    }
    // The approval link's token is never kept anywhere in history.
    const all = JSON.stringify(await rows(s.deps, "SELECT * FROM ai_tool_calls"));
    expect(all).not.toContain(created.approval.token);
  });

  test("an unknown tool is a protocol error, still recorded", async () => {
    const r = await raw(ownerKey, "posts_explode", {});
    expect(r.error.code).toBe(-32602);
    await flushToolCalls(s.deps);
    const c = await row(s.deps, "SELECT * FROM ai_tool_calls WHERE tool = ?", "posts_explode");
    expect(c!.status).toBe("protocol_error");
    expect(c!.toolset).toBeNull();
  });

  test("calls within the idle gap form one conversation; a longer pause starts another", async () => {
    const key = (
      await mintMcpKey(s.deps, {
        userId: (await row(s.deps, "SELECT id FROM users WHERE email = ?", "olga@agency.test"))!.id,
        scopes: ["*"],
        companyIds: [A.id],
        name: "gap",
      })
    ).key;
    await raw(key, "ai_credits_balance", {});
    s.clock.advance(IDLE_GAP_MS); // exactly the gap: still the same conversation
    await raw(key, "ai_credits_balance", {});
    s.clock.advance(IDLE_GAP_MS + 1); // one millisecond more: a new one
    await raw(key, "ai_credits_ledger", {});
    await flushToolCalls(s.deps);
    const convs = await rows(s.deps, "SELECT * FROM ai_conversations WHERE client_name = 'gap' ORDER BY id");
    expect(convs.map((c) => Number(c.call_count))).toEqual([2, 1]);
    expect(convs[0]!.session_key).toBeNull();
  });

  test("Mcp-Session-Id and _meta trace ids group calls whatever the gap", async () => {
    await raw(ownerKey, "ai_credits_balance", {}, { headers: { "Mcp-Session-Id": "sess-42" } });
    s.clock.advance(5 * 60 * 60_000);
    await raw(ownerKey, "ai_credits_usage", {}, { headers: { "Mcp-Session-Id": "sess-42" } });
    const trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    await raw(ownerKey, "ai_credits_balance", {}, { meta: { traceparent: `00-${trace}-00f067aa0ba902b7-01` } });
    await raw(ownerKey, "ai_credits_ledger", {}, { meta: { traceparent: `00-${trace}-00f067aa0ba902b8-01` } });
    await flushToolCalls(s.deps);
    const sess = await row(s.deps, "SELECT * FROM ai_conversations WHERE session_key = ?", "session:sess-42");
    expect(Number(sess!.call_count)).toBe(2);
    const tr = await row(s.deps, "SELECT * FROM ai_conversations WHERE session_key = ?", `trace:${trace}`);
    expect(Number(tr!.call_count)).toBe(2);
    expect(sessionKeyOf(null, { traceparent: `00-${"0".repeat(32)}-00f067aa0ba902b7-01` })).toBeNull();
    expect(sessionKeyOf("has space", null)).toBeNull();
    expect(sessionKeyOf(null, { sessionId: "s1" })).toBe("session:s1");
  });
});

describe("tools", () => {
  test("ai_conversations_list / get / search in the owner's company", async () => {
    const list = await ok(owner, "ai_conversations_list", { email: "olga@agency.test" });
    expect(list.total).toBeGreaterThanOrEqual(3);
    const first = list.items.find((c: any) => c.tools.includes("posts_create"));
    expect(first.userEmail).toBe("olga@agency.test");
    expect(first.credential).toEqual({ kind: "mcp_key", id: expect.any(Number), name: "Olga's laptop" });
    expect(first.approvals).toBe(1);
    expect(first.errors).toBeGreaterThanOrEqual(1);
    const got = await ok(owner, "ai_conversations_get", { id: first.id });
    expect(got.calls.items.map((c: any) => c.tool).slice(0, 3)).toEqual([
      "whoami",
      "posts_create",
      "ai_conversations_search",
    ]);
    expect(got.calls.items[1].approvalId).toBeNumber();
    const errs = await ok(owner, "ai_conversations_get", { id: first.id, status: "error" });
    expect(errs.calls.items.every((c: any) => c.status !== "ok")).toBe(true);
    const found = await ok(owner, "ai_conversations_search", { query: "spring LAUNCH" });
    expect(found.total).toBe(1);
    expect(found.items[0].id).toBe(first.id);
    expect(found.items[0].lastMatch.tool).toBe("posts_create");
    const byTool = await ok(owner, "ai_conversations_list", { tool: "posts_create" });
    expect(byTool.items.map((c: any) => c.id)).toEqual([first.id]);
    const withErrors = await ok(owner, "ai_conversations_list", { hasErrors: true });
    expect(withErrors.items.every((c: any) => c.errors > 0)).toBe(true);
  });

  test("a list sees the caller's own calls made just before (flushed on read)", async () => {
    await ok(viewer, "ai_credits_balance");
    const mine = await ok(viewer, "ai_conversations_list");
    expect(mine.items.length).toBe(1);
    expect(mine.items[0].userEmail).toBe("vik@agency.test");
  });

  test("a viewer sees only their own conversations; another company sees none of Acme's", async () => {
    const owners = await ok(owner, "ai_conversations_list", { email: "olga@agency.test" });
    const viewerSees = await ok(viewer, "ai_conversations_list", { limit: 100 });
    expect(viewerSees.items.every((c: any) => c.userEmail === "vik@agency.test")).toBe(true);
    const hidden = await callTool(viewer, "ai_conversations_get", { id: owners.items[0].id });
    expect(hidden.isError).toBe(true);
    expect(hidden.text).toContain("not found");
    const foreign = await callTool(stranger, "ai_conversations_get", { id: owners.items[0].id });
    expect(foreign.text).toContain("not found");
    const search = await ok(stranger, "ai_conversations_search", { query: "spring" });
    expect(search.total).toBe(0);
  });

  test("bad input is refused clearly", async () => {
    const r = await callTool(owner, "ai_conversations_list", { since: "yesterday" });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("since must be an ISO 8601");
    const q = await callTool(owner, "ai_conversations_search", { query: " " });
    expect(q.text).toContain("at least 2 characters");
    const hostile = await ok(owner, "ai_conversations_search", { query: "'; DROP TABLE ai_tool_calls; --%_" });
    expect(hostile.total).toBe(0);
    expect((await rows(s.deps, "SELECT count(*) AS n FROM ai_tool_calls"))[0]!.n).toBeDefined();
  });
});

describe("redaction and the hot path", () => {
  test("summaries keep shape, drop secrets and bodies, and stay bounded", () => {
    expect(JSON.parse(summariseArgs({ apiKey: "k", token: "t", nested: { clientSecret: "x", name: "ok" } }))).toEqual({
      apiKey: "[redacted]",
      token: "[redacted]",
      nested: { clientSecret: "[redacted]", name: "ok" },
    });
    expect(
      JSON.parse(summariseArgs({ blocks: [{ type: "p" }, { type: "h2" }], html: "<p>" + "a".repeat(100) + "</p>" })),
    ).toEqual({ blocks: "[2 items]", html: "[107 chars]" });
    expect(JSON.parse(summariseArgs({ ids: [1, 2, 3, 4, 5, 6, 7] }))).toEqual({ ids: [1, 2, 3, 4, 5, "… 2 more"] });
    expect(JSON.parse(summariseArgs({ note: "Authorization: Bearer abc.def-ghi" })).note).toBe(
      "Authorization: [redacted]",
    );
    const long = summariseArgs(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, "v".repeat(79)])));
    expect(long.length).toBeLessThanOrEqual(1000);
    expect(() => JSON.parse(long)).not.toThrow();
  });

  test("an observer that throws never fails the call it observes", async () => {
    const boom: Domain = {
      name: "boom",
      title: "Boom",
      description: "throws",
      tools: [],
      toolCallObservers: [
        () => {
          throw new Error("observer down");
        },
      ],
    };
    const reg = buildRegistry(buildCatalog([...domains, boom]));
    const principal = (await resolveBearer(s.deps, ownerKey))!;
    const env: McpEnv = { deps: s.deps, principal, registry: reg, filter: NO_FILTER, requestId: "t" };
    const r = await mcpCallTool(env, "ai_credits_balance", {});
    expect(r.isError).toBeFalsy();
    expect(JSON.parse(r.content[0]!.text).companyId).toBe(A.id);
  });

  test("the observer only queues: thousands of calls cost milliseconds, and the queue is bounded when the database stalls", () => {
    const stalled = { store: { closed: false, transaction: () => new Promise(() => {}) }, clock: s.deps.clock } as any;
    const principal = {
      userId: 1,
      credential: { kind: "mcp_key", id: 1, name: "k" },
      scopes: [],
      companies: [],
      requireCmsApproval: false,
    } as any;
    const call = (i: number) => ({
      deps: stalled,
      principal,
      companyId: 1,
      tool: "posts_list",
      toolset: "cms",
      args: { siteId: i, q: "x".repeat(200) },
      meta: null,
      sessionId: null,
      outcome: "ok" as const,
      resultText: "{}",
      startedAt: new Date(),
      durationMs: 1,
      requestId: "r",
    });
    const t0 = performance.now();
    for (let i = 0; i < 5_000; i++) observeToolCall(call(i));
    const ms = performance.now() - t0;
    expect(ms).toBeLessThan(250); // < 50 µs a call even on a loaded machine; typically ~1 µs
    for (let i = 0; i < 8_000; i++) observeToolCall(call(i));
    const st = recorderStats(stalled);
    // 200 went to the (stalled) writer, 10,000 wait, the remaining 2,800 were dropped and counted.
    expect(st.waiting).toBe(10_000);
    expect(st.dropped).toBe(2_800);
  });

  test("many calls over HTTP are all written, none dropped", async () => {
    const before = recorderStats(s.deps);
    const t0 = performance.now();
    const N = 40;
    await Promise.all(Array.from({ length: N }, () => raw(ownerKey, "ai_credits_balance", {})));
    const perCall = (performance.now() - t0) / N;
    expect(perCall).toBeLessThan(200); // ms per call over HTTP, loaded machine; the recorder's own share is checked below
    await flushToolCalls(s.deps);
    expect(recorderStats(s.deps).written - before.written).toBeGreaterThanOrEqual(N);
    expect(recorderStats(s.deps).dropped).toBe(before.dropped);
  });
});
