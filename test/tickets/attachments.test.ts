/**
 * Files on tickets (issue 33) on the real server: mail POSTed to the
 * inbound-mail webhook keeps its attachments (refusing executables and
 * HTML in disguise, each named in the message instead), agents attach
 * uploads and earlier files to replies and the requester's mail carries
 * them (checked in a real SMTP sink), tools list and fetch them, the
 * download link serves a download and never a page, limits hold at the
 * exact byte, and another company's ids are not found. Tools are called
 * over MCP with the SDK client. Runs on SQLite, and on PostgreSQL under
 * scripts/with-postgres.ts (the media store is then the database; with
 * PLINTH_TEST_MEDIA_STORE=s3, a bucket).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { addMember, callTool, createCompany, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { rows, startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { sendDueMail } from "../jobs";

let s: TestServer;
let smtp: TestSmtp;
let owner: Client;
let viewer: Client;
let rival: Client;
let co: { id: number; name: string };
let hookUrl: string;

const ok = async (name: string, args: Record<string, unknown> = {}, c: Client = owner) => {
  const r = await callTool(c, name, args);
  if (r.isError) throw new Error(`${name} failed: ${r.text}`);
  return r.data;
};
const refused = async (name: string, args: Record<string, unknown>, c: Client = owner) => {
  const r = await callTool(c, name, args);
  expect(r.isError).toBe(true);
  return r.text;
};

const PNG = Buffer.concat([Buffer.from("\x89PNG\r\n\x1a\n", "latin1"), Buffer.from("fake image body 0123456789")]);
const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
const EXE = Buffer.concat([Buffer.from("MZ\x90\x00\x03\x00\x00\x00", "latin1"), Buffer.alloc(64, 1)]);
const HTML = Buffer.from("<!doctype html><html><script>alert(document.cookie)</script></html>");

/** A multipart mail with the given files (base64 parts), as a mail client writes one. */
function mailWith(o: {
  id: string;
  subject?: string;
  files: { name: string; type: string; bytes: Buffer }[];
  inReplyTo?: string;
}): string {
  const b = "b-attach-boundary";
  const lines = [
    "From: Alice Buyer <alice@customer.test>",
    "To: support@acme.test",
    `Subject: ${o.subject ?? "Broken part, photos attached"}`,
    "Date: Mon, 13 Jan 2025 09:00:00 +0000",
    `Message-ID: ${o.id}`,
    ...(o.inReplyTo ? [`In-Reply-To: ${o.inReplyTo}`] : []),
    "MIME-Version: 1.0",
    `Content-Type: multipart/mixed; boundary="${b}"`,
    "",
    `--${b}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    "The part broke, see the files.",
  ];
  for (const f of o.files)
    lines.push(
      `--${b}`,
      `Content-Type: ${f.type}; name="${f.name}"`,
      `Content-Disposition: attachment; filename="${f.name}"`,
      "Content-Transfer-Encoding: base64",
      "",
      ...(f.bytes.toString("base64").match(/.{1,76}/g) ?? []),
    );
  lines.push(`--${b}--`, "");
  return lines.join("\r\n");
}

const postMail = (raw: string) =>
  fetch(hookUrl, { method: "POST", headers: { "content-type": "message/rfc822" }, body: raw });
/** A link the server made (its public URL) on this test server's address. */
const local = (url: string) => `${s.url}${new URL(url).pathname}`;
/** Keys of ticket files in the media store. */
async function storedKeys(): Promise<string[]> {
  const out: string[] = [];
  for await (const k of s.deps.blobs.keys("att/")) out.push(k);
  return out.sort();
}
async function rowKeys(): Promise<string[]> {
  const r = await rows(s.deps, "SELECT DISTINCT storage_key FROM ticket_attachments");
  return r.map((x) => String(x.storage_key)).sort();
}

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    config: { rateLimit: 100_000, smtpUrl: smtp.url(), mailFrom: "Acme Support <support@plinth.test>" },
  });
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
  hookUrl = local((await ok("ticket_mail_webhook_rotate")).url);
}, 60_000);
afterAll(async () => {
  for (const c of [owner, viewer, rival]) await c?.close();
  await s?.stop();
  await smtp?.stop();
});

let ticket: number;
let pngId: number;

describe("inbound mail keeps its files", () => {
  test("a mail's PNG and text file are kept; an executable and HTML posing as an image are refused and named", async () => {
    const res = await postMail(
      mailWith({
        id: "<files-1@customer.test>",
        files: [
          { name: "photo.png", type: "image/png", bytes: PNG },
          { name: "notes.txt", type: "text/plain", bytes: Buffer.from("serial 4711\n") },
          { name: "setup.exe", type: "application/octet-stream", bytes: EXE },
          { name: "pretty.png", type: "image/png", bytes: HTML },
        ],
      }),
    );
    expect(res.status).toBe(200);
    const out = await res.json();
    expect(out.outcome).toBe("opened");
    ticket = out.ticket;
    const list = await ok("ticket_attachments_list", { ticketId: ticket });
    expect(list.items.map((a: any) => [a.filename, a.mimeType, a.sizeBytes, a.source])).toEqual([
      ["photo.png", "image/png", PNG.length, "mail"],
      ["notes.txt", "text/plain", 12, "mail"],
    ]);
    pngId = list.items[0].id;
    const t = await ok("tickets_get", { id: ticket });
    expect(list.items[0].messageId).toBe(t.messages[0].id);
    const body: string = t.messages[0].body;
    expect(body).toContain("The part broke");
    expect(body).toContain(`[Attachment "setup.exe" was not kept: The file's format was not recognised`);
    expect(body).toContain('[Attachment "pretty.png" was not kept: The file is HTML');
    // Nothing refused is left in the store: every stored key belongs to a row.
    expect(await storedKeys()).toEqual(await rowKeys());
  });

  test("a provider's retry of the same mail stores nothing twice", async () => {
    const before = await storedKeys();
    const res = await postMail(
      mailWith({ id: "<files-1@customer.test>", files: [{ name: "photo.png", type: "image/png", bytes: PNG }] }),
    );
    expect((await res.json()).outcome).toBe("duplicate");
    expect(await storedKeys()).toEqual(before);
  });
});

