/** MCP tools of the approvals domain: read the state of approval links, decide them, and set who may decide on the page. */
import * as v from "valibot";
import type { ActorContext } from "../../core/context";
import { AppError, conflict } from "../../core/errors";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { approvalEvents } from "./events";
import { LINK_STATUSES } from "./links";
import { APPROVAL_POLICIES, getApprovalSettings, MAX_REVIEWERS, updateApprovalSettings } from "./reviewers";
import { decideApproval, getApproval, listApprovals, type DecisionKind } from "./verbs";
import { idSchema } from "../../core/fields";

const comment = v.optional(v.pipe(v.string(), v.maxLength(2000)));

const approvalsList = defineTool({
  name: "approvals_list",
  toolset: "approvals",
  scope: "approvals:read",
  readOnly: true,
  title: "List approval requests",
  description: "The company's approval links, newest first: pending and decided.",
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
  description: "An approval link: what it proposes, its state, who decided.",
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
  description: "Approve a pending approval link (not as its requester).",
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
  description: "Reject a pending approval link (not as its requester).",
  input: v.object({ id: idSchema, comment }),
  run: async (ctx, input) => await decide(ctx, input, "reject"),
});

const approvalsSettingsGet = defineTool({
  name: "approvals_settings_get",
  toolset: "approvals",
  scope: "approvals:read",
  readOnly: true,
  minRole: "admin",
  title: "Get who may decide approvals",
  description: "Owners and admins: the approval policy and reviewers.",
  input: v.object({}),
  run: async (ctx) => await getApprovalSettings(ctx),
});

const approvalsSettingsUpdate = defineTool({
  name: "approvals_settings_update",
  toolset: "approvals",
  scope: "approvals:manage",
  readOnly: false,
  title: "Set who may decide approvals",
  description: "Owners and admins: set the approval policy or reviewer emails.",
  input: v.object({
    policy: v.optional(v.picklist(APPROVAL_POLICIES)),
    reviewers: v.optional(v.pipe(v.array(v.pipe(v.string(), v.maxLength(254))), v.maxLength(MAX_REVIEWERS))),
  }),
  run: async (ctx, input) => await updateApprovalSettings(ctx, input),
});

export const approvalsTools = [
  approvalsList,
  approvalsGet,
  approvalsApprove,
  approvalsReject,
  approvalsSettingsGet,
  approvalsSettingsUpdate,
];

export const approvalsDomain: Domain = {
  scopes: [
    {
      area: "approvals",
      title: "Approvals",
      words: {
        "approvals:read": "read what agents proposed and is waiting for approval",
        "approvals:manage": "approve or reject it",
      },
      includes: { "approvals:manage": ["approvals:read"] },
    },
  ],
  name: "approvals",
  title: "Approvals",
  description:
    "Human approval of what agents draft: list approval links, inspect what they propose, approve or reject them.",
  vocabulary: {
    "sign-off": ["approval", "pending"],
    "sign off": ["approval", "pending"],
    waiting: ["pending"],
    review: ["approval"],
    "turn down": ["reject"],
    decline: ["reject"],
    refuse: ["reject"],
    accept: ["approve"],
    ok: ["approve"],
  },
  tools: approvalsTools,
  events: approvalEvents,
  notificationTypes: [
    {
      type: "approval.link_decided",
      label:
        "Someone with an approval link decided it without signing in (the company lets anyone with the link decide)",
      inApp: true,
      email: true,
    },
  ],
};
