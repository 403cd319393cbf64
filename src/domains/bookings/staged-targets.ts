/**
 * Held booking calls (approvals/kinds.ts StagedTarget): a
 * require_cms_approval credential's changes to what the public booking
 * pages offer (changing or pausing a page, deleting one, members' hours,
 * overrides and time off, which decide the free slots /b/<slug> shows)
 * wait for a person. A page's change approved this way still makes its own
 * approval link, approved with it (one review). Snapshots are read within
 * the actor's company only.
 */
import { and, eq } from "drizzle-orm";
import type { StagedTarget } from "../approvals/kinds";
import { bookingPages, bookingTimeOff } from "./tables";

export const bookingStagedTargets: StagedTarget[] = [
  {
    entityType: "booking_page",
    tools: ["booking_pages_update", "booking_pages_delete"],
    async current(ctx, input) {
      if (typeof input.id !== "number") return null;
      const p = (
        await ctx.deps.db
          .select()
          .from(bookingPages)
          .where(and(eq(bookingPages.id, input.id), eq(bookingPages.companyId, ctx.company.id)))
          .limit(1)
      )[0];
      if (!p) return null;
      // The live settings, keyed like booking_pages_update's arguments.
      const { location, hostUserIds, ...config } = p.config;
      return {
        ...config,
        title: p.title,
        slug: p.slug,
        status: p.status,
        paused: p.status === "paused",
        location: location.kind,
        where: location.value,
        hosts: hostUserIds,
      };
    },
    async present(_deps, call) {
      const b = call.before;
      if (!b) return {};
      if (call.tool === "booking_pages_update")
        return {
          proposal:
            call.input.paused === true
              ? `Pausing the booking page “${String(b.title)}”: /b/${String(b.slug)} stops taking bookings`
              : `A change to the ${String(b.status)} booking page “${String(b.title)}”`,
          handled: ["id"],
        };
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
    // The id is the subject (its dates are in the snapshot), not a change.
    present: async (_deps, call) => (call.before ? { handled: ["id"] } : {}),
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
