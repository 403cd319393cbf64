/**
 * Billing: the maths against hand-computed invoices (time at an hourly
 * rate, service requests, custom lines, tax rounded half up), gapless
 * numbering (also under concurrency), the draft → open → paid/void life,
 * overdue at the exact due instant, period-end invoices with catch-up and
 * no duplicates, read-only access for agents, tenancy, and the PDF.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { extractText, getDocumentProxy } from "unpdf";
import { events } from "../../src/core/tables";
import { billingDomain } from "../../src/domains/billing/tools";
import { addMonths, divRoundHalfUp, periodOf, taxOf, timeAmount, totals } from "../../src/domains/billing/money";
import { createInvoice, deleteDraft, issueInvoice, markPaid, voidInvoice } from "../../src/domains/billing/invoices";
import { saveSettings } from "../../src/domains/billing/settings";
import { cancelSubscription, createSubscription } from "../../src/domains/billing/subscriptions";
import { notifications } from "../../src/domains/notifications/tables";
import { invoiceDueSubscriptions, markOverdue } from "../jobs";
import { workDomains } from "../../src/domains/projects/tools";
import { serviceCatalog, serviceRequests } from "../../src/domains/services/tables";
import { makeWorld, type World } from "../hosting/world";

const DAY = 86_400_000;
let w: World;
let person: ReturnType<World["ctx"]>;

const SETTINGS = {
  currency: "USD" as const,
  hourlyRateCents: 12_345,
  taxName: "Sales tax",
  taxBasisPoints: 825,
  paymentTermsDays: 14,
  sellerName: "Harbor & Co. Studio",
  sellerDetails: "12 Quay Street\nPortland, ME",
  billingAddress: "Acme Inc.\n1 Main St",
};

beforeAll(async () => {
  w = await makeWorld([billingDomain, ...workDomains], { start: new Date("2026-03-10T12:00:00Z") });
  person = w.ctx({ kind: "session" });
  await saveSettings(person, SETTINGS);
  // Work to bill: card A 90 + 45 min, card B 7 min, one non-billable log, one after the cut-off day.
  await w.call("projects_create", { name: "Website", key: "WEB" });
  await w.call("cards_create", { projectId: "WEB", title: "Home page" });
  await w.call("cards_create", { projectId: "WEB", title: "Contact form" });
  await w.call("time_logs_create", { cardId: "WEB-1", minutes: 90, workedOn: "2026-03-02" });
  await w.call("time_logs_create", { cardId: "WEB-1", minutes: 45, workedOn: "2026-03-03" });
  await w.call("time_logs_create", { cardId: "WEB-2", minutes: 7, workedOn: "2026-03-04" });
  await w.call("time_logs_create", { cardId: "WEB-2", minutes: 600, workedOn: "2026-03-04", billable: false });
  await w.call("time_logs_create", { cardId: "WEB-2", minutes: 30, workedOn: "2026-03-09" });
  // Services: a done request of a priced service, an open one, and the rival's done one.
  const logo = (
    await w.deps.db
      .insert(serviceCatalog)
      .values({ companyId: w.companyId, name: "Logo refresh", priceCents: 45_000, unit: "project" })
      .returning()
  )[0]!;
  const rivalSvc = (
    await w.deps.db
      .insert(serviceCatalog)
      .values({ companyId: w.otherCompanyId, name: "Rival work", priceCents: 99_900 })
      .returning()
  )[0]!;
  await w.deps.db.insert(serviceRequests).values([
    { companyId: w.companyId, serviceId: logo.id, status: "done", createdAt: new Date("2026-03-05T10:00:00Z") },
    { companyId: w.companyId, serviceId: logo.id, status: "open", createdAt: new Date("2026-03-05T11:00:00Z") },
    {
      companyId: w.otherCompanyId,
      serviceId: rivalSvc.id,
      status: "done",
      createdAt: new Date("2026-03-05T10:00:00Z"),
    },
  ]);
});
afterAll(async () => {
  await w?.close();
});

describe("money", () => {
  test("half-up rounding, time at an hourly rate, tax in basis points", () => {
    expect(divRoundHalfUp(5n, 2n)).toBe(3n);
    expect(divRoundHalfUp(4n, 2n)).toBe(2n);
    expect(divRoundHalfUp(149n, 100n)).toBe(1n);
    expect(divRoundHalfUp(150n, 100n)).toBe(2n);
    // 135 min at $123.45/h = 27 776.25 cents → 27 776; 7 min = 1 440.25 → 1 440; 1 min at 99.99 = 166.65 → 167.
    expect(timeAmount(135, 12_345)).toBe(27_776);
    expect(timeAmount(7, 12_345)).toBe(1_440);
    expect(timeAmount(1, 9_999)).toBe(167);
    expect(timeAmount(30, 1)).toBe(1); // 0.5 → 1
    expect(timeAmount(29, 1)).toBe(0);
    // 8.25 % of $19.99 = 164.9175 → 165; 25 % of 2 cents = 0.5 → 1; of 1 cent = 0.25 → 0.
    expect(taxOf(1_999, 825)).toBe(165);
    expect(taxOf(2, 2_500)).toBe(1);
    expect(taxOf(1, 2_500)).toBe(0);
    // No precision lost on huge amounts (beyond 2^53 inside).
    expect(taxOf(1_000_000_000_000_000, 10_000)).toBe(1_000_000_000_000_000);
    expect(totals([100, 200, 1], 1_000)).toEqual({ subtotalCents: 301, taxCents: 30, totalCents: 331 });
  });

  test("periods count from the anchor; short months clamp the day", () => {
    const jan31 = new Date("2026-01-31T09:00:00Z");
    expect(addMonths(jan31, 1).toISOString()).toBe("2026-02-28T09:00:00.000Z");
    expect(addMonths(jan31, 2).toISOString()).toBe("2026-03-31T09:00:00.000Z");
    expect(addMonths(new Date("2028-01-31T00:00:00Z"), 1).toISOString()).toBe("2028-02-29T00:00:00.000Z");
    expect(addMonths(jan31, -2).toISOString()).toBe("2025-11-30T09:00:00.000Z");
    const p = periodOf(jan31, "month", 1, 1);
    expect([p.start.toISOString(), p.end.toISOString()]).toEqual([
      "2026-02-28T09:00:00.000Z",
      "2026-03-31T09:00:00.000Z",
    ]);
    const y = periodOf(new Date("2024-02-29T00:00:00Z"), "year", 1, 1);
    expect([y.start.toISOString(), y.end.toISOString()]).toEqual([
      "2025-02-28T00:00:00.000Z",
      "2026-02-28T00:00:00.000Z",
    ]);
  });
});

describe("an invoice by hand", () => {
  let first: any;

  test("a draft bills unbilled billable time (per card) and done service requests up to the day, plus custom lines; totals hand-computed", async () => {
    const d = await createInvoice(person, {
      usageUpTo: "2026-03-08",
      lines: [{ description: "Hosting (March)", quantity: 3, unitAmountCents: 1_999 }],
      memo: "Thank you!",
    });
    expect(d).toMatchObject({ status: "draft", number: null, issuedAt: null, dueAt: null, currency: "USD" });
    first = await w.call("invoices_get", { id: d.id });
    expect(first.lines.map((l: any) => [l.kind, l.quantity, l.unit, l.unitAmountCents, l.amountCents])).toEqual([
      ["custom", 3, "item", 1_999, 5_997],
      ["time", 135, "minute", 12_345, 27_776],
      ["time", 7, "minute", 12_345, 1_440],
      ["service", 1, "project", 45_000, 45_000],
    ]);
    expect(first.lines[1].description).toBe("Time on WEB-1: 2.25 h (2 logs, 2026-03-02 to 2026-03-03)");
    expect(first.lines[3].description).toMatch(/^Logo refresh \(service request #\d+\)$/);
    // 5 997 + 27 776 + 1 440 + 45 000 = 80 213; 8.25 % = 6 617.5725 → 6 618; total 86 831.
    expect(first).toMatchObject({
      subtotalCents: 80_213,
      taxName: "Sales tax",
      taxRate: 8.25,
      taxCents: 6_618,
      totalCents: 86_831,
      memo: "Thank you!",
    });
    const ev = await w.deps.db.select().from(events).where(eq(events.type, "invoice.created"));
    expect(ev.at(-1)!.data).toEqual({ currency: "USD", totalCents: 86_831, subtotalCents: 80_213, lineCount: 4 });
  });

  test("issuing numbers it and sets the due date exactly the payment terms later; a deleted draft uses no number", async () => {
    const scrap = await createInvoice(person, {
      includeUsage: false,
      lines: [{ description: "Scrap", quantity: 1, unitAmountCents: 100 }],
    });
    expect(await deleteDraft(person, { id: scrap.id })).toEqual({ id: scrap.id, status: "deleted" });
    const issued = await issueInvoice(person, { id: first.id });
    expect(issued).toMatchObject({
      number: "INV-000001",
      status: "open",
      issuedAt: "2026-03-10T12:00:00.000Z",
      dueAt: "2026-03-24T12:00:00.000Z",
      amountDueCents: 86_831,
    });
    expect((await w.err("invoices_get", { id: scrap.id })).code).toBe("not_found");
    expect(await w.call("invoices_get", { number: "inv-000001" })).toMatchObject({ id: first.id });
    expect((await issueInvoice(person, { id: first.id }).catch((e) => e)).code).toBe("conflict");
  });

  test("what an invoice bills is not billed again; voiding releases it", async () => {
    const nothing = await createInvoice(person, { usageUpTo: "2026-03-08" }).catch((e) => e);
    expect(nothing.code).toBe("validation");
    expect(nothing.message).toMatch(/^Nothing to invoice/);
    // The log of 9 March is after the first cut-off: billable now.
    const later = await createInvoice(person, {});
    const l = await w.call("invoices_get", { id: later.id });
    expect(l.lines.map((x: any) => [x.description.slice(0, 15), x.amountCents])).toEqual([["Time on WEB-2: ", 6_173]]); // 30 × 12 345 / 60 = 6 172.5 → 6 173
    await deleteDraft(person, { id: later.id });
    const voided = await voidInvoice(person, { id: first.id });
    expect(voided).toMatchObject({ status: "void", number: "INV-000001", amountDueCents: 0 });
    const again = await createInvoice(person, { usageUpTo: "2026-03-08" });
    expect((await w.call("invoices_get", { id: again.id })).subtotalCents).toBe(27_776 + 1_440 + 45_000);
    await deleteDraft(person, { id: again.id });
  });
});

describe("overdue at the exact instant, then paid", () => {
  let inv: any;
  test("open until one millisecond before the due instant, overdue from it — in reads and through the job", async () => {
    const d = await createInvoice(person, {
      includeUsage: false,
      lines: [{ description: "Retainer", quantity: 1, unitAmountCents: 250_000 }],
    });
    inv = await issueInvoice(person, { id: d.id });
    expect(inv.number).toBe("INV-000002");
    const due = Date.parse(inv.dueAt);
    w.clock.set(due - 1);
    expect((await w.call("invoices_get", { id: inv.id })).status).toBe("open");
    expect(await markOverdue(w.deps)).toBe(0);
    expect((await w.call("invoices_list", { status: "overdue" })).total).toBe(0);
    w.clock.set(due);
    expect((await w.call("invoices_get", { id: inv.id })).status).toBe("overdue");
    expect((await w.call("invoices_list", { status: "overdue" })).items.map((i: any) => i.id)).toEqual([inv.id]);
    expect((await w.call("invoices_list", { status: "open" })).total).toBe(0);
    expect(await markOverdue(w.deps)).toBe(1);
    expect(await markOverdue(w.deps)).toBe(0);
    const ev = await w.deps.db.select().from(events).where(eq(events.type, "invoice.overdue"));
    expect(ev.map((e) => e.data)).toEqual([
      { number: "INV-000002", currency: "USD", totalCents: 270_625, dueAt: inv.dueAt },
    ]);
    // 2 500.00 + 8.25 % (206.25) = 2 706.25.
    const told = await w.deps.db.select().from(notifications).where(eq(notifications.type, "invoice.overdue"));
    // The job acts for nobody: every owner and admin is told, viewers are not.
    expect(told.map((n) => n.userId).sort()).toEqual([w.users.owner, w.users.admin].sort());
    expect(told[0]).toMatchObject({ title: "Invoice INV-000002 is overdue", link: `/billing#invoice-${inv.id}` });
  });

  test("marked paid with a reference; paying twice, paying in the future or voiding a paid invoice is refused", async () => {
    expect((await markPaid(person, { id: inv.id, paidAt: new Date(w.clock.ms() + 1000) }).catch((e) => e)).code).toBe(
      "validation",
    );
    const paid = await markPaid(person, { id: inv.id, reference: "Wire 7781" });
    expect(paid).toMatchObject({ status: "paid", amountDueCents: 0 });
    expect((await w.call("invoices_get", { id: inv.id })).paymentReference).toBe("Wire 7781");
    expect((await markPaid(person, { id: inv.id }).catch((e) => e)).code).toBe("conflict");
    expect((await voidInvoice(person, { id: inv.id }).catch((e) => e)).code).toBe("conflict");
  });
});

describe("subscriptions invoiced at period end", () => {
  test("monthly from 31 January: one invoice per ended period, catch-up after downtime, never twice", async () => {
    w.clock.set(new Date("2026-02-01T00:00:00Z"));
    const sub = await createSubscription(person, {
      planName: "Care plan",
      unitAmountCents: 50_000,
      quantity: 2,
      interval: "month",
      startsAt: new Date("2026-01-31T09:00:00Z"),
      includeUsage: false,
    });
    expect(sub).toMatchObject({
      currentPeriodStart: "2026-01-31T09:00:00.000Z",
      currentPeriodEnd: "2026-02-28T09:00:00.000Z",
      amountCents: 100_000,
      currency: "USD",
    });
    w.clock.set(new Date("2026-02-28T08:59:59.999Z"));
    expect(await invoiceDueSubscriptions(w.deps)).toBe(0);
    w.clock.set(new Date("2026-02-28T09:00:00Z"));
    expect(await invoiceDueSubscriptions(w.deps)).toBe(1);
    expect(await invoiceDueSubscriptions(w.deps)).toBe(0);
    // Down from March to mid-May: March and April's periods are caught up, oldest first, issued when each ended.
    w.clock.set(new Date("2026-05-15T00:00:00Z"));
    expect(await invoiceDueSubscriptions(w.deps)).toBe(2);
    const list = await w.call("invoices_list", { subscriptionId: sub.id });
    expect(
      list.items.map((i: any) => [i.number, i.periodStart, i.periodEnd, i.issuedAt, i.dueAt, i.totalCents]).reverse(),
    ).toEqual([
      [
        "INV-000003",
        "2026-01-31T09:00:00.000Z",
        "2026-02-28T09:00:00.000Z",
        "2026-02-28T09:00:00.000Z",
        "2026-03-14T09:00:00.000Z",
        108_250,
      ],
      [
        "INV-000004",
        "2026-02-28T09:00:00.000Z",
        "2026-03-31T09:00:00.000Z",
        "2026-03-31T09:00:00.000Z",
        "2026-04-14T09:00:00.000Z",
        108_250,
      ],
      [
        "INV-000005",
        "2026-03-31T09:00:00.000Z",
        "2026-04-30T09:00:00.000Z",
        "2026-04-30T09:00:00.000Z",
        "2026-05-14T09:00:00.000Z",
        108_250,
      ],
    ]);
    // The caught-up invoices whose terms have passed read as overdue at once.
    expect(list.items.every((i: any) => i.status === "overdue")).toBe(true);
    const got = await w.call("subscriptions_get", { id: sub.id });
    expect(got).toMatchObject({
      periodsInvoiced: 3,
      currentPeriodStart: "2026-04-30T09:00:00.000Z",
      nextInvoiceAt: "2026-05-31T09:00:00.000Z",
    });
    expect(got.recentInvoices).toHaveLength(3);
    const line = (await w.call("invoices_get", { number: "INV-000004" })).lines[0];
    expect(line).toMatchObject({
      kind: "subscription",
      description: "Care plan (2026-02-28 to 2026-03-31)",
      quantity: 2,
      unit: "month",
      unitAmountCents: 50_000,
      amountCents: 100_000,
    });
    await cancelSubscription(person, { id: sub.id });
    w.clock.set(new Date("2026-07-01T00:00:00Z"));
    expect(await invoiceDueSubscriptions(w.deps)).toBe(0);
    expect((await w.call("subscriptions_list", { status: "canceled" })).items.map((s: any) => s.id)).toEqual([sub.id]);
  });

  test("a period invoice bills the usage not yet billed, up to the period's end", async () => {
    w.clock.set(new Date("2026-07-01T00:00:00Z"));
    await w.call("time_logs_create", { cardId: "WEB-1", minutes: 60, workedOn: "2026-07-01" });
    const sub = await createSubscription(person, { planName: "Retainer", unitAmountCents: 10_000, interval: "month" });
    w.clock.set(new Date("2026-08-01T00:00:00Z"));
    expect(await invoiceDueSubscriptions(w.deps)).toBe(1);
    const inv = (await w.call("invoices_list", { subscriptionId: sub.id })).items[0];
    const full = await w.call("invoices_get", { id: inv.id });
    // The released (voided) March work, the 9 March log, and July's hour: 27 776 + 1 440 + 6 173 + 12 345 + 45 000 + 10 000.
    expect(full.lines.map((l: any) => l.kind)).toEqual(["subscription", "time", "time", "service"]);
    expect(full.subtotalCents).toBe(10_000 + 27_776 + 12_345 + 1_440 + 6_173 + 45_000);
  });
});

describe("concurrency", () => {
  test("20 drafts issued at once take 20 consecutive numbers, none twice, none skipped", async () => {
    const drafts = [];
    for (let i = 0; i < 20; i++)
      drafts.push(
        await createInvoice(person, {
          includeUsage: false,
          lines: [{ description: `Item ${i}`, quantity: 1, unitAmountCents: 100 + i }],
        }),
      );
    const before = (await w.call("invoices_list", { limit: 100 })).items.filter((i: any) => i.number).length;
    const issued = await Promise.all(drafts.map((d) => issueInvoice(person, { id: d.id })));
    const seqs = issued.map((i) => Number(i.number!.slice(4))).sort((a, b) => a - b);
    expect(seqs).toEqual(Array.from({ length: 20 }, (_, i) => before + 1 + i));
  });

  test("two job runs racing invoice each period once", async () => {
    const sub = await createSubscription(person, {
      planName: "Race",
      unitAmountCents: 1_000,
      interval: "month",
      includeUsage: false,
    });
    const retainer = (await w.call("subscriptions_list", { status: "active" })).items.find(
      (s: any) => s.planName === "Retainer",
    );
    const retainerBefore = (await w.call("invoices_list", { subscriptionId: retainer.id })).total;
    w.clock.advance(95 * DAY);
    const [a, b] = await Promise.all([invoiceDueSubscriptions(w.deps), invoiceDueSubscriptions(w.deps)]);
    // Three ended periods of Race and three of Retainer, each invoiced by exactly one of the two runs.
    expect(a + b).toBe(6);
    const race = (await w.call("invoices_list", { subscriptionId: sub.id })).items;
    expect(race).toHaveLength(3);
    expect(new Set(race.map((i: any) => i.periodStart)).size).toBe(3);
    expect((await w.call("invoices_list", { subscriptionId: retainer.id })).total).toBe(retainerBefore + 3);
  });
});

describe("who may do what", () => {
  test("agents never write billing, whatever their scopes; viewers neither; people who manage do", async () => {
    for (const kind of ["mcp_key", "oauth", "approval_link"] as const) {
      const e = await createInvoice(w.ctx({ kind }), {
        lines: [{ description: "x", quantity: 1, unitAmountCents: 1 }],
      }).catch((x) => x);
      expect(e.code).toBe("forbidden");
      expect(e.message).toMatch(/^Billing is changed by the agency's people in the portal/);
    }
    expect((await saveSettings(w.ctx({ kind: "mcp_key" }), SETTINGS).catch((e) => e)).code).toBe("forbidden");
    expect(
      (
        await createSubscription(w.ctx({ kind: "session", role: "viewer" }), {
          planName: "x",
          unitAmountCents: 1,
          interval: "month",
        }).catch((e) => e)
      ).code,
    ).toBe("forbidden");
    // No tool of the toolset writes.
    expect(billingDomain.tools.every((t) => t.readOnly && t.scope === "billing:read")).toBe(true);
  });

  test("reads: a viewer with billing:read reads; another scope is refused; other companies' records are not found", async () => {
    const viewer = w.ctx({ role: "viewer", scopes: ["billing:read"] });
    expect((await w.call("invoices_list", {}, viewer)).total).toBeGreaterThan(20);
    expect((await w.err("invoices_list", {}, w.ctx({ scopes: ["projects:read"] }))).code).toBe("forbidden");
    const rival = w.ctx({ company: "other", kind: "session" });
    await saveSettings(rival, { ...SETTINGS, currency: "EUR" });
    const r = await createInvoice(rival, {
      includeUsage: false,
      lines: [{ description: "Rival", quantity: 1, unitAmountCents: 500 }],
    });
    const rs = await createSubscription(rival, { planName: "Rival plan", unitAmountCents: 500, interval: "year" });
    expect((await w.err("invoices_get", { id: r.id })).code).toBe("not_found");
    expect((await w.err("invoices_pdf", { id: r.id })).code).toBe("not_found");
    expect((await w.err("subscriptions_get", { id: rs.id })).code).toBe("not_found");
    expect((await w.err("invoices_list", { subscriptionId: rs.id })).code).toBe("not_found");
    expect((await w.err("invoices_get", { number: "' or 1=1 --" })).code).toBe("not_found");
    expect((await w.err("invoices_get", {})).code).toBe("validation");
    expect((await w.err("invoices_list", { from: "2026-02-30" })).code).toBe("validation");
    // The rival's currency and usage stay its own.
    expect((await w.call("billing_summary", {}, w.ctx({ company: "other" }))).currency).toBe("EUR");
  });

  test("bad input is refused with a clear message and writes nothing", async () => {
    const n = (await w.call("invoices_list", { limit: 1 })).total;
    const bad = [
      () => createInvoice(person, { lines: [{ description: "x", quantity: 1, unitAmountCents: -1 }] }),
      () => createInvoice(person, { lines: [{ description: "x", quantity: 1, unitAmountCents: 1e20 }] }),
      () => createInvoice(person, { lines: [{ description: "", quantity: 1, unitAmountCents: 1 }] }),
      () => createInvoice(person, { lines: [{ description: "a\u0000b", quantity: 1, unitAmountCents: 1 }] }),
      () => createInvoice(person, { lines: [{ description: "x", quantity: 0.5, unitAmountCents: 1 }] }),
      () => createInvoice(person, { usageUpTo: "2099-01-01" }),
      () => createSubscription(person, { planName: "x", unitAmountCents: 1, interval: "week" as any }),
      () =>
        createSubscription(person, { planName: "x", unitAmountCents: 10_000_000_000, quantity: 2, interval: "month" }),
      () => saveSettings(person, { ...SETTINGS, currency: "JPY" as any }),
      () => saveSettings(person, { ...SETTINGS, taxBasisPoints: 10_001 }),
    ];
    for (const b of bad) expect((await b().catch((e) => e)).code).toBe("validation");
    expect((await w.call("invoices_list", { limit: 1 })).total).toBe(n);
  });
});

describe("summary and PDF", () => {
  test("the summary adds up: recurring revenue per month, outstanding and overdue", async () => {
    const s = await w.call("billing_summary", {});
    const subs = (await w.call("subscriptions_list", { status: "active" })).items;
    // Active: Retainer $100/month and Race $10/month (Care plan canceled) → 11 000 cents a month.
    expect(subs.map((x: any) => x.planName).sort()).toEqual(["Race", "Retainer"]);
    expect(s).toMatchObject({ currency: "USD", taxRate: 8.25, activeSubscriptions: 2, monthlyRecurringCents: 11_000 });
    const all = (await w.call("invoices_list", { limit: 100 })).items;
    const sum = (st: string) =>
      all.filter((i: any) => i.status === st).reduce((a: number, i: any) => a + i.totalCents, 0);
    expect(s.overdueCents).toBe(sum("overdue"));
    expect(s.outstandingCents).toBe(sum("overdue") + sum("open"));
    expect(s.invoices.paid).toEqual({ count: 1, totalCents: 270_625 });
  });

  test("the PDF carries the number, parties, lines and totals", async () => {
    const meta = await w.call("invoices_pdf", { number: "INV-000001" });
    expect(meta).toEqual({
      id: meta.id,
      number: "INV-000001",
      filename: "INV-000001.pdf",
      mimeType: "application/pdf",
      url: `https://plinth.test/billing/invoices/${meta.id}/pdf`,
    });
    const r = await w.call("invoices_pdf", { number: "INV-000001", includeData: true });
    const bytes = Buffer.from(r.dataBase64, "base64");
    expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
    expect(r.bytes).toBe(bytes.length);
    const { text } = await extractText(await getDocumentProxy(new Uint8Array(bytes)), { mergePages: true });
    for (const s of [
      "Invoice INV-000001",
      "VOID",
      "Harbor & Co. Studio",
      "Acme",
      "Time on WEB-1: 2.25 h",
      "2.25 h",
      "$123.45/h",
      "$277.76",
      "Logo refresh",
      "$802.13",
      "Sales tax (8.25%)",
      "$66.18",
      "$868.31",
      "Thank you!",
    ])
      expect(text).toContain(s);
  });
});
