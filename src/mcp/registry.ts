/**
 * The registry: every tool and resource of every domain, checked once at
 * load, with everything clients see computed once (JSON Schemas, annotations,
 * tools/list entries). tools/list, tools/call, docs/tools.md and the registry
 * tests all read a Registry built by `buildRegistry(domains)`; tests build
 * their own from a custom domain list.
 *
 * What a caller sees is decided here and nowhere else (the "filter"): a tool
 * is visible when the credential's scopes cover its scope and the optional
 * narrowing (toolsets, read-only) keeps it. A hidden tool is not listed for
 * that caller at all; tools/call answers one the narrowing hides like an
 * unknown name, and one the scopes hide with the scope it needs (call.ts).
 */
import { toJsonSchema } from "@valibot/to-json-schema";
import type { Principal } from "../core/context";
import { covers, isScope } from "../core/scopes";
import { RegistryError } from "./catalog";
import type { DomainCatalog, ResourceDef, ToolCallObserver, ToolDef } from "./define";
import { coversTool, discoveryDomain, DISCOVERY_LISTED, DISCOVERY_ONLY, ROUTERS, toolClass } from "./discovery";
import {
  isCompact,
  type JsonSchema,
  type Registry,
  type RegisteredTool,
  type ToolEntry,
  type ToolFilter,
  type ToolsetInfo,
} from "./registry-types";
import { takesIdempotencyKey } from "./idempotency";

/** Added to every create tool's schema; the adapter strips it before the tool sees its arguments. */
const IDEMPOTENCY_KEY_SCHEMA = { type: "string", minLength: 1, maxLength: 200 };

export type { JsonSchema, Registry, RegisteredTool, ToolEntry, ToolFilter, ToolsetInfo } from "./registry-types";
export { isCompact, NO_FILTER } from "./registry-types";

/** One short sentence, once per tool; only connections that reach several companies see clientId at all. */
export const CLIENT_ID_DESCRIPTION = "Company id (whoami).";

const MIN_DESCRIPTION = 20;

export { RegistryError };

function fail(what: string, msg: string): never {
  throw new RegistryError(`${what}: ${msg}`);
}

/**
 * The compact form of a schema: what a model needs, in fewer bytes
 * (tools/list is read into every client's context, 450 tools of it):
 *  - every object refuses unknown properties (`additionalProperties: false`):
 *    tools/call checks against this form (RegisteredTool.callSchema), and
 *    the listing leaves the refusal out (`listingForm`; docs/mcp.md says it
 *    once: unknown arguments are refused at every depth, naming the accepted ones);
 *  - a nullable `anyOf [X, null]` becomes `type: [X's type, "null"]`, and an
 *    `anyOf` of bare types (an id or a key, nullable or not) one `type` list:
 *    `{"type":["integer","string"],"description":"…"}`, its words kept;
 *  - `propertyNames: {type: "string"}` (every JSON key is a string) and the
 *    `type: "string"` beside an enum of strings (the values say it) go;
 *  - dropped, because they cost more bytes than they teach (every one is
 *    still checked on the call, with a message naming the argument):
 *    string lengths and list sizes, bounds no real value comes near (2^53, 10^10 cents),
 *    ids' `minimum: 1` (every id is a positive integer), and patterns that
 *    only keep control characters or blanks out, or are too long to read
 *    (descriptions say the form in words where it matters).
 */
const MAX_PUBLISHED_PATTERN = 40;
const MAX_PUBLISHED_BOUND = 100_000;
const NO_CONTROL_PATTERNS = new Set([
  "\\S",
  "^[^\\u0000-\\u001f\\u007f]*$",
  "^[^\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f]*$",
  "^[^\\x00-\\x1f\\x7f]*$",
]);

