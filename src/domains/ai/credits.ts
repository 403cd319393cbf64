/**
 * AI credits: a balance and a ledger per company, grants by the agency,
 * debits by metered operations, and an optional monthly budget.
 *
 * The balance changes only through one conditional UPDATE
 * (`balance = balance - n WHERE balance >= n`), so concurrent debits can
 * never take it below zero: on SQLite writers take turns, on PostgreSQL the
 * second UPDATE waits for the first row lock and re-checks (SERIALIZABLE
 * retries cover the rest). Each ledger entry carries the balance after it,
 * written in the same transaction as the UPDATE that produced it.
 *
 * Other domains meter their operations with debitCredits() inside their own
 * transaction: when the balance (or a hard budget) is short it throws
 * InsufficientCredits and changes nothing, and the caller's transaction
 * rolls back with it.
 *
 * @public Serves email and brain (they refund or refuse on
 * InsufficientCredits).
 */
import { and, asc, count, desc, eq, gte, inArray, lt, sql, sum, type SQL } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Tx } from "../../core/db";
import { AppError, forbidden, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { authorize, roleAllows } from "../../core/scopes";
import { auditLog, memberships } from "../../core/tables";
import { notify } from "../notifications/notify";
import { creditsBudgetSet, creditsBudgetThreshold, creditsDebited, creditsGranted, creditsRefunded } from "./events";
import { aiCreditAccounts, aiCreditBudgets, aiCreditLedger } from "./tables";

/** Largest single grant or debit: far beyond any real use, well inside 2^53. */
export const MAX_AMOUNT = 1_000_000_000;
const REASON_RE = /^[a-z][a-z0-9_]*(\.[a-z0-9_]+){0,3}$/;
export const DEFAULT_THRESHOLDS = [50, 80, 100];

/** Refused for want of credits (or of budget): nothing was written. */
export class InsufficientCredits extends AppError {
  constructor(message: string, details: { needed: number; balance: number; reason: string; budgetLeft?: number }) {
    super("conflict", message, details);
    this.name = "InsufficientCredits";
  }
}

/** The refusal for a short balance, the same words wherever it is raised. */
export function notEnoughCredits(reason: string, needed: number, have: number): InsufficientCredits {
  return new InsufficientCredits(
    `Not enough AI credits: ${reason} needs ${needed} and the company has ${have}. Nothing was done; ask the agency to grant more credits.`,
    {
      needed,
      balance: have,
      reason,
    },
  );
}

function checkAmount(amount: number, what: string) {
  if (!Number.isSafeInteger(amount) || amount < 1 || amount > MAX_AMOUNT)
    throw invalid(
      `${what} must be a whole number of credits from 1 to ${MAX_AMOUNT.toLocaleString("en")}, got ${amount}.`,
    );
}

/** The first instant of the UTC calendar month holding `d`. */
export function monthStart(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1));
}
function nextMonth(d: Date): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1));
}

/**
 * Spends `amount` credits of `companyId` for `reason` (`email.send`,
 * `embedding`, `pdf.export`…), `ref` naming what was metered (`mail:42`).
 * Call it inside the transaction of the operation it meters. Throws
 * InsufficientCredits, having changed nothing, when the balance is short or
 * the company's hard monthly budget would be passed.
 *
 * @example
 * await deps.db.transaction(async (tx) => {
 *   await debitCredits(tx, deps, companyId, 1, "email.send", `mail:${id}`);
 *   await queueMail(tx, deps, mail);
 * });
 */
