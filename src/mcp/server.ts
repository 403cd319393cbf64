/**
 * The MCP protocol layer, built on the official SDK (@modelcontextprotocol/server 2.x).
 *
 * Design (measured; see docs/mcp.md): per HTTP request we build a low-level
 * SDK `Server` with exactly four handlers (tools/list, tools/call,
 * resources/list, resources/read) that close over that request's
 * environment (deps, resolved Principal, registry, narrowing). Registering
 * four closures is cheap; building an McpServer with 450 registered tools per
 * request would not be. Everything heavy (JSON Schemas, list entries) lives
 * in the registry, computed at start-up.
 *
 * Both protocol eras go through the SDK:
 *  - 2026-07-28 requests (per-request `_meta` envelope): `createMcpHandler`
 *    with `legacy: 'reject'`, JSON responses.
 *  - 2025-era requests (initialize handshake, protocol 2025-03-26..2025-11-25):
 *    the SDK's `WebStandardStreamableHTTPServerTransport` in stateless,
 *    JSON-response mode (`sessionIdGenerator: undefined`,
 *    `enableJsonResponse: true`). The SDK's own legacy fallback would answer
 *    over SSE; interface.md 4.2 asks for JSON responses.
 * The era is decided by the SDK's own `isLegacyRequest` predicate.
 */
import {
  createMcpHandler,
  isLegacyRequest,
  ProtocolError,
  Server,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
  type AuthInfo,
  type McpRequestContext,
} from "@modelcontextprotocol/server";
import { BoundedMap } from "../core/bounded-map";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../core/memory-budget";
import { resultJson } from "./errors";
import { callTool, readResource, type McpEnv } from "./call";
import { isCompact } from "./registry";
import { announcesApps, readView, requestAnnouncesApps, uiResourceEntries, withViews } from "./apps";
import { VERSION } from "../version";

export const SERVER_INFO = { name: "plinth", title: "Plinth", version: VERSION };

const INSTRUCTIONS =
  "Plinth: content, commerce and portal tools. Call whoami first: it lists the companies (clients) this " +
  "credential can act for and its scopes. When it can act for more than one company, pass clientId on every " +
  "other tool call. Read the blocks://schema resource before writing post content.";

/** The compact modes (discovery, chosen toolsets): how to find and run what is not listed (src/mcp/listing.ts). */
const COMPACT_INSTRUCTIONS =
  "Plinth: content, commerce and portal tools. This connection lists only some of the tools it can use. Call " +
  "whoami first (companies, scopes, listing mode). Find any other tool with tools_search (words, toolset or " +
  "scope; toolsets_list names the toolsets), then run it through the router its result names: " +
  'tools_call_read, tools_call_write or tools_call_destructive with {"name": <tool>, "arguments": {...}}. With ' +
  "several companies pass clientId inside arguments. Read the blocks://schema resource before writing post content.";

function envOf(auth: AuthInfo | undefined): McpEnv {
  const env = auth?.extra?.plinth as McpEnv | undefined;
  // The route only dispatches after authentication; reaching here without an
  // environment is a wiring bug, not a client error.
  if (!env) throw new Error("MCP request dispatched without an authenticated environment");
  return env;
}

/** The per-request SDK server: four handlers closing over this request's environment. */
export function makeServer(env: McpEnv): Server {
  const server = new Server(SERVER_INFO, {
    capabilities: { tools: { listChanged: false }, resources: { listChanged: false } },
    instructions: isCompact(env.filter) ? COMPACT_INSTRUCTIONS : INSTRUCTIONS,
  });
  // MCP Apps (src/mcp/apps.ts): only a client announcing the extension on this request sees the views.
  const apps = () => announcesApps(server.getClientCapabilities());
  server.setRequestHandler("tools/list", () => {
    const list = env.registry.listResult(env.principal, env.filter);
    return (apps() ? withViews(list, env.registry.byName) : list) as never;
  });
  server.setRequestHandler(
    "tools/call",
    (req) => callTool(env, req.params.name, req.params.arguments, req.params._meta) as never,
  );
  server.setRequestHandler("resources/list", () => {
    const resources = env.registry.visibleResources(env.principal).map((r) => ({
      uri: r.uri,
      name: r.name,
      description: r.description,
      mimeType: r.mimeType,
    }));
    return { resources: apps() ? [...resources, ...uiResourceEntries()] : resources };
  });
  // A view is static HTML holding no data, so any caller may read it (hosts may read before they list).
  server.setRequestHandler("resources/read", (req) => readView(req.params.uri) ?? readResource(env, req.params.uri));
  return server;
}

