/**
 * Held campaign calls (approvals/kinds.ts StagedTarget): a
 * require_cms_approval credential's sends, schedules, resumes and test
 * sends of a campaign wait for a person, who sees which campaign, its
 * state and its audience size. The campaign's content was approved on its
 * own link; this is the decision to mail it now. A campaign that moved on
 * meanwhile (sent, rescheduled, changed and unapproved) is not sent blindly.
 */
import { and, eq } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { StagedTarget } from "../approvals/kinds";
import { emailCampaigns } from "./tables";

export const campaignStagedTarget: StagedTarget = {
  entityType: "email_campaign",
  tools: ["email_campaigns_send", "email_campaigns_schedule", "email_campaigns_resume", "email_campaigns_test"],
  async current(ctx, input) {
    if (typeof input.id !== "number") return null;
    const c = (
      await ctx.deps.db
        .select()
        .from(emailCampaigns)
        .where(and(eq(emailCampaigns.id, input.id), eq(emailCampaigns.companyId, ctx.company.id)))
        .limit(1)
    )[0];
    if (!c) return null;
    return {
      name: c.name,
      subject: c.subject,
      status: c.status,
      approvedAt: iso(c.approvedAt),
      scheduledAt: iso(c.scheduledAt),
    };
  },
  async present(_deps, call) {
    const b = call.before;
    if (!b) return {};
    const what = `the campaign “${String(b.name)}” (subject “${String(b.subject)}”)`;
    const proposal =
      call.tool === "email_campaigns_schedule"
        ? `Scheduling ${what} for ${String(call.input.at)}${call.input.timeZone ? ` ${String(call.input.timeZone)}` : ""}`
        : call.tool === "email_campaigns_test"
          ? `A test send of ${what}`
          : call.tool === "email_campaigns_resume"
            ? `Resuming the sending of ${what}`
            : `Sending ${what} now`;
    return { proposal, applied: call.tool === "email_campaigns_schedule" ? "scheduled" : "sent", handled: ["id"] };
  },
};
