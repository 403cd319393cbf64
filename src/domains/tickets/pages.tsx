/**
 * Tickets in the portal (issue 31, the third domain page set): the queue
 * with its filters and SLA badges, and one ticket with its thread and the
 * forms an agent works it with (reply, internal note, status, assignment,
 * and "Apply macro": tickets_apply_macro's verb, all parts or none).
 *
 * Every page reads and every form acts through the same verbs as the MCP
 * tools (listTickets, getTicket, listMessages, replyToTicket, addNote,
 * setTicketStatus, assignTicket), called as the signed-in person (actorOf):
 * their role, the company's tenancy and the status transitions are checked
 * exactly where they are for an agent. Owners and admins get the forms;
 * viewers read, and a post of theirs is refused by the verb's own check
 * (403). A ticket number of another company is "not found" inside the
 * lookup (404).
 *
 * A message's files are listed under it and download from
 * /tickets/<number>/files/<id> (attachments.ts serves them: always a
 * download, typed by the sniffed type, nosniff).
 *
 * Nothing needs JavaScript: the filters are a GET form, so a view of the
 * queue is a URL to bookmark. An internal note says "Internal note" in
 * words as well as by its dashed frame, so colour is never the only sign
 * that the requester does not see it.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type { Context, Hono } from "hono";
import type { Deps } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { memberships, users } from "../../core/tables";
import { StatusBadge, type Tone } from "../../ui/badge";
import { FilterSelect } from "../../ui/filters";
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
import { ticketsRead, ticketsWrite } from "./access";
import { attachmentOf, fileResponse, listAttachments } from "./attachments";
import { applyMacro, listMacros } from "./macros";
import { addNote, listMessages, replyToTicket } from "./messages";
import { ticketRating } from "./satisfaction";
import {
  applyMacroInput,
  LIST_STATUSES,
  ticketListInput,
  ticketNoteInput,
  ticketReplyInput,
  ticketStatusInput,
} from "./schemas";
import { TICKET_PRIORITIES, TICKET_STATUSES } from "./tables";
import { assignTicket, getTicket, listTickets, setTicketStatus } from "./tickets";

export const TICKETS_PATH = "/tickets";
const PER_PAGE = 25;
/** The thread shows this many messages a page, oldest first (the verbs' own page limit). */
const THREAD_PAGE = 100;
/** "Due soon" on the queue: a running SLA target due within four hours. */
export const SOON_MS = 4 * 3_600_000;
/** How many tickets the "due soon" filter reads at most, in due order, before it stops. */
const SOON_SCAN = 2_000;
const MAX_BODY_FORM = 60_000;

type Item = Awaited<ReturnType<typeof listTickets>>["items"][number];
type Ticket = Awaited<ReturnType<typeof getTicket>>;
type Message = Ticket["messages"][number];

const ticketHref = (n: number) => `${TICKETS_PATH}/${n}`;

/** A ticket number from the path ("1042"); anything else is a plain 404, never a lookup of text we cannot hold. */
function numberOf(c: Context<PageEnv>): number {
  const raw = c.req.param("number") ?? "";
  if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound(`Ticket ${raw.slice(0, 20)} not found.`);
  return Number(raw);
}

const words = (s: string) => s.replace(/_/g, " ");
const STATUS_TONE: Record<string, Tone> = {
  new: "unread",
  open: "warn",
  pending: "neutral",
  solved: "ok",
  closed: "neutral",
};
const PRIORITY_TONE: Record<string, Tone> = { urgent: "danger", high: "warn", normal: "neutral", low: "neutral" };

/** "35 min", "2 h", "3 d": how far off a due time is, rounded the way a person says it. */
export function inWords(ms: number): string {
  const min = Math.max(1, Math.round(ms / 60_000));
  if (min < 60) return `${min} min`;
  const h = Math.round(min / 60);
  if (h < 48) return `${h} h`;
  return `${Math.round(h / 24)} d`;
}

