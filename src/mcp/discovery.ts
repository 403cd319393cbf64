/**
 * Discovery mode, for clients that cannot hold 450 tool definitions (some
 * cap at 40 or 128 tools and silently drop the rest). In discovery mode (the
 * credential's listing mode, src/mcp/listing.ts, or `X-MCP-Discovery: true`)
 * tools/list shows only whoami, these two tools and the three routers; the
 * model finds what it needs with tools_search, which returns full
 * definitions (schema and annotations) and the router that runs each, and
 * calls it through that router (or by name): every tool the credential's
 * scopes allow stays callable. Stateless:
 * nothing is remembered between requests (the search index is the
 * registry's, built once).
 *
 * tools_search ranks tools for requests as people say them ("who is free
 * for a meeting"), with each domain's vocabulary (src/mcp/tool-search.ts),
 * among the tools the caller may call; when nothing matches it says so and
 * suggests the closest toolsets rather than answering an empty list.
 * toolsets_list names each toolset's scopes, so a model that lacks one
 * learns what to ask for.
 */
import * as v from "valibot";
import { covers } from "../core/scopes";
import type { Principal } from "../core/context";
import { defineTool, type Domain, type ToolDef } from "./define";
import type { Registry, RegisteredTool, ToolEntry } from "./registry-types";
import { buildToolSearch, terms, type ToolSearch } from "./tool-search";

/**
 * The routers: how a model whose client only calls listed tools (Claude,
 * Copilot, Cursor) runs a tool it found. One per class, so each router's
 * annotations stay true of everything it runs. src/mcp/call.ts unwraps a
 * router call into the named tool's own call (same checks, approval, audit,
 * result); a tool of another class is refused with the right router's name.
 */
export type ToolClass = "read" | "write" | "destructive";
export const ROUTERS: ReadonlyMap<string, ToolClass> = new Map([
  ["tools_call_read", "read"],
  ["tools_call_write", "write"],
  ["tools_call_destructive", "destructive"],
]);
export const ROUTER_OF: Readonly<Record<ToolClass, string>> = {
  read: "tools_call_read",
  write: "tools_call_write",
  destructive: "tools_call_destructive",
};
export const toolClass = (t: ToolDef): ToolClass => (t.readOnly ? "read" : t.destructive ? "destructive" : "write");

/** The way in: never narrowed away, never a search result, listed in discovery and chosen-toolsets modes. */
export const DISCOVERY_LISTED: ReadonlySet<string> = new Set([
  "whoami",
  "tools_search",
  "toolsets_list",
  ...ROUTERS.keys(),
]);
/** Listed only in the compact modes: the full listing already shows every tool. */
export const DISCOVERY_ONLY: ReadonlySet<string> = new Set(["tools_search", "toolsets_list", ...ROUTERS.keys()]);

/** The credential covers the tool's scope and every scope its verb also checks (ToolDef.alsoNeeds): listed only then. */
export function coversTool(granted: readonly string[], t: ToolDef): boolean {
  if (!covers(granted, t.scope)) return false;
  // Checked for every tool of every listing: no array is made for the many tools that declare none.
  if (t.alsoNeeds) for (const s of t.alsoNeeds) if (!covers(granted, s)) return false;
  return true;
}

function allowed(reg: Registry, p: Principal) {
  return reg.tools.filter((t) => coversTool(p.scopes, t.def) && !DISCOVERY_LISTED.has(t.def.name));
}

/** How many tools of each toolset the caller may call. */
function toolsetCounts(reg: Registry, p: Principal) {
  const counts = new Map<string, number>();
  for (const t of allowed(reg, p)) counts.set(t.def.toolset, (counts.get(t.def.toolset) ?? 0) + 1);
  return counts;
}

/** How many toolsets a search that found nothing suggests. */
const SUGGESTED_TOOLSETS = 5;

/**
 * `domains` are the registry's own (their vocabularies feed the ranking);
 * the index is built on the first search and kept as long as the registry.
 */
