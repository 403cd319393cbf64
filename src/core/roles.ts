/**
 * A member's role in a company. The core decides what each role may do
 * (src/core/scopes.ts: viewers read, owners and admins write) and every
 * principal carries its role per company (src/core/context.ts), so the
 * names live here rather than in the accounts domain that stores them.
 */
export const ROLES = ["owner", "admin", "viewer"] as const;
export type Role = (typeof ROLES)[number];
