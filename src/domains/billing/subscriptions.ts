/**
 * Client subscriptions: a plan billed every month or year. Made and
 * canceled by the agency's people; the billing.subscription_invoices job
 * (jobs.ts) invoices each period that has ended, with the company's
 * unbilled usage when the subscription includes it, and issues the invoice
 * (invoices.ts) as of the period's end.
 */
import { and, asc, count, desc, eq, lte, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { audit } from "../../core/audit";
import { DAY_MS, iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { anyRow } from "../../core/jobs";
import { page } from "../../core/pagination";
import { companies } from "../../core/tables";
import { LIMITS, manage, parse, read, type Sub, subFor, text } from "./access";
import { subscriptionCanceled, subscriptionCreated } from "./events";
import { effectiveStatus, insertInvoice, issueIn, type NewLine, usageLines } from "./invoices";
import { periodOf } from "./money";
import { settingsOf } from "./settings";
import { billingInvoices, billingSubscriptions } from "./tables";

function subOut(s: Sub) {
  return {
    id: s.id,
    planName: s.planName,
    status: s.status,
    unitAmountCents: s.unitAmountCents,
    quantity: s.quantity,
    amountCents: s.unitAmountCents * s.quantity,
    currency: s.currency,
    interval: s.interval,
    intervalCount: s.intervalCount,
    startedAt: iso(s.anchorAt),
    currentPeriodStart: iso(s.currentPeriodStart),
    currentPeriodEnd: iso(s.currentPeriodEnd),
    nextInvoiceAt: s.status === "active" ? iso(s.currentPeriodEnd) : null,
    periodsInvoiced: s.periodsInvoiced,
    includeUsage: s.includeUsage,
    canceledAt: iso(s.canceledAt),
    createdAt: iso(s.createdAt),
  };
}

export async function listSubscriptions(
  ctx: ActorContext,
  input: { status?: "active" | "canceled"; limit: number; offset: number },
) {
  read(ctx);
  const conds: SQL[] = [eq(billingSubscriptions.companyId, ctx.company.id)];
  if (input.status) conds.push(eq(billingSubscriptions.status, input.status));
  const where = and(...conds);
  const total = (await ctx.deps.db.select({ n: count() }).from(billingSubscriptions).where(where).limit(1))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select()
    .from(billingSubscriptions)
    .where(where)
    .orderBy(desc(billingSubscriptions.createdAt), desc(billingSubscriptions.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(rows.map(subOut), total, input.limit, input.offset);
}

export async function getSubscription(ctx: ActorContext, input: { id: number }) {
  read(ctx);
  const s = await subFor(ctx.deps.db, ctx, input.id);
  const now = ctx.deps.clock.now();
  const recent = await ctx.deps.db
    .select()
    .from(billingInvoices)
    .where(eq(billingInvoices.subscriptionId, s.id))
    .orderBy(desc(billingInvoices.periodStart), desc(billingInvoices.id))
    .limit(12);
  return {
    ...subOut(s),
    recentInvoices: recent.map((i) => ({
      id: i.id,
      number: i.number,
      status: effectiveStatus(i, now),
      totalCents: i.totalCents,
      periodStart: iso(i.periodStart),
      periodEnd: iso(i.periodEnd),
      dueAt: iso(i.dueAt),
    })),
  };
}

export const subscriptionInput = v.object({
  planName: text(200),
  unitAmountCents: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(LIMITS.amountCents)),
  quantity: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIMITS.quantity)), 1),
  interval: v.picklist(["month", "year"]),
  intervalCount: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(12)), 1),
  /** The first period's start; default now. May be in the past (periods already over are invoiced by the next job run). */
  startsAt: v.optional(v.date()),
  includeUsage: v.optional(v.boolean(), true),
});

