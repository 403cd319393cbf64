/**
 * REST v1 under /api/v1: every operation of operations.ts through one
 * pipeline, plus the OpenAPI document. Per request, in this order:
 *
 *   1. CORS preflight (OPTIONS) is answered at once; methods other than
 *      GET/HEAD are 405.
 *   2. The caller is identified (key headers) and charged one token of its
 *      rate-limit bucket: the key's, or the client address's when no valid
 *      key was sent, so floods of bad keys are limited too. → 429
 *   3. siteId is checked. → 400 "Invalid site ID"
 *   4. Auth: a presented key must be valid and for this site, on every
 *      endpoint; endpoints with required auth also refuse a missing key. → 401
 *   5. Query and slug are validated. → 400 naming the parameter
 *   6. The site must exist and be active; products need an enabled store.
 *      → 404 "Not found" / "Store not found"
 *   7. The ETag is computed from the site's content version and the request;
 *      an If-None-Match hit answers 304 without touching content.
 *   8. The body comes from the response cache or from the domain read.
 *      → 404 "Not found" for an unknown slug
 *
 * A site's own OpenAPI document (/sites/{siteId}/openapi.json, with its
 * post types' custom fields) runs the same steps 1-7 as a required-auth
 * operation; its ETag comes from the global document and the site's post
 * types as read on each request (siteDoc).
 *
 * Every response carries X-Request-Id, X-RateLimit-Limit/-Remaining, CORS
 * and Vary. The whole pipeline is one synchronous,
 * framework-free function (handleRest): mounted as a single Hono route, and
 * called directly by app.ts's fetch for /api/v1/ (withRestFastPath). This
 * is the path `make bench` holds to half the speed of a static Bun.serve.
 */
import { Hono } from "hono";
import { BoundedMap } from "../core/bounded-map";
import type { Deps } from "../core/context";
import { AppError, httpStatus, invalid, notFound, unauthorized } from "../core/errors";
import { rateLimiter } from "../core/limits";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../core/memory-budget";
import type { RateLimitDecision, RateLimiter } from "../core/rate-limit";
import type { PublicSiteState } from "../domains/sites/public-reads";
import { MSG_INVALID_KEY, MSG_KEY_REQUIRED, WWW_AUTHENTICATE, type Caller } from "./auth";
import { ResponseCache } from "./cache";
import { CORS_HEADERS, PREFLIGHT_HEADERS, VARY } from "./cors";
import { etagFor, ifNoneMatchHits, isStar } from "./etag";
import { HotLookups } from "./hot-lookups";
import { absoluteMediaUrls } from "./absolute-urls";
import { buildOpenApiDocument, buildSiteOpenApiDocument, SITE_OPENAPI_PATH } from "./openapi";
import { listPostTypeFields } from "../domains/cms/public-reads";
import { OPERATIONS, type Operation } from "./operations";
import { INVALID_SLUG, parseSiteId, parseSlug, queryParser, type ParsedQuery } from "./params";
import { mapDbError } from "../core/db";
import { requestIdFor, type AccessRecord, type PeerSource, type Telemetry } from "../ops/telemetry";

/** What Bun.serve passes as the second fetch argument (the server), as far as REST uses it. */
type Server = { requestIP?: (req: Request) => { address: string } | null } | undefined;

type Env = {
  Bindings: Server;
  Variables: { requestId: string; access: AccessRecord };
};

/** One request as the REST pipeline sees it: no framework context, so the fast path needs none. */
interface Incoming {
  raw: Request;
  server: Server;
  /** Set when the root app's telemetry ran (src/ops/telemetry.ts). */
  requestId?: string;
  /** This request's access record, for the route template and credential it logs. */
  note?: AccessRecord;
}

const JSON_TYPE = "application/json; charset=UTF-8";
const CACHE_KEYED = "private, no-cache";
const CACHE_PUBLIC = "public, max-age=60";
const CACHE_DOC = "public, max-age=300";
/** Where app.ts mounts these routes. */
export const REST_BASE = "/api/v1";