export function compactSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(compactSchema);
  if (!node || typeof node !== "object") return node;
  const s: JsonSchema = {};
  for (const [k, v] of Object.entries(node))
    s[k] = k === "properties" ? mapValues(v as JsonSchema, compactSchema) : compactSchema(v);
  // A bound no real value comes near (2^53, 10^10 cents) teaches nothing.
  if (typeof s.maximum === "number" && s.maximum >= MAX_PUBLISHED_BOUND) delete s.maximum;
  // Short patterns tell a model the form (a slug, #rrggbb); long ones are noise it cannot use.
  if (typeof s.pattern === "string" && (NO_CONTROL_PATTERNS.has(s.pattern) || s.pattern.length > MAX_PUBLISHED_PATTERN))
    delete s.pattern;
  if (s.minimum === -Number.MAX_SAFE_INTEGER) delete s.minimum;
  // Lengths are checked on the call with a message naming the argument; in the listing they cost more than they teach.
  delete s.minLength;
  delete s.maxLength;
  delete s.maxItems;
  delete s.maxProperties;
  if (Array.isArray(s.required) && s.required.length === 0) delete s.required;
  const names = s.propertyNames as JsonSchema | undefined;
  if (names && Object.keys(names).length === 1 && names.type === "string") delete s.propertyNames;
  if (s.type === "object" && s.properties) {
    if (s.additionalProperties === undefined) s.additionalProperties = false;
    // Ids are positive integers, always: said once in docs/mcp.md, not on every id.
    for (const [k, v] of Object.entries(s.properties as Record<string, JsonSchema>)) {
      const t = v.type;
      if (
        (k === "id" || /Id$/.test(k)) &&
        (t === "integer" || (Array.isArray(t) && t.includes("integer"))) &&
        v.minimum === 1
      )
        delete v.minimum;
      const items = v.items as JsonSchema | undefined;
      if (/Ids$/.test(k) && items?.type === "integer" && items.minimum === 1) delete items.minimum;
    }
  }
  const types = bareTypes(s.anyOf);
  if (types) {
    // The words of a described branch (a nullable described union) stay with the whole.
    const words = (s.anyOf as JsonSchema[]).find((b) => b.description)?.description;
    delete s.anyOf;
    return { type: types, ...(words ? { description: words } : {}), ...s };
  }
  const any = s.anyOf as JsonSchema[] | undefined;
  if (any?.length === 2) {
    const i = any.findIndex((x) => x.type === "null" && Object.keys(x).length === 1);
    const other = any[1 - i];
    if (i >= 0 && other && typeof other.type === "string" && !("anyOf" in other)) {
      delete s.anyOf;
      return { ...other, type: [other.type, "null"], ...s };
    }
  }
  return s;
}

/**
 * The types of an `anyOf` whose branches say nothing but a type (nested
 * bare `anyOf`s included, one of them at most with a description), in
 * order; undefined when any branch says more (a pattern, properties).
 */
function bareTypes(any: unknown): string[] | undefined {
  if (!Array.isArray(any) || any.length < 2) return undefined;
  const out: string[] = [];
  let described = 0;
  for (const b of any as JsonSchema[]) {
    const keys = Object.keys(b).filter((k) => k !== "description");
    if (b.description !== undefined && ++described > 1) return undefined;
    if (keys.length !== 1) return undefined;
    if (typeof b.type === "string") out.push(b.type);
    else if (Array.isArray(b.type)) out.push(...(b.type as string[]));
    else return undefined;
  }
  return [...new Set(out)];
}

/**
 * The listed form of a compact schema: without `additionalProperties: false`
 * (tools/call refuses unknown properties at every depth all the same), an
 * enum of strings without the `type: "string"` beside it (the values say
 * it; dropped after the nullable merge, which reads it), and without bounds
 * that only say "not negative" (checked on the call all the same).
 */
function listingForm(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(listingForm);
  if (!node || typeof node !== "object") return node;
  const s: JsonSchema = {};
  for (const [k, v] of Object.entries(node))
    s[k] = k === "properties" ? mapValues(v as JsonSchema, listingForm) : listingForm(v);
  if (s.type === "string" && Array.isArray(s.enum) && s.enum.every((x) => typeof x === "string")) delete s.type;
  if (s.additionalProperties === false) delete s.additionalProperties;
  // A lone `minimum: 0` (a price, a quantity, a size) says what no model would doubt; a range (0..4) stays whole.
  if (s.minimum === 0 && s.maximum === undefined && s.exclusiveMaximum === undefined) delete s.minimum;
  // Nor does a floor no real value comes near (-10^10 cents).
  if (typeof s.minimum === "number" && s.minimum <= -MAX_PUBLISHED_BOUND) delete s.minimum;
  return s;
}

/**
 * The shared page arguments (pageInput) as listed: `limit` keeps its type and
 * its maximum (100), `offset` its type. Their minimums (1, 0) and defaults
 * (20, 0) are what any model assumes of a page, every answer echoes `limit`,
 * `offset` and `nextOffset`, and the call still checks and applies them; on
 * ~80 list tools they cost ~49 bytes each.
 */
function listedPage(schema: JsonSchema): JsonSchema {
  const props = schema.properties as Record<string, JsonSchema> | undefined;
  const limit = props?.limit;
  const offset = props?.offset;
  if (!props || !isPageArg(limit, 1, 20) || !isPageArg(offset, 0, 0)) return schema;
  const { minimum: _l, default: _ld, ...listedLimit } = limit;
  const { minimum: _o, default: _od, ...listedOffset } = offset;
  return { ...schema, properties: { ...props, limit: listedLimit, offset: listedOffset } };
}

