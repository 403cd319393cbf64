/**
 * Plinth calling a URL it was given (an outgoing webhook, an automation's
 * call_webhook or http step): the SSRF guard and the Standard Webhooks
 * signature.
 *
 * The guard refuses targets that are not public: loopback, private,
 * link-local (cloud metadata at 169.254.169.254), carrier-grade NAT,
 * multicast and reserved ranges, in IPv4, IPv6 and IPv4-mapped IPv6, for an
 * address literal and for every address a name resolves to. It runs when a
 * URL is saved (literals and `localhost`, so the mistake shows at once) and
 * again before every request (names, whose answers change). An operator
 * who runs receivers on a private network turns it off with
 * PLINTH_WEBHOOKS_ALLOW_PRIVATE=1. Redirects are not followed (a public
 * URL must not bounce the request inward); a 3xx is a failed attempt.
 *
 * @public Serves bookings' connected calendars (ICS feeds and CalDAV), whose
 * outgoing reads and writes pass the same guard.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import { Webhook } from "standardwebhooks";
import type { Deps } from "../../core/context";
import { AppError, invalid } from "../../core/errors";
import { randomBytes } from "node:crypto";

export const MAX_URL = 2000;
const TIMEOUT_MS = 10_000;
const RESPONSE_KEPT = 2048;

function v4Private(ip: string): boolean {
  const [a, b] = ip.split(".").map(Number) as [number, number];
  return (
    a === 0 ||
    a === 10 ||
    a === 127 ||
    a >= 224 ||
    (a === 100 && b >= 64 && b <= 127) ||
    (a === 169 && b === 254) ||
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19))
  );
}

/** True for any address that is not a public unicast one. */
export function isPrivateAddress(ip: string): boolean {
  const kind = isIP(ip);
  if (kind === 4) return v4Private(ip);
  if (kind !== 6) return true;
  const x = ip.toLowerCase();
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(x);
  if (mapped) return v4Private(mapped[1]!);
  if (x === "::" || x === "::1") return true;
  const first = parseInt(x.split(":")[0] || "0", 16);
  return (
    (first & 0xfe00) === 0xfc00 ||
    (first & 0xffc0) === 0xfe80 ||
    (first & 0xff00) === 0xff00 ||
    x.startsWith("64:ff9b:") ||
    x.startsWith("2001:db8:")
  );
}

