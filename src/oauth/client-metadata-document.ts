/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document,
 * the MCP authorization spec's preferred way in): a client id that is an
 * https URL names a JSON document describing the client. We fetch it with a
 * timeout and a size cap, refuse addresses inside private networks (the
 * fetch is made by our server, on a stranger's say-so), require the
 * document's client_id to equal the URL, and cache it in oauth_clients.
 *
 * Loopback http URLs are accepted only when `config.oauthDevLoopbackClientIds`
 * is on, so tests can serve a document from a local port.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { Deps } from "../core/context";
import { oauthError } from "./errors";
import { redirectUriProblem } from "./redirect-uri";
import { oauthClients } from "../domains/accounts/tables";
import { eq } from "drizzle-orm";
import { type OAuthClient, rowToClient } from "./client-row";

export const DOCUMENT_MAX_BYTES = 16 * 1024;
export const FETCH_TIMEOUT_MS = 5000;
/** How long a fetched document is trusted; Cache-Control max-age may shorten or lengthen it within these bounds. */
const DEFAULT_TTL_MS = 60 * 60 * 1000;
const MIN_TTL_MS = 60 * 1000;
const MAX_TTL_MS = 24 * 60 * 60 * 1000;

const PRIVATE = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
  ["64:ff9b::", 96],
] as const)
  PRIVATE.addSubnet(net, bits, "ipv6");

/** A problem with the document or its address, worded to follow "The client metadata document …". */
class DocumentProblem extends Error {}

function isPrivateAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return PRIVATE.check(mapped[1]!, "ipv4");
  return PRIVATE.check(address, isIP(address) === 6 ? "ipv6" : "ipv4");
}

function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "127.0.0.1" || host === "[::1]";
}

/** Whether `clientId` is a URL (and so names a metadata document) rather than a registered id. */
export function isMetadataDocumentClientId(clientId: string): boolean {
  return clientId.startsWith("https://") || clientId.startsWith("http://");
}

/** Why `clientId` cannot be a metadata document URL, or null. */
function urlProblem(deps: Deps, clientId: string): string | null {
  let u: URL;
  try {
    u = new URL(clientId);
  } catch {
    return "is not a valid URL";
  }
  const devHttp = deps.config.oauthDevLoopbackClientIds && u.protocol === "http:" && isLoopbackHost(u.hostname);
  if (u.protocol !== "https:" && !devHttp) return "must use https";
  if (u.pathname === "/" || u.pathname === "") return "must have a path";
  if (clientId.includes("#")) return "must not contain a fragment";
  if (u.username || u.password) return "must not contain credentials";
  if (/\/\.\.?(\/|$)/.test(clientId.slice(u.origin.length))) return "must not contain . or .. path segments";
  return null;
}

function ttlFrom(cacheControl: string | null): number {
  const m = cacheControl ? /max-age=(\d+)/i.exec(cacheControl) : null;
  if (/no-store|no-cache/i.test(cacheControl ?? "")) return MIN_TTL_MS;
  if (!m) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Number(m[1]) * 1000));
}