function factory(ctx: McpRequestContext) {
  return makeServer(envOf(ctx.authInfo));
}

// One modern handler per process: it holds no per-request state of its own
// (the factory builds a Server per request from the auth info it is given).
let modernHandler: ReturnType<typeof createMcpHandler> | undefined;
function modern() {
  return (modernHandler ??= createMcpHandler(factory, {
    legacy: "reject",
    responseMode: "auto",
    onerror: () => {}, // rejections are answered on the wire; nothing to log
  }));
}

function authInfo(env: McpEnv): AuthInfo {
  const p = env.principal;
  return {
    // Never the secret itself: handlers have no use for it and it must not travel further.
    token: `${p.credential.kind}:${p.credential.id}`,
    clientId: p.credential.kind === "oauth" ? p.credential.name : `mcp_key:${p.credential.id}`,
    scopes: p.scopes,
    extra: { plinth: env },
  };
}

async function serveLegacy(request: Request, message: unknown, auth: AuthInfo): Promise<Response> {
  const server = factory({ era: "legacy", authInfo: auth, requestInfo: request });
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  try {
    return await transport.handleRequest(request, { authInfo: auth, parsedBody: message });
  } finally {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  }
}

async function viaSdk(request: Request, message: unknown, env: McpEnv): Promise<Response> {
  const auth = authInfo(env);
  if (await isLegacyRequest(request, message)) return serveLegacy(request, message, auth);
  return modern().fetch(request, { authInfo: auth, parsedBody: message });
}

/**
 * tools/list bodies are large (hundreds of tools) and depend only on the
 * caller's list key, the request headers the SDK reads and whether the
 * request's `_meta` announces MCP Apps (src/mcp/apps.ts): never on the rest
 * of `_meta`, the id or the `cursor` (the list is one page: the handler above
 * never reads the request, so every cursor gets that page). So the SDK's
 * own answer is memoised as bytes, split where the id goes: a repeat costs
 * a concatenation, and every protocol decision (era, version, validation)
 * is still the SDK's, made once. The memo is bounded in bytes, and requests
 * whose key would be long (huge header values) are answered but not
 * memoised, so no sequence of requests can grow it past MAX_LIST_BYTES.
 *
 * The cursor used to be part of the key: a flood of distinct cursors then
 * had the SDK build, serialise and encode the whole list (~0.5 MB of
 * garbage each) on every request, and that churn, not anything kept, is
 * what took the server to ~180 MB in test/mcp/memory.test.ts and to
 * 420–480 MB at 16 such requests in flight (bench/README.md, issue 30).
 */
interface ListTemplate {
  status: number;
  headers: [string, string][];
  /** Already UTF-8: encoding a 100+ KiB string on every answer would cost more than the rest of the request. */
  before: Uint8Array<ArrayBuffer>;
  after: Uint8Array<ArrayBuffer>;
  bytes: number;
}
type ListMemo = BoundedMap<string, ListTemplate>;
const listMemos = new WeakMap<object, ListMemo>();
export const MAX_LIST_BYTES = BUDGET.mcpLists;
const MAX_LIST_KEY = 1024;
const SENTINEL = `plinth-list-id-${crypto.randomUUID()}`;
const UTF8 = new TextEncoder();
const KEY_HEADERS = ["accept", "content-type", "mcp-protocol-version", "mcp-method", "mcp-name"];

