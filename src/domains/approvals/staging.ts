/**
 * require_cms_approval: a credential with that flag has every write the
 * public would see staged as a pending change instead of applied: the
 * tools whose `supervision` is "staged" (every sites:write / media:write
 * write, and those that declare `supervised: "staged"`: branding, the
 * store's catalogue and settings, survey and booking availability, sends).
 *
 * Staging a call:
 *  1. dry-runs the tool inside a transaction that is always rolled back, so
 *     the agent learns now (not at approval time) that its call is invalid;
 *  2. snapshots the record the call would change (a StagedTarget), for the
 *     reviewer's "live → proposed" view and to detect that it moved on;
 *  3. mints a pending_change link holding the tool name, the validated
 *     arguments and the credential's scopes.
 * Approving re-runs the tool (applyStagedCall) with the requester's identity
 * and live role, inside the decision transaction.
 *
 * Both runs happen inside a store transaction, so everything the tool's
 * verbs do (their own transactions become savepoints) commits or rolls back
 * with it.
 *
 * The same kind of link holds changes that take live content down
 * (unpublishing or deleting a published post, withdrawing or deleting an
 * active product): the verb itself calls holdForApproval instead of
 * applying, whoever calls it, and applying re-runs the tool with
 * isApprovedRun true, so the verb then does what was approved.
 *
 * @public Serves the domains whose writes may be held for approval (cms,
 * decks, store, bookings, brain, automations).
 */
import type { ApprovalLink } from "../../mcp/define";
import { and, eq } from "drizzle-orm";
import * as v from "valibot";
import type { ActorContext, Deps } from "../../core/context";
import type { Db, Tx } from "../../core/db";
import { conflict } from "../../core/errors";
import { companies, memberships } from "../../core/tables";
import type { ToolDef } from "../../mcp/define";
import { mintLink, type ApprovalEnvelope, type LinkRow } from "./links";

/** Writes of these scopes are staged unless the tool says otherwise (ToolDef.supervised). */
export const STAGED_SCOPES: ReadonlySet<string> = new Set(["sites:write", "media:write"]);

/**
 * How a person stays in the loop for this tool: "staged" (a
 * require_cms_approval credential's call waits for approval), "gated" (the
 * verb asks for approval whoever calls), or null (read-only, or nothing the
 * public sees). The tool's own `supervised` first; else sites:write and
 * media:write writes are staged, and tools drafting for approval are gated.
 * The one rule: shouldStage, docs/approvals.md and the registry test read it.
 */
export function supervision(tool: ToolDef): "staged" | "gated" | null {
  if (tool.readOnly) return null;
  if (tool.supervised) return tool.supervised;
  if (tool.scope !== null && STAGED_SCOPES.has(tool.scope)) return "staged";
  return tool.approval ? "gated" : null;
}

/** True when this call must be staged rather than run. */
export function shouldStage(ctx: ActorContext, tool: ToolDef): boolean {
  return ctx.principal.requireCmsApproval && supervision(tool) === "staged";
}

/** What a staged link stores in its payload. */
export interface StagedPayload {
  tool: string;
  input: Record<string, unknown>;
  scopes: string[];
  /** The target record as it was when the call was staged; null when the call creates something. */
  before: Record<string, unknown> | null;
  /** Why it was held: the credential's require_cms_approval (absent, the default), or because it takes live content down. */
  reason?: "live_content";
}

// Dry runs are marked on their Deps object, which every verb reaches through
// ctx.deps: verbs with side effects outside the database (media files) skip
// them when the surrounding transaction is going to be rolled back anyway.
const dryRunDeps = new WeakSet<object>();

/** True while a staged call is being dry-run: do not touch anything outside the database. */
export function isDryRun(ctx: { deps: Deps }): boolean {
  return dryRunDeps.has(ctx.deps);
}

// Runs of a call a person approved are marked the same way (with the link
// being applied): a verb that holds live changes for approval applies them
// when this is true.
const approvedDeps = new WeakMap<object, number>();

/** True while a call a person approved is being applied: do what it asks, do not hold it again. */
export function isApprovedRun(ctx: { deps: Deps }): boolean {
  return approvedDeps.has(ctx.deps);
}

