/**
 * Review of brain writes (brain:approve). A write is held instead of
 * applied when the acting credential is set to review (brain_review_policies,
 * set by someone holding brain:approve), or always for a few writes people
 * get wrong and regret: deleting a document, changing a goal's or
 * initiative's owner, merging people.
 *
 * A held write is a `pending_change` approval link of the approvals domain
 * (entity type brain_record), holding the tool, its arguments and a
 * snapshot of the record as it was. So it shows in the portal's Approvals
 * inbox and on the public approval page with no change there, and approving
 * re-runs the tool as the requester inside the decision's transaction: it
 * re-validates everything, and refuses (conflict, nothing applied, the item
 * stays pending) when a field the write touches changed meanwhile. The
 * brain_reviews_* tools are the same decisions behind brain:approve.
 */
import { createTwoFilesPatch } from "diff";
import { and, eq, inArray } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { forbidden, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import {
  effectiveStatus,
  linkById,
  linkOfType,
  linksOfType,
  mintLink,
  sweepExpired,
  type ApprovalEnvelope,
  type LinkRow,
} from "../approvals/links";
import type { StagedTarget } from "../approvals/kinds";
import { approvedLinkId, isApprovedRun, stableJson, type StagedPayload } from "../approvals/staging";
import { decideInTx, toView } from "../approvals/verbs";
import type { Q, RecordRow } from "./access";
import { edgeIds } from "./links";
import { reviewPolicyChanged } from "./events";
import { brainRecords, brainReviewPolicies } from "./tables";

export const REVIEW_ENTITY = "brain_record";

export { isApprovedRun, approvedLinkId };

/** Whether the acting credential's brain writes go to review. */
export async function reviewOn(q: Q, ctx: ActorContext): Promise<boolean> {
  const c = ctx.principal.credential;
  const row = (
    await q
      .select({ review: brainReviewPolicies.review })
      .from(brainReviewPolicies)
      .where(
        and(
          eq(brainReviewPolicies.companyId, ctx.company.id),
          eq(brainReviewPolicies.credentialKind, c.kind),
          eq(brainReviewPolicies.credentialId, c.id),
        ),
      )
      .limit(1)
  )[0];
  return row?.review ?? false;
}

export interface Held {
  id?: number;
  status: "in_review";
  review: ApprovalEnvelope;
  reason: string;
  message: string;
}

/**
 * Holds a write for review when it must be, else null (apply it). `always`
 * names why this write is always reviewed; otherwise the credential's
 * policy decides. Runs in the caller's transaction, after validation.
 */
export async function holdIfNeeded(
  tx: Q,
  ctx: ActorContext,
  call: { tool: string; input: Record<string, unknown>; record: RecordRow | null; title: string; always?: string },
): Promise<Held | null> {
  if (isApprovedRun(ctx)) return null;
  if (!call.always && !(await reviewOn(tx, ctx))) return null;
  const input = Object.fromEntries(Object.entries(call.input).filter(([, x]) => x !== undefined));
  const before = call.record ? await snapshotFor(tx, call.tool, input, call.record) : null;
  const payload: StagedPayload = { tool: call.tool, input, scopes: [...ctx.principal.scopes], before };
  const review = await mintLink(tx, ctx, {
    linkType: "pending_change",
    entityType: REVIEW_ENTITY,
    entityId: call.record?.id ?? null,
    siteId: null,
    title: call.title,
    payload: payload as unknown as Record<string, unknown>,
  });
  const reason = call.always ?? "This credential's brain writes go to review.";
  return {
    ...(call.record ? { id: call.record.id } : {}),
    status: "in_review",
    review,
    reason,
    message: `Nothing changed yet: ${reason} A person with brain:approve decides it (brain_reviews_approve, the portal's Approvals inbox, or review.url).`,
  };
}

// ---------------------------------------------------------------------------
// Snapshots: the record as the reviewer saw it, keyed like the tool's arguments

/** Fields a tool argument names, read from the record now. */
export async function snapshot(q: Q, row: RecordRow): Promise<Record<string, unknown>> {
  const s: Record<string, unknown> = { title: row.title, body: row.body, version: row.version, ...row.data };
  if (row.status !== null) s.status = row.status;
  if (row.kind === "task") {
    s.assignee = row.personId;
    s.due = row.dueDate;
  }
  if (row.kind === "goal" || row.kind === "initiative") {
    s.owner = row.personId;
    s.targetDate = row.dueDate;
  }
  if (row.kind === "meeting") {
    s.at = row.at.toISOString();
    s.attendees = await edgeIds(q, row.id, "attended", true);
  }
  if (row.kind === "initiative") s.goals = await edgeIds(q, row.id, "serves", false);
  if (row.kind === "org_unit") {
    s.parent = (await edgeIds(q, row.id, "part_of", false))[0] ?? null;
    s.members = await edgeIds(q, row.id, "works_in", true);
  }
  if (row.kind === "person") s.orgUnits = await edgeIds(q, row.id, "works_in", false);
  s.topics = await edgeIds(q, row.id, "about", false);
  return s;
}

async function snapshotFor(
  q: Q,
  tool: string,
  input: Record<string, unknown>,
  row: RecordRow,
): Promise<Record<string, unknown>> {
  if (tool === "brain_people_merge") {
    // Merging compares every person involved: any of them changed since means the reviewer approved something else.
    const ids = Array.isArray(input.mergeIds)
      ? (input.mergeIds as unknown[]).filter((x): x is number => typeof x === "number")
      : [];
    const rows = ids.length
      ? await q
          .select({ id: brainRecords.id, version: brainRecords.version })
          .from(brainRecords)
          .where(and(eq(brainRecords.companyId, row.companyId), inArray(brainRecords.id, ids)))
      : [];
    return {
      ...(await snapshot(q, row)),
      mergeIds: [
        `#${row.id}@v${row.version}`,
        ...rows.sort((a, b) => a.id - b.id).map((r) => `#${r.id}@v${r.version}`),
      ],
    };
  }
  return await snapshot(q, row);
}

/** How the approvals workflow reads held brain writes: the record now, for "live → proposed" and the moved-on check. */
export function brainStagedTarget(tools: readonly string[]): StagedTarget {
  return {
    entityType: REVIEW_ENTITY,
    tools,
    async current(ctx, input) {
      const id = typeof input.id === "number" ? input.id : null;
      if (id === null) return null;
      const row = (
        await ctx.deps.db
          .select()
          .from(brainRecords)
          .where(and(eq(brainRecords.id, id), eq(brainRecords.companyId, ctx.company.id)))
          .limit(1)
      )[0];
      if (!row) return null;
      // Reads with the requester's identity but no authorization: approval runs with the requester's scopes, which a reader needs not hold.
      return await snapshotFor(ctx.deps.db, inputTool(input), input, row);
    },
  };
}

// The merge snapshot differs from the others; the target only sees the input, so mark merge inputs by their shape.
const inputTool = (input: Record<string, unknown>) => (Array.isArray(input.mergeIds) ? "brain_people_merge" : "");

// ---------------------------------------------------------------------------
// Review items

interface ReviewItem {
  id: number;
  status: string;
  tool: string | null;
  title: string | null;
  recordId: number | null;
  requestedBy: { userId: number | null; name: string | null };
  credential: { kind: string | null; name: string | null };
  createdAt: string;
  expiresAt: string;
  decidedAt: string | null;
  decidedBy: string | null;
  comment: string | null;
  lastError: string | null;
}

async function item(ctx: ActorContext, link: LinkRow): Promise<ReviewItem> {
  const v = await toView(ctx.deps, link);
  return {
    id: v.id,
    status: v.status,
    tool: v.tool,
    title: v.title,
    recordId: v.entityId,
    requestedBy: v.requestedBy,
    credential: v.credential,
    createdAt: v.createdAt,
    expiresAt: v.expiresAt,
    decidedAt: v.decidedAt,
    decidedBy: v.decidedBy,
    comment: v.comment,
    lastError: v.lastError,
  };
}

function approveAccess(ctx: ActorContext) {
  authorize(ctx, "brain:approve", { write: true });
}

async function reviewLink(ctx: ActorContext, id: number): Promise<LinkRow> {
  const link = await linkOfType(ctx.deps.db, ctx.company.id, REVIEW_ENTITY, id);
  if (!link) throw notFound(`Review ${id} not found.`);
  return link;
}

export async function listReviews(
  ctx: ActorContext,
  input: { status?: string; recordId?: number; limit: number; offset: number },
) {
  authorize(ctx, "brain:read", { write: false });
  await sweepExpired(ctx.deps.db, ctx.deps.clock.now(), ctx.company.id);
  const { rows, total } = await linksOfType(ctx.deps.db, ctx.company.id, REVIEW_ENTITY, {
    status: input.status ? (input.status as LinkRow["status"]) : undefined,
    entityId: input.recordId,
    limit: input.limit,
    offset: input.offset,
  });
  const items: ReviewItem[] = [];
  for (const r of rows) items.push(await item(ctx, r));
  return page(items, Number(total), input.limit, input.offset);
}

const show = (x: unknown): string => (x === undefined || x === null ? "" : typeof x === "string" ? x : stableJson(x));

/** One review with what it would change against the record as it is now: field rows, and a line diff for the markdown body. */
export async function getReview(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "brain:read", { write: false });
  const link = await reviewLink(ctx, input.id);
  const payload = link.payload as unknown as StagedPayload | null;
  const args = payload?.input ?? {};
  const row =
    link.entityId === null
      ? null
      : ((
          await ctx.deps.db
            .select()
            .from(brainRecords)
            .where(and(eq(brainRecords.id, link.entityId), eq(brainRecords.companyId, ctx.company.id)))
            .limit(1)
        )[0] ?? null);
  const now = row ? await snapshotFor(ctx.deps.db, payload?.tool ?? "", args, row) : null;
  const before = payload?.before ?? null;
  const changes: { field: string; current: string | null; proposed: string | null; changedSinceRequest: boolean }[] =
    [];
  let bodyDiff: string | null = null;
  const deleting = payload?.tool === "brain_records_delete";
  for (const [k, val] of Object.entries(args)) {
    if (k === "id" || k === "idempotencyKey") continue;
    const cur = now && k in now ? now[k] : undefined;
    changes.push({
      field: k,
      current: now ? (cur === undefined ? null : show(cur)) : null,
      proposed: show(val),
      changedSinceRequest: !!before && !!now && k in before && stableJson(before[k]) !== stableJson(now[k]),
    });
    if (k === "body" && typeof val === "string")
      bodyDiff = createTwoFilesPatch("current", "proposed", row?.body ?? "", val, undefined, undefined, { context: 2 });
  }
  return {
    ...(await item(ctx, link)),
    record: row
      ? { id: row.id, kind: row.kind, title: row.title, version: row.version }
      : link.entityId !== null
        ? { id: link.entityId, deleted: true }
        : null,
    versionAtRequest: before && typeof before.version === "number" ? before.version : null,
    movedOn: !!before && !!now && before.version !== now.version,
    ...(deleting ? { proposal: "delete this record" } : {}),
    changes,
    ...(bodyDiff
      ? { bodyDiff: bodyDiff.length > 20_000 ? `${bodyDiff.slice(0, 20_000)}\n… (diff truncated)` : bodyDiff }
      : {}),
  };
}

