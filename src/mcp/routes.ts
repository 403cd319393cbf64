/**
 * The HTTP face of the MCP endpoint (interface.md 4.2): `POST /api/mcp` and
 * the protected-resource metadata. In order, a request passes: method (405),
 * Host/Origin allow-lists (403, DNS-rebinding protection), the bearer
 * credential (401), optional narrowing (400), body size (413), JSON (-32700),
 * JSON-RPC shape (-32600), batch rules; then each message is served by the
 * SDK (server.ts). Nothing here answers with a 500 for anything a client sent.
 */
import { localhostAllowedHostnames, validateHostHeader, validateOriginHeader } from "@modelcontextprotocol/server";
import { Hono } from "hono";
import type { Config } from "../config";
import type { Deps } from "../core/context";
import { rateLimiter } from "../core/limits";
import type { RateLimitDecision, RateLimiter } from "../core/rate-limit";
import { catalog } from "../catalog";
import type { DomainCatalog } from "./define";
import { authenticate, protectedResourceMetadata, unauthorizedResponse } from "./auth";
import type { McpEnv } from "./call";
import { INVALID_PARAMS } from "./errors";
import { parseNarrowing } from "./narrowing";
import { resolveListing } from "./listing";
import { ROUTERS } from "./discovery";
import { buildRegistry, type Registry } from "./registry";
import { dispatch } from "./server";
import { observeMcp, type AccessRecord, type PeerSource, type Telemetry } from "../ops/telemetry";
import { rootErrorAnswer } from "../ops/errors";

/** JSON-RPC items per batch; more is refused as a whole. */
export const MAX_BATCH = 100;

/**
 * Largest request body: a base64 media upload of `maxUploadBytes` grows by
 * 4/3, plus room for the JSON around it; 15 MiB at the default 10 MiB upload.
 * Bun.serve is given the same bound (src/server.ts).
 */
export function maxBodyBytes(config: Config) {
  return Math.ceil(config.maxUploadBytes * 1.4) + 1024 * 1024;
}

const registries = new WeakMap<DomainCatalog, Registry>();
/** The registry of a catalog's tools, built (and checked) once per catalog. */
export function registryOf(c: DomainCatalog): Registry {
  let r = registries.get(c);
  if (!r) registries.set(c, (r = buildRegistry(c)));
  return r;
}

/** The registry of this build's catalog (src/catalog.ts). */
export function registry(): Registry {
  return registryOf(catalog);
}

function rpcError(status: number, code: number, message: string, id: unknown = null, headers?: Record<string, string>) {
  return new Response(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: validId(id) ? id : null }), {
    status,
    headers: { "content-type": "application/json", ...headers },
  });
}

function validId(id: unknown): id is string | number {
  return typeof id === "string" || (typeof id === "number" && Number.isFinite(id));
}

/** A JSON-RPC 2.0 request, notification or response object (shape only; the SDK checks params). */
function isMessage(m: unknown): m is Record<string, unknown> {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return false;
  const o = m as Record<string, unknown>;
  if (o.jsonrpc !== "2.0") return false;
  if (typeof o.method === "string") return o.id === undefined || validId(o.id);
  return validId(o.id) && ("result" in o || "error" in o);
}

function hostnameOf(entry: string): string | null {
  try {
    return new URL(entry.includes("://") ? entry : `http://${entry}`).hostname;
  } catch {
    return null;
  }
}

function allowLists(config: Config) {
  const pub = hostnameOf(config.publicUrl);
  const base = [...localhostAllowedHostnames(), ...(pub ? [pub] : [])];
  const hosts = [...base, ...config.allowedHosts.map(hostnameOf).filter((h): h is string => !!h)];
  const origins = [...base, ...config.allowedOrigins.map(hostnameOf).filter((h): h is string => !!h)];
  return { hosts, origins };
}

function cors(origin: string): Record<string, string> {
  return {
    "access-control-allow-origin": origin,
    "access-control-expose-headers": "www-authenticate, mcp-protocol-version, mcp-session-id",
    vary: "origin",
  };
}
const PREFLIGHT = {
  "access-control-allow-methods": "POST",
  "access-control-allow-headers":
    "authorization, content-type, accept, mcp-protocol-version, mcp-method, mcp-name, x-mcp-toolsets, x-mcp-readonly",
  "access-control-max-age": "600",
};

