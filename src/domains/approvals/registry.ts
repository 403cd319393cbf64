/**
 * Every approvable entity kind and staged-change target, in one list each.
 * A domain that adds an approval-gated tool adds its kind here (one line).
 */
import { blockTemplateApprovalKind, postApprovalKind } from "../cms/approval-kinds";
import { cmsStagedTargets } from "../cms/staged-targets";
import { siteStagedTargets } from "../sites/staged-targets";
import type { ApprovalKind, StagedTarget } from "./kinds";

function kinds(): ApprovalKind[] {
  return [postApprovalKind, blockTemplateApprovalKind];
}

function targets(): StagedTarget[] {
  return [...cmsStagedTargets, ...siteStagedTargets];
}

// Built on first use, not at module load: the kinds live in domain modules
// that themselves import the approvals module (import cycle).
let kindMap: Map<string, ApprovalKind> | null = null;
let targetMap: Map<string, StagedTarget> | null = null;

export function approvalKind(entityType: string): ApprovalKind | undefined {
  if (!kindMap) {
    kindMap = new Map();
    for (const k of kinds()) {
      if (kindMap.has(k.entityType)) throw new Error(`Two approval kinds for ${k.entityType}`);
      kindMap.set(k.entityType, k);
    }
  }
  return kindMap.get(entityType);
}

export function approvalKindTypes(): string[] {
  return kinds().map((k) => k.entityType);
}

export function stagedTarget(toolName: string): StagedTarget | undefined {
  if (!targetMap) {
    targetMap = new Map();
    for (const t of targets()) for (const name of t.tools) targetMap.set(name, t);
  }
  return targetMap.get(toolName);
}
