/**
 * Outgoing webhooks as connected integrations (src/domains/integrations):
 * each endpoint listed with its delivery health, and revoking one disables
 * it (its history stays; a person can enable it again with webhooks_update).
 */
import { and, asc, eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import { notFound } from "../../core/errors";
import type { IntegrationSource } from "../integrations/sources";
import { webhookEndpoints } from "./tables";

/** The URL without its query (which may carry a receiver's token). */
function shown(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return url.slice(0, 200);
  }
}

export const webhookIntegrations: IntegrationSource = {
  kind: "webhook",
  title: "Outgoing webhook",
  async list(deps, companyId) {
    const rows = await deps.db
      .select()
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.companyId, companyId))
      .orderBy(asc(webhookEndpoints.id));
    return rows.map((e) => {
      const failing = !!e.lastFailureAt && (!e.lastSuccessAt || e.lastFailureAt.getTime() > e.lastSuccessAt.getTime());
      return {
        ref: String(e.id),
        name: shown(e.url),
        status: e.status === "disabled" ? ("disabled" as const) : failing ? ("failing" as const) : ("active" as const),
        connectedAt: e.createdAt,
        revocable: e.status !== "disabled",
        health: {
          lastSuccessAt: e.lastSuccessAt,
          lastErrorAt: e.lastFailureAt,
          lastError: e.disabledReason,
          expiresAt: null,
        },
        detail: { webhookId: e.id, eventTypes: e.eventTypes, failureStreak: e.failureStreak },
      };
    });
  },
  async revoke(ctx, ref) {
    const id = Number(ref);
    const where = and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.companyId, ctx.company.id));
    const e = (await ctx.deps.db.select().from(webhookEndpoints).where(where).limit(1))[0];
    if (!e) throw notFound(`Webhook ${ref} not found.`);
    await ctx.deps.db
      .update(webhookEndpoints)
      .set({ status: "disabled", disabledReason: "revoked through integrations", updatedAt: ctx.deps.clock.now() })
      .where(where);
    await audit(ctx.deps.db, ctx, "webhooks.update", {
      type: "webhook",
      id,
      detail: { fields: ["enabled"], via: "integrations_revoke" },
    });
    return { effect: "disabled" };
  },
};
