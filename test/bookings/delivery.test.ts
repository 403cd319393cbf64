/**
 * Bookings reach people, over the wire: a real server, MCP clients, the
 * public page over HTTP and a real SMTP sink. The attendee gets an email
 * with the invite (METHOD REQUEST / CANCEL, one UID for the booking's life,
 * SEQUENCE 0, 1, 2…) whose links work (the attendee's page reschedules and
 * cancels), hosts are notified (not of what they did themself), and
 * reminders go out once per booking and offset, at their exact instant,
 * catching up after downtime without a burst, never for cancelled bookings.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, asc, eq, like } from "drizzle-orm";
import { ManualClock } from "../../src/core/clock";
import { sendDueMail } from "../jobs";
import { mailOutbox } from "../../src/core/tables";
import { sendReminders } from "../jobs";
import { bookingReminders, bookings } from "../../src/domains/bookings/tables";
import { notifications } from "../../src/domains/notifications/tables";
import { startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { makeWorld, type World } from "../cms/world";

const T0 = Date.UTC(2030, 2, 4, 8, 0, 0); // Monday 4 March 2030, 08:00Z
const _H = 3600_000;
const clock = new ManualClock(T0);
let s: TestServer;
let w: World;
let smtp: TestSmtp;
let slug: string;
let colleagueId: number;

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    clock,
    config: { smtpUrl: smtp.url(), mailFrom: "Acme <bookings@plinth.test>" },
  });
  // Events and jobs run when the test says (drain, runDue), so "nothing more" is an observation, not a race.
  await s.dispatcher.stop();
  await s.jobs.stop();
  w = await makeWorld(s);
  colleagueId = (await w.ok(w.colleague, "whoami", {})).userId;
  const week = ["09:00-17:00"];
  await w.ok(w.owner, "booking_schedules_set", {
    member: w.ownerUserId,
    timeZone: "UTC",
    weeklyHours: { mon: week, tue: week, wed: week, thu: week, fri: week },
  });
  slug = await live({ title: "Intro call", minNotice: 0, description: "A first talk about your project." });
}, 30_000);
afterAll(async () => {
  await s?.stop();
  await smtp?.stop();
});

async function live(args: Record<string, unknown>): Promise<string> {
  const p = await w.ok(w.owner, "booking_pages_create", args);
  await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
  return p.slug;
}

/**
 * Delivers events, then sends the outbox over SMTP; returns the messages
 * queued after the first `from` ones (exactly `expected` of them), in the order they were queued (the
 * SMTP sink may see them in another order on PostgreSQL).
 */
async function deliver(from: number, expected: number) {
  // The server's own dispatcher may hold a subscriber's batch while drain() runs (it then skips it): poll until the mail is there.
  let queued: { messageId: string }[] = [];
  for (const until = Date.now() + 10_000; Date.now() < until; await Bun.sleep(20)) {
    await s.dispatcher.drain();
    queued = await s.deps.db.select({ messageId: mailOutbox.messageId }).from(mailOutbox).orderBy(asc(mailOutbox.id));
    if (queued.length >= from + expected) break;
  }
  await sendDueMail(s.deps);
  await smtp.waitFor(queued.length);
  const parsed = await Promise.all(
    smtp.messages.map((m) => m.parse().then((p) => ({ raw: m.raw, to: m.envelope.to, p }))),
  );
  const byId = new Map(parsed.map((m) => [m.p.messageId, m]));
  expect(queued.length).toBe(from + expected);
  return queued.slice(from).map((q) => byId.get(q.messageId)!);
}

const noticesOf = (userId: number) =>
  s.deps.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, userId), like(notifications.type, "booking.%")))
    .orderBy(asc(notifications.id));

function post(path: string, fields: Record<string, string>, cookie: string) {
  return fetch(`${s.url}${path}`, {
    method: "POST",
    redirect: "manual",
    headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: s.url, Cookie: cookie },
    body: new URLSearchParams(fields).toString(),
  });
}
const csrfOf = (html: string) => /name="csrf" value="([0-9a-f]+)"/.exec(html)![1]!;
const cookieOf = (r: Response) => (r.headers.get("set-cookie") ?? "").split(";")[0]!;
/** The path of the first link in a mail's text that starts with the service's public URL. */
const linkIn = (text: string, prefix: string) =>
  new URL(new RegExp(`${prefix.replace(/[.?]/g, "\\$&")}\\S*`).exec(text)![0]).pathname;
