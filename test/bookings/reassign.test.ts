/**
 * Handing bookings to another host, over a real server, MCP clients and a
 * real SMTP sink: bookings_reassign hands a booking to a named host or to
 * the next free one by round robin, the attendee is emailed the new host
 * with the updated invite, and a handover racing a new booking for the same
 * host never gives that host two meetings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { ManualClock } from "../../src/core/clock";
import { bookingHosts } from "../../src/domains/bookings/tables";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { sendDueMail } from "../jobs";

const NOW = Date.UTC(2030, 2, 4, 8, 0, 0); // Monday 4 March 2030, 08:00Z
const WEEK = ["09:00-17:00"];
const HOURS = { mon: WEEK, tue: WEEK, wed: WEEK, thu: WEEK, fri: WEEK };

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let me = 0;
let colleague = 0;
let colleagueName = "";
let robin = "";

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    clock: new ManualClock(NOW),
    config: { smtpUrl: smtp.url(), mailFrom: "Acme <bookings@plinth.test>" },
  });
  await s.jobs.stop();
  w = await makeWorld(s);
  me = (await w.ok(w.owner, "whoami", {})).userId;
  const c = await w.ok(w.colleague, "whoami", {});
  colleague = c.userId;
  for (const member of [me, colleague])
    await w.ok(w.owner, "booking_schedules_set", { member, timeZone: "UTC", weeklyHours: HOURS });
  colleagueName = (await w.ok(w.owner, "booking_schedules_list", {})).items.find(
    (x: any) => x.userId === colleague,
  )?.name;
  const live = async (args: Record<string, unknown>) => {
    const p = await w.ok(w.owner, "booking_pages_create", { durations: [60], minNotice: 0, ...args });
    await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
    return p.slug as string;
  };
  robin = await live({ title: "Either host", hosts: [me, colleague], hostMode: "round_robin" });
}, 60_000);
afterAll(async () => {
  await s?.stop();
  await smtp?.stop();
});

/** Mails to `to` sent so far, after delivering events and the outbox; waits for at least `atLeast`. */
async function mailsTo(to: string, atLeast: number) {
  for (const until = Date.now() + 10_000; Date.now() < until; await Bun.sleep(25)) {
    await s.dispatcher.drain();
    await sendDueMail(s.deps);
    const got = smtp.messages.filter((m) => m.envelope.to.includes(to));
    if (got.length >= atLeast) return await Promise.all(got.map(async (m) => ({ raw: m.raw, p: await m.parse() })));
  }
  throw new Error(`fewer than ${atLeast} mails to ${to}`);
}
const unfold = (t: string) => t.replace(/\r\n /g, "");
const inviteOf = (m: { p: { attachments: { filename?: string; content: Buffer }[] } }) =>
  unfold(m.p.attachments.find((a) => a.filename === "invite.ics")!.content.toString("utf8"));

const book = (slug: string, startsAt: string, email: string) =>
  w.ok(w.owner, "bookings_create", { pageSlug: slug, startsAt, name: "Ada Lovelace", email });

describe("reassigning a booking's host", () => {
  let uid = "";
  let firstHost = 0;
  test("without a host the round robin hands it to the other free host; the attendee is told who, with the updated invite", async () => {
    const b = await book(robin, "2030-03-05T10:00:00Z", "cleo@example.test");
    uid = b.uid;
    firstHost = b.hostUserIds[0];
    const other = firstHost === me ? colleague : me;
    const r = await w.ok(w.owner, "bookings_reassign", { uid });
    expect(r).toMatchObject({ uid, hostUserIds: [other], sequence: 1, changed: ["host"] });
    const mails = await mailsTo("cleo@example.test", 2);
    const updated = mails.find((m) => m.p.subject?.startsWith("Updated:"))!;
    const otherName = other === colleague ? colleagueName : "Olivia Owner";
    expect(updated.p.text).toContain(`Your booking is now with ${otherName}.`);
    const ics = inviteOf(updated);
    expect(ics).toContain("SEQUENCE:1");
    expect(ics).toContain(`UID:${uid}@`);
  });

  test("a named host takes it back; a member who is not a page host, or one who is busy, is refused", async () => {
    const back = await w.ok(w.owner, "bookings_reassign", { uid, host: firstHost });
    expect(back.hostUserIds).toEqual([firstHost]);
    const viewer = (await w.ok(w.viewer, "whoami", {})).userId;
    expect(await w.err(w.owner, "bookings_reassign", { uid, host: viewer })).toContain("is not a host of page");
    // Both hosts busy at 11:00: nobody to hand either booking to.
    const x = await book(robin, "2030-03-05T11:00:00Z", "dan@example.test");
    await book(robin, "2030-03-05T11:00:00Z", "eve@example.test");
    expect(await w.err(w.owner, "bookings_reassign", { uid: x.uid })).toContain("other hosts is free");
    expect(await w.err(w.stranger, "bookings_reassign", { uid: x.uid })).toContain("not found");
  });

  test("a handover racing a new booking for the same host: both end cleanly, and no host has two meetings", async () => {
    const start = "2030-03-06T10:00:00Z";
    const a = await book(robin, start, "fay@example.test");
    const results = await Promise.allSettled([
      w.call(w.owner, "bookings_reassign", { uid: a.uid }),
      w.call(w.colleague, "bookings_create", {
        pageSlug: robin,
        startsAt: start,
        name: "Gus",
        email: "gus@example.test",
      }),
    ]);
    for (const r of results) {
      expect(r.status).toBe("fulfilled");
      const v = (r as PromiseFulfilledResult<{ isError: boolean; text: string }>).value;
      if (v.isError) expect(v.text).toMatch(/Conflict|not free|no longer available|other hosts is free/);
    }
    const held = await s.deps.db
      .select({ userId: bookingHosts.userId })
      .from(bookingHosts)
      .where(and(eq(bookingHosts.active, true), eq(bookingHosts.startsAt, new Date(start))));
    const ids = held.map((h) => h.userId).sort();
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBeGreaterThanOrEqual(1);
    // Whatever the order, every active booking at that time has exactly one host.
    const listed = await w.ok(w.owner, "bookings_list", {
      pageSlug: robin,
      from: start,
      to: "2030-03-06T10:00:01Z",
      status: ["accepted"],
    });
    expect(listed.items.length).toBe(ids.length);
  });
});
