/**
 * REST v1 under /api/v1: every operation of operations.ts through one
 * pipeline, plus the OpenAPI document. Per request, in this order:
 *
 *   1. CORS preflight (OPTIONS) is answered at once.
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
 *      If-None-Match hits answer 304 without touching content.
 *   8. The body comes from the response cache or from the domain read.
 *      → 404 "Not found" for an unknown slug
 *
 * Every response carries X-RateLimit-Limit/-Remaining, CORS and Vary headers.
 */
import { Hono, type Context } from "hono";
import type { Deps } from "../core/context";
import { AppError, httpStatus, invalid, notFound, unauthorized } from "../core/errors";
import { memoryRateLimiter, type RateLimitDecision, type RateLimiter } from "../core/rate-limit";
import type { PublicSiteState } from "../domains/sites/public-reads";
import { MSG_INVALID_KEY, MSG_KEY_REQUIRED, WWW_AUTHENTICATE, type Caller } from "./auth";
import { ResponseCache } from "./cache";
import { CORS_HEADERS, PREFLIGHT_HEADERS, VARY } from "./cors";
import { etagFor, ifNoneMatchHits, isStar } from "./etag";
import { HotLookups } from "./hot-lookups";
import { buildOpenApiDocument } from "./openapi";
import { OPERATIONS, type Operation } from "./operations";
import { INVALID_SLUG, parseSiteId, parseSlug, queryParser } from "./params";

type Env = {
  Bindings: { requestIP?: (req: Request) => { address: string } | null } | undefined;
  Variables: { caller: Caller; rate: RateLimitDecision; requestId: string };
};

const JSON_TYPE = "application/json; charset=UTF-8";
const CACHE_KEYED = "private, no-cache";
const CACHE_PUBLIC = "public, max-age=60";
const CACHE_DOC = "public, max-age=300";

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
  return `ip6:${groups.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, "")).join(":")}::/64`;
}

function rateHeaders(h: Headers, r: RateLimitDecision) {
  h.set("X-RateLimit-Limit", String(r.limit));
  h.set("X-RateLimit-Remaining", String(r.remaining));
}

function errorResponse(status: number, message: string, extra: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ success: false, message }), {
    status,
    headers: { "Content-Type": JSON_TYPE, "Cache-Control": "no-store", ...extra },
  });
}