export async function debitCredits(
  tx: Tx,
  deps: Deps,
  companyId: number,
  amount: number,
  reason: string,
  ref: string | null = null,
  opts: { userId?: number | null; note?: string | null } = {},
): Promise<{ entryId: number; balanceAfter: number }> {
  checkAmount(amount, "amount");
  if (!REASON_RE.test(reason) || reason.length > 64)
    throw invalid(`reason must be lower-case dotted words such as email.send, got "${reason.slice(0, 40)}".`);
  if (ref !== null && (ref.length > 200 || ref.includes("\u0000")))
    throw invalid("ref must be at most 200 characters.");
  // A savepoint: a refusal after the budget moved leaves nothing behind even if the caller catches it.
  return await tx.transaction(async (t) => {
    const now = deps.clock.now();
    const budget = await spendBudget(t, deps, companyId, amount, reason, now);
    const acc = (
      await t
        .update(aiCreditAccounts)
        .set({ balance: sql`${aiCreditAccounts.balance} - ${amount}`, updatedAt: now })
        .where(and(eq(aiCreditAccounts.companyId, companyId), gte(aiCreditAccounts.balance, amount)))
        .returning({ balance: aiCreditAccounts.balance })
    )[0];
    if (!acc) {
      const have =
        (
          await t
            .select({ b: aiCreditAccounts.balance })
            .from(aiCreditAccounts)
            .where(eq(aiCreditAccounts.companyId, companyId))
            .limit(1)
        )[0]?.b ?? 0;
      throw notEnoughCredits(reason, amount, have);
    }
    const userId = opts.userId ?? null;
    const entry = (
      await t
        .insert(aiCreditLedger)
        .values({
          companyId,
          kind: "debit",
          amount: -amount,
          balanceAfter: acc.balance,
          reason,
          ref,
          note: opts.note ?? null,
          userId,
          createdAt: now,
        })
        .returning({ id: aiCreditLedger.id })
    )[0]!;
    await emit(
      t,
      { deps, company: { id: companyId } },
      creditsDebited,
      { id: entry.id },
      { entryId: entry.id, amount, balanceAfter: acc.balance, reason, ref, userId },
    );
    if (budget) await alertThreshold(t, deps, companyId, budget, now);
    return { entryId: entry.id, balanceAfter: acc.balance };
  });
}

/**
 * Gives back credits an operation paid for and did not use (a cancelled
 * campaign's recipients never sent). Idempotent by construction: the
 * caller says how many credits are owed back under (`reason`, `ref`) in
 * total, from the operation's state, and only what the ledger has not
 * refunded yet is credited — never more than was debited under that ref.
 * A second call (a double cancel, the delivery job finishing the same
 * campaign) finds nothing owed and writes nothing. Call it in the
 * transaction that made the credits owed.
 *
 * The account row is locked first (a no-op UPDATE), so two refunds of one
 * company take turns and the second reads the first's ledger row: on
 * SQLite writers take turns anyway, on PostgreSQL the second waits for the
 * lock and its SERIALIZABLE transaction is retried.
 *
 * The refund also comes off this month's budget `spent`, but only as far
 * as it refunds debits made this month (a refund in May of April's debit
 * does not make room in May's budget), and never below zero.
 */
