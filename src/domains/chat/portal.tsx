/**
 * Live chat in the portal, for the active company's people:
 *
 *   GET  /chat                   conversations, filtered by inbox, status, assignee and text; live
 *   GET  /chat/<number>          one conversation: transcript (notes marked internal), live; forms
 *   GET  /chat/<number>/stream   SSE of that conversation's new messages (session cookie)
 *   GET  /chat/live              SSE of the company's new messages (the list page)
 *   GET  /chat/<number>/files/<id> a file of the conversation (attachments.ts): always a download
 *   POST /chat/<number>/reply | note | assign | snooze | status
 *                                (reply is multipart: its file input attaches files for the visitor)
 *
 * Every action goes through the chat domain's verbs (the same tenancy,
 * roles, audit rows and events as the MCP tools): owners and admins
 * answer, viewers read. Pages work without JavaScript (forms post and come
 * back); with it, one nonce'd inline script follows the SSE stream and
 * adds new messages with textContent — never as HTML — so nothing a visitor
 * wrote can run. The same stream carries conversation changes (status,
 * assignee, priority, labels — made here, by another agent, over MCP or by
 * the snooze job): the page updates those in place, also as text only. Posts pass the portal's formGuard (same origin + CSRF
 * token); the streams are GETs that change nothing. /chat/<number> is the
 * link chat notifications carry.
 */
import { and, asc, eq, inArray, max } from "drizzle-orm";
import type { Context, Hono } from "hono";
import type { ActorContext, Deps } from "../../core/context";
import { AppError, invalid, isAppError, notFound } from "../../core/errors";
import { newNonce } from "../../core/public-page";
import type { Form } from "../../ui/form-data";
import { when } from "../../ui/format";
import { Csrf } from "../../ui/forms";
import { Layout, render } from "../../ui/layout";
import { Notice } from "../../ui/notice";
import { PageHeader } from "../../ui/page-header";
import { Pager } from "../../ui/pager";
import { DataTable } from "../../ui/table";
import { actorOf, viewerOf, canManage, type PageEnv, type Viewer } from "../../ui/signed-in";
import { events } from "../../core/tables";
import { memberships, users } from "../../core/tables";
import { chatRead, chatWrite, conversationByNumber } from "./access";
import { chatFileOf, fileResponse } from "./attachments";
import { storeFiles } from "../tickets/files";
import { messageStream } from "./agent-stream";
import { listCanned } from "./canned";
import {
  addNote,
  assign,
  emailTranscript,
  getConversation,
  listConversations,
  reply,
  setStatus,
  snooze,
  update,
} from "./conversations";
import { listInboxes } from "./inboxes";
import { waitMessages } from "./live";
import { LIMITS } from "./schemas";
import { CHAT_PRIORITIES, CHAT_STATUSES, type ChatPriority, type ChatStatus } from "./tables";

export const CHAT_PATH = "/chat";
/**
 * The portal's streams end after this long and the browser reconnects
 * (resuming by id), which checks the session and membership again: someone
 * removed from the company, or signed out, stops receiving within it.
 * Mutable for tests.
 */
export const PORTAL_STREAM = { maxLifetimeMs: 120_000 };
const PER_PAGE = 25;
const THREAD = 50;

type Filters = {
  inbox: number | null;
  status: ChatStatus | "all" | null;
  assignee: string;
  priority: ChatPriority | null;
  label: string;
  q: string;
  pageNo: number;
};
type Conversation = Awaited<ReturnType<typeof getConversation>>;
type Message = Conversation["messages"]["items"][number];
type Agent = { id: number; label: string };

const STATUS_LABEL: Record<ChatStatus, string> = {
  open: "Open",
  pending: "Pending",
  snoozed: "Snoozed",
  resolved: "Resolved",
};
const STATUS_BADGE: Record<ChatStatus, string> = {
  open: "badge warn",
  pending: "badge",
  snoozed: "badge",
  resolved: "badge ok",
};
const SNOOZES: Record<string, [string, number]> = {
  "60": ["1 hour", 60],
  "240": ["4 hours", 240],
  "1440": ["1 day", 1440],
  "4320": ["3 days", 4320],
  "10080": ["1 week", 10080],
};

/** The chat schemas' label rule (lower-case, 1-40 of a-z 0-9 _ : -). */
const LABEL_RE = /^[a-z0-9][a-z0-9_:-]{0,39}$/;

const whole = (raw: string | undefined) => (raw && /^\d{1,15}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : null);

function filtersOf(c: Context): Filters {
  const st = c.req.query("status") ?? "";
  const assignee = c.req.query("assignee") ?? "";
  return {
    inbox: whole(c.req.query("inbox")),
    status: st === "all" || (CHAT_STATUSES as readonly string[]).includes(st) ? (st as ChatStatus | "all") : null,
    assignee: assignee === "me" || assignee === "none" || whole(assignee) !== null ? assignee : "",
    priority: (CHAT_PRIORITIES as readonly string[]).includes(c.req.query("priority") ?? "")
      ? (c.req.query("priority") as ChatPriority)
      : null,
    label: LABEL_RE.test((c.req.query("label") ?? "").trim().toLowerCase())
      ? (c.req.query("label") ?? "").trim().toLowerCase()
      : "",
    q: (c.req.query("q") ?? "").trim().slice(0, 200),
    pageNo: whole(c.req.query("page")) ?? 1,
  };
}

