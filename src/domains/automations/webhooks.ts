/**
 * Outgoing webhooks: a company subscribes a URL to event types; every
 * matching event is delivered as a signed POST (Standard Webhooks), at
 * least once, in order per entity, with retries and a delivery log.
 *
 * - Fan-out (the `webhooks.fanout` subscriber) writes one delivery row per
 *   matching endpoint inside the dispatcher's transaction, so each event
 *   gets exactly one delivery per endpoint.
 * - The `webhooks.deliver` job sends what is due. A delivery waits while an
 *   older delivery of the same entity to the same endpoint is pending, so a
 *   receiver sees post 7's events in the order they happened. Failures are
 *   retried after 5 s, 30 s, 2 min, 10 min, 30 min, 2 h and 6 h (8 attempts,
 *   about 9 hours); then the delivery has failed for good.
 * - FAILURE_LIMIT deliveries in a row failing for good disable the endpoint
 *   (no new deliveries; pending ones wait) and notify the company's owners
 *   and admins; a success in between resets the count. Enabling it again
 *   resumes the waiting deliveries.
 * - The webhook-id header is `evt_<event id>`, the same on every retry and
 *   redelivery: receivers deduplicate with it.
 */
import { and, asc, count, desc, eq, inArray, lte, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { emit, type EventRecord, type Subscriber } from "../../core/events";
import { webhookDisabled } from "./events";
import { conflict, invalid, notFound } from "../../core/errors";
import { anyRow, type JobDef } from "../../core/jobs";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { memberships } from "../../core/tables";
import { notify } from "../notifications/notify";
import { checkTargetUrl, newSigningSecret, sendSigned, type SendOutcome } from "./outbound";
import { webhookAttempts, webhookDeliveries, webhookEndpoints } from "./tables";

export const RETRY_DELAYS_MS = [5_000, 30_000, 120_000, 600_000, 1_800_000, 7_200_000, 21_600_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
export const FAILURE_LIMIT = 5;
export const MAX_ENDPOINTS = 50;
const SEND_CONCURRENCY = 64;
const BATCH = 500;
/** How long a claimed delivery is left to its sender before another may try it. */
const CLAIM_MS = 60_000;

type Endpoint = typeof webhookEndpoints.$inferSelect;
type Delivery = typeof webhookDeliveries.$inferSelect;

// ---------------------------------------------------------------------------
// Event types an endpoint subscribes to

/** `post.published`, `post.*` or `*`, each known to some domain. */
export function checkEventTypes(ctx: ActorContext, types: string[]): string[] {
  const known = ctx.deps.catalog.events;
  const out = [...new Set(types.map((t) => t.trim()))];
  if (out.length === 0)
    throw invalid('eventTypes is empty: give event types (post.published), prefixes (post.*) or "*".');
  for (const t of out) {
    if (t === "*") continue;
    const prefix = /^([a-z][a-z0-9_]*)\.\*$/.exec(t);
    if (prefix ? ![...known.keys()].some((k) => k.startsWith(`${prefix[1]}.`)) : !known.has(t))
      throw invalid(
        `Unknown event type "${t.slice(0, 80)}". The resource automations://events lists them; e.g. post.published, order.created, card.*.`,
      );
  }
  return out;
}

export function matchesType(patterns: readonly string[], type: string): boolean {
  return patterns.some((p) => p === "*" || p === type || (p.endsWith(".*") && type.startsWith(p.slice(0, -1))));
}

// ---------------------------------------------------------------------------
// Views

function endpointView(e: Endpoint) {
  return {
    id: e.id,
    url: e.url,
    description: e.description,
    eventTypes: e.eventTypes,
    status: e.status,
    disabledReason: e.disabledReason,
    failureStreak: e.failureStreak,
    secretHint: `${e.secret.slice(0, 10)}…`,
    lastSuccessAt: iso(e.lastSuccessAt),
    lastFailureAt: iso(e.lastFailureAt),
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
  };
}

function deliveryView(d: Delivery) {
  return {
    id: d.id,
    webhookId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    entity: d.entityKey,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === "pending" ? iso(d.nextAttemptAt) : null,
    lastStatusCode: d.lastStatusCode,
    lastError: d.lastError,
    createdAt: iso(d.createdAt),
    deliveredAt: iso(d.deliveredAt),
  };
}

async function endpointFor(ctx: ActorContext, id: number): Promise<Endpoint> {
  const e = (
    await ctx.deps.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!e) throw notFound(`Webhook ${id} not found.`);
  return e;
}

// ---------------------------------------------------------------------------
// Verbs

export async function listWebhooks(
  ctx: ActorContext,
  input: { status?: "enabled" | "disabled"; limit: number; offset: number },
) {
  authorize(ctx, "automations:read", { write: false });
  const where = and(
    eq(webhookEndpoints.companyId, ctx.company.id),
    input.status ? eq(webhookEndpoints.status, input.status) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.deps.db
      .select()
      .from(webhookEndpoints)
      .where(where)
      .orderBy(asc(webhookEndpoints.id))
      .limit(input.limit)
      .offset(input.offset),
    ctx.deps.db.select({ n: count() }).from(webhookEndpoints).where(where),
  ]);
  return page(rows.map(endpointView), total!.n, input.limit, input.offset);
}

export async function getWebhook(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:read", { write: false });
  const e = await endpointFor(ctx, input.id);
  const counts = await ctx.deps.db
    .select({ status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .where(eq(webhookDeliveries.endpointId, e.id))
    .groupBy(webhookDeliveries.status);
  const deliveries = { pending: 0, succeeded: 0, failed: 0 };
  for (const c of counts) deliveries[c.status] = c.n;
  return { ...endpointView(e), deliveries };
}

export async function createWebhook(
  ctx: ActorContext,
  input: { url: string; eventTypes: string[]; description?: string | null },
) {
  authorize(ctx, "automations:write", { write: true });
  const url = checkTargetUrl(ctx.deps, input.url);
  const eventTypes = checkEventTypes(ctx, input.eventTypes);
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const [n] = await tx
      .select({ n: count() })
      .from(webhookEndpoints)
      .where(eq(webhookEndpoints.companyId, ctx.company.id));
    if (n!.n >= MAX_ENDPOINTS) throw conflict(`A company has at most ${MAX_ENDPOINTS} webhooks; delete one first.`);
    const secret = newSigningSecret();
    const row = (
      await tx
        .insert(webhookEndpoints)
        .values({
          companyId: ctx.company.id,
          url,
          eventTypes,
          description: input.description?.trim() || null,
          secret,
          status: "enabled",
          createdByUserId: ctx.principal.userId,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "webhooks.create", { type: "webhook", id: row.id, detail: { url, eventTypes } });
    return {
      id: row.id,
      url,
      eventTypes,
      status: row.status,
      secret,
      note: "Keep secret: it is shown only now. Verify webhook-signature with it (Standard Webhooks).",
    };
  });
}

export async function updateWebhook(
  ctx: ActorContext,
  input: { id: number; url?: string; eventTypes?: string[]; description?: string | null; enabled?: boolean },
) {
  authorize(ctx, "automations:write", { write: true });
  const set: Partial<Endpoint> = {};
  if (input.url !== undefined) set.url = checkTargetUrl(ctx.deps, input.url);
  if (input.eventTypes !== undefined) set.eventTypes = checkEventTypes(ctx, input.eventTypes);
  if (input.description !== undefined) set.description = input.description?.trim() || null;
  if (input.enabled !== undefined) set.status = input.enabled ? "enabled" : "disabled";
  const fields = Object.keys(set);
  if (fields.length === 0) throw invalid("Nothing to update: give url, eventTypes, description or enabled.");
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const e = await endpointFor(ctx, input.id);
    if (input.enabled === true && e.status === "disabled") {
      // Enabling starts over: a clean streak, and the deliveries that waited go out now.
      set.failureStreak = 0;
      set.disabledReason = null;
      await tx
        .update(webhookDeliveries)
        .set({ nextAttemptAt: now })
        .where(and(eq(webhookDeliveries.endpointId, e.id), eq(webhookDeliveries.status, "pending")));
    }
    if (input.enabled === false) set.disabledReason = "disabled by a person";
    const row = (
      await tx
        .update(webhookEndpoints)
        .set({ ...set, updatedAt: now })
        .where(eq(webhookEndpoints.id, e.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "webhooks.update", { type: "webhook", id: e.id, detail: { fields } });
    return { id: row.id, url: row.url, eventTypes: row.eventTypes, status: row.status };
  });
}

export async function deleteWebhook(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  return await ctx.deps.db.transaction(async (tx) => {
    const e = await endpointFor(ctx, input.id);
    await tx.delete(webhookEndpoints).where(eq(webhookEndpoints.id, e.id));
    await audit(tx, ctx, "webhooks.delete", { type: "webhook", id: e.id, detail: { url: e.url } });
    return { id: e.id, status: "deleted" };
  });
}

export async function rotateWebhookSecret(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  return await ctx.deps.db.transaction(async (tx) => {
    const e = await endpointFor(ctx, input.id);
    const secret = newSigningSecret();
    await tx
      .update(webhookEndpoints)
      .set({ secret, updatedAt: ctx.deps.clock.now() })
      .where(eq(webhookEndpoints.id, e.id));
    await audit(tx, ctx, "webhooks.rotate_secret", { type: "webhook", id: e.id });
    return {
      id: e.id,
      secret,
      note: "The old secret stops working now; deliveries from here on are signed with this one.",
    };
  });
}

export async function listDeliveries(
  ctx: ActorContext,
  input: {
    webhookId?: number;
    status?: "pending" | "succeeded" | "failed";
    eventType?: string;
    limit: number;
    offset: number;
  },
) {
  authorize(ctx, "automations:read", { write: false });
  if (input.webhookId !== undefined) await endpointFor(ctx, input.webhookId);
  const where = and(
    eq(webhookDeliveries.companyId, ctx.company.id),
    input.webhookId !== undefined ? eq(webhookDeliveries.endpointId, input.webhookId) : undefined,
    input.status ? eq(webhookDeliveries.status, input.status) : undefined,
    input.eventType ? eq(webhookDeliveries.eventType, input.eventType) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.deps.db
      .select()
      .from(webhookDeliveries)
      .where(where)
      .orderBy(desc(webhookDeliveries.id))
      .limit(input.limit)
      .offset(input.offset),
    ctx.deps.db.select({ n: count() }).from(webhookDeliveries).where(where),
  ]);
  return page(rows.map(deliveryView), total!.n, input.limit, input.offset);
}

async function deliveryFor(ctx: ActorContext, id: number): Promise<Delivery> {
  const d = (
    await ctx.deps.db
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.id, id), eq(webhookDeliveries.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!d) throw notFound(`Delivery ${id} not found.`);
  return d;
}

export async function getDelivery(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:read", { write: false });
  const d = await deliveryFor(ctx, input.id);
  const attempts = await ctx.deps.db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, d.id))
    .orderBy(asc(webhookAttempts.id));
  return {
    ...deliveryView(d),
    payload: d.payload,
    attemptLog: attempts.map((a) => ({
      at: iso(a.attemptedAt),
      statusCode: a.statusCode,
      error: a.error,
      durationMs: a.durationMs,
      responseBody: a.responseBody,
    })),
  };
}

