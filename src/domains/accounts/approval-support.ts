/**
 * What the accounts domain tells the approval workflow
 * (approvals/kinds.ts ApprovalSupport): whether the credential that asked
 * for a held change was revoked since, in which case the change must not
 * go live (approving it is refused and shown to the reviewer).
 *
 * Only API keys count: an OAuth access token is short-lived and rotated,
 * so its expiry or rotation says nothing about the person's intent.
 */
import { eq } from "drizzle-orm";
import type { ApprovalSupport } from "../approvals/kinds";
import { mcpKeys } from "./tables";

export const accountsApprovalSupport: ApprovalSupport = {
  async credentialRevoked(db, kind, id) {
    if (kind !== "mcp_key") return false;
    const key = (await db.select({ revokedAt: mcpKeys.revokedAt }).from(mcpKeys).where(eq(mcpKeys.id, id)).limit(1))[0];
    return !key || key.revokedAt !== null;
  },
};
