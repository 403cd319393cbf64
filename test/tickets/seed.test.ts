/**
 * The demo's support desks, read through the tickets tools as the demo
 * user: every status in both companies, replies and notes, a merged
 * duplicate, and exactly one breached ticket at seed time, whatever the
 * weekday and hour the demo is seeded (three instants, one a weekend night).
 */
import { catalog } from "../../src/catalog";
import { afterAll, describe, expect, test } from "bun:test";
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
import { checkBreaches } from "../jobs";
import { DEMO_SLIP } from "../../src/domains/tickets/demo";
import { ticketsDomain } from "../../src/domains/tickets/tools";
import { seedDemo } from "../../db/seed/demo";
import { openTestStore } from "../db";
import { testMediaConfig } from "../harness";

const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

async function seeded(now: string) {
  const store = await openTestStore();
  const dataDir = mkdtempSync(join(tmpdir(), "plinth-seed-tickets-"));
  dirs.push(dataDir);
  const config = { ...loadConfig({ "data-dir": dataDir }, {}), ...(await testMediaConfig(store.engine === "pg")) };
  const deps: Deps = {
    store,
    db: store.db,
    config,
    clock: new ManualClock(new Date(now)),
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
    const tool = ticketsDomain.tools.find((t) => t.name === name)!;
    return await tool.run(ctx, v.parse(tool.input, args));
  };
  return { deps, harbor: await ctxFor("Harbor Coffee Roasters"), northwind: await ctxFor("Northwind Studio"), call };
}

for (const now of ["2031-03-15T03:00:00Z", "2031-03-17T16:00:00Z", "2031-03-19T23:30:00Z"])
  describe(`seeded at ${now}`, () => {
    test("both desks: every status, replies and notes, a merged duplicate, exactly one breach (recorded)", async () => {
      const w = await seeded(now);
      for (const ctx of [w.harbor, w.northwind]) {
        const all = await w.call(ctx, "tickets_list", { limit: 100 });
        expect(new Set(all.items.map((t: any) => t.status))).toEqual(
          new Set(["new", "open", "pending", "solved", "closed"]),
        );
        expect(all.items.map((t: any) => t.id).sort()).toEqual(Array.from({ length: all.total }, (_, i) => 1001 + i));
        let notes = 0;
        let agentReplies = 0;
        for (const t of all.items) {
          const got = await w.call(ctx, "tickets_get", { id: t.id });
          notes += got.messages.filter((m: any) => m.internal).length;
          agentReplies += got.messages.filter((m: any) => m.kind === "reply" && m.author === "agent").length;
        }
        expect(notes).toBeGreaterThanOrEqual(3);
        expect(agentReplies).toBeGreaterThanOrEqual(4);
        // The next ticket continues the sequence.
        const next = await w.call(ctx, "tickets_create", {
          subject: "Hello",
          requesterEmail: "x@example.com",
          body: "hi",
        });
        expect(next.id).toBe(1001 + all.total);
      }
      expect((await w.call(w.harbor, "ticket_macros_list", {})).items.map((m: any) => m.name)).toEqual([
        "Refund issued",
        "Where is my order",
      ]);
      // Jamie's chat #1 became a ticket (the chat part runs chat_conversations_to_ticket after this part).
      const fromChat = (await w.call(w.harbor, "tickets_list", { requester: "jamie.ortiz@example.com" })).items;
      expect(fromChat.map((t: any) => [t.subject, t.sourceChatId])).toEqual([
        ["Order #10482 shows delivered, not received", 1],
      ]);
      // The seeded macro works on it: its reply is filled and the ticket waits on the courier.
      const where = (await w.call(w.harbor, "ticket_macros_list", { q: "order" })).items[0];
      const applied = await w.call(w.harbor, "tickets_apply_macro", { ticketId: fromChat[0].id, macroId: where.id });
      expect(applied).toMatchObject({ status: "pending", tags: ["shipping"] });
      const thread = (await w.call(w.harbor, "tickets_get", { id: fromChat[0].id })).messages;
      expect(thread.at(-1).body).toStartWith("Hi Jamie, I've asked the courier about Order #10482");
      const harborBreached = await w.call(w.harbor, "tickets_list", { breached: true });
      expect(harborBreached.items.map((t: any) => [t.subject, t.breached])).toEqual([
        ["Grinder in my Barista Pro makes a clicking noise", ["first_response"]],
      ]);
      expect((await w.call(w.northwind, "tickets_list", { breached: true })).total).toBe(0);
      // Recorded as the job would have: its first run announces nothing old.
      expect(await checkBreaches(w.deps)).toBe(0);

      const merged = (await w.call(w.harbor, "tickets_list", { q: "4907", limit: 10 })).items;
      const dup = merged.find((t: any) => t.mergedIntoId !== null);
      const target = await w.call(w.harbor, "tickets_get", { id: dup.mergedIntoId });
      expect(target.mergedTicketIds).toEqual([dup.id]);
      expect(target.messages.some((m: any) => m.mergedFromId === dup.id && m.author === "requester")).toBe(true);
      expect((await w.call(w.harbor, "ticket_sla_policy_get", {})).timeZone).toBe("America/Los_Angeles");
      // Jo's mailed-in ticket keeps its packing slip, bytes in the media store.
      const jo = (await w.call(w.harbor, "tickets_list", { q: "torn bag", limit: 10 })).items.find(
        (t: any) => t.followUpOfId === null && /4821/.test(t.subject),
      );
      const files = (await w.call(w.harbor, "ticket_attachments_list", { ticketId: jo.id })).items;
      expect(files.map((f: any) => [f.filename, f.mimeType, f.source])).toEqual([
        [DEMO_SLIP.filename, "text/plain", "mail"],
      ]);
      const slip = await w.call(w.harbor, "ticket_attachments_get", { id: files[0].id });
      expect(Buffer.from(slip.dataBase64, "base64").toString("utf8")).toBe(DEMO_SLIP.text);
      // A rating, answered after the ticket was solved: in the report of the last 30 days.
      const report = await w.call(w.harbor, "tickets_satisfaction_report", {});
      expect(report.total).toMatchObject({ good: 1, bad: 0, scorePercent: 100 });
      expect((await w.call(w.northwind, "tickets_satisfaction_report", {})).total.good).toBe(0);
      expect((await w.call(w.northwind, "ticket_attachments_get", { id: files[0].id }).catch((e) => e)).code).toBe(
        "not_found",
      );
      await w.deps.store.close();
    });
  });
