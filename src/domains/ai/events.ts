/** Events of the ai domain: credit grants, debits and budget alerts. AI history itself emits none (one per tool call would flood the stream). */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

export const creditsGranted = defineEvent({
  type: "credits.granted",
  entity: "credit_entry",
  description: "The agency granted AI credits to a company: amount, the balance after, the note and who granted.",
  payload: v.object({
    entryId: v.number(),
    amount: v.number(),
    balanceAfter: v.number(),
    note: v.nullable(v.string()),
    grantedByUserId: v.nullable(v.number()),
  }),
});

export const creditsDebited = defineEvent({
  type: "credits.debited",
  entity: "credit_entry",
  description:
    "A metered operation spent AI credits: amount, the balance after, the reason (email.send, embedding, pdf.export…) and its ref.",
  payload: v.object({
    entryId: v.number(),
    amount: v.number(),
    balanceAfter: v.number(),
    reason: v.string(),
    ref: v.nullable(v.string()),
    userId: v.nullable(v.number()),
  }),
});

export const creditsRefunded = defineEvent({
  type: "credits.refunded",
  entity: "credit_entry",
  description:
    "Credits paid for an operation that did not happen came back (a cancelled campaign's unsent recipients): amount, balance after, the debit's reason and ref.",
  payload: v.object({
    entryId: v.number(),
    amount: v.number(),
    balanceAfter: v.number(),
    reason: v.string(),
    ref: v.string(),
    note: v.nullable(v.string()),
    userId: v.nullable(v.number()),
  }),
});

export const creditsBudgetThreshold = defineEvent({
  type: "credits.budget_threshold_reached",
  entity: "company",
  description:
    "A company's AI credit spending this month reached a budget threshold (percent); owners and admins were notified.",
  payload: v.object({
    percent: v.number(),
    spent: v.number(),
    monthlyLimit: v.number(),
    periodStart: v.string(),
    notifiedUserIds: v.array(v.number()),
  }),
});

export const creditsBudgetSet = defineEvent({
  type: "credits.budget_set",
  entity: "company",
  description:
    "A company's monthly AI credit budget was set or changed (monthlyLimit, thresholds, hard) or removed (all null), and by whom.",
  payload: v.object({
    monthlyLimit: v.nullable(v.number()),
    thresholds: v.nullable(v.array(v.number())),
    hard: v.nullable(v.boolean()),
    setByUserId: v.nullable(v.number()),
  }),
});

export const AI_EVENTS = [creditsGranted, creditsDebited, creditsRefunded, creditsBudgetThreshold, creditsBudgetSet];
