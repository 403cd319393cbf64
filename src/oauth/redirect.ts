/**
 * Building the redirect back to the client: the original query kept,
 * our parameters added, and always `iss` (RFC 9207) so a client talking to
 * several servers can tell which one answered.
 */
import type { Deps } from "../core/context";
import { issuer } from "./metadata";

export function buildRedirect(
  deps: Deps,
  redirectUri: string,
  params: Record<string, string | null | undefined>,
): string {
  const u = new URL(redirectUri);
  for (const [k, v] of Object.entries(params)) if (v !== null && v !== undefined) u.searchParams.set(k, v);
  u.searchParams.set("iss", issuer(deps));
  return u.toString();
}
