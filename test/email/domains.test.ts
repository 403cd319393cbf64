/**
 * Sending domains over the real wire: an agent adds a domain through the
 * MCP endpoint with the SDK client, publishes the records it was given on
 * the loopback DNS server (dns2, test/hosting/net.ts), checks them, and
 * mail from the domain reaches the loopback SMTP server DKIM-signed. The
 * signatures are verified by mailauth (a verifier by nodemailer's author,
 * not our own code) reading the key from that same DNS server; a body
 * changed after signing fails, which proves the verification can fail.
 * Campaigns sent, scheduled or shown for approval from a domain without a
 * key, or whose last check failed, say so in warnings and still go out.
 * Roles, scopes and tenancy are met as credentials meet them.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { and, eq } from "drizzle-orm";
import dns2 from "dns2";
import { createPublicKey } from "node:crypto";
import { dkimVerify } from "mailauth/lib/dkim/verify";
import { closeMailTransport } from "../../src/core/mail";
import { loadConfig } from "../../src/config";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { emailSendingDomains } from "../../src/domains/email/tables";
import { addMember, createUser, mcpClient, mintMcpKey } from "../fixtures/accounts";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";
import { startDns, type Zone } from "../hosting/net";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { deliver } from "../jobs";

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let dns: Awaited<ReturnType<typeof startDns>>;
let emailReader: Client;
const zones = new Map<string, Zone>();

const SIGNED = "mail.acme-signed.test";
const SERVER_FROM = "plinth-mail.test";

beforeAll(async () => {
  dns = await startDns(zones);
  smtp = await startSmtp();
  closeMailTransport();
  const hosting = loadConfig({}, {}).hosting;
  s = await startTestServer({
    seed: false,
    config: {
      smtpUrl: smtp.url(),
      mailFrom: `Plinth <news@${SERVER_FROM}>`,
      hosting: { ...hosting, dnsServers: [dns.server] },
    },
  });
  w = await makeWorld(s);
  const owner = (await createUser(s.deps, { email: "reader@acme-signed.test" })).id;
  await addMember(s.deps, w.A.id, owner, "admin");
  emailReader = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: owner, scopes: ["email:read"], companyIds: [w.A.id] })).key,
  );
}, 120_000);
afterAll(async () => {
  await emailReader?.close();
  await s?.stop();
  closeMailTransport();
  await smtp?.stop();
  dns?.close();
});

/**
 * mailauth's resolver hook, answered by the loopback DNS server the check reads too, over dns2's own
 * TCP client: it keeps a TXT record's character-strings together (Bun's resolveTxt splits them).
 */
const testResolver = async (name: string, type: string) => {
  const [host, port] = dns.server.split(":");
  const r = await (dns2 as any).TCPClient({ dns: host, port: Number(port) })(name, type);
  if (r.header.rcode === 3 || r.answers.length === 0)
    throw Object.assign(new Error(`no ${type} at ${name}`), { code: "ENOTFOUND" });
  return r.answers.filter((a: any) => a.type === 16).map((a: any) => a.data as string[]);
};

async function verify(raw: string) {
  const r = await dkimVerify(Buffer.from(raw), { resolver: testResolver as any });
  return r.results.map((x: any) => ({
    d: x.signingDomain,
    s: x.selector,
    result: x.status.result,
    ...(x.status.comment ? { comment: x.status.comment } : {}),
  }));
}

/** A refused call's message, whether the refusal is a tool error or (a missing scope) a protocol error. */
async function refused(c: Client, name: string, args: Record<string, unknown>): Promise<string> {
  try {
    const r = await w.call(c, name, args);
    expect(r.isError).toBe(true);
    return r.text;
  } catch (e) {
    return String((e as Error).message);
  }
}

/** Runs the delivery job until `n` more messages arrived; returns them. Tests drain what they send, so none leaks into the next. */
async function deliverNew(before: number, n = 1) {
  for (let i = 0; i < 30 && smtp.messages.length < before + n; i++) {
    await deliver(s.deps);
    s.clock.advance(1000);
  }
  expect(smtp.messages.length).toBe(before + n);
  return smtp.messages.slice(before);
}

/** A list with `email` subscribed and an approved campaign to it from `fromEmail`. */
async function approvedCampaign(email: string, fromEmail?: string) {
  const list = await w.ok(w.owner, "email_lists_create", { name: `L${Math.random()}`, optIn: "single" });
  await w.ok(w.owner, "email_subscribers_add", { email, listIds: [list.id] });
  const c = await w.ok(w.owner, "email_campaigns_create", {
    name: "Signed news",
    subject: "News",
    html: "<p>Hello from the roastery.</p>",
    listIds: [list.id],
    ...(fromEmail ? { fromEmail, fromName: "Acme" } : {}),
  });
  return c;
}
const approve = async (c: { approval: { token: string } }) =>
  expect((await decideApproval(s.deps, { token: c.approval.token }, "approve", { decidedBy: "Rita" })).ok).toBe(true);

