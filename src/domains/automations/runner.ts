/**
 * How automations run.
 *
 * - Triggers make runs: the `automations.trigger` subscriber (event
 *   triggers, in the dispatcher's transaction: exactly one run per event and
 *   automation), the `automations.schedule` job (cron triggers; intervals
 *   missed while the server was down fold into one run), and the public
 *   /hooks/<token> endpoint (signed incoming webhooks).
 * - The `automations.run` job executes queued runs: conditions, then each
 *   step in order, recording every step's input, output and error. An `if`
 *   step records the branch it took and runs that list; a `wait` step
 *   stores the run as "waiting" with resume_at and a cursor (where in the
 *   nested steps it stopped), and the same job claims it again once the
 *   time has come: the claim is a status-guarded update, so of several
 *   instances exactly one resumes it, and a restart loses nothing. A
 *   failed step stops the run; automation_runs_retry queues it again from
 *   that step, reusing the outputs of the steps before it.
 * - Actions act for the automation's creator with the creator's rights as
 *   they are at run time: their role in the company now, their API key's
 *   scopes now (a revoked key stops the automation), the credential's
 *   require_cms_approval. Tools that draft for approval still return an
 *   approval link and make nothing live. The credential is recorded as
 *   kind "automation" with the run's id, so audit rows and events name the
 *   run, and loop protection can follow an event back to the run that
 *   caused it.
 * - Loop protection: an event caused by a run may trigger other
 *   automations up to a chain of MAX_CHAIN runs, and never the same
 *   automation twice in one chain; what is stopped is recorded as a skipped
 *   run saying why.
 */
import { and, asc, eq, inArray, isNotNull, lt, lte, or, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext, CompanyAccess, Deps, Principal } from "../../core/context";
import { AppError } from "../../core/errors";
import { emit, type EventRecord, type Subscriber } from "../../core/events";
import { automationRunFailed } from "./events";
import { anyRow, type JobDef } from "../../core/jobs";
import { queueMail } from "../../core/mail";
import type { Role } from "../../core/roles";
import { companies, memberships } from "../../core/tables";
import { mcpKeyState } from "../accounts/credentials";
import { meter } from "../ai/meter";
import type { ToolDef } from "../../mcp/define";
import { shouldStage, stageToolCall } from "../approvals/staging";
import { notifyDetailed } from "../notifications/notify";
import { allHold, conditionHolds, getPath, nextRun, render } from "./definition";
import { durationMs, MAX_WAIT_DAYS, prepareAction, toolCall, WATCH_MINUTES } from "./actions";
import { assertHostAllowed, httpConfig, MASK } from "./http";
import { HTTP_BODY_MAX, httpCall, sendSigned } from "./outbound";
import {
  automationRuns,
  automations,
  automationVersions,
  webhookEndpoints,
  type AutomationAction,
  type Condition,
  type StepRecord,
} from "./tables";

export const MAX_CHAIN = 3;
const LEASE_MS = 10 * 60_000;
const OUTPUT_MAX = 8000;
const RUNS_PER_JOB = 100;

type Automation = typeof automations.$inferSelect;
type Run = typeof automationRuns.$inferSelect;

export function matchType(pattern: string, type: string) {
  return pattern === type || (pattern.endsWith(".*") && type.startsWith(pattern.slice(0, -1)));
}

/** What templates and conditions read for an event. */
export function eventTrigger(
  e: Pick<EventRecord, "id" | "type" | "companyId" | "siteId" | "entity" | "actor" | "data" | "createdAt">,
) {
  return {
    kind: "event",
    eventId: e.id,
    eventType: e.type,
    companyId: e.companyId,
    siteId: e.siteId,
    entity: e.entity,
    actor: e.actor,
    data: e.data,
    at: e.createdAt.toISOString(),
  };
}

// ---------------------------------------------------------------------------
// Making runs

async function insertRun(
  deps: Deps,
  a: Automation,
  trigger: Record<string, unknown>,
  chain: number[],
  skip: string | null,
) {
  const now = deps.clock.now();
  const [r] = await deps.db
    .insert(automationRuns)
    .values({
      automationId: a.id,
      companyId: a.companyId,
      version: a.version,
      status: skip ? "skipped" : "queued",
      trigger,
      chain,
      steps: [],
      error: skip,
      createdAt: now,
      finishedAt: skip ? now : null,
    })
    .returning({ id: automationRuns.id });
  await deps.db.update(automations).set({ lastRunAt: now }).where(eq(automations.id, a.id));
  return r!.id;
}

