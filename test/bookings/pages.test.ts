/**
 * Booking pages and schedules through their tools (validated by the tools'
 * own schemas, run by the verbs): approval before anything is public, live
 * pages kept while a change waits, pausing, deletion, tenancy, and the
 * schedule tools. On this run's engine.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { approvalLinks } from "../../src/domains/approvals/tables";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { renderApprovalPreview } from "../../src/domains/approvals/preview";
import { bookingPages } from "../../src/domains/bookings/tables";
import { errorOf } from "../store/world";
import { makeWorld, type World } from "./world";

let w: World;
beforeEach(async () => {
  w = await makeWorld();
});
afterEach(() => w.close());

const UTC_WEEK = {
  mon: ["09:00-17:00"],
  tue: ["09:00-17:00"],
  wed: ["09:00-17:00"],
  thu: ["09:00-17:00"],
  fri: ["09:00-17:00"],
};

describe("booking pages go live through approval", () => {
  test("create drafts a pending page with an approval link; approving makes it live; free times appear only then", async () => {
    await w.tool("booking_schedules_set", { member: w.ownerId, timeZone: "UTC", weeklyHours: UTC_WEEK });
    const r = await w.tool("booking_pages_create", { title: "Intro call", durations: [30, 60], minNotice: 0 });
    expect(r).toMatchObject({ slug: "intro-call", status: "pending", url: "http://127.0.0.1:8787/b/intro-call" });
    expect(r.approval.token).toMatch(/^[0-9a-f]{64}$/);
    const got = await w.tool("booking_pages_get", { slug: "intro-call" });
    expect(got).toMatchObject({
      status: "pending",
      durations: [30, 60],
      hostMode: "single",
      hosts: [{ userId: w.ownerId, email: "owner@example.test", member: true }],
    });
    expect(got.approval.status).toBe("pending");
    const created = (await w.events("booking_page.created"))[0]!;
    expect(created.data).toMatchObject({
      slug: "intro-call",
      status: "pending",
      approvalId: r.approval.id,
      hostUserIds: [w.ownerId],
    });

    expect(await w.approve(r.approval.token)).toMatchObject({
      bookingPageId: r.id,
      status: "live",
      url: "http://127.0.0.1:8787/b/intro-call",
    });
    expect((await w.tool("booking_pages_get", { id: r.id })).status).toBe("live");
    expect((await w.events("booking_page.published"))[0]!.data).toMatchObject({ slug: "intro-call", firstTime: true });
    const free = await w.tool("booking_availability_get", {
      pageSlug: "intro-call",
      from: "2030-03-04T00:00:00Z",
      to: "2030-03-05T00:00:00Z",
    });
    // Monday 4 March, now 08:00Z, no notice: 09:00 … 16:30 every 30 minutes.
    expect(free.count).toBe(16);
    expect(free.slots[0]).toEqual({ startsAt: "2030-03-04T09:00:00.000Z" });
    expect(free.days["2030-03-04"]!.slice(0, 3)).toEqual(["09:00", "09:30", "10:00"]);
  });

  test("a host without a schedule gets Mon–Fri 09:00–17:00 in the page's zone, and the result says so", async () => {
    const r = await w.tool("booking_pages_create", {
      title: "Strategy",
      hosts: ["lena@example.test"],
      timeZone: "Europe/Berlin",
    });
    expect(r.warnings).toEqual([
      "Lena Berlin had no schedule: created Mon–Fri 09:00–17:00 Europe/Berlin; change it with booking_schedules_set.",
    ]);
    expect(await w.tool("booking_schedules_get", { member: "lena@example.test" })).toMatchObject({
      timeZone: "Europe/Berlin",
      weeklyHours: { mon: ["09:00-17:00"], fri: ["09:00-17:00"] },
    });
  });

  test("the approval page previews the page as visitors will see it: details, free times from the proposed settings, the form", async () => {
    await w.tool("booking_schedules_set", {
      member: w.ownerId,
      timeZone: "UTC",
      weeklyHours: { mon: ["10:00-12:00"] },
    });
    const r = await w.tool("booking_pages_create", {
      title: "Portfolio review <b>now</b>",
      description: "Bring <script>alert(1)</script> your work",
      durations: [60],
      minNotice: 0,
      location: "in_person",
      where: "Harbor St 1",
      questions: [
        { id: "company", label: "Company <i>", type: "short_text", required: true },
        { id: "budget", label: "Budget", type: "select", options: ["<5k", "5k+"] },
      ],
    });
    const [link] = await w.deps.db.select().from(approvalLinks).where(eq(approvalLinks.id, r.approval.id));
    const html = await renderApprovalPreview(w.deps, link!);
    expect(html).toContain("<h1>Portfolio review &lt;b&gt;now&lt;/b&gt;</h1>");
    expect(html).toContain("Bring &lt;script&gt;alert(1)&lt;/script&gt; your work");
    expect(html).not.toContain("<script");
    expect(html).toContain("In person: Harbor St 1");
    // Monday 4 March, 10:00 and 11:00 UTC (the page's zone is UTC by default).
    expect(html).toContain('<time datetime="2030-03-04T10:00:00.000Z">10:00</time>');
    expect(html).toContain('<time datetime="2030-03-04T11:00:00.000Z">11:00</time>');
    expect(html).toContain('<label for="q_company">Company &lt;i&gt; <span class="bk-req">*</span></label>');
    expect(html).toContain("<option>&lt;5k</option>");
    expect(html).toContain("Minimum notice");
  });

  test("a change to a live page waits; the live page keeps its settings until approval; rejecting drops it", async () => {
    const p = await w.livePage({ title: "Consult", durations: [30] });
    const u = await w.tool("booking_pages_update", { id: p.id, durations: [45], title: "Consultation" });
    expect(u).toMatchObject({ status: "live", hasPendingChanges: true });
    let got = await w.tool("booking_pages_get", { id: p.id });
    expect(got).toMatchObject({
      title: "Consult",
      durations: [30],
      pendingChanges: { durations: [45], title: "Consultation" },
    });
    // Updating again builds on the waiting change, and supersedes its link.
    const u2 = await w.tool("booking_pages_update", { id: p.id, minNotice: 60 });
    got = await w.tool("booking_pages_get", { id: p.id });
    expect(got.pendingChanges).toEqual({ title: "Consultation", durations: [45], minNotice: 60 });
    const [old] = await w.deps.db.select().from(approvalLinks).where(eq(approvalLinks.id, u.approval.id));
    expect(old!.status).toBe("superseded");
    await decideApproval(w.deps, { token: u2.approval.token }, "reject", { decidedBy: "r" });
    got = await w.tool("booking_pages_get", { id: p.id });
    expect(got).toMatchObject({ status: "live", title: "Consult", durations: [30], pendingChanges: null });
    const u3 = await w.tool("booking_pages_update", { id: p.id, durations: [45] });
    await w.approve(u3.approval.token);
    expect(await w.tool("booking_pages_get", { id: p.id })).toMatchObject({ durations: [45], pendingChanges: null });
  });

  test("an expired link: calling update with no changes mints a fresh link for the same proposal (interface.md §3)", async () => {
    const p = await w.livePage({ title: "Consult", durations: [30] });
    const u = await w.tool("booking_pages_update", { id: p.id, durations: [45] });
    w.clock.advance(15 * 24 * 3600_000);
    expect(await decideApproval(w.deps, { token: u.approval.token }, "approve", { decidedBy: "late" })).toMatchObject({
      ok: false,
    });
    const again = await w.tool("booking_pages_update", { id: p.id });
    expect(again).toMatchObject({ hasPendingChanges: true, approval: { status: "pending" } });
    await w.approve(again.approval.token);
    expect(await w.tool("booking_pages_get", { id: p.id })).toMatchObject({ durations: [45], pendingChanges: null });
    // A pending (never approved) page gets a fresh link the same way.
    const q = await w.tool("booking_pages_create", { title: "Fresh" });
    w.clock.advance(15 * 24 * 3600_000);
    const q2 = await w.tool("booking_pages_update", { id: q.id });
    expect(q2.approval.token).not.toBe(q.approval.token);
    await w.approve(q2.approval.token);
    expect((await w.tool("booking_pages_get", { id: q.id })).status).toBe("live");
  });

  test("paused applies at once and needs no approval; a pending page cannot be paused", async () => {
    const p = await w.livePage({ title: "Demo" });
    expect(await w.tool("booking_pages_update", { id: p.id, paused: true })).toMatchObject({ status: "paused" });
    expect((await w.events("booking_page.updated")).at(-1)!.data).toMatchObject({
      fields: ["paused"],
      pending: false,
      approvalId: null,
    });
    expect(await w.tool("booking_pages_update", { id: p.id, paused: false })).toMatchObject({ status: "live" });
    const q = await w.tool("booking_pages_create", { title: "Later" });
    expect((await errorOf(() => w.tool("booking_pages_update", { id: q.id, paused: true }))).message).toContain(
      "Only an approved page can be paused",
    );
  });

  test("slugs are global: another company's page address is taken, without saying whose", async () => {
    await w.tool("booking_pages_create", { title: "Intro", slug: "intro" });
    const e = await errorOf(() =>
      w.tool(
        "booking_pages_create",
        { title: "Theirs", slug: "intro", hosts: [w.strangerId] },
        w.ctx({ company: "other" }),
      ),
    );
    expect(e).toMatchObject({
      code: "conflict",
      message: "The booking page address /b/intro is already taken; choose another slug.",
    });
    // A generated slug moves on and says so.
    const g = await w.tool(
      "booking_pages_create",
      { title: "Intro", hosts: [w.strangerId] },
      w.ctx({ company: "other" }),
    );
    expect(g.slug).toBe("intro-2");
    expect(g.note).toContain('slug "intro" is already used');
  });

  test("hosts must be members of the company; another company's user or id is not", async () => {
    const e1 = await errorOf(() => w.tool("booking_pages_create", { title: "X", hosts: ["rival@example.test"] }));
    expect(e1.message).toContain('hosts[0]: "rival@example.test" is not a member of Acme');
    const e2 = await errorOf(() => w.tool("booking_pages_create", { title: "X", hosts: [w.strangerId] }));
    expect(e2.message).toContain(`User ${w.strangerId} is not a member of Acme`);
    const e3 = await errorOf(() =>
      w.tool("booking_pages_create", { title: "X", hosts: [w.ownerId, w.berlinId], hostMode: "single" }),
    );
    expect(e3.message).toContain('hostMode "single" takes exactly one host');
    // Two hosts without a mode take turns.
    const rr = await w.tool("booking_pages_create", { title: "Team", hosts: [w.berlinId, w.nyId] });
    expect((await w.tool("booking_pages_get", { id: rr.id })).hostMode).toBe("round_robin");
  });

  test("cross-field rules: video where must be https, in person needs an address, phone without number needs a phone question", async () => {
    expect(
      (
        await errorOf(() =>
          w.tool("booking_pages_create", { title: "A", location: "video", where: "javascript:alert(1)" }),
        )
      ).message,
    ).toContain("https meeting URL");
    expect(
      (await errorOf(() => w.tool("booking_pages_create", { title: "A", location: "in_person" }))).message,
    ).toContain("address");
    expect((await errorOf(() => w.tool("booking_pages_create", { title: "A", location: "phone" }))).message).toContain(
      'type "phone"',
    );
    expect(
      (await errorOf(() => w.tool("booking_pages_create", { title: "A", durations: [30, 30] }))).message,
    ).toContain("must not repeat");
    expect((await errorOf(() => w.tool("booking_pages_create", { title: "A", durations: [3] }))).message).toContain(
      "5 to 720",
    );
    expect(
      (
        await errorOf(() =>
          w.tool("booking_pages_create", { title: "A", questions: [{ id: "email", label: "E", type: "email" }] }),
        )
      ).message,
    ).toContain("is taken");
    expect(
      (await errorOf(() => w.tool("booking_pages_create", { title: "A", timeZone: "Mars/Olympus" }))).message,
    ).toContain("IANA time zone");
    expect(
      (await errorOf(() => w.tool("booking_pages_create", { title: "A", dailyLimit: 5, weeklyLimit: 2 }))).message,
    ).toContain("weeklyLimit");
  });

  test("another company's page is not found by id or slug; a viewer cannot write; a read-only scope cannot write", async () => {
    const p = await w.livePage({ title: "Ours" });
    const other = w.ctx({ company: "other" });
    expect((await errorOf(() => w.tool("booking_pages_get", { id: p.id }, other))).code).toBe("not_found");
    expect((await errorOf(() => w.tool("booking_pages_get", { slug: p.slug }, other))).code).toBe("not_found");
    expect((await errorOf(() => w.tool("booking_pages_delete", { id: p.id }, other))).code).toBe("not_found");
    expect(
      (await errorOf(() => w.tool("booking_pages_update", { id: p.id, title: "x" }, w.ctx({ role: "viewer" })))).code,
    ).toBe("forbidden");
    expect(
      (await errorOf(() => w.tool("booking_pages_create", { title: "x" }, w.ctx({ scopes: ["bookings:read"] })))).code,
    ).toBe("forbidden");
    expect((await w.tool("booking_pages_list", {}, w.ctx({ scopes: ["bookings:read"] }))).total).toBe(1);
  });

  test("delete: refused with upcoming bookings; afterwards past bookings keep the page's title", async () => {
    await w.tool("booking_schedules_set", { member: w.ownerId, timeZone: "UTC", weeklyHours: UTC_WEEK });
    const p = await w.livePage({ title: "Call", minNotice: 0 });
    const b = await w.tool("bookings_create", {
      pageId: p.id,
      startsAt: "2030-03-04T10:00:00Z",
      name: "Ada",
      email: "ada@example.test",
    });
    expect((await errorOf(() => w.tool("booking_pages_delete", { id: p.id }))).message).toContain("1 upcoming booking");
    await w.tool("bookings_cancel", { id: b.id, reason: "moving on" });
    expect(await w.tool("booking_pages_delete", { id: p.id })).toEqual({ id: p.id, slug: "call", status: "deleted" });
    expect(await w.tool("bookings_get", { id: b.id })).toMatchObject({
      pageId: null,
      pageTitle: "Call",
      status: "cancelled",
    });
    expect(await w.deps.db.select().from(bookingPages)).toEqual([]);
  });
});

describe("schedules", () => {
  test("set, get and list: hours in the member's zone, overrides, time off", async () => {
    expect(
      await w.tool("booking_schedules_set", {
        member: "noah@example.test",
        timeZone: "America/New_York",
        weeklyHours: { mon: ["13:00-17:00", "09:00-12:00"] },
      }),
    ).toEqual({
      userId: w.nyId,
      timeZone: "America/New_York",
      weeklyHours: { mon: ["09:00-12:00", "13:00-17:00"] },
      status: "created",
    });
    expect(await w.tool("booking_overrides_set", { member: w.nyId, date: "2030-03-11", hours: [] })).toMatchObject({
      status: "day_off",
    });
    // A zone in other letter case is stored as the runtime spells it.
    expect((await w.tool("booking_schedules_set", { member: w.berlinId, timeZone: "europe/berlin" })).timeZone).toBe(
      "Europe/Berlin",
    );
    expect(
      await w.tool("booking_overrides_set", { member: w.nyId, date: "2030-03-16", hours: ["10:00-12:00"] }),
    ).toMatchObject({ status: "set" });
    const off = await w.tool("booking_time_off_create", {
      member: w.nyId,
      startDate: "2030-03-20",
      endDate: "2030-03-22",
      reason: "Conference",
    });
    const s = await w.tool("booking_schedules_get", { member: w.nyId });
    expect(s).toMatchObject({
      timeZone: "America/New_York",
      overrides: { "2030-03-11": [], "2030-03-16": ["10:00-12:00"] },
      timeOff: [{ id: off.id, startDate: "2030-03-20", endDate: "2030-03-22", reason: "Conference" }],
    });
    expect(await w.tool("booking_time_off_delete", { id: off.id })).toEqual({ id: off.id, status: "deleted" });
    expect(await w.tool("booking_overrides_set", { member: w.nyId, date: "2030-03-16", hours: null })).toMatchObject({
      status: "removed",
    });
    const list = await w.tool("booking_schedules_list", {});
    expect(list.items.find((m: any) => m.userId === w.nyId)).toMatchObject({ timeZone: "America/New_York" });
    expect(list.items.find((m: any) => m.userId === w.ownerId)).toMatchObject({ timeZone: null, weeklyHours: null });
    expect((await w.events("booking_schedule.updated")).map((e) => e.data.change)).toEqual([
      "hours",
      "override",
      "hours",
      "override",
      "time_off_added",
      "time_off_removed",
      "override",
    ]);
  });

  test("bad hours, dates and members are refused with the field named", async () => {
    await w.tool("booking_schedules_set", { member: w.ownerId, timeZone: "UTC" });
    expect(
      (
        await errorOf(() =>
          w.tool("booking_schedules_set", { member: w.ownerId, weeklyHours: { mon: ["17:00-09:00"] } }),
        )
      ).message,
    ).toContain("weeklyHours.mon[0]");
    expect(
      (
        await errorOf(() =>
          w.tool("booking_schedules_set", { member: w.ownerId, weeklyHours: { mon: ["09:00-12:00", "11:00-13:00"] } }),
        )
      ).message,
    ).toContain("overlapping");
    expect(
      (
        await errorOf(() =>
          w.tool("booking_schedules_set", { member: w.ownerId, weeklyHours: { funday: ["09:00-12:00"] } }),
        )
      ).code,
    ).toBe("validation");
    expect(
      (await errorOf(() => w.tool("booking_overrides_set", { member: w.ownerId, date: "2030-02-30", hours: [] })))
        .message,
    ).toContain("not a calendar date");
    expect(
      (await errorOf(() => w.tool("booking_overrides_set", { member: w.ownerId, date: "2030-03-01", hours: [] })))
        .message,
    ).toContain("in the past");
    expect(
      (
        await errorOf(() =>
          w.tool("booking_time_off_create", { member: w.ownerId, startDate: "2030-03-10", endDate: "2030-03-09" }),
        )
      ).message,
    ).toContain("endDate");
    expect((await errorOf(() => w.tool("booking_schedules_get", { member: "rival@example.test" }))).code).toBe(
      "not_found",
    );
    expect((await errorOf(() => w.tool("booking_schedules_set", { member: w.strangerId, timeZone: "UTC" }))).code).toBe(
      "not_found",
    );
    expect((await errorOf(() => w.tool("booking_schedules_set", { member: w.berlinId }))).message).toContain(
      "give timeZone",
    );
  });
});
