/**
 * The scope grammar of interface.md 5.3, decided in this one file.
 *
 *   "*"            everything
 *   "<domain>:*"   every scope of that domain (read, write, send, approve, manage)
 *   "<d>:write"    also grants "<d>:read": a key that may change a thing may see it
 *   "approvals:manage" includes "approvals:read"
 *   "sites:read"   includes "media:read" (5.3 lists media among what sites:read reads)
 *   "email:send"   is required in addition to email:write; write does not imply send
 */
import { forbidden } from "./errors";
import type { ActorContext } from "./context";
import type { Role } from "./roles";

export const SCOPES = [
  "profile:read",
  "profile:write",
  "projects:read",
  "projects:write",
  "tickets:read",
  "tickets:write",
  "crm:read",
  "crm:write",
  "sites:read",
  "sites:write",
  "media:read",
  "media:write",
  "email:read",
  "email:write",
  "email:send",
  "decks:read",
  "decks:write",
  "surveys:read",
  "surveys:write",
  "bookings:read",
  "bookings:write",
  "automations:read",
  "automations:write",
  "team:read",
  "team:write",
  "integrations:read",
  "integrations:write",
  "services:read",
  "services:write",
  "store:read",
  "store:write",
  "billing:read",
  "hosting:read",
  "ai:read",
  "brain:read",
  "brain:write",
  "brain:approve",
  "approvals:read",
  "approvals:manage",
  "chat:read",
  "chat:write",
  "notifications:read",
  "notifications:write",
  "branding:read",
  "branding:write",
] as const;
export type Scope = (typeof SCOPES)[number];

const KNOWN = new Set<string>(SCOPES);
const DOMAINS = new Set(SCOPES.map((s) => s.split(":")[0]!));

/** True when `s` is a scope a credential may be issued with (including wildcards). */
export function isGrantable(s: string): boolean {
  if (s === "*" || KNOWN.has(s)) return true;
  const [d, a] = s.split(":");
  return a === "*" && DOMAINS.has(d!);
}

/** Implied scopes: what holding `required` is also granted by. */
function grantorsOf(required: string): string[] {
  const [domain, action] = required.split(":");
  const out = ["*", required, `${domain}:*`];
  if (action === "read") out.push(`${domain}:write`);
  if (required === "approvals:read") out.push("approvals:manage");
  if (required === "media:read") out.push("sites:read", "sites:write", "sites:*");
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
