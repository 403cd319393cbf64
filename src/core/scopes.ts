/**
 * The scope grammar of interface.md 5.3, decided in this one file.
 *
 *   "*"            everything
 *   "<domain>:*"   every scope of that domain (read, write, send, approve, manage)
 *   "<d>:write"    also grants "<d>:read": a key that may change a thing may see it
 *   anything else a scope grants is declared by the domain that owns it
 *   (ScopeArea.includes): "approvals:manage" includes "approvals:read";
 *   "sites:read" includes "media:read" (5.3 lists media among what
 *   sites:read reads). "email:send" is required in addition to email:write;
 *   write does not imply send.
 */
import { forbidden } from "./errors";
import type { ActorContext } from "./context";
import type { Role } from "./roles";

/** A scope area as a domain declares it (ScopeArea in src/mcp/define.ts): its scopes and what each also grants. */
export interface DeclaredScopes {
  area: string;
  words: Record<string, string>;
  includes?: Record<string, string[]>;
}

/**
 * Every scope a credential may be issued with, in the domains' order: filled
 * once by declareScopes when the catalog is built (src/mcp/catalog.ts), as
 * event types are by listEvents. The grammar below knows no domain; what a
 * scope also grants beyond it comes from the declarations.
 */
export const SCOPES: string[] = [];
const KNOWN = new Set<string>();
const AREAS = new Set<string>();
/** required scope → the declared scopes that include it (`media:read` ← `sites:read`). */
const INCLUDED_BY = new Map<string, string[]>();

/** Called by buildCatalog with every domain's scope areas; declaring the same scopes again changes nothing. */
export function declareScopes(areas: readonly DeclaredScopes[]): void {
  for (const a of areas) {
    AREAS.add(a.area);
    for (const s of Object.keys(a.words)) {
      if (!s.startsWith(`${a.area}:`)) throw new Error(`scope ${s} is declared by area ${a.area}`);
      if (!KNOWN.has(s)) {
        KNOWN.add(s);
        SCOPES.push(s);
      }
    }
    for (const [by, included] of Object.entries(a.includes ?? {}))
      for (const s of included) {
        const list = INCLUDED_BY.get(s) ?? [];
        if (!list.includes(by)) list.push(by);
        INCLUDED_BY.set(s, list);
      }
  }
  grantorMemo.clear();
}

/** True when `s` is one declared scope (not a wildcard): what a tool or resource may require. */
export function isScope(s: string): boolean {
  return KNOWN.has(s);
}

/** True when `s` is a scope a credential may be issued with (including wildcards). */
export function isGrantable(s: string): boolean {
  if (s === "*" || KNOWN.has(s)) return true;
  const [d, a] = s.split(":");
  return a === "*" && AREAS.has(d!);
}

/** Implied scopes: what holding `required` is also granted by. */
function grantorsOf(required: string): string[] {
  const [domain, action] = required.split(":");
  const out = ["*", required, `${domain}:*`];
  if (action === "read") out.push(`${domain}:write`);
  // Declared inclusions, and whatever grants the including scope in turn (sites:write grants sites:read, which includes media:read).
  for (const by of INCLUDED_BY.get(required) ?? []) for (const g of grantorsOf(by)) if (!out.includes(g)) out.push(g);
  return out;
}

/** Worked out once per required scope: a tool call checks its scope three times (registry filter, adapter, verb). */
const grantorMemo = new Map<string, readonly string[]>();
function grantors(required: string): readonly string[] {
  let g = grantorMemo.get(required);
  if (!g) {
    g = grantorsOf(required);
    // Required scopes come from declarations, a short list; anything beyond it is simply not remembered.
    if (grantorMemo.size < 1000) grantorMemo.set(required, g);
  }
  return g;
}

export function covers(granted: readonly string[], required: string | null): boolean {
  if (required === null) return true;
  for (const g of grantors(required)) if (granted.includes(g)) return true;
  return false;
}

/** Roles that may use write verbs; viewers read. */
const WRITE_ROLES: readonly Role[] = ["owner", "admin"];

export function roleAllows(role: Role, write: boolean, minRole?: Role): boolean {
  if (minRole === "owner") return role === "owner";
  // Self-service writes (marking one's own notifications read, one's own profile): every member may.
  if (minRole === "viewer") return true;
  if (minRole === "admin" || write) return WRITE_ROLES.includes(role);
  return true;
}

/**
 * The check every verb makes first, whatever adapter called it: the MCP
 * filter hides tools for usability, this is the correctness check.
 */
export function authorize(ctx: ActorContext, scope: string | null, opts: { write: boolean; minRole?: Role }) {
  if (!covers(ctx.principal.scopes, scope)) throw forbidden(`This credential lacks the ${scope} scope.`);
  if (!roleAllows(ctx.company.role, opts.write, opts.minRole))
    throw forbidden(
      `Your role in ${ctx.company.name} is ${ctx.company.role}; this needs ${opts.minRole ?? "admin"} or owner.`,
    );
}
