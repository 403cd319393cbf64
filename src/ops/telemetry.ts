/**
 * What every request leaves behind: its request id (X-Request-Id), one
 * access log line and its share of the metrics. One AccessRecord is made
 * per request at the door and filled in on the way (route template,
 * credential, MCP methods and tools); when the response is ready the
 * record becomes one log line and a few counter updates.
 *
 * Two doors lead here: the root Hono app's first middleware (`middleware`)
 * for everything Hono routes, and the REST fast path (withRestFastPath in
 * src/rest/routes.ts), which skips Hono altogether and calls begin/end
 * itself. On that path the cost is the record, the request id and the log
 * line: no body is ever serialised, and nothing is written per request
 * (src/ops/access-log.ts batches lines).
 *
 * The log line (docs/deploy.md#logs):
 *   {"time":"…","id":"…","method":"GET","route":"/api/v1/sites/{siteId}/posts",
 *    "status":200,"ms":0.412,"client":"203.0.113.9","cred":"rest_key","credId":3}
 * plus, for MCP, "mcp":[{"method":"tools/call","tool":"posts_list","outcome":"ok"}]
 * (one entry per JSON-RPC message, so a batch is one line with its list).
 * Never a secret, a raw URL (approval tokens live in paths) or an argument.
 */
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { RateLimitDecision, RateLimiter } from "../core/rate-limit";
import type { AccessLog } from "./access-log";
import { Metrics, type LimiterName, type ToolOutcome } from "./metrics";

/** What Bun.serve passes as the second fetch argument, as far as we use it. */
export type PeerSource = { requestIP?: (req: Request) => { address: string } | null } | undefined;

/** A sane incoming X-Request-Id is kept (so ids follow a request through proxies); anything else is replaced. */
const REQUEST_ID = /^[\w-]{1,255}$/;

export function requestIdFor(headers: Headers): string {
  const sent = headers.get("x-request-id");
  return sent !== null && REQUEST_ID.test(sent) ? sent : crypto.randomUUID();
}

/** One JSON-RPC message of an MCP request, as logged. */
export interface McpNote {
  method: string;
  /** tools/call only: the tool asked for. */
  tool: string | null;
  outcome: ToolOutcome | null;
}

/** One request on its way through: made at the door, turned into a log line and metrics at the end. */
export class AccessRecord {
  /** Route template ("/api/v1/sites/{siteId}/posts", "/approve/{token}"); unset until routed. */
  route: string | null = null;
  credKind: string | null = null;
  credId: number | null = null;
  mcp: McpNote[] | null = null;
  /**
   * Set by a path whose successful requests its credential identifies
   * (keyed REST reads): their lines carry the client only when it costs no
   * system call (see `end`).
   */
  clientOptional = false;
  private peerAddress: string | undefined = undefined;

  constructor(
    readonly telemetry: Telemetry,
    readonly req: Request,
    readonly id: string,
    readonly t0: number,
    private readonly server: PeerSource,
  ) {}

  credential(kind: string, id: number): void {
    this.credKind = kind;
    this.credId = id;
  }

  /**
   * The TCP peer's address, looked up once per request and only when asked:
   * Bun's requestIP is a system call (getpeername) and an object each time,
   * about 0.8 µs, so the log and the anonymous rate-limit bucket share one.
   */
  peer(): string {
    return (this.peerAddress ??= this.server?.requestIP?.(this.req)?.address ?? "");
  }

  /** The trusted proxy's X-Forwarded-For entry, when the proxy is trusted and the entry is an address. */
  private forwarded(): string | null {
    return this.telemetry.trustProxy ? forwardedFor(this.req) : null;
  }

  /**
   * The client address as logged: the TCP peer, or with `trustProxy` the
   * last X-Forwarded-For entry — the one our own proxy appended; earlier
   * entries are whatever the client claimed.
   */
  client(): string {
    return this.forwarded() ?? (this.peer() || "unknown");
  }

  /** The client when knowing it costs no system call: a trusted proxy's X-Forwarded-For entry, or a peer already looked up; else null. */
  cheapClient(): string | null {
    return this.forwarded() ?? (this.peerAddress || null);
  }

  /** The outcome of the tools/call being served (called from inside the tool handler). */
  toolOutcome(outcome: ToolOutcome): void {
    const n = this.mcp?.[this.mcp.length - 1];
    if (n && n.outcome === null) n.outcome = outcome;
  }
}

/** An address as X-Forwarded-For carries it (IPv4 or IPv6, nothing else). */
const ADDRESS = /^[0-9A-Fa-f:.]{2,45}$/;

/** The last X-Forwarded-For entry when it is an address, else null. */
function forwardedFor(req: Request): string | null {
  const xff = req.headers.get("x-forwarded-for");
  if (xff === null) return null;
  const last = xff.slice(xff.lastIndexOf(",") + 1).trim();
  return ADDRESS.test(last) ? last : null;
}

/** Hono's ":param" route paths in the REST documents' "{param}" style, once per path. */
const templates = new Map<string, string>();
function honoTemplate(path: string): string {
  let t = templates.get(path);
  if (t === undefined) templates.set(path, (t = path.replace(/:([A-Za-z_]\w*)/g, "{$1}")));
  return t;
}

/** The route template Hono matched: the last matched route that is not a wildcard middleware. */
function routeOf(c: Parameters<typeof matchedRoutes>[0]): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const p = routes[i]!.path;
    if (!p.endsWith("*")) return honoTemplate(p);
  }
  return "unmatched";
}