export const automationTrigger: Subscriber = {
  name: "automations.trigger",
  types: "*",
  async handle(deps, e) {
    const list = await deps.db
      .select()
      .from(automations)
      .where(
        and(
          eq(automations.companyId, e.companyId),
          eq(automations.enabled, true),
          eq(automations.triggerType, "event"),
        ),
      );
    const hits = list.filter((a) => a.trigger.type === "event" && matchType(a.trigger.eventType, e.type));
    if (!hits.length) return;
    let chain: number[] = [];
    // The run that caused this event: the actor of its actions, or the run whose failure it reports.
    const parentRunId =
      e.actor?.credentialKind === "automation" && e.actor.credentialId !== null
        ? e.actor.credentialId
        : e.type === "automation.run_failed" && typeof e.data.runId === "number"
          ? e.data.runId
          : null;
    if (parentRunId !== null) {
      const parent = (
        await deps.db
          .select({ automationId: automationRuns.automationId, chain: automationRuns.chain })
          .from(automationRuns)
          .where(eq(automationRuns.id, parentRunId))
          .limit(1)
      )[0];
      if (parent) chain = [...parent.chain, parent.automationId];
    }
    const trigger = eventTrigger(e);
    for (const a of hits) {
      const scope = { trigger, automation: { id: a.id, name: a.name } };
      if (a.trigger.type === "event" && !allHold(a.trigger.filters ?? [], scope)) continue;
      const loop = chain.includes(a.id)
        ? `Loop protection: this event was caused by this automation's own run (chain ${[...chain, a.id].join(" → ")}), so it did not run again.`
        : chain.length >= MAX_CHAIN
          ? `Loop protection: ${chain.length} automations in a row led to this event (${chain.join(" → ")}); at most ${MAX_CHAIN} may chain.`
          : null;
      await insertRun(deps, a, trigger, chain, loop);
    }
  },
};

/** Scheduled automations whose time has come (what runSchedules starts and scheduleJob's pending check looks for). */
const dueSchedules = (now: Date) =>
  and(
    eq(automations.enabled, true),
    eq(automations.triggerType, "schedule"),
    isNotNull(automations.nextRunAt),
    lte(automations.nextRunAt, now),
  );

export async function runSchedules(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = await deps.db.select().from(automations).where(dueSchedules(now));
  for (const a of due) {
    if (a.trigger.type !== "schedule") continue;
    const t = a.trigger;
    await deps.store.transaction(async () => {
      // Only the instance that moves next_run_at on makes the run.
      const moved = await deps.db
        .update(automations)
        .set({ nextRunAt: nextRun(t.cron, t.timeZone, now) })
        .where(and(eq(automations.id, a.id), eq(automations.nextRunAt, a.nextRunAt!)))
        .returning({ id: automations.id });
      if (moved.length)
        await insertRun(
          deps,
          a,
          { kind: "schedule", scheduledFor: a.nextRunAt!.toISOString(), at: now.toISOString(), data: {} },
          [],
          null,
        );
    });
  }
  return due.length;
}

// ---------------------------------------------------------------------------
// Acting for the creator

/** The creator as an actor now, or the reason the automation cannot act (the dry run asks it too). */
export async function actorFor(deps: Deps, a: Automation, runId: number): Promise<ActorContext | string> {
  const company = (
    await deps.db
      .select({ id: companies.id, name: companies.name })
      .from(companies)
      .where(eq(companies.id, a.companyId))
      .limit(1)
  )[0];
  const m = (
    await deps.db
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.companyId, a.companyId), eq(memberships.userId, a.createdByUserId)))
      .limit(1)
  )[0];
  if (!company || !m)
    return "The person who created this automation is no longer a member of the company; it cannot act for them.";
  let scopes = a.scopes;
  if (a.credentialKind === "mcp_key") {
    const key = await mcpKeyState(deps.db, a.credentialId);
    if (!key || key.revokedAt)
      return "The API key this automation was created with has been revoked; recreate the automation with a live credential.";
    scopes = key.scopes;
  }
  const access: CompanyAccess = { id: company.id, name: company.name, role: m.role };
  const principal: Principal = {
    userId: a.createdByUserId,
    credential: { kind: "automation", id: runId, name: `Automation “${a.name}”` },
    scopes,
    companies: [access],
    requireCmsApproval: a.requireCmsApproval,
  };
  return { deps, principal, company: access, requestId: `automation-run-${runId}` };
}

