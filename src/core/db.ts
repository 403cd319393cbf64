/**
 * The store's shape and what its two openers share (src/core/engine.ts
 * picks the engine; src/core/open.ts opens the configured one):
 *
 *   db-sqlite.ts  SQLite: one file in the data dir, a writer connection
 *                 that only transactions use and a query-only reader.
 *   db-pg.ts      PostgreSQL: a postgres.js pool, SERIALIZABLE write
 *                 transactions retried on serialization failures.
 *
 * On both, `store.db` follows the transaction open in the current async
 * context (AsyncLocalStorage): a helper called inside a verb's transaction
 * reads that transaction's rows without being handed `tx`, and a nested
 * `transaction()` becomes a savepoint instead of waiting for itself.
 * Tables written in a transaction are reported to the change feed after
 * commit (src/core/changes.ts), which is how in-memory caches on every
 * instance learn that a key was revoked or a site's content changed. That
 * machinery (the tracking and routing proxies, the in-flight set, the
 * after-commit hooks) is here, once, with the engine errors mapped to
 * AppError.
 *
 * Migrations are embedded in the binary (db/migrations/index.ts) and applied
 * by the same code in tests and in production.
 */
import type { Database } from "bun:sqlite";
import type { AsyncLocalStorage } from "node:async_hooks";
import { getTableName, is, Table } from "drizzle-orm";
import type { BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import type postgres from "postgres";
import type { ChangeFeed } from "./changes";
import type { Engine } from "./engine";
import { AppError, conflict, invalid } from "./errors";

/**
 * The query builder verbs use. Typed as drizzle's SQLite database; on
 * PostgreSQL it is drizzle's postgres-js database, which offers the same
 * builders. Verbs only await queries (never the SQLite-only .get/.all/.run).
 */
export type Db = Omit<BunSQLiteDatabase<Record<string, never>>, "transaction"> & {
  /** The store's transaction (src/core/db.ts): async, a savepoint when nested. */
  transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: TxOptions): Promise<T>;
};

export interface TxOptions {
  /** Leaves the tables it wrote unreported to the change feed: only for bookkeeping no cache depends on (last-used times). */
  silent?: boolean;
  /**
   * PostgreSQL, top level only (a savepoint keeps its outer transaction's
   * level; SQLite has one writer, which is stricter than either).
   * "serializable" (the default) makes every check-then-write safe and
   * retries the losers. "read committed" is for a hot path that serialises
   * on rows it locks itself with `forUpdate` (src/core/sql.ts) before
   * reading what it decides on, and whose other reads may be a moment stale:
   * SERIALIZABLE tracks reads by btree page, so concurrent writers of
   * different rows that share a page (500 conversations' replies) abort one
   * another and queue their retries. Deadlocks are still retried.
   */
  isolation?: "serializable" | "read committed";
}
export interface QueryOptions {
  /** The tables a raw write touches, reported to the change feed as a builder's writes would be. */
  writes?: readonly string[];
  /**
   * The statement text repeats (a fixed shape): PostgreSQL keeps it prepared
   * per connection instead of parsing and planning it on every run. Only for
   * a small, fixed set of texts — prepared statements are never evicted.
   * SQLite caches every compiled statement by its text anyway.
   */
  prepare?: boolean;
}

/** Inside a transaction: the same builders, bound to the transaction. */
export type Tx = Db;

export interface StoreOptions {
  /** SQLite: the folder holding plinth.sqlite (":memory:" = a throwaway temp file). */
  dataDir: string;
  /** postgres://… selects PostgreSQL (the process engine must be "pg"). */
  databaseUrl?: string | null;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
}

/** The reads `store.live` offers: builders only, never inside a transaction. */
export type LiveDb = Pick<Db, "select">;

