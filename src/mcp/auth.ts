/**
 * The MCP endpoint's authentication face: the bearer challenge of
 * interface.md 5.2 and the RFC 9728 protected-resource metadata it points to.
 * Credential resolution itself is the accounts domain's (resolveBearer).
 */
import type { Config } from "../config";
import type { Deps, Principal } from "../core/context";
import { SCOPES } from "../core/scopes";
import { resolveBearer } from "../domains/accounts/credentials";
import { UNAUTHORIZED_CODE } from "./errors";

export const REALM = "service-mcp";

export function resourceMetadataUrl(config: Config) {
  return `${config.publicUrl}/.well-known/oauth-protected-resource`;
}

/** Every scope a credential can be granted, wildcards included (domain wildcards follow the scope list). */
export function grantableScopes(): string[] {
  const domains = [...new Set(SCOPES.map((s) => s.split(":")[0]!))];
  return ["*", ...SCOPES, ...domains.map((d) => `${d}:*`)];
}

export function protectedResourceMetadata(config: Config) {
  return {
    resource: `${config.publicUrl}/api/mcp`,
    authorization_servers: [config.publicUrl],
    scopes_supported: grantableScopes(),
    bearer_methods_supported: ["header"],
    resource_name: "Plinth MCP",
  };
}

/** Reads `Authorization: Bearer <token>`; anything else is "no credential". */
export function bearerToken(header: string | null | undefined): string | null {
  if (!header) return null;
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(header);
  return m ? m[1]! : null;
}

/**
 * The last Authorization value seen and its token: a client sends the same
 * header on every call, so the parse is skipped on a repeat. One entry: no
 * memory grows, and a different header is simply parsed.
 */
let lastHeader: string | null = null;
let lastToken: string | null = null;

export function authenticate(deps: Deps, header: string | null | undefined): Promise<Principal | null> {
  let token: string | null;
  if (header && header === lastHeader) token = lastToken;
  else {
    token = bearerToken(header);
    if (header) {
      lastHeader = header;
      lastToken = token;
    }
  }
  return token ? resolveBearer(deps, token) : Promise.resolve(null);
}

/** HTTP 401 exactly as interface.md 5.2 and 7.2 describe it. */
export function unauthorizedResponse(config: Config): Response {
  return new Response(
    JSON.stringify({ jsonrpc: "2.0", error: { code: UNAUTHORIZED_CODE, message: "Unauthorized" }, id: null }),
    {
      status: 401,
      headers: {
        "content-type": "application/json",
        "www-authenticate": `Bearer realm="${REALM}", resource_metadata="${resourceMetadataUrl(config)}"`,
      },
    },
  );
}
