/** Audit records, written by verbs inside the same transaction as their change. */
import type { ActorContext } from "./context";
import type { Db } from "./db";
import { auditLog } from "./tables";

export async function audit(
  tx: Pick<Db, "insert">,
  ctx: ActorContext,
  action: string,
  entity: { type?: string; id?: number | null; siteId?: number | null; detail?: Record<string, unknown> } = {},
) {
  await tx.insert(auditLog).values({
    companyId: ctx.company.id,
    siteId: entity.siteId ?? null,
    userId: ctx.principal.userId,
    credentialKind: ctx.principal.credential.kind,
    credentialId: ctx.principal.credential.id,
    action,
    entityType: entity.type ?? null,
    entityId: entity.id ?? null,
    detail: entity.detail ?? null,
    createdAt: ctx.deps.clock.now(),
  });
}