export interface Store {
  readonly engine: Engine;
  /** The query builder: the current transaction's when one is open in this async context. */
  readonly db: Db;
  /**
   * Runs `fn` in one transaction; inside another it is a savepoint. Rolls
   * back when `fn` throws. See TxOptions for `silent` and `isolation`.
   */
  transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: TxOptions): Promise<T>;
  /**
   * Short reads on a latency path that must not queue behind a burst of
   * write transactions (the chat hub reading new messages for 500 open
   * streams): on PostgreSQL two connections of their own beside the pool,
   * on SQLite the reader (which never waits for the writer). Committed data
   * only; not for reads inside a transaction.
   */
  readonly live: LiveDb;
  /** True while a transaction is open in this async context. */
  inTransaction(): boolean;
  /** Runs `fn` after the current transaction commits (at once when none is open). */
  afterCommit(fn: () => void): void;
  /**
   * Raw SQL with `?` placeholders, for migrations, checks, tests, engine-specific
   * helpers and bulk writes drizzle's builders make slow. A raw write names no
   * table the change feed could report, so it drops every cache when it
   * commits, unless `writes` names the tables it touches: then it counts as a
   * builder's write of those tables (and a silent transaction reports none).
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], opts?: QueryOptions): Promise<T[]>;
  /** Which tables changed, for in-memory caches. */
  readonly changes: ChangeFeed;
  /** Applies the embedded migrations not yet recorded; returns the tags applied. */
  migrate(): Promise<string[]>;
  /** Waits for transactions under way, then closes; later transactions are refused. */
  close(): Promise<void>;
  readonly closed: boolean;
  /** SQLite only: the query-only reader connection, for hot-path prepared statements. */
  readonly sqlite?: Database;
  /** PostgreSQL only: the postgres.js pool, for hot-path statements. */
  readonly pg?: postgres.Sql;
}

/** What the current async context knows about its open transaction. */
export interface TxState {
  tx: Tx;
  /** drizzle's own transaction object (PostgreSQL), for savepoints. */
  raw: unknown;
  tables: Set<string>;
  after: (() => void)[];
  depth: number;
  open: boolean;
}

const MUTATORS = new Set(["insert", "update", "delete"]);

/** A view of `target` that records which tables its insert/update/delete builders touch. */
export function tracking(target: Db, state: () => TxState | undefined, transaction: Store["transaction"]): Db {
  return new Proxy(target, {
    get(t, prop) {
      if (prop === "transaction") return transaction;
      const value = Reflect.get(t, prop, t);
      if (typeof value !== "function") return value;
      if (typeof prop === "string" && MUTATORS.has(prop))
        return (table: unknown) => {
          if (is(table, Table)) state()?.tables.add(getTableName(table as Table));
          return (value as (x: unknown) => unknown).call(t, table);
        };
      return value.bind(t);
    },
  });
}

/**
 * A write started outside any transaction (`db.update(t).set(…).where(…)`):
 * the builder chain is recorded and replayed, when awaited, inside a
 * transaction of its own. So every write is serialised on SQLite's writer
 * connection and reported to the change feed on both engines, whoever forgot
 * to open a transaction.
 */
function deferredWrite(start: (tx: Tx) => unknown, transaction: Store["transaction"]): unknown {
  const calls: [PropertyKey, unknown[]][] = [];
  const run = () =>
    transaction(async (tx) => {
      let q = start(tx) as Record<PropertyKey, (...a: unknown[]) => unknown>;
      for (const [m, args] of calls) q = q[m]!(...args) as typeof q;
      return await (q as unknown as Promise<unknown>);
    });
  const chain: object = new Proxy(
    {},
    {
      get(_t, prop) {
        if (prop === "then")
          return (ok: (v: unknown) => unknown, fail: (e: unknown) => unknown) => run().then(ok, fail);
        if (prop === "catch") return (fail: (e: unknown) => unknown) => run().catch(fail);
        return (...args: unknown[]) => {
          calls.push([prop, args]);
          return chain;
        };
      },
    },
  );
  return chain;
}

/**
 * `store.db`: reads and writes go to the transaction open in this async
 * context; otherwise reads go to `base` and writes each get a transaction.
 * `transaction` on it is the store's.
 */
