/**
 * Outgoing mail over a real SMTP conversation (test/infra/smtp.ts: the
 * smtp-server package in this process, on loopback), on this run's engine:
 * the outbox is written in the caller's transaction, the mail.send job
 * delivers it, and the tests read what the server received byte for byte.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { loadConfig } from "../../src/config";
import { AppError } from "../../src/core/errors";
import {
  closeMailTransport,
  MAIL_RETENTION_MS,
  mailJobs,
  mailLog,
  MAX_MAIL_ATTEMPTS,
  queueMail,
  RETRY_DELAYS_MS,
  type OutgoingMail,
} from "../../src/core/mail";
import { mailOutbox } from "../../src/core/tables";
import { startTestServer, type TestServer } from "../harness";
import { pruneMail } from "../jobs";
import { startSmtp, type TestSmtp } from "../infra/smtp";

let s: TestServer;

beforeAll(async () => {
  s = await startTestServer({ seed: false, config: { mailFrom: "Plinth <plinth@agency.example>" } });
  // The tests drive the job themselves (the clock is manual).
  await s.jobs.stop();
});
afterAll(async () => {
  closeMailTransport();
  await s.stop();
});
beforeEach(async () => {
  await s.deps.db.delete(mailOutbox);
});

/** Moves the clock past the job's period and runs due jobs (mail.send among them). */
async function sendNow(ms = 1000) {
  s.clock.advance(ms);
  const out = await s.jobs.runDue();
  const mail = out.find((o) => o.name === "mail.send");
  if (mail && !mail.ok) throw new Error(mail.error);
}

const queue = (mail: Partial<OutgoingMail> = {}) =>
  s.deps.store.transaction((tx) =>
    queueMail(tx, s.deps, { companyId: null, to: "ana@client.example", subject: "Hello", text: "Body", ...mail }),
  );

const rowOf = async (id: number) => (await s.deps.db.select().from(mailOutbox).where(eq(mailOutbox.id, id)))[0]!;

describe("queueMail", () => {
  test("refuses what would break or forge a message, naming the problem", async () => {
    const cases: [Partial<OutgoingMail>, RegExp][] = [
      [{ to: "not-an-address" }, /not an email address/],
      [{ to: [] }, /at least one recipient/],
      [{ to: Array.from({ length: 51 }, (_, i) => `p${i}@x.example`) }, /at most 50 recipients/],
      [{ to: "a@x.example\r\nBcc: victim@y.example" }, /not an email address/],
      [{ subject: "   " }, /needs a subject/],
      [{ headers: { Bcc: "victim@y.example" } }, /set by Plinth/],
      [{ headers: { "X-Ok": "a\r\nBcc: victim@y.example" } }, /one line/],
      [{ headers: { "X Bad": "v" } }, /Not a header name/],
      [{ replyTo: "nobody" }, /Reply-To is not an email address/],
      [
        { attachments: [{ filename: "../etc/passwd", contentType: "text/plain", content: "x" }] },
        /attachment file name/,
      ],
      [{ attachments: [{ filename: "a.ics", contentType: "text/calendar\r\nX: y", content: "x" }] }, /content type/],
      [
        { attachments: [{ filename: "a.txt", contentType: "text/plain", content: "x".repeat(5_000_001) }] },
        /Attachments total/,
      ],
      [{ text: "a\u0000b" }, /NUL/],
    ];
    for (const [mail, msg] of cases) {
      const e = await queue(mail).catch((x) => x);
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).code).toBe("validation");
      expect((e as AppError).message).toMatch(msg);
    }
    expect(await s.deps.db.select().from(mailOutbox)).toEqual([]);
  });

  test("is part of the caller's transaction: a rolled-back change sends nothing", async () => {
    await s.deps.store
      .transaction(async (tx) => {
        await queueMail(tx, s.deps, { companyId: null, to: "ana@client.example", subject: "Never", text: "x" });
        throw new Error("the change failed");
      })
      .catch(() => {});
    expect(await s.deps.db.select().from(mailOutbox)).toEqual([]);
  });

  test("a subject's line breaks are folded (no header injection), addresses lower-cased and deduplicated", async () => {
    const { id } = await queue({
      to: ["Ana@Client.example", "ana@client.example", "bo@client.example"],
      subject: "Hi\r\nBcc: x@y.example",
    });
    const r = await rowOf(id);
    expect(r.to).toEqual(["ana@client.example", "bo@client.example"]);
    expect(r.subject).toBe("Hi Bcc: x@y.example");
    expect(r.status).toBe("queued");
    expect(r.messageId).toMatch(/^<[0-9a-f]{32}@agency\.example>$/);
  });
});