function publish(domain: string, dkim: { name: string; value: string }, extra: Partial<Record<string, Zone>> = {}) {
  zones.set(domain, {
    TXT: ["v=spf1 mx a ~all", "google-site-verification=abc"],
    MX: [{ exchange: `mx.${domain}`, priority: 10 }],
  });
  zones.set(dkim.name, { TXT: [dkim.value] });
  zones.set(`_dmarc.${domain}`, { TXT: [`v=DMARC1; p=none; rua=mailto:dmarc@${domain}`] });
  for (const [k, z] of Object.entries(extra)) zones.set(k, z!);
}

let added: any;

describe("adding a domain", () => {
  test("bad names are refused with what a domain looks like, and nothing is stored", async () => {
    for (const bad of [
      "localhost",
      "news@acme.test",
      "1.2.3.4",
      "-acme.test",
      "acme..test",
      `${"a".repeat(64)}.test`,
      "ac me.test",
    ]) {
      const r = await w.call(w.owner, "email_domains_add", { domain: bad });
      expect(r.isError).toBe(true);
      expect(r.text).toContain("is not a domain name you can send from");
    }
    const rows = await s.deps.db.select().from(emailSendingDomains).where(eq(emailSendingDomains.companyId, w.A.id));
    expect(rows).toEqual([]);
  });

  test("a key is made and the records to publish are returned; the private key is never shown and is stored sealed", async () => {
    const r = await w.call(w.owner, "email_domains_add", { domain: "Mail.Acme-Signed.TEST." });
    expect(r.isError).toBe(false);
    added = r.data;
    expect(added.domain).toBe(SIGNED);
    expect(added.selector).toMatch(/^plinth\d{6}-[0-9a-f]{4}$/);
    const dkim = added.records.find((x: any) => x.record === "dkim");
    expect(dkim.name).toBe(`${added.selector}._domainkey.${SIGNED}`);
    expect(dkim.value).toMatch(/^v=DKIM1; k=rsa; p=[A-Za-z0-9+/=]+$/);
    // The p= value is a real 2048-bit RSA public key.
    const key = createPublicKey({ key: Buffer.from(dkim.value.split("p=")[1], "base64"), format: "der", type: "spki" });
    expect(key.asymmetricKeyType).toBe("rsa");
    expect(key.asymmetricKeyDetails?.modulusLength).toBe(2048);
    expect(added.records.find((x: any) => x.record === "spf").value).toContain("~all");
    expect(added.records.find((x: any) => x.record === "dmarc").name).toBe(`_dmarc.${SIGNED}`);
    expect(r.text).not.toContain("PRIVATE KEY");
    expect(r.text).not.toContain("s1.");
    const row = (await s.deps.db.select().from(emailSendingDomains).where(eq(emailSendingDomains.id, added.id)))[0]!;
    expect(row.privateKeySealed.startsWith("s1.")).toBe(true);
    expect(row.privateKeySealed).not.toContain("PRIVATE KEY");
    const got = await w.ok(w.owner, "email_domains_get", { id: added.id });
    expect(JSON.stringify(got)).not.toContain("PRIVATE KEY");
    expect(got.records).toEqual(added.records);
  });

  test("the same domain twice is a conflict naming the first", async () => {
    const t = await w.err(w.owner, "email_domains_add", { domain: SIGNED });
    expect(t).toContain(`already a sending domain (id ${added.id})`);
  });

  test("viewers, keys without email:write and other companies are refused; lookups stay in the company", async () => {
    expect(await w.err(w.viewer, "email_domains_add", { domain: "viewer.test" })).toContain("viewer");
    expect(await refused(emailReader, "email_domains_add", { domain: "reader.test" })).toMatch(
      /needs the email:write scope/,
    );
    expect(await refused(emailReader, "email_domains_check", { id: added.id })).toMatch(/needs the email:write scope/);
    expect((await w.ok(emailReader, "email_domains_list", {})).items.map((d: any) => d.domain)).toEqual([SIGNED]);
    expect(await refused(w.reader, "email_domains_list", {})).toMatch(/needs the email:read scope/);
    expect(await w.err(w.stranger, "email_domains_get", { id: added.id })).toContain(
      `Sending domain ${added.id} not found`,
    );
    expect(await w.err(w.stranger, "email_domains_check", { id: added.id })).toContain("not found");
    expect(await w.err(w.stranger, "email_domains_delete", { id: added.id })).toContain("not found");
    expect(await w.err(w.stranger, "email_domains_get", { domain: SIGNED })).toContain("No sending domain");
    expect((await w.ok(w.stranger, "email_domains_list", {})).items).toEqual([]);
    expect(await w.err(w.owner, "email_domains_get", {})).toContain("Name the sending domain");
  });
});