export async function refundCredits(
  tx: Tx,
  deps: Deps,
  companyId: number,
  reason: string,
  ref: string,
  owedTotal: number,
  opts: { userId?: number | null; note?: string | null } = {},
): Promise<{ entryId: number; credits: number; balanceAfter: number } | null> {
  if (!Number.isSafeInteger(owedTotal) || owedTotal < 0)
    throw invalid(`owed must be a whole number of credits, got ${owedTotal}.`);
  return await tx.transaction(async (t) => {
    const now = deps.clock.now();
    const locked = await t
      .update(aiCreditAccounts)
      .set({ updatedAt: now })
      .where(eq(aiCreditAccounts.companyId, companyId))
      .returning({ b: aiCreditAccounts.balance });
    if (!locked.length) return null; // not metered: nothing was ever debited
    const mine = and(
      eq(aiCreditLedger.companyId, companyId),
      eq(aiCreditLedger.reason, reason),
      eq(aiCreditLedger.ref, ref),
    );
    const sums = async (since?: Date) => {
      const rows = await t
        .select({ kind: aiCreditLedger.kind, s: sum(aiCreditLedger.amount) })
        .from(aiCreditLedger)
        .where(
          and(
            mine,
            inArray(aiCreditLedger.kind, ["debit", "refund"]),
            since ? gte(aiCreditLedger.createdAt, since) : undefined,
          ),
        )
        .groupBy(aiCreditLedger.kind);
      return {
        paid: -Number(rows.find((r) => r.kind === "debit")?.s ?? 0),
        refunded: Number(rows.find((r) => r.kind === "refund")?.s ?? 0),
      };
    };
    const all = await sums();
    const credits = Math.min(owedTotal, all.paid) - all.refunded;
    if (credits <= 0) return null;
    const acc = (
      await t
        .update(aiCreditAccounts)
        .set({ balance: sql`${aiCreditAccounts.balance} + ${credits}`, updatedAt: now })
        .where(eq(aiCreditAccounts.companyId, companyId))
        .returning({ balance: aiCreditAccounts.balance })
    )[0]!;
    const start = monthStart(now);
    const month = await sums(start);
    const offBudget = Math.min(credits, Math.max(0, month.paid - month.refunded));
    if (offBudget > 0)
      await t
        .update(aiCreditBudgets)
        .set({
          spent: sql`case when ${aiCreditBudgets.spent} >= ${offBudget} then ${aiCreditBudgets.spent} - ${offBudget} else 0 end`,
          updatedAt: now,
        })
        .where(and(eq(aiCreditBudgets.companyId, companyId), gte(aiCreditBudgets.periodStart, start)));
    const userId = opts.userId ?? null;
    const note = opts.note ?? null;
    const entry = (
      await t
        .insert(aiCreditLedger)
        .values({
          companyId,
          kind: "refund",
          amount: credits,
          balanceAfter: acc.balance,
          reason,
          ref,
          note,
          userId,
          createdAt: now,
        })
        .returning({ id: aiCreditLedger.id })
    )[0]!;
    await emit(
      t,
      { deps, company: { id: companyId } },
      creditsRefunded,
      { id: entry.id },
      { entryId: entry.id, amount: credits, balanceAfter: acc.balance, reason, ref, note, userId },
    );
    return { entryId: entry.id, credits, balanceAfter: acc.balance };
  });
}

type BudgetAfter = {
  spent: number;
  monthlyLimit: number;
  thresholds: number[];
  notifiedPercent: number;
  periodStart: Date;
};

/** Counts the debit against this month's budget, if the company has one; refuses past a hard limit. */
async function spendBudget(
  t: Tx,
  deps: Deps,
  companyId: number,
  amount: number,
  reason: string,
  now: Date,
): Promise<BudgetAfter | null> {
  const b = (await t.select().from(aiCreditBudgets).where(eq(aiCreditBudgets.companyId, companyId)).limit(1))[0];
  if (!b) return null;
  const start = monthStart(now);
  if (b.periodStart.getTime() < start.getTime())
    await t
      .update(aiCreditBudgets)
      .set({ periodStart: start, spent: 0, notifiedPercent: 0, updatedAt: now })
      .where(and(eq(aiCreditBudgets.companyId, companyId), lt(aiCreditBudgets.periodStart, start)));
  const conds: SQL[] = [eq(aiCreditBudgets.companyId, companyId)];
  if (b.hard) conds.push(sql`${aiCreditBudgets.spent} + ${amount} <= ${aiCreditBudgets.monthlyLimit}`);
  const r = (
    await t
      .update(aiCreditBudgets)
      .set({ spent: sql`${aiCreditBudgets.spent} + ${amount}`, updatedAt: now })
      .where(and(...conds))
      .returning()
  )[0];
  if (!r) {
    const cur = (await t.select().from(aiCreditBudgets).where(eq(aiCreditBudgets.companyId, companyId)).limit(1))[0]!;
    const bal =
      (
        await t
          .select({ b: aiCreditAccounts.balance })
          .from(aiCreditAccounts)
          .where(eq(aiCreditAccounts.companyId, companyId))
          .limit(1)
      )[0]?.b ?? 0;
    throw budgetReached(reason, amount, Math.max(0, cur.monthlyLimit - cur.spent), cur.monthlyLimit, bal, now);
  }
  return r;
}

