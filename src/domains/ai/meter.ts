/**
 * Metering: what each metered operation costs, and the one call other
 * domains make to pay for it (docs/ai.md, "Metered operations").
 *
 * A company is metered once it has a credit account, that is once the
 * agency granted it credits at least once. A company without one is not
 * metered at all: meter() does nothing and refuses nothing, so an agency
 * that never uses credits sees no change in behaviour.
 *
 * @public Serves every domain that pays for an operation (decks, email,
 * brain, automations).
 */
import { and, eq, lt, sum } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { budgetReached, debitCredits, monthStart, notEnoughCredits } from "./credits";
import { aiCreditAccounts, aiCreditBudgets, aiCreditLedger } from "./tables";

/**
 * Credits per unit, the only place prices live. A unit is one recipient of
 * an email (campaign, test, transactional, automation), one embedded chunk
 * of the knowledge base (up to 1,200 characters), one deck PDF, one deck
 * PowerPoint file.
 */
export const PRICES = {
  "email.send": 1,
  embedding: 1,
  "pdf.export": 5,
  "pptx.export": 5,
} as const;

export type MeteredOperation = keyof typeof PRICES;

type Q = Pick<Db, "select">;

/** The company's balance, or null when it has no credit account (not metered). */
export async function meteredBalance(q: Q, companyId: number): Promise<number | null> {
  const r = (
    await q
      .select({ b: aiCreditAccounts.balance })
      .from(aiCreditAccounts)
      .where(eq(aiCreditAccounts.companyId, companyId))
      .limit(1)
  )[0];
  return r ? r.b : null;
}

/** What a metered company can spend now: its balance, and what its hard monthly budget leaves (null: no hard budget). */
async function spendable(
  q: Q,
  deps: Deps,
  companyId: number,
): Promise<{ balance: number; budgetLeft: number | null; monthlyLimit: number } | null> {
  const b = await meteredBalance(q, companyId);
  if (b === null) return null;
  const budget = (await q.select().from(aiCreditBudgets).where(eq(aiCreditBudgets.companyId, companyId)).limit(1))[0];
  if (!budget?.hard) return { balance: b, budgetLeft: null, monthlyLimit: 0 };
  // A row still holding last month's figures is a fresh month (the next debit rolls it).
  const fresh = budget.periodStart.getTime() < monthStart(deps.clock.now()).getTime();
  return {
    balance: b,
    budgetLeft: Math.max(0, budget.monthlyLimit - (fresh ? 0 : budget.spent)),
    monthlyLimit: budget.monthlyLimit,
  };
}

/** How many units of `op` the balance (and a hard monthly budget) pays for now; Infinity when not metered. */
export async function affordableUnits(q: Q, deps: Deps, companyId: number, op: MeteredOperation): Promise<number> {
  const s = await spendable(q, deps, companyId);
  if (s === null) return Infinity;
  return Math.floor(Math.min(s.balance, s.budgetLeft ?? Infinity) / PRICES[op]);
}

/** Metered companies whose balance cannot pay for one unit of `op`: background work skips them until a grant. */
export async function starvedCompanies(q: Q, op: MeteredOperation): Promise<number[]> {
  return (
    await q
      .select({ c: aiCreditAccounts.companyId })
      .from(aiCreditAccounts)
      .where(lt(aiCreditAccounts.balance, PRICES[op]))
  ).map((r) => r.c);
}

/**
 * Refuses up front (InsufficientCredits, the same message the debit would
 * give) when a metered company's balance, or what its hard monthly budget
 * leaves, cannot pay for `units` of `op`: for work worth not starting
 * (rendering a PDF). The debit after the work checks both again.
 */
export async function assertAffordable(
  q: Q,
  deps: Deps,
  companyId: number,
  op: MeteredOperation,
  units = 1,
): Promise<void> {
  const s = await spendable(q, deps, companyId);
  if (s === null) return;
  const needed = PRICES[op] * units;
  if (s.balance < needed) throw notEnoughCredits(op, needed, s.balance);
  if (s.budgetLeft !== null && s.budgetLeft < needed)
    throw budgetReached(op, needed, s.budgetLeft, s.monthlyLimit, s.balance, deps.clock.now());
}

/**
 * Pays for `units` of `op` inside the caller's transaction; a no-op (null)
 * for an unmetered company or zero units. Throws InsufficientCredits, having
 * changed nothing, when the balance or a hard budget is short: let it
 * propagate and the operation's own transaction rolls back with it.
 */
export async function meter(
  tx: Parameters<typeof debitCredits>[0],
  deps: Deps,
  companyId: number,
  op: MeteredOperation,
  units: number,
  ref: string | null,
  userId: number | null = null,
): Promise<{ credits: number; balanceAfter: number } | null> {
  if (units <= 0) return null;
  if ((await meteredBalance(tx, companyId)) === null) return null;
  const credits = PRICES[op] * units;
  const r = await debitCredits(tx, deps, companyId, credits, op, ref, { userId });
  return { credits, balanceAfter: r.balanceAfter };
}

/** Credits already debited for `op` under `ref` (a campaign paid at send, topped up as recipients are queued). */
export async function meteredSoFar(q: Q, companyId: number, op: MeteredOperation, ref: string): Promise<number> {
  const r = (
    await q
      .select({ s: sum(aiCreditLedger.amount) })
      .from(aiCreditLedger)
      .where(
        and(
          eq(aiCreditLedger.companyId, companyId),
          eq(aiCreditLedger.kind, "debit"),
          eq(aiCreditLedger.reason, op),
          eq(aiCreditLedger.ref, ref),
        ),
      )
  )[0];
  return -Number(r?.s ?? 0);
}
