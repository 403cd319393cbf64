/**
 * In-chat views for MCP clients that support MCP Apps (the UI extension of
 * MCP, `io.modelcontextprotocol/ui`; spec and SDK @modelcontextprotocol/ext-apps).
 *
 * Why it is shaped this way:
 *  - Only a client that announces the extension (its client capabilities'
 *    `extensions["io.modelcontextprotocol/ui"].mimeTypes` holds
 *    `text/html;profile=mcp-app`) sees the views: its tools/list entries of
 *    the linked tools carry `_meta.ui.resourceUri`, and resources/list names
 *    the `ui://plinth/…` resources. Every other client gets today's bytes,
 *    so nothing here runs for them. The server is stateless: the
 *    capabilities it reads are the request's own (the 2026-07-28 `_meta`
 *    envelope carries them on every request); a 2025-era client announces
 *    them only in initialize, which nothing remembers, so it gets no views.
 *  - Tool results do not change: the host hands the view the result the
 *    agent got (one text item holding the JSON), and the view renders that.
 *    A view never fetches anything (its CSP allows no connection), so it can
 *    never act with the agent's credentials; deciding an approval stays on
 *    the approval page, which the view asks the host to open (ui/open-link).
 *  - Agent- and visitor-written text is hostile: the views set every string
 *    with textContent, and only ever build elements by name.
 *  - The views are small self-contained pages (the protocol's view side is
 *    a few lines of postMessage JSON-RPC, so no bundle of the SDK's App ships
 *    inside them), styled with the portal's own stylesheet (src/ui/style.ts).
 */
import { PORTAL_CSS } from "../ui/style";
import type { RegisteredTool, ToolEntry } from "./registry-types";

export const EXTENSION_ID = "io.modelcontextprotocol/ui";
export const APP_MIME = "text/html;profile=mcp-app";
const CAPS_KEY = "io.modelcontextprotocol/clientCapabilities";

const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/** Whether client capabilities announce MCP Apps with our MIME type. */
export function announcesApps(caps: unknown): boolean {
  if (!isObj(caps) || !isObj(caps.extensions)) return false;
  const ui = caps.extensions[EXTENSION_ID];
  return isObj(ui) && Array.isArray(ui.mimeTypes) && ui.mimeTypes.includes(APP_MIME);
}

/** Whether a request's params (2026-07-28 `_meta` envelope) announce MCP Apps. */
export function requestAnnouncesApps(params: unknown): boolean {
  return isObj(params) && isObj(params._meta) && announcesApps(params._meta[CAPS_KEY]);
}

export type ViewName = "approval" | "ticket" | "board" | "pipeline";
export const viewUri = (name: ViewName) => `ui://plinth/${name}`;

/** The tools whose results a view renders, beyond those returning an approval envelope. */
const TOOL_VIEWS: Record<string, ViewName> = {
  tickets_get: "ticket",
  boards_get: "board",
  pipelines_get: "pipeline",
};

/** The view a tool's result is shown in, if any: write tools gated on approval return its envelope. */
export function viewOf(t: RegisteredTool): ViewName | null {
  if (t.def.approval && !t.def.readOnly) return "approval";
  return TOOL_VIEWS[t.def.name] ?? null;
}

/** Lists with the links added, per list object (the registry caches those; no list is linked twice). */
const linked = new WeakMap<object, { tools: ToolEntry[] }>();

/** A tools/list result whose linked tools carry `_meta.ui.resourceUri`; the others are the same objects. */
export function withViews(list: { tools: ToolEntry[] }, byName: ReadonlyMap<string, RegisteredTool>) {
  let hit = linked.get(list);
  if (!hit) {
    hit = {
      tools: list.tools.map((e) => {
        const t = byName.get(e.name);
        const view = t && viewOf(t);
        return view ? { ...e, _meta: { ui: { resourceUri: viewUri(view) } } } : e;
      }),
    };
    linked.set(list, hit);
  }
  return hit;
}

interface View {
  name: ViewName;
  title: string;
  description: string;
  /**
   * The script that renders a result: a function body given `data` (the parsed result), `input` (the
   * call's arguments, when the host sent them), `root`, `el` and `link`.
   */
  render: string;
}

