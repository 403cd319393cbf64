/**
 * Hosting in the portal (issue 31): every site domain of the company with
 * its DNS, certificate and uptime state in words and colour, the open
 * incidents, and one domain with its uptime over 30 days as a chart (and
 * the same figures in a table), its DNS records, certificate, latest
 * checks and incidents.
 *
 * Every page reads through the same verbs as the MCP tools
 * (listHostingDomains, listIncidents, getHostingDomain, getUptime,
 * listChecks) and the chart's uptimeByDay, called as the signed-in person (actorOf), so the scope and
 * the company's tenancy are checked where they are for an agent: another
 * company's domain id is "not found" inside the lookup (404). Hosting has
 * no verb that changes anything (the background job in checks.ts is its
 * only writer), so these pages have no forms, for owners and viewers alike.
 *
 * The chart's per-day figures come from uptimeByDay (verbs.ts), one grouped
 * query over the domain's uptime checks: the same rows hosting_checks_list
 * counts day by day, so the table beside the chart says what an agent
 * would read.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { StatusBadge, type Tone } from "../../ui/badge";
import { Chart, renderChart } from "../../ui/chart";
import { when } from "../../ui/format";
import { Layout, render } from "../../ui/layout";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, type PageEnv, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import {
  getHostingDomain,
  getUptime,
  listChecks,
  listHostingDomains,
  listIncidents,
  OVERALL,
  uptimeByDay,
} from "./verbs";

export const HOSTING_PATH = "/hosting";
const DOMAINS_PATH = `${HOSTING_PATH}/domains`;
const PER_PAGE = 25;
/** The uptime chart's window, in UTC days ending today. */
export const CHART_DAYS = 30;
/** Latest checks and incidents shown on a domain's page. */
const RECENT = 20;
const DAY = 86_400_000;

type Domain = Awaited<ReturnType<typeof listHostingDomains>>["items"][number];
type Incident = Awaited<ReturnType<typeof listIncidents>>["items"][number];

const domainHref = (id: number) => `${DOMAINS_PATH}/${id}`;

interface Word {
  text: string;
  tone: Tone;
}
/** The domain as a whole (hosting_domains_list's status), in words. */
const OVERALL_WORDS: Record<string, Word> = {
  ok: { text: "healthy", tone: "ok" },
  degraded: { text: "degraded", tone: "warn" },
  down: { text: "down", tone: "danger" },
  pending: { text: "not checked yet", tone: "neutral" },
  paused: { text: "site paused", tone: "neutral" },
};
const DNS_WORDS: Record<string, Word> = {
  ok: { text: "DNS ok", tone: "ok" },
  misconfigured: { text: "DNS points elsewhere", tone: "warn" },
  missing: { text: "DNS record missing", tone: "danger" },
  error: { text: "DNS lookup failed", tone: "danger" },
  unknown: { text: "DNS not checked", tone: "neutral" },
};
const UPTIME_WORDS: Record<string, Word> = {
  up: { text: "up", tone: "ok" },
  failing: { text: "failing", tone: "warn" },
  down: { text: "down", tone: "danger" },
  unknown: { text: "not checked", tone: "neutral" },
};
const word = (table: Record<string, Word>, key: string): Word => table[key] ?? { text: key, tone: "neutral" };

/** The certificate in words, with the days left when it is close to expiry. */
function tlsWord(status: string, expiresAt: string | null, now: number): Word {
  const days = expiresAt ? Math.floor((Date.parse(expiresAt) - now) / DAY) : null;
  switch (status) {
    case "valid":
      return { text: "certificate valid", tone: "ok" };
    case "expiring":
      return { text: days === null ? "certificate expiring" : `certificate expires in ${days} d`, tone: "warn" };
    case "expired":
      return { text: "certificate expired", tone: "danger" };
    case "invalid":
      return { text: "certificate invalid", tone: "danger" };
    case "error":
      return { text: "TLS check failed", tone: "danger" };
    default:
      return { text: "certificate not checked", tone: "neutral" };
  }
}

const Badge = ({ w, title }: { w: Word; title?: string }) =>
  title ? (
    <span title={title}>
      <StatusBadge tone={w.tone}>{w.text}</StatusBadge>
    </span>
  ) : (
    <StatusBadge tone={w.tone}>{w.text}</StatusBadge>
  );