function listHref(f: Filters, pageNo = f.pageNo) {
  const q = new URLSearchParams();
  if (f.inbox) q.set("inbox", String(f.inbox));
  if (f.status) q.set("status", f.status);
  if (f.assignee) q.set("assignee", f.assignee);
  if (f.priority) q.set("priority", f.priority);
  if (f.label) q.set("label", f.label);
  if (f.q) q.set("q", f.q);
  if (pageNo > 1) q.set("page", String(pageNo));
  const s = q.toString();
  return s ? `${CHAT_PATH}?${s}` : CHAT_PATH;
}

/** Owners and admins of the company: the people a conversation can be assigned to. */
async function agentsOf(ctx: ActorContext): Promise<Agent[]> {
  const rows = await ctx.deps.db
    .select({ id: users.id, name: users.name, email: users.email })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.companyId, ctx.company.id), inArray(memberships.role, ["owner", "admin"])))
    .orderBy(asc(users.email));
  return rows.map((r) => ({ id: r.id, label: r.name ? `${r.name} (${r.email})` : r.email }));
}

const visitorName = (v: { name: string | null; email: string | null }) => v.name ?? v.email ?? "Visitor";

/** Script shared by both pages: follow an SSE URL and hand each message to `on`. Messages are put on the page as text only. */
const LIVE_JS = String.raw`
function follow(url, on, onConversation) {
  var es = new EventSource(url);
  es.addEventListener("message", function (ev) { try { on(JSON.parse(ev.data)); } catch (e) {} });
  es.addEventListener("conversation", function (ev) { try { onConversation(JSON.parse(ev.data)); } catch (e) {} });
  es.addEventListener("open", function () { var s = document.getElementById("live"); if (s) s.dataset.state = "live"; });
  return es;
}
function el(tag, cls, text) { var e = document.createElement(tag); if (cls) e.className = cls; if (text !== undefined) e.textContent = text; return e; }
function stamp(iso) { return iso.slice(0, 16).replace("T", " ") + " UTC"; }
var STATUS = { open: ["Open", "badge warn"], pending: ["Pending", "badge"], snoozed: ["Snoozed", "badge"], resolved: ["Resolved", "badge ok"] };
function person(u) { return u ? (u.name || u.email) : null; }
function badge(node, status) { var b = STATUS[status] || [status, "badge"]; node.textContent = b[0]; node.className = b[1]; }
function show(id, on) { var e = document.getElementById(id); if (e) e.hidden = !on; }
`;

const THREAD_JS = String.raw`
(function () {
  var list = document.getElementById("thread");
  if (!list) return;
  var n = list.dataset.conversation;
  var visitor = list.dataset.visitor;
  // An older page of the thread stays as it is; the newest page follows along.
  if (list.dataset.live === "1") follow("/chat/" + n + "/stream?after=" + list.dataset.after + "&changes=" + list.dataset.changes, function (m) {
    if (document.getElementById("m" + m.id)) return;
    var li = el("li", "msg " + m.kind);
    li.id = "m" + m.id;
    var who = m.kind === "visitor" ? visitor : (m.user && m.user.name) || "Agent";
    li.appendChild(el("p", "who", who + " · " + stamp(m.createdAt) + (m.kind === "note" ? " · Internal note, never shown to the visitor" : "")));
    li.appendChild(el("p", "body", m.body));
    list.appendChild(li);
    var empty = document.getElementById("no-messages");
    if (empty) empty.remove();
    // A visitor's message reopens a pending, snoozed or resolved conversation (the server's rule).
    if (m.kind === "visitor") { var st = document.getElementById("status"); if (st) { st.textContent = "Open"; st.className = "badge warn"; } }
    li.scrollIntoView({ block: "nearest" });
  }, function (c) {
    // Another agent (or an agent over MCP) changed the conversation: the header and the forms follow, as text.
    badge(document.getElementById("status"), c.status);
    document.getElementById("snoozed").textContent = c.snoozedUntil ? " until " + stamp(c.snoozedUntil) : "";
    document.getElementById("assignee").textContent = person(c.assignee) || "nobody";
    document.getElementById("priority").textContent = c.priority !== "none" ? " · priority " + c.priority : "";
    document.getElementById("labels").textContent = c.labels.length ? " · " + c.labels.join(", ") : "";
    show("act-resolve", c.status !== "resolved");
    show("act-open", c.status !== "open");
    show("act-pending", c.status !== "pending" && c.status !== "resolved");
    show("snooze-form", c.status !== "resolved");
    var reopen = document.querySelector("#act-open button");
    if (reopen) reopen.textContent = c.status === "resolved" ? "Reopen" : "Open";
    var to = document.getElementById("assign-to");
    if (to) to.value = c.assignee ? String(c.assignee.id) : "";
    var pr = document.getElementById("update-priority");
    if (pr) pr.value = c.priority;
    var was = document.getElementById("labels-was"), typed = document.getElementById("update-labels");
    // Labels someone is typing stay; an untouched box shows the new ones.
    if (was && typed) { if (typed.value === was.value) typed.value = c.labels.join(", "); was.value = c.labels.join(", "); }
    var note = document.getElementById("changed");
    if (note) note.textContent = "Updated " + stamp(new Date().toISOString()) + ": " + (STATUS[c.status] || [c.status])[0] + ", assigned to " + (person(c.assignee) || "nobody") + ".";
  });
  var pick = document.getElementById("reply-canned");
  var body = document.getElementById("reply-body");
  if (pick && body) pick.addEventListener("change", function () {
    var o = pick.options[pick.selectedIndex];
    if (!o || !o.dataset.content) return;
    var first = (visitor.trim().split(/\s+/)[0]) || "there";
    if (list.dataset.named !== "1") first = "there";
    body.value = o.dataset.content.replace(/\{\{\s*name\s*\}\}/g, first);
    pick.selectedIndex = 0;
    body.focus();
  });
})();
`;

