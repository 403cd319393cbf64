/**
 * Metered operations over a real server and MCP client, mail through the
 * SMTP sink: campaign sends (paid per recipient when sent or scheduled,
 * growth paid as recipients are queued), test and transactional sends,
 * automation emails, deck PDF exports over MCP (a visitor's download is
 * never metered), and knowledge-base embeddings (the queue waits for a
 * company without credits and resumes after a grant). At each boundary a
 * balance equal to the cost succeeds and one credit less is refused with
 * the clear message, changing nothing. A company the agency never granted
 * credits is not metered at all. Racing sends never take a balance below
 * zero.
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import * as pdfModule from "../../src/domains/decks/pdf";
import type { Client } from "@modelcontextprotocol/client";
import { closeMailTransport } from "../../src/core/mail";
import { debitCredits, grantCredits, setBudget } from "../../src/domains/ai/credits";
import { automationRuns } from "../../src/domains/automations/tables";
import { sites } from "../../src/domains/sites/tables";
import { PRICES } from "../../src/domains/ai/meter";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { drainEmbeddingQueue } from "../../src/domains/brain/embeddings";
import { queueNextBatch } from "../../src/domains/email/delivery";
import { deliver, runQueued, sendDueMail } from "../jobs";
import { emailMemberships, emailSubscribers } from "../../src/domains/email/tables";
import { startEmbeddingsServer, type EmbeddingsServer } from "../brain/embeddings-server";
import { callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { row, rows, startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";

let s: TestServer;
let smtp: TestSmtp;
let es: EmbeddingsServer;
let metered: Client;
let free: Client;
let co = 0;
let freeCo = 0;
let ownerId = 0;

const SCOPES = ["email:*", "decks:*", "ai:read", "brain:*", "automations:*", "notifications:*"];

beforeAll(async () => {
  smtp = await startSmtp();
  es = startEmbeddingsServer();
  closeMailTransport();
  s = await startTestServer({
    seed: false,
    config: {
      smtpUrl: smtp.url(),
      mailFrom: "Acme News <news@acme.test>",
      embeddingsUrl: es.url,
      embeddingsModel: "test-embed",
      rateLimit: 100_000,
    },
  });
  // The tests run delivery, embeddings and automations themselves.
  await s.jobs.stop();
  s.clock.set(Date.UTC(2026, 4, 12, 9));
  const u = await createUser(s.deps, { email: "olivia@agency.test", name: "Olivia" });
  ownerId = u.id;
  co = (await createCompany(s.deps, { name: "Metered Co", ownerUserId: u.id })).id;
  freeCo = (await createCompany(s.deps, { name: "Self-hosted Co", ownerUserId: u.id })).id;
  // Decks take their brand from a site.
  await s.deps.db.insert(sites).values([
    { companyId: co, name: "Harbor Coffee" },
    { companyId: freeCo, name: "Self-hosted site" },
  ]);
  metered = await mcpClient(s.url, (await mintMcpKey(s.deps, { userId: u.id, scopes: SCOPES, companyIds: [co] })).key);
  free = await mcpClient(s.url, (await mintMcpKey(s.deps, { userId: u.id, scopes: SCOPES, companyIds: [freeCo] })).key);
  // Metered from the first grant on: an account with nothing in it yet.
  await grantCredits(s.deps, { companyId: co, amount: 1, note: "opening" });
  await debitTo(0);
});
afterAll(async () => {
  await metered?.close();
  await free?.close();
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
  es?.stop();
});

async function ok(c: Client, name: string, args: Record<string, unknown> = {}) {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name}: ${r.text}`);
  return r.data;
}

async function balance(companyId = co): Promise<number | null> {
  const r = await row(s.deps, "SELECT balance FROM ai_credit_accounts WHERE company_id = ?", companyId);
  return r ? Number(r.balance) : null;
}

/** Brings the balance to exactly `n` (grants top it up; the opening credit is spent by a test debit). */
async function debitTo(n: number) {
  const b = (await balance())!;
  if (b < n) await grantCredits(s.deps, { companyId: co, amount: n - b });
  else if (b > n) await s.deps.db.transaction(async (tx) => debitCredits(tx, s.deps, co, b - n, "test.adjust"));
  expect(await balance()).toBe(n);
}

