/** MCP tools of the approvals domain: read the state of approval links, and decide them. */
import * as v from "valibot";
import type { ActorContext } from "../../core/context";
import { AppError, conflict } from "../../core/errors";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { approvalEvents } from "./events";
import { LINK_STATUSES } from "./links";
import { decideApproval, getApproval, listApprovals, type DecisionKind } from "./verbs";
import { idSchema } from "../../core/fields";

const comment = v.optional(v.pipe(v.string(), v.maxLength(2000)));

const approvalsList = defineTool({
  name: "approvals_list",
  toolset: "approvals",
  scope: "approvals:read",
  readOnly: true,
  title: "List approval requests",
  description:
    "List the company's approval links, newest first: pending drafts and past decisions. Filter by status, entityType, linkType (entity, pending_change) or siteId. Tokens are never shown again.",
  input: v.object({
    status: v.optional(v.picklist(LINK_STATUSES)),
    entityType: v.optional(v.pipe(v.string(), v.maxLength(64))),
    linkType: v.optional(v.picklist(["entity", "pending_change"])),
    siteId: v.optional(idSchema),
    ...pageInput,
  }),
  run: async (ctx, input) => await listApprovals(ctx, input),
});

const approvalsGet = defineTool({
  name: "approvals_get",
  toolset: "approvals",
  scope: "approvals:read",
  readOnly: true,
  title: "Get an approval request",
  description:
    "One approval link by id: what it proposes (preview facts and changes), its state, who asked and who decided.",
  input: v.object({ id: idSchema, include: v.optional(v.array(v.picklist(["html"]))) }),
  run: async (ctx, input) => await getApproval(ctx, input.id, { html: input.include?.includes("html") }),
});

async function decide(ctx: ActorContext, input: { id: number; comment?: string }, decision: DecisionKind) {
  const who = `${ctx.principal.credential.name || ctx.principal.credential.kind} (user ${ctx.principal.userId})`;
  const out = await decideApproval(ctx.deps, { ctx, id: input.id }, decision, {
    comment: input.comment ?? null,
    decidedBy: who,
  });
  if (out.ok)
    return { id: out.approval.id, status: out.approval.status, result: out.approval.result, message: out.message };
  // Asking for the decision already taken is idempotent; anything else is refused with what happened.
  const same =
    (decision === "approve" && out.approval.status === "approved") ||
    (decision === "reject" && out.approval.status === "rejected");
  if (same) return { id: out.approval.id, status: out.approval.status, alreadyDecided: true, message: out.message };
  if (out.reason === "conflict") throw new AppError("conflict", out.message);
  throw conflict(out.message, { status: out.approval.status });
}

const approvalsApprove = defineTool({
  name: "approvals_approve",
  toolset: "approvals",
  scope: "approvals:manage",
  readOnly: false,
  title: "Approve a request",
  description:
    "Approve a pending approval link by id, as a person other than the one who asked for it: the draft goes live or the staged change is applied. The requester's own credentials cannot approve it.",
  input: v.object({ id: idSchema, comment }),
  run: async (ctx, input) => await decide(ctx, input, "approve"),
});

const approvalsReject = defineTool({
  name: "approvals_reject",
  toolset: "approvals",
  scope: "approvals:manage",
  readOnly: false,
  destructive: true,
  title: "Reject a request",
  description:
    "Reject a pending approval link by id with an optional comment, as a person other than the requester: nothing goes live.",
  input: v.object({ id: idSchema, comment }),
  run: async (ctx, input) => await decide(ctx, input, "reject"),
});

export const approvalsTools = [approvalsList, approvalsGet, approvalsApprove, approvalsReject];

export const approvalsDomain: Domain = {
  name: "approvals",
  title: "Approvals",
  description:
    "Human approval of what agents draft: list approval links, inspect what they propose, approve or reject them.",
  tools: approvalsTools,
  events: approvalEvents,
};