const VIEWS: View[] = [
  {
    name: "approval",
    title: "Approval preview",
    description: "What a person will be asked to approve, with the link to the approval page (deciding happens there).",
    render: `
const a = data && data.approval;
if (!a || typeof a.url !== "string") {
  root.append(el("h1", "", "Nothing waits for approval"), el("p", "muted", "This result carries no approval link: the change was applied directly."));
  return;
}
root.append(el("h1", "", "Waiting for approval"));
const card = el("div", "card");
const what = data.title ?? data.name ?? data.subject ?? input.title ?? input.name ?? input.subject ?? data.slug;
if (what != null) card.append(el("h2", "", String(what)));
const dl = el("dl", "facts");
const fact = (k, v) => { if (v != null && v !== "") dl.append(el("dt", "", k), el("dd", "", String(v))); };
// What the agent proposed: the call's plain arguments (the host passes them in), long ones cut short.
for (const [k, v] of Object.entries(input)) {
  if (k === "clientId" || k === "idempotencyKey" || /Id$/.test(k) || k === "id" || v === what) continue;
  if (typeof v === "string" || typeof v === "number" || typeof v === "boolean") fact(k, String(v).length > 300 ? String(v).slice(0, 300) + "…" : v);
  else if (Array.isArray(v)) fact(k, v.length + (v.length === 1 ? " item" : " items"));
}
fact("Item", data.id != null ? "#" + data.id : null);
fact("Slug", data.slug);
fact("Item status", data.status);
fact("Link status", a.status);
fact("Expires", a.expiresAt ? new Date(a.expiresAt).toUTCString() : null);
card.append(dl);
card.append(el("p", "muted", "A person decides on the approval page: nothing goes live from here."));
const actions = el("p", "actions");
actions.append(link("Open the approval page", a.url));
if (typeof a.previewUrl === "string") actions.append(link("Open the preview", a.previewUrl));
card.append(actions);
root.append(card);`,
  },
  {
    name: "ticket",
    title: "Ticket",
    description: "A support ticket and its conversation.",
    render: `
const t = data && (data.ticket ?? data);
if (!t || t.id == null) { root.append(el("h1", "", "No ticket in this result")); return; }
root.append(el("h1", "", String(t.subject ?? "Ticket #" + t.id)));
const card = el("div", "card");
const dl = el("dl", "facts");
const fact = (k, v) => { if (v != null && v !== "") dl.append(el("dt", "", k), el("dd", "", String(v))); };
fact("Ticket", "#" + t.id);
fact("Status", t.status);
fact("Priority", t.priority);
fact("From", t.requesterEmail ?? t.email ?? (t.requester && t.requester.email));
fact("Assignee", t.assignee && (t.assignee.name ?? t.assignee.email));
fact("Updated", t.updatedAt ? new Date(t.updatedAt).toUTCString() : null);
card.append(dl);
root.append(card);
const msgs = Array.isArray(t.messages) ? t.messages : Array.isArray(data.messages) ? data.messages : [];
if (msgs.length) {
  root.append(el("h2", "", "Conversation"));
  const ol = el("ol", "thread");
  for (const m of msgs) {
    const li = el("li", "card");
    const who = m.author ?? m.authorEmail ?? m.from ?? (m.internal ? "Internal note" : "");
    li.append(el("p", "muted", [who, m.createdAt ? new Date(m.createdAt).toUTCString() : ""].filter(Boolean).join(" · ")));
    li.append(el("p", "body", String(m.body ?? m.text ?? "")));
    ol.append(li);
  }
  root.append(ol);
}`,
  },
  {
    name: "board",
    title: "Board",
    description: "A project board: its columns, WIP limits and top cards.",
    render: `
const b = data;
if (!b || !Array.isArray(b.columns)) { root.append(el("h1", "", "No board in this result")); return; }
root.append(el("h1", "", String(b.name ?? "Board")));
if (b.projectKey) root.append(el("p", "lead", "Project " + b.projectKey));
const cols = lanes("Columns");
for (const c of b.columns) {
  const sec = el("section", "card lane");
  const head = el("h2", "", String(c.name));
  sec.append(head);
  const count = c.cardCount + (c.wipLimit != null ? " / " + c.wipLimit : "") + (c.cardCount === 1 ? " card" : " cards") + (c.points ? " · " + c.points + " pts" : "");
  sec.append(el("p", c.atWipLimit ? "warn" : "muted", count + (c.atWipLimit ? " (at WIP limit)" : "")));
  const ul = el("ul", "cards");
  for (const k of Array.isArray(c.cards) ? c.cards : []) {
    const li = el("li", "");
    li.append(el("span", "muted", String(k.key ?? "") + " "), el("span", "", String(k.title ?? "")));
    // Priorities are 0–4 (none, urgent, high, medium, low), as projects name them.
    const prio = typeof k.priority === "number" ? ["", "urgent", "high", "medium", "low"][k.priority] : k.priority;
    const extra = [prio, k.estimate != null ? k.estimate + " pts" : null, k.dueDate ? "due " + k.dueDate : null, ...(Array.isArray(k.assignees) ? k.assignees : [])].filter((x) => x != null && x !== "" && x !== "none");
    if (extra.length) li.append(el("small", "muted", extra.join(" · ")));
    ul.append(li);
  }
  if (c.cards && c.cardCount > c.cards.length) ul.append(el("li", "muted", "and " + (c.cardCount - c.cards.length) + " more"));
  sec.append(ul);
  cols.append(sec);
}
root.append(cols);`,
  },
  {
    name: "pipeline",
    title: "Pipeline",
    description: "A sales pipeline: deals and amounts per stage.",
    render: `
const p = data;
if (!p || !Array.isArray(p.stages)) { root.append(el("h1", "", "No pipeline in this result")); return; }
root.append(el("h1", "", String(p.name ?? "Pipeline")));
const row = lanes("Stages");
for (const st of p.stages) {
  const sec = el("section", "card lane");
  sec.append(el("h2", "", String(st.name)));
  sec.append(el("p", "", (st.deals ?? 0) + (st.deals === 1 ? " deal" : " deals")));
  const amounts = st.amountCents && typeof st.amountCents === "object" ? Object.entries(st.amountCents) : [];
  for (const [cur, cents] of amounts) {
    let shown;
    try { shown = new Intl.NumberFormat("en", { style: "currency", currency: cur }).format(Number(cents) / 100); }
    catch { shown = (Number(cents) / 100).toFixed(2) + " " + cur; }
    sec.append(el("p", "amount", shown));
  }
  const meta = [st.probability != null ? st.probability + "%" : null, st.kind && st.kind !== "open" ? st.kind : null].filter(Boolean);
  if (meta.length) sec.append(el("p", "muted", meta.join(" · ")));
  row.append(sec);
}
root.append(row);`,
  },
];