/** The clientId a tools/call item names; whoami never takes one and is left out. */
function batchClientId(m: Record<string, unknown>): { counts: boolean; value: unknown } {
  if (m.method !== "tools/call") return { counts: false, value: undefined };
  const p = m.params as Record<string, unknown> | undefined;
  if (p?.name === "whoami") return { counts: false, value: undefined };
  let args = p?.arguments as Record<string, unknown> | undefined;
  // A router call (tools_call_*) acts for the company its named tool's arguments say.
  if (typeof p?.name === "string" && ROUTERS.has(p.name) && args && typeof args === "object") {
    if (args.name === "whoami") return { counts: false, value: undefined };
    args = args.arguments as Record<string, unknown> | undefined;
  }
  return { counts: true, value: args && typeof args === "object" ? args.clientId : undefined };
}

/**
 * Per-credential rate limit (the spec leaves MCP limits open). Every JSON-RPC
 * message counts, so a batch of 50 costs 50: batching is for fewer round
 * trips, not for more calls. A refused request runs nothing.
 */
function overLimit(limiter: RateLimiter, bucket: string, messages: number): Response | null | Promise<Response | null> {
  // All the batch's tokens or none: a refused batch spends nothing, so resending it after Retry-After works.
  const d = limiter.take(bucket, Math.max(1, messages));
  // The in-memory limiter answers at once; only Redis's needs awaiting.
  return d instanceof Promise ? d.then((x) => refusal(x, messages)) : refusal(d, messages);
}

function refusal(d: RateLimitDecision, messages: number): Response | null {
  if (d.allowed) return null;
  if (d.impossible)
    return rpcError(
      429,
      -32000,
      `Rate limit exceeded: this batch of ${messages} messages is larger than the limit of ${d.limit} MCP messages per minute per credential; send it in smaller batches.`,
      null,
      {
        "x-ratelimit-limit": String(d.limit),
        "x-ratelimit-remaining": "0",
      },
    );
  return rpcError(
    429,
    -32000,
    `Rate limit exceeded: at most ${d.limit} MCP messages per minute per credential. Retry after ${d.retryAfterSec} s.`,
    null,
    {
      "retry-after": String(d.retryAfterSec),
      "x-ratelimit-limit": String(d.limit),
      "x-ratelimit-remaining": "0",
    },
  );
}

/** Bodies above this size are followed by a garbage collection (memory stays bounded under floods of big requests). */
const LARGE_BODY_BYTES = 1024 * 1024;

