/**
 * A real server for the tickets pages: Acme (owner Olga, admin Sam, viewer
 * Vic) with a 24/7 SLA policy and a queue whose SLA states are known —
 * one breached, one due in two hours, one comfortably ok, one paused, one
 * with a hostile subject and thread — and Rival (owner Rita) with a ticket
 * of its own. Everything is made over MCP with a real SDK client, as an
 * agent would; people sign in to the portal with passwords.
 */
import type { Client } from "@modelcontextprotocol/client";
import { ManualClock } from "../../src/core/clock";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const XSS_SUBJECT = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;
/** A planted file name: markup that must stay text on the page and in the download dialog. */
export const XSS_FILE = `<img src=x onerror=alert(6)>export-guide.pdf`;
export const PDF = Buffer.from("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n");
export const XSS_BODY = `Planted: <img src=x onerror=alert(3)> and <script>alert(4)</script>`;
const HOUR = 3_600_000;

export interface TicketsWorld {
  s: TestServer;
  clock: ManualClock;
  olga: Client;
  rita: Client;
  ids: { sam: number; vic: number };
  /** Acme's ticket numbers by what they are for. */
  n: { breached: number; soon: number; ok: number; paused: number; hostile: number };
  /** Rival's one ticket: numbered like Acme's first, so a lookup across companies would show. */
  rivalTicket: number;
}

export async function ticketsWorld(): Promise<TicketsWorld> {
  const now = Date.now();
  const clock = new ManualClock(now - 10 * HOUR);
  const s = await startTestServer({ seed: false, clock, config: { rateLimit: 100_000 } });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const sam = await mk("sam@acme.test", "Sam Agent");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  await addMember(s.deps, acme.id, sam.id, "admin");
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);

  // Round the clock targets, so due times are plain arithmetic on the server's clock.
  const target = (first: number, resolution: number) => ({
    firstResponseMinutes: first,
    resolutionMinutes: resolution,
    businessHours: false,
  });
  await call("ticket_sla_policy_update", {
    targets: {
      urgent: target(60, 8 * 60),
      high: target(4 * 60, 16 * 60),
      normal: target(8 * 60, 40 * 60),
      low: target(16 * 60, 80 * 60),
    },
  });
  const open = async (subject: string, priority: string, body: string, email = "casey@customer.test") =>
    (await call("tickets_create", { subject, priority, body, requesterEmail: email, requesterName: "Casey Customer" }))
      .id as number;

  // Ten hours ago: urgent, never answered: its first reply was due nine hours ago.
  const breached = await open("Checkout fails with a 500", "urgent", "Nobody can pay since this morning.");
  // Two hours ago: a high ticket whose first reply is due in two hours.
  clock.set(new Date(now - 2 * HOUR));
  const soon = await open("Invoice address is wrong", "high", "Please change the street on invoice 2024-118.");
  // An hour ago: a normal one with a conversation, well within its targets.
  clock.set(new Date(now - HOUR));
  const ok = await open("How do I export my data?", "normal", "Is there a CSV export of orders?");
  await call("tickets_assign", { id: ok, assigneeId: sam.id });
  await call("tickets_add_note", { id: ok, body: "They are on the old plan; export is in settings there." });
  await call("tickets_reply", {
    id: ok,
    body: "Yes: Settings → Orders → Export. It mails you a CSV.",
    attachments: [{ filename: XSS_FILE, dataBase64: PDF.toString("base64") }],
  });
  await call("tickets_add_requester_reply", { id: ok, body: "Found it, but the dates look off by a day." });
  // A low one waiting on the requester: its resolution clock is paused.
  const paused = await open("Feature idea: dark mode", "low", "Would love a dark theme.");
  await call("tickets_reply", { id: paused, body: "Noted; is it for the dashboard or the shop?", status: "pending" });
  // Planted markup everywhere a visitor can write.
  const hostile = await open(XSS_SUBJECT, "normal", XSS_BODY, "mallory@evil.test");
  await call("tickets_add_note", { id: hostile, body: `<script>alert(5)</script> **not markup**` });
  clock.set(new Date(now));

  const rivalTicket = await call(
    "tickets_create",
    {
      subject: "Rival secret ticket",
      body: "Only Rival sees this.",
      requesterEmail: "someone@rival.test",
    },
    r,
  );
  return {
    s,
    clock,
    olga: o,
    rita: r,
    ids: { sam: sam.id, vic: vic.id },
    n: { breached, soon, ok, paused, hostile },
    rivalTicket: rivalTicket.id as number,
  };
}