/** The refusal for a hard monthly budget, the same words wherever it is raised (before work, or at the debit). */
export function budgetReached(
  reason: string,
  needed: number,
  left: number,
  monthlyLimit: number,
  balance: number,
  now: Date,
): InsufficientCredits {
  return new InsufficientCredits(
    `AI credit budget reached: ${reason} needs ${needed} and ${left} of this month's ${monthlyLimit} remain. Nothing was done; the budget resets on ${iso(nextMonth(now))!.slice(0, 10)} or the agency can raise it.`,
    { needed, balance, reason, budgetLeft: left },
  );
}

async function alertThreshold(t: Tx, deps: Deps, companyId: number, b: BudgetAfter, now: Date) {
  const reached = b.thresholds.filter((p) => b.spent * 100 >= p * b.monthlyLimit && p > b.notifiedPercent);
  if (!reached.length) return;
  const percent = Math.max(...reached);
  const won = (
    await t
      .update(aiCreditBudgets)
      .set({ notifiedPercent: percent, updatedAt: now })
      .where(and(eq(aiCreditBudgets.companyId, companyId), lt(aiCreditBudgets.notifiedPercent, percent)))
      .returning({ c: aiCreditBudgets.companyId })
  )[0];
  if (!won) return;
  const people = (
    await t
      .select({ u: memberships.userId })
      .from(memberships)
      .where(and(eq(memberships.companyId, companyId), inArray(memberships.role, ["owner", "admin"])))
  ).map((r) => r.u);
  if (people.length)
    await notify(deps, {
      companyId,
      userIds: people,
      type: "credits.budget_threshold",
      title: `AI credits: ${percent}% of this month's budget used (${b.spent} of ${b.monthlyLimit})`,
      body: percent >= 100 ? "The monthly AI credit budget is used up." : null,
      link: "/ai/credits",
      entity: { type: "company", id: companyId },
    });
  await emit(
    t,
    { deps, company: { id: companyId } },
    creditsBudgetThreshold,
    { id: companyId },
    {
      percent,
      spent: b.spent,
      monthlyLimit: b.monthlyLimit,
      periodStart: iso(b.periodStart)!,
      notifiedUserIds: people,
    },
  );
}

/** How an operator verb was reached, for its audit row: the CLI (default) or a portal session. */
export type OperatorVia = { kind: "cli" | "session"; id: number | null };
const CLI: OperatorVia = { kind: "cli", id: null };
const SESSION: OperatorVia = { kind: "session", id: null };

/** Operator verb (CLI, portal, seed): the agency grants `amount` credits to a company. */
export async function grantCredits(
  deps: Deps,
  input: {
    companyId: number;
    amount: number;
    note?: string | null;
    userId?: number | null;
    at?: Date;
    via?: OperatorVia;
  },
) {
  checkAmount(input.amount, "amount");
  const note = input.note?.trim() ? input.note.trim().slice(0, 500) : null;
  return await deps.db.transaction(async (t) => {
    const now = input.at ?? deps.clock.now();
    await t
      .insert(aiCreditAccounts)
      .values({ companyId: input.companyId, balance: 0, updatedAt: now })
      .onConflictDoNothing();
    const acc = (
      await t
        .update(aiCreditAccounts)
        .set({ balance: sql`${aiCreditAccounts.balance} + ${input.amount}`, updatedAt: now })
        .where(eq(aiCreditAccounts.companyId, input.companyId))
        .returning({ balance: aiCreditAccounts.balance })
    )[0]!;
    const userId = input.userId ?? null;
    const entry = (
      await t
        .insert(aiCreditLedger)
        .values({
          companyId: input.companyId,
          kind: "grant",
          amount: input.amount,
          balanceAfter: acc.balance,
          reason: "grant",
          ref: null,
          note,
          userId,
          createdAt: now,
        })
        .returning({ id: aiCreditLedger.id })
    )[0]!;
    await t.insert(auditLog).values({
      companyId: input.companyId,
      userId,
      credentialKind: (input.via ?? CLI).kind,
      credentialId: (input.via ?? CLI).id,
      action: "credits.grant",
      entityType: "credit_entry",
      entityId: entry.id,
      detail: { amount: input.amount, balanceAfter: acc.balance },
      createdAt: now,
    });
    await emit(
      t,
      { deps, company: { id: input.companyId } },
      creditsGranted,
      { id: entry.id },
      {
        entryId: entry.id,
        amount: input.amount,
        balanceAfter: acc.balance,
        note,
        grantedByUserId: userId,
      },
    );
    return { entryId: entry.id, balance: acc.balance };
  });
}