/** The running SLA target due first (first response while awaited, else resolution), or null when none runs. */
function nextRunning(sla: Item["sla"]): { what: string; dueAt: number } | null {
  const running = [
    sla.firstResponse.state === "running" && sla.firstResponse.dueAt
      ? { what: "first response", dueAt: Date.parse(sla.firstResponse.dueAt) }
      : null,
    sla.resolution.state === "running" && sla.resolution.dueAt
      ? { what: "resolution", dueAt: Date.parse(sla.resolution.dueAt) }
      : null,
  ].filter((x) => x !== null);
  return running.sort((a, b) => a.dueAt - b.dueAt)[0] ?? null;
}

/** The SLA in words and colour: breached (red), due soon (amber, with how soon), ok, paused or met. */
export function slaBadge(t: Pick<Item, "sla" | "breached">, now: number): { text: string; tone: Tone; title: string } {
  if (t.breached.length)
    return {
      text: "SLA breached",
      tone: "danger",
      title: `Breached: ${t.breached.map(words).join(" and ")}`,
    };
  const next = nextRunning(t.sla);
  if (next) {
    const left = next.dueAt - now;
    const at = when(new Date(next.dueAt));
    if (left <= SOON_MS) return { text: `due in ${inWords(left)}`, tone: "warn", title: `${next.what} due ${at}` };
    return { text: "SLA ok", tone: "ok", title: `${next.what} due ${at}` };
  }
  if (t.sla.resolution.state === "paused") return { text: "SLA paused", tone: "neutral", title: "Resolution paused" };
  if (t.sla.firstResponse.state === "met" || t.sla.resolution.state === "met")
    return { text: "SLA met", tone: "ok", title: "Targets met" };
  return { text: "no SLA", tone: "neutral", title: "No target runs" };
}

/** The SQL order of `sort: "due"` (tickets.ts nextDue), read from a listed ticket: the due filter stops where it passes the cut-off. */
function sortDue(t: Item): number | null {
  const fr = t.sla.firstResponse;
  const res = t.sla.resolution.dueAt ? Date.parse(t.sla.resolution.dueAt) : null;
  if (!fr.respondedAt && fr.dueAt && ["new", "open", "pending"].includes(t.status)) {
    const f = Date.parse(fr.dueAt);
    return res !== null && res < f ? res : f;
  }
  return res;
}

const NOTICES: Record<string, string> = {
  replied: "Reply sent to the requester.",
  noted: "Internal note added.",
  status: "Status changed.",
  assigned: "Assignment changed.",
  macro: "Macro applied.",
};

/** What a macro does, in words, for its option in the "Apply macro" list. */
function macroParts(m: {
  body: string | null;
  status: string | null;
  addTags: string[];
  removeTags: string[];
  assigneeId: number | null;
}): string {
  const parts = [
    m.body !== null && "reply",
    m.status !== null && `set ${m.status}`,
    m.addTags.length > 0 && `tag ${m.addTags.join(", ")}`,
    m.removeTags.length > 0 && `untag ${m.removeTags.join(", ")}`,
    m.assigneeId !== null && "assign",
  ].filter(Boolean);
  return parts.join(" · ");
}

/** Runs a form's verb; a refusal the person can act on re-shows the ticket with the reason and the right status. */
async function attempt(
  c: Context<PageEnv>,
  act: (f: Form) => Promise<string>,
  again: (error: string) => Promise<Response>,
): Promise<Response> {
  // Who may act comes before what was typed: a viewer is refused (403) whatever the form holds.
  ticketsWrite(actorOf(c));
  return answerForm(c, () => act(c.get("form")), again);
}

/** Who can be given a ticket: the owners and admins of the active company (the verb checks the pick again). */
async function agentsOf(c: Context<PageEnv>) {
  const actor = actorOf(c);
  return actor.deps.db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.companyId, actor.company.id), inArray(memberships.role, ["owner", "admin"])))
    .orderBy(asc(users.name), asc(users.id));
}

