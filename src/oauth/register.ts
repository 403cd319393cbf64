/**
 * Dynamic client registration (RFC 7591), open to anyone as the MCP
 * authorization spec expects: a client learns our registration endpoint from
 * the metadata and registers itself, no administrator involved. Registering
 * grants nothing by itself; a person still has to consent.
 *
 * Limits keep it from being a storage sink: a small JSON body, at most 10
 * redirect URIs, bounded strings, and a per-address rate limit.
 */
import type { Context } from "hono";
import type { Deps } from "../core/context";
import { mintSecret, randomHex } from "../core/secrets";
import type { ClientAuthMethod } from "./clients";
import { oauthError } from "./errors";
import { redirectUriProblem } from "./redirect-uri";
import { parseScopeParam } from "./scope";
import { oauthClients } from "../domains/accounts/tables";
import { attemptCounter } from "../core/limits";
import { clientAddress } from "../portal/throttle";

export const MAX_REGISTRATION_BYTES = 16 * 1024;
const MAX_REDIRECT_URIS = 10;
const AUTH_METHODS: readonly ClientAuthMethod[] = ["none", "client_secret_basic", "client_secret_post"];
const GRANT_TYPES = ["authorization_code", "refresh_token"];
/** Registrations per client address per window. */
const REGISTRATIONS_PER_WINDOW = 30;
const WINDOW_MS = 10 * 60 * 1000;

const invalidMeta = (msg: string) => oauthError("invalid_client_metadata", msg);

function optionalString(d: Record<string, unknown>, key: string, max: number): string | undefined {
  const v = d[key];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw invalidMeta(`${key} must be a string.`);
  if (v.length > max) throw invalidMeta(`${key} must be at most ${max} characters.`);
  return v;
}

function optionalUrl(d: Record<string, unknown>, key: string): string | undefined {
  const v = optionalString(d, key, 2000);
  if (v === undefined) return undefined;
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw invalidMeta(`${key} must be an absolute URL.`);
  }
  if (u.protocol !== "https:" && u.protocol !== "http:") throw invalidMeta(`${key} must be an http(s) URL.`);
  return v;
}

function stringList(d: Record<string, unknown>, key: string): string[] | undefined {
  const v = d[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v) || v.some((x) => typeof x !== "string"))
    throw invalidMeta(`${key} must be an array of strings.`);
  return v as string[];
}

/** Validates a registration request; returns what we store and echo. */
export function validateRegistration(body: unknown) {
  if (typeof body !== "object" || body === null || Array.isArray(body))
    throw invalidMeta("The body must be a JSON object.");
  const d = body as Record<string, unknown>;
  const redirectUris = stringList(d, "redirect_uris");
  if (!redirectUris || redirectUris.length === 0)
    throw oauthError("invalid_redirect_uri", "redirect_uris must list at least one URI.");
  if (redirectUris.length > MAX_REDIRECT_URIS)
    throw oauthError("invalid_redirect_uri", `redirect_uris may list at most ${MAX_REDIRECT_URIS} URIs.`);
  redirectUris.forEach((uri, i) => {
    const problem = redirectUriProblem(uri);
    if (problem) throw oauthError("invalid_redirect_uri", `redirect_uris[${i}] ${problem}.`);
  });
  // RFC 7591 §2: the default method is client_secret_basic.
  const method = (optionalString(d, "token_endpoint_auth_method", 50) ?? "client_secret_basic") as ClientAuthMethod;
  if (!AUTH_METHODS.includes(method))
    throw invalidMeta(`token_endpoint_auth_method must be one of ${AUTH_METHODS.join(", ")}.`);
  const grantTypes = stringList(d, "grant_types") ?? ["authorization_code"];
  const badGrant = grantTypes.find((g) => !GRANT_TYPES.includes(g));
  if (badGrant !== undefined) throw invalidMeta(`grant_types may contain only ${GRANT_TYPES.join(" and ")}.`);
  const responseTypes = stringList(d, "response_types") ?? ["code"];
  if (responseTypes.some((r) => r !== "code")) throw invalidMeta('response_types may contain only "code".');
  const scope = optionalString(d, "scope", 4000);
  if (scope !== undefined) {
    try {
      parseScopeParam(scope);
    } catch (e) {
      throw invalidMeta(e instanceof Error ? e.message : "scope is invalid.");
    }
  }
  return {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method,
    grant_types: [...new Set(grantTypes)],
    response_types: ["code"],
    client_name: optionalString(d, "client_name", 200),
    client_uri: optionalUrl(d, "client_uri"),
    logo_uri: optionalUrl(d, "logo_uri"),
    tos_uri: optionalUrl(d, "tos_uri"),
    policy_uri: optionalUrl(d, "policy_uri"),
    software_id: optionalString(d, "software_id", 200),
    software_version: optionalString(d, "software_version", 100),
    scope,
  };
}

export function registerEndpoint(deps: Deps) {
  const limiter = attemptCounter(deps, "oauth-register", REGISTRATIONS_PER_WINDOW, WINDOW_MS);
  return async (c: Context) => {
    const wait = await limiter.hit(clientAddress(c), deps.clock.ms());
    if (wait > 0)
      throw oauthError("temporarily_unavailable", "Too many registrations from this address; try again later.", {
        retryAfter: Math.ceil(wait / 1000),
      });
    if (!/^application\/json\b/i.test(c.req.header("content-type") ?? ""))
      throw invalidMeta("The body must be application/json.");
    const text = await c.req.text();
    if (text.length > MAX_REGISTRATION_BYTES)
      throw invalidMeta(`The body must be at most ${MAX_REGISTRATION_BYTES} bytes.`);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw invalidMeta("The body is not valid JSON.");
    }
    const meta = validateRegistration(body);
    const clientId = `plinth_client_${randomHex(16)}`;
    const secret = meta.token_endpoint_auth_method === "none" ? null : mintSecret("plinth_secret_");
    const now = deps.clock.now();
    const { redirect_uris, token_endpoint_auth_method, client_name, ...rest } = meta;
    await deps.db.insert(oauthClients).values({
      clientId,
      name: client_name ?? null,
      redirectUris: redirect_uris,
      secretHash: secret?.hash ?? null,
      tokenEndpointAuthMethod: token_endpoint_auth_method,
      metadata: rest,
      createdAt: now,
    });
    c.header("Cache-Control", "no-store");
    return c.json(
      {
        client_id: clientId,
        client_id_issued_at: Math.floor(now.getTime() / 1000),
        ...(secret ? { client_secret: secret.secret, client_secret_expires_at: 0 } : {}),
        ...meta,
      },
      201,
    );
  };
}
