/**
 * Billing verbs. Reads (the MCP tools) need billing:read; writes are made by
 * the agency's people in the portal (owners and admins of the company, a
 * portal session or the CLI) and by the periodic jobs — never by an agent's
 * credential, whatever its scopes: there is no billing write scope, and
 * `manage` refuses MCP keys and OAuth tokens in the verb itself.
 *
 * Invoice life: draft (no number; lines may still change by deleting and
 * recreating it) → open (issued: numbered, due date set) → paid, or void;
 * an open invoice is overdue from the exact instant of its due date (reads
 * say so at once; the overdue job records it and tells people).
 * Numbers are taken from one counter in the issuing transaction: a failed
 * or concurrent issue can neither skip nor repeat a number.
 */
import { and, asc, count, desc, eq, gt, gte, inArray, lt, lte, or, sql, type SQL } from "drizzle-orm";
import * as v from "valibot";
import { audit } from "../../core/audit";
import { DAY_MS, iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db, Tx } from "../../core/db";
import { conflict, forbidden, invalid, notFound } from "../../core/errors";
import { defineEvent, emit, type EventActor } from "../../core/events";
import { anyRow } from "../../core/jobs";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { companies, memberships } from "../../core/tables";
import { notify } from "../notifications/verbs";
import { listTimeLogs } from "../projects/time-logs";
import { listServiceRequests, listServices } from "../services/verbs";
import { hoursText, periodOf, timeAmount, totals } from "./money";
import {
  billingBilledItems,
  billingCounters,
  billingInvoiceLines,
  billingInvoices,
  billingSettings,
  billingSubscriptions,
} from "./tables";

type Invoice = typeof billingInvoices.$inferSelect;
type Line = typeof billingInvoiceLines.$inferSelect;
type Sub = typeof billingSubscriptions.$inferSelect;
type Settings = typeof billingSettings.$inferSelect;

/** Currencies with two decimal places (amounts are cents). */
export const CURRENCIES = [
  "USD",
  "EUR",
  "GBP",
  "CAD",
  "AUD",
  "NZD",
  "CHF",
  "SEK",
  "NOK",
  "DKK",
  "PLN",
  "CZK",
  "SGD",
  "HKD",
  "MXN",
  "BRL",
  "ZAR",
  "INR",
] as const;
export const INVOICE_STATUSES = ["draft", "open", "paid", "void", "overdue"] as const;
export const LIMITS = {
  amountCents: 10_000_000_000,
  quantity: 1_000_000,
  lines: 200,
  text: 500,
  memo: 2000,
  totalCents: 1_000_000_000_000_000,
} as const;
/** Usage items (time logs, service requests) one invoice bills at most. */
const MAX_USAGE_ITEMS = 2000;

// ---------------------------------------------------------------------------
// Events

