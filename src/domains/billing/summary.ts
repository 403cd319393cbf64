/** A company's billing at a glance: settings, invoice totals by status, recurring revenue, the next invoice. */
import { and, eq } from "drizzle-orm";
import { DAY_MS, iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { INVOICE_STATUSES, read } from "./access";
import { effectiveStatus } from "./invoices";
import { settingsOf } from "./settings";
import { billingInvoices, billingSubscriptions } from "./tables";

export async function billingSummary(ctx: ActorContext) {
  read(ctx);
  const db = ctx.deps.db;
  const now = ctx.deps.clock.now();
  const s = await settingsOf(db, ctx.company.id);
  const inv = await db
    .select({
      status: billingInvoices.status,
      dueAt: billingInvoices.dueAt,
      totalCents: billingInvoices.totalCents,
      paidAt: billingInvoices.paidAt,
    })
    .from(billingInvoices)
    .where(eq(billingInvoices.companyId, ctx.company.id));
  const by: Record<string, { count: number; totalCents: number }> = {};
  for (const st of INVOICE_STATUSES) by[st] = { count: 0, totalCents: 0 };
  let paidLast30 = 0;
  for (const i of inv) {
    const st = effectiveStatus(i, now);
    by[st]!.count++;
    by[st]!.totalCents += i.totalCents;
    if (i.paidAt && i.paidAt.getTime() > now.getTime() - 30 * DAY_MS) paidLast30 += i.totalCents;
  }
  const subs = await db
    .select()
    .from(billingSubscriptions)
    .where(and(eq(billingSubscriptions.companyId, ctx.company.id), eq(billingSubscriptions.status, "active")));
  // Monthly recurring revenue: each plan's amount per month, rounded half up to the cent.
  let mrrTwelfths = 0;
  for (const x of subs)
    mrrTwelfths +=
      (x.unitAmountCents * x.quantity * 12) / (x.interval === "year" ? 12 * x.intervalCount : x.intervalCount);
  const next = subs.map((x) => x.currentPeriodEnd).sort((a, b) => a.getTime() - b.getTime())[0];
  return {
    currency: s.currency,
    hourlyRateCents: s.hourlyRateCents,
    taxName: s.taxName,
    taxRate: s.taxBasisPoints / 100,
    paymentTermsDays: s.paymentTermsDays,
    activeSubscriptions: subs.length,
    monthlyRecurringCents: Math.floor(mrrTwelfths / 12 + 0.5),
    nextInvoiceAt: iso(next),
    outstandingCents: by.open!.totalCents + by.overdue!.totalCents,
    overdueCents: by.overdue!.totalCents,
    paidLast30DaysCents: paidLast30,
    invoices: by,
  };
}