/** The link being applied in an approved run (so withdrawing an entity's open links leaves that one to its decision), else null. */
export function approvedLinkId(ctx: { deps: Deps }): number | null {
  return approvedDeps.get(ctx.deps) ?? null;
}

class DryRunRollback extends Error {}

function withDb(ctx: ActorContext, tx: unknown, extra: Partial<Deps> = {}): ActorContext {
  return { ...ctx, deps: { ...ctx.deps, db: tx as Db, ...extra } };
}

async function dryRun(ctx: ActorContext, tool: ToolDef, input: Record<string, unknown>) {
  try {
    await ctx.deps.db.transaction(async (tx) => {
      const c = withDb(ctx, tx);
      c.principal = { ...ctx.principal, requireCmsApproval: false };
      dryRunDeps.add(c.deps);
      await tool.run(c, input);
      throw new DryRunRollback();
    });
  } catch (e) {
    if (e instanceof DryRunRollback) return;
    throw e;
  }
}

/** "Delete post #12", "Upload media: logo.png": what the reviewer sees as the request's title. */
function stagedTitle(tool: ToolDef, input: Record<string, unknown>): string {
  const name = tool.title ?? tool.name.replace(/_/g, " ").replace(/^./, (c) => c.toUpperCase());
  for (const k of ["title", "name", "label", "filename", "key", "hostname"]) {
    const val = input[k];
    if (typeof val === "string" && val.trim()) return `${name}: ${val.trim().slice(0, 200)}`;
  }
  if (typeof input.id === "number") return `${name} #${input.id}`;
  return name;
}

/** Records the call as a pending_change approval link and returns the tool result to send back. */
export async function stageToolCall(ctx: ActorContext, tool: ToolDef, input: unknown): Promise<unknown> {
  const args = (input ?? {}) as Record<string, unknown>;
  await dryRun(ctx, tool, args);
  const target = ctx.deps.catalog.stagedTargets.get(tool.name);
  const before = target ? await target.current(ctx, args) : null;
  const id = typeof args.id === "number" ? args.id : null;
  const payload: StagedPayload = { tool: tool.name, input: args, scopes: [...ctx.principal.scopes], before };
  const approval = await ctx.deps.db.transaction(
    async (tx) =>
      await mintLink(tx, ctx, {
        linkType: "pending_change",
        entityType: target?.entityType ?? tool.approval ?? tool.toolset,
        entityId: id,
        siteId: typeof args.siteId === "number" ? args.siteId : null,
        title: stagedTitle(tool, args),
        payload: payload as unknown as Record<string, unknown>,
      }),
  );
  return {
    ...(id !== null ? { id } : {}),
    status: "staged",
    staged: { tool: tool.name },
    approval,
    message:
      "Nothing was changed yet: this credential's changes need a person's approval. Share approval.url with a reviewer; " +
      "the change is applied when they approve it.",
  };
}

/**
 * Holds a change to live content for a person's approval instead of
 * applying it: the verb of `tool`, called with `input` (exactly its tool's
 * arguments), found that it would take something live down. Mints a
 * pending_change link in the caller's transaction, with the target's
 * snapshot for the moved-on check; approving re-runs the tool as the
 * requester (isApprovedRun is then true, and the verb applies it).
 *
 * @example
 *   if (post.published && !isApprovedRun(ctx))
 *     return { id, slug, status: post.status, approval: await holdForApproval(ctx, { tool: "posts_delete", input, … }) };
 */
export async function holdForApproval(
  ctx: ActorContext,
  call: { tool: string; input: Record<string, unknown>; entityId: number; siteId: number; title: string },
): Promise<ApprovalEnvelope> {
  const input = Object.fromEntries(Object.entries(call.input).filter(([, x]) => x !== undefined));
  const target = ctx.deps.catalog.stagedTargets.get(call.tool);
  const before = target ? await target.current(ctx, input) : null;
  const payload: StagedPayload = {
    tool: call.tool,
    input,
    scopes: [...ctx.principal.scopes],
    before,
    reason: "live_content",
  };
  return await mintLink(ctx.deps.db, ctx, {
    linkType: "pending_change",
    entityType: target?.entityType ?? ctx.deps.catalog.tools.get(call.tool)?.toolset ?? "change",
    entityId: call.entityId,
    siteId: call.siteId,
    title: call.title,
    payload: payload as unknown as Record<string, unknown>,
  });
}