/**
 * A site's OpenAPI document as an operation of the pipeline: it is checked
 * like getPostBySlug (site id, a key for this site, an active site) and then
 * answered by siteDoc, not run (its body is the document, not an envelope).
 * Not in OPERATIONS: the global document does not list it.
 */
const SITE_DOC: Operation = {
  operationId: "getSiteOpenApi",
  path: SITE_OPENAPI_PATH,
  tag: "Site",
  summary: "The site's OpenAPI document",
  description: "",
  auth: "required",
  siteLookup: true,
  store: false,
  slug: false,
  query: [],
  data: { ref: "PostDetail" },
  errors: [400, 401, 404, 429],
  run: () => Promise.reject(new Error("SITE_DOC is answered by siteDoc")),
};

/**
 * The rate-limit bucket of an anonymous caller: its address, or for IPv6
 * its /64 (one host usually holds a whole /64, so per-address buckets would
 * be free to multiply).
 */
export function clientBucket(address: string | undefined): string {
  if (!address) return "ip:unknown";
  if (!address.includes(":")) return `ip:${address}`;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return `ip:${mapped[1]}`;
  const [head = "", tail = ""] = address.toLowerCase().split("::");
  const h = head ? head.split(":") : [];
  const t = tail ? tail.split(":") : [];
  const groups = address.includes("::") ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t] : h;
  return `ip6:${groups
    .slice(0, 4)
    .map((g) => g.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}

/** Per-request state the response headers need. */
interface Ctx {
  rate: RateLimitDecision | null;
  requestId: string;
}

const EXPOSE = CORS_HEADERS["Access-Control-Expose-Headers"]!;
const ALLOW_ORIGIN = CORS_HEADERS["Access-Control-Allow-Origin"]!;

/**
 * Headers of every REST response that is not a resource's 200 or 304
 * (errors, 429s, preflights, the OpenAPI document; those two copy
 * okTemplate's instead), built as one object literal of a fixed shape: a
 * flood of refusals runs it per request.
 */
function baseHeaders(x: Ctx): Record<string, string> {
  const h: Record<string, string> = {
    "Access-Control-Allow-Origin": ALLOW_ORIGIN,
    "Access-Control-Expose-Headers": EXPOSE,
    Vary: VARY,
    "X-RateLimit-Limit": x.rate ? String(x.rate.limit) : "",
    "X-RateLimit-Remaining": x.rate ? String(x.rate.remaining) : "",
    "X-Request-Id": x.requestId,
  };
  // Rare: a failure before the rate limiter ran.
  if (!x.rate) {
    delete h["X-RateLimit-Limit"];
    delete h["X-RateLimit-Remaining"];
  }
  return h;
}

/**
 * The headers a 200 and a 304 of one URL share across requests, built once
 * per ETag, cache policy and limit. Each response copies them and sets its
 * own two (remaining tokens, request id): copying a Headers is about half
 * the cost of building one from an object of nine (bench/README.md), on a
 * path whose whole budget is a few microseconds.
 */
interface OkTemplate {
  etag: string;
  cacheControl: string;
  limit: number;
  /** 304: no Content-Type. */
  notModified: Headers;
  ok: Headers;
}

function okTemplate(etag: string, cacheControl: string, limit: number): OkTemplate {
  const shared: Record<string, string> = {
    "Access-Control-Allow-Origin": ALLOW_ORIGIN,
    "Access-Control-Expose-Headers": EXPOSE,
    Vary: VARY,
    "X-RateLimit-Limit": String(limit),
    ETag: etag,
    "Cache-Control": cacheControl,
  };
  return {
    etag,
    cacheControl,
    limit,
    notModified: new Headers(shared),
    ok: new Headers({ ...shared, "Content-Type": JSON_TYPE }),
  };
}

function okResponse(template: Headers, x: Ctx, body: Uint8Array<ArrayBuffer> | null, status: 200 | 304): Response {
  // The Response copies the template once; setting the two on its own copy
  // saves the second copy a separate Headers would cost (~0.1 µs measured).
  const res = new Response(body, { status, headers: template });
  const headers = res.headers;
  headers.set("X-RateLimit-Remaining", String(x.rate!.remaining));
  headers.set("X-Request-Id", x.requestId);
  return res;
}

/** listBlocks never looks its site up; its ETag basis has no content version. */
const CATALOG_SITE: PublicSiteState = Object.freeze({
  id: 0,
  active: true,
  contentVersion: 0,
  storeEnabled: false,
  nextScheduledAt: null,
});

function errorResponse(x: Ctx, status: number, message: string, extra?: Record<string, string>): Response {
  const headers = baseHeaders(x);
  headers["Content-Type"] = JSON_TYPE;
  headers["Cache-Control"] = "no-store";
  if (extra) Object.assign(headers, extra);
  return new Response(JSON.stringify({ success: false, message }), { status, headers });
}

/**
 * The id every response carries (and its log line): the one telemetry
 * chose at the door (src/ops/telemetry.ts), or, for routes used on their
 * own, made the same way: a sane incoming X-Request-Id, else a UUID.
 */
function requestIdOf(c: Incoming): string {
  return c.requestId ?? requestIdFor(c.raw.headers);
}

/** A path segment as a client meant it; a malformed escape stays as sent (and then fails validation). */
function decodeSegment(s: string): string {
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

interface Route {
  op: Operation;
  parseQuery: ((q: URLSearchParams) => ParsedQuery) | null;
  /** The route template logs and metrics name it by: "/api/v1/sites/{siteId}/posts". */
  template: string;
}

/**
 * What the URL alone decides, kept per distinct path and query: renderers
 * repeat the same URLs, so validation runs once per URL, not per request.
 * Failures are kept too and raised in the documented order (site id, then
 * auth, then query and slug).
 */
interface ParsedUrl {
  route: Route;
  siteId: number | null;
  query: ParsedQuery | AppError;
  slug: string | AppError;
  /** The ETag basis and ETag at the content version they were computed for. */
  version: number;
  basis: string;
  etag: string;
  /** Response headers for that ETag (okTemplate); rebuilt when the ETag, policy or caller's limit differs. */
  headers: OkTemplate | null;
}
/**
 * URLs of at most 512 characters are kept, within BUDGET.restUrls
 * (src/core/memory-budget.ts), oldest out first. An entry costs its URL,
 * the ParsedUrl with its query values (~0.4 KB) and its two header
 * templates (~1.1 KB, measured), and ~1 KB more for a kept AppError (a
 * refused query or slug) with its captured stack.
 */
const MAX_PARSED_URL = 512;
const PARSED_URL_BYTES = 1536;
const PARSED_ERROR_BYTES = 1024;
const parsedUrlBytes = (url: string, p: ParsedUrl) =>
  stringBytes(url) +
  ENTRY_OVERHEAD +
  PARSED_URL_BYTES +
  (p.query instanceof AppError ? PARSED_ERROR_BYTES : 0) +
  (p.slug instanceof AppError ? PARSED_ERROR_BYTES : 0);
const NO_QUERY: ParsedQuery = { values: {}, canonical: "" };

function parseUrl(route: Route, rawSiteId: string, rawSlug: string, search: string): ParsedUrl {
  let query: ParsedQuery | AppError = NO_QUERY;
  if (route.parseQuery) {
    try {
      query = route.parseQuery(new URLSearchParams(search));
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      query = e;
    }
  }
  let slug: string | AppError = "";
  if (route.op.slug) slug = parseSlug(decodeSegment(rawSlug)) ?? invalid(INVALID_SLUG);
  return {
    route,
    siteId: parseSiteId(decodeSegment(rawSiteId)),
    query,
    slug,
    version: -1,
    basis: "",
    etag: "",
    headers: null,
  };
}

export function restRoutes(deps: Deps, opts: { limiter?: RateLimiter; cache?: ResponseCache } = {}) {
  const limiter = opts.limiter ?? rateLimiter(deps, "rest", deps.config.rateLimit);
  const cache = opts.cache ?? new ResponseCache();
  const lookups = new HotLookups(deps);
  const parsedUrls = new BoundedMap<string, ParsedUrl>({ maxBytes: BUDGET.restUrls, sizeOf: parsedUrlBytes });

  // /sites/{siteId}/<resource> and /sites/{siteId}/<resource>/{slug}, by resource.
  const lists = new Map<string, Route>();
  const details = new Map<string, Route>();
  for (const op of OPERATIONS) {
    const m = /^\/sites\/\{siteId\}\/([a-z-]+)(\/\{slug\})?$/.exec(op.path);
    if (!m) throw new Error(`REST route shape not supported: ${op.path}`);
    (m[2] ? details : lists).set(m[1]!, {
      op,
      parseQuery: op.query.length ? queryParser(op.query) : null,
      template: REST_BASE + op.path,
    });
  }
  lists.set("openapi.json", { op: SITE_DOC, parseQuery: null, template: REST_BASE + SITE_DOC.path });

  // The document depends only on the public URL; built on first request so start-up config applies.
  let doc: { body: Uint8Array<ArrayBuffer>; etag: string } | null = null;
  const openApi = () => {
    if (!doc) {
      const text = JSON.stringify(buildOpenApiDocument(deps.config.publicUrl));
      doc = { body: new TextEncoder().encode(text), etag: etagFor(text) };
    }
    return doc;
  };

  /** The TCP peer, through the access record when there is one (the log may need it too: one lookup, a system call, per request). */
  const peerOf = (c: Incoming) => (c.note ? c.note.peer() : c.server?.requestIP?.(c.raw)?.address);
  const bucketOf = (c: Incoming, caller: Caller) => caller.bucket ?? clientBucket(peerOf(c));

  function handle(c: Incoming, x: Ctx): Response | Promise<Response> {
    const method = c.raw.method;
    if (method === "OPTIONS") {
      const peek = limiter.peek(clientBucket(peerOf(c)));
      const preflight = (r: RateLimitDecision) => {
        x.rate = r;
        return new Response(null, {
          status: 204,
          headers: { ...baseHeaders(x), ...PREFLIGHT_HEADERS, "Cache-Control": "public, max-age=86400" },
        });
      };
      return peek instanceof Promise ? peek.then(preflight) : preflight(peek);
    }
    const caller = lookups.caller(c.raw.headers);
    if (caller instanceof Promise) return caller.then((k) => identified(c, x, k, method));
    return identified(c, x, caller, method);
  }

  function identified(c: Incoming, x: Ctx, caller: Caller, method: string): Response | Promise<Response> {
    if (caller.key && c.note) {
      c.note.credential("rest_key", caller.key.id);
      c.note.clientOptional = true;
    }
    const decision = limiter.take(bucketOf(c, caller));
    if (decision instanceof Promise) return decision.then((rate) => admitted(c, x, caller, method, rate));
    return admitted(c, x, caller, method, decision);
  }

  function admitted(
    c: Incoming,
    x: Ctx,
    caller: Caller,
    method: string,
    rate: RateLimitDecision,
  ): Response | Promise<Response> {
    x.rate = rate;
    if (!rate.allowed)
      return errorResponse(x, 429, "Rate limit exceeded", { "Retry-After": String(rate.retryAfterSec) });
    if (method !== "GET" && method !== "HEAD")
      return errorResponse(x, 405, `Method ${method} not allowed: the REST API is read-only (GET)`, {
        Allow: "GET, HEAD, OPTIONS",
      });
    return route(c, x, caller);
  }

  function route(c: Incoming, x: Ctx, caller: Caller): Response | Promise<Response> {
    const url = c.raw.url;
    const pathStart = url.indexOf("/", url.indexOf("//") + 2);
    const pathAndQuery = url.slice(pathStart);
    let parsed = parsedUrls.get(pathAndQuery);
    if (!parsed) {
      const q = pathAndQuery.indexOf("?");
      const path = q === -1 ? pathAndQuery : pathAndQuery.slice(0, q);
      if (!path.startsWith(REST_BASE + "/")) throw notFound();
      const parts = path.slice(REST_BASE.length + 1).split("/");
      if (parts.length === 1 && parts[0] === "openapi.json") {
        if (c.note) c.note.route = OPENAPI_TEMPLATE;
        return serveDoc(c, x);
      }
      // A trailing slash names no resource (…/posts/ is not a post with an empty slug).
      if (parts[0] !== "sites" || parts.length < 3 || parts.length > 4 || parts[parts.length - 1] === "")
        throw notFound();
      const r = (parts.length === 3 ? lists : details).get(parts[2]!);
      if (!r) throw notFound();
      parsed = parseUrl(r, parts[1]!, parts[3] ?? "", q === -1 ? "" : pathAndQuery.slice(q));
      // Long URLs are not kept: renderers' URLs are short, and a flood of long ones must not hold memory.
      if (pathAndQuery.length <= MAX_PARSED_URL) parsedUrls.set(pathAndQuery, parsed);
    }
    if (c.note) c.note.route = parsed.route.template;
    return serve(c, x, caller, parsed);
  }

  function serveDoc(c: Incoming, x: Ctx): Response {
    const d = openApi();
    const headers = baseHeaders(x);
    headers.ETag = d.etag;
    headers["Cache-Control"] = CACHE_DOC;
    const inm = c.raw.headers.get("if-none-match");
    if (isStar(inm) || ifNoneMatchHits(inm, d.etag)) return new Response(null, { status: 304, headers });
    headers["Content-Type"] = JSON_TYPE;
    return new Response(d.body, { status: 200, headers });
  }

  function serve(c: Incoming, x: Ctx, caller: Caller, p: ParsedUrl): Response | Promise<Response> {
    const op = p.route.op;
    const siteId = p.siteId;
    if (siteId === null) throw invalid("Invalid site ID");
    if (caller.presented) {
      if (!caller.key || caller.key.siteId !== siteId) throw unauthorized(MSG_INVALID_KEY);
    } else if (op.auth === "required") throw unauthorized(MSG_KEY_REQUIRED);
    if (p.query instanceof AppError) throw p.query;
    if (p.slug instanceof AppError) throw p.slug;
    if (!op.siteLookup) return respond(c, x, caller, p, CATALOG_SITE);
    const s = lookups.site(siteId);
    return s instanceof Promise
      ? s.then((site) => respond(c, x, caller, p, visible(op, site)))
      : respond(c, x, caller, p, visible(op, s));
  }

  function visible(op: Operation, s: PublicSiteState | null): PublicSiteState {
    if (!s || !s.active) throw notFound();
    if (op.store && !s.storeEnabled) throw notFound("Store not found");
    return s;
  }

  /** From here a cache hit answers synchronously; only a miss runs (and awaits) the domain read. */
  function respond(
    c: Incoming,
    x: Ctx,
    caller: Caller,
    p: ParsedUrl,
    site: PublicSiteState,
  ): Response | Promise<Response> {
    const op = p.route.op;
    if (op === SITE_DOC) return siteDoc(c, x, caller, site);
    const query = p.query as ParsedQuery;
    const slug = p.slug as string;
    if (p.version !== site.contentVersion) {
      p.basis = op.siteLookup
        ? `${site.id}|${site.contentVersion}|${op.operationId}|${slug}|${query.canonical}`
        : `*|${op.operationId}|${query.canonical}`;
      p.etag = etagFor(p.basis);
      p.version = site.contentVersion;
    }
    // Past a scheduled instant the job has not announced yet (it bumps the version), the
    // bodies of the version are stale: this one is neither reused nor kept (cms/schedule.ts).
    const due = site.nextScheduledAt !== null && deps.clock.ms() >= site.nextScheduledAt;
    const basis = due ? `${p.basis}|@${deps.clock.ms()}` : p.basis;
    const etag = due ? etagFor(basis) : p.etag;
    const cacheControl = caller.key ? CACHE_KEYED : CACHE_PUBLIC;
    const limit = x.rate!.limit;
    const held = p.headers;
    const t =
      held !== null && held.etag === etag && held.cacheControl === cacheControl && held.limit === limit
        ? held
        : (p.headers = okTemplate(etag, cacheControl, limit));
    const inm = c.raw.headers.get("if-none-match");
    if (ifNoneMatchHits(inm, etag)) return okResponse(t.notModified, x, null, 304);

    const ok = (body: Uint8Array<ArrayBuffer>) =>
      // "*" matches only a representation that exists, so it is answered after the read.
      isStar(inm) ? okResponse(t.notModified, x, null, 304) : okResponse(t.ok, x, body, 200);
    const cached = due ? undefined : cache.get(basis);
    if (cached !== undefined) return ok(cached);
    return op.run(deps, site, query.values, slug).then((result) => {
      if (!result) throw notFound();
      const body = new TextEncoder().encode(
        JSON.stringify({ success: true, ...absoluteMediaUrls(result, deps.config.publicUrl) }),
      );
      if (!due) cache.set(basis, body);
      return ok(body);
    });
  }

  /**
   * The site's document, after the pipeline's checks. Its ETag is computed
   * from what the body is built from (the global document's ETag and the
   * site's post types with their field definitions), read on every request:
   * a post type created, renamed, deleted or given other fields changes it
   * at once, whether or not that write bumped the content version. Bodies
   * share the response cache, keyed by that ETag.
   */
  async function siteDoc(c: Incoming, x: Ctx, caller: Caller, site: PublicSiteState): Promise<Response> {
    const types = await listPostTypeFields(deps, site.id);
    const etag = etagFor(`${site.id}|${SITE_DOC.operationId}|${openApi().etag}|${JSON.stringify(types)}`);
    const t = okTemplate(etag, caller.key ? CACHE_KEYED : CACHE_PUBLIC, x.rate!.limit);
    const inm = c.raw.headers.get("if-none-match");
    if (isStar(inm) || ifNoneMatchHits(inm, etag)) return okResponse(t.notModified, x, null, 304);
    const basis = `openapi|${etag}`;
    let body = cache.get(basis);
    if (body === undefined) {
      body = new TextEncoder().encode(JSON.stringify(buildSiteOpenApiDocument(deps.config.publicUrl, site.id, types)));
      cache.set(basis, body);
    }
    return okResponse(t.ok, x, body, 200);
  }

  function fail(c: Incoming, x: Ctx, e: unknown): Response {
    const err = mapDbError(e);
    if (err instanceof AppError) {
      const status = httpStatus[err.code];
      return errorResponse(
        x,
        status,
        err.message,
        status === 401 ? { "WWW-Authenticate": WWW_AUTHENTICATE } : undefined,
      );
    }
    console.error(`[${x.requestId}] REST unhandled error:`, err instanceof Error ? err.stack : err);
    return errorResponse(x, 500, "Internal server error");
  }

  /** The whole pipeline as a fetch-style function. */
  function handleRest(c: Incoming): Response | Promise<Response> {
    const x: Ctx = { rate: null, requestId: requestIdOf(c) };
    try {
      const res = handle(c, x);
      return res instanceof Promise ? res.catch((e) => fail(c, x, e)) : res;
    } catch (e) {
      return fail(c, x, e);
    }
  }

  const app = new Hono<Env>();
  app.all("*", (c) =>
    handleRest({ raw: c.req.raw, server: c.env, requestId: c.get("requestId"), note: c.get("access") }),
  );
  cacheStats.set(app, () => ({ urls: parsedUrls.bytes, bodies: cache.bytes, lookups: lookups.bytes }));
  fastPaths.set(app, (raw, server, note) => {
    const res = handleRest({ raw, server, requestId: note?.id, note });
    // Hono answered HEAD for us on the mounted route; here it is ours to strip the body.
    if (raw.method !== "HEAD") return res;
    const strip = (r: Response) => new Response(null, r);
    return res instanceof Promise ? res.then(strip) : strip(res);
  });
  return app;
}

/** What a restRoutes app's caches hold, in bytes as their budgets count them (src/core/memory-budget.ts). */
export interface RestCacheBytes {
  urls: number;
  bodies: number;
  lookups: number;
}
const cacheStats = new WeakMap<object, () => RestCacheBytes>();

/** The bytes held by the caches of the app restRoutes returned (tests). */
export function restCacheBytes(app: Hono<any>): RestCacheBytes {
  const stats = cacheStats.get(app);
  if (!stats) throw new Error("restCacheBytes needs the app restRoutes returned");
  return stats();
}

type FetchLike = (req: Request, server: Server, note?: AccessRecord) => Response | Promise<Response>;
/** restRoutes apps and their framework-free entry points, for withRestFastPath. */
const fastPaths = new WeakMap<object, FetchLike>();

/**
 * Lets REST requests skip the root app's middleware chain and Hono itself:
 * the root app still mounts the REST routes (route listings and any request
 * that reaches them still work), but its fetch hands anything under
 * /api/v1/ straight to the REST pipeline. Every REST response is complete on
 * its own (CORS, rate limits, request id, errors in the REST
 * envelope), so nothing of the root chain is lost. With `telemetry` the
 * fast path also does what the root's telemetry middleware does for other
 * requests: request id, access log line, metrics.
 */
export function withRestFastPath<A extends Hono<any>>(root: A, rest: Hono<any>, telemetry?: Telemetry): A {
  const direct = fastPaths.get(rest);
  if (!direct) throw new Error("withRestFastPath needs the app restRoutes returned");
  const rootFetch = root.fetch;
  const prefix = REST_BASE + "/";
  root.fetch = (req: Request, env?: unknown, ctx?: any) => {
    const u = req.url;
    if (!u.startsWith(prefix, u.indexOf("/", u.indexOf("//") + 2))) return rootFetch(req, env, ctx);
    if (!telemetry) return direct(req, env as Server);
    const note = telemetry.begin(req, env as PeerSource);
    const done = (res: Response) => {
      note.route ??= restTemplate(u);
      return telemetry.end(note, res);
    };
    const res = direct(req, env as Server, note);
    return res instanceof Promise ? res.then(done) : done(res);
  };
  return root;
}

const OPENAPI_TEMPLATE = `${REST_BASE}/openapi.json`;
/** Resource name → route templates, for requests refused before routing (429, 405, preflights, bad ids). */
const TEMPLATES = new Map<string, { list?: string; detail?: string }>();
for (const op of OPERATIONS) {
  const m = /^\/sites\/\{siteId\}\/([a-z-]+)(\/\{slug\})?$/.exec(op.path);
  if (!m) continue;
  const t = TEMPLATES.get(m[1]!) ?? {};
  t[m[2] ? "detail" : "list"] = REST_BASE + op.path;
  TEMPLATES.set(m[1]!, t);
}
TEMPLATES.set("openapi.json", { list: REST_BASE + SITE_OPENAPI_PATH });

/** The route template of a REST URL, or "unmatched" for a path that names no operation. */
export function restTemplate(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  const path = url.slice(start, q === -1 ? undefined : q);
  if (path === OPENAPI_TEMPLATE) return OPENAPI_TEMPLATE;
  const parts = path.slice(REST_BASE.length + 1).split("/");
  if (parts[0] !== "sites" || parts.length < 3 || parts.length > 4 || parts[parts.length - 1] === "")
    return "unmatched";
  const t = TEMPLATES.get(parts[2]!);
  return (parts.length === 3 ? t?.list : t?.detail) ?? "unmatched";
}
