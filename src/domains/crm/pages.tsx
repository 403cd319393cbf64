/**
 * The CRM in the portal (issue 31, the second domain page set): contacts and
 * companies with search and the saved views, a contact's or a company's page
 * with its timeline, the pipeline as a board of deals per stage with its
 * totals, and the forecast as a chart.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listContacts, getContact, listCompanies, getCompany, listViews,
 * timeline, listPipelines, getPipeline, listDeals, getDeal, moveDeal,
 * forecast), called as the signed-in person (actorOf): the role and the
 * company's tenancy are checked where they are for an agent. Owners and
 * admins get the move forms; viewers read, and a post of theirs is refused
 * by the verb (403). An id from another company is "not found" inside the
 * lookups (404).
 *
 * Pages work without JavaScript: moving a deal is a stage select, a reason
 * field (a lost stage needs one) and a button on each deal. The forecast is
 * drawn on the server (src/ui/chart.tsx) with its figures in a table beside it.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { StatusBadge, type Tone } from "../../ui/badge";
import { Chart, renderChart } from "../../ui/chart";
import { answerForm } from "../../ui/form-answer";
import type { Form } from "../../ui/form-data";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, type Viewer, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import { crmWrite } from "./access";
import { timeline } from "./activities";
import { getCompany, listCompanies } from "./companies";
import { getContact, listContacts } from "./contacts";
import { getDeal, listDeals, moveDeal } from "./deals";
import { forecast, getPipeline, listPipelines } from "./pipelines";
import { listViews } from "./views";

export const CRM_PATH = "/crm";
export const CONTACTS_PATH = `${CRM_PATH}/contacts`;
export const COMPANIES_PATH = `${CRM_PATH}/companies`;
export const PIPELINE_PATH = `${CRM_PATH}/pipeline`;
export const FORECAST_PATH = `${CRM_PATH}/forecast`;
const PER_PAGE = 20;
/** A board shows at most this many deals of a pipeline; its column totals still count them all. */
const BOARD_DEALS = 300;
const MONTH = /^\d{4}-(0[1-9]|1[0-2])$/;

type Pipeline = Awaited<ReturnType<typeof getPipeline>>;
type Deal = Awaited<ReturnType<typeof listDeals>>["items"][number];