describe("fetching files", () => {
  test("get returns the bytes and a link that downloads them with safe headers", async () => {
    const a = await ok("ticket_attachments_get", { id: pngId });
    expect(a).toMatchObject({ id: pngId, ticketId: ticket, filename: "photo.png", mimeType: "image/png" });
    expect(Buffer.from(a.dataBase64, "base64").equals(PNG)).toBe(true);
    const res = await fetch(local(a.downloadUrl));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("content-disposition")).toStartWith('attachment; filename="photo.png"');
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toContain("sandbox");
    expect(res.headers.get("cache-control")).toBe("private, no-store");
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
  });

  test("an altered or expired link is a plain 404", async () => {
    const a = await ok("ticket_attachments_get", { id: pngId });
    const url = local(a.downloadUrl);
    const altered = `${url.slice(0, -3)}${url.endsWith("AAA") ? "BBB" : "AAA"}`;
    expect((await fetch(altered)).status).toBe(404);
    expect((await fetch(`${s.url}/ticket-files/../../etc/passwd`)).status).toBe(404);
    s.clock.advance(15 * 60_000 + 1);
    const expired = await fetch(url);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toContain("unknown or has expired");
    s.clock.set(Date.parse("2025-01-13T09:00:00Z"));
  });

  test("another company's attachment and ticket are not found; a viewer may read", async () => {
    expect(await refused("ticket_attachments_get", { id: pngId }, rival)).toContain("not found");
    expect(await refused("ticket_attachments_list", { ticketId: ticket }, rival)).toContain("not found");
    expect(
      await refused("tickets_reply", { id: 1, body: "x", attachments: [{ attachmentId: pngId }] }, rival),
    ).toContain("not found");
    expect((await ok("ticket_attachments_list", { ticketId: ticket }, viewer)).items).toHaveLength(2);
  });
});

