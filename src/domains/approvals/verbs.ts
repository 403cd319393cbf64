/**
 * Approval verbs, shared by the MCP approvals tools, the public approval
 * page (src/approvals) and the portal inbox.
 *
 * A decision runs in one transaction: the link is re-read, must still be
 * pending and unexpired, the kind's approve (or the staged call) runs in a
 * savepoint, and the link's new state and the audit row are written with it.
 * Deciding is one-way and idempotent: a decided link is never changed again,
 * and asking again reports what already happened.
 *
 * @public Serves brain (its review queue decides links with the same verbs).
 */
import type { ApprovalLink } from "../../mcp/define";
import { and, count, desc, eq, inArray } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext, CredentialKind, Deps, Principal } from "../../core/context";
import { emit } from "../../core/events";
import { AppError, forbidden, notFound } from "../../core/errors";
import { mapSeq } from "../../core/maybe";
import { page, type Page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { auditLog, users } from "../../core/tables";
import type { Decision } from "./kinds";
import { effectiveStatus, linkByToken, sweepExpired, type LinkRow, type LinkStatus } from "./links";
import { approvalPreview, previewCss, renderApprovalPreview } from "./preview";
import { decidedByText, memberMayDecide, settingsOf, type Decider } from "./reviewers";
import { applyStagedCall, type StagedPayload } from "./staging";
import { approvalDecided } from "./events";
import { approvalLinks } from "./tables";
import type { Tx } from "../../core/db";

export { renderApprovalPreview, previewCss };

/** An approval link as tools and the portal show it. Never includes the token. */
export interface ApprovalView {
  id: number;
  linkType: "entity" | "pending_change";
  entityType: string;
  entityId: number | null;
  siteId: number | null;
  title: string | null;
  status: LinkStatus;
  requestedBy: { userId: number | null; name: string | null };
  credential: { kind: string | null; name: string | null };
  /** For staged changes: the tool that will run on approval. */
  tool: string | null;
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  comment: string | null;
  /** What approving did (e.g. the published post id), once approved. */
  result: Record<string, unknown> | null;
  /** Why the last attempt to approve could not be applied; the link stays pending. */
  lastError: string | null;
}

async function userName(db: Tx, userId: number | null): Promise<string | null> {
  if (userId === null) return null;
  const u = (
    await db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, userId)).limit(1)
  )[0];
  return u ? (u.name ?? u.email) : null;
}

export async function toView(deps: Deps, link: ApprovalLink): Promise<ApprovalView> {
  const now = deps.clock.now();
  const result = link.result ?? null;
  const lastError = result && typeof result.error === "string" && link.status === "pending" ? result.error : null;
  return {
    id: link.id,
    linkType: link.linkType,
    entityType: link.entityType,
    entityId: link.entityId,
    siteId: link.siteId,
    title: link.title,
    status: effectiveStatus(link, now),
    requestedBy: { userId: link.requestedByUserId, name: await userName(deps.db, link.requestedByUserId) },
    credential: { kind: link.credentialKind, name: link.credentialName },
    tool: link.linkType === "pending_change" ? ((link.payload as unknown as StagedPayload | null)?.tool ?? null) : null,
    createdAt: iso(link.createdAt)!,
    expiresAt: iso(link.expiresAt)!,
    decidedAt: iso(link.decidedAt),
    decidedBy: link.decidedBy,
    comment: link.comment,
    result: lastError ? null : result,
    lastError,
  };
}

export interface ListApprovalsInput {
  status?: LinkStatus;
  entityType?: string;
  linkType?: "entity" | "pending_change";
  siteId?: number;
  limit: number;
  offset: number;
}