export async function redeliver(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  return await ctx.deps.db.transaction(async (tx) => {
    const d = await deliveryFor(ctx, input.id);
    if (d.status === "pending")
      throw conflict(`Delivery ${d.id} is already pending (next attempt ${iso(d.nextAttemptAt)}).`);
    const now = ctx.deps.clock.now();
    await tx
      .update(webhookDeliveries)
      .set({ status: "pending", attempts: 0, nextAttemptAt: now, deliveredAt: null })
      .where(eq(webhookDeliveries.id, d.id));
    await audit(tx, ctx, "webhook_deliveries.redeliver", {
      type: "webhook_delivery",
      id: d.id,
      detail: { eventId: d.eventId },
    });
    return {
      id: d.id,
      status: "pending",
      note: "Queued again with a fresh set of retries; the webhook-id stays the same.",
    };
  });
}

/** Sends a signed `webhook.test` payload now and says how the receiver answered; records nothing. */
export async function testWebhook(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  const e = await endpointFor(ctx, input.id);
  const now = ctx.deps.clock.now();
  const msgId = `test_${randomHexId()}`;
  const body = JSON.stringify({
    id: msgId,
    type: "webhook.test",
    timestamp: now.toISOString(),
    companyId: ctx.company.id,
    siteId: null,
    entity: { type: "webhook", id: e.id },
    actor: null,
    data: { webhookId: e.id, message: "A test from Plinth: if you verified this signature, your receiver works." },
  });
  const o = await sendSigned(ctx.deps, { url: e.url, secret: e.secret }, msgId, body);
  return {
    id: e.id,
    ok: o.ok,
    statusCode: o.statusCode,
    error: o.error,
    durationMs: o.durationMs,
    response: o.responseBody?.slice(0, 500) ?? null,
  };
}