const money = { currency: v.string(), totalCents: v.number() };
export const subscriptionCreated = defineEvent({
  type: "subscription.created",
  entity: "subscription",
  description:
    "The agency started a client subscription: plan, price, quantity, interval and the end of the first period.",
  payload: v.object({
    planName: v.string(),
    unitAmountCents: v.number(),
    quantity: v.number(),
    currency: v.string(),
    interval: v.string(),
    intervalCount: v.number(),
    currentPeriodEnd: v.string(),
  }),
});
export const subscriptionCanceled = defineEvent({
  type: "subscription.canceled",
  entity: "subscription",
  description: "A subscription was canceled: no further period invoices.",
  payload: v.object({ planName: v.string(), canceledAt: v.string() }),
});
export const invoiceCreated = defineEvent({
  type: "invoice.created",
  entity: "invoice",
  description: "A draft invoice was made in the portal: totals, currency, line count.",
  payload: v.object({ ...money, subtotalCents: v.number(), lineCount: v.number() }),
});
export const invoiceIssued = defineEvent({
  type: "invoice.issued",
  entity: "invoice",
  description: "An invoice was issued (numbered, due date set), by a person or at a subscription's period end.",
  payload: v.object({
    number: v.string(),
    ...money,
    dueAt: v.string(),
    subscriptionId: v.nullable(v.number()),
    periodStart: v.nullable(v.string()),
    periodEnd: v.nullable(v.string()),
  }),
});
export const invoicePaid = defineEvent({
  type: "invoice.paid",
  entity: "invoice",
  description: "An invoice was marked paid: number, amount, when, and the payment reference.",
  payload: v.object({ number: v.string(), ...money, paidAt: v.string(), reference: v.nullable(v.string()) }),
});
export const invoiceVoided = defineEvent({
  type: "invoice.voided",
  entity: "invoice",
  description: "An issued invoice was voided; the time and service requests it billed can be billed again.",
  payload: v.object({ number: v.string(), ...money }),
});
export const invoiceOverdue = defineEvent({
  type: "invoice.overdue",
  entity: "invoice",
  description: "An open invoice reached its due date unpaid.",
  payload: v.object({ number: v.string(), ...money, dueAt: v.string() }),
});
export const invoiceDeleted = defineEvent({
  type: "invoice.deleted",
  entity: "invoice",
  description: "A draft invoice (never numbered) was deleted.",
  payload: v.object({ ...money }),
});
export const settingsUpdated = defineEvent({
  type: "billing_settings.updated",
  entity: "billing_settings",
  description: "A company's billing settings changed: currency, hourly rate, tax rate, payment terms.",
  payload: v.object({
    currency: v.string(),
    hourlyRateCents: v.nullable(v.number()),
    taxName: v.nullable(v.string()),
    taxBasisPoints: v.number(),
    paymentTermsDays: v.number(),
  }),
});
export const billingEvents = [
  subscriptionCreated,
  subscriptionCanceled,
  invoiceCreated,
  invoiceIssued,
  invoicePaid,
  invoiceVoided,
  invoiceOverdue,
  invoiceDeleted,
  settingsUpdated,
];

// ---------------------------------------------------------------------------
// Access

const read = (ctx: ActorContext) => authorize(ctx, "billing:read", { write: false });

/** People only: an owner or admin through the portal (or the operator's CLI). Agents' credentials never write billing. */
function manage(ctx: ActorContext) {
  const kind = ctx.principal.credential.kind;
  if (kind !== "session" && kind !== "cli")
    throw forbidden(
      "Billing is changed by the agency's people in the portal, not through this credential; billing tools are read-only.",
    );
  authorize(ctx, null, { write: true });
}

const DEFAULTS = {
  currency: "USD",
  hourlyRateCents: null,
  taxName: null,
  taxBasisPoints: 0,
  paymentTermsDays: 14,
  sellerName: "Your agency",
  sellerDetails: null,
  billingAddress: null,
};

export async function settingsOf(
  q: Pick<Db, "select">,
  companyId: number,
): Promise<Omit<Settings, "id" | "companyId" | "updatedAt">> {
  const s = (await q.select().from(billingSettings).where(eq(billingSettings.companyId, companyId)).limit(1))[0];
  return s ?? DEFAULTS;
}

// ---------------------------------------------------------------------------
// Views

/** The status as of `now`: an open invoice is overdue from its due instant, before the job records it. */
export function effectiveStatus(i: Pick<Invoice, "status" | "dueAt">, now: Date): string {
  return i.status === "open" && i.dueAt && i.dueAt.getTime() <= now.getTime() ? "overdue" : i.status;
}

function invoiceOut(i: Invoice, now: Date) {
  return {
    id: i.id,
    number: i.number,
    status: effectiveStatus(i, now),
    currency: i.currency,
    subtotalCents: i.subtotalCents,
    taxName: i.taxName,
    taxRate: i.taxBasisPoints / 100,
    taxCents: i.taxCents,
    totalCents: i.totalCents,
    amountDueCents: i.status === "open" || i.status === "overdue" ? i.totalCents : 0,
    subscriptionId: i.subscriptionId,
    periodStart: iso(i.periodStart),
    periodEnd: iso(i.periodEnd),
    issuedAt: iso(i.issuedAt),
    dueAt: iso(i.dueAt),
    paidAt: iso(i.paidAt),
    voidedAt: iso(i.voidedAt),
    createdAt: iso(i.createdAt),
  };
}

