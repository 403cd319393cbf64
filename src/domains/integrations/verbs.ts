/**
 * Listing, reading and revoking a company's integrations. Each source
 * (sources.ts, and `integrations` on other domains) says what is connected
 * now; a row in `integrations` gives each one a stable integer id the first
 * time it is seen. Revoking goes to the source, inside one transaction with
 * the audit row and the integration.revoked event.
 */
import { and, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { defineEvent, emit } from "../../core/events";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import type { IntegrationItem, IntegrationSource, IntegrationStatus } from "./sources";
import { integrations } from "./tables";

export const integrationRevoked = defineEvent({
  type: "integration.revoked",
  entity: "integration",
  description:
    "A company disconnected an integration: its kind, name, the owner's ref and what happened (revoked, company_removed, disabled).",
  payload: v.object({
    integrationId: v.number(),
    kind: v.string(),
    ref: v.string(),
    name: v.string(),
    effect: v.string(),
    revokedByUserId: v.number(),
  }),
});

interface Listed {
  id: number;
  kind: string;
  title: string;
  item: IntegrationItem;
}

function out(x: Listed) {
  const h = x.item.health;
  return {
    id: x.id,
    kind: x.kind,
    kindTitle: x.title,
    name: x.item.name,
    status: x.item.status,
    connectedAt: iso(x.item.connectedAt),
    revocable: x.item.revocable,
    health: {
      lastSuccessAt: iso(h.lastSuccessAt),
      lastErrorAt: iso(h.lastErrorAt),
      lastError: h.lastError,
      expiresAt: iso(h.expiresAt),
    },
    ...(x.item.detail && { detail: x.item.detail }),
  };
}

/** Everything connected now, each with its id (rows made for new ones). */
async function collect(ctx: ActorContext, kind?: string): Promise<Listed[]> {
  const all = ctx.deps.catalog.integrations;
  const chosen = kind ? [all.get(kind)].filter((s): s is IntegrationSource => !!s) : [...all.values()];
  const found: { source: IntegrationSource; item: IntegrationItem }[] = [];
  for (const source of chosen)
    for (const item of await source.list(ctx.deps, ctx.company.id)) found.push({ source, item });
  if (!found.length) return [];
  const key = (k: string, ref: string) => `${k}\u0000${ref}`;
  const load = async () =>
    new Map(
      (
        await ctx.deps.db
          .select()
          .from(integrations)
          .where(
            and(
              eq(integrations.companyId, ctx.company.id),
              inArray(integrations.kind, [...new Set(found.map((f) => f.source.kind))]),
            ),
          )
      ).map((r) => [key(r.kind, r.ref), r]),
    );
  let known = await load();
  const fresh = found.filter((f) => !known.has(key(f.source.kind, f.item.ref)));
  if (fresh.length) {
    const now = ctx.deps.clock.now();
    // Bookkeeping, not a change anyone made: a silent transaction; racing lists make one row (unique index).
    await ctx.deps.db.transaction(
      async (tx) => {
        await tx
          .insert(integrations)
          .values(
            fresh.map((f) => ({
              companyId: ctx.company.id,
              kind: f.source.kind,
              ref: f.item.ref,
              name: f.item.name.slice(0, 300),
              firstSeenAt: now,
            })),
          )
          .onConflictDoNothing();
      },
      { silent: true },
    );
    known = await load();
  }
  return found.map((f) => {
    const row = known.get(key(f.source.kind, f.item.ref))!;
    return { id: row.id, kind: f.source.kind, title: f.source.title, item: f.item };
  });
}

const STATUS_ORDER: Record<IntegrationStatus, number> = {
  failing: 0,
  expired: 1,
  active: 2,
  configured: 3,
  disabled: 4,
  not_configured: 5,
};

export async function listIntegrations(
  ctx: ActorContext,
  f: { kind?: string; status?: IntegrationStatus; limit: number; offset: number },
) {
  authorize(ctx, "integrations:read", { write: false });
  if (f.kind && !ctx.deps.catalog.integrations.has(f.kind))
    throw invalid(
      `Unknown kind "${f.kind.slice(0, 40)}"; kinds: ${[...ctx.deps.catalog.integrations.keys()].join(", ")}.`,
    );
  let items = await collect(ctx, f.kind);
  if (f.status) items = items.filter((x) => x.item.status === f.status);
  items.sort((a, b) => STATUS_ORDER[a.item.status] - STATUS_ORDER[b.item.status] || a.id - b.id);
  return page(items.slice(f.offset, f.offset + f.limit).map(out), items.length, f.limit, f.offset);
}

async function byId(ctx: ActorContext, id: number) {
  const row = (
    await ctx.deps.db
      .select()
      .from(integrations)
      .where(and(eq(integrations.id, id), eq(integrations.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`Integration ${id} not found in ${ctx.company.name}. List them with integrations_list.`);
  const source = ctx.deps.catalog.integrations.get(row.kind);
  const live = source ? (await collect(ctx, row.kind)).find((x) => x.id === row.id) : undefined;
  return { row, source, live };
}

export async function getIntegration(ctx: ActorContext, id: number) {
  authorize(ctx, "integrations:read", { write: false });
  const { row, source, live } = await byId(ctx, id);
  if (live) return out(live);
  // No longer connected: what we remember of it.
  return {
    id: row.id,
    kind: row.kind,
    kindTitle: source?.title ?? row.kind,
    name: row.name,
    status: row.revokedAt ? "revoked" : "gone",
    connectedAt: null,
    revocable: false,
    revokedAt: iso(row.revokedAt),
    revokedByUserId: row.revokedByUserId,
    health: null,
  };
}

export async function revokeIntegration(ctx: ActorContext, id: number) {
  authorize(ctx, "integrations:write", { write: true });
  const { row, source, live } = await byId(ctx, id);
  if (!live) {
    if (row.revokedAt) return { id: row.id, kind: row.kind, name: row.name, status: "revoked", alreadyRevoked: true };
    throw notFound(`Integration ${id} (${row.name}) is no longer connected.`);
  }
  if (!source?.revoke || !live.item.revocable)
    throw invalid(`${live.item.name} cannot be revoked here. ${source?.notRevocable ?? ""}`.trim());
  return await ctx.deps.db.transaction(async () => {
    const { effect } = await source.revoke!(ctx, row.ref);
    const now = ctx.deps.clock.now();
    await ctx.deps.db
      .update(integrations)
      .set({ revokedAt: now, revokedByUserId: ctx.principal.userId })
      .where(eq(integrations.id, row.id));
    await audit(ctx.deps.db, ctx, "integrations.revoke", {
      type: "integration",
      id: row.id,
      detail: { kind: row.kind, name: live.item.name, effect },
    });
    await emit(
      ctx.deps.db,
      ctx,
      integrationRevoked,
      { id: row.id },
      {
        integrationId: row.id,
        kind: row.kind,
        ref: row.ref,
        name: live.item.name,
        effect,
        revokedByUserId: ctx.principal.userId,
      },
    );
    return { id: row.id, kind: row.kind, name: live.item.name, status: "revoked", effect };
  });
}