const randomHexId = () => crypto.randomUUID().replace(/-/g, "").slice(0, 16);

/** Delivery log retention: finished deliveries (and their attempts) older than this are deleted. */
export const DELIVERY_RETENTION_DAYS = 30;

/** Finished deliveries at least DELIVERY_RETENTION_DAYS old at `now`: what pruneDeliveries deletes (and webhooks.prune's pending check looks for). */
const oldDeliveries = (now: Date) =>
  and(
    inArray(webhookDeliveries.status, ["succeeded", "failed"]),
    lte(webhookDeliveries.createdAt, new Date(now.getTime() - DELIVERY_RETENTION_DAYS * 86_400_000)),
  );

/** The webhooks.prune job's pending check: a delivery pruneDeliveries would delete. */
export const deliveriesToPrune = (deps: Deps) =>
  anyRow(
    deps.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(oldDeliveries(deps.clock.now()))
      .limit(1),
  );

/** Deletes old finished deliveries with their attempts. The runner calls it only when deliveriesToPrune finds one. */
export async function pruneDeliveries(deps: Deps): Promise<void> {
  await deps.store.transaction((tx) => tx.delete(webhookDeliveries).where(oldDeliveries(deps.clock.now())), {
    silent: true,
  });
}

// ---------------------------------------------------------------------------
// Fan-out: events → deliveries (exactly once, in the dispatcher's transaction)

