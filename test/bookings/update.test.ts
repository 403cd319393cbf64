/**
 * bookings_update over the real wire (interface.md 5.3: bookings:write
 * names updating bookings): a member corrects the attendee's name, email,
 * phone and answers, keeps private notes, and hands a round-robin booking
 * to another host of the page who is free then. The attendee gets an
 * updated invite (same UID, SEQUENCE + 1) at their current address, the
 * new and the former host are notified, notes reach no one. Refusals say
 * what is wrong; another company's booking is not found and stays as it
 * was; a viewer and a read-only key cannot change anything.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Client } from "@modelcontextprotocol/client";
import { and, asc, eq, gt, like } from "drizzle-orm";
import { ManualClock } from "../../src/core/clock";
import { auditLog, mailOutbox } from "../../src/core/tables";
import { bookingHosts, bookings } from "../../src/domains/bookings/tables";
import { notifications } from "../../src/domains/notifications/tables";
import { addMember, createUser, mcpClient, mintMcpKey, rawMcp } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

const T0 = Date.UTC(2030, 2, 4, 8, 0, 0); // Monday 4 March 2030, 08:00Z
const clock = new ManualClock(T0);
let s: TestServer;
let w: World;
let agent: Client;
let agentUserId: number;
let colleagueId: number;
let slug: string;
const week = ["09:00-17:00"];

beforeAll(async () => {
  s = await startTestServer({ seed: false, clock, config: { mcpRateLimit: 100_000 } });
  // Events run when the test drains them, so "nothing was sent" is an observation, not a race.
  await s.dispatcher.stop();
  await s.jobs.stop();
  w = await makeWorld(s);
  colleagueId = (await w.ok(w.colleague, "whoami", {})).userId;
  // The agent acts as an admin who hosts nothing, so both hosts hear of what it does (no one is told of their own act).
  const ana = await createUser(s.deps, { email: "ana@cms.test", name: "Ana Admin" });
  agentUserId = ana.id;
  await addMember(s.deps, w.A.id, ana.id, "admin");
  agent = await mcpClient(
    s.url,
    (await mintMcpKey(s.deps, { userId: ana.id, scopes: ["bookings:*"], companyIds: [w.A.id] })).key,
  );
  for (const member of [w.ownerUserId, colleagueId])
    await w.ok(w.owner, "booking_schedules_set", {
      member,
      timeZone: "UTC",
      weeklyHours: { mon: week, tue: week, wed: week, thu: week, fri: week },
    });
  const p = await w.ok(w.owner, "booking_pages_create", {
    title: "Support call",
    minNotice: 0,
    hostMode: "round_robin",
    hosts: [w.ownerUserId, colleagueId],
    location: "phone",
    questions: [
      { id: "phone", label: "Phone", type: "phone", required: true },
      { id: "topic", label: "Topic", type: "short_text" },
    ],
  });
  await w.ok(w.colleague, "approvals_approve", { id: p.approval.id });
  slug = p.slug;
}, 30_000);
afterAll(async () => {
  await agent?.close();
  await s?.stop();
});

const book = (startsAt: string, name = "Ada Visitor", email = "ada@example.com") =>
  w.ok(w.owner, "bookings_create", {
    pageSlug: slug,
    startsAt,
    name,
    email,
    answers: { phone: "+49 30 1111111", topic: "Billing" },
  });

async function mailCount() {
  return (await s.deps.db.select({ id: mailOutbox.id }).from(mailOutbox)).length;
}
/** Delivers pending events; returns the mails queued after the first `from`. */
async function deliverFrom(from: number) {
  await s.dispatcher.drain();
  const rows = await s.deps.db.select().from(mailOutbox).orderBy(asc(mailOutbox.id));
  return rows.slice(from);
}
async function noticesSince(id: number) {
  await s.dispatcher.drain();
  return await s.deps.db
    .select({
      userId: notifications.userId,
      type: notifications.type,
      title: notifications.title,
      body: notifications.body,
    })
    .from(notifications)
    .where(and(gt(notifications.id, id), like(notifications.type, "booking.%")))
    .orderBy(asc(notifications.id));
}
async function lastNoticeId() {
  await s.dispatcher.drain();
  const all = await s.deps.db.select({ id: notifications.id }).from(notifications);
  return all.reduce((m, n) => Math.max(m, n.id), 0);
}
const inviteOf = (m: { attachments: { filename: string; content: string }[] | null }) =>
  m.attachments!.find((a) => a.filename === "invite.ics")!.content.replace(/\r\n /g, "");

