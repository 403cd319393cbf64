/**
 * Projects in the portal (issue 31, the first domain page set): the
 * project list, a project's board, one card, a sprint with its burndown and
 * the velocity of past sprints, and the timesheet per person and week.
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listProjects, getBoard and its boardCardItems, moveCard, createCard, getCard,
 * createComment, updateChecklistItem, createTimeLog, getSprint,
 * sprintBurndown, sprintVelocity, getTimesheet), called as the signed-in
 * person (actorOf): their role, the company's tenancy and the WIP limits are
 * checked exactly where they are for an agent. Owners and admins get the
 * forms; viewers read, and a post of theirs is refused by the verb (403).
 * An id from another company is "not found" inside the lookups (404).
 *
 * Pages work without JavaScript: moving a card is a column select and a
 * button on each card. Charts are drawn on the server (src/ui/chart.tsx)
 * with their figures in a table beside them.
 */
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { type Tone, StatusBadge } from "../../ui/badge";
import { Chart, type RenderedChart, renderChart } from "../../ui/chart";
import { answerForm } from "../../ui/form-answer";
import { type Form, parsed } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager, pageNoOf } from "../../ui/pager";
import { actorOf, canManage, type PageEnv, type Viewer, viewerOf } from "../../ui/signed-in";
import { DataTable } from "../../ui/table";
import { addDays, writeAccess } from "./access";
import { boardCardItems, getBoard } from "./boards";
import { createComment, updateChecklistItem } from "./card-parts";
import { createCard, getCard } from "./cards";
import { moveCard } from "./moves";
import { getProject, listProjects } from "./projects";
import { cardCreateInput, commentCreateInput, MAX_MINUTES, timeLogCreateInput } from "./schemas";
import { getSprint, listSprints, sprintBurndown, sprintVelocity } from "./sprints";
import { createTimeLog, getTimesheet, listTimeLogs } from "./time-logs";

export const PROJECTS_PATH = "/projects";
export const TIMESHEET_PATH = "/projects-time";
const PER_PAGE = 20;
const KEY = /^[A-Za-z][A-Za-z0-9]{1,9}$/;

type Project = Awaited<ReturnType<typeof getProject>>;
type Board = Awaited<ReturnType<typeof getBoard>>;
type CardItem = Awaited<ReturnType<typeof boardCardItems>>[number];
/** What getCard answers (it builds a record), as these pages read it. */
interface CardFull {
  id: number;
  key: string;
  title: string;
  description: string | null;
  board: { id: number; name: string };
  column: { id: number; name: string; stateGroup: string };
  priorityName: string;
  estimate: number | null;
  dueDate: string | null;
  assignees: { id: number; name: string | null; email: string }[];
  labels: { id: number; name: string }[];
  parent: { id: number; key: string; title: string } | null;
  subCards: { id: number; key: string; title: string }[];
  sprint: { id: number; name: string } | null;
  checklist: { done: number; total: number; items: { id: number; text: string; done: boolean }[] };
  relations: { kind: string; card: { key: string; title: string } }[];
  timeLogged: { minutes: number };
  comments?: { id: number; author: string | null; body: string; createdAt: string }[];
}
const cardOf = async (actor: ReturnType<typeof actorOf>, ref: string, comments = false) =>
  (await getCard(actor, { id: ref, include: comments ? ["comments"] : [] })) as unknown as CardFull;

const projectHref = (key: string) => `${PROJECTS_PATH}/${encodeURIComponent(key)}`;
const cardHref = (cardKey: string) => {
  const dash = cardKey.lastIndexOf("-");
  return `${projectHref(cardKey.slice(0, dash))}/cards/${cardKey.slice(dash + 1)}`;
};
const sprintHref = (key: string, id: number) => `${projectHref(key)}/sprints/${id}`;

