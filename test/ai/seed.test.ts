/** The demo's AI part: conversations, a credit ledger with a budget, and connected integrations with health, per demo company, as the tools show them. */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { callTool, mcpClient } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer();
});
afterAll(() => s.stop());

test("AI history, credits and integrations of both demo companies", async () => {
  const c = await mcpClient(s.url, s.demo!.mcpKey);
  const northwind = s.demo!.companies.find((x) => x.name === "Northwind Studio")!.id;
  const harbor = s.demo!.companies.find((x) => x.name === "Harbor Coffee Roasters")!.id;
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await callTool(c, name, args);
    if (r.isError) throw new Error(`${name}: ${r.text}`);
    return r.data;
  };
  // The demo user owns Northwind: every conversation there, including Priya's.
  const nw = await call("ai_conversations_list", { clientId: northwind, email: "priya@northwind.example" });
  expect(nw.total).toBe(1);
  expect(nw.items[0]).toMatchObject({
    calls: 4,
    errors: 1,
    credential: { kind: "oauth", name: "plinth_client_demo_zed" },
  });
  const claude = (await call("ai_conversations_list", { clientId: northwind, tool: "posts_create" })).items[0];
  expect(claude.oauthClientId).toBe("plinth_client_demo_claude");
  expect(claude.session).toBe("session:9f2c1e7a-claude-desktop");
  const got = await call("ai_conversations_get", { clientId: northwind, id: claude.id });
  expect(got.calls.items.map((x: any) => x.tool)).toEqual(["whoami", "posts_list", "posts_create", "approvals_list"]);
  expect(got.calls.items[2].args.blocks).toBe("[6 items]");
  // The demo user is an admin of Harbor: Maya's Cursor session shows there.
  const hb = await call("ai_conversations_list", { clientId: harbor });
  expect(hb.items.map((x: any) => x.userEmail)).toContain("maya@harborcoffee.example");

  const bal = await call("ai_credits_balance", { clientId: northwind });
  expect(bal.balance).toBe(5000 - 120 - 45 - 600 - 80 - 10);
  expect(bal.budget.monthlyLimit).toBe(1500);
  const ledger = await call("ai_credits_ledger", { clientId: northwind, limit: 100 });
  expect(ledger.total).toBe(6);
  let run = 0;
  for (const e of [...ledger.items].reverse()) {
    run += e.amount;
    expect(e.balanceAfter).toBe(run);
  }
  // Harbor: 1000 granted, 240 + 30 spent, a cancelled campaign that paid 60 and got 42 back.
  expect((await call("ai_credits_balance", { clientId: harbor })).balance).toBe(1000 - 240 - 60 + 42 - 30);
  const refunds = await call("ai_credits_ledger", { clientId: harbor, kind: "refund" });
  expect(refunds.items.map((e: any) => [e.amount, e.reason, e.ref])).toEqual([
    [42, "email.send", "campaign:weekend-offer"],
  ]);
  const nwClients = (await call("integrations_list", { clientId: northwind, kind: "oauth_client" })).items
    .map((x: any) => x.name)
    .sort();
  expect(nwClients).toEqual(["Claude Desktop", "Zed"]);
  // Zed's latest call succeeded after its failed one: active, with the error still shown.
  const zed = (await call("integrations_list", { clientId: northwind, kind: "oauth_client" })).items.find(
    (x: any) => x.name === "Zed",
  );
  expect(zed.status).toBe("active");
  expect(zed.health.lastError).toContain("timesheet_get: Invalid arguments");

  for (const [company, name] of [
    [northwind, "Claude Desktop"],
    [harbor, "Cursor"],
  ] as const) {
    const list = await call("integrations_list", { clientId: company });
    const kinds = list.items.map((x: any) => x.kind).sort();
    // The demo's renderer webhook (db/seed/demo-automations) is listed too.
    expect([...new Set(kinds)]).toEqual(["embeddings", "oauth_client", "object_storage", "smtp", "webhook"]);
    const oauth = list.items.find((x: any) => x.kind === "oauth_client" && x.name === name);
    expect(oauth.health.lastSuccessAt).not.toBeNull();
    expect(oauth.health.expiresAt).not.toBeNull();
    const storage = list.items.find((x: any) => x.kind === "object_storage");
    expect(storage.health.lastError).toContain("storage briefly unreachable");
    expect(storage.status).toBe("configured"); // the error is older than the last success
  }
});
