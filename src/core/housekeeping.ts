/** Jobs the core itself needs, whatever domains are present. */
import { and, lt, sql } from "drizzle-orm";
import type { Deps } from "./context";
import { anyRow, type JobDef } from "./jobs";
import { mailJobs } from "./mail";
import { eventCursors, eventFailures, events } from "./tables";

/** How long the outbox keeps an event after every subscriber has passed it (for replays and investigations). */
export const EVENT_RETENTION_MS = 30 * 24 * 3600_000;
/** How long event failures (a subscriber gave up on an event) are kept for a person to look at. */
export const FAILURE_RETENTION_MS = 90 * 24 * 3600_000;

/** Events older than the retention that every subscriber's cursor has passed (at `now`, epoch ms): what events.prune deletes. */
const prunableEvents = (now: number) =>
  and(
    lt(events.createdAt, new Date(now - EVENT_RETENTION_MS)),
    sql`not exists (select 1 from ${eventCursors} where (${eventCursors.lastTx}, ${eventCursors.lastId}) < (${events.tx}, ${events.id}))`,
  );

/** Event failures older than their retention: what events.prune deletes beside them. */
const oldFailures = (now: number) => lt(eventFailures.createdAt, new Date(now - FAILURE_RETENTION_MS));

/** events.prune's pending check: an event or a failure it would delete (one read each, the second only when the first finds none). */
async function anyPrunable(deps: Deps): Promise<boolean> {
  const now = deps.clock.ms();
  return (
    (await anyRow(deps.db.select({ id: events.id }).from(events).where(prunableEvents(now)).limit(1))) ||
    (await anyRow(deps.db.select({ id: eventFailures.id }).from(eventFailures).where(oldFailures(now)).limit(1)))
  );
}

export const coreJobs: JobDef[] = [
  {
    name: "events.prune",
    description:
      "Delete outbox events older than 30 days that every subscriber has passed, and event failures older than 90 days.",
    everyMs: 3600_000,
    pending: anyPrunable,
    async run(deps) {
      const now = deps.clock.ms();
      await deps.store.transaction(
        async (tx) => {
          await tx.delete(events).where(prunableEvents(now));
          await tx.delete(eventFailures).where(oldFailures(now));
          // Bookkeeping: nothing any cache or subscriber reads changes, so no change notice and no count of a
          // committed write (a test's "this changed nothing" window must not catch the hourly prune).
        },
        { silent: true },
      );
    },
  },
  // Outgoing mail: sending the outbox and keeping its delivery log bounded (src/core/mail.ts).
  ...mailJobs,
];
