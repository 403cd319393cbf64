/**
 * "Which tables may have changed since I last looked?", answered from
 * memory, for the caches on hot paths (REST keys and site state, MCP
 * credentials, the tools/list memo). A cache hit must not touch the
 * database, so changes are pushed to every instance rather than polled:
 *
 *   - this process's commits are reported by the store as they happen
 *     (src/core/db.ts), with the tables they wrote;
 *   - SQLite: another process's commits (a CLI revoke beside the server)
 *     move the writer connection's `PRAGMA data_version` (its own commits do
 *     not), checked on every `changed()` call — from the mapped WAL-index
 *     header, asking SQLite only after some commit (src/core/wal-index.ts) —
 *     so a revoked key fails on the very next request in every process;
 *   - PostgreSQL: every write transaction sends NOTIFY with its tables, which
 *     PostgreSQL delivers to every instance's LISTEN connection only if and
 *     when the transaction commits; with Redis configured, the tables also go
 *     out on a Redis channel after commit (for PgBouncer in transaction mode,
 *     where LISTEN hears nothing). A lost listener connection flushes every
 *     cache, and entries are also refreshed after MAX_AGE_MS, so a missed
 *     message costs at most that long.
 *
 * Granularity is the table: a watch names the tables its cache is built
 * from, and a write elsewhere leaves it alone.
 */
import { sql } from "drizzle-orm";
import type postgres from "postgres";

export const CHANNEL = "plinth_changes";
/** Longest a cached row may be served on PostgreSQL without a fresh read, as a backstop for a lost message. */
export const MAX_AGE_MS = 30_000;

/** Something that carries table names between instances (Redis pub/sub). */
export interface ChangeBus {
  publish(message: string): void;
  subscribe(onMessage: (message: string) => void, onReset: () => void): Promise<void>;
  close(): Promise<void>;
}

export class ChangeFeed {
  /** Identifies this instance's own messages, which it has already applied. */
  readonly instance = crypto.randomUUID().slice(0, 8);
  private epochs = new Map<string, number>();
  /** Bumped when anything at all may have changed. */
  private everything = 0;
  private poll: (() => number) | null = null;
  private polled = -1;
  private bus: ChangeBus | null = null;
  private listener: postgres.ListenMeta | null = null;
  /** Remote instances exist (PostgreSQL): entries age out after MAX_AGE_MS. */
  private shared = false;

  /** SQLite: a cheap reading that moves whenever any connection commits. */
  setPoll(read: () => number) {
    this.poll = read;
  }

  /** Transactions this process committed that wrote a table (silent bookkeeping excluded); tests read it to prove a refused call wrote nothing. */
  commits = 0;
  /** Exact readings taken (SQLite: `PRAGMA data_version`); tests read it to prove a cache check with nothing committed takes none. */
  exactReads = 0;

  /** Tables this process just committed. */
  local(tables: Iterable<string>) {
    const list = [...tables];
    this.commits++;
    for (const t of list) this.epochs.set(t, (this.epochs.get(t) ?? 0) + 1);
    this.bus?.publish(`${this.instance}|${list.join(",")}`);
  }

  /** Tables another instance committed; null when anything may have changed (a reconnect). */
  remote(tables: string[] | null) {
    if (tables === null) {
      this.everything++;
      return;
    }
    for (const t of tables) this.epochs.set(t, (this.epochs.get(t) ?? 0) + 1);
  }

  private onMessage = (message: string) => {
    const bar = message.indexOf("|");
    if (bar < 0) return this.remote(null);
    if (message.slice(0, bar) === this.instance) return;
    this.remote(
      message
        .slice(bar + 1)
        .split(",")
        .filter(Boolean),
    );
  };

  /** The statement a PostgreSQL transaction runs last, so the message leaves only with the commit. */
  notifySql(tables: Iterable<string>) {
    return sql`SELECT pg_notify(${CHANNEL}, ${`${this.instance}|${[...tables].join(",")}`})`;
  }

  /** PostgreSQL without Redis: LISTEN on a connection of its own. */
  async listenPg(client: postgres.Sql) {
    this.shared = true;
    this.listener = await client.listen(CHANNEL, this.onMessage, () => this.remote(null));
  }

  /** With Redis: publish after commit; subscribe for the others unless this process only writes (a CLI command). */
  async useBus(bus: ChangeBus, opts: { subscribe: boolean }) {
    this.bus = bus;
    if (!opts.subscribe) return;
    this.shared = true;
    await bus.subscribe(this.onMessage, () => this.remote(null));
  }

  /** A view for one cache, over the tables it is built from. */
  watch(tables: readonly string[]): ChangeWatch {
    return new ChangeWatch(this, tables);
  }

  /** @internal the current token for `tables`; moves when any of them (or everything) changed. */
  token(tables: readonly string[]): number {
    if (this.poll) {
      const v = this.poll();
      if (v !== this.polled) {
        this.polled = v;
        this.everything++;
      }
    }
    let n = this.everything * 1_000_003;
    for (const t of tables) n += this.epochs.get(t) ?? 0;
    return n;
  }

  /** @internal */
  get agesOut() {
    return this.shared;
  }

  async stop() {
    await this.listener?.unlisten().catch(() => {});
    this.listener = null;
    await this.bus?.close().catch(() => {});
    this.bus = null;
  }
}

export class ChangeWatch {
  private last = Number.NaN;
  private since = 0;
  constructor(
    private readonly feed: ChangeFeed,
    private readonly tables: readonly string[],
  ) {}

  /**
   * The current token, without marking it seen. A cache filled by an
   * asynchronous read (PostgreSQL) takes one before the read and keeps the
   * result only if it is unchanged after: otherwise a change that committed
   * while the read was under way could be cached over and outlive it.
   */
  current(): number {
    return this.feed.token(this.tables);
  }

  /** True when the cache must be dropped: the first call, or any of its tables (maybe) changed since the previous call. */
  changed(): boolean {
    const t = this.feed.token(this.tables);
    let stale = t !== this.last;
    if (!stale && this.feed.agesOut && performance.now() - this.since > MAX_AGE_MS) stale = true;
    if (stale) {
      this.last = t;
      this.since = performance.now();
    }
    return stale;
  }
}