/** Operator verb: sets (or with monthlyLimit null removes) a company's monthly budget; audited, emits credits.budget_set when something changed. */
export async function setBudget(
  deps: Deps,
  input: {
    companyId: number;
    monthlyLimit: number | null;
    thresholds?: number[];
    hard?: boolean;
    userId?: number | null;
    via?: OperatorVia;
  },
) {
  const record = async (
    t: Tx,
    now: Date,
    detail: { monthlyLimit: number | null; thresholds: number[] | null; hard: boolean | null },
  ) => {
    const userId = input.userId ?? null;
    await t.insert(auditLog).values({
      companyId: input.companyId,
      userId,
      credentialKind: (input.via ?? CLI).kind,
      credentialId: (input.via ?? CLI).id,
      action: detail.monthlyLimit === null ? "credits.budget_remove" : "credits.budget",
      entityType: "company",
      entityId: input.companyId,
      detail,
      createdAt: now,
    });
    await emit(
      t,
      { deps, company: { id: input.companyId } },
      creditsBudgetSet,
      { id: input.companyId },
      { ...detail, setByUserId: userId },
    );
  };
  return await deps.db.transaction(async (t) => {
    const now = deps.clock.now();
    if (input.monthlyLimit === null) {
      const gone = await t
        .delete(aiCreditBudgets)
        .where(eq(aiCreditBudgets.companyId, input.companyId))
        .returning({ c: aiCreditBudgets.companyId });
      if (gone.length) await record(t, now, { monthlyLimit: null, thresholds: null, hard: null });
      return null;
    }
    checkAmount(input.monthlyLimit, "the monthly limit");
    const thresholds = [...new Set(input.thresholds ?? DEFAULT_THRESHOLDS)].sort((a, b) => a - b);
    if (!thresholds.length || thresholds.some((p) => !Number.isInteger(p) || p < 1 || p > 100))
      throw invalid("thresholds are whole percentages from 1 to 100, e.g. 50,80,100.");
    const start = monthStart(now);
    // This month's spending so far counts from the moment a budget is set: debits, less refunds of this month's debits (as refundCredits counts them).
    const byRef = await t
      .select({
        ref: aiCreditLedger.ref,
        reason: aiCreditLedger.reason,
        kind: aiCreditLedger.kind,
        s: sum(aiCreditLedger.amount),
      })
      .from(aiCreditLedger)
      .where(
        and(
          eq(aiCreditLedger.companyId, input.companyId),
          inArray(aiCreditLedger.kind, ["debit", "refund"]),
          gte(aiCreditLedger.createdAt, start),
        ),
      )
      .groupBy(aiCreditLedger.ref, aiCreditLedger.reason, aiCreditLedger.kind);
    const net = new Map<string, number>();
    for (const r of byRef) {
      const k = `${r.reason}\u0000${r.ref ?? ""}`;
      net.set(k, (net.get(k) ?? 0) - Number(r.s ?? 0));
    }
    const spent = [...net.values()].reduce((a, n) => a + Math.max(0, n), 0);
    const values = {
      monthlyLimit: input.monthlyLimit,
      thresholds,
      hard: input.hard ?? false,
      periodStart: start,
      spent,
      updatedAt: now,
    };
    const done = await t
      .update(aiCreditBudgets)
      .set(values)
      .where(eq(aiCreditBudgets.companyId, input.companyId))
      .returning();
    if (!done.length)
      await t
        .insert(aiCreditBudgets)
        .values({ companyId: input.companyId, ...values, notifiedPercent: 0, createdAt: now });
    await record(t, now, { monthlyLimit: values.monthlyLimit, thresholds, hard: values.hard });
    return budgetOut(
      (await t.select().from(aiCreditBudgets).where(eq(aiCreditBudgets.companyId, input.companyId)).limit(1))[0]!,
      now,
    );
  });
}

