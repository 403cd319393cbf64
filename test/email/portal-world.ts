/**
 * A real server for the email pages: Acme (owner Olga, admin Sam, viewer
 * Vic) with a newsletter list of nine people (one who bounces, one with a
 * hostile name), a campaign an agent made over MCP that a person approved
 * and that went out over a real SMTP server on loopback, whose results came
 * in over the hours after (opens through the tracking image, clicks through
 * the tracked link, an unsubscribe through the one-click link, all over
 * HTTP while the clock moved), a scheduled campaign and one waiting for
 * approval with a hostile name; and Rival (owner Rita) with a list and a
 * campaign of its own. People sign in to the portal with passwords.
 */
import type { Client } from "@modelcontextprotocol/client";
import { and, eq } from "drizzle-orm";
import { ManualClock } from "../../src/core/clock";
import { closeMailTransport } from "../../src/core/mail";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { emailSends } from "../../src/domains/email/tables";
import { anyoneWithLink } from "../fixtures/approvals";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { deliver } from "../jobs";

export const PASSWORD = "a long passphrase for tests";
export const XSS_NAME = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;
export const XSS_CAMPAIGN = `<img src=x onerror=alert(3)> Launch <b>now</b>`;
export const BOUNCER = "gone@example.com";
const HOUR = 3_600_000;

export interface EmailPagesWorld {
  s: TestServer;
  smtp: TestSmtp;
  clock: ManualClock;
  olga: Client;
  rita: Client;
  ids: {
    list: number;
    hostileList: number;
    sent: number;
    scheduled: number;
    scheduled2: number;
    pending: number;
    pendingApproval: number;
    rivalList: number;
    rivalCampaign: number;
  };
  /** When the sent campaign started (its first step ends an hour later, on the hour). */
  sentAt: number;
  stop(): Promise<void>;
}

