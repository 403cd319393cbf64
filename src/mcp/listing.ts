/**
 * Listing modes: which tools a connection's tools/list shows, chosen so
 * every client can load it. Clients cap what they take (Cursor about 40
 * tools; Claude Desktop, VS Code and JetBrains Copilot, Copilot CLI 128) and
 * silently drop the rest, and the model behind them can only call listed
 * tools. A credential (MCP key, OAuth grant) carries a mode:
 *  - full: every tool its scopes allow;
 *  - discovery: the way in only (whoami, tools_search, toolsets_list and the
 *    routers tools_call_read / _write / _destructive);
 *  - toolsets:cms,store: those toolsets plus the way in;
 *  - automatic (null, the default): full when that is at most 128 tools,
 *    else discovery.
 * In every mode each tool the scopes allow stays reachable: the compact
 * modes run unlisted tools through the routers (src/mcp/call.ts). The
 * per-request X-MCP-* switches (narrowing.ts) win over the stored mode.
 */
import type { ListingInUse, Principal } from "../core/context";
import { invalid } from "../core/errors";
import { coversTool } from "./discovery";
import { isCompact, NO_FILTER, type Registry, type ToolFilter } from "./registry";

/** What the common clients accept, smallest cap first; past the last, only clients without a cap. */
export const CLIENT_CAPS = [
  { max: 40, clients: "every client, Cursor included" },
  { max: 128, clients: "Claude Desktop, VS Code and JetBrains Copilot, Copilot CLI (not Cursor)" },
] as const;
export const NO_CAP_CLIENTS = "only clients without a tool cap";

/** Automatic mode lists everything up to this many tools, else switches to discovery. */
export const AUTOMATIC_MAX = 128;

export type StoredMode = "full" | "discovery" | `toolsets:${string}`;

/**
 * A mode as a person or the CLI writes it, checked and normalised ("auto"
 * or "" is null, toolset names lower-cased, known and sorted). Throws a
 * validation error naming what is wrong.
 */
export function parseListingMode(raw: string | null | undefined, registry: Registry): StoredMode | null {
  const r = (raw ?? "").trim().toLowerCase();
  if (r === "" || r === "auto" || r === "automatic") return null;
  if (r === "full" || r === "discovery") return r;
  if (r.startsWith("toolsets:")) {
    const names = [
      ...new Set(
        r
          .slice("toolsets:".length)
          .split(",")
          .map((s) => s.trim())
          .filter(Boolean),
      ),
    ];
    const known = new Set(registry.toolsets.map((t) => t.name).filter((n) => n !== "discovery"));
    if (!names.length) throw invalid("Choose at least one toolset for the chosen-toolsets listing.");
    const unknown = names.filter((n) => !known.has(n));
    if (unknown.length)
      throw invalid(
        `Unknown toolset${unknown.length > 1 ? "s" : ""} ${unknown.map((u) => `"${u.slice(0, 40)}"`).join(", ")}; known toolsets: ${[...known].join(", ")}.`,
      );
    return `toolsets:${names.sort().join(",")}`;
  }
  throw invalid(`Listing must be auto, full, discovery or toolsets:<name>,<name>; got "${r.slice(0, 40)}".`);
}

/** Stored modes already read, per registry: read on every request, parsed once. */
const readModes = new WeakMap<Registry, Map<string, ToolFilter | null>>();
const MAX_READ_MODES = 1000;

/** A stored mode read back from the database; an unreadable one (a toolset since removed) falls back to automatic. */
function storedFilter(stored: string | null | undefined, registry: Registry): ToolFilter | null {
  if (!stored) return null;
  let memo = readModes.get(registry);
  if (!memo) readModes.set(registry, (memo = new Map()));
  let f = memo.get(stored);
  if (f === undefined) {
    f = readStored(stored, registry);
    if (memo.size >= MAX_READ_MODES) memo.clear();
    memo.set(stored, f);
  }
  return f;
}

function readStored(stored: string, registry: Registry): ToolFilter | null {
  let mode: StoredMode | null;
  try {
    mode = parseListingMode(stored, registry);
  } catch {
    return null;
  }
  if (mode === "full") return NO_FILTER;
  if (mode === "discovery") return { ...NO_FILTER, discovery: true };
  if (mode) return { ...NO_FILTER, listed: new Set(mode.slice("toolsets:".length).split(",")) };
  return null;
}

const AUTO_DISCOVERY: ToolFilter = { ...NO_FILTER, discovery: true };

/**
 * The filter for one request: the request's own switches when it sent any
 * (`requested` is not NO_FILTER), else the credential's stored mode, else
 * automatic. Also what whoami reports (`principal.listing`).
 */
export function resolveListing(
  registry: Registry,
  principal: Principal,
  requested: ToolFilter,
): { filter: ToolFilter; listing: ListingInUse } {
  let filter: ToolFilter;
  let source: ListingInUse["source"];
  let full: number | undefined;
  if (requested !== NO_FILTER) {
    filter = requested;
    source = "request";
  } else {
    const stored = storedFilter(principal.listingMode, registry);
    if (stored) {
      filter = stored;
      source = "credential";
    } else {
      full = registry.listResult(principal, NO_FILTER).tools.length;
      filter = full > AUTOMATIC_MAX ? AUTO_DISCOVERY : NO_FILTER;
      source = "automatic";
    }
  }
  const listing: ListingInUse = {
    mode: filter.discovery ? "discovery" : filter.listed || filter.toolsets ? "toolsets" : "full",
    source,
    compact: isCompact(filter),
    tools: filter === NO_FILTER && full !== undefined ? full : registry.listResult(principal, filter).tools.length,
  };
  const sets = filter.listed ?? filter.toolsets;
  if (sets && !filter.discovery) listing.toolsets = [...sets].sort();
  return { filter, listing };
}

/** How many tools each mode would list for these scopes (one company; several add no tools). */
export function listingCounts(
  registry: Registry,
  scopes: readonly string[],
  toolsets: readonly string[] = [],
): { full: number; discovery: number; toolsets: number | null; automatic: "full" | "discovery" } {
  const p: Principal = {
    userId: 0,
    credential: { kind: "mcp_key", id: 0, name: "" },
    scopes: [...scopes],
    companies: [],
    requireCmsApproval: false,
  };
  const full = registry.listResult(p, NO_FILTER).tools.length;
  return {
    full,
    discovery: registry.listResult(p, AUTO_DISCOVERY).tools.length,
    toolsets: toolsets.length ? registry.listResult(p, { ...NO_FILTER, listed: new Set(toolsets) }).tools.length : null,
    automatic: full > AUTOMATIC_MAX ? "discovery" : "full",
  };
}

/** Which clients accept a listing of `n` tools, in words. */
export function clientsAccepting(n: number): string {
  for (const c of CLIENT_CAPS) if (n <= c.max) return c.clients;
  return NO_CAP_CLIENTS;
}

/**
 * The toolsets a person may choose for the chosen-toolsets mode: those with
 * a tool these scopes allow (the discovery tools are always listed).
 */
export function choosableToolsets(registry: Registry, scopes: readonly string[]) {
  const usable = new Set(registry.tools.filter((t) => coversTool(scopes, t.def)).map((t) => t.def.toolset));
  return registry.toolsets.filter((t) => t.name !== "discovery" && usable.has(t.name));
}
