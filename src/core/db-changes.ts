/**
 * "Has the database changed since I last looked?", cheaply, for in-memory
 * caches on hot paths (REST key and site lookups, MCP credential resolution).
 *
 * Each SQLite read in WAL mode costs a read transaction, which on a hot path
 * is most of the cost of a cached answer. So callers cache rows and drop the
 * cache as soon as the database may have changed:
 *   - writes on this process's connection move `total_changes()` (a
 *     statement that touches no table, so it is nearly free) — checked on
 *     every call, so in-process changes (a revoked key, a removed member)
 *     apply to the very next request;
 *   - writes by another process (`plinth keys revoke` run beside the server)
 *     move `PRAGMA data_version`, which costs a read transaction, so it is
 *     checked at most every CROSS_PROCESS_CHECK_MS of wall time.
 * Each cache owns its own watcher: one caller's look must not hide a change
 * from another.
 */
import type { Database } from "bun:sqlite";

export const CROSS_PROCESS_CHECK_MS = 50;

export class DbChangeWatch {
  private totalChanges = -1;
  private dataVersion = -1;
  private lastCrossCheck = -Infinity;
  private readonly totalChangesStmt;
  private readonly dataVersionStmt;

  constructor(sqlite: Database) {
    this.totalChangesStmt = sqlite.prepare<unknown, []>("SELECT total_changes()");
    this.dataVersionStmt = sqlite.prepare<unknown, []>("PRAGMA data_version");
  }

  private readTotalChanges(): number {
    return this.totalChangesStmt.values()[0]![0] as number;
  }

  /** True when the database may have changed since the previous call (always true on the first). */
  changed(): boolean {
    let changed = false;
    const tc = this.readTotalChanges();
    if (tc !== this.totalChanges) {
      this.totalChanges = tc;
      changed = true;
    }
    const now = performance.now();
    if (now - this.lastCrossCheck >= CROSS_PROCESS_CHECK_MS) {
      this.lastCrossCheck = now;
      const dv = this.dataVersionStmt.values()[0]![0] as number;
      if (dv !== this.dataVersion) {
        this.dataVersion = dv;
        changed = true;
      }
    }
    return changed;
  }

  /**
   * Accepts this connection's latest write as seen: for a cache owner whose
   * own bookkeeping write (a last-used time) changes nothing it caches.
   */
  acknowledge() {
    this.totalChanges = this.readTotalChanges();
  }
}