export function payloadOf(e: EventRecord) {
  return {
    id: `evt_${e.id}`,
    type: e.type,
    timestamp: e.createdAt.toISOString(),
    companyId: e.companyId,
    siteId: e.siteId,
    entity: e.entity,
    actor: e.actor,
    data: e.data,
  };
}

export const webhookFanout: Subscriber = {
  name: "webhooks.fanout",
  types: "*",
  async handle(deps, e) {
    const endpoints = await deps.db
      .select({ id: webhookEndpoints.id, eventTypes: webhookEndpoints.eventTypes })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.companyId, e.companyId), eq(webhookEndpoints.status, "enabled")));
    const hits = endpoints.filter((x) => matchesType(x.eventTypes, e.type));
    if (!hits.length) return;
    const now = deps.clock.now();
    const payload = payloadOf(e) as unknown as Record<string, unknown>;
    await deps.db
      .insert(webhookDeliveries)
      .values(
        hits.map((x) => ({
          endpointId: x.id,
          companyId: e.companyId,
          eventId: e.id,
          eventType: e.type,
          entityKey: `${e.entity.type}:${e.entity.id}`,
          payload,
          status: "pending" as const,
          attempts: 0,
          nextAttemptAt: now,
          createdAt: now,
        })),
      )
      .onConflictDoNothing();
  },
};

