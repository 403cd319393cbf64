/**
 * What the MCP registry is, as its users see it: tools/list entries, the
 * registered tools, the narrowing a client asks for. In a module of its own
 * so the discovery tools (which the registry includes) can name the
 * registry's shape without importing the registry.
 */
import type { Principal } from "../core/context";
import type { ResourceDef, ToolCallObserver, ToolDef } from "./define";

export type JsonSchema = Record<string, unknown>;

/** A tools/list entry, as MCP defines Tool. */
export interface ToolEntry {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: {
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
}

export interface RegisteredTool {
  def: ToolDef;
  /** The complete JSON Schema, every bound and pattern included (docs/tools.md); clients get the compact entries. */
  schema: JsonSchema;
  /**
   * The compact schema tools/call checks arguments against before valibot
   * does (src/mcp/arguments.ts): every object refuses unknown properties
   * (`additionalProperties: false`), which the listing does not repeat.
   */
  callSchema: JsonSchema;
  /** Entry for connections reaching at most one company: no clientId (it is implied). */
  entrySingle: ToolEntry;
  /** Entry for connections reaching several companies: an optional clientId, required on the call when several remain. */
  entryMulti: ToolEntry;
}

/**
 * What a connection lists and may call: the narrowing a client asks for per
 * request (X-MCP-Toolsets, X-MCP-Readonly, X-MCP-Discovery), or else the
 * listing mode its credential carries (src/mcp/listing.ts).
 */
export interface ToolFilter {
  /** Hard narrowing (X-MCP-Toolsets): only these toolsets are listed or callable. */
  toolsets: ReadonlySet<string> | null;
  readOnly: boolean;
  /** tools/list shows only the way in (whoami, tools_search, toolsets_list, the routers); every allowed tool stays callable. */
  discovery: boolean;
  /**
   * Chosen-toolsets mode (a credential's "toolsets:cms,store"): these toolsets are listed with the way in;
   * every other allowed tool stays callable (through a router). Absent: not in that mode.
   */
  listed?: ReadonlySet<string> | null;
}
export const NO_FILTER: ToolFilter = { toolsets: null, readOnly: false, discovery: false };

/** Lists only part of what it can call (discovery or chosen toolsets): the routers are listed, and searches say how to call. */
export const isCompact = (f: ToolFilter): boolean => f.discovery || !!f.listed;

export interface ToolsetInfo {
  name: string;
  title: string;
  description: string;
  tools: number;
  /** Every scope its tools need, in the domains' declared order (brain:read, brain:write, brain:approve). */
  scopes: string[];
}

export interface Registry {
  /** All tools, in tools/list order (by name). */
  tools: RegisteredTool[];
  byName: ReadonlyMap<string, RegisteredTool>;
  resources: ResourceDef[];
  toolsets: ToolsetInfo[];
  /** Listed in tools/list for this caller. */
  isVisible(tool: ToolDef, principal: Principal, filter: ToolFilter): boolean;
  /** Callable by this caller: visible, or (discovery mode) allowed though not listed. */
  isCallable(tool: ToolDef, principal: Principal, filter: ToolFilter): boolean;
  /** The tools/list result for this caller; computed once per (scopes, company count, filter). */
  listResult(principal: Principal, filter: ToolFilter): { tools: ToolEntry[] };
  /** What the tools/list result depends on: equal keys, equal results. */
  listKey(principal: Principal, filter: ToolFilter): string;
  /** Resources this caller may list and read. */
  visibleResources(principal: Principal): ResourceDef[];
  /** Every domain's toolCallObservers, told how each tools/call ended (src/mcp/call.ts). */
  observers: ToolCallObserver[];
}
