/**
 * From a tools/call or resources/read request to a result: find the tool
 * among those visible to this caller, settle the company from `clientId`,
 * validate the input, and hand over to `executeTool`. Protocol-agnostic: the
 * SDK server (server.ts) calls these with the per-request environment.
 */
import { ProtocolError, ResourceNotFoundError } from "@modelcontextprotocol/server";
import * as v from "valibot";
import type { ActorContext, CompanyAccess, Deps, Principal } from "../core/context";
import { authorize, covers } from "../core/scopes";
import type { ResourceDef, ToolCallObserver, ToolCallRecord, ToolDef } from "./define";
import { argumentProblem, closest, issuesMessage } from "./arguments";
import { takesIdempotencyKey, withIdempotency } from "./idempotency";
import { INVALID_PARAMS, mapToolError, toolError, toolOk, type ToolResult } from "./errors";
import { executeTool } from "./execute";
import { DISCOVERY_LISTED, ROUTER_OF, ROUTERS, toolClass } from "./discovery";
import { cachedAnswer } from "./result-cache";
import { isCompact, type Registry, type ToolFilter } from "./registry";
import type { ToolOutcome } from "../ops/metrics";

/** Everything a request's handlers need; built once per HTTP request. */
export interface McpEnv {
  deps: Deps;
  principal: Principal;
  registry: Registry;
  filter: ToolFilter;
  requestId: string;
  /** Told how each tools/call ended, for the access log and metrics (src/ops/telemetry.ts). */
  observe?: (outcome: ToolOutcome) => void;
  /** The client's Mcp-Session-Id header, if it sent one (AI history groups calls by it). */
  sessionId?: string | null;
}

/** Stand-in company for whoami on a connection that reaches none: it is never used to read or write. */
const NO_COMPANY: CompanyAccess = Object.freeze({ id: 0, name: "", role: "viewer" as const });

function describe(c: CompanyAccess) {
  return `${c.id} "${c.name}" (${c.role})`;
}

/**
 * The company a call acts for, or the message telling the model what to
 * pass. A clientId outside the reachable set gets the same answer whether or
 * not such a company exists.
 */
export function resolveCompany(p: Principal, clientId: unknown): CompanyAccess | string {
  const n = p.companies.length;
  if (n === 0)
    return "This credential cannot act for any company: it selected none, or the user is no longer a member of those it selected. Ask the user to re-authorize with a company they belong to.";
  if (clientId === undefined || clientId === null) {
    if (n === 1) return p.companies[0]!;
    return `clientId is required: this credential can act for ${n} companies: ${p.companies
      .map(describe)
      .join(", ")}. Pass clientId with one of these ids.`;
  }
  if (typeof clientId !== "number" || !Number.isSafeInteger(clientId))
    return `clientId must be an integer company id; this credential can act for: ${p.companies.map(describe).join(", ")}.`;
  const c = p.companies.find((x) => x.id === clientId);
  if (!c)
    return `clientId ${clientId} is not a company this credential can act for; it can act for: ${p.companies
      .map(describe)
      .join(", ")}.`;
  return c;
}

/**
 * The path of the first string holding a NUL character, or null. Refused
 * for every tool alike: PostgreSQL cannot store NUL in text and SQLite
 * would, so without this the two engines would answer differently.
 */
export function nulPath(x: unknown, path = ""): string | null {
  if (typeof x === "string") return x.includes("\u0000") ? path || "(value)" : null;
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) {
      const p = nulPath(x[i], `${path}[${i}]`);
      if (p) return p;
    }
  } else if (x && typeof x === "object") {
    for (const [k, v] of Object.entries(x)) {
      const p = nulPath(v, path ? `${path}.${k}` : k);
      if (p) return p;
    }
  }
  return null;
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/**
 * An unknown name, with the visible tools it most likely meant (post_create →
 * posts_create). Only tools this caller may call are suggested, so the answer
 * leaks nothing about hidden ones.
 */
export function unknownTool(name: unknown, env?: McpEnv): ProtocolError {
  const shown = String(name).slice(0, 200);
  // In a compact listing mode every callable tool is reachable (through a router), so any of them may be meant.
  const compact = env ? isCompact(env.filter) : false;
  const names = env
    ? env.registry.tools
        .filter((t) =>
          compact
            ? !DISCOVERY_LISTED.has(t.def.name) && env.registry.isCallable(t.def, env.principal, env.filter)
            : env.registry.isVisible(t.def, env.principal, env.filter),
        )
        .map((t) => t.def.name)
    : [];
  const near = typeof name === "string" ? closest(name, names) : [];
  const hint = near.length
    ? ` Did you mean ${near.join(", ")}?`
    : env?.filter.discovery
      ? " Find tools with tools_search."
      : "";
  return new ProtocolError(INVALID_PARAMS, `Unknown tool: ${shown}.${hint}`);
}