// ---------------------------------------------------------------------------
// Delivery

/** The deliveries due now that are first in line for their entity at their endpoint. */
async function due(deps: Deps, limit: number) {
  const older = sql`not exists (select 1 from ${webhookDeliveries} o where o.endpoint_id = ${webhookDeliveries.endpointId} and o.entity_key = ${webhookDeliveries.entityKey} and o.status = 'pending' and o.id < ${webhookDeliveries.id})`;
  return await deps.db
    .select({ d: webhookDeliveries, url: webhookEndpoints.url, secret: webhookEndpoints.secret })
    .from(webhookDeliveries)
    .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
    .where(
      and(
        eq(webhookDeliveries.status, "pending"),
        lte(webhookDeliveries.nextAttemptAt, deps.clock.now()),
        eq(webhookEndpoints.status, "enabled"),
        older,
      ),
    )
    .orderBy(asc(webhookDeliveries.id))
    .limit(limit);
}

async function pool<T, R>(items: T[], n: number, fn: (x: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(n, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        out[i] = await fn(items[i]!);
      }
    }),
  );
  return out;
}

async function admins(deps: Deps, companyId: number, also: number | null): Promise<number[]> {
  const rows = await deps.db
    .select({ u: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.companyId, companyId), inArray(memberships.role, ["owner", "admin"])));
  return [...new Set([...rows.map((r) => r.u), ...(also ? [also] : [])])];
}

/** Records one batch's outcomes: delivery rows, the attempt log, endpoint health (and disabling). */
async function record(deps: Deps, sent: { d: Delivery; o: SendOutcome }[]) {
  const now = deps.clock.now();
  await deps.store.transaction(async (tx) => {
    await tx.insert(webhookAttempts).values(
      sent.map(({ d, o }) => ({
        deliveryId: d.id,
        attemptedAt: now,
        statusCode: o.statusCode,
        error: o.error,
        responseBody: o.responseBody,
        durationMs: o.durationMs,
      })),
    );
    const ok = sent.filter((s) => s.o.ok).map((s) => s.d.id);
    if (ok.length)
      await tx
        .update(webhookDeliveries)
        .set({
          status: "succeeded",
          attempts: sql`${webhookDeliveries.attempts} + 1`,
          deliveredAt: now,
          lastStatusCode: sql`coalesce(${webhookDeliveries.lastStatusCode}, 200)`,
          lastError: null,
          nextAttemptAt: null,
        })
        .where(inArray(webhookDeliveries.id, ok));
    // Per-row codes of successes: a second narrow update keeps the batch to a few statements.
    for (const { d, o } of sent.filter((s) => s.o.ok && s.o.statusCode !== 200))
      await tx.update(webhookDeliveries).set({ lastStatusCode: o.statusCode }).where(eq(webhookDeliveries.id, d.id));
    const byEndpoint = new Map<number, { ok: number; gaveUp: number; lastError: string | null }>();
    for (const { d, o } of sent) {
      const h = byEndpoint.get(d.endpointId) ?? { ok: 0, gaveUp: 0, lastError: null };
      byEndpoint.set(d.endpointId, h);
      if (o.ok) {
        h.ok++;
        continue;
      }
      const attempts = d.attempts + 1;
      const final = attempts >= MAX_ATTEMPTS;
      if (final) h.gaveUp++;
      h.lastError = o.error;
      await tx
        .update(webhookDeliveries)
        .set({
          attempts,
          status: final ? "failed" : "pending",
          nextAttemptAt: final ? null : new Date(now.getTime() + RETRY_DELAYS_MS[attempts - 1]!),
          lastStatusCode: o.statusCode,
          lastError: o.error,
        })
        .where(eq(webhookDeliveries.id, d.id));
    }
    for (const [endpointId, h] of byEndpoint) {
      const set: Partial<Endpoint> = {};
      if (h.ok) Object.assign(set, { lastSuccessAt: now, failureStreak: 0 });
      if (h.lastError) set.lastFailureAt = now;
      if (Object.keys(set).length)
        await tx.update(webhookEndpoints).set(set).where(eq(webhookEndpoints.id, endpointId));
      if (!h.gaveUp) continue;
      const e = (
        await tx
          .update(webhookEndpoints)
          .set({ failureStreak: sql`${webhookEndpoints.failureStreak} + ${h.gaveUp}` })
          .where(eq(webhookEndpoints.id, endpointId))
          .returning()
      )[0]!;
      if (e.status !== "enabled" || e.failureStreak < FAILURE_LIMIT) continue;
      const reason =
        `${e.failureStreak} deliveries in a row failed after ${MAX_ATTEMPTS} attempts each (last: ${h.lastError ?? "unknown"})`.slice(
          0,
          500,
        );
      await tx
        .update(webhookEndpoints)
        .set({ status: "disabled", disabledReason: reason, updatedAt: now })
        .where(eq(webhookEndpoints.id, e.id));
      await emit(
        tx,
        { deps, company: { id: e.companyId } },
        webhookDisabled,
        { id: e.id },
        { webhookId: e.id, url: e.url, failureStreak: e.failureStreak, reason },
      );
      await notify(deps, {
        companyId: e.companyId,
        userIds: await admins(deps, e.companyId, e.createdByUserId),
        type: "webhook.disabled",
        title: `Webhook disabled: ${e.url.slice(0, 200)}`,
        body: `${reason}. Fix the receiver, then enable the webhook again (webhooks_update with enabled: true); deliveries waiting meanwhile go out then.`,
        link: `/webhooks/${e.id}`,
        entity: { type: "webhook", id: e.id },
      });
    }
  });
}