export async function createSubscription(ctx: ActorContext, raw: v.InferInput<typeof subscriptionInput>) {
  manage(ctx);
  const input = parse(subscriptionInput, raw);
  const now = ctx.deps.clock.now();
  const anchor = input.startsAt ?? now;
  if (
    Number.isNaN(anchor.getTime()) ||
    anchor.getTime() < now.getTime() - 366 * DAY_MS ||
    anchor.getTime() > now.getTime() + 366 * DAY_MS
  )
    throw invalid("startsAt must be within a year of today.", { path: "startsAt" });
  if (input.unitAmountCents * input.quantity > LIMITS.amountCents)
    throw invalid(`A period may bill at most ${LIMITS.amountCents} cents.`);
  return ctx.deps.db.transaction(async (tx) => {
    const s = await settingsOf(tx, ctx.company.id);
    const p = periodOf(anchor, input.interval, input.intervalCount, 0);
    const row = (
      await tx
        .insert(billingSubscriptions)
        .values({
          companyId: ctx.company.id,
          planName: input.planName,
          unitAmountCents: input.unitAmountCents,
          quantity: input.quantity,
          currency: s.currency,
          interval: input.interval,
          intervalCount: input.intervalCount,
          anchorAt: anchor,
          periodsInvoiced: 0,
          currentPeriodStart: p.start,
          currentPeriodEnd: p.end,
          includeUsage: input.includeUsage,
          status: "active",
          createdByUserId: ctx.principal.userId,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "subscriptions.create", {
      type: "subscription",
      id: row.id,
      detail: { planName: row.planName, amountCents: row.unitAmountCents * row.quantity },
    });
    await emit(
      tx,
      ctx,
      subscriptionCreated,
      { id: row.id },
      {
        planName: row.planName,
        unitAmountCents: row.unitAmountCents,
        quantity: row.quantity,
        currency: row.currency,
        interval: row.interval,
        intervalCount: row.intervalCount,
        currentPeriodEnd: p.end.toISOString(),
      },
    );
    return subOut(row);
  });
}

export async function cancelSubscription(ctx: ActorContext, input: { id: number }) {
  manage(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const s = await subFor(tx, ctx, input.id);
    if (s.status === "canceled") throw conflict(`Subscription ${s.id} is already canceled.`);
    const now = ctx.deps.clock.now();
    await tx
      .update(billingSubscriptions)
      .set({ status: "canceled", canceledAt: now, updatedAt: now })
      .where(eq(billingSubscriptions.id, s.id));
    await audit(tx, ctx, "subscriptions.cancel", { type: "subscription", id: s.id, detail: { planName: s.planName } });
    await emit(tx, ctx, subscriptionCanceled, { id: s.id }, { planName: s.planName, canceledAt: now.toISOString() });
    return { id: s.id, status: "canceled" };
  });
}

// ---------------------------------------------------------------------------
// Jobs

/** A read-only actor for the jobs: reads time logs and service requests of one company. */
async function systemActor(deps: Deps, companyId: number, userId: number | null): Promise<ActorContext> {
  const c = (
    await deps.db.select({ name: companies.name }).from(companies).where(eq(companies.id, companyId)).limit(1)
  )[0];
  const company = { id: companyId, name: c?.name ?? `Company ${companyId}`, role: "viewer" as const };
  return {
    deps,
    principal: {
      userId: userId ?? 0,
      credential: { kind: "cli", id: 0, name: "billing job" },
      scopes: ["projects:read", "services:read"],
      companies: [company],
      requireCmsApproval: false,
    },
    company,
    requestId: "billing-job",
  };
}

/** Active subscriptions whose current period has ended by `now`: what invoiceDueSubscriptions invoices. */
const periodEnded = (now: Date) =>
  and(eq(billingSubscriptions.status, "active"), lte(billingSubscriptions.currentPeriodEnd, now));

/** billing.subscription_invoices' pending check (jobs.ts): a period to invoice. */
export const subscriptionInvoicesPending = (deps: Deps) =>
  anyRow(
    deps.db
      .select({ id: billingSubscriptions.id })
      .from(billingSubscriptions)
      .where(periodEnded(deps.clock.now()))
      .limit(1),
  );

/**
 * Invoices every period that has ended of every active subscription, oldest
 * first, one transaction per period: the subscription's period counter
 * moves only where it still reads what we read (two instances cannot both
 * invoice a period), and the unique (subscription, period start) index
 * backs that up.
 */
export async function invoiceDueSubscriptions(deps: Deps, maxPeriods = 500): Promise<number> {
  let made = 0;
  for (let round = 0; made < maxPeriods && round < maxPeriods; round++) {
    const now = deps.clock.now();
    const due = await deps.db
      .select()
      .from(billingSubscriptions)
      .where(periodEnded(now))
      .orderBy(asc(billingSubscriptions.currentPeriodEnd), asc(billingSubscriptions.id))
      .limit(50);
    if (!due.length) break;
    for (const s of due) if (await invoicePeriod(deps, s, now)) made++;
  }
  return made;
}

async function invoicePeriod(deps: Deps, s: Sub, now: Date): Promise<boolean> {
  const ctx = await systemActor(deps, s.companyId, s.createdByUserId);
  return deps.db.transaction(async (tx) => {
    const n = s.periodsInvoiced;
    const p = periodOf(s.anchorAt, s.interval as "month" | "year", s.intervalCount, n);
    const next = periodOf(s.anchorAt, s.interval as "month" | "year", s.intervalCount, n + 1);
    const moved = await tx
      .update(billingSubscriptions)
      .set({ periodsInvoiced: n + 1, currentPeriodStart: next.start, currentPeriodEnd: next.end, updatedAt: now })
      .where(
        and(
          eq(billingSubscriptions.id, s.id),
          eq(billingSubscriptions.periodsInvoiced, n),
          eq(billingSubscriptions.status, "active"),
        ),
      )
      .returning({ id: billingSubscriptions.id });
    if (!moved.length) return false;
    const exists = await tx
      .select({ id: billingInvoices.id })
      .from(billingInvoices)
      .where(and(eq(billingInvoices.subscriptionId, s.id), eq(billingInvoices.periodStart, p.start)))
      .limit(1);
    if (exists.length) return false;
    const settings = await settingsOf(tx, s.companyId);
    const fmt = (d: Date) => d.toISOString().slice(0, 10);
    const lines: NewLine[] = [
      {
        kind: "subscription",
        description: `${s.planName} (${fmt(p.start)} to ${fmt(p.end)})`,
        quantity: s.quantity,
        unit: s.interval,
        unitAmountCents: s.unitAmountCents,
        amountCents: s.unitAmountCents * s.quantity,
        periodStart: p.start,
        periodEnd: p.end,
        sourceType: "subscription",
        sourceId: s.id,
      },
    ];
    if (s.includeUsage) lines.push(...(await usageLines(ctx, p.end, settings)));
    const inv = await insertInvoice(
      tx,
      s.companyId,
      {
        currency: s.currency,
        taxName: settings.taxName,
        taxBasisPoints: settings.taxBasisPoints,
        paymentTermsDays: settings.paymentTermsDays,
        memo: null,
        subscriptionId: s.id,
        periodStart: p.start,
        periodEnd: p.end,
        createdByUserId: null,
      },
      lines,
      now,
    );
    // Issued when the period ended, so a caught-up invoice is due when it would have been.
    await issueIn(tx, { deps, company: { id: s.companyId } }, inv, p.end.getTime() <= now.getTime() ? p.end : now);
    return true;
  });
}
