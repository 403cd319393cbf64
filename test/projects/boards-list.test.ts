/**
 * boards_list over the real wire (interface.md 5.3: projects:read names
 * kanban boards and columns): a project's boards, by id or key, each with
 * its columns in order, WIP limits and card counts, paged by board. Bad
 * input is a tool error that says what is wrong; another company's project
 * is not found; a viewer may read; a key without projects:read never sees
 * the tool.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
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
let owner: Client;
let rival: Client;
const clients: Client[] = [];
let co: { id: number };
let ownerId: number;

async function client(userId: number, scopes: string[], companyIds: number[]) {
  const c = await mcpClient(s.url, (await mintMcpKey(s.deps, { userId, scopes, companyIds })).key);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  const lead = await createUser(s.deps, { email: "lead@agency.test", name: "Lena Lead" });
  const them = await createUser(s.deps, { email: "boss@rival.test" });
  ownerId = lead.id;
  co = await createCompany(s.deps, { name: "Agency", ownerUserId: lead.id });
  const other = await createCompany(s.deps, { name: "Rival", ownerUserId: them.id });
  owner = await client(lead.id, ["projects:*"], [co.id]);
  rival = await client(them.id, ["projects:*"], [other.id]);
  await toolOk(rival, "projects_create", { name: "Secret", key: "SEC" });
}, 30_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await s.stop();
});

describe("boards_list", () => {
  test("lists a project's boards in order with columns, WIP limits, card counts and points", async () => {
    const p = await toolOk(owner, "projects_create", { name: "Web", key: "WEB" });
    const ops = await toolOk(owner, "boards_create", {
      projectId: "WEB",
      name: "Ops",
      columns: [
        { name: "Queue", stateGroup: "unstarted" },
        { name: "Doing", stateGroup: "started", wipLimit: 1 },
        { name: "Shipped", stateGroup: "done" },
      ],
    });
    await toolOk(owner, "cards_create", { projectId: "WEB", title: "A", estimate: 3 });
    await toolOk(owner, "cards_create", { projectId: "WEB", title: "B", estimate: 2 });
    const doing = ops.columns.find((c: { name: string }) => c.name === "Doing").id;
    await toolOk(owner, "cards_create", { projectId: "WEB", title: "C", columnId: doing, estimate: 5 });

    const r = await toolOk(owner, "boards_list", { projectId: "web" });
    expect(r).toMatchObject({ projectId: p.id, projectKey: "WEB", total: 2, offset: 0, nextOffset: null });
    expect(r.items.map((b: { name: string }) => b.name)).toEqual(["Board", ops.name]);
    const [main, second] = r.items;
    expect(main.id).toBe(p.board.id);
    expect(main.cardCount).toBe(2);
    expect(main.columns.map((c: { name: string }) => c.name)).toEqual([
      "Backlog",
      "To do",
      "In progress",
      "In review",
      "Done",
      "Cancelled",
    ]);
    expect(main.columns[0]).toEqual({
      id: p.board.columns[0].id,
      name: "Backlog",
      stateGroup: "backlog",
      wipLimit: null,
      cardCount: 2,
      points: 5,
    });
    expect(second.cardCount).toBe(1);
    expect(second.columns).toEqual([
      { id: ops.columns[0].id, name: "Queue", stateGroup: "unstarted", wipLimit: null, cardCount: 0, points: 0 },
      { id: doing, name: "Doing", stateGroup: "started", wipLimit: 1, cardCount: 1, points: 5, atWipLimit: true },
      { id: ops.columns[2].id, name: "Shipped", stateGroup: "done", wipLimit: null, cardCount: 0, points: 0 },
    ]);
    // By id as well as by key, and the same as projects_get shows.
    expect(await toolOk(owner, "boards_list", { projectId: p.id })).toEqual(r);
    const got = await toolOk(owner, "projects_get", { id: "WEB" });
    expect(got.boards.map((b: { id: number }) => b.id)).toEqual(r.items.map((b: { id: number }) => b.id));
  });

  test("pages by board", async () => {
    const first = await toolOk(owner, "boards_list", { projectId: "WEB", limit: 1 });
    expect(first).toMatchObject({ total: 2, limit: 1, offset: 0, nextOffset: 1 });
    expect(first.items.map((b: { name: string }) => b.name)).toEqual(["Board"]);
    const next = await toolOk(owner, "boards_list", { projectId: "WEB", limit: 1, offset: 1 });
    expect(next).toMatchObject({ nextOffset: null });
    expect(next.items.map((b: { name: string }) => b.name)).toEqual(["Ops"]);
    expect((await toolOk(owner, "boards_list", { projectId: "WEB", offset: 5 })).items).toEqual([]);
  });

  test("bad input says what is wrong", async () => {
    const missing = await callTool(owner, "boards_list", {});
    expect(missing.isError).toBe(true);
    expect(missing.text).toContain("projectId");
    const big = await callTool(owner, "boards_list", { projectId: "WEB", limit: 1000 });
    expect(big.isError).toBe(true);
    expect(big.text).toContain("limit");
    const unknown = await callTool(owner, "boards_list", { projectId: "NOPE" });
    expect(unknown.isError).toBe(true);
    expect(unknown.text).toContain("Project NOPE not found");
  });

  test("another company's project is not found, by key or by id", async () => {
    const theirs = await toolOk(rival, "boards_list", { projectId: "SEC" });
    expect(theirs.items).toHaveLength(1);
    for (const ref of ["SEC", theirs.projectId]) {
      const r = await callTool(owner, "boards_list", { projectId: ref });
      expect(r.isError).toBe(true);
      expect(r.text).toContain("not found");
      expect(r.text).not.toContain("Board");
    }
  });

  test("a viewer and a read-only key may list; a key without projects:read never sees it", async () => {
    const viewer = await createUser(s.deps, { email: "client@agency.test" });
    await addMember(s.deps, co.id, viewer.id, "viewer");
    for (const c of [
      await client(viewer.id, ["projects:*"], [co.id]),
      await client(ownerId, ["projects:read"], [co.id]),
    ])
      expect((await toolOk(c, "boards_list", { projectId: "WEB" })).total).toBe(2);
    const crm = await client(ownerId, ["crm:read"], [co.id]);
    expect((await crm.listTools()).tools.some((t) => t.name === "boards_list")).toBe(false);
    const key = (await mintMcpKey(s.deps, { userId: ownerId, scopes: ["crm:read"], companyIds: [co.id] })).key;
    const r = await rawMcp(s.url, key, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "boards_list", arguments: { projectId: "WEB" } },
    });
    expect((await r.json()).error.message).toStartWith("boards_list needs the projects:read scope");
  });
});