/** A positive whole number from the path (a contact's, a company's or a pipeline's id), else 404. */
function idOf(c: Context<PageEnv>, what: string): number {
  const raw = c.req.param("id") ?? "";
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw notFound(`${what} ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}
/** A positive whole number from the query string, or undefined when it is absent or not one. */
function queryId(c: Context<PageEnv>, name: string): number | undefined {
  const raw = c.req.query(name) ?? "";
  return /^\d{1,9}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : undefined;
}
/** The search box's words, trimmed to what the verb takes; empty is no search. */
const searchOf = (c: Context<PageEnv>) => (c.req.query("q") ?? "").trim().slice(0, 200);

/** Money as people read it: "£1,250" (cents shown only when there are any), in the deal's own currency. */
export function money(cents: number, currency: string): string {
  const whole = cents % 100 === 0;
  try {
    return new Intl.NumberFormat("en-GB", {
      style: "currency",
      currency,
      minimumFractionDigits: whole ? 0 : 2,
      maximumFractionDigits: whole ? 0 : 2,
    }).format(cents / 100);
  } catch {
    return `${(cents / 100).toFixed(whole ? 0 : 2)} ${currency}`;
  }
}
/** Per-currency amounts, one after another: "£1,200 · $300"; "—" when there are none. */
const amounts = (byCurrency: Record<string, number>) =>
  Object.entries(byCurrency)
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([cur, cents]) => money(cents, cur))
    .join(" · ") || "—";
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const words = (s: string) => s.replace(/_/g, " ");
const day = (iso: string | null | undefined) => (iso ? iso.slice(0, 10) : "—");
const at = (iso: string) => `${iso.slice(0, 16).replace("T", " ")} UTC`;

const STATUS_TONE: Record<string, Tone> = { open: "neutral", won: "ok", lost: "danger" };
const NOTICES: Record<string, string> = { moved: "Deal moved." };

const contactHref = (id: number) => `${CONTACTS_PATH}/${id}`;
const companyHref = (id: number) => `${COMPANIES_PATH}/${id}`;
const pipelineHref = (id: number) => `${PIPELINE_PATH}/${id}`;

/** The CRM's own tabs, under the one "CRM" navigation entry. */
const Tabs = (p: { here: string }) => (
  <nav class="tabs" aria-label="CRM">
    {[
      [CONTACTS_PATH, "Contacts"],
      [COMPANIES_PATH, "Companies"],
      [PIPELINE_PATH, "Pipeline"],
      [FORECAST_PATH, "Forecast"],
    ].map(([href, label]) => (
      <a href={href} aria-current={p.here === href ? "page" : undefined}>
        {label}
      </a>
    ))}
  </nav>
);

/** Runs a form's verb; a refusal the person can act on re-shows the page with the reason and the right status. */
async function attempt(
  c: Context<PageEnv>,
  act: (f: Form) => Promise<string>,
  again: (error: string) => Promise<Response>,
): Promise<Response> {
  // Who may act comes before what was typed: a viewer is refused (403) whatever the form holds.
  crmWrite(actorOf(c));
  return answerForm(c, () => act(c.get("form")), again);
}

/** The search box and the saved views of a list (crm_views_list), as a plain GET form. */
const ListFilter = (p: {
  action: string;
  q: string;
  viewId: number | undefined;
  views: { id: number; name: string }[];
  what: string;
}) => (
  <form method="get" action={p.action} class="grid-form">
    <div>
      <label for="q">Search {p.what}</label>
      <input id="q" type="text" name="q" value={p.q} maxlength={200} />
    </div>
    {p.views.length > 0 && (
      <div>
        <label for="view">Saved view</label>
        <select id="view" name="view">
          <option value="">All {p.what}</option>
          {p.views.map((view) => (
            <option value={String(view.id)} selected={view.id === p.viewId}>
              {view.name}
            </option>
          ))}
        </select>
      </div>
    )}
    <div class="actions">
      <button class="secondary" type="submit">
        Show
      </button>
    </div>
  </form>
);

/** A list page's link to another page of the same search and view. */
function listHref(path: string, q: string, viewId: number | undefined, pageNo: number): string {
  const s = new URLSearchParams();
  if (q) s.set("q", q);
  if (viewId) s.set("view", String(viewId));
  if (pageNo > 1) s.set("page", String(pageNo));
  const qs = s.toString();
  return qs ? `${path}?${qs}` : path;
}

// ---------------------------------------------------------------------------
// Contacts

async function contactsPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const pageNo = pageNoOf(c);
  const q = searchOf(c);
  const viewId = queryId(c, "view");
  const [views, list] = await Promise.all([
    listViews(actor, { object: "contact", limit: 100, offset: 0 }),
    listContacts(actor, {
      ...(q ? { q } : {}),
      ...(viewId ? { viewId } : {}),
      limit: PER_PAGE,
      offset: (pageNo - 1) * PER_PAGE,
    }),
  ]);
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  return render(
    c,
    <Layout title="Contacts" viewer={viewer} path={CONTACTS_PATH}>
      <PageHeader title="CRM" lead={`${plural(list.total, "contact")}${q || viewId ? " found" : ""}`} />
      <Tabs here={CONTACTS_PATH} />
      <ListFilter action={CONTACTS_PATH} q={q} viewId={viewId} views={views.items} what="contacts" />
      <DataTable
        id="contacts"
        label="Contacts"
        columns={[
          "Contact",
          { label: "Company", hideSm: true },
          { label: "Stage", hideSm: true },
          "Score",
          { label: "Owner", hideSm: true },
        ]}
        empty={
          list.items.length === 0 &&
          (q || viewId ? "No contacts match." : "No contacts yet. Agents add them with contacts_create.")
        }
      >
        {list.items.map((p) => (
          <tr>
            <td>
              <a href={contactHref(p.id)}>{p.name ?? p.email ?? `Contact ${p.id}`}</a>
              {p.email && p.name && <div class="muted small">{p.email}</div>}
            </td>
            <td class="hide-sm">
              {p.company ? <a href={companyHref(p.company.id)}>{p.company.name}</a> : <span class="muted">—</span>}
            </td>
            <td class="hide-sm">{words(p.lifecycleStage)}</td>
            <td class="num">{p.score}</td>
            <td class="hide-sm">{p.owner?.name ?? p.owner?.email ?? <span class="muted">—</span>}</td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => listHref(CONTACTS_PATH, q, viewId, n)} />
    </Layout>,
  );
}

/** One entry of a timeline (crm_timeline_get) as a line people read. */
function TimelineItem(p: { item: Awaited<ReturnType<typeof timeline>>["items"][number] }) {
  const x = p.item as Record<string, any>;
  let what: string;
  let detail: string | null = null;
  switch (x.type) {
    case "created":
      what = "Created";
      break;
    case "deal_created":
      what = `Deal ${x.deal} opened in ${x.to}`;
      break;
    case "stage_changed":
      what = `Deal ${x.deal} moved from ${x.from} to ${x.to}`;
      break;
    case "merged":
      what = "Merged with a duplicate";
      break;
    case "merge_undone":
      what = "A merge was undone";
      break;
    case "ticket":
      what = `Ticket: ${x.subject} (${words(String(x.status))})`;
      break;
    default:
      if (x.activity) {
        what = `${words(x.type)}${x.activity.subject ? `: ${x.activity.subject}` : ""}`;
        detail = x.activity.body ?? null;
      } else what = [words(x.type), x.subject ?? x.event ?? ""].filter(Boolean).join(": ");
  }
  return (
    <li class="note">
      <p class="muted small">
        <time datetime={x.at}>{at(x.at)}</time> · {words(x.type)}
      </p>
      <p class="prose">{what}</p>
      {detail && <p class="prose muted small">{detail}</p>}
    </li>
  );
}

async function timelineOf(actor: ReturnType<typeof actorOf>, of: { contactId: number } | { companyId: number }) {
  return timeline(actor, { ...of, limit: 50, offset: 0 });
}

const Timeline = (p: { items: Awaited<ReturnType<typeof timeline>> }) => (
  <section class="card" id="timeline" aria-labelledby="h-timeline">
    <h2 id="h-timeline">Timeline</h2>
    {p.items.note && <p class="muted small">{p.items.note}</p>}
    {p.items.items.length ? (
      <ul class="plain timeline">
        {p.items.items.map((item) => (
          <TimelineItem item={item} />
        ))}
      </ul>
    ) : (
      <p class="muted">Nothing has happened yet.</p>
    )}
    {p.items.total > p.items.items.length && (
      <p class="muted small">
        The latest {p.items.items.length} of {p.items.total}; agents read the rest with crm_timeline_get.
      </p>
    )}
  </section>
);

const DealRows = (p: {
  deals: { id: number; name: string; amountCents: number; currency: string; stage: string; status: string }[];
}) => (
  <DataTable id="deals" label="Deals" columns={["Deal", "Stage", "Amount"]} empty={p.deals.length === 0 && "No deals."}>
    {p.deals.map((d) => (
      <tr>
        <td>{d.name}</td>
        <td>
          <StatusBadge tone={STATUS_TONE[d.status] ?? "neutral"}>{d.stage}</StatusBadge>
        </td>
        <td class="num">{money(d.amountCents, d.currency)}</td>
      </tr>
    ))}
  </DataTable>
);

async function contactPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "Contact");
  const person = await getContact(actor, { id });
  const items = await timelineOf(actor, { contactId: person.id });
  const name = person.name ?? person.email ?? `Contact ${person.id}`;
  return render(
    c,
    <Layout title={name} viewer={viewer} path={CONTACTS_PATH}>
      <p class="crumbs small">
        <a href={CONTACTS_PATH}>Contacts</a> / {name}
      </p>
      <PageHeader title={name} lead={[person.jobTitle, person.company?.name].filter(Boolean).join(" at ") || undefined}>
        <StatusBadge>{words(person.lifecycleStage)}</StatusBadge>
      </PageHeader>
      <div class="card-layout">
        <div class="card-main">
          <Timeline items={items} />
          <h2>Deals</h2>
          <DealRows deals={person.deals} />
        </div>
        <aside class="card card-side" aria-label="Details">
          <dl class="facts">
            <dt>Email</dt>
            <dd>{person.emails.length ? person.emails.join(", ") : "—"}</dd>
            <dt>Phone</dt>
            <dd>{person.phones.length ? person.phones.join(", ") : "—"}</dd>
            <dt>Company</dt>
            <dd>{person.company ? <a href={companyHref(person.company.id)}>{person.company.name}</a> : "—"}</dd>
            <dt>Owner</dt>
            <dd>{person.owner?.name ?? person.owner?.email ?? "—"}</dd>
            <dt>Score</dt>
            <dd>{person.score}</dd>
            <dt>Open tasks</dt>
            <dd>{person.openTasks}</dd>
            <dt>Tags</dt>
            <dd>{person.tags.length ? person.tags.join(", ") : "—"}</dd>
            <dt>Added</dt>
            <dd>{day(person.createdAt)}</dd>
          </dl>
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Companies

async function companiesPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const pageNo = pageNoOf(c);
  const q = searchOf(c);
  const viewId = queryId(c, "view");
  const [views, list] = await Promise.all([
    listViews(actor, { object: "company", limit: 100, offset: 0 }),
    listCompanies(actor, {
      ...(q ? { q } : {}),
      ...(viewId ? { viewId } : {}),
      limit: PER_PAGE,
      offset: (pageNo - 1) * PER_PAGE,
    }),
  ]);
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  return render(
    c,
    <Layout title="Companies" viewer={viewer} path={COMPANIES_PATH}>
      <PageHeader title="CRM" lead={`${plural(list.total, "company", "companies")}${q || viewId ? " found" : ""}`} />
      <Tabs here={COMPANIES_PATH} />
      <ListFilter action={COMPANIES_PATH} q={q} viewId={viewId} views={views.items} what="companies" />
      <DataTable
        id="companies"
        label="Companies"
        columns={["Company", { label: "Industry", hideSm: true }, { label: "Size", hideSm: true }, "Owner"]}
        empty={
          list.items.length === 0 &&
          (q || viewId ? "No companies match." : "No companies yet. Agents add them with crm_companies_create.")
        }
      >
        {list.items.map((co) => (
          <tr>
            <td>
              <a href={companyHref(co.id)}>{co.name}</a>
              {co.domain && <div class="muted small">{co.domain}</div>}
            </td>
            <td class="hide-sm">{co.industry ?? <span class="muted">—</span>}</td>
            <td class="hide-sm">{co.size ?? <span class="muted">—</span>}</td>
            <td>{co.owner?.name ?? co.owner?.email ?? <span class="muted">—</span>}</td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => listHref(COMPANIES_PATH, q, viewId, n)} />
    </Layout>,
  );
}

async function companyPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "Company");
  const co = await getCompany(actor, { id });
  const items = await timelineOf(actor, { companyId: co.id });
  return render(
    c,
    <Layout title={co.name} viewer={viewer} path={COMPANIES_PATH}>
      <p class="crumbs small">
        <a href={COMPANIES_PATH}>Companies</a> / {co.name}
      </p>
      <PageHeader title={co.name} lead={co.domain ?? undefined} />
      <div class="card-layout">
        <div class="card-main">
          <Timeline items={items} />
          <h2>Deals</h2>
          <DealRows deals={co.deals} />
        </div>
        <aside class="card card-side" aria-label="Details">
          <dl class="facts">
            <dt>Industry</dt>
            <dd>{co.industry ?? "—"}</dd>
            <dt>Size</dt>
            <dd>{co.size ?? "—"}</dd>
            <dt>Owner</dt>
            <dd>{co.owner?.name ?? co.owner?.email ?? "—"}</dd>
            <dt>Tags</dt>
            <dd>{co.tags.length ? co.tags.join(", ") : "—"}</dd>
          </dl>
          <h2 class="small-h">People ({co.contactsTotal})</h2>
          {co.contacts.length ? (
            <ul class="plain" id="people">
              {co.contacts.map((p) => (
                <li>
                  <a href={contactHref(p.id)}>{p.name ?? `Contact ${p.id}`}</a>
                  {p.jobTitle && <span class="muted small"> · {p.jobTitle}</span>}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted small">No contacts.</p>
          )}
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// The pipeline board

/** The pipeline the path names, or the company's first one; null when it has none. */
async function pipelineOfPage(
  c: Context<PageEnv>,
): Promise<{ pipeline: Pipeline | null; all: { id: number; name: string }[] }> {
  const actor = actorOf(c);
  const all = (await listPipelines(actor, { limit: 100, offset: 0 })).items;
  if (c.req.param("id") !== undefined) return { pipeline: await getPipeline(actor, { id: idOf(c, "Pipeline") }), all };
  return { pipeline: all[0] ?? null, all };
}

const DealMove = (p: { viewer: Viewer; pipelineId: number; deal: Deal; stages: Pipeline["stages"] }) => (
  <form class="move deal-move" method="post" action={`${pipelineHref(p.pipelineId)}/move`}>
    <Csrf viewer={p.viewer} />
    <input type="hidden" name="deal" value={String(p.deal.id)} />
    <input type="hidden" name="from" value={String(p.deal.stageId)} />
    <select name="stage" aria-label={`Move ${p.deal.name} to stage`}>
      {p.stages.map((s) => (
        <option value={String(s.id)} selected={s.id === p.deal.stageId}>
          {s.name}
          {s.kind === "open" ? "" : ` (${s.kind})`}
        </option>
      ))}
    </select>
    <input
      type="text"
      name="reason"
      maxlength={500}
      aria-label={`Why ${p.deal.name} was lost`}
      placeholder="Reason if lost"
    />
    <button class="secondary" type="submit">
      Move
    </button>
  </form>
);

async function pipelinePage(c: Context<PageEnv>, extra: { error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const { pipeline, all } = await pipelineOfPage(c);
  if (!pipeline)
    return render(
      c,
      <Layout title="Pipeline" viewer={viewer} path={PIPELINE_PATH}>
        <PageHeader title="CRM" />
        <Tabs here={PIPELINE_PATH} />
        <p class="muted">No pipelines yet. Agents create them with pipelines_create.</p>
      </Layout>,
    );
  const deals: Deal[] = [];
  for (let offset = 0; offset < BOARD_DEALS; offset += 100) {
    const got = await listDeals(actor, { pipelineId: pipeline.id, sort: "amount", limit: 100, offset });
    deals.push(...got.items);
    if (deals.length >= got.total) break;
  }
  const byStage = new Map<number, Deal[]>();
  for (const d of deals) byStage.set(d.stageId, [...(byStage.get(d.stageId) ?? []), d]);
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const count = pipeline.stages.reduce((n, s) => n + s.deals, 0);
  return render(
    c,
    <Layout title={`${pipeline.name} pipeline`} viewer={viewer} path={PIPELINE_PATH} wide>
      <PageHeader title="CRM" lead={`${pipeline.name} · ${plural(count, "deal")}`}>
        <a class="button secondary" href={`${FORECAST_PATH}?pipeline=${pipeline.id}`}>
          Forecast
        </a>
      </PageHeader>
      <Tabs here={PIPELINE_PATH} />
      {all.length > 1 && (
        <nav class="tabs" aria-label="Pipelines">
          {all.map((p) => (
            <a href={pipelineHref(p.id)} aria-current={p.id === pipeline.id ? "page" : undefined}>
              {p.name}
            </a>
          ))}
        </nav>
      )}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      {!manage && <p class="muted small">You can read this pipeline; owners and admins move deals.</p>}
      <div class="board" id="board">
        {pipeline.stages.map((s) => {
          const inside = byStage.get(s.id) ?? [];
          return (
            <section class="column" aria-labelledby={`stage-${s.id}`} data-stage={s.id}>
              <header class="column-head">
                <h2 id={`stage-${s.id}`}>{s.name}</h2>
                <span class="badge" aria-hidden="true">
                  {s.deals}
                </span>
                <span class="visually-hidden">{plural(s.deals, "deal")}</span>
              </header>
              <p class="muted small column-points stage-total">
                {amounts(s.amountCents)}
                {s.kind === "open" ? ` · ${s.probability}%` : ` · ${s.kind}`}
              </p>
              {inside.length ? (
                <ol class="cards">
                  {inside.map((d) => (
                    <li class="kcard" data-deal={d.id}>
                      <p class="kcard-top">
                        <span class="kcard-key">{money(d.amountCents, d.currency)}</span>
                        {d.expectedClose && <span class="badge">close {d.expectedClose}</span>}
                      </p>
                      <p class="kcard-title">{d.name}</p>
                      {(d.company || d.owner || d.lostReason) && (
                        <p class="kcard-meta small">
                          {d.company && <a href={companyHref(d.company.id)}>{d.company.name}</a>}
                          {d.owner && <span class="assignee">{d.owner.name ?? d.owner.email}</span>}
                          {d.lostReason && <span class="lost-reason">Lost: {d.lostReason}</span>}
                        </p>
                      )}
                      {manage && (
                        <DealMove viewer={viewer} pipelineId={pipeline.id} deal={d} stages={pipeline.stages} />
                      )}
                    </li>
                  ))}
                </ol>
              ) : (
                <p class="muted small empty">No deals.</p>
              )}
            </section>
          );
        })}
      </div>
      {count > deals.length && (
        <p class="muted small">
          The largest {deals.length} deals are shown; the totals count all {count}.
        </p>
      )}
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// The forecast

/** The first month shown: five months back, so won deals show beside the weighted months ahead. */
function monthsBack(now: Date, n: number): string {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1)).toISOString().slice(0, 7);
}

async function forecastPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const all = (await listPipelines(actor, { limit: 100, offset: 0 })).items;
  const wanted = queryId(c, "pipeline");
  const pipeline = wanted ? await getPipeline(actor, { id: wanted }) : all[0];
  const rawFrom = c.req.query("from") ?? "";
  const from = MONTH.test(rawFrom) ? rawFrom : monthsBack(actor.deps.clock.now(), 5);
  const f = pipeline ? await forecast(actor, { id: pipeline.id, from, months: 12 }) : null;
  const charts = f
    ? await Promise.all(
        f.currencies.map((cur) =>
          renderChart({
            kind: "bar",
            title: `${f.pipeline} in ${cur.currency}: weighted open deals by expected close, and won deals by month closed`,
            categories: cur.months.map((m) => m.month),
            xLabel: "Month",
            yLabel: cur.currency,
            series: [
              { name: "Weighted", values: cur.months.map((m) => m.weightedCents / 100) },
              { name: "Won", values: cur.months.map((m) => m.wonCents / 100) },
            ],
          }),
        ),
      )
    : [];
  return render(
    c,
    <Layout title="Forecast" viewer={viewer} path={FORECAST_PATH}>
      <PageHeader title="CRM" lead={f ? `Forecast of ${f.pipeline}, ${f.from} to ${f.to}` : "Forecast"}>
        {f && (
          <a class="button secondary" href={pipelineHref(f.pipelineId)}>
            Pipeline
          </a>
        )}
      </PageHeader>
      <Tabs here={FORECAST_PATH} />
      {all.length > 1 && (
        <nav class="tabs" aria-label="Pipelines">
          {all.map((p) => (
            <a href={`${FORECAST_PATH}?pipeline=${p.id}`} aria-current={p.id === f?.pipelineId ? "page" : undefined}>
              {p.name}
            </a>
          ))}
        </nav>
      )}
      {!f && <p class="muted">No pipelines yet. Agents create them with pipelines_create.</p>}
      {f && f.currencies.length === 0 && <p class="muted">No open or won deals in this pipeline.</p>}
      {f?.currencies.map((cur, i) => (
        <section aria-labelledby={`cur-${cur.currency}`}>
          <h2 id={`cur-${cur.currency}`}>{cur.currency}</h2>
          <div class="stats">
            <p class="stat">
              <span class="stat-n">{money(cur.openAmountCents, cur.currency)}</span>{" "}
              <span class="muted small">open</span>
            </p>
            <p class="stat">
              <span class="stat-n">{money(cur.weightedCents, cur.currency)}</span>{" "}
              <span class="muted small">weighted</span>
            </p>
            <p class="stat">
              <span class="stat-n">{money(cur.unscheduledWeightedCents, cur.currency)}</span>{" "}
              <span class="muted small">weighted, no close date</span>
            </p>
          </div>
          <Chart chart={charts[i]!} id={`forecast-${cur.currency}`} />
        </section>
      ))}
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Routes

export function crmPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(CRM_PATH, (c) => c.redirect(PIPELINE_PATH, 302));
  app.get(CONTACTS_PATH, contactsPage);
  app.get(`${CONTACTS_PATH}/:id`, contactPage);
  app.get(COMPANIES_PATH, companiesPage);
  app.get(`${COMPANIES_PATH}/:id`, companyPage);
  app.get(PIPELINE_PATH, (c) => pipelinePage(c));
  app.get(`${PIPELINE_PATH}/:id`, (c) => pipelinePage(c));
  app.get(FORECAST_PATH, forecastPage);

  app.post(`${PIPELINE_PATH}/:id/move`, (c) =>
    attempt(
      c,
      async (f) => {
        const actor = actorOf(c);
        const pipeline = await getPipeline(actor, { id: idOf(c, "Pipeline") });
        const id = f.id("deal", { label: "Deal", required: true })!;
        const stageId = f.id("stage", { label: "Stage", required: true })!;
        const fromStage = f.id("from", { label: "Current stage" });
        const reason = f.text("reason", { label: "Reason", max: 500 });
        // The deal must be this board's: the verb checks the company, the page checks the pipeline it shows.
        const deal = await getDeal(actor, { id });
        if (deal.pipelineId !== pipeline.id) throw notFound(`Deal ${id} not found in ${pipeline.name}.`);
        const to = pipeline.stages.find((s) => s.id === stageId);
        if (!to) throw invalid(`That stage is not in ${pipeline.name}.`);
        if (to.kind === "lost" && !reason)
          throw invalid(`Moving "${deal.name}" to ${to.name} marks it lost: say why in the reason field.`);
        await moveDeal(actor, {
          id,
          stage: to.id,
          ...(fromStage ? { fromStage } : {}),
          ...(to.kind === "lost" ? { lostReason: reason } : {}),
        });
        return `${pipelineHref(pipeline.id)}?done=moved#stage-${to.id}`;
      },
      (error) => pipelinePage(c, { error }),
    ),
  );
}