describe("without an SMTP server", () => {
  test("due mail is recorded as no_transport and not retried", async () => {
    s.config.smtpUrl = null;
    const { id } = await queue({ tag: "test.none" });
    await sendNow();
    const r = await rowOf(id);
    expect(r.status).toBe("no_transport");
    expect(r.smtpResponse).toContain("PLINTH_SMTP_URL");
    expect((await mailLog(s.deps, { tag: "test.none" }))[0]).toMatchObject({
      id,
      status: "no_transport",
      to: ["ana@client.example"],
    });
  });
});

describe("mail.prune", () => {
  test("its check finds mail older than 90 days that no longer waits to be sent; not mail exactly 90 days old, nor old mail still queued", async () => {
    const pending = () => mailJobs.find((j) => j.name === "mail.prune")!.pending!(s.deps);
    const now = s.clock.ms();
    const age = (id: number, ms: number, status?: "sent") =>
      s.deps.db
        .update(mailOutbox)
        .set({ createdAt: new Date(now - ms), ...(status && { status }) })
        .where(eq(mailOutbox.id, id));
    const left = async () =>
      (await s.deps.db.select({ id: mailOutbox.id }).from(mailOutbox).orderBy(mailOutbox.id)).map((r) => r.id);
    const sent = await queue({ tag: "prune.sent" });
    const waiting = await queue({ tag: "prune.queued" });
    expect(await pending()).toBe(false);
    // The run deletes created_at < now − 90 days: exactly 90 days old stays; queued mail stays at any age.
    await age(sent.id, MAIL_RETENTION_MS, "sent");
    await age(waiting.id, MAIL_RETENTION_MS + 1);
    expect(await pending()).toBe(false);
    await pruneMail(s.deps); // held to the check: it must not write
    expect(await left()).toEqual([sent.id, waiting.id]);
    await age(sent.id, MAIL_RETENTION_MS + 1);
    expect(await pending()).toBe(true);
    await pruneMail(s.deps);
    expect(await left()).toEqual([waiting.id]);
    expect(await pending()).toBe(false);
  });
});

