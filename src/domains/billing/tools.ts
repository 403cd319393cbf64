/**
 * The billing toolset (read only, billing:read): the agency's subscriptions
 * and invoices for the company, a summary, and invoice PDFs. Billing is
 * written by people in the portal (/billing) and by the jobs below, never
 * by agents.
 */
import { demoBilling } from "./demo";
import * as v from "valibot";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { billingJobs } from "./jobs";
import { BILLING_PATH, billingRoutes } from "./portal";
import { INVOICE_STATUSES } from "./access";
import { billingEvents } from "./events";
import { getInvoice, invoiceDocument, listInvoices, pdfUrl } from "./invoices";
import { getSubscription, listSubscriptions } from "./subscriptions";
import { billingSummary } from "./summary";
import { idSchema } from "../../core/fields";

const T = "billing";
const number = v.pipe(v.string(), v.minLength(1), v.maxLength(40));
const date = v.pipe(v.string(), v.maxLength(10));

export const billingDomain: Domain = {
  demo: demoBilling,
  scopes: [{ area: "billing", title: "Billing", words: { "billing:read": "read invoices and subscriptions" } }],
  name: T,
  title: "Billing",
  description: "The agency's subscriptions and invoices for the company (read only; people bill in the portal).",
  portal: { routes: billingRoutes, nav: [{ href: BILLING_PATH, label: "Billing" }] },
  vocabulary: {
    owe: ["outstanding", "summary"],
    due: ["outstanding", "invoice"],
    balance: ["outstanding", "summary"],
    unpaid: ["outstanding", "invoice"],
    overdue: ["invoice"],
    bill: ["invoice"],
    pay: ["invoice"],
    plan: ["subscription"],
    package: ["subscription"],
    tier: ["subscription"],
    receipt: ["invoice"],
    statement: ["invoice"],
  },
  tools: [
    defineTool({
      name: "subscriptions_list",
      toolset: T,
      scope: "billing:read",
      readOnly: true,
      title: "List subscriptions",
      description: "The company's subscriptions with plan, amount (cents), status.",
      input: v.object({ status: v.optional(v.picklist(["active", "canceled"])), ...pageInput }),
      run: listSubscriptions,
    }),
    defineTool({
      name: "subscriptions_get",
      toolset: T,
      scope: "billing:read",
      readOnly: true,
      title: "Get a subscription",
      description: "A subscription with its period and 12 most recent invoices.",
      input: v.object({ id: idSchema }),
      run: getSubscription,
    }),
    defineTool({
      name: "invoices_list",
      toolset: T,
      scope: "billing:read",
      readOnly: true,
      title: "List invoices",
      description: "Invoices, newest first, in cents; from/to: issue dates.",
      input: v.object({
        status: v.optional(v.picklist(INVOICE_STATUSES)),
        subscriptionId: v.optional(idSchema),
        from: v.optional(date),
        to: v.optional(date),
        ...pageInput,
      }),
      run: listInvoices,
    }),
    defineTool({
      name: "invoices_get",
      toolset: T,
      scope: "billing:read",
      readOnly: true,
      title: "Get an invoice",
      description: "An invoice by id or number (INV-000123) with lines, in cents.",
      input: v.object({ id: v.optional(idSchema), number: v.optional(number) }),
      run: getInvoice,
    }),
    defineTool({
      name: "invoices_pdf",
      toolset: T,
      scope: "billing:read",
      readOnly: true,
      title: "Invoice PDF",
      description: "An invoice's PDF url; includeData adds the file in base64.",
      input: v.object({
        id: v.optional(idSchema),
        number: v.optional(number),
        includeData: v.optional(v.boolean(), false),
      }),
      run: async (ctx, input) => {
        const doc = await invoiceDocument(ctx, input);
        const name = `${doc.invoice.number ?? `draft-${doc.invoice.id}`}.pdf`;
        const out = {
          id: doc.invoice.id,
          number: doc.invoice.number,
          filename: name,
          mimeType: "application/pdf",
          url: pdfUrl(ctx.deps, doc.invoice.id),
        };
        if (!input.includeData) return out;
        const { invoicePdf } = await import("./pdf"); // pdf-lib loads on the first invoice PDF
        const bytes = await invoicePdf(doc);
        return { ...out, bytes: bytes.length, dataBase64: Buffer.from(bytes).toString("base64") };
      },
    }),
    defineTool({
      name: "billing_summary",
      toolset: T,
      scope: "billing:read",
      readOnly: true,
      title: "Billing summary",
      description: "Billing: subscriptions, next invoice, outstanding and overdue cents.",
      input: v.object({}),
      run: (ctx) => billingSummary(ctx),
    }),
  ],
  events: billingEvents,
  jobs: billingJobs,
  notificationTypes: [{ type: "invoice.overdue", label: "An invoice became overdue", inApp: true, email: true }],
};
