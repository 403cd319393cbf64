/**
 * Automations and outgoing webhooks in the portal (issue 31): the
 * automations with their state, trigger and last run; one automation with
 * its definition and its runs; one run with each step's input, output and
 * error; and the webhook subscriptions with their recent deliveries.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listAutomations, getAutomation, listRuns, getRun,
 * toggleAutomation, retryRun, listWebhooks, listDeliveries, redeliver),
 * called as the signed-in person (actorOf), so role, scope and tenancy are
 * checked where they are for an agent: an id of another company is "not
 * found" inside the lookup (404), and a viewer's post is refused by the
 * verb's role check (403). Owners and admins get the forms (turn on or off,
 * retry a failed run, deliver again); viewers read.
 *
 * Step inputs and outputs are whatever the tools took and answered, text an
 * agent or a visitor may have written included: they are shown as pretty
 * JSON inside <pre>, escaped by Hono's JSX, never as markup. The run's
 * shape is read defensively (a step of a kind this page does not know still
 * shows its fields), since the runner grows new kinds of steps.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { StatusBadge, type Tone } from "../../ui/badge";
import { answerForm } from "../../ui/form-answer";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, type Viewer, viewerOf } from "../../ui/signed-in";
import { DataTable, EmptyState } from "../../ui/table";
import { getAutomation, getRun, listAutomations, listRuns, retryRun, toggleAutomation } from "./automations";
import { listDeliveries, listWebhooks, redeliver } from "./webhooks";

export const AUTOMATIONS_PATH = "/automations";
const RUNS_PATH = `${AUTOMATIONS_PATH}/runs`;
const WEBHOOKS_PATH = `${AUTOMATIONS_PATH}/webhooks`;
const PER_PAGE = 25;
const RUNS_PER_PAGE = 20;
const WEBHOOKS_PER_PAGE = 10;
/** Recent deliveries shown under each subscription. */
const RECENT_DELIVERIES = 10;
/** A step's JSON longer than this is cut, saying so: a page stays readable when a tool answered megabytes. */
const MAX_JSON = 20_000;

type Actor = ReturnType<typeof actorOf>;
type Automation = Awaited<ReturnType<typeof getAutomation>>;
type RunItem = Awaited<ReturnType<typeof listRuns>>["items"][number];
type Webhook = Awaited<ReturnType<typeof listWebhooks>>["items"][number];
/** One step of a run as stored (StepRecord), read loosely: new kinds of steps add fields. */
interface Step {
  index?: number;
  type?: string;
  status?: string;
  input?: unknown;
  output?: unknown;
  error?: string | null;
  startedAt?: string;
  finishedAt?: string;
  [field: string]: unknown;
}

const automationHref = (id: number) => `${AUTOMATIONS_PATH}/${id}`;
const runHref = (id: number) => `${RUNS_PATH}/${id}`;

const RUN_TONE: Record<string, Tone> = {
  queued: "unread",
  running: "warn",
  waiting: "unread",
  succeeded: "ok",
  failed: "danger",
  skipped: "neutral",
};
const DELIVERY_TONE: Record<string, Tone> = { pending: "warn", succeeded: "ok", failed: "danger" };
const words = (s: string) => s.replace(/_/g, " ");