describe("checking the records", () => {
  test("nothing published: every record missing, with the record to publish; kept as the last check", async () => {
    const r = await w.ok(w.owner, "email_domains_check", { domain: SIGNED });
    expect(r.ok).toBe(false);
    expect(r.records.map((x: any) => [x.record, x.status])).toEqual([
      ["spf", "missing"],
      ["dkim", "missing"],
      ["dmarc", "missing"],
      ["mx", "missing"],
    ]);
    const dkim = r.records.find((x: any) => x.record === "dkim");
    expect(dkim.next).toContain(added.records[0].value);
    const got = await w.ok(w.owner, "email_domains_get", { id: added.id });
    expect(got.lastCheck.ok).toBe(false);
    expect(got.lastCheck.records.length).toBe(4);
  });

  test("published as told: every record ok, DMARC's policy said", async () => {
    publish(SIGNED, added.records[0]);
    const r = await w.ok(w.owner, "email_domains_check", { id: added.id });
    expect(r.records.map((x: any) => [x.record, x.status])).toEqual([
      ["spf", "ok"],
      ["dkim", "ok"],
      ["dmarc", "ok"],
      ["mx", "ok"],
    ]);
    expect(r.ok).toBe(true);
    expect(r.records.find((x: any) => x.record === "dmarc").note).toBe("policy none");
    expect(r.records.find((x: any) => x.record === "mx").found).toEqual([`10 mx.${SIGNED}`]);
    expect((await w.ok(w.owner, "email_domains_list", {})).items[0].lastCheck.ok).toBe(true);
  });

  test("wrong records are mismatches with what to do; a failing name server is an error, not a 500", async () => {
    const other = "wrong.acme-signed.test";
    const d = await w.ok(w.owner, "email_domains_add", { domain: other });
    const dkimName = `${d.selector}._domainkey.${other}`;
    zones.set(other, { TXT: ["v=spf1 a ~all", "v=spf1 mx -all"], MX: [] });
    zones.set(dkimName, { TXT: [added.records[0].value] }); // the other domain's key
    zones.set(`_dmarc.${other}`, { TXT: ["v=DMARC1; rua=mailto:x@wrong.acme-signed.test"] });
    let r = await w.ok(w.owner, "email_domains_check", { id: d.id });
    expect(r.records.map((x: any) => [x.record, x.status])).toEqual([
      ["spf", "mismatch"],
      ["dkim", "mismatch"],
      ["dmarc", "mismatch"],
      ["mx", "missing"],
    ]);
    expect(r.records[0].next).toContain("Merge them");
    expect(r.records[1].note).toContain("not this domain's key");
    zones.set(other, { TXT: ["v=spf1 a ?all"] });
    r = await w.ok(w.owner, "email_domains_check", { id: d.id });
    expect(r.records[0].status).toBe("mismatch");
    expect(r.records[0].next).toContain("~all");
    zones.set(`_dmarc.${other}`, { fail: true });
    r = await w.ok(w.owner, "email_domains_check", { id: d.id });
    expect(r.records[2].status).toBe("error");
    expect(r.records[2].note).toContain("DNS did not answer");
    expect(r.ok).toBe(false);
  });
});

