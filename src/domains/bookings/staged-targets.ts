/**
 * Held booking calls (approvals/kinds.ts StagedTarget): a
 * require_cms_approval credential's changes to what the public booking
 * pages offer (deleting a page, members' hours, overrides and time off,
 * which decide the free slots /b/<slug> shows) wait for a person. Snapshots
 * are read within the actor's company only.
 */
import { and, eq } from "drizzle-orm";
import type { StagedTarget } from "../approvals/kinds";
import { bookingPages, bookingTimeOff } from "./tables";

export const bookingStagedTargets: StagedTarget[] = [
  {
    entityType: "booking_page",
    tools: ["booking_pages_delete"],
    async current(ctx, input) {
      if (typeof input.id !== "number") return null;
      const p = (
        await ctx.deps.db
          .select({ title: bookingPages.title, slug: bookingPages.slug, status: bookingPages.status })
          .from(bookingPages)
          .where(and(eq(bookingPages.id, input.id), eq(bookingPages.companyId, ctx.company.id)))
          .limit(1)
      )[0];
      return p ?? null;
    },
    async present(_deps, call) {
      const b = call.before;
      if (!b) return {};
      return {
        proposal: `Deleting the ${String(b.status)} booking page “${String(b.title)}”`,
        applied: "deleted",
        facts: [{ label: "Disappears", value: `/b/${String(b.slug)} stops taking bookings, for good.` }],
        handled: ["id"],
      };
    },
  },
  {
    entityType: "booking_time_off",
    tools: ["booking_time_off_delete"],
    async current(ctx, input) {
      if (typeof input.id !== "number") return null;
      const t = (
        await ctx.deps.db
          .select({
            userId: bookingTimeOff.userId,
            startDate: bookingTimeOff.startDate,
            endDate: bookingTimeOff.endDate,
            reason: bookingTimeOff.reason,
          })
          .from(bookingTimeOff)
          .where(and(eq(bookingTimeOff.id, input.id), eq(bookingTimeOff.companyId, ctx.company.id)))
          .limit(1)
      )[0];
      return t ?? null;
    },
  },
];