/** A URL's problem when it is saved, or null: scheme, length, credentials, and private literals unless allowed. */
export function checkTargetUrl(deps: Deps, raw: string, field = "url"): string {
  const url = raw.trim();
  if (url.length > MAX_URL) throw invalid(`${field} is longer than ${MAX_URL} characters.`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw invalid(`${field} is not a URL: give an absolute https:// address.`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalid(`${field} must be an http(s) URL.`);
  if (u.username || u.password) throw invalid(`${field} must not carry credentials; the payload is signed instead.`);
  if (!deps.config.webhooksAllowPrivate) {
    const host = u.hostname.replace(/^\[|\]$/g, "");
    if (host === "localhost" || host.endsWith(".localhost") || (isIP(host) && isPrivateAddress(host)))
      throw invalid(`${field} points at a loopback or private address (${host}); only public addresses are called.`);
  }
  return u.toString();
}

/** Before each request: every address the host resolves to must be public (unless allowed). */
export async function guard(deps: Deps, u: URL): Promise<string | null> {
  if (deps.config.webhooksAllowPrivate) return null;
  const host = u.hostname.replace(/^\[|\]$/g, "");
  let addrs: string[];
  try {
    addrs = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return `could not resolve ${host}`;
  }
  const bad = addrs.find(isPrivateAddress);
  return bad ? `refused: ${host} resolves to a loopback or private address (${bad})` : null;
}

/** The same check for other outgoing reads (bookings' calendar feeds and CalDAV): why `u` is refused, or null. */
export const refusedTarget = guard;

export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString("base64")}`;
}

export interface SendOutcome {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
  durationMs: number;
}

/**
 * POSTs `body` signed with Standard Webhooks headers (webhook-id,
 * webhook-timestamp, webhook-signature). The timestamp is the wall clock:
 * receivers compare it with theirs to refuse replays.
 */
export async function sendSigned(
  deps: Deps,
  target: { url: string; secret: string },
  msgId: string,
  body: string,
  extraHeaders: Record<string, string> = {},
): Promise<SendOutcome> {
  const started = performance.now();
  const done = (o: Omit<SendOutcome, "durationMs">): SendOutcome => ({
    ...o,
    durationMs: Math.round(performance.now() - started),
  });
  let u: URL;
  try {
    u = new URL(target.url);
  } catch {
    return done({ ok: false, statusCode: null, error: "invalid URL", responseBody: null });
  }
  const refused = await guard(deps, u);
  if (refused) return done({ ok: false, statusCode: null, error: refused, responseBody: null });
  const now = new Date();
  const signature = new Webhook(target.secret).sign(msgId, now, body);
  try {
    const res = await fetch(u, {
      method: "POST",
      redirect: "manual",
      signal: AbortSignal.timeout(TIMEOUT_MS),
      headers: {
        ...extraHeaders,
        "content-type": "application/json",
        "user-agent": "Plinth-Webhooks/1",
        "webhook-id": msgId,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": signature,
      },
      body,
    });
    let text = "";
    try {
      text = (await res.text()).slice(0, RESPONSE_KEPT);
    } catch {
      /* the status is what counts */
    }
    const ok = res.status >= 200 && res.status < 300;
    return done({
      ok,
      statusCode: res.status,
      error: ok
        ? null
        : res.status >= 300 && res.status < 400
          ? `redirect (${res.status}) not followed`
          : `HTTP ${res.status}`,
      responseBody: text || null,
    });
  } catch (e) {
    const msg =
      e instanceof Error
        ? e.name === "TimeoutError"
          ? `timed out after ${TIMEOUT_MS / 1000} s`
          : e.message
        : String(e);
    return done({ ok: false, statusCode: null, error: msg.slice(0, 500), responseBody: null });
  }
}

/** What an http step keeps of an answer: the first HTTP_BODY_MAX bytes of the body. */
export const HTTP_BODY_MAX = 64 * 1024;
const HEADERS_KEPT = 30;

export interface HttpAnswer {
  status: number;
  headers: Record<string, string>;
  /** Parsed when the answer says JSON and came whole; else the text. */
  body: unknown;
  truncated: boolean;
  durationMs: number;
}

/**
 * An automation's http step: one request through the guard, no redirects
 * followed, the body read up to HTTP_BODY_MAX bytes (the rest is not
 * downloaded). Throws the reason when there is no answer (refused,
 * unresolvable, timed out); any HTTP status is an answer.
 */
export async function httpCall(
  deps: Deps,
  r: { method: string; url: string; headers: Record<string, string>; body: unknown; timeoutMs: number },
): Promise<HttpAnswer> {
  const started = performance.now();
  const u = new URL(r.url);
  const refused = await guard(deps, u);
  if (refused)
    throw new AppError("forbidden", `The request was ${refused.startsWith("refused") ? "" : "not sent: "}${refused}.`);
  const hasBody = r.method !== "GET" && r.body !== null && r.body !== undefined;
  let res: Response;
  try {
    res = await fetch(u, {
      method: r.method,
      redirect: "manual",
      signal: AbortSignal.timeout(r.timeoutMs),
      headers: {
        "user-agent": "Plinth-Automations/1",
        ...(hasBody ? { "content-type": "application/json" } : {}),
        ...r.headers,
      },
      ...(hasBody ? { body: JSON.stringify(r.body) } : {}),
    });
  } catch (e) {
    const msg =
      e instanceof Error
        ? e.name === "TimeoutError"
          ? `timed out after ${r.timeoutMs / 1000} s`
          : e.message
        : String(e);
    throw new AppError("conflict", `No answer from ${u.host}: ${msg.slice(0, 300)}.`);
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  let truncated = false;
  const reader = res.body?.getReader();
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > HTTP_BODY_MAX) {
        chunks.push(value.subarray(0, HTTP_BODY_MAX - size));
        size = HTTP_BODY_MAX;
        truncated = true;
        await reader.cancel().catch(() => {});
        break;
      }
      chunks.push(value);
      size += value.length;
    }
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks));
  let body: unknown = text;
  if (!truncated && /\bjson\b/i.test(res.headers.get("content-type") ?? ""))
    try {
      body = JSON.parse(text);
    } catch {
      /* kept as text: the answer said JSON but was not */
    }
  const headers: Record<string, string> = {};
  for (const [k, x] of res.headers) if (Object.keys(headers).length < HEADERS_KEPT) headers[k] = x.slice(0, 500);
  return { status: res.status, headers, body, truncated, durationMs: Math.round(performance.now() - started) };
}
