/**
 * Over the wire: people hear about cards through their notifications inbox
 * (read back with each person's own MCP key). Newly assigned people are
 * notified once per assignment (create, update, bulk), people @mentioned in
 * a comment are notified, an edit notifies only the newly mentioned, and
 * nobody is told what they did themself.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { sql } from "drizzle-orm";
import { eventCursors, events } from "../../src/core/tables";
import { startTestServer, type TestServer } from "../harness";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";

let s: TestServer;
let lead: Client;
let dev: Client;
let designer: Client;

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mcpRateLimit: 100_000 } });
  s.clock.set(new Date("2026-03-02T09:00:00Z"));
  // Events are delivered by drain() alone, so "nothing more" is an observation, not a race.
  await s.dispatcher.stop();
  const owner = await createUser(s.deps, { email: "lead@agency.test", name: "Lena Lead" });
  const d = await createUser(s.deps, { email: "dev@agency.test", name: "Dev Eloper" });
  const g = await createUser(s.deps, { email: "gina@agency.test", name: "Gina Design" });
  const co = await createCompany(s.deps, { name: "Agency", ownerUserId: owner.id });
  await addMember(s.deps, co.id, d.id, "admin");
  await addMember(s.deps, co.id, g.id, "admin");
  const key = async (userId: number) => (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [co.id] })).key;
  lead = await mcpClient(s.url, await key(owner.id));
  dev = await mcpClient(s.url, await key(d.id));
  designer = await mcpClient(s.url, await key(g.id));
});
afterAll(async () => {
  for (const c of [lead, dev, designer]) await c?.close();
  await s.stop();
});

const tool = toolOk;
/**
 * Drains until every subscriber has passed every event. One drain is not
 * always enough on PostgreSQL: an event is read only once every older
 * transaction has finished (src/core/dispatcher.ts), and a job of the server
 * may hold one open for a moment, so the drain finds nothing yet.
 */
async function caughtUp() {
  for (let i = 0; i < 250; i++) {
    await s.dispatcher.drain();
    const behind = await s.deps.db
      .select({ id: events.id })
      .from(events)
      .innerJoin(eventCursors, sql`(${events.tx}, ${events.id}) > (${eventCursors.lastTx}, ${eventCursors.lastId})`)
      .limit(1);
    if (!behind.length) return;
    await Bun.sleep(20);
  }
  throw new Error("the dispatcher did not catch up within 5 s");
}

/** The caller's card and mention notices, oldest first, after the dispatcher caught up. */
async function inbox(c: Client) {
  await caughtUp();
  const r = await tool(c, "notifications_list", { view: "all", limit: 100 });
  return r.items
    .filter((n: any) => n.type === "card.assigned" || n.type === "comment.mentioned")
    .map((n: any) => [n.type, n.title, n.body])
    .reverse();
}

describe("card notices", () => {
  test("assignment notifies the newly assigned only, once, never the actor", async () => {
    await tool(lead, "projects_create", {
      name: "Client Portal",
      key: "CP",
      members: ["dev@agency.test", "gina@agency.test"],
    });
    await tool(lead, "cards_create", {
      projectId: "CP",
      title: "Login page",
      priority: 2,
      dueDate: "2026-03-06",
      assignees: ["dev@agency.test", "lead@agency.test"],
    });
    expect(await inbox(dev)).toEqual([
      ["card.assigned", "CP-1 Login page", "Assigned to you in Client Portal (high priority, due 2026-03-06)."],
    ]);
    expect(await inbox(lead)).toEqual([]);
    // Adding Gina tells Gina; Dev, already on it, hears nothing more.
    await tool(lead, "cards_update", {
      id: "CP-1",
      assignees: ["dev@agency.test", "lead@agency.test", "gina@agency.test"],
    });
    expect(await inbox(designer)).toEqual([
      ["card.assigned", "CP-1 Login page", "Assigned to you in Client Portal (high priority, due 2026-03-06)."],
    ]);
    expect(await inbox(dev)).toHaveLength(1);
    // Dev assigns himself a card by bulk update: not told; Gina, added in the same call, is.
    await tool(lead, "cards_create", { projectId: "CP", title: "Dashboard" });
    await tool(dev, "cards_bulk_update", { ids: ["CP-2"], addAssignees: ["dev@agency.test", "gina@agency.test"] });
    expect(await inbox(dev)).toHaveLength(1);
    expect((await inbox(designer)).at(-1)).toEqual([
      "card.assigned",
      "CP-2 Dashboard",
      "Assigned to you in Client Portal.",
    ]);
    expect(await inbox(lead)).toEqual([]);
  });

  test("mentions notify the mentioned (not the author); an edit notifies only the newly mentioned", async () => {
    const c = await tool(dev, "card_comments_create", {
      cardId: "CP-1",
      body: "@lead can you review? cc @dev and @nobody",
    });
    expect(c.mentionedUserIds).toHaveLength(2);
    expect((await inbox(lead)).at(-1)).toEqual([
      "comment.mentioned",
      "CP-1 Login page",
      "You were mentioned: “@lead can you review? cc @dev and @nobody”",
    ]);
    const devBefore = await inbox(dev);
    expect(devBefore.filter((n: string[]) => n[0] === "comment.mentioned")).toEqual([]);
    const designerBefore = (await inbox(designer)).length;
    await tool(dev, "card_comments_update", { id: c.id, body: "@lead can you review? cc @gina@agency.test" });
    expect((await inbox(designer)).slice(designerBefore)).toEqual([
      ["comment.mentioned", "CP-1 Login page", "You were mentioned: “@lead can you review? cc @gina@agency.test”"],
    ]);
    // Lead was mentioned before the edit: told once.
    expect((await inbox(lead)).filter((n: string[]) => n[0] === "comment.mentioned")).toHaveLength(1);
  });
});
