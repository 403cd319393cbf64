/**
 * Notifications on this run's engine: notify()'s rules, the inbox tools
 * (order, views, read/unread, snooze to the millisecond, archive), tenancy,
 * preferences, approval decisions reaching the requester, and the email
 * digest over real SMTP (batched, read ones left out, waiting for working
 * hours).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { AppError } from "../../src/core/errors";
import { events, mailOutbox } from "../../src/core/tables";
import { approvalLinks } from "../../src/domains/approvals/tables";
import { notify } from "../../src/domains/notifications/notify";
import { notificationPreferences, notifications } from "../../src/domains/notifications/tables";
import { DIGEST_DELAY_MS, digestJob } from "../../src/domains/notifications/digest";
import { sites } from "../../src/domains/sites/tables";
import { sendDigests } from "../jobs";
import { setApprovalPolicy } from "../fixtures/approvals";
import { makePeople, type People } from "./world";

let w: People;
beforeAll(async () => {
  w = await makePeople();
});
afterAll(() => w.stop());
beforeEach(async () => {
  await w.s.deps.db.delete(notifications);
  await w.s.deps.db.delete(notificationPreferences);
  await w.s.deps.db.delete(mailOutbox);
  w.smtp.messages.length = 0;
});

const say = (userIds: number[], title: string, extra: Partial<Parameters<typeof notify>[1]> = {}) =>
  w.s.deps.store.transaction(() =>
    notify(w.s.deps, { companyId: w.A.id, userIds, type: "card.assigned", title, ...extra }),
  );

describe("notify()", () => {
  test("skips the actor, non-members and people who muted the type; returns the rows made, with one event", async () => {
    await w.ok(w.viewer, "notification_preferences_update", {
      changes: [{ type: "card.assigned", inApp: false, email: false }],
    });
    const n = await say(
      [w.owner.id, w.admin.id, w.viewer.id, w.stranger.id, 999_999],
      "WEB-42 Fix the checkout button",
      {
        actorUserId: w.owner.id,
        link: "/projects/WEB/cards/42",
        entity: { type: "card", id: 42 },
      },
    );
    expect(n).toBe(1);
    const rows = await w.s.deps.db.select().from(notifications);
    expect(rows.map((r) => r.userId)).toEqual([w.admin.id]);
    expect(rows[0]).toMatchObject({
      companyId: w.A.id,
      type: "card.assigned",
      entityType: "card",
      entityId: 42,
      actorUserId: w.owner.id,
      readAt: null,
    });
    const ev = (await w.s.deps.db.select().from(events).where(eq(events.type, "notification.created"))).at(-1)!;
    expect(ev.data).toMatchObject({
      notificationIds: [rows[0]!.id],
      userIds: [w.admin.id],
      type: "card.assigned",
      link: "/projects/WEB/cards/42",
    });
  });

  test("is part of the caller's transaction", async () => {
    await w.s.deps.store
      .transaction(async () => {
        await notify(w.s.deps, { companyId: w.A.id, userIds: [w.admin.id], type: "card.assigned", title: "Never" });
        throw new Error("rolled back");
      })
      .catch(() => {});
    expect(await w.s.deps.db.select().from(notifications)).toEqual([]);
  });

  test("refuses links off the portal and malformed types", async () => {
    for (const link of ["https://evil.example/", "//evil.example", "/\\evil.example", "javascript:alert(1)"]) {
      const e = await say([w.admin.id], "x", { link }).catch((x) => x);
      expect(e).toBeInstanceOf(AppError);
      expect((e as AppError).message).toContain("portal path");
    }
    expect(((await say([w.admin.id], "x", { type: "Card Assigned" }).catch((x) => x)) as AppError).message).toContain(
      "Not a notification type",
    );
    expect(((await say([w.admin.id], "   ").catch((x) => x)) as AppError).message).toContain("needs a title");
  });
});

describe("the inbox tools", () => {
  test("unread first then newest; views; read and unread; counts; only the caller's own", async () => {
    await say([w.admin.id], "first");
    w.s.clock.advance(1000);
    await say([w.admin.id], "second");
    w.s.clock.advance(1000);
    await say([w.admin.id], "third");
    await say([w.viewer.id], "vic's own");
    let list = await w.ok(w.admin, "notifications_list");
    expect(list.items.map((i: any) => i.title)).toEqual(["third", "second", "first"]);
    expect(list.unreadCount).toBe(3);
    const [third, second, first] = list.items.map((i: any) => i.id);
    expect(await w.ok(w.admin, "notifications_mark_read", { ids: [third] })).toEqual({ updated: 1, unreadCount: 2 });
    list = await w.ok(w.admin, "notifications_list");
    expect(list.items.map((i: any) => [i.title, i.read])).toEqual([
      ["second", false],
      ["first", false],
      ["third", true],
    ]);
    expect((await w.ok(w.admin, "notifications_list", { view: "unread" })).items.map((i: any) => i.title)).toEqual([
      "second",
      "first",
    ]);
    await w.ok(w.admin, "notifications_mark_unread", { ids: [third] });
    expect((await w.ok(w.admin, "notifications_list")).unreadCount).toBe(3);
    // Someone else's notification answers like one that does not exist; nothing changes.
    const vics = (await w.ok(w.viewer, "notifications_list")).items[0].id;
    const before = w.changes();
    expect(await w.err(w.admin, "notifications_mark_read", { ids: [first, vics] })).toContain(
      `No notification ${vics}`,
    );
    expect(await w.err(w.stranger, "notifications_archive", { ids: [second] })).toContain(`No notification ${second}`);
    expect(w.changes()).toBe(before);
    expect(await w.ok(w.admin, "notifications_mark_all_read", {})).toEqual({ updated: 3, unreadCount: 0 });
    expect((await w.ok(w.viewer, "notifications_list")).unreadCount).toBe(1);
  });

  test("a viewer manages their own inbox (self-service writes)", async () => {
    await say([w.viewer.id], "for Vic");
    const id = (await w.ok(w.viewer, "notifications_list")).items[0].id;
    expect((await w.ok(w.viewer, "notifications_archive", { ids: [id] })).updated).toBe(1);
    expect((await w.ok(w.viewer, "notifications_list", { view: "archived" })).items[0]).toMatchObject({
      id,
      read: true,
      state: "archived",
    });
    expect((await w.ok(w.viewer, "notifications_list")).total).toBe(0);
    // Unread brings it back to the inbox.
    await w.ok(w.viewer, "notifications_mark_unread", { ids: [id] });
    expect((await w.ok(w.viewer, "notifications_list")).items[0]).toMatchObject({ id, read: false, state: "inbox" });
  });

  test("a snoozed notification is hidden until exactly its time, then returns unread at the top", async () => {
    await say([w.admin.id], "old news");
    w.s.clock.advance(1000);
    await say([w.admin.id], "newer");
    const [newer, old] = (await w.ok(w.admin, "notifications_list")).items.map((i: any) => i.id);
    await w.ok(w.admin, "notifications_mark_read", { ids: [old] });
    const until = new Date(w.s.clock.ms() + 3600_000);
    const r = await w.ok(w.admin, "notifications_snooze", { ids: [old], until: until.toISOString() });
    expect(r).toMatchObject({ updated: 1, snoozedUntil: until.toISOString() });
    expect((await w.ok(w.admin, "notifications_list")).items.map((i: any) => i.id)).toEqual([newer]);
    expect((await w.ok(w.admin, "notifications_list", { view: "snoozed" })).items.map((i: any) => i.id)).toEqual([old]);
    w.s.clock.set(until.getTime() - 1);
    expect((await w.ok(w.admin, "notifications_list")).items.map((i: any) => i.id)).toEqual([newer]);
    w.s.clock.set(until.getTime());
    await w.ok(w.admin, "notifications_mark_read", { ids: [newer] });
    const back = await w.ok(w.admin, "notifications_list");
    expect(back.items.map((i: any) => [i.id, i.read])).toEqual([
      [old, false],
      [newer, true],
    ]);
    expect(back.unreadCount).toBe(1);
    expect(
      await w.err(w.admin, "notifications_snooze", { ids: [old], until: new Date(w.s.clock.ms()).toISOString() }),
    ).toContain("in the future");
    expect(
      await w.err(w.admin, "notifications_snooze", {
        ids: [old],
        until: new Date(w.s.clock.ms() + 91 * 86400_000).toISOString(),
      }),
    ).toContain("90 days");
    expect(await w.err(w.admin, "notifications_snooze", { ids: [old], until: "tomorrow" })).toContain("until");
  });

  test("filters: type, type prefix, entity", async () => {
    await say([w.admin.id], "card", { entity: { type: "card", id: 7 } });
    await say([w.admin.id], "breach", { type: "ticket.sla_breached", entity: { type: "ticket", id: 3 } });
    await say([w.admin.id], "assigned ticket", { type: "ticket.assigned" });
    const titles = async (args: Record<string, unknown>) =>
      (await w.ok(w.admin, "notifications_list", args)).items.map((i: any) => i.title).sort();
    expect(await titles({ type: "ticket.*" })).toEqual(["assigned ticket", "breach"]);
    expect(await titles({ type: "ticket.sla_breached" })).toEqual(["breach"]);
    expect(await titles({ entityType: "card", entityId: 7 })).toEqual(["card"]);
    expect(await w.err(w.admin, "notifications_list", { entityId: 7 })).toContain("entityType");
    expect(await w.err(w.admin, "notifications_list", { type: "%.*" })).toContain("Not a type prefix");
  });

  test("notifications_create: members by id or email, the caller skipped, non-members refused, admins only", async () => {
    const r = await w.ok(w.admin, "notifications_create", {
      emails: ["VIC@agency.example"],
      userIds: [w.owner.id, w.admin.id],
      title: "The Harbor site is live",
      body: "DNS switched at 09:00.",
      link: "/approvals",
    });
    expect(r.created).toBe(2);
    expect(r.skipped).toEqual([{ userId: w.admin.id, reason: "actor" }]);
    const mine = (await w.ok(w.viewer, "notifications_list")).items[0];
    expect(mine).toMatchObject({
      type: "message",
      title: "The Harbor site is live",
      body: "DNS switched at 09:00.",
      actor: { userId: w.admin.id, name: "Ada Admin" },
    });
    expect(mine.url).toBe(`${w.s.config.publicUrl}/approvals`);
    expect(await w.err(w.admin, "notifications_create", { userIds: [w.stranger.id], title: "hi" })).toContain(
      "Not a member of Acme Agency",
    );
    expect(await w.err(w.admin, "notifications_create", { title: "hi" })).toContain("at least one recipient");
    expect(
      await w.err(w.admin, "notifications_create", {
        userIds: [w.owner.id],
        title: "hi",
        link: "https://evil.example",
      }),
    ).toContain("portal path");
    expect(await w.err(w.viewer, "notifications_create", { userIds: [w.owner.id], title: "hi" })).toStartWith(
      "Forbidden",
    );
  });

  test("HTML and script in titles are stored as text and listed as written", async () => {
    await say([w.admin.id], `<img src=x onerror=alert(1)> "quoted" & more`);
    expect((await w.ok(w.admin, "notifications_list")).items[0].title).toBe(
      `<img src=x onerror=alert(1)> "quoted" & more`,
    );
  });
});

describe("preferences", () => {
  test("per type and for all types; reset falls back; read back with labels", async () => {
    const p0 = await w.ok(w.admin, "notification_preferences_get");
    expect(p0.allTypes).toBeNull();
    expect(p0.types.find((t: any) => t.type === "approval.decided")).toMatchObject({
      inApp: true,
      email: true,
      own: false,
    });
    await w.ok(w.admin, "notification_preferences_update", {
      changes: [
        { type: "*", email: false },
        { type: "approval.decided", email: true },
      ],
    });
    let p = await w.ok(w.admin, "notification_preferences_get");
    expect(p.allTypes).toEqual({ inApp: true, email: false });
    expect(p.types.find((t: any) => t.type === "card.assigned")).toMatchObject({ email: false, own: false });
    expect(p.types.find((t: any) => t.type === "approval.decided")).toMatchObject({ email: true, own: true });
    await w.ok(w.admin, "notification_preferences_update", { changes: [{ type: "approval.decided", reset: true }] });
    p = await w.ok(w.admin, "notification_preferences_get");
    expect(p.types.find((t: any) => t.type === "approval.decided")).toMatchObject({ email: false, own: false });
    expect(
      await w.err(w.admin, "notification_preferences_update", { changes: [{ type: "Bad Type", email: true }] }),
    ).toContain("Not a notification type");
    expect(await w.err(w.admin, "notification_preferences_update", { changes: [{ type: "x.y" }] })).toContain(
      "say inApp, email or reset",
    );
    expect(
      await w.err(w.admin, "notification_preferences_update", { changes: [{ type: "x.y", reset: true, email: true }] }),
    ).toContain("not both");
  });

  test("email only: kept out of the inbox but mailed", async () => {
    await w.ok(w.viewer, "notification_preferences_update", {
      changes: [{ type: "card.assigned", inApp: false, email: true }],
    });
    expect(await say([w.viewer.id], "mail me only")).toBe(1);
    expect((await w.ok(w.viewer, "notifications_list")).total).toBe(0);
    await w.runJobs(DIGEST_DELAY_MS + 1000);
    await w.runJobs(1000);
    const [m] = await w.smtp.waitFor(1);
    expect((await m!.parse()).subject).toBe("[Acme Agency] mail me only");
  });
});

describe("the email digest", () => {
  test("one email for a burst, after the delay; what was read meanwhile is left out; sent once", async () => {
    await say([w.owner.id], "WEB-1 Header", { link: "/projects/WEB/cards/1" });
    await say([w.owner.id], "WEB-2 Footer");
    await say([w.owner.id], "WEB-3 Read already");
    const read = (await w.ok(w.owner, "notifications_list")).items.find(
      (i: any) => i.title === "WEB-3 Read already",
    ).id;
    await w.ok(w.owner, "notifications_mark_read", { ids: [read] });
    // Before the delay: nothing (a millisecond before it, the job's check finds nothing due; at it, it would).
    await w.runJobs(DIGEST_DELAY_MS - 1000);
    await w.runJobs(999);
    expect(await w.s.deps.db.select().from(mailOutbox)).toEqual([]);
    await w.runJobs(61_000);
    await w.runJobs(1000);
    const [m] = await w.smtp.waitFor(1);
    const parsed = await m!.parse();
    expect(m!.envelope.to).toEqual(["olivia@agency.example"]);
    expect(parsed.subject).toBe("2 new notifications in Acme Agency");
    expect(parsed.text).toContain("• WEB-1 Header");
    expect(parsed.text).toContain(`${w.s.config.publicUrl}/projects/WEB/cards/1`);
    expect(parsed.text).toContain("• WEB-2 Footer");
    expect(parsed.text).not.toContain("Read already");
    expect(m!.raw).toContain(`List-Unsubscribe: <${w.s.config.publicUrl}/settings/profile>`);
    const states = (await w.s.deps.db.select().from(notifications)).map((r) => [r.title, r.emailState]).sort();
    expect(states).toEqual([
      ["WEB-1 Header", "sent"],
      ["WEB-2 Footer", "sent"],
      ["WEB-3 Read already", "skipped"],
    ]);
    await w.runJobs(DIGEST_DELAY_MS * 3);
    await w.runJobs(1000);
    expect(w.smtp.messages).toHaveLength(1);
  });

  test("the job's pending check: true from the delay on, whether the run mails or only sets aside what was read meanwhile", async () => {
    const pending = () => digestJob.pending!(w.s.deps);
    const states = async () =>
      (await w.s.deps.db.select().from(notifications)).map((r) => [r.title, r.emailState]).sort();
    // Only notifications read meanwhile: the run writes no email, but marks them skipped.
    await say([w.owner.id], "WEB-5 Read in the portal");
    const read = (await w.ok(w.owner, "notifications_list")).items[0].id;
    await w.ok(w.owner, "notifications_mark_read", { ids: [read] });
    w.s.clock.advance(DIGEST_DELAY_MS - 1);
    expect(await pending()).toBe(false);
    expect(await sendDigests(w.s.deps)).toBe(0);
    w.s.clock.advance(1);
    expect(await pending()).toBe(true);
    expect(await sendDigests(w.s.deps)).toBe(0);
    expect(await states()).toEqual([["WEB-5 Read in the portal", "skipped"]]);
    expect(await pending()).toBe(false);
    expect(await w.s.deps.db.select().from(mailOutbox)).toEqual([]);
    // One unread: at the delay, mailed.
    await say([w.owner.id], "WEB-6 Unread");
    w.s.clock.advance(DIGEST_DELAY_MS);
    expect(await pending()).toBe(true);
    expect(await sendDigests(w.s.deps)).toBe(1);
    expect(await states()).toEqual([
      ["WEB-5 Read in the portal", "skipped"],
      ["WEB-6 Unread", "sent"],
    ]);
    expect(await pending()).toBe(false);
    expect((await w.s.deps.db.select().from(mailOutbox)).map((m) => m.subject)).toEqual(["[Acme Agency] WEB-6 Unread"]);
  });

  test("waits for the recipient's working hours in their time zone", async () => {
    // Sunday 2026-11-29 22:00 in Lisbon (UTC+0 in winter); Ada works Monday to Friday, 09:00–17:30.
    w.s.clock.set(Date.parse("2026-11-29T22:00:00Z"));
    await w.ok(w.admin, "profile_update", {
      timeZone: "Europe/Lisbon",
      workingHours: Object.fromEntries(
        ["mon", "tue", "wed", "thu", "fri"].map((d) => [d, [{ start: "09:00", end: "17:30" }]]),
      ),
    });
    await say([w.admin.id], "Sunday night news");
    await w.runJobs(DIGEST_DELAY_MS + 60_000);
    await w.runJobs(1000);
    expect(w.smtp.messages).toHaveLength(0);
    // The job's check is wider here (the hours are checked in process): true all night, while the run writes nothing.
    expect(await digestJob.pending!(w.s.deps)).toBe(true);
    // Monday 08:59 Lisbon: still not.
    w.s.clock.set(Date.parse("2026-11-30T08:59:00Z") - 61_000);
    await w.runJobs();
    await w.runJobs(1000);
    expect(w.smtp.messages).toHaveLength(0);
    // 09:00: sent.
    w.s.clock.set(Date.parse("2026-11-30T09:00:00Z") - 61_000);
    await w.runJobs();
    await w.runJobs(1000);
    const [m] = await w.smtp.waitFor(1);
    expect((await m!.parse()).subject).toBe("[Acme Agency] Sunday night news");
    await w.ok(w.admin, "profile_update", { timeZone: null, workingHours: null });
  });
});

describe("approval decisions notify the requester", () => {
  test("approved or rejected on the public page: the requester is told; deciding one's own request tells nobody", async () => {
    const site = (await w.s.deps.db.insert(sites).values({ companyId: w.A.id, name: "Acme Coffee" }).returning())[0]!
      .id;
    // Anyone with the link decides here (the company's `link` policy), so the owner may decide their own draft.
    await setApprovalPolicy(w.s.deps, w.A.id, "link");
    const drafted = await w.ok(w.owner, "posts_create", { siteId: site, title: "Spring menu launch" });
    const token = drafted.approval.token as string;
    await w.settle();
    const res = await fetch(`${w.s.url}/approve/${token}`);
    const html = await res.text();
    const csrf = /name="csrf" value="([0-9a-f]+)"/.exec(html)?.[1];
    const cookie = res.headers
      .getSetCookie()
      .map((c) => c.split(";")[0])
      .join("; ");
    const decided = await fetch(`${w.s.url}/approve/${token}`, {
      method: "POST",
      redirect: "manual",
      headers: { "content-type": "application/x-www-form-urlencoded", origin: w.s.url, cookie },
      body: new URLSearchParams({
        csrf: csrf ?? "",
        decision: "reject",
        comment: "Wrong season",
        name: "Maya",
      }).toString(),
    });
    expect(decided.status).toBeLessThan(400);
    expect(
      (await w.s.deps.db.select().from(approvalLinks).where(eq(approvalLinks.id, drafted.approval.id)))[0]!.status,
    ).toBe("rejected");
    await w.settle();
    const listed = (await w.ok(w.owner, "notifications_list")).items;
    // Under `link` owners and admins also hear that a link holder decided.
    expect(listed.map((i: any) => i.type).sort()).toEqual(["approval.decided", "approval.link_decided"]);
    const n = listed.find((i: any) => i.type === "approval.decided");
    expect(n).toMatchObject({
      type: "approval.decided",
      title: "Rejected: Spring menu launch",
      link: `/approvals/${drafted.approval.id}`,
      entity: { type: "approval", id: drafted.approval.id },
    });
    expect(n.body).toContain("Wrong season");
    // The owner approves their own next draft in the portal: no notification to themself.
    const second = await w.ok(w.owner, "posts_create", { siteId: site, title: "Summer menu" });
    const b = await w.browser(w.owner);
    const approve = await b.post(`/approvals/${second.approval.id}/decide`, {
      _csrf: await b.csrf("/approvals"),
      decision: "approve",
    });
    expect(approve.status).toBeLessThan(400);
    await w.settle();
    expect(
      (await w.ok(w.owner, "notifications_list")).items
        .filter((i: any) => i.type === "approval.decided")
        .map((i: any) => i.title),
    ).toEqual(["Rejected: Spring menu launch"]);
    const ev = await w.s.deps.db.select().from(events).where(eq(events.type, "approval.decided"));
    expect(ev.map((e) => [e.data.decision, e.data.requestedByUserId, e.userId])).toEqual([
      ["rejected", w.owner.id, null],
      ["approved", w.owner.id, w.owner.id],
    ]);
    expect(
      (await w.s.deps.db.select().from(events).where(eq(events.type, "approval.requested"))).length,
    ).toBeGreaterThanOrEqual(2);
  });
});
