/**
 * The demo's billing, made through the same verbs people use in the portal
 * and the job uses at period end, so every total is computed, not typed:
 * per demo company, billing settings, a monthly care-plan subscription
 * started a little over three months ago (its ended periods invoiced by
 * the period-end job, billing the company's billable time and done service
 * requests with them). Harbor paid its first period, owes the second
 * (overdue) and the third (open), and has a one-off invoice issued today
 * and a draft; Northwind paid all but its newest.
 */
import type { ActorContext } from "../../core/context";
import { companies } from "../../core/tables";
import { eq } from "drizzle-orm";
import { createInvoice, issueInvoice, listInvoices, markOverdue, markPaid } from "./invoices";
import { saveSettings } from "./settings";
import { createSubscription, invoiceDueSubscriptions } from "./subscriptions";
import { serviceCatalog, serviceRequests } from "../services/tables";
import type { DemoPart } from "../../mcp/define";

export const demoBilling: DemoPart = async ({ deps, tx, at, companies: co, users }) => {
  const actor = async (companyId: number, role: "owner" | "admin"): Promise<ActorContext> => {
    const name = (
      await tx.select({ n: companies.name }).from(companies).where(eq(companies.id, companyId)).limit(1)
    )[0]!.n;
    const company = { id: companyId, name, role };
    return {
      deps,
      principal: {
        userId: users.demo,
        credential: { kind: "cli", id: 0, name: "demo seed" },
        scopes: ["*"],
        companies: [company],
        requireCmsApproval: false,
      },
      company,
      requestId: "seed",
    };
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
  // Work Harbor asked for and Northwind delivered: billed with the period it was done in.
  const priced = (await tx.select().from(serviceCatalog).where(eq(serviceCatalog.companyId, co.harbor))).filter(
    (x) => x.priceCents !== null,
  );
  if (priced.length)
    await tx.insert(serviceRequests).values([
      {
        companyId: co.harbor,
        serviceId: priced[0]!.id,
        userId: users.maya,
        details: "Seasonal menu boards for both cafés.",
        status: "done",
        createdAt: at(50),
      },
      {
        companyId: co.harbor,
        serviceId: priced[priced.length - 1]!.id,
        userId: users.maya,
        details: "Holiday gift guide page.",
        status: "in_progress",
        createdAt: at(5),
      },
    ]);
  await createSubscription(harbor, {
    planName: "Website care — Growth",
    unitAmountCents: 120_000,
    interval: "month",
    startsAt: at(100),
  });
  await createSubscription(northwind, {
    planName: "Hosting & maintenance",
    unitAmountCents: 45_000,
    quantity: 2,
    interval: "month",
    startsAt: at(95),
    includeUsage: false,
  });
  await invoiceDueSubscriptions(deps);
  const byIssue = async (ctx: ActorContext) =>
    (await listInvoices(ctx, { limit: 100, offset: 0 })).items
      .filter((i) => i.number)
      .sort((a, b) => a.issuedAt!.localeCompare(b.issuedAt!));
  // Harbor paid the first period a week after issue and still owes the second (overdue now) and the third (open).
  const [h1] = await byIssue(harbor);
  await markPaid(harbor, {
    id: h1!.id,
    paidAt: new Date(Date.parse(h1!.issuedAt!) + 7 * 86_400_000),
    reference: "ACH 4410",
  });
  // Northwind pays its own account on time: all but the newest.
  for (const [n, i] of (await byIssue(northwind)).slice(0, -1).entries())
    await markPaid(northwind, {
      id: i.id,
      paidAt: new Date(Date.parse(i.issuedAt!) + (3 + n) * 86_400_000),
      reference: `Transfer ${7781 + n}`,
    });
  // A one-off Harbor invoice issued today, and a draft for next month.
  const oneOff = await createInvoice(harbor, {
    includeUsage: false,
    lines: [
      { description: "Holiday menu photography (half day)", quantity: 1, unitAmountCents: 85_000 },
      { description: "Retouched photos", quantity: 24, unitAmountCents: 1_250 },
    ],
    memo: "Thank you for your business.",
  });
  await issueInvoice(harbor, { id: oneOff.id });
  await createInvoice(harbor, {
    includeUsage: false,
    lines: [{ description: "Spring campaign landing page", quantity: 1, unitAmountCents: 240_000 }],
  });
  // Recorded as overdue now, as the job would on its first run: Harbor's owner and admins have it in their inbox.
  await markOverdue(deps);
};
