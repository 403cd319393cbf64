/**
 * The store in the portal (issue 31): a site's orders with their status
 * and totals, one order with its lines, totals, payment state and the
 * status changes it can make, and the products with their status, price,
 * stock and what awaits a person's approval.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listSites, getStoreSettings, listOrders, getOrder,
 * updateOrderStatus, listProducts, setProductStatus), called as the
 * signed-in person (actorOf): their role, the company's tenancy and the
 * status transitions are checked exactly where they are for an agent. So
 * withdrawing a product that is on sale is held for approval here too: the
 * product stays on sale, shows "awaits approval" and links to the request.
 * Owners and admins get the forms; viewers read, and a post of theirs is
 * refused by the verb's role check (403) before the form is read.
 *
 * A store belongs to a site: the pages show one site at a time (`?site=`,
 * the company's first by default, a picker when it has several). Orders
 * and products are named by their own id in the path; the lookup finds
 * its site among the company's sites only, so another company's id is
 * "not found" (404) before any verb runs, and the verb checks again.
 * Amounts are integer cents, shown in the order's (or store's) currency.
 */
import { and, eq } from "drizzle-orm";
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { StatusBadge, type Tone } from "../../ui/badge";
import { answerForm } from "../../ui/form-answer";
import type { Form } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, type Viewer, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import { effectiveStatus, type LinkRow, linksOfType } from "../approvals/links";
import { inCompanySites } from "../sites/facts";
import { listSites } from "../sites/verbs";
import { getOrder, listOrders, ORDER_TRANSITIONS, updateOrderStatus } from "./orders";
import { getProduct, listProducts, STATUS_TRANSITIONS, setProductStatus } from "./products";
import { ORDER_STATUSES, type OrderStatus } from "./schemas";
import { getStoreSettings } from "./settings";
import { orders, PRODUCT_STATUSES, type ProductStatus, products } from "./tables";

export const STORE_PATH = "/store";
const ORDERS_PATH = `${STORE_PATH}/orders`;
const PRODUCTS_PATH = `${STORE_PATH}/products`;
const PER_PAGE = 25;
/** The approval requests of a site shown at once (open ones are few; the approvals inbox has them all). */
const PENDING_SHOWN = 50;
/** The kinds of store record whose changes can wait for approval (staged-targets.ts), as the page names them. */
const APPROVAL_KINDS: Record<string, string> = {
  product: "product",
  product_variant: "variant",
  product_category: "category",
};

type Site = Awaited<ReturnType<typeof listSites>>["items"][number];
type Order = Awaited<ReturnType<typeof getOrder>>;

const ID = /^[1-9]\d{0,14}$/;
function idOf(c: Context<PageEnv>, what: string): number {
  const raw = c.req.param("id") ?? "";
  if (!ID.test(raw)) throw notFound(`${what} ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}

/** Money as people read it, in the order's or store's currency: "€1,234.50", "US$12.00". */
export function money(cents: number, currency: string): string {
  try {
    return new Intl.NumberFormat("en-GB", { style: "currency", currency }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(2)} ${currency}`;
  }
}

const ORDER_TONE: Record<string, Tone> = {
  pending: "warn",
  paid: "ok",
  fulfilled: "ok",
  cancelled: "neutral",
  refunded: "danger",
};
/** Where the money stands, in words: the status alone does not say it to everyone. */
const PAYMENT_WORDS: Record<string, string> = {
  pending: "Awaiting payment",
  paid: "Paid, not yet fulfilled",
  fulfilled: "Paid and fulfilled",
  cancelled: "Cancelled before payment",
  refunded: "Refunded",
};
/** The button that moves an order to a status. */
const ORDER_ACTION: Record<OrderStatus, string> = {
  pending: "Back to pending",
  paid: "Mark paid",
  fulfilled: "Mark fulfilled",
  cancelled: "Cancel order",
  refunded: "Refund",
};
const PRODUCT_TONE: Record<string, Tone> = { active: "ok", draft: "neutral", inactive: "neutral" };
const PRODUCT_WORDS: Record<string, string> = { active: "on sale", draft: "draft", inactive: "withdrawn" };
/** The button that moves a product to a status; a draft set inactive is parked, never having been on sale. */
const productAction = (from: ProductStatus, to: ProductStatus) =>
  to === "active" ? "Put on sale" : to === "draft" ? "Back to draft" : from === "draft" ? "Park" : "Withdraw";

