/**
 * Inbound email against a real IMAP server: Debian's Dovecot on loopback,
 * started and stopped here (test/infra/services.ts). Mail is delivered by
 * IMAP APPEND, which is what an MTA's delivery looks like to the poller;
 * the tools are called over MCP with the SDK client on the real server.
 * Runs on SQLite, and on PostgreSQL under scripts/with-postgres.ts.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { ImapFlow } from "imapflow";
import { pollHooks, pollMailbox } from "../../src/domains/tickets/mailboxes";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { rows, startTestServer, type TestServer } from "../harness";
import {
  type DovecotServer,
  ensureDebianPackages,
  PackageInstallError,
  SERVICE_PACKAGES,
  startDovecot,
} from "../infra/services";

const skipReason = await ensureDebianPackages([SERVICE_PACKAGES.dovecot]).then(
  () => null,
  (e: unknown) => {
    if (e instanceof PackageInstallError) return e.message;
    throw e;
  },
);
if (skipReason) console.warn(`test/tickets/mailboxes.test.ts SKIPPED: ${skipReason}`);
const suite = skipReason ? describe.skip : describe;

const USER = "support@acme.test";
const PASSWORD = "Imap-pass-9f3c2a";

let imap: DovecotServer;
let s: TestServer;
let owner: Client;
let viewer: Client;
let rival: Client;
let co: { id: number; name: string };
/** Every tool result text, to prove the password never comes back. */
const seen: string[] = [];

const tool = async (c: Client, name: string, args: Record<string, unknown> = {}) => {
  const r = await callTool(c, name, args);
  seen.push(r.text);
  return r;
};
const ok = async (name: string, args: Record<string, unknown> = {}, c: Client = owner) => {
  const r = await tool(c, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
};

/** Delivers a raw message into the support mailbox, as an MTA would. */
async function deliver(raw: string, user = USER, pass = PASSWORD) {
  const c = new ImapFlow({ host: imap.host, port: imap.port, secure: false, auth: { user, pass }, logger: false });
  await c.connect();
  await c.append("INBOX", raw.replace(/\r?\n/g, "\r\n"));
  await c.logout();
}

let seq = 0;
function mail(o: {
  from?: string;
  subject?: string;
  body?: string;
  id?: string | null;
  headers?: Record<string, string>;
}): string {
  const id = o.id === undefined ? `<m${++seq}.${Date.now()}@customer.test>` : o.id;
  const lines = [
    `From: ${o.from ?? "Alice Buyer <alice@customer.test>"}`,
    `To: ${USER}`,
    `Subject: ${o.subject ?? "Printer on fire"}`,
    "Date: Mon, 13 Jan 2025 09:00:00 +0000",
    ...(id ? [`Message-ID: ${id}`] : []),
    ...Object.entries(o.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
    "MIME-Version: 1.0",
    "Content-Type: text/plain; charset=utf-8",
    "",
    o.body ?? "Hello, it is on fire.",
    "",
  ];
  return lines.join("\n");
}

let mailboxId: number;
const poll = () => ok("ticket_mailboxes_poll", { id: mailboxId });
const ticketCount = async () =>
  Number((await rows(s.deps, "SELECT count(*) AS n FROM tickets WHERE company_id = ?", co.id))[0]!.n);

beforeAll(async () => {
  if (skipReason) return;
  imap = await startDovecot();
  imap.addUser(USER, PASSWORD);
  s = await startTestServer({ seed: false, config: { rateLimit: 100_000 } });
  s.clock.set(Date.parse("2025-01-13T09:00:00Z"));
  const u = await createUser(s.deps, { email: "owner@acme.test", name: "Olga Owner" });
  const vu = await createUser(s.deps, { email: "viewer@acme.test" });
  const ru = await createUser(s.deps, { email: "rita@rival.test" });
  co = await createCompany(s.deps, { name: "Acme", ownerUserId: u.id });
  const other = await createCompany(s.deps, { name: "Rival", ownerUserId: ru.id });
  await addMember(s.deps, co.id, vu.id, "viewer");
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["tickets:*"], companyIds: [companyId] })).key;
  owner = await mcpClient(s.url, await key(u.id, co.id));
  viewer = await mcpClient(s.url, await key(vu.id, co.id));
  rival = await mcpClient(s.url, await key(ru.id, other.id));
});
afterAll(async () => {
  pollHooks.afterImport = undefined;
  for (const c of [owner, viewer, rival]) await c?.close();
  await s?.stop();
  await imap?.stop();
});

