/**
 * What can be connected, and how each kind is listed, checked and revoked.
 *
 * A domain that owns connections of its own (webhook subscriptions, a
 * future CRM sync) contributes them with `integrations: [source]` on its
 * Domain (the shape is declared by the contract, src/mcp/define.ts); the
 * catalog collects them (Deps.catalog.integrations). This domain declares
 * the built-in sources below the same way: AI clients connected over OAuth,
 * SMTP, object storage and the embeddings endpoint.
 *
 * @example
 * export const webhookIntegrations: IntegrationSource = {
 *   kind: "webhook", title: "Outgoing webhook",
 *   list: async (deps, companyId) => (await subscriptionsOf(deps, companyId)).map((s) => ({
 *     ref: String(s.id), name: s.url, status: s.disabledAt ? "disabled" : "active",
 *     connectedAt: s.createdAt, revocable: true,
 *     health: { lastSuccessAt: s.lastDeliveredAt, lastErrorAt: s.lastFailedAt, lastError: s.lastError, expiresAt: null },
 *   })),
 *   revoke: async (ctx, ref) => { await disableSubscription(ctx, Number(ref)); return "disabled"; },
 * };
 *
 * @public Serves every domain that contributes connections (automations'
 * webhooks).
 */
import { and, desc, eq, inArray, isNotNull, max } from "drizzle-orm";
import type { ActorContext, Deps } from "../../core/context";
import type { IntegrationItem, IntegrationSource } from "../../mcp/define";
import { mailOutbox } from "../../core/tables";
import { liveOAuthFamilies, oauthFamilyTokens, revokeOAuthFamilyFor } from "../accounts/credentials";
import { callHealth } from "../ai/conversations";
import { integrationHealth } from "./tables";

export type { IntegrationHealth, IntegrationItem, IntegrationSource, IntegrationStatus } from "../../mcp/define";

