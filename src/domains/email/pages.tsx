/**
 * Email in the portal (issue 31, the email page set): the mailing lists
 * with their subscriber counts and the campaigns with their state (and the
 * approval page while one waits for a person), a list's subscribers, and a
 * campaign's audience and results over time as charts with their figures.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listLists, getList, listSubscribers, listCampaigns, getCampaign,
 * campaignStats, pauseCampaign, resumeCampaign, cancelCampaign), called as
 * the signed-in person (actorOf): the role, the email scopes and the
 * company's tenancy are checked where they are for an agent. Owners and
 * admins get the pause / resume / cancel forms a campaign's state allows;
 * viewers read, and a post of theirs is refused by the verbs' own check
 * (403). A list or campaign id of another company is "not found" inside
 * the lookup (404). Sending and scheduling stay with the tools: a campaign
 * goes out after a person approved it, and that page is the approval's.
 *
 * Results over time: the stats verb counts a campaign's totals, not when
 * they happened, so the page counts, after campaignStats has checked the
 * read and found the campaign in the company, how many of its messages
 * had been sent, delivered, bounced, opened, clicked and unsubscribed by
 * each step of time since the send started (the span, then one grouped
 * pass counted in the database, whatever the audience). The last step's figures are the stats'
 * own. Opens come from an image loaded by the reader's mail client, so the
 * page says "estimated" beside them whenever the stats say so.
 */