async function readCapped(res: Response): Promise<string> {
  const declared = Number(res.headers.get("content-length") ?? "0");
  if (declared > DOCUMENT_MAX_BYTES) throw new DocumentProblem(`is larger than ${DOCUMENT_MAX_BYTES} bytes`);
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > DOCUMENT_MAX_BYTES) {
      await reader.cancel();
      throw new DocumentProblem(`is larger than ${DOCUMENT_MAX_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks));
}

async function fetchDocument(deps: Deps, url: string): Promise<{ doc: unknown; ttl: number }> {
  const u = new URL(url);
  const devHttp = deps.config.oauthDevLoopbackClientIds && isLoopbackHost(u.hostname);
  if (!devHttp) {
    const host = u.hostname.replace(/^\[|\]$/g, "");
    const addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
    if (addresses.length === 0 || addresses.some(isPrivateAddress))
      throw new DocumentProblem("points to a private or loopback address");
  }
  const res = await fetch(url, {
    redirect: "manual",
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
    headers: { accept: "application/json" },
  });
  if (res.status !== 200) {
    await res.body?.cancel();
    throw new DocumentProblem(`answered HTTP ${res.status}`);
  }
  const text = await readCapped(res);
  try {
    return { doc: JSON.parse(text), ttl: ttlFrom(res.headers.get("cache-control")) };
  } catch {
    throw new DocumentProblem("is not JSON");
  }
}

/** Checks the document's content; returns the fields we keep. */
function validateDocument(url: string, doc: unknown) {
  if (typeof doc !== "object" || doc === null || Array.isArray(doc)) throw new DocumentProblem("is not a JSON object");
  const d = doc as Record<string, unknown>;
  if (d.client_id !== url) throw new DocumentProblem("has a client_id that differs from its URL");
  if (!Array.isArray(d.redirect_uris) || d.redirect_uris.length === 0 || d.redirect_uris.length > 20)
    throw new DocumentProblem("must list 1 to 20 redirect_uris");
  // The same rule as registration (src/oauth/redirect-uri.ts): canonical form only.
  d.redirect_uris.forEach((r, i) => {
    const problem = redirectUriProblem(r);
    if (problem) throw new DocumentProblem(`has a redirect URI (redirect_uris[${i}]) that ${problem}`);
  });
  const method = d.token_endpoint_auth_method ?? "none";
  // A document is public; it cannot carry a shared secret, so only public clients qualify.
  if (method !== "none")
    throw new DocumentProblem(`uses token_endpoint_auth_method ${String(method)}; only none is supported`);
  if ("client_secret" in d || "client_secret_expires_at" in d)
    throw new DocumentProblem("must not contain a client secret");
  const name = typeof d.client_name === "string" ? d.client_name.slice(0, 200) : null;
  const clientUri = typeof d.client_uri === "string" && d.client_uri.length <= 2000 ? d.client_uri : undefined;
  const scope = typeof d.scope === "string" && d.scope.length <= 4000 ? d.scope : undefined;
  return { redirectUris: d.redirect_uris as string[], name, metadata: { client_uri: clientUri, scope } };
}

/**
 * The client a metadata-document URL names: from the cache while fresh,
 * otherwise fetched, checked and cached again. Any problem is an
 * invalid_client error whose description names the problem.
 */
export async function clientFromMetadataDocument(deps: Deps, url: string): Promise<OAuthClient> {
  const problem = urlProblem(deps, url);
  if (problem) throw oauthError("invalid_client", `The client id URL ${problem}.`);
  const now = deps.clock.ms();
  const cached = (await deps.db.select().from(oauthClients).where(eq(oauthClients.clientId, url)).limit(1))[0];
  const expires = (cached?.metadata?.cache_expires_at as number | undefined) ?? 0;
  if (cached?.fetchedAt && now < expires) return rowToClient(cached);
  let fields: ReturnType<typeof validateDocument>;
  let ttl: number;
  try {
    const fetched = await fetchDocument(deps, url);
    ttl = fetched.ttl;
    fields = validateDocument(url, fetched.doc);
  } catch (e) {
    const why =
      e instanceof DocumentProblem
        ? e.message
        : e instanceof Error && e.name === "TimeoutError"
          ? `did not answer within ${FETCH_TIMEOUT_MS / 1000} seconds`
          : "could not be fetched";
    throw oauthError("invalid_client", `The client metadata document ${why}.`);
  }
  const values = {
    clientId: url,
    name: fields.name,
    redirectUris: fields.redirectUris,
    secretHash: null,
    tokenEndpointAuthMethod: "none",
    metadata: { ...fields.metadata, cache_expires_at: now + ttl },
    fetchedAt: new Date(now),
  };
  await deps.db
    .insert(oauthClients)
    .values({ ...values, createdAt: new Date(now) })
    .onConflictDoUpdate({ target: oauthClients.clientId, set: values });
  return rowToClient((await deps.db.select().from(oauthClients).where(eq(oauthClients.clientId, url)).limit(1))[0]!);
}
