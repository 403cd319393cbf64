/**
 * Delivery against a real SMTP server on loopback: refusals and dropped
 * connections mid-campaign are retried with backoff and the same
 * Message-ID, and nobody gets a message twice; hard bounces mark the
 * address; racing delivery runs send each message once; without SMTP,
 * confirmations wait and go out once it is configured.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { closeMailTransport } from "../../src/core/mail";
import { SEND_RETRY_MS } from "../../src/domains/email/delivery";
import { deliver } from "../jobs";
import { emailSends } from "../../src/domains/email/tables";
import { makeEmailWorld, type EmailWorld } from "./world";

let w: EmailWorld;
afterEach(() => w.done());

const recipientsOf = (x: EmailWorld) => x.smtp.messages.map((m) => m.envelope.to[0]!);
const messageIdOf = (raw: string) => /\r\nMessage-ID: (<[^>]+>)/i.exec(`\r\n${raw}`)![1]!;

describe("retries and failures", () => {
  test("a server that answers 4xx mid-campaign: retried after the backoff with the same Message-ID, each recipient once", async () => {
    w = await makeEmailWorld();
    const emails = Array.from({ length: 6 }, (_, i) => `r${i}@example.com`);
    const second = await w.readyCampaign(emails);
    await w.t("email_campaigns_send", { id: second.campaignId });
    // The first two attempts are refused for now, the other four go through.
    w.smtp.failNext([451, "4.3.0 Try again later"], [452, "4.3.1 Busy"]);
    await deliver(w.deps);
    expect(w.smtp.messages).toHaveLength(4);
    const waiting = await w.deps.db.select().from(emailSends).where(eq(emailSends.status, "queued"));
    expect(waiting.map((r) => r.attempts)).toEqual([1, 1]);
    expect(waiting.map((r) => r.smtpResponse).join(" ")).toMatch(/451 4\.3\.0 Try again later.*452 4\.3\.1 Busy/);
    // Not before the backoff …
    w.clock.advance(SEND_RETRY_MS[0] - 1);
    await deliver(w.deps);
    expect(w.smtp.messages).toHaveLength(4);
    // … then once each, carrying the Message-ID fixed when queued.
    w.clock.advance(1);
    await deliver(w.deps);
    expect(w.smtp.messages).toHaveLength(6);
    expect(new Set(recipientsOf(w)).size).toBe(6);
    for (const r of waiting)
      expect(w.smtp.messages.some((m) => messageIdOf(m.raw) === r.messageId && m.envelope.to[0] === r.email)).toBe(
        true,
      );
    await w.flush();
    expect((await w.t("email_campaigns_get", { id: second.campaignId })).status).toBe("sent");
    expect(await w.t("email_campaigns_stats", { id: second.campaignId })).toMatchObject({
      recipients: 6,
      delivered: 6,
      failed: 0,
    });
  });

  test("a server that goes away mid-campaign: the rest is retried when it is back, nobody twice", async () => {
    w = await makeEmailWorld();
    const emails = Array.from({ length: 25 }, (_, i) => `d${i}@example.com`);
    const { campaignId } = await w.readyCampaign(emails);
    await w.t("email_campaigns_send", { id: campaignId });
    await deliver(w.deps); // 10 sent
    expect(w.smtp.messages).toHaveLength(10);
    const good = w.deps.config.smtpUrl;
    closeMailTransport();
    w.deps.config.smtpUrl = "smtp://127.0.0.1:9/"; // nothing listens on the discard port
    w.clock.advance(1000);
    await deliver(w.deps);
    const failed = await w.deps.db.select().from(emailSends).where(eq(emailSends.attempts, 1));
    expect(
      failed.filter((r) => r.status === "queued" && /ECONNREFUSED|ECONNECTION/.test(r.smtpResponse ?? "")),
    ).toHaveLength(10);
    closeMailTransport();
    w.deps.config.smtpUrl = good;
    await w.flush(500);
    expect(w.smtp.messages).toHaveLength(25);
    expect(new Set(recipientsOf(w)).size).toBe(25);
    expect((await w.t("email_campaigns_get", { id: campaignId })).status).toBe("sent");
  });

  test("a 5xx for a recipient is a hard bounce: marked bounced, not retried, the campaign completes", async () => {
    w = await makeEmailWorld({ refuseRecipient: { "gone@example.com": [550, "5.1.1 No such user"] } });
    const { campaignId, listId } = await w.readyCampaign(["ok@example.com", "gone@example.com"]);
    await w.t("email_campaigns_send", { id: campaignId });
    await w.flush();
    expect(recipientsOf(w)).toEqual(["ok@example.com"]);
    expect(await w.t("email_campaigns_stats", { id: campaignId })).toMatchObject({
      recipients: 2,
      delivered: 1,
      bounced: 1,
    });
    const sub = await w.t("email_subscribers_get", { email: "gone@example.com" });
    expect(sub.lists).toEqual([
      { listId, listName: expect.any(String), status: "bounced", confirmedAt: expect.any(String) },
    ]);
    const rows = await w.deps.db.select().from(emailSends).where(eq(emailSends.email, "gone@example.com"));
    expect(rows[0]).toMatchObject({ status: "bounced", attempts: 1 });
    expect(
      (await w.events("email.subscription_changed")).map((e) => [e.data.email, e.data.to, e.data.source]),
    ).toContainEqual(["gone@example.com", "bounced", "bounce"]);
    // The next campaign to that list skips the bounced address.
    const next = await w.t("email_campaigns_create", {
      name: "Next",
      subject: "Again",
      html: "<p>x</p>",
      listIds: [listId],
    });
    expect(next.audience).toBe(1);
  });

  test("a message the server refuses with 5xx after DATA fails at once; others go on", async () => {
    w = await makeEmailWorld();
    const { campaignId } = await w.readyCampaign(["a@example.com", "b@example.com"]);
    await w.t("email_campaigns_send", { id: campaignId });
    w.smtp.failNext([554, "5.7.1 Message rejected as spam"]);
    await w.flush();
    expect(await w.t("email_campaigns_stats", { id: campaignId })).toMatchObject({
      recipients: 2,
      delivered: 1,
      failed: 1,
      bounced: 0,
    });
    const r = await w.t("email_campaigns_recipients", { id: campaignId, status: "failed" });
    expect(r.items[0].smtpResponse).toContain("554");
  });
});

describe("exactly once under concurrency", () => {
  test("delivery runs racing each other send every recipient once", async () => {
    w = await makeEmailWorld();
    const emails = Array.from({ length: 40 }, (_, i) => `c${i}@example.com`);
    const { campaignId } = await w.readyCampaign(emails, { ratePerMinute: 60_000 });
    await w.t("email_campaigns_send", { id: campaignId });
    for (let round = 0; round < 10 && (await w.queued()) + (round === 0 ? 1 : 0) > 0; round++) {
      await Promise.all([deliver(w.deps), deliver(w.deps), deliver(w.deps)]);
      w.clock.advance(1000);
    }
    await w.flush();
    expect(w.smtp.messages).toHaveLength(40);
    expect(new Set(recipientsOf(w)).size).toBe(40);
    const rows = await w.deps.db.select().from(emailSends).where(eq(emailSends.campaignId, campaignId));
    expect(rows).toHaveLength(40);
    expect(rows.every((r) => r.status === "sent" && r.attempts === 1)).toBe(true);
  });
});

describe("without SMTP", () => {
  test("confirmations wait queued (never dropped) and go out once SMTP is configured", async () => {
    w = await makeEmailWorld();
    const good = w.deps.config.smtpUrl;
    w.deps.config.smtpUrl = null;
    const l = await w.t("email_lists_create", { name: "Double" });
    const r = await w.t("email_subscribers_add", { email: "wait@example.com", listIds: [l.id] });
    expect(r.warnings.join(" ")).toContain("waits in the queue");
    await w.flush(3);
    expect(await w.queued()).toBe(1);
    expect(w.smtp.messages).toHaveLength(0);
    w.deps.config.smtpUrl = good;
    await w.flush();
    expect(recipientsOf(w)).toEqual(["wait@example.com"]);
  });
});
