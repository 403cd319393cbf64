/**
 * The email verbs against a real database (both engines) and a real SMTP
 * server: lists and consent, double opt-in, segments on hand-built cases,
 * templates that are sanitised and escape every value, campaigns that
 * cannot leave before a person approves them, sends and schedules that need
 * email:send and SMTP, pause/resume/cancel, stats and history.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { simpleParser } from "mailparser";
import { emailMemberships, emailSends } from "../../src/domains/email/tables";
import { scheduleInstant } from "../../src/domains/email/campaigns";
import { errorOf, makeEmailWorld, type EmailWorld } from "./world";

let w: EmailWorld;
beforeEach(async () => {
  w = await makeEmailWorld();
});
afterEach(() => w.done());

const confirmTokenFrom = (raw: string) => /\/e\/confirm\/([0-9a-f]{48})/.exec(raw.replace(/=\r\n/g, ""))![1]!;

describe("lists and subscribers", () => {
  test("single opt-in subscribes at once; double opt-in mails a confirmation and waits", async () => {
    const single = await w.t("email_lists_create", { name: "Offers", optIn: "single" });
    const double = await w.t("email_lists_create", { name: "Newsletter" });
    expect(double.optIn).toBe("double");
    const r = await w.t("email_subscribers_add", {
      email: " Zoe@Example.COM ",
      name: "Zoë",
      listIds: [single.id, double.id],
    });
    expect(r.email).toBe("zoe@example.com");
    expect(r.lists).toEqual([
      { listId: single.id, listName: "Offers", status: "subscribed" },
      { listId: double.id, listName: "Newsletter", status: "unconfirmed" },
    ]);
    expect(r.confirmationsQueued).toBe(1);
    await w.flush();
    const [m] = await w.smtp.waitFor(1);
    const parsed = await simpleParser(m!.raw);
    expect(parsed.subject).toBe("Confirm your subscription to Newsletter");
    expect(m!.envelope.to).toEqual(["zoe@example.com"]);
    const counts = (await w.t("email_lists_get", { id: double.id })).counts;
    expect(counts).toEqual({ unconfirmed: 1, subscribed: 0, unsubscribed: 0, bounced: 0, complained: 0 });
    const { confirmByToken } = await import("../../src/domains/email/subscribers");
    const ok = await confirmByToken(w.deps, confirmTokenFrom(m!.raw));
    expect(ok).toEqual({ listName: "Newsletter", email: "zoe@example.com", changed: true });
    expect((await w.t("email_lists_get", { id: double.id })).counts.subscribed).toBe(1);
    // The token is spent: a second use finds nothing.
    expect(await confirmByToken(w.deps, confirmTokenFrom(m!.raw))).toBeNull();
    const changes = await w.events("email.subscription_changed");
    expect(changes.map((e) => [e.data.to, e.data.source])).toEqual([["subscribed", "confirm_page"]]);
  });

  test("a re-add never overrides an unsubscribe; the same address twice is one subscriber", async () => {
    const l = await w.t("email_lists_create", { name: "Offers", optIn: "single" });
    const a = await w.t("email_subscribers_add", { email: "pat@example.com", listIds: [l.id] });
    await w.t("email_subscribers_unsubscribe", { email: "pat@example.com" });
    const b = await w.t("email_subscribers_add", { email: "PAT@example.com", name: "Pat", listIds: [l.id] });
    expect(b.id).toBe(a.id);
    expect(b.created).toBe(false);
    expect(b.lists[0].status).toBe("unsubscribed");
    expect(b.warnings[0]).toContain("never overrides");
    // By hand (with consent), an admin can set it back.
    const u = await w.t("email_subscribers_update", { id: a.id, lists: [{ listId: l.id, status: "subscribed" }] });
    expect(u.lists[0].status).toBe("subscribed");
    expect(u.listsChanged).toEqual([l.id]);
  });

  test("racing adds of one address make one subscriber and one membership", async () => {
    const l = await w.t("email_lists_create", { name: "Offers", optIn: "single" });
    const rs = await Promise.all(
      Array.from({ length: 8 }, () => w.t("email_subscribers_add", { email: "race@example.com", listIds: [l.id] })),
    );
    expect(new Set(rs.map((r) => r.id)).size).toBe(1);
    expect(rs.filter((r) => r.created)).toHaveLength(1);
    expect((await w.deps.db.select().from(emailMemberships)).length).toBe(1);
  });

  test("import: hostile and broken rows refused line by line, formula text kept inert, dry run writes nothing", async () => {
    const l = await w.t("email_lists_create", { name: "Imported", optIn: "single" });
    const rows = [
      { email: "ok@example.com", name: "=cmd|' /C calc'!A0" },
      { email: "not-an-address" },
      { email: "ok@example.com" },
      { email: "x@example.com", attributes: { "bad key!": 1 } },
      { email: "y@example.com", name: "Y".repeat(900), attributes: { plan: "pro" } },
      { email: "'; DROP TABLE email_subscribers; --@example.com" },
    ];
    const dry = await w.t("email_subscribers_import", { listIds: [l.id], rows, dryRun: true });
    expect(dry).toMatchObject({ dryRun: true, created: 2, updated: 0 });
    expect(dry.refused.map((r: any) => r.row)).toEqual([2, 3, 4, 6]);
    expect((await w.t("email_subscribers_list", {})).total).toBe(0);
    const real = await w.t("email_subscribers_import", { listIds: [l.id], rows });
    expect(real).toMatchObject({ dryRun: false, created: 2, updated: 0 });
    expect(real.refused[0]).toMatchObject({ row: 2, reason: expect.stringContaining("Not an email address") });
    const ok = await w.t("email_subscribers_get", { email: "ok@example.com" });
    // Stored as text, never evaluated; names are cut to 200 characters.
    expect(ok.name).toBe("=cmd|' /C calc'!A0");
    expect((await w.t("email_subscribers_get", { email: "y@example.com" })).name).toHaveLength(200);
  });

  test("other companies' ids are not found; a viewer cannot write; email:read cannot write", async () => {
    const mine = await w.t("email_lists_create", { name: "Mine" });
    const foreign = await w.t("email_lists_create", { name: "Theirs" }, w.ctx({ company: "other" }));
    expect((await errorOf(() => w.t("email_lists_get", { id: foreign.id }))).code).toBe("not_found");
    expect(
      (await errorOf(() => w.t("email_subscribers_add", { email: "a@b.test", listIds: [mine.id, foreign.id] }))).code,
    ).toBe("not_found");
    expect((await errorOf(() => w.t("email_lists_create", { name: "V" }, w.ctx({ role: "viewer" })))).code).toBe(
      "forbidden",
    );
    expect(
      (await errorOf(() => w.t("email_lists_create", { name: "R" }, w.ctx({ scopes: ["email:read"] })))).code,
    ).toBe("forbidden");
    expect((await errorOf(() => w.t("email_lists_create", { name: "Mine" }))).code).toBe("conflict");
  });
});

describe("segments", () => {
  test("rules over fields, attributes and lists select exactly the hand-picked subscribers", async () => {
    const a = await w.t("email_lists_create", { name: "A", optIn: "single" });
    const b = await w.t("email_lists_create", { name: "B", optIn: "single" });
    await w.t("email_subscribers_add", {
      email: "zoe@acme.test",
      name: "Zoë Ünal",
      attributes: { plan: "pro", seats: 12 },
      listIds: [a.id],
    });
    await w.t("email_subscribers_add", {
      email: "max@acme.test",
      name: "Max",
      attributes: { plan: "free", seats: 1 },
      listIds: [a.id, b.id],
    });
    await w.t("email_subscribers_add", {
      email: "li@other.test",
      name: "Li",
      attributes: { plan: "pro", seats: 3 },
      listIds: [b.id],
    });
    await w.t("email_subscribers_add", { email: "no@acme.test", listIds: [] });
    const count = async (rules: unknown) =>
      (await w.t("email_segments_count", { rules })).sample.map((s: any) => s.email).sort();
    expect(await count({ conditions: [{ field: "email", op: "ends_with", value: "@ACME.test" }] })).toEqual([
      "max@acme.test",
      "no@acme.test",
      "zoe@acme.test",
    ]);
    expect(await count({ conditions: [{ field: "name", op: "contains", value: "zoe unal" }] })).toEqual([
      "zoe@acme.test",
    ]);
    expect(
      await count({
        conditions: [
          { field: "attributes.seats", op: "gte", value: 3 },
          { field: "attributes.plan", op: "eq", value: "pro" },
        ],
      }),
    ).toEqual(["li@other.test", "zoe@acme.test"]);
    expect(
      await count({
        match: "any",
        conditions: [
          { field: "list", op: "in", value: b.id },
          { field: "attributes.plan", op: "not_exists" },
        ],
      }),
    ).toEqual(["li@other.test", "max@acme.test", "no@acme.test"]);
    expect(
      await count({
        conditions: [
          { field: "list", op: "in", value: a.id },
          { field: "list", op: "not_in", value: b.id },
        ],
      }),
    ).toEqual(["zoe@acme.test"]);
    const bad = await errorOf(() =>
      w.t("email_segments_create", {
        name: "X",
        rules: { conditions: [{ field: "crm.lifecycle", op: "eq", value: "lead" }] },
      }),
    );
    expect(bad.message).toContain("unknown CRM field");
    const foreignList = await w.t("email_lists_create", { name: "F" }, w.ctx({ company: "other" }));
    expect(
      (
        await errorOf(() =>
          w.t("email_segments_create", {
            name: "X",
            rules: { conditions: [{ field: "list", op: "in", value: foreignList.id }] },
          }),
        )
      ).code,
    ).toBe("not_found");
    // A campaign to list A narrowed by a "pro" segment reaches Zoë only.
    const pro = await w.t("email_segments_create", {
      name: "Pro",
      rules: { conditions: [{ field: "attributes.plan", op: "eq", value: "pro" }] },
    });
    const c = await w.t("email_campaigns_create", {
      name: "Pro only",
      subject: "Hi",
      html: "<p>Hi</p>",
      listIds: [a.id],
      segmentIds: [pro.id],
    });
    expect(c.audience).toBe(1);
    expect((await errorOf(() => w.t("email_segments_delete", { id: pro.id }))).code).toBe("conflict");
  });
});

describe("templates", () => {
  test("HTML is sanitised on save; variables are escaped in HTML, raw in text; text is generated", async () => {
    const t = await w.t("email_templates_create", {
      name: "Hostile",
      html: `<p onclick="x()">Hi {{ name }}</p><script>alert(1)</script><a href="javascript:alert(2)">bad</a><a href="{{ attributes.site }}">site</a><img src="x" onerror="alert(3)"><iframe src="https://evil.test"></iframe>`,
    });
    expect(t.warnings[0]).toContain("removed");
    const got = await w.t("email_templates_get", { id: t.id });
    expect(got.html).not.toMatch(/script|onclick|onerror|javascript|iframe/);
    expect(got.textGenerated).toBe(true);
    expect(got.text).toContain("Hi {{ name }}");
    const r = await w.t("email_templates_render", {
      id: t.id,
      name: `<b>"Bo"</b>`,
      attributes: { site: "javascript:alert(4)" },
    });
    expect(r.html).toContain("Hi &lt;b&gt;&quot;Bo&quot;&lt;/b&gt;");
    expect(r.html).toContain('href="#"');
    expect(r.html).not.toContain("javascript:");
    expect(r.text).toContain(`Hi <b>"Bo"</b>`);
    const unknown = await w.t("email_templates_create", { name: "Typo", html: "<p>{{ nmae }}</p>" });
    expect(unknown.warnings.join(" ")).toContain("nmae");
  });
});

describe("campaigns and approval", () => {
  test("a campaign cannot be sent or scheduled before approval; rejection keeps it unsendable; approval allows it", async () => {
    const l = await w.t("email_lists_create", { name: "News", optIn: "single" });
    await w.t("email_subscribers_add", { email: "a@example.com", listIds: [l.id] });
    const c = await w.t("email_campaigns_create", {
      name: "Launch",
      subject: "We launched",
      html: "<p>News!</p>",
      listIds: [l.id],
    });
    expect(c).toMatchObject({ status: "pending_approval", approved: false, audience: 1 });
    expect(c.approval.url).toMatch(/\/approve\/[0-9a-f]{64}$/);
    expect((await errorOf(() => w.t("email_campaigns_send", { id: c.id }))).message).toContain("not approved yet");
    expect(
      (await errorOf(() => w.t("email_campaigns_schedule", { id: c.id, at: "2025-02-01T09:00:00Z" }))).message,
    ).toContain("not approved");
    await w.reject(c.approval);
    expect((await w.t("email_campaigns_get", { id: c.id })).status).toBe("draft");
    expect((await errorOf(() => w.t("email_campaigns_send", { id: c.id }))).message).toContain("not approved");
    const u = await w.t("email_campaigns_update", { id: c.id, subject: "We launched!" });
    expect(u.changed).toEqual(["subject"]);
    const result = await w.approve(u.approval);
    expect(result).toMatchObject({ campaignId: c.id, approved: true, audience: 1 });
    const sent = await w.t("email_campaigns_send", { id: c.id });
    expect(sent.status).toBe("sending");
    await w.flush();
    expect((await w.t("email_campaigns_get", { id: c.id })).status).toBe("sent");
    expect(w.smtp.messages).toHaveLength(1);
    // The old link was superseded by the update: it cannot approve anything any more.
    expect((await w.events("email.campaign_sent"))[0]!.data).toMatchObject({
      recipients: 1,
      delivered: 1,
      bounced: 0,
      failed: 0,
    });
    expect((await errorOf(() => w.t("email_campaigns_update", { id: c.id, subject: "Again" }))).message).toContain(
      "is sent",
    );
  });

  test("sending needs email:send as well as email:write, an admin, and SMTP", async () => {
    const { campaignId } = await w.readyCampaign(["a@example.com"]);
    for (const ctx of [
      w.ctx({ scopes: ["email:write"] }),
      w.ctx({ scopes: ["email:send"] }),
      w.ctx({ role: "viewer" }),
    ]) {
      expect((await errorOf(() => w.t("email_campaigns_send", { id: campaignId }, ctx))).code).toBe("forbidden");
      expect(
        (await errorOf(() => w.t("email_transactional_send", { to: "a@b.test", templateId: 1, subject: "x" }, ctx)))
          .code,
      ).toBe("forbidden");
    }
    w.deps.config.smtpUrl = null;
    const e = await errorOf(() =>
      w.t("email_campaigns_send", { id: campaignId }, w.ctx({ scopes: ["email:write", "email:send"] })),
    );
    expect(e.message).toContain("PLINTH_SMTP_URL");
    expect(e.message).toContain("Nothing was queued");
    expect((await w.t("email_campaigns_get", { id: campaignId })).status).toBe("draft");
    expect(await w.queued()).toBe(0);
  });

  test("every message carries RFC 8058 one-click unsubscribe headers, a footer link and filled variables", async () => {
    const { campaignId, listId } = await w.readyCampaign(["ann@example.com"], {
      preheader: "Fresh picks inside",
      replyTo: "hello@acme.test",
    });
    await w.t("email_subscribers_update", { email: "ann@example.com", name: "Ann <Lee>" });
    await w.t("email_campaigns_send", { id: campaignId });
    await w.flush();
    const m = w.smtp.messages[0]!;
    const p = await simpleParser(m.raw);
    expect(p.subject).toBe("Spring news for Ann <Lee>");
    const head = ("\r\n" + m.raw.slice(0, m.raw.indexOf("\r\n\r\n"))).replace(/\r\n[ \t]+/g, " ");
    expect(head).toContain("\r\nList-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n");
    const unsub = /\r\nList-Unsubscribe: <([^>]+)>\r\n/.exec(head)![1]!;
    expect(unsub).toMatch(/^https:\/\/plinth\.test\/e\/u\/[0-9a-f]{48}$/);
    expect(p.html).toContain("Hello Ann &lt;Lee&gt;");
    expect(p.html).toContain(`href="${unsub}"`);
    expect(p.html).toContain("Fresh picks inside");
    expect(p.text).toContain(`Unsubscribe: ${unsub}`);
    expect(p.replyTo?.text).toBe("hello@acme.test");
    expect(p.from?.text).toBe('"Acme News" <news@acme.test>');
    // One-click: the token alone unsubscribes from the campaign's lists.
    const { unsubscribeByToken } = await import("../../src/domains/email/subscribers");
    const r = await unsubscribeByToken(w.deps, unsub.split("/").pop()!, false, "one_click");
    expect(r!.changed).toHaveLength(1);
    expect((await w.t("email_lists_get", { id: listId })).counts.unsubscribed).toBe(1);
    const stats = await w.t("email_campaigns_stats", { id: campaignId });
    expect(stats).toMatchObject({
      recipients: 1,
      delivered: 1,
      unsubscribed: 1,
      unsubscribeRate: 100,
      opened: null,
      clicked: null,
    });
    const h = await w.t("email_subscribers_history", { email: "ann@example.com" });
    expect(h.items[0]).toMatchObject({
      kind: "campaign",
      campaignId,
      status: "sent",
      subject: "Spring news for {{ name | you }}",
    });
    expect(h.lists[0].status).toBe("unsubscribed");
  });

  test("pause stops sending at once, resume finishes, cancel drops the rest; stats count each state", async () => {
    const emails = Array.from({ length: 30 }, (_, i) => `p${i}@example.com`);
    const { campaignId } = await w.readyCampaign(emails, { ratePerMinute: 600 });
    await w.t("email_campaigns_send", { id: campaignId });
    const { deliver } = await import("../../src/domains/email/delivery");
    await deliver(w.deps); // 600/min → 10 per second
    expect(w.smtp.messages).toHaveLength(10);
    await w.t("email_campaigns_pause", { id: campaignId });
    w.clock.advance(1000);
    await deliver(w.deps);
    expect(w.smtp.messages).toHaveLength(10);
    expect((await errorOf(() => w.t("email_campaigns_update", { id: campaignId, subject: "x" }))).code).toBe(
      "conflict",
    );
    await w.t("email_campaigns_resume", { id: campaignId });
    w.clock.advance(1000);
    await deliver(w.deps);
    expect(w.smtp.messages).toHaveLength(20);
    const c = await w.t("email_campaigns_cancel", { id: campaignId });
    expect(c).toMatchObject({ status: "cancelled", notSent: 10 });
    await w.flush();
    expect(w.smtp.messages).toHaveLength(20);
    expect(await w.t("email_campaigns_stats", { id: campaignId })).toMatchObject({
      recipients: 30,
      delivered: 20,
      cancelled: 10,
      queued: 0,
    });
    const changes = (await w.events("email.campaign_status_changed")).map((e) => `${e.data.from}>${e.data.to}`);
    expect(changes).toEqual(["draft>sending", "sending>paused", "paused>sending", "sending>cancelled"]);
    // Every recipient at most once.
    const to = w.smtp.messages.map((m) => m.envelope.to[0]);
    expect(new Set(to).size).toBe(20);
  });

  test("the rate holds in every 60 s window", async () => {
    const emails = Array.from({ length: 12 }, (_, i) => `r${i}@example.com`);
    const { campaignId } = await w.readyCampaign(emails, { ratePerMinute: 5 });
    await w.t("email_campaigns_send", { id: campaignId });
    const { deliver } = await import("../../src/domains/email/delivery");
    for (let s = 0; s < 59; s++) {
      await deliver(w.deps);
      w.clock.advance(1000);
    }
    expect(w.smtp.messages).toHaveLength(5);
    w.clock.advance(1000);
    for (let s = 0; s < 60; s++) {
      await deliver(w.deps);
      w.clock.advance(1000);
    }
    expect(w.smtp.messages).toHaveLength(10);
  });

  test("schedules are time-zone aware and start at their instant, not before", async () => {
    // 2025-03-30 02:30 does not exist in Berlin (clocks jump 02:00 → 03:00).
    expect(() => scheduleInstant("2025-03-30T02:30", "Europe/Berlin")).toThrow("does not exist");
    // 09:00 in New York on 2025-01-20 (EST, UTC-5) is 14:00 UTC.
    expect(scheduleInstant("2025-01-20T09:00", "America/New_York").toISOString()).toBe("2025-01-20T14:00:00.000Z");
    expect(scheduleInstant("2025-07-20T09:00", "America/New_York").toISOString()).toBe("2025-07-20T13:00:00.000Z");
    expect(scheduleInstant("2025-01-20T09:00:00+01:00", undefined).toISOString()).toBe("2025-01-20T08:00:00.000Z");
    const { campaignId } = await w.readyCampaign(["s@example.com"]);
    expect(
      (await errorOf(() => w.t("email_campaigns_schedule", { id: campaignId, at: "2025-01-20T09:00" }))).message,
    ).toContain("timeZone");
    expect(
      (await errorOf(() => w.t("email_campaigns_schedule", { id: campaignId, at: "2025-01-15T11:59:00Z" }))).message,
    ).toContain("past");
    const s = await w.t("email_campaigns_schedule", {
      id: campaignId,
      at: "2025-01-15T08:00",
      timeZone: "America/New_York",
    });
    expect(s).toMatchObject({
      status: "scheduled",
      scheduledAt: "2025-01-15T13:00:00.000Z",
      timeZone: "America/New_York",
    });
    const { deliver } = await import("../../src/domains/email/delivery");
    w.clock.set(Date.UTC(2025, 0, 15, 12, 59, 59, 999));
    await deliver(w.deps);
    expect((await w.t("email_campaigns_get", { id: campaignId })).status).toBe("scheduled");
    w.clock.set(Date.UTC(2025, 0, 15, 13, 0, 0));
    await w.flush();
    expect((await w.t("email_campaigns_get", { id: campaignId })).status).toBe("sent");
    expect(w.smtp.messages).toHaveLength(1);
  });

  test("tests go to members only until approved, are marked [Test] and stay out of stats", async () => {
    const l = await w.t("email_lists_create", { name: "N", optIn: "single" });
    const c = await w.t("email_campaigns_create", {
      name: "T",
      subject: "Hello",
      html: "<p>Hi {{ name }}</p>",
      listIds: [l.id],
    });
    expect((await errorOf(() => w.t("email_campaigns_test", { id: c.id, to: ["outsider@example.com"] }))).code).toBe(
      "forbidden",
    );
    const ok = await w.t("email_campaigns_test", { id: c.id, to: ["owner@example.test"], name: "Olga" });
    expect(ok.queued).toBe(1);
    await w.flush();
    const p = await simpleParser(w.smtp.messages[0]!.raw);
    expect(p.subject).toBe("[Test] Hello");
    expect(p.html).toContain("Hi Olga");
    expect((await w.t("email_campaigns_stats", { id: c.id })).recipients).toBe(0);
  });

  test("transactional send renders data variables once per idempotent call and refuses blocklisted addresses", async () => {
    const tpl = await w.t("email_templates_create", {
      name: "Receipt",
      html: "<p>Order {{ data.order.number }} for {{ name | customer }}: {{ data.total }}</p>",
    });
    const r = await w.t("email_transactional_send", {
      to: "buyer@example.com",
      templateId: tpl.id,
      subject: "Receipt {{ data.order.number }}",
      data: { order: { number: "A-17" }, total: "€12.50" },
    });
    expect(r).toMatchObject({ to: "buyer@example.com", subject: "Receipt A-17", status: "queued" });
    await w.flush();
    const p = await simpleParser(w.smtp.messages[0]!.raw);
    expect(p.text).toBe("Order A-17 for customer: €12.50");
    expect(p.messageId).toBe(r.messageId);
    expect(p.headers.has("list-unsubscribe")).toBe(false);
    await w.t("email_subscribers_add", { email: "blocked@example.com" });
    await w.t("email_subscribers_update", { email: "blocked@example.com", blocklisted: true });
    expect(
      (
        await errorOf(() =>
          w.t("email_transactional_send", { to: "blocked@example.com", templateId: tpl.id, subject: "x" }),
        )
      ).message,
    ).toContain("blocklisted");
  });

  test("a delete keeps campaigns that reached people; racing sends start the campaign once", async () => {
    const { campaignId } = await w.readyCampaign(["a@example.com", "b@example.com"]);
    const rs = await Promise.allSettled(
      Array.from({ length: 5 }, () => w.t("email_campaigns_send", { id: campaignId })),
    );
    expect(rs.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect((await w.events("email.campaign_status_changed")).length).toBe(1);
    await w.flush();
    expect((await errorOf(() => w.t("email_campaigns_delete", { id: campaignId }))).message).toContain(
      "kept for its stats",
    );
    expect(w.smtp.messages.map((m) => m.envelope.to[0]).sort()).toEqual(["a@example.com", "b@example.com"]);
    const rows = await w.deps.db.select().from(emailSends).where(eq(emailSends.campaignId, campaignId));
    expect(rows).toHaveLength(2);
  });
});

describe("consent at send time and erasure", () => {
  test("someone who unsubscribes while a campaign is under way is skipped; a deleted subscriber is erased from history", async () => {
    const emails = Array.from({ length: 15 }, (_, i) => `m${i}@example.com`);
    const { campaignId } = await w.readyCampaign(emails);
    await w.t("email_campaigns_send", { id: campaignId });
    const { deliver } = await import("../../src/domains/email/delivery");
    await deliver(w.deps); // 10 of 15 sent, all 15 queued
    const waiting = (await w.deps.db.select().from(emailSends).where(eq(emailSends.status, "queued")))
      .map((r) => r.email)
      .sort();
    expect(waiting).toHaveLength(5);
    await w.t("email_subscribers_unsubscribe", { email: waiting[0] });
    await w.t("email_subscribers_update", { email: waiting[1], blocklisted: true });
    await w.t("email_subscribers_delete", { email: waiting[2] });
    await w.flush();
    const got = w.smtp.messages.map((m) => m.envelope.to[0]);
    expect(got).toHaveLength(12);
    for (const e of waiting.slice(0, 3)) expect(got).not.toContain(e);
    expect(await w.t("email_campaigns_stats", { id: campaignId })).toMatchObject({
      recipients: 15,
      delivered: 12,
      cancelled: 3,
    });
    const rows = await w.deps.db.select().from(emailSends).where(eq(emailSends.campaignId, campaignId));
    expect(rows.some((r) => r.email === waiting[2])).toBe(false);
    expect(rows.filter((r) => r.email.startsWith("erased-"))).toHaveLength(1);
    expect((await w.t("email_campaigns_get", { id: campaignId })).status).toBe("sent");
  });
});

describe("bad input", () => {
  test("oversized, hostile and foreign input is refused with a clear message and changes nothing", async () => {
    const l = await w.t("email_lists_create", { name: "L", optIn: "single" });
    const foreignTpl = await w.t(
      "email_templates_create",
      { name: "Theirs", html: "<p>x</p>" },
      w.ctx({ company: "other" }),
    );
    const foreignSeg = await w.t(
      "email_segments_create",
      { name: "Theirs", rules: { conditions: [{ field: "email", op: "exists" }] } },
      w.ctx({ company: "other" }),
    );
    const cases: [string, Record<string, unknown>, string][] = [
      ["email_campaigns_create", { name: "C", subject: "S", listIds: [l.id], templateId: foreignTpl.id }, "not_found"],
      [
        "email_campaigns_create",
        { name: "C", subject: "S", listIds: [l.id], html: "<p>x</p>", segmentIds: [foreignSeg.id] },
        "not_found",
      ],
      ["email_campaigns_create", { name: "C", subject: "S", listIds: [l.id] }, "validation"],
      [
        "email_campaigns_create",
        { name: "C", subject: "S", listIds: [l.id], html: "<script>only()</script>" },
        "validation",
      ],
      [
        "email_campaigns_create",
        { name: "C", subject: "S", listIds: [l.id], html: "<p>x</p>", fromEmail: "not an address" },
        "validation",
      ],
      ["email_subscribers_add", { email: "a@b.test", attributes: { x: "y".repeat(1001) } }, "validation"],
      ["email_subscribers_add", { email: "a@b.test", attributes: { n: Number.POSITIVE_INFINITY } }, "validation"],
      ["email_subscribers_add", { email: "a@b.test\r\nBcc: victim@example.com" }, "validation"],
      [
        "email_segments_create",
        { name: "S", rules: { conditions: [{ field: "attributes.n", op: "gt", value: "many" }] } },
        "validation",
      ],
      [
        "email_segments_create",
        { name: "S", rules: { conditions: [{ field: "createdAt", op: "after", value: "yesterday" }] } },
        "validation",
      ],
      ["email_campaigns_schedule", { id: 999_999, at: "2025-02-01T09:00:00Z" }, "not_found"],
      ["email_campaigns_schedule", { id: 1, at: "2025-02-01T09:00", timeZone: "Mars/Olympus" }, "validation"],
      ["email_transactional_send", { to: "x@example.com", templateId: foreignTpl.id, subject: "Hi" }, "not_found"],
    ];
    for (const [tool, args, code] of cases) {
      const e = await errorOf(() => w.t(tool, args));
      expect([tool, e.code]).toEqual([tool, code]);
      expect(e.message.length).toBeGreaterThan(10);
    }
    const { call } = await import("../store/world");
    const { emailDomain } = await import("../../src/domains/email/tools");
    // The schema refuses what never reaches a verb: line breaks in a subject, an enormous template, huge numbers.
    for (const args of [
      { name: "C", subject: "Hi\nBcc: x@y.z", listIds: [l.id], html: "<p>x</p>" },
      { name: "C", subject: "Hi", listIds: [l.id], html: "x".repeat(500_001) },
      { name: "C", subject: "Hi", listIds: [l.id], html: "<p>x</p>", ratePerMinute: 1e12 },
    ])
      expect((await errorOf(() => call(emailDomain, w.owner, "email_campaigns_create", args))).code).toBe("validation");
    expect((await w.t("email_campaigns_list", {})).total).toBe(0);
  });
});