describe("bookings_update: attendee details and notes", () => {
  test("name, email, phone and an answer change; the attendee gets the updated invite at the new address", async () => {
    const b = await book("2030-03-05T10:00:00.000Z");
    expect(b.hostUserIds).toEqual([w.ownerUserId]);
    const mails = await mailCount();
    await deliverFrom(mails);
    const notices = await lastNoticeId();
    const from = await mailCount();

    const r = await w.ok(agent, "bookings_update", {
      id: b.id,
      name: "Ada Lovelace",
      email: "Ada.Lovelace@Example.com",
      phone: "+44 20 7946 0000",
      answers: { topic: "Refund" },
      notes: "VIP: prefers mornings",
    });
    expect(r).toMatchObject({ id: b.id, uid: b.uid, status: "accepted", sequence: 1 });
    expect(r.changed).toEqual(["name", "email", "answers", "notes"]);
    const got = await w.ok(agent, "bookings_get", { id: b.id });
    expect(got.attendee).toEqual({ name: "Ada Lovelace", email: "ada.lovelace@example.com" });
    expect(got.answers).toEqual([
      { id: "phone", label: "Phone", value: "+44 20 7946 0000" },
      { id: "topic", label: "Topic", value: "Refund" },
    ]);
    // The call is placed on the attendee's number, so it follows the number.
    expect(got.location).toEqual({ kind: "phone", value: "+44 20 7946 0000" });
    expect(got.notes).toBe("VIP: prefers mornings");

    const sent = await deliverFrom(from);
    expect(sent.map((m) => [m.to, m.subject])).toEqual([
      [["ada.lovelace@example.com"], "Updated: Support call on Tuesday, 5 March 2030, 10:00 (UTC)"],
    ]);
    expect(sent[0]!.text).toContain("Hello Ada Lovelace,");
    expect(sent[0]!.text).toContain("The details of your booking were updated (name, email, answers).");
    expect(sent[0]!.text).not.toContain("VIP");
    const ics = inviteOf(sent[0]!);
    expect(ics).toContain(`UID:${b.uid}@`);
    expect(ics).toContain("SEQUENCE:1");
    expect(ics).toContain("METHOD:REQUEST");
    expect(ics.toLowerCase()).toContain("mailto:ada.lovelace@example.com");
    expect(await noticesSince(notices)).toEqual([
      {
        userId: w.ownerUserId,
        type: "booking.updated",
        title: "Updated: Support call with Ada Lovelace",
        body: "Tuesday, 5 March 2030, 10:00 (UTC), 30 min. Ada Lovelace <ada.lovelace@example.com>. Changed: name, email, answers, notes.",
      },
    ]);
    const audit = await s.deps.db
      .select({ action: auditLog.action, detail: auditLog.detail, userId: auditLog.userId })
      .from(auditLog)
      .where(and(eq(auditLog.entityType, "booking"), eq(auditLog.entityId, b.id)))
      .orderBy(asc(auditLog.id));
    expect(audit.at(-1)).toEqual({
      action: "bookings.update",
      detail: { fields: ["name", "email", "answers", "notes"] },
      userId: agentUserId,
    });
  });

  test("notes alone reach no one and leave the invite's SEQUENCE; the same values again change nothing", async () => {
    const b = await book("2030-03-05T11:00:00.000Z");
    await deliverFrom(0);
    const notices = await lastNoticeId();
    const from = await mailCount();
    const r = await w.ok(agent, "bookings_update", { uid: b.uid, notes: "Call from the office line" });
    expect(r).toMatchObject({ sequence: 0, changed: ["notes"] });
    expect(await deliverFrom(from)).toEqual([]);
    expect(await noticesSince(notices)).toEqual([]);
    const again = await w.ok(agent, "bookings_update", {
      uid: b.uid,
      name: "Ada Visitor",
      notes: "Call from the office line",
    });
    expect(again).toMatchObject({ sequence: 0, changed: [] });
    // null clears notes.
    expect((await w.ok(agent, "bookings_update", { id: b.id, notes: null })).changed).toEqual(["notes"]);
    expect((await w.ok(agent, "bookings_get", { id: b.id })).notes).toBeNull();
  });
});