/** What the views add to the portal stylesheet: a compact frame for a chat column. */
const VIEW_CSS = `body{background:transparent}main{margin:.6rem auto;padding:0 .6rem}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem .8rem;margin:.4rem 0}dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
p.actions{display:flex;flex-wrap:wrap;gap:.6rem}ol.thread{list-style:none;padding:0}p.body{white-space:pre-wrap;overflow-wrap:anywhere}
div.lanes{display:flex;gap:.6rem;overflow-x:auto;align-items:flex-start}section.lane{flex:1 1 0;min-width:8rem;margin:0}section.lane h2{margin:0 0 .3rem}
ul.cards{list-style:none;padding:0;margin:.4rem 0 0}ul.cards li{border-top:1px solid var(--line);padding:.35rem 0;overflow-wrap:anywhere}ul.cards small{display:block}
p.warn{color:var(--warn)}p.amount{font-weight:600;margin:.2rem 0}
a.button{display:inline-block;padding:.45rem .9rem;border-radius:8px;background:var(--accent);color:var(--accent-text);text-decoration:none;font-weight:600}`;

/**
 * The view side of the MCP Apps bridge: JSON-RPC 2.0 over postMessage with
 * the host window (ui/initialize, then ui/notifications/initialized; the
 * host sends ui/notifications/tool-result; links go through ui/open-link).
 * Only messages from the parent window are read.
 */
