/**
 * Refunds: a metered campaign pays per recipient when sent or scheduled;
 * recipients it never sends (cancelled, skipped because they unsubscribed
 * before their turn, paid for but never queued) get their credits back as a
 * `refund` ledger entry (reason email.send, ref campaign:<id>, balance
 * after, credits.refunded), in the transaction that made them owed, exactly
 * once: a double cancel, the delivery job racing the cancel, and a message
 * in the mail server's hands while the cancel runs never refund twice or
 * refund a message that went out. The month's budget `spent` goes down by
 * the refund of this month's debits only. Real server, MCP client, SMTP
 * sink; both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { closeMailTransport } from "../../src/core/mail";
import { debitCredits, grantCredits, refundCredits, setBudget } from "../../src/domains/ai/credits";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { and, eq } from "drizzle-orm";
import { queueNextBatch, refundUnsent } from "../../src/domains/email/delivery";
import { deliver } from "../jobs";
import { emailMemberships, emailSubscribers } from "../../src/domains/email/tables";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { jsonValue, row, rows, startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { Browser, pageText } from "../oauth/helpers";

const PASSWORD = "a long passphrase for tests";
let s: TestServer;
let smtp: TestSmtp;
let ownerId = 0;
const SCOPES = ["email:*", "ai:read"];

beforeAll(async () => {
  smtp = await startSmtp();
  closeMailTransport();
  s = await startTestServer({
    seed: false,
    config: { smtpUrl: smtp.url(), mailFrom: "Acme News <news@acme.test>", rateLimit: 100_000 },
  });
  await s.jobs.stop();
  s.clock.set(Date.UTC(2026, 4, 12, 9));
  ownerId = (await createUser(s.deps, { email: "olivia@agency.test", name: "Olivia", password: PASSWORD })).id;
}, 30_000);
afterAll(async () => {
  for (const c of clients) await c.close();
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
});

const clients: Client[] = [];
/** A company metered with `credits`, and an MCP client acting for it. */
async function company(name: string, credits: number) {
  const id = (await createCompany(s.deps, { name, ownerUserId: ownerId })).id;
  await grantCredits(s.deps, { companyId: id, amount: credits });
  const c = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: ownerId, scopes: SCOPES, companyIds: [id] })).key,
  );
  clients.push(c);
  return { id, c };
}