function clip(x: unknown, max = OUTPUT_MAX): unknown {
  const s = JSON.stringify(x ?? null);
  if (s.length <= max) return x ?? null;
  return { truncated: true, json: s.slice(0, max) };
}

/** Any {{secrets.NAME}} reads as MASK: how run history and the dry run show an http step's headers. */
export function masked(step: AutomationAction, scope: Record<string, unknown>): Record<string, unknown> {
  return render(step.with, { ...scope, secrets: new Proxy({}, { get: () => MASK }) }) as Record<string, unknown>;
}

/** An http step's input with its headers' {{secrets.NAME}} filled; a name the company has not stored fails the step. */
export async function withSecrets(
  deps: Deps,
  companyId: number,
  step: AutomationAction,
  scope: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const input = render(step.with, scope) as Record<string, unknown>;
  const headers = step.with.headers;
  if (!headers || typeof headers !== "object" || !/\{\{\s*secrets\./.test(JSON.stringify(headers))) return input;
  const { secrets } = await httpConfig(deps, companyId, true);
  for (const m of JSON.stringify(headers).matchAll(/\{\{\s*secrets\.([A-Za-z0-9_]+)\s*\}\}/g))
    if (!(m[1]! in secrets))
      throw new AppError("validation", `http: there is no secret "${m[1]}" (automation_http_set stores it).`);
  return { ...input, headers: render(headers, { ...scope, secrets }) };
}

/** Calls a registered tool as `ctx`, the way the MCP endpoint would after authentication. */
export async function callToolAs(ctx: ActorContext, name: string, args: unknown): Promise<unknown> {
  return await runPrepared(ctx, toolCall(ctx, name, args));
}

async function runPrepared(ctx: ActorContext, p: { tool: ToolDef; input: unknown }): Promise<unknown> {
  if (shouldStage(ctx, p.tool)) return await stageToolCall(ctx, p.tool, p.input);
  return await p.tool.run(ctx, p.input as never);
}

/** The company's webhook a call_webhook action posts to, or why it cannot (the runner and the dry run ask alike). */
export async function webhookFor(deps: Deps, companyId: number, id: number) {
  const e = (
    await deps.db
      .select()
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.id, id), eq(webhookEndpoints.companyId, companyId)))
      .limit(1)
  )[0];
  if (!e) throw new AppError("not_found", `Webhook ${id} not found.`);
  if (e.status !== "enabled") throw new AppError("conflict", `Webhook ${id} is disabled.`);
  return e;
}