export function restRoutes(deps: Deps, opts: { limiter?: RateLimiter; cache?: ResponseCache } = {}) {
  const limiter = opts.limiter ?? memoryRateLimiter({ limitPerMinute: deps.config.rateLimit, clock: deps.clock });
  const cache = opts.cache ?? new ResponseCache();
  const lookups = new HotLookups(deps);
  const app = new Hono<Env>();

  app.onError((err, c) => {
    if (err instanceof AppError) {
      const status = httpStatus[err.code];
      return errorResponse(status, err.message, status === 401 ? { "WWW-Authenticate": WWW_AUTHENTICATE } : {});
    }
    console.error(`[${c.get("requestId")}] REST unhandled error:`, err instanceof Error ? err.stack : err);
    return errorResponse(500, "Internal server error");
  });

  const bucketOf = (c: Context<Env>, caller: Caller | null) =>
    caller?.key ? `key:${caller.key.id}` : clientBucket(c.env?.requestIP?.(c.req.raw)?.address);

  app.use("*", async (c, next) => {
    if (c.req.method === "OPTIONS") {
      const res = new Response(null, { status: 204, headers: { ...PREFLIGHT_HEADERS, "Cache-Control": "public, max-age=86400" } });
      rateHeaders(res.headers, await limiter.peek(bucketOf(c, null)));
      return res;
    }
    const caller = lookups.caller(c.req.raw.headers);
    const rate = await limiter.take(bucketOf(c, caller));
    let res: Response;
    if (!rate.allowed) {
      res = errorResponse(429, "Rate limit exceeded", { "Retry-After": String(rate.retryAfterSec) });
    } else {
      c.set("caller", caller);
      await next();
      res = c.res;
    }
    const h = res.headers;
    rateHeaders(h, rate);
    for (const k in CORS_HEADERS) h.set(k, CORS_HEADERS[k]!);
    h.set("Vary", VARY);
    // A handler's own Response does not inherit headers set earlier on the context.
    const requestId = c.get("requestId");
    if (requestId) h.set("X-Request-Id", requestId);
    if (res !== c.res) return res;
  });

  // The document depends only on the public URL; built on first request so config changes at start-up apply.
  let doc: { body: string; etag: string } | null = null;
  app.get("/openapi.json", (c) => {
    doc ??= (() => {
      const body = JSON.stringify(buildOpenApiDocument(deps.config.publicUrl));
      return { body, etag: etagFor(body) };
    })();
    const headers = { ETag: doc.etag, "Cache-Control": CACHE_DOC };
    const inm = c.req.header("if-none-match");
    if (isStar(inm) || ifNoneMatchHits(inm, doc.etag)) return new Response(null, { status: 304, headers });
    return new Response(doc.body, { status: 200, headers: { ...headers, "Content-Type": JSON_TYPE } });
  });

  for (const op of OPERATIONS) app.get(op.path.replace(/\{(\w+)\}/g, ":$1"), handlerFor(deps, op, cache, lookups));

  app.all("*", (c) => {
    if (c.req.method !== "GET" && c.req.method !== "HEAD")
      return errorResponse(405, `Method ${c.req.method} not allowed: the REST API is read-only (GET)`, { Allow: "GET, HEAD, OPTIONS" });
    throw notFound();
  });
  return app;
}

function handlerFor(deps: Deps, op: Operation, cache: ResponseCache, lookups: HotLookups) {
  const parseQuery = op.query.length ? queryParser(op.query) : null;
  return (c: Context<Env>) => {
    const caller = c.get("caller");
    const siteId = parseSiteId(c.req.param("siteId")!);
    if (siteId === null) throw invalid("Invalid site ID");
    if (caller.presented) {
      if (!caller.key || caller.key.siteId !== siteId) throw unauthorized(MSG_INVALID_KEY);
    } else if (op.auth === "required") throw unauthorized(MSG_KEY_REQUIRED);

    const q = parseQuery ? parseQuery(new URL(c.req.url).searchParams) : { values: {}, canonical: "" };
    let slug = "";
    if (op.slug) {
      const s = parseSlug(c.req.param("slug")!);
      if (s === null) throw invalid(INVALID_SLUG);
      slug = s;
    }

    let site: PublicSiteState = { id: siteId, active: true, contentVersion: 0, storeEnabled: false };
    let basis: string;
    if (op.siteLookup) {
      const s = lookups.site(siteId);
      if (!s || !s.active) throw notFound();
      if (op.store && !s.storeEnabled) throw notFound("Store not found");
      site = s;
      basis = `${siteId}|${s.contentVersion}|${op.operationId}|${slug}|${q.canonical}`;
    } else basis = `*|${op.operationId}|${q.canonical}`;

    const etag = etagFor(basis);
    const headers = { ETag: etag, "Cache-Control": caller.key ? CACHE_KEYED : CACHE_PUBLIC };
    const inm = c.req.header("if-none-match");
    if (ifNoneMatchHits(inm, etag)) return new Response(null, { status: 304, headers });

    let body = cache.get(basis);
    if (body === undefined) {
      const result = op.run(deps, site, q.values, slug);
      if (!result) throw notFound();
      body = JSON.stringify({ success: true, ...result });
      cache.set(basis, body);
    }
    // "*" matches only a representation that exists, so it is answered after the read.
    if (isStar(inm)) return new Response(null, { status: 304, headers });
    return new Response(body, { status: 200, headers: { ...headers, "Content-Type": JSON_TYPE } });
  };
}
