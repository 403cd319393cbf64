/**
 * Over the real wire with the official MCP SDK client: an agent records a
 * meeting, finds it with brain_search, cites it with brain_context, reads
 * project cards through the projects domain; an agent under review gets a
 * review link that the owner approves in the same server; a viewer and a
 * read-only key are held back; a hostile query is a tool error a model can read.
 * Relation names read back as written: what a record shows can be written again.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { startTestServer, type TestServer } from "../harness";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { RELATION_NAMES } from "../../src/domains/brain/links";

let s: TestServer;
let agent: Client;
let keys: { owner: string; viewer: string; readOnly: string; supervised: string; approver: string };

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  s.clock.set(new Date("2026-03-02T09:00:00Z"));
  const owner = await createUser(s.deps, { email: "lead@agency.test", name: "Lena Lead" });
  const viewer = await createUser(s.deps, { email: "client@agency.test" });
  const admin = await createUser(s.deps, { email: "boss@agency.test", name: "Bo Boss" });
  const co = await createCompany(s.deps, { name: "Agency", ownerUserId: owner.id });
  await addMember(s.deps, co.id, viewer.id, "viewer");
  await addMember(s.deps, co.id, admin.id, "admin");
  keys = {
    owner: (await mintMcpKey(s.deps, { userId: owner.id, scopes: ["brain:*", "projects:*"], companyIds: [co.id] })).key,
    viewer: (await mintMcpKey(s.deps, { userId: viewer.id, scopes: ["brain:*"], companyIds: [co.id] })).key,
    readOnly: (await mintMcpKey(s.deps, { userId: owner.id, scopes: ["brain:read"], companyIds: [co.id] })).key,
    supervised: (await mintMcpKey(s.deps, { userId: owner.id, scopes: ["brain:write"], companyIds: [co.id] })).key,
    approver: (
      await mintMcpKey(s.deps, { userId: admin.id, scopes: ["brain:approve", "brain:read"], companyIds: [co.id] })
    ).key,
  };
  agent = await mcpClient(s.url, keys.owner);
});
afterAll(async () => {
  await agent?.close();
  await s.stop();
});

const tool = (name: string, args: Record<string, unknown>, c = agent) => toolOk(c, name, args);

describe("an agent keeps the brain after a meeting", () => {
  test("record, find, cite", async () => {
    const m = await tool("brain_meetings_create", {
      title: "Northwind kickoff",
      at: "2026-03-02T10:00:00Z",
      attendees: ["ana@northwind.test"],
      body: "Northwind wants the relaunch before the trade fair in May.",
      decisions: ["Relaunch on 28 April"],
      actionItems: [{ text: "Send the sitemap draft", due: "2026-03-06" }],
      topics: ["Northwind relaunch"],
      idempotencyKey: "kickoff-1",
    });
    expect(m.tasksCreated).toHaveLength(1);
    const again = await tool("brain_meetings_create", {
      title: "Northwind kickoff",
      at: "2026-03-02T10:00:00Z",
      attendees: ["ana@northwind.test"],
      body: "Northwind wants the relaunch before the trade fair in May.",
      decisions: ["Relaunch on 28 April"],
      actionItems: [{ text: "Send the sitemap draft", due: "2026-03-06" }],
      topics: ["Northwind relaunch"],
      idempotencyKey: "kickoff-1",
    });
    expect(again.id).toBe(m.id);
    const found = await tool("brain_search", { query: "trade fair" });
    expect(found.items.map((i: { id: number }) => i.id)).toEqual([m.id]);
    expect(found.items[0].snippet).toContain("«trade» «fair»");
    const ctx = await tool("brain_context", { question: "When is the Northwind relaunch?" });
    expect(ctx.passages[0].recordId).toBe(m.id);
    const r = await callTool(agent, "brain_search", { query: '"(((' });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("no words to search for");
  });

  test("project cards are read through the projects domain, with their source", async () => {
    await tool("projects_create", { name: "Northwind relaunch", key: "NW" });
    await tool("cards_create", { projectId: "NW", title: "Sitemap" });
    const cards = await tool("brain_work_items_list", { project: "NW" });
    expect(cards.source).toBe("projects");
    expect(cards.items.map((c: { key: string }) => c.key)).toEqual(["NW-1"]);
    // brain:read alone does not cover the projects:read the verb checks: the tool is hidden, and a call says which scope it needs.
    const ro = await mcpClient(s.url, keys.readOnly);
    try {
      expect((await ro.listTools()).tools.map((t) => t.name)).not.toContain("brain_work_items_list");
      await expect(callTool(ro, "brain_work_items_list", {})).rejects.toThrow(
        "brain_work_items_list needs the projects:read scope",
      );
    } finally {
      await ro.close();
    }
  });

  test("a supervised key's write waits for an approver with brain:approve", async () => {
    const sup = await mcpClient(s.url, keys.supervised);
    const app = await mcpClient(s.url, keys.approver);
    try {
      await tool("brain_review_policy_set", { review: true }, sup);
      const held = await tool(
        "brain_notes_create",
        { title: "Pricing idea", body: "Bundle SEO with the relaunch." },
        sup,
      );
      expect(held.status).toBe("in_review");
      expect((await tool("brain_search", { query: "bundle" })).total).toBe(0);
      // Hidden from a key without brain:approve (and refused by the verb if called anyway).
      await expect(callTool(sup, "brain_reviews_approve", { id: held.review.id })).rejects.toThrow(
        "brain_reviews_approve needs the brain:approve scope",
      );
      const got = await tool("brain_reviews_get", { id: held.review.id }, app);
      expect(got.changes.map((c: { field: string }) => c.field)).toEqual(["title", "body"]);
      expect((await tool("brain_reviews_approve", { id: held.review.id }, app)).ok).toBe(true);
      expect((await tool("brain_search", { query: "bundle" })).total).toBe(1);
    } finally {
      await sup.close();
      await app.close();
    }
  });

  test("a viewer and a read-only key read but cannot write", async () => {
    for (const key of [keys.viewer, keys.readOnly]) {
      const c = await mcpClient(s.url, key);
      try {
        expect((await tool("brain_search", { query: "northwind" }, c)).total).toBeGreaterThan(0);
        if (key === keys.readOnly)
          await expect(callTool(c, "brain_notes_create", { title: "Nope" })).rejects.toThrow(
            "brain_notes_create needs the brain:write scope",
          );
        else {
          const r = await callTool(c, "brain_notes_create", { title: "Nope" });
          expect(r.isError).toBe(true);
          expect(r.text).toContain("viewer");
        }
      } finally {
        await c.close();
      }
    }
  });
});

describe("relation names read back as they are written", () => {
  type Shown = { type: string; direction: string; record: { id: number } };
  const shown = async (id: number) =>
    ((await tool("brain_relations_list", { id })).relations as Shown[]).map((r) => [r.type, r.record.id]);

  test("a meeting's attendee and action_item, as the meeting shows them, are written back by those names", async () => {
    const m = await tool("brain_meetings_create", {
      title: "Read-back review",
      at: "2026-03-03T10:00:00Z",
      attendees: ["ruth@readback.test"],
      actionItems: [{ text: "Send the minutes" }],
    });
    const before = await shown(m.id);
    expect(before.map(([type]) => type).sort()).toEqual(["action_item", "attendee"]);
    // Each relation as the meeting shows it: removed and added back under the name it is shown by.
    for (const [type, other] of before) {
      expect(await tool("brain_relations_remove", { fromId: m.id, type, toId: other })).toMatchObject({
        type,
        changed: true,
      });
      expect(await shown(m.id)).not.toContainEqual([type, other]);
      expect(await tool("brain_relations_add", { fromId: m.id, type, toId: other })).toEqual({
        fromId: m.id,
        type,
        toId: other,
        status: "related",
        changed: true,
      });
    }
    expect((await shown(m.id)).sort()).toEqual([...before].sort());
    // The other end reads the forward name; the old names still write the same relation.
    const [, person] = before.find(([type]) => type === "attendee")!;
    expect(await shown(person as number)).toEqual([["attended", m.id]]);
    expect((await tool("brain_relations_add", { fromId: person, type: "attended", toId: m.id })).changed).toBe(false);
  });

  test("every accepted name, written from one record to another, is read back from the first under that name", async () => {
    const a = await tool("brain_notes_create", { title: "Read-back A" });
    const b = await tool("brain_notes_create", { title: "Read-back B" });
    for (const type of RELATION_NAMES) {
      await tool("brain_relations_add", { fromId: a.id, type, toId: b.id });
      const r = (await tool("brain_relations_list", { id: a.id, type })).relations as Shown[];
      expect([type, r.map((x) => x.record.id)]).toEqual([type, [b.id]]);
      await tool("brain_relations_remove", { fromId: a.id, type, toId: b.id });
      expect(await shown(a.id)).toEqual([]);
    }
    // A name no record shows is refused, naming the argument.
    const bad = await callTool(agent, "brain_relations_list", { id: a.id, type: "attends" });
    expect(bad.isError).toBe(true);
    expect(bad.text).toContain("type");
  });
});