function isPageArg(p: JsonSchema | undefined, minimum: number, dflt: number): p is JsonSchema {
  return p?.type === "integer" && p.minimum === minimum && p.default === dflt;
}

function mapValues(o: JsonSchema, f: (v: unknown) => unknown): JsonSchema {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, f(v)]));
}

/** valibot → JSON Schema (2020-12, the MCP default dialect), without the $schema noise; `compactSchema` makes the published form. */
export function inputJsonSchema(tool: ToolDef): JsonSchema {
  let schema: JsonSchema;
  try {
    schema = toJsonSchema(tool.input, {
      target: "draft-2020-12",
      typeMode: "input",
      errorMode: "ignore",
    }) as JsonSchema;
  } catch (e) {
    fail(`tool ${tool.name}`, `its input schema cannot be expressed as JSON Schema (${(e as Error).message})`);
  }
  delete schema.$schema;
  if (Array.isArray(schema.required) && schema.required.length === 0) delete schema.required;
  if (schema.type !== "object") fail(`tool ${tool.name}`, "its input must be a valibot object schema");
  return schema;
}

/** clientId for connections that reach several companies: optional in the schema, named in one sentence. */
function withClientId(schema: JsonSchema): JsonSchema {
  const properties = { ...((schema.properties as Record<string, unknown>) ?? {}) };
  properties.clientId = { type: "integer", description: CLIENT_ID_DESCRIPTION };
  return { ...schema, properties };
}

/** The entity a tool is about, from its name: products_update → [product, …]; what its own id argument must not be called. */
function ownIdNames(toolName: string): string[] {
  const noun = toolName.split("_").slice(0, -1);
  if (!noun.length) return [];
  const singular = (w: string) => w.replace(/ies$/, "y").replace(/(ss|[^s])s$/, "$1");
  const camel = (ws: string[]) => ws.map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join("");
  const words = [...noun.slice(0, -1), singular(noun[noun.length - 1]!)];
  // siteId is every site-scoped tool's scope argument, sites_get's included.
  return [...new Set([`${camel(words)}Id`, `${words[words.length - 1]}Id`])].filter((n) => n !== "siteId");
}

/** Naming rules every tool's arguments follow (docs/mcp.md "Conventions"). */
function checkArguments(t: ToolDef, schema: JsonSchema) {
  const props = Object.keys((schema.properties as object) ?? {});
  for (const own of ownIdNames(t.name))
    if (props.includes(own))
      fail(`tool ${t.name}`, `its own entity's id is \`id\`, not \`${own}\` (<entity>Id names other entities)`);
  for (const p of props) if (!/^[a-z][A-Za-z0-9]*$/.test(p)) fail(`tool ${t.name}`, `argument ${p} must be camelCase`);
}

/**
 * A tools/list entry: name, description, schema, annotations. Annotations say
 * only what differs from MCP's defaults (readOnlyHint false, idempotentHint
 * false; destructiveHint and openWorldHint default to true, so false is
 * always said). The human title stays out of the listing (a model reads the
 * name and description; the title serves docs/tools.md and approval pages).
 */
function entry(t: ToolDef, inputSchema: JsonSchema): ToolEntry {
  const annotations: ToolEntry["annotations"] = {};
  if (t.readOnly) annotations.readOnlyHint = true;
  else {
    // destructiveHint and idempotentHint only mean something for write tools.
    annotations.destructiveHint = t.destructive ?? false;
    if (t.idempotent) annotations.idempotentHint = true;
  }
  annotations.openWorldHint = t.openWorld ?? false;
  return { name: t.name, description: t.description.trim(), inputSchema, annotations };
}

const MAX_CACHED_LISTS = 2000;