/** One action: its input (templates filled) checked by prepareAction, then done. Throws on failure. */
export async function runAction(
  ctx: ActorContext,
  a: Automation,
  runId: number,
  action: AutomationAction,
  input: Record<string, unknown>,
  trigger: Record<string, unknown> | null = null,
): Promise<unknown> {
  const deps = ctx.deps;
  const p = prepareAction(ctx, action.type, input, trigger);
  switch (p.kind) {
    case "tool":
      return await runPrepared(ctx, p);
    case "send_email": {
      const { to, subject, text } = p;
      return await deps.store.transaction(async (tx) => {
        // Metered per recipient like any email send; a refusal fails the step with nothing queued.
        const paid = await meter(
          tx,
          deps,
          a.companyId,
          "email.send",
          to.length,
          `automation_run:${runId}`,
          ctx.principal.userId,
        );
        const m = await queueMail(tx, deps, { companyId: a.companyId, to, subject, text, tag: `automation.${a.id}` });
        await audit(tx, ctx, "automations.send_email", {
          type: "automation",
          id: a.id,
          detail: { runId, to, subject },
        });
        // The step's output says what it cost a metered company, as a paid tool's result does.
        return { mailId: m.id, to, subject, ...(paid ? { credits: paid.credits } : {}) };
      });
    }
    case "notify": {
      let userIds = p.userIds;
      if (p.roles.length) {
        const rows = await deps.db
          .select({ u: memberships.userId })
          .from(memberships)
          .where(and(eq(memberships.companyId, a.companyId), inArray(memberships.role, p.roles as Role[])));
        userIds = [...userIds, ...rows.map((r) => r.u)];
      }
      const r = await deps.store.transaction(() =>
        notifyDetailed(deps, {
          companyId: a.companyId,
          userIds,
          type: "automation.message",
          title: p.title,
          body: p.body,
          link: p.link,
          entity: { type: "automation", id: a.id },
        }),
      );
      return { notified: r.userIds, skipped: r.skipped };
    }
    case "http": {
      assertHostAllowed((await httpConfig(deps, a.companyId)).hosts, p.url);
      const r = await httpCall(deps, p);
      return { status: r.status, headers: r.headers, body: r.body, truncated: r.truncated, durationMs: r.durationMs };
    }
    case "call_webhook": {
      const e = await webhookFor(deps, a.companyId, p.webhookId);
      const body = JSON.stringify({
        id: `run_${runId}_${a.id}`,
        type: "automation.call",
        timestamp: deps.clock.now().toISOString(),
        automationId: a.id,
        runId,
        data: p.body,
      });
      const o = await sendSigned(deps, { url: e.url, secret: e.secret }, `run_${runId}`, body);
      if (!o.ok) throw new AppError("conflict", `The webhook answered ${o.error ?? "with an error"}.`);
      return { statusCode: o.statusCode, durationMs: o.durationMs, response: o.responseBody?.slice(0, 500) ?? null };
    }
  }
}

// ---------------------------------------------------------------------------
// Executing runs

function errorText(e: unknown): string {
  return (e instanceof Error ? e.message : String(e)).slice(0, 2000);
}

/** A step's place: top-level index, then branch name and index for each `if` it is inside. */
type Cursor = (number | string)[];

/** How a cursor is written in run history and messages: `actions[1].with.then[0]`. */
export function cursorText(c: Cursor): string {
  let out = "actions";
  for (const k of c) out += typeof k === "number" ? `[${k}]` : `.with.${k}`;
  return out;
}

/** What `{{steps.…}}` reads: top-level steps by index, any step by its id. */
function stepsScope(records: StepRecord[]): unknown[] {
  const out: unknown[] = [];
  for (const r of records) {
    if (r.path === undefined) out[r.index] = r;
    if (r.id !== undefined) (out as unknown as Record<string, unknown>)[r.id] = r;
  }
  return out;
}

/** The step definitions of the version a run started with (a waiting run finishes the steps it began). */
async function actionsOf(deps: Deps, a: Automation, run: Run): Promise<AutomationAction[]> {
  if (a.version === run.version) return a.actions;
  const old = (
    await deps.db
      .select({ definition: automationVersions.definition })
      .from(automationVersions)
      .where(and(eq(automationVersions.automationId, a.id), eq(automationVersions.version, run.version)))
      .limit(1)
  )[0];
  return old?.definition.actions ?? a.actions;
}

/** When a wait step ends: `for` from now, or `until` filled from the scope; or why it cannot wait. */
export function waitEnd(input: Record<string, unknown>, now: Date, started: Date): Date | string {
  if (input.for !== undefined || input.untilChanged !== undefined) {
    const ms = durationMs(input.for ?? (input.untilChanged as { timeout?: unknown }).timeout);
    return ms === null
      ? `with.for must be a duration such as "2d"; got ${JSON.stringify(input.for ?? null)}`
      : new Date(now.getTime() + ms);
  }
  const at = typeof input.until === "string" ? Date.parse(input.until) : Number.NaN;
  if (Number.isNaN(at))
    return `with.until must be an ISO 8601 time; got ${JSON.stringify(input.until ?? null)?.slice(0, 200)}`;
  if (at > started.getTime() + MAX_WAIT_DAYS * 86_400_000)
    return `with.until is more than ${MAX_WAIT_DAYS} days after the run started (${new Date(at).toISOString()}).`;
  return new Date(at);
}

