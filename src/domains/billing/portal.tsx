/**
 * Billing in the portal: where the agency's people bill the active company
 * (agents only read billing, over MCP). Everyone sees the summary,
 * invoices (with their PDFs) and subscriptions; owners and admins issue
 * invoices (a draft from unbilled time and service requests plus an
 * optional line, then Issue), mark them paid or void them, start and cancel
 * subscriptions, and set the company's currency, hourly rate, tax and
 * terms. Same verbs as the tools; amounts typed as 1234.50 become cents
 * without floating point.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { AppError, invalid, isAppError } from "../../core/errors";
import { formatMoney } from "./money";
import {
  billingSummary,
  cancelSubscription,
  createInvoice,
  createSubscription,
  CURRENCIES,
  deleteDraft,
  invoiceDocument,
  issueInvoice,
  listInvoices,
  listSubscriptions,
  markPaid,
  saveSettings,
  settingsOf,
  voidInvoice,
} from "./verbs";
import type { Form } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf, DangerButton } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { actorOf, viewerOf, canManage, type PageEnv, type Viewer } from "../../ui/signed-in";
import { StatusBadge } from "../../ui/badge";
import { PageHeader } from "../../ui/page-header";
import { DataTable } from "../../ui/table";

export const BILLING_PATH = "/billing";
const PATH = BILLING_PATH;

/** "1234.5" → 123450 cents; digits only, at most two decimals. */
export function centsOf(raw: string, label: string): number {
  const m = /^(\d{1,11})(?:\.(\d{1,2}))?$/.exec(raw.replace(/,/g, ""));
  if (!m) throw invalid(`${label} must be an amount like 1250 or 1250.50.`);
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

/** "8.25" (%) → 825 basis points. */
function basisPointsOf(raw: string): number {
  if (!raw) return 0;
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(raw);
  if (!m) throw invalid("Tax rate must be a percentage like 20 or 8.25.");
  return Number(m[1]) * 100 + Number((m[2] ?? "").padEnd(2, "0"));
}

const dec = (cents: number | null) => (cents === null ? "" : (cents / 100).toFixed(2));

type Data = {
  summary: Awaited<ReturnType<typeof billingSummary>>;
  invoices: Awaited<ReturnType<typeof listInvoices>>["items"];
  subs: Awaited<ReturnType<typeof listSubscriptions>>["items"];
  settings: Awaited<ReturnType<typeof settingsOf>>;
};

const BillingPage = (p: { viewer: Viewer; data: Data; error?: string; notice?: string }) => {
  const manage = canManage(p.viewer);
  const { summary: s, settings } = p.data;
  const money = (c: number) => formatMoney(c, s.currency);
  const action = (path: string, label: string, cls = "secondary", extra?: any) => (
    <form class="inline" method="post" action={`${PATH}/${path}`}>
      <Csrf viewer={p.viewer} />
      {extra}
      <button class={cls} type="submit">
        {label}
      </button>
    </form>
  );
  return (
    <Layout title="Billing" viewer={p.viewer} path={PATH}>
      <PageHeader
        title={`Billing of ${p.viewer.active!.name}`}
        lead={
          <>
            Outstanding {money(s.outstandingCents)} · overdue {money(s.overdueCents)} · recurring{" "}
            {money(s.monthlyRecurringCents)} a month
            {s.nextInvoiceAt && <> · next invoice {when(new Date(s.nextInvoiceAt))}</>}
          </>
        }
      />
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.error && <Notice kind="error">{p.error}</Notice>}

      <h2>Invoices</h2>
      <DataTable
        columns={["Invoice", "Status", "Total", { label: "Issued", hideSm: true }, { label: "Due", hideSm: true }, ""]}
        empty={p.data.invoices.length === 0 && "No invoices yet."}
      >
        {p.data.invoices.map((i) => (
          <tr id={`invoice-${i.id}`}>
            <td>
              <a href={`${PATH}/invoices/${i.id}/pdf`}>{i.number ?? `Draft ${i.id}`}</a>
            </td>
            <td>
              <StatusBadge>{i.status}</StatusBadge>
            </td>
            <td>{formatMoney(i.totalCents, i.currency)}</td>
            <td class="hide-sm">{i.issuedAt ? when(new Date(i.issuedAt)) : "—"}</td>
            <td class="hide-sm">{i.dueAt ? when(new Date(i.dueAt)) : "—"}</td>
            <td>
              {manage && i.status === "draft" && (
                <>
                  {action(`invoices/${i.id}/issue`, "Issue", "")}
                  <DangerButton viewer={p.viewer} action={`${PATH}/invoices/${i.id}/delete`} label="Delete draft" />
                </>
              )}
              {manage && (i.status === "open" || i.status === "overdue") && (
                <>
                  {action(
                    `invoices/${i.id}/paid`,
                    "Mark paid",
                    "",
                    <input
                      name="reference"
                      maxlength={200}
                      placeholder="Payment reference"
                      aria-label={`Payment reference for ${i.number}`}
                    />,
                  )}
                  <DangerButton viewer={p.viewer} action={`${PATH}/invoices/${i.id}/void`} label="Void" />
                </>
              )}
            </td>
          </tr>
        ))}
      </DataTable>

      <h2>Subscriptions</h2>
      <DataTable
        columns={["Plan", "Amount", "Status", { label: "Next invoice", hideSm: true }, ""]}
        empty={p.data.subs.length === 0 && "No subscriptions."}
      >
        {p.data.subs.map((x) => (
          <tr>
            <td>{x.planName}</td>
            <td>
              {formatMoney(x.amountCents, x.currency)} every{" "}
              {x.intervalCount > 1 ? `${x.intervalCount} ${x.interval}s` : x.interval}
            </td>
            <td>
              <StatusBadge>{x.status}</StatusBadge>
            </td>
            <td class="hide-sm">{x.nextInvoiceAt ? when(new Date(x.nextInvoiceAt)) : "—"}</td>
            <td>
              {manage && x.status === "active" && (
                <DangerButton viewer={p.viewer} action={`${PATH}/subscriptions/${x.id}/cancel`} label="Cancel" />
              )}
            </td>
          </tr>
        ))}
      </DataTable>

      {manage && (
        <>
          <h2>New invoice</h2>
          <form class="card" method="post" action={`${PATH}/invoices`}>
            <Csrf viewer={p.viewer} />
            <p class="muted small">
              A draft: unbilled billable time (at the hourly rate) and done service requests up to the day, plus the
              line below. Issue it to number it.
            </p>
            <label>
              <input type="checkbox" name="include_usage" value="1" checked /> Bill time and service requests
            </label>
            <label for="inv-upto">Up to (YYYY-MM-DD, default today)</label>
            <input id="inv-upto" name="usage_up_to" maxlength={10} placeholder="2026-03-31" />
            <label for="inv-desc">Line (optional)</label>
            <input id="inv-desc" name="description" maxlength={500} />
            <label for="inv-qty">Quantity</label>
            <input id="inv-qty" name="quantity" maxlength={7} value="1" />
            <label for="inv-price">Unit price ({s.currency})</label>
            <input id="inv-price" name="unit_price" maxlength={16} placeholder="0.00" />
            <label for="inv-memo">Memo</label>
            <textarea id="inv-memo" name="memo" maxlength={2000} rows={2}></textarea>
            <div class="actions">
              <button type="submit">Create draft</button>
            </div>
          </form>

          <h2>New subscription</h2>
          <form class="card" method="post" action={`${PATH}/subscriptions`}>
            <Csrf viewer={p.viewer} />
            <label for="sub-plan">Plan</label>
            <input id="sub-plan" name="plan" maxlength={200} required />
            <label for="sub-price">Price per period ({s.currency})</label>
            <input id="sub-price" name="price" maxlength={16} required />
            <label for="sub-qty">Quantity</label>
            <input id="sub-qty" name="quantity" maxlength={7} value="1" />
            <label for="sub-interval">Every</label>
            <select id="sub-interval" name="interval">
              <option value="month">month</option>
              <option value="year">year</option>
            </select>
            <label for="sub-start">Starts (YYYY-MM-DD, default now)</label>
            <input id="sub-start" name="starts" maxlength={10} />
            <label>
              <input type="checkbox" name="include_usage" value="1" checked /> Also bill time and service requests at
              each period end
            </label>
            <div class="actions">
              <button type="submit">Start subscription</button>
            </div>
          </form>

          <h2>Settings</h2>
          <form class="card" method="post" action={`${PATH}/settings`}>
            <Csrf viewer={p.viewer} />
            <label for="set-currency">Currency</label>
            <select id="set-currency" name="currency">
              {CURRENCIES.map((c) => (
                <option value={c} selected={c === settings.currency}>
                  {c}
                </option>
              ))}
            </select>
            <label for="set-rate">Hourly rate (empty: time is not billed)</label>
            <input id="set-rate" name="hourly_rate" maxlength={16} value={dec(settings.hourlyRateCents)} />
            <label for="set-taxname">Tax name</label>
            <input id="set-taxname" name="tax_name" maxlength={60} value={settings.taxName ?? ""} />
            <label for="set-tax">Tax rate (%)</label>
            <input id="set-tax" name="tax_rate" maxlength={6} value={String(settings.taxBasisPoints / 100)} />
            <label for="set-terms">Payment terms (days)</label>
            <input id="set-terms" name="terms" maxlength={3} value={String(settings.paymentTermsDays)} />
            <label for="set-seller">Billed by</label>
            <input id="set-seller" name="seller_name" maxlength={200} value={settings.sellerName} />
            <label for="set-sellerdetails">Our address and details</label>
            <textarea id="set-sellerdetails" name="seller_details" maxlength={2000} rows={3}>
              {settings.sellerDetails ?? ""}
            </textarea>
            <label for="set-address">Client's billing address</label>
            <textarea id="set-address" name="billing_address" maxlength={2000} rows={3}>
              {settings.billingAddress ?? ""}
            </textarea>
            <div class="actions">
              <button type="submit">Save settings</button>
            </div>
          </form>
        </>
      )}
    </Layout>
  );
};

