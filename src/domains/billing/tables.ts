/**
 * The agency's billing of its client companies: per-company settings
 * (currency, hourly rate, tax rate, payment terms), subscriptions to a
 * plan, invoices with their lines, which time logs and service requests an
 * invoice bills (so nothing is billed twice), and the invoice number
 * counter (gapless per agency, i.e. per Plinth instance).
 *
 * Money is integer cents everywhere; tax rates are basis points (825 = 8.25 %).
 */
import { bool, createdAt, id, index, integer, table, text, time, uniqueIndex, updatedAt } from "../../core/columns";
import { companies, users } from "../../core/tables";

export const billingSettings = table(
  "billing_settings",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    currency: text("currency").notNull().default("USD"),
    /** Rate of billable time logs, per hour; null: time is not invoiced. */
    hourlyRateCents: integer("hourly_rate_cents"),
    taxName: text("tax_name"),
    taxBasisPoints: integer("tax_basis_points").notNull().default(0),
    paymentTermsDays: integer("payment_terms_days").notNull().default(14),
    /** Who bills (the agency) and the client's billing address, as printed on the PDF. */
    sellerName: text("seller_name").notNull().default("Your agency"),
    sellerDetails: text("seller_details"),
    billingAddress: text("billing_address"),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("billing_settings_company").on(t.companyId)],
);

export const billingSubscriptions = table(
  "billing_subscriptions",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    planName: text("plan_name").notNull(),
    unitAmountCents: integer("unit_amount_cents").notNull(),
    quantity: integer("quantity").notNull().default(1),
    currency: text("currency").notNull(),
    /** month | year */
    interval: text("interval").notNull(),
    intervalCount: integer("interval_count").notNull().default(1),
    /** The start of the first period; period n starts at anchor + n intervals (end of month clamped). */
    anchorAt: time("anchor_at").notNull(),
    /** Periods invoiced so far; the current period is number `periodsInvoiced`. */
    periodsInvoiced: integer("periods_invoiced").notNull().default(0),
    currentPeriodStart: time("current_period_start").notNull(),
    currentPeriodEnd: time("current_period_end").notNull(),
    /** Period-end invoices also bill unbilled billable time logs and done service requests. */
    includeUsage: bool("include_usage").notNull().default(true),
    /** active | canceled */
    status: text("status").notNull().default("active"),
    canceledAt: time("canceled_at"),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    index("billing_subscriptions_company").on(t.companyId),
    index("billing_subscriptions_due").on(t.status, t.currentPeriodEnd),
  ],
);

export const billingInvoices = table(
  "billing_invoices",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** Given when issued: INV-000001, gapless across the agency. */
    number: text("number"),
    sequence: integer("sequence"),
    /** draft | open | paid | void | overdue */
    status: text("status").notNull(),
    currency: text("currency").notNull(),
    subscriptionId: integer("subscription_id").references(() => billingSubscriptions.id, { onDelete: "set null" }),
    periodStart: time("period_start"),
    periodEnd: time("period_end"),
    subtotalCents: integer("subtotal_cents").notNull().default(0),
    taxName: text("tax_name"),
    taxBasisPoints: integer("tax_basis_points").notNull().default(0),
    taxCents: integer("tax_cents").notNull().default(0),
    totalCents: integer("total_cents").notNull().default(0),
    paymentTermsDays: integer("payment_terms_days").notNull(),
    memo: text("memo"),
    issuedAt: time("issued_at"),
    dueAt: time("due_at"),
    paidAt: time("paid_at"),
    paymentReference: text("payment_reference"),
    voidedAt: time("voided_at"),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [
    uniqueIndex("billing_invoices_number").on(t.number),
    // One invoice per subscription period, however often the job runs or races.
    uniqueIndex("billing_invoices_period").on(t.subscriptionId, t.periodStart),
    index("billing_invoices_company").on(t.companyId, t.status),
    index("billing_invoices_due").on(t.status, t.dueAt),
  ],
);

export const billingInvoiceLines = table(
  "billing_invoice_lines",
  {
    id: id(),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => billingInvoices.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    /** subscription | time | service | custom */
    kind: text("kind").notNull(),
    description: text("description").notNull(),
    /** Items, or minutes for time lines (unit "minute", priced per hour). */
    quantity: integer("quantity").notNull(),
    unit: text("unit").notNull(),
    unitAmountCents: integer("unit_amount_cents").notNull(),
    amountCents: integer("amount_cents").notNull(),
    periodStart: time("period_start"),
    periodEnd: time("period_end"),
    /** time_log | service_request | subscription, with its id. */
    sourceType: text("source_type"),
    sourceId: integer("source_id"),
  },
  (t) => [index("billing_lines_invoice").on(t.invoiceId, t.position)],
);

/** What an unvoided invoice bills: a time log or service request is billed at most once. */
export const billingBilledItems = table(
  "billing_billed_items",
  {
    id: id(),
    sourceType: text("source_type").notNull(),
    sourceId: integer("source_id").notNull(),
    invoiceId: integer("invoice_id")
      .notNull()
      .references(() => billingInvoices.id, { onDelete: "cascade" }),
  },
  (t) => [
    uniqueIndex("billing_billed_source").on(t.sourceType, t.sourceId),
    index("billing_billed_invoice").on(t.invoiceId),
  ],
);

/** Named counters (invoice numbers): incremented in the issuing transaction, so a rollback leaves no gap. */
export const billingCounters = table("billing_counters", {
  name: text("name").primaryKey(),
  value: integer("value").notNull(),
});
