/**
 * Invoices. Life: draft (no number; lines may still change by deleting and
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
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import { emit, type EventActor } from "../../core/events";
import { anyRow } from "../../core/jobs";
import { page } from "../../core/pagination";
import { memberships } from "../../core/tables";
import { notify } from "../notifications/verbs";
import { listTimeLogs } from "../projects/time-logs";
import { listServiceRequests, listServices } from "../services/verbs";
import {
  type INVOICE_STATUSES,
  type Invoice,
  invoiceFor,
  LIMITS,
  manage,
  parse,
  read,
  subFor,
  text,
  type Tx,
} from "./access";
import { invoiceCreated, invoiceDeleted, invoiceIssued, invoiceOverdue, invoicePaid, invoiceVoided } from "./events";
import { hoursText, timeAmount, totals } from "./money";
import { settingsOf } from "./settings";
import { billingBilledItems, billingCounters, billingInvoiceLines, billingInvoices } from "./tables";

type Line = typeof billingInvoiceLines.$inferSelect;

/** Usage items (time logs, service requests) one invoice bills at most. */
const MAX_USAGE_ITEMS = 2000;

/** The status as of `now`: an open invoice is overdue from its due instant, before the job records it. */
export function effectiveStatus(i: Pick<Invoice, "status" | "dueAt">, now: Date): string {
  return i.status === "open" && i.dueAt && i.dueAt.getTime() <= now.getTime() ? "overdue" : i.status;
}

export function invoiceOut(i: Invoice, now: Date) {
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

export type NewLine = Omit<typeof billingInvoiceLines.$inferInsert, "invoiceId" | "position"> & {
  billed?: { type: string; id: number }[];
};

/**
 * The company's unbilled usage up to `upTo` (exclusive instant): billable
 * time logs grouped by card, at the hourly rate (none without a rate), and
 * done service requests of priced services — read through the projects
 * and services domains' own verbs, with the caller's tenancy.
 */
export async function usageLines(
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
export async function insertInvoice(
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

export async function issueIn(tx: Tx, actor: EventActor, inv: Invoice, now: Date): Promise<Invoice> {
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

/** Open invoices whose due instant has passed by `now`: what markOverdue marks. */
const pastDue = (now: Date) => and(eq(billingInvoices.status, "open"), lte(billingInvoices.dueAt, now));

/** billing.overdue's pending check (jobs.ts), and markOverdue's own look before it writes: an invoice to mark. */
export const overduePending = (deps: Deps, now = deps.clock.now()) =>
  anyRow(deps.db.select({ id: billingInvoices.id }).from(billingInvoices).where(pastDue(now)).limit(1));

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
