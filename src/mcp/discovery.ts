/**
 * Discovery mode, for clients that cannot hold 450 tool definitions (some
 * cap at 40 or 128 tools and silently drop the rest). With
 * `X-MCP-Discovery: true` (or `?discovery=1`) tools/list shows only whoami
 * and these two tools; the model finds what it needs with tools_search,
 * which returns full definitions (schema and annotations), and calls it by
 * name: every tool the credential's scopes allow stays callable. Stateless:
 * nothing is remembered between requests.
 */
import * as v from "valibot";
import { covers } from "../core/scopes";
import type { Principal } from "../core/context";
import { defineTool, type Domain } from "./define";
import type { Registry, ToolEntry } from "./registry-types";

export const DISCOVERY_LISTED: ReadonlySet<string> = new Set(["whoami", "tools_search", "toolsets_list"]);
/** Listed only in discovery mode: the full listing already shows every tool. */
export const DISCOVERY_ONLY: ReadonlySet<string> = new Set(["tools_search", "toolsets_list"]);

const words = (s: string) =>
  s
    .toLowerCase()
    .split(/[^a-z0-9:]+/)
    .filter((w) => w.length > 1);

function allowed(reg: Registry, p: Principal) {
  return reg.tools.filter((t) => covers(p.scopes, t.def.scope) && !DISCOVERY_LISTED.has(t.def.name));
}

const singular = (w: string) => w.replace(/ies$/, "y").replace(/s$/, "");

/**
 * Ranks tools for a query: every word must appear in the name, toolset,
 * scope or description. A whole name part counts most ("post" is posts),
 * the start of one less ("prod" finds products_list), the description
 * least; name parts the query did not ask for count a little against, so
 * "create post" ranks posts_create above post_types_create.
 */
function score(
  q: string[],
  t: { name: string; toolset: string; scope: string | null; description: string },
): number | null {
  let total = 0;
  const parts = t.name.split("_").map(singular);
  const used = new Set<number>();
  const hay = `${t.toolset} ${t.scope ?? ""} ${t.description}`.toLowerCase();
  for (const w of q) {
    const sw = singular(w);
    const exact = parts.indexOf(sw);
    const prefix = exact >= 0 ? exact : parts.findIndex((p) => p.startsWith(sw));
    if (exact >= 0) total += 4;
    else if (prefix >= 0) total += 2;
    else if (hay.includes(sw)) total += 1;
    else return null;
    if (prefix >= 0) used.add(prefix);
  }
  return total - 0.5 * (parts.length - used.size);
}

export function discoveryDomain(registry: () => Registry): Domain {
  const search = defineTool({
    name: "tools_search",
    toolset: "discovery",
    scope: null,
    readOnly: true,
    companyFree: true,
    title: "Search tools",
    description:
      'Find tools by words ("create post", "refund order"), toolset or scope; returns their definitions (schema, annotations). Any tool found can be called by name.',
    input: v.strictObject({
      query: v.optional(v.pipe(v.string(), v.maxLength(200))),
      toolset: v.optional(v.pipe(v.string(), v.maxLength(40))),
      scope: v.optional(v.pipe(v.string(), v.maxLength(40))),
      readOnly: v.optional(v.boolean()),
      limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(25)), 10),
    }),
    run: async (ctx, input) => {
      const reg = registry();
      const q = words(input.query ?? "");
      const multi = ctx.principal.companies.length > 1;
      const hits = allowed(reg, ctx.principal)
        .filter(
          (t) => (!input.toolset || t.def.toolset === input.toolset) && (!input.scope || t.def.scope === input.scope),
        )
        .filter((t) => input.readOnly === undefined || t.def.readOnly === input.readOnly)
        .map((t) => ({ t, s: q.length ? score(q, { ...t.def, description: t.def.description }) : 1 }))
        .filter((x): x is { t: (typeof x)["t"]; s: number } => x.s !== null)
        .sort((a, b) => b.s - a.s || (a.t.def.name < b.t.def.name ? -1 : 1));
      const tools: ToolEntry[] = hits.slice(0, input.limit).map((x) => (multi ? x.t.entryMulti : x.t.entrySingle));
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
    description:
      "The toolsets (domains) this connection can use, each with a one-line description and how many tools it has; search one with tools_search {toolset}.",
    input: v.strictObject({}),
    run: async (ctx) => {
      const reg = registry();
      const counts = new Map<string, number>();
      for (const t of allowed(reg, ctx.principal)) counts.set(t.def.toolset, (counts.get(t.def.toolset) ?? 0) + 1);
      return {
        toolsets: reg.toolsets
          .filter((ts) => counts.has(ts.name))
          .map((ts) => ({ name: ts.name, description: ts.description || ts.title, tools: counts.get(ts.name)! })),
      };
    },
  });
  return {
    name: "discovery",
    title: "Discovery",
    description: "Find the tools this connection can call.",
    tools: [search, toolsets],
  };
}