/** Agent credentials cannot decide what their own user asked for (as approvals_approve). */
const AGENT = new Set(["mcp_key", "oauth"]);

export async function decideReview(
  ctx: ActorContext,
  input: { id: number; reason?: string; comment?: string },
  decision: "approve" | "reject",
) {
  approveAccess(ctx);
  const link = await reviewLink(ctx, input.id);
  if (AGENT.has(ctx.principal.credential.kind) && link.requestedByUserId === ctx.principal.userId)
    throw forbidden(
      `You asked for this change yourself, so you cannot ${decision} it with an agent credential: another member with brain:approve, or you in the portal's Approvals inbox, decides it.`,
    );
  if (decision === "approve" && (await reviewOn(ctx.deps.db, ctx)))
    throw forbidden("This credential's own brain writes go to review, so it cannot approve reviews.");
  if (decision === "reject" && !input.reason?.trim())
    throw invalid("reason is required to reject: say what should change.");
  const who = ctx.principal.credential.name ? `${ctx.principal.credential.name}` : `user ${ctx.principal.userId}`;
  const d = {
    now: ctx.deps.clock.now(),
    decidedBy: who,
    comment: (decision === "reject" ? input.reason : input.comment) ?? null,
    userId: ctx.principal.userId,
  };
  const outcome = await ctx.deps.db.transaction(async (tx) => {
    const fresh = (await linkById(tx, link.id))!;
    return await decideInTx(tx, ctx.deps, fresh, decision, d, {
      kind: ctx.principal.credential.kind,
      id: ctx.principal.credential.id,
    });
  });
  const view = await reviewLink(ctx, input.id);
  return {
    id: input.id,
    ok: outcome.ok,
    status: effectiveStatus(view, ctx.deps.clock.now()),
    message: outcome.message,
    ...(outcome.ok ? {} : { reason: outcome.reason }),
    ...(view.result && !outcome.ok ? {} : view.result ? { result: view.result } : {}),
  };
}