suite("connecting a mailbox", () => {
  test("a wrong password is refused with the server's words, and nothing is saved", async () => {
    const r = await tool(owner, "ticket_mailboxes_connect", {
      host: imap.host,
      port: imap.port,
      tls: "none",
      username: USER,
      password: "wrong-password",
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain(`Could not sign in to ${imap.host}:${imap.port} as ${USER}`);
    expect(r.text).toContain("Nothing was saved");
    expect(r.text).not.toContain("wrong-password");
    expect(await rows(s.deps, "SELECT id FROM ticket_mailboxes")).toEqual([]);
  });

  test("a missing folder is refused too", async () => {
    const r = await tool(owner, "ticket_mailboxes_connect", {
      host: imap.host,
      port: imap.port,
      tls: "none",
      username: USER,
      password: PASSWORD,
      folder: "NoSuchFolder",
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("NoSuchFolder");
    expect(await rows(s.deps, "SELECT id FROM ticket_mailboxes")).toEqual([]);
  });

  test("bad input gets a clear error; a viewer may not connect", async () => {
    const r = await tool(owner, "ticket_mailboxes_connect", {
      host: "imap example",
      username: USER,
      password: PASSWORD,
    });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("host is a host name");
    const v = await tool(viewer, "ticket_mailboxes_connect", {
      host: imap.host,
      port: imap.port,
      tls: "none",
      username: USER,
      password: PASSWORD,
    });
    expect(v.isError).toBe(true);
  });

  test("the right password connects; the password is stored sealed and never shown", async () => {
    // Mail already in the folder is not imported: only what arrives after connecting.
    await deliver(mail({ subject: "Old mail before connecting" }));
    const m = await ok("ticket_mailboxes_connect", {
      host: imap.host,
      port: imap.port,
      tls: "none",
      username: USER,
      password: PASSWORD,
    });
    mailboxId = m.id;
    expect(m).toMatchObject({ username: USER, folder: "INBOX", state: "active", tls: "none" });
    const row = (await rows(s.deps, "SELECT * FROM ticket_mailboxes WHERE id = ?", mailboxId))[0]!;
    expect(row.password_sealed).not.toContain(PASSWORD);
    expect(String(row.password_sealed).startsWith("s1.")).toBe(true);
    expect((await ok("ticket_mailboxes_list")).items.map((x: any) => x.id)).toEqual([mailboxId]);
    expect(await poll()).toMatchObject({ polled: true, opened: 0 });
    expect(await ticketCount()).toBe(0);
  });
});

suite("mail opens and continues tickets", () => {
  let number: number;

  test("a new mail opens a ticket for its sender", async () => {
    await deliver(mail({ id: "<first@customer.test>", subject: "Printer on fire", body: "Please help." }));
    expect(await poll()).toMatchObject({ polled: true, opened: 1, replied: 0, ignored: 0 });
    const list = await ok("tickets_list", {});
    expect(list.items.length).toBe(1);
    number = list.items[0].id;
    const t = await ok("tickets_get", { id: number });
    expect(t).toMatchObject({
      subject: "Printer on fire",
      requester: { email: "alice@customer.test", name: "Alice Buyer" },
      status: "new",
      tags: ["email"],
    });
    expect(t.messages[0].body).toBe("Please help.");
  });

  test("a reply to our email (In-Reply-To our thread) is the requester's message and reopens a solved ticket", async () => {
    await ok("tickets_set_status", { id: number, status: "solved" });
    await deliver(
      mail({
        subject: `Re: [Acme #${number}] Printer on fire`,
        body: "Still burning.",
        headers: { "In-Reply-To": `<ticket-${co.id}-${number}@plinth.invalid>` },
      }),
    );
    expect(await poll()).toMatchObject({ opened: 0, replied: 1 });
    const t = await ok("tickets_get", { id: number });
    expect(t.status).toBe("open");
    expect(t.messages.at(-1)).toMatchObject({ body: "Still burning.", author: "requester" });
    expect(await ticketCount()).toBe(1);
  });

  test("a reply to the requester's own first mail (References) continues the ticket", async () => {
    await deliver(mail({ subject: "Also", body: "And smoke.", headers: { References: "<first@customer.test>" } }));
    expect(await poll()).toMatchObject({ opened: 0, replied: 1 });
    expect(await ticketCount()).toBe(1);
  });

  test("the ticket reference in the subject continues it (from the requester) and reopens it", async () => {
    await ok("tickets_set_status", { id: number, status: "solved" });
    await deliver(mail({ subject: `Re: [Acme #${number}] Printer on fire`, body: "Back again." }));
    expect(await poll()).toMatchObject({ opened: 0, replied: 1 });
    expect((await ok("tickets_get", { id: number })).status).toBe("open");
    // The same reference from someone else is not trusted: a new ticket.
    await deliver(mail({ from: "mallory@else.test", subject: `[Acme #${number}] hijack`, body: "x" }));
    expect(await poll()).toMatchObject({ opened: 1, replied: 0 });
    expect(await ticketCount()).toBe(2);
  });

  test("auto-replies, bounces and our own mail open nothing and are recorded with the reason", async () => {
    const before = await ticketCount();
    await deliver(mail({ subject: "Out of office", headers: { "Auto-Submitted": "auto-replied" } }));
    await deliver(mail({ subject: "Away", headers: { "X-Autoreply": "yes" } }));
    await deliver(mail({ subject: "Newsletter", headers: { Precedence: "bulk" } }));
    await deliver(
      [
        "From: Mail Delivery System <MAILER-DAEMON@mx.customer.test>",
        `To: ${USER}`,
        "Subject: Undelivered Mail Returned to Sender",
        "Message-ID: <bounce1@mx.customer.test>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/report; report-type=delivery-status; boundary="b1"',
        "",
        "--b1",
        "Content-Type: text/plain",
        "",
        "Your message could not be delivered.",
        "--b1",
        "Content-Type: message/delivery-status",
        "",
        "Reporting-MTA: dns; mx.customer.test",
        "",
        "Final-Recipient: rfc822; nobody@customer.test",
        "Action: failed",
        "Status: 5.1.1",
        "--b1--",
        "",
      ].join("\n"),
    );
    await deliver(mail({ from: USER, subject: "Our own mail back" }));
    expect(await poll()).toMatchObject({ opened: 0, replied: 0, ignored: 5 });
    expect(await ticketCount()).toBe(before);
    const got = await ok("ticket_mailboxes_get", { id: mailboxId });
    const reasons = got.recentMails.filter((x: any) => x.outcome === "ignored").map((x: any) => x.reason);
    expect(reasons).toEqual([
      "auto-submitted: auto-replied",
      "auto-reply",
      "precedence: bulk",
      "bounce (delivery-status)",
      "loop (sent by this mailbox or Plinth)",
    ]);
  });
});

suite("mail with files", () => {
  test("a mail's attachment is kept on the ticket; an executable in it is refused and named", async () => {
    const png = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.from("dovecot photo")]);
    const exe = Buffer.concat([Buffer.from("MZ\x90\x00", "latin1"), Buffer.alloc(40, 7)]);
    const part = (name: string, type: string, bytes: Buffer) => [
      "--b1",
      `Content-Type: ${type}; name="${name}"`,
      `Content-Disposition: attachment; filename="${name}"`,
      "Content-Transfer-Encoding: base64",
      "",
      bytes.toString("base64"),
    ];
    await deliver(
      [
        "From: Alice Buyer <alice@customer.test>",
        `To: ${USER}`,
        "Subject: Photo of the jam",
        "Message-ID: <files@customer.test>",
        "MIME-Version: 1.0",
        'Content-Type: multipart/mixed; boundary="b1"',
        "",
        "--b1",
        "Content-Type: text/plain; charset=utf-8",
        "",
        "See the photo.",
        ...part("jam.png", "image/png", png),
        ...part("tool.exe", "application/octet-stream", exe),
        "--b1--",
        "",
      ].join("\n"),
    );
    expect(await poll()).toMatchObject({ opened: 1 });
    const t = (await ok("tickets_list", { q: "Photo of the jam" })).items[0];
    const files = (await ok("ticket_attachments_list", { ticketId: t.id })).items;
    expect(files.map((f: any) => [f.filename, f.mimeType, f.source])).toEqual([["jam.png", "image/png", "mail"]]);
    const got = await ok("ticket_attachments_get", { id: files[0].id });
    expect(Buffer.from(got.dataBase64, "base64").equals(png)).toBe(true);
    const body = (await ok("tickets_get", { id: t.id })).messages[0].body;
    expect(body).toContain('[Attachment "tool.exe" was not kept:');
    expect((await tool(rival, "ticket_attachments_get", { id: files[0].id })).isError).toBe(true);
  });
});

suite("each mail is imported exactly once", () => {
  test("the same mail delivered twice opens one ticket", async () => {
    const before = await ticketCount();
    const twice = mail({ id: "<twice@customer.test>", subject: "Twice" });
    await deliver(twice);
    await deliver(twice);
    expect(await poll()).toMatchObject({ opened: 1, duplicates: 1 });
    expect(await ticketCount()).toBe(before + 1);
  });

  test("a poll that dies after the ticket write, before the UID moves, imports the mail once on the next poll", async () => {
    const before = await ticketCount();
    const lastUid = async () =>
      (await rows(s.deps, "SELECT last_uid FROM ticket_mailboxes WHERE id = ?", mailboxId))[0]!.last_uid;
    const uidBefore = await lastUid();
    await deliver(mail({ subject: "Crash in the middle" }));
    pollHooks.afterImport = () => {
      throw new Error("killed mid-poll");
    };
    try {
      const r = await poll();
      expect(r).toMatchObject({ opened: 1, error: "killed mid-poll" });
    } finally {
      pollHooks.afterImport = undefined;
    }
    expect(await ticketCount()).toBe(before + 1);
    expect(await lastUid()).toBe(uidBefore); // the UID did not advance
    expect(await poll()).toMatchObject({ opened: 0, duplicates: 1 });
    expect(await ticketCount()).toBe(before + 1);
    expect(Number(await lastUid())).toBeGreaterThan(Number(uidBefore));
  });

  test("two pollers at once: one polls, the other finds the mailbox held", async () => {
    const before = await ticketCount();
    await deliver(mail({ subject: "Race" }));
    const [a, b] = await Promise.all([pollMailbox(s.deps, mailboxId), pollMailbox(s.deps, mailboxId)]);
    expect([a.polled, b.polled].sort()).toEqual([false, true]);
    expect(a.opened + b.opened).toBe(1);
    expect(await ticketCount()).toBe(before + 1);
  });

  test("the job polls a minute later without being asked", async () => {
    const before = await ticketCount();
    await deliver(mail({ subject: "Found by the job" }));
    await s.jobs.runDue();
    expect(await ticketCount()).toBe(before);
    s.clock.advance(61_000);
    await s.jobs.runDue();
    expect(await ticketCount()).toBe(before + 1);
  });
});

suite("tenancy, failures and the password", () => {
  test("another company's mailbox id is not found", async () => {
    for (const name of ["ticket_mailboxes_get", "ticket_mailboxes_poll", "ticket_mailboxes_disconnect"]) {
      const r = await tool(rival, name, { id: mailboxId });
      expect(r.isError).toBe(true);
      expect(r.text).toContain(`Mailbox ${mailboxId} not found`);
    }
    const u = await tool(rival, "ticket_mailboxes_update", { id: mailboxId, paused: true });
    expect(u.isError).toBe(true);
    expect((await ok("ticket_mailboxes_list", {}, rival)).items).toEqual([]);
  });

  test("a new password that does not sign in is refused, and the old one stays", async () => {
    await ok("ticket_mailboxes_update", { id: mailboxId, password: "changed-later" }).then(
      () => {
        throw new Error("a wrong new password must be refused");
      },
      (e: Error) => expect(e.message).toContain("Could not sign in"),
    );
    // The refused update saved nothing: polling still works with the old password.
    expect(await poll()).toMatchObject({ polled: true });
    expect((await ok("ticket_mailboxes_get", { id: mailboxId })).state).toBe("active");
  });

  test("pause stops the job; the password is in no tool result, audit row or event", async () => {
    expect((await ok("ticket_mailboxes_update", { id: mailboxId, paused: true })).state).toBe("paused");
    const r = await tool(owner, "ticket_mailboxes_poll", { id: mailboxId });
    expect(r.isError).toBe(true);
    expect(r.text).toContain("paused");
    // A new password (tried first) keeps it paused; resuming polls again.
    expect((await ok("ticket_mailboxes_update", { id: mailboxId, password: PASSWORD })).state).toBe("paused");
    expect((await ok("ticket_mailboxes_update", { id: mailboxId, paused: false })).state).toBe("active");
    expect(await poll()).toMatchObject({ polled: true });
    await ok("ticket_mailboxes_update", { id: mailboxId, paused: true });
    const audit = await rows(s.deps, "SELECT * FROM audit_log");
    const events = await rows(s.deps, "SELECT * FROM events");
    const all = [...seen, JSON.stringify(audit), JSON.stringify(events)].join("\n");
    expect(all).toContain(USER);
    expect(all).not.toContain(PASSWORD);
  });

  test("disconnect forgets the mailbox; its tickets stay", async () => {
    const before = await ticketCount();
    await ok("ticket_mailboxes_disconnect", { id: mailboxId });
    expect(await rows(s.deps, "SELECT id FROM ticket_mailboxes")).toEqual([]);
    expect(await ticketCount()).toBe(before);
  });
});

suite("the inbound-mail webhook", () => {
  let url: string;
  const post = (to: string, body: string, type = "message/rfc822") =>
    fetch(to, { method: "POST", headers: { "content-type": type }, body });

  test("the secret URL is shown once; a raw message POSTed to it opens a ticket, a retry imports nothing", async () => {
    const r = await ok("ticket_mail_webhook_rotate");
    url = r.url;
    expect(url).toMatch(/\/inbound-mail\/[A-Za-z0-9_-]{32}$/);
    const secret = url.split("/").at(-1)!;
    expect(JSON.stringify(await rows(s.deps, "SELECT * FROM ticket_mail_hooks"))).not.toContain(secret);
    const before = await ticketCount();
    const raw = mail({ id: "<pushed@customer.test>", from: "Bo <bo@customer.test>", subject: "Pushed in" });
    const res = await post(url, raw);
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(out.outcome).toBe("opened");
    expect((await ok("tickets_get", { id: out.ticket })).requester.email).toBe("bo@customer.test");
    expect(await (await post(url, raw)).json()).toEqual({ outcome: "duplicate" });
    expect(await ticketCount()).toBe(before + 1);
  });

  test('JSON {"raw"} works too, and threads a reply onto the ticket', async () => {
    const res = await post(
      url,
      JSON.stringify({
        raw: mail({ from: "bo@customer.test", subject: "Re: x", headers: { "In-Reply-To": "<pushed@customer.test>" } }),
      }),
      "application/json",
    );
    expect(res.status).toBe(200);
    expect((await res.json()).outcome).toBe("replied");
    const bad = await post(url, "{not json", "application/json");
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toContain("not JSON");
  });

  test("a wrong secret is 401, an oversized message 413, and rotating retires the old URL", async () => {
    const before = await ticketCount();
    const wrong = await post(url.replace(/[^/]{32}$/, "x".repeat(32)), mail({}));
    expect(wrong.status).toBe(401);
    const big = await post(url, mail({ body: "y".repeat(10 * 1024 * 1024 + 8192) }));
    expect(big.status).toBe(413);
    const next = (await ok("ticket_mail_webhook_rotate")).url;
    expect(next).not.toBe(url);
    expect((await post(url, mail({}))).status).toBe(401);
    expect(await ticketCount()).toBe(before);
    const v = await tool(viewer, "ticket_mail_webhook_rotate");
    expect(v.isError).toBe(true);
  });
});