async function ok(c: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

const balance = async (co: number) =>
  Number((await row(s.deps, "SELECT balance FROM ai_credit_accounts WHERE company_id = ?", co))!.balance);
const ledger = async (co: number) =>
  (
    await rows(
      s.deps,
      "SELECT kind, amount, balance_after, reason, ref FROM ai_credit_ledger WHERE company_id = ? ORDER BY id",
      co,
    )
  ).map((r) => ({
    kind: r.kind,
    amount: Number(r.amount),
    balanceAfter: Number(r.balance_after),
    reason: r.reason,
    ref: r.ref,
  }));
const refunds = async (co: number) => (await ledger(co)).filter((e) => e.kind === "refund");
const sends = async (campaignId: number) =>
  Object.fromEntries(
    (
      await rows(
        s.deps,
        "SELECT status, count(*) AS n FROM email_sends WHERE campaign_id = ? AND kind = 'campaign' GROUP BY status",
        campaignId,
      )
    ).map((r) => [r.status, Number(r.n)]),
  );

/** The ledger replays: every balance after is the one before plus the entry. */
async function replays(co: number) {
  const l = await ledger(co);
  for (let i = 1; i < l.length; i++) expect(l[i]!.balanceAfter).toBe(l[i - 1]!.balanceAfter + l[i]!.amount);
  expect(l.at(-1)!.balanceAfter).toBe(await balance(co));
}

let n = 0;
/** An approved campaign to `emails` at `ratePerMinute` (60: the delivery job sends one a run). */
async function campaign(c: Client, emails: string[], ratePerMinute = 60) {
  n++;
  const list = (await ok(c, "email_lists_create", { name: `News ${n}`, optIn: "single" })).id;
  for (const e of emails) await ok(c, "email_subscribers_add", { email: e, listIds: [list] });
  const cam = await ok(c, "email_campaigns_create", {
    name: `Spring ${n}`,
    subject: "Spring news",
    listIds: [list],
    html: "<p>Hello {{ unsubscribe_url }}</p>",
    ratePerMinute,
  });
  const o = await decideApproval(s.deps, { token: cam.approval.token }, "approve", { decidedBy: "Rita Reviewer" });
  if (!o.ok) throw new Error(o.message);
  return { id: cam.id as number, listId: list as number };
}

/** One run of the delivery job, then a second of clock. */
async function tick() {
  await deliver(s.deps);
  s.clock.advance(1000);
}

const emails = (k: string, count: number) => Array.from({ length: count }, (_, i) => `${k}${i}@x.test`);

describe("cancelling a paid campaign", () => {
  test("midway: the unsent recipients come back once, as a refund with its balance after, event and ref; a second cancel refunds nothing", async () => {
    const { id: co, c } = await company("Cancel Co", 10);
    const cam = await campaign(c, emails("mid", 5));
    expect(await ok(c, "email_campaigns_send", { id: cam.id })).toMatchObject({ credits: 5, creditBalance: 5 });
    const mails = smtp.messages.length;
    await tick(); // queues the 5, sends 1
    await tick(); // sends 1
    await smtp.waitFor(mails + 2);
    expect(await sends(cam.id)).toEqual({ sent: 2, queued: 3 });

    const r = await ok(c, "email_campaigns_cancel", { id: cam.id });
    expect(r).toMatchObject({ status: "cancelled", notSent: 3, creditsRefunded: 3, creditBalance: 8 });
    expect(r).not.toHaveProperty("stillSending");
    expect((await ledger(co)).at(-1)).toEqual({
      kind: "refund",
      amount: 3,
      balanceAfter: 8,
      reason: "email.send",
      ref: `campaign:${cam.id}`,
    });
    const ev = await rows(
      s.deps,
      "SELECT entity_id, data FROM events WHERE type = 'credits.refunded' AND company_id = ?",
      co,
    );
    expect(ev).toHaveLength(1);
    expect(jsonValue(ev[0]!.data)).toMatchObject({
      amount: 3,
      balanceAfter: 8,
      reason: "email.send",
      ref: `campaign:${cam.id}`,
      userId: ownerId,
    });

    // Again: refused (already cancelled), and nothing more comes back from any path.
    const again = await callTool(c, "email_campaigns_cancel", { id: cam.id });
    expect(again.isError).toBe(true);
    expect(again.text).toContain("is cancelled");
    await tick();
    await s.deps.db.transaction(async (tx) =>
      expect(await refundUnsent(tx, s.deps, { id: cam.id, companyId: co })).toBeNull(),
    );
    expect(await refunds(co)).toHaveLength(1);
    expect(await balance(co)).toBe(8);
    await replays(co);

    // The tools show it: the ledger's refund filter, usage net of refunds.
    const led = await ok(c, "ai_credits_ledger", { kind: "refund" });
    expect(led.total).toBe(1);
    expect(led.items[0]).toMatchObject({
      kind: "refund",
      amount: 3,
      balanceAfter: 8,
      reason: "email.send",
      ref: `campaign:${cam.id}`,
    });
    const usage = await ok(c, "ai_credits_usage");
    expect(usage).toMatchObject({ debited: 5, refunded: 3, granted: 10, operations: 1 });
    expect(usage.groups).toEqual([{ key: "email.send", credits: 2, refunded: 3, operations: 1 }]);
    expect((await ok(c, "ai_credits_usage", { groupBy: "day" })).groups).toEqual([
      { key: "2026-05-12", credits: 2, refunded: 3, operations: 1 },
    ]);
  });

  test("a scheduled campaign cancelled before its time gets everything back, and the month's budget spent goes back down", async () => {
    const { id: co, c } = await company("Schedule Co", 20);
    await setBudget(s.deps, { companyId: co, monthlyLimit: 10, hard: true });
    const cam = await campaign(c, emails("sch", 4));
    const at = new Date(s.clock.now().getTime() + 86_400_000).toISOString();
    expect(await ok(c, "email_campaigns_schedule", { id: cam.id, at })).toMatchObject({
      credits: 4,
      creditBalance: 16,
    });
    expect((await ok(c, "ai_credits_balance")).budget).toMatchObject({ spent: 4, remaining: 6 });
    expect(await ok(c, "email_campaigns_cancel", { id: cam.id })).toMatchObject({
      status: "cancelled",
      notSent: 0,
      creditsRefunded: 4,
      creditBalance: 20,
    });
    expect((await ok(c, "ai_credits_balance")).budget).toMatchObject({ spent: 0, remaining: 10 });
    // The budget room is real: a 10-recipient send fits the hard limit again.
    const big = await campaign(c, emails("big", 10));
    expect(await ok(c, "email_campaigns_send", { id: big.id })).toMatchObject({ credits: 10 });
    // Setting the budget again counts the month the same way (debits less this month's refunds).
    await setBudget(s.deps, { companyId: co, monthlyLimit: 10, hard: true });
    expect((await ok(c, "ai_credits_balance")).budget).toMatchObject({ spent: 10 });
    await ok(c, "email_campaigns_cancel", { id: big.id });
    await replays(co);
  });

  test("an unmetered company's cancel writes no ledger", async () => {
    const id = (await createCompany(s.deps, { name: "Free Co", ownerUserId: ownerId })).id;
    const c = await mcpClient(
      s.url,
      (await mintMcpKey(s.deps, { userId: ownerId, scopes: SCOPES, companyIds: [id] })).key,
    );
    clients.push(c);
    const cam = await campaign(c, emails("free", 2));
    await ok(c, "email_campaigns_send", { id: cam.id });
    const r = await ok(c, "email_campaigns_cancel", { id: cam.id });
    expect(r).not.toHaveProperty("creditsRefunded");
    expect(Number((await row(s.deps, "SELECT count(*) AS n FROM ai_credit_ledger WHERE company_id = ?", id))!.n)).toBe(
      0,
    );
  });
});

describe("recipients a finished campaign never sent", () => {
  test("one unsubscribed before queuing (paid, never queued) and one after (skipped at send) come back when the campaign is sent", async () => {
    const { id: co, c } = await company("Finish Co", 10);
    const cam = await campaign(c, emails("fin", 3), 600);
    await ok(c, "email_campaigns_send", { id: cam.id });
    // Before the job queues anyone: fin0 leaves.
    const left = async (email: string) =>
      await s.deps.db.transaction(async (tx) => {
        const sub = (
          await tx
            .select()
            .from(emailSubscribers)
            .where(and(eq(emailSubscribers.companyId, co), eq(emailSubscribers.email, email)))
        )[0]!;
        await tx
          .update(emailMemberships)
          .set({ status: "unsubscribed" })
          .where(eq(emailMemberships.subscriberId, sub.id));
      });
    await left("fin0@x.test");
    expect(await queueNextBatch(s.deps, cam.id)).toBe(true);
    expect(await sends(cam.id)).toEqual({ queued: 2 });
    // Queued, then fin1 leaves before their message goes out.
    await left("fin1@x.test");
    for (let i = 0; i < 5 && (await ok(c, "email_campaigns_get", { id: cam.id })).status !== "sent"; i++) await tick();
    expect((await ok(c, "email_campaigns_get", { id: cam.id })).status).toBe("sent");
    expect(await sends(cam.id)).toEqual({ sent: 1, cancelled: 1 });
    expect(await refunds(co)).toEqual([
      { kind: "refund", amount: 2, balanceAfter: 9, reason: "email.send", ref: `campaign:${cam.id}` },
    ]);
    await replays(co);
  });
});

describe("races", () => {
  test("a message with the mail server while the cancel runs is left to the job: sent, it stays paid; the rest come back at once", async () => {
    const { id: co, c } = await company("Inflight Co", 10);
    const cam = await campaign(c, emails("fly", 3));
    await ok(c, "email_campaigns_send", { id: cam.id });
    const release = smtp.hold();
    const job = deliver(s.deps); // queues 3, hands the first to the (held) server
    try {
      for (let i = 0; i < 200 && smtp.held === 0; i++) await Bun.sleep(10);
      expect(smtp.held).toBe(1);
      const r = await ok(c, "email_campaigns_cancel", { id: cam.id });
      expect(r).toMatchObject({
        status: "cancelled",
        notSent: 2,
        stillSending: 1,
        creditsRefunded: 2,
        creditBalance: 9,
      });
    } finally {
      release();
    }
    await job;
    expect(await sends(cam.id)).toEqual({ sent: 1, cancelled: 2 });
    expect(await refunds(co)).toEqual([
      { kind: "refund", amount: 2, balanceAfter: 9, reason: "email.send", ref: `campaign:${cam.id}` },
    ]);
    await tick();
    expect(await refunds(co)).toHaveLength(1);
    await replays(co);
  });

  test("…and when that message then fails for now (451), it is not retried and its credit comes back when the job records it", async () => {
    const { id: co, c } = await company("Inflight Fail Co", 10);
    const cam = await campaign(c, emails("flyf", 3));
    await ok(c, "email_campaigns_send", { id: cam.id });
    const release = smtp.hold();
    smtp.failNext([451, "4.3.0 Try again later"]);
    const job = deliver(s.deps);
    try {
      for (let i = 0; i < 200 && smtp.held === 0; i++) await Bun.sleep(10);
      expect(await ok(c, "email_campaigns_cancel", { id: cam.id })).toMatchObject({
        notSent: 2,
        stillSending: 1,
        creditsRefunded: 2,
      });
    } finally {
      release();
    }
    await job;
    expect(await sends(cam.id)).toEqual({ cancelled: 3 });
    expect((await refunds(co)).map((e) => [e.amount, e.balanceAfter])).toEqual([
      [2, 9],
      [1, 10],
    ]);
    const smtpResponse = (await row(
      s.deps,
      "SELECT smtp_response FROM email_sends WHERE campaign_id = ? AND attempts = 1",
      cam.id,
    ))!.smtp_response;
    expect(smtpResponse).toContain("Not sent: the campaign was cancelled (last attempt:");
    await replays(co);
  });

  test("two cancels at once: one wins, one refund", async () => {
    const { id: co, c } = await company("Double Co", 10);
    const cam = await campaign(c, emails("dbl", 4));
    await ok(c, "email_campaigns_send", { id: cam.id });
    await tick();
    const both = await Promise.all([
      callTool(c, "email_campaigns_cancel", { id: cam.id }),
      callTool(c, "email_campaigns_cancel", { id: cam.id }),
    ]);
    expect(both.filter((r) => !r.isError)).toHaveLength(1);
    const sent = (await sends(cam.id)).sent ?? 0;
    expect((await refunds(co)).map((e) => e.amount)).toEqual([4 - sent]);
    expect(await balance(co)).toBe(10 - sent);
    await replays(co);
  });

  test("the delivery job racing the cancel: every time, refunds = paid − messages that went out, never more, never twice", async () => {
    const { id: co, c } = await company("Race Co", 100);
    for (let i = 0; i < 4; i++) {
      // Two a run: the cancel lands while some went out and some wait (or, now and then, after the job finished them all).
      const cam = await campaign(c, emails(`race${i}-`, 6), 120);
      await ok(c, "email_campaigns_send", { id: cam.id });
      if (i % 2) await tick();
      await Promise.all([deliver(s.deps), deliver(s.deps), callTool(c, "email_campaigns_cancel", { id: cam.id })]);
      for (let k = 0; k < 3; k++) await tick();
      const st = await sends(cam.id);
      expect(st.queued ?? 0).toBe(0);
      const out = (st.sent ?? 0) + (st.bounced ?? 0) + (st.failed ?? 0);
      const back = (await refunds(co)).filter((e) => e.ref === `campaign:${cam.id}`).reduce((a, e) => a + e.amount, 0);
      // Paid 6: what went out stays paid, everything else came back (nothing, when the job won and sent all 6).
      expect(back).toBe(6 - out);
      expect(["cancelled", "sent"]).toContain((await ok(c, "email_campaigns_get", { id: cam.id })).status);
    }
    await replays(co);
  });
});

describe("the portal ledger", () => {
  test("a Refunds tab lists refunds with reason and ref", async () => {
    const { id: co, c } = await company("Portal Co", 5);
    const cam = await campaign(c, emails("por", 2));
    await ok(c, "email_campaigns_send", { id: cam.id });
    await ok(c, "email_campaigns_cancel", { id: cam.id });
    await s.deps.db.transaction(async (tx) => debitCredits(tx, s.deps, co, 1, "pdf.export", "deck:1:draft"));
    const b = new Browser(s.config.publicUrl);
    expect((await b.signIn("olivia@agency.test", PASSWORD)).status).toBe(303);
    expect(
      (await b.post("/company", { _csrf: await b.csrf("/"), company_id: String(co), next: "/ai/credits" })).status,
    ).toBe(303);
    const res = await b.get("/ai/credits?kind=refund");
    const text = await pageText(await res.text());
    expect(res.status).toBe(200);
    expect(text).toContain("Refunds");
    expect(text).toContain(`refund email.send campaign:${cam.id}`);
    expect(text).not.toContain("pdf.export");
    expect(text).toContain("+2");
  });
});

describe("a refund in a later month", () => {
  test("gives the credits back but makes no room in the new month's budget (it refunds last month's spending)", async () => {
    const { id: co, c } = await company("Month Co", 50);
    const cam = await campaign(c, emails("mon", 3));
    s.clock.set(Date.UTC(2026, 4, 31, 22));
    await ok(c, "email_campaigns_schedule", { id: cam.id, at: "2026-06-03T09:00:00Z" });
    s.clock.set(Date.UTC(2026, 5, 1, 0, 0, 0, 0));
    await setBudget(s.deps, { companyId: co, monthlyLimit: 100, hard: true });
    await s.deps.db.transaction(async (tx) => debitCredits(tx, s.deps, co, 2, "pdf.export", "deck:9:draft"));
    expect((await ok(c, "ai_credits_balance")).budget).toMatchObject({ spent: 2 });
    expect(await ok(c, "email_campaigns_cancel", { id: cam.id })).toMatchObject({
      creditsRefunded: 3,
      creditBalance: 48,
    });
    expect((await ok(c, "ai_credits_balance")).budget).toMatchObject({ spent: 2 });
    await setBudget(s.deps, { companyId: co, monthlyLimit: 100, hard: true });
    expect((await ok(c, "ai_credits_balance")).budget).toMatchObject({ spent: 2 });
    await replays(co);
  });
});

describe("refundCredits, the verb", () => {
  test("is capped at what was paid under the ref: owed 50 of a 5-credit debit gives back 5, once; another ref or reason gets nothing", async () => {
    const { id: co, c } = await company("Cap Co", 20);
    const refund = (owed: number, reason = "pdf.export", ref = "deck:1:draft") =>
      s.deps.db.transaction(async (tx) => refundCredits(tx, s.deps, co, reason, ref, owed));
    await s.deps.db.transaction(async (tx) => debitCredits(tx, s.deps, co, 5, "pdf.export", "deck:1:draft"));
    expect((await ok(c, "ai_credits_balance")).balance).toBe(15);
    expect(await refund(50)).toMatchObject({ credits: 5, balanceAfter: 20 });
    expect(await refund(50)).toBeNull();
    expect(await refund(5, "pdf.export", "deck:2:draft")).toBeNull();
    expect(await refund(5, "email.send", "deck:1:draft")).toBeNull();
    expect((await ok(c, "ai_credits_balance")).balance).toBe(20);
    const refunds = await rows(
      s.deps,
      "SELECT amount, ref FROM ai_credit_ledger WHERE company_id = ? AND kind = 'refund'",
      co,
    );
    expect(refunds.map((r) => [Number(r.amount), r.ref])).toEqual([[5, "deck:1:draft"]]);
    await replays(co);
  });
});
