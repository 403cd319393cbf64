/**
 * Bounce and complaint feedback on a real server over HTTP: a campaign
 * sent to the loopback SMTP server, then Postfix-style RFC 3464 DSNs and an
 * RFC 5965 ARF report about those very messages posted to the company's
 * secret URL, relay JSON (Amazon SES through SNS, Postmark), the CLI for an
 * MTA pipe (a real process on the same data), and hostile input.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { closeMailTransport } from "../../src/core/mail";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { deliver } from "../jobs";
import { parseJsonReport, parseRawReport, ReportError } from "../../src/domains/email/feedback";
import { emailFeedback, emailSends } from "../../src/domains/email/tables";
import { afterForeignWrite, startTestServer, storeEnv, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { makeWorld, type World } from "../cms/world";

const root = join(import.meta.dir, "../..");
const fixture = (name: string, r: { email: string; messageId: string; token: string }) =>
  Bun.file(join(import.meta.dir, "fixtures", `${name}.eml`))
    .text()
    .then((t) =>
      t.replaceAll("{{RCPT}}", r.email).replaceAll("{{MESSAGE_ID}}", r.messageId).replaceAll("{{TOKEN}}", r.token),
    );

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let url: string;

beforeAll(async () => {
  smtp = await startSmtp();
  closeMailTransport();
  s = await startTestServer({ seed: false, config: { smtpUrl: smtp.url(), mailFrom: "Acme <news@acme.test>" } });
  w = await makeWorld(s);
  const setup = await w.ok(w.owner, "email_feedback_setup", {});
  expect(setup.url).toMatch(/\/e\/feedback\/efb_[A-Za-z0-9_-]{43}$/);
  url = `${s.url}${new URL(setup.url).pathname}`;
}, 120_000);
afterAll(async () => {
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
});

interface Sent {
  listId: number;
  campaignId: number;
  to: { email: string; messageId: string; token: string }[];
}

async function sentCampaign(n: number, client = w.owner): Promise<Sent> {
  const list = await w.ok(client, "email_lists_create", { name: `L${Math.random()}`, optIn: "single" });
  const emails = Array.from({ length: n }, () => `r${Math.random().toString(36).slice(2, 9)}@example.com`);
  for (const email of emails) await w.ok(client, "email_subscribers_add", { email, listIds: [list.id] });
  const c = await w.ok(client, "email_campaigns_create", {
    name: "News",
    subject: "News",
    html: "<p>Hi</p>",
    listIds: [list.id],
  });
  expect((await decideApproval(s.deps, { token: c.approval.token }, "approve", { decidedBy: "Rita" })).ok).toBe(true);
  await w.ok(client, "email_campaigns_send", { id: c.id });
  const campaignRows = () =>
    s.deps.db
      .select()
      .from(emailSends)
      .where(and(eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign")));
  for (let i = 0; i < 20; i++) {
    await deliver(s.deps);
    s.clock.advance(1000);
  }
  // The server's own job runner ticks too: a row it claimed is still "queued" (and skipped by our
  // deliver) while it talks to the SMTP server. Wait for every send to leave the queue rather than
  // look once and catch it mid-flight; the clock stays put, so no claim lapses into a second send.
  const deadline = Date.now() + 30_000;
  let rows = await campaignRows();
  while ((rows.length < n || rows.some((r) => r.status === "queued")) && Date.now() < deadline) {
    await Bun.sleep(50);
    await deliver(s.deps);
    rows = await campaignRows();
  }
  expect(rows.map((r) => r.status)).toEqual(emails.map(() => "sent"));
  // The Message-ID the recipient's server saw is the one we stored.
  for (const r of rows)
    expect(smtp.messages.find((m) => m.envelope.to[0] === r.email)!.raw).toContain(`Message-ID: ${r.messageId}`);
  return {
    listId: list.id,
    campaignId: c.id,
    to: emails
      .map((e) => rows.find((r) => r.email === e)!)
      .map((r) => ({ email: r.email, messageId: r.messageId, token: r.token })),
  };
}

const post = (body: string | Uint8Array, type = "message/rfc822", to = url) =>
  fetch(to, { method: "POST", headers: { "Content-Type": type }, body: body as BodyInit });
const listStatus = async (email: string, listId: number, client = w.owner) =>
  (await w.ok(client, "email_subscribers_get", { email })).lists.find((l: any) => l.listId === listId)?.status;

describe("parsing", () => {
  const r = { email: "x@example.com", messageId: "<abc@plinth.test>", token: "a".repeat(48) };
  test("a Postfix DSN (5.1.1, failed) is a hard bounce naming the recipient and our Message-ID", async () => {
    const p = await parseRawReport(await fixture("dsn-hard", r));
    expect(p.reports).toEqual([
      expect.objectContaining({
        kind: "hard_bounce",
        email: "x@example.com",
        messageId: "<abc@plinth.test>",
        token: "a".repeat(48),
        status: "5.1.1",
        format: "dsn",
      }),
    ]);
    expect(p.reports[0]!.diagnostic).toContain("User unknown in virtual mailbox table");
  });
  test("a delay warning (4.2.2, delayed) is a soft bounce", async () => {
    expect((await parseRawReport(await fixture("dsn-delayed", r))).reports).toEqual([
      expect.objectContaining({ kind: "soft_bounce", status: "4.2.2" }),
    ]);
  });
  test("an ARF abuse report is a complaint", async () => {
    expect((await parseRawReport(await fixture("arf-complaint", r))).reports).toEqual([
      expect.objectContaining({
        kind: "complaint",
        email: "x@example.com",
        messageId: "<abc@plinth.test>",
        status: "abuse",
        format: "arf",
      }),
    ]);
  });
  test("an ARF report of another type, a delivered DSN and an ordinary mail change nothing", async () => {
    expect(
      (
        await parseRawReport(
          (await fixture("arf-complaint", r)).replace("Feedback-Type: abuse", "Feedback-Type: not-spam"),
        )
      ).ignored,
    ).toContain("not a complaint");
    expect(
      (await parseRawReport((await fixture("dsn-hard", r)).replace("Action: failed", "Action: delivered"))).ignored,
    ).toContain("no failed or delayed");
    expect((await parseRawReport("From: a@b.test\r\nSubject: hi\r\n\r\nhello")).ignored).toContain("Not a report");
  });
  test("empty and malformed reports are refused clearly", async () => {
    await expect(parseRawReport("")).rejects.toThrow(ReportError);
    await expect(
      parseRawReport(
        (await fixture("dsn-hard", r)).replace("Content-Type: message/delivery-status", "Content-Type: text/x-nothing"),
      ),
    ).rejects.toThrow("without its message/delivery-status part");
  });
  test("SES through SNS (permanent, transient, complaint) and Postmark", () => {
    const ses = (m: unknown) => ({ Type: "Notification", MessageId: "sns-1", Message: JSON.stringify(m) });
    const mail = { messageId: "ses-1", headers: [{ name: "Message-ID", value: "<abc@plinth.test>" }] };
    expect(
      parseJsonReport(
        ses({
          notificationType: "Bounce",
          mail,
          bounce: {
            bounceType: "Permanent",
            feedbackId: "f1",
            bouncedRecipients: [
              { emailAddress: "X@Example.com", status: "5.1.1", diagnosticCode: "smtp; 550 5.1.1 unknown" },
            ],
          },
        }),
      ).reports,
    ).toEqual([
      expect.objectContaining({
        kind: "hard_bounce",
        email: "x@example.com",
        messageId: "<abc@plinth.test>",
        status: "5.1.1",
        format: "ses",
      }),
    ]);
    expect(
      parseJsonReport(
        ses({
          notificationType: "Bounce",
          mail,
          bounce: { bounceType: "Transient", bouncedRecipients: [{ emailAddress: "x@example.com" }] },
        }),
      ).reports[0]!.kind,
    ).toBe("soft_bounce");
    expect(
      parseJsonReport({
        notificationType: "Complaint",
        mail,
        complaint: { complainedRecipients: [{ emailAddress: "x@example.com" }] },
      }).reports[0]!.kind,
    ).toBe("complaint");
    expect(
      parseJsonReport({ RecordType: "Bounce", Type: "HardBounce", ID: 7, Email: "x@example.com" }).reports[0]!.kind,
    ).toBe("hard_bounce");
    expect(
      parseJsonReport({ RecordType: "Bounce", Type: "SoftBounce", ID: 8, Email: "x@example.com" }).reports[0]!.kind,
    ).toBe("soft_bounce");
    expect(parseJsonReport({ RecordType: "SpamComplaint", ID: 9, Email: "x@example.com" }).reports[0]!.kind).toBe(
      "complaint",
    );
    expect(
      parseJsonReport({ Type: "SubscriptionConfirmation", SubscribeURL: "https://sns.test/confirm" }).ignored,
    ).toContain("SubscribeURL");
    expect(() => parseJsonReport({ hello: 1 })).toThrow(ReportError);
    expect(() => parseJsonReport([1])).toThrow(ReportError);
    expect(() =>
      parseJsonReport({
        notificationType: "Bounce",
        bounce: { bouncedRecipients: [{ emailAddress: "not an address" }] },
      }),
    ).toThrow("without bouncedRecipients");
  });
});

describe("the feedback URL", () => {
  test("a hard bounce DSN marks the send and the address bounced, once; a repeat changes nothing", async () => {
    const c = await sentCampaign(2);
    const [a, b] = c.to as [Sent["to"][0], Sent["to"][0]];
    const dsn = await fixture("dsn-hard", a);
    const res = await post(dsn);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      applied: [
        expect.objectContaining({ kind: "hard_bounce", email: a.email, campaignId: c.campaignId, listsChanged: 1 }),
      ],
      duplicates: 0,
      unmatched: 0,
    });
    expect(await listStatus(a.email, c.listId)).toBe("bounced");
    expect(await listStatus(b.email, c.listId)).toBe("subscribed");
    const again = await post(dsn);
    expect(await again.json()).toEqual({ applied: [], duplicates: 1, unmatched: 0 });
    const stats = await w.ok(w.owner, "email_campaigns_stats", { id: c.campaignId });
    expect(stats).toMatchObject({ recipients: 2, delivered: 1, bounced: 1, complained: 0, softBounced: 0 });
    const fb = await w.ok(w.owner, "email_feedback_list", { email: a.email });
    expect(fb.total).toBe(1);
    expect(fb.items[0]).toMatchObject({
      kind: "hard_bounce",
      status: "5.1.1",
      format: "dsn",
      campaignId: c.campaignId,
    });
  });

  test("a soft bounce is counted and changes no status; a complaint marks complained and blocklists (the next campaign skips the address)", async () => {
    const c = await sentCampaign(2);
    const [a, b] = c.to as [Sent["to"][0], Sent["to"][0]];
    expect((await (await post(await fixture("dsn-delayed", a))).json()).applied).toEqual([
      expect.objectContaining({ kind: "soft_bounce", listsChanged: 0 }),
    ]);
    expect(await listStatus(a.email, c.listId)).toBe("subscribed");
    expect((await (await post(await fixture("arf-complaint", b))).json()).applied).toEqual([
      expect.objectContaining({ kind: "complaint", email: b.email, listsChanged: 1 }),
    ]);
    expect(await listStatus(b.email, c.listId)).toBe("complained");
    expect((await w.ok(w.owner, "email_subscribers_get", { email: b.email })).blocklisted).toBe(true);
    expect(await w.ok(w.owner, "email_campaigns_stats", { id: c.campaignId })).toMatchObject({
      delivered: 2,
      bounced: 0,
      complained: 1,
      softBounced: 1,
    });
    // Even a re-subscribe by hand to a new list does not mail a blocklisted address.
    const next = await w.ok(w.owner, "email_campaigns_create", {
      name: "Next",
      subject: "Next",
      html: "<p>x</p>",
      listIds: [c.listId],
    });
    expect(next.audience).toBe(1);
  });

  test("the same report posted twice at once is applied once", async () => {
    const c = await sentCampaign(1);
    const dsn = await fixture("dsn-hard", c.to[0]!);
    const answers = await Promise.all([post(dsn), post(dsn), post(dsn)].map(async (p) => (await p).json()));
    expect(answers.map((a: any) => a.applied.length).sort()).toEqual([0, 0, 1]);
    expect(answers.map((a: any) => a.duplicates).sort()).toEqual([0, 1, 1]);
    const events = await s.deps.db.select().from(emailFeedback).where(eq(emailFeedback.campaignId, c.campaignId));
    expect(events.length).toBe(1);
  });

  test("relay JSON: a Postmark hard bounce names the address only", async () => {
    const c = await sentCampaign(1);
    const a = c.to[0]!;
    const r = await post(
      JSON.stringify({
        RecordType: "Bounce",
        Type: "HardBounce",
        ID: 42,
        Email: a.email,
        Description: "The server was unable to deliver your message",
      }),
      "application/json",
    );
    expect(r.status).toBe(200);
    expect((await r.json()).applied).toEqual([
      expect.objectContaining({ kind: "hard_bounce", email: a.email, campaignId: null }),
    ]);
    expect(await listStatus(a.email, c.listId)).toBe("bounced");
  });

  test("another company's message or address is unmatched: a secret acts on its own company only", async () => {
    const theirs = await sentCampaign(1, w.stranger);
    const t = theirs.to[0]!;
    expect(await (await post(await fixture("dsn-hard", t))).json()).toEqual({
      applied: [],
      duplicates: 0,
      unmatched: 1,
    });
    expect(
      await (
        await post(JSON.stringify({ RecordType: "SpamComplaint", ID: 5, Email: t.email }), "application/json")
      ).json(),
    ).toEqual({ applied: [], duplicates: 0, unmatched: 1 });
    expect(await listStatus(t.email, theirs.listId, w.stranger)).toBe("subscribed");
  });

  test("refused: unknown or replaced secret, wrong type, oversized, malformed JSON; nothing recorded", async () => {
    const before = (await s.deps.db.select().from(emailFeedback)).length;
    const c = await sentCampaign(1);
    const dsn = await fixture("dsn-hard", c.to[0]!);
    expect((await post(dsn, "message/rfc822", `${s.url}/e/feedback/efb_${"A".repeat(43)}`)).status).toBe(401);
    expect((await post(dsn, "message/rfc822", `${s.url}/e/feedback/' OR 1=1 --`)).status).toBe(401);
    expect((await post(dsn, "text/html")).status).toBe(415);
    expect((await post(new Uint8Array(1024 * 1024 + 1))).status).toBe(413);
    const bad = await post("{not json", "application/json");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.code).toBe("validation");
    expect((await post(Buffer.from([0xff, 0xfe, 0x00]), "application/json")).status).toBe(400);
    expect((await post("", "message/rfc822")).status).toBe(400);
    // Replacing the secret retires the old URL at once.
    const fresh = await w.ok(w.owner, "email_feedback_setup", {});
    expect(fresh.replaced).toBe(true);
    expect((await post(dsn)).status).toBe(401);
    url = `${s.url}${new URL(fresh.url).pathname}`;
    expect((await s.deps.db.select().from(emailFeedback)).length).toBe(before);
    expect((await post(dsn)).status).toBe(200);
    // A viewer cannot make a secret.
    expect(await w.err(w.viewer, "email_feedback_setup", {})).toMatch(/admin|owner|role/i);
  });
});

describe("plinth email feedback (MTA pipe)", () => {
  function plinth(stdin: string) {
    const p = Bun.spawnSync(
      [process.execPath, join(root, "src/main.ts"), "email", "feedback", "--data-dir", s.dataDir],
      { cwd: root, stdin: Buffer.from(stdin), stdout: "pipe", stderr: "pipe", env: storeEnv(s.config) },
    );
    return { code: p.exitCode, out: p.stdout.toString().trim(), err: p.stderr.toString().trim() };
  }

  test("applies an ARF report found by its Message-ID, once; ignores ordinary mail; refuses empty input", async () => {
    const c = await sentCampaign(1);
    const a = c.to[0]!;
    const arf = await fixture("arf-complaint", a);
    const first = plinth(arf);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.out)).toMatchObject({
      applied: [{ kind: "complaint", email: a.email, campaignId: c.campaignId }],
      duplicates: 0,
    });
    await afterForeignWrite();
    expect(await listStatus(a.email, c.listId)).toBe("complained");
    expect(JSON.parse(plinth(arf).out)).toMatchObject({ applied: [], duplicates: 1 });
    const plain = plinth("From: someone@example.com\nSubject: Re: News\n\nThanks!");
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.out).ignored).toContain("Not a report");
    const empty = plinth("");
    expect(empty.code).toBe(1);
    expect(empty.err).toContain("empty");
  }, 120_000);
});