export function mcpRoutes(deps: Deps, reg: Registry = registry(), opts: { limiter?: RateLimiter } = {}) {
  const app = new Hono<{ Variables: { requestId: string; access: AccessRecord } }>();
  const { config } = deps;
  const limiter = opts.limiter ?? rateLimiter(deps, "mcp", config.mcpRateLimit);
  let lists = {
    key: "",
    value: allowLists(config),
    hosts: new Map<string | null, ReturnType<typeof validateHostHeader>>(),
  };
  const allowed = () => {
    const key = config.publicUrl;
    if (lists.key !== key) lists = { key, value: allowLists(config), hosts: new Map() };
    return lists.value;
  };
  /** The SDK's Host check, remembered per Host value (a client sends the same one every time); bounded. */
  const hostCheck = (host: string | null) => {
    const a = allowed();
    let r = lists.hosts.get(host);
    if (!r) {
      r = validateHostHeader(host, a.hosts);
      if (lists.hosts.size < 256 && (host?.length ?? 0) <= 255) lists.hosts.set(host, r);
    }
    return r;
  };

  // Public metadata: any origin may read it (browser-based OAuth clients do).
  const metadata = (c: { json: (o: unknown, status?: any, headers?: Record<string, string>) => Response }) =>
    c.json(protectedResourceMetadata(config), 200, { "access-control-allow-origin": "*" });
  app.get("/.well-known/oauth-protected-resource", metadata);
  app.get("/.well-known/oauth-protected-resource/api/mcp", metadata);

  app.all("/api/mcp", (c) => serve(c.req.raw, c.get("access"), c.get("requestId") ?? ""));

  /** The endpoint without the framework: the Hono route above and the root's fast path (withMcpFastPath) both call it. */
  async function serve(req: Request, rec: AccessRecord | undefined, requestId: string): Promise<Response> {
    const origin = req.headers.get("origin");
    if (req.method === "OPTIONS" && origin) {
      // CORS preflight for browser clients (e.g. MCP Inspector), only from allowed origins.
      if (!validateOriginHeader(origin, allowed().origins).ok) return new Response(null, { status: 403 });
      return new Response(null, { status: 204, headers: { ...cors(origin), ...PREFLIGHT } });
    }
    const length = Number(req.headers.get("content-length") ?? "0");
    const res = await handle(req, rec, requestId, origin, length);
    if (origin && res.status !== 403) for (const [k, v] of Object.entries(cors(origin))) res.headers.set(k, v);
    // A large body (an upload, or a flood of huge _meta) leaves tens of MB of garbage that the
    // collector may leave for a long while; ask for a collection once the answer is out.
    if (length > LARGE_BODY_BYTES) setTimeout(() => Bun.gc(true), 0);
    return res;
  }
  direct.set(app, serve);

  /**
   * `rec`: this request's access log record (src/ops/telemetry.ts): credential, methods, tools and outcomes.
   * `origin` and `declared` (Content-Length, 0 when absent) are the headers serve has already read.
   */
  async function handle(
    req: Request,
    rec: AccessRecord | undefined,
    requestId: string,
    origin: string | null,
    declared: number,
  ): Promise<Response> {
    if (req.method !== "POST")
      // Stateless: no SSE stream to GET, no session to DELETE.
      return rpcError(405, -32000, "Method not allowed: this endpoint accepts POST only.", null, { allow: "POST" });

    // DNS-rebinding protection with the SDK's validators; our message says how to allow a name.
    const a = allowed();
    const host = hostCheck(req.headers.get("host"));
    if (!host.ok)
      return rpcError(
        403,
        -32000,
        `${host.message}. Allowed host names: ${a.hosts.join(", ")}; add yours to PLINTH_ALLOWED_HOSTS or set PLINTH_PUBLIC_URL.`,
      );
    const org = validateOriginHeader(origin, a.origins);
    if (!org.ok)
      return rpcError(
        403,
        -32000,
        `${org.message}. Allowed origins (host names): ${a.origins.join(", ")}; add yours to PLINTH_ALLOWED_ORIGINS.`,
      );

    const principal = await authenticate(deps, req.headers.get("authorization"));
    if (!principal) return unauthorizedResponse(config);
    rec?.credential(principal.credential.kind, principal.credential.id);

    const requested = parseNarrowing(req, req.url, reg);
    if (typeof requested === "string") return rpcError(400, INVALID_PARAMS, requested);
    // The request's switches win; else the credential's stored listing mode, else automatic (src/mcp/listing.ts).
    const { filter, listing } = resolveListing(reg, principal, requested);
    principal.listing = listing;

    if (!/^application\/json\s*(;|$)/i.test(req.headers.get("content-type") ?? ""))
      return rpcError(415, -32000, "Unsupported Media Type: Content-Type must be application/json");
    const limit = maxBodyBytes(config);
    if (declared > limit) return rpcError(413, -32000, `Request body too large: the limit is ${limit} bytes.`);
    let text: string;
    try {
      text = await req.text();
    } catch {
      return rpcError(400, -32700, "Parse error: the request body could not be read");
    }
    if (Buffer.byteLength(text) > limit)
      return rpcError(413, -32000, `Request body too large: the limit is ${limit} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      return rpcError(400, -32700, "Parse error: the body is not valid JSON");
    }

    let limited = overLimit(
      limiter,
      `${principal.credential.kind}:${principal.credential.id}`,
      Array.isArray(body) ? Math.min(body.length, MAX_BATCH) : 1,
    );
    if (limited instanceof Promise) limited = await limited;
    if (limited) return limited;

    const env: McpEnv = {
      deps,
      principal,
      registry: reg,
      filter,
      requestId,
      observe: rec && ((o) => rec.toolOutcome(o)),
      sessionId: req.headers.get("mcp-session-id"),
    };
    const isTool = (name: string) => reg.byName.has(name);

    if (!Array.isArray(body)) {
      if (!isMessage(body))
        return rpcError(400, -32600, "Invalid Request: not a JSON-RPC 2.0 message", (body as any)?.id);
      return observeMcp(rec, isTool, body, () => dispatch(req, body, env));
    }

    if (body.length === 0) return rpcError(400, -32600, "Invalid Request: the batch is empty");
    if (body.length > MAX_BATCH)
      return rpcError(400, -32600, `Invalid Request: a batch may hold at most ${MAX_BATCH} messages`);
    const named = new Set<string>();
    for (const m of body) {
      if (!isMessage(m)) continue;
      const { counts, value } = batchClientId(m);
      if (counts) named.add(value === undefined ? "(none)" : JSON.stringify(value));
    }
    if (named.size > 1)
      return rpcError(
        400,
        -32600,
        `Invalid Request: every tools/call in a batch must use the same clientId (one company per batch); this batch uses ${[
          ...named,
        ].join(", ")}. Send one batch per company.`,
      );
    const answers: unknown[] = [];
    for (const m of body) {
      if (!isMessage(m)) {
        answers.push({
          jsonrpc: "2.0",
          error: { code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" },
          id: validId((m as any)?.id) ? (m as any).id : null,
        });
        continue;
      }
      const res = await observeMcp(rec, isTool, m, () => dispatch(req, m, env));
      const t = res.status === 202 ? "" : await res.text();
      if (!t) continue;
      try {
        const parsed = JSON.parse(t);
        if (Array.isArray(parsed)) answers.push(...parsed);
        else answers.push(parsed);
      } catch {
        answers.push({
          jsonrpc: "2.0",
          error: { code: -32603, message: "Internal error" },
          id: validId(m.id) ? m.id : null,
        });
      }
    }
    if (answers.length === 0) return new Response(null, { status: 202 });
    return new Response(JSON.stringify(answers), { headers: { "content-type": "application/json" } });
  }

  return app;
}

type Serve = (req: Request, rec: AccessRecord | undefined, requestId: string) => Promise<Response>;
/** mcpRoutes apps and their framework-free entry points, for withMcpFastPath. */
const direct = new WeakMap<object, Serve>();

const MCP_PATH = "/api/mcp";

/**
 * Lets `POST /api/mcp` skip the root app's middleware chain and Hono's
 * router, as withRestFastPath (src/rest/routes.ts) does for REST: measured,
 * the root app's routing and middleware cost more than a typical tool call.
 * The root app still mounts the MCP routes (any other method, and every
 * request when this is not installed, go through them), and this path does
 * what the root adds to them: request id (X-Request-Id), the access log
 * line and metrics, and the root's error answer for anything that throws.
 */
export function withMcpFastPath<
  A extends { fetch: (req: Request, env?: unknown, ctx?: any) => Response | Promise<Response> },
>(root: A, mcp: Hono<any>, telemetry: Telemetry): A {
  const serve = direct.get(mcp);
  if (!serve) throw new Error("withMcpFastPath needs the app mcpRoutes returned");
  const rootFetch = root.fetch;
  root.fetch = (req: Request, env?: unknown, ctx?: any) => {
    if (req.method !== "POST") return rootFetch(req, env, ctx);
    const u = req.url;
    const start = u.indexOf("/", u.indexOf("//") + 2);
    const end = start + MCP_PATH.length;
    if (!u.startsWith(MCP_PATH, start) || (u.length !== end && u[end] !== "?")) return rootFetch(req, env, ctx);
    const note = telemetry.begin(req, env as PeerSource);
    note.route = MCP_PATH;
    const done = (res: Response) => {
      res.headers.set("X-Request-Id", note.id);
      return telemetry.end(note, res);
    };
    return serve(req, note, note.id).then(done, (e) => done(rootError(e, note.id)));
  };
  return root;
}

/** What the root app's onError answers (src/app.ts), for a throw on the fast path: the same mapping (src/ops/errors.ts). */
function rootError(e: unknown, requestId: string): Response {
  const a = rootErrorAnswer(e, requestId);
  if ("response" in a) return a.response;
  return new Response(JSON.stringify(a.body), { status: a.status, headers: { "content-type": "application/json" } });
}