/** "40 min", "3 h 5 min", "2 d 4 h": how long an incident lasted or has lasted. */
export function duration(ms: number): string {
  const min = Math.max(1, Math.round(ms / 60_000));
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  if (h < 48) return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
  const d = Math.floor(h / 24);
  return h % 24 ? `${d} d ${h % 24} h` : `${d} d`;
}

const IncidentsTable = ({ items, id, withHost }: { items: Incident[]; id: string; withHost: boolean }) => (
  <DataTable
    id={id}
    label="Incidents"
    columns={[
      ...(withHost ? ["Domain"] : []),
      "State",
      "Started",
      "Lasted",
      { label: "Cause", hideSm: true },
      { label: "Failed checks", hideSm: true },
    ]}
  >
    {items.map((i) => (
      <tr data-incident={i.id}>
        {withHost && (
          <td>
            <a href={domainHref(i.domainId)}>{i.hostname}</a>
          </td>
        )}
        <td>
          {i.status === "open" ? (
            <StatusBadge tone="danger">open</StatusBadge>
          ) : (
            <StatusBadge tone="ok">resolved</StatusBadge>
          )}
        </td>
        <td class="small">{when(i.startedAt ? new Date(i.startedAt) : null)}</td>
        <td class="small">
          {duration(i.durationMs)}
          {i.status === "open" && " so far"}
        </td>
        <td class="hide-sm prose">{i.cause}</td>
        <td class="hide-sm num">{i.failedChecks}</td>
      </tr>
    ))}
  </DataTable>
);

// ---------------------------------------------------------------------------
// Every domain