/**
 * A router call (tools_call_read / _write / _destructive, src/mcp/discovery.ts)
 * as the call of the tool it names: the name and arguments it carries, or
 * the answer when it cannot run that tool (a tool of another class names the
 * router that runs it). What follows is the named tool's own call, so
 * scopes, role, approval staging, audit, idempotency and the result are
 * exactly a direct call's.
 */
function unwrapRouter(env: McpEnv, router: string, args: unknown): { name: string; args: unknown } | ToolResult {
  if (args !== undefined && !isPlainObject(args))
    return toolError("Invalid arguments: arguments must be a JSON object.");
  const { name, arguments: inner, ...extra } = (args ?? {}) as Record<string, unknown>;
  const stray = Object.keys(extra);
  if (stray.length)
    return toolError(
      `Invalid arguments: ${router} takes only name and arguments; put ${stray
        .slice(0, 5)
        .map((k) => k.slice(0, 40))
        .join(", ")} inside arguments.`,
    );
  if (typeof name !== "string" || !name) return toolError(`Invalid arguments: name is required (the tool to run).`);
  if (inner !== undefined && !isPlainObject(inner))
    return toolError("Invalid arguments: arguments must be a JSON object (the named tool's arguments).");
  const target = env.registry.byName.get(name);
  if (!target) throw unknownTool(name, env);
  if (ROUTERS.has(name)) return toolError(`Invalid arguments: ${name} is a router itself; call it directly.`);
  const cls = toolClass(target.def);
  if (cls !== ROUTERS.get(router))
    return toolError(
      `${name} is ${cls === "read" ? "read-only" : cls === "destructive" ? "destructive" : "a non-destructive write"}: run it with ${ROUTER_OF[cls]}, not ${router}.`,
    );
  return { name, args: inner ?? {} };
}

/** `meta`: the request's params._meta, passed on to toolCallObservers. */
export async function callTool(env: McpEnv, name: string, args: unknown, meta?: unknown): Promise<ToolResult> {
  if (ROUTERS.has(name)) {
    let routed: ReturnType<typeof unwrapRouter>;
    try {
      routed = unwrapRouter(env, name, args);
    } catch (e) {
      env.observe?.("protocol_error");
      throw e;
    }
    if ("content" in routed) {
      env.observe?.("tool_error");
      return routed;
    }
    name = routed.name;
    args = routed.args;
  }
  const observers = env.registry.observers;
  if (!env.observe && observers.length === 0) return runTool(env, name, args);
  const settled: Settled = { company: null };
  const startedAt = observers.length ? env.deps.clock.now() : null;
  const t0 = performance.now();
  try {
    const r = await runTool(env, name, args, settled);
    env.observe?.(r.isError ? "tool_error" : "ok");
    if (startedAt)
      tell(
        env,
        observers,
        name,
        args,
        meta,
        settled,
        r.isError ? "tool_error" : "ok",
        r.content[0]?.text ?? null,
        startedAt,
        t0,
      );
    return r;
  } catch (e) {
    env.observe?.("protocol_error");
    if (startedAt) tell(env, observers, name, args, meta, settled, "protocol_error", null, startedAt, t0);
    throw e;
  }
}

/** What runTool settled, for the observers. */
interface Settled {
  company: CompanyAccess | null;
}

function tell(
  env: McpEnv,
  observers: readonly ToolCallObserver[],
  name: string,
  args: unknown,
  meta: unknown,
  settled: Settled,
  outcome: ToolCallRecord["outcome"],
  resultText: string | null,
  startedAt: Date,
  t0: number,
) {
  const company = settled.company && settled.company !== NO_COMPANY ? settled.company.id : null;
  const rec: ToolCallRecord = {
    deps: env.deps,
    principal: env.principal,
    companyId: company,
    tool: String(name).slice(0, 200),
    toolset: env.registry.byName.get(name)?.def.toolset ?? null,
    args,
    meta: isPlainObject(meta) ? meta : null,
    sessionId: env.sessionId ?? null,
    outcome,
    resultText,
    startedAt,
    durationMs: performance.now() - t0,
    requestId: env.requestId,
  };
  for (const o of observers) {
    try {
      o(rec);
    } catch {
      // An observer never fails the call it observes.
    }
  }
}

/**
 * A tool that exists but the credential's scopes do not cover: the way out
 * is a credential with that scope, so the answer names it (scope names are
 * public: docs/mcp.md, toolsets_list, `plinth mcp-keys create --help`).
 */
