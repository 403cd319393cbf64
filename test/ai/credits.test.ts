/**
 * AI credits: grants, debits that refuse clearly and change nothing when the
 * balance (or a hard budget) is short, the balance after on every entry,
 * monthly budgets whose thresholds notify owners and admins once per
 * period, the read tools over MCP, and racing debits that never take a
 * balance below zero — on one server (SQLite) or two instances on one
 * PostgreSQL database.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { and, eq } from "drizzle-orm";
import { debitCredits, grantCredits, InsufficientCredits, MAX_AMOUNT, setBudget } from "../../src/domains/ai/credits";
import { serviceCatalog } from "../../src/domains/services/tables";
import { ON_PG } from "../db";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { commits, row, rows, startTestServer, type TestServer } from "../harness";

let a: TestServer;
let b: TestServer | null = null;
let servers: TestServer[];
let owner: Client;
let stranger: Client;
let users: { owner: number; admin: number; viewer: number };
let co = 0;
let other = 0;

async function company(name: string) {
  const c = await createCompany(a.deps, { name, ownerUserId: users.owner });
  await addMember(a.deps, c.id, users.admin, "admin");
  await addMember(a.deps, c.id, users.viewer, "viewer");
  return c.id;
}

const debit = (s: TestServer, companyId: number, amount: number, reason = "email.send", ref: string | null = null) =>
  s.deps.db.transaction(async (tx) => await debitCredits(tx, s.deps, companyId, amount, reason, ref));

async function balance(companyId: number) {
  return Number(
    (await row(a.deps, "SELECT balance FROM ai_credit_accounts WHERE company_id = ?", companyId))?.balance ?? 0,
  );
}

async function ok(c: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

beforeAll(async () => {
  a = await startTestServer({ seed: false });
  if (ON_PG)
    b = await startTestServer({
      seed: false,
      clock: a.clock,
      config: { databaseUrl: a.config.databaseUrl, publicUrl: a.config.publicUrl },
    });
  servers = b ? [a, b] : [a];
  await a.jobs.stop();
  await a.dispatcher.stop();
  // A fixed instant: 2026-03-15 12:00 UTC, so month boundaries are known.
  a.clock.set(Date.UTC(2026, 2, 15, 12));
  const o = await createUser(a.deps, { email: "owen@agency.test", name: "Owen" });
  const ad = await createUser(a.deps, { email: "ada@agency.test", name: "Ada" });
  const vi = await createUser(a.deps, { email: "vic@agency.test", name: "Vic" });
  users = { owner: o.id, admin: ad.id, viewer: vi.id };
  co = await company("Credits Co");
  other = (
    await createCompany(a.deps, {
      name: "Other",
      ownerUserId: (await createUser(a.deps, { email: "x@other.test" })).id,
    })
  ).id;
  owner = await mcpClient(
    a.url,
    (await mintMcpKey(a.deps, { userId: o.id, scopes: ["ai:read"], companyIds: [co] })).key,
  );
  stranger = await mcpClient(
    a.url,
    (
      await mintMcpKey(a.deps, {
        userId: (await row(a.deps, "SELECT id FROM users WHERE email = 'x@other.test'"))!.id,
        scopes: ["*"],
        companyIds: [other],
      })
    ).key,
  );
}, 60_000);

afterAll(async () => {
  await b?.stop();
  await a.stop();
});

describe("grants and debits", () => {
  test("each entry carries the balance after it; an exact debit empties the balance; one more is refused", async () => {
    const g = await grantCredits(a.deps, { companyId: co, amount: 100, note: "March top-up", userId: users.owner });
    expect(g.balance).toBe(100);
    expect((await debit(a, co, 30, "pdf.export", "deck:7")).balanceAfter).toBe(70);
    expect((await debit(a, co, 70, "embedding", "doc:1")).balanceAfter).toBe(0);
    const before = commits(a.deps);
    const e = await debit(a, co, 1).catch((x) => x);
    expect(e).toBeInstanceOf(InsufficientCredits);
    expect(e.message).toBe(
      "Not enough AI credits: email.send needs 1 and the company has 0. Nothing was done; ask the agency to grant more credits.",
    );
    expect(commits(a.deps)).toBe(before);
    const ledger = await rows(
      a.deps,
      "SELECT kind, amount, balance_after, reason, ref FROM ai_credit_ledger WHERE company_id = ? ORDER BY id",
      co,
    );
    expect(ledger.map((r) => [r.kind, Number(r.amount), Number(r.balance_after), r.reason, r.ref])).toEqual([
      ["grant", 100, 100, "grant", null],
      ["debit", -30, 70, "pdf.export", "deck:7"],
      ["debit", -70, 0, "embedding", "doc:1"],
    ]);
  });

  test("a refused debit rolls back the operation it metered, even when the caller catches the refusal", async () => {
    await grantCredits(a.deps, { companyId: co, amount: 5 });
    const r = await a.deps.db
      .transaction(async (tx) => {
        await tx
          .insert(serviceCatalog)
          .values({ companyId: co, name: "Metered thing", active: true, createdAt: a.clock.now() });
        await debitCredits(tx, a.deps, co, 6, "email.send", "mail:1");
      })
      .catch((e) => e);
    expect(r).toBeInstanceOf(InsufficientCredits);
    expect(
      await a.deps.db
        .select()
        .from(serviceCatalog)
        .where(and(eq(serviceCatalog.companyId, co), eq(serviceCatalog.name, "Metered thing"))),
    ).toEqual([]);
    // Caught inside the transaction: the savepoint still undid the debit's own writes.
    const caught = await a.deps.db.transaction(async (tx) => {
      const x = await debitCredits(tx, a.deps, co, 6, "email.send").catch((e) => e);
      return x instanceof InsufficientCredits;
    });
    expect(caught).toBe(true);
    expect(await balance(co)).toBe(5);
  });

  test("amounts and reasons are checked", async () => {
    for (const bad of [0, -1, 1.5, MAX_AMOUNT + 1, Number.NaN])
      expect((await debit(a, co, bad).catch((e) => e)).message).toContain("whole number of credits");
    expect((await debit(a, co, 1, "Email Send").catch((e) => e)).message).toContain("lower-case dotted words");
    expect((await grantCredits(a.deps, { companyId: co, amount: 0 }).catch((e) => e)).message).toContain(
      "whole number of credits",
    );
    expect(await balance(co)).toBe(5);
  });
});

describe("budgets", () => {
  test("thresholds notify owners and admins once per period; the month rolls at 00:00 UTC on the 1st", async () => {
    const c = await company("Budget Co");
    await grantCredits(a.deps, { companyId: c, amount: 1000 });
    await setBudget(a.deps, { companyId: c, monthlyLimit: 200, thresholds: [50, 80, 100] });
    const notes = async () =>
      (await rows(a.deps, "SELECT user_id, title FROM notifications WHERE company_id = ? ORDER BY id", c)).map((r) => [
        Number(r.user_id),
        r.title,
      ]);
    await debit(a, c, 99);
    expect(await notes()).toEqual([]);
    await debit(a, c, 1); // exactly 50%
    const at50 = "AI credits: 50% of this month's budget used (100 of 200)";
    expect(await notes()).toEqual([
      [users.owner, at50],
      [users.admin, at50],
    ]);
    await debit(a, c, 20); // 60%: nothing new
    await debit(a, c, 80); // 100% at once: one notification, for the highest threshold passed
    expect((await notes()).length).toBe(4);
    expect((await notes())[2]![1]).toBe("AI credits: 100% of this month's budget used (200 of 200)");
    // A soft budget lets spending go on past the limit.
    await debit(a, c, 10);
    const bal = await ok(owner, "ai_credits_balance");
    expect(bal.companyId).toBe(co); // the owner's key reaches Credits Co only

    a.clock.set(Date.UTC(2026, 3, 1) - 1); // 23:59:59.999 on 31 March: still March
    await debit(a, c, 1);
    expect(Number((await row(a.deps, "SELECT spent FROM ai_credit_budgets WHERE company_id = ?", c))!.spent)).toBe(211);
    a.clock.set(Date.UTC(2026, 3, 1)); // 1 April 00:00 UTC: a new period
    await debit(a, c, 100);
    const bud = (await row(
      a.deps,
      "SELECT spent, notified_percent, period_start FROM ai_credit_budgets WHERE company_id = ?",
      c,
    ))!;
    expect(Number(bud.spent)).toBe(100);
    expect(Number(bud.notified_percent)).toBe(50);
    expect((await notes()).length).toBe(6);
    const events = await rows(
      a.deps,
      "SELECT data FROM events WHERE company_id = ? AND type = 'credits.budget_threshold_reached' ORDER BY id",
      c,
    );
    expect(events.length).toBe(3);
  });

  test("a hard budget refuses the debit that would pass it, and changes nothing", async () => {
    const c = await company("Hard Co");
    await grantCredits(a.deps, { companyId: c, amount: 1000 });
    await setBudget(a.deps, { companyId: c, monthlyLimit: 20, hard: true });
    await debit(a, c, 15);
    const e = await debit(a, c, 6).catch((x) => x);
    expect(e).toBeInstanceOf(InsufficientCredits);
    expect(e.message).toStartWith(
      "AI credit budget reached: email.send needs 6 and 5 of this month's 20 remain. Nothing was done;",
    );
    expect(await balance(c)).toBe(985);
    expect(Number((await row(a.deps, "SELECT spent FROM ai_credit_budgets WHERE company_id = ?", c))!.spent)).toBe(15);
    await debit(a, c, 5); // exactly the limit
    expect(await balance(c)).toBe(980);
  });
});

describe("tools", () => {
  test("balance, ledger and usage give hand-computed figures", async () => {
    a.clock.set(Date.UTC(2026, 4, 10, 9)); // 10 May
    const c = co;
    // Credits Co so far (March): +100 -30 -70 +5 = 5. May: +50, debits 3 (10 May), 4 + 2 (11 May).
    await grantCredits(a.deps, { companyId: c, amount: 50, note: "May" });
    await debit(a, c, 3, "email.send", "mail:10");
    a.clock.set(Date.UTC(2026, 4, 11, 23, 59));
    await debit(a, c, 4, "pdf.export", "deck:2");
    await debit(a, c, 2, "email.send", "mail:11");
    const bal = await ok(owner, "ai_credits_balance");
    expect(bal.balance).toBe(46);
    expect(bal.budget).toBeNull();
    expect(bal.lastEntry).toMatchObject({
      kind: "debit",
      amount: -2,
      balanceAfter: 46,
      reason: "email.send",
      ref: "mail:11",
    });
    const led = await ok(owner, "ai_credits_ledger", { kind: "debit", limit: 2 });
    expect(led.total).toBe(5);
    expect(led.items.map((e: any) => e.balanceAfter)).toEqual([46, 48]);
    expect(led.nextOffset).toBe(2);
    const byRef = await ok(owner, "ai_credits_ledger", { ref: "deck:7" });
    expect(byRef.items.map((e: any) => e.amount)).toEqual([-30]);
    const usage = await ok(owner, "ai_credits_usage");
    expect(usage).toEqual({
      from: "2026-05-01T00:00:00.000Z",
      to: "2026-06-01T00:00:00.000Z",
      groupBy: "reason",
      debited: 9,
      refunded: 0,
      granted: 50,
      operations: 3,
      groups: [
        { key: "email.send", credits: 5, refunded: 0, operations: 2 },
        { key: "pdf.export", credits: 4, refunded: 0, operations: 1 },
      ],
    });
    const days = await ok(owner, "ai_credits_usage", { groupBy: "day", from: "2026-03-01", to: "2026-06-01" });
    expect(days.groups).toEqual([
      { key: "2026-03-15", credits: 100, refunded: 0, operations: 2 },
      { key: "2026-05-10", credits: 3, refunded: 0, operations: 1 },
      { key: "2026-05-11", credits: 6, refunded: 0, operations: 2 },
    ]);
    expect(days.debited).toBe(109);
    expect(days.granted).toBe(155);
    expect((await callTool(owner, "ai_credits_usage", { from: "2026-05-02", to: "2026-05-01" })).text).toContain(
      "to must be after from",
    );
    expect((await callTool(owner, "ai_credits_usage", { from: "2020-01-01", to: "2026-01-01" })).text).toContain(
      "at most 366 days",
    );
    expect((await callTool(owner, "ai_credits_ledger", { since: "soon" })).text).toContain("ISO 8601");
  });

  test("another company sees its own (empty) credits, not these", async () => {
    const bal = await ok(stranger, "ai_credits_balance");
    expect(bal).toMatchObject({ companyId: other, balance: 0, budget: null, lastEntry: null });
    expect((await ok(stranger, "ai_credits_ledger")).total).toBe(0);
  });
});

describe("racing debits", () => {
  test(`20 debits of 10 against 95 credits${ON_PG ? " on two instances" : ""}: exactly 9 succeed, never below zero`, async () => {
    const c = await company("Race Co");
    await grantCredits(a.deps, { companyId: c, amount: 95 });
    const results = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        debit(servers[i % servers.length]!, c, 10, "embedding", `doc:${i}`).then(
          (r) => r.balanceAfter,
          (e) => e,
        ),
      ),
    );
    const wins = results.filter((r) => typeof r === "number") as number[];
    const refusals = results.filter((r) => r instanceof InsufficientCredits);
    expect(wins.length).toBe(9);
    expect(refusals.length).toBe(11);
    expect(wins.sort((x, y) => x - y)).toEqual([5, 15, 25, 35, 45, 55, 65, 75, 85]);
    expect(await balance(c)).toBe(5);
    const ledger = await rows(
      a.deps,
      "SELECT amount, balance_after FROM ai_credit_ledger WHERE company_id = ? ORDER BY id",
      c,
    );
    // Replaying the ledger in order gives each entry's balance after.
    let run = 0;
    for (const e of ledger) {
      run += Number(e.amount);
      expect(Number(e.balance_after)).toBe(run);
      expect(run).toBeGreaterThanOrEqual(0);
    }
  }, 60_000);

  test("racing debits against a hard budget never pass it", async () => {
    const c = await company("Race Budget Co");
    await grantCredits(a.deps, { companyId: c, amount: 1000 });
    await setBudget(a.deps, { companyId: c, monthlyLimit: 35, hard: true });
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        debit(servers[i % servers.length]!, c, 4).then(
          () => true,
          () => false,
        ),
      ),
    );
    expect(results.filter(Boolean).length).toBe(8);
    expect(await balance(c)).toBe(968);
    expect(Number((await row(a.deps, "SELECT spent FROM ai_credit_budgets WHERE company_id = ?", c))!.spent)).toBe(32);
  }, 60_000);

  test("racing debits across a threshold notify once", async () => {
    const c = await company("Race Alert Co");
    await grantCredits(a.deps, { companyId: c, amount: 1000 });
    await setBudget(a.deps, { companyId: c, monthlyLimit: 100, thresholds: [50] });
    await Promise.all(Array.from({ length: 10 }, (_, i) => debit(servers[i % servers.length]!, c, 10)));
    const notes = await rows(
      a.deps,
      "SELECT user_id FROM notifications WHERE company_id = ? AND type = 'credits.budget_threshold'",
      c,
    );
    expect(notes.map((n) => Number(n.user_id)).sort((x, y) => x - y)).toEqual(
      [users.owner, users.admin].sort((x, y) => x - y),
    );
    expect(
      (
        await rows(
          a.deps,
          "SELECT id FROM events WHERE company_id = ? AND type = 'credits.budget_threshold_reached'",
          c,
        )
      ).length,
    ).toBe(1);
  }, 60_000);
});