/** A project key from the path; anything else is a plain 404, never a lookup of text we cannot hold. */
function keyOf(c: Context<PageEnv>): string {
  const key = c.req.param("key") ?? "";
  if (!KEY.test(key)) throw notFound(`Project ${key.slice(0, 20)} not found.`);
  return key.toUpperCase();
}
/** A positive whole number from the path (a card's number, a sprint's id), else 404. */
function numberOf(c: Context<PageEnv>, name: string, what: string): number {
  const raw = c.req.param(name) ?? "";
  if (!/^\d{1,9}$/.test(raw) || Number(raw) < 1) throw notFound(`${what} ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}

/** "90", "90m", "1h", "1.5h", "1h 30m" → minutes; anything else is refused with the forms it takes. */
export function minutesOf(raw: string): number {
  const t = raw.trim().toLowerCase();
  const m = /^(?:(\d{1,2}(?:\.\d{1,2})?)\s*h)?\s*(?:(\d{1,4})\s*m?)?$/.exec(t);
  const n = m && (m[1] || m[2]) ? Math.round(Number(m[1] ?? 0) * 60 + Number(m[2] ?? 0)) : Number.NaN;
  if (!Number.isFinite(n) || n < 1 || n > MAX_MINUTES)
    throw invalid(
      `Time must be between 1 minute and 24 hours, like 45, 90m, 1.5h or 1h 30m; "${raw.slice(0, 40)}" is not.`,
    );
  return n;
}
const hm = (minutes: number) => {
  const h = Math.floor(minutes / 60);
  const m = minutes % 60;
  return h ? (m ? `${h}h ${m}m` : `${h}h`) : `${m}m`;
};
const points = (n: number | null | undefined) =>
  n === null || n === undefined ? null : `${n} pt${n === 1 ? "" : "s"}`;

const STATUS_TONE: Record<string, Tone> = { active: "ok", planned: "neutral", paused: "warn", completed: "neutral" };
const HEALTH_TONE: Record<string, Tone> = { on_track: "ok", at_risk: "warn", off_track: "danger" };
const words = (s: string) => s.replace(/_/g, " ");

const NOTICES: Record<string, string> = {
  moved: "Card moved.",
  created: "Card created.",
  commented: "Comment added.",
  ticked: "Checklist updated.",
  logged: "Time logged.",
};

/** Runs a form's verb; a refusal the person can act on re-shows the page they came from with the reason and the right status. */
async function attempt(
  c: Context<PageEnv>,
  act: (f: Form) => Promise<string>,
  again: (error: string) => Promise<Response>,
): Promise<Response> {
  // Who may act comes before what was typed: a viewer is refused (403) whatever the form holds.
  writeAccess(actorOf(c));
  return answerForm(c, () => act(c.get("form")), again);
}

// ---------------------------------------------------------------------------
// The project list

async function projectsPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const pageNo = pageNoOf(c);
  const list = await listProjects(actorOf(c), { archived: false, limit: PER_PAGE, offset: (pageNo - 1) * PER_PAGE });
  const pages = Math.max(1, Math.ceil(list.total / PER_PAGE));
  return render(
    c,
    <Layout title="Projects" viewer={viewer} path={PROJECTS_PATH}>
      <PageHeader
        title={`Projects of ${viewer.active!.name}`}
        lead={`${list.total} active project${list.total === 1 ? "" : "s"}`}
      >
        <a class="button secondary" href={TIMESHEET_PATH}>
          Timesheet
        </a>
      </PageHeader>
      <DataTable
        id="projects"
        label="Projects"
        columns={[
          "Project",
          "Status",
          { label: "Open cards", hideSm: true },
          { label: "Sprint", hideSm: true },
          { label: "Lead", hideSm: true },
        ]}
        empty={list.items.length === 0 && "No projects yet. Agents create them with projects_create."}
      >
        {list.items.map((p) => (
          <tr>
            <td>
              <a href={projectHref(p.key)}>
                <strong>{p.key}</strong> {p.name}
              </a>
              {p.targetDate && <div class="muted small">Target {p.targetDate}</div>}
            </td>
            <td>
              <StatusBadge tone={STATUS_TONE[p.status] ?? "neutral"}>{words(p.status)}</StatusBadge>{" "}
              {p.health && <StatusBadge tone={HEALTH_TONE[p.health] ?? "neutral"}>{words(p.health)}</StatusBadge>}
            </td>
            <td class="hide-sm num">
              {p.openCards} <span class="muted small">of {p.cards}</span>
            </td>
            <td class="hide-sm">
              {p.activeSprint ? (
                <a href={sprintHref(p.key, p.activeSprint.id)}>{p.activeSprint.name}</a>
              ) : (
                <span class="muted">—</span>
              )}
            </td>
            <td class="hide-sm">{p.lead?.name ?? <span class="muted">—</span>}</td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => (n > 1 ? `${PROJECTS_PATH}?page=${n}` : PROJECTS_PATH)} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// The board

function wipState(col: Board["columns"][number]): { text: string; tone: Tone; label: string } {
  if (col.wipLimit === null) return { text: String(col.cardCount), tone: "neutral", label: `${col.cardCount} cards` };
  const text = `${col.cardCount} / ${col.wipLimit}`;
  if (col.cardCount > col.wipLimit)
    return {
      text: `${text} · over limit`,
      tone: "danger",
      label: `${col.cardCount} cards, over the WIP limit of ${col.wipLimit}`,
    };
  if (col.cardCount === col.wipLimit)
    return {
      text: `${text} · at limit`,
      tone: "warn",
      label: `${col.cardCount} cards, at the WIP limit of ${col.wipLimit}`,
    };
  return { text, tone: "neutral", label: `${col.cardCount} cards, WIP limit ${col.wipLimit}` };
}

const MoveForm = (p: {
  viewer: Viewer;
  project: string;
  card: { id: number; key: string; columnId: number };
  columns: { id: number; name: string }[];
  back?: string;
}) => (
  <form class="move" method="post" action={`${projectHref(p.project)}/move`}>
    <Csrf viewer={p.viewer} />
    <input type="hidden" name="card" value={String(p.card.id)} />
    {p.back && <input type="hidden" name="back" value={p.back} />}
    <select name="column" aria-label={`Move ${p.card.key} to column`}>
      {p.columns.map((col) => (
        <option value={String(col.id)} selected={col.id === p.card.columnId}>
          {col.name}
        </option>
      ))}
    </select>
    <button class="secondary" type="submit">
      Move
    </button>
  </form>
);

async function boardPage(c: Context<PageEnv>, extra: { error?: string; values?: Record<string, string> } = {}) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const project = (await getProject(actor, { id: keyOf(c) })) as Project & Record<string, any>;
  const boardsOf = project.boards as { id: number; name: string }[];
  const wanted = Number(c.req.query("board") ?? "0");
  const boardRef = boardsOf.find((b) => b.id === wanted) ?? boardsOf[0];
  if (!boardRef) throw notFound(`Project ${project.key} has no board.`);
  const [board, cards, sprints] = await Promise.all([
    getBoard(actor, { id: boardRef.id, cardsPerColumn: 0 }),
    boardCardItems(actor, boardRef.id),
    listSprints(actor, { projectId: project.id, limit: 6, offset: 0 }),
  ]);
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const val = (k: string) => extra.values?.[k] ?? "";
  const byColumn = new Map<number, CardItem[]>();
  for (const card of cards) byColumn.set(card.columnId, [...(byColumn.get(card.columnId) ?? []), card]);
  const columns = board.columns.map((col) => ({ id: col.id, name: col.name }));
  return render(
    c,
    <Layout title={`${project.key} board`} viewer={viewer} path={PROJECTS_PATH} wide>
      <p class="crumbs small">
        <a href={PROJECTS_PATH}>Projects</a> / {project.key}
      </p>
      <PageHeader
        title={`${project.key} · ${project.name}`}
        lead={`${board.name} · ${cards.length} card${cards.length === 1 ? "" : "s"}`}
      >
        <a class="button secondary" href={`${TIMESHEET_PATH}?project=${encodeURIComponent(project.key)}`}>
          Timesheet
        </a>
      </PageHeader>
      {boardsOf.length > 1 && (
        <nav class="tabs" aria-label="Boards">
          {boardsOf.map((b) => (
            <a href={`${projectHref(project.key)}?board=${b.id}`} aria-current={b.id === board.id ? "page" : undefined}>
              {b.name}
            </a>
          ))}
        </nav>
      )}
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && <Notice kind="error">{extra.error}</Notice>}
      {manage ? (
        <details class="card" open={!!extra.error || undefined}>
          <summary>New card</summary>
          <form method="post" action={`${projectHref(project.key)}/cards`} class="grid-form">
            <Csrf viewer={viewer} />
            <input type="hidden" name="board" value={String(board.id)} />
            <div class="wide-field">
              <label for="new-title">Title</label>
              <input id="new-title" type="text" name="title" required maxlength={255} value={val("title")} />
            </div>
            <div>
              <label for="new-column">Column</label>
              <select id="new-column" name="column">
                {columns.map((col) => (
                  <option value={String(col.id)} selected={val("column") === String(col.id)}>
                    {col.name}
                  </option>
                ))}
              </select>
            </div>
            <div>
              <label for="new-estimate">Estimate (points)</label>
              <input id="new-estimate" type="number" name="estimate" min={0} max={1000} value={val("estimate")} />
            </div>
            <div class="wide-field">
              <label for="new-description">Description</label>
              <textarea id="new-description" name="description" rows={3} maxlength={50000}>
                {val("description")}
              </textarea>
            </div>
            <div class="actions wide-field">
              <button type="submit">Create card</button>
            </div>
          </form>
        </details>
      ) : (
        <p class="muted small">You can read this board; owners and admins move and create cards.</p>
      )}
      <div class="board" id="board">
        {board.columns.map((col) => {
          const wip = wipState(col);
          const inside = byColumn.get(col.id) ?? [];
          return (
            <section
              class={`column${wip.tone === "danger" ? " over" : ""}`}
              aria-labelledby={`col-${col.id}`}
              data-column={col.id}
            >
              <header class="column-head">
                <h2 id={`col-${col.id}`}>{col.name}</h2>
                <span class={wip.tone === "neutral" ? "badge" : `badge ${wip.tone}`} aria-hidden="true">
                  {wip.text}
                </span>
                <span class="visually-hidden">{wip.label}</span>
              </header>
              {col.points > 0 && <p class="muted small column-points">{points(col.points)}</p>}
              {inside.length ? (
                <ol class="cards">
                  {inside.map((card) => (
                    <li class="kcard" data-card={card.key}>
                      <p class="kcard-top">
                        <a href={cardHref(card.key)} class="kcard-key">
                          {card.key}
                        </a>
                        {card.estimate !== null && <span class="badge">{points(card.estimate)}</span>}
                      </p>
                      <p class="kcard-title">{card.title}</p>
                      {(card.labels.length > 0 || card.assignees.length > 0 || card.dueDate) && (
                        <p class="kcard-meta small">
                          {card.labels.map((l) => (
                            <span class="badge label">{l}</span>
                          ))}
                          {card.dueDate && (
                            <span class={card.overdue ? "badge danger" : "badge"}>
                              {card.overdue ? "overdue " : "due "}
                              {card.dueDate}
                            </span>
                          )}
                          {card.assignees.length > 0 && (
                            <span class="assignee">{card.assignees.map((a) => a.name).join(", ")}</span>
                          )}
                        </p>
                      )}
                      {manage && <MoveForm viewer={viewer} project={project.key} card={card} columns={columns} />}
                    </li>
                  ))}
                </ol>
              ) : (
                <p class="muted small empty">No cards.</p>
              )}
            </section>
          );
        })}
      </div>
      <h2>Sprints</h2>
      <DataTable
        id="sprints"
        label="Sprints"
        columns={["Sprint", "Status", { label: "Dates", hideSm: true }, "Cards", { label: "Points", hideSm: true }]}
        empty={sprints.items.length === 0 && "No sprints yet."}
      >
        {sprints.items.map((s) => (
          <tr>
            <td>
              <a href={sprintHref(project.key, s.id)}>{s.name}</a>
            </td>
            <td>
              <StatusBadge tone={s.status === "active" ? "ok" : "neutral"}>{s.status}</StatusBadge>
            </td>
            <td class="hide-sm">
              {s.startDate} – {s.endDate}
            </td>
            <td class="num">{s.cards}</td>
            <td class="hide-sm num">{s.points}</td>
          </tr>
        ))}
      </DataTable>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One card

async function cardPage(
  c: Context<PageEnv>,
  extra: { error?: string; form?: string; values?: Record<string, string> } = {},
) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const key = keyOf(c);
  const ref = `${key}-${numberOf(c, "number", `Card ${key}-`)}`;
  const card = await cardOf(actor, ref, true);
  const board = await getBoard(actor, { id: card.board.id, cardsPerColumn: 0 });
  const logs = await listTimeLogs(actor, { cardId: card.id, limit: 20, offset: 0 });
  const manage = canManage(viewer);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const here = cardHref(card.key);
  const val = (k: string) => extra.values?.[k] ?? "";
  const err = (f: string) => extra.form === f && extra.error && <Notice kind="error">{extra.error}</Notice>;
  const comments = (card.comments ?? []) as { id: number; author: string | null; body: string; createdAt: string }[];
  const projectKey = card.key.slice(0, card.key.lastIndexOf("-"));
  return render(
    c,
    <Layout title={`${card.key} ${card.title}`} viewer={viewer} path={PROJECTS_PATH}>
      <p class="crumbs small">
        <a href={PROJECTS_PATH}>Projects</a> / <a href={projectHref(projectKey)}>{projectKey}</a> / {card.key}
      </p>
      <h1>
        <span class="muted">{card.key}</span> {card.title}
      </h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && !extra.form && <Notice kind="error">{extra.error}</Notice>}
      <div class="card-layout">
        <div class="card-main">
          <section class="card" aria-labelledby="h-description">
            <h2 id="h-description">Description</h2>
            {card.description ? <p class="prose">{card.description}</p> : <p class="muted">No description.</p>}
          </section>
          <section class="card" aria-labelledby="h-checklist" id="checklist">
            <h2 id="h-checklist">
              Checklist{" "}
              {card.checklist.total > 0 && (
                <span class="muted small">
                  {card.checklist.done} of {card.checklist.total} done
                </span>
              )}
            </h2>
            {err("checklist")}
            {card.checklist.items.length ? (
              <ul class="plain checklist">
                {card.checklist.items.map((i) => (
                  <li class={i.done ? "done" : undefined}>
                    {manage ? (
                      <form method="post" action={`${here}/checklist`} class="inline-row">
                        <Csrf viewer={viewer} />
                        <input type="hidden" name="item" value={String(i.id)} />
                        <input type="hidden" name="done" value={i.done ? "0" : "1"} />
                        <button class="link" type="submit" aria-label={`${i.done ? "Untick" : "Tick"}: ${i.text}`}>
                          {i.done ? "☑" : "☐"}
                        </button>
                        <span class="item-text">{i.text}</span>
                        {i.done && <span class="visually-hidden"> (done)</span>}
                      </form>
                    ) : (
                      <span>
                        {i.done ? "☑ " : "☐ "}
                        <span class="item-text">{i.text}</span>
                        <span class="visually-hidden">{i.done ? " (done)" : " (not done)"}</span>
                      </span>
                    )}
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No checklist.</p>
            )}
          </section>
          <section class="card" aria-labelledby="h-comments" id="comments">
            <h2 id="h-comments">Comments</h2>
            {comments.length ? (
              <ul class="plain">
                {comments.map((m) => (
                  <li class="note">
                    <p class="who small muted">
                      {m.author ?? "Someone"} · {when(new Date(m.createdAt))}
                    </p>
                    <p class="prose">{m.body}</p>
                  </li>
                ))}
              </ul>
            ) : (
              <p class="muted">No comments yet.</p>
            )}
            {manage && (
              <form method="post" action={`${here}/comments`}>
                <Csrf viewer={viewer} />
                {err("comment")}
                <label for="comment-body">Add a comment</label>
                <textarea id="comment-body" name="body" rows={3} required maxlength={50000}>
                  {val("body")}
                </textarea>
                <div class="actions">
                  <button type="submit">Comment</button>
                </div>
              </form>
            )}
          </section>
          <section class="card" aria-labelledby="h-time" id="time">
            <h2 id="h-time">
              Time logged <span class="muted small">{hm(card.timeLogged.minutes)} in all</span>
            </h2>
            {logs.items.length ? (
              <table aria-label="Time logs">
                <thead>
                  <tr>
                    <th>Day</th>
                    <th>Who</th>
                    <th>Time</th>
                    <th class="hide-sm">Note</th>
                  </tr>
                </thead>
                <tbody>
                  {logs.items.map((l) => (
                    <tr>
                      <td>{l.workedOn}</td>
                      <td>{l.user}</td>
                      <td class="num">
                        {hm(l.minutes)}
                        {!l.billable && <span class="muted small"> non-billable</span>}
                      </td>
                      <td class="hide-sm">{l.note ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : (
              <p class="muted">No time logged.</p>
            )}
            {manage && (
              <form method="post" action={`${here}/time`} class="grid-form">
                <Csrf viewer={viewer} />
                {err("time") && <div class="wide-field">{err("time")}</div>}
                <div>
                  <label for="time-minutes">Time</label>
                  <input
                    id="time-minutes"
                    type="text"
                    name="minutes"
                    required
                    maxlength={20}
                    placeholder="1h 30m"
                    value={val("minutes")}
                  />
                </div>
                <div>
                  <label for="time-day">Day</label>
                  <input id="time-day" type="date" name="worked_on" value={val("worked_on")} />
                </div>
                <div class="wide-field">
                  <label for="time-note">Note</label>
                  <input id="time-note" type="text" name="note" maxlength={500} value={val("note")} />
                </div>
                <label class="inline">
                  <input
                    type="checkbox"
                    name="billable"
                    value="1"
                    checked={extra.values ? val("billable") === "1" : true}
                  />{" "}
                  Billable
                </label>
                <div class="actions wide-field">
                  <button type="submit">Log time</button>
                </div>
              </form>
            )}
          </section>
        </div>
        <aside class="card card-side" aria-label="Card details">
          <dl class="facts">
            <dt>Column</dt>
            <dd>
              <StatusBadge tone={card.column.stateGroup === "done" ? "ok" : "neutral"}>{card.column.name}</StatusBadge>
            </dd>
            <dt>Assignees</dt>
            <dd>
              {card.assignees.length ? (
                card.assignees.map((a) => a.name ?? a.email).join(", ")
              ) : (
                <span class="muted">Nobody</span>
              )}
            </dd>
            <dt>Estimate</dt>
            <dd>{points(card.estimate) ?? <span class="muted">—</span>}</dd>
            <dt>Priority</dt>
            <dd>{card.priorityName}</dd>
            <dt>Labels</dt>
            <dd>
              {card.labels.length ? (
                card.labels.map((l) => <span class="badge label">{l.name}</span>)
              ) : (
                <span class="muted">—</span>
              )}
            </dd>
            {card.dueDate && (
              <>
                <dt>Due</dt>
                <dd>{card.dueDate}</dd>
              </>
            )}
            {card.sprint && (
              <>
                <dt>Sprint</dt>
                <dd>
                  <a href={sprintHref(projectKey, card.sprint.id)}>{card.sprint.name}</a>
                </dd>
              </>
            )}
            {card.parent && (
              <>
                <dt>Parent</dt>
                <dd>
                  <a href={cardHref(card.parent.key)}>{card.parent.key}</a> {card.parent.title}
                </dd>
              </>
            )}
          </dl>
          {manage && (
            <>
              <h2 class="small-h">Move</h2>
              <MoveForm
                viewer={viewer}
                project={projectKey}
                card={{ id: card.id, key: card.key, columnId: card.column.id }}
                columns={board.columns.map((col) => ({ id: col.id, name: col.name }))}
                back={here}
              />
            </>
          )}
          <h2 class="small-h">Relations</h2>
          {card.relations.length || card.subCards.length ? (
            <ul class="plain relations">
              {card.relations.map((r) => (
                <li>
                  <span class="muted small">{words(r.kind)}</span> <a href={cardHref(r.card.key)}>{r.card.key}</a>{" "}
                  {r.card.title}
                </li>
              ))}
              {card.subCards.map((s) => (
                <li>
                  <span class="muted small">sub-card</span> <a href={cardHref(s.key)}>{s.key}</a> {s.title}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted small">None.</p>
          )}
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// A sprint: burndown and velocity

async function sprintPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const key = keyOf(c);
  const id = numberOf(c, "id", "Sprint");
  // Each verb looks its record up in the company; the path's project must also be the sprint's, or the page does not exist.
  const [sprint, burn, velocity] = await Promise.all([
    getSprint(actor, { id }),
    sprintBurndown(actor, { id }),
    sprintVelocity(actor, { projectId: key, count: 6 }),
  ]);
  if (sprint.projectKey !== velocity.projectKey) throw notFound(`Sprint ${id} not found.`);
  const project = { key: velocity.projectKey };
  const past = [...velocity.sprints].reverse();
  let burnChart: RenderedChart | null = null;
  if (burn.points.length)
    burnChart = await renderChart({
      kind: "line",
      title: `Burndown of ${sprint.name}: points remaining each day against the ideal line`,
      categories: burn.points.map((p) => p.date),
      xLabel: "Day",
      yLabel: "Points",
      series: [
        { name: "Remaining", values: burn.points.map((p) => p.remainingPoints) },
        { name: "Ideal", values: burn.points.map((p) => p.idealPoints) },
      ],
    });
  const velocityChart = past.length
    ? await renderChart({
        kind: "bar",
        title: `Velocity of ${project.key}: points committed and completed in the last ${past.length} closed sprint${past.length === 1 ? "" : "s"}`,
        categories: past.map((s) => s.name),
        xLabel: "Sprint",
        yLabel: "Points",
        series: [
          { name: "Committed", values: past.map((s) => s.committedPoints) },
          { name: "Completed", values: past.map((s) => s.completedPoints) },
        ],
      })
    : null;
  const f = sprint as typeof sprint & Record<string, any>;
  return render(
    c,
    <Layout title={sprint.name} viewer={viewer} path={PROJECTS_PATH}>
      <p class="crumbs small">
        <a href={PROJECTS_PATH}>Projects</a> / <a href={projectHref(project.key)}>{project.key}</a> / {sprint.name}
      </p>
      <PageHeader
        title={sprint.name}
        lead={`${sprint.startDate} – ${sprint.endDate}${sprint.goal ? ` · ${sprint.goal}` : ""}`}
      >
        <StatusBadge tone={sprint.status === "active" ? "ok" : "neutral"}>{sprint.status}</StatusBadge>
      </PageHeader>
      <div class="stats">
        <p class="stat">
          <span class="stat-n">{sprint.committedPoints ?? "—"}</span> <span class="muted small">points committed</span>
        </p>
        <p class="stat">
          <span class="stat-n">{f.completedPoints ?? 0}</span> <span class="muted small">points completed</span>
        </p>
        <p class="stat">
          <span class="stat-n">{f.remainingPoints ?? 0}</span> <span class="muted small">points remaining</span>
        </p>
        <p class="stat">
          <span class="stat-n">{hm(sprint.timeLogged.minutes)}</span> <span class="muted small">time logged</span>
        </p>
      </div>
      <h2>Burndown</h2>
      {burnChart ? (
        <Chart chart={burnChart} id="burndown" />
      ) : (
        <p class="muted">{burn.note ?? "No days to show yet."}</p>
      )}
      <h2>Velocity</h2>
      {velocityChart ? (
        <>
          <p class="muted small">
            Average completed: <strong>{velocity.velocity}</strong> points a sprint (committed{" "}
            {velocity.averageCommitted}).
          </p>
          <Chart chart={velocityChart} id="velocity" />
        </>
      ) : (
        <p class="muted">No closed sprints yet: velocity shows once a sprint is closed.</p>
      )}
      <h2>Cards in this sprint</h2>
      <DataTable
        id="sprint-cards"
        label="Cards in this sprint"
        columns={["Card", "Column", { label: "Assignees", hideSm: true }, "Points"]}
        empty={sprint.cards.length === 0 && "No cards in this sprint."}
      >
        {sprint.cards.map((card) => (
          <tr>
            <td>
              <a href={cardHref(card.key)}>{card.key}</a> {card.title}
            </td>
            <td>{card.column}</td>
            <td class="hide-sm">{card.assignees.join(", ")}</td>
            <td class="num">{card.estimate ?? "—"}</td>
          </tr>
        ))}
      </DataTable>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// The timesheet: per person and week

const DAY = /^\d{4}-\d{2}-\d{2}$/;
/** The Monday of the week holding `date` (weeks run Monday to Sunday). */
export function mondayOf(date: string): string {
  const d = new Date(`${date}T00:00:00Z`);
  return addDays(date, -((d.getUTCDay() + 6) % 7));
}

async function timesheetPage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const raw = c.req.query("week") ?? "";
  const today = actor.deps.clock.now().toISOString().slice(0, 10);
  const week = mondayOf(DAY.test(raw) && !Number.isNaN(Date.parse(raw)) ? raw : today);
  const days = Array.from({ length: 7 }, (_, i) => addDays(week, i));
  const projectRaw = c.req.query("project") ?? "";
  const project = KEY.test(projectRaw) ? await getProject(actor, { id: projectRaw.toUpperCase() }) : null;
  const sheet = await getTimesheet(actor, { from: days[0]!, to: days[6]!, projectId: project?.id });
  const q = (w: string) => {
    const s = new URLSearchParams({ week: w });
    if (project) s.set("project", project.key);
    return `${TIMESHEET_PATH}?${s}`;
  };
  const dayName = (d: string) =>
    new Date(`${d}T00:00:00Z`).toLocaleDateString("en-GB", { weekday: "short", timeZone: "UTC" });
  const dayTotal = (d: string) => sheet.people.reduce((s, p) => s + (p.days[d] ?? 0), 0);
  return render(
    c,
    <Layout title="Timesheet" viewer={viewer} path={PROJECTS_PATH}>
      <p class="crumbs small">
        <a href={PROJECTS_PATH}>Projects</a>
        {project && (
          <>
            {" "}
            / <a href={projectHref(project.key)}>{project.key}</a>
          </>
        )}{" "}
        / Timesheet
      </p>
      <PageHeader title={`Timesheet${project ? ` of ${project.key}` : ""}`} lead={`Week of ${days[0]} to ${days[6]}`} />
      <nav class="weeknav" aria-label="Weeks">
        <a href={q(addDays(week, -7))} rel="prev">
          ← Previous week
        </a>
        <a href={q(mondayOf(today))}>This week</a>
        <a href={q(addDays(week, 7))} rel="next">
          Next week →
        </a>
      </nav>
      <DataTable
        id="timesheet"
        label={`Time logged in the week of ${days[0]}`}
        class="sheet"
        columns={[
          "Person",
          ...days.map((d) => ({ label: `${dayName(d)} ${d.slice(8)}`, hideSm: true })),
          "Total",
          { label: "Billable", hideSm: true },
        ]}
        empty={sheet.people.length === 0 && "No time logged this week."}
        footer={
          <p class="muted small">
            {sheet.people.length} {sheet.people.length === 1 ? "person" : "people"} · {hm(sheet.totals.minutes)} in all,{" "}
            {hm(sheet.totals.billableMinutes)} billable.
          </p>
        }
      >
        {sheet.people.map((p) => (
          <tr>
            <th scope="row">
              {p.name}
              <div class="muted small">
                {Object.entries(p.projects)
                  .map(([k, m]) => `${k} ${hm(m)}`)
                  .join(" · ")}
              </div>
            </th>
            {days.map((d) => (
              <td class="hide-sm num">{p.days[d] ? hm(p.days[d]!) : <span class="muted">·</span>}</td>
            ))}
            <td class="num">
              <strong>{hm(p.minutes)}</strong>
            </td>
            <td class="hide-sm num">{hm(p.billableMinutes)}</td>
          </tr>
        ))}
        <tr class="totals">
          <th scope="row">All</th>
          {days.map((d) => (
            <td class="hide-sm num">{dayTotal(d) ? hm(dayTotal(d)) : <span class="muted">·</span>}</td>
          ))}
          <td class="num">
            <strong>{hm(sheet.totals.minutes)}</strong>
          </td>
          <td class="hide-sm num">{hm(sheet.totals.billableMinutes)}</td>
        </tr>
      </DataTable>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Routes

export function projectPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(PROJECTS_PATH, projectsPage);
  app.get(TIMESHEET_PATH, timesheetPage);
  app.get(`${PROJECTS_PATH}/:key`, (c) => boardPage(c));
  app.get(`${PROJECTS_PATH}/:key/cards/:number`, (c) => cardPage(c));
  app.get(`${PROJECTS_PATH}/:key/sprints/:id`, sprintPage);

  app.post(`${PROJECTS_PATH}/:key/move`, (c) =>
    attempt(
      c,
      async (f) => {
        const key = keyOf(c);
        const id = f.id("card", { label: "Card", required: true })!;
        const columnId = f.id("column", { label: "Column", required: true })!;
        const moved = await moveCard(actorOf(c), { id, columnId });
        if (!moved.key.startsWith(`${key}-`)) throw notFound(`Card ${id} not found.`);
        const back = f.text("back", { max: 200 });
        return `${back && back === cardHref(moved.key) ? back : projectHref(key)}?done=moved`;
      },
      (error) => boardPage(c, { error }),
    ),
  );

  app.post(`${PROJECTS_PATH}/:key/cards`, (c) =>
    attempt(
      c,
      async (f) => {
        const key = keyOf(c);
        const estimate = f.text("estimate", { label: "Estimate", max: 10 });
        if (estimate && !/^\d{1,4}$/.test(estimate)) throw invalid("Estimate must be a whole number of points.");
        const input = parsed(
          cardCreateInput,
          {
            projectId: key,
            title: f.text("title", { label: "Title", max: 255, required: true }),
            columnId: f.id("column", { label: "Column" }),
            ...(estimate ? { estimate: Number(estimate) } : {}),
            ...(f.text("description", { max: 50_000 }) ? { description: f.text("description", { max: 50_000 }) } : {}),
          },
          { title: "Title", estimate: "Estimate", description: "Description", columnId: "Column" },
        );
        const card = await createCard(actorOf(c), input);
        return `${projectHref(key)}?done=created#${encodeURIComponent(String((card as { key: string }).key))}`;
      },
      (error) => {
        const p = c.get("form").params;
        return boardPage(c, {
          error,
          values: Object.fromEntries(
            ["title", "column", "estimate", "description"].map((k) => [k, (p.get(k) ?? "").slice(0, 50_000)]),
          ),
        });
      },
    ),
  );

  const cardRef = (c: Context<PageEnv>) => `${keyOf(c)}-${numberOf(c, "number", "Card")}`;

  app.post(`${PROJECTS_PATH}/:key/cards/:number/comments`, (c) =>
    attempt(
      c,
      async (f) => {
        const ref = cardRef(c);
        const input = parsed(
          commentCreateInput,
          { cardId: ref, body: f.text("body", { label: "Comment", max: 50_000, required: true }) },
          { body: "Comment" },
        );
        const card = await cardOf(actorOf(c), ref);
        await createComment(actorOf(c), { ...input, cardId: card.id as number });
        return `${cardHref(card.key as string)}?done=commented#comments`;
      },
      (error) =>
        cardPage(c, {
          error,
          form: "comment",
          values: { body: (c.get("form").params.get("body") ?? "").slice(0, 50_000) },
        }),
    ),
  );

  app.post(`${PROJECTS_PATH}/:key/cards/:number/checklist`, (c) =>
    attempt(
      c,
      async (f) => {
        const ref = cardRef(c);
        const item = f.id("item", { label: "Checklist item", required: true })!;
        const card = await cardOf(actorOf(c), ref);
        // The item must be this card's: the verb checks the company, the page checks the card it shows.
        if (!card.checklist.items.some((i) => i.id === item))
          throw notFound(`Checklist item ${item} not found on ${card.key}.`);
        await updateChecklistItem(actorOf(c), { id: item, done: f.text("done", { max: 1 }) === "1" });
        return `${cardHref(card.key as string)}?done=ticked#checklist`;
      },
      (error) => cardPage(c, { error, form: "checklist" }),
    ),
  );

  app.post(`${PROJECTS_PATH}/:key/cards/:number/time`, (c) =>
    attempt(
      c,
      async (f) => {
        const ref = cardRef(c);
        const minutes = minutesOf(f.text("minutes", { label: "Time", max: 20, required: true }));
        const workedOn = f.text("worked_on", { label: "Day", max: 10 });
        const note = f.text("note", { label: "Note", max: 500 });
        const input = parsed(
          timeLogCreateInput,
          {
            cardId: ref,
            minutes,
            billable: f.bool("billable"),
            ...(workedOn ? { workedOn } : {}),
            ...(note ? { note } : {}),
          },
          { workedOn: "Day", note: "Note", minutes: "Time" },
        );
        const card = await cardOf(actorOf(c), ref);
        await createTimeLog(actorOf(c), { ...input, cardId: card.id as number });
        return `${cardHref(card.key as string)}?done=logged#time`;
      },
      (error) => {
        const p = c.get("form").params;
        return cardPage(c, {
          error,
          form: "time",
          values: Object.fromEntries(
            ["minutes", "worked_on", "note", "billable"].map((k) => [k, (p.get(k) ?? "").slice(0, 500)]),
          ),
        });
      },
    ),
  );
}