async function overviewPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const status = (c.req.query("status") ?? "").trim();
  if (status && !(OVERALL as readonly string[]).includes(status))
    throw invalid(`Status must be one of ${OVERALL.join(", ")}.`);
  const pageNo = pageNoOf(c);
  const [list, open] = await Promise.all([
    listHostingDomains(actor, {
      ...(status ? { status: status as (typeof OVERALL)[number] } : {}),
      limit: PER_PAGE,
      offset: (pageNo - 1) * PER_PAGE,
    }),
    listIncidents(actor, { status: "open", limit: 50, offset: 0 }),
  ]);
  const now = actor.deps.clock.now().getTime();
  const all = Object.values(list.counts).reduce((n, x) => n + x, 0);
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  const href = (st: string, n = 1) => {
    const p = new URLSearchParams({ ...(st ? { status: st } : {}), ...(n > 1 ? { page: String(n) } : {}) });
    return p.size ? `${HOSTING_PATH}?${p}` : HOSTING_PATH;
  };
  return render(
    c,
    <Layout title="Hosting" viewer={viewer} path={HOSTING_PATH}>
      <PageHeader
        title={`Hosting of ${viewer.active!.name}`}
        lead={`${all} site domain${all === 1 ? "" : "s"}, checked every ${actor.deps.config.hosting.intervalSec} s by the server: DNS, certificate and uptime`}
      />
      <div class="stats" id="counts">
        {OVERALL.map((s) => (
          <p class="stat" data-status={s}>
            <span class="stat-n">{list.counts[s] ?? 0}</span>
            <StatusBadge tone={(list.counts[s] ?? 0) > 0 ? OVERALL_WORDS[s]!.tone : "neutral"}>
              {OVERALL_WORDS[s]!.text}
            </StatusBadge>
          </p>
        ))}
      </div>
      <section aria-labelledby="h-open" id="open">
        <h2 id="h-open">Open incidents ({open.total})</h2>
        {open.items.length ? (
          <IncidentsTable items={open.items} id="open-incidents" withHost={true} />
        ) : (
          <div class="card">
            <p class="muted">No open incidents: every checked domain answered its last checks.</p>
          </div>
        )}
      </section>
      <h2>Domains</h2>
      <nav class="tabs" aria-label="Domain status">
        <a href={href("")} aria-current={status === "" ? "page" : undefined}>
          All ({all})
        </a>
        {OVERALL.map((s) => (
          <a href={href(s)} aria-current={status === s ? "page" : undefined}>
            {OVERALL_WORDS[s]!.text} ({list.counts[s] ?? 0})
          </a>
        ))}
      </nav>
      <DataTable
        id="domains"
        label="Domains"
        columns={["Domain", "State", "DNS", "Certificate", { label: "Uptime", hideSm: true }]}
        empty={
          list.items.length === 0 &&
          (status
            ? `No ${OVERALL_WORDS[status]!.text} domains.`
            : "No site domains yet. A site's domains are monitored once they are added.")
        }
      >
        {list.items.map((d: Domain) => (
          <tr data-domain={d.id}>
            <td>
              <a href={domainHref(d.id)}>{d.hostname}</a>
              <div class="muted small">
                {d.site}
                {d.isPrimary && " · primary"}
              </div>
            </td>
            <td class="overall">
              <Badge w={word(OVERALL_WORDS, d.status)} />
            </td>
            <td class="dns">
              <Badge w={word(DNS_WORDS, d.dns)} />
            </td>
            <td class="tls">
              <Badge
                w={tlsWord(d.tls, d.certExpiresAt, now)}
                title={d.certExpiresAt ? `Expires ${when(new Date(d.certExpiresAt))}` : undefined}
              />
            </td>
            <td class="hide-sm uptime">
              <Badge w={word(UPTIME_WORDS, d.uptime)} />
              {d.lastResponseMs !== null && d.uptime === "up" && <span class="small"> {d.lastResponseMs} ms</span>}
              <div class="muted small">checked {when(d.lastCheckedAt ? new Date(d.lastCheckedAt) : null)}</div>
            </td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => href(status, n)} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One domain

async function domainPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const raw = c.req.param("id") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`Domain ${raw.slice(0, 20)} not found.`);
  const id = Number(raw);
  const d = await getHostingDomain(actor, { id });
  const [month, daily, checks, incidents] = await Promise.all([
    getUptime(actor, { id, days: CHART_DAYS }),
    uptimeByDay(actor, { id, days: CHART_DAYS }),
    // The last day's checks only: the total listChecks counts then stays a day's rows, not the whole history.
    listChecks(actor, {
      id,
      since: new Date(actor.deps.clock.now().getTime() - DAY).toISOString(),
      limit: RECENT,
      offset: 0,
    }),
    listIncidents(actor, { domainId: id, limit: RECENT, offset: 0 }),
  ]);
  const u = month.items[0]!;
  const now = actor.deps.clock.now().getTime();
  const chart = await renderChart({
    kind: "line",
    title: `Uptime of ${d.hostname} per day over the last ${CHART_DAYS} days (share of successful checks, %)`,
    categories: daily.map((x) => x.date.slice(5)),
    xLabel: "Day (UTC)",
    yLabel: "Uptime %",
    series: [{ name: "Uptime %", values: daily.map((x) => x.uptimePercent) }],
  });
  const cert = d.certificate;
  return render(
    c,
    <Layout title={d.hostname} viewer={viewer} path={HOSTING_PATH}>
      <p class="crumbs small">
        <a href={HOSTING_PATH}>Hosting</a> / {d.hostname}
      </p>
      <h1>
        {d.hostname} <Badge w={word(OVERALL_WORDS, d.status)} />
      </h1>
      <p class="lead">
        {d.site}
        {d.isPrimary && " · primary domain"} · <Badge w={word(DNS_WORDS, d.dns)} />{" "}
        <Badge w={tlsWord(d.tls, d.certExpiresAt, now)} /> · uptime <Badge w={word(UPTIME_WORDS, d.uptime)} />
      </p>
      {d.openIncident && (
        <div class="notice error" role="status" id="open-incident">
          Down since {when(d.openIncident.startedAt ? new Date(d.openIncident.startedAt) : null)} (
          {duration(d.openIncident.durationMs)} so far): {d.openIncident.cause}
        </div>
      )}
      <div class="stats" id="uptime-stats">
        <p class="stat">
          <span class="stat-n">{u.uptimePercent === null ? "—" : `${u.uptimePercent} %`}</span>
          uptime, {CHART_DAYS} days
        </p>
        <p class="stat">
          <span class="stat-n">{u.checks}</span>
          checks, {u.failedChecks} failed
        </p>
        <p class="stat">
          <span class="stat-n">{u.avgResponseMs === null ? "—" : `${u.avgResponseMs} ms`}</span>
          average response (p95 {u.p95ResponseMs ?? "—"} ms)
        </p>
        <p class="stat">
          <span class="stat-n">{u.incidents}</span>
          incident{u.incidents === 1 ? "" : "s"}, {u.downtimeMs ? duration(u.downtimeMs) : "no"} downtime
        </p>
      </div>
      <Chart chart={chart} id="uptime-chart" />
      <div class="card-layout">
        <div class="card-main">
          <section aria-labelledby="h-incidents" id="incidents">
            <h2 id="h-incidents">Incidents</h2>
            {incidents.items.length ? (
              <IncidentsTable items={incidents.items} id="incidents-table" withHost={false} />
            ) : (
              <div class="card">
                <p class="muted">No incidents: three failed checks in a row open one.</p>
              </div>
            )}
          </section>
          <section aria-labelledby="h-checks" id="checks">
            <h2 id="h-checks">Latest checks, last 24 hours</h2>
            <DataTable
              id="checks-table"
              label="Latest checks"
              columns={["Check", "Result", "When", { label: "Detail", hideSm: true }]}
              empty={
                checks.items.length === 0 &&
                "No checks in the last 24 hours: the first runs within a minute of adding the domain."
              }
            >
              {checks.items.map((k) => (
                <tr data-check={k.id}>
                  <td>{k.kind === "http" ? "uptime" : k.kind === "dns" ? "DNS" : "certificate"}</td>
                  <td>
                    <StatusBadge tone={k.ok ? "ok" : "danger"}>{k.status}</StatusBadge>
                  </td>
                  <td class="small">{when(k.checkedAt ? new Date(k.checkedAt) : null)}</td>
                  <td class="hide-sm small">
                    {[
                      k.statusCode !== null && `HTTP ${k.statusCode}`,
                      k.responseMs !== null && `${k.responseMs} ms`,
                      k.error,
                    ]
                      .filter(Boolean)
                      .join(" · ")}
                  </td>
                </tr>
              ))}
            </DataTable>
          </section>
        </div>
        <aside class="card card-side" aria-label="DNS and certificate">
          <h2 class="small-h">DNS</h2>
          <dl class="facts" id="dns">
            <dt>State</dt>
            <dd>
              <Badge w={word(DNS_WORDS, d.dnsCheck.status)} />
            </dd>
            <dt>Needs</dt>
            <dd class="small">
              {d.dnsCheck.required.map((r) => (
                <div>
                  <code>
                    {r.type} {r.value}
                  </code>
                </div>
              ))}
            </dd>
            <dt>Found</dt>
            <dd class="small">
              {d.dnsCheck.found.length
                ? d.dnsCheck.found.map((r) => (
                    <div>
                      <code>
                        {r.type} {r.value}
                      </code>
                    </div>
                  ))
                : "nothing"}
            </dd>
            {d.dnsCheck.error && (
              <>
                <dt>Error</dt>
                <dd class="small">{d.dnsCheck.error}</dd>
              </>
            )}
          </dl>
          <h2 class="small-h">Certificate</h2>
          <dl class="facts" id="certificate">
            <dt>State</dt>
            <dd>
              <Badge w={tlsWord(cert.status, cert.expiresAt, now)} />
            </dd>
            <dt>Expires</dt>
            <dd class="small">
              {when(cert.expiresAt ? new Date(cert.expiresAt) : null)}
              {cert.daysLeft !== null && ` (${cert.daysLeft} d)`}
            </dd>
            <dt>Issuer</dt>
            <dd class="small">{cert.issuer ?? "—"}</dd>
            {cert.error && (
              <>
                <dt>Error</dt>
                <dd class="small">{cert.error}</dd>
              </>
            )}
          </dl>
          <h2 class="small-h">Uptime check</h2>
          <dl class="facts">
            <dt>URL</dt>
            <dd class="small">{d.uptimeCheck.url}</dd>
            <dt>Last</dt>
            <dd class="small">
              {when(d.uptimeCheck.lastCheckedAt ? new Date(d.uptimeCheck.lastCheckedAt) : null)}
              {d.uptimeCheck.lastStatusCode !== null && ` · HTTP ${d.uptimeCheck.lastStatusCode}`}
            </dd>
            <dt>Next</dt>
            <dd class="small">{when(d.uptimeCheck.nextCheckAt ? new Date(d.uptimeCheck.nextCheckAt) : null)}</dd>
          </dl>
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Routes

export function hostingPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(HOSTING_PATH, overviewPage);
  app.get(`${DOMAINS_PATH}/:id`, domainPage);
}
