/**
 * A real server for the bookings pages: Acme (owner Olga, whose profile
 * says Europe/Berlin; admin Sam; viewer Vic, with no time zone) with three
 * live booking pages and their bookings, one with planted markup in every
 * field a visitor writes, and Rival (owner Rita, admin Ross) with a
 * booking of its own. Everything is made over MCP with a real SDK client,
 * as an agent would (pages approved by a colleague); people sign in to the
 * portal with passwords. The clock stands on Monday 4 March 2030, 08:00
 * UTC (09:00 in Berlin, CET).
 */
import type { Client } from "@modelcontextprotocol/client";
import { ManualClock } from "../../src/core/clock";
import type { Config } from "../../src/config";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";

export const PASSWORD = "a long passphrase for tests";
export const NOW = Date.UTC(2030, 2, 4, 8, 0, 0);
export const XSS_NAME = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;
export const XSS_ANSWER = `Planted: <img src=x onerror=alert(3)> and <script>alert(4)</script>`;
export const XSS_WHERE = `Room <b>4</b> <img src=x onerror=alert(5)>`;
/** How many office-hours bookings fill Friday, so the agenda runs to a second page. */
export const OFFICE_HOURS = 24;

export interface BookingsWorld {
  s: TestServer;
  olga: Client;
  sam: Client;
  rita: Client;
  ids: { olga: number; sam: number; vic: number };
  pages: { intro: number; support: number; office: number };
  /** Acme's booking ids by what they are for. */
  b: { ada: number; hostile: number; support: number; cancel: number; move: number };
  rivalBooking: number;
}

/** `config` adds to the server's (the calendars test allows loopback feeds, as test/bookings/calendars.test.ts does). */
export async function bookingsWorld(config: Partial<Config> = {}): Promise<BookingsWorld> {
  const s = await startTestServer({
    seed: false,
    clock: new ManualClock(NOW),
    config: { rateLimit: 100_000, ...config },
  });
  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const sam = await mk("sam@acme.test", "Sam Admin");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const ross = await mk("ross@rival.test", "Ross Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  await addMember(s.deps, acme.id, sam.id, "admin");
  await addMember(s.deps, rival.id, ross.id, "admin");
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const sm = await mcpClient(s.url, await key(sam.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const rs = await mcpClient(s.url, await key(ross.id, rival.id));

  await toolOk(o, "profile_update", { timeZone: "Europe/Berlin" });
  /** A page drafted by `by` and approved by a colleague, as the approval flow wants. */
  const live = async (by: Client, approver: Client, args: Record<string, unknown>) => {
    const p = await toolOk(by, "booking_pages_create", {
      minNotice: 0,
      maxAdvanceDays: 60,
      timeZone: "Europe/Berlin",
      ...args,
    });
    await toolOk(approver, "approvals_approve", { id: p.approval.id });
    return p.id as number;
  };
  const intro = await live(o, sm, {
    title: "Intro call",
    durations: [30],
    location: "in_person",
    where: XSS_WHERE,
    hosts: [olga.id],
    questions: [{ id: "topic", label: "What would you like to talk about?", type: "long_text" }],
  });
  const support = await live(o, sm, {
    title: "Support session",
    durations: [60],
    location: "video",
    hosts: [sam.id],
  });
  const office = await live(o, sm, { title: "Office hours", durations: [15], location: "video", hosts: [olga.id] });

  const at = (day: number, hour: number, minute = 0) => new Date(Date.UTC(2030, 2, day, hour, minute)).toISOString();
  const book = async (pageId: number, startsAt: string, name: string, email: string, answers?: unknown) =>
    (await toolOk(o, "bookings_create", { pageId, startsAt, name, email, ...(answers ? { answers } : {}) }))
      .id as number;
  // Tuesday 5 March, 09:00 and 10:00 in Berlin (08:00Z, 09:00Z).
  const ada = await book(intro, at(5, 8), "Ada Lovelace", "ada@customer.test", { topic: "Pricing for 12 seats" });
  const hostile = await book(intro, at(5, 9), XSS_NAME, "mallory@evil.test", { topic: XSS_ANSWER });
  // Wednesday 6 March, 14:00 in Berlin with Sam.
  const supportId = await book(support, at(6, 13), "Bea Buyer", "bea@customer.test");
  const cancel = await book(intro, at(7, 12), "Carl Cancel", "carl@customer.test", { topic: "Maybe later" });
  const move = await book(support, at(7, 9), "Mo Mover", "mo@customer.test");
  // Friday 8 March: office hours every 15 minutes from 09:00 in Berlin, so the agenda has a second page.
  for (let i = 0; i < OFFICE_HOURS; i++)
    await book(office, at(8, 8, i * 15), `Visitor ${i + 1}`, `visitor${i + 1}@customer.test`);

  const rivalPage = await live(r, rs, { title: "Rival secret call", durations: [30], location: "video" });
  const rivalBooking = (
    await toolOk(r, "bookings_create", {
      pageId: rivalPage,
      startsAt: at(5, 10),
      name: "Rival secret attendee",
      email: "x@rival.test",
    })
  ).id as number;
  return {
    s,
    olga: o,
    sam: sm,
    rita: r,
    ids: { olga: olga.id, sam: sam.id, vic: vic.id },
    pages: { intro, support, office },
    b: { ada, hostile, support: supportId, cancel, move },
    rivalBooking,
  };
}
