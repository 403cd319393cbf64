/**
 * The approvable-kinds registry stays complete: every approval-gated tool
 * names a kind that is registered, every staged-change target names real
 * write tools of the staged scopes, and the spec's approvable types are the
 * only ones a tool may gate on.
 */
import { describe, expect, test } from "bun:test";
import { domains } from "../../src/domains/index";
import { approvalKind, approvalKindTypes, stagedTarget } from "../../src/domains/approvals/registry";
import { STAGED_SCOPES } from "../../src/domains/approvals/staging";
import { cmsStagedTargets } from "../../src/domains/cms/staged-targets";
import { siteStagedTargets } from "../../src/domains/sites/staged-targets";

const tools = domains.flatMap((d) => d.tools);
const SPEC_TYPES = ["post", "pitch_deck", "email_campaign", "block_template", "survey", "booking_page"];

describe("approval kinds", () => {
  test("every approval-gated tool has a registered kind with preview, approve and reject", () => {
    const gated = tools.filter((t) => t.approval);
    expect(gated.map((t) => t.name).sort()).toEqual(expect.arrayContaining(["block_templates_create", "block_templates_update", "posts_create", "posts_update"]));
    for (const t of gated) {
      expect(SPEC_TYPES).toContain(t.approval!);
      const k = approvalKind(t.approval!);
      expect(k, `${t.name} gates on ${t.approval} which has no kind`).toBeDefined();
      expect(typeof k!.preview).toBe("function");
      expect(typeof k!.approve).toBe("function");
      expect(typeof k!.reject).toBe("function");
    }
    expect(new Set(approvalKindTypes()).size).toBe(approvalKindTypes().length);
  });

  test("staged-change targets name existing write tools of the staged scopes, each once", () => {
    const byName = new Map(tools.map((t) => [t.name, t]));
    const seen = new Set<string>();
    for (const target of [...cmsStagedTargets, ...siteStagedTargets])
      for (const name of target.tools) {
        const t = byName.get(name);
        expect(t, `${name} is not a tool`).toBeDefined();
        expect(t!.readOnly).toBe(false);
        expect(STAGED_SCOPES.has(t!.scope!)).toBe(true);
        expect(seen.has(name)).toBe(false);
        seen.add(name);
        expect(stagedTarget(name)).toBe(target);
      }
    // Every update/delete/move of an existing record has a target, so approval can detect it moved on.
    const needing = tools.filter((t) => !t.readOnly && STAGED_SCOPES.has(t.scope ?? "") && /_(update|delete|remove|move|reorder|unpublish)$/.test(t.name));
    expect(needing.map((t) => t.name).filter((n) => !seen.has(n))).toEqual([]);
  });
});