const BRIDGE = `
const root = document.getElementById("root");
const host = window.parent;
let next = 1;
const waiting = new Map();
function send(msg) { host.postMessage(Object.assign({ jsonrpc: "2.0" }, msg), "*"); }
function request(method, params) {
  const id = next++;
  send({ id, method, params });
  return new Promise((resolve, reject) => waiting.set(id, { resolve, reject }));
}
function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text != null) e.textContent = String(text);
  return e;
}
function link(label, url) {
  const a = el("a", "button", label);
  const safe = /^https?:\\/\\//i.test(String(url)) ? String(url) : "#";
  a.href = safe;
  a.addEventListener("click", (ev) => { ev.preventDefault(); if (safe !== "#") request("ui/open-link", { url: safe }).catch(() => {}); });
  return a;
}
/** A row of lanes that may scroll sideways: focusable, so keyboard users can scroll it too. */
function lanes(label) {
  const d = el("div", "lanes");
  d.setAttribute("role", "group");
  d.setAttribute("aria-label", label);
  d.tabIndex = 0;
  return d;
}
function dataOf(result) {
  if (result && result.structuredContent && typeof result.structuredContent === "object") return result.structuredContent;
  const t = result && Array.isArray(result.content) ? result.content.find((c) => c && c.type === "text") : null;
  if (!t) return null;
  try { return JSON.parse(t.text); } catch { return t.text; }
}
let input = {};
function show(result) {
  root.replaceChildren();
  if (result && result.isError) {
    const t = dataOf(result);
    root.append(el("h1", "", "The tool reported an error"), el("p", "muted", typeof t === "string" ? t : JSON.stringify(t)));
  } else renderResult(dataOf(result));
  root.setAttribute("aria-busy", "false");
  send({ method: "ui/notifications/size-changed", params: { width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight } });
}
window.addEventListener("message", (ev) => {
  if (ev.source !== host) return;
  const m = ev.data;
  if (!m || m.jsonrpc !== "2.0") return;
  if (m.id != null && waiting.has(m.id) && !m.method) {
    const w = waiting.get(m.id); waiting.delete(m.id);
    m.error ? w.reject(m.error) : w.resolve(m.result);
  } else if (m.method === "ui/notifications/tool-input") {
    const a = m.params && m.params.arguments;
    input = a && typeof a === "object" && !Array.isArray(a) ? a : {};
  } else if (m.method === "ui/notifications/tool-result") show(m.params);
  else if (m.method === "ui/resource-teardown" && m.id != null) send({ id: m.id, result: {} });
  else if (m.method === "ping" && m.id != null) send({ id: m.id, result: {} });
  else if (m.id != null && m.method) send({ id: m.id, error: { code: -32601, message: "Method not found" } });
});
request("ui/initialize", { appInfo: { name: "plinth-view", version: "1" }, appCapabilities: {}, protocolVersion: "2026-01-26" })
  .then(() => send({ method: "ui/notifications/initialized" }))
  .catch(() => {});`;

function page(v: View): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>${v.title}</title>
<style>${PORTAL_CSS}${VIEW_CSS}</style></head>
<body><main id="root" aria-live="polite" aria-busy="true"><p class="muted">Waiting for the result…</p></main>
<script>
"use strict";
${BRIDGE}
function renderResult(data) {${v.render}
}
</script></body></html>`;
}

/** The ui:// resources, built once: what resources/list adds for a client with the extension, and what reads answer. */
export const UI_RESOURCES = VIEWS.map((v) => ({
  uri: viewUri(v.name),
  name: `${v.name}-view`,
  title: v.title,
  description: v.description,
  mimeType: APP_MIME,
  html: page(v),
}));

/** resources/read of a ui:// view (the same bytes for every caller), or null when `uri` names none. */
export function readView(uri: string) {
  const r = UI_RESOURCES.find((x) => x.uri === uri);
  if (!r) return null;
  // No csp domains: the view loads and connects to nothing (hosts then allow no network at all).
  return { contents: [{ uri: r.uri, mimeType: r.mimeType, text: r.html, _meta: { ui: { prefersBorder: true } } }] };
}

/** resources/list entries of the views. */
export const uiResourceEntries = () =>
  UI_RESOURCES.map((r) => ({
    uri: r.uri,
    name: r.name,
    title: r.title,
    description: r.description,
    mimeType: r.mimeType,
  }));
