/**
 * What every billing verb starts with. Reads (the MCP tools) need
 * billing:read; writes are made by the agency's people in the portal
 * (owners and admins of the company, a portal session or the CLI) and by the
 * periodic jobs — never by an agent's credential, whatever its scopes: there
 * is no billing write scope, and `manage` refuses MCP keys and OAuth tokens
 * in the verb itself. Subscriptions and invoices are looked up within the
 * acting company: another company's answers exactly like one that does not
 * exist.
 */
import { and, eq } from "drizzle-orm";
import * as v from "valibot";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { forbidden, invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { billingInvoices, billingSubscriptions } from "./tables";

export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
export type Invoice = typeof billingInvoices.$inferSelect;
export type Sub = typeof billingSubscriptions.$inferSelect;

/** Currencies with two decimal places (amounts are cents). */
export const CURRENCIES = [
  "USD",
  "EUR",
  "GBP",
  "CAD",
  "AUD",
  "NZD",
  "CHF",
  "SEK",
  "NOK",
  "DKK",
  "PLN",
  "CZK",
  "SGD",
  "HKD",
  "MXN",
  "BRL",
  "ZAR",
  "INR",
] as const;
export const INVOICE_STATUSES = ["draft", "open", "paid", "void", "overdue"] as const;
export const LIMITS = {
  amountCents: 10_000_000_000,
  quantity: 1_000_000,
  lines: 200,
  text: 500,
  memo: 2000,
  totalCents: 1_000_000_000_000_000,
} as const;

export const read = (ctx: ActorContext) => authorize(ctx, "billing:read", { write: false });

/** People only: an owner or admin through the portal (or the operator's CLI). Agents' credentials never write billing. */
export function manage(ctx: ActorContext) {
  const kind = ctx.principal.credential.kind;
  if (kind !== "session" && kind !== "cli")
    throw forbidden(
      "Billing is changed by the agency's people in the portal, not through this credential; billing tools are read-only.",
    );
  authorize(ctx, null, { write: true });
}

export function parse<S extends v.GenericSchema>(schema: S, input: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, input);
  if (!r.success) {
    const i = r.issues[0];
    const path = v.getDotPath(i);
    throw invalid(`${path ? `${path}: ` : ""}${i.message}`, path ? { path } : undefined);
  }
  return r.output;
}

export const text = (max: number) =>
  v.pipe(
    v.string(),
    v.trim(),
    v.minLength(1),
    v.maxLength(max),
    v.regex(/^[^\u0000-\u0008\u000b-\u001f\u007f]*$/, "must not contain control characters"),
  );

export async function subFor(q: Pick<Db, "select">, ctx: ActorContext, id: number): Promise<Sub> {
  const s = (
    await q
      .select()
      .from(billingSubscriptions)
      .where(and(eq(billingSubscriptions.id, id), eq(billingSubscriptions.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!s) throw notFound(`Subscription ${id} not found in ${ctx.company.name}. List them with subscriptions_list.`);
  return s;
}

const NUMBER_RE = /^INV-\d{6,}$/;

export async function invoiceFor(
  q: Pick<Db, "select">,
  ctx: ActorContext,
  ref: { id?: number; number?: string },
): Promise<Invoice> {
  if (ref.id === undefined && ref.number === undefined) throw invalid("Give the invoice's id or number (INV-000123).");
  const num = ref.number?.trim().toUpperCase();
  if (num !== undefined && !NUMBER_RE.test(num))
    throw notFound(`Invoice ${JSON.stringify(ref.number!.slice(0, 40))} not found: numbers look like INV-000123.`);
  const cond = ref.id !== undefined ? eq(billingInvoices.id, ref.id) : eq(billingInvoices.number, num!);
  const i = (
    await q
      .select()
      .from(billingInvoices)
      .where(and(cond, eq(billingInvoices.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!i) throw notFound(`Invoice ${ref.id ?? num} not found in ${ctx.company.name}. List them with invoices_list.`);
  return i;
}