describe("over SMTP", () => {
  let smtp: TestSmtp;
  const creds = { user: "plinth", pass: "p@ss:w0rd/secret" };
  beforeAll(async () => {
    smtp = await startSmtp({ auth: creds, refuseRecipient: { "gone@client.example": [550, "5.1.1 No such user"] } });
  });
  afterAll(() => smtp.stop());
  beforeEach(() => {
    s.config.smtpUrl = smtp.url(creds);
    smtp.messages.length = 0;
  });

  test("headers, text and HTML bodies and a text attachment arrive as written", async () => {
    const ics =
      "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nMETHOD:REQUEST\r\nBEGIN:VEVENT\r\nSUMMARY:Kick-off ✓\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n";
    const { id } = await queue({
      companyId: null,
      to: ["ana@client.example", "bo@client.example"],
      subject: "Café kick-off ✓",
      text: "See you Tuesday.\nNorthwind",
      html: "<p>See you <b>Tuesday</b>.</p>",
      replyTo: "priya@northwind.example",
      headers: { "X-Entity-Ref-ID": "booking-42", "List-Unsubscribe": "<https://plinth.example/u/abc>" },
      attachments: [{ filename: "invite.ics", contentType: "text/calendar; method=REQUEST", content: ics }],
      tag: "booking.confirmation",
    });
    await sendNow();
    const [m] = await smtp.waitFor(1);
    const row = await rowOf(id);
    expect(row.status).toBe("sent");
    expect(row.attempts).toBe(1);
    expect(row.smtpResponse).toMatch(/^250 /);
    expect(m!.user).toBe("plinth");
    // STARTTLS is taken when offered.
    expect(m!.secure).toBe(true);
    expect(m!.envelope).toEqual({ from: "plinth@agency.example", to: ["ana@client.example", "bo@client.example"] });
    const head = m!.raw.slice(0, m!.raw.indexOf("\r\n\r\n"));
    expect(head).toContain("From: Plinth <plinth@agency.example>");
    expect(head).toContain("To: ana@client.example, bo@client.example");
    expect(head).toContain("Reply-To: priya@northwind.example");
    expect(head).toContain(`Message-ID: ${row.messageId}`);
    expect(head).toContain("X-Entity-Ref-ID: booking-42");
    expect(head).toContain("List-Unsubscribe: <https://plinth.example/u/abc>");
    expect(head).toMatch(/Subject: =\?UTF-8\?Q\?Caf=C3=A9_kick-off_=E2=9C=93\?=/);
    expect(head).toContain("Content-Type: multipart/mixed");
    const parsed = await m!.parse();
    expect(parsed.subject).toBe("Café kick-off ✓");
    expect(parsed.text).toBe("See you Tuesday.\nNorthwind");
    expect(parsed.html).toBe("<p>See you <b>Tuesday</b>.</p>");
    expect(parsed.attachments).toHaveLength(1);
    const a = parsed.attachments[0]!;
    expect(a.filename).toBe("invite.ics");
    expect(a.contentType).toBe("text/calendar");
    expect(a.content.toString("utf8")).toBe(ics);
    expect(m!.raw).toMatch(/Content-Type: text\/calendar; method=REQUEST; name=invite\.ics/);
    // Sent once: a later run has nothing to do.
    await sendNow();
    expect(smtp.messages).toHaveLength(1);
  });

  test("a recipient the server refuses is named in the recorded answer; the others still get it", async () => {
    const { id } = await queue({ to: ["ana@client.example", "gone@client.example"] });
    await sendNow();
    const [m] = await smtp.waitFor(1);
    expect(m!.envelope.to).toEqual(["ana@client.example"]);
    const row = await rowOf(id);
    expect(row.status).toBe("sent");
    expect(row.smtpResponse).toContain("refused: gone@client.example");
  });

  test("a message every recipient of which is refused (5xx) fails at once, without retries", async () => {
    const { id } = await queue({ to: "gone@client.example" });
    await sendNow();
    const row = await rowOf(id);
    expect(row.status).toBe("failed");
    expect(row.attempts).toBe(1);
    expect(row.smtpResponse).toContain("550");
    expect(smtp.messages).toHaveLength(0);
  });

  test("a temporary refusal (451) is retried after the backoff with the same Message-ID", async () => {
    smtp.failNext([451, "4.3.0 Try again later"]);
    const { id } = await queue();
    await sendNow();
    let row = await rowOf(id);
    expect(row.status).toBe("queued");
    expect(row.attempts).toBe(1);
    expect(row.smtpResponse).toContain("451");
    expect(row.nextAttemptAt.getTime()).toBe(s.clock.ms() + RETRY_DELAYS_MS[0]);
    // Not before its time…
    await sendNow(RETRY_DELAYS_MS[0] - 2000);
    expect((await rowOf(id)).attempts).toBe(1);
    // …and then.
    await sendNow(2000);
    row = await rowOf(id);
    expect(row.status).toBe("sent");
    expect(row.attempts).toBe(2);
    const [m] = await smtp.waitFor(1);
    expect(m!.raw).toContain(`Message-ID: ${row.messageId}`);
  });

  test("a 5xx answer to DATA fails the message at once", async () => {
    smtp.failNext([554, "5.7.1 Message rejected as spam"]);
    const { id } = await queue();
    await sendNow();
    const row = await rowOf(id);
    expect(row.status).toBe("failed");
    expect(row.smtpResponse).toContain("554");
  });

  test("temporary failures end as failed after the last attempt", async () => {
    smtp.failNext(...Array.from({ length: MAX_MAIL_ATTEMPTS }, () => [421, "4.4.2 Busy"] as [number, string]));
    const { id } = await queue();
    for (let i = 0; i < MAX_MAIL_ATTEMPTS; i++) await sendNow(i === 0 ? 1000 : RETRY_DELAYS_MS[i - 1]!);
    const row = await rowOf(id);
    expect(row.attempts).toBe(MAX_MAIL_ATTEMPTS);
    expect(row.status).toBe("failed");
    expect(smtp.messages).toHaveLength(0);
  });

  test("a wrong password is retried, not dropped, and never recorded", async () => {
    s.config.smtpUrl = smtp.url({ user: "plinth", pass: "wrong-password-123" });
    const { id } = await queue();
    await sendNow();
    let row = await rowOf(id);
    expect(row.status).toBe("queued");
    expect(row.smtpResponse).toContain("535");
    expect(row.smtpResponse).not.toContain("wrong-password-123");
    expect(row.smtpResponse).not.toContain(Buffer.from("wrong-password-123").toString("base64"));
    // The operator fixes the setting; the retry goes through.
    s.config.smtpUrl = smtp.url(creds);
    await sendNow(RETRY_DELAYS_MS[0]);
    row = await rowOf(id);
    expect(row.status).toBe("sent");
    expect(row.attempts).toBe(2);
  });
});

