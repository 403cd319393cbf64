/**
 * Automation verbs: create, update (a new version each time), delete,
 * toggle (validated again on enabling), versions and rollback, the dry run,
 * and the run history with retry from the failed step and replay on the
 * current version.
 */
import { and, asc, count, desc, eq, inArray } from "drizzle-orm";
import * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { AppError, conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { automationCreated, automationDeleted, automationUpdated } from "./events";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { randomHex } from "../../core/secrets";
import { events } from "../../core/tables";
import { allHold, assertValid, checkDefinition, conditionHolds, nextRun, render, triggerOf } from "./definition";
import { newSigningSecret } from "./outbound";
import { issuesText, prepareAction, toolCall } from "./actions";
import { assertHostAllowed, httpConfig } from "./http";
import { actorFor, cursorText, eventTrigger, masked, waitEnd, webhookFor } from "./runner";
import {
  automationRuns,
  automations,
  automationVersions,
  webhookEndpoints,
  type AutomationAction,
  type AutomationDefinition,
  type Condition,
  type RunStatus,
} from "./tables";
import type { Tx } from "../../core/db";

type Automation = typeof automations.$inferSelect;

function hookUrl(ctx: ActorContext, token: string | null) {
  return token ? `${ctx.deps.config.publicUrl.replace(/\/+$/, "")}/hooks/${token}` : null;
}

function definitionOf(a: Automation): AutomationDefinition {
  return { name: a.name, description: a.description, trigger: a.trigger, conditions: a.conditions, actions: a.actions };
}

export function automationView(ctx: ActorContext, a: Automation) {
  return {
    id: a.id,
    name: a.name,
    description: a.description,
    enabled: a.enabled,
    version: a.version,
    trigger: a.trigger,
    conditions: a.conditions,
    actions: a.actions,
    ...(a.trigger.type === "webhook" ? { hookUrl: hookUrl(ctx, a.hookToken) } : {}),
    ...(a.trigger.type === "schedule" ? { nextRunAt: iso(a.nextRunAt) } : {}),
    createdByUserId: a.createdByUserId,
    lastRunAt: iso(a.lastRunAt),
    createdAt: iso(a.createdAt),
    updatedAt: iso(a.updatedAt),
  };
}

async function automationFor(ctx: ActorContext, id: number): Promise<Automation> {
  const a = (
    await ctx.deps.db
      .select()
      .from(automations)
      .where(and(eq(automations.id, id), eq(automations.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!a) throw notFound(`Automation ${id} not found.`);
  return a;
}

async function webhookIds(ctx: ActorContext): Promise<Set<number>> {
  return new Set(
    (
      await ctx.deps.db
        .select({ id: webhookEndpoints.id })
        .from(webhookEndpoints)
        .where(eq(webhookEndpoints.companyId, ctx.company.id))
    ).map((r) => r.id),
  );
}

function normalise(d: AutomationDefinition): AutomationDefinition {
  const name = d.name.replace(/\s+/g, " ").trim();
  if (!name) throw invalid("name must not be empty.");
  const trigger = triggerOf(d.trigger as Parameters<typeof triggerOf>[0]);
  return { ...d, name, description: d.description?.trim() || null, trigger };
}

/** Columns that follow from a definition (trigger type, event type, next run, hook token). */
function derived(ctx: ActorContext, d: AutomationDefinition, current: Automation | null, enabled: boolean) {
  const t = d.trigger;
  const now = ctx.deps.clock.now();
  return {
    triggerType: t.type,
    eventType: t.type === "event" ? t.eventType : null,
    nextRunAt: t.type === "schedule" && enabled ? nextRun(t.cron, t.timeZone, now) : null,
    hookToken: t.type === "webhook" ? (current?.hookToken ?? randomHex(16)) : null,
    hookSecret: t.type === "webhook" ? (current?.hookSecret ?? newSigningSecret()) : null,
  };
}

async function nameFree(tx: Tx, companyId: number, name: string, except: number | null) {
  const other = (
    await tx
      .select({ id: automations.id })
      .from(automations)
      .where(and(eq(automations.companyId, companyId), eq(automations.name, name)))
      .limit(1)
  )[0];
  if (other && other.id !== except) throw conflict(`An automation named "${name}" already exists (id ${other.id}).`);
}

const eventSummary = (a: Automation) => ({
  automationId: a.id,
  name: a.name,
  version: a.version,
  enabled: a.enabled,
  triggerType: a.triggerType,
});

export async function createAutomation(ctx: ActorContext, input: AutomationDefinition & { enabled?: boolean }) {
  authorize(ctx, "automations:write", { write: true });
  const d = normalise(input);
  const checked = checkDefinition(ctx, d, await webhookIds(ctx));
  assertValid(checked);
  const now = ctx.deps.clock.now();
  const enabled = input.enabled ?? false;
  return await ctx.deps.db.transaction(async (tx) => {
    await nameFree(tx, ctx.company.id, d.name, null);
    const row = (
      await tx
        .insert(automations)
        .values({
          companyId: ctx.company.id,
          name: d.name,
          description: d.description,
          enabled,
          version: 1,
          trigger: d.trigger,
          conditions: d.conditions,
          actions: d.actions,
          ...derived(ctx, d, null, enabled),
          createdByUserId: ctx.principal.userId,
          credentialKind: ctx.principal.credential.kind,
          credentialId: ctx.principal.credential.id,
          scopes: ctx.principal.scopes,
          requireCmsApproval: ctx.principal.requireCmsApproval,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await tx.insert(automationVersions).values({
      automationId: row.id,
      version: 1,
      definition: d,
      note: "created",
      createdByUserId: ctx.principal.userId,
      createdAt: now,
    });
    await audit(tx, ctx, "automations.create", { type: "automation", id: row.id, detail: { name: d.name, enabled } });
    await emit(tx, ctx, automationCreated, { id: row.id }, eventSummary(row));
    return {
      id: row.id,
      name: row.name,
      enabled,
      version: 1,
      ...(row.hookToken
        ? {
            hookUrl: hookUrl(ctx, row.hookToken),
            hookSecret: row.hookSecret,
            note: "Senders sign with hookSecret (Standard Webhooks headers); it is shown only now.",
          }
        : {}),
      ...(checked.warnings.length ? { warnings: checked.warnings } : {}),
    };
  });
}

/** Saves `d` as the next version of `a`. */
async function saveVersion(ctx: ActorContext, a: Automation, d: AutomationDefinition, note: string, fields: string[]) {
  const checked = checkDefinition(ctx, d, await webhookIds(ctx));
  assertValid(checked);
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    await nameFree(tx, ctx.company.id, d.name, a.id);
    const version = a.version + 1;
    const row = (
      await tx
        .update(automations)
        .set({
          name: d.name,
          description: d.description,
          trigger: d.trigger,
          conditions: d.conditions,
          actions: d.actions,
          version,
          ...derived(ctx, d, a, a.enabled),
          updatedAt: now,
        })
        .where(and(eq(automations.id, a.id), eq(automations.version, a.version)))
        .returning()
    )[0];
    if (!row) throw conflict(`Automation ${a.id} changed meanwhile; read it again and retry.`);
    await tx.insert(automationVersions).values({
      automationId: a.id,
      version,
      definition: d,
      note,
      createdByUserId: ctx.principal.userId,
      createdAt: now,
    });
    await audit(tx, ctx, "automations.update", { type: "automation", id: a.id, detail: { version, fields, note } });
    await emit(tx, ctx, automationUpdated, { id: a.id }, { ...eventSummary(row), fields });
    return {
      id: a.id,
      name: row.name,
      enabled: row.enabled,
      version,
      ...(checked.warnings.length ? { warnings: checked.warnings } : {}),
    };
  });
}

export async function updateAutomation(ctx: ActorContext, input: Partial<AutomationDefinition> & { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  const a = await automationFor(ctx, input.id);
  const fields = (["name", "description", "trigger", "conditions", "actions"] as const).filter(
    (k) => input[k] !== undefined,
  );
  if (!fields.length) throw invalid("Nothing to update: give name, description, trigger, conditions or actions.");
  const d = normalise({
    ...definitionOf(a),
    ...Object.fromEntries(fields.map((k) => [k, input[k]])),
  } as AutomationDefinition);
  return await saveVersion(ctx, a, d, "updated", [...fields]);
}

export async function rollbackAutomation(ctx: ActorContext, input: { id: number; version: number }) {
  authorize(ctx, "automations:write", { write: true });
  const a = await automationFor(ctx, input.id);
  if (input.version === a.version) throw conflict(`Version ${input.version} is already the current one.`);
  const old = (
    await ctx.deps.db
      .select()
      .from(automationVersions)
      .where(and(eq(automationVersions.automationId, a.id), eq(automationVersions.version, input.version)))
      .limit(1)
  )[0];
  if (!old) throw notFound(`Automation ${a.id} has no version ${input.version}.`);
  return {
    ...(await saveVersion(ctx, a, old.definition, `rollback to version ${input.version}`, ["rollback"])),
    restoredFrom: input.version,
  };
}

export async function toggleAutomation(ctx: ActorContext, input: { id: number; enabled: boolean }) {
  authorize(ctx, "automations:write", { write: true });
  const a = await automationFor(ctx, input.id);
  if (a.enabled === input.enabled) return { id: a.id, enabled: a.enabled, version: a.version };
  // Enabling re-checks: a webhook deleted, a tool renamed or a scope lost since the last save.
  if (input.enabled)
    assertValid(
      checkDefinition(
        { ...ctx, principal: { ...ctx.principal, scopes: a.scopes } },
        definitionOf(a),
        await webhookIds(ctx),
      ),
    );
  const now = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    const row = (
      await tx
        .update(automations)
        .set({
          enabled: input.enabled,
          nextRunAt: derived(ctx, definitionOf(a), a, input.enabled).nextRunAt,
          updatedAt: now,
        })
        .where(eq(automations.id, a.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "automations.toggle", { type: "automation", id: a.id, detail: { enabled: input.enabled } });
    await emit(tx, ctx, automationUpdated, { id: a.id }, { ...eventSummary(row), fields: ["enabled"] });
    return {
      id: a.id,
      enabled: row.enabled,
      version: row.version,
      ...(row.nextRunAt ? { nextRunAt: iso(row.nextRunAt) } : {}),
    };
  });
}

export async function deleteAutomation(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  return await ctx.deps.db.transaction(async (tx) => {
    const a = await automationFor(ctx, input.id);
    await tx.delete(automations).where(eq(automations.id, a.id));
    await audit(tx, ctx, "automations.delete", { type: "automation", id: a.id, detail: { name: a.name } });
    await emit(tx, ctx, automationDeleted, { id: a.id }, eventSummary(a));
    return { id: a.id, status: "deleted" };
  });
}

export async function listAutomations(
  ctx: ActorContext,
  input: { enabled?: boolean; triggerType?: string; eventType?: string; limit: number; offset: number },
) {
  authorize(ctx, "automations:read", { write: false });
  const where = and(
    eq(automations.companyId, ctx.company.id),
    input.enabled !== undefined ? eq(automations.enabled, input.enabled) : undefined,
    input.triggerType ? eq(automations.triggerType, input.triggerType) : undefined,
    input.eventType ? eq(automations.eventType, input.eventType) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.deps.db
      .select()
      .from(automations)
      .where(where)
      .orderBy(asc(automations.id))
      .limit(input.limit)
      .offset(input.offset),
    ctx.deps.db.select({ n: count() }).from(automations).where(where),
  ]);
  return page(
    rows.map((a) => ({
      id: a.id,
      name: a.name,
      enabled: a.enabled,
      version: a.version,
      trigger: a.trigger,
      actions: a.actions.length,
      lastRunAt: iso(a.lastRunAt),
    })),
    total!.n,
    input.limit,
    input.offset,
  );
}

export async function getAutomation(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:read", { write: false });
  const a = await automationFor(ctx, input.id);
  const counts = await ctx.deps.db
    .select({ status: automationRuns.status, n: count() })
    .from(automationRuns)
    .where(eq(automationRuns.automationId, a.id))
    .groupBy(automationRuns.status);
  return { ...automationView(ctx, a), runs: Object.fromEntries(counts.map((c) => [c.status, c.n])) };
}

export async function listVersions(ctx: ActorContext, input: { id: number; limit: number; offset: number }) {
  authorize(ctx, "automations:read", { write: false });
  const a = await automationFor(ctx, input.id);
  const where = eq(automationVersions.automationId, a.id);
  const [rows, [total]] = await Promise.all([
    ctx.deps.db
      .select()
      .from(automationVersions)
      .where(where)
      .orderBy(desc(automationVersions.version))
      .limit(input.limit)
      .offset(input.offset),
    ctx.deps.db.select({ n: count() }).from(automationVersions).where(where),
  ]);
  return page(
    rows.map((r) => ({
      version: r.version,
      current: r.version === a.version,
      note: r.note,
      createdByUserId: r.createdByUserId,
      createdAt: iso(r.createdAt),
      definition: r.definition,
    })),
    total!.n,
    input.limit,
    input.offset,
  );
}

/**
 * The dry run: what the automation would do with a sample trigger, with
 * nothing written and nothing sent. Filters and conditions are evaluated;
 * each action's arguments are filled and checked by prepareAction as the
 * creator, the very check the runner makes before acting (and a
 * call_webhook's webhook is looked up), so a step the dry run passes is
 * refused live only for what changes in between. Later steps see
 * `steps.N.output` as null.
 */
export async function testAutomation(
  ctx: ActorContext,
  input: { id: number; eventId?: number; sample?: Record<string, unknown> },
) {
  authorize(ctx, "automations:read", { write: false });
  const a = await automationFor(ctx, input.id);
  let trigger: Record<string, unknown>;
  if (input.eventId !== undefined) {
    const e = (
      await ctx.deps.db
        .select()
        .from(events)
        .where(and(eq(events.id, input.eventId), eq(events.companyId, ctx.company.id)))
        .limit(1)
    )[0];
    if (!e) throw notFound(`Event ${input.eventId} not found (events are kept 30 days).`);
    trigger = eventTrigger({
      id: e.id,
      type: e.type,
      companyId: e.companyId,
      siteId: e.siteId,
      entity: { type: e.entityType, id: e.entityId },
      actor: null,
      data: e.data,
      createdAt: e.createdAt,
    });
  } else if (input.sample) {
    const eventType =
      a.trigger.type === "event"
        ? typeof input.sample.type === "string"
          ? input.sample.type
          : a.trigger.eventType
        : null;
    trigger = {
      kind: a.trigger.type === "event" ? "event" : a.trigger.type,
      eventType,
      companyId: ctx.company.id,
      siteId: input.sample.siteId ?? null,
      entity: input.sample.entity ?? null,
      actor: null,
      data: input.sample.data ?? input.sample,
      at: ctx.deps.clock.now().toISOString(),
    };
    const def = eventType ? ctx.deps.catalog.events.get(eventType) : undefined;
    if (def) {
      const r = v.safeParse(def.payload, trigger.data);
      if (!r.success)
        trigger.sampleWarning = `sample.data does not match ${eventType}: ${issuesText(r.issues, "data.")}.`;
    }
  } else
    throw invalid(
      "Give eventId (a recent event of this company) or sample ({ data: {...} } shaped like the trigger's event).",
    );
  const scope: Record<string, unknown> = {
    trigger,
    automation: { id: a.id, name: a.name, runId: null },
    steps: [] as unknown[],
  };
  const filters = a.trigger.type === "event" ? (a.trigger.filters ?? []) : [];
  const typeMatches =
    a.trigger.type !== "event" ||
    trigger.kind !== "event" ||
    trigger.eventType === a.trigger.eventType ||
    (a.trigger.eventType.endsWith(".*") && String(trigger.eventType).startsWith(a.trigger.eventType.slice(0, -1)));
  const filterResults = filters.map((c) => ({ ...c, holds: conditionHolds(c, scope) }));
  const conditionResults = a.conditions.map((c) => ({ ...c, holds: conditionHolds(c, scope) }));
  const wouldRun = typeMatches && allHold(filters, scope) && allHold(a.conditions, scope);
  // The checks the runner makes before each step, as the creator now (their role, their key's scopes).
  const creator = await actorFor(ctx.deps, a, 0);
  const as = typeof creator === "string" ? ctx : creator;
  type DryStep = {
    index: number;
    path?: string;
    type: string;
    input: Record<string, unknown>;
    ok: boolean;
    problems: string[];
    branch?: "then" | "else";
    conditions?: unknown[];
    wouldWaitUntil?: string;
    wouldCall?: string;
    skipped?: string;
  };
  const steps: DryStep[] = [];
  const records: Record<string, unknown>[] = [];
  const scopeSteps = () => {
    const out: unknown[] = [];
    for (const r of records) {
      if (r.path === undefined) out[r.index as number] = r;
      if (typeof r.id === "string") (out as unknown as Record<string, unknown>)[r.id] = r;
    }
    return out;
  };
  // Waits move this clock on, so a later wait says when it would end after the earlier ones.
  let now = ctx.deps.clock.now();
  const started = now;
  const walk = async (list: AutomationAction[], prefix: (number | string)[], skipped: string | null) => {
    for (const [i, step] of list.entries()) {
      const at = [...prefix, i];
      const where = {
        index: at[0] as number,
        ...(at.length > 1 ? { path: cursorText(at) } : {}),
      };
      const filled = render(step.with, scope) as Record<string, unknown>;
      const problems: string[] = [];
      const entry: DryStep = { ...where, type: step.type, input: filled, ok: true, problems };
      let output: unknown = null;
      if (step.type === "if") {
        const results = ((step.with.conditions ?? []) as Condition[]).map((c) => ({
          ...c,
          holds: conditionHolds(c, scope),
        }));
        const branch = results.every((c) => c.holds) ? "then" : "else";
        Object.assign(entry, { input: {}, conditions: results, branch });
        output = { branch };
        if (skipped) entry.skipped = skipped;
        steps.push(entry);
        records.push({ ...where, id: step.id, output });
        scope.steps = scopeSteps();
        // Both branches, in the order they are written; the one not taken is checked too, and marked skipped.
        const reason = `${cursorText(at)} would take ${branch}: ${branch === "then" ? "every condition holds" : "a condition does not hold"}.`;
        for (const b of ["then", "else"] as const)
          await walk(
            (step.with[b] ?? []) as AutomationAction[],
            [...at, b],
            b === branch ? skipped : (skipped ?? reason),
          );
        continue;
      }
      if (step.type === "wait") {
        const end = waitEnd(filled, now, started);
        const watch = filled.untilChanged as { tool?: unknown; arguments?: unknown } | undefined;
        if (watch)
          try {
            // The tool that would read the watched field, checked as the live step would call it.
            toolCall(as, String(watch.tool), watch.arguments ?? {});
          } catch (e) {
            if (!(e instanceof AppError)) throw e;
            problems.push(`wait: ${e.message}`);
          }
        if (typeof end === "string") problems.push(`wait: ${end}`);
        else if (end > now) {
          entry.wouldWaitUntil = end.toISOString();
          if (!skipped) now = end;
        }
      } else
        try {
          if (step.type === "http") entry.input = masked(step, scope);
          const p = prepareAction(as, step.type, filled, trigger);
          if (p.kind === "call_webhook") await webhookFor(ctx.deps, a.companyId, p.webhookId);
          if (p.kind === "http") {
            // Checked as the live step would be, but never called: a dry run sends nothing.
            entry.wouldCall = `${p.method} ${p.url}`;
            assertHostAllowed((await httpConfig(ctx.deps, a.companyId)).hosts, p.url);
          }
        } catch (e) {
          if (!(e instanceof AppError)) throw e;
          problems.push(e.message);
        }
      entry.ok = problems.length === 0;
      if (skipped) entry.skipped = skipped;
      steps.push(entry);
      records.push({ ...where, id: step.id, output });
      scope.steps = scopeSteps();
    }
  };
  await walk(a.actions, [], null);
  return {
    automationId: a.id,
    version: a.version,
    trigger,
    typeMatches,
    filters: filterResults,
    conditions: conditionResults,
    wouldRun,
    ...(typeof creator === "string" ? { creatorProblem: creator } : {}),
    steps,
    note: "Dry run: nothing was written or sent.",
  };
}

// ---------------------------------------------------------------------------
// Runs

type RunRow = typeof automationRuns.$inferSelect;

/** The dedupe key of a run's replay: the unique (automation, key) index lets a run be replayed once. */
const replayKey = (runId: number) => `replay:${runId}`;

function runView(r: RunRow, full: boolean, replayedBy: number | null) {
  return {
    id: r.id,
    automationId: r.automationId,
    version: r.version,
    status: r.status,
    trigger: full
      ? r.trigger
      : { kind: r.trigger.kind, eventType: r.trigger.eventType ?? null, eventId: r.trigger.eventId ?? null },
    error: r.error,
    attempts: r.attempts,
    ...(full
      ? {
          steps: r.steps,
          chain: r.chain,
          resumeAtStep: r.status === "failed" ? (r.cursor ? cursorText(r.cursor) : r.startStep) : null,
        }
      : { steps: r.steps.length }),
    ...(r.status === "waiting" ? { resumeAt: iso(r.resumeAt), waitingAt: r.cursor ? cursorText(r.cursor) : null } : {}),
    replayOf: r.replayOf,
    replayedBy,
    createdAt: iso(r.createdAt),
    startedAt: iso(r.startedAt),
    finishedAt: iso(r.finishedAt),
  };
}

/** The runs replaying `rows`, by the id of the run each replays (one query, on the dedupe index). */
async function replaysOf(ctx: ActorContext, rows: RunRow[]): Promise<Map<number, number>> {
  if (!rows.length) return new Map();
  const found = await ctx.deps.db
    .select({ id: automationRuns.id, replayOf: automationRuns.replayOf })
    .from(automationRuns)
    .where(
      and(
        eq(automationRuns.companyId, ctx.company.id),
        inArray(automationRuns.automationId, [...new Set(rows.map((r) => r.automationId))]),
        inArray(
          automationRuns.dedupeKey,
          rows.map((r) => replayKey(r.id)),
        ),
      ),
    );
  return new Map(found.map((f) => [f.replayOf!, f.id]));
}

export async function listRuns(
  ctx: ActorContext,
  input: { automationId?: number; status?: RunStatus; limit: number; offset: number },
) {
  authorize(ctx, "automations:read", { write: false });
  if (input.automationId !== undefined) await automationFor(ctx, input.automationId);
  const where = and(
    eq(automationRuns.companyId, ctx.company.id),
    input.automationId !== undefined ? eq(automationRuns.automationId, input.automationId) : undefined,
    input.status ? eq(automationRuns.status, input.status) : undefined,
  );
  const [rows, [total]] = await Promise.all([
    ctx.deps.db
      .select()
      .from(automationRuns)
      .where(where)
      .orderBy(desc(automationRuns.id))
      .limit(input.limit)
      .offset(input.offset),
    ctx.deps.db.select({ n: count() }).from(automationRuns).where(where),
  ]);
  const replays = await replaysOf(ctx, rows);
  return page(
    rows.map((r) => runView(r, false, replays.get(r.id) ?? null)),
    total!.n,
    input.limit,
    input.offset,
  );
}

async function runFor(ctx: ActorContext, id: number): Promise<RunRow> {
  const r = (
    await ctx.deps.db
      .select()
      .from(automationRuns)
      .where(and(eq(automationRuns.id, id), eq(automationRuns.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!r)
    throw notFound(`Run ${id} not found (a run goes with its automation when that is deleted, and after 90 days).`);
  return r;
}

export async function getRun(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:read", { write: false });
  const r = await runFor(ctx, input.id);
  return runView(r, true, (await replaysOf(ctx, [r])).get(r.id) ?? null);
}

export async function retryRun(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  return await ctx.deps.db.transaction(async (tx) => {
    const r = await runFor(ctx, input.id);
    if (r.status !== "failed") throw conflict(`Run ${r.id} is ${r.status}; only failed runs are retried.`);
    const a = await automationFor(ctx, r.automationId);
    if (a.version !== r.version)
      throw conflict(
        `Automation ${a.id} is at version ${a.version} now, and this run used version ${r.version}; steps may differ, so it is not resumed. Replay it on the current version instead (automation_runs_replay).`,
      );
    // The status guard makes racing retries queue the run once (the loser's update finds it queued already).
    const moved = await tx
      .update(automationRuns)
      .set({ status: "queued", error: null, finishedAt: null })
      .where(and(eq(automationRuns.id, r.id), eq(automationRuns.status, "failed")))
      .returning({ id: automationRuns.id });
    if (!moved.length) throw conflict(`Run ${r.id} was queued again meanwhile.`);
    await audit(tx, ctx, "automation_runs.retry", {
      type: "automation_run",
      id: r.id,
      detail: { fromStep: r.startStep },
    });
    return { id: r.id, status: "queued", resumeAtStep: r.cursor ? cursorText(r.cursor) : r.startStep };
  });
}

/**
 * Replay: a new run of a failed or skipped run's automation, at the
 * automation's current version, with the run's original trigger (the event
 * data as it was then), from the first step. A person asks for it, so the
 * loop-protection chain starts afresh. Each run is replayed at most once
 * (the unique dedupe key decides between racing calls); a replay that fails
 * in turn is replayed itself. Succeeded runs are not replayed: their actions
 * would happen twice.
 */
export async function replayRun(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "automations:write", { write: true });
  const r = await runFor(ctx, input.id);
  if (r.status === "queued" || r.status === "running" || r.status === "waiting")
    throw conflict(`Run ${r.id} is ${r.status}; replay it once it has finished.`);
  if (r.status === "succeeded")
    throw conflict(
      `Run ${r.id} succeeded; replaying it would do its actions again. Only failed or skipped runs are replayed.`,
    );
  // A deleted automation took its runs with it (runFor says so); a disabled one would not run its replay either.
  const a = await automationFor(ctx, r.automationId);
  if (!a.enabled)
    throw conflict(`Automation ${a.id} is disabled; enable it (automations_toggle) before replaying its runs.`);
  const taken = async () =>
    (
      await ctx.deps.db
        .select({ id: automationRuns.id })
        .from(automationRuns)
        .where(and(eq(automationRuns.automationId, a.id), eq(automationRuns.dedupeKey, replayKey(r.id))))
        .limit(1)
    )[0];
  const already = (id: number) =>
    conflict(`Run ${r.id} was already replayed as run ${id}; if that one failed too, replay run ${id}.`);
  const before = await taken();
  if (before) throw already(before.id);
  const now = ctx.deps.clock.now();
  const made = await ctx.deps.db.transaction(async (tx) => {
    const row = (
      await tx
        .insert(automationRuns)
        .values({
          automationId: a.id,
          companyId: a.companyId,
          version: a.version,
          status: "queued",
          trigger: r.trigger,
          chain: [],
          steps: [],
          dedupeKey: replayKey(r.id),
          replayOf: r.id,
          createdAt: now,
        })
        .onConflictDoNothing()
        .returning({ id: automationRuns.id })
    )[0];
    if (!row) return null;
    await tx.update(automations).set({ lastRunAt: now }).where(eq(automations.id, a.id));
    await audit(tx, ctx, "automation_runs.replay", {
      type: "automation_run",
      id: row.id,
      detail: { replayOf: r.id, automationId: a.id, version: a.version, replayedVersion: r.version },
    });
    return row.id;
  });
  if (made === null) throw already((await taken())?.id ?? 0);
  return { id: made, automationId: a.id, version: a.version, status: "queued", replayOf: r.id };
}