async function listTools(request: Request, message: Record<string, unknown>, env: McpEnv): Promise<Response> {
  let memo = listMemos.get(env.registry);
  if (!memo)
    listMemos.set(
      env.registry,
      (memo = new BoundedMap({
        maxBytes: MAX_LIST_BYTES,
        maxEntryBytes: MAX_LIST_BYTES / 4,
        sizeOf: (_, t) => t.bytes + ENTRY_OVERHEAD,
      })),
    );
  const key = [
    env.registry.listKey(env.principal, env.filter),
    ...KEY_HEADERS.map((h) => (request.headers.get(h) ?? "").slice(0, 200)),
    String(message.jsonrpc),
    requestAnnouncesApps(message.params) ? "apps" : "",
  ].join("\n");
  const respond = (t: ListTemplate) => {
    // One typed array, not a Blob of the parts: an ArrayBuffer's bytes count towards the collector's
    // pacing, a Blob's do not, and at several hundred KB an answer a flood of lists otherwise piles up
    // native memory until the memory guard's next turn (issue 30).
    const id = UTF8.encode(JSON.stringify(message.id));
    const body = new Uint8Array(t.before.byteLength + id.byteLength + t.after.byteLength);
    body.set(t.before);
    body.set(id, t.before.byteLength);
    body.set(t.after, t.before.byteLength + id.byteLength);
    return new Response(body, { status: t.status, headers: t.headers });
  };
  const hit = memo.get(key);
  if (hit) return respond(hit);
  const res = await viaSdk(request, { ...message, id: SENTINEL }, env);
  const text = await res.text();
  const marker = JSON.stringify(SENTINEL);
  const at = text.indexOf(marker);
  const headers = [...res.headers.entries()].filter(([h]) => h !== "content-length");
  if (at < 0 || text.indexOf(marker, at + 1) >= 0)
    // Not an answer to this id (should not happen): pass it on, uncached, with the real id.
    return new Response(text.split(marker).join(JSON.stringify(message.id)), { status: res.status, headers });
  const before = UTF8.encode(text.slice(0, at));
  const after = UTF8.encode(text.slice(at + marker.length));
  const t: ListTemplate = {
    status: res.status,
    headers,
    before,
    after,
    bytes: before.byteLength + after.byteLength + stringBytes(key),
  };
  if (res.status === 200 && key.length <= MAX_LIST_KEY) memo.set(key, t);
  return respond(t);
}

const LIST_METHODS = new Set(["tools/list", "resources/list", "resources/templates/list", "prompts/list"]);
const isObj = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

/**
 * Params are checked here for the methods whose params matter, so a client
 * gets "-32602 Invalid params: …" with one short sentence rather than the
 * SDK's raw schema dump (which arrives as -32603 Internal error).
 */
function paramsProblem(m: Record<string, unknown>): string | null {
  if (m.id === undefined) return null;
  const p = m.params;
  if (p !== undefined && !isObj(p)) return `Invalid params: ${String(m.method).slice(0, 60)} params must be an object.`;
  if (p && p._meta !== undefined && !isObj(p._meta)) return "Invalid params: params._meta must be an object.";
  if (m.method === "tools/call" && (!p || typeof p.name !== "string"))
    return "Invalid params: tools/call needs params.name (string) and optionally params.arguments (object).";
  if (m.method === "resources/read" && (!p || typeof p.uri !== "string"))
    return "Invalid params: resources/read needs params.uri (string).";
  if (LIST_METHODS.has(String(m.method)) && p && p.cursor !== undefined && typeof p.cursor !== "string")
    return `Invalid params: ${m.method} params.cursor must be a string.`;
  if (m.method === "initialize") {
    if (!p || typeof p.protocolVersion !== "string")
      return "Invalid params: initialize needs params.protocolVersion (string).";
    if (!isObj(p.capabilities)) return "Invalid params: initialize needs params.capabilities (object).";
    const info = p.clientInfo;
    if (!isObj(info) || typeof info.name !== "string" || typeof info.version !== "string")
      return "Invalid params: initialize needs params.clientInfo with name and version (strings).";
  }
  return null;
}

