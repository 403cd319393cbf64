/** What billing announces (src/core/events.ts): subscriptions, invoices and settings. */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

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
