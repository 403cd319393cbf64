/**
 * Periodic background work that domains declare (`jobs: [...]` on their
 * Domain): recurring cards, SLA breach checks, scheduled sends, uptime
 * checks, event retention. Every instance runs the same runner; a lease row
 * per job (job_leases) makes one instance at a time run a given job, and a
 * job whose instance died mid-run is taken over when its lease lapses.
 *
 * A job is told nothing about what it missed: it works from the database
 * ("what is due by now?"), so a server that was down catches up on its next
 * run, and a run that did its work twice changes nothing the second time.
 * Times come from deps.clock, so tests move a ManualClock and call runDue().
 */
import { and, eq, isNull, lt, lte, or, sql } from "drizzle-orm";
import type { Deps } from "./context";
import { jobLeases } from "./tables";

export interface JobDef {
  /** Unique and stable: the lease is stored under it. */
  name: string;
  /** One line for docs and the portal. */
  description: string;
  /** Runs at most this often (and at least, while some instance is up). */
  everyMs: number;
  /** How long a run may take before another instance may assume it died (default 10 minutes). */
  leaseMs?: number;
  /**
   * A read-only check: has the job anything to do now? When given and
   * false, the runner skips the job this tick without claiming its lease,
   * so an idle job costs one read instead of two write transactions. It
   * must be true whenever run() would change anything; a wider check is
   * safe (run() then finds nothing, as without it), a narrower one leaves
   * work undone — build it from the same conditions run() selects by.
   */
  pending?(deps: Deps): Promise<boolean>;
  run(deps: Deps): Promise<void>;
}

export interface JobOutcome {
  name: string;
  ok: boolean;
  error?: string;
}

/** Whether a query (ended with `.limit(1)`) finds a row: the shape of every `pending` check. */
export async function anyRow(query: PromiseLike<unknown[]>): Promise<boolean> {
  return (await query).length > 0;
}

/** A job is due again once its last start is at or before this instant. */
function lastStartDue(j: JobDef, now: Date): Date {
  return new Date(now.getTime() - j.everyMs);
}

export class JobRunner {
  private timer: ReturnType<typeof setInterval> | null = null;
  private running: Promise<unknown> | null = null;
  readonly holder = crypto.randomUUID();
  /**
   * When each job's `pending` check last found nothing (clock ms). A job
   * skipped by its check stays due, so without this its check would be read
   * again at every tick: once a second for an hourly prune, and some checks
   * scan a table. It is asked again one period later, which is how often
   * its run made the same read before it had a check — less half a tick,
   * so that a one-second job is asked at every tick however the ticks
   * jitter (a tick's checks run after its earlier jobs, a few ms later or
   * sooner than the last).
   */
  private quietAt = new Map<string, number>();

  constructor(
    private deps: Deps,
    private jobs: readonly JobDef[],
    private opts: { tickMs?: number; onError?: (job: string, e: unknown) => void } = {},
  ) {
    const names = new Set<string>();
    for (const j of jobs) {
      if (names.has(j.name)) throw new Error(`two jobs are named "${j.name}"`);
      if (!(j.everyMs >= 1000)) throw new Error(`job "${j.name}" must run at most once a second`);
      names.add(j.name);
    }
  }

  async init(): Promise<void> {
    for (const j of this.jobs) {
      await this.deps.store.transaction(
        (tx) => tx.insert(jobLeases).values({ name: j.name, runs: 0, failures: 0 }).onConflictDoNothing(),
        { silent: true },
      );
    }
  }

  /** Claims the lease when the job is due and nobody holds it. */
  private async claim(j: JobDef, now: Date): Promise<boolean> {
    const dueBefore = lastStartDue(j, now);
    const rows = await this.deps.store.transaction(
      (tx) =>
        tx
          .update(jobLeases)
          .set({
            holder: this.holder,
            leaseUntil: new Date(now.getTime() + (j.leaseMs ?? 10 * 60_000)),
            lastStartedAt: now,
          })
          .where(
            and(
              eq(jobLeases.name, j.name),
              or(isNull(jobLeases.leaseUntil), lt(jobLeases.leaseUntil, now)),
              or(isNull(jobLeases.lastStartedAt), lte(jobLeases.lastStartedAt, dueBefore)),
            ),
          )
          .returning({ name: jobLeases.name }),
      { silent: true },
    );
    return rows.length === 1;
  }

  /**
   * Runs every job that is due now, one after another; what each did.
   *
   * The leases are read first, in one statement, and only a job that looks
   * due is claimed (the claim checks again, atomically): a claim is a write
   * transaction even when it matches nothing, and with two dozen jobs on a
   * one-second tick an idle server was taking the write lock twenty-odd
   * times a second for nothing. A job with a `pending` check is claimed
   * only when that read finds work: every job that works on the database
   * has one, so an idle server writes only for the 15-minute object storage
   * check (docs/events-delivery.md, "Jobs").
   */
  async runDue(): Promise<JobOutcome[]> {
    const out: JobOutcome[] = [];
    if (this.deps.store.closed) return out;
    const leases = new Map(
      (
        await this.deps.db
          .select({ name: jobLeases.name, leaseUntil: jobLeases.leaseUntil, lastStartedAt: jobLeases.lastStartedAt })
          .from(jobLeases)
      ).map((l) => [l.name, l]),
    );
    for (const j of this.jobs) {
      if (this.deps.store.closed) break;
      const now = this.deps.clock.now();
      const l = leases.get(j.name);
      // No row yet (init() not run): the claim finds nothing either, as before.
      if (!l) continue;
      // claim()'s own conditions, on the snapshot just read.
      const free = l.leaseUntil === null || l.leaseUntil < now;
      const due = l.lastStartedAt === null || l.lastStartedAt <= lastStartDue(j, now);
      if (!free || !due) continue;
      if (j.pending) {
        const quiet = this.quietAt.get(j.name);
        const since = quiet === undefined ? Infinity : now.getTime() - quiet;
        if (since >= 0 && since < j.everyMs - (this.opts.tickMs ?? 1000) / 2) continue;
        if (!(await j.pending(this.deps))) {
          this.quietAt.set(j.name, now.getTime());
          continue;
        }
        this.quietAt.delete(j.name);
      }
      if (!(await this.claim(j, now))) continue;
      let error: string | null = null;
      try {
        await j.run(this.deps);
      } catch (e) {
        error = (e instanceof Error ? e.message : String(e)).slice(0, 2000);
        this.opts.onError?.(j.name, e);
      }
      if (this.deps.store.closed) break;
      await this.deps.store.transaction(
        (tx) =>
          tx
            .update(jobLeases)
            .set({
              holder: null,
              leaseUntil: null,
              lastFinishedAt: this.deps.clock.now(),
              lastError: error,
              runs: sql`${jobLeases.runs} + 1`,
              failures: error ? sql`${jobLeases.failures} + 1` : jobLeases.failures,
            })
            .where(and(eq(jobLeases.name, j.name), eq(jobLeases.holder, this.holder))),
        { silent: true },
      );
      out.push(error ? { name: j.name, ok: false, error } : { name: j.name, ok: true });
    }
    return out;
  }

  start(): void {
    if (this.timer || this.jobs.length === 0) return;
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = this.runDue()
        .catch((e) => this.opts.onError?.("(runner)", e))
        .finally(() => (this.running = null));
    }, this.opts.tickMs ?? 1000);
    this.timer.unref?.();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
