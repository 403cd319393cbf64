/**
 * Surveys whose close date has passed are marked closed (with a
 * survey.closed event) by this job. The public form does not wait for it:
 * it reads the close date itself on every request, so a survey stops
 * taking responses at the exact instant. The job works from the database
 * ("open surveys whose closesAt is due"), so a server that was down closes
 * them on its next run, once each.
 */
import { and, eq, isNotNull, lte, sql } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { emit } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { surveyClosed } from "./events";
import { surveys } from "./tables";

/** Open surveys whose close date has come by `now`: what the job closes. */
const closeDue = (now: Date) =>
  and(eq(surveys.status, "open"), isNotNull(surveys.closesAt), lte(surveys.closesAt, now));

/** The job's pending check, and the run's own look before it opens a write transaction: a survey to close. */
const anyCloseDue = (deps: Deps, now = deps.clock.now()) =>
  anyRow(deps.db.select({ id: surveys.id }).from(surveys).where(closeDue(now)).limit(1));

export async function closeDueSurveys(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  // Look before opening a write transaction: most runs find nothing, and then write nothing.
  if (!(await anyCloseDue(deps, now))) return 0;
  return deps.db.transaction(async (tx) => {
    const due = await tx.select().from(surveys).where(closeDue(now)).limit(500);
    for (const s of due) {
      await tx
        .update(surveys)
        .set({
          status: "closed",
          closedAt: s.closesAt,
          closedReason: "date",
          version: sql`${surveys.version} + 1`,
          updatedAt: now,
        })
        .where(and(eq(surveys.id, s.id), eq(surveys.status, "open")));
      await emit(
        tx,
        { deps, company: { id: s.companyId } },
        surveyClosed,
        { id: s.id, siteId: s.siteId },
        { slug: s.slug, title: s.title, reason: "date", responseCount: s.responseCount },
      );
    }
    return due.length;
  });
}

export const closeDueJob: JobDef = {
  name: "surveys.close_due",
  description: "Marks open surveys whose close date has passed as closed (the form already refuses from that instant).",
  everyMs: 60_000,
  pending: (deps) => anyCloseDue(deps),
  async run(deps) {
    await closeDueSurveys(deps);
  },
};