/** Sends everything due now (in rounds: one delivery per entity per endpoint per round). Returns how many were attempted. */
export async function deliverDue(deps: Deps): Promise<number> {
  let total = 0;
  for (;;) {
    if (deps.store.closed) return total;
    const found = await due(deps, BATCH);
    if (!found.length) return total;
    // Claim before sending: another deliverer (a second instance whose job lease lapsed) skips what this one holds,
    // and a delivery whose sender died is tried again when the claim runs out.
    const now = deps.clock.now();
    const claimed = new Set(
      (
        await deps.store.transaction(
          (tx) =>
            tx
              .update(webhookDeliveries)
              .set({ nextAttemptAt: new Date(now.getTime() + CLAIM_MS) })
              .where(
                and(
                  inArray(
                    webhookDeliveries.id,
                    found.map((r) => r.d.id),
                  ),
                  eq(webhookDeliveries.status, "pending"),
                  lte(webhookDeliveries.nextAttemptAt, now),
                ),
              )
              .returning({ id: webhookDeliveries.id }),
          { silent: true },
        )
      ).map((r) => r.id),
    );
    const rows = found.filter((r) => claimed.has(r.d.id));
    if (!rows.length) continue;
    const sent = await pool(rows, SEND_CONCURRENCY, async (r) => ({
      d: r.d,
      o: await sendSigned(
        deps,
        { url: r.url, secret: r.secret },
        String(r.d.payload.id ?? `evt_${r.d.eventId}`),
        JSON.stringify(r.d.payload),
      ),
    }));
    if (deps.store.closed) return total;
    await record(deps, sent);
    total += rows.length;
  }
}

export const pruneDeliveriesJob: JobDef = {
  name: "webhooks.prune",
  description: `Deletes finished webhook deliveries older than ${DELIVERY_RETENTION_DAYS} days.`,
  everyMs: 3_600_000,
  pending: deliveriesToPrune,
  run: pruneDeliveries,
};

export const deliverJob: JobDef = {
  name: "webhooks.deliver",
  description: "Sends outgoing webhook deliveries that are due, in order per entity, with retries.",
  everyMs: 1000,
  leaseMs: 5 * 60_000,
  pending: (deps) => anyRow(due(deps, 1)),
  run: (deps) => deliverDue(deps).then(() => undefined),
};