const ledger = async (reason?: string) =>
  (
    await rows(
      s.deps,
      "SELECT kind, amount, balance_after, reason, ref FROM ai_credit_ledger WHERE company_id = ? ORDER BY id",
      co,
    )
  )
    .filter((r) => !reason || r.reason === reason)
    .map((r) => ({ amount: Number(r.amount), balanceAfter: Number(r.balance_after), reason: r.reason, ref: r.ref }));
const count = async (sql: string, ...p: unknown[]) => Number((await row(s.deps, sql, ...p))!.n);

async function approve(token: string) {
  const o = await decideApproval(s.deps, { token }, "approve", { decidedBy: "Rita Reviewer" });
  if (!o.ok) throw new Error(o.message);
}

let n = 0;
/** A list with `emails` subscribed, a template, and an approved campaign to it. */
async function campaign(c: Client, emails: string[], listId?: number) {
  n++;
  const list = listId ?? (await ok(c, "email_lists_create", { name: `News ${n}`, optIn: "single" })).id;
  for (const e of emails) await ok(c, "email_subscribers_add", { email: e, listIds: [list] });
  const tpl = await ok(c, "email_templates_create", { name: `T ${n}`, html: "<p>Hello {{ name | friend }}</p>" });
  const cam = await ok(c, "email_campaigns_create", {
    name: `Spring ${n}`,
    subject: "Spring news",
    listIds: [list],
    templateId: tpl.id,
  });
  await approve(cam.approval.token);
  return { id: cam.id as number, listId: list as number, templateId: tpl.id as number };
}

/** Runs the delivery job a second of clock at a time until nothing is due. */
async function flush() {
  for (let i = 0; i < 100; i++) {
    await deliver(s.deps);
    if ((await count("SELECT count(*) AS n FROM email_sends WHERE status = 'queued'")) === 0)
      return await deliver(s.deps);
    s.clock.advance(1000);
  }
}

const NOT_ENOUGH = (op: string, needed: number, have: number) =>
  `Not enough AI credits: ${op} needs ${needed} and the company has ${have}. Nothing was done; ask the agency to grant more credits.`;

describe("costs said up front", () => {
  test("every tool that debits credits says what it costs in its description", async () => {
    const { tools } = await metered.listTools();
    const said = (name: string) => tools.find((t) => t.name === name)?.description ?? "";
    const costs: [string, string][] = [
      ["decks_export_pdf", `Costs ${PRICES["pdf.export"]} AI credits`],
      ["email_campaigns_send", `Costs ${PRICES["email.send"]} AI credit per recipient`],
      ["email_campaigns_schedule", `Costs ${PRICES["email.send"]} AI credit per recipient`],
      ["email_campaigns_test", `Costs ${PRICES["email.send"]} AI credit per recipient`],
      ["email_transactional_send", `Costs ${PRICES["email.send"]} AI credit per recipient`],
      ["automations_create", `send_email action costs ${PRICES["email.send"]} AI credit per recipient`],
      ["brain_embeddings_reindex", `Embedding costs ${PRICES.embedding} AI credit per chunk`],
    ];
    for (const [name, text] of costs)
      expect({ name, description: said(name) }).toEqual({ name, description: expect.stringContaining(text) });
  });
});