export function missingScope(tool: ToolDef, scope: string): ProtocolError {
  return new ProtocolError(
    INVALID_PARAMS,
    `${tool.name} needs the ${scope} scope, which this credential does not have. Ask for a key with it (plinth mcp-keys create … --scopes "${scope}") or reconnect and grant it.`,
  );
}

/** The first scope the tool needs (its own, then what its verb also checks: alsoNeeds) that `granted` does not cover. */
function uncoveredScope(granted: readonly string[], tool: ToolDef): string | null {
  if (!covers(granted, tool.scope)) return tool.scope;
  if (tool.alsoNeeds) for (const s of tool.alsoNeeds) if (!covers(granted, s)) return s;
  return null;
}

async function runTool(env: McpEnv, name: string, args: unknown, settled?: Settled): Promise<ToolResult> {
  const reg = env.registry.byName.get(name);
  if (!reg) throw unknownTool(name, env);
  // Scopes first: a tool the credential lacks the scope for says which one it needs, narrowed or not.
  const lacking = uncoveredScope(env.principal.scopes, reg.def);
  if (lacking !== null) throw missingScope(reg.def, lacking);
  // A tool the client's own narrowing (toolsets, read-only) hides answers like one that does not exist.
  if (!env.registry.isCallable(reg.def, env.principal, env.filter)) throw unknownTool(name, env);
  const tool = reg.def;
  if (args !== undefined && !isPlainObject(args))
    return toolError("Invalid arguments: arguments must be a JSON object.");
  // whoami-like tools take no clientId; a stray one is ignored rather than refused.
  const { clientId, idempotencyKey, ...toolArgs } = (args ?? {}) as Record<string, unknown>;
  const keyed = takesIdempotencyKey(tool);
  const rest = keyed || idempotencyKey === undefined ? toolArgs : { ...toolArgs, idempotencyKey };
  let company: CompanyAccess;
  if (tool.companyFree) {
    company = env.principal.companies[0] ?? NO_COMPANY;
  } else {
    const c = resolveCompany(env.principal, clientId);
    if (typeof c === "string") return toolError(c);
    company = c;
  }
  if (settled) settled.company = company;
  const ctx: ActorContext = { deps: env.deps, principal: env.principal, company, requestId: env.requestId };
  try {
    // Who may call comes before what was passed: a viewer is told it may not
    // write, not how to fix arguments it cannot use. executeTool checks again.
    authorize(ctx, tool.scope, { write: !tool.readOnly, minRole: tool.minRole });
    const schema = reg.callSchema;
    const problem = argumentProblem(schema, rest);
    if (problem) return toolError(`Invalid arguments: ${problem}`);
    const parsed = v.safeParse(tool.input, rest);
    if (!parsed.success) return toolError(issuesMessage(parsed.issues, schema));
    const nul = nulPath(parsed.output);
    if (nul) return toolError(`Invalid arguments: ${nul} must not contain the NUL character (\\u0000).`);
    if (keyed && idempotencyKey !== undefined) {
      if (typeof idempotencyKey !== "string" || !/^[\x21-\x7e]{1,200}$/.test(idempotencyKey))
        return toolError(
          "Invalid arguments: idempotencyKey must be 1 to 200 printable characters without spaces (a UUID works).",
        );
      return toolOk(
        await withIdempotency(ctx, tool.name, idempotencyKey, parsed.output, () =>
          executeTool(ctx, tool, parsed.output),
        ),
      );
    }
    if (tool.cachedBy) return await cachedAnswer(ctx, tool, parsed.output, () => executeTool(ctx, tool, parsed.output));
    return toolOk(await executeTool(ctx, tool, parsed.output));
  } catch (e) {
    return mapToolError(e, env.requestId);
  }
}

export function visibleResource(env: McpEnv, uri: string): ResourceDef | undefined {
  return env.registry.visibleResources(env.principal).find((r) => r.uri === uri);
}

export async function readResource(env: McpEnv, uri: string) {
  const r = visibleResource(env, uri);
  // The SDK sends this as -32602 with data.uri, as the 2026-07-28 MCP revision requires on every era.
  if (!r || !covers(env.principal.scopes, r.scope))
    throw new ResourceNotFoundError(uri.slice(0, 200), `Resource not found: ${uri.slice(0, 200)}`);
  const company = env.principal.companies.length === 1 ? env.principal.companies[0] : undefined;
  let text: string;
  try {
    text = await r.read({ deps: env.deps, principal: env.principal, company });
  } catch (e) {
    const mapped = mapToolError(e, env.requestId);
    throw new ProtocolError(INVALID_PARAMS, mapped.content[0]!.text);
  }
  return { contents: [{ uri: r.uri, mimeType: r.mimeType, text }] };
}
