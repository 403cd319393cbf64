/**
 * Optional narrowing of what a connection sees, beyond the spec: 450 tools
 * overwhelm most clients. `X-MCP-Toolsets: cms,store` (or `?toolsets=cms,store`)
 * keeps only those toolsets; `X-MCP-Readonly: true` (or `?readonly=1`) keeps
 * only read-only tools. whoami always stays. Narrowed-away tools are not
 * registered for the request: calling one answers like an unknown tool.
 * `X-MCP-Discovery: true` (or `?discovery=1`) lists only the way in
 * (whoami, tools_search, toolsets_list, the tools_call_* routers) but leaves
 * every allowed tool callable (src/mcp/discovery.ts). A request that sends
 * any of these switches gets what they say, whatever listing mode its
 * credential carries (src/mcp/listing.ts).
 */
import { NO_FILTER, type Registry, type ToolFilter } from "./registry";

const TRUE = new Set(["1", "true", "yes", "on"]);
const FALSE = new Set(["", "0", "false", "no", "off"]);

/** Returns the filter, or a message naming what is wrong with the request's narrowing. */
export function parseNarrowing(req: Request, url: URL | string, registry: Registry): ToolFilter | string {
  // Most requests carry no query string: parse the URL only when there is one.
  const query = typeof url !== "string" ? url.searchParams : url.includes("?") ? new URL(url).searchParams : null;
  const rawSets = req.headers.get("x-mcp-toolsets") ?? query?.get("toolsets") ?? null;
  const rawRo = req.headers.get("x-mcp-readonly") ?? query?.get("readonly") ?? null;
  const rawDisc = req.headers.get("x-mcp-discovery") ?? query?.get("discovery") ?? null;
  if (rawSets === null && rawRo === null && rawDisc === null) return NO_FILTER;
  const flag = (raw: string | null, header: string): boolean | string => {
    if (raw === null) return false;
    const r = raw.trim().toLowerCase();
    if (TRUE.has(r)) return true;
    if (FALSE.has(r)) return false;
    return `${header} must be true or false, got "${raw.slice(0, 40)}".`;
  };
  const readOnly = flag(rawRo, "X-MCP-Readonly");
  if (typeof readOnly === "string") return readOnly;
  const discovery = flag(rawDisc, "X-MCP-Discovery");
  if (typeof discovery === "string") return discovery;
  let toolsets: Set<string> | null = null;
  if (rawSets !== null) {
    const names = rawSets
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    if (names.length && !(names.length === 1 && (names[0] === "all" || names[0] === "*"))) {
      const known = new Set(registry.toolsets.map((t) => t.name));
      const unknown = names.filter((n) => !known.has(n));
      if (unknown.length)
        return `Unknown toolset${unknown.length > 1 ? "s" : ""} ${unknown
          .map((u) => `"${u.slice(0, 40)}"`)
          .join(", ")} in X-MCP-Toolsets; known toolsets: ${[...known].join(", ")}.`;
      toolsets = new Set(names);
    }
  }
  return { toolsets, readOnly, discovery };
}
