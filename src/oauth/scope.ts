/**
 * The OAuth `scope` parameter (RFC 6749 §3.3) over Plinth's scope grammar
 * (src/core/scopes.ts): a space-separated list of the scopes of
 * interface.md 5.3, wildcards included.
 */
import { covers, isGrantable, SCOPES } from "../core/scopes";
import { oauthError } from "./errors";

/** Refresh tokens are always issued, so this OIDC-style request is accepted and dropped. */
const IGNORED = new Set(["offline_access"]);
export const MAX_SCOPE_PARAM = 4000;

/**
 * Parses a scope parameter. Unknown scopes are invalid_scope: a client that
 * asks for something we cannot grant should hear so, not get less silently.
 * Omitted (or only ignorable names) → `fallback`.
 */
export function parseScopeParam(raw: string | null | undefined, fallback: readonly string[] = SCOPES): string[] {
  if (raw && raw.length > MAX_SCOPE_PARAM) throw oauthError("invalid_scope", "The scope parameter is too long.");
  const names = [...new Set((raw ?? "").split(" ").filter(Boolean))].filter((s) => !IGNORED.has(s));
  const unknown = names.filter((s) => !isGrantable(s));
  if (unknown.length)
    throw oauthError(
      "invalid_scope",
      `Unknown scope${unknown.length > 1 ? "s" : ""}: ${unknown.slice(0, 5).join(", ")}.`,
    );
  return names.length ? names : [...fallback];
}

/** True when every scope in `asked` is within `granted` (wildcards understood). */
export function withinGrant(granted: readonly string[], asked: readonly string[]): boolean {
  return asked.every((s) => covers(granted, s));
}
