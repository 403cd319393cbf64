/**
 * Authorization server metadata (RFC 8414) and the constants every OAuth
 * file shares: where the endpoints live, how long each credential lasts, and
 * the one resource (RFC 8707) tokens are issued for.
 *
 * The issuer is the portal origin (`config.publicUrl`), read per request:
 * tests start on port 0 and learn the real port after the app is built.
 */
import type { Context } from "hono";
import type { Deps } from "../core/context";
import { grantableScopes } from "../mcp/auth";

export const PATHS = {
  metadata: "/.well-known/oauth-authorization-server",
  authorize: "/oauth/authorize",
  token: "/oauth/token",
  register: "/oauth/register",
  revoke: "/oauth/revoke",
} as const;

/** Access tokens are short-lived; refresh tokens rotate on every use. */
export const ACCESS_TOKEN_TTL_MS = 60 * 60 * 1000;
export const REFRESH_TOKEN_TTL_MS = 30 * 24 * 60 * 60 * 1000;
/** Clients exchange a code immediately; five minutes covers slow hand-offs. */
export const CODE_TTL_MS = 5 * 60 * 1000;

/** Scopes advertised to clients: the table of interface.md 5.3 with its wildcards, as the protected-resource document lists them. */
export const SCOPES_SUPPORTED: readonly string[] = grantableScopes();

export function issuer(deps: Deps): string {
  return deps.config.publicUrl;
}

/** The protected resource every token is issued for: the MCP endpoint. */
export function mcpResource(deps: Deps): string {
  return `${deps.config.publicUrl}/api/mcp`;
}

const LOOPBACK_NAMES = ["localhost", "127.0.0.1", "[::1]"];

/**
 * The public URL and, when it names this machine's loopback interface, the
 * same URL under the other loopback names: `http://127.0.0.1:8787` and
 * `http://localhost:8787` are one server, and a client told either may send it.
 */
export function publicOrigins(publicUrl: string): string[] {
  const u = new URL(publicUrl);
  if (!LOOPBACK_NAMES.includes(u.hostname)) return [u.origin];
  return [
    u.origin,
    ...LOOPBACK_NAMES.filter((h) => h !== u.hostname).map((h) => `${u.protocol}//${h}${u.port ? `:${u.port}` : ""}`),
  ];
}

/**
 * Resource indicators (RFC 8707) we accept for the MCP endpoint. Clients
 * derive it from the protected-resource document, which names the endpoint
 * URL; some send the bare origin instead. On a loopback public URL every
 * loopback spelling of it is accepted (publicOrigins).
 */
export function acceptedResources(deps: Deps): string[] {
  return publicOrigins(deps.config.publicUrl).flatMap((base) => [`${base}/api/mcp`, base, `${base}/`]);
}

export function authorizationServerMetadata(deps: Deps) {
  const base = issuer(deps);
  return {
    issuer: base,
    authorization_endpoint: base + PATHS.authorize,
    token_endpoint: base + PATHS.token,
    registration_endpoint: base + PATHS.register,
    revocation_endpoint: base + PATHS.revoke,
    scopes_supported: SCOPES_SUPPORTED,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    token_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    revocation_endpoint_auth_methods_supported: ["none", "client_secret_basic", "client_secret_post"],
    code_challenge_methods_supported: ["S256"],
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: true,
  };
}

export function serveMetadata(deps: Deps) {
  return (c: Context) => {
    c.header("Cache-Control", "public, max-age=300");
    return c.json(authorizationServerMetadata(deps));
  };
}