describe("bookings_update: host", () => {
  test("hands a booking to another host of the page who is free; both hosts and the attendee are told", async () => {
    const b = await book("2030-03-06T09:00:00.000Z");
    const owner = b.hostUserIds[0];
    const other = owner === w.ownerUserId ? colleagueId : w.ownerUserId;
    await deliverFrom(0);
    const notices = await lastNoticeId();
    const from = await mailCount();
    const r = await w.ok(agent, "bookings_update", { id: b.id, host: other });
    expect(r).toMatchObject({ hostUserIds: [other], sequence: 1, changed: ["host"] });
    const rows = await s.deps.db
      .select({ userId: bookingHosts.userId, active: bookingHosts.active })
      .from(bookingHosts)
      .where(eq(bookingHosts.bookingId, b.id));
    expect(rows).toEqual([{ userId: other, active: true }]);
    const listed = await w.ok(agent, "bookings_list", { host: other, from: "2030-03-06T00:00:00Z" });
    expect(listed.items.map((x: { id: number }) => x.id)).toContain(b.id);

    const [mail] = await deliverFrom(from);
    expect(mail!.subject).toBe("Updated: Support call on Wednesday, 6 March 2030, 09:00 (UTC)");
    const name = other === colleagueId ? "Cory Colleague" : "Olivia Owner";
    expect(mail!.text).toContain(`Your booking is now with ${name}.`);
    expect(mail!.text).toContain(`With: ${name}`);
    expect(inviteOf(mail!)).toContain("SEQUENCE:1");
    const told = await noticesSince(notices);
    expect(told.map((n) => [n.userId, n.title])).toEqual([
      [owner, "Handed over: Support call with Ada Visitor"],
      [other, "Handed to you: Support call with Ada Visitor"],
    ]);
    expect(told[0]!.body).toBe(`Wednesday, 6 March 2030, 09:00 (UTC) is now with ${name}; it is off your calendar.`);
    // The host the booking left is free at that time again: a new booking there goes to them.
    expect((await book("2030-03-06T09:00:00.000Z", "Bo Other", "bo@example.com")).hostUserIds).toEqual([owner]);
  });

  test("a host who is busy then, off work then, or not a host of the page is refused, and nothing changes", async () => {
    const first = await book("2030-03-07T09:00:00.000Z");
    const second = await book("2030-03-07T09:00:00.000Z", "Bo Other", "bo@example.com");
    expect(second.hostUserIds).not.toEqual(first.hostUserIds);
    const before = await s.deps.db.select().from(bookings).where(eq(bookings.id, first.id));
    const busy = await w.err(agent, "bookings_update", { id: first.id, host: second.hostUserIds[0] });
    expect(busy).toContain("is not free at 2030-03-07T09:00:00.000Z");
    // Off work: that day the other host works 09:00-12:00 only.
    const late = await book("2030-03-08T16:00:00.000Z");
    const otherHost = late.hostUserIds[0] === w.ownerUserId ? colleagueId : w.ownerUserId;
    await w.ok(w.owner, "booking_overrides_set", { member: otherHost, date: "2030-03-08", hours: ["09:00-12:00"] });
    expect(await w.err(agent, "bookings_update", { id: late.id, host: otherHost })).toContain("is not free at");
    // Not a host of the page, and not a member at all.
    expect(await w.err(agent, "bookings_update", { id: first.id, host: "ana@cms.test" })).toContain(
      'Ana Admin is not a host of page "Support call"',
    );
    expect(await w.err(agent, "bookings_update", { id: first.id, host: "stranger1@cms.test" })).toContain(
      "is not a member of",
    );
    expect(await s.deps.db.select().from(bookings).where(eq(bookings.id, first.id))).toEqual(before);
    // Naming the host it already has is not a change.
    expect((await w.ok(agent, "bookings_update", { id: first.id, host: first.hostUserIds[0] })).changed).toEqual([]);
  });
});