export async function executeRun(deps: Deps, run: Run): Promise<void> {
  const a = (await deps.db.select().from(automations).where(eq(automations.id, run.automationId)).limit(1))[0];
  const finish = async (set: Partial<Run>) => {
    await deps.db
      .update(automationRuns)
      .set({ leaseUntil: null, resumeAt: null, finishedAt: deps.clock.now(), ...set })
      .where(eq(automationRuns.id, run.id));
  };
  if (!a) return;
  if (run.cursor && !a.enabled)
    return await finish({ status: "skipped", error: "The automation was disabled while the run waited." });
  const actor = await actorFor(deps, a, run.id);
  if (typeof actor === "string") return await finish({ status: "failed", error: actor });
  // A retry drops the failed step's record and does that step again; a resumed wait keeps its record to close it.
  const steps: StepRecord[] = run.steps.filter((x) => x.status !== "failed");
  const scope: Record<string, unknown> = {
    trigger: run.trigger,
    automation: { id: a.id, name: a.name, runId: run.id },
    steps: stepsScope(steps),
  };
  if (run.startStep === 0 && !run.cursor && !allHold(a.conditions, scope))
    return await finish({ status: "skipped", error: "Conditions not met.", steps: [] });
  const actions = await actionsOf(deps, a, run);
  const started = run.createdAt;
  const record = (r: StepRecord) => {
    steps.push(r);
    scope.steps = stepsScope(steps);
  };
  const fail = async (r: StepRecord, at: Cursor) => {
    const nested = at.length > 1;
    const where = nested ? cursorText(at) : String(at[0]);
    const error = r.error!;
    return await deps.store.transaction(async () => {
      await finish({
        status: "failed",
        steps,
        startStep: at[0] as number,
        cursor: nested ? at : null,
        error: `Step ${where} (${r.type}) failed: ${error}`,
      });
      await emit(
        deps.db,
        { deps, company: { id: a.companyId } },
        automationRunFailed,
        { id: a.id },
        { automationId: a.id, name: a.name, runId: run.id, step: at[0] as number, error },
      );
      await notifyDetailed(deps, {
        companyId: a.companyId,
        userIds: [a.createdByUserId],
        type: "automation.failed",
        title: `Automation “${a.name.slice(0, 200)}” failed at step ${where} (${r.type})`,
        body: `${error}\nRetry it from that step with automation_runs_retry (run ${run.id}), or replay it on the automation's current version with automation_runs_replay.`,
        link: `/automations/${a.id}/runs/${run.id}`,
        entity: { type: "automation_run", id: run.id },
      });
    });
  };

  /** Runs `list` from `resume` (a cursor inside it) or its start; says whether the run goes on. */
  const walk = async (list: AutomationAction[], prefix: Cursor, resume: Cursor | null): Promise<"done" | "stopped"> => {
    const first = resume?.length ? (resume[0] as number) : 0;
    for (let i = first; i < list.length; i++) {
      const step = list[i]!;
      const at = [...prefix, i];
      const inner = i === first && resume ? resume.slice(1) : null;
      const base = {
        index: at[0] as number,
        ...(at.length > 1 ? { path: cursorText(at) } : {}),
        ...(step.id !== undefined ? { id: step.id } : {}),
        type: step.type,
      };
      const startedAt = deps.clock.now().toISOString();
      if (step.type === "if") {
        let branch: "then" | "else";
        let rest: Cursor | null = null;
        if (inner && inner.length >= 2) {
          // Resuming inside a branch: the branch already chosen, not chosen again.
          branch = inner[0] as "then" | "else";
          rest = inner.slice(1);
        } else {
          const conditions = (step.with.conditions ?? []) as Condition[];
          const results = conditions.map((c) => ({ ...c, holds: conditionHolds(c, scope) }));
          branch = results.every((c) => c.holds) ? "then" : "else";
          record({
            ...base,
            status: "succeeded",
            branch,
            input: clip({ conditions: results }),
            output: { branch },
            error: null,
            startedAt,
            finishedAt: startedAt,
          });
        }
        const sub = (step.with[branch] ?? []) as AutomationAction[];
        if ((await walk(sub, [...at, branch], rest)) === "stopped") return "stopped";
      } else if (step.type === "wait") {
        const open =
          inner?.length === 0
            ? steps.find((x) => x.status === "waiting" && x.path === base.path && x.index === base.index)
            : undefined;
        const now = deps.clock.now();
        const watch = step.with.untilChanged
          ? (render(step.with.untilChanged, scope) as { tool: string; arguments?: unknown; path: string })
          : null;
        // An untilChanged wait reads its field with the creator's rights; null when the answer lacks it.
        const read = async () =>
          getPath(await callToolAs(actor, watch!.tool, watch!.arguments ?? {}), watch!.path) ?? null;
        const park = async (until: Date) => {
          // Persisted: whichever instance's job claims it once the time has come resumes it here.
          await deps.db
            .update(automationRuns)
            .set({
              status: "waiting",
              steps,
              startStep: at[0] as number,
              cursor: at,
              resumeAt: until,
              leaseUntil: null,
            })
            .where(eq(automationRuns.id, run.id));
          return "stopped" as const;
        };
        const failWith = async (r: StepRecord, error: string) => {
          Object.assign(r, { status: "failed", error, finishedAt: now.toISOString() });
          await fail(r, at);
          return "stopped" as const;
        };
        const nextLook = (end: number) => new Date(Math.min(now.getTime() + WATCH_MINUTES * 60_000, end));
        if (open) {
          if (watch) {
            let value: unknown;
            try {
              value = await read();
            } catch (e) {
              return await failWith(open, errorText(e));
            }
            const baseline = (open.output as { baseline?: unknown } | null)?.baseline ?? null;
            const changed = JSON.stringify(value) !== JSON.stringify(baseline);
            const end = Date.parse(open.waitUntil!);
            if (!changed && now.getTime() < end) return await park(nextLook(end));
            open.output = {
              changed,
              from: baseline,
              to: value,
              waitedUntil: open.waitUntil,
              endedAt: now.toISOString(),
            };
          } else open.output = { waitedUntil: open.waitUntil, endedAt: now.toISOString() };
          // The wait this run was resumed for: it ends now.
          open.status = "succeeded";
          open.finishedAt = now.toISOString();
          scope.steps = stepsScope(steps);
        } else {
          const input = render(step.with, scope) as Record<string, unknown>;
          const end = waitEnd(input, now, started);
          const r: StepRecord = {
            ...base,
            status: "waiting",
            input: clip(input),
            output: null,
            error: null,
            ...(typeof end === "string" ? {} : { waitUntil: end.toISOString() }),
            startedAt,
            finishedAt: null,
          };
          record(r);
          if (typeof end === "string") return await failWith(r, end);
          if (watch) {
            try {
              r.output = { baseline: await read() };
            } catch (e) {
              return await failWith(r, errorText(e));
            }
            return await park(nextLook(end.getTime()));
          }
          if (end > now) return await park(end);
          Object.assign(r, {
            status: "succeeded",
            output: { waitedUntil: end.toISOString(), endedAt: startedAt },
            finishedAt: startedAt,
          });
        }
      } else {
        let input = render(step.with, scope) as Record<string, unknown>;
        // What history keeps: an http step's headers with •••• for its secrets (the filled ones go out only).
        const shown = step.type === "http" ? masked(step, scope) : input;
        try {
          if (step.type === "http") input = await withSecrets(deps, a.companyId, step, scope);
          const raw = await runAction(actor, a, run.id, step, input, run.trigger);
          const output = step.type === "http" ? clip(raw, HTTP_BODY_MAX + 8000) : clip(raw);
          record({
            ...base,
            status: "succeeded",
            input: clip(shown),
            output,
            error: null,
            startedAt,
            finishedAt: deps.clock.now().toISOString(),
          });
        } catch (e) {
          const r: StepRecord = {
            ...base,
            status: "failed",
            input: clip(shown),
            output: null,
            error: errorText(e),
            startedAt,
            finishedAt: deps.clock.now().toISOString(),
          };
          record(r);
          await fail(r, at);
          return "stopped";
        }
      }
      await deps.db
        .update(automationRuns)
        .set(at.length === 1 ? { steps, startStep: i + 1 } : { steps })
        .where(eq(automationRuns.id, run.id));
    }
    return "done";
  };
  const resume = run.cursor ?? (run.startStep ? [run.startStep] : null);
  if ((await walk(actions, [], resume)) === "done")
    await finish({ status: "succeeded", steps, error: null, cursor: null });
}

