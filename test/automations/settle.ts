/**
 * Waits until the automation and webhook subscribers have passed every
 * event written so far. On PostgreSQL the dispatcher reads an event only
 * once every older transaction has finished (src/core/dispatcher.ts), so
 * one drain() right after a write can find nothing yet; tests wait for the
 * cursors instead of sleeping.
 */
import { desc, inArray } from "drizzle-orm";
import type { Deps } from "../../src/core/context";
import type { Dispatcher } from "../../src/core/dispatcher";
import { eventCursors, events } from "../../src/core/tables";

export async function caughtUp(
  s: { deps: Deps; dispatcher: Dispatcher },
  subscribers = ["automations.trigger", "webhooks.fanout"],
): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    await s.dispatcher.drain();
    const [top] = await s.deps.db.select({ id: events.id }).from(events).orderBy(desc(events.id)).limit(1);
    const cursors = await s.deps.db.select().from(eventCursors).where(inArray(eventCursors.subscriber, subscribers));
    if (!top || (cursors.length === subscribers.length && cursors.every((c) => c.lastId >= top.id))) return;
    if (Date.now() > deadline)
      throw new Error(
        `subscribers did not catch up with event ${top.id}: ${JSON.stringify(cursors.map((c) => [c.subscriber, c.lastId, c.lastError]))}`,
      );
    await Bun.sleep(10);
  }
}