const icsOf = (m: Awaited<ReturnType<typeof deliver>>[number]) => {
  const a = m.p.attachments.find((x) => x.filename === "invite.ics")!;
  // mailparser keeps only the media type; the parameters are read from the raw part header.
  const header = /Content-Type: (text\/calendar[^\r\n]*)/.exec(m.raw)?.[1] ?? a.contentType;
  return { type: header, text: a.content.toString("utf8").replace(/\r\n /g, "") };
};

describe("booking emails and notices", () => {
  test("a visitor books, moves and cancels from the links in their emails: one UID, SEQUENCE 0/1/2, REQUEST then CANCEL; the host is told each time", async () => {
    const from = (await s.deps.db.select().from(mailOutbox)).length;
    const start = "2030-03-05T09:00:00.000Z";
    const formPage = await fetch(`${s.url}/b/${slug}/book?start=${encodeURIComponent(start)}&tz=Europe/Berlin`);
    const cookie = cookieOf(formPage);
    const made = await post(
      `/b/${slug}/book`,
      {
        start,
        tz: "Europe/Berlin",
        duration: "30",
        csrf: csrfOf(await formPage.text()),
        name: "Ada Visitor",
        email: "Ada@Example.com",
      },
      cookie,
    );
    expect(made.status).toBe(303);
    const uid = /booking\/([0-9a-f]{32})/.exec(made.headers.get("location")!)![1]!;

    const [confirmation] = await deliver(from, 1);
    expect(confirmation!.to).toEqual(["ada@example.com"]);
    expect(confirmation!.p.subject).toBe("Confirmed: Intro call on Tuesday, 5 March 2030, 10:00 (CET)");
    expect(confirmation!.p.replyTo?.text).toContain(`owner`);
    const text = confirmation!.p.text!;
    expect(text).toContain("Hello Ada Visitor,");
    expect(text).toContain("With: Olivia Owner");
    expect(text).toContain(`Reschedule or cancel: ${s.config.publicUrl}/b/${slug}/booking/${uid}`);
    const invite = icsOf(confirmation!);
    expect(invite.type).toBe("text/calendar; charset=utf-8; method=REQUEST; name=invite.ics");
    expect(invite.text).toContain("METHOD:REQUEST");
    expect(invite.text).toContain(`UID:${uid}@localhost`);
    expect(invite.text).toContain("SEQUENCE:0");
    expect(invite.text).toContain("DTSTART:20300305T090000Z");
    expect(invite.text).toContain("STATUS:CONFIRMED");
    expect((await noticesOf(w.ownerUserId)).map((n) => [n.type, n.title, n.body])).toEqual([
      [
        "booking.created",
        "New booking: Intro call with Ada Visitor",
        "Tuesday, 5 March 2030, 09:00 (UTC), 30 min. Ada Visitor <ada@example.com>.",
      ],
    ]);

    // The email's link is the attendee's page, which offers to reschedule.
    const manage = await fetch(`${s.url}${linkIn(text, `${s.config.publicUrl}/b/`)}`);
    expect(manage.status).toBe(200);
    const manageHtml = await manage.text();
    const move = /href="([^"]*reschedule=[^"]+)"/.exec(manageHtml)![1]!.replaceAll("&amp;", "&");
    const listing = await (await fetch(`${s.url}${move}&week=2030-03-05`)).text();
    const to = "2030-03-05T14:00:00.000Z";
    expect(listing).toContain(`start=${encodeURIComponent(to)}`);
    const moveForm = await fetch(
      `${s.url}/b/${slug}/book?start=${encodeURIComponent(to)}&tz=Europe/Berlin&duration=30&reschedule=${uid}`,
    );
    const moved = await post(
      `/b/${slug}/book`,
      { start: to, tz: "Europe/Berlin", duration: "30", reschedule: uid, csrf: csrfOf(await moveForm.text()) },
      cookieOf(moveForm),
    );
    expect(moved.status).toBe(303);
    const [rescheduled] = await deliver(from + 1, 1);
    expect(rescheduled!.p.subject).toBe("Rescheduled: Intro call, now on Tuesday, 5 March 2030, 15:00 (CET)");
    expect(rescheduled!.p.text).toContain("Was: Tuesday, 5 March 2030, 10:00 (CET)");
    const second = icsOf(rescheduled!).text;
    expect(second).toContain(`UID:${uid}@localhost`);
    expect(second).toContain("SEQUENCE:1");
    expect(second).toContain("DTSTART:20300305T140000Z");
    // One thread per booking in the attendee's mail client.
    expect(rescheduled!.raw).toContain(`References: <booking-${uid}@localhost>`);

    // Cancel from the page the email links to.
    const page2 = await fetch(`${s.url}${linkIn(rescheduled!.p.text!, `${s.config.publicUrl}/b/`)}`);
    const cancelled = await post(
      `/b/${slug}/booking/${uid}/cancel`,
      { csrf: csrfOf(await page2.text()), reason: "Found another date" },
      cookieOf(page2),
    );
    expect(cancelled.status).toBe(303);
    const [cancelMail] = await deliver(from + 2, 1);
    expect(cancelMail!.p.subject).toBe("Cancelled: Intro call on Tuesday, 5 March 2030, 15:00 (CET)");
    expect(cancelMail!.p.text).toContain("Your booking is cancelled. Reason: Found another date");
    expect(cancelMail!.p.text).toContain(`Book another time: ${s.config.publicUrl}/b/${slug}`);
    const third = icsOf(cancelMail!);
    expect(third.type).toBe("text/calendar; charset=utf-8; method=CANCEL; name=invite.ics");
    expect(third.text).toContain("METHOD:CANCEL");
    expect(third.text).toContain(`UID:${uid}@localhost`);
    expect(third.text).toContain("SEQUENCE:2");
    expect(third.text).toContain("STATUS:CANCELLED");
    expect((await noticesOf(w.ownerUserId)).map((n) => n.title)).toEqual([
      "New booking: Intro call with Ada Visitor",
      "Rescheduled: Intro call with Ada Visitor",
      "Cancelled: Intro call with Ada Visitor",
    ]);
    expect((await noticesOf(w.ownerUserId))[2]!.body).toBe(
      "Was Tuesday, 5 March 2030, 14:00 (UTC). Cancelled by Ada Visitor: Found another date",
    );
    expect(await s.deps.db.select().from(mailOutbox)).toHaveLength(from + 3);
  });

  test("an agent books and cancels over MCP: the attendee is emailed each time; the host whose agent acted is not notified, a colleague's cancellation is", async () => {
    const from = (await s.deps.db.select().from(mailOutbox)).length;
    const before = (await noticesOf(w.ownerUserId)).length;
    const b = await w.ok(w.owner, "bookings_create", {
      pageSlug: slug,
      startsAt: "2030-03-06T10:00:00Z",
      name: "Bo <script>",
      email: "bo@example.test",
    });
    const [made] = await deliver(from, 1);
    expect(made!.p.subject).toBe("Confirmed: Intro call on Wednesday, 6 March 2030, 10:00 (UTC)");
    expect(made!.p.text).toContain("Hello Bo <script>,");
    // Plain text only: nothing a visitor or agent wrote is ever rendered as HTML.
    expect(made!.p.html).toBe(false);
    expect((await noticesOf(w.ownerUserId)).length).toBe(before);
    await w.ok(w.owner, "bookings_reschedule", { id: b.id, startsAt: "2030-03-06T11:00:00Z" });
    await w.ok(w.colleague, "bookings_cancel", { id: b.id, reason: "Host is ill" });
    const [moved, gone] = await deliver(from + 1, 2);
    expect(moved!.p.text).toContain("Your booking was moved by the host.");
    expect(icsOf(moved!).text).toContain("SEQUENCE:1");
    expect(gone!.p.text).toContain("The host cancelled this booking. Reason: Host is ill");
    expect(icsOf(gone!).text).toContain("SEQUENCE:2");
    expect((await noticesOf(w.ownerUserId)).slice(before).map((n) => [n.title, n.actorUserId])).toEqual([
      ["Cancelled: Intro call with Bo <script>", colleagueId],
    ]);
  });

  test("a page that needs confirmation: requested (TENTATIVE), then confirmed by the host", async () => {
    const pending = await live({ title: "Strategy session", minNotice: 0, requiresConfirmation: true });
    const from = (await s.deps.db.select().from(mailOutbox)).length;
    const b = await w.ok(w.colleague, "bookings_create", {
      pageSlug: pending,
      startsAt: "2030-03-07T10:00:00Z",
      name: "Cy",
      email: "cy@example.test",
    });
    expect(b.status).toBe("pending");
    await w.ok(w.colleague, "bookings_confirm", { id: b.id });
    const [asked, confirmed] = await deliver(from, 2);
    expect(asked!.p.subject).toStartWith("Requested: Strategy session on Thursday, 7 March 2030");
    expect(icsOf(asked!).text).toContain("STATUS:TENTATIVE");
    expect(confirmed!.p.subject).toStartWith("Confirmed: Strategy session");
    expect(icsOf(confirmed!).text).toContain("STATUS:CONFIRMED");
    expect((await noticesOf(w.ownerUserId)).at(-1)!.title).toBe("Booking request: Strategy session with Cy");
  });
});