export function buildRegistry(catalog: DomainCatalog): Registry {
  // The registry's own domain: the discovery tools, which read this very registry.
  let self: Registry;
  const domains = [...catalog.domains, discoveryDomain(() => self, catalog.domains)];
  const byName = new Map<string, RegisteredTool>();
  const resources: ResourceDef[] = [];
  const uris = new Set<string>();
  const toolsetCounts = new Map<string, number>();
  const toolsetScopes = new Map<string, Set<string>>();

  for (const d of domains) {
    for (const t of d.tools) {
      if (byName.has(t.name)) fail(`tool ${t.name}`, `declared twice (again in domain ${d.name})`);
      const full = inputJsonSchema(t);
      for (const reserved of ["clientId", "idempotencyKey"])
        if (full.properties && reserved in (full.properties as object))
          fail(`tool ${t.name}`, `must not declare ${reserved} itself; the adapter adds and strips it`);
      checkArguments(t, full);
      if (takesIdempotencyKey(t)) (full.properties as Record<string, unknown>).idempotencyKey = IDEMPOTENCY_KEY_SCHEMA;
      const callSchema = compactSchema(full) as JsonSchema;
      const single = listingForm(listedPage(callSchema)) as JsonSchema;
      const multi = t.companyFree ? single : withClientId(single);
      byName.set(t.name, {
        def: t,
        schema: full,
        callSchema,
        entrySingle: entry(t, single),
        entryMulti: entry(t, multi),
      });
      toolsetCounts.set(t.toolset, (toolsetCounts.get(t.toolset) ?? 0) + 1);
      if (t.scope !== null) toolsetScopes.set(t.toolset, (toolsetScopes.get(t.toolset) ?? new Set()).add(t.scope));
    }
    for (const r of d.resources ?? []) {
      if (uris.has(r.uri)) fail(`resource ${r.uri}`, "declared twice");
      if (r.scope !== null && !isScope(r.scope)) fail(`resource ${r.uri}`, `unknown scope ${r.scope}`);
      if (!r.description || r.description.trim().length < MIN_DESCRIPTION)
        fail(`resource ${r.uri}`, "needs a description");
      uris.add(r.uri);
      resources.push(r);
    }
  }

  const tools = [...byName.values()].sort((a, b) => (a.def.name < b.def.name ? -1 : 1));
  const sortedByName = new Map(tools.map((t) => [t.def.name, t]));
  resources.sort((a, b) => (a.uri < b.uri ? -1 : 1));

  const domainInfo = new Map(domains.map((d) => [d.name, d]));
  // Scopes in the order the domains declare them (read before write before approve), any other after, by name.
  const scopeOrder = (x: string) => {
    const i = catalog.scopes.indexOf(x);
    return i < 0 ? catalog.scopes.length : i;
  };
  const toolsets: ToolsetInfo[] = [...toolsetCounts.entries()]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([name, n]) => {
      const d = domainInfo.get(name);
      const scopes = [...(toolsetScopes.get(name) ?? [])].sort(
        (a, b) => scopeOrder(a) - scopeOrder(b) || (a < b ? -1 : 1),
      );
      return { name, title: d?.title ?? name, description: d?.description ?? "", tools: n, scopes };
    });

  function isCallable(t: ToolDef, p: Principal, f: ToolFilter): boolean {
    if (!coversTool(p.scopes, t)) return false;
    // whoami and the discovery tools are never narrowed away: they are how a client learns what it can do.
    if (DISCOVERY_LISTED.has(t.name)) return true;
    if (f.readOnly && !t.readOnly) return false;
    if (f.toolsets && !f.toolsets.has(t.toolset)) return false;
    return true;
  }

  /** A router is listed only when it could run something: some tool of its class is callable here. */
  const routerUseful = new Map<string, boolean>();
  function routerUsable(router: string, p: Principal, f: ToolFilter): boolean {
    const key = `${router}|${listKey(p, f)}`;
    let useful = routerUseful.get(key);
    if (useful === undefined) {
      const cls = ROUTERS.get(router)!;
      useful = tools.some(
        (x) => !DISCOVERY_LISTED.has(x.def.name) && toolClass(x.def) === cls && isCallable(x.def, p, f),
      );
      if (routerUseful.size >= MAX_CACHED_LISTS) routerUseful.clear();
      routerUseful.set(key, useful);
    }
    return useful;
  }

  function isVisible(t: ToolDef, p: Principal, f: ToolFilter): boolean {
    // The compact modes list the way in (and, chosen toolsets, those toolsets); the full listing leaves out the
    // search tools and routers it makes redundant.
    if (isCompact(f)) {
      if (!DISCOVERY_LISTED.has(t.name) && !(f.listed && f.listed.has(t.toolset))) return false;
      if (ROUTERS.has(t.name) && !routerUsable(t.name, p, f)) return false;
    } else if (DISCOVERY_ONLY.has(t.name)) return false;
    return isCallable(t, p, f);
  }

  function listKey(p: Principal, f: ToolFilter) {
    return `${[...p.scopes].sort().join(" ")}|${p.companies.length > 1 ? "m" : "s"}|${f.readOnly ? "r" : "w"}|${
      f.toolsets ? [...f.toolsets].sort().join(",") : "*"
    }|${f.discovery ? "d" : "f"}${f.listed ? `|${[...f.listed].sort().join(",")}` : ""}`;
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

  const observers = [...catalog.toolCallObservers];
  self = {
    tools,
    byName: sortedByName,
    resources,
    toolsets,
    isVisible,
    isCallable,
    listResult,
    listKey,
    visibleResources,
    observers,
  };
  return self;
}