// ---------------------------------------------------------------------------
// Per-credential policy

export async function getReviewPolicies(ctx: ActorContext) {
  authorize(ctx, "brain:read", { write: false });
  const rows = await ctx.deps.db
    .select()
    .from(brainReviewPolicies)
    .where(eq(brainReviewPolicies.companyId, ctx.company.id));
  return {
    thisCredential: {
      kind: ctx.principal.credential.kind,
      id: ctx.principal.credential.id,
      review: await reviewOn(ctx.deps.db, ctx),
    },
    credentials: rows.filter((r) => r.review).map((r) => ({ kind: r.credentialKind, id: r.credentialId })),
    alwaysReviewed: ["deleting a document", "changing a goal's or initiative's owner", "merging people"],
  };
}

/**
 * Sends a credential's brain writes to review, or not. Turning review on
 * for the caller's own credential needs only brain:write (an agent may
 * choose supervision); anything else needs brain:approve.
 */
export async function setReviewPolicy(
  ctx: ActorContext,
  input: { credentialKind?: "mcp_key" | "oauth"; credentialId?: number; review: boolean },
) {
  const self =
    input.credentialId === undefined ||
    (input.credentialId === ctx.principal.credential.id &&
      (input.credentialKind ?? "mcp_key") === ctx.principal.credential.kind);
  if (self && input.review) authorize(ctx, "brain:write", { write: true });
  else approveAccess(ctx);
  if (!self && (await reviewOn(ctx.deps.db, ctx)))
    throw forbidden("This credential's own brain writes go to review, so it cannot change review settings.");
  const kind = self ? ctx.principal.credential.kind : (input.credentialKind ?? "mcp_key");
  const credId = self ? ctx.principal.credential.id : input.credentialId!;
  const at = ctx.deps.clock.now();
  return await ctx.deps.db.transaction(async (tx) => {
    await tx
      .insert(brainReviewPolicies)
      .values({
        companyId: ctx.company.id,
        credentialKind: kind,
        credentialId: credId,
        review: input.review,
        updatedByUserId: ctx.principal.userId,
        updatedAt: at,
      })
      .onConflictDoUpdate({
        target: [brainReviewPolicies.companyId, brainReviewPolicies.credentialKind, brainReviewPolicies.credentialId],
        set: { review: input.review, updatedByUserId: ctx.principal.userId, updatedAt: at },
      });
    await audit(tx, ctx, "brain.review_policy.set", {
      type: "credential",
      id: credId,
      detail: { credentialKind: kind, review: input.review },
    });
    await emit(
      tx,
      ctx,
      reviewPolicyChanged,
      { id: credId },
      { credentialKind: kind, credentialId: credId, review: input.review },
    );
    return { credentialKind: kind, credentialId: credId, review: input.review };
  });
}