/** ISO time of the last millisecond logged: under load many lines share one. */
let lastMs = 0;
let lastIso = "";
function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

const PLAIN_METHOD = /^[A-Z]{1,10}$/;

function mcpPart(notes: McpNote[]): string {
  const items = notes.map(
    (n) =>
      `{"method":${JSON.stringify(n.method.slice(0, 100))}${n.tool === null ? "" : `,"tool":${JSON.stringify(n.tool.slice(0, 100))}`}${
        n.outcome === null ? "" : `,"outcome":"${n.outcome}"`
      }}`,
  );
  return `,"mcp":[${items.join(",")}]`;
}

export interface TelemetryOptions {
  /** null: no access log (PLINTH_LOG=off). */
  log: AccessLog | null;
  /** Take the client address from X-Forwarded-For (PLINTH_TRUST_PROXY=1). */
  trustProxy: boolean;
}

export class Telemetry {
  readonly metrics = new Metrics();
  /** Responses completed since start. */
  served = 0;
  private readonly log: AccessLog | null;
  /** Take the client address from X-Forwarded-For (PLINTH_TRUST_PROXY=1). */
  readonly trustProxy: boolean;

  constructor(opts: TelemetryOptions) {
    this.log = opts.log;
    this.trustProxy = opts.trustProxy;
  }

  /** Access log lines dropped because stdout's reader fell behind; null with the log off. */
  get logDropped(): number | null {
    return this.log ? this.log.dropped : null;
  }

  begin(req: Request, server: PeerSource): AccessRecord {
    this.metrics.inFlight++;
    return new AccessRecord(this, req, requestIdFor(req.headers), performance.now(), server);
  }

  /** Counts and logs a finished request; returns the response untouched. */
  end(rec: AccessRecord, res: Response): Response {
    const ms = performance.now() - rec.t0;
    this.metrics.inFlight--;
    this.served++;
    const route = rec.route ?? "unmatched";
    const method = rec.req.method;
    const status = res.status;
    this.metrics.request(route, method, status, ms / 1000);
    if (this.log) {
      const m = PLAIN_METHOD.test(method) ? method : "OTHER";
      // A keyed REST read that succeeded is named by its key; its client is
      // logged when free (a trusted proxy's header, or already looked up).
      const client = rec.clientOptional && status < 400 ? rec.cheapClient() : rec.client();
      this.log.write(
        `{"time":"${isoNow()}","id":"${rec.id}","method":"${m}","route":"${route}","status":${status},"ms":${
          Math.round(ms * 1000) / 1000
        }${client === null ? "" : `,"client":"${client}"`}${rec.credKind === null ? "" : `,"cred":"${rec.credKind}","credId":${rec.credId}`}${
          rec.mcp === null ? "" : mcpPart(rec.mcp)
        }}`,
      );
    }
    return res;
  }

  /** The root app's first middleware: request id in, X-Request-Id out, and the record for later handlers. */
  middleware(): MiddlewareHandler<{ Variables: { requestId: string; access: AccessRecord } }> {
    return async (c, next) => {
      const rec = this.begin(c.req.raw, c.env as PeerSource);
      c.set("requestId", rec.id);
      c.set("access", rec);
      let res: Response | undefined;
      try {
        await next();
        rec.route ??= routeOf(c);
        c.header("X-Request-Id", rec.id);
        res = c.res;
      } finally {
        // A throw here would be Hono's own bug; the count of requests in flight must still come down.
        this.end(rec, res ?? new Response(null, { status: 500 }));
      }
    };
  }

  /** The limiter, counting its refusals as plinth_rate_limited_total{limiter}. */
  countRefusals(inner: RateLimiter, name: LimiterName): RateLimiter {
    const count = (d: RateLimitDecision) => {
      if (!d.allowed) this.metrics.rateLimited(name);
      return d;
    };
    return {
      take(bucket, n) {
        const d = inner.take(bucket, n);
        return d instanceof Promise ? d.then(count) : count(d);
      },
      peek: (bucket) => inner.peek(bucket),
    };
  }

  /** Writes every queued log line; resolves when they are out. */
  async flush(): Promise<void> {
    await this.log?.flush();
  }
}

/**
 * Serves one MCP JSON-RPC message with its note on the record: method, tool
 * and outcome. A tools/call whose handler ran reports ok or tool_error (or
 * protocol_error when it threw one) through AccessRecord.toolOutcome; one
 * refused before its handler ran (bad params, an SDK rejection) is a
 * protocol_error. Tools are counted under their registry name, or
 * "(unknown)" for a name the registry does not have.
 */
export async function observeMcp<T>(
  rec: AccessRecord | undefined,
  isTool: (name: string) => boolean,
  message: Record<string, unknown>,
  run: () => Promise<T>,
): Promise<T> {
  if (!rec) return run();
  const method = typeof message.method === "string" ? message.method : "(response)";
  const name = method === "tools/call" ? (message.params as { name?: unknown } | undefined)?.name : undefined;
  const note: McpNote = {
    method,
    tool: method === "tools/call" ? (typeof name === "string" ? name : "") : null,
    outcome: null,
  };
  (rec.mcp ??= []).push(note);
  try {
    return await run();
  } finally {
    if (note.tool !== null && message.id !== undefined) {
      note.outcome ??= "protocol_error";
      rec.telemetry.metrics.toolCall(isTool(note.tool) ? note.tool : "(unknown)", note.outcome);
    }
  }
}