function lineOut(l: Line) {
  return {
    kind: l.kind,
    description: l.description,
    quantity: l.quantity,
    unit: l.unit,
    unitAmountCents: l.unitAmountCents,
    amountCents: l.amountCents,
    periodStart: iso(l.periodStart),
    periodEnd: iso(l.periodEnd),
    source: l.sourceType ? { type: l.sourceType, id: l.sourceId } : null,
  };
}

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

// ---------------------------------------------------------------------------
// Reads

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

async function subFor(q: Pick<Db, "select">, ctx: ActorContext, id: number): Promise<Sub> {
  const s = (
    await q
      .select()
      .from(billingSubscriptions)
      .where(and(eq(billingSubscriptions.id, id), eq(billingSubscriptions.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!s) throw notFound(`Subscription ${id} not found in ${ctx.company.name}. List them with subscriptions_list.`);
  return s;
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

const NUMBER_RE = /^INV-\d{6,}$/;

async function invoiceFor(
  q: Pick<Db, "select">,
  ctx: ActorContext,
  ref: { id?: number; number?: string },
): Promise<Invoice> {
  if (ref.id === undefined && ref.number === undefined) throw invalid("Give the invoice's id or number (INV-000123).");
  const num = ref.number?.trim().toUpperCase();
  if (num !== undefined && !NUMBER_RE.test(num))
    throw notFound(`Invoice ${JSON.stringify(ref.number!.slice(0, 40))} not found: numbers look like INV-000123.`);
  const cond = ref.id !== undefined ? eq(billingInvoices.id, ref.id) : eq(billingInvoices.number, num!);
  const i = (
    await q
      .select()
      .from(billingInvoices)
      .where(and(cond, eq(billingInvoices.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!i) throw notFound(`Invoice ${ref.id ?? num} not found in ${ctx.company.name}. List them with invoices_list.`);
  return i;
}

export async function listInvoices(
  ctx: ActorContext,
  input: {
    status?: (typeof INVOICE_STATUSES)[number];
    subscriptionId?: number;
    from?: string;
    to?: string;
    limit: number;
    offset: number;
  },
) {
  read(ctx);
  const now = ctx.deps.clock.now();
  const conds: SQL[] = [eq(billingInvoices.companyId, ctx.company.id)];
  // Overdue as of now includes open invoices whose due instant has passed (the job may not have run yet).
  if (input.status === "overdue")
    conds.push(
      or(
        eq(billingInvoices.status, "overdue"),
        and(eq(billingInvoices.status, "open"), lte(billingInvoices.dueAt, now)),
      )!,
    );
  else if (input.status === "open")
    conds.push(and(eq(billingInvoices.status, "open"), gt(billingInvoices.dueAt, now))!);
  else if (input.status) conds.push(eq(billingInvoices.status, input.status));
  if (input.subscriptionId !== undefined)
    conds.push(eq(billingInvoices.subscriptionId, (await subFor(ctx.deps.db, ctx, input.subscriptionId)).id));
  if (input.from) conds.push(gte(billingInvoices.issuedAt, dayStart(input.from, "from")));
  if (input.to) conds.push(lt(billingInvoices.issuedAt, new Date(dayStart(input.to, "to").getTime() + DAY_MS)));
  const where = and(...conds);
  const total = (await ctx.deps.db.select({ n: count() }).from(billingInvoices).where(where).limit(1))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select()
    .from(billingInvoices)
    .where(where)
    .orderBy(desc(billingInvoices.createdAt), desc(billingInvoices.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    rows.map((i) => invoiceOut(i, now)),
    total,
    input.limit,
    input.offset,
  );
}

function dayStart(raw: string, path: string): Date {
  const d = new Date(`${raw}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw) || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== raw)
    throw invalid(`${path} must be a date YYYY-MM-DD.`, { path });
  return d;
}

export async function linesOf(q: Pick<Db, "select">, invoiceId: number): Promise<Line[]> {
  return q
    .select()
    .from(billingInvoiceLines)
    .where(eq(billingInvoiceLines.invoiceId, invoiceId))
    .orderBy(asc(billingInvoiceLines.position), asc(billingInvoiceLines.id));
}

export async function getInvoice(ctx: ActorContext, input: { id?: number; number?: string }) {
  read(ctx);
  const i = await invoiceFor(ctx.deps.db, ctx, input);
  const lines = await linesOf(ctx.deps.db, i.id);
  return {
    ...invoiceOut(i, ctx.deps.clock.now()),
    memo: i.memo,
    paymentReference: i.paymentReference,
    paymentTermsDays: i.paymentTermsDays,
    lines: lines.map(lineOut),
    pdfUrl: pdfUrl(ctx.deps, i.id),
  };
}

export function pdfUrl(deps: Deps, id: number): string {
  return `${deps.config.publicUrl}/billing/invoices/${id}/pdf`;
}

/** The invoice for the PDF route and tool (tenancy checked). */
export async function invoiceDocument(ctx: ActorContext, ref: { id?: number; number?: string }) {
  read(ctx);
  const i = await invoiceFor(ctx.deps.db, ctx, ref);
  const lines = await linesOf(ctx.deps.db, i.id);
  const s = await settingsOf(ctx.deps.db, ctx.company.id);
  return {
    invoice: i,
    lines,
    settings: s,
    company: ctx.company.name,
    status: effectiveStatus(i, ctx.deps.clock.now()),
  };
}

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

// ---------------------------------------------------------------------------
// Writes (portal, CLI, jobs)

export const settingsInput = v.object({
  currency: v.picklist(CURRENCIES),
  hourlyRateCents: v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(LIMITS.amountCents))),
  taxName: v.nullable(v.pipe(v.string(), v.trim(), v.maxLength(60))),
  taxBasisPoints: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000)),
  paymentTermsDays: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(365)),
  sellerName: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)),
  sellerDetails: v.nullable(v.pipe(v.string(), v.maxLength(LIMITS.memo))),
  billingAddress: v.nullable(v.pipe(v.string(), v.maxLength(LIMITS.memo))),
});

function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, input);
  if (!r.success) {
    const i = r.issues[0];
    const path = v.getDotPath(i);
    throw invalid(`${path ? `${path}: ` : ""}${i.message}`, path ? { path } : undefined);
  }
  return r.output;
}

export async function saveSettings(ctx: ActorContext, raw: v.InferInput<typeof settingsInput>) {
  manage(ctx);
  const input = parse(settingsInput, raw);
  const taxName = input.taxName || null;
  return ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const row = { ...input, taxName, companyId: ctx.company.id, updatedAt: now };
    const saved = (
      await tx
        .insert(billingSettings)
        .values(row)
        .onConflictDoUpdate({ target: billingSettings.companyId, set: { ...input, taxName, updatedAt: now } })
        .returning()
    )[0]!;
    await audit(tx, ctx, "billing_settings.update", {
      type: "billing_settings",
      id: saved.id,
      detail: {
        currency: input.currency,
        hourlyRateCents: input.hourlyRateCents,
        taxBasisPoints: input.taxBasisPoints,
      },
    });
    await emit(
      tx,
      ctx,
      settingsUpdated,
      { id: saved.id },
      {
        currency: saved.currency,
        hourlyRateCents: saved.hourlyRateCents,
        taxName: saved.taxName,
        taxBasisPoints: saved.taxBasisPoints,
        paymentTermsDays: saved.paymentTermsDays,
      },
    );
    return { id: saved.id, currency: saved.currency };
  });
}

const text = (max: number) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1),
    v.maxLength(max),
    v.regex(/^[^\u0000-\u0008\u000b-\u001f\u007f]*$/, "must not contain control characters"),
  );

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

export const customLineInput = v.object({
  description: text(LIMITS.text),
  quantity: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(LIMITS.quantity)),
  unitAmountCents: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(LIMITS.amountCents)),
});

export const invoiceInput = v.object({
  lines: v.optional(v.pipe(v.array(customLineInput), v.maxLength(LIMITS.lines)), []),
  /** Bill the company's unbilled billable time and done service requests up to this day (inclusive). */
  usageUpTo: v.optional(v.pipe(v.string(), v.regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date YYYY-MM-DD"))),
  includeUsage: v.optional(v.boolean(), true),
  memo: v.optional(v.pipe(v.string(), v.maxLength(LIMITS.memo))),
});

type NewLine = Omit<typeof billingInvoiceLines.$inferInsert, "invoiceId" | "position"> & {
  billed?: { type: string; id: number }[];
};

/**
 * The company's unbilled usage up to `upTo` (exclusive instant): billable
 * time logs grouped by card, at the hourly rate (none without a rate), and
 * done service requests of priced services — read through the projects
 * and services domains' own verbs, with the caller's tenancy.
 */
async function usageLines(
  ctx: ActorContext,
  upTo: Date,
  settings: { hourlyRateCents: number | null },
): Promise<NewLine[]> {
  const billed = async (type: string, ids: number[]) => {
    if (!ids.length) return new Set<number>();
    const rows = await ctx.deps.db
      .select({ id: billingBilledItems.sourceId })
      .from(billingBilledItems)
      .where(and(eq(billingBilledItems.sourceType, type), inArray(billingBilledItems.sourceId, ids)));
    return new Set(rows.map((r) => r.id));
  };
  const out: NewLine[] = [];
  if (settings.hourlyRateCents !== null) {
    const lastDay = new Date(upTo.getTime() - 1).toISOString().slice(0, 10);
    const logs: { id: number; cardKey: string | null; minutes: number; workedOn: string }[] = [];
    for (let offset = 0; offset < MAX_USAGE_ITEMS; offset += 100) {
      const p = await listTimeLogs(ctx, { billable: true, to: lastDay, limit: 100, offset } as any);
      logs.push(...p.items);
      if (p.nextOffset === null) break;
    }
    const done = await billed(
      "time_log",
      logs.map((l) => l.id),
    );
    const groups = new Map<string, typeof logs>();
    for (const l of logs
      .filter((x) => !done.has(x.id))
      .sort((a, b) => a.workedOn.localeCompare(b.workedOn) || a.id - b.id)) {
      const k = l.cardKey ?? "";
      groups.set(k, [...(groups.get(k) ?? []), l]);
    }
    for (const [key, ls] of [...groups].sort((a, b) => a[0].localeCompare(b[0]))) {
      const minutes = ls.reduce((a, l) => a + l.minutes, 0);
      out.push({
        kind: "time",
        description: `Time${key ? ` on ${key}` : ""}: ${hoursText(minutes)} h (${ls.length} log${ls.length === 1 ? "" : "s"}, ${ls[0]!.workedOn} to ${ls[ls.length - 1]!.workedOn})`,
        quantity: minutes,
        unit: "minute",
        unitAmountCents: settings.hourlyRateCents,
        amountCents: timeAmount(minutes, settings.hourlyRateCents),
        sourceType: "time_log",
        sourceId: ls.length === 1 ? ls[0]!.id : null,
        billed: ls.map((l) => ({ type: "time_log", id: l.id })),
      });
    }
  }
  const prices = new Map((await listServices(ctx, { includeInactive: true })).services.map((s) => [s.id, s]));
  const reqs: { id: number; serviceId: number; createdAt: string | null }[] = [];
  for (let offset = 0; offset < MAX_USAGE_ITEMS; offset += 100) {
    const p = await listServiceRequests(ctx, { status: "done", limit: 100, offset });
    reqs.push(...p.items);
    if (p.nextOffset === null) break;
  }
  const priced = reqs.filter(
    (r) =>
      prices.get(r.serviceId)?.priceCents != null &&
      r.createdAt !== null &&
      new Date(r.createdAt).getTime() < upTo.getTime(),
  );
  const doneReqs = await billed(
    "service_request",
    priced.map((r) => r.id),
  );
  for (const r of priced.filter((x) => !doneReqs.has(x.id)).sort((a, b) => a.id - b.id)) {
    const s = prices.get(r.serviceId)!;
    out.push({
      kind: "service",
      description: `${s.name} (service request #${r.id})`,
      quantity: 1,
      unit: s.unit ?? "item",
      unitAmountCents: s.priceCents!,
      amountCents: s.priceCents!,
      sourceType: "service_request",
      sourceId: r.id,
      billed: [{ type: "service_request", id: r.id }],
    });
  }
  return out;
}

/** Inserts an invoice with its lines and billed items; totals computed here, once. */
async function insertInvoice(
  tx: Tx,
  companyId: number,
  head: {
    currency: string;
    taxName: string | null;
    taxBasisPoints: number;
    paymentTermsDays: number;
    memo: string | null;
    subscriptionId: number | null;
    periodStart: Date | null;
    periodEnd: Date | null;
    createdByUserId: number | null;
  },
  lines: NewLine[],
  now: Date,
): Promise<Invoice> {
  if (lines.length > LIMITS.lines + 100 + 2 * MAX_USAGE_ITEMS) throw invalid("Too many lines for one invoice.");
  const t = totals(
    lines.map((l) => l.amountCents),
    head.taxBasisPoints,
  );
  if (t.totalCents > LIMITS.totalCents) throw invalid("The invoice total is too large.");
  const inv = (
    await tx
      .insert(billingInvoices)
      .values({ companyId, status: "draft", ...head, ...t, createdAt: now, updatedAt: now })
      .returning()
  )[0]!;
  let pos = 0;
  for (const { billed, ...l } of lines) {
    await tx.insert(billingInvoiceLines).values({ ...l, invoiceId: inv.id, position: pos++ });
    for (const b of billed ?? []) {
      const ins = await tx
        .insert(billingBilledItems)
        .values({ sourceType: b.type, sourceId: b.id, invoiceId: inv.id })
        .onConflictDoNothing()
        .returning({ id: billingBilledItems.id });
      // Another invoice took it in the meantime: refuse rather than bill twice.
      if (!ins.length)
        throw conflict(`A ${b.type.replace("_", " ")} (${b.id}) was just billed on another invoice; try again.`);
    }
  }
  return inv;
}

export async function createInvoice(ctx: ActorContext, raw: v.InferInput<typeof invoiceInput>) {
  manage(ctx);
  const input = parse(invoiceInput, raw);
  const now = ctx.deps.clock.now();
  let upTo = now;
  if (input.usageUpTo) {
    upTo = new Date(dayStart(input.usageUpTo, "usageUpTo").getTime() + DAY_MS);
    if (upTo.getTime() > now.getTime() + DAY_MS)
      throw invalid("usageUpTo cannot be in the future.", { path: "usageUpTo" });
  }
  return ctx.deps.db.transaction(async (tx) => {
    const s = await settingsOf(tx, ctx.company.id);
    const lines: NewLine[] = input.lines.map((l) => ({
      kind: "custom",
      description: l.description,
      quantity: l.quantity,
      unit: "item",
      unitAmountCents: l.unitAmountCents,
      amountCents: l.quantity * l.unitAmountCents,
    }));
    if (input.includeUsage) lines.push(...(await usageLines(ctx, upTo, s)));
    if (!lines.length)
      throw invalid("Nothing to invoice: add a line, or there is no unbilled billable time or done service request.");
    const inv = await insertInvoice(
      tx,
      ctx.company.id,
      {
        currency: s.currency,
        taxName: s.taxName,
        taxBasisPoints: s.taxBasisPoints,
        paymentTermsDays: s.paymentTermsDays,
        memo: input.memo?.trim() || null,
        subscriptionId: null,
        periodStart: null,
        periodEnd: null,
        createdByUserId: ctx.principal.userId,
      },
      lines,
      now,
    );
    await audit(tx, ctx, "invoices.create", {
      type: "invoice",
      id: inv.id,
      detail: { totalCents: inv.totalCents, lines: lines.length },
    });
    await emit(
      tx,
      ctx,
      invoiceCreated,
      { id: inv.id },
      { currency: inv.currency, totalCents: inv.totalCents, subtotalCents: inv.subtotalCents, lineCount: lines.length },
    );
    return invoiceOut(inv, now);
  });
}

/** Takes the next invoice number inside `tx`: rolled back with it, so numbers have no gaps. */
async function nextNumber(tx: Tx): Promise<{ sequence: number; number: string }> {
  await tx.insert(billingCounters).values({ name: "invoice", value: 0 }).onConflictDoNothing();
  const r = (
    await tx
      .update(billingCounters)
      .set({ value: sql`${billingCounters.value} + 1` })
      .where(eq(billingCounters.name, "invoice"))
      .returning({ value: billingCounters.value })
  )[0]!;
  return { sequence: r.value, number: `INV-${String(r.value).padStart(6, "0")}` };
}

async function issueIn(tx: Tx, actor: EventActor, inv: Invoice, now: Date): Promise<Invoice> {
  const n = await nextNumber(tx);
  const dueAt = new Date(now.getTime() + inv.paymentTermsDays * DAY_MS);
  const row = (
    await tx
      .update(billingInvoices)
      .set({ status: "open", number: n.number, sequence: n.sequence, issuedAt: now, dueAt, updatedAt: now })
      .where(and(eq(billingInvoices.id, inv.id), eq(billingInvoices.status, "draft")))
      .returning()
  )[0];
  if (!row) throw conflict(`Invoice ${inv.id} is no longer a draft.`);
  await emit(
    tx,
    actor,
    invoiceIssued,
    { id: row.id },
    {
      number: n.number,
      currency: row.currency,
      totalCents: row.totalCents,
      dueAt: dueAt.toISOString(),
      subscriptionId: row.subscriptionId,
      periodStart: iso(row.periodStart),
      periodEnd: iso(row.periodEnd),
    },
  );
  return row;
}

export async function issueInvoice(ctx: ActorContext, input: { id: number }) {
  manage(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const inv = await invoiceFor(tx, ctx, input);
    if (inv.status !== "draft")
      throw conflict(`Invoice ${inv.number ?? inv.id} is ${inv.status}; only drafts are issued.`);
    const now = ctx.deps.clock.now();
    const row = await issueIn(tx, ctx, inv, now);
    await audit(tx, ctx, "invoices.issue", {
      type: "invoice",
      id: row.id,
      detail: { number: row.number, totalCents: row.totalCents },
    });
    return invoiceOut(row, now);
  });
}

export async function deleteDraft(ctx: ActorContext, input: { id: number }) {
  manage(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const inv = await invoiceFor(tx, ctx, input);
    if (inv.status !== "draft")
      throw conflict(`Invoice ${inv.number ?? inv.id} is ${inv.status}; issued invoices are voided, not deleted.`);
    await tx.delete(billingInvoices).where(eq(billingInvoices.id, inv.id));
    await audit(tx, ctx, "invoices.delete", { type: "invoice", id: inv.id, detail: { totalCents: inv.totalCents } });
    await emit(tx, ctx, invoiceDeleted, { id: inv.id }, { currency: inv.currency, totalCents: inv.totalCents });
    return { id: inv.id, status: "deleted" };
  });
}

export async function markPaid(ctx: ActorContext, input: { id: number; paidAt?: Date; reference?: string }) {
  manage(ctx);
  const reference = input.reference?.trim() ? input.reference.trim().slice(0, 200) : null;
  return ctx.deps.db.transaction(async (tx) => {
    const inv = await invoiceFor(tx, ctx, input);
    if (inv.status !== "open" && inv.status !== "overdue")
      throw conflict(`Invoice ${inv.number ?? inv.id} is ${inv.status}; only open or overdue invoices are paid.`);
    const now = ctx.deps.clock.now();
    const paidAt = input.paidAt ?? now;
    if (Number.isNaN(paidAt.getTime()) || paidAt.getTime() > now.getTime())
      throw invalid("paidAt cannot be in the future.", { path: "paidAt" });
    if (paidAt.getTime() < inv.issuedAt!.getTime())
      throw invalid("paidAt cannot be before the invoice was issued.", { path: "paidAt" });
    const row = (
      await tx
        .update(billingInvoices)
        .set({ status: "paid", paidAt, paymentReference: reference, updatedAt: now })
        .where(and(eq(billingInvoices.id, inv.id), eq(billingInvoices.status, inv.status)))
        .returning()
    )[0];
    if (!row) throw conflict(`Invoice ${inv.number} changed meanwhile; reload it.`);
    await audit(tx, ctx, "invoices.pay", {
      type: "invoice",
      id: inv.id,
      detail: { number: inv.number, totalCents: inv.totalCents },
    });
    await emit(
      tx,
      ctx,
      invoicePaid,
      { id: inv.id },
      {
        number: inv.number!,
        currency: inv.currency,
        totalCents: inv.totalCents,
        paidAt: paidAt.toISOString(),
        reference,
      },
    );
    return invoiceOut(row, now);
  });
}

export async function voidInvoice(ctx: ActorContext, input: { id: number }) {
  manage(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const inv = await invoiceFor(tx, ctx, input);
    if (inv.status !== "open" && inv.status !== "overdue")
      throw conflict(
        `Invoice ${inv.number ?? inv.id} is ${inv.status}; only open or overdue invoices are voided (delete a draft).`,
      );
    const now = ctx.deps.clock.now();
    const row = (
      await tx
        .update(billingInvoices)
        .set({ status: "void", voidedAt: now, updatedAt: now })
        .where(and(eq(billingInvoices.id, inv.id), eq(billingInvoices.status, inv.status)))
        .returning()
    )[0];
    if (!row) throw conflict(`Invoice ${inv.number} changed meanwhile; reload it.`);
    // What it billed may be billed again.
    await tx.delete(billingBilledItems).where(eq(billingBilledItems.invoiceId, inv.id));
    await audit(tx, ctx, "invoices.void", { type: "invoice", id: inv.id, detail: { number: inv.number } });
    await emit(
      tx,
      ctx,
      invoiceVoided,
      { id: inv.id },
      { number: inv.number!, currency: inv.currency, totalCents: inv.totalCents },
    );
    return invoiceOut(row, now);
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
/** Open invoices whose due instant has passed by `now`: what markOverdue marks. */
const pastDue = (now: Date) => and(eq(billingInvoices.status, "open"), lte(billingInvoices.dueAt, now));

/** billing.subscription_invoices' pending check (jobs.ts): a period to invoice. */
export const subscriptionInvoicesPending = (deps: Deps) =>
  anyRow(
    deps.db
      .select({ id: billingSubscriptions.id })
      .from(billingSubscriptions)
      .where(periodEnded(deps.clock.now()))
      .limit(1),
  );
/** billing.overdue's pending check (jobs.ts), and markOverdue's own look before it writes: an invoice to mark. */
export const overduePending = (deps: Deps, now = deps.clock.now()) =>
  anyRow(deps.db.select({ id: billingInvoices.id }).from(billingInvoices).where(pastDue(now)).limit(1));

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

/** Records open invoices whose due instant has passed as overdue (reads already say so), with an event and a notification. */
export async function markOverdue(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  if (!(await overduePending(deps, now))) return 0;
  return deps.db.transaction(async (tx) => {
    const due = await tx
      .select()
      .from(billingInvoices)
      .where(pastDue(now))
      .orderBy(asc(billingInvoices.dueAt))
      .limit(500);
    for (const i of due) {
      const r = await tx
        .update(billingInvoices)
        .set({ status: "overdue", updatedAt: now })
        .where(and(eq(billingInvoices.id, i.id), eq(billingInvoices.status, "open")))
        .returning({ id: billingInvoices.id });
      if (!r.length) continue;
      await emit(
        tx,
        { deps, company: { id: i.companyId } },
        invoiceOverdue,
        { id: i.id },
        { number: i.number!, currency: i.currency, totalCents: i.totalCents, dueAt: i.dueAt!.toISOString() },
      );
      const admins = await tx
        .select({ u: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.companyId, i.companyId), inArray(memberships.role, ["owner", "admin"])));
      await notify(deps, {
        companyId: i.companyId,
        userIds: admins.map((a) => a.u),
        type: "invoice.overdue",
        title: `Invoice ${i.number} is overdue`,
        body: `Due ${i.dueAt!.toISOString().slice(0, 10)}; ${(i.totalCents / 100).toFixed(2)} ${i.currency} unpaid.`,
        link: `/billing#invoice-${i.id}`,
        entity: { type: "invoice", id: i.id },
      });
    }
    return due.length;
  });
}