import { and, count, eq, inArray, max, min, type SQL, type SQLWrapper, sql } from "drizzle-orm";
import type { Context, Hono } from "hono";
import type { ActorContext, Deps } from "../../core/context";
import { engine } from "../../core/engine";
import { invalid, isAppError, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { StatusBadge, type Tone } from "../../ui/badge";
import { Chart, type RenderedChart, renderChart } from "../../ui/chart";
import { FilterSelect } from "../../ui/filters";
import { when } from "../../ui/format";
import { Csrf, DangerButton } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import { MEMBER_STATUSES, type MemberStatus } from "./access";
import { cancelCampaign, campaignStats, getCampaign, listCampaigns, pauseCampaign, resumeCampaign } from "./campaigns";
import { getList, listLists } from "./lists";
import { listSubscribers } from "./subscribers";
import { emailSends } from "./tables";

export const EMAIL_PATH = "/email";
const PER_PAGE = 20;
const SUBSCRIBERS_PAGE = 25;
const MAX_SEARCH = 200;
const HOUR = 3_600_000;
/** Steps of the results chart, the smallest that keeps it to at most MAX_STEPS points. */
const STEPS = [HOUR, 3 * HOUR, 6 * HOUR, 12 * HOUR, 24 * HOUR, 48 * HOUR, 7 * 24 * HOUR, 30 * 24 * HOUR];
const MAX_STEPS = 12;

const listHref = (id: number) => `${EMAIL_PATH}/lists/${id}`;
const campaignHref = (id: number) => `${EMAIL_PATH}/campaigns/${id}`;

/** An id from the path ("12"); anything else is a plain 404, never a lookup of text we cannot hold. */
function idOf(c: Context<PageEnv>, what: string): number {
  const raw = c.req.param("id") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`${what} ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}
const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString("en-US")} ${n === 1 ? one : many}`;
const num = (n: number) => n.toLocaleString("en-US");

// ---------------------------------------------------------------------------
// States in words and colour

const CAMPAIGN_STATE: Record<string, { text: string; tone: Tone }> = {
  draft: { text: "draft", tone: "neutral" },
  pending_approval: { text: "awaiting approval", tone: "warn" },
  scheduled: { text: "scheduled", tone: "unread" },
  sending: { text: "sending", tone: "unread" },
  sent: { text: "sent", tone: "ok" },
  paused: { text: "paused", tone: "warn" },
  cancelled: { text: "cancelled", tone: "danger" },
};
/** A campaign's state badge; an approved draft says "approved draft", so "ready to send" is in words. */
const CampaignState = ({ status, approved }: { status: string; approved: boolean }) => {
  const s = CAMPAIGN_STATE[status] ?? { text: status, tone: "neutral" as Tone };
  return status === "draft" && approved ? (
    <StatusBadge tone="ok">approved draft</StatusBadge>
  ) : (
    <StatusBadge tone={s.tone}>{s.text}</StatusBadge>
  );
};
const MEMBER_TONE: Record<string, Tone> = {
  subscribed: "ok",
  unconfirmed: "neutral",
  unsubscribed: "neutral",
  bounced: "danger",
  complained: "danger",
};

const NOTICES: Record<string, string> = {
  paused: "Campaign paused: nothing more is sent until it resumes.",
  resumed: "Campaign resumed.",
  cancelled: "Campaign cancelled: the messages not yet sent will not be.",
};

// ---------------------------------------------------------------------------
// Lists and campaigns

type CampaignItem = Awaited<ReturnType<typeof listCampaigns>>["items"][number] & {
  subject?: string;
  scheduledAt?: string | null;
  recipients?: number;
  startedAt?: string | null;
  finishedAt?: string | null;
};

/** When a campaign went or goes out, in words for its state. */
function timing(c: CampaignItem): string {
  if (c.status === "scheduled" && c.scheduledAt) return `for ${when(new Date(c.scheduledAt))}`;
  if (c.finishedAt && c.status === "sent") return `sent ${when(new Date(c.finishedAt))}`;
  if (c.startedAt) return `started ${when(new Date(c.startedAt))}`;
  return "—";
}

async function overviewPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const lpage = pageNoOf(c, "lists");
  const cpage = pageNoOf(c, "campaigns");
  const [lists, campaigns] = await Promise.all([
    listLists(actor, { limit: PER_PAGE, offset: (lpage - 1) * PER_PAGE }),
    listCampaigns(actor, { limit: PER_PAGE, offset: (cpage - 1) * PER_PAGE }),
  ]);
  // The approval page of each campaign waiting for a person (getCampaign reads its latest link, in the company).
  const approvals = new Map<number, number>();
  for (const k of campaigns.items)
    if (k.status === "pending_approval") {
      const a = (await getCampaign(actor, { id: k.id })).approvalState;
      if (a && a.status === "pending") approvals.set(k.id, a.id);
    }
  const href = (l: number, cp: number) => {
    const p = new URLSearchParams();
    if (l > 1) p.set("lists", String(l));
    if (cp > 1) p.set("campaigns", String(cp));
    const s = p.toString();
    return s ? `${EMAIL_PATH}?${s}` : EMAIL_PATH;
  };
  return render(
    c,
    <Layout title="Email" viewer={viewer} path={EMAIL_PATH}>
      <PageHeader
        title={`Email of ${viewer.active!.name}`}
        lead={`${plural(lists.total, "mailing list")} and ${plural(campaigns.total, "campaign")}`}
      />
      <h2 id="h-campaigns">Campaigns</h2>
      <DataTable
        id="campaigns"
        label="Campaigns"
        columns={["Campaign", "State", { label: "Recipients", hideSm: true }, { label: "When", hideSm: true }]}
        empty={
          campaigns.items.length === 0 &&
          "No campaigns yet. An agent drafts one with email_campaigns_create; a person approves it before it is sent."
        }
      >
        {(campaigns.items as CampaignItem[]).map((k) => (
          <tr data-campaign={k.id}>
            <td>
              <a href={campaignHref(k.id)}>{k.name}</a>
              {k.subject && <div class="muted small">{k.subject}</div>}
            </td>
            <td>
              <CampaignState status={k.status} approved={k.approved} />
              {approvals.has(k.id) && (
                <div class="small">
                  <a class="approval" href={`/approvals/${approvals.get(k.id)}`}>
                    Review the approval
                  </a>
                </div>
              )}
            </td>
            <td class="hide-sm num">{k.recipients ? num(k.recipients) : "—"}</td>
            <td class="hide-sm small">{timing(k)}</td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={cpage} pages={Math.max(1, Math.ceil(campaigns.total / PER_PAGE))} href={(n) => href(lpage, n)} />
      <h2 id="h-lists">Mailing lists</h2>
      <DataTable
        id="lists"
        label="Mailing lists"
        columns={[
          "List",
          "Subscribed",
          { label: "Unconfirmed", hideSm: true },
          { label: "Unsubscribed", hideSm: true },
          { label: "Bounced or complained", hideSm: true },
        ]}
        empty={lists.items.length === 0 && "No mailing lists yet. An agent makes one with email_lists_create."}
      >
        {lists.items.map((l) => {
          const n = (l.counts ?? {}) as Record<string, number>;
          return (
            <tr data-list={l.id}>
              <td>
                <a href={listHref(l.id)}>{l.name}</a>
                <div class="muted small">{l.optIn === "double" ? "double opt-in" : "single opt-in"}</div>
              </td>
              <td class="num">{num(n.subscribed ?? 0)}</td>
              <td class="hide-sm num">{num(n.unconfirmed ?? 0)}</td>
              <td class="hide-sm num">{num(n.unsubscribed ?? 0)}</td>
              <td class="hide-sm num">{num((n.bounced ?? 0) + (n.complained ?? 0))}</td>
            </tr>
          );
        })}
      </DataTable>
      <Pager pageNo={lpage} pages={Math.max(1, Math.ceil(lists.total / PER_PAGE))} href={(n) => href(n, cpage)} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One list and its subscribers

async function listPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "List");
  const list = await getList(actor, { id });
  const q = (c.req.query("q") ?? "").trim();
  const status = (c.req.query("status") ?? "").trim();
  if (q.length > MAX_SEARCH) throw invalid(`Search must be at most ${MAX_SEARCH} characters.`);
  if (status && !(MEMBER_STATUSES as readonly string[]).includes(status))
    throw invalid(`Status must be one of ${MEMBER_STATUSES.join(", ")}.`);
  const pageNo = pageNoOf(c);
  const subs = await listSubscribers(actor, {
    listId: id,
    ...(status ? { status: status as MemberStatus } : {}),
    ...(q ? { search: q } : {}),
    limit: SUBSCRIBERS_PAGE,
    offset: (pageNo - 1) * SUBSCRIBERS_PAGE,
  });
  const counts = (list.counts ?? {}) as Record<string, number>;
  const filtered = Boolean(q || status);
  const href = (n: number) => {
    const p = new URLSearchParams();
    if (q) p.set("q", q);
    if (status) p.set("status", status);
    if (n > 1) p.set("page", String(n));
    const s = p.toString();
    return s ? `${listHref(id)}?${s}` : listHref(id);
  };
  return render(
    c,
    <Layout title={list.name} viewer={viewer} path={EMAIL_PATH}>
      <p class="crumbs small">
        <a href={EMAIL_PATH}>Email</a> / Mailing lists
      </p>
      <PageHeader
        title={list.name}
        lead={`${list.optIn === "double" ? "Double" : "Single"} opt-in · created ${when(new Date(list.createdAt!))}`}
      />
      {list.description && <p class="prose">{list.description}</p>}
      <div class="stats">
        {(["subscribed", "unconfirmed", "unsubscribed", "bounced", "complained"] as const).map((s) => (
          <p class="stat" data-status={s}>
            <span class="stat-n">{num(counts[s] ?? 0)}</span> <span class="muted small">{s}</span>
          </p>
        ))}
      </div>
      <form class="card grid-form" method="get" action={listHref(id)} id="filters" aria-label="Find subscribers">
        <div>
          <label for="f-q">Email or name</label>
          <input id="f-q" type="text" name="q" value={q} maxlength={MAX_SEARCH} />
        </div>
        <FilterSelect
          name="status"
          label="Status on this list"
          value={status}
          options={[["", "Any status"], ...MEMBER_STATUSES.map((s): [string, string] => [s, s])]}
        />
        <div class="actions wide-field">
          <button type="submit">Find</button>
          {filtered && (
            <a class="button secondary" href={listHref(id)}>
              Clear
            </a>
          )}
        </div>
      </form>
      <DataTable
        id="subscribers"
        label="Subscribers"
        columns={["Subscriber", "Status", { label: "Other lists", hideSm: true }, { label: "Added", hideSm: true }]}
        empty={
          subs.items.length === 0 && (filtered ? "No subscribers of this list match." : "Nobody is on this list yet.")
        }
        footer={
          subs.total > 0 && (
            <p class="muted small">
              {plural(subs.total, "subscriber")}
              {filtered ? " match" : ""}, newest first.
            </p>
          )
        }
      >
        {subs.items.map((s) => {
          const here = s.lists.find((m) => m.listId === id);
          const others = s.lists.filter((m) => m.listId !== id);
          return (
            <tr data-subscriber={s.id}>
              <td>
                <span>{s.email}</span>
                {s.name && <div class="muted small">{s.name}</div>}
              </td>
              <td>
                <StatusBadge tone={MEMBER_TONE[here?.status ?? ""] ?? "neutral"}>{here?.status ?? "—"}</StatusBadge>
                {s.blocklisted && (
                  <div>
                    <StatusBadge tone="danger">blocklisted</StatusBadge>
                  </div>
                )}
              </td>
              <td class="hide-sm small">
                {others.length ? others.map((m) => `${m.listName} (${m.status})`).join(", ") : "—"}
              </td>
              <td class="hide-sm small">{when(new Date(s.createdAt!))}</td>
            </tr>
          );
        })}
      </DataTable>
      <Pager pageNo={pageNo} pages={Math.max(1, Math.ceil(subs.total / SUBSCRIBERS_PAGE))} href={href} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One campaign: audience, state, results over time

type Stats = Awaited<ReturnType<typeof campaignStats>>;

/** Steps from the start of sending to the last thing that happened, at most MAX_STEPS of them. */
export function stepsBetween(start: number, end: number): { from: number; step: number; ends: number[] } {
  const from = Math.floor(start / HOUR) * HOUR;
  const span = Math.max(end - from, 1);
  const step = STEPS.find((s) => Math.ceil(span / s) <= MAX_STEPS) ?? STEPS[STEPS.length - 1]!;
  const n = Math.min(MAX_STEPS, Math.max(1, Math.ceil(span / step)));
  return { from, step, ends: Array.from({ length: n }, (_, i) => from + (i + 1) * step) };
}

/** "11-21 14:00" for hourly steps, "11-21" for daily ones: the end of each step, UTC. */
const stepLabel = (ms: number, step: number) => {
  const iso = new Date(ms).toISOString();
  return step < 24 * HOUR ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(5, 10);
};

/** "hour", "3 hours", "day", "7 days": a step of the chart in words. */
const stepWords = (step: number) =>
  step < 24 * HOUR
    ? step === HOUR
      ? "hour"
      : `${step / HOUR} hours`
    : step === 24 * HOUR
      ? "day"
      : `${step / (24 * HOUR)} days`;

/**
 * The step a time falls in, counted in the database: 0 for (from, from + step],
 * 1 for the next, and so on (a time at or before `from` is step 0). The one
 * fragment that differs by engine: SQLite keeps times as epoch milliseconds,
 * PostgreSQL as timestamptz.
 */
function stepOf(col: SQLWrapper, from: number, step: number): SQL<number> {
  return (
    engine() === "pg"
      ? sql`floor((extract(epoch from ${col}) * 1000 - ${from}::bigint - 1) / ${step}::bigint)::int`
      : sql`cast((${col} - ${from} - 1) / ${step} as integer)`
  ).mapWith(Number) as SQL<number>;
}

/**
 * How many of the campaign's messages had been sent (handed to the mail
 * server: delivered, bounced or failed), delivered, bounced, opened,
 * clicked and unsubscribed by the end of each step. Runs after
 * campaignStats (the read check and the company's lookup); the queries are
 * held to the company too. The database counts the messages per status and
 * step of each time (one pass, grouped: a campaign to 50,000 people comes
 * back as a few hundred groups, not 50,000 rows), and the page adds the
 * steps up.
 */
async function resultsOverTime(c: Context<PageEnv>, stats: Stats) {
  const db = actorOf(c).deps.db;
  const mine = and(
    eq(emailSends.companyId, actorOf(c).company.id),
    eq(emailSends.campaignId, stats.id),
    eq(emailSends.kind, "campaign"),
  );
  const t = emailSends;
  const done = inArray(t.status, ["bounced", "failed"]);
  const span = (
    await db
      .select({
        firstSent: min(t.sentAt),
        lastSent: max(t.sentAt),
        lastOpen: max(t.openedAt),
        lastClick: max(t.clickedAt),
        lastUnsub: max(t.unsubscribedAt),
        lastDone: max(sql`case when ${done} then ${t.updatedAt} end`).mapWith(t.updatedAt),
      })
      .from(t)
      .where(mine)
  )[0]!;
  const ms = (d: unknown) => (d instanceof Date ? d.getTime() : null);
  const start = stats.startedAt ? Date.parse(stats.startedAt) : ms(span.firstSent);
  const ends = [span.lastSent, span.lastOpen, span.lastClick, span.lastUnsub, span.lastDone]
    .map(ms)
    .filter((x): x is number => x !== null);
  if (start === null || ends.length === 0) return null;
  const { from, step, ends: bounds } = stepsBetween(start, Math.max(...ends));
  // One pass over the campaign's messages: how many share each combination of status and steps.
  const k = {
    status: t.status,
    sent: stepOf(t.sentAt, from, step),
    done: stepOf(sql`case when ${done} then ${t.updatedAt} end`, from, step),
    opened: stepOf(t.openedAt, from, step),
    clicked: stepOf(t.clickedAt, from, step),
    unsubscribed: stepOf(t.unsubscribedAt, from, step),
  };
  const groups = await db
    .select({ ...k, n: count() })
    .from(t)
    .where(mine)
    // By position: PostgreSQL matches a grouped expression to the selected one by its text, and the bound
    // parameters in them are numbered apart ($1 there, $16 here), so the expressions would not match.
    .groupBy(sql`1, 2, 3, 4, 5, 6`);
  const zero = () => bounds.map(() => 0);
  const per = {
    sent: zero(),
    delivered: zero(),
    bounced: zero(),
    opened: zero(),
    clicked: zero(),
    unsubscribed: zero(),
  };
  const add = (xs: number[], at: number | null, n: number) => {
    if (at !== null) xs[Math.min(Math.max(Number(at), 0), bounds.length - 1)]! += n;
  };
  for (const g of groups) {
    const n = Number(g.n);
    // Sent: handed to the mail server (its send time), or refused there (bounced, failed: when that was recorded).
    add(per.sent, g.sent ?? g.done, n);
    if (g.status === "sent") add(per.delivered, g.sent, n);
    if (g.status === "bounced") add(per.bounced, g.done, n);
    add(per.opened, g.opened, n);
    add(per.clicked, g.clicked, n);
    add(per.unsubscribed, g.unsubscribed, n);
  }
  const running = (xs: number[]) => {
    let sum = 0;
    return xs.map((x) => {
      sum += x;
      return sum;
    });
  };
  const figures: Record<string, number[]> = Object.fromEntries(
    Object.entries(per).map(([key, xs]) => [key, running(xs)]),
  );
  return { categories: bounds.map((b) => stepLabel(b, step)), step, series: (key: string) => figures[key]! };
}

async function campaignPage(c: Context<PageEnv>, extra: { error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "Campaign");
  const k = await getCampaign(actor, { id });
  const stats = await campaignStats(actor, { id });
  // The campaign's lists by name: each looked up in the company (a list deleted since says so).
  const lists = await Promise.all(
    k.listIds.map(async (listId) => {
      try {
        return { id: listId, name: (await getList(actor, { id: listId })).name };
      } catch (e) {
        if (isAppError(e) && e.code === "not_found") return { id: listId, name: null };
        throw e;
      }
    }),
  );
  const over = await resultsOverTime(c, stats);
  const estimated = stats.estimated.includes("opened");
  const openedName = estimated ? "Opened (est.)" : "Opened";
  let delivery: RenderedChart | null = null;
  let engagement: RenderedChart | null = null;
  if (over) {
    const xLabel = over.step === HOUR ? "Hour (UTC)" : over.step === 24 * HOUR ? "Day (UTC)" : "Time (UTC)";
    delivery = await renderChart({
      kind: "line",
      title: "Delivery over time: messages sent, delivered and bounced so far",
      categories: over.categories,
      xLabel,
      yLabel: "Messages",
      series: [
        { name: "Sent", values: over.series("sent") },
        { name: "Delivered", values: over.series("delivered") },
        { name: "Bounced", values: over.series("bounced") },
      ],
    });
    engagement = await renderChart({
      kind: "line",
      title: "Engagement over time: people who opened, clicked and unsubscribed so far",
      categories: over.categories,
      xLabel,
      yLabel: "People",
      series: [
        ...(stats.opened !== null ? [{ name: openedName, values: over.series("opened") }] : []),
        ...(stats.clicked !== null ? [{ name: "Clicked", values: over.series("clicked") }] : []),
        { name: "Unsubscribed", values: over.series("unsubscribed") },
      ],
    });
  }
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const here = campaignHref(k.id);
  const pct = (x: number | null) => (x === null ? "" : ` · ${x.toLocaleString("en-US")} %`);
  const canPause = k.status === "sending" || k.status === "scheduled";
  const canResume = k.status === "paused";
  const canCancel = ["scheduled", "sending", "paused"].includes(k.status);
  const approval = k.approvalState;
  return render(
    c,
    <Layout title={k.name} viewer={viewer} path={EMAIL_PATH}>
      <p class="crumbs small">
        <a href={EMAIL_PATH}>Email</a> / Campaigns
      </p>
      <h1>{k.name}</h1>
      <p class="lead">
        <CampaignState status={k.status} approved={k.approved} /> <span>{k.subject}</span>
      </p>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      {k.status === "pending_approval" && approval?.status === "pending" && (
        <Notice kind="warn">
          This campaign waits for a person's approval before it can be sent.{" "}
          <a class="approval" href={`/approvals/${approval.id}`}>
            Review the approval
          </a>
        </Notice>
      )}
      {(stats.recipients > 0 || k.startedAt) && (
        <div class="stats" id="totals">
          <p class="stat" data-figure="recipients">
            <span class="stat-n">{num(stats.recipients)}</span> <span class="muted small">recipients</span>
          </p>
          <p class="stat" data-figure="delivered">
            <span class="stat-n">{num(stats.delivered)}</span> <span class="muted small">delivered</span>
          </p>
          {stats.opened !== null && (
            <p class="stat" data-figure="opened">
              <span class="stat-n">{num(stats.opened)}</span>{" "}
              <span class="muted small">
                opened{pct(stats.openRate)}
                {estimated && " (estimated)"}
              </span>
            </p>
          )}
          {stats.clicked !== null && (
            <p class="stat" data-figure="clicked">
              <span class="stat-n">{num(stats.clicked)}</span>{" "}
              <span class="muted small">clicked{pct(stats.clickRate)}</span>
            </p>
          )}
          <p class="stat" data-figure="bounced">
            <span class="stat-n">{num(stats.bounced)}</span> <span class="muted small">bounced</span>
          </p>
          <p class="stat" data-figure="unsubscribed">
            <span class="stat-n">{num(stats.unsubscribed)}</span>{" "}
            <span class="muted small">unsubscribed{pct(stats.unsubscribeRate)}</span>
          </p>
        </div>
      )}
      {manage && (canPause || canResume || canCancel) && (
        <div class="actions" id="campaign-actions">
          {canPause && (
            <form class="inline" method="post" action={`${here}/pause`}>
              <Csrf viewer={viewer} />
              <button class="secondary" type="submit">
                {k.status === "scheduled" ? "Pause the schedule" : "Pause sending"}
              </button>
            </form>
          )}
          {canResume && (
            <form class="inline" method="post" action={`${here}/resume`}>
              <Csrf viewer={viewer} />
              <button type="submit">Resume</button>
            </form>
          )}
          {canCancel && (
            <DangerButton
              viewer={viewer}
              action={`${here}/cancel`}
              label={k.status === "scheduled" ? "Cancel the schedule" : "Cancel the campaign"}
            />
          )}
        </div>
      )}
      {!manage && <p class="muted small">You can read this campaign; owners and admins pause and cancel it.</p>}
      <h2>Results over time</h2>
      {delivery && engagement ? (
        <>
          <Chart chart={delivery} id="delivery" />
          <Chart chart={engagement} id="engagement" />
          <p class="muted small" id="counting">
            Each point counts everything up to the end of its {stepWords(over!.step)} (UTC).
            {estimated &&
              " Opens are estimated: they are counted when the reader's mail client loads a tracking image, which some clients block and some (Apple Mail's privacy protection) load for every message, read or not."}
            {stats.opened === null && " Opens are not tracked for this campaign."}
            {stats.clicked === null && " Clicks are not tracked for this campaign."}
          </p>
        </>
      ) : (
        <p class="muted" id="no-results">
          Nothing sent yet: the results show here once sending starts.
        </p>
      )}
      <h2 id="h-details">Details</h2>
      <section class="card" aria-labelledby="h-details" id="details">
        <dl class="facts">
          <dt>State</dt>
          <dd>
            <CampaignState status={k.status} approved={k.approved} />
          </dd>
          <dt>Lists</dt>
          <dd id="audience-lists">
            {lists.map((l, i) => (
              <>
                {i > 0 && ", "}
                {l.name === null ? (
                  <span class="muted">list {l.id} (deleted)</span>
                ) : (
                  <a href={listHref(l.id)}>{l.name}</a>
                )}
              </>
            ))}
          </dd>
          {k.segmentIds.length > 0 && (
            <>
              <dt>Segments</dt>
              <dd class="small">narrowed by {plural(k.segmentIds.length, "segment")}</dd>
            </>
          )}
          {k.audience !== null && (
            <>
              <dt>Audience now</dt>
              <dd>{plural(k.audience, "subscriber")}</dd>
            </>
          )}
          <dt>From</dt>
          <dd class="small">
            {k.fromName && <div>{k.fromName}</div>}
            <div>{k.fromEmail}</div>
          </dd>
          {k.preheader && (
            <>
              <dt>Preheader</dt>
              <dd class="small">{k.preheader}</dd>
            </>
          )}
          <dt>Approval</dt>
          <dd class="small">
            {k.approvedAt
              ? `approved ${when(new Date(k.approvedAt))}${k.approvedBy ? ` by ${k.approvedBy}` : ""}`
              : approval
                ? approval.status
                : "not asked"}
          </dd>
          {k.scheduledAt && (
            <>
              <dt>Scheduled</dt>
              <dd class="small">
                {when(new Date(k.scheduledAt))}
                {k.timeZone && ` (${k.timeZone})`}
              </dd>
            </>
          )}
          <dt>Started</dt>
          <dd class="small">{when(k.startedAt ? new Date(k.startedAt) : null)}</dd>
          <dt>Finished</dt>
          <dd class="small">{when(k.finishedAt ? new Date(k.finishedAt) : null)}</dd>
          <dt>Tracking</dt>
          <dd class="small">
            {[k.trackOpens && "opens", k.trackClicks && "clicks"].filter(Boolean).join(" and ") || "none"}
          </dd>
        </dl>
      </section>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Routes

export function emailPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(EMAIL_PATH, overviewPage);
  app.get(`${EMAIL_PATH}/lists/:id`, listPage);
  app.get(`${EMAIL_PATH}/campaigns/:id`, (c) => campaignPage(c));

  const act =
    (verb: (ctx: ActorContext, i: { id: number }) => Promise<unknown>, done: string) =>
    async (c: Context<PageEnv>): Promise<Response> => {
      // Who may act comes before which campaign: a viewer is refused (403) whatever the path names.
      const actor = actorOf(c);
      authorize(actor, "email:write", { write: true });
      authorize(actor, "email:send", { write: true });
      const id = idOf(c, "Campaign");
      try {
        await verb(actor, { id });
      } catch (e) {
        // A state the campaign has left meanwhile (already cancelled, sent): the page again, with the verb's reason.
        if (!isAppError(e) || e.code !== "conflict") throw e;
        const page = await campaignPage(c, { error: e.message });
        return new Response(page.body, { status: 409, headers: page.headers });
      }
      return c.redirect(`${campaignHref(id)}?done=${done}`, 303);
    };
  app.post(`${EMAIL_PATH}/campaigns/:id/pause`, act(pauseCampaign, "paused"));
  app.post(`${EMAIL_PATH}/campaigns/:id/resume`, act(resumeCampaign, "resumed"));
  app.post(`${EMAIL_PATH}/campaigns/:id/cancel`, act(cancelCampaign, "cancelled"));
}
