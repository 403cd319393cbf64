/**
 * The billing verbs the portal page (portal.tsx) calls, under the name it
 * imports them by. The verbs live in access.ts (what every verb starts
 * with), settings.ts, subscriptions.ts, invoices.ts and summary.ts; every
 * other importer names those files. This file only re-exports, because
 * portal.tsx is being changed on another branch in the same round: once
 * both are merged, its import can name the files above and this file goes.
 */
export { CURRENCIES } from "./access";
export {
  createInvoice,
  deleteDraft,
  invoiceDocument,
  issueInvoice,
  listInvoices,
  markPaid,
  voidInvoice,
} from "./invoices";
export { saveSettings, settingsOf } from "./settings";
export { cancelSubscription, createSubscription, listSubscriptions } from "./subscriptions";
export { billingSummary } from "./summary";