describe("campaign sends, per recipient", () => {
  test("one credit short is refused clearly and changes nothing; the exact balance sends to everyone", async () => {
    const c = await campaign(metered, ["a1@x.test", "a2@x.test", "a3@x.test"]);
    await debitTo(2);
    const events = await count("SELECT count(*) AS n FROM events WHERE type = 'email.campaign_status_changed'");
    const before = await ledger();
    const refused = await callTool(metered, "email_campaigns_send", { id: c.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(NOT_ENOUGH("email.send", 3, 2));
    expect((await ok(metered, "email_campaigns_get", { id: c.id })).status).toBe("draft");
    expect(await count("SELECT count(*) AS n FROM email_sends WHERE campaign_id = ?", c.id)).toBe(0);
    expect(await count("SELECT count(*) AS n FROM events WHERE type = 'email.campaign_status_changed'")).toBe(events);
    expect(await ledger()).toEqual(before);
    expect(await balance()).toBe(2);

    await debitTo(3);
    const sent = await ok(metered, "email_campaigns_send", { id: c.id });
    expect(sent).toMatchObject({ status: "sending", audience: 3, credits: 3, creditBalance: 0 });
    expect((await ledger("email.send")).at(-1)).toEqual({
      amount: -3,
      balanceAfter: 0,
      reason: "email.send",
      ref: `campaign:${c.id}`,
    });
    const mails = smtp.messages.length;
    await flush();
    await smtp.waitFor(mails + 3);
    expect((await ok(metered, "email_campaigns_get", { id: c.id })).status).toBe("sent");
    // Queuing the paid recipients charged nothing more.
    expect((await ledger("email.send")).filter((e) => e.ref === `campaign:${c.id}`)).toHaveLength(1);
    expect(await balance()).toBe(0);
  });

  test("scheduling pays for the audience then; a subscriber added before the start is paid when queued, and an unpaid one pauses the campaign until a grant", async () => {
    const c = await campaign(metered, ["b1@x.test", "b2@x.test"]);
    await debitTo(1);
    const at = new Date(s.clock.now().getTime() + 3600_000).toISOString();
    const refused = await callTool(metered, "email_campaigns_schedule", { id: c.id, at });
    expect(refused.text).toContain(NOT_ENOUGH("email.send", 2, 1));
    expect((await ok(metered, "email_campaigns_get", { id: c.id })).status).toBe("draft");
    await debitTo(2);
    expect(await ok(metered, "email_campaigns_schedule", { id: c.id, at })).toMatchObject({
      status: "scheduled",
      credits: 2,
      creditBalance: 0,
    });
    // Rescheduling pays nothing again.
    const later = new Date(s.clock.now().getTime() + 7200_000).toISOString();
    expect(await ok(metered, "email_campaigns_schedule", { id: c.id, at: later })).not.toHaveProperty("credits");
    await ok(metered, "email_subscribers_add", { email: "b3@x.test", listIds: [c.listId] });
    s.clock.advance(7200_000);
    await deliver(s.deps);
    expect((await ok(metered, "email_campaigns_get", { id: c.id })).status).toBe("paused");
    expect(await count("SELECT count(*) AS n FROM email_sends WHERE campaign_id = ?", c.id)).toBe(0);
    const note = await row(
      s.deps,
      "SELECT title, body FROM notifications WHERE type = 'email.campaign_paused' AND user_id = ?",
      ownerId,
    );
    expect(note!.title).toContain("paused: not enough AI credits");
    expect(note!.body).toContain(NOT_ENOUGH("email.send", 1, 0));
    await debitTo(1);
    await ok(metered, "email_campaigns_resume", { id: c.id });
    const mails = smtp.messages.length;
    await flush();
    await smtp.waitFor(mails + 3);
    expect((await ok(metered, "email_campaigns_get", { id: c.id })).status).toBe("sent");
    expect(
      (await ledger("email.send")).filter((e) => e.ref === `campaign:${c.id}`).map((e) => [e.amount, e.balanceAfter]),
    ).toEqual([
      [-2, 0],
      [-1, 0],
    ]);
  });

  test("racing sends never take the balance below zero: exactly the campaigns that fit are sent", async () => {
    const first = await campaign(metered, ["r1@x.test", "r2@x.test"]);
    const others = [first];
    for (let i = 0; i < 4; i++) others.push(await campaign(metered, [], first.listId));
    await debitTo(7);
    const results = await Promise.all(others.map((c) => callTool(metered, "email_campaigns_send", { id: c.id })));
    const won = results.filter((r) => !r.isError);
    expect(won).toHaveLength(3);
    for (const r of results.filter((r) => r.isError))
      expect(r.text).toContain("Not enough AI credits: email.send needs 2 and the company has 1.");
    expect(await balance()).toBe(1);
    const statuses = await Promise.all(
      others.map(async (c) => (await ok(metered, "email_campaigns_get", { id: c.id })).status),
    );
    expect(statuses.filter((x) => x === "sending")).toHaveLength(3);
    expect(statuses.filter((x) => x === "draft")).toHaveLength(2);
    // The ledger replays: each balance after is the one before minus the debit.
    const l = await ledger();
    for (let i = 1; i < l.length; i++) expect(l[i]!.balanceAfter).toBe(l[i - 1]!.balanceAfter + l[i]!.amount);
    await flush();
    for (const c of others)
      if (statuses[others.indexOf(c)] === "draft") await ok(metered, "email_campaigns_delete", { id: c.id });
  });
});

describe("tests, transactional mail, automation emails", () => {
  test("a test send costs one credit per address; short, it queues nothing", async () => {
    const c = await campaign(metered, ["t1@x.test"]);
    await debitTo(1);
    const refused = await callTool(metered, "email_campaigns_test", {
      id: c.id,
      to: ["olivia@agency.test", "qa@x.test"],
    });
    expect(refused.text).toContain(NOT_ENOUGH("email.send", 2, 1));
    expect(await count("SELECT count(*) AS n FROM email_sends WHERE campaign_id = ? AND kind = 'test'", c.id)).toBe(0);
    await debitTo(2);
    // The result says what was charged, and the balance went down by exactly that.
    expect(
      await ok(metered, "email_campaigns_test", { id: c.id, to: ["olivia@agency.test", "qa@x.test"] }),
    ).toMatchObject({ queued: 2, credits: 2, creditBalance: 0 });
    expect(await balance()).toBe(0);
    expect((await ledger("email.send")).at(-1)).toEqual({
      amount: -2,
      balanceAfter: 0,
      reason: "email.send",
      ref: `campaign:${c.id}:test`,
    });
  });

  test("a transactional send costs one credit; at zero it is refused and nothing is queued", async () => {
    const tpl = await ok(metered, "email_templates_create", {
      name: "Receipt",
      html: "<p>Thanks {{ data.order }}</p>",
    });
    await debitTo(0);
    const queued = await count("SELECT count(*) AS n FROM email_sends WHERE kind = 'transactional'");
    const refused = await callTool(metered, "email_transactional_send", {
      to: "buyer@x.test",
      templateId: tpl.id,
      subject: "Your receipt",
    });
    expect(refused.text).toContain(NOT_ENOUGH("email.send", 1, 0));
    expect(await count("SELECT count(*) AS n FROM email_sends WHERE kind = 'transactional'")).toBe(queued);
    await debitTo(1);
    const sent = await ok(metered, "email_transactional_send", {
      to: "buyer@x.test",
      templateId: tpl.id,
      subject: "Your receipt",
      data: { order: "#42" },
    });
    expect(sent).toMatchObject({ status: "queued", credits: 1, creditBalance: 0 });
    expect(await balance()).toBe(0);
    expect((await ledger("email.send")).at(-1)).toEqual({
      amount: -1,
      balanceAfter: 0,
      reason: "email.send",
      ref: `email_send:${sent.id}`,
    });
    const mails = smtp.messages.length;
    await flush();
    await smtp.waitFor(mails + 1);
  });

  test("racing transactional sends: exactly the balance's worth are queued", async () => {
    const tpl = await ok(metered, "email_templates_create", { name: "Race", html: "<p>Hi</p>" });
    await debitTo(4);
    const before = await count("SELECT count(*) AS n FROM email_sends WHERE kind = 'transactional'");
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        callTool(metered, "email_transactional_send", { to: `race${i}@x.test`, templateId: tpl.id, subject: "Hi" }),
      ),
    );
    expect(results.filter((r) => !r.isError)).toHaveLength(4);
    expect(await count("SELECT count(*) AS n FROM email_sends WHERE kind = 'transactional'")).toBe(before + 4);
    expect(await balance()).toBe(0);
  });

  test("a hard monthly budget refuses with its own message even with credits left, changing nothing", async () => {
    const tpl = await ok(metered, "email_templates_create", { name: "Budget", html: "<p>Hi</p>" });
    await debitTo(50);
    const spent = -(await ledger()).filter((e) => e.amount < 0).reduce((a, e) => a + e.amount, 0);
    await setBudget(s.deps, { companyId: co, monthlyLimit: spent + 1, hard: true });
    await ok(metered, "email_transactional_send", { to: "b@x.test", templateId: tpl.id, subject: "Hi" });
    const before = await ledger();
    const refused = await callTool(metered, "email_transactional_send", {
      to: "c@x.test",
      templateId: tpl.id,
      subject: "Hi",
    });
    expect(refused.text).toContain(
      `AI credit budget reached: email.send needs 1 and 0 of this month's ${spent + 1} remain. Nothing was done; the budget resets on 2026-06-01`,
    );
    expect(await ledger()).toEqual(before);
    expect(await count("SELECT count(*) AS n FROM email_sends WHERE email = 'c@x.test'")).toBe(0);
    await setBudget(s.deps, { companyId: co, monthlyLimit: null });
  });

  test("an automation's email is metered per recipient; short, the step fails saying so and nothing is queued", async () => {
    const a = await ok(metered, "automations_create", {
      name: "Mail on webhook",
      trigger: { type: "webhook" },
      actions: [
        { type: "send_email", with: { to: "x@x.test, y@x.test", subject: "Hook", text: "Got {{trigger.data.n}}" } },
      ],
      enabled: true,
    });
    await debitTo(1);
    // Runs are queued directly (incoming webhooks and their signatures are tested in test/automations).
    const insert = async () =>
      (
        await s.deps.db
          .insert(automationRuns)
          .values({
            automationId: a.id,
            companyId: co,
            version: 1,
            status: "queued",
            trigger: { kind: "webhook", data: { n: 1 } },
            chain: [],
            steps: [],
            createdAt: s.clock.now(),
          })
          .returning()
      )[0]!.id;
    const outbox = await count("SELECT count(*) AS n FROM mail_outbox");
    const r1 = await insert();
    await runQueued(s.deps);
    const run = await ok(metered, "automation_runs_get", { id: r1 });
    expect(run.status).toBe("failed");
    expect(run.error).toContain(NOT_ENOUGH("email.send", 2, 1));
    expect(await count("SELECT count(*) AS n FROM mail_outbox")).toBe(outbox);
    await debitTo(2);
    await ok(metered, "automation_runs_retry", { id: r1 });
    await runQueued(s.deps);
    const done = await ok(metered, "automation_runs_get", { id: r1 });
    expect(done.status).toBe("succeeded");
    expect(done.steps[0].output).toMatchObject({ to: ["x@x.test", "y@x.test"], credits: 2 });
    expect(await balance()).toBe(0);
    expect((await ledger("email.send")).at(-1)).toEqual({
      amount: -2,
      balanceAfter: 0,
      reason: "email.send",
      ref: `automation_run:${r1}`,
    });
    expect(await count("SELECT count(*) AS n FROM mail_outbox")).toBe(outbox + 1);
    await sendDueMail(s.deps);
  });
});

