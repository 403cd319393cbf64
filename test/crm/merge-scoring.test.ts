/**
 * Merges that lose nothing and can be undone, and lead scoring against
 * hand-built cases (field rules, activity rules fading over time, the
 * decay job and its pending check; w.runJob holds the job to that check).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DAY_MS } from "../../src/core/clock";
import { scoreDecayJob } from "../../src/domains/crm/scoring";
import { errorOf, makeCrmWorld, type CWorld } from "./world";

let w: CWorld;
beforeAll(async () => {
  w = await makeCrmWorld();
  await w.call("crm_fields_create", {
    object: "contact",
    key: "tier",
    label: "Tier",
    type: "select",
    options: ["gold", "silver"],
  });
  await w.call("crm_fields_create", { object: "contact", key: "budget", label: "Budget", type: "number" });
});
afterAll(async () => await w.close());

describe("contact merge", () => {
  let a: any, b: any, _d1: any, d2: any, merge: any;
  test("keeps every email, phone, tag, activity and deal link; fields by rule and by choice", async () => {
    await w.call("pipelines_create", { name: "Sales" });
    a = await w.call("contacts_create", {
      firstName: "Anna",
      lastName: "Berg",
      emails: ["a@x.example"],
      phones: ["+1 555 0100"],
      tags: ["vip"],
      custom: { tier: "gold" },
      ownerId: "me",
    });
    b = await w.call("contacts_create", {
      firstName: "Ann",
      lastName: "Berg-Smith",
      emails: ["anna.berg@gmail.com"],
      phones: ["+1 (555) 0100", "mobile: +1 555 0199"],
      tags: ["newsletter"],
      jobTitle: "CEO",
      custom: { tier: "silver", budget: 500 },
      lifecycleStage: "customer",
      ownerId: "ada@acme.test",
    });
    await w.call("crm_activities_create", { kind: "note", body: "on A", contactId: a.id });
    const n1 = await w.call("crm_activities_create", { kind: "note", body: "on B 1", contactId: b.id });
    const n2 = await w.call("crm_activities_create", { kind: "call", contactId: b.id });
    _d1 = await w.call("deals_create", { name: "Only B", amountCents: 100, contactIds: [b.id] });
    d2 = await w.call("deals_create", { name: "Both", amountCents: 100, contactIds: [a.id, b.id] });
    expect(
      (await errorOf(() => w.call("contacts_merge", { id: a.id, mergeId: b.id, keep: { colour: "merged" } }))).message,
    ).toContain("keep.colour");
    expect((await errorOf(() => w.call("contacts_merge", { id: a.id, mergeId: a.id }))).code).toBe("validation");
    merge = await w.call("contacts_merge", {
      id: a.id,
      mergeId: "anna.berg@gmail.com",
      keep: { lifecycleStage: "merged", "custom.tier": "merged" },
    });
    expect(merge).toMatchObject({
      id: a.id,
      mergedId: b.id,
      activitiesMoved: 2,
      dealsLinked: 1,
      undoUntil: "2025-02-14T12:00:00.000Z",
    });
    const got = await w.call("contacts_get", { id: a.id });
    expect(got).toMatchObject({ firstName: "Anna", lastName: "Berg", jobTitle: "CEO", lifecycleStage: "customer" });
    expect(got.owner.id).toBe(w.users.olga);
    expect(got.emails).toEqual(["a@x.example", "anna.berg@gmail.com"]);
    expect(got.phones).toEqual([
      { number: "+1 555 0100", label: null },
      { number: "+1 555 0199", label: "mobile" },
    ]);
    expect(got.tags).toEqual(["newsletter", "vip"]);
    expect(got.custom).toEqual({ tier: "silver", budget: 500 });
    expect(got.deals.map((d: any) => d.name).sort()).toEqual(["Both", "Only B"]);
    const acts = (await w.call("crm_activities_list", { contactId: a.id })).items.map((x: any) => x.id);
    expect(acts).toContain(n1.id);
    expect(acts).toContain(n2.id);
    expect(acts.length).toBe(3);
    expect((await w.call("deals_get", { id: d2.id })).contacts.map((c: any) => c.id)).toEqual([a.id]);
    // The merged contact points to the survivor; its address finds the survivor; a new create with it is a duplicate.
    expect((await errorOf(() => w.call("contacts_get", { id: b.id }))).message).toContain(
      `merged into contact ${a.id}`,
    );
    expect((await w.call("contacts_get", { id: "anna.berg@gmail.com" })).id).toBe(a.id);
    expect((await w.call("contacts_create", { firstName: "Ann", emails: ["anna.berg@gmail.com"] })).id).toBe(a.id);
    expect((await w.call("crm_search", { q: "berg" })).items.map((i: any) => i.id)).toEqual([a.id]);
    const ev = (await w.events("crm_record.merged")).at(-1)!;
    expect(ev.data).toEqual({
      object: "contact",
      action: "merged",
      survivorId: a.id,
      mergedId: b.id,
      survivorName: "Anna Berg",
      mergedName: "Ann Berg-Smith",
    });
  });

  test("undo within the window restores the merged contact and the survivor's untouched fields", async () => {
    await w.call("contacts_update", { id: a.id, jobTitle: "Founder" });
    const u = await w.call("crm_merges_undo", { id: merge.mergeId });
    expect(u).toMatchObject({
      status: "undone",
      survivorId: a.id,
      restoredId: b.id,
      emailsBack: ["anna.berg@gmail.com"],
    });
    expect(u.warnings.join(" ")).toContain("jobTitle");
    const ga = await w.call("contacts_get", { id: a.id });
    expect(ga).toMatchObject({
      jobTitle: "Founder",
      lifecycleStage: "lead",
      emails: ["a@x.example"],
      tags: ["vip"],
      custom: { tier: "gold" },
    });
    expect(ga.phones).toEqual([{ number: "+1 555 0100", label: null }]);
    expect(ga.deals.map((d: any) => d.name)).toEqual(["Both"]);
    const gb = await w.call("contacts_get", { id: "anna.berg@gmail.com" });
    expect(gb).toMatchObject({
      id: b.id,
      jobTitle: "CEO",
      lifecycleStage: "customer",
      custom: { tier: "silver", budget: 500 },
    });
    expect(gb.deals.map((d: any) => d.name).sort()).toEqual(["Both", "Only B"]);
    expect((await w.call("crm_activities_list", { contactId: b.id })).total).toBe(2);
    expect((await w.call("crm_activities_list", { contactId: a.id })).total).toBe(1);
    expect((await errorOf(() => w.call("crm_merges_undo", { id: merge.mergeId }))).code).toBe("conflict");
    expect((await w.call("crm_merges_list", {})).items[0]).toMatchObject({ id: merge.mergeId, undoable: false });
  });

  test("after 30 days a merge can no longer be undone; at exactly 30 days it still can", async () => {
    const m = await w.call("contacts_merge", { id: a.id, mergeId: b.id });
    const c1 = await w.call("contacts_create", { firstName: "C1", emails: ["c1@x.example"] });
    const c2 = await w.call("contacts_create", { firstName: "C2", emails: ["c2@x.example"] });
    const m2 = await w.call("contacts_merge", { id: c1.id, mergeId: c2.id });
    w.clock.advance(30 * DAY_MS);
    expect((await w.call("crm_merges_undo", { id: m.mergeId })).status).toBe("undone");
    w.clock.advance(1);
    const e = await errorOf(() => w.call("crm_merges_undo", { id: m2.mergeId }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain("30 days");
  });
});

describe("company merge", () => {
  test("contacts, deals and activities move; the survivor takes the domain; undo gives it back", async () => {
    const s = await w.call("crm_companies_create", { name: "Acme Ltd", industry: "Retail" });
    const l = await w.call("crm_companies_create", {
      name: "ACME",
      domain: "acme.co.uk",
      size: "11-50",
      industry: "E-commerce",
    });
    const c = await w.call("contacts_create", { firstName: "Kai", emails: ["kai@acme.co.uk"] });
    expect((await w.call("contacts_get", { id: c.id })).company.id).toBe(l.id);
    const d = await w.call("deals_create", { name: "Acme deal", amountCents: 5, companyId: l.id });
    const act = await w.call("crm_activities_create", { kind: "meeting", companyId: l.id });
    const m = await w.call("crm_companies_merge", { id: s.id, mergeId: "acme.co.uk" });
    expect(m).toMatchObject({ domain: "acme.co.uk", contactsMoved: 1, dealsMoved: 1, activitiesMoved: 1 });
    const got = await w.call("crm_companies_get", { id: "acme.co.uk" });
    expect(got).toMatchObject({ id: s.id, name: "Acme Ltd", size: "11-50", industry: "Retail" });
    expect(got.contacts.map((x: any) => x.id)).toEqual([c.id]);
    expect(got.deals.map((x: any) => x.id)).toEqual([d.id]);
    expect((await w.call("crm_companies_create", { name: "Again", domain: "acme.co.uk" })).id).toBe(s.id);
    const u = await w.call("crm_merges_undo", { id: m.mergeId });
    expect(u.status).toBe("undone");
    expect((await w.call("crm_companies_get", { id: "acme.co.uk" })).id).toBe(l.id);
    expect((await w.call("crm_companies_get", { id: s.id })).domain).toBeNull();
    expect((await w.call("contacts_get", { id: c.id })).company.id).toBe(l.id);
    expect((await w.call("deals_get", { id: d.id })).company.id).toBe(l.id);
    expect((await w.call("crm_activities_list", { companyId: l.id })).items.map((x: any) => x.id)).toEqual([act.id]);
  });
});

describe("lead scoring", () => {
  test("field and activity rules, linear decay, the hourly job, events, breakdown — hand-computed", async () => {
    const c = await w.call("contacts_create", {
      firstName: "Lea",
      emails: ["lea@BigCo.example"],
      lifecycleStage: "customer",
      tags: ["vip"],
      custom: { tier: "gold" },
    });
    const rule = (r: Record<string, unknown>) => w.call("scoring_rules_create", r);
    await rule({ name: "Customer", field: "lifecycleStage", op: "eq", value: "customer", points: 20 });
    await rule({ name: "Big company", field: "emailDomain", value: "bigco.example", points: 15 });
    const meeting = await rule({ name: "Meetings", activityKind: "meeting", points: 10, decayDays: 10 });
    await rule({ name: "Gold tier", field: "custom.tier", value: "gold", points: 5 });
    await rule({ name: "VIP", field: "tags", op: "contains", value: "vip", points: 7 });
    await rule({ name: "Students", field: "jobTitle", op: "contains", value: "student", points: -30 });
    expect((await errorOf(() => rule({ name: "Bad", field: "shoeSize", value: 1, points: 1 }))).message).toContain(
      "field is one of",
    );
    expect((await errorOf(() => rule({ name: "Bad", points: 1 }))).message).toContain("field");
    expect(
      (await errorOf(() => rule({ name: "Bad", field: "jobTitle", value: "x", points: 1, decayDays: 3 }))).message,
    ).toContain("activity rules");
    // 20 + 15 + 5 + 7 = 47
    expect((await w.call("contacts_get", { id: c.id })).score).toBe(47);
    await w.call("crm_activities_create", { kind: "meeting", contactId: c.id });
    expect((await w.call("contacts_get", { id: c.id })).score).toBe(57);
    // Three days later the meeting is worth 10 × (1 − 3/10) = 7 → 54, once the job has run.
    w.clock.advance(3 * DAY_MS);
    await w.runJob("crm.score_decay");
    const got = await w.call("contacts_get", { id: c.id });
    expect(got.score).toBe(54);
    expect(got.scoreBreakdown).toEqual([
      { ruleId: expect.any(Number), name: "Customer", points: 20 },
      { ruleId: expect.any(Number), name: "Big company", points: 15 },
      { ruleId: meeting.id, name: "Meetings", points: 7 },
      { ruleId: expect.any(Number), name: "Gold tier", points: 5 },
      { ruleId: expect.any(Number), name: "VIP", points: 7 },
    ]);
    // A student job title takes 30 off at once (recomputed on update).
    expect((await w.call("contacts_update", { id: c.id, jobTitle: "PhD Student" })).score).toBe(24);
    w.clock.advance(7 * DAY_MS);
    await w.runJob("crm.score_decay");
    expect((await w.call("contacts_get", { id: c.id })).score).toBe(17);
    const changes = (await w.events("contact.score_changed"))
      .filter((e) => e.entityId === c.id)
      .map((e) => `${e.data.from}>${e.data.to}`);
    expect(changes).toEqual(["0>20", "20>35", "35>40", "40>47", "47>57", "57>54", "54>24", "24>17"]);
    // Past its window the meeting counts nothing, never less: 25 days on (15 past the 10-day window) the score
    // is still 17, the breakdown shows no negative meeting points, and no change event is written.
    w.clock.advance(15 * DAY_MS);
    await w.runJob("crm.score_decay");
    const late = await w.call("contacts_get", { id: c.id });
    expect(late.score).toBe(17);
    expect(late.scoreBreakdown.filter((b: any) => b.ruleId === meeting.id && b.points !== 0)).toEqual([]);
    expect((await w.events("contact.score_changed")).filter((e) => e.entityId === c.id)).toHaveLength(changes.length);
    // Rule changes rescore; recompute is idempotent.
    await w.call("scoring_rules_update", { id: meeting.id, points: 50, decayDays: null });
    expect((await w.call("contacts_get", { id: c.id })).score).toBe(67);
    expect((await w.call("scoring_rules_recompute", {})).contactsChanged).toBe(0);
    expect((await w.call("contacts_list", { minScore: 60, sort: "score" })).items.map((x: any) => x.id)).toEqual([
      c.id,
    ]);
    expect((await w.call("scoring_rules_delete", { id: meeting.id })).contactsRescored).toBeGreaterThanOrEqual(1);
    expect((await w.call("contacts_get", { id: c.id })).score).toBe(17);
  });

  test("the decay job's check: some scoring rule fades (has decayDays); none, no work", async () => {
    const pending = () => scoreDecayJob.pending!(w.deps);
    // The rules left by the test above add points for fields only.
    expect(await pending()).toBe(false);
    await w.runJob("crm.score_decay"); // held to the check: it must not write
    const calls = await w.call("scoring_rules_create", { name: "Calls", activityKind: "call", points: 5 });
    expect(await pending()).toBe(false);
    await w.call("scoring_rules_update", { id: calls.id, decayDays: 30 });
    expect(await pending()).toBe(true);
    await w.runJob("crm.score_decay");
    await w.call("scoring_rules_update", { id: calls.id, decayDays: null });
    expect(await pending()).toBe(false);
    await w.call("scoring_rules_delete", { id: calls.id });
  });
});
