/**
 * Delivers the outbox (src/core/events.ts) to subscribers, in order, at
 * least once, surviving restarts; with several instances on PostgreSQL each
 * event reaches each subscriber through one instance at a time.
 *
 * Per subscriber, one transaction per batch:
 *   1. lock the subscriber's cursor row (FOR UPDATE SKIP LOCKED: another
 *      instance working that subscriber makes this one skip it);
 *   2. read the events after the cursor in (tx, id) order — on PostgreSQL
 *      only those written by transactions that have finished, so an event
 *      whose transaction commits late behind higher ids is read in its turn,
 *      never skipped;
 *   3. hand each matching event to the subscriber inside a savepoint;
 *   4. move the cursor past what was handled, in the same transaction.
 * A subscriber's database writes therefore happen exactly once. When
 * `handle` throws, its savepoint is undone, the batch stops before that
 * event, and the attempt is recorded with a backoff (1 s doubling to 5 min);
 * after MAX_ATTEMPTS the event is recorded in event_failures and passed, so
 * one poisoned event cannot stop a subscriber for ever.
 *
 * A subscriber seen for the first time starts at the end of the outbox: it
 * reacts to what happens from then on, not to history.
 */
import { and, desc, eq, sql } from "drizzle-orm";
import type { Deps } from "./context";
import { isRetryableDbError } from "./db";
import { toRecord, type Subscriber } from "./events";
import { finishedTxHorizon, lockedOrSkipped } from "./sql";
import { eventCursors, eventFailures, events } from "./tables";

export const MAX_ATTEMPTS = 10;
const BATCH = 200;
const MAX_BACKOFF_MS = 5 * 60_000;

export class Dispatcher {
  private stopped = true;
  private loop: Promise<void> | null = null;
  private wake: (() => void) | null = null;

  constructor(
    private deps: Deps,
    private subscribers: readonly Subscriber[],
    private opts: { idleMs?: number; onError?: (subscriber: string, e: unknown) => void } = {},
  ) {
    const names = new Set<string>();
    for (const s of subscribers) {
      if (names.has(s.name)) throw new Error(`two event subscribers are named "${s.name}"`);
      names.add(s.name);
    }
  }

  /** Creates missing cursors at the end of the outbox, so subscribers start from now. */
  async init(): Promise<void> {
    const { store } = this.deps;
    for (const s of this.subscribers) {
      await store.transaction(async (tx) => {
        const [last] = await tx
          .select({ tx: events.tx, id: events.id })
          .from(events)
          .orderBy(desc(events.tx), desc(events.id))
          .limit(1);
        await tx
          .insert(eventCursors)
          .values({
            subscriber: s.name,
            lastTx: last?.tx ?? 0,
            lastId: last?.id ?? 0,
            attempts: 0,
            updatedAt: this.deps.clock.now(),
          })
          .onConflictDoNothing();
      });
    }
  }

  /** One batch for one subscriber; how many events it passed (handled or not of its types). */
  async step(s: Subscriber): Promise<number> {
    const { store, clock } = this.deps;
    let failure: { eventId: number; error: string } | null = null;
    const passed = await store.transaction(
      async (tx) => {
        const [cursor] = await lockedOrSkipped(
          tx.select().from(eventCursors).where(eq(eventCursors.subscriber, s.name)),
        );
        if (!cursor) return 0; // another instance holds it (or init has not run)
        if (cursor.retryAt && cursor.retryAt.getTime() > clock.now().getTime()) return 0;
        const rows = await tx
          .select()
          .from(events)
          .where(
            and(
              sql`(${events.tx}, ${events.id}) > (${cursor.lastTx}, ${cursor.lastId})`,
              sql`${events.tx} < ${finishedTxHorizon()}`,
            ),
          )
          .orderBy(events.tx, events.id)
          .limit(BATCH);
        let last: { tx: number; id: number } | null = null;
        let attempts = cursor.attempts;
        for (const row of rows) {
          if (s.types === "*" || s.types.includes(row.type)) {
            try {
              await store.transaction(() => s.handle(this.deps, toRecord(row)));
            } catch (e) {
              if (isRetryableDbError(e)) throw e; // the whole batch is retried by the store
              attempts++;
              const error = e instanceof Error ? e.message : String(e);
              this.opts.onError?.(s.name, e);
              if (attempts < MAX_ATTEMPTS) {
                failure = { eventId: row.id, error };
                break;
              }
              await tx
                .insert(eventFailures)
                .values({ subscriber: s.name, eventId: row.id, error, attempts, createdAt: clock.now() });
            }
          }
          last = { tx: row.tx, id: row.id };
          attempts = 0;
        }
        const f = failure as { eventId: number; error: string } | null;
        if (last || f) {
          const backoff = f ? Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (attempts - 1)) : 0;
          await tx
            .update(eventCursors)
            .set({
              ...(last ? { lastTx: last.tx, lastId: last.id } : {}),
              attempts,
              lastError: f ? `event ${f.eventId}: ${f.error}`.slice(0, 2000) : null,
              retryAt: f ? new Date(clock.now().getTime() + backoff) : null,
              updatedAt: clock.now(),
            })
            .where(eq(eventCursors.subscriber, s.name));
        }
        return rows.length && last ? rows.findIndex((r) => r.id === last!.id) + 1 : 0;
      },
      { silent: true },
    );
    return passed;
  }

  /** Runs every subscriber until none makes progress (tests, and start-up). */
  async drain(): Promise<number> {
    let total = 0;
    for (;;) {
      let n = 0;
      for (const s of this.subscribers) n += await this.step(s);
      total += n;
      if (n === 0) return total;
    }
  }

  /** The newest event id when a drain last found nothing to do: a commit that wrote no event then costs one read, not a transaction per subscriber. */
  private settledTop = -1;

  private async drainIfNew(force: boolean): Promise<void> {
    const [top] = await this.deps.db.select({ id: events.id }).from(events).orderBy(desc(events.id)).limit(1);
    const topId = top?.id ?? 0;
    if (!force && topId === this.settledTop) return;
    const n = await this.drain();
    if (n === 0) this.settledTop = topId;
  }

  /** Works in the background: at once after a commit that wrote events, and every idleMs anyway (retries, other instances). */
  start(): void {
    if (!this.stopped || this.subscribers.length === 0) return;
    this.stopped = false;
    const watch = this.deps.store.changes.watch(["events"]);
    const idleMs = this.opts.idleMs ?? 1000;
    this.loop = (async () => {
      let lastRun = 0;
      while (!this.stopped) {
        const idle = Date.now() - lastRun >= idleMs;
        if (idle || watch.changed()) {
          if (idle) lastRun = Date.now();
          try {
            // The idle pass always runs: retries that came due, and (PostgreSQL) events held back until older transactions finished.
            await this.drainIfNew(idle);
          } catch (e) {
            if (this.stopped || this.deps.store.closed) break;
            this.opts.onError?.("(dispatcher)", e);
          }
        }
        await new Promise<void>((r) => {
          this.wake = r;
          setTimeout(r, 20);
        });
      }
    })();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.wake?.();
    await this.loop;
    this.loop = null;
  }
}