function invalidParams(id: unknown, message: string): Response {
  return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: { code: -32602, message } }), {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === "object" && x !== null && !Array.isArray(x);

function rpcResult(id: string | number, resultJson: string): Response {
  // The SDK's key order, so both paths answer with the same bytes.
  return new Response(`{"result":${resultJson},"jsonrpc":"2.0","id":${JSON.stringify(id)}}`, {
    status: 200,
    headers: { "content-type": "application/json" },
  });
}

/**
 * The SDK's era decision (isLegacyRequest), remembered per request shape.
 * Without a `_meta` object in params (where the 2026-era envelope claim
 * lives), what the SDK's classification reads of a tools/call is the
 * message's top-level keys, `jsonrpc`, the kind of id, and the three MCP
 * headers: equal shapes get equal answers, so the SDK decides once per shape
 * (its zod checks cost more than a typical tool). Anything else asks it
 * every time; the memo is bounded and skips long header values.
 */
const eraMemo = new Map<string, boolean>();

/** The two usual key orders: plain JSON-RPC, and the MCP SDK client's ({ ...request, jsonrpc, id }). */
const USUAL_ORDERS = [
  ["jsonrpc", "id", "method", "params"],
  ["method", "params", "jsonrpc", "id"],
] as const;

/** Which usual order the message's keys are in ("0", "1"), or null; counted without building a key list. */
function usualOrder(message: Record<string, unknown>): string | null {
  let a = true,
    b = true,
    i = 0;
  for (const k in message) {
    if (i >= 4) return null;
    a &&= k === USUAL_ORDERS[0][i];
    b &&= k === USUAL_ORDERS[1][i];
    i++;
  }
  return i !== 4 ? null : a ? "0" : b ? "1" : null;
}

/**
 * The memo key of a message's shape. A message in a usual key order gets a
 * short key built without a key list; any other key list is spelled out in
 * JSON, which can never equal a short one (it starts with "[").
 */
function shapeKey(
  rpc: boolean,
  idKind: string,
  message: Record<string, unknown>,
  v: string | null,
  m: string | null,
  n: string | null,
): string {
  const order = usualOrder(message) ?? JSON.stringify(Object.keys(message));
  // Header values hold no line breaks or NUL (fetch refuses them), so neither can be faked by a header.
  return `${order}\n${rpc ? 1 : 0}${idKind}\n${v ?? "\u0000"}\n${m ?? "\u0000"}\n${n ?? "\u0000"}`;
}
const MAX_ERA_SHAPES = 256;

/** `v`: the request's MCP-Protocol-Version header, already read by the caller. */
function legacyEra(
  request: Request,
  message: Record<string, unknown>,
  params: Record<string, unknown>,
  v: string | null,
): Promise<boolean> | boolean {
  if (params._meta !== undefined) return isLegacyRequest(request, message);
  const h = request.headers;
  const m = h.get("mcp-method"),
    n = h.get("mcp-name");
  if ((v?.length ?? 0) + (m?.length ?? 0) + (n?.length ?? 0) > 200) return isLegacyRequest(request, message);
  const id = message.id;
  const idKind = typeof id === "string" ? "s" : Number.isSafeInteger(id) ? "i" : Number.isInteger(id) ? "I" : "x";
  const key = shapeKey(message.jsonrpc === "2.0", idKind, message, v, m, n);
  const known = eraMemo.get(key);
  if (known !== undefined) return known;
  return isLegacyRequest(request, message).then((legacy) => {
    if (eraMemo.size < MAX_ERA_SHAPES) eraMemo.set(key, legacy);
    return legacy;
  });
}

/**
 * The hot path. A well-formed 2025-era `tools/call` — the bulk of agent
 * traffic — is answered by the very handler the SDK server above registers
 * (callTool), without building an SDK Server and transport for it: that
 * construction and the SDK's per-message schema work cost ~50 µs, several
 * times the work of a typical tool. The era is still the SDK's decision
 * (isLegacyRequest). Anything else (initialize, resources, 2026-era
 * envelopes, unusual headers or params) returns null and goes through the
 * SDK; tools/list has its own memo (listTools). test/mcp/fast-path.test.ts
 * checks that both paths give the same answers.
 */
export async function fastPath(
  request: Request,
  message: Record<string, unknown>,
  env: McpEnv,
): Promise<Response | null> {
  const id = message.id;
  if (typeof id !== "string" && typeof id !== "number") return null;
  if (message.method !== "tools/call") return null;
  const accept = request.headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return null;
  const version = request.headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  const params = message.params;
  if (!isObject(params) || typeof params.name !== "string") return null;
  if (params.arguments !== undefined && !isObject(params.arguments)) return null;
  let legacy = legacyEra(request, message, params, version);
  if (typeof legacy !== "boolean") legacy = await legacy;
  if (!legacy) return null;
  try {
    return rpcResult(id, resultJson(await callTool(env, params.name, params.arguments, params._meta)));
  } catch (e) {
    if (!(e instanceof ProtocolError)) throw e;
    return new Response(JSON.stringify({ jsonrpc: "2.0", id, error: { code: e.code, message: e.message } }), {
      status: 200,
      headers: { "content-type": "application/json" },
    });
  }
}

/**
 * Serves one parsed JSON-RPC message (never a batch: the route splits those)
 * through the SDK, in whichever era the message belongs to.
 */
export async function dispatch(
  request: Request,
  message: Record<string, unknown>,
  env: McpEnv,
  opts: { sdkOnly?: boolean } = {},
): Promise<Response> {
  const bad = paramsProblem(message);
  if (bad) return invalidParams(message.id, bad);
  if (!opts.sdkOnly) {
    const fast = await fastPath(request, message, env);
    if (fast) return fast;
  }
  if (message.method === "tools/list" && (typeof message.id === "number" || typeof message.id === "string"))
    return listTools(request, message, env);
  return viaSdk(request, message, env);
}
