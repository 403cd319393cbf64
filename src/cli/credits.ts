/**
 * `plinth credits grant|budget|balance`: the agency's people manage a
 * company's AI credits (docs/ai.md). Agents only read credits over MCP;
 * grants and budgets are the agency's decision, made here.
 */
import { catalog } from "../catalog";
import type { Deps } from "../core/context";
import { openDeps } from "../core/open";
import type { Config } from "../config";
import { userByEmail } from "../domains/accounts/verbs";
import { grantCredits, MAX_AMOUNT, setBudget } from "../domains/ai/credits";
import { aiCreditAccounts, aiCreditBudgets } from "../domains/ai/tables";
import { eq } from "drizzle-orm";
import { needFlag, UsageError, type Command } from "./command";

function whole(raw: string, what: string, max = MAX_AMOUNT): number {
  if (!/^[1-9]\d{0,12}$/.test(raw) || Number(raw) > max)
    throw new UsageError(`${what} must be a whole number from 1 to ${max}, got "${raw}"`);
  return Number(raw);
}

async function withDeps<T>(config: Config, fn: (deps: Deps) => T | Promise<T>): Promise<T> {
  const deps = await openDeps(config, catalog, { listen: false });
  try {
    return await fn(deps);
  } finally {
    await deps.close();
  }
}

export const creditCommands: Command[] = [
  {
    name: "credits grant",
    flags: [
      { name: "company", value: "<id>", required: true, help: "the company receiving the credits" },
      { name: "amount", value: "<n>", required: true, help: "whole credits to add" },
      { name: "note", value: "<text>", help: "why (shown in the ledger)" },
      { name: "by", value: "<email>", help: "the agency person granting (recorded in the ledger and audit log)" },
    ],
    summary: "Grant AI credits to a company; prints the new balance.",
    async run({ flags, config }) {
      const companyId = whole(needFlag(flags, "company"), "--company", Number.MAX_SAFE_INTEGER);
      const amount = whole(needFlag(flags, "amount"), "--amount");
      const note = flags.note === undefined ? null : needFlag(flags, "note");
      const r = await withDeps(config, async (deps) => {
        let userId: number | null = null;
        if (flags.by !== undefined) {
          const u = await userByEmail(deps, needFlag(flags, "by"));
          if (!u) throw new UsageError(`no user with email ${flags.by}`);
          userId = u.id;
        }
        return await grantCredits(deps, { companyId, amount, note, userId });
      });
      console.log(r.balance);
      console.error(
        `Granted ${amount} credits to company ${companyId} (ledger entry ${r.entryId}); balance ${r.balance}.`,
      );
    },
  },
  {
    name: "credits budget",
    flags: [
      { name: "company", value: "<id>", required: true, help: "the company" },
      { name: "monthly", value: "<n>", help: "credits per calendar month (UTC); omit with --off" },
      { name: "thresholds", value: "<list>", help: "percentages that notify owners and admins (default 50,80,100)" },
      { name: "hard", help: "refuse debits past the monthly limit (default: notify only)" },
      { name: "off", help: "remove the budget" },
    ],
    summary: "Set or remove a company's monthly AI credit budget.",
    async run({ flags, config }) {
      const companyId = whole(needFlag(flags, "company"), "--company", Number.MAX_SAFE_INTEGER);
      if (flags.off === true) {
        if (flags.monthly !== undefined) throw new UsageError("give --monthly or --off, not both");
        await withDeps(config, (deps) => setBudget(deps, { companyId, monthlyLimit: null }));
        console.error(`Budget of company ${companyId} removed.`);
        return;
      }
      const monthlyLimit = whole(needFlag(flags, "monthly"), "--monthly");
      const thresholds =
        flags.thresholds === undefined
          ? undefined
          : needFlag(flags, "thresholds")
              .split(",")
              .map((p) => whole(p.trim(), "--thresholds", 100));
      const b = await withDeps(config, (deps) =>
        setBudget(deps, { companyId, monthlyLimit, thresholds, hard: flags.hard === true }),
      );
      console.log(JSON.stringify(b));
    },
  },
  {
    name: "credits balance",
    flags: [{ name: "company", value: "<id>", required: true, help: "the company" }],
    summary: "Print a company's AI credit balance and budget as JSON.",
    async run({ flags, config }) {
      const companyId = whole(needFlag(flags, "company"), "--company", Number.MAX_SAFE_INTEGER);
      const out = await withDeps(config, async (deps) => {
        const acc = (
          await deps.db.select().from(aiCreditAccounts).where(eq(aiCreditAccounts.companyId, companyId)).limit(1)
        )[0];
        const b = (
          await deps.db.select().from(aiCreditBudgets).where(eq(aiCreditBudgets.companyId, companyId)).limit(1)
        )[0];
        return {
          companyId,
          balance: acc?.balance ?? 0,
          budget: b ? { monthlyLimit: b.monthlyLimit, spent: b.spent, thresholds: b.thresholds, hard: b.hard } : null,
        };
      });
      console.log(JSON.stringify(out));
    },
  },
];