export function routed(base: Db, als: AsyncLocalStorage<TxState>, transaction: Store["transaction"]): Db {
  return new Proxy(base, {
    get(t, prop) {
      if (prop === "transaction") return transaction;
      const s = als.getStore();
      const target = s && s.open ? s.tx : t;
      if (target === t && typeof prop === "string" && MUTATORS.has(prop))
        return (table: unknown) =>
          deferredWrite((tx) => (tx as unknown as Record<string, (x: unknown) => unknown>)[prop]!(table), transaction);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** `?` placeholders → `$1, $2 …` (outside quoted strings), for PostgreSQL raw queries. */
export function dollarParams(sql: string): string {
  let n = 0;
  let quoted = false;
  let out = "";
  for (const ch of sql) {
    if (ch === "'") quoted = !quoted;
    out += ch === "?" && !quoted ? `$${++n}` : ch;
  }
  return out;
}
// ---------------------------------------------------------------------------
// Errors the engines raise for bad input, as the one AppError type.

export const PG_RETRYABLE = new Set(["40001", "40P01"]);

/** The SQLSTATE of a PostgreSQL error, also when drizzle wrapped it ("Failed query: …", the driver's error as cause). */
export function sqlState(e: unknown): string | undefined {
  for (let x = e, i = 0; x && typeof x === "object" && i < 4; x = (x as { cause?: unknown }).cause, i++) {
    const code = (x as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

/** A PostgreSQL serialization failure or deadlock: the whole transaction is retried, so code inside it must not swallow one. */
export function isRetryableDbError(e: unknown): boolean {
  const code = sqlState(e);
  return code !== undefined && PG_RETRYABLE.has(code);
}

/** The driver's own message, not drizzle's "Failed query: <sql>" wrapper. */
function rootMessage(e: Error): string {
  let x: unknown = e;
  for (let i = 0; i < 4 && x instanceof Error && x.cause instanceof Error; i++) x = x.cause;
  return x instanceof Error ? x.message : e.message;
}

/**
 * Maps an engine error that bad input can cause to a clear AppError, so it
 * never surfaces as a 500; anything else is rethrown as is.
 */
export function mapDbError(e: unknown): unknown {
  if (e instanceof AppError || !(e instanceof Error)) return e;
  const code = sqlState(e);
  const msg = rootMessage(e);
  // PostgreSQL (SQLSTATE codes) and SQLite (message text) for the same conditions.
  if (code === "23505" || /UNIQUE constraint failed/.test(msg))
    return conflict("That value is already in use; choose another.");
  if (code === "23503" || /FOREIGN KEY constraint failed/.test(msg))
    return conflict("Another record still refers to this one, or the one referred to does not exist.");
  if (code === "22021" || code === "22P05" || /invalid byte sequence|unsupported Unicode escape/.test(msg))
    return invalid("Text must not contain NUL (\\u0000) characters.");
  if (code === "22003") return invalid("A number is out of range.");
  if (code === "22P02") return invalid("A value has the wrong form.");
  return e;
}

/** Transactions under way, so close() can let them finish first. */
export class InFlight {
  closed = false;
  private running = new Set<Promise<unknown>>();
  run<T>(p: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error("the store is closed"));
    const q = p();
    this.running.add(q);
    q.then(
      () => this.running.delete(q),
      () => this.running.delete(q),
    );
    return q;
  }
  async drain() {
    this.closed = true;
    while (this.running.size) await Promise.allSettled([...this.running]);
  }
}

/** A FIFO async mutex: SQLite's writer connection serves one transaction at a time; PostgreSQL's retries take turns. */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

/** After a commit: the written tables to the change feed, then the after-commit hooks (one failing does not stop the rest). */
export function committed(state: TxState, changes: ChangeFeed) {
  if (state.tables.size) changes.local(state.tables);
  for (const fn of state.after) {
    try {
      fn();
    } catch (e) {
      console.error("after-commit hook failed:", e);
    }
  }
}