describe("deck PDFs", () => {
  let deck: { id: number; slug: string };
  test("an export over MCP costs 5 credits; with 4 it is refused clearly and nothing changes", async () => {
    const d = await ok(metered, "decks_create", {
      title: "Harbor Coffee pitch",
      slides: [{ layout: "title", content: { title: "A new shop" } }],
    });
    deck = { id: d.id, slug: d.slug };
    await debitTo(PRICES["pdf.export"] - 1);
    const before = await ledger();
    const refused = await callTool(metered, "decks_export_pdf", { id: deck.id });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain(NOT_ENOUGH("pdf.export", 5, 4));
    expect(refused.text).not.toContain("JVBER");
    expect(await ledger()).toEqual(before);
    await debitTo(PRICES["pdf.export"]);
    const pdf = await ok(metered, "decks_export_pdf", { id: deck.id });
    expect(pdf).toMatchObject({ mimeType: "application/pdf", credits: 5, creditBalance: 0 });
    expect(Buffer.from(pdf.dataBase64, "base64").subarray(0, 5).toString()).toBe("%PDF-");
    expect((await ledger("pdf.export")).at(-1)).toEqual({
      amount: -5,
      balanceAfter: 0,
      reason: "pdf.export",
      ref: `deck:${deck.id}:draft`,
    });
  });

  test("a hard budget is checked before rendering: 4 left refuses with the budget's message and renders nothing; exactly 5 left exports", async () => {
    await debitTo(100);
    const spent = -(await ledger()).filter((e) => e.amount < 0).reduce((a, e) => a + e.amount, 0);
    await setBudget(s.deps, { companyId: co, monthlyLimit: spent + PRICES["pdf.export"] - 1, hard: true });
    const renders = spyOn(pdfModule, "deckPdf");
    try {
      const before = await ledger();
      const refused = await callTool(metered, "decks_export_pdf", { id: deck.id });
      expect(refused.isError).toBe(true);
      expect(refused.text).toContain(
        `AI credit budget reached: pdf.export needs 5 and 4 of this month's ${spent + 4} remain. Nothing was done; the budget resets on 2026-06-01`,
      );
      expect(renders).toHaveBeenCalledTimes(0);
      expect(await ledger()).toEqual(before);
      expect(await balance()).toBe(100);
      await setBudget(s.deps, { companyId: co, monthlyLimit: spent + PRICES["pdf.export"], hard: true });
      const pdf = await ok(metered, "decks_export_pdf", { id: deck.id });
      expect(pdf).toMatchObject({ credits: 5, creditBalance: 95 });
      expect(renders).toHaveBeenCalledTimes(1);
      expect((await ok(metered, "ai_credits_balance")).budget).toMatchObject({ spent: spent + 5, remaining: 0 });
      // Now at the limit: the next export is refused before rendering too.
      expect((await callTool(metered, "decks_export_pdf", { id: deck.id })).text).toContain(
        "AI credit budget reached: pdf.export needs 5 and 0 of this month's",
      );
      expect(renders).toHaveBeenCalledTimes(1);
    } finally {
      renders.mockRestore();
      await setBudget(s.deps, { companyId: co, monthlyLimit: null });
    }
  });

  test("a visitor's download of the published deck is never metered, even at zero", async () => {
    const pub = await ok(metered, "decks_publish", { id: deck.id });
    await approve(pub.approval.token);
    await debitTo(0);
    const before = await ledger();
    const r = await fetch(`${s.url}/d/${deck.slug}.pdf`);
    expect(r.status).toBe(200);
    expect(
      Buffer.from(await r.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe("%PDF-");
    expect(await ledger()).toEqual(before);
  });
});

describe("embeddings", () => {
  const chunkStates = async (companyId: number) =>
    Object.fromEntries(
      (
        await rows(
          s.deps,
          "SELECT state, count(*) AS n FROM brain_chunks WHERE company_id = ? GROUP BY state",
          companyId,
        )
      ).map((r) => [r.state, Number(r.n)]),
    );

  test("paid per chunk; without credits the company's chunks wait (not sent, not failed) and search says so; a grant resumes them", async () => {
    await debitTo(2);
    for (const t of ["Company car policy", "Vacation rules", "Espresso machine"])
      await ok(metered, "brain_notes_create", { title: t, body: `${t}: the details.` });
    await ok(free, "brain_notes_create", { title: "Free fleet", body: "Cars for everyone." });
    const inputs = es.inputs;
    const r = await drainEmbeddingQueue(s.deps);
    expect(r).toEqual({ embedded: 3, failed: 0, waiting: 0 });
    // Two of the metered company's, one of the unmetered company's; the third metered chunk never went to the endpoint.
    expect(es.inputs - inputs).toBe(3);
    expect(await chunkStates(co)).toEqual({ done: 2, pending: 1 });
    expect(await chunkStates(freeCo)).toEqual({ done: 1 });
    expect((await ledger("embedding")).map((e) => [e.amount, e.balanceAfter])).toEqual([[-2, 0]]);
    expect((await ledger("embedding"))[0]!.ref).toMatch(/^brain_chunks:\d+-\d+$/);
    const status = await ok(metered, "brain_embeddings_status");
    expect(status.waitingForCredits).toBe(1);
    expect(status.note).toContain("Semantic search is paused for want of AI credits: 1 passage wait");
    const search = await ok(metered, "brain_search", { query: "espresso" });
    expect(search.note).toContain("Semantic search is paused for want of AI credits");
    expect(search.items.map((i: any) => i.title)).toContain("Espresso machine");
    // Later runs leave it waiting: no endpoint call, no attempt counted, nothing lost.
    s.clock.advance(3600_000);
    const sent = es.inputs;
    expect(await drainEmbeddingQueue(s.deps)).toEqual({ embedded: 0, failed: 0, waiting: 0 });
    expect(es.inputs).toBe(sent);
    expect(
      Number(
        (await row(s.deps, "SELECT attempts FROM brain_chunks WHERE company_id = ? AND state = 'pending'", co))!
          .attempts,
      ),
    ).toBe(0);
    expect((await ok(free, "brain_search", { query: "cars" })).note).toBeUndefined();
    await grantCredits(s.deps, { companyId: co, amount: 5 });
    expect(await drainEmbeddingQueue(s.deps)).toEqual({ embedded: 1, failed: 0, waiting: 0 });
    expect(await chunkStates(co)).toEqual({ done: 3 });
    expect((await ledger("embedding")).map((e) => [e.amount, e.balanceAfter])).toEqual([
      [-2, 0],
      [-1, 4],
    ]);
    expect((await ok(metered, "brain_embeddings_status")).waitingForCredits).toBeUndefined();
    expect((await ok(metered, "brain_search", { query: "espresso" })).note).toBeUndefined();
  });

  test("a hard budget stops embeddings with credits left: the chunks wait a minute at a time, unsent, without holding up other companies", async () => {
    await debitTo(100);
    const spent = -(await ledger()).filter((e) => e.amount < 0).reduce((a, e) => a + e.amount, 0);
    await setBudget(s.deps, { companyId: co, monthlyLimit: spent, hard: true });
    // More than one batch (32) of the held company's chunks ahead of another company's.
    for (let i = 0; i < 40; i++)
      await ok(metered, "brain_notes_create", { title: `Parking ${i}`, body: "Spots behind the office." });
    await ok(free, "brain_notes_create", { title: "Free parking", body: "Anywhere." });
    const inputs = es.inputs;
    expect(await drainEmbeddingQueue(s.deps)).toEqual({ embedded: 1, failed: 0, waiting: 40 });
    expect(es.inputs).toBe(inputs + 1);
    expect(await chunkStates(freeCo)).toEqual({ done: 2 });
    const held = await rows(
      s.deps,
      "SELECT state, attempts, last_error FROM brain_chunks WHERE company_id = ? AND state = 'pending'",
      co,
    );
    expect(held).toHaveLength(40);
    for (const c of held) {
      expect(Number(c.attempts)).toBe(0);
      expect(c.last_error).toBe("Waiting for AI credits: the company's monthly AI credit budget is used up");
    }
    expect((await ok(metered, "brain_embeddings_status")).waitingForCredits).toBe(40);
    // Within the minute nothing is retried; after it, with the budget raised, all are embedded and paid.
    expect(await drainEmbeddingQueue(s.deps)).toEqual({ embedded: 0, failed: 0, waiting: 0 });
    await setBudget(s.deps, { companyId: co, monthlyLimit: spent + 100, hard: true });
    s.clock.advance(60_000);
    expect(await drainEmbeddingQueue(s.deps)).toEqual({ embedded: 40, failed: 0, waiting: 0 });
    expect(await balance()).toBe(60);
    expect((await ok(metered, "brain_embeddings_status")).waitingForCredits).toBeUndefined();
    await setBudget(s.deps, { companyId: co, monthlyLimit: null });
  });
});

describe("a company the agency never granted credits is not metered", () => {
  test("sends, tests, transactional mail and PDF exports work with no account and write no ledger", async () => {
    const c = await campaign(free, ["f1@x.test", "f2@x.test"]);
    const sent = await ok(free, "email_campaigns_send", { id: c.id });
    expect(sent).toMatchObject({ status: "sending", audience: 2 });
    expect(sent).not.toHaveProperty("credits");
    expect(await ok(free, "email_campaigns_test", { id: c.id, to: ["olivia@agency.test"] })).not.toHaveProperty(
      "credits",
    );
    expect(
      await ok(free, "email_transactional_send", { to: "z@x.test", templateId: c.templateId, subject: "Hi" }),
    ).not.toHaveProperty("credits");
    const d = await ok(free, "decks_create", {
      title: "Free deck",
      slides: [{ layout: "title", content: { title: "Hi" } }],
    });
    const pdf = await ok(free, "decks_export_pdf", { id: d.id });
    expect(pdf).not.toHaveProperty("credits");
    const mails = smtp.messages.length;
    await flush();
    await smtp.waitFor(mails + 4);
    expect(await balance(freeCo)).toBeNull();
    expect(await count("SELECT count(*) AS n FROM ai_credit_ledger WHERE company_id = ?", freeCo)).toBe(0);
    const bal = await ok(free, "ai_credits_balance");
    expect(bal.balance).toBe(0);
  });
});

describe("a company metered after its campaign started", () => {
  test("pays for the recipients queued from then on, not for those queued before", async () => {
    const late = (await createCompany(s.deps, { name: "Late Co", ownerUserId: ownerId })).id;
    const c = await mcpClient(
      s.url,
      (await mintMcpKey(s.deps, { userId: ownerId, scopes: SCOPES, companyIds: [late] })).key,
    );
    try {
      const cam = await campaign(c, []);
      // 600 subscribers: two queuing batches of the delivery job (500, then 100).
      const now = s.clock.now();
      const subs = await s.deps.db
        .insert(emailSubscribers)
        .values(
          Array.from({ length: 600 }, (_, i) => ({
            companyId: late,
            email: `late${i}@x.test`,
            attributes: {},
            createdAt: now,
            updatedAt: now,
          })),
        )
        .returning({ id: emailSubscribers.id });
      await s.deps.db.insert(emailMemberships).values(
        subs.map((x) => ({
          companyId: late,
          listId: cam.listId,
          subscriberId: x.id,
          status: "subscribed",
          createdAt: now,
          updatedAt: now,
        })),
      );
      expect(await ok(c, "email_campaigns_send", { id: cam.id })).not.toHaveProperty("credits");
      expect(await queueNextBatch(s.deps, cam.id)).toBe(false);
      expect(await count("SELECT count(*) AS n FROM email_sends WHERE campaign_id = ?", cam.id)).toBe(500);
      await grantCredits(s.deps, { companyId: late, amount: 1000 });
      expect(await queueNextBatch(s.deps, cam.id)).toBe(true);
      expect(await count("SELECT count(*) AS n FROM email_sends WHERE campaign_id = ?", cam.id)).toBe(600);
      const debits = await rows(
        s.deps,
        "SELECT amount, balance_after, ref FROM ai_credit_ledger WHERE company_id = ? AND kind = 'debit'",
        late,
      );
      expect(debits.map((d) => [Number(d.amount), Number(d.balance_after), d.ref])).toEqual([
        [-100, 900, `campaign:${cam.id}`],
      ]);
      // Cancelled before any went out: what it paid (the 100 queued once metered) comes back, no more.
      expect(await ok(c, "email_campaigns_cancel", { id: cam.id })).toMatchObject({
        notSent: 600,
        creditsRefunded: 100,
        creditBalance: 1000,
      });
    } finally {
      await c.close();
    }
  });
});
