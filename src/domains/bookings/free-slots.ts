/**
 * booking_availability_get: a page's free start times for a range, for an
 * agent that books or proposes times. The same computation as the public
 * page and the booking itself (availability-load.ts).
 */
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { pageSlots } from "./availability-load";
import { loadCalendars } from "./calendar-busy";
import { pageByRef } from "./pages";
import { localDate, timeLabel } from "./render";
import { DAY } from "./zoned";

export const MAX_RANGE_DAYS = 93;
const MAX_LISTED = 1000;

export async function freeSlots(
  ctx: ActorContext,
  input: {
    pageId?: number;
    pageSlug?: string;
    from?: string;
    to?: string;
    timeZone?: string;
    durationMin?: number;
    proposed?: boolean;
  },
) {
  authorize(ctx, "bookings:read", { write: false });
  const p = await pageByRef(ctx.deps.db, ctx.company.id, { id: input.pageId, slug: input.pageSlug }, "pageId");
  const cfg = input.proposed && p.draft ? p.draft : p.config;
  const now = ctx.deps.clock.now().getTime();
  const from = input.from ? Date.parse(input.from) : now;
  const to = input.to ? Date.parse(input.to) : from + 7 * DAY;
  if (!Number.isFinite(from))
    throw invalid("from must be an ISO date-time like 2026-03-23T00:00:00Z.", { path: "from" });
  if (!Number.isFinite(to)) throw invalid("to must be an ISO date-time.", { path: "to" });
  if (to <= from) throw invalid("to must be after from.", { path: "to" });
  if (to - from > MAX_RANGE_DAYS * DAY)
    throw invalid(`A range spans at most ${MAX_RANGE_DAYS} days; ask again for the next part.`, { path: "to" });
  const durationMin = input.durationMin ?? cfg.durations[0]!;
  if (!cfg.durations.includes(durationMin))
    throw invalid(`durationMin must be one of ${cfg.durations.join(", ")}.`, { path: "durationMin" });
  const tz = input.timeZone ?? cfg.timeZone;
  const { slots, hosts } = await pageSlots(
    ctx.deps.db,
    ctx.company.id,
    { id: p.id, config: cfg },
    { from, to, now, durationMin, calendars: await loadCalendars(ctx.deps, ctx.company.id, cfg.hostUserIds) },
  );
  const listed = slots.slice(0, MAX_LISTED);
  const days: Record<string, string[]> = {};
  for (const s of listed) (days[localDate(s.start, tz)] ??= []).push(timeLabel(s.start, tz));
  return {
    pageId: p.id,
    slug: p.slug,
    status: p.status,
    timeZone: tz,
    durationMin,
    count: slots.length,
    days,
    slots: listed.map((s) => ({
      startsAt: new Date(s.start).toISOString(),
      ...(cfg.hostMode === "single" ? {} : { hostUserIds: s.hostUserIds }),
    })),
    ...(slots.length > MAX_LISTED ? { truncated: true } : {}),
    ...(hosts.length < cfg.hostUserIds.length
      ? { warnings: ["Some hosts have no schedule or left the company; they offer no times."] }
      : {}),
  };
}
