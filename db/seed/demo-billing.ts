/**
 * The demo's billing, made through the same verbs people use in the portal
 * and the job uses at period end, so every total is computed, not typed:
 * per demo company, billing settings, a monthly care-plan subscription
 * started a little over three months ago (its ended periods invoiced by
 * the period-end job, billing the company's billable time and done service
 * requests with them), the oldest invoices paid, the latest open; Harbor
 * also has a one-off invoice, issued and already overdue, and a draft.
 */
import type { ActorContext } from "../../src/core/context";
import { companies } from "../../src/core/tables";
import { eq } from "drizzle-orm";
import { createInvoice, createSubscription, invoiceDueSubscriptions, issueInvoice, listInvoices, markPaid, saveSettings } from "../../src/domains/billing/verbs";
import { billingInvoices } from "../../src/domains/billing/tables";
import type { DemoPart } from "./parts";

export const demoBilling: DemoPart = async ({ deps, tx, clock, at, companies: co, users }) => {
  const actor = async (companyId: number, role: "owner" | "admin"): Promise<ActorContext> => {
    const name = (await tx.select({ n: companies.name }).from(companies).where(eq(companies.id, companyId)).limit(1))[0]!.n;
    const company = { id: companyId, name, role };
    return { deps, principal: { userId: users.demo, credential: { kind: "cli", id: 0, name: "demo seed" }, scopes: ["*"], companies: [company], requireCmsApproval: false }, company, requestId: "seed" };
  };
  const harbor = await actor(co.harbor, "admin");
  const northwind = await actor(co.northwind, "owner");
  await saveSettings(harbor, {
    currency: "USD",
    hourlyRateCents: 14_000,
    taxName: "Sales tax",
    taxBasisPoints: 550,
    paymentTermsDays: 14,
    sellerName: "Northwind Studio",
    sellerDetails: "41 Foundry Lane, Portland, OR 97209\nbilling@northwind.example",
    billingAddress: "Harbor Coffee Roasters\n8 Pier Street, Portland, OR 97204",
  });
  await saveSettings(northwind, {
    currency: "USD",
    hourlyRateCents: 16_500,
    taxName: null,
    taxBasisPoints: 0,
    paymentTermsDays: 30,
    sellerName: "Northwind Studio",
    sellerDetails: "41 Foundry Lane, Portland, OR 97209",
    billingAddress: "Northwind Studio (internal)\n41 Foundry Lane, Portland, OR 97209",
  });
  await createSubscription(harbor, { planName: "Website care — Growth", unitAmountCents: 120_000, interval: "month", startsAt: at(100) });
  await createSubscription(northwind, { planName: "Hosting & maintenance", unitAmountCents: 45_000, quantity: 2, interval: "month", startsAt: at(95), includeUsage: false });
  await invoiceDueSubscriptions(deps);
  // All but the newest period invoice of each company are paid, a few days after issue.
  for (const ctx of [harbor, northwind]) {
    const issued = (await listInvoices(ctx, { limit: 100, offset: 0 })).items.filter((i) => i.number).sort((a, b) => a.issuedAt!.localeCompare(b.issuedAt!));
    for (const [n, i] of issued.slice(0, -1).entries()) {
      const paidAt = new Date(Math.min(Date.parse(i.issuedAt!) + (6 + n) * 86_400_000, clock.ms()));
      await markPaid(ctx, { id: i.id, paidAt, reference: `ACH ${String(4410 + n * 7)}` });
    }
  }
  // A one-off Harbor invoice issued 20 days ago (terms 14: overdue now) and a draft for next week.
  const oneOff = await createInvoice(harbor, { includeUsage: false, lines: [{ description: "Holiday menu photography (half day)", quantity: 1, unitAmountCents: 85_000 }, { description: "Retouched photos", quantity: 24, unitAmountCents: 1_250 }], memo: "Thank you for your business." });
  await issueInvoice(harbor, { id: oneOff.id });
  // Back-dated like the rest of the demo (the verb issues at the clock's now).
  await tx.update(billingInvoices).set({ issuedAt: at(20), dueAt: at(6), createdAt: at(20) }).where(eq(billingInvoices.id, oneOff.id));
  await createInvoice(harbor, { includeUsage: false, lines: [{ description: "Spring campaign landing page", quantity: 1, unitAmountCents: 240_000 }] });
};