describe("agents attach files to replies", () => {
  test("an upload and an earlier file go out with the reply email", async () => {
    const r = await ok("tickets_reply", {
      id: ticket,
      body: "Here is the manual; your photo is attached for reference.",
      attachments: [{ filename: "manual.pdf", dataBase64: PDF.toString("base64") }, { attachmentId: pngId }],
    });
    expect(r.attachments.map((a: any) => [a.filename, a.mimeType, a.source])).toEqual([
      ["manual.pdf", "application/pdf", "agent"],
      ["photo.png", "image/png", "agent"],
    ]);
    // The earlier file is sent again, not stored again.
    expect((await rowKeys()).length).toBe((await storedKeys()).length);
    expect(await storedKeys()).toHaveLength(3);
    await s.dispatcher.drain();
    await sendDueMail(s.deps);
    await smtp.waitFor(1);
    const m = smtp.messages.find((x) => x.envelope.to[0] === "alice@customer.test")!;
    const parsed = await m.parse();
    const files = parsed.attachments.map((a) => [a.filename, a.contentType, a.content.toString("base64")]);
    expect(files).toEqual([
      ["manual.pdf", "application/pdf", PDF.toString("base64")],
      ["photo.png", "image/png", PNG.toString("base64")],
    ]);
    expect(parsed.text).toContain("Here is the manual");
  });

  test("hostile names and types are refused or made harmless", async () => {
    const bad = async (file: Record<string, unknown>) =>
      refused("tickets_reply", { id: ticket, body: "x", attachments: [file] });
    expect(await bad({ filename: "pretty.png", mimeType: "image/png", dataBase64: HTML.toString("base64") })).toContain(
      "HTML",
    );
    expect(await bad({ filename: "setup.exe", dataBase64: EXE.toString("base64") })).toContain("not recognised");
    expect(
      await bad({ filename: "x.exe", mimeType: "application/x-msdownload", dataBase64: EXE.toString("base64") }),
    ).toContain("not recognised");
    expect(await bad({ filename: "..", dataBase64: PNG.toString("base64") })).toContain("names no file");
    expect(await bad({ filename: "a.png", dataBase64: "not base64!!" })).toContain("not valid base64");
    expect(await bad({ filename: "a.png" })).toContain("give filename and dataBase64");
    expect(await bad({ attachmentId: pngId, filename: "a.png", dataBase64: "AAAA" })).toContain("not both");
    // Past the company's per-file limit: refused by its length, before anything is decoded.
    expect(await bad({ filename: "big.txt", dataBase64: "A".repeat(Math.ceil((11 * 1024 * 1024 * 4) / 3)) })).toContain(
      "the largest upload is 10485760 bytes",
    );
    // Past what the server reads in one request: 413 at the door, never a 500.
    const huge = await fetch(`${s.url}/api/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "A".repeat(36 * 1024 * 1024),
    });
    expect(huge.status).toBe(413);
    // A path is cut to its last segment; a name whose extension lies gets the real one added.
    const r = await ok("tickets_reply", {
      id: ticket,
      body: "Renamed files",
      attachments: [
        { filename: "../../etc/passwd.txt", mimeType: "text/plain", dataBase64: Buffer.from("hi").toString("base64") },
        { filename: "invoice.html", dataBase64: PNG.toString("base64") },
      ],
    });
    expect(r.attachments.map((a: any) => a.filename).sort()).toEqual(["invoice.html.png", "passwd.txt"]);
    const res = await fetch(local((await ok("ticket_attachments_get", { id: r.attachments[0].id })).downloadUrl));
    expect(res.headers.get("content-disposition")).toContain("attachment");
    expect(await storedKeys()).toEqual(await rowKeys());
  });

  test("a viewer may not reply with files, and what was uploaded is removed again", async () => {
    const before = await storedKeys();
    await refused(
      "tickets_reply",
      { id: ticket, body: "x", attachments: [{ filename: "a.png", dataBase64: PNG.toString("base64") }] },
      viewer,
    );
    expect(await storedKeys()).toEqual(before);
  });
});

describe("limits", () => {
  const text = (n: number) => Buffer.alloc(n, "a").toString("base64");
  const reply = (n: number) =>
    callTool(owner, "tickets_reply", {
      id: ticket,
      body: "size check",
      attachments: [{ filename: `f${n}.txt`, mimeType: "text/plain", dataBase64: text(n) }],
    });

  test("a file of exactly maxFileBytes is taken, one byte more is refused", async () => {
    expect(await refused("ticket_attachment_limits_set", { maxFileBytes: 2048 }, viewer)).not.toBe("");
    expect(await refused("ticket_attachment_limits_set", { maxFileBytes: 512 })).toContain("at least 1024");
    expect(await ok("ticket_attachment_limits_set", { maxFileBytes: 2048 })).toMatchObject({ maxFileBytes: 2048 });
    expect((await reply(2048)).isError).toBe(false);
    const over = await reply(2049);
    expect(over.isError).toBe(true);
    expect(over.text).toContain("2048");
  });

  test("the company's total holds at the exact byte", async () => {
    const used = (await ok("ticket_attachment_limits_set", {})).usedBytes;
    await ok("ticket_attachment_limits_set", { maxTotalBytes: used + 2000 });
    expect((await reply(2000)).isError).toBe(false);
    const before = await storedKeys();
    const over = await reply(1);
    expect(over.isError).toBe(true);
    expect(over.text).toContain("limit");
    expect(await storedKeys()).toEqual(before);
    // Sending an earlier file again costs nothing.
    expect(
      (await callTool(owner, "tickets_reply", { id: ticket, body: "again", attachments: [{ attachmentId: pngId }] }))
        .isError,
    ).toBe(false);
    // Mail past the total is kept without the file, which is named in the message.
    const res = await postMail(
      mailWith({
        id: "<files-2@customer.test>",
        subject: `Re: [Acme #${ticket}] more`,
        inReplyTo: `<ticket-${co.id}-${ticket}@plinth.invalid>`,
        files: [{ name: "second.png", type: "image/png", bytes: PNG }],
      }),
    );
    expect((await res.json()).outcome).toBe("replied");
    const msgs = (await ok("ticket_messages_list", { ticketId: ticket })).items;
    expect(msgs.at(-1).body).toContain(
      `[Attachment "second.png" was not kept: the company's files are at their limit.]`,
    );
    expect(await storedKeys()).toEqual(await rowKeys());
    await ok("ticket_attachment_limits_set", { maxTotalBytes: 1024 * 1024 * 1024, maxFileBytes: 10 * 1024 * 1024 });
  });
});

