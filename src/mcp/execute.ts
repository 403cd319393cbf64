/**
 * The single path every tool call takes once its company and input are
 * settled: authorize (scope and role), then either stage the call for human
 * approval or run it. The approvals domain calls tool handlers again when a
 * staged change is approved; nothing else calls `tool.run` directly.
 */
import type { ActorContext } from "../core/context";
import { authorize } from "../core/scopes";
import { shouldStage, stageToolCall } from "../domains/approvals/staging";
import type { ToolDef } from "./define";

export async function executeTool(ctx: ActorContext, tool: ToolDef, input: unknown): Promise<unknown> {
  // Correctness check; the registry filter that hid the tool is only UX.
  authorize(ctx, tool.scope, { write: !tool.readOnly, minRole: tool.minRole });
  if (shouldStage(ctx, tool)) return stageToolCall(ctx, tool, input);
  return tool.run(ctx, input as never);
}