// ---------------------------------------------------------------------------
// Which site

/** The company's sites (sites_list), and the one asked for (`?site=`) or the first; a site of another company is 404. */
async function sitesOf(c: Context<PageEnv>, wanted?: number): Promise<{ sites: Site[]; site: Site | null }> {
  const actor = actorOf(c);
  const sites = (await listSites(actor, { limit: 100, offset: 0 })).items;
  const raw = wanted !== undefined ? String(wanted) : (c.req.query("site") ?? "").trim();
  if (!raw) return { sites, site: sites[0] ?? null };
  if (!ID.test(raw)) throw invalid("Site must be one of the list.");
  const site = sites.find((s) => s.id === Number(raw));
  if (!site) throw notFound(`Site ${raw} not found.`);
  return { sites, site };
}

/** The site a record of the store hangs from, among the company's sites only (the tenancy of a path id). */
async function siteOfRecord(c: Context<PageEnv>, table: typeof orders | typeof products, id: number, what: string) {
  const actor = actorOf(c);
  const row = (
    await actor.deps.db
      .select({ siteId: table.siteId })
      .from(table)
      .where(and(eq(table.id, id), inCompanySites(table.siteId, actor.deps.db, actor.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`${what} ${id} not found.`);
  return row.siteId;
}

const withSite = (path: string, site: Site | null, params: Record<string, string> = {}) => {
  const p = new URLSearchParams({ ...(site ? { site: String(site.id) } : {}), ...params });
  const s = p.toString();
  return s ? `${path}?${s}` : path;
};

/** The tabs (orders, products) and, for a company with several sites, the site picker. */
const StoreHead = (p: { sites: Site[]; site: Site | null; path: string }) => (
  <>
    <nav class="tabs" aria-label="Store">
      {[
        [ORDERS_PATH, "Orders"],
        [PRODUCTS_PATH, "Products"],
      ].map(([href, label]) => (
        <a href={withSite(href!, p.site)} aria-current={p.path === href ? "page" : undefined}>
          {label}
        </a>
      ))}
    </nav>
    {p.sites.length > 1 && (
      <form class="card inline-row" method="get" action={p.path} aria-label="Choose a site">
        <label class="inline" for="site">
          Site
        </label>
        <select id="site" name="site">
          {p.sites.map((s) => (
            <option value={String(s.id)} selected={s.id === p.site?.id}>
              {s.name}
            </option>
          ))}
        </select>
        <button class="secondary" type="submit">
          Show
        </button>
      </form>
    )}
  </>
);

const NoSite = ({ viewer, path }: { viewer: Viewer; path: string }) => (
  <Layout title="Store" viewer={viewer} path={path}>
    <PageHeader title={`Store of ${viewer.active!.name}`} />
    <div class="card">
      <p class="muted">This company has no site yet, so no store. The agency adds one with plinth sites create.</p>
    </div>
  </Layout>
);

/** A refusal the person can act on re-shows the page with the reason; who may act is checked before the form is read. */
async function attempt(
  c: Context<PageEnv>,
  act: (f: Form) => Promise<string>,
  again: (error: string) => Promise<Response>,
): Promise<Response> {
  authorize(actorOf(c), "store:write", { write: true });
  return answerForm(c, () => act(c.get("form")), again);
}

// ---------------------------------------------------------------------------
// Orders

async function ordersPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const { sites, site } = await sitesOf(c);
  if (!site) return render(c, <NoSite viewer={viewer} path={STORE_PATH} />);
  const status = (c.req.query("status") ?? "").trim();
  if (status && !(ORDER_STATUSES as readonly string[]).includes(status))
    throw invalid(`Status must be one of ${ORDER_STATUSES.join(", ")}.`);
  const pageNo = pageNoOf(c);
  const [settings, list, ...counts] = await Promise.all([
    getStoreSettings(actor, { siteId: site.id }),
    listOrders(actor, {
      siteId: site.id,
      ...(status ? { status: status as OrderStatus } : {}),
      limit: PER_PAGE,
      offset: (pageNo - 1) * PER_PAGE,
    }),
    ...ORDER_STATUSES.map((s) => listOrders(actor, { siteId: site.id, status: s, limit: 1, offset: 0 })),
  ]);
  const total = counts.reduce((n, r) => n + r.total, 0);
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  const href = (st: string, n = 1) =>
    withSite(ORDERS_PATH, site, { ...(st ? { status: st } : {}), ...(n > 1 ? { page: String(n) } : {}) });
  // What the orders shown are worth: cancelled and refunded ones brought nothing in, so they are left out.
  const counted = list.items.filter((o) => o.status !== "cancelled" && o.status !== "refunded");
  const pageTotals = new Map<string, number>();
  for (const o of counted) pageTotals.set(o.currency, (pageTotals.get(o.currency) ?? 0) + o.total);
  return render(
    c,
    <Layout title="Orders" viewer={viewer} path={STORE_PATH}>
      <PageHeader
        title={`Store of ${site.name}`}
        lead={
          settings.configured
            ? `${settings.enabled ? "Open" : "Closed"} · prices in ${settings.currency}${settings.taxInclusive ? ", tax included" : ""}`
            : "No store settings yet (store_settings_update); prices in USD until then"
        }
      />
      <StoreHead sites={sites} site={site} path={ORDERS_PATH} />
      <nav class="tabs" aria-label="Order status" id="status-filter">
        <a href={href("")} aria-current={status === "" ? "page" : undefined}>
          All ({total})
        </a>
        {ORDER_STATUSES.map((s, i) => (
          <a href={href(s)} aria-current={status === s ? "page" : undefined} data-status={s}>
            {s} ({counts[i]!.total})
          </a>
        ))}
      </nav>
      <DataTable
        id="orders"
        label="Orders"
        columns={[
          "Order",
          "Status",
          { label: "Customer", hideSm: true },
          { label: "Items", hideSm: true },
          "Total",
          { label: "Placed", hideSm: true },
        ]}
        empty={
          list.items.length === 0 &&
          (status ? `No ${status} orders.` : "No orders yet. They come from the site's checkout or orders_create.")
        }
        footer={
          list.items.length > 0 && (
            <p class="muted small" id="page-total">
              {counted.length} of the {list.items.length} order{list.items.length === 1 ? "" : "s"} shown are not
              cancelled or refunded; together{" "}
              {[...pageTotals].map(([cur, cents]) => money(cents, cur)).join(" · ") || money(0, settings.currency)}
            </p>
          )
        }
      >
        {list.items.map((o) => (
          <tr data-order={o.id}>
            <td>
              <a href={`${ORDERS_PATH}/${o.id}`}>Order #{o.id}</a>
            </td>
            <td>
              <StatusBadge tone={ORDER_TONE[o.status] ?? "neutral"}>{o.status}</StatusBadge>
            </td>
            <td class="hide-sm">{o.customerEmail ?? <span class="muted">none</span>}</td>
            <td class="hide-sm num">{o.units}</td>
            <td class="num total">{money(o.total, o.currency)}</td>
            <td class="hide-sm small">{when(new Date(o.createdAt))}</td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => href(status, n)} />
    </Layout>,
  );
}

const NOTICES: Record<string, string> = {
  status: "Order status changed.",
  published: "Product status changed.",
  held: "Withdrawing a product on sale waits for a person's approval; it stays on sale until then.",
};

async function orderPage(c: Context<PageEnv>, extra: { error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "Order");
  const siteId = await siteOfRecord(c, orders, id, "Order");
  const o: Order = await getOrder(actor, { siteId, id });
  const manage = canManage(viewer);
  const next = ORDER_TRANSITIONS[o.status as OrderStatus] ?? [];
  const notice = NOTICES[c.req.query("done") ?? ""];
  const m = (cents: number) => money(cents, o.currency);
  return render(
    c,
    <Layout title={`Order #${o.id}`} viewer={viewer} path={STORE_PATH}>
      <p class="crumbs small">
        <a href={`${ORDERS_PATH}?site=${siteId}`}>Orders</a> / #{o.id}
      </p>
      <h1>
        Order #{o.id} <StatusBadge tone={ORDER_TONE[o.status] ?? "neutral"}>{o.status}</StatusBadge>
      </h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      <div class="card-layout">
        <div class="card-main">
          <section class="card scroll" aria-labelledby="h-lines" id="lines">
            <h2 id="h-lines">Lines</h2>
            <table aria-labelledby="h-lines">
              <thead>
                <tr>
                  <th>Item</th>
                  <th class="num">Quantity</th>
                  <th class="num">Unit price</th>
                  <th class="num">Line total</th>
                </tr>
              </thead>
              <tbody>
                {o.items.map((l) => (
                  <tr data-line={l.id}>
                    <td>
                      {l.name}
                      {l.sku && <div class="muted small">SKU {l.sku}</div>}
                      {l.bulkRule && l.listPrice !== null && l.unitPrice !== l.listPrice && (
                        <div class="muted small">bulk price (list {m(l.listPrice!)})</div>
                      )}
                    </td>
                    <td class="num">{l.quantity}</td>
                    <td class="num">{m(l.unitPrice)}</td>
                    <td class="num">{m(l.lineTotal)}</td>
                  </tr>
                ))}
              </tbody>
              <tbody id="totals">
                <tr class="totals">
                  <th scope="row" colspan={3}>
                    Subtotal
                  </th>
                  <td class="num">{m(o.subtotal)}</td>
                </tr>
                {o.discount && (
                  <tr>
                    <th scope="row" colspan={3}>
                      Discount <code>{o.discount.code}</code>
                    </th>
                    <td class="num">−{m(o.discountTotal)}</td>
                  </tr>
                )}
                <tr>
                  <th scope="row" colspan={3}>
                    Total
                  </th>
                  <td class="num" id="order-total">
                    <strong>{m(o.total)}</strong>
                  </td>
                </tr>
              </tbody>
            </table>
          </section>
          {o.notes && (
            <section class="card" aria-labelledby="h-notes">
              <h2 id="h-notes">Notes</h2>
              <p class="prose" id="notes">
                {o.notes}
              </p>
            </section>
          )}
          {!manage && <p class="muted small">You can read this order; owners and admins change its status.</p>}
        </div>
        <aside class="card card-side" aria-label="Order details">
          <dl class="facts">
            <dt>Payment</dt>
            <dd id="payment">{PAYMENT_WORDS[o.status] ?? o.status}</dd>
            <dt>Total</dt>
            <dd>{m(o.total)}</dd>
            <dt>Customer</dt>
            <dd>
              {o.customer ? (
                <>
                  {o.customer.name && <div>{o.customer.name}</div>}
                  <div class="small">{o.customer.email}</div>
                </>
              ) : (
                <span class="muted">none</span>
              )}
            </dd>
            <dt>Placed</dt>
            <dd class="small">{when(new Date(o.createdAt))}</dd>
            <dt>Changed</dt>
            <dd class="small">{when(new Date(o.updatedAt))}</dd>
          </dl>
          {manage && next.length > 0 && (
            <>
              <h2 class="small-h">Change status</h2>
              <div class="actions" id="order-actions">
                {next.map((s) => (
                  <form method="post" action={`${ORDERS_PATH}/${o.id}/status`} class="inline">
                    <Csrf viewer={viewer} />
                    <input type="hidden" name="status" value={s} />
                    <input type="hidden" name="from" value={o.status} />
                    <button
                      type="submit"
                      class={s === "cancelled" || s === "refunded" ? "danger" : undefined}
                      data-status={s}
                    >
                      {ORDER_ACTION[s]}
                    </button>
                  </form>
                ))}
              </div>
              {next.includes("refunded") && (
                <p class="muted small">
                  A refund marks the money as returned; stock comes back only for an order not yet fulfilled.
                </p>
              )}
            </>
          )}
          {next.length === 0 && <p class="muted small">{o.status} is final.</p>}
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Products

/** The site's open approval requests about store records, newest first (expired ones are not open). */
async function pendingOf(c: Context<PageEnv>, siteId: number): Promise<LinkRow[]> {
  const actor = actorOf(c);
  const now = actor.deps.clock.now();
  const all = await Promise.all(
    Object.keys(APPROVAL_KINDS).map((kind) =>
      linksOfType(actor.deps.db, actor.company.id, kind, { status: "pending", limit: PENDING_SHOWN, offset: 0 }),
    ),
  );
  return all
    .flatMap((r) => r.rows)
    .filter((l) => l.siteId === siteId && effectiveStatus(l, now) === "pending")
    .sort((a, b) => b.id - a.id)
    .slice(0, PENDING_SHOWN);
}

async function productsPage(c: Context<PageEnv>, extra: { error?: string; siteId?: number } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const { sites, site } = await sitesOf(c, extra.siteId);
  if (!site) return render(c, <NoSite viewer={viewer} path={STORE_PATH} />);
  const status = (c.req.query("status") ?? "").trim();
  if (status && !(PRODUCT_STATUSES as readonly string[]).includes(status))
    throw invalid(`Status must be one of ${PRODUCT_STATUSES.join(", ")}.`);
  const pageNo = pageNoOf(c);
  const [settings, list, pending] = await Promise.all([
    getStoreSettings(actor, { siteId: site.id }),
    listProducts(actor, {
      siteId: site.id,
      ...(status ? { status: status as ProductStatus } : {}),
      limit: PER_PAGE,
      offset: (pageNo - 1) * PER_PAGE,
    }),
    pendingOf(c, site.id),
  ]);
  const awaiting = new Map(pending.filter((l) => l.entityType === "product").map((l) => [l.entityId, l]));
  const manage = canManage(viewer);
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  const href = (st: string, n = 1) =>
    withSite(PRODUCTS_PATH, site, { ...(st ? { status: st } : {}), ...(n > 1 ? { page: String(n) } : {}) });
  const notice = NOTICES[c.req.query("done") ?? ""];
  const here = href(status, pageNo);
  return render(
    c,
    <Layout title="Products" viewer={viewer} path={STORE_PATH}>
      <PageHeader
        title={`Store of ${site.name}`}
        lead={`${list.total} product${list.total === 1 ? "" : "s"}${status ? ` ${PRODUCT_WORDS[status]}` : ""} · prices in ${settings.currency}`}
      />
      <StoreHead sites={sites} site={site} path={PRODUCTS_PATH} />
      {notice && <Notice kind={c.req.query("done") === "held" ? "warn" : "ok"}>{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      {pending.length > 0 && (
        <section class="card" aria-labelledby="h-awaiting" id="awaiting">
          <h2 id="h-awaiting">Awaiting approval ({pending.length})</h2>
          <ul class="plain">
            {pending.map((l) => (
              <li class="note" data-link={l.id}>
                <a href={`/approvals/${l.id}`}>{l.title}</a>{" "}
                <span class="muted small">
                  {APPROVAL_KINDS[l.entityType] ?? l.entityType} · asked {when(l.createdAt)}
                </span>
              </li>
            ))}
          </ul>
        </section>
      )}
      <nav class="tabs" aria-label="Product status">
        <a href={href("")} aria-current={status === "" ? "page" : undefined}>
          All
        </a>
        {PRODUCT_STATUSES.map((s) => (
          <a href={href(s)} aria-current={status === s ? "page" : undefined}>
            {PRODUCT_WORDS[s]}
          </a>
        ))}
      </nav>
      <DataTable
        id="products"
        label="Products"
        columns={["Product", "Status", "Price", { label: "Stock", hideSm: true }]}
        empty={
          list.items.length === 0 &&
          (status ? `No ${PRODUCT_WORDS[status]} products.` : "No products yet. Agents add them with products_create.")
        }
      >
        {list.items.map((p) => {
          const link = awaiting.get(p.id);
          const stock = !p.trackInventory ? null : (p.quantity ?? 0);
          return (
            <tr data-product={p.id}>
              <td>
                {p.name}
                <div class="muted small">
                  {p.sku ? `SKU ${p.sku}` : p.slug}
                  {p.variants > 0 && ` · ${p.activeVariants} of ${p.variants} variants on sale`}
                </div>
                {/* Under the name, not in a column of their own: on a phone the row then fits the card. */}
                {manage && !link && (
                  <div class="actions">
                    {STATUS_TRANSITIONS[p.status].map((s) => (
                      <form method="post" action={`${PRODUCTS_PATH}/${p.id}/status`} class="inline">
                        <Csrf viewer={viewer} />
                        <input type="hidden" name="status" value={s} />
                        <input type="hidden" name="from" value={p.status} />
                        <input type="hidden" name="back" value={here} />
                        <button
                          type="submit"
                          class="secondary"
                          data-status={s}
                          aria-label={`${productAction(p.status, s)}: ${p.name}`}
                        >
                          {productAction(p.status, s)}
                        </button>
                      </form>
                    ))}
                  </div>
                )}
              </td>
              <td class="status">
                <StatusBadge tone={PRODUCT_TONE[p.status] ?? "neutral"}>
                  {PRODUCT_WORDS[p.status] ?? p.status}
                </StatusBadge>
                {link && (
                  <div>
                    <a href={`/approvals/${link.id}`} class="awaits">
                      <StatusBadge tone="warn">awaits approval</StatusBadge>
                    </a>
                  </div>
                )}
              </td>
              <td class="num">
                {money(p.price, settings.currency)}
                {p.compareAtPrice !== null && p.compareAtPrice > p.price && (
                  <div class="muted small">
                    <s>{money(p.compareAtPrice, settings.currency)}</s>
                  </div>
                )}
              </td>
              <td class="hide-sm stock">
                {stock === null ? (
                  <span class="muted">not tracked</span>
                ) : stock > 0 ? (
                  `${stock} in stock`
                ) : (
                  <StatusBadge tone="danger">out of stock</StatusBadge>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => href(status, n)} />
    </Layout>,
  );
}

/** Where to go back to after a product's form: a products page of this site, never another address. */
function backOf(f: Form, siteId: number): string {
  const back = f.text("back", { label: "Back", max: 300 });
  const u = back.startsWith(`${PRODUCTS_PATH}?`) ? new URLSearchParams(back.slice(PRODUCTS_PATH.length + 1)) : null;
  if (!u || u.get("site") !== String(siteId)) return `${PRODUCTS_PATH}?site=${siteId}`;
  const keep = new URLSearchParams({ site: String(siteId) });
  for (const k of ["status", "page"]) if (/^[a-z0-9]{1,12}$/.test(u.get(k) ?? "")) keep.set(k, u.get(k)!);
  return `${PRODUCTS_PATH}?${keep}`;
}

// ---------------------------------------------------------------------------
// Routes

export function storePages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(STORE_PATH, (c) => c.redirect(ORDERS_PATH, 303));
  app.get(ORDERS_PATH, ordersPage);
  app.get(`${ORDERS_PATH}/:id`, (c) => orderPage(c));
  app.get(PRODUCTS_PATH, (c) => productsPage(c));

  app.post(`${ORDERS_PATH}/:id/status`, (c) =>
    attempt(
      c,
      async (f) => {
        const id = idOf(c, "Order");
        const siteId = await siteOfRecord(c, orders, id, "Order");
        const status = f.text("status", { label: "Status", max: 20, required: true });
        if (!(ORDER_STATUSES as readonly string[]).includes(status))
          throw invalid(`Status must be one of ${ORDER_STATUSES.join(", ")}.`);
        // The form says which status it was shown at: an order someone changed since is not moved on a stale page.
        const from = f.text("from", { label: "Shown status", max: 20 });
        const now = await getOrder(actorOf(c), { siteId, id });
        if (from && from !== now.status)
          throw conflict(`This order became ${now.status} since the page was shown; nothing was changed.`);
        await updateOrderStatus(actorOf(c), { siteId, id, status: status as OrderStatus });
        return `${ORDERS_PATH}/${id}?done=status`;
      },
      (error) => orderPage(c, { error }),
    ),
  );

  app.post(`${PRODUCTS_PATH}/:id/status`, (c) =>
    attempt(
      c,
      async (f) => {
        const id = idOf(c, "Product");
        const siteId = await siteOfRecord(c, products, id, "Product");
        const status = f.text("status", { label: "Status", max: 20, required: true });
        if (!(PRODUCT_STATUSES as readonly string[]).includes(status))
          throw invalid(`Status must be one of ${PRODUCT_STATUSES.join(", ")}.`);
        // As for orders: a product someone changed since the page was shown is not moved on a stale page.
        const from = f.text("from", { label: "Shown status", max: 20 });
        const now = await getProduct(actorOf(c), { siteId, id });
        if (from && from !== now.status)
          throw conflict(`This product became ${now.status} since the page was shown; nothing was changed.`);
        const back = backOf(f, siteId);
        const r = await setProductStatus(actorOf(c), { siteId, id, status: status as ProductStatus });
        return `${back}&done=${"approval" in r && r.approval ? "held" : "published"}`;
      },
      async (error) =>
        productsPage(c, { error, siteId: await siteOfRecord(c, products, idOf(c, "Product"), "Product") }),
    ),
  );
}