describe("reminders", () => {
  test("a page's reminders are its own setting: read back, bounded, shown for approval", async () => {
    const p = await w.ok(w.owner, "booking_pages_create", { title: "Bounded", reminders: [2880, 30] });
    expect((await w.ok(w.owner, "booking_pages_get", { id: p.id })).reminders).toEqual([2880, 30]);
    expect(await w.err(w.owner, "booking_pages_create", { title: "Too soon", reminders: [2] })).toContain(
      "must be 5 to 20160",
    );
    expect(await w.err(w.owner, "booking_pages_create", { title: "Too many", reminders: [10, 20, 30, 40] })).toContain(
      "at most 3 reminders",
    );
    const html = await (await fetch(w.local(p.approval.url))).text();
    expect(html).toContain("Reminder emails");
    expect(html).toContain("<dt>Reminder emails</dt><dd>48 h and 30 min before the start</dd>");
  });

  test("once per booking and offset, at the exact instant; catch-up sends the nearest only; none for cancelled, started or too-late ones; a moved booking is reminded of its new time", async () => {
    clock.set(T0);
    const quick = await live({ title: "Quick chat", minNotice: 0, reminders: [120] });
    const silent = await live({ title: "Silent chat", minNotice: 0, reminders: [] });
    const mk = async (page: string, startsAt: string, email: string) =>
      (await w.ok(w.owner, "bookings_create", { pageSlug: page, startsAt, name: "R", email })).id as number;
    const A = await mk(slug, "2030-03-05T10:00:00Z", "a@r.test"); // 24 h at Mon 10:00, 1 h at Tue 09:00
    const C = await mk(slug, "2030-03-05T11:00:00Z", "c@r.test");
    await w.ok(w.owner, "bookings_cancel", { id: C });
    const L = await mk(slug, "2030-03-04T16:00:00Z", "l@r.test"); // made 8 h before: no 24 h reminder
    const P = await mk(quick, "2030-03-05T13:00:00Z", "p@r.test"); // 2 h at Tue 11:00
    const Z = await mk(silent, "2030-03-05T14:00:00Z", "z@r.test");
    const R = await mk(slug, "2030-03-06T12:00:00Z", "r@r.test"); // 24 h at Tue 12:00, then moved
    const K = await mk(slug, "2030-03-07T12:00:00Z", "k@r.test"); // 24 h Wed 12:00, 1 h Thu 11:00: the server is "down" over both
    const rows = async () =>
      (await s.deps.db.select().from(bookingReminders).orderBy(asc(bookingReminders.id))).map((r) => [
        r.bookingId,
        r.offsetMin,
        r.startsAt.toISOString(),
        r.state,
      ]);
    const at = async (ms: number) => {
      clock.set(ms);
      return await sendReminders(s.deps);
    };

    clock.set(Date.UTC(2030, 2, 4, 9, 59, 59, 999));
    await s.jobs.runDue();
    expect(await rows()).toEqual([]);
    expect(await at(Date.UTC(2030, 2, 4, 10))).toBe(1);
    expect(await rows()).toEqual([[A, 1440, "2030-03-05T10:00:00.000Z", "sent"]]);
    expect(await sendReminders(s.deps)).toBe(0);
    expect(await at(Date.UTC(2030, 2, 4, 14, 59, 59, 999))).toBe(0);
    expect(await at(Date.UTC(2030, 2, 4, 15))).toBe(1);
    expect((await rows()).at(-1)).toEqual([L, 60, "2030-03-04T16:00:00.000Z", "sent"]);
    expect(await at(Date.UTC(2030, 2, 5, 8, 59, 59, 999))).toBe(0);
    expect(await at(Date.UTC(2030, 2, 5, 9))).toBe(1);
    expect((await rows()).at(-1)).toEqual([A, 60, "2030-03-05T10:00:00.000Z", "sent"]);
    expect(await at(Date.UTC(2030, 2, 5, 10, 59, 59, 999))).toBe(0);
    expect(await at(Date.UTC(2030, 2, 5, 11))).toBe(1);
    expect((await rows()).at(-1)).toEqual([P, 120, "2030-03-05T13:00:00.000Z", "sent"]);
    expect(await at(Date.UTC(2030, 2, 5, 12))).toBe(1);
    expect((await rows()).at(-1)).toEqual([R, 1440, "2030-03-06T12:00:00.000Z", "sent"]);
    // Moved at 12:30 to Wed 15:00: its 24 h reminder for the new time falls at Tue 15:00.
    clock.set(Date.UTC(2030, 2, 5, 12, 30));
    await w.ok(w.owner, "bookings_reschedule", { id: R, startsAt: "2030-03-06T15:00:00Z" });
    expect(await at(Date.UTC(2030, 2, 5, 14, 59, 59, 999))).toBe(0);
    expect(await at(Date.UTC(2030, 2, 5, 15))).toBe(1);
    expect((await rows()).at(-1)).toEqual([R, 1440, "2030-03-06T15:00:00.000Z", "sent"]);
    // Down from Tuesday 15:00 to Thursday 11:30: K's 24 h and 1 h are both due; only the 1 h is sent. R has started: nothing.
    clock.set(Date.UTC(2030, 2, 7, 11, 30));
    await s.jobs.runDue();
    expect((await rows()).slice(-2)).toEqual([
      [K, 1440, "2030-03-07T12:00:00.000Z", "skipped"],
      [K, 60, "2030-03-07T12:00:00.000Z", "sent"],
    ]);
    expect(await at(Date.UTC(2030, 2, 8, 12))).toBe(0);
    const all = await rows();
    expect(all).toHaveLength(8);
    for (const none of [C, Z]) expect(all.some((r) => r[0] === none)).toBe(false);
    // Exactly the sent rows became emails, each once.
    const mails = await s.deps.db
      .select()
      .from(mailOutbox)
      .where(eq(mailOutbox.tag, "booking.reminder"))
      .orderBy(asc(mailOutbox.id));
    expect(mails.map((m) => m.to[0])).toEqual([
      "a@r.test",
      "l@r.test",
      "a@r.test",
      "p@r.test",
      "r@r.test",
      "r@r.test",
      "k@r.test",
    ]);
    expect(mails[0]!.subject).toBe("Reminder: Intro call in 24 h, Tuesday, 5 March 2030, 10:00 (UTC)");
    const uidA = (await s.deps.db.select({ uid: bookings.uid }).from(bookings).where(eq(bookings.id, A)))[0]!.uid;
    expect(mails[0]!.text).toContain(`Reschedule or cancel: ${s.config.publicUrl}/b/${slug}/booking/${uidA}`);
    // No second invite: the calendar already has the meeting.
    expect(mails[0]!.attachments ?? []).toEqual([]);
    // Over SMTP like every other message.
    await sendDueMail(s.deps);
    const subject = "Subject: Reminder: Quick chat in 2 h, Tuesday, 5 March 2030, 13:00";
    for (const until = Date.now() + 10_000; Date.now() < until && !smtp.messages.some((m) => m.raw.includes(subject)); )
      await Bun.sleep(20);
    expect(smtp.messages.filter((m) => m.raw.includes(subject)).map((m) => m.envelope.to)).toEqual([["p@r.test"]]);
  });
});
