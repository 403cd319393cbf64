/**
 * The demo's live chat, read through the chat tools as the demo user: an
 * inbox per demo site (the retired site's switched off), conversations in
 * every status with notes and labels, a visitor's file carried to the
 * ticket the chat became, the snoozed one reopened by the job
 * when its time comes, and a new visitor getting the next free number.
 */
import { catalog } from "../../src/catalog";
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { loadConfig } from "../../src/config";
import { openBlobStore } from "../../src/core/blobs";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { companies, memberships, users } from "../../src/domains/accounts/tables";
import { reopenSnoozed } from "../jobs";
import { chatInboxes } from "../../src/domains/chat/tables";
import { chatDomain } from "../../src/domains/chat/tools";
import { ticketsDomain } from "../../src/domains/tickets/tools";
import { visitorPost } from "../../src/domains/chat/visitor";
import { seedDemo } from "../../db/seed/demo";
import { openTestStore } from "../db";
import { testMediaConfig } from "../harness";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

test("every demo site has an inbox; conversations in every status; the snooze job and numbering continue from the seed", async () => {
  const store = await openTestStore();
  const dataDir = mkdtempSync(join(tmpdir(), "plinth-seed-chat-"));
  dirs.push(dataDir);
  const config = { ...loadConfig({ "data-dir": dataDir }, {}), ...(await testMediaConfig(store.engine === "pg")) };
  const clock = new ManualClock(new Date("2026-03-04T15:00:00Z"));
  const deps: Deps = {
    store,
    db: store.db,
    config,
    clock,
    redis: null,
    blobs: openBlobStore({ config, store }),
    catalog,
  };
  await seedDemo(deps);
  const demo = (await deps.db.select().from(users).where(eq(users.email, "demo@plinth.dev")))[0]!;
  const ctxFor = async (name: string): Promise<ActorContext> => {
    const c = (await deps.db.select().from(companies).where(eq(companies.name, name)))[0]!;
    const m = (await deps.db.select().from(memberships).where(eq(memberships.companyId, c.id))).find(
      (r) => r.userId === demo.id,
    )!;
    const company = { id: c.id, name: c.name, role: m.role };
    return {
      deps,
      principal: {
        userId: demo.id,
        credential: { kind: "cli", id: 0, name: "test" },
        scopes: ["*"],
        companies: [company],
        requireCmsApproval: false,
      },
      company,
      requestId: "t",
    };
  };
  const call = async (ctx: ActorContext, name: string, args: Record<string, unknown>): Promise<any> => {
    const tool = chatDomain.tools.find((t) => t.name === name)!;
    return tool.run(ctx, v.parse(tool.input, args));
  };
  const harbor = await ctxFor("Harbor Coffee Roasters");
  const northwind = await ctxFor("Northwind Studio");
  const hi = await call(harbor, "chat_inboxes_list", {});
  expect(hi.items.map((i: any) => [i.name, i.enabled])).toEqual([
    ["Shop chat", true],
    ["Events desk", true],
    ["Wholesale (retired)", false],
  ]);
  expect((await call(northwind, "chat_inboxes_list", {})).items.map((i: any) => i.name)).toEqual(["Studio enquiries"]);
  const all = await call(harbor, "chat_conversations_list", { status: "all" });
  expect(all.items.map((c: any) => [c.id, c.status])).toEqual([
    [1, "open"],
    [5, "open"],
    [2, "pending"],
    [3, "snoozed"],
    [4, "resolved"],
  ]);
  expect(all.items[0].waitingSince).not.toBeNull();
  // Jamie's chat became a ticket (chat_conversations_to_ticket, run by the seed); the others did not.
  expect(all.items.map((c: any) => c.ticketId ?? null)).toEqual([expect.any(Number), null, null, null, null]);
  // Jamie's order confirmation, sent from the widget, is a file of the chat and went to the ticket with it.
  const files = await call(harbor, "chat_attachments_get", {
    id: (await call(harbor, "chat_attachments_list", { conversationId: 1 })).items[0].id,
  });
  expect([files.filename, files.source]).toEqual(["order-10482-confirmation.txt", "visitor"]);
  expect(Buffer.from(files.dataBase64, "base64").toString()).toContain("Order #10482");
  const listed = ticketsDomain.tools.find((t) => t.name === "ticket_attachments_list")!;
  const onTicket = await listed.run(harbor, v.parse(listed.input, { ticketId: all.items[0].ticketId }));
  expect((onTicket as any).items.map((a: any) => a.filename)).toEqual(["order-10482-confirmation.txt"]);
  const pending = await call(harbor, "chat_conversations_get", { id: 2 });
  expect(pending.messages.items.map((m: any) => m.kind)).toEqual(["visitor", "agent", "note"]);
  const nw = await call(northwind, "chat_conversations_list", { status: "all" });
  expect(nw.items.map((c: any) => c.status).sort()).toEqual(["open", "open", "resolved"]);
  expect((await call(northwind, "chat_conversations_list", { label: "outage" })).items[0].priority).toBe("urgent");
  expect((await call(northwind, "chat_canned_responses_list", {})).items.map((c: any) => c.shortCode)).toEqual([
    "pricing",
  ]);

  clock.advance(15 * 3600_000);
  expect(await reopenSnoozed(deps)).toBe(1);
  expect((await call(harbor, "chat_conversations_get", { id: 3 })).status).toBe("open");
  const shop = (await deps.db.select().from(chatInboxes).where(eq(chatInboxes.name, "Shop chat")))[0]!;
  const r = await visitorPost(deps, shop, null, { body: "Do you sell gift cards?" });
  expect(r.conversation).toBe(6);
  await store.close();
}, 30_000);