const LIST_JS = String.raw`
(function () {
  var box = document.getElementById("live");
  if (!box) return;
  follow("/chat/live?after=" + box.dataset.after + "&changes=" + box.dataset.changes, function (m) {
    if (m.kind === "note") return;
    var row = document.getElementById("c" + m.conversationId);
    if (row) { row.className = "fresh"; var last = row.querySelector(".last"); if (last) last.textContent = stamp(m.createdAt); }
    var who = m.kind === "visitor" ? (m.visitor.name || m.visitor.email || "A visitor") : (m.user && m.user.name) || "An agent";
    var a = el("a", "", "#" + m.conversationId);
    a.href = "/chat/" + m.conversationId;
    var p = el("p", "small");
    p.appendChild(document.createTextNode("New message in "));
    p.appendChild(a);
    p.appendChild(document.createTextNode(" from " + who + ": " + m.body.slice(0, 120)));
    box.insertBefore(p, box.firstChild);
    while (box.childNodes.length > 5) box.removeChild(box.lastChild);
  }, function (c) {
    var row = document.getElementById("c" + c.id);
    if (!row) return;
    row.className = "fresh";
    badge(row.querySelector(".status .badge"), c.status);
    row.querySelector(".status .snz").textContent = c.snoozedUntil ? " until " + stamp(c.snoozedUntil) : "";
    row.querySelector(".assignee").textContent = person(c.assignee) || "—";
    var prio = row.querySelector(".prio");
    prio.textContent = c.priority !== "none" ? " " + c.priority : "";
    prio.className = c.priority !== "none" ? "badge warn prio" : "prio";
    var labels = row.querySelector(".labels");
    while (labels.firstChild) labels.removeChild(labels.firstChild);
    c.labels.forEach(function (l) { labels.appendChild(el("span", "badge", " " + l)); });
  });
})();
`;

const Script = (p: { nonce: string; js: string }) => (
  <script nonce={p.nonce} dangerouslySetInnerHTML={{ __html: LIVE_JS + p.js }} />
);

type ListData = Awaited<ReturnType<typeof listConversations>>;

