/**
 * What a reviewer sees: the proposal of an approval link as a safe HTML
 * fragment (used by the public approval page and the portal inbox), and the
 * site-branded stylesheet that goes with it.
 *
 * Every string that comes from content or arguments is escaped here or by
 * renderBlocksHtml; the fragment carries no script and no inline event
 * handler, so it is safe under a CSP without 'unsafe-inline' scripts.
 */
import { eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { BLOCKS_PREVIEW_CSS, escapeHtml, renderBlocksHtml } from "../blocks/render";
import { brandProfiles } from "../branding/tables";
import { sites } from "../sites/tables";
import { sniffMime } from "../cms/media-sniff";
import type { ApprovalPreview, ChangeRow } from "./kinds";
import type { LinkRow } from "./links";
import { approvalKind, stagedTarget } from "./registry";
import { toolByName, type StagedPayload } from "./staging";

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
  const typeOf = (x: unknown) => (x && typeof x === "object" && typeof (x as { type?: unknown }).type === "string" ? (x as { type: string }).type : "block");
  const parts: string[] = [];
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n && parts.length < 12; i++) {
    if (i >= a.length) parts.push(`block ${i + 1} (${typeOf(b[i])}) added`);
    else if (i >= b.length) parts.push(`block ${i + 1} (${typeOf(a[i])}) removed`);
    else if (JSON.stringify(a[i]) !== JSON.stringify(b[i]))
      parts.push(typeOf(a[i]) === typeOf(b[i]) ? `block ${i + 1} (${typeOf(b[i])}) changed` : `block ${i + 1} ${typeOf(a[i])} → ${typeOf(b[i])}`);
  }
  if (parts.length === 0) return null;
  return `${a.length} → ${b.length} blocks: ${parts.join("; ")}${n > 12 && parts.length === 12 ? "; …" : ""}`;
}

function humanTool(name: string): string {
  return name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
}

const HIDDEN_ARGS = new Set(["siteId", "include", "clientId"]);

/** The preview of a staged call, built from its arguments (no kind needed). */
async function stagedPreview(deps: Deps, link: LinkRow): Promise<ApprovalPreview> {
  const payload = (link.payload ?? {}) as unknown as StagedPayload;
  const input = payload.input ?? {};
  const tool = toolByName(payload.tool);
  const before = payload.before ?? null;
  const target = stagedTarget(payload.tool);
  const changes: ChangeRow[] = [];
  let html = "";
  const redacted = new Set(target?.redact?.(input, before) ?? []);
  for (const [k, val] of Object.entries(input)) {
    if (HIDDEN_ARGS.has(k) || val === undefined) continue;
    if (redacted.has(k)) {
      changes.push({ field: k, before: before && before[k] !== undefined ? "(hidden)" : null, after: "(hidden)" });
      continue;
    }
    if (k === "dataBase64" && typeof val === "string") {
      const bytes = Math.floor((val.replace(/=+$/, "").length * 3) / 4);
      changes.push({ field: "file", before: null, after: `${bytes} bytes` });
      // A raster image upload is shown as the image itself; SVG and other types are not inlined.
      try {
        const data = Buffer.from(val, "base64");
        const mime = sniffMime(data);
        if (data.length <= 2_000_000 && (mime === "image/png" || mime === "image/jpeg" || mime === "image/gif" || mime === "image/webp"))
          html += `<figure class="ap-upload"><img alt="Uploaded file" src="data:${mime};base64,${data.toString("base64")}"></figure>`;
      } catch {
        /* not shown */
      }
      continue;
    }
    if (k === "blocks" && Array.isArray(val)) {
      const diff = before ? blocksDiff(before.blocks, val) : null;
      changes.push({ field: "content", before: before ? `${Array.isArray(before.blocks) ? before.blocks.length : 0} blocks` : null, after: diff ?? `${val.length} blocks (shown below)` });
      html += renderBlocksHtml({ blocks: val }, { embeds: "link" });
      continue;
    }
    changes.push({ field: k, before: before ? displayValue(before[k]) : null, after: displayValue(val) });
  }
  const facts = [{ label: "Operation", value: humanTool(payload.tool ?? "unknown") }];
  if (tool) facts.push({ label: "What it does", value: tool.description.split(/(?<=\.)\s/)[0] ?? tool.description });
  if (link.siteId !== null) {
    const site = (await deps.db.select({ name: sites.name }).from(sites).where(eq(sites.id, link.siteId)).limit(1))[0];
    if (site) facts.push({ label: "Site", value: site.name });
  }
  return {
    title: link.title ?? humanTool(payload.tool ?? "change"),
    summary: before
      ? `A change to an existing ${target?.entityType.replace(/_/g, " ") ?? "item"}, held for approval: nothing is changed until you approve.`
      : "A change held for approval: nothing is changed until you approve.",
    facts,
    changes,
    html,
  };
}