describe("signing", () => {
  test("a campaign from the domain arrives signed d=<domain> s=<selector>, and the signature verifies", async () => {
    const c = await approvedCampaign("amy@example.com", `news@${SIGNED}`);
    await approve(c);
    const sent = await w.ok(w.owner, "email_campaigns_send", { id: c.id });
    expect(sent.warnings).toBeUndefined();
    const [m] = await deliverNew(smtp.messages.length);
    const sig = /^DKIM-Signature:[\s\S]*?(?=\r\n\S)/im.exec(m!.raw)?.[0] ?? "";
    expect(sig).toContain(`d=${SIGNED}`);
    expect(sig).toContain(`s=${added.selector}`);
    expect(await verify(m!.raw)).toEqual([{ d: SIGNED, s: added.selector, result: "pass" }]);
    // Changed after signing, the body or a signed header: the same verifier refuses it.
    const body = m!.raw.replace("Hello from the roastery.", "Hello from the r0astery.");
    expect(body).not.toBe(m!.raw);
    expect(await verify(body)).toEqual([
      { d: SIGNED, s: added.selector, result: "neutral", comment: "body hash did not verify" },
    ]);
    const subject = m!.raw.replace("\r\nSubject: News\r\n", "\r\nSubject: Newz\r\n");
    expect(subject).not.toBe(m!.raw);
    expect((await verify(subject))[0]).toMatchObject({ d: SIGNED, result: "fail" });
  });

  test("test sends and transactional mail from the domain are signed too; mail from elsewhere is not", async () => {
    const c = await approvedCampaign("bo@example.com", `news@${SIGNED}`);
    await approve(c);
    const me = "tess@example.com"; // an approved campaign's test goes to any address
    const before = smtp.messages.length;
    await w.ok(w.owner, "email_campaigns_test", { id: c.id, to: [me] });
    const tpl = await w.ok(w.owner, "email_templates_create", { name: `R${Math.random()}`, html: "<p>Receipt</p>" });
    await w.ok(w.owner, "email_transactional_send", {
      to: "cy@example.com",
      templateId: tpl.id,
      subject: "Your receipt",
      fromEmail: `orders@${SIGNED}`,
    });
    await w.ok(w.owner, "email_transactional_send", {
      to: "di@example.com",
      templateId: tpl.id,
      subject: "Unsigned receipt",
      fromEmail: "orders@unsigned.test",
    });
    const got = await deliverNew(before, 3);
    const by = (to: string) => got.find((m) => m.envelope.to[0] === to)!;
    expect(await verify(by(me).raw)).toEqual([{ d: SIGNED, s: added.selector, result: "pass" }]);
    expect(await verify(by("cy@example.com").raw)).toEqual([{ d: SIGNED, s: added.selector, result: "pass" }]);
    expect(by("di@example.com").raw).not.toMatch(/^DKIM-Signature:/im);
  });

  test("confirmation mail goes out from the server's From: signed once the company has a key for that domain", async () => {
    const list = await w.ok(w.owner, "email_lists_create", { name: `D${Math.random()}`, optIn: "double" });
    let before = smtp.messages.length;
    await w.ok(w.owner, "email_subscribers_add", { email: "ed@example.com", listIds: [list.id] });
    let [m] = await deliverNew(before);
    expect(m!.raw).not.toMatch(/^DKIM-Signature:/im);
    const d = await w.ok(w.owner, "email_domains_add", { domain: SERVER_FROM });
    zones.set(d.records[0].name, { TXT: [d.records[0].value] });
    before = smtp.messages.length;
    await w.ok(w.owner, "email_subscribers_add", { email: "flo@example.com", listIds: [list.id] });
    [m] = await deliverNew(before);
    expect(await verify(m!.raw)).toEqual([{ d: SERVER_FROM, s: d.selector, result: "pass" }]);
    await w.ok(w.owner, "email_domains_delete", { id: d.id });
  });
});

describe("campaign warnings", () => {
  test("no key for the From domain: send and schedule warn, the approval page says so, and it is sent all the same", async () => {
    const c = await approvedCampaign("gil@example.com", "news@nokey.test");
    const page = await (await fetch(w.local(c.approval.url))).text();
    expect(page).toContain("Sending domain");
    expect(page).toContain("without a DKIM signature");
    await approve(c);
    const sc = await w.ok(w.owner, "email_campaigns_schedule", {
      id: c.id,
      at: new Date(s.clock.ms() + 3600_000).toISOString(),
    });
    expect(sc.warnings).toEqual([expect.stringContaining("Mail from nokey.test goes out without a DKIM signature")]);
    const sent = await w.ok(w.owner, "email_campaigns_send", { id: c.id });
    expect(sent.status).toBe("sending");
    expect(sent.warnings[0]).toContain("email_domains_add");
    const [m] = await deliverNew(smtp.messages.length);
    expect(m!.envelope.to).toEqual(["gil@example.com"]);
  });

  test("a key whose last check failed: the warning names the record and what to do; never checked says so", async () => {
    const d = await w.ok(w.owner, "email_domains_add", { domain: "half.acme-signed.test" });
    const c = await approvedCampaign("hal@example.com", "news@half.acme-signed.test");
    await approve(c);
    const c2 = await approvedCampaign("hal2@example.com", "news@half.acme-signed.test");
    await approve(c2);
    const before = smtp.messages.length;
    const never = await w.ok(w.owner, "email_campaigns_send", { id: c2.id });
    expect(never.warnings).toEqual([expect.stringContaining("never checked")]);
    publish("half.acme-signed.test", d.records[0]);
    zones.delete(d.records[0].name);
    await w.ok(w.owner, "email_domains_check", { id: d.id });
    const sent = await w.ok(w.owner, "email_campaigns_send", { id: c.id });
    await deliverNew(before, 2);
    expect(sent.warnings).toEqual([
      expect.stringMatching(
        /^half\.acme-signed\.test: DKIM missing at the last check\. Publish a TXT record at plinth/,
      ),
    ]);
  });

  test("the server's own From without a key, and a domain that passed, send without warnings", async () => {
    const c = await approvedCampaign("ivy@example.com");
    await approve(c);
    const before = smtp.messages.length;
    expect((await w.ok(w.owner, "email_campaigns_send", { id: c.id })).warnings).toBeUndefined();
    await deliverNew(before);
    const page = await (
      await fetch(w.local((await approvedCampaign("jo@example.com", `news@${SIGNED}`)).approval.url))
    ).text();
    expect(page).not.toContain("Sending domain");
  });
});

