/**
 * What a reviewer sees: the proposal of an approval link as a safe HTML
 * fragment (used by the public approval page and the portal inbox), and the
 * site-branded stylesheet that goes with it.
 *
 * Every string that comes from content or arguments is escaped here, or by
 * the kind or staged target that rendered it (block content goes through
 * the block renderer, src/domains/blocks/render.ts, in the cms domain's
 * kinds); the fragment carries no script and no inline event handler, so
 * it is safe under a CSP without 'unsafe-inline' scripts.
 *
 * Decided links are described as they were proposed, with their outcome
 * ("A new blog post — approved and published on … by …"): see `summarize`.
 *
 * @public Serves the domains' approval kinds, which render their proposals
 * with it.
 */
import type { ApprovalLink } from "../../mcp/define";
import type { Deps } from "../../core/context";
import type { ApprovalPreview, ChangeRow } from "./kinds";
import { effectiveStatus, type LinkRow } from "./links";
import type { StagedPayload } from "./staging";

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Text for HTML text and attribute values. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => ESCAPES[c]!);
}

const MAX_SHOWN = 2000;

/** A value as the reviewer reads it: plain text, bounded. */
export function displayValue(v: unknown): string | null {
  if (v === null || v === undefined) return null;
  let s: string;
  if (typeof v === "string") s = v;
  else if (typeof v === "number" || typeof v === "boolean") s = String(v);
  else s = JSON.stringify(v) ?? "";
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}… (${s.length} characters)` : s;
}

/** Block-level summary of how `after` differs from `before` (both arrays of blocks). */
export function blocksDiff(before: unknown, after: unknown): string | null {
  const a = Array.isArray(before) ? before : [];
  const b = Array.isArray(after) ? after : [];
  const typeOf = (x: unknown) =>
    x && typeof x === "object" && typeof (x as { type?: unknown }).type === "string"
      ? (x as { type: string }).type
      : "block";
  const parts: string[] = [];
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n && parts.length < 12; i++) {
    if (i >= a.length) parts.push(`block ${i + 1} (${typeOf(b[i])}) added`);
    else if (i >= b.length) parts.push(`block ${i + 1} (${typeOf(a[i])}) removed`);
    else if (JSON.stringify(a[i]) !== JSON.stringify(b[i]))
      parts.push(
        typeOf(a[i]) === typeOf(b[i])
          ? `block ${i + 1} (${typeOf(b[i])}) changed`
          : `block ${i + 1} ${typeOf(a[i])} → ${typeOf(b[i])}`,
      );
  }
  if (parts.length === 0) return null;
  return `${a.length} → ${b.length} blocks: ${parts.join("; ")}${n > 12 && parts.length === 12 ? "; …" : ""}`;
}

function humanTool(name: string): string {
  return name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

const HIDDEN_ARGS = new Set(["siteId", "include", "clientId"]);

/** "2026-12-06 03:01 UTC": how a summary line dates a decision. */
export function when(d: Date | null): string {
  return d ? `${d.toISOString().slice(0, 16).replace("T", " ")} UTC` : "(unknown date)";
}

/** How a kind or target words its proposal; `summarize` adds the link's state. */
export interface OutcomeWords {
  /** The proposal as it was made, e.g. "A new blog post", "Changes to the published page “About”". */
  proposal: string;
  /** The whole sentence while the link is pending, e.g. "A new blog post, not yet published: approving publishes it on the site." */
  pending: string;
  /** What approving did, as a past participle: "published" (default "applied"). */
  applied?: string;
  /** What stayed when it was not approved: "nothing was published" (default "nothing was changed"). */
  kept?: string;
}

/**
 * One line describing a link's proposal and its outcome, the same way on
 * the approval page and in approvals_get, whatever the state:
 *   pending     the kind's own sentence
 *   approved    "A new blog post — approved and published on 2026-12-06 03:01 UTC by ana@client.example (verified reviewer)."
 *   rejected    "… — rejected on … by …: nothing was published."
 *   expired     "… — expired on … without a decision: nothing was published."
 *   superseded  "… — replaced by a newer request on …, the one to decide."
 *   withdrawn   "… — withdrawn on …: the item it was about was deleted."
 */
export function summarize(link: ApprovalLink, now: Date, w: OutcomeWords): string {
  const by = link.decidedBy ? ` by ${link.decidedBy}` : "";
  const kept = w.kept ?? "nothing was changed";
  switch (effectiveStatus(link, now)) {
    case "pending":
      return w.pending;
    case "approved":
      return `${w.proposal} — approved and ${w.applied ?? "applied"} on ${when(link.decidedAt)}${by}.`;
    case "rejected":
      return `${w.proposal} — rejected on ${when(link.decidedAt)}${by}: ${kept}.`;
    case "expired":
      return `${w.proposal} — expired on ${when(link.expiresAt)} without a decision: ${kept}.`;
    case "superseded":
      return `${w.proposal} — replaced by a newer request on ${when(link.decidedAt)}, the one to decide.`;
    default:
      return `${w.proposal} — withdrawn on ${when(link.decidedAt)}: the item it was about was deleted.`;
  }
}

/** The preview of a held call (staged or live content), built from its arguments and its target's presentation. */
async function stagedPreview(deps: Deps, link: ApprovalLink): Promise<ApprovalPreview> {
  const payload = (link.payload ?? {}) as unknown as StagedPayload;
  const input = payload.input ?? {};
  const tool = deps.catalog.tools.get(payload.tool);
  const before = payload.before ?? null;
  const target = deps.catalog.stagedTargets.get(payload.tool);
  const shown = target?.present ? await target.present(deps, { tool: payload.tool, input, before, link }) : {};
  const handled = new Set(shown.handled ?? []);
  const changes: ChangeRow[] = [...(shown.rows ?? [])];
  const redacted = new Set(target?.redact?.(input, before) ?? []);
  for (const [k, val] of Object.entries(input)) {
    if (HIDDEN_ARGS.has(k) || handled.has(k) || val === undefined) continue;
    if (redacted.has(k)) {
      changes.push({ field: k, before: before && before[k] !== undefined ? "(hidden)" : null, after: "(hidden)" });
      continue;
    }
    if (k === "dataBase64" && typeof val === "string") {
      const bytes = Math.floor((val.replace(/=+$/, "").length * 3) / 4);
      changes.push({ field: "file", before: null, after: `${bytes} bytes` });
      continue;
    }
    changes.push({ field: k, before: before ? displayValue(before[k]) : null, after: displayValue(val) });
  }
  const facts = [{ label: "Operation", value: humanTool(payload.tool ?? "unknown") }];
  if (tool) facts.push({ label: "What it does", value: tool.description.split(/(?<=\.)\s/)[0] ?? tool.description });
  if (link.siteId !== null) {
    const site = await deps.catalog.approvalSupport.site(deps.db, link.companyId, link.siteId);
    if (site) facts.push({ label: "Site", value: site.name });
  }
  facts.push(...(shown.facts ?? []));
  const noun = target?.entityType.replace(/_/g, " ") ?? "item";
  const proposal = shown.proposal ?? (before ? `A change to an existing ${noun}` : "A change");
  return {
    title: link.title ?? humanTool(payload.tool ?? "change"),
    summary: summarize(link, deps.clock.now(), {
      proposal,
      pending: `${proposal}, held for approval: nothing is changed until you approve.`,
      applied: shown.applied,
    }),
    facts,
    changes,
    html: shown.html ?? "",
  };
}

/** The proposal of a link, from its kind (entity links) or its staged arguments. Null when the entity is gone. */
export async function approvalPreview(deps: Deps, link: ApprovalLink): Promise<ApprovalPreview | null> {
  if (link.linkType === "pending_change") return await stagedPreview(deps, link);
  const kind = deps.catalog.approvalKinds.get(link.entityType);
  if (!kind) return null;
  return kind.preview(deps, link);
}

function changesTable(rows: ChangeRow[], hasBefore: boolean, pending: boolean): string {
  const head = hasBefore
    ? `<tr><th>Field</th><th>${pending ? "Live now" : "Before"}</th><th>Proposed</th></tr>`
    : "<tr><th>Field</th><th>Proposed</th></tr>";
  const cell = (s: string | null) => (s === null ? '<td class="ap-none">(none)</td>' : `<td>${escapeHtml(s)}</td>`);
  const body = rows
    .map(
      (r) => `<tr><th scope="row">${escapeHtml(r.field)}</th>${hasBefore ? cell(r.before) : ""}${cell(r.after)}</tr>`,
    )
    .join("");
  return `<table class="ap-changes">${head}${body}</table>`;
}

/**
 * The proposal as an HTML fragment, safe to embed in any page whose CSP
 * forbids scripts. Pair it with previewCss() for the site's branding.
 */
export async function renderApprovalPreview(deps: Deps, link: ApprovalLink): Promise<string> {
  const p = await approvalPreview(deps, link);
  if (!p)
    return `<section class="ap-preview"><p class="ap-summary">The item this request was about no longer exists.</p></section>`;
  const facts = p.facts.length
    ? `<dl class="ap-facts">${p.facts.map((f) => `<dt>${escapeHtml(f.label)}</dt><dd>${escapeHtml(f.value)}</dd>`).join("")}</dl>`
    : "";
  const hasBefore = p.changes.some((c) => c.before !== null);
  const pending = effectiveStatus(link, deps.clock.now()) === "pending";
  const heading = pending
    ? hasBefore
      ? "What changes"
      : "What is proposed"
    : hasBefore
      ? "What it proposed to change"
      : "What was proposed";
  const changes = p.changes.length
    ? `<h2 class="ap-h">${heading}</h2>${changesTable(p.changes, hasBefore, pending)}`
    : "";
  const content =
    p.html || link.linkType === "entity"
      ? `<h2 class="ap-h">Preview</h2><div class="ap-content" id="ap-content"><h1 class="ap-title">${escapeHtml(p.title)}</h1>${p.html}</div>`
      : "";
  const live =
    p.liveHtml !== undefined
      ? `<details class="ap-live"><summary>Show the live version</summary><div class="ap-content">${p.liveHtml}</div></details>`
      : "";
  return `<section class="ap-preview"><p class="ap-summary">${escapeHtml(p.summary)}</p>${facts}${changes}${content}${live}</section>`;
}

/** Layout of the preview box; colours, fonts and block styles come from the domains (approvalSupport.previewCss). */
const BASE_CSS = ".ap-content{border:1px solid #e5e7eb;border-radius:.5rem;padding:1.5rem}";

/**
 * CSS for the preview: the box, then what the domains add for a site's
 * link (the cms: styles of rendered blocks; branding: the site's colours,
 * fonts and radius, each value checked against a strict pattern first).
 */
export async function previewCss(deps: Deps, siteId: number | null): Promise<string> {
  return `${BASE_CSS}\n${await deps.catalog.approvalSupport.previewCss(deps.db, siteId)}`;
}