describe("bookings_update: refusals", () => {
  test("bad input says what is wrong", async () => {
    const b = await book("2030-03-11T09:00:00.000Z");
    expect(await w.err(agent, "bookings_update", { id: b.id })).toContain("Give at least one of name, email");
    expect(await w.err(agent, "bookings_update", { id: b.id, email: "not an email" })).toContain(
      "email must be an email address",
    );
    expect(await w.err(agent, "bookings_update", { id: b.id, answers: { shoe_size: "42" } })).toContain(
      "answers.shoe_size is not a question of this page",
    );
    expect(await w.err(agent, "bookings_update", { id: b.id, answers: { phone: null } })).toContain(
      'answers.phone is required: "Phone"',
    );
    expect(await w.err(agent, "bookings_update", { id: b.id, phone: "call me" })).toContain("phone number");
    expect(
      await w.err(agent, "bookings_update", { id: b.id, phone: "+1 555 0100", answers: { phone: "+1" } }),
    ).toContain("Give the phone number once");
    expect(await w.err(agent, "bookings_update", { id: b.id, uid: b.uid, notes: "x" })).toContain(
      "Give exactly one of id or uid",
    );
    expect(await w.err(agent, "bookings_update", { id: 99_999, notes: "x" })).toContain("Booking 99999 not found");
  });

  test("a cancelled booking keeps its attendee and host but takes notes; a past one cannot change host", async () => {
    const b = await book("2030-03-11T10:00:00.000Z");
    await w.ok(agent, "bookings_cancel", { id: b.id });
    expect(await w.err(agent, "bookings_update", { id: b.id, name: "Someone" })).toContain(
      "This booking is cancelled; only a pending or accepted booking's attendee details and host can be changed",
    );
    expect((await w.ok(agent, "bookings_update", { id: b.id, notes: "Rebooked by phone" })).changed).toEqual(["notes"]);
    const soon = await book("2030-03-11T11:00:00.000Z");
    clock.set(Date.UTC(2030, 2, 11, 11, 10));
    const other = soon.hostUserIds[0] === w.ownerUserId ? colleagueId : w.ownerUserId;
    expect(await w.err(agent, "bookings_update", { id: soon.id, host: other })).toContain("has already started");
    clock.set(Date.UTC(2030, 2, 11, 12, 0));
    expect(await w.err(agent, "bookings_update", { id: soon.id, name: "Late" })).toContain("This booking is over");
    expect((await w.ok(agent, "bookings_update", { id: soon.id, notes: "Went well" })).changed).toEqual(["notes"]);
    clock.set(T0);
  });

  test("another company's booking is not found and stays as it was; a viewer and a read-only key change nothing", async () => {
    const b = await book("2030-03-12T09:00:00.000Z");
    const before = await s.deps.db.select().from(bookings).where(eq(bookings.id, b.id));
    for (const ref of [{ id: b.id }, { uid: b.uid }])
      expect(await w.err(w.stranger, "bookings_update", { ...ref, name: "Mallory", notes: "mine" })).toContain(
        "not found",
      );
    const viewer = await w.err(w.viewer, "bookings_update", { id: b.id, notes: "peek" });
    expect(viewer.toLowerCase()).toContain("viewer");
    const key = (await mintMcpKey(s.deps, { userId: w.ownerUserId, scopes: ["bookings:read"], companyIds: [w.A.id] }))
      .key;
    const reader = await mcpClient(s.url, key);
    expect((await reader.listTools()).tools.some((t) => t.name === "bookings_update")).toBe(false);
    await reader.close();
    const r = await rawMcp(s.url, key, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "bookings_update", arguments: { id: b.id, notes: "x" } },
    });
    expect((await r.json()).error.message).toStartWith("bookings_update needs the bookings:write scope");
    expect(await s.deps.db.select().from(bookings).where(eq(bookings.id, b.id))).toEqual(before);
  });
});