// ---------------------------------------------------------------------------
// The queue

interface Filters {
  status: string;
  assignee: string;
  priority: string;
  sla: string;
  sort: string;
}

/** The queue's filters from the query string; a value the list does not know is a 400 naming it, never a 500. */
function filtersOf(c: Context<PageEnv>): Filters {
  const q = (k: string) => (c.req.query(k) ?? "").trim();
  const f = {
    status: q("status") || "unsolved",
    assignee: q("assignee"),
    priority: q("priority"),
    sla: q("sla"),
    sort: q("sort") || "updated",
  };
  if (f.status !== "any" && !(LIST_STATUSES as readonly string[]).includes(f.status))
    throw invalid(`Status must be one of any, ${LIST_STATUSES.join(", ")}.`);
  if (f.assignee && !["me", "none"].includes(f.assignee) && !/^[1-9]\d{0,14}$/.test(f.assignee))
    throw invalid(`Assignee must be "me", "none" or a person of the list.`);
  if (f.priority && !(TICKET_PRIORITIES as readonly string[]).includes(f.priority))
    throw invalid(`Priority must be one of ${TICKET_PRIORITIES.join(", ")}.`);
  if (f.sla && !["breached", "soon", "ok"].includes(f.sla)) throw invalid("SLA must be breached, soon or ok.");
  if (!["updated", "created", "due", "priority"].includes(f.sort))
    throw invalid("Sort must be updated, created, due or priority.");
  return f;
}

function queueHref(f: Filters, pageNo = 1): string {
  const p = new URLSearchParams();
  if (f.status !== "unsolved") p.set("status", f.status);
  for (const k of ["assignee", "priority", "sla"] as const) if (f[k]) p.set(k, f[k]);
  if (f.sort !== "updated") p.set("sort", f.sort);
  if (pageNo > 1) p.set("page", String(pageNo));
  const s = p.toString();
  return s ? `${TICKETS_PATH}?${s}` : TICKETS_PATH;
}

/**
 * One page of the queue through listTickets. "Due soon" has no filter of
 * its own in the verb: it reads the not-breached tickets in due order
 * (soonest first) and stops at the first one due after the cut-off, so it
 * reads only the soon ones and the next.
 */
async function queueOf(c: Context<PageEnv>, f: Filters, pageNo: number): Promise<{ items: Item[]; total: number }> {
  const actor = actorOf(c);
  const base = parsed(
    ticketListInput,
    {
      ...(f.status !== "any" ? { status: f.status } : {}),
      ...(f.assignee ? { assigneeId: /^\d+$/.test(f.assignee) ? Number(f.assignee) : f.assignee } : {}),
      ...(f.priority ? { priority: f.priority } : {}),
      ...(f.sla === "breached" ? { breached: true } : f.sla ? { breached: false } : {}),
      sort: f.sla === "soon" ? "due" : f.sort,
    },
    { status: "Status", assigneeId: "Assignee", priority: "Priority", sort: "Sort" },
  );
  if (f.sla !== "soon") {
    const list = await listTickets(actor, { ...base, limit: PER_PAGE, offset: (pageNo - 1) * PER_PAGE });
    return { items: list.items, total: list.total };
  }
  const cutoff = actor.deps.clock.now().getTime() + SOON_MS;
  const soon: Item[] = [];
  for (let offset = 0; offset < SOON_SCAN; offset += 100) {
    const chunk = await listTickets(actor, { ...base, limit: 100, offset });
    let past = false;
    for (const t of chunk.items) {
      const due = sortDue(t);
      if (due === null || due > cutoff) {
        past = true;
        break;
      }
      const next = nextRunning(t.sla);
      if (next && next.dueAt <= cutoff) soon.push(t);
    }
    if (past || chunk.items.length < 100) break;
  }
  return { items: soon.slice((pageNo - 1) * PER_PAGE, pageNo * PER_PAGE), total: soon.length };
}