export function discoveryDomain(registry: () => Registry, domains: readonly Domain[] = []): Domain {
  let index: ToolSearch | undefined;
  const searchIndex = (reg: Registry) =>
    (index ??= buildToolSearch(
      reg.tools.filter((t) => !DISCOVERY_LISTED.has(t.def.name)),
      reg.toolsets,
      domains,
    ));

  /**
   * What a search that found nothing answers instead of nothing: the
   * toolsets closest to the query (the same ranking, over their names,
   * titles, descriptions and vocabulary) among those the caller can use, or
   * all of them when none is close, and how to list one's tools.
   */
  function nothingFound(reg: Registry, p: Principal, query: string) {
    const counts = toolsetCounts(reg, p);
    const asked = terms(query).length > 0;
    const closest = asked
      ? searchIndex(reg)
          .toolsets(query, (name) => counts.has(name))
          .slice(0, SUGGESTED_TOOLSETS)
      : [];
    const names = closest.length ? closest : reg.toolsets.map((ts) => ts.name).filter((name) => counts.has(name));
    const what = asked ? `"${query}"` : "these filters";
    return {
      note: `${closest.length ? `No tool matches ${what}; the closest toolsets follow.` : `No tool or toolset matches ${what}; these are the toolsets this connection can use.`} List one's tools with tools_search {"toolset": "<name>"}.`,
      suggestions: reg.toolsets
        .filter((ts) => names.includes(ts.name))
        .sort((a, b) => names.indexOf(a.name) - names.indexOf(b.name))
        .map((ts) => ({ name: ts.name, description: ts.description || ts.title, tools: counts.get(ts.name)! })),
    };
  }
  const search = defineTool({
    name: "tools_search",
    toolset: "discovery",
    scope: null,
    readOnly: true,
    companyFree: true,
    title: "Search tools",
    description:
      'Find tools by words ("refund order"), toolset or scope, with their definitions; run one with its `call`.',
    input: v.strictObject({
      query: v.optional(v.pipe(v.string(), v.maxLength(200))),
      toolset: v.optional(v.pipe(v.string(), v.maxLength(40))),
      scope: v.optional(v.pipe(v.string(), v.maxLength(40))),
      readOnly: v.optional(v.boolean()),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(25)), 10),
    }),
    run: async (ctx, input) => {
      const reg = registry();
      const query = input.query ?? "";
      const multi = ctx.principal.companies.length > 1;
      const pool = allowed(reg, ctx.principal)
        .filter(
          (t) => (!input.toolset || t.def.toolset === input.toolset) && (!input.scope || t.def.scope === input.scope),
        )
        .filter((t) => input.readOnly === undefined || t.def.readOnly === input.readOnly);
      // Without a word to search by (no query, or only words like "please show me"), every tool the filters keep, by name.
      const names = new Set(pool.map((t) => t.def.name));
      const hits = terms(query).length
        ? searchIndex(reg)
            .tools(query, (name) => names.has(name))
            .map((h) => reg.byName.get(h.name)!)
        : pool;
      const listing = ctx.principal.listing;
      // In a compact mode, each tool the listing does not show says which router runs it.
      const shown = (t: RegisteredTool) =>
        !listing?.compact || listing.toolsets?.includes(t.def.toolset) ? null : { call: ROUTER_OF[toolClass(t.def)] };
      const tools: ToolEntry[] = hits.slice(0, input.limit).map((t) => {
        const e = multi ? t.entryMulti : t.entrySingle;
        const how = shown(t);
        return how ? { ...e, ...how } : e;
      });
      if (!hits.length) return { total: 0, tools, ...nothingFound(reg, ctx.principal, query) };
      return {
        total: hits.length,
        tools,
        ...(hits.length > tools.length ? { more: "narrow the query, or pass toolset or a higher limit" } : {}),
      };
    },
  });
  const toolsets = defineTool({
    name: "toolsets_list",
    toolset: "discovery",
    scope: null,
    readOnly: true,
    companyFree: true,
    title: "List toolsets",
    description: "The toolsets this connection can use, with tool counts.",
    input: v.strictObject({}),
    run: async (ctx) => {
      const reg = registry();
      const counts = toolsetCounts(reg, ctx.principal);
      return {
        toolsets: reg.toolsets
          .filter((ts) => counts.has(ts.name))
          .map((ts) => ({
            name: ts.name,
            description: ts.description || ts.title,
            tools: counts.get(ts.name)!,
            // Every scope the toolset's tools need, held or not: how a model learns which one to ask for.
            scopes: ts.scopes,
          })),
      };
    },
  });
  return {
    name: "discovery",
    title: "Discovery",
    description: "Find the tools this connection can call, and call them.",
    tools: [search, toolsets, ...routers()],
  };
}

/** The three routers' definitions; their calls never reach `run` (src/mcp/call.ts unwraps them). */
function routers(): ToolDef[] {
  const input = v.strictObject({
    name: v.pipe(v.string(), v.maxLength(128)),
    arguments: v.optional(v.record(v.string(), v.unknown())),
  });
  const unreachable = async (): Promise<never> => {
    throw new Error("a router call is unwrapped in src/mcp/call.ts before it runs");
  };
  // The named tool's own role and scope decide (src/mcp/call.ts); the router adds no rule of its own.
  const common = {
    toolset: "discovery",
    scope: null,
    companyFree: true,
    minRole: "viewer",
    input,
    run: unreachable,
  } as const;
  return [
    defineTool({
      ...common,
      name: "tools_call_read",
      readOnly: true,
      title: "Run a read-only tool",
      description: "Run a read-only tool found with tools_search as if called directly (clientId in arguments).",
    }),
    defineTool({
      ...common,
      name: "tools_call_write",
      readOnly: false,
      destructive: false,
      openWorld: true,
      title: "Run a write tool",
      description: "Run a non-destructive write tool found with tools_search (clientId, idempotencyKey in arguments).",
    }),
    defineTool({
      ...common,
      name: "tools_call_destructive",
      readOnly: false,
      destructive: true,
      openWorld: true,
      title: "Run a destructive tool",
      description: "Run a destructive tool found with tools_search as if called directly (clientId in arguments).",
    }),
  ];
}
