/**
 * Contract gaps of interface.md 5.3 (issue 29, item 8), over the real wire
 * with the SDK client: a tool is listed and callable only when the key's
 * scopes cover everything its verb checks (ToolDef.alsoNeeds), and a
 * brain:approve key can read the review queue it decides. The verbs still
 * refuse on their own: the registry is what a client sees, the verb is the
 * correctness check.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import * as v from "valibot";
import type { Client } from "@modelcontextprotocol/client";
import type { ActorContext } from "../../src/core/context";
import { AppError } from "../../src/core/errors";
import { registry } from "../../src/mcp/routes";
import { startTestServer, type TestServer } from "../harness";
import {
  addMember,
  callTool,
  createCompany,
  createUser,
  mcpClient,
  mintMcpKey,
  rawMcp,
  toolOk,
} from "../fixtures/accounts";

let s: TestServer;
let owner: { id: number };
let co: { id: number; name: string };
const clients: Client[] = [];

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  owner = await createUser(s.deps, { email: "lead@agency.test", name: "Lena Lead" });
  co = await createCompany(s.deps, { name: "Agency", ownerUserId: owner.id });
});
afterAll(async () => {
  for (const c of clients) await c.close();
  await s.stop();
});

async function keyWith(scopes: string[], userId = owner.id) {
  return (await mintMcpKey(s.deps, { userId, scopes, companyIds: [co.id] })).key;
}
async function clientWith(scopes: string[], userId = owner.id) {
  const c = await mcpClient(s.url, await keyWith(scopes, userId));
  clients.push(c);
  return c;
}
async function listed(c: Client): Promise<Set<string>> {
  return new Set((await c.listTools()).tools.map((t) => t.name));
}
/** A tools/call over raw HTTP: the JSON-RPC error message, or null when the call reached the tool. */
async function refusal(key: string, name: string, args: Record<string, unknown>): Promise<string | null> {
  const r = await rawMcp(s.url, key, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name, arguments: args },
  });
  const body = await r.json();
  return body.error?.message ?? null;
}

const CRM_TOOLS = ["brain_contacts_list", "brain_deals_list"];
const SEND_TOOLS = [
  "email_campaigns_send",
  "email_campaigns_schedule",
  "email_campaigns_pause",
  "email_campaigns_resume",
  "email_campaigns_cancel",
  "email_campaigns_test",
  "email_transactional_send",
];

describe("brain:approve reads the review queue it decides", () => {
  test("a brain:approve-only key lists, reads and approves a pending review", async () => {
    const writer = await clientWith(["brain:*"]);
    const doc = await toolOk(writer, "brain_documents_create", { title: "Pricing sheet", body: "Old prices\n" });
    // Deleting a document is always reviewed.
    const held = await toolOk(writer, "brain_records_delete", { id: doc.id });
    expect(held.status).toBe("in_review");

    const admin = await createUser(s.deps, { email: "boss@agency.test" });
    await addMember(s.deps, co.id, admin.id, "admin");
    const approver = await clientWith(["brain:approve"], admin.id);
    const names = await listed(approver);
    for (const n of ["brain_reviews_list", "brain_reviews_get", "brain_reviews_approve", "brain_reviews_reject"])
      expect(names.has(n)).toBe(true);
    // Not writes: approving is not writing.
    expect(names.has("brain_notes_create")).toBe(false);

    const list = await toolOk(approver, "brain_reviews_list", { status: "pending" });
    expect(list.items.map((i: { id: number; tool: string }) => [i.id, i.tool])).toEqual([
      [held.review.id, "brain_records_delete"],
    ]);
    const one = await toolOk(approver, "brain_reviews_get", { id: held.review.id });
    expect(one.record).toMatchObject({ id: doc.id, title: "Pricing sheet" });
    expect((await toolOk(approver, "brain_reviews_approve", { id: held.review.id })).ok).toBe(true);
    expect((await callTool(approver, "brain_records_get", { id: doc.id })).isError).toBe(true);
  });

  test("brain:approve grants no write", async () => {
    const approver = await clientWith(["brain:approve"]);
    expect(
      await refusal(await keyWith(["brain:approve"]), "brain_notes_create", { title: "x", body: "y" }),
    ).toStartWith("brain_notes_create needs the brain:write scope");
    expect((await listed(approver)).has("brain_records_delete")).toBe(false);
  });
});

