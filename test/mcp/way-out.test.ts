/**
 * Errors that show the way out (issue 29, item 6), over the real wire with
 * the official SDK client: a tool the scopes hide says which scope it needs
 * (a name that does not exist, or a tool the client's own narrowing hides,
 * keeps "Unknown tool"; a role refusal stays a Forbidden tool result), an
 * unknown argument is named together with the missing one it stands for,
 * and toolsets_list names each toolset's scopes.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { catalog } from "../../src/catalog";
import { startTestServer, type TestServer } from "../harness";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";

let s: TestServer;
let keys: { brainRead: string; all: string; viewer: string };
const open: Client[] = [];

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  const owner = await createUser(s.deps, { email: "owner@way-out.test" });
  const viewer = await createUser(s.deps, { email: "viewer@way-out.test" });
  const co = await createCompany(s.deps, { name: "Way Out", ownerUserId: owner.id });
  await addMember(s.deps, co.id, viewer.id, "viewer");
  const key = async (userId: number, scopes: string[]) =>
    (await mintMcpKey(s.deps, { userId, scopes, companyIds: [co.id] })).key;
  keys = {
    brainRead: await key(owner.id, ["brain:read"]),
    all: await key(owner.id, ["*"]),
    viewer: await key(viewer.id, ["brain:*"]),
  };
});
afterAll(async () => {
  for (const c of open) await c.close();
  await s?.stop();
});

async function client(token: string, headers?: Record<string, string>) {
  const c = await mcpClient(s.url, token, { headers });
  open.push(c);
  return c;
}

/** The JSON-RPC error a tools/call answers (the SDK throws it), as code and message. */
async function refusal(c: Client, name: string, args: Record<string, unknown> = {}) {
  try {
    await c.callTool({ name, arguments: args });
  } catch (e) {
    return { code: (e as { code?: number }).code, message: (e as Error).message };
  }
  throw new Error(`${name} was not refused`);
}

const NEEDS_APPROVE =
  'brain_reviews_approve needs the brain:approve scope, which this credential does not have. Ask for a key with it (plinth mcp-keys create … --scopes "brain:approve") or reconnect and grant it.';

describe("a tool the scopes hide", () => {
  test("stays out of tools/list, and calling it names the scope it needs", async () => {
    const c = await client(keys.brainRead);
    const names = (await c.listTools()).tools.map((t) => t.name);
    expect(names).toContain("brain_reviews_get");
    expect(names).not.toContain("brain_reviews_approve");
    const r = await refusal(c, "brain_reviews_approve", { id: 1 });
    expect(r.code).toBe(-32602);
    expect(r.message).toContain(NEEDS_APPROVE);
  });

  test("the scope wins over the client's narrowing: narrowed away and not granted still names the scope", async () => {
    const c = await client(keys.brainRead, { "X-MCP-Toolsets": "crm" });
    expect((await refusal(c, "brain_reviews_approve", { id: 1 })).message).toContain(NEEDS_APPROVE);
  });

  test("a name that does not exist keeps Unknown tool", async () => {
    const c = await client(keys.brainRead);
    const r = await refusal(c, "brain_reviews_approvex", { id: 1 });
    expect(r.code).toBe(-32602);
    expect(r.message).toContain("Unknown tool: brain_reviews_approvex.");
    expect(r.message).not.toContain("scope");
  });

  test("a tool the client's own narrowing hides keeps Unknown tool", async () => {
    const narrowed = await client(keys.all, { "X-MCP-Toolsets": "crm" });
    const r = await refusal(narrowed, "brain_reviews_approve", { id: 1 });
    expect(r.code).toBe(-32602);
    expect(r.message).toContain("Unknown tool: brain_reviews_approve.");
    expect(r.message).not.toContain("scope");
    const readOnly = await client(keys.all, { "X-MCP-Readonly": "true" });
    expect((await refusal(readOnly, "brain_notes_create", { title: "x" })).message).toContain(
      "Unknown tool: brain_notes_create.",
    );
  });

  test("a viewer whose scopes cover the tool is still refused for its role, as a tool result", async () => {
    const c = await client(keys.viewer);
    const r = await callTool(c, "brain_reviews_approve", { id: 1 });
    expect(r.isError).toBe(true);
    expect(r.text).toStartWith("Forbidden: ");
    expect(r.text).toContain("viewer");
  });
});

describe("arguments", () => {
  test("an unknown argument is named together with the missing one", async () => {
    const c = await client(keys.all);
    const r = await callTool(c, "card_checklist_items_add", { cardId: "CP-1", text: "Write the brief" });
    expect(r.isError).toBe(true);
    expect(r.text).toBe(
      'Invalid arguments: unknown argument "text" and missing items; accepted: cardId, items, idempotencyKey',
    );
    // Every missing one is named.
    expect((await callTool(c, "card_checklist_items_add", { text: "x" })).text).toBe(
      'Invalid arguments: unknown argument "text" and missing cardId, items; accepted: cardId, items, idempotencyKey',
    );
  });

  test("the other messages are as they were", async () => {
    const c = await client(keys.all);
    const text = async (args: Record<string, unknown>) => (await callTool(c, "card_checklist_items_add", args)).text;
    expect(await text({ cardId: "CP-1" })).toBe("Invalid arguments: missing items");
    expect(await text({ cardId: "CP-1", Items: ["x"] })).toBe(
      "Invalid arguments: missing items (did you mean Items → items?)",
    );
    expect(await text({ cardId: "CP-1", items: ["x"], text: "y" })).toBe(
      'Invalid arguments: unknown argument "text"; accepted: cardId, items, idempotencyKey',
    );
  });
});

describe("toolsets_list", () => {
  test("names every scope each toolset's tools need, held or not, in the domains' order", async () => {
    const c = await client(keys.brainRead, { "X-MCP-Discovery": "true" });
    const r = await callTool(c, "toolsets_list", {});
    expect(r.data.toolsets).toEqual([
      {
        name: "brain",
        description: expect.any(String),
        tools: expect.any(Number),
        scopes: ["brain:read", "brain:write", "brain:approve"],
      },
    ]);
  });

  test("with every scope, every toolset names declared scopes of its own area", async () => {
    const c = await client(keys.all, { "X-MCP-Discovery": "true" });
    const sets: { name: string; scopes: string[] }[] = (await callTool(c, "toolsets_list", {})).data.toolsets;
    expect(sets.length).toBeGreaterThan(20);
    for (const ts of sets) {
      expect(ts.scopes.length).toBeGreaterThan(0);
      for (const sc of ts.scopes) expect(catalog.scopes).toContain(sc);
    }
    expect(sets.find((ts) => ts.name === "email")?.scopes).toEqual(["email:read", "email:write", "email:send"]);
  });
});