/** The proposal of a link, from its kind (entity links) or its staged arguments. Null when the entity is gone. */
export async function approvalPreview(deps: Deps, link: LinkRow): Promise<ApprovalPreview | null> {
  if (link.linkType === "pending_change") return await stagedPreview(deps, link);
  const kind = approvalKind(link.entityType);
  if (!kind) return null;
  return kind.preview(deps, link);
}

function changesTable(rows: ChangeRow[], hasBefore: boolean): string {
  const head = hasBefore ? "<tr><th>Field</th><th>Live now</th><th>Proposed</th></tr>" : "<tr><th>Field</th><th>Proposed</th></tr>";
  const cell = (s: string | null) => (s === null ? '<td class="ap-none">(none)</td>' : `<td>${escapeHtml(s)}</td>`);
  const body = rows
    .map((r) => `<tr><th scope="row">${escapeHtml(r.field)}</th>${hasBefore ? cell(r.before) : ""}${cell(r.after)}</tr>`)
    .join("");
  return `<table class="ap-changes">${head}${body}</table>`;
}

/**
 * The proposal as an HTML fragment, safe to embed in any page whose CSP
 * forbids scripts. Pair it with previewCss() for the site's branding.
 */
export async function renderApprovalPreview(deps: Deps, link: LinkRow): Promise<string> {
  const p = await approvalPreview(deps, link);
  if (!p) return `<section class="ap-preview"><p class="ap-summary">The item this request was about no longer exists.</p></section>`;
  const facts = p.facts.length
    ? `<dl class="ap-facts">${p.facts.map((f) => `<dt>${escapeHtml(f.label)}</dt><dd>${escapeHtml(f.value)}</dd>`).join("")}</dl>`
    : "";
  const hasBefore = p.changes.some((c) => c.before !== null);
  const changes = p.changes.length
    ? `<h2 class="ap-h">${hasBefore ? "What changes" : "What is proposed"}</h2>${changesTable(p.changes, hasBefore)}`
    : "";
  const content = p.html || link.linkType === "entity"
    ? `<h2 class="ap-h">Preview</h2><div class="ap-content" id="ap-content"><h1 class="ap-title">${escapeHtml(p.title)}</h1>${p.html}</div>`
    : "";
  const live = p.liveHtml !== undefined
    ? `<details class="ap-live"><summary>Show the live version</summary><div class="ap-content">${p.liveHtml}</div></details>`
    : "";
  return `<section class="ap-preview"><p class="ap-summary">${escapeHtml(p.summary)}</p>${facts}${changes}${content}${live}</section>`;
}

const HEX_RE = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
const FONT_RE = /^[A-Za-z0-9 ,'"-]{1,100}$/;
const RADIUS_RE = /^\d{1,3}(?:\.\d{1,3})?(?:px|rem|em|%)$/;

/**
 * CSS for the preview: the neutral block styles plus the site's branding
 * (colours, fonts, radius). Only values that match strict patterns reach the
 * stylesheet, so a brand profile cannot inject CSS.
 */
export async function previewCss(deps: Deps, siteId: number | null): Promise<string> {
  const data =
    siteId === null
      ? undefined
      : (await deps.db.select({ data: brandProfiles.data }).from(brandProfiles).where(eq(brandProfiles.siteId, siteId)).limit(1))[0]?.data;
  const b = (data ?? {}) as Record<string, unknown>;
  const color = (k: string, def: string) => (typeof b[k] === "string" && HEX_RE.test(b[k] as string) ? (b[k] as string) : def);
  const font = (k: string) => (typeof b[k] === "string" && FONT_RE.test(b[k] as string) ? (b[k] as string) : null);
  const radius = typeof b.borderRadius === "string" && RADIUS_RE.test(b.borderRadius) ? b.borderRadius : ".375rem";
  const primary = color("primaryColor", "#2563eb");
  const secondary = color("secondaryColor", "#1e40af");
  const text = color("textColor", "#111827");
  const bg = color("backgroundColor", "#ffffff");
  const link = color("linkColor", primary);
  const body = font("bodyFont");
  const heading = font("headingFont");
  return `${BLOCKS_PREVIEW_CSS}
.ap-content{color:${text};background:${bg};border:1px solid #e5e7eb;border-radius:.5rem;padding:1.5rem;${body ? `font-family:${body},system-ui,sans-serif;` : ""}}
.ap-content h1,.ap-content h2,.ap-content h3,.ap-content h4{${heading ? `font-family:${heading},system-ui,sans-serif;` : ""}}
.ap-content a{color:${link}}
.ap-content .pb-button-primary{background:${primary};color:#fff;border-radius:${radius}}
.ap-content .pb-button-secondary{background:${secondary};color:#fff;border-radius:${radius}}
.ap-content .pb-highlighted{border-color:${primary}}
`;
}