/**
 * Grants and budgets from the portal: the agency's people are the owners and
 * admins of the company (as for billing), acting through their signed-in
 * session. Agents never reach these (no tool calls them, and any other
 * credential is refused here too).
 */
function requireAgencyPerson(ctx: ActorContext, what: string) {
  if (ctx.principal.credential.kind !== "session")
    throw forbidden(`AI credits are ${what} by the agency's people in the portal or the CLI, not by agents.`);
  if (!roleAllows(ctx.company.role, true))
    throw forbidden(
      `Only owners and admins of ${ctx.company.name} can ${what === "granted" ? "grant credits" : "set the budget"}; your role is ${ctx.company.role}.`,
    );
}

export async function grantCreditsAs(ctx: ActorContext, input: { amount: number; note?: string | null }) {
  requireAgencyPerson(ctx, "granted");
  return await grantCredits(ctx.deps, {
    companyId: ctx.company.id,
    amount: input.amount,
    note: input.note,
    userId: ctx.principal.userId,
    via: SESSION,
  });
}

export async function setBudgetAs(
  ctx: ActorContext,
  input: { monthlyLimit: number | null; thresholds?: number[]; hard?: boolean },
) {
  requireAgencyPerson(ctx, "budgeted");
  return await setBudget(ctx.deps, { companyId: ctx.company.id, ...input, userId: ctx.principal.userId, via: SESSION });
}

function budgetOut(b: typeof aiCreditBudgets.$inferSelect, now: Date) {
  // A period that ended without debits since still shows last month's figures in the row: read it as a fresh month.
  const fresh = b.periodStart.getTime() < monthStart(now).getTime();
  const spent = fresh ? 0 : b.spent;
  return {
    monthlyLimit: b.monthlyLimit,
    spent,
    remaining: Math.max(0, b.monthlyLimit - spent),
    percentUsed: Math.floor((spent * 100) / b.monthlyLimit),
    thresholds: b.thresholds,
    hard: b.hard,
    periodStart: iso(fresh ? monthStart(now) : b.periodStart),
    resetsAt: iso(nextMonth(now)),
  };
}

export async function creditBalance(ctx: ActorContext) {
  authorize(ctx, "ai:read", { write: false });
  const id = ctx.company.id;
  const acc = (await ctx.deps.db.select().from(aiCreditAccounts).where(eq(aiCreditAccounts.companyId, id)).limit(1))[0];
  const b = (await ctx.deps.db.select().from(aiCreditBudgets).where(eq(aiCreditBudgets.companyId, id)).limit(1))[0];
  const last = (
    await ctx.deps.db
      .select()
      .from(aiCreditLedger)
      .where(eq(aiCreditLedger.companyId, id))
      .orderBy(desc(aiCreditLedger.id))
      .limit(1)
  )[0];
  return {
    companyId: id,
    balance: acc?.balance ?? 0,
    budget: b ? budgetOut(b, ctx.deps.clock.now()) : null,
    lastEntry: last ? entryOut(last) : null,
  };
}

function entryOut(r: typeof aiCreditLedger.$inferSelect) {
  return {
    id: r.id,
    at: iso(r.createdAt),
    kind: r.kind,
    amount: r.amount,
    balanceAfter: r.balanceAfter,
    reason: r.reason,
    ref: r.ref,
    note: r.note,
    userId: r.userId,
  };
}

function when(s: string | undefined, what: string): Date | undefined {
  if (s === undefined) return undefined;
  const d = new Date(s);
  if (Number.isNaN(d.getTime()))
    throw invalid(`${what} must be an ISO 8601 date or date-time, got "${s.slice(0, 40)}".`);
  return d;
}

