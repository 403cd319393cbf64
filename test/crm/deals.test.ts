/**
 * Pipelines, deals, stage moves (who and when), the forecast against
 * hand-computed figures, activities with tasks, and the timeline mixing
 * activities, stage changes and support tickets.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { errorOf, makeCrmWorld, type CWorld } from "./world";

let w: CWorld;
let pipe: any;
beforeAll(async () => {
  w = await makeCrmWorld(); // 2025-01-15T12:00:00Z
});
afterAll(async () => await w.close());

const stageId = (name: string) => pipe.stages.find((s: any) => s.name === name).id;

describe("pipelines", () => {
  test("a deal needs a pipeline first, and says how to make one", async () => {
    const e = await errorOf(() => w.call("deals_create", { name: "Early", amountCents: 100 }));
    expect(e.message).toContain("pipelines_create");
  });

  test("default stages in order with probabilities; kinds force won 100 and lost 0", async () => {
    pipe = await w.call("pipelines_create", { name: "Agency sales" });
    expect(pipe.stages.map((s: any) => [s.name, s.probability, s.kind])).toEqual([
      ["Lead", 10, "open"],
      ["Qualified", 25, "open"],
      ["Proposal", 50, "open"],
      ["Negotiation", 75, "open"],
      ["Won", 100, "won"],
      ["Lost", 0, "lost"],
    ]);
    expect((await errorOf(() => w.call("pipelines_create", { name: "Agency sales" }))).code).toBe("conflict");
    expect(
      (
        await errorOf(() =>
          w.call("pipelines_create", { name: "No lost", stages: [{ name: "A" }, { name: "B", kind: "won" }] }),
        )
      ).message,
    ).toContain("lost stage");
    expect(
      (
        await errorOf(() =>
          w.call("pipelines_create", {
            name: "Odd",
            stages: [{ name: "A" }, { name: "W", kind: "won", probability: 80 }, { name: "L", kind: "lost" }],
          }),
        )
      ).message,
    ).toContain("probability is 100");
    expect(
      (
        await errorOf(() =>
          w.call("pipelines_create", {
            name: "Dup",
            stages: [{ name: "A" }, { name: "a" }, { name: "W", kind: "won" }, { name: "L", kind: "lost" }],
          }),
        )
      ).message,
    ).toContain("differ");
  });
});

describe("deals and stage moves", () => {
  let deal: any;
  test("create: first open stage, owner is the caller, amounts in cents, event with contacts", async () => {
    const c = await w.call("contacts_create", {
      firstName: "Ines",
      lastName: "Costa",
      emails: ["ines@harbor.example"],
    });
    const co = await w.call("crm_companies_create", { name: "Harbor", domain: "harbor.example" });
    deal = await w.call("deals_create", {
      name: "Website rebuild",
      amountCents: 1_250_000,
      currency: "eur",
      companyId: "harbor.example",
      contactIds: ["ines@harbor.example"],
      expectedClose: "2025-03-31",
    });
    expect(deal).toMatchObject({
      stage: "Lead",
      status: "open",
      amountCents: 1_250_000,
      currency: "EUR",
      pipelineId: pipe.id,
    });
    const got = await w.call("deals_get", { id: deal.id });
    expect(got.owner.id).toBe(w.users.olga);
    expect(got.company).toEqual({ id: co.id, name: "Harbor" });
    expect(got.contacts).toEqual([{ id: c.id, name: "Ines Costa", email: "ines@harbor.example" }]);
    expect(got.probability).toBe(10);
    expect(got.stageHistory).toEqual([
      {
        from: null,
        to: "Lead",
        by: { id: w.users.olga, name: "Olga Owner", email: "olga@acme.test" },
        at: "2025-01-15T12:00:00.000Z",
      },
    ]);
    const ev = (await w.events("deal.created")).at(-1)!;
    expect(ev.data).toMatchObject({
      name: "Website rebuild",
      amountCents: 1_250_000,
      currency: "EUR",
      stage: "Lead",
      status: "open",
      contactIds: [c.id],
      companyId: co.id,
      ownerUserId: w.users.olga,
    });
  });

  test("moves are recorded with who and when; lost needs a reason; reopening clears it", async () => {
    w.clock.advance(60_000);
    const m = await w.call("deals_move_stage", { id: deal.id, stage: "proposal" }, w.ctx("ada"));
    expect(m).toMatchObject({
      stage: "Proposal",
      previousStage: "Lead",
      status: "open",
      movedAt: "2025-01-15T12:01:00.000Z",
    });
    expect((await w.call("deals_move_stage", { id: deal.id, stage: stageId("Proposal") })).unchanged).toBe(true);
    expect((await errorOf(() => w.call("deals_move_stage", { id: deal.id, stage: "Lost" }))).message).toContain(
      "lostReason",
    );
    expect((await errorOf(() => w.call("deals_move_stage", { id: deal.id, stage: "Won", lostReason: "x" }))).code).toBe(
      "validation",
    );
    expect((await errorOf(() => w.call("deals_move_stage", { id: deal.id, stage: "Nope" }))).message).toContain(
      "Lead (",
    );
    w.clock.advance(60_000);
    await w.call("deals_move_stage", { id: deal.id, stage: "Lost", lostReason: "Budget moved to 2026" });
    let got = await w.call("deals_get", { id: deal.id });
    expect(got).toMatchObject({
      status: "lost",
      lostReason: "Budget moved to 2026",
      closedAt: "2025-01-15T12:02:00.000Z",
    });
    const ev = (await w.events("deal.stage_changed")).at(-1)!;
    expect(ev.data).toMatchObject({
      fromStage: "Proposal",
      stage: "Lost",
      status: "lost",
      byUserId: w.users.olga,
      lostReason: "Budget moved to 2026",
    });
    // The lost reason belongs to lost deals only.
    expect((await errorOf(() => w.call("deals_update", { id: deal.id, lostReason: null }))).code).toBe("validation");
    await w.call("deals_move_stage", { id: deal.id, stage: "Negotiation" });
    got = await w.call("deals_get", { id: deal.id });
    expect(got).toMatchObject({ status: "open", lostReason: null, closedAt: null });
    expect(got.stageHistory.map((h: any) => `${h.from}>${h.to}:${h.by.id}`)).toEqual([
      `null>Lead:${w.users.olga}`,
      `Lead>Proposal:${w.users.ada}`,
      `Proposal>Lost:${w.users.olga}`,
      `Lost>Negotiation:${w.users.olga}`,
    ]);
  });

  test("fromStage makes a move conditional", async () => {
    const e = await errorOf(() => w.call("deals_move_stage", { id: deal.id, stage: "Won", fromStage: "Proposal" }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain('"Negotiation"');
    expect((await w.call("deals_move_stage", { id: deal.id, stage: "Won", fromStage: "negotiation" })).status).toBe(
      "won",
    );
  });

  test("update: fields and contacts, another tenant's contact is not found, changed listed", async () => {
    const c2 = await w.call("contacts_create", { firstName: "Max", emails: ["max@harbor.example"] });
    const r = await w.call("deals_update", {
      id: deal.id,
      amountCents: 1_300_000,
      addContactIds: [c2.id],
      name: "Website rebuild + SEO",
    });
    expect(r.changed.sort()).toEqual(["amountCents", "contactIds", "name"]);
    const theirs = await w.call("contacts_create", { firstName: "R", emails: ["r@rival.example"] }, w.ctx("rita"));
    expect((await errorOf(() => w.call("deals_update", { id: deal.id, addContactIds: [theirs.id] }))).code).toBe(
      "not_found",
    );
    expect((await errorOf(() => w.call("deals_get", { id: deal.id }, w.ctx("rita")))).code).toBe("not_found");
    expect((await errorOf(() => w.call("deals_create", { name: "x", amountCents: -1 }))).code).toBe("validation");
    expect((await errorOf(() => w.call("deals_create", { name: "x", amountCents: 1.5 }))).code).toBe("validation");
    expect((await errorOf(() => w.call("deals_create", { name: "x", amountCents: 1e20 }))).code).toBe("validation");
    expect((await errorOf(() => w.call("deals_create", { name: "x", amountCents: 1, currency: "euro" }))).code).toBe(
      "validation",
    );
    expect((await w.call("deals_list", { contactId: "max@harbor.example" })).items.map((d: any) => d.id)).toEqual([
      deal.id,
    ]);
    expect((await w.call("deals_list", { status: "won" })).total).toBe(1);
  });

  test("stages holding deals cannot be removed or change kind; empty ones can; an empty pipeline deletes", async () => {
    const won = pipe.stages.find((s: any) => s.name === "Won");
    const stages = pipe.stages
      .filter((s: any) => s.name !== "Won")
      .map((s: any) => ({ id: s.id, name: s.name, kind: s.kind, probability: s.probability }));
    expect(
      (
        await errorOf(() =>
          w.call("pipelines_update", { id: pipe.id, stages: [...stages, { name: "Closed", kind: "won" }] }),
        )
      ).message,
    ).toContain("Won (1)");
    const flipped = [
      ...pipe.stages.map((s: any) => ({ id: s.id, name: s.name, kind: s.id === won.id ? "open" : s.kind })),
      { name: "Closed won", kind: "won" },
    ];
    expect((await errorOf(() => w.call("pipelines_update", { id: pipe.id, stages: flipped }))).message).toContain(
      "kind",
    );
    // Reorder, rename, re-weight, add: Discovery 5% at the front.
    const next = [
      { name: "Discovery", probability: 5 },
      ...pipe.stages.map((s: any) => ({
        id: s.id,
        name: s.name === "Lead" ? "Inbound lead" : s.name,
        kind: s.kind,
        ...(s.kind === "open" && { probability: s.name === "Proposal" ? 40 : s.probability }),
      })),
    ];
    const up = await w.call("pipelines_update", { id: pipe.id, stages: next });
    expect(up.stages.map((s: any) => `${s.name}:${s.probability}`)).toEqual([
      "Discovery:5",
      "Inbound lead:10",
      "Qualified:25",
      "Proposal:40",
      "Negotiation:75",
      "Won:100",
      "Lost:0",
    ]);
    pipe = up;
    const empty = await w.call("pipelines_create", {
      name: "Empty",
      stages: [{ name: "Open" }, { name: "Yes", kind: "won" }, { name: "No", kind: "lost" }],
    });
    expect(await w.call("pipelines_delete", { id: empty.id })).toEqual({
      id: empty.id,
      status: "deleted",
      name: "Empty",
    });
    expect((await errorOf(() => w.call("pipelines_delete", { id: pipe.id }))).code).toBe("conflict");
  });
});

describe("forecast", () => {
  test("weighted per stage and month, won per month, per currency — hand-computed", async () => {
    const p = await w.call("pipelines_create", { name: "Forecast" });
    const mk = async (name: string, amountCents: number, stage: string, expectedClose?: string, currency = "USD") =>
      (
        await w.call("deals_create", {
          name,
          amountCents,
          currency,
          pipelineId: p.id,
          stage,
          ...(expectedClose && { expectedClose }),
        })
      ).id;
    await mk("A", 100_000, "Lead", "2025-02-10"); //    10% → 10,000 in Feb
    await mk("B", 333_333, "Proposal", "2025-02-28"); // 50% → 166,666.5 → 166,667 in Feb
    await mk("C", 250_000, "Negotiation", "2025-03-05"); // 75% → 187,500 in Mar
    await mk("D", 50_000, "Qualified", undefined, "EUR"); // 25% → 12,500 unscheduled (EUR)
    const e = await mk("E", 80_000, "Negotiation", "2025-01-20");
    await w.call("deals_move_stage", { id: e, stage: "Won" }); // 80,000 won in Jan
    const f = await mk("F", 40_000, "Lead", "2025-01-25");
    await w.call("deals_move_stage", { id: f, stage: "Lost", lostReason: "No fit" }); // not counted
    await mk("G", 99, "Qualified", "2025-01-31"); //     25% → 24.75 → 25 in Jan
    await mk("H", 1_000_000, "Proposal", "2025-09-01"); // 50% → 500,000, outside the window
    const fc = await w.call("pipelines_forecast", { id: p.id, from: "2025-01", months: 3 });
    expect(fc.from).toBe("2025-01");
    expect(fc.to).toBe("2025-03");
    expect(fc.toExclusive).toBe("2025-04");
    const [eur, usd] = fc.currencies;
    expect(usd.stages.map((s: any) => [s.stage, s.deals, s.amountCents, s.weightedCents])).toEqual([
      ["Lead", 1, 100_000, 10_000],
      ["Qualified", 1, 99, 25],
      ["Proposal", 2, 1_333_333, 666_667],
      ["Negotiation", 1, 250_000, 187_500],
    ]);
    expect(usd.months).toEqual([
      { month: "2025-01", weightedCents: 25, wonCents: 80_000 },
      { month: "2025-02", weightedCents: 176_667, wonCents: 0 },
      { month: "2025-03", weightedCents: 187_500, wonCents: 0 },
    ]);
    expect(usd.openAmountCents).toBe(1_683_432);
    expect(usd.weightedCents).toBe(864_192);
    expect(usd.unscheduledWeightedCents).toBe(0);
    expect(eur).toMatchObject({
      currency: "EUR",
      openAmountCents: 50_000,
      weightedCents: 12_500,
      unscheduledWeightedCents: 12_500,
    });
    expect(eur.months.every((m: any) => m.weightedCents === 0 && m.wonCents === 0)).toBe(true);
    // Default window: six months from the clock's month.
    const d = await w.call("pipelines_forecast", { id: p.id });
    expect(d.from).toBe("2025-01");
    expect(d.currencies[1].months.length).toBe(6);
    expect(d.currencies[1].months[5]).toEqual({ month: "2025-06", weightedCents: 0, wonCents: 0 });
    expect((await errorOf(() => w.call("pipelines_forecast", { id: p.id, from: "2025-13" }))).code).toBe("validation");
  });
});

describe("activities and the timeline", () => {
  test("tasks with due dates, completion and the open-task list; validation of kinds", async () => {
    const c = await w.call("contacts_create", { firstName: "Tasha", emails: ["tasha@client.example"] });
    expect((await errorOf(() => w.call("crm_activities_create", { kind: "call" }))).message).toContain("contactId");
    expect((await errorOf(() => w.call("crm_activities_create", { kind: "task", contactId: c.id }))).message).toContain(
      "subject",
    );
    expect(
      (
        await errorOf(() =>
          w.call("crm_activities_create", { kind: "call", contactId: c.id, dueAt: "2025-01-20T09:00:00Z" }),
        )
      ).message,
    ).toContain("for tasks");
    const t1 = await w.call("crm_activities_create", {
      kind: "task",
      subject: "Send proposal",
      contactId: c.id,
      dueAt: "2025-01-17T09:00:00Z",
    });
    const t2 = await w.call("crm_activities_create", {
      kind: "task",
      subject: "Follow up",
      contactId: c.id,
      dueAt: "2025-01-16T09:00:00Z",
      ownerId: "ada@acme.test",
    });
    await w.call("crm_activities_create", {
      kind: "call",
      subject: "Intro call",
      contactId: c.id,
      durationMinutes: 20,
      occurredAt: "2025-01-14T10:00:00Z",
    });
    const open = await w.call("crm_activities_list", { openTasks: true, contactId: c.id });
    expect(open.items.map((a: any) => a.subject)).toEqual(["Follow up", "Send proposal"]);
    expect(open.items[0].owner.email).toBe("ada@acme.test");
    const done = await w.call("crm_activities_update", { id: t2.id, completed: true });
    expect(done).toMatchObject({ action: "completed", completedAt: "2025-01-15T12:02:00.000Z" });
    expect(
      (await w.call("crm_activities_list", { openTasks: true, contactId: c.id })).items.map((a: any) => a.id),
    ).toEqual([t1.id]);
    expect((await w.call("crm_activities_update", { id: t2.id, completed: false })).action).toBe("reopened");
    expect(
      (await w.call("crm_activities_list", { dueBefore: "2025-01-16T12:00:00Z", contactId: c.id })).items.map(
        (a: any) => a.id,
      ),
    ).toEqual([t2.id]);
    const evs = (await w.events("crm_activity.changed")).filter((e) => e.entityId === t2.id).map((e) => e.data.action);
    expect(evs).toEqual(["created", "completed", "reopened"]);
    expect((await w.call("contacts_get", { id: c.id })).openTasks).toBe(2);
    expect((await errorOf(() => w.call("crm_activities_delete", { id: t1.id }, w.ctx("rita")))).code).toBe("not_found");
  });

  test("a contact's timeline mixes activities, deal stage changes and tickets, newest first; without tickets:read it says so", async () => {
    const c = await w.call("contacts_create", {
      firstName: "Tim",
      lastName: "Line",
      emails: ["tim@line.example", "t.line@gmail.com"],
    });
    w.clock.set(Date.parse("2025-02-01T09:00:00Z"));
    const d = await w.call("deals_create", {
      name: "Retainer",
      amountCents: 500_000,
      pipelineId: pipe.id,
      contactIds: [c.id],
    });
    w.clock.set(Date.parse("2025-02-02T09:00:00Z"));
    await w.call("crm_activities_create", { kind: "note", body: "Wants a retainer", contactId: c.id });
    w.clock.set(Date.parse("2025-02-03T09:00:00Z"));
    const t = await w.call("tickets_create", {
      subject: "Invoice question",
      requesterEmail: "t.line@gmail.com",
      body: "Hi",
    });
    w.clock.set(Date.parse("2025-02-04T09:00:00Z"));
    await w.call("deals_move_stage", { id: d.id, stage: "Proposal" });
    const tl = await w.call("crm_timeline_get", { contactId: "tim@line.example" });
    expect(tl.subject).toEqual({ type: "contact", id: c.id, name: "Tim Line" });
    expect(tl.items.map((i: any) => `${i.at.slice(0, 10)} ${i.type}`)).toEqual([
      "2025-02-04 stage_changed",
      "2025-02-03 ticket",
      "2025-02-02 note",
      "2025-02-01 deal_created",
      "2025-01-15 created",
    ]);
    expect(tl.items[1]).toMatchObject({ ticketId: t.id, subject: "Invoice question", requester: "t.line@gmail.com" });
    expect(tl.items[0]).toMatchObject({ deal: "Retainer", from: "Discovery", to: "Proposal" });
    const limited = await w.call("crm_timeline_get", { contactId: c.id }, w.ctx("olga", { scopes: ["crm:read"] }));
    expect(limited.items.map((i: any) => i.type)).not.toContain("ticket");
    expect(limited.note).toContain("tickets:read");
    expect((await w.call("crm_timeline_get", { dealId: d.id })).items.map((i: any) => i.type)).toEqual([
      "stage_changed",
      "deal_created",
    ]);
    expect((await errorOf(() => w.call("crm_timeline_get", { contactId: c.id, dealId: d.id }))).message).toContain(
      "exactly one",
    );
  });
});