function hostOf(url: string | null): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.hostname}${u.port ? `:${u.port}` : ""}`;
  } catch {
    return null;
  }
}

/** AI clients connected over OAuth: one per live token family reaching the company. */
export const oauthClientSource: IntegrationSource = {
  kind: "oauth_client",
  title: "AI client (OAuth)",
  async list(deps, companyId) {
    const mine = await liveOAuthFamilies(deps.db, companyId, deps.clock.now());
    const out: IntegrationItem[] = [];
    for (const { r, clientName } of mine) {
      const tokens = await oauthFamilyTokens(deps.db, r.familyId);
      const used = tokens.map((t) => t.lastUsedAt?.getTime() ?? 0).reduce((a, b) => Math.max(a, b), 0);
      const first = tokens.map((t) => t.createdAt.getTime()).reduce((a, b) => Math.min(a, b), r.createdAt.getTime());
      // Success and failure from AI history (every tool call is recorded); the token's last use when history has none.
      const h = await callHealth(
        deps,
        companyId,
        "oauth",
        tokens.map((t) => t.id),
      );
      const failed = h.lastError;
      const lastSuccessAt = h.lastSuccessAt ?? (used && !failed ? new Date(used) : null);
      const failing = h.latestFailed;
      out.push({
        ref: r.familyId,
        name: clientName ?? r.clientId,
        status: failing ? "failing" : "active",
        connectedAt: new Date(first),
        revocable: true,
        health: {
          lastSuccessAt,
          lastErrorAt: failed?.at ?? null,
          lastError: failed?.message ?? null,
          expiresAt: r.expiresAt,
        },
        detail: { clientId: r.clientId, userId: r.userId, scopes: r.scopes, companyIds: r.companyIds },
      });
    }
    return out;
  },
  async revoke(ctx, familyId) {
    return { effect: await revokeOAuthFamilyFor(ctx.deps.db, familyId, ctx.company.id, ctx.deps.clock.now()) };
  },
};

/** Outgoing mail: the server's SMTP settings, with this company's own deliveries as health. */
export const smtpSource: IntegrationSource = {
  kind: "smtp",
  title: "SMTP (outgoing mail)",
  notRevocable: "SMTP is part of the server's configuration (PLINTH_SMTP_URL); the operator changes it there.",
  async list(deps, companyId) {
    const url = deps.config.smtpUrl;
    const sent = (
      await deps.db
        .select({ at: max(mailOutbox.sentAt) })
        .from(mailOutbox)
        .where(and(eq(mailOutbox.companyId, companyId), eq(mailOutbox.status, "sent")))
    )[0]?.at;
    const failed = (
      await deps.db
        .select({ at: mailOutbox.updatedAt, why: mailOutbox.smtpResponse, status: mailOutbox.status })
        .from(mailOutbox)
        .where(
          and(
            eq(mailOutbox.companyId, companyId),
            inArray(mailOutbox.status, ["failed", "no_transport", "queued"]),
            isNotNull(mailOutbox.smtpResponse),
          ),
        )
        .orderBy(desc(mailOutbox.updatedAt))
        .limit(1)
    )[0];
    const lastSuccessAt = sent ? new Date(sent as unknown as number | Date) : null;
    const failing = !!failed && (!lastSuccessAt || failed.at.getTime() > lastSuccessAt.getTime());
    return [
      {
        ref: "server",
        name: url ? `SMTP ${hostOf(url)}` : "SMTP (not configured)",
        status: !url ? "not_configured" : failing ? "failing" : "configured",
        connectedAt: null,
        revocable: false,
        health: {
          lastSuccessAt,
          lastErrorAt: failed?.at ?? null,
          lastError: failed?.why?.slice(0, 300) ?? null,
          expiresAt: null,
        },
        detail: { host: hostOf(url), from: deps.config.mailFrom ?? null },
      },
    ];
  },
};

/** Where media bytes live; checked in the background by the integrations.storage_check job. */
export const objectStorageSource: IntegrationSource = {
  kind: "object_storage",
  title: "Object storage (media)",
  notRevocable:
    "Object storage is part of the server's configuration (PLINTH_MEDIA_STORE); the operator changes it there.",
  async list(deps) {
    const h = (
      await deps.db.select().from(integrationHealth).where(eq(integrationHealth.kind, "object_storage")).limit(1)
    )[0];
    const store = deps.config.mediaStore;
    const failing = !!h?.lastErrorAt && (!h.lastSuccessAt || h.lastErrorAt.getTime() > h.lastSuccessAt.getTime());
    const where =
      store === "s3" ? `S3 bucket ${deps.config.s3.bucket}` : store === "db" ? "the database" : "the data directory";
    return [
      {
        ref: "server",
        name: `Media in ${where}`,
        status: failing ? "failing" : "configured",
        connectedAt: null,
        revocable: false,
        health: {
          lastSuccessAt: h?.lastSuccessAt ?? null,
          lastErrorAt: h?.lastErrorAt ?? null,
          lastError: h?.lastError ?? null,
          expiresAt: null,
        },
        detail: {
          store,
          ...(store === "s3" && {
            bucket: deps.config.s3.bucket,
            endpoint: hostOf(deps.config.s3.endpoint),
            region: deps.config.s3.region,
          }),
          lastCheckedAt: h?.lastCheckedAt ?? null,
        },
      },
    ];
  },
};

/**
 * The embeddings endpoint the brain's hybrid search calls
 * (PLINTH_EMBEDDINGS_URL); its queue and failures are in
 * brain_embeddings_status.
 */
export const embeddingsSource: IntegrationSource = {
  kind: "embeddings",
  title: "Embeddings endpoint",
  notRevocable:
    "The embeddings endpoint is part of the server's configuration (PLINTH_EMBEDDINGS_URL); the operator changes it there.",
  async list(deps) {
    const url = deps.config.embeddingsUrl;
    return [
      {
        ref: "server",
        name: url ? `Embeddings ${hostOf(url)}` : "Embeddings endpoint (not configured)",
        status: url ? "configured" : "not_configured",
        connectedAt: null,
        revocable: false,
        health: { lastSuccessAt: null, lastErrorAt: null, lastError: null, expiresAt: null },
        detail: {
          host: hostOf(url),
          model: url ? deps.config.embeddingsModel : null,
          queue: "brain_embeddings_status",
        },
      },
    ];
  },
};

export const BUILT_IN_SOURCES: IntegrationSource[] = [
  oauthClientSource,
  smtpSource,
  embeddingsSource,
  objectStorageSource,
];

/**
 * Writes a small object, reads it back and removes it; records the outcome
 * for object storage's health. Media kept in the database is only read
 * (a write there would be two commits every quarter hour that prove no more
 * than the health row's own write does).
 */
export async function checkObjectStorage(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  const key = `_health/probe-${crypto.randomUUID()}`;
  let error: string | null = null;
  if (deps.config.mediaStore === "db") {
    try {
      await deps.blobs.head(key);
    } catch (e) {
      error = e instanceof Error ? e.message.slice(0, 300) : "the check failed";
    }
  } else
    try {
      const bytes = new TextEncoder().encode(`plinth storage check ${now.toISOString()}`);
      await deps.blobs.put(key, bytes, "text/plain");
      const back = await deps.blobs.head(key);
      if (!back || back.size !== bytes.length) error = "the object written could not be read back";
    } catch (e) {
      error = e instanceof Error ? e.message.slice(0, 300) : "the check failed";
    } finally {
      await deps.blobs.remove([key]).catch(() => {});
    }
  const values =
    error === null
      ? { lastCheckedAt: now, lastSuccessAt: now }
      : { lastCheckedAt: now, lastErrorAt: now, lastError: error };
  await deps.db.transaction(
    async (tx) => {
      await tx
        .insert(integrationHealth)
        .values({ kind: "object_storage", ...values })
        .onConflictDoUpdate({ target: integrationHealth.kind, set: values });
    },
    { silent: true },
  );
}