export async function creditLedger(
  ctx: ActorContext,
  f: {
    kind?: "grant" | "debit" | "refund";
    reason?: string;
    ref?: string;
    since?: string;
    until?: string;
    limit: number;
    offset: number;
  },
) {
  authorize(ctx, "ai:read", { write: false });
  const conds: SQL[] = [eq(aiCreditLedger.companyId, ctx.company.id)];
  if (f.kind) conds.push(eq(aiCreditLedger.kind, f.kind));
  if (f.reason) conds.push(eq(aiCreditLedger.reason, f.reason));
  if (f.ref) conds.push(eq(aiCreditLedger.ref, f.ref));
  const since = when(f.since, "since");
  const until = when(f.until, "until");
  if (since) conds.push(gte(aiCreditLedger.createdAt, since));
  if (until) conds.push(lt(aiCreditLedger.createdAt, until));
  const where = and(...conds);
  const total = (await ctx.deps.db.select({ n: count() }).from(aiCreditLedger).where(where))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select()
    .from(aiCreditLedger)
    .where(where)
    .orderBy(desc(aiCreditLedger.id))
    .limit(f.limit)
    .offset(f.offset);
  return page(rows.map(entryOut), total, f.limit, f.offset);
}

const MAX_USAGE_DAYS = 366;

/**
 * Spending between `from` (inclusive) and `to` (exclusive), default this UTC
 * month, grouped by reason or by UTC day. `credits` is what was spent net of
 * refunds (a cancelled campaign's unsent recipients), `refunded` what came
 * back; `operations` counts debits.
 */
export async function creditUsage(ctx: ActorContext, input: { from?: string; to?: string; groupBy: "reason" | "day" }) {
  authorize(ctx, "ai:read", { write: false });
  const now = ctx.deps.clock.now();
  const from = when(input.from, "from") ?? monthStart(now);
  const to = when(input.to, "to") ?? nextMonth(now);
  if (to.getTime() <= from.getTime()) throw invalid("to must be after from.");
  if (to.getTime() - from.getTime() > MAX_USAGE_DAYS * 86_400_000)
    throw invalid(`A usage report covers at most ${MAX_USAGE_DAYS} days.`);
  const where = and(
    eq(aiCreditLedger.companyId, ctx.company.id),
    gte(aiCreditLedger.createdAt, from),
    lt(aiCreditLedger.createdAt, to),
  );
  const totals = await ctx.deps.db
    .select({ kind: aiCreditLedger.kind, credits: sum(aiCreditLedger.amount), n: count() })
    .from(aiCreditLedger)
    .where(where)
    .groupBy(aiCreditLedger.kind);
  const total = (k: string) => Number(totals.find((t) => t.kind === k)?.credits ?? 0);
  const debited = -total("debit");
  const refunded = total("refund");
  const granted = total("grant");
  const groups = new Map<string, { key: string; credits: number; refunded: number; operations: number }>();
  const add = (key: string, kind: string, amount: number, n: number) => {
    const g = groups.get(key) ?? { key, credits: 0, refunded: 0, operations: 0 };
    g.credits -= amount;
    if (kind === "refund") g.refunded += amount;
    else g.operations += n;
    groups.set(key, g);
  };
  const spending = and(where, inArray(aiCreditLedger.kind, ["debit", "refund"]));
  if (input.groupBy === "reason") {
    const rows = await ctx.deps.db
      .select({
        reason: aiCreditLedger.reason,
        kind: aiCreditLedger.kind,
        credits: sum(aiCreditLedger.amount),
        n: count(),
      })
      .from(aiCreditLedger)
      .where(spending)
      .groupBy(aiCreditLedger.reason, aiCreditLedger.kind);
    for (const r of rows) add(r.reason, r.kind, Number(r.credits ?? 0), Number(r.n));
  } else {
    const rows = await ctx.deps.db
      .select({ at: aiCreditLedger.createdAt, kind: aiCreditLedger.kind, amount: aiCreditLedger.amount })
      .from(aiCreditLedger)
      .where(spending)
      .orderBy(asc(aiCreditLedger.createdAt));
    for (const r of rows) add(iso(r.at)!.slice(0, 10), r.kind, r.amount, 1);
  }
  const list = [...groups.values()].sort((a, b) =>
    input.groupBy === "day" ? (a.key < b.key ? -1 : 1) : b.credits - a.credits || (a.key < b.key ? -1 : 1),
  );
  return {
    from: iso(from),
    to: iso(to),
    groupBy: input.groupBy,
    debited,
    refunded,
    granted,
    operations: list.reduce((n, g) => n + g.operations, 0),
    groups: list,
  };
}
