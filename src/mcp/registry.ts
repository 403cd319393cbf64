/**
 * The registry: every tool and resource of every domain, checked once at
 * load, with everything clients see computed once (JSON Schemas, annotations,
 * tools/list entries). tools/list, tools/call, docs/tools.md and the registry
 * tests all read a Registry built by `buildRegistry(domains)`; tests build
 * their own from a custom domain list.
 *
 * What a caller sees is decided here and nowhere else (the "filter"): a tool
 * is visible when the credential's scopes cover its scope and the optional
 * narrowing (toolsets, read-only) keeps it. A hidden tool is not registered
 * for that caller at all: tools/call answers it like an unknown name.
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { Principal } from "../core/context";
import { covers, SCOPES } from "../core/scopes";
import { ROLES } from "../domains/accounts/tables";
import type { Domain, ResourceDef, ToolDef } from "./define";

export type JsonSchema = Record<string, unknown>;

/** A tools/list entry, as MCP defines Tool. */
export interface ToolEntry {
  name: string;
  title?: string;
  description: string;
  inputSchema: JsonSchema;
  annotations: {
    title?: string;
    readOnlyHint: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint: boolean;
  };
}

export interface RegisteredTool {
  def: ToolDef;
  /** Entry for connections reaching at most one company: clientId optional. */
  entrySingle: ToolEntry;
  /** Entry for connections reaching several companies: clientId required. */
  entryMulti: ToolEntry;
}

/** Optional narrowing a client asks for (X-MCP-Toolsets, X-MCP-Readonly). */
export interface ToolFilter {
  toolsets: ReadonlySet<string> | null;
  readOnly: boolean;
}
export const NO_FILTER: ToolFilter = { toolsets: null, readOnly: false };

export interface ToolsetInfo {
  name: string;
  title: string;
  description: string;
  tools: number;
}

export interface Registry {
  /** All tools, in tools/list order (by name). */
  tools: RegisteredTool[];
  byName: ReadonlyMap<string, RegisteredTool>;
  resources: ResourceDef[];
  toolsets: ToolsetInfo[];
  isVisible(tool: ToolDef, principal: Principal, filter: ToolFilter): boolean;
  /** The tools/list result for this caller; computed once per (scopes, company count, filter). */
  listResult(principal: Principal, filter: ToolFilter): { tools: ToolEntry[] };
  /** What the tools/list result depends on: equal keys, equal results. */
  listKey(principal: Principal, filter: ToolFilter): string;
  /** Resources this caller may list and read. */
  visibleResources(principal: Principal): ResourceDef[];
}

export const CLIENT_ID_DESCRIPTION =
  "Company id to act for (see whoami's clients). Required when the credential can act for more than one company.";

const NAME = /^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$/;
const TOOLSET = /^[a-z][a-z0-9_]*$/;
const KNOWN_SCOPES = new Set<string>(SCOPES);
const MIN_DESCRIPTION = 20;

/** Thrown at load when a declaration breaks a registry rule; names the tool. */
export class RegistryError extends Error {}

function fail(what: string, msg: string): never {
  throw new RegistryError(`${what}: ${msg}`);
}

/** valibot → JSON Schema (2020-12, the MCP default dialect), without the $schema noise. */
export function inputJsonSchema(tool: ToolDef): JsonSchema {
  let schema: JsonSchema;
  try {
    schema = toJsonSchema(tool.input, { target: "draft-2020-12", typeMode: "input", errorMode: "ignore" }) as JsonSchema;
  } catch (e) {
    fail(`tool ${tool.name}`, `its input schema cannot be expressed as JSON Schema (${(e as Error).message})`);
  }
  delete schema.$schema;
  if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
  if (schema.type !== "object") fail(`tool ${tool.name}`, "its input must be a valibot object schema");
  return schema;
}

function withClientId(schema: JsonSchema, required: boolean): JsonSchema {
  const properties = { ...((schema.properties as Record<string, unknown>) ?? {}) };
  properties.clientId = { type: "integer", minimum: 1, description: CLIENT_ID_DESCRIPTION };
  const req = [...((schema.required as string[]) ?? [])];
  if (required) req.unshift("clientId");
  const out: JsonSchema = { ...schema, properties };
  if (req.length) out.required = req;
  else delete out.required;
  return out;
}

function checkTool(t: ToolDef) {
  const w = `tool ${t.name || "(unnamed)"}`;
  if (typeof t.name !== "string" || !NAME.test(t.name)) fail(w, "name must be snake_case (<noun>_<verb>)");
  if (t.name.length > 128) fail(w, "name must be at most 128 characters");
  if (t.name !== "whoami" && !t.name.includes("_")) fail(w, "name must read <noun>_<verb>");
  if (!TOOLSET.test(t.toolset ?? "")) fail(w, "toolset must be a lower-case identifier");
  if (t.scope === null) {
    if (!t.companyFree) fail(w, "only company-free tools (whoami) may be unscoped");
    if (!t.readOnly) fail(w, "an unscoped tool must be read-only");
  } else {
    if (!KNOWN_SCOPES.has(t.scope)) fail(w, `scope ${t.scope} is not a scope of interface.md 5.3`);
    const isRead = t.scope.endsWith(":read");
    if (t.readOnly !== isRead)
      fail(w, t.readOnly ? `a read-only tool needs a :read scope, not ${t.scope}` : `a write tool cannot use the read scope ${t.scope}`);
  }
  if (t.destructive && t.readOnly) fail(w, "a destructive tool cannot be read-only");
  if (t.approval && t.readOnly) fail(w, "only write tools use the approval workflow");
  if (t.idempotent && t.readOnly) fail(w, "idempotent describes write tools; read-only tools are idempotent by nature");
  if (t.minRole !== undefined && !(ROLES as readonly string[]).includes(t.minRole)) fail(w, `unknown minRole ${t.minRole}`);
  if (typeof t.description !== "string" || t.description.trim().length < MIN_DESCRIPTION)
    fail(w, `needs a description written for a model (at least ${MIN_DESCRIPTION} characters)`);
  if (typeof t.run !== "function") fail(w, "needs a run handler");
}

