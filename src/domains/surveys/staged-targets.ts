/**
 * Held survey calls (approvals/kinds.ts StagedTarget): a
 * require_cms_approval credential's closing or reopening of a survey
 * changes what /s/<slug> shows the public, so it waits for a person. The
 * snapshot leaves out the response count (responses keep arriving while
 * the change waits; that is no reason to refuse it).
 */
import { and, eq } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { StagedTarget } from "../approvals/kinds";
import { surveys } from "./tables";

export const surveyStagedTarget: StagedTarget = {
  entityType: "survey",
  tools: ["surveys_close", "surveys_reopen"],
  async current(ctx, input) {
    if (typeof input.id !== "number") return null;
    const s = (
      await ctx.deps.db
        .select()
        .from(surveys)
        .where(and(eq(surveys.id, input.id), eq(surveys.companyId, ctx.company.id)))
        .limit(1)
    )[0];
    if (!s) return null;
    return {
      title: s.title,
      slug: s.slug,
      status: s.status,
      closesAt: iso(s.closesAt),
      maxResponses: s.maxResponses,
    };
  },
  async present(_deps, call) {
    const b = call.before;
    if (!b) return {};
    const close = call.tool === "surveys_close";
    return {
      proposal: `${close ? "Closing" : "Reopening"} the ${String(b.status)} survey “${String(b.title)}”`,
      applied: close ? "closed" : "reopened",
      facts: [
        {
          label: close ? "Stops" : "Starts",
          value: close
            ? `/s/${String(b.slug)} stops accepting responses and says the survey is closed.`
            : `/s/${String(b.slug)} accepts responses again.`,
        },
      ],
      handled: ["id"],
    };
  },
};