describe("a tool is listed only when the scopes cover everything it needs", () => {
  test("brain:read alone lists none of the CRM and projects reads; crm:read adds the CRM ones", async () => {
    const alone = await listed(await clientWith(["brain:read"]));
    expect(alone.has("brain_search")).toBe(true);
    for (const n of [...CRM_TOOLS, "brain_work_items_list"]) expect(alone.has(n)).toBe(false);
    const withCrm = await listed(await clientWith(["brain:read", "crm:read"]));
    for (const n of CRM_TOOLS) expect(withCrm.has(n)).toBe(true);
    expect(withCrm.has("brain_work_items_list")).toBe(false);
    const withProjects = await listed(await clientWith(["brain:read", "projects:write"]));
    expect(withProjects.has("brain_work_items_list")).toBe(true);
    for (const n of CRM_TOOLS) expect(withProjects.has(n)).toBe(false);
  });

  test("a call to a hidden tool is refused before it runs; with the scope it runs", async () => {
    const key = await keyWith(["brain:read"]);
    for (const n of [...CRM_TOOLS, "brain_work_items_list"])
      expect(await refusal(key, n, {})).toStartWith(
        `${n} needs the ${n === "brain_work_items_list" ? "projects:read" : "crm:read"} scope, which this credential does not have.`,
      );
    expect(await refusal(await keyWith(["brain:read", "crm:read"]), "brain_contacts_list", {})).toBeNull();
  });

  test("email:send alone lists none of the sending tools; with email:write it lists them all", async () => {
    const alone = await listed(await clientWith(["email:send"]));
    for (const n of SEND_TOOLS) expect(alone.has(n)).toBe(false);
    const key = await keyWith(["email:send"]);
    expect(await refusal(key, "email_campaigns_send", { id: 1 })).toStartWith(
      "email_campaigns_send needs the email:write scope, which this credential does not have.",
    );
    const both = await listed(await clientWith(["email:send", "email:write"]));
    for (const n of SEND_TOOLS) expect(both.has(n)).toBe(true);
    // email:write alone still sends nothing.
    const write = await listed(await clientWith(["email:write"]));
    for (const n of SEND_TOOLS) expect(write.has(n)).toBe(false);
  });

  test("toolsets_list counts only the tools the key may call", async () => {
    const c = await mcpClient(s.url, await keyWith(["email:send"]), { headers: { "X-MCP-Discovery": "1" } });
    clients.push(c);
    const r = await callTool(c, "toolsets_list", {});
    expect(r.isError).toBe(false);
    expect(JSON.stringify(r.data)).not.toContain('"email"');
  });

  test("the verbs refuse on their own, whatever lists them", async () => {
    const ctx = {
      deps: s.deps,
      principal: { kind: "mcp_key", userId: owner.id, scopes: ["email:send"], companies: [] },
      company: { id: co.id, name: co.name, role: "owner" },
      requestId: "t",
    } as unknown as ActorContext;
    const reg = registry();
    for (const n of SEND_TOOLS) {
      const e = await Promise.resolve()
        .then(() => reg.byName.get(n)!.def.run(ctx, { id: 1, to: "a@b.test", templateId: 1, subject: "x" }))
        .then(
          () => null,
          (x) => x,
        );
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe("forbidden");
      expect((e as AppError).message).toContain("email:write");
    }
    const brainCtx = { ...ctx, principal: { ...ctx.principal, scopes: ["brain:read"] } } as ActorContext;
    for (const [n, scope] of [...CRM_TOOLS.map((x) => [x, "crm:read"]), ["brain_work_items_list", "projects:read"]]) {
      const e = await Promise.resolve()
        .then(() => {
          const def = reg.byName.get(n!)!.def;
          return def.run(brainCtx, v.parse(def.input, {}));
        })
        .then(
          () => null,
          (x) => x,
        );
      expect((e as AppError).code).toBe("forbidden");
      expect((e as AppError).message).toContain(scope);
    }
  });
});