function entry(t: ToolDef, inputSchema: JsonSchema): ToolEntry {
  const e: ToolEntry = {
    name: t.name,
    description: t.description.trim(),
    inputSchema,
    annotations: { readOnlyHint: t.readOnly, openWorldHint: t.openWorld ?? false },
  };
  if (t.title) {
    e.title = t.title;
    e.annotations.title = t.title;
  }
  // destructiveHint and idempotentHint only mean something for write tools (MCP spec).
  if (!t.readOnly) {
    e.annotations.destructiveHint = t.destructive ?? false;
    e.annotations.idempotentHint = t.idempotent ?? false;
  }
  return e;
}

const MAX_CACHED_LISTS = 2000;

export function buildRegistry(domains: readonly Domain[]): Registry {
  const byName = new Map<string, RegisteredTool>();
  const resources: ResourceDef[] = [];
  const uris = new Set<string>();
  const toolsetCounts = new Map<string, number>();

  for (const d of domains) {
    for (const t of d.tools) {
      checkTool(t);
      if (byName.has(t.name)) fail(`tool ${t.name}`, `declared twice (again in domain ${d.name})`);
      const base = inputJsonSchema(t);
      if (base.properties && "clientId" in (base.properties as object))
        fail(`tool ${t.name}`, "must not declare clientId itself; the adapter adds and strips it");
      const single = t.companyFree ? base : withClientId(base, false);
      const multi = t.companyFree ? base : withClientId(base, true);
      byName.set(t.name, { def: t, entrySingle: entry(t, single), entryMulti: entry(t, multi) });
      toolsetCounts.set(t.toolset, (toolsetCounts.get(t.toolset) ?? 0) + 1);
    }
    for (const r of d.resources ?? []) {
      if (uris.has(r.uri)) fail(`resource ${r.uri}`, "declared twice");
      if (r.scope !== null && !KNOWN_SCOPES.has(r.scope)) fail(`resource ${r.uri}`, `unknown scope ${r.scope}`);
      if (!r.description || r.description.trim().length < MIN_DESCRIPTION) fail(`resource ${r.uri}`, "needs a description");
      uris.add(r.uri);
      resources.push(r);
    }
  }

  const tools = [...byName.values()].sort((a, b) => (a.def.name < b.def.name ? -1 : 1));
  const sortedByName = new Map(tools.map((t) => [t.def.name, t]));
  resources.sort((a, b) => (a.uri < b.uri ? -1 : 1));

  const domainInfo = new Map(domains.map((d) => [d.name, d]));
  const toolsets: ToolsetInfo[] = [...toolsetCounts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, n]) => {
      const d = domainInfo.get(name);
      return { name, title: d?.title ?? name, description: d?.description ?? "", tools: n };
    });

  function isVisible(t: ToolDef, p: Principal, f: ToolFilter): boolean {
    if (!covers(p.scopes, t.scope)) return false;
    // whoami is never narrowed away: it is how a client learns what it can do.
    if (t.companyFree) return true;
    if (f.readOnly && !t.readOnly) return false;
    if (f.toolsets && !f.toolsets.has(t.toolset)) return false;
    return true;
  }

  function listKey(p: Principal, f: ToolFilter) {
    return `${[...p.scopes].sort().join(" ")}|${p.companies.length > 1 ? "m" : "s"}|${f.readOnly ? "r" : "w"}|${
      f.toolsets ? [...f.toolsets].sort().join(",") : "*"
    }`;
  }

  const listCache = new Map<string, { tools: ToolEntry[] }>();
  function listResult(p: Principal, f: ToolFilter) {
    const multi = p.companies.length > 1;
    const key = listKey(p, f);
    let hit = listCache.get(key);
    if (!hit) {
      hit = { tools: tools.filter((t) => isVisible(t.def, p, f)).map((t) => (multi ? t.entryMulti : t.entrySingle)) };
      if (listCache.size >= MAX_CACHED_LISTS) listCache.clear();
      listCache.set(key, hit);
    }
    return hit;
  }

  function visibleResources(p: Principal) {
    return resources.filter((r) => covers(p.scopes, r.scope) && (!r.singleCompanyOnly || p.companies.length === 1));
  }

  return { tools, byName: sortedByName, resources, toolsets, isVisible, listResult, listKey, visibleResources };
}
