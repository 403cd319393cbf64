/**
 * Billing's periodic work, from the database so a server that was down
 * catches up: invoices for subscription periods that have ended (each
 * period once), and open invoices past their due instant marked overdue.
 */
import type { JobDef } from "../../core/jobs";
import { markOverdue, overduePending } from "./invoices";
import { invoiceDueSubscriptions, subscriptionInvoicesPending } from "./subscriptions";

export const billingJobs: JobDef[] = [
  {
    name: "billing.subscription_invoices",
    description:
      "Issues an invoice for every subscription period that has ended (catching up missed periods, none twice).",
    everyMs: 60_000,
    pending: subscriptionInvoicesPending,
    run: async (deps) => {
      await invoiceDueSubscriptions(deps);
    },
  },
  {
    name: "billing.overdue",
    description: "Marks open invoices whose due date has passed as overdue and tells the company's admins.",
    everyMs: 60_000,
    pending: (deps) => overduePending(deps),
    run: async (deps) => {
      await markOverdue(deps);
    },
  },
];