const NOTICES: Record<string, string> = {
  created: "Draft invoice created. Issue it to give it a number and a due date.",
  issued: "Invoice issued.",
  deleted: "Draft deleted.",
  paid: "Invoice marked paid.",
  voided: "Invoice voided; what it billed can be billed again.",
  subscribed: "Subscription started.",
  canceled: "Subscription canceled.",
  saved: "Billing settings saved.",
};

function idOf(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw new AppError("not_found", "No such invoice or subscription.");
  return Number(raw);
}

function dayOf(form: Form, name: string, label: string): Date | undefined {
  const raw = form.text(name, { label, max: 10 });
  if (!raw) return undefined;
  const d = new Date(`${raw}T00:00:00Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(raw) || Number.isNaN(d.getTime()))
    throw invalid(`${label} must be a date like 2026-03-31.`);
  return d;
}

function wholeOf(form: Form, name: string, label: string, dflt: number): number {
  const raw = form.text(name, { label, max: 7 });
  if (!raw) return dflt;
  if (!/^\d{1,7}$/.test(raw)) throw invalid(`${label} must be a whole number.`);
  return Number(raw);
}

export function billingRoutes(app: Hono<PageEnv>, deps: Deps) {
  const page = async (c: Context<PageEnv>, extra: { error?: string; notice?: string } = {}) => {
    const ctx = actorOf(c);
    const data: Data = {
      summary: await billingSummary(ctx),
      invoices: (await listInvoices(ctx, { limit: 100, offset: 0 })).items,
      subs: (await listSubscriptions(ctx, { limit: 100, offset: 0 })).items,
      settings: await settingsOf(deps.db, ctx.company.id),
    };
    return <BillingPage viewer={viewerOf(c)} data={data} {...extra} />;
  };
  const attempt = async (c: Context<PageEnv>, fn: () => Promise<unknown>, done: string) => {
    try {
      await fn();
      return c.redirect(`${PATH}?done=${done}`, 303);
    } catch (e) {
      if (!isAppError(e) || !["validation", "conflict", "not_found", "forbidden"].includes(e.code)) throw e;
      const status = e.code === "forbidden" ? 403 : e.code === "conflict" ? 409 : e.code === "not_found" ? 404 : 400;
      return render(c, await page(c, { error: e.message }), { status });
    }
  };

  app.get(PATH, async (c) => render(c, await page(c, { notice: NOTICES[c.req.query("done") ?? ""] })));

  app.get(`${PATH}/invoices/:id/pdf`, async (c) => {
    const doc = await invoiceDocument(actorOf(c), { id: idOf(c.req.param("id")) });
    const { invoicePdf } = await import("./pdf"); // pdf-lib loads on the first invoice PDF
    const bytes = await invoicePdf(doc);
    const name = `${doc.invoice.number ?? `draft-${doc.invoice.id}`}.pdf`;
    return new Response(bytes as Uint8Array<ArrayBuffer>, {
      status: 200,
      headers: {
        "Content-Type": "application/pdf",
        "Content-Disposition": `inline; filename="${name}"`,
        "Cache-Control": "no-store",
        "X-Content-Type-Options": "nosniff",
      },
    });
  });

  app.post(`${PATH}/invoices`, async (c) =>
    attempt(
      c,
      async () => {
        const f = c.get("form");
        const description = f.text("description", { label: "Line", max: 500 });
        const price = f.text("unit_price", { label: "Unit price", max: 16 });
        const lines = description
          ? [
              {
                description,
                quantity: wholeOf(f, "quantity", "Quantity", 1),
                unitAmountCents: centsOf(price || "0", "Unit price"),
              },
            ]
          : [];
        const upTo = f.text("usage_up_to", { label: "Up to", max: 10 });
        await createInvoice(actorOf(c), {
          lines,
          includeUsage: f.bool("include_usage"),
          usageUpTo: upTo || undefined,
          memo: f.text("memo", { label: "Memo", max: 2000 }) || undefined,
        });
      },
      "created",
    ),
  );

  for (const [verb, fn, done] of [
    ["issue", issueInvoice, "issued"],
    ["delete", deleteDraft, "deleted"],
    ["void", voidInvoice, "voided"],
  ] as const)
    app.post(`${PATH}/invoices/:id/${verb}`, async (c) =>
      attempt(c, () => fn(actorOf(c), { id: idOf(c.req.param("id")) }), done),
    );

  app.post(`${PATH}/invoices/:id/paid`, async (c) =>
    attempt(
      c,
      () =>
        markPaid(actorOf(c), {
          id: idOf(c.req.param("id")),
          reference: c.get("form").text("reference", { label: "Payment reference", max: 200 }) || undefined,
        }),
      "paid",
    ),
  );

  app.post(`${PATH}/subscriptions`, async (c) =>
    attempt(
      c,
      async () => {
        const f = c.get("form");
        await createSubscription(actorOf(c), {
          planName: f.text("plan", { label: "Plan", max: 200, required: true }),
          unitAmountCents: centsOf(f.text("price", { label: "Price", max: 16, required: true }), "Price"),
          quantity: wholeOf(f, "quantity", "Quantity", 1),
          interval: f.text("interval", { label: "Every", max: 10 }) as "month",
          startsAt: dayOf(f, "starts", "Starts"),
          includeUsage: f.bool("include_usage"),
        });
      },
      "subscribed",
    ),
  );

  app.post(`${PATH}/subscriptions/:id/cancel`, async (c) =>
    attempt(c, () => cancelSubscription(actorOf(c), { id: idOf(c.req.param("id")) }), "canceled"),
  );

  app.post(`${PATH}/settings`, async (c) =>
    attempt(
      c,
      async () => {
        const f = c.get("form");
        const rate = f.text("hourly_rate", { label: "Hourly rate", max: 16 });
        await saveSettings(actorOf(c), {
          currency: f.text("currency", { label: "Currency", max: 3, required: true }) as "USD",
          hourlyRateCents: rate ? centsOf(rate, "Hourly rate") : null,
          taxName: f.text("tax_name", { label: "Tax name", max: 60 }) || null,
          taxBasisPoints: basisPointsOf(f.text("tax_rate", { label: "Tax rate", max: 6 })),
          paymentTermsDays: wholeOf(f, "terms", "Payment terms", 14),
          sellerName: f.text("seller_name", { label: "Billed by", max: 200, required: true }),
          sellerDetails: f.text("seller_details", { label: "Our details", max: 2000 }) || null,
          billingAddress: f.text("billing_address", { label: "Billing address", max: 2000 }) || null,
        });
      },
      "saved",
    ),
  );
}