/** Claims and executes queued runs; runs whose instance died mid-way are marked failed (retry resumes them). */
/** Runs whose instance died mid-run: runQueued marks them failed. */
const staleRuns = (now: Date) => and(eq(automationRuns.status, "running"), lt(automationRuns.leaseUntil, now));
const queuedRuns = eq(automationRuns.status, "queued");
/** Waiting runs whose time has come: the job claims each once (status guard), whichever instance gets there first. */
const dueWaits = (now: Date) =>
  and(eq(automationRuns.status, "waiting"), isNotNull(automationRuns.resumeAt), lte(automationRuns.resumeAt, now));

export async function runQueued(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const stale = staleRuns(now);
  // Read first: an idle job writes nothing (no commit, no change-feed noise).
  if ((await deps.db.select({ id: automationRuns.id }).from(automationRuns).where(stale).limit(1)).length)
    await deps.db
      .update(automationRuns)
      .set({
        status: "failed",
        error: "Interrupted (the server stopped mid-run); retry to resume from the step that was running.",
        leaseUntil: null,
        finishedAt: now,
      })
      .where(stale);
  let n = 0;
  while (n < RUNS_PER_JOB && !deps.store.closed) {
    const next = (
      await deps.db
        .select({ id: automationRuns.id, status: automationRuns.status })
        .from(automationRuns)
        .where(or(queuedRuns, dueWaits(deps.clock.now())))
        .orderBy(asc(automationRuns.id))
        .limit(1)
    )[0];
    if (!next) break;
    const lease = new Date(deps.clock.now().getTime() + LEASE_MS);
    // A resumed wait is the same attempt going on: its start time and attempt count stay.
    const claimed = (
      next.status === "waiting"
        ? await deps.db
            .update(automationRuns)
            .set({ status: "running", resumeAt: null, leaseUntil: lease })
            .where(and(eq(automationRuns.id, next.id), dueWaits(deps.clock.now())))
            .returning()
        : await deps.db
            .update(automationRuns)
            .set({
              status: "running",
              attempts: sql`${automationRuns.attempts} + 1`,
              startedAt: deps.clock.now(),
              leaseUntil: lease,
              error: null,
            })
            .where(and(eq(automationRuns.id, next.id), eq(automationRuns.status, "queued")))
            .returning()
    )[0];
    if (!claimed) continue;
    try {
      await executeRun(deps, claimed);
    } catch (e) {
      await deps.db
        .update(automationRuns)
        .set({ status: "failed", error: errorText(e), leaseUntil: null, finishedAt: deps.clock.now() })
        .where(eq(automationRuns.id, claimed.id));
    }
    n++;
  }
  return n;
}