const ListPage = (p: {
  viewer: Viewer;
  data: ListData;
  f: Filters;
  inboxes: { id: number; name: string }[];
  agents: Agent[];
  cursor: number;
  changes: number;
  nonce: string;
}) => {
  const { f } = p;
  const pages = Math.max(1, Math.ceil(p.data.total / PER_PAGE));
  return (
    <Layout title="Chat" viewer={p.viewer} path={CHAT_PATH}>
      <PageHeader
        title={`Chat of ${p.viewer.active!.name}`}
        lead={
          <>
            {p.data.total} conversation{p.data.total === 1 ? "" : "s"}
            {f.status === null ? " open or pending" : f.status === "all" ? "" : ` ${f.status}`}.
            {!canManage(p.viewer) && " You can read them; owners and admins answer."}
          </>
        }
      />
      <form class="card" method="get" action={CHAT_PATH} aria-label="Filter conversations">
        <label for="f-q">Search (text, visitor name or email, #number)</label>
        <input type="text" id="f-q" name="q" maxlength={200} value={f.q} />
        <label for="f-status">Status</label>
        <select id="f-status" name="status">
          <option value="" selected={f.status === null}>
            Open and pending
          </option>
          {CHAT_STATUSES.map((s) => (
            <option value={s} selected={f.status === s}>
              {STATUS_LABEL[s]}
            </option>
          ))}
          <option value="all" selected={f.status === "all"}>
            All
          </option>
        </select>
        <label for="f-inbox">Inbox</label>
        <select id="f-inbox" name="inbox">
          <option value="">All inboxes</option>
          {p.inboxes.map((i) => (
            <option value={String(i.id)} selected={f.inbox === i.id}>
              {i.name}
            </option>
          ))}
        </select>
        <label for="f-assignee">Assignee</label>
        <select id="f-assignee" name="assignee">
          <option value="">Anyone</option>
          <option value="me" selected={f.assignee === "me"}>
            Me
          </option>
          <option value="none" selected={f.assignee === "none"}>
            Unassigned
          </option>
          {p.agents.map((a) => (
            <option value={String(a.id)} selected={f.assignee === String(a.id)}>
              {a.label}
            </option>
          ))}
        </select>
        <label for="f-priority">Priority</label>
        <select id="f-priority" name="priority">
          <option value="">Any</option>
          {CHAT_PRIORITIES.map((x) => (
            <option value={x} selected={f.priority === x}>
              {x}
            </option>
          ))}
        </select>
        <label for="f-label">Label</label>
        <input type="text" id="f-label" name="label" maxlength={40} value={f.label} placeholder="billing" />
        <div class="actions">
          <button type="submit">Filter</button>
          <a href={CHAT_PATH}>Clear</a>
        </div>
      </form>
      <div
        id="live"
        class="live"
        aria-live="polite"
        data-after={String(p.cursor)}
        data-changes={String(p.changes)}
      ></div>
      <DataTable
        id="conversations"
        columns={[
          "#",
          "Visitor",
          "Status",
          { label: "Inbox", hideSm: true },
          { label: "Assignee", hideSm: true },
          "Last message",
        ]}
        empty={p.data.items.length === 0 && "No conversations match."}
      >
        {p.data.items.map((c) => (
          <tr id={`c${c.id}`}>
            <td>
              <a href={`${CHAT_PATH}/${c.id}`}>{c.ref}</a>
            </td>
            <td>
              <a href={`${CHAT_PATH}/${c.id}`}>{visitorName(c.visitor)}</a>
              {c.waitingSince && <span class="badge warn"> waiting</span>}
              <span class={c.priority !== "none" ? "badge warn prio" : "prio"}>
                {c.priority !== "none" ? ` ${c.priority}` : ""}
              </span>
              <span class="labels">
                {c.labels.map((l) => (
                  <span class="badge"> {l}</span>
                ))}
              </span>
            </td>
            <td class="status">
              <span class={STATUS_BADGE[c.status]}>{STATUS_LABEL[c.status]}</span>
              <span class="muted small snz">{c.snoozedUntil ? ` until ${when(new Date(c.snoozedUntil))}` : ""}</span>
            </td>
            <td class="hide-sm">{c.inbox.name}</td>
            <td class="hide-sm assignee">{c.assignee ? (c.assignee.name ?? c.assignee.email) : "—"}</td>
            <td class="last">{when(new Date(c.lastMessageAt))}</td>
          </tr>
        ))}
      </DataTable>
      <Pager pageNo={f.pageNo} pages={pages} href={(n) => listHref(f, n)} />
      <Script nonce={p.nonce} js={LIST_JS} />
    </Layout>
  );
};

const MessageItem = (p: { m: Message; visitor: string; number: number }) => {
  const { m } = p;
  const who = m.kind === "visitor" ? p.visitor : (m.user?.name ?? "Agent");
  return (
    <li class={`msg ${m.kind}`} id={`m${m.id}`}>
      <p class="who">
        {who} · {when(new Date(m.createdAt))}
        {m.internal && " · Internal note, never shown to the visitor"}
      </p>
      <p class="body">{m.body}</p>
      {"files" in m &&
        m.files?.map((f) => (
          <p class="file">
            <a href={`${CHAT_PATH}/${p.number}/files/${f.id}`} download="">
              {f.filename}
            </a>{" "}
            <span class="muted small">
              {f.mimeType}, {f.sizeBytes} bytes
            </span>
          </p>
        ))}
    </li>
  );
};

interface ConvExtra {
  error?: { form: string; message: string };
  notice?: string;
  values?: Record<string, string>;
}

const ConversationPage = (
  p: {
    viewer: Viewer;
    conv: Conversation;
    canned: { id: number; shortCode: string; content: string }[];
    agents: Agent[];
    nonce: string;
    me: number;
    changes: number;
  } & ConvExtra,
) => {
  const c = p.conv;
  const manage = canManage(p.viewer);
  const visitor = visitorName(c.visitor);
  const msgs = c.messages;
  const lastId = msgs.items.length ? msgs.items[msgs.items.length - 1]!.id : 0;
  const err = (form: string) => p.error?.form === form && <Notice kind="error">{p.error.message}</Notice>;
  const val = (k: string) => p.values?.[k] ?? "";
  const action = (
    id: string,
    shown: boolean,
    path: string,
    label: string,
    fields: Record<string, string>,
    cls = "secondary",
  ) => (
    <form class="inline" id={id} hidden={!shown} method="post" action={`${CHAT_PATH}/${c.id}/${path}`}>
      <Csrf viewer={p.viewer} />
      {Object.entries(fields).map(([k, v]) => (
        <input type="hidden" name={k} value={v} />
      ))}
      <button class={cls} type="submit">
        {label}
      </button>
    </form>
  );
  return (
    <Layout title={`Chat ${c.ref}`} viewer={p.viewer} path={`${CHAT_PATH}/${c.id}`}>
      <p class="small">
        <a href={CHAT_PATH}>← Conversations</a>
      </p>
      <h1>
        {c.ref} · {visitor}
      </h1>
      <p class="lead">
        <span id="status" class={STATUS_BADGE[c.status]}>
          {STATUS_LABEL[c.status]}
        </span>
        <span id="snoozed">{c.snoozedUntil ? ` until ${when(new Date(c.snoozedUntil))}` : ""}</span> · {c.inbox.name}
        {c.visitor.email && <> · {c.visitor.email}</>} · assigned to{" "}
        <span id="assignee">{c.assignee ? (c.assignee.name ?? c.assignee.email) : "nobody"}</span>
        <span id="priority">{c.priority !== "none" ? ` · priority ${c.priority}` : ""}</span>
        <span id="labels">{c.labels.length > 0 ? ` · ${c.labels.join(", ")}` : ""}</span>
      </p>
      <p id="changed" class="muted small" aria-live="polite"></p>
      {c.pageUrl && (
        <p class="muted small">
          Started on <code>{c.pageUrl}</code>
        </p>
      )}
      {p.notice && <Notice kind="ok">{p.notice}</Notice>}
      {p.error && !manage && <Notice kind="error">{p.error.message}</Notice>}

      <div class="card">
        {msgs.previousOffset !== null && (
          <p class="small">
            <a href={`${CHAT_PATH}/${c.id}?offset=${msgs.previousOffset}`}>Earlier messages</a>
          </p>
        )}
        {msgs.nextOffset !== null && (
          <p class="small">
            Older messages. <a href={`${CHAT_PATH}/${c.id}`}>Newest messages (live)</a>
          </p>
        )}
        <ol
          class="thread"
          id="thread"
          aria-label="Messages"
          aria-live="polite"
          data-conversation={String(c.id)}
          data-after={String(lastId)}
          data-visitor={visitor}
          data-named={c.visitor.name ? "1" : "0"}
          data-live={msgs.nextOffset === null ? "1" : "0"}
          data-changes={String(p.changes)}
        >
          {msgs.items.map((m) => (
            <MessageItem m={m} visitor={visitor} number={c.id} />
          ))}
        </ol>
        {msgs.items.length === 0 && (
          <p class="muted" id="no-messages">
            No messages yet.
          </p>
        )}
        <p id="live" class="live muted small"></p>
      </div>

      {manage ? (
        <>
          <h2 id="composer">Reply to {visitor}</h2>
          <form class="card" method="post" action={`${CHAT_PATH}/${c.id}/reply`} enctype="multipart/form-data">
            <Csrf viewer={p.viewer} />
            {err("reply")}
            <label for="reply-body">Message (the visitor sees it at once)</label>
            <textarea id="reply-body" name="body" rows={4} maxlength={LIMITS.body}>
              {val("body")}
            </textarea>
            {p.canned.length > 0 && (
              <>
                <label for="reply-canned">Or a canned response</label>
                <select id="reply-canned" name="canned">
                  <option value="">—</option>
                  {p.canned.map((r) => (
                    <option value={r.shortCode} data-content={r.content} selected={val("canned") === r.shortCode}>
                      {r.shortCode}: {r.content.slice(0, 80)}
                    </option>
                  ))}
                </select>
              </>
            )}
            <label for="reply-files">Files (the visitor can download them)</label>
            <input id="reply-files" type="file" name="file" multiple />
            <label for="reply-status">Then</label>
            <select id="reply-status" name="status">
              <option value="">keep the status</option>
              <option value="pending">mark pending (waiting on the visitor)</option>
              <option value="resolved">resolve</option>
            </select>
            <div class="actions">
              <button type="submit">Send reply</button>
            </div>
          </form>

          <h2>Internal note</h2>
          <form class="card" method="post" action={`${CHAT_PATH}/${c.id}/note`}>
            <Csrf viewer={p.viewer} />
            {err("note")}
            <label for="note-body">Note for the team (never shown or sent to the visitor)</label>
            <textarea id="note-body" name="body" rows={2} maxlength={LIMITS.body}>
              {val("note")}
            </textarea>
            <div class="actions">
              <button class="secondary" type="submit">
                Add note
              </button>
            </div>
          </form>

          <h2>Manage</h2>
          <div class="card">
            {err("manage")}
            <div class="actions">
              {/* All rendered, the ones that do not apply hidden: a change pushed live shows the right ones. */}
              {action("act-resolve", c.status !== "resolved", "status", "Resolve", { status: "resolved" }, "")}
              {action("act-open", c.status !== "open", "status", c.status === "resolved" ? "Reopen" : "Open", {
                status: "open",
              })}
              {action("act-pending", c.status !== "pending" && c.status !== "resolved", "status", "Mark pending", {
                status: "pending",
              })}
            </div>
            <form class="switcher actions" method="post" action={`${CHAT_PATH}/${c.id}/assign`}>
              <Csrf viewer={p.viewer} />
              <label class="inline" for="assign-to">
                Assign to
              </label>
              <select id="assign-to" name="assignee">
                <option value="">Nobody</option>
                {p.agents.map((a) => (
                  <option value={String(a.id)} selected={c.assignee?.id === a.id}>
                    {a.id === p.me ? `Me — ${a.label}` : a.label}
                  </option>
                ))}
              </select>
              <button class="secondary" type="submit">
                Assign
              </button>
            </form>
            <form class="switcher actions" method="post" action={`${CHAT_PATH}/${c.id}/update`}>
              <Csrf viewer={p.viewer} />
              <input type="hidden" id="labels-was" name="was" value={c.labels.join(", ")} />
              <label class="inline" for="update-priority">
                Priority
              </label>
              <select id="update-priority" name="priority">
                {CHAT_PRIORITIES.map((x) => (
                  <option value={x} selected={c.priority === x}>
                    {x}
                  </option>
                ))}
              </select>
              <label class="inline" for="update-labels">
                Labels
              </label>
              <input
                type="text"
                id="update-labels"
                name="labels"
                maxlength={900}
                value={p.values?.labels ?? c.labels.join(", ")}
                placeholder="billing, vip"
              />
              <button class="secondary" type="submit">
                Save
              </button>
            </form>
            <form
              class="switcher actions"
              id="snooze-form"
              hidden={c.status === "resolved"}
              method="post"
              action={`${CHAT_PATH}/${c.id}/snooze`}
            >
              <Csrf viewer={p.viewer} />
              <label class="inline" for="snooze-for">
                Snooze for
              </label>
              <select id="snooze-for" name="for">
                {Object.entries(SNOOZES).map(([k, [label]]) => (
                  <option value={k}>{label}</option>
                ))}
              </select>
              <label class="inline" for="snooze-until">
                or until (UTC)
              </label>
              <input
                type="text"
                id="snooze-until"
                name="until"
                maxlength={20}
                placeholder="2026-03-02 09:00"
                value={val("until")}
              />
              <button class="secondary" type="submit">
                Snooze
              </button>
            </form>
            <form class="switcher actions" method="post" action={`${CHAT_PATH}/${c.id}/transcript`}>
              <Csrf viewer={p.viewer} />
              <label class="inline" for="transcript-to">
                Email the transcript (never notes) to
              </label>
              <input
                type="email"
                id="transcript-to"
                name="to"
                maxlength={254}
                value={p.values?.to ?? c.visitor.email ?? ""}
                placeholder="visitor@example.com"
              />
              <button class="secondary" type="submit">
                Send transcript
              </button>
            </form>
          </div>
        </>
      ) : (
        <p class="muted">You can read this conversation; owners and admins of {p.viewer.active!.name} answer chats.</p>
      )}
      <Script nonce={p.nonce} js={THREAD_JS} />
    </Layout>
  );
};

const NOTICES: Record<string, string> = {
  replied: "Reply sent.",
  noted: "Note added (the visitor does not see it).",
  assigned: "Assignment saved.",
  snoozed: "Snoozed.",
  status: "Status changed.",
  updated: "Priority and labels saved.",
  transcript: "Transcript queued for email (visitor and agent messages only, never notes).",
};

function numberOf(raw: string): number {
  const n = whole(raw);
  if (n === null) throw new AppError("not_found", "No such conversation.");
  return n;
}

/** "2026-03-02 09:00" or "2026-03-02T09:00" (UTC) → an ISO instant. */
function untilOf(raw: string): string {
  const m = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})$/.exec(raw);
  const d = m ? new Date(`${m[1]}T${m[2]}:00Z`) : null;
  if (!d || Number.isNaN(d.getTime()) || d.toISOString().slice(0, 16) !== `${m![1]}T${m![2]}`)
    throw invalid("Snooze until must be a UTC date and time like 2026-03-02 09:00.");
  return d.toISOString();
}