async function queuePage(c: Context<PageEnv>) {
  const viewer = viewerOf(c);
  const f = filtersOf(c);
  const pageNo = pageNoOf(c);
  const [{ items, total }, agents] = await Promise.all([queueOf(c, f, pageNo), agentsOf(c)]);
  const now = actorOf(c).deps.clock.now().getTime();
  const pages = Math.max(1, Math.ceil(total / PER_PAGE));
  const filtered = queueHref(f) !== TICKETS_PATH;
  return render(
    c,
    <Layout title="Tickets" viewer={viewer} path={TICKETS_PATH}>
      <PageHeader
        title={`Tickets of ${viewer.active!.name}`}
        lead={`${total} ticket${total === 1 ? "" : "s"}${filtered ? " match these filters" : " not yet solved"}`}
      />
      <form class="card grid-form" method="get" action={TICKETS_PATH} id="filters" aria-label="Filter tickets">
        <FilterSelect
          name="status"
          label="Status"
          value={f.status}
          options={[
            ["unsolved", "Unsolved"],
            ["any", "Any status"],
            ...TICKET_STATUSES.map((s): [string, string] => [s, s]),
          ]}
        />
        <FilterSelect
          name="assignee"
          label="Assignee"
          value={f.assignee}
          options={[
            ["", "Anyone"],
            ["me", "Me"],
            ["none", "Unassigned"],
            ...agents.map((a): [string, string] => [String(a.id), a.name ?? a.email]),
          ]}
        />
        <FilterSelect
          name="priority"
          label="Priority"
          value={f.priority}
          options={[["", "Any priority"], ...TICKET_PRIORITIES.map((p): [string, string] => [p, p])]}
        />
        <FilterSelect
          name="sla"
          label="SLA"
          value={f.sla}
          options={[
            ["", "Any"],
            ["breached", "Breached"],
            ["soon", "Due within 4 hours"],
            ["ok", "Not breached"],
          ]}
        />
        <FilterSelect
          name="sort"
          label="Order"
          value={f.sort}
          options={[
            ["updated", "Latest activity"],
            ["due", "Due soonest"],
            ["priority", "Priority"],
            ["created", "Newest"],
          ]}
        />
        <div class="actions wide-field">
          <button type="submit">Filter</button>
          {filtered && (
            <a class="button secondary" href={TICKETS_PATH}>
              Clear
            </a>
          )}
        </div>
      </form>
      <DataTable
        id="tickets"
        label="Tickets"
        columns={[
          "Ticket",
          "Status",
          "SLA",
          { label: "Priority", hideSm: true },
          { label: "Assignee", hideSm: true },
          { label: "Updated", hideSm: true },
        ]}
        empty={
          items.length === 0 &&
          (filtered
            ? "No tickets match these filters."
            : "No open tickets. New ones come in by email or tickets_create.")
        }
      >
        {items.map((t) => {
          const sla = slaBadge(t, now);
          return (
            <tr data-ticket={t.id}>
              <td>
                <a href={ticketHref(t.id)}>
                  <span class="muted">#{t.id}</span> {t.subject}
                </a>
                <div class="muted small">{t.requester.name ?? t.requester.email}</div>
              </td>
              <td>
                <StatusBadge tone={STATUS_TONE[t.status] ?? "neutral"}>{t.status}</StatusBadge>
              </td>
              <td class="sla" title={sla.title}>
                <StatusBadge tone={sla.tone}>{sla.text}</StatusBadge>
              </td>
              <td class="hide-sm">
                <StatusBadge tone={PRIORITY_TONE[t.priority] ?? "neutral"}>{t.priority}</StatusBadge>
              </td>
              <td class="hide-sm">
                {t.assignee ? (t.assignee.name ?? t.assignee.email) : <span class="muted">Unassigned</span>}
              </td>
              <td class="hide-sm small">{when(new Date(t.updatedAt))}</td>
            </tr>
          );
        })}
      </DataTable>
      <Pager pageNo={pageNo} pages={pages} href={(n) => queueHref(f, n)} />
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// One ticket

type File = Awaited<ReturnType<typeof listAttachments>>["items"][number];

/** "12 KB": a file's size for people. */
export function sizeInWords(n: number): string {
  if (n < 1024) return `${n} bytes`;
  if (n < 1024 * 1024) return `${Math.round(n / 1024)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

const Files = ({ files, here }: { files: File[]; here: string }) =>
  files.length ? (
    <ul class="files small" aria-label="Attachments">
      {files.map((f) => (
        <li data-file={f.id}>
          <a href={`${here}/files/${f.id}`} download>
            {f.filename}
          </a>{" "}
          <span class="muted">
            {f.mimeType}, {sizeInWords(f.sizeBytes)}
          </span>
        </li>
      ))}
    </ul>
  ) : null;

const Msg = ({ m, requester, files, here }: { m: Message; requester: string; files: File[]; here: string }) => {
  const who = m.user?.name ?? (m.author === "requester" ? requester : m.author === "system" ? "System" : "Agent");
  const role = m.internal
    ? "Internal note"
    : m.author === "requester"
      ? "Requester"
      : m.author === "system"
        ? "System"
        : "Agent";
  return (
    <li
      class={`msg${m.internal ? " note" : m.author === "agent" ? " agent" : ""}`}
      data-kind={m.kind}
      data-author={m.author}
    >
      <p class="who">
        <strong>{role}</strong>
        {role !== who && ` · ${who}`} · {when(new Date(m.createdAt))}
        {m.internal && <span class="muted"> · not shown to the requester</span>}
        {m.mergedFromId !== null && <span class="muted"> · from #{m.mergedFromId}</span>}
      </p>
      <p class="body">{m.body}</p>
      <Files files={files} here={here} />
    </li>
  );
};

const BodyForm = (p: {
  viewer: Viewer;
  action: string;
  id: string;
  label: string;
  button: string;
  value: string;
  error?: string | false;
  children?: unknown;
}) => (
  <form method="post" action={p.action}>
    <Csrf viewer={p.viewer} />
    {p.error && <Notice kind="error">{p.error}</Notice>}
    <label for={p.id}>{p.label}</label>
    <textarea id={p.id} name="body" rows={4} required maxlength={MAX_BODY_FORM}>
      {p.value}
    </textarea>
    <div class="actions">
      {p.children as never}
      <button type="submit">{p.button}</button>
    </div>
  </form>
);

async function ticketPage(
  c: Context<PageEnv>,
  extra: { error?: string; form?: string; values?: Record<string, string> } = {},
) {
  const viewer = viewerOf(c);
  const actor = actorOf(c);
  const number = numberOf(c);
  const t = await getTicket(actor, { id: number });
  const pageNo = pageNoOf(c);
  const thread = await listMessages(actor, {
    ticketId: number,
    limit: THREAD_PAGE,
    offset: (pageNo - 1) * THREAD_PAGE,
  });
  const files = (await listAttachments(actor, { ticketId: number })).items;
  const filesOf = (messageId: number | null) => files.filter((f) => f.messageId === messageId);
  const rating = await ticketRating(actor, number);
  const pages = Math.max(1, Math.ceil(thread.total / THREAD_PAGE));
  const manage = canManage(viewer);
  const agents = manage ? await agentsOf(c) : [];
  // The company's macros, for owners and admins only (a viewer sees no form), read by the tool's own verb.
  const macros = manage && t.status !== "closed" ? (await listMacros(actor, { limit: 100, offset: 0 })).items : [];
  const now = actor.deps.clock.now().getTime();
  const sla = slaBadge(t, now);
  const notice = NOTICES[c.req.query("done") ?? ""];
  const here = ticketHref(t.id);
  const val = (k: string) => extra.values?.[k] ?? "";
  const err = (form: string) => extra.form === form && extra.error;
  const open = t.status !== "closed";
  const due = (x: { state: string; dueAt: string | null }) =>
    `${words(x.state)}${x.dueAt && x.state !== "none" ? ` · due ${when(new Date(x.dueAt))}` : ""}`;
  return render(
    c,
    <Layout title={`#${t.id} ${t.subject}`} viewer={viewer} path={TICKETS_PATH}>
      <p class="crumbs small">
        <a href={TICKETS_PATH}>Tickets</a> / #{t.id}
      </p>
      <h1>
        <span class="muted">#{t.id}</span> {t.subject}
      </h1>
      {notice && <Notice kind="ok">{notice}</Notice>}
      {extra.error && !extra.form && <Notice kind="error">{extra.error}</Notice>}
      <div class="card-layout">
        <div class="card-main">
          <section class="card" aria-labelledby="h-thread" id="thread">
            <h2 id="h-thread">
              Thread{" "}
              <span class="muted small">
                {thread.total} message{thread.total === 1 ? "" : "s"}, oldest first
              </span>
            </h2>
            {"note" in thread && thread.note && <Notice>{thread.note as string}</Notice>}
            {thread.items.length ? (
              <ol class="thread">
                {thread.items.map((m) => (
                  <Msg m={m} requester={t.requester.name ?? t.requester.email} files={filesOf(m.id)} here={here} />
                ))}
              </ol>
            ) : (
              <p class="muted">No messages.</p>
            )}
            <Pager
              pageNo={pageNo}
              pages={pages}
              href={(n) => (n > 1 ? `${here}?page=${n}#thread` : `${here}#thread`)}
            />
          </section>
          {manage && open && (
            <section class="card" aria-labelledby="h-reply" id="reply">
              <h2 id="h-reply">Reply to the requester</h2>
              <BodyForm
                viewer={viewer}
                action={`${here}/reply`}
                id="reply-body"
                label={`Reply, emailed to ${t.requester.email}`}
                button="Send reply"
                value={val("reply")}
                error={err("reply")}
              >
                <label class="inline" for="reply-status">
                  Then set status{" "}
                  <select id="reply-status" name="status">
                    <option value="">as it is</option>
                    {["open", "pending", "solved"].map((s) => (
                      <option value={s} selected={val("status") === s}>
                        {s}
                      </option>
                    ))}
                  </select>
                </label>
              </BodyForm>
            </section>
          )}
          {manage && open && (
            <section class="card" aria-labelledby="h-note" id="note">
              <h2 id="h-note">Internal note</h2>
              <BodyForm
                viewer={viewer}
                action={`${here}/note`}
                id="note-body"
                label="Note for agents, never sent or shown to the requester"
                button="Add note"
                value={val("note")}
                error={err("note")}
              />
            </section>
          )}
          {!manage && <p class="muted small">You can read this ticket; owners and admins reply and change it.</p>}
        </div>
        <aside class="card card-side" aria-label="Ticket details">
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <StatusBadge tone={STATUS_TONE[t.status] ?? "neutral"}>{t.status}</StatusBadge>
            </dd>
            <dt>SLA</dt>
            <dd>
              <StatusBadge tone={sla.tone}>{sla.text}</StatusBadge>
            </dd>
            <dt>First reply</dt>
            <dd class="small">{due(t.sla.firstResponse)}</dd>
            <dt>Resolution</dt>
            <dd class="small">{due(t.sla.resolution)}</dd>
            <dt>Priority</dt>
            <dd>{t.priority}</dd>
            <dt>Requester</dt>
            <dd>
              {t.requester.name && <div>{t.requester.name}</div>}
              <div class="small">{t.requester.email}</div>
            </dd>
            <dt>Assignee</dt>
            <dd>{t.assignee ? (t.assignee.name ?? t.assignee.email) : <span class="muted">Unassigned</span>}</dd>
            {t.tags.length > 0 && (
              <>
                <dt>Tags</dt>
                <dd>
                  {t.tags.map((tag) => (
                    <span class="badge label">{tag}</span>
                  ))}
                </dd>
              </>
            )}
            {rating && (
              <>
                <dt>Satisfaction</dt>
                <dd id="rating">
                  {rating.rating === null ? (
                    <span class="muted">Asked {when(new Date(rating.askedAt))}, not answered</span>
                  ) : (
                    <>
                      <StatusBadge tone={rating.rating === "good" ? "ok" : "danger"}>
                        {rating.rating === "good" ? "Good" : "Bad"}
                      </StatusBadge>
                      {rating.comment && <p class="small">“{rating.comment}”</p>}
                    </>
                  )}
                </dd>
              </>
            )}
            <dt>Opened</dt>
            <dd class="small">{when(new Date(t.createdAt))}</dd>
            {t.mergedIntoId !== null && (
              <>
                <dt>Merged into</dt>
                <dd>
                  <a href={ticketHref(t.mergedIntoId)}>#{t.mergedIntoId}</a>
                </dd>
              </>
            )}
            {t.followUpOfId !== null && (
              <>
                <dt>Follow-up of</dt>
                <dd>
                  <a href={ticketHref(t.followUpOfId)}>#{t.followUpOfId}</a>
                </dd>
              </>
            )}
          </dl>
          {manage && open && (
            <>
              <h2 class="small-h" id="h-status">
                Status
              </h2>
              <form method="post" action={`${here}/status`} id="status">
                <Csrf viewer={viewer} />
                {err("status") && <Notice kind="error">{err("status")}</Notice>}
                <select name="status" aria-labelledby="h-status">
                  {TICKET_STATUSES.map((s) => (
                    <option value={s} selected={s === t.status}>
                      {s}
                    </option>
                  ))}
                </select>
                <div class="actions">
                  <button class="secondary" type="submit">
                    Change status
                  </button>
                </div>
              </form>
              <h2 class="small-h" id="h-assign">
                Assignee
              </h2>
              <form method="post" action={`${here}/assign`} id="assign">
                <Csrf viewer={viewer} />
                {err("assign") && <Notice kind="error">{err("assign")}</Notice>}
                <select name="assignee" aria-labelledby="h-assign">
                  <option value="none" selected={!t.assignee}>
                    Unassigned
                  </option>
                  {agents.map((a) => (
                    <option value={String(a.id)} selected={t.assignee?.id === a.id}>
                      {a.name ?? a.email}
                      {a.id === viewer.user.id ? " (me)" : ""}
                    </option>
                  ))}
                </select>
                <div class="actions">
                  <button class="secondary" type="submit">
                    Assign
                  </button>
                </div>
              </form>
              <h2 class="small-h" id="h-macro">
                Apply macro
              </h2>
              {macros.length ? (
                <form method="post" action={`${here}/macro`} id="macro">
                  <Csrf viewer={viewer} />
                  {err("macro") && <Notice kind="error">{err("macro")}</Notice>}
                  <select name="macro" aria-labelledby="h-macro" required>
                    {macros.map((m) => (
                      <option value={String(m.id)}>
                        {m.name} ({macroParts(m)})
                      </option>
                    ))}
                  </select>
                  <div class="actions">
                    <button class="secondary" type="submit">
                      Apply macro
                    </button>
                  </div>
                </form>
              ) : (
                <p class="muted small">No macros yet: an owner or admin makes them with ticket_macros_create.</p>
              )}
            </>
          )}
        </aside>
      </div>
    </Layout>,
  );
}

// ---------------------------------------------------------------------------
// Routes

export function ticketPages(app: Hono<PageEnv>, _deps: Deps) {
  app.get(TICKETS_PATH, queuePage);
  app.get(`${TICKETS_PATH}/:number`, (c) => ticketPage(c));
  // A file of the ticket, for the signed-in: tenancy and the ticket are checked in the lookup; always a download.
  app.get(`${TICKETS_PATH}/:number/files/:id`, async (c) => {
    const raw = c.req.param("id");
    if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound("No such file.");
    const actor = actorOf(c);
    ticketsRead(actor);
    return fileResponse(actor.deps, await attachmentOf(actor.deps.db, actor, Number(raw), numberOf(c)));
  });

  const bodyOf = (f: Form, label: string) => f.text("body", { label, max: MAX_BODY_FORM, required: true });
  const typed = (c: Context<PageEnv>, k: string) => (c.get("form").params.get(k) ?? "").slice(0, MAX_BODY_FORM);

  app.post(`${TICKETS_PATH}/:number/reply`, (c) =>
    attempt(
      c,
      async (f) => {
        const status = f.text("status", { label: "Status", max: 20 });
        const input = parsed(
          ticketReplyInput,
          { id: numberOf(c), body: bodyOf(f, "Reply"), ...(status ? { status } : {}) },
          { body: "Reply", status: "Status" },
        );
        await replyToTicket(actorOf(c), input);
        return `${ticketHref(input.id)}?done=replied#thread`;
      },
      (error) =>
        ticketPage(c, { error, form: "reply", values: { reply: typed(c, "body"), status: typed(c, "status") } }),
    ),
  );

  app.post(`${TICKETS_PATH}/:number/note`, (c) =>
    attempt(
      c,
      async (f) => {
        const input = parsed(ticketNoteInput, { id: numberOf(c), body: bodyOf(f, "Note") }, { body: "Note" });
        await addNote(actorOf(c), input);
        return `${ticketHref(input.id)}?done=noted#thread`;
      },
      (error) => ticketPage(c, { error, form: "note", values: { note: typed(c, "body") } }),
    ),
  );

  app.post(`${TICKETS_PATH}/:number/status`, (c) =>
    attempt(
      c,
      async (f) => {
        const input = parsed(
          ticketStatusInput,
          { id: numberOf(c), status: f.text("status", { label: "Status", max: 20, required: true }) },
          { status: "Status" },
        );
        await setTicketStatus(actorOf(c), input);
        return `${ticketHref(input.id)}?done=status`;
      },
      (error) => ticketPage(c, { error, form: "status" }),
    ),
  );

  // The same verb as tickets_apply_macro: every part applies, or none does and the reason is shown.
  app.post(`${TICKETS_PATH}/:number/macro`, (c) =>
    attempt(
      c,
      async (f) => {
        const raw = f.text("macro", { label: "Macro", max: 20, required: true });
        if (!/^[1-9]\d{0,14}$/.test(raw)) throw invalid("Macro must be one of the list.");
        const input = parsed(applyMacroInput, { ticketId: numberOf(c), macroId: Number(raw) }, { macroId: "Macro" });
        await applyMacro(actorOf(c), input);
        return `${ticketHref(input.ticketId)}?done=macro#thread`;
      },
      (error) => ticketPage(c, { error, form: "macro" }),
    ),
  );

  app.post(`${TICKETS_PATH}/:number/assign`, (c) =>
    attempt(
      c,
      async (f) => {
        const raw = f.text("assignee", { label: "Assignee", max: 20, required: true });
        if (raw !== "none" && !/^[1-9]\d{0,14}$/.test(raw)) throw invalid("Assignee must be a person of the list.");
        const id = numberOf(c);
        await assignTicket(actorOf(c), { id, assigneeId: raw === "none" ? null : Number(raw) });
        return `${ticketHref(id)}?done=assigned`;
      },
      (error) => ticketPage(c, { error, form: "assign" }),
    ),
  );
}
