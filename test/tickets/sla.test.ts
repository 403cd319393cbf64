/**
 * SLA due times on real tickets (hand-computed), the clock pausing while
 * pending, and the breach job: at the exact due instant, once per ticket
 * and target, after downtime and a restart, and racing itself. Auto-close
 * and its pending check, per company setting, at the instant.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { JobRunner } from "../../src/core/jobs";
import { ticketJobs } from "../../src/domains/tickets/sla";
import { autoClose, checkBreaches } from "../jobs";
import { makeTicketWorld, type TWorld } from "./world";

let w: TWorld;
afterEach(async () => await w.close());

const H = 3_600_000;
const berlin = { timeZone: "Europe/Berlin" };

describe("due times", () => {
  beforeEach(async () => {
    w = await makeTicketWorld(Date.parse("2025-03-28T14:00:00Z")); // Fri 15:00 CET
  });

  test("normal priority in Berlin, created Friday afternoon: first reply Monday 15:00 CEST, resolution next Friday", async () => {
    await w.call("ticket_sla_policy_update", berlin);
    const t = await w.call("tickets_create", {
      subject: "Invoice question",
      requesterEmail: "Kim@Client.test",
      body: "Why was I charged twice?",
    });
    expect(t.id).toBe(1001);
    // 8 business hours: Fri 15–17 (2 h), weekend and the DST change, Mon 09:00 CEST (07:00Z) + 6 h.
    expect(t.firstResponseDueAt).toBe("2025-03-31T13:00:00.000Z");
    // 40 business hours: 2 h Fri, then 8 h Mon–Thu (34 h), 6 h on Fri 4 Apr from 09:00 CEST → 15:00 CEST.
    expect(t.resolutionDueAt).toBe("2025-04-04T13:00:00.000Z");
    const got = await w.call("tickets_get", { id: "#1001" });
    expect(got.requester).toEqual({ email: "kim@client.test", name: null });
    expect(got.sla.firstResponse).toEqual({ state: "running", dueAt: "2025-03-31T13:00:00.000Z", respondedAt: null });
  });

  test("raising the priority recomputes from creation; urgent counts calendar time", async () => {
    await w.call("ticket_sla_policy_update", berlin);
    await w.call("tickets_create", { subject: "Site down", requesterEmail: "kim@client.test", body: "Nothing loads." });
    const high = await w.call("tickets_update", { id: 1001, priority: "high" });
    // high: 4 h → 2 h Fri + Mon 09:00–11:00 CEST; 16 h → 2 + 8 (Mon) + 6 (Tue) → Tue 15:00 CEST.
    expect(high).toMatchObject({
      firstResponseDueAt: "2025-03-31T09:00:00.000Z",
      resolutionDueAt: "2025-04-01T13:00:00.000Z",
    });
    const urgent = await w.call("tickets_update", { id: 1001, priority: "urgent" });
    expect(urgent).toMatchObject({
      firstResponseDueAt: "2025-03-28T15:00:00.000Z",
      resolutionDueAt: "2025-03-28T22:00:00.000Z",
    });
    const ev = (await w.events("ticket.updated")).at(-1)!;
    expect(ev.data).toMatchObject({
      number: 1001,
      changes: { priority: "urgent" },
      firstResponseDueAt: "2025-03-28T15:00:00.000Z",
    });
  });

  test("a target set to null has no due time and never breaches", async () => {
    await w.call("ticket_sla_policy_update", {
      targets: { low: { firstResponseMinutes: null, resolutionMinutes: null } },
    });
    const t = await w.call("tickets_create", {
      subject: "Idea",
      requesterEmail: "kim@client.test",
      body: "Dark mode?",
      priority: "low",
    });
    expect(t.firstResponseDueAt).toBeNull();
    w.clock.advance(400 * 24 * H);
    expect(await checkBreaches(w.deps)).toBe(0);
    expect((await w.call("tickets_get", { id: t.id })).sla.firstResponse.state).toBe("none");
  });
});

describe("the resolution clock pauses while pending", () => {
  beforeEach(async () => {
    w = await makeTicketWorld(Date.parse("2025-01-13T09:00:00Z")); // Mon 09:00 UTC, default policy (UTC, Mon–Fri 09–17)
  });

  test("pending Mon 11:00 → requester reply Wed 11:00: 16 business hours paused, due moves from Fri 17:00 to Tue 21 Jan 17:00", async () => {
    const t = await w.call("tickets_create", {
      subject: "Export fails",
      requesterEmail: "kim@client.test",
      body: "CSV export is empty.",
    });
    expect(t.resolutionDueAt).toBe("2025-01-17T17:00:00.000Z");
    w.clock.set(Date.parse("2025-01-13T11:00:00Z"));
    await w.call("tickets_reply", { id: t.id, body: "Which browser?", status: "pending" });
    let got = await w.call("tickets_get", { id: t.id });
    expect(got.sla.resolution).toEqual({ state: "paused", dueAt: null });
    expect(got.sla.firstResponse.state).toBe("met");
    w.clock.set(Date.parse("2025-01-15T11:00:00Z"));
    const r = await w.call("tickets_add_requester_reply", { id: t.id, body: "Firefox." });
    expect(r).toMatchObject({ status: "open", reopened: true });
    got = await w.call("tickets_get", { id: t.id });
    // Paused Mon 11–17 (6 h) + Tue (8 h) + Wed 09–11 (2 h) = 16 h: 40 + 16 = 56 business hours from Mon 09:00 = 7 days → Tue 21 Jan 17:00.
    expect(got.sla.resolution).toEqual({ state: "running", dueAt: "2025-01-21T17:00:00.000Z" });
  });

  test("solving stops the clock (met); reopening resumes it with the solved stretch not counted", async () => {
    const t = await w.call("tickets_create", {
      subject: "Typo",
      requesterEmail: "kim@client.test",
      body: "Typo on /about.",
    });
    w.clock.set(Date.parse("2025-01-13T10:00:00Z"));
    await w.call("tickets_reply", { id: t.id, body: "Fixed!", status: "solved" });
    expect((await w.call("tickets_get", { id: t.id })).sla.resolution.state).toBe("met");
    w.clock.set(Date.parse("2025-01-14T10:00:00Z")); // Tue 10:00: solved for 7 + 1 = 8 business hours
    await w.call("tickets_add_requester_reply", { id: t.id, body: "Still there on mobile." });
    expect((await w.call("tickets_get", { id: t.id })).sla.resolution.dueAt).toBe("2025-01-20T17:00:00.000Z"); // Fri 17:00 + one business day
  });
});

describe("the breach job's pending check (an idle server claims no lease)", () => {
  beforeEach(async () => {
    w = await makeTicketWorld(Date.parse("2025-01-13T09:00:00Z")); // Mon 09:00 UTC; urgent: first response in 1 h, resolution in 8 h, 24/7
  });
  const pending = () => ticketJobs.find((j) => j.name === "tickets.sla_breaches")!.pending!(w.deps);
  const targets = async () => (await w.events("ticket.sla_breached")).map((e) => `${e.data.number}:${e.data.target}`);

  test("each target on its own makes it true, and the run records that breach; false once recorded", async () => {
    const a = await w.call("tickets_create", {
      subject: "A",
      requesterEmail: "a@client.test",
      body: "a",
      priority: "urgent",
    }); // FR 10:00, res 17:00
    expect(await pending()).toBe(false);
    // Only the resolution: A's first response was met in time.
    w.clock.set(Date.parse("2025-01-13T09:30:00Z"));
    await w.call("tickets_reply", { id: a.id, body: "Looking into it." });
    w.clock.set(Date.parse("2025-01-13T16:59:59.999Z"));
    expect(await pending()).toBe(false);
    w.clock.set(Date.parse("2025-01-13T17:00:00Z"));
    expect(await pending()).toBe(true);
    expect(await checkBreaches(w.deps)).toBe(1);
    expect(await targets()).toEqual([`${a.id}:resolution`]);
    expect(await pending()).toBe(false);

    // Only a first response: B, made at 17:00, unanswered at 18:00 (its resolution is due at 01:00).
    const b = await w.call("tickets_create", {
      subject: "B",
      requesterEmail: "b@client.test",
      body: "b",
      priority: "urgent",
    });
    w.clock.set(Date.parse("2025-01-13T18:00:00Z"));
    expect(await pending()).toBe(true);
    expect(await checkBreaches(w.deps)).toBe(1);
    expect(await targets()).toEqual([`${a.id}:resolution`, `${b.id}:first_response`]);
    expect(await pending()).toBe(false);
  });
});

describe("breaches", () => {
  beforeEach(async () => {
    w = await makeTicketWorld(Date.parse("2025-01-13T09:00:00Z"));
  });

  test("breached at the exact due instant, not a millisecond before; reported once", async () => {
    const t = await w.call("tickets_create", {
      subject: "Checkout broken",
      requesterEmail: "kim@client.test",
      body: "500 on pay.",
      priority: "urgent",
    });
    const due = Date.parse(t.firstResponseDueAt);
    expect(due).toBe(Date.parse("2025-01-13T10:00:00Z"));
    w.clock.set(due - 1);
    expect(await checkBreaches(w.deps)).toBe(0);
    expect((await w.call("tickets_list", { breached: true })).total).toBe(0);
    expect((await w.call("tickets_get", { id: t.id })).breached).toEqual([]);
    w.clock.set(due);
    expect((await w.call("tickets_list", { breached: true })).items.map((i: any) => i.id)).toEqual([1001]); // flagged before the job records it
    expect(await checkBreaches(w.deps)).toBe(1);
    expect(await checkBreaches(w.deps)).toBe(0);
    const ev = await w.events("ticket.sla_breached");
    expect(ev.length).toBe(1);
    expect(ev[0]!.entityId).toBe(1001);
    expect(ev[0]!.data).toMatchObject({
      number: 1001,
      target: "first_response",
      dueAt: "2025-01-13T10:00:00.000Z",
      detectedAt: "2025-01-13T10:00:00.000Z",
      priority: "urgent",
      requesterEmail: "kim@client.test",
    });
    const listed = await w.call("tickets_list", { breached: true });
    expect(listed.items[0].breached).toEqual(["first_response"]);
    expect((await w.call("tickets_list", { breached: false })).total).toBe(0);
  });

  test("after downtime and a restart: each missed target reported once, with the instant it was due", async () => {
    const runner1 = new JobRunner(w.deps, ticketJobs);
    await runner1.init();
    await w.call("tickets_create", { subject: "A", requesterEmail: "a@client.test", body: "a", priority: "urgent" }); // FR 10:00, res 17:00
    await w.call("tickets_create", { subject: "B", requesterEmail: "b@client.test", body: "b", priority: "high" }); // FR 13:00, res Tue 17:00
    await runner1.runDue();
    expect((await w.events("ticket.sla_breached")).length).toBe(0);
    // The server is down from Monday 09:00 to Thursday; a new process (another runner holder) starts.
    w.clock.set(Date.parse("2025-01-16T08:00:00Z"));
    const runner2 = new JobRunner(w.deps, ticketJobs);
    await runner2.init();
    const out = await runner2.runDue();
    expect(out.find((o) => o.name === "tickets.sla_breaches")).toEqual({ name: "tickets.sla_breaches", ok: true });
    const seen = (await w.events("ticket.sla_breached"))
      .map((e) => `${e.data.number}:${e.data.target}:${e.data.dueAt}`)
      .sort();
    expect(seen).toEqual([
      "1001:first_response:2025-01-13T10:00:00.000Z",
      "1001:resolution:2025-01-13T17:00:00.000Z",
      "1002:first_response:2025-01-13T13:00:00.000Z",
      "1002:resolution:2025-01-14T17:00:00.000Z",
    ]);
    w.clock.advance(5 * 60_000);
    await runner2.runDue();
    await runner1.runDue();
    expect((await w.events("ticket.sla_breached")).length).toBe(4);
  });

  test("a late first reply records its breach itself; the job adds no second one", async () => {
    const t = await w.call("tickets_create", { subject: "Late", requesterEmail: "kim@client.test", body: "hello" }); // FR Mon 17:00
    w.clock.set(Date.parse("2025-01-14T10:00:00Z"));
    await w.call("tickets_reply", { id: t.id, body: "Sorry for the wait." });
    expect((await w.events("ticket.sla_breached")).map((e) => e.data.target)).toEqual(["first_response"]);
    expect(await checkBreaches(w.deps)).toBe(0);
    const got = await w.call("tickets_get", { id: t.id });
    expect(got.sla.firstResponse).toEqual({
      state: "breached",
      dueAt: "2025-01-13T17:00:00.000Z",
      respondedAt: "2025-01-14T10:00:00.000Z",
    });
  });

  test("two breach jobs racing report each breach once", async () => {
    for (let i = 0; i < 5; i++)
      await w.call("tickets_create", {
        subject: `T${i}`,
        requesterEmail: "kim@client.test",
        body: "x",
        priority: "urgent",
      });
    w.clock.set(Date.parse("2025-01-13T12:00:00Z"));
    await Promise.all([checkBreaches(w.deps), checkBreaches(w.deps), checkBreaches(w.deps)]);
    expect((await w.events("ticket.sla_breached")).length).toBe(5);
  });

  test("solved tickets auto-close after the policy's days; a requester reply before that reopens instead", async () => {
    await w.call("ticket_sla_policy_update", { autoCloseDays: 2 });
    const a = await w.call("tickets_create", { subject: "A", requesterEmail: "a@client.test", body: "a" });
    const b = await w.call("tickets_create", { subject: "B", requesterEmail: "b@client.test", body: "b" });
    await w.call("tickets_reply", { id: a.id, body: "done", status: "solved" });
    await w.call("tickets_reply", { id: b.id, body: "done", status: "solved" });
    w.clock.advance(47 * H);
    await w.call("tickets_add_requester_reply", { id: b.id, body: "not quite" });
    const runner = new JobRunner(w.deps, ticketJobs);
    await runner.init();
    await runner.runDue();
    expect((await w.call("tickets_get", { id: a.id })).status).toBe("solved"); // 47 h < 2 days
    w.clock.advance(1 * H);
    expect(await autoClose(w.deps)).toBe(1);
    expect((await w.call("tickets_get", { id: a.id })).status).toBe("closed");
    expect((await w.call("tickets_get", { id: b.id })).status).toBe("open");
    const ev = (await w.events("ticket.status_changed")).filter((e) => e.data.reason === "auto_close");
    expect(ev.map((e) => e.data.number)).toEqual([a.id]);
    expect(ev[0]!.userId).toBeNull();
  });

  test("auto-close's check: a solved ticket whose company's days have passed (without a policy the default 4; never with null), from the instant on", async () => {
    const pending = () => ticketJobs.find((j) => j.name === "tickets.auto_close")!.pending!(w.deps);
    const D = 24 * H;
    const rita = w.ctx("rita");
    await w.call("ticket_sla_policy_update", { autoCloseDays: 2 }); // Acme; Rival has no policy of its own
    const t0 = w.clock.ms();
    const a = await w.call("tickets_create", { subject: "A", requesterEmail: "a@client.test", body: "a" });
    await w.call("tickets_reply", { id: a.id, body: "done", status: "solved" });
    const r = await w.call("tickets_create", { subject: "R", requesterEmail: "r@client.test", body: "r" }, rita);
    await w.call("tickets_reply", { id: r.id, body: "done", status: "solved" }, rita);
    const status = async () => [
      (await w.call("tickets_get", { id: a.id })).status,
      (await w.call("tickets_get", { id: r.id }, rita)).status,
    ];
    expect(await pending()).toBe(false);
    w.clock.set(t0 + 2 * D - 1);
    expect(await pending()).toBe(false);
    expect(await autoClose(w.deps)).toBe(0); // held to the check: it must not write
    // Acme's two days, at the instant (the run closes solved_at ≤ now − days); Rival's ticket is no work yet.
    w.clock.set(t0 + 2 * D);
    expect(await pending()).toBe(true);
    expect(await autoClose(w.deps)).toBe(1);
    expect(await status()).toEqual(["closed", "solved"]);
    expect(await pending()).toBe(false);
    w.clock.set(t0 + 4 * D - 1);
    expect(await pending()).toBe(false);
    w.clock.set(t0 + 4 * D);
    expect(await pending()).toBe(true);
    // Rival turns auto-close off: never, however old; back on (a policy row saying 4), due again.
    await w.call("ticket_sla_policy_update", { autoCloseDays: null }, rita);
    expect(await pending()).toBe(false);
    w.clock.advance(365 * D);
    expect(await pending()).toBe(false);
    expect(await autoClose(w.deps)).toBe(0);
    await w.call("ticket_sla_policy_update", { autoCloseDays: 4 }, rita);
    expect(await pending()).toBe(true);
    expect(await autoClose(w.deps)).toBe(1);
    expect(await status()).toEqual(["closed", "closed"]);
    expect(await pending()).toBe(false);
  });
});