/** The newest event of the company now: a page's stream pushes conversation changes after it. */
async function changeCursor(ctx: ActorContext): Promise<number> {
  chatRead(ctx);
  return (
    (
      await ctx.deps.db
        .select({ m: max(events.id) })
        .from(events)
        .where(eq(events.companyId, ctx.company.id))
    )[0]?.m ?? 0
  );
}

/** Where a stream resumes: the browser's Last-Event-ID (`<message id>-<event id>`, as the stream writes them) or the page's cursors. */
function resumeAt(c: Context): { after: number | null; changes: number | null } {
  const m = /^(\d{1,15})-(\d{1,15})$/.exec(c.req.header("last-event-id") ?? "");
  // A message cursor of 0 means "nothing yet" (no backlog to replay); an event cursor of 0 means "from the company's first event".
  if (m) return { after: whole(m[1]), changes: Number(m[2]) };
  const raw = c.req.query("changes");
  return {
    after: whole(c.req.header("last-event-id")) ?? whole(c.req.query("after")),
    changes: raw && /^\d{1,15}$/.test(raw) ? Number(raw) : null,
  };
}

export function chatPortalRoutes(app: Hono<PageEnv>, deps: Deps) {
  app.get(CHAT_PATH, async (c) => {
    const ctx = actorOf(c);
    const f = filtersOf(c);
    // Read before the list: a change committed after it comes down the stream (a repeat only shows the same state again).
    const changes = await changeCursor(ctx);
    const data = await listConversations(ctx, {
      status: f.status ?? undefined,
      inboxId: f.inbox ?? undefined,
      assigneeId:
        f.assignee === "" ? undefined : f.assignee === "me" || f.assignee === "none" ? f.assignee : Number(f.assignee),
      priority: f.priority ?? undefined,
      label: f.label || undefined,
      q: f.q || undefined,
      limit: PER_PAGE,
      offset: (f.pageNo - 1) * PER_PAGE,
    });
    const inboxes = (await listInboxes(ctx, { limit: 100, offset: 0 })).items;
    // Where the live feed starts: the newest message now (the list above is read before it, so nothing falls between).
    const cursor = (await waitMessages(ctx, { timeoutSeconds: 0 })).cursor;
    const nonce = newNonce();
    return render(
      c,
      <ListPage
        viewer={viewerOf(c)}
        data={data}
        f={f}
        inboxes={inboxes}
        agents={await agentsOf(ctx)}
        cursor={cursor}
        changes={changes}
        nonce={nonce}
      />,
      {
        scriptNonce: nonce,
      },
    );
  });

  // Before /chat/:number: "live" is not a number.
  app.get(`${CHAT_PATH}/live`, async (c) => {
    const ctx = actorOf(c);
    chatRead(ctx);
    const at = resumeAt(c);
    return messageStream(ctx, c.req.raw.signal, {
      after: at.after,
      changes: { after: at.changes },
      maxLifetimeMs: PORTAL_STREAM.maxLifetimeMs,
    });
  });

  const page = async (c: Context<PageEnv>, number: number, extra: ConvExtra = {}) => {
    const ctx = actorOf(c);
    const offRaw = c.req.query("offset");
    const offset = offRaw && /^\d{1,9}$/.test(offRaw) ? Number(offRaw) : undefined;
    const changes = await changeCursor(ctx);
    const conv = await getConversation(ctx, { id: number, limit: THREAD, offset });
    const manage = canManage(viewerOf(c));
    const canned = manage ? (await listCanned(ctx, { limit: 100, offset: 0 })).items : [];
    const nonce = newNonce();
    return {
      nonce,
      page: (
        <ConversationPage
          viewer={viewerOf(c)}
          conv={conv}
          canned={canned}
          agents={manage ? await agentsOf(ctx) : []}
          nonce={nonce}
          me={viewerOf(c).user.id}
          changes={changes}
          {...extra}
        />
      ),
    };
  };

  app.get(`${CHAT_PATH}/:number{[0-9]+}`, async (c) => {
    const p = await page(c, numberOf(c.req.param("number")), { notice: NOTICES[c.req.query("done") ?? ""] });
    return render(c, p.page, { scriptNonce: p.nonce });
  });

  // A file of the conversation, for the signed-in: tenancy and the conversation are checked in the lookup; always a download.
  app.get(`${CHAT_PATH}/:number{[0-9]+}/files/:id`, async (c) => {
    const raw = c.req.param("id");
    if (!/^[1-9]\d{0,14}$/.test(raw)) throw notFound("No such file.");
    const ctx = actorOf(c);
    chatRead(ctx);
    return fileResponse(deps, await chatFileOf(deps.db, ctx, Number(raw), numberOf(c.req.param("number"))));
  });

  app.get(`${CHAT_PATH}/:number{[0-9]+}/stream`, async (c) => {
    const ctx = actorOf(c);
    chatRead(ctx);
    const conv = await conversationByNumber(deps.db, ctx, numberOf(c.req.param("number")));
    const at = resumeAt(c);
    return messageStream(ctx, c.req.raw.signal, {
      after: at.after,
      conversationRowId: conv.id,
      changes: { after: at.changes, number: conv.number },
      maxLifetimeMs: PORTAL_STREAM.maxLifetimeMs,
    });
  });

  /** Runs an action's verb; a refusal re-shows the conversation with the reason beside its form. */
  const act = (
    name: string,
    form: string,
    keep: string[],
    fn: (ctx: ActorContext, id: number, f: Form) => Promise<unknown>,
    done: string,
  ) =>
    app.post(`${CHAT_PATH}/:number{[0-9]+}/${name}`, async (c) => {
      const id = numberOf(c.req.param("number"));
      const f = c.get("form");
      // Another company's (or no) conversation is a plain 404, like a page view; a missing canned response below is the form's error.
      await conversationByNumber(deps.db, actorOf(c), id);
      try {
        await fn(actorOf(c), id, f);
        return c.redirect(
          `${CHAT_PATH}/${id}?done=${done}${form === "reply" || form === "note" ? "#composer" : ""}`,
          303,
        );
      } catch (e) {
        if (
          !isAppError(e) ||
          !["validation", "conflict", "forbidden", "not_found", "payload_too_large"].includes(e.code)
        )
          throw e;
        const values = Object.fromEntries(
          keep.map((k) => [
            k === "body" && form === "note" ? "note" : k,
            (f.params.get(k) ?? "").slice(0, LIMITS.body),
          ]),
        );
        const p = await page(c, id, { error: { form, message: e.message }, values });
        return render(c, p.page, {
          scriptNonce: p.nonce,
          status:
            e.code === "forbidden" ? 403 : e.code === "conflict" ? 409 : e.code === "payload_too_large" ? 413 : 400,
        });
      }
    });

  act(
    "reply",
    "reply",
    ["body", "canned"],
    async (ctx, id, f) => {
      const body = f.params.get("body") ?? "";
      f.text("body", { label: "Message", max: LIMITS.body });
      const canned = f.text("canned", { label: "Canned response", max: LIMITS.shortCode });
      const status = f.text("status", { label: "Then", max: 10 });
      if (status && status !== "pending" && status !== "resolved" && status !== "open")
        throw invalid("Choose what happens after the reply from the list.");
      const hasBody = /\S/.test(body);
      const picked = f.files("file");
      if (hasBody && canned) throw invalid("Write a message or pick a canned response, not both.");
      if (!hasBody && !canned && !picked.length)
        throw invalid("Write a message or pick a canned response. Or attach a file.");
      // Refused before anything is stored: a viewer's files never reach the store.
      chatWrite(ctx);
      const stored = await storeFiles(
        ctx.deps,
        ctx.company.id,
        await Promise.all(
          picked.map(async (x) => ({
            filename: x.name.replace(/%22/g, '"'),
            bytes: new Uint8Array(await x.arrayBuffer()),
            declared: x.type,
          })),
        ),
        "The file",
      );
      await reply(
        ctx,
        {
          id,
          body: hasBody ? body : undefined,
          cannedId: canned || undefined,
          status: (status || undefined) as "pending" | undefined,
        },
        stored,
      );
    },
    "replied",
  );

  act(
    "note",
    "note",
    ["body"],
    async (ctx, id, f) => {
      const body = f.params.get("body") ?? "";
      f.text("body", { label: "Note", max: LIMITS.body });
      if (!/\S/.test(body)) throw invalid("Write the note first.");
      await addNote(ctx, { id, body });
    },
    "noted",
  );

  act(
    "assign",
    "manage",
    [],
    async (ctx, id, f) => {
      const raw = f.text("assignee", { label: "Assign to", max: 20 });
      const who = raw === "" ? null : raw === "me" ? "me" : whole(raw);
      if (who === null && raw !== "") throw invalid("Choose someone from the list.");
      await assign(ctx, { id, assigneeId: who });
    },
    "assigned",
  );

  act(
    "snooze",
    "manage",
    ["until"],
    async (ctx, id, f) => {
      const until = f.text("until", { label: "Snooze until", max: 20 });
      if (until) return await snooze(ctx, { id, until: untilOf(until) });
      const minutes = SNOOZES[f.text("for", { label: "Snooze for", max: 6 })]?.[1];
      if (!minutes) throw invalid("Choose how long to snooze for from the list, or give a time.");
      await snooze(ctx, { id, minutes });
    },
    "snoozed",
  );

  act(
    "update",
    "manage",
    ["labels"],
    async (ctx, id, f) => {
      const priority = f.text("priority", { label: "Priority", max: 10, required: true });
      if (!(CHAT_PRIORITIES as readonly string[]).includes(priority)) throw invalid("Choose a priority from the list.");
      const split = (raw: string) => [
        ...new Set(
          raw
            .split(",")
            .map((x) => x.trim().toLowerCase())
            .filter(Boolean),
        ),
      ];
      const typed = split(f.text("labels", { label: "Labels", max: 900 }));
      const bad = typed.find((l) => !LABEL_RE.test(l));
      if (bad !== undefined)
        throw invalid(
          `"${bad.slice(0, 40)}" is not a label: labels are 1-40 letters, digits, - _ or :, separated by commas.`,
        );
      if (typed.length > LIMITS.labels) throw invalid(`At most ${LIMITS.labels} labels.`);
      // Added and removed against what the form showed, not replaced: a label a colleague added meanwhile stays.
      const was = split(f.text("was", { label: "Labels shown", max: 900 }));
      await update(ctx, {
        id,
        priority: priority as ChatPriority,
        addLabels: typed.filter((l) => !was.includes(l)),
        removeLabels: was.filter((l) => !typed.includes(l) && LABEL_RE.test(l)),
      });
    },
    "updated",
  );

  act(
    "transcript",
    "manage",
    ["to"],
    async (ctx, id, f) => {
      const to = f.text("to", { label: "Email", max: 254 });
      if (to && !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(to))
        throw invalid("Email the transcript to an address like visitor@example.com.");
      await emailTranscript(ctx, { id, to: to || undefined });
    },
    "transcript",
  );

  act(
    "status",
    "manage",
    [],
    async (ctx, id, f) => {
      const status = f.text("status", { label: "Status", max: 10, required: true });
      if (status !== "open" && status !== "pending" && status !== "resolved")
        throw invalid("Status is open, pending or resolved.");
      await setStatus(ctx, { id, status });
    },
    "status",
  );
}
