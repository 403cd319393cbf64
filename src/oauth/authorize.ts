/**
 * The authorization request (RFC 6749 §4.1.1 with PKCE, RFC 8707 resource,
 * RFC 9207 iss). `parseAuthorizeRequest` validates it in the order the RFC
 * sets: a bad client_id or redirect_uri is shown to the person (never
 * redirected, or we would be an open redirector); anything else is sent
 * back to the client's redirect URI as an error.
 *
 * The same parse runs again when the consent form is posted: the hidden
 * fields are the client's request, re-checked, not trusted.
 */
import { buildRedirect } from "./redirect";
import type { Deps } from "../core/context";
import { isAppError } from "../core/errors";
import { loadClient, type OAuthClient } from "./clients";
import type { OAuthErrorCode } from "./errors";
import { acceptedResources, mcpResource } from "./metadata";
import { isS256Challenge } from "./pkce";
import { redirectUriMatches } from "./redirect-uri";
import { parseScopeParam } from "./scope";

/** The parameters an authorization request carries, echoed through the consent form. */
export const REQUEST_PARAMS = [
  "response_type",
  "client_id",
  "redirect_uri",
  "scope",
  "state",
  "code_challenge",
  "code_challenge_method",
  "resource",
] as const;
const MAX_PARAM = 4000;

export interface AuthorizeRequest {
  client: OAuthClient;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  /** Scopes the client asked for; the person may grant fewer. */
  scopes: string[];
  resource: string;
  /** The request's parameters as received, for the consent form to echo. */
  params: Record<string, string>;
}

export type Parsed =
  | { kind: "ok"; request: AuthorizeRequest }
  /** Shown to the person; the client cannot be trusted with a redirect. */
  | { kind: "fatal"; message: string }
  /** Sent back to the client's (verified) redirect URI. */
  | { kind: "redirect"; location: string };

type Params = { get(name: string): string | null; getAll(name: string): string[] };

export async function parseAuthorizeRequest(deps: Deps, q: Params): Promise<Parsed> {
  const params: Record<string, string> = {};
  for (const name of REQUEST_PARAMS) {
    const all = q.getAll(name);
    if (all.length > 1 && (name === "client_id" || name === "redirect_uri"))
      return { kind: "fatal", message: `The request repeats ${name}.` };
    if (all[0] !== undefined) params[name] = all[0];
  }
  const clientId = params.client_id;
  if (!clientId)
    return { kind: "fatal", message: "The request does not say which application is asking (client_id is missing)." };
  let client: OAuthClient | null;
  try {
    client = await loadClient(deps, clientId);
  } catch (e) {
    if (isAppError(e)) return { kind: "fatal", message: e.message };
    throw e;
  }
  if (!client) return { kind: "fatal", message: "This application is not registered with Plinth (unknown client_id)." };
  let redirectUri = params.redirect_uri;
  if (redirectUri === undefined) {
    // RFC 6749 §3.1.2.3: optional only when the client registered exactly one.
    if (client.redirectUris.length !== 1)
      return { kind: "fatal", message: "The request has no redirect_uri and the application registered several." };
    redirectUri = client.redirectUris[0]!;
  } else if (!redirectUriMatches(client.redirectUris, redirectUri)) {
    return { kind: "fatal", message: "The redirect_uri does not match any the application registered." };
  }

  const state = params.state ?? null;
  const fail = (error: OAuthErrorCode, description: string): Parsed => ({
    kind: "redirect",
    location: buildRedirect(deps, redirectUri!, { error, error_description: description, state }),
  });
  for (const name of REQUEST_PARAMS) {
    if (q.getAll(name).length > 1) return fail("invalid_request", `The request repeats ${name}.`);
    if ((params[name]?.length ?? 0) > MAX_PARAM) return fail("invalid_request", `${name} is too long.`);
  }
  if (params.response_type !== "code")
    return fail("unsupported_response_type", "Only response_type=code is supported.");
  const challenge = params.code_challenge;
  if (!challenge) return fail("invalid_request", "code_challenge is required (PKCE with S256).");
  if (params.code_challenge_method !== "S256") return fail("invalid_request", "code_challenge_method must be S256.");
  if (!isS256Challenge(challenge)) return fail("invalid_request", "code_challenge is not a valid S256 challenge.");
  let scopes: string[];
  try {
    const registered = client.scope ? parseScopeParam(client.scope) : undefined;
    scopes = parseScopeParam(params.scope, registered);
  } catch (e) {
    if (isAppError(e)) return fail("invalid_scope", e.message);
    throw e;
  }
  const resource = params.resource ?? mcpResource(deps);
  if (!acceptedResources(deps).includes(resource))
    return fail("invalid_target", `This server issues tokens only for ${mcpResource(deps)}.`);
  return {
    kind: "ok",
    request: { client, redirectUri, state, codeChallenge: challenge, scopes, resource: mcpResource(deps), params },
  };
}
