/**
 * Over the real wire: an agent plans and runs a project through the MCP
 * endpoint with the official SDK client (cards by key, moves by column
 * name, a WIP refusal it can read, a sprint and its burndown), a viewer and
 * a read-only key are held back, and the toolsets narrow the listing.
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
let agent: Client;
let keys: { owner: string; viewer: string; readOnly: string; multi: string };
let co: { id: number; name: string };

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  s.clock.set(new Date("2026-03-02T09:00:00Z"));
  const owner = await createUser(s.deps, { email: "lead@agency.test", name: "Lena Lead" });
  const dev = await createUser(s.deps, { email: "dev@agency.test", name: "Dev Eloper" });
  const viewer = await createUser(s.deps, { email: "client@agency.test" });
  co = await createCompany(s.deps, { name: "Agency", ownerUserId: owner.id });
  const other = await createCompany(s.deps, { name: "Side Gig", ownerUserId: owner.id });
  await addMember(s.deps, co.id, dev.id, "admin");
  await addMember(s.deps, co.id, viewer.id, "viewer");
  keys = {
    owner: (await mintMcpKey(s.deps, { userId: owner.id, scopes: ["projects:*"], companyIds: [co.id] })).key,
    viewer: (await mintMcpKey(s.deps, { userId: viewer.id, scopes: ["projects:*"], companyIds: [co.id] })).key,
    readOnly: (await mintMcpKey(s.deps, { userId: owner.id, scopes: ["projects:read"], companyIds: [co.id] })).key,
    multi: (await mintMcpKey(s.deps, { userId: owner.id, scopes: ["*"], companyIds: [co.id, other.id] })).key,
  };
  agent = await mcpClient(s.url, keys.owner);
});
afterAll(async () => {
  await agent?.close();
  await s.stop();
});

const tool = (name: string, args: Record<string, unknown>, c = agent) => toolOk(c, name, args);

describe("an agent runs a sprint over MCP", () => {
  test("plan, work the board by keys and column names, read a WIP refusal, burn down", async () => {
    const p = await tool("projects_create", { name: "Client Portal", key: "CP", members: ["dev@agency.test"] });
    expect(p.key).toBe("CP");
    await tool("project_labels_create", { projectId: "CP", name: "Frontend" });
    for (const [title, estimate] of [
      ["Login page", 3],
      ["Dashboard", 5],
      ["Invoices list", 2],
    ] as const)
      await tool("cards_create", {
        projectId: "CP",
        title,
        estimate,
        labels: ["frontend"],
        assignees: ["dev@agency.test"],
      });
    const sprint = await tool("sprints_create", {
      projectId: "CP",
      startDate: "2026-03-02",
      endDate: "2026-03-06",
      goal: "First usable portal",
    });
    await tool("sprint_cards_add", { sprintId: sprint.id, cardIds: ["CP-1", "CP-2", "CP-3"] });
    expect(await tool("sprints_start", { id: sprint.id })).toMatchObject({ committedPoints: 10, cards: 3 });

    const progress = (await tool("projects_get", { id: "CP" })).boards[0].columns.find(
      (c: any) => c.name === "In progress",
    );
    await tool("board_columns_update", { id: progress.id, wipLimit: 1 });
    await tool("cards_move", { id: "CP-1", columnId: "in progress" });
    const refused = await callTool(agent, "cards_move", { id: "CP-2", columnId: "In progress" });
    expect(refused.isError).toBe(true);
    expect(refused.text).toStartWith('Conflict: Column "In progress" is at its WIP limit: 1 of 1 cards (CP-1)');

    s.clock.set(new Date("2026-03-03T15:00:00Z"));
    await tool("cards_move", { id: "CP-1", columnId: "done" });
    await tool("time_logs_create", { cardId: "CP-1", minutes: 240, note: "Form and validation" });
    await tool("card_comments_create", { cardId: "CP-2", body: "@dev the dashboard is next" });
    s.clock.set(new Date("2026-03-04T12:00:00Z"));
    const mine = await tool("cards_list", {
      assignee: "dev@agency.test",
      sprintId: "active",
      stateGroups: ["backlog", "unstarted", "started"],
    });
    expect(mine.items.map((c: any) => c.key)).toEqual(["CP-2", "CP-3"]);
    const b = await tool("sprints_burndown", { id: sprint.id });
    expect(b.points.map((x: any) => [x.date, x.remainingPoints])).toEqual([
      ["2026-03-02", 10],
      ["2026-03-03", 7],
      ["2026-03-04", 7],
    ]);
    const card = await tool("cards_get", { id: "CP-1", include: ["activity"] });
    expect(card).toMatchObject({ key: "CP-1", column: { stateGroup: "done" }, timeLogged: { minutes: 240 } });
  });

  test("a retried create with the same idempotencyKey makes one card", async () => {
    const args = { projectId: "CP", title: "Retry me", idempotencyKey: "c0ffee-1" };
    const first = await tool("cards_create", args);
    const again = await tool("cards_create", args);
    expect(again).toMatchObject({ key: first.key, replayed: true });
    expect((await tool("cards_list", { search: "Retry me" })).total).toBe(1);
  });

  test("arguments a model gets wrong are answered in words it can act on", async () => {
    const r = await callTool(agent, "cards_get", { id: { key: "CP-1" } });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("id");
    const bad = await callTool(agent, "cards_create", { projectId: "CP", title: "x", labels: ["Backend"] });
    expect(bad.text).toBe('Invalid input: Label "Backend" is not a label of project CP; its labels: Frontend.');
    const unknown = await callTool(agent, "cards_list", { project: "CP" });
    expect(unknown.text).toContain('unknown argument "project"');
  });
});

describe("priority names read back as written", () => {
  test("a card shows priority and priorityName; either is accepted on create, update and the list filter", async () => {
    const c = await tool("cards_create", { projectId: "CP", title: "Named priority", priority: "high" });
    const shown = async () => {
      const g = await tool("cards_get", { id: c.key });
      return [g.priority, g.priorityName];
    };
    expect(await shown()).toEqual([2, "high"]);
    await tool("cards_update", { id: c.key, priority: "urgent" });
    const [, name] = await shown();
    expect(name).toBe("urgent");
    // What the card shows, written back, leaves it as it was; the number still works.
    await tool("cards_update", { id: c.key, priority: name });
    expect(await shown()).toEqual([1, "urgent"]);
    await tool("cards_update", { id: c.key, priority: 1 });
    expect(await shown()).toEqual([1, "urgent"]);
    const listed = await tool("cards_list", { projectId: "CP", priorities: ["urgent"], search: "Named priority" });
    expect(listed.items.map((x: { key: string }) => x.key)).toEqual([c.key]);
    const bad = await callTool(agent, "cards_update", { id: c.key, priority: "highest" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("priority");
  });
});

describe("who may do what", () => {
  test("a viewer reads the board but every write is Forbidden", async () => {
    const viewer = await mcpClient(s.url, keys.viewer);
    try {
      expect((await tool("cards_get", { id: "CP-1" }, viewer)).key).toBe("CP-1");
      const r = await callTool(viewer, "cards_move", { id: "CP-3", columnId: "done" });
      expect(r.isError).toBe(true);
      expect(r.text).toStartWith("Forbidden");
      expect(r.text).toContain("viewer");
    } finally {
      await viewer.close();
    }
  });

  test("a read-only key lists no write tool, and calling one is an unknown tool", async () => {
    const list = await (await rawMcp(s.url, keys.readOnly, { jsonrpc: "2.0", id: 1, method: "tools/list" })).json();
    const names = list.result.tools.map((t: any) => t.name);
    expect(names).toContain("cards_list");
    expect(names).toContain("sprints_burndown");
    expect(names).not.toContain("cards_move");
    const r = await (
      await rawMcp(s.url, keys.readOnly, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "cards_move", arguments: { id: "CP-1", columnId: "done" } },
      })
    ).json();
    expect(r.error.message).toStartWith("cards_move needs the projects:write scope,");
  });

  test("several companies need clientId; toolsets narrow the listing", async () => {
    const r = await (
      await rawMcp(s.url, keys.multi, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "cards_list", arguments: {} },
      })
    ).json();
    expect(r.result.content[0].text).toStartWith("clientId is required");
    const ok = await (
      await rawMcp(s.url, keys.multi, {
        jsonrpc: "2.0",
        id: 2,
        method: "tools/call",
        params: { name: "cards_list", arguments: { clientId: co.id, search: "login" } },
      })
    ).json();
    expect(JSON.parse(ok.result.content[0].text).items[0].key).toBe("CP-1");
    const narrowed = await (
      await rawMcp(s.url, keys.owner, { jsonrpc: "2.0", id: 3, method: "tools/list" }, { "X-MCP-Toolsets": "sprints" })
    ).json();
    const names: string[] = narrowed.result.tools.map((t: any) => t.name);
    expect(names.filter((n) => n !== "whoami").every((n) => n.startsWith("sprint"))).toBe(true);
    expect(names).toContain("sprints_velocity");
  });
});