export const runJob: JobDef = {
  name: "automations.run",
  description: "Executes queued automation runs and resumes waits that are over, as each automation's creator.",
  everyMs: 1000,
  pending: (deps) =>
    anyRow(
      deps.db
        .select({ id: automationRuns.id })
        .from(automationRuns)
        .where(or(queuedRuns, staleRuns(deps.clock.now()), dueWaits(deps.clock.now())))
        .limit(1),
    ),
  run: (deps) => runQueued(deps).then(() => undefined),
};

/** Run history retention: finished runs older than this are deleted. */
export const RUN_RETENTION_DAYS = 90;

/** Finished runs at least RUN_RETENTION_DAYS old at `now`: what automations.prune deletes (and its pending check looks for). */
const oldRuns = (now: Date) =>
  and(
    inArray(automationRuns.status, ["succeeded", "failed", "skipped"]),
    lte(automationRuns.createdAt, new Date(now.getTime() - RUN_RETENTION_DAYS * 86_400_000)),
  );

export const pruneRunsJob: JobDef = {
  name: "automations.prune",
  description: `Deletes finished automation runs older than ${RUN_RETENTION_DAYS} days.`,
  everyMs: 3_600_000,
  pending: (deps) =>
    anyRow(deps.db.select({ id: automationRuns.id }).from(automationRuns).where(oldRuns(deps.clock.now())).limit(1)),
  async run(deps) {
    await deps.store.transaction((tx) => tx.delete(automationRuns).where(oldRuns(deps.clock.now())), { silent: true });
  },
};

export const scheduleJob: JobDef = {
  name: "automations.schedule",
  description: "Starts scheduled automations whose cron time has come (missed times fold into one run).",
  everyMs: 1000,
  pending: (deps) =>
    anyRow(deps.db.select({ id: automations.id }).from(automations).where(dueSchedules(deps.clock.now())).limit(1)),
  run: (deps) => runSchedules(deps).then(() => undefined),
};