describe("TLS", () => {
  test("a server that requires STARTTLS before AUTH gets it", async () => {
    const smtp = await startSmtp({ auth: { user: "u1", pass: "pass-one" }, requireTls: true });
    try {
      s.config.smtpUrl = smtp.url({ user: "u1", pass: "pass-one" });
      const { id } = await queue();
      await sendNow();
      const [m] = await smtp.waitFor(1);
      expect(m!.secure).toBe(true);
      expect((await rowOf(id)).status).toBe("sent");
    } finally {
      await smtp.stop();
    }
  });

  test("smtps:// speaks TLS from the first byte", async () => {
    const smtp = await startSmtp({ secure: true, auth: { user: "u2", pass: "pass-two" } });
    try {
      s.config.smtpUrl = smtp.url({ user: "u2", pass: "pass-two" });
      expect(s.config.smtpUrl).toStartWith("smtps://");
      const { id } = await queue();
      await sendNow();
      const [m] = await smtp.waitFor(1);
      expect(m!.secure).toBe(true);
      expect((await rowOf(id)).status).toBe("sent");
    } finally {
      await smtp.stop();
    }
  });

  test("credentials are never sent in clear to a non-loopback name when the server offers no STARTTLS", async () => {
    // 127.0.0.2 is loopback to the kernel but not by name: it stands for a relay on the network.
    const smtp = await startSmtp({ auth: { user: "u3", pass: "pass-three" }, noStartTls: true }, "127.0.0.2");
    try {
      s.config.smtpUrl = smtp.url({ user: "u3", pass: "pass-three" });
      const { id } = await queue();
      await sendNow();
      const row = await rowOf(id);
      expect(row.status).toBe("queued");
      expect(smtp.authAttempts).toEqual([]);
      expect(smtp.messages).toHaveLength(0);
      expect(row.smtpResponse).not.toContain("pass-three");
    } finally {
      await smtp.stop();
    }
  });
});

describe("configuration", () => {
  test("PLINTH_SMTP_URL is environment-only, checked, needs PLINTH_MAIL_FROM, and is never echoed", () => {
    expect(
      loadConfig({}, { PLINTH_SMTP_URL: "smtp://u:p@mail.example:587", PLINTH_MAIL_FROM: "Plinth <p@example.com>" }),
    ).toMatchObject({
      smtpUrl: "smtp://u:p@mail.example:587",
      mailFrom: "Plinth <p@example.com>",
    });
    expect(() => loadConfig({}, { PLINTH_SMTP_URL: "smtp://u:hunter22@mail.example" })).toThrow(
      /needs PLINTH_MAIL_FROM/,
    );
    let message = "";
    try {
      loadConfig({}, { PLINTH_SMTP_URL: "http://u:hunter22@mail.example", PLINTH_MAIL_FROM: "p@example.com" });
    } catch (e) {
      message = (e as Error).message;
    }
    expect(message).toContain("PLINTH_SMTP_URL must be");
    expect(message).not.toContain("hunter22");
    expect(() => loadConfig({ "mail-from": "not an address" }, {})).toThrow(/PLINTH_MAIL_FROM must be/);
    expect(loadConfig({ "mail-from": "ops@example.com" }, {}).mailFrom).toBe("ops@example.com");
  });
});
