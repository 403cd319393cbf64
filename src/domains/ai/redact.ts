/**
 * What AI history keeps of a tool call's arguments and errors: enough to see
 * what an agent did (which post, which status, which filter), never a secret
 * and never a body in full. Rules, in order:
 *   - a key that names a secret (password, token, secret, apiKey, authorization,
 *     cookie, …) keeps only "[redacted]";
 *   - a key that holds a body (content, html, body, blocks, text, data,
 *     file…) keeps only its size: "[2,431 chars]", "[12 items]";
 *   - a string that looks like a credential (svc_… keys, JWTs, Bearer …,
 *     long hex or base64 runs) is "[redacted]" wherever it appears;
 *   - other strings are cut to 80 characters, arrays to their first 5
 *     items, objects to 20 keys and 4 levels;
 *   - the whole summary is cut to 1,000 characters of JSON.
 */
import { BoundedMap } from "../../core/bounded-map";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../../core/memory-budget";

const SECRET_KEY =
  /pass(word|phrase)?|secret|token|api_?key|authori[sz]ation|cookie|credential|private_?key|signature|otp|pin$|cvc|cvv|card_?number|iban|idempotencykey/i;
const BODY_KEY =
  /^(content|html|body|blocks|text|markdown|data|file|bytes|base64|image|attachment|attachments|css|customcss|customjs|js|script|source|payload|message|description|details|notes?|answers?|slides)$/i;
const SECRET_VALUE = [
  /\bsvc_[a-z]+_[0-9a-f]{16,}/gi,
  /\bBearer\s+[A-Za-z0-9._~+/-]+=*/g,
  /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g,
  /\b[0-9a-f]{32,}\b/gi,
  /[A-Za-z0-9+/_-]{40,}={0,2}/g,
];
/**
 * Matches wherever any SECRET_VALUE pattern could: each pattern's match
 * holds one of these (svc_, Bearer, eyJ, 32 hex digits, 40 base64
 * characters). Most strings an agent sends (ids, slugs, statuses, keys)
 * have none, and one test of this is far cheaper than five replaces.
 */
const MAYBE_SECRET = /svc_|bearer|eyJ|[0-9a-f]{32}|[A-Za-z0-9+/_-]{40}/i;
/** Shorter than any SECRET_VALUE match ("Bearer x" is the shortest, 8 characters). */
const MIN_SECRET = 8;
const MAX_STRING = 80;
const MAX_ITEMS = 5;
const MAX_KEYS = 20;
const MAX_DEPTH = 4;
export const MAX_SUMMARY = 1000;

/** `text` with anything credential-shaped replaced. */
export function scrub(text: string): string {
  if (text.length < MIN_SECRET || !MAYBE_SECRET.test(text)) return text;
  let s = text;
  for (const re of SECRET_VALUE) s = s.replace(re, "[redacted]");
  return s;
}

function cut(s: string): string {
  const clean = scrub(s);
  return clean.length > MAX_STRING ? `${clean.slice(0, MAX_STRING)}… (${s.length} chars)` : clean;
}

function size(v: unknown): string {
  if (typeof v === "string") return `[${v.length.toLocaleString("en")} chars]`;
  if (Array.isArray(v)) return `[${v.length} items]`;
  if (v && typeof v === "object") return `[${Object.keys(v).length} fields]`;
  return summarise(v, MAX_DEPTH) as string;
}

/** How a key is treated: 0 plain, 1 secret, 2 body; with its scrubbed, cut form. */
interface KeyKind {
  shown: string;
  kind: 0 | 1 | 2;
}
/**
 * Argument names repeat from call to call (a tool's few parameters), so each
 * is classified once; bounded against a client inventing names, and only
 * short names are kept.
 */
const keyKinds = new BoundedMap<string, KeyKind>({
  maxBytes: BUDGET.redactKeys,
  sizeOf: (k, r) => ENTRY_OVERHEAD + stringBytes(k) + stringBytes(r.shown),
});
function keyKind(k: string): KeyKind {
  let r = keyKinds.get(k);
  if (r === undefined) {
    r = { shown: cut(k), kind: SECRET_KEY.test(k) ? 1 : BODY_KEY.test(k) ? 2 : 0 };
    if (k.length <= 64) {
      keyKinds.set(k, r);
    }
  }
  return r;
}

function summarise(v: unknown, depth: number): unknown {
  if (v === null || typeof v === "boolean") return v;
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (typeof v === "string") return cut(v);
  if (Array.isArray(v)) {
    if (depth <= 0) return `[${v.length} items]`;
    const head = v.slice(0, MAX_ITEMS).map((x) => summarise(x, depth - 1));
    if (v.length > MAX_ITEMS) head.push(`… ${v.length - MAX_ITEMS} more`);
    return head;
  }
  if (typeof v === "object") {
    if (depth <= 0) return `[${Object.keys(v as object).length} fields]`;
    const out: Record<string, unknown> = {};
    const entries = Object.entries(v as Record<string, unknown>);
    for (const [k, x] of entries.slice(0, MAX_KEYS)) {
      const { shown: key, kind } = keyKind(k);
      if (kind === 1) out[key] = "[redacted]";
      else if (kind === 2 && x !== null && typeof x === "object") out[key] = size(x);
      else if (kind === 2 && typeof x === "string" && x.length > 40) out[key] = size(x);
      else out[key] = summarise(x, depth - 1);
    }
    if (entries.length > MAX_KEYS) out["…"] = `${entries.length - MAX_KEYS} more fields`;
    return out;
  }
  return typeof v;
}

/** The stored summary of a call's arguments (JSON text, at most MAX_SUMMARY characters). */
export function summariseArgs(args: unknown): string {
  if (args === undefined) return "{}";
  let json: string;
  try {
    json = JSON.stringify(summarise(args, MAX_DEPTH)) ?? "{}";
  } catch {
    return '"[unreadable]"';
  }
  if (json.length <= MAX_SUMMARY) return json;
  // Too long even after cutting: keep a prefix as a string, so it stays valid JSON.
  return JSON.stringify(`${json.slice(0, MAX_SUMMARY - 40)}… (cut)`);
}

/** A tool error's message as history keeps it: its first 200 characters, scrubbed. */
export function summariseError(text: string | null): string | null {
  if (!text) return null;
  const s = scrub(text.replace(/\s+/g, " ").trim());
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}