describe("merging", () => {
  test("files move with their messages", async () => {
    const other = await ok("tickets_create", { subject: "Dup", requesterEmail: "alice@customer.test", body: "dup" });
    await ok("tickets_reply", {
      id: other.id,
      body: "file",
      attachments: [{ filename: "m.pdf", dataBase64: PDF.toString("base64") }],
    });
    await ok("tickets_merge", { id: other.id, targetId: ticket });
    const names = (await ok("ticket_attachments_list", { ticketId: ticket })).items.map((a: any) => a.filename);
    expect(names).toContain("m.pdf");
    expect((await ok("ticket_attachments_list", { ticketId: other.id })).items).toEqual([]);
  });
});

describe("deleting", () => {
  test("a deleted ticket's own files leave the store; a file sent again elsewhere stays", async () => {
    const t = await ok("tickets_create", { subject: "Spam", requesterEmail: "spam@customer.test", body: "spam" });
    const r = await ok("tickets_reply", {
      id: t.id,
      body: "files",
      attachments: [{ filename: "only-here.pdf", dataBase64: PDF.toString("base64") }, { attachmentId: pngId }],
    });
    const only = (
      await rows(s.deps, "SELECT storage_key FROM ticket_attachments WHERE id = ?", r.attachments[0].id)
    )[0]!.storage_key as string;
    const shared = (await rows(s.deps, "SELECT storage_key FROM ticket_attachments WHERE id = ?", pngId))[0]!
      .storage_key as string;
    expect(await storedKeys()).toContain(only);
    await ok("tickets_delete", { id: t.id });
    for (let i = 0; i < 50 && (await storedKeys()).includes(only); i++) await Bun.sleep(20);
    expect(await storedKeys()).not.toContain(only);
    expect(await storedKeys()).toContain(shared);
    expect(await storedKeys()).toEqual(await rowKeys());
  });
});
