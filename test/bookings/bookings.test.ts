/**
 * Bookings through their tools on this run's engine: booking, the refusals
 * (past, notice, off-grid, forged answers, taken), reschedule with a stable
 * invite UID and rising SEQUENCE, cancel with reason and cutoffs,
 * confirm/decline, no-show, the expiry job, round-robin assignment, limits
 * at booking time, events carrying what an email needs, and 20 concurrent
 * bookings of one slot giving exactly one.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import ICAL from "ical.js";
import { eq } from "drizzle-orm";
import { auditLog } from "../../src/core/tables";
import { book } from "../../src/domains/bookings/bookings";
import { expireUnconfirmed } from "../jobs";
import { bookingHosts, bookings } from "../../src/domains/bookings/tables";
import { bookingsDomain } from "../../src/domains/bookings/tools";
import { JobRunner } from "../../src/core/jobs";
import { errorOf } from "../store/world";
import { makeWorld, type World } from "./world";

let w: World;
beforeEach(async () => {
  w = await makeWorld();
  for (const m of [w.ownerId, w.berlinId, w.nyId])
    await w.tool("booking_schedules_set", {
      member: m,
      timeZone: "UTC",
      weeklyHours: {
        mon: ["09:00-17:00"],
        tue: ["09:00-17:00"],
        wed: ["09:00-17:00"],
        thu: ["09:00-17:00"],
        fri: ["09:00-17:00"],
      },
    });
});
afterEach(() => w.close());

const ada = { name: "Ada Lovelace", email: "Ada@Example.test" };

function parseIcs(text: string) {
  const cal = new ICAL.Component(ICAL.parse(text));
  const ev = cal.getFirstSubcomponent("vevent")!;
  return {
    method: cal.getFirstPropertyValue("method"),
    uid: ev.getFirstPropertyValue("uid"),
    sequence: ev.getFirstPropertyValue("sequence"),
    status: ev.getFirstPropertyValue("status"),
    start: (ev.getFirstPropertyValue("dtstart") as ICAL.Time).toJSDate().toISOString(),
    end: (ev.getFirstPropertyValue("dtend") as ICAL.Time).toJSDate().toISOString(),
    organizer: String(ev.getFirstPropertyValue("organizer")).replace(/^mailto:/i, "mailto:"),
    // The URI scheme is case-insensitive (RFC 3986); ical-generator writes MAILTO for attendees.
    attendees: ev.getAllProperties("attendee").map((p) => String(p.getFirstValue()).replace(/^mailto:/i, "mailto:")),
    summary: ev.getFirstPropertyValue("summary"),
  };
}

describe("booking", () => {
  test("a free time is booked for the attendee; the event carries what the confirmation email needs; the invite is RFC 5545", async () => {
    const p = await w.livePage({
      title: "Intro call",
      minNotice: 60,
      location: "video",
      where: "https://meet.example.test/abc",
      questions: [{ id: "company", label: "Company", type: "short_text", required: true }],
    });
    const r = await w.tool("bookings_create", {
      pageSlug: p.slug,
      startsAt: "2030-03-04T10:00:00Z",
      ...ada,
      timeZone: "Europe/Berlin",
      answers: { company: "Analytical Engines" },
    });
    expect(r).toMatchObject({
      status: "accepted",
      startsAt: "2030-03-04T10:00:00.000Z",
      endsAt: "2030-03-04T10:30:00.000Z",
      hostUserIds: [w.ownerId],
    });
    expect(r.uid).toMatch(/^[0-9a-f]{32}$/);
    const got = await w.tool("bookings_get", { uid: r.uid, include: ["ics"] });
    expect(got).toMatchObject({
      attendee: { name: "Ada Lovelace", email: "ada@example.test" },
      timeZone: "Europe/Berlin",
      answers: [{ id: "company", label: "Company", value: "Analytical Engines" }],
      location: { kind: "video", value: "https://meet.example.test/abc" },
      sequence: 0,
    });
    const ics = parseIcs(got.ics);
    expect(ics).toMatchObject({
      method: "REQUEST",
      uid: `${r.uid}@127.0.0.1`,
      sequence: 0,
      status: "CONFIRMED",
      start: "2030-03-04T10:00:00.000Z",
      end: "2030-03-04T10:30:00.000Z",
      summary: "Intro call",
    });
    expect(got.ics).toContain("DTSTART:20300304T100000Z");
    expect(ics.organizer).toBe("mailto:owner@example.test");
    expect(ics.attendees).toEqual(["mailto:ada@example.test"]);
    const [ev] = await w.events("booking.created");
    expect(ev!.data).toMatchObject({
      uid: r.uid,
      pageSlug: "intro-call",
      status: "accepted",
      startsAt: "2030-03-04T10:00:00.000Z",
      timeZone: "Europe/Berlin",
      attendee: { name: "Ada Lovelace", email: "ada@example.test" },
      hosts: [{ userId: w.ownerId, name: "Owner", email: "owner@example.test" }],
      inviteMethod: "REQUEST",
      sequence: 0,
      manageUrl: `http://127.0.0.1:8787/b/intro-call/booking/${r.uid}`,
      icsUrl: `http://127.0.0.1:8787/b/intro-call/booking/${r.uid}/invite.ics`,
      requiresConfirmation: false,
      source: "mcp",
    });
    const audits = await w.deps.db.select().from(auditLog).where(eq(auditLog.action, "bookings.create"));
    expect(audits).toHaveLength(1);
    // The slot is gone from the free times.
    const free = await w.tool("booking_availability_get", {
      pageId: p.id,
      from: "2030-03-04T09:00:00Z",
      to: "2030-03-04T12:00:00Z",
    });
    expect(free.slots.map((s: any) => s.startsAt)).not.toContain("2030-03-04T10:00:00.000Z");
  });

  test("refused: past, inside minimum notice, off the grid, outside hours, beyond the window, a wrong length — with messages to act on", async () => {
    const p = await w.livePage({ title: "Call", minNotice: 120, maxAdvanceDays: 30, durations: [30] });
    const at = (startsAt: string, extra: Record<string, unknown> = {}) =>
      errorOf(() => w.tool("bookings_create", { pageId: p.id, startsAt, ...ada, ...extra }));
    expect(await at("2030-03-01T10:00:00Z")).toMatchObject({
      code: "validation",
      message: "That time is in the past; pick a time from the page's free slots.",
    });
    expect((await at("2030-03-04T09:30:00Z")).message).toContain("120 minutes' notice");
    expect((await at("2030-03-04T10:07:00Z")).code).toBe("conflict");
    expect((await at("2030-03-04T10:00:30Z")).code).toBe("conflict");
    expect((await at("2030-03-04T20:00:00Z")).code).toBe("conflict");
    expect((await at("2030-03-09T10:00:00Z")).code).toBe("conflict"); // a Saturday
    expect((await at("2030-04-15T10:00:00Z")).message).toContain("up to 30 days ahead");
    expect((await at("2030-03-04T11:00:00Z", { durationMin: 45 })).message).toContain("durationMin must be one of 30");
    expect(await w.deps.db.select().from(bookings)).toEqual([]);
  });

  test("hostile answers: forged question ids and wrong types refused; script stored as text, never markup", async () => {
    const p = await w.livePage({
      title: "Call",
      minNotice: 0,
      questions: [
        { id: "notes", label: "Notes", type: "long_text" },
        { id: "size", label: "Size", type: "select", options: ["1-10", "11+"] },
      ],
    });
    const bad = (answers: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
      errorOf(() =>
        w.tool("bookings_create", { pageId: p.id, startsAt: "2030-03-04T10:00:00Z", ...ada, answers, ...extra }),
      );
    expect((await bad({ admin: "yes" })).message).toContain(
      "answers.admin is not a question of this page (questions: notes, size)",
    );
    expect((await bad({ size: "9000" })).message).toContain("answers.size must be one of: 1-10, 11+");
    expect((await bad({ notes: "x".repeat(5001) })).message).toContain("at most 5000");
    expect((await bad({}, { email: "not-an-email" })).message).toContain("email must be an email address");
    expect((await bad({}, { name: "Ada\u0000" })).message).toContain("name must be 1 to 200 characters");
    const script = '<script>alert("x")</script><img src=x onerror=alert(1)>';
    const r = await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-04T10:00:00Z",
      name: script,
      email: "ada@example.test",
      answers: { notes: script },
    });
    const got = await w.tool("bookings_get", { id: r.id, include: ["ics"] });
    expect(got.attendee.name).toBe(script);
    expect(got.answers[0].value).toBe(script);
    expect(parseIcs(got.ics).attendees).toEqual(["mailto:ada@example.test"]);
  });

  test("a taken time is refused on MCP and on the public path alike; its neighbours stay bookable", async () => {
    const p = await w.livePage({ title: "Call", minNotice: 0, bufferAfter: 15 });
    await w.tool("bookings_create", { pageId: p.id, startsAt: "2030-03-04T10:00:00Z", ...ada });
    expect(
      await errorOf(() =>
        w.tool("bookings_create", {
          pageId: p.id,
          startsAt: "2030-03-04T10:00:00Z",
          name: "Bob",
          email: "bob@example.test",
        }),
      ),
    ).toMatchObject({ code: "conflict", message: "That time is no longer available; please pick another one." });
    // 10:30 would start inside the 15-minute buffer after 10:30; 11:00 is fine.
    expect(
      (
        await errorOf(() =>
          book({ deps: w.deps, companyId: w.companyId, ctx: null }, p.id, {
            startsAt: new Date("2030-03-04T10:30:00Z"),
            name: "Bob",
            email: "bob@example.test",
            source: "public",
          }),
        )
      ).code,
    ).toBe("conflict");
    const ok = await book({ deps: w.deps, companyId: w.companyId, ctx: null }, p.id, {
      startsAt: new Date("2030-03-04T11:00:00Z"),
      name: "Bob",
      email: "bob@example.test",
      source: "public",
    });
    expect(ok.source).toBe("public");
    // A visitor's booking is audited as the public page's, with no user.
    const a = (await w.deps.db.select().from(auditLog).where(eq(auditLog.entityId, ok.id))).find(
      (x) => x.action === "bookings.create",
    )!;
    expect(a).toMatchObject({ userId: null, credentialKind: "public_page" });
  });

  test("a page that is pending or paused takes no bookings", async () => {
    const pending = await w.tool("booking_pages_create", { title: "Soon", minNotice: 0 });
    expect(
      (await errorOf(() => w.tool("bookings_create", { pageId: pending.id, startsAt: "2030-03-04T10:00:00Z", ...ada })))
        .message,
    ).toContain("not live yet");
    const p = await w.livePage({ title: "Now", minNotice: 0 });
    await w.tool("booking_pages_update", { id: p.id, paused: true });
    expect(
      (await errorOf(() => w.tool("bookings_create", { pageId: p.id, startsAt: "2030-03-04T10:00:00Z", ...ada })))
        .message,
    ).toContain("paused");
  });

  test("20 concurrent bookings of one slot give exactly one booking; the others are told to pick another time", async () => {
    const p = await w.livePage({ title: "Hot slot", minNotice: 0 });
    const visitor = { deps: w.deps, companyId: w.companyId, ctx: null };
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, i) =>
        book(visitor, p.id, {
          startsAt: new Date("2030-03-04T10:00:00Z"),
          name: `Visitor ${i}`,
          email: `v${i}@example.test`,
          source: "public",
        }),
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    const lost = results.filter((r) => r.status === "rejected") as PromiseRejectedResult[];
    expect(won).toHaveLength(1);
    expect(lost).toHaveLength(19);
    for (const l of lost)
      expect(l.reason).toMatchObject({
        code: "conflict",
        message: "That time is no longer available; please pick another one.",
      });
    expect(await w.deps.db.select().from(bookings)).toHaveLength(1);
    expect(await w.deps.db.select().from(bookingHosts).where(eq(bookingHosts.active, true))).toHaveLength(1);
    expect(await w.events("booking.created")).toHaveLength(1);
  });

  test("overlapping bookings of two lengths, racing: one wins (the lock covers different starts, not only equal ones)", async () => {
    const p = await w.livePage({ title: "Two lengths", minNotice: 0, durations: [30, 60], slotInterval: 30 });
    const visitor = { deps: w.deps, companyId: w.companyId, ctx: null };
    const results = await Promise.allSettled([
      ...Array.from({ length: 5 }, (_, i) =>
        book(visitor, p.id, {
          startsAt: new Date("2030-03-04T10:00:00Z"),
          durationMin: 60,
          name: `A${i}`,
          email: `a${i}@example.test`,
          source: "public",
        }),
      ),
      ...Array.from({ length: 5 }, (_, i) =>
        book(visitor, p.id, {
          startsAt: new Date("2030-03-04T10:30:00Z"),
          durationMin: 30,
          name: `B${i}`,
          email: `b${i}@example.test`,
          source: "public",
        }),
      ),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
  });
});

describe("after booking", () => {
  async function booked(pageArgs: Record<string, unknown> = {}, startsAt = "2030-03-04T10:00:00Z") {
    const p = await w.livePage({ title: "Call", minNotice: 0, ...pageArgs });
    const r = await w.tool("bookings_create", { pageId: p.id, startsAt, ...ada });
    return { p, r };
  }

  test("reschedule keeps the uid, raises SEQUENCE, frees the old time and takes the new one", async () => {
    const { p, r } = await booked();
    const m = await w.tool("bookings_reschedule", { uid: r.uid, startsAt: "2030-03-05T14:00:00Z" });
    expect(m).toMatchObject({ id: r.id, uid: r.uid, startsAt: "2030-03-05T14:00:00.000Z", sequence: 1 });
    const got = await w.tool("bookings_get", { id: r.id, include: ["ics"] });
    expect(got.history).toEqual([
      {
        startsAt: "2030-03-04T10:00:00.000Z",
        endsAt: "2030-03-04T10:30:00.000Z",
        at: "2030-03-04T08:00:00.000Z",
        by: "host",
      },
    ]);
    expect(parseIcs(got.ics)).toMatchObject({
      method: "REQUEST",
      uid: `${r.uid}@127.0.0.1`,
      sequence: 1,
      start: "2030-03-05T14:00:00.000Z",
    });
    const ev = (await w.events("booking.rescheduled"))[0]!;
    expect(ev.data).toMatchObject({
      previousStartsAt: "2030-03-04T10:00:00.000Z",
      startsAt: "2030-03-05T14:00:00.000Z",
      sequence: 1,
      by: "host",
    });
    // The old time is free again; moving onto a taken time is refused.
    const other = await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-04T10:00:00Z",
      name: "Bob",
      email: "bob@example.test",
    });
    expect(
      (await errorOf(() => w.tool("bookings_reschedule", { id: other.id, startsAt: "2030-03-05T14:00:00Z" }))).code,
    ).toBe("conflict");
    // Moving right after its own time (touching itself) is fine: it does not block itself.
    expect(await w.tool("bookings_reschedule", { id: other.id, startsAt: "2030-03-04T10:30:00Z" })).toMatchObject({
      sequence: 1,
    });
  });

  test("rescheduling into a time that overlaps the booking's own old slot (not only touching it)", async () => {
    // An hour on a half-hour grid, 10:00–11:00, with 15-minute buffers: 10:30–11:30 overlaps the old slot by half an hour.
    const { p, r } = await booked({ durations: [60], slotInterval: 30, bufferBefore: 15, bufferAfter: 15 });
    const m = await w.tool("bookings_reschedule", { id: r.id, startsAt: "2030-03-04T10:30:00Z" });
    expect(m).toMatchObject({ startsAt: "2030-03-04T10:30:00.000Z", endsAt: "2030-03-04T11:30:00.000Z", sequence: 1 });
    // And back 30 minutes earlier than that, overlapping again.
    expect(await w.tool("bookings_reschedule", { id: r.id, startsAt: "2030-03-04T10:00:00Z" })).toMatchObject({
      startsAt: "2030-03-04T10:00:00.000Z",
      sequence: 2,
    });
    // It holds exactly one time: 10:00 is taken for anyone else, 11:30 (after the old 10:30–11:30) is free again.
    const free = await w.tool("booking_availability_get", {
      pageId: p.id,
      from: "2030-03-04T09:00:00Z",
      to: "2030-03-04T13:00:00Z",
    });
    expect(free.slots.map((x: any) => x.startsAt.slice(11, 16))).toEqual(["11:30", "12:00", "12:30"]);
  });

  test("cancel with a reason frees the time; the invite becomes METHOD:CANCEL with a higher SEQUENCE", async () => {
    const { p, r } = await booked();
    expect(await w.tool("bookings_cancel", { id: r.id, reason: "Double-booked <oops>" })).toMatchObject({
      status: "cancelled",
      reason: "Double-booked <oops>",
    });
    const got = await w.tool("bookings_get", { id: r.id, include: ["ics"] });
    expect(parseIcs(got.ics)).toMatchObject({
      method: "CANCEL",
      status: "CANCELLED",
      sequence: 1,
      uid: `${r.uid}@127.0.0.1`,
    });
    expect((await w.events("booking.cancelled"))[0]!.data).toMatchObject({
      reason: "Double-booked <oops>",
      cancelledBy: "host",
      inviteMethod: "CANCEL",
    });
    expect((await errorOf(() => w.tool("bookings_cancel", { id: r.id }))).message).toBe(
      "This booking is already cancelled.",
    );
    expect(
      await w.tool("bookings_create", {
        pageId: p.id,
        startsAt: "2030-03-04T10:00:00Z",
        name: "Bob",
        email: "bob@example.test",
      }),
    ).toMatchObject({ status: "accepted" });
  });

  test("cutoffs: attendees cannot cancel or move within them; a member can with ignoreCutoff", async () => {
    const { r } = await booked({ cancelCutoff: 24 * 60, rescheduleCutoff: 12 * 60 });
    const visitor = { deps: w.deps, companyId: w.companyId, ctx: null };
    const { cancel, reschedule } = await import("../../src/domains/bookings/bookings");
    // Now 08:00, start 10:00: inside both cutoffs.
    expect((await errorOf(() => cancel(visitor, { uid: r.uid }, {}))).message).toBe(
      "Bookings of this page can be cancelled up to 24 hour(s) before they start. Please contact the host.",
    );
    expect(
      (await errorOf(() => reschedule(visitor, { uid: r.uid }, { startsAt: new Date("2030-03-06T10:00:00Z") })))
        .message,
    ).toContain("rescheduled up to 12 hour(s)");
    expect((await errorOf(() => w.tool("bookings_cancel", { id: r.id }))).message).toContain("ignoreCutoff: true");
    expect(await w.tool("bookings_cancel", { id: r.id, ignoreCutoff: true })).toMatchObject({ status: "cancelled" });
    // Exactly at the cutoff it is still allowed: 24 h before a start two days ahead.
    const later = await w.tool("bookings_create", {
      pageSlug: "call",
      startsAt: "2030-03-06T10:00:00Z",
      name: "Bob",
      email: "bob@example.test",
    });
    w.clock.set(Date.parse("2030-03-05T10:00:00Z"));
    expect((await cancel(visitor, { uid: later.uid }, { reason: "ill" })).status).toBe("cancelled");
  });

  test("confirmation: pending until a host confirms; decline frees the time; both only while pending", async () => {
    const { p, r } = await booked({ requiresConfirmation: true });
    expect(r.status).toBe("pending");
    expect((await w.events("booking.created"))[0]!.data).toMatchObject({
      status: "pending",
      requiresConfirmation: true,
    });
    const tentative = parseIcs((await w.tool("bookings_get", { id: r.id, include: ["ics"] })).ics);
    expect(tentative.status).toBe("TENTATIVE");
    // A pending booking holds its slot.
    expect(
      (
        await errorOf(() =>
          w.tool("bookings_create", {
            pageId: p.id,
            startsAt: "2030-03-04T10:00:00Z",
            name: "Bob",
            email: "bob@example.test",
          }),
        )
      ).code,
    ).toBe("conflict");
    expect(await w.tool("bookings_confirm", { uid: r.uid })).toMatchObject({ status: "accepted" });
    expect((await errorOf(() => w.tool("bookings_confirm", { uid: r.uid }))).message).toContain(
      "only a pending booking",
    );
    const r2 = await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-04T11:00:00Z",
      name: "Bob",
      email: "bob@example.test",
    });
    expect(await w.tool("bookings_decline", { id: r2.id, reason: "Not a fit" })).toMatchObject({ status: "declined" });
    expect((await w.events("booking.declined"))[0]!.data).toMatchObject({
      reason: "Not a fit",
      inviteMethod: "CANCEL",
    });
    expect(
      await w.tool("bookings_create", {
        pageId: p.id,
        startsAt: "2030-03-04T11:00:00Z",
        name: "Cy",
        email: "cy@example.test",
      }),
    ).toMatchObject({ status: "pending" });
  });

  test("unconfirmed bookings expire at their start (the job), once, and catch up after downtime", async () => {
    const { r } = await booked({ requiresConfirmation: true });
    expect(await expireUnconfirmed(w.deps)).toBe(0);
    w.clock.set(Date.parse("2030-03-04T10:00:00Z"));
    expect(await expireUnconfirmed(w.deps)).toBe(1);
    expect(await expireUnconfirmed(w.deps)).toBe(0);
    expect((await w.tool("bookings_get", { id: r.id })).status).toBe("expired");
    expect(await w.events("booking.expired")).toHaveLength(1);
    const a = (await w.deps.db.select().from(auditLog).where(eq(auditLog.action, "bookings.expire")))[0]!;
    expect(a).toMatchObject({ credentialKind: "system", userId: null });
  });

  test("the job as the runner runs it: a server that was down a day expires what passed meanwhile, once", async () => {
    const { p } = await booked({ requiresConfirmation: true });
    await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-05T10:00:00Z",
      name: "Bob",
      email: "bob@example.test",
    });
    const runner = new JobRunner(
      w.deps,
      bookingsDomain.jobs!.filter((j) => j.name === "bookings.expire_unconfirmed"),
    );
    await runner.init();
    // Nothing has started yet: its pending check finds nothing, so the job is not even claimed.
    expect(await runner.runDue()).toEqual([]);
    expect((await w.tool("bookings_list", { status: ["pending"] })).total).toBe(2);
    w.clock.set(Date.parse("2030-03-06T09:00:00Z"));
    expect(await runner.runDue()).toEqual([{ name: "bookings.expire_unconfirmed", ok: true }]);
    expect((await w.tool("bookings_list", { status: ["expired"] })).total).toBe(2);
    // Not due again within its minute; and nothing left to do later (not claimed either).
    expect(await runner.runDue()).toEqual([]);
    w.clock.advance(60_000);
    expect(await runner.runDue()).toEqual([]);
    expect(await w.events("booking.expired")).toHaveLength(2);
  });

  test("no-show: only after the start of an accepted booking; null clears", async () => {
    const { r } = await booked();
    expect((await errorOf(() => w.tool("bookings_mark_no_show", { id: r.id, noShow: "attendee" }))).message).toContain(
      "once it has started",
    );
    w.clock.set(Date.parse("2030-03-04T10:40:00Z"));
    expect(await w.tool("bookings_mark_no_show", { id: r.id, noShow: "attendee" })).toMatchObject({
      noShow: "attendee",
    });
    expect(await w.tool("bookings_mark_no_show", { id: r.id, noShow: null })).toMatchObject({ noShow: null });
    expect((await errorOf(() => w.tool("bookings_cancel", { id: r.id }))).message).toContain("is over");
    expect((await w.events("booking.no_show_marked")).map((e) => e.data.noShow)).toEqual(["attendee", null]);
  });

  test("list filters: page, status, host, attendee, range, order; another company's bookings are invisible", async () => {
    const { p, r } = await booked();
    const b2 = await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-05T10:00:00Z",
      name: "Bob",
      email: "bob@example.test",
    });
    await w.tool("bookings_cancel", { id: b2.id });
    expect((await w.tool("bookings_list", {})).items.map((b: any) => b.id)).toEqual([r.id, b2.id]);
    expect((await w.tool("bookings_list", { order: "desc" })).items.map((b: any) => b.id)).toEqual([b2.id, r.id]);
    expect((await w.tool("bookings_list", { status: ["cancelled"] })).items.map((b: any) => b.id)).toEqual([b2.id]);
    expect((await w.tool("bookings_list", { attendeeEmail: "ADA@example.test" })).total).toBe(1);
    expect(
      (await w.tool("bookings_list", { host: "owner@example.test", from: "2030-03-05T00:00:00Z" })).items.map(
        (b: any) => b.id,
      ),
    ).toEqual([b2.id]);
    expect((await w.tool("bookings_list", { host: w.berlinId })).total).toBe(0);
    expect((await w.tool("bookings_list", { pageSlug: p.slug })).items[0]).toMatchObject({
      attendee: { name: "Ada Lovelace" },
      hosts: ["Owner"],
    });
    const other = w.ctx({ company: "other" });
    expect((await w.tool("bookings_list", {}, other)).total).toBe(0);
    expect((await errorOf(() => w.tool("bookings_get", { id: r.id }, other))).code).toBe("not_found");
    expect((await errorOf(() => w.tool("bookings_cancel", { uid: r.uid }, other))).code).toBe("not_found");
  });
});

describe("hosts", () => {
  test("round robin: the least recently booked free host gets the next booking", async () => {
    const p = await w.livePage({ title: "Team", minNotice: 0, hosts: [w.berlinId, w.nyId] });
    const hostOf = async (startsAt: string, i: number) =>
      (await w.tool("bookings_create", { pageId: p.id, startsAt, name: `V${i}`, email: `v${i}@example.test` }))
        .hostUserIds[0];
    expect(await hostOf("2030-03-04T10:00:00Z", 1)).toBe(w.berlinId); // neither booked yet: lowest id
    expect(await hostOf("2030-03-04T10:00:00Z", 2)).toBe(w.nyId); // Berlin is busy then anyway
    expect(await hostOf("2030-03-04T12:00:00Z", 3)).toBe(w.berlinId); // least recently booked
    expect(await hostOf("2030-03-04T13:00:00Z", 4)).toBe(w.nyId);
    // Both taken at 10:00: that slot is gone, for the page.
    const free = await w.tool("booking_availability_get", {
      pageId: p.id,
      from: "2030-03-04T10:00:00Z",
      to: "2030-03-04T10:01:00Z",
    });
    expect(free.count).toBe(0);
  });

  test("all together: every host is on the booking and the invite; one host's other booking blocks the time", async () => {
    const solo = await w.livePage({ title: "Solo", minNotice: 0, hosts: [w.nyId] });
    await w.tool("bookings_create", { pageId: solo.id, startsAt: "2030-03-04T11:00:00Z", ...ada });
    const p = await w.livePage({ title: "Panel", minNotice: 0, hosts: [w.berlinId, w.nyId], hostMode: "collective" });
    expect(
      (
        await errorOf(() =>
          w.tool("bookings_create", {
            pageId: p.id,
            startsAt: "2030-03-04T11:00:00Z",
            name: "Bob",
            email: "bob@example.test",
          }),
        )
      ).code,
    ).toBe("conflict");
    const r = await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-04T12:00:00Z",
      name: "Bob",
      email: "bob@example.test",
    });
    expect(r.hostUserIds).toEqual([w.berlinId, w.nyId]);
    const ics = parseIcs((await w.tool("bookings_get", { id: r.id, include: ["ics"] })).ics);
    expect(ics.organizer).toBe("mailto:lena@example.test");
    expect(ics.attendees).toEqual(["mailto:bob@example.test", "mailto:noah@example.test"]);
  });

  test("daily limit at booking time, counted per host on their own calendar", async () => {
    const p = await w.livePage({ title: "Limited", minNotice: 0, dailyLimit: 2 });
    await w.tool("bookings_create", { pageId: p.id, startsAt: "2030-03-04T10:00:00Z", ...ada });
    await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-04T11:00:00Z",
      name: "Bob",
      email: "bob@example.test",
    });
    expect(
      (
        await errorOf(() =>
          w.tool("bookings_create", {
            pageId: p.id,
            startsAt: "2030-03-04T12:00:00Z",
            name: "Cy",
            email: "cy@example.test",
          }),
        )
      ).code,
    ).toBe("conflict");
    expect(
      await w.tool("bookings_create", {
        pageId: p.id,
        startsAt: "2030-03-05T12:00:00Z",
        name: "Cy",
        email: "cy@example.test",
      }),
    ).toMatchObject({ status: "accepted" });
  });

  test("a meeting booked on another page keeps that page's buffers in this page's free times", async () => {
    // Booked on a page with 30 minutes after each meeting: the host is busy 10:00–11:30.
    const intro = await w.livePage({ title: "Intro", minNotice: 0, durations: [60], bufferAfter: 30 });
    await w.tool("bookings_create", { pageId: intro.id, startsAt: "2030-03-04T10:00:00Z", ...ada });
    const free = async (args: Record<string, unknown>) => {
      const p = await w.livePage({ minNotice: 0, durations: [30], ...args });
      const r = await w.tool("booking_availability_get", {
        pageId: p.id,
        from: "2030-03-04T09:00:00Z",
        to: "2030-03-04T12:30:00Z",
      });
      return r.slots.map((x: any) => x.startsAt.slice(11, 16));
    };
    // No buffers of its own: 09:30 ends as the meeting starts; 11:00 falls in the meeting's 30-minute after-buffer.
    expect(await free({ title: "Quick" })).toEqual(["09:00", "09:30", "11:30", "12:00"]);
    // 15 minutes before: the same, since buffers may overlap buffers (not meetings). Were this page's buffers
    // put on the other meeting (busy 09:45–11:00), 09:30 would go.
    expect(await free({ title: "Prepared", bufferBefore: 15 })).toEqual(["09:00", "09:30", "11:30", "12:00"]);
  });

  test("time off and a date override close times that were free", async () => {
    const p = await w.livePage({ title: "Call", minNotice: 0 });
    await w.tool("booking_time_off_create", { member: w.ownerId, startDate: "2030-03-05", endDate: "2030-03-05" });
    await w.tool("booking_overrides_set", { member: w.ownerId, date: "2030-03-06", hours: ["13:00-14:00"] });
    const free = await w.tool("booking_availability_get", {
      pageId: p.id,
      from: "2030-03-05T00:00:00Z",
      to: "2030-03-07T00:00:00Z",
    });
    expect(free.slots.map((s: any) => s.startsAt)).toEqual(["2030-03-06T13:00:00.000Z", "2030-03-06T13:30:00.000Z"]);
  });
});
