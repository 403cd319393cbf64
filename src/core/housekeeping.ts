/** Jobs the core itself needs, whatever domains are present. */
import { and, lt, sql } from "drizzle-orm";
import type { JobDef } from "./jobs";
import { mailJobs } from "./mail";
import { eventCursors, eventFailures, events } from "./tables";

/** How long the outbox keeps an event after every subscriber has passed it (for replays and investigations). */
export const EVENT_RETENTION_MS = 30 * 24 * 3600_000;
const FAILURE_RETENTION_MS = 90 * 24 * 3600_000;

export const coreJobs: JobDef[] = [
  {
    name: "events.prune",
    description: "Delete outbox events older than 30 days that every subscriber has passed, and event failures older than 90 days.",
    everyMs: 3600_000,
    async run(deps) {
      const now = deps.clock.now().getTime();
      await deps.store.transaction(async (tx) => {
        await tx
          .delete(events)
          .where(
            and(
              lt(events.createdAt, new Date(now - EVENT_RETENTION_MS)),
              sql`not exists (select 1 from ${eventCursors} where (${eventCursors.lastTx}, ${eventCursors.lastId}) < (${events.tx}, ${events.id}))`,
            ),
          );
        await tx.delete(eventFailures).where(lt(eventFailures.createdAt, new Date(now - FAILURE_RETENTION_MS)));
        // Bookkeeping: nothing any cache or subscriber reads changes, so no change notice and no count of a
        // committed write (a test's "this changed nothing" window must not catch the hourly prune).
      }, { silent: true });
    },
  },
  // Outgoing mail: sending the outbox and keeping its delivery log bounded (src/core/mail.ts).
  ...mailJobs,
];
