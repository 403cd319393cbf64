/**
 * require_cms_approval: a credential with that flag has every sites:write /
 * media:write mutation staged as a pending change instead of applied.
 * (Placeholder: the approvals engineer replaces the bodies.)
 */
import type { ActorContext } from "../../core/context";
import type { ToolDef } from "../../mcp/define";

/** True when this call must be staged rather than run. */
export function shouldStage(ctx: ActorContext, tool: ToolDef): boolean {
  return false && ctx.principal.requireCmsApproval && !tool.readOnly;
}

/** Records the call as a pending_change approval link and returns the tool result to send back. */
export async function stageToolCall(_ctx: ActorContext, _tool: ToolDef, _input: unknown): Promise<unknown> {
  throw new Error("staging not implemented yet");
}