describe("rotating the key", () => {
  /** Sends one campaign from the signed domain and returns what the verifier says of it. */
  async function sendAndVerify(to: string) {
    const c = await approvedCampaign(to, `news@${SIGNED}`);
    await approve(c);
    const before = smtp.messages.length;
    await w.ok(w.owner, "email_campaigns_send", { id: c.id });
    const [m] = await deliverNew(before);
    return verify(m!.raw);
  }

  test("others cannot rotate; a rotation keeps signing with the current key until its record is published, then moves", async () => {
    expect(await w.err(w.stranger, "email_domains_rotate", { id: added.id })).toContain("not found");
    expect(await w.err(w.viewer, "email_domains_rotate", { id: added.id })).toContain("viewer");
    const r = await w.ok(w.owner, "email_domains_rotate", { domain: SIGNED });
    expect(r.selector).toBe(added.selector);
    expect(r.rotation.selector).toMatch(/^plinth\d{6}-[0-9a-f]{4}$/);
    expect(r.rotation.selector).not.toBe(added.selector);
    expect(r.rotation.record.name).toBe(`${r.rotation.selector}._domainkey.${SIGNED}`);
    expect(r.rotation.record.value).not.toBe(added.records[0].value);
    expect(JSON.stringify(r)).not.toContain("PRIVATE KEY");
    // Not published yet: mail is still signed with the current key, and the check says the rotation waits.
    expect(await sendAndVerify("lou@example.com")).toEqual([{ d: SIGNED, s: added.selector, result: "pass" }]);
    const waiting = await w.ok(w.owner, "email_domains_check", { id: added.id });
    expect(waiting).toMatchObject({ ok: true, selector: added.selector, rotation: { status: "missing" } });
    expect(waiting.rotated).toBeUndefined();
    // Published: the check makes the next key current; mail is signed with it and verifies.
    zones.set(r.rotation.record.name, { TXT: [r.rotation.record.value] });
    const done = await w.ok(w.owner, "email_domains_check", { id: added.id });
    expect(done).toMatchObject({
      ok: true,
      selector: r.rotation.selector,
      rotated: { from: added.selector, to: r.rotation.selector, removeRecord: added.records[0].name },
    });
    const got = await w.ok(w.owner, "email_domains_get", { id: added.id });
    expect(got.rotation).toBeUndefined();
    expect(got.records[0]).toMatchObject({ name: r.rotation.record.name, value: r.rotation.record.value });
    expect(await sendAndVerify("max@example.com")).toEqual([{ d: SIGNED, s: r.rotation.selector, result: "pass" }]);
  });
});

describe("deleting", () => {
  test("after delete the domain's mail goes out unsigned and its key row is gone", async () => {
    const gone = await w.ok(w.owner, "email_domains_delete", { domain: SIGNED });
    expect(gone).toMatchObject({ deleted: true, id: added.id, domain: SIGNED });
    expect(
      await s.deps.db
        .select()
        .from(emailSendingDomains)
        .where(and(eq(emailSendingDomains.companyId, w.A.id), eq(emailSendingDomains.domain, SIGNED))),
    ).toEqual([]);
    const c = await approvedCampaign("kim@example.com", `news@${SIGNED}`);
    await approve(c);
    await w.ok(w.owner, "email_campaigns_send", { id: c.id });
    const [m] = await deliverNew(smtp.messages.length);
    expect(m!.raw).not.toMatch(/^DKIM-Signature:/im);
  });
});