export async function listApprovals(ctx: ActorContext, input: ListApprovalsInput): Promise<Page<ApprovalView>> {
  authorize(ctx, "approvals:read", { write: false });
  const { db, clock } = ctx.deps;
  await sweepExpired(db, clock.now(), ctx.company.id);
  const conds = [eq(approvalLinks.companyId, ctx.company.id)];
  if (input.status) conds.push(eq(approvalLinks.status, input.status));
  if (input.entityType) conds.push(eq(approvalLinks.entityType, input.entityType));
  if (input.linkType) conds.push(eq(approvalLinks.linkType, input.linkType));
  if (input.siteId !== undefined) {
    // A site of another company answers exactly like one that does not exist.
    const site = await ctx.deps.catalog.approvalSupport.site(db, ctx.company.id, input.siteId);
    if (!site) throw notFound(`Site ${input.siteId} not found in ${ctx.company.name}.`);
    conds.push(eq(approvalLinks.siteId, site.id));
  }
  const where = and(...conds);
  const total = (await db.select({ n: count() }).from(approvalLinks).where(where).limit(1))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(approvalLinks)
    .where(where)
    .orderBy(desc(approvalLinks.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(await mapSeq(rows, (r) => toView(ctx.deps, r)), total, input.limit, input.offset);
}

async function linkInCompany(ctx: ActorContext, id: number): Promise<LinkRow> {
  const link = (
    await ctx.deps.db
      .select()
      .from(approvalLinks)
      .where(and(eq(approvalLinks.id, id), eq(approvalLinks.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!link) throw notFound(`Approval ${id} not found in ${ctx.company.name}.`);
  return link;
}

/** One link with what it proposes (summary, facts, changes; the rendered HTML on request). */
export async function getApproval(ctx: ActorContext, id: number, opts: { html?: boolean } = {}) {
  authorize(ctx, "approvals:read", { write: false });
  const link = await linkInCompany(ctx, id);
  const p = await approvalPreview(ctx.deps, link);
  return {
    ...(await toView(ctx.deps, link)),
    proposal: p ? { title: p.title, summary: p.summary, facts: p.facts, changes: p.changes } : null,
    ...(opts.html ? { html: await renderApprovalPreview(ctx.deps, link) } : {}),
  };
}

/** The link a token names (for the public page); null for unknown or malformed tokens. */
export async function approvalByToken(deps: Deps, token: string): Promise<LinkRow | null> {
  const link = await linkByToken(deps.db, token);
  if (link && effectiveStatus(link, deps.clock.now()) === "expired" && link.status === "pending") {
    await deps.db.update(approvalLinks).set({ status: "expired" }).where(eq(approvalLinks.id, link.id));
    return { ...link, status: "expired" };
  }
  return link;
}

export type DecisionKind = "approve" | "reject";

export type DecisionOutcome =
  | { ok: true; decision: DecisionKind; approval: ApprovalView; message: string }
  | {
      ok: false;
      /** already_decided: approved/rejected before; conflict: approving could not be applied (still pending). */
      reason: "already_decided" | "expired" | "superseded" | "withdrawn" | "conflict";
      approval: ApprovalView;
      message: string;
    };

export type DecisionTarget = { token: string } | { ctx: ActorContext; id: number };

function notPendingMessage(
  link: ApprovalLink,
  status: LinkStatus,
): { reason: Exclude<DecisionOutcome, { ok: true }>["reason"]; message: string } {
  const when = link.decidedAt ? ` on ${iso(link.decidedAt)}` : "";
  const by = link.decidedBy ? ` by ${link.decidedBy}` : "";
  switch (status) {
    case "approved":
      return {
        reason: "already_decided",
        message: `This request was already approved${when}${by}. Nothing was changed.`,
      };
    case "rejected":
      return {
        reason: "already_decided",
        message: `This request was already rejected${when}${by}. Nothing was changed.`,
      };
    case "expired":
      return {
        reason: "expired",
        message: `This request expired on ${iso(link.expiresAt)}. The author can send a fresh link by updating the item again.`,
      };
    case "superseded":
      return { reason: "superseded", message: "This request was replaced by a newer version. Use the newest link." };
    default:
      return { reason: "withdrawn", message: "This request was withdrawn: the item it was about was deleted." };
  }
}

/**
 * Decides a link inside `tx`. Exported for the staged-call path, which
 * approves the entity link its own tool call minted together with it.
 */
export async function decideInTx(
  tx: Tx,
  deps: Deps,
  link: ApprovalLink,
  decision: DecisionKind,
  d: Decision,
  actor: { kind: string; id: number } | null,
): Promise<DecisionOutcome> {
  const status = effectiveStatus(link, d.now);
  if (status !== "pending") {
    if (status === "expired" && link.status === "pending")
      await tx.update(approvalLinks).set({ status: "expired" }).where(eq(approvalLinks.id, link.id));
    const { reason, message } = notPendingMessage(link, status);
    return { ok: false, reason, message, approval: await toView(deps, { ...link, status }) };
  }
  let result: Record<string, unknown> = {};
  if (decision === "approve") {
    try {
      // A savepoint: a proposal that no longer fits rolls back alone, and the
      // failure is recorded on the still-pending link for the reviewer.
      result = await tx.transaction((sp) => applyApproval(sp, deps, link, d));
    } catch (e) {
      if (!(e instanceof AppError) || e.code === "internal") throw e;
      await tx
        .update(approvalLinks)
        .set({ result: { error: e.message, at: iso(d.now) } })
        .where(eq(approvalLinks.id, link.id));
      return {
        ok: false,
        reason: "conflict",
        message: `This request could not be applied: ${e.message}`,
        approval: await toView(deps, { ...link, result: { error: e.message } }),
      };
    }
  } else if (link.linkType === "entity") {
    const kind = deps.catalog.approvalKinds.get(link.entityType);
    await kind?.reject(tx, deps, link, d);
  }
  const next = decision === "approve" ? "approved" : "rejected";
  const comment = d.comment?.trim() ? d.comment.trim().slice(0, 2000) : null;
  const how = {
    decidedVia: d.via ?? (d.userId !== null ? "member" : "link"),
    decidedByUserId: d.userId,
    decidedByEmail: d.via === "reviewer" ? (d.email ?? null) : null,
  } as const;
  await tx
    .update(approvalLinks)
    .set({ status: next, decidedAt: d.now, decidedBy: d.decidedBy.slice(0, 200), ...how, comment, result })
    .where(and(eq(approvalLinks.id, link.id), eq(approvalLinks.status, "pending")));
  await tx.insert(auditLog).values({
    companyId: link.companyId,
    siteId: link.siteId,
    userId: d.userId,
    credentialKind: actor?.kind ?? "approval_link",
    credentialId: actor?.id ?? link.id,
    action: decision === "approve" ? "approvals.approve" : "approvals.reject",
    entityType: link.entityType,
    entityId: link.entityId,
    detail: {
      approvalId: link.id,
      linkType: link.linkType,
      decidedBy: d.decidedBy,
      decidedVia: how.decidedVia,
      ...(how.decidedByEmail ? { reviewer: how.decidedByEmail } : {}),
      ...(comment ? { comment } : {}),
    },
    createdAt: d.now,
  });
  // The decider, when a person signed in or an agent decided; a visitor on the public page is nobody in particular.
  const principal: Principal | null =
    d.userId === null
      ? null
      : {
          userId: d.userId,
          credential: { kind: (actor?.kind ?? "session") as CredentialKind, id: actor?.id ?? 0, name: "" },
          scopes: [],
          companies: [],
          requireCmsApproval: false,
        };
  await emit(
    tx,
    { deps, company: { id: link.companyId }, principal },
    approvalDecided,
    { id: link.id, siteId: link.siteId },
    {
      approvalId: link.id,
      linkType: link.linkType,
      entityType: link.entityType,
      entityId: link.entityId,
      title: link.title,
      requestedByUserId: link.requestedByUserId,
      decision: next,
      decidedBy: d.decidedBy.slice(0, 200),
      comment,
    },
  );
  const updated: ApprovalLink = {
    ...link,
    status: next,
    decidedAt: d.now,
    decidedBy: d.decidedBy,
    ...how,
    comment,
    result,
  };
  return {
    ok: true,
    decision,
    approval: await toView(deps, updated),
    message: decision === "approve" ? "Approved: the change is live." : "Rejected: nothing was published or changed.",
  };
}

async function applyApproval(tx: Tx, deps: Deps, link: ApprovalLink, d: Decision): Promise<Record<string, unknown>> {
  if (link.linkType === "entity") {
    const kind = deps.catalog.approvalKinds.get(link.entityType);
    if (!kind) throw new AppError("conflict", `No approval handler for ${link.entityType}.`);
    return await kind.approve(tx, deps, link, d);
  }
  const { tool, result } = await applyStagedCall(tx, deps, link);
  const out: Record<string, unknown> = { applied: tool.name };
  const r = (result ?? {}) as Record<string, unknown>;
  for (const k of ["id", "slug", "status"]) if (k in r) out[k] = r[k];
  // A staged call to an approval-gated tool (posts_create …) minted its own
  // entity link; the reviewer just approved exactly that proposal, so it is
  // approved with it rather than sent for a second review.
  const minted = r.approval as { id?: unknown } | undefined;
  if (tool.approval && minted && typeof minted.id === "number") {
    const inner = (await tx.select().from(approvalLinks).where(eq(approvalLinks.id, minted.id)).limit(1))[0];
    if (inner) {
      const o = await decideInTx(
        tx,
        deps,
        inner,
        "approve",
        { ...d, comment: `Approved with staged change #${link.id}` },
        null,
      );
      if (!o.ok) throw new AppError("conflict", o.message);
      out.status = (o.approval.result?.status as string | undefined) ?? out.status;
      out.approvalId = inner.id;
    }
  }
  return out;
}

/**
 * Approve or reject a link, by its token (the public page) or by id for an
 * actor (the approvals tools and the portal inbox).
 *
 * By token, `decider` says who the page established is deciding
 * (reviewers.ts: a member signed in, a reviewer who redeemed a code, or a
 * link holder, the default); the page applies the company's policy before
 * calling, and a member is checked again here. `decidedBy`, the line
 * people read, is derived from the decider unless given.
 *
 * @example
 *   decideApproval(deps, { token }, "approve", { decider: { via: "reviewer", email: "ana@client.example" } })
 *   decideApproval(deps, { ctx, id: 7 }, "reject", { comment: "Wrong tone", decidedBy: "Ana Ruiz (member)" })
 */
export async function decideApproval(
  deps: Deps,
  target: DecisionTarget,
  decision: DecisionKind,
  opts: { comment?: string | null; decidedBy?: string; decider?: Decider },
): Promise<DecisionOutcome> {
  let link: ApprovalLink | null;
  let actor: { kind: string; id: number } | null = null;
  let userId: number | null = null;
  let decider: Decider = opts.decider ?? { via: "link" };
  if ("token" in target) {
    link = await linkByToken(deps.db, target.token);
    if (!link) throw notFound("This approval link is not valid.");
    if (decider.via === "member") {
      const check = await memberMayDecide(deps.db, link, decider.userId);
      if (!check.ok) throw forbidden(MEMBER_REFUSALS[check.reason]);
      actor = { kind: "session", id: 0 };
      userId = decider.userId;
    }
  } else {
    const { ctx } = target;
    authorize(ctx, "approvals:manage", { write: true });
    link = await linkInCompany(ctx, target.id);
    // The promise of interface.md §1: a person decides what an agent drafted.
    // An agent credential (API key or OAuth token) of the user who asked
    // cannot decide it, whichever of their credentials it is; that person
    // decides on the approval page or in the portal's inbox, or another
    // member with approvals:manage decides over MCP.
    if (AGENT_CREDENTIALS.has(ctx.principal.credential.kind) && link.requestedByUserId === ctx.principal.userId)
      throw forbidden(
        `You asked for this change yourself, so you cannot ${decision} it over MCP: a person decides it on the approval page ` +
          `(the link's url) or in the portal's Approvals inbox, or another member with approvals:manage decides it here.`,
      );
    // Signed in, the person who asked still does not decide their own
    // request while the company's policy is `person` (issue 30).
    if (
      !AGENT_CREDENTIALS.has(ctx.principal.credential.kind) &&
      link.requestedByUserId === ctx.principal.userId &&
      (await settingsOf(deps.db, link.companyId)).policy === "person"
    )
      throw forbidden(MEMBER_REFUSALS.requester);
    if (decision === "approve" && ctx.principal.requireCmsApproval)
      throw forbidden("This credential's own changes need approval, so it cannot approve requests.");
    actor = { kind: ctx.principal.credential.kind, id: ctx.principal.credential.id };
    userId = ctx.principal.userId;
    decider = { via: "member", userId: ctx.principal.userId, name: "" };
  }
  const found = link;
  const d: Decision = {
    now: deps.clock.now(),
    decidedBy: opts.decidedBy ?? decidedByText(decider),
    comment: opts.comment ?? null,
    userId,
    via: decider.via,
    email: decider.via === "reviewer" ? decider.email : null,
  };
  return deps.db.transaction(async (tx) => {
    // Re-read inside the transaction: two clicks must not both see "pending".
    const fresh = (await tx.select().from(approvalLinks).where(eq(approvalLinks.id, found.id)).limit(1))[0]!;
    return await decideInTx(tx as unknown as Tx, deps, fresh, decision, d, actor);
  });
}

/** Why a member may not decide a link, as the page and the inbox say it. */
export const MEMBER_REFUSALS = {
  requester:
    "You asked for this change yourself, so another person decides it: another owner or admin, or a reviewer your company lists.",
  role: "Only owners and admins of this company can approve or reject its requests.",
  not_member: "You are not a member of the company this request belongs to.",
} as const;

/** Credentials an agent acts through; a portal session is the person themself. */
const AGENT_CREDENTIALS: ReadonlySet<string> = new Set(["mcp_key", "oauth"]);

/** Open links of a company, counted by type: for badges in the portal. */
export async function countPending(ctx: ActorContext): Promise<number> {
  authorize(ctx, "approvals:read", { write: false });
  await sweepExpired(ctx.deps.db, ctx.deps.clock.now(), ctx.company.id);
  return (
    (
      await ctx.deps.db
        .select({ n: count() })
        .from(approvalLinks)
        .where(and(eq(approvalLinks.companyId, ctx.company.id), inArray(approvalLinks.status, ["pending"])))
        .limit(1)
    )[0]?.n ?? 0
  );
}