export async function emailPagesWorld(): Promise<EmailPagesWorld> {
  const now = Date.now();
  const start = Math.floor((now - 3 * 24 * HOUR) / HOUR) * HOUR + 5 * 60_000;
  const clock = new ManualClock(start - HOUR);
  const smtp = await startSmtp({ refuseRecipient: { [BOUNCER]: [550, "5.1.1 mailbox unavailable"] } });
  closeMailTransport();
  const s = await startTestServer({
    seed: false,
    clock,
    config: { rateLimit: 100_000, smtpUrl: smtp.url(), mailFrom: "Acme News <news@acme.test>" },
  });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const sam = await mk("sam@acme.test", "Sam Admin");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  await addMember(s.deps, acme.id, sam.id, "admin");
  // Anyone with the link decides here: these pages are under test, not who decides (test/approvals/who-decides*.test.ts).
  await anyoneWithLink(s.deps, acme.id);
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);
  const approve = async (token: string) => {
    const d = await decideApproval(s.deps, { token }, "approve", { decidedBy: "Olga Owner" });
    if (!d.ok) throw new Error(d.message);
  };

  const list = await call("email_lists_create", {
    name: "Acme Newsletter",
    description: "Product news, once a month.",
    optIn: "single",
  });
  const hostileList = await call("email_lists_create", { name: XSS_NAME, optIn: "single" });
  const people: [string, string][] = [
    ["ada@example.com", "Ada Lovelace"],
    ["ben@example.com", "Ben Okafor"],
    ["chen@example.com", "Chen Wei"],
    ["dana@example.com", "Dana Scully"],
    ["eli@example.com", "Eli Novak"],
    ["fay@example.com", "Fay Moreau"],
    ["gus@example.com", "Gus Lind"],
    [BOUNCER, "Gone Away"],
    ["mallory@example.com", XSS_NAME],
  ];
  for (const [email, name] of people) await call("email_subscribers_add", { email, name, listIds: [list.id] });
  await call("email_subscribers_add", { email: "zed@example.com", name: "Zed Other", listIds: [hostileList.id] });
  const html =
    '<h1>Hello {{ name | friend }}</h1><p>Our spring release is out. <a href="https://acme.test/spring">Read about it</a>.</p>';

  // The spring campaign: approved by a person, sent, then read over the next hours.
  const sent = await call("email_campaigns_create", {
    name: "Spring release",
    subject: "Spring release: what is new",
    listIds: [list.id],
    html,
    trackOpens: true,
    trackClicks: true,
  });
  await approve(sent.approval.token);
  clock.set(new Date(start));
  await call("email_campaigns_send", { id: sent.id });
  for (let i = 0; i < 60; i++) {
    await deliver(s.deps);
    if ((await call("email_campaigns_get", { id: sent.id })).status === "sent") break;
    clock.advance(1000);
  }
  const sends = await s.deps.db
    .select({ email: emailSends.email, token: emailSends.token })
    .from(emailSends)
    .where(and(eq(emailSends.campaignId, sent.id), eq(emailSends.kind, "campaign")));
  const token = (email: string) => sends.find((x) => x.email === email)!.token;
  const at = (hours: number) => clock.set(new Date(start + hours * HOUR + 60_000));
  const get = (path: string) => fetch(`${s.url}${path}`, { redirect: "manual" });
  // Hour 1: three open it; two click; hour 2: two more open, one unsubscribes; hour 4: one more opens and clicks.
  at(0.5);
  for (const e of ["ada@example.com", "ben@example.com", "chen@example.com"]) await get(`/e/o/${token(e)}`);
  for (const e of ["ada@example.com", "chen@example.com"]) await get(`/e/c/${token(e)}/0`);
  at(1.5);
  for (const e of ["dana@example.com", "eli@example.com"]) await get(`/e/o/${token(e)}`);
  await fetch(`${s.url}/e/u/${token("fay@example.com")}`, {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "List-Unsubscribe=One-Click",
  });
  at(3.5);
  await get(`/e/o/${token("gus@example.com")}`);
  await get(`/e/c/${token("gus@example.com")}/0`);

  // A scheduled campaign (approved, due in two days) and one waiting for a person, with a hostile name.
  clock.set(new Date(now));
  const scheduled = await call("email_campaigns_create", {
    name: "Summer preview",
    subject: "A first look at summer",
    listIds: [list.id],
    html,
  });
  await approve(scheduled.approval.token);
  await call("email_campaigns_schedule", { id: scheduled.id, at: new Date(now + 2 * 24 * HOUR).toISOString() });
  const scheduled2 = await call("email_campaigns_create", {
    name: "Autumn teaser",
    subject: "Autumn is coming",
    listIds: [list.id],
    html,
  });
  await approve(scheduled2.approval.token);
  await call("email_campaigns_schedule", { id: scheduled2.id, at: new Date(now + 5 * 24 * HOUR).toISOString() });
  const pending = await call("email_campaigns_create", {
    name: XSS_CAMPAIGN,
    subject: `Subject ${XSS_NAME}`,
    listIds: [list.id, hostileList.id],
    html,
  });

  const rivalList = await call("email_lists_create", { name: "Rival secret list", optIn: "single" }, r);
  await call("email_subscribers_add", { email: "secret@rival.test", listIds: [rivalList.id] }, r);
  const rivalCampaign = await call(
    "email_campaigns_create",
    { name: "Rival secret campaign", subject: "Secret", listIds: [rivalList.id], html },
    r,
  );
  return {
    s,
    smtp,
    clock,
    olga: o,
    rita: r,
    ids: {
      list: list.id,
      hostileList: hostileList.id,
      sent: sent.id,
      scheduled: scheduled.id,
      scheduled2: scheduled2.id,
      pending: pending.id,
      pendingApproval: pending.approval.id,
      rivalList: rivalList.id,
      rivalCampaign: rivalCampaign.id,
    },
    sentAt: start,
    async stop() {
      await s.stop();
      closeMailTransport();
      await smtp.stop();
    },
  };
}