/** Stable JSON: equal values give equal strings whatever their key order. */
export function stableJson(x: unknown): string {
  if (Array.isArray(x)) return `[${x.map(stableJson).join(",")}]`;
  if (x && typeof x === "object" && !(x instanceof Date)) {
    const o = x as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(x instanceof Date ? x.toISOString() : x) ?? "null";
}

/**
 * The fields whose live value must still be what the reviewer saw: those the
 * call sets; for a call that sets none (a delete, a move), the whole record.
 */
function comparedFields(input: Record<string, unknown>, before: Record<string, unknown>): string[] {
  const touched = Object.keys(input).filter((k) => k !== "siteId" && k !== "id" && Object.hasOwn(before, k));
  return touched.length > 0 ? touched : Object.keys(before);
}

/**
 * The requester of a staged link as an actor, with their live role. Refuses
 * when they left the company, or when the API key they used was revoked
 * (a revoked key's queued changes must not go live).
 */
export async function actorFromLink(tx: Tx, deps: Deps, link: ApprovalLink, scopes: string[]): Promise<ActorContext> {
  const company = (await tx.select().from(companies).where(eq(companies.id, link.companyId)).limit(1))[0];
  const member =
    link.requestedByUserId === null
      ? undefined
      : (
          await tx
            .select({ role: memberships.role })
            .from(memberships)
            .where(and(eq(memberships.companyId, link.companyId), eq(memberships.userId, link.requestedByUserId)))
            .limit(1)
        )[0];
  if (!company || !member || link.requestedByUserId === null)
    throw conflict(
      "The person who requested this change is no longer a member of the company, so it cannot be applied.",
    );
  if (
    link.credentialKind !== null &&
    link.credentialId !== null &&
    (await deps.catalog.approvalSupport.credentialRevoked(tx, link.credentialKind, link.credentialId))
  )
    throw conflict("The API key that requested this change has been revoked, so it cannot be applied.");
  const access = { id: company.id, name: company.name, role: member.role };
  return {
    deps: { ...deps, db: tx as unknown as Db },
    principal: {
      userId: link.requestedByUserId,
      credential: {
        kind: (link.credentialKind ?? "approval_link") as ActorContext["principal"]["credential"]["kind"],
        id: link.credentialId ?? 0,
        name: link.credentialName ?? "",
      },
      scopes,
      companies: [access],
      requireCmsApproval: false,
    },
    company: access,
    requestId: `approval-${link.id}`,
  };
}

/**
 * Applies a staged call inside the decision transaction `tx`: re-validates
 * the arguments, checks its target did not change since it was staged, and
 * re-runs the tool as the requester. Throws AppError when it no longer fits.
 */
export async function applyStagedCall(
  tx: Tx,
  deps: Deps,
  link: ApprovalLink,
): Promise<{ tool: ToolDef; result: unknown }> {
  const payload = link.payload as unknown as StagedPayload | null;
  const tool = payload ? deps.catalog.tools.get(payload.tool) : undefined;
  if (!payload || !tool)
    throw conflict("This change refers to an operation that no longer exists, so it cannot be applied.");
  const parsed = v.safeParse(tool.input, payload.input);
  if (!parsed.success)
    throw conflict(`This change is no longer valid: ${parsed.issues[0]?.message ?? "invalid arguments"}.`);
  const ctx = await actorFromLink(tx, deps, link, payload.scopes);
  approvedDeps.set(ctx.deps, link.id);
  const target = deps.catalog.stagedTargets.get(tool.name);
  if (target && payload.before) {
    const before = payload.before;
    const now = await target.current(ctx, parsed.output as Record<string, unknown>);
    if (!now) throw conflict("What this change applies to no longer exists.");
    const changed = comparedFields(payload.input, before).filter((k) => stableJson(now[k]) !== stableJson(before[k]));
    if (changed.length > 0) {
      throw conflict(
        `What this change applies to was modified after the change was requested (${changed.slice(0, 5).join(", ")} changed); ` +
          "it was not applied blindly. Reject it and ask for a fresh request.",
      );
    }
  }
  return { tool, result: await tool.run(ctx, parsed.output) };
}