/** An id from the path ("12"); anything else is a plain 404, never a lookup of text we cannot hold. */
function idOf(c: Context<PageEnv>, what: string): number {
  const raw = c.req.param("id") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`${what} ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}
const withPage = (path: string, n: number) => (n > 1 ? `${path}?page=${n}` : path);

/** Pretty JSON of what a step took or gave, cut past MAX_JSON; undefined and null read "—". */
export function pretty(x: unknown): string {
  if (x === undefined || x === null) return "—";
  const s = typeof x === "string" ? x : (JSON.stringify(x, null, 2) ?? String(x));
  return s.length > MAX_JSON ? `${s.slice(0, MAX_JSON)}\n… (${s.length - MAX_JSON} more characters)` : s;
}

/** A trigger in words: "event post.published", "schedule 0 9 * * 1 (Europe/Paris)", "incoming webhook". */
function triggerText(t: Automation["trigger"]): string {
  if (t.type === "event") return `event ${t.eventType}`;
  if (t.type === "schedule") return `schedule ${t.cron} (${t.timeZone})`;
  if (t.type === "webhook") return "incoming webhook";
  return words(String((t as { type?: unknown }).type ?? "unknown"));
}

const OnOff = ({ enabled }: { enabled: boolean }) => (
  <StatusBadge tone={enabled ? "ok" : "neutral"}>{enabled ? "on" : "off"}</StatusBadge>
);

const Tabs = ({ at }: { at: "automations" | "webhooks" }) => (
  <nav class="tabs" aria-label="Automations and webhooks">
    <a href={AUTOMATIONS_PATH} aria-current={at === "automations" ? "page" : undefined}>
      Automations
    </a>
    <a href={WEBHOOKS_PATH} aria-current={at === "webhooks" ? "page" : undefined}>
      Outgoing webhooks
    </a>
  </nav>
);

const NOTICES: Record<string, string> = {
  on: "Turned on: it runs on its trigger from now.",
  off: "Turned off: it no longer runs.",
  retried: "Queued again: the run resumes at the step that failed.",
  redelivered: "Queued again with a fresh set of retries.",
};

/** A one-button form of an action on this page set, CSRF token first. */
const ActionForm = (p: {
  viewer: Viewer;
  action: string;
  label: string;
  id?: string;
  secondary?: boolean;
  children?: unknown;
}) => (
  <form class="inline" method="post" action={p.action} id={p.id}>
    <Csrf viewer={p.viewer} />
    {p.children as never}
    <button class={p.secondary ? "secondary" : undefined} type="submit">
      {p.label}
    </button>
  </form>
);

/**
 * Runs a form's verb after the verb's own role check (a viewer is refused
 * whatever the form holds); a conflict (a run that is no longer failed) or a
 * refusal the person can act on re-shows the page with the reason.
 */
async function attempt(
  c: Context<PageEnv>,
  act: () => Promise<string>,
  again: (error: string) => Promise<Response>,
): Promise<Response> {
  authorize(actorOf(c), "automations:write", { write: true });
  return answerForm(c, act, again);
}

// ---------------------------------------------------------------------------
// The automations

/** Each listed automation's latest run, through listRuns (one page of one). */
async function lastRuns(actor: Actor, ids: number[]): Promise<Map<number, RunItem>> {
  const out = new Map<number, RunItem>();
  for (const id of ids) {
    const r = (await listRuns(actor, { automationId: id, limit: 1, offset: 0 })).items[0];
    if (r) out.set(id, r);
  }
  return out;
}

async function automationsPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const pageNo = pageNoOf(c);
  const list = await listAutomations(actor, { limit: PER_PAGE, offset: (pageNo - 1) * PER_PAGE });
  const last = await lastRuns(
    actor,
    list.items.map((a) => a.id),
  );
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  return render(
    c,
    <Layout title="Automations" viewer={viewer} path={AUTOMATIONS_PATH}>
      <PageHeader
        title={`Automations of ${viewer.active!.name}`}
        lead="What runs by itself: on an event, on a schedule or on an incoming webhook, with the rights of whoever made it."
      />
      <Tabs at="automations" />
      <DataTable
        id="automations"
        label="Automations"
        columns={["Automation", "State", { label: "Trigger", hideSm: true }, "Last run"]}
        empty={list.items.length === 0 && "No automations yet. Agents make them with automations_create."}
      >
        {list.items.map((a) => {
          const r = last.get(a.id);
          return (
            <tr data-automation={a.id}>
              <td>
                <a href={automationHref(a.id)}>{a.name}</a>
                <div class="muted small">
                  version {a.version} · {a.actions} step{a.actions === 1 ? "" : "s"}
                </div>
              </td>
              <td>
                <OnOff enabled={a.enabled} />
              </td>
              <td class="hide-sm small">{triggerText(a.trigger)}</td>
              <td class="last-run">
                {r ? (
                  <>
                    <a href={runHref(r.id)}>
                      <StatusBadge tone={RUN_TONE[r.status] ?? "neutral"}>{r.status}</StatusBadge>
                    </a>
                    <div class="muted small">{when(new Date(r.createdAt ?? a.lastRunAt ?? 0))}</div>
                  </>
                ) : (
                  <span class="muted">never</span>
                )}
              </td>
            </tr>
          );
        })}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => withPage(AUTOMATIONS_PATH, n)} />
    </Layout>,
  );
}

const RunsTable = ({ runs, showAutomation }: { runs: RunItem[]; showAutomation?: boolean }) => (
  <DataTable
    id="runs"
    label="Runs"
    columns={[
      "Run",
      "Status",
      { label: "Trigger", hideSm: true },
      { label: "Started", hideSm: true },
      "Error",
      ...(showAutomation ? ["Automation"] : []),
    ]}
    empty={runs.length === 0 && "No runs yet."}
  >
    {runs.map((r) => (
      <tr data-run={r.id}>
        <td>
          <a href={runHref(r.id)}>Run {r.id}</a>
          <div class="muted small">version {r.version}</div>
        </td>
        <td>
          <StatusBadge tone={RUN_TONE[r.status] ?? "neutral"}>{r.status}</StatusBadge>
        </td>
        <td class="hide-sm small">
          {String(r.trigger.kind)}
          {r.trigger.eventType ? ` ${r.trigger.eventType}` : ""}
        </td>
        <td class="hide-sm small">{when(r.startedAt ? new Date(r.startedAt) : null)}</td>
        <td class="small prose">{r.error ?? ""}</td>
      </tr>
    ))}
  </DataTable>
);

async function automationPage(c: Context<PageEnv>, extra: { error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "Automation");
  const a = await getAutomation(actor, { id });
  const pageNo = pageNoOf(c);
  const runs = await listRuns(actor, {
    automationId: a.id,
    limit: RUNS_PER_PAGE,
    offset: (pageNo - 1) * RUNS_PER_PAGE,
  });
  const pages = Math.max(1, Math.ceil(runs.total / RUNS_PER_PAGE));
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const counts = Object.entries(a.runs as Record<string, number>);
  const hookUrl = "hookUrl" in a ? a.hookUrl : null;
  const nextRunAt = "nextRunAt" in a ? a.nextRunAt : null;
  return render(
    c,
    <Layout title={a.name} viewer={viewer} path={AUTOMATIONS_PATH}>
      <p class="crumbs small">
        <a href={AUTOMATIONS_PATH}>Automations</a> / {a.name}
      </p>
      <h1>{a.name}</h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      <div class="card-layout">
        <div class="card-main">
          <section class="card" aria-labelledby="h-definition" id="definition">
            <h2 id="h-definition">Definition</h2>
            {a.description && <p class="prose">{a.description}</p>}
            <h3 class="small">When</h3>
            <pre tabindex={0} class="preview prose small" id="trigger">
              {pretty(a.trigger)}
            </pre>
            <h3 class="small">Only if</h3>
            {a.conditions.length ? (
              <pre tabindex={0} class="preview prose small" id="conditions">
                {pretty(a.conditions)}
              </pre>
            ) : (
              <p class="muted small">No conditions: every trigger runs it.</p>
            )}
            <h3 class="small">Then</h3>
            <ol class="steps" id="actions">
              {a.actions.map((s) => (
                <li>
                  <strong>{words(s.type)}</strong>
                  <pre tabindex={0} class="preview prose small">
                    {pretty(s.with)}
                  </pre>
                </li>
              ))}
            </ol>
          </section>
          <section aria-labelledby="h-runs" id="run-history">
            <h2 id="h-runs">
              Runs <span class="muted small">{runs.total}, newest first</span>
            </h2>
            <RunsTable runs={runs.items} />
            <Pager pageNo={pageNo} pages={pages} href={(n) => withPage(automationHref(a.id), n)} />
          </section>
        </div>
        <aside class="card card-side" aria-label="Automation details">
          <dl class="facts">
            <dt>State</dt>
            <dd>
              <OnOff enabled={a.enabled} />
            </dd>
            <dt>Trigger</dt>
            <dd class="small">{triggerText(a.trigger)}</dd>
            {nextRunAt && (
              <>
                <dt>Next run</dt>
                <dd class="small">{when(new Date(nextRunAt))}</dd>
              </>
            )}
            {hookUrl && (
              <>
                <dt>Hook URL</dt>
                <dd>
                  <code>{hookUrl}</code>
                </dd>
              </>
            )}
            <dt>Version</dt>
            <dd>{String(a.version)}</dd>
            <dt>Last run</dt>
            <dd class="small">{when(a.lastRunAt ? new Date(a.lastRunAt) : null)}</dd>
            <dt>Runs</dt>
            <dd class="small">{counts.length ? counts.map(([s, n]) => `${n} ${s}`).join(", ") : "none yet"}</dd>
            <dt>Changed</dt>
            <dd class="small">{when(a.updatedAt ? new Date(a.updatedAt) : null)}</dd>
          </dl>
          {manage ? (
            <div class="actions">
              <ActionForm
                viewer={viewer}
                id="toggle"
                action={`${automationHref(a.id)}/toggle`}
                label={a.enabled ? "Turn off" : "Turn on"}
                secondary={a.enabled}
              >
                <input type="hidden" name="enabled" value={a.enabled ? "off" : "on"} />
              </ActionForm>
            </div>
          ) : (
            <p class="muted small">Owners and admins turn automations on and off.</p>
          )}
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One run

const StepCard = ({ s, n }: { s: Step; n: number }) => {
  const known = new Set(["index", "type", "status", "input", "output", "error", "startedAt", "finishedAt"]);
  const rest = Object.fromEntries(Object.entries(s).filter(([k]) => !known.has(k)));
  const status = typeof s.status === "string" ? s.status : "unknown";
  return (
    <li class="card step" data-step={n} data-status={status}>
      <h3>
        Step {n + 1}: {words(String(s.type ?? "step"))}{" "}
        <StatusBadge tone={RUN_TONE[status] ?? "neutral"}>{status}</StatusBadge>
      </h3>
      {(s.startedAt || s.finishedAt) && (
        <p class="muted small">
          {when(s.startedAt ? new Date(s.startedAt) : null)} → {when(s.finishedAt ? new Date(s.finishedAt) : null)}
        </p>
      )}
      {s.error && (
        <>
          <h4 class="small">Error</h4>
          <pre tabindex={0} class="preview prose small step-error">
            {s.error}
          </pre>
        </>
      )}
      <h4 class="small">Input</h4>
      <pre tabindex={0} class="preview prose small step-input">
        {pretty(s.input)}
      </pre>
      <h4 class="small">Output</h4>
      <pre tabindex={0} class="preview prose small step-output">
        {pretty(s.output)}
      </pre>
      {Object.keys(rest).length > 0 && (
        <>
          <h4 class="small">More</h4>
          <pre tabindex={0} class="preview prose small">
            {pretty(rest)}
          </pre>
        </>
      )}
    </li>
  );
};

async function runPage(c: Context<PageEnv>, extra: { error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const id = idOf(c, "Run");
  const r = await getRun(actor, { id });
  const a = await getAutomation(actor, { id: r.automationId });
  const steps = (Array.isArray(r.steps) ? r.steps : []) as Step[];
  const trigger = r.trigger as Record<string, unknown>;
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const resumeAt = "resumeAtStep" in r ? r.resumeAtStep : null;
  return render(
    c,
    <Layout title={`Run ${r.id} · ${a.name}`} viewer={viewer} path={AUTOMATIONS_PATH}>
      <p class="crumbs small">
        <a href={AUTOMATIONS_PATH}>Automations</a> / <a href={automationHref(a.id)}>{a.name}</a> / Run {r.id}
      </p>
      <h1>
        Run {r.id} <StatusBadge tone={RUN_TONE[r.status] ?? "neutral"}>{r.status}</StatusBadge>
      </h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      {r.error && <Notice kind="error">{r.error}</Notice>}
      <div class="card-layout">
        <div class="card-main">
          <section aria-labelledby="h-steps" id="steps">
            <h2 id="h-steps">Steps</h2>
            {steps.length ? (
              <ol class="plain">
                {steps.map((s, i) => (
                  <StepCard s={s} n={typeof s.index === "number" ? s.index : i} />
                ))}
              </ol>
            ) : (
              <div class="card">
                <EmptyState>No step has run yet.</EmptyState>
              </div>
            )}
          </section>
          <section class="card" aria-labelledby="h-trigger">
            <h2 id="h-trigger">What started it</h2>
            <pre tabindex={0} class="preview prose small" id="trigger-data">
              {pretty(trigger)}
            </pre>
          </section>
        </div>
        <aside class="card card-side" aria-label="Run details">
          <dl class="facts">
            <dt>Automation</dt>
            <dd>
              <a href={automationHref(a.id)}>{a.name}</a>
            </dd>
            <dt>Version</dt>
            <dd>{String(r.version)}</dd>
            <dt>Trigger</dt>
            <dd class="small">
              {String(trigger.kind ?? "")}
              {typeof trigger.eventType === "string" ? ` ${trigger.eventType}` : ""}
            </dd>
            <dt>Attempts</dt>
            <dd>{String(r.attempts)}</dd>
            <dt>Queued</dt>
            <dd class="small">{when(r.createdAt ? new Date(r.createdAt) : null)}</dd>
            <dt>Started</dt>
            <dd class="small">{when(r.startedAt ? new Date(r.startedAt) : null)}</dd>
            <dt>Finished</dt>
            <dd class="small">{when(r.finishedAt ? new Date(r.finishedAt) : null)}</dd>
            {r.replayOf !== null && (
              <>
                <dt>Replays</dt>
                <dd>
                  <a href={runHref(r.replayOf)}>Run {r.replayOf}</a>
                </dd>
              </>
            )}
            {r.replayedBy !== null && (
              <>
                <dt>Replayed by</dt>
                <dd>
                  <a href={runHref(r.replayedBy)}>Run {r.replayedBy}</a>
                </dd>
              </>
            )}
          </dl>
          {manage && r.status === "failed" && (
            <div class="actions">
              <ActionForm viewer={viewer} id="retry" action={`${runHref(r.id)}/retry`} label="Retry">
                {null}
              </ActionForm>
              {typeof resumeAt === "number" && <span class="muted small">from step {resumeAt + 1}</span>}
            </div>
          )}
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Outgoing webhooks

const WebhookCard = ({
  viewer,
  h,
  deliveries,
  total,
}: {
  viewer: Viewer;
  h: Webhook;
  deliveries: Awaited<ReturnType<typeof listDeliveries>>["items"];
  total: number;
}) => {
  const manage = canManage(viewer);
  return (
    <section class="card" data-webhook={h.id} id={`webhook-${h.id}`} aria-labelledby={`h-webhook-${h.id}`}>
      <h2 id={`h-webhook-${h.id}`}>
        <code>{h.url}</code> <StatusBadge tone={h.status === "enabled" ? "ok" : "danger"}>{h.status}</StatusBadge>
      </h2>
      {h.description && <p class="prose">{h.description}</p>}
      <p class="muted small">
        Events: {h.eventTypes.join(", ")} · last success {when(h.lastSuccessAt ? new Date(h.lastSuccessAt) : null)} ·
        last failure {when(h.lastFailureAt ? new Date(h.lastFailureAt) : null)}
        {h.failureStreak > 0 && ` · ${h.failureStreak} failed in a row`}
      </p>
      {h.disabledReason && <Notice kind="warn">Disabled: {h.disabledReason}</Notice>}
      <h3 class="small">
        Recent deliveries <span class="muted">{total} in all</span>
      </h3>
      {deliveries.length === 0 ? (
        <EmptyState>Nothing delivered yet.</EmptyState>
      ) : (
        <div class="scroll">
          <table aria-label={`Deliveries to ${h.url}`} class="deliveries">
            <thead>
              <tr>
                <th>Event</th>
                <th>Status</th>
                <th class="num">Attempts</th>
                <th class="hide-sm">Answer</th>
                <th class="hide-sm">When</th>
                {manage && <th>{""}</th>}
              </tr>
            </thead>
            <tbody>
              {deliveries.map((d) => (
                <tr data-delivery={d.id}>
                  <td>
                    {d.eventType}
                    <div class="muted small">{d.entity}</div>
                  </td>
                  <td>
                    <StatusBadge tone={DELIVERY_TONE[d.status] ?? "neutral"}>{d.status}</StatusBadge>
                  </td>
                  <td class="num">{String(d.attempts)}</td>
                  <td class="hide-sm small prose">
                    {d.lastStatusCode !== null ? `HTTP ${d.lastStatusCode}` : ""}
                    {d.lastError ? `${d.lastStatusCode !== null ? " · " : ""}${d.lastError}` : ""}
                  </td>
                  <td class="hide-sm small">
                    {when(new Date(d.deliveredAt ?? d.createdAt ?? 0))}
                    {d.nextAttemptAt && <div class="muted">next {when(new Date(d.nextAttemptAt))}</div>}
                  </td>
                  {manage && (
                    <td>
                      {d.status !== "pending" && (
                        <ActionForm
                          viewer={viewer}
                          action={`${WEBHOOKS_PATH}/deliveries/${d.id}/redeliver`}
                          label="Deliver again"
                          secondary
                        >
                          {null}
                        </ActionForm>
                      )}
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
};

async function webhooksPage(c: Context<PageEnv>, extra: { error?: string } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const pageNo = pageNoOf(c);
  const list = await listWebhooks(actor, { limit: WEBHOOKS_PER_PAGE, offset: (pageNo - 1) * WEBHOOKS_PER_PAGE });
  const recent: Awaited<ReturnType<typeof listDeliveries>>[] = [];
  for (const h of list.items)
    recent.push(await listDeliveries(actor, { webhookId: h.id, limit: RECENT_DELIVERIES, offset: 0 }));
  const pages = Math.max(1, Math.ceil(list.total / WEBHOOKS_PER_PAGE));
  const notice = NOTICES[c.req.query("done") ?? ""];
  return render(
    c,
    <Layout title="Outgoing webhooks" viewer={viewer} path={AUTOMATIONS_PATH}>
      <PageHeader
        title="Outgoing webhooks"
        lead="Signed POSTs of events to your URLs, retried, in order per entity; each subscription with its latest deliveries."
      />
      <Tabs at="webhooks" />
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      {!canManage(viewer) && <Notice>You can read the deliveries; owners and admins deliver again.</Notice>}
      {list.items.length === 0 && (
        <div class="card">
          <EmptyState>No webhooks yet. Agents subscribe URLs with webhooks_create.</EmptyState>
        </div>
      )}
      {list.items.map((h, i) => (
        <WebhookCard viewer={viewer} h={h} deliveries={recent[i]!.items} total={recent[i]!.total} />
      ))}
      <Pager pageNo={pageNo} pages={pages} href={(n) => withPage(WEBHOOKS_PATH, n)} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Routes

export function automationPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(AUTOMATIONS_PATH, automationsPage);
  app.get(WEBHOOKS_PATH, (c) => webhooksPage(c));
  app.get(`${RUNS_PATH}/:id`, (c) => runPage(c));
  app.get(`${AUTOMATIONS_PATH}/:id`, (c) => automationPage(c));

  app.post(`${AUTOMATIONS_PATH}/:id/toggle`, (c) =>
    attempt(
      c,
      async () => {
        const id = idOf(c, "Automation");
        const raw = c.get("form").text("enabled", { label: "State", max: 10, required: true });
        if (raw !== "on" && raw !== "off") throw invalid("State must be on or off.");
        await toggleAutomation(actorOf(c), { id, enabled: raw === "on" });
        return `${automationHref(id)}?done=${raw}`;
      },
      (error) => automationPage(c, { error }),
    ),
  );
  app.post(`${RUNS_PATH}/:id/retry`, (c) =>
    attempt(
      c,
      async () => {
        const id = idOf(c, "Run");
        await retryRun(actorOf(c), { id });
        return `${runHref(id)}?done=retried`;
      },
      (error) => runPage(c, { error }),
    ),
  );
  app.post(`${WEBHOOKS_PATH}/deliveries/:id/redeliver`, (c) =>
    attempt(
      c,
      async () => {
        await redeliver(actorOf(c), { id: idOf(c, "Delivery") });
        return `${WEBHOOKS_PATH}?done=redelivered`;
      },
      (error) => webhooksPage(c, { error }),
    ),
  );
}
