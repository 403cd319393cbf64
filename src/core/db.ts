/**
 * Opening the store, on either engine (src/core/engine.ts):
 *
 *   SQLite (default): one file in the data dir, WAL, foreign keys on. Two
 *   connections: a writer that only transactions use, one at a time (an
 *   async mutex; SQLite has a single writer anyway), and a query-only reader
 *   for everything else. Verbs await between statements, so without the
 *   split a read from another request could see a transaction's uncommitted
 *   rows, and a rolled-back write could leak into a cached response.
 *
 *   PostgreSQL: a postgres.js pool. Write transactions run SERIALIZABLE and
 *   are retried on serialization failures, so every check-then-write that
 *   SQLite's single writer made safe (unique slugs, stock, approval
 *   decisions, single-use codes, token rotation) stays safe across
 *   instances without per-verb locking. A hot path whose writers each touch
 *   their own row can opt out (`isolation: "read committed"`) and lock that
 *   row itself (`forUpdate`, src/core/sql.ts): SERIALIZABLE tracks reads by
 *   btree page, so writers of different rows on one page abort each other.
 *
 * On both, `store.db` follows the transaction open in the current async
 * context (AsyncLocalStorage): a helper called inside a verb's transaction
 * reads that transaction's rows without being handed `tx`, and a nested
 * `transaction()` becomes a savepoint instead of waiting for itself.
 * Tables written in a transaction are reported to the change feed after
 * commit (src/core/changes.ts), which is how in-memory caches on every
 * instance learn that a key was revoked or a site's content changed.
 *
 * Migrations are embedded in the binary (db/migrations/index.ts) and applied
 * by the same code in tests and in production.
 */
import { Database } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getTableName, is, Table } from "drizzle-orm";
import { drizzle as drizzleSqlite, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migrations } from "../../db/migrations/index";
import { ChangeFeed } from "./changes";
import { mapWalIndex } from "./wal-index";
import { engine, type Engine } from "./engine";
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
interface TxState {
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
function tracking(target: Db, state: () => TxState | undefined, transaction: Store["transaction"]): Db {
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
function routed(base: Db, als: AsyncLocalStorage<TxState>, transaction: Store["transaction"]): Db {
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

/** `$n` texts of the fixed-shape statements queries mark `prepare` (a handful, each up to a few KB). */
const preparedTexts = new Map<string, string>();
function preparedText(sql: string): string {
  let t = preparedTexts.get(sql);
  if (t === undefined) {
    // A fixed set by contract (QueryOptions.prepare); the bound only guards against misuse.
    if (preparedTexts.size >= 256) preparedTexts.clear();
    preparedTexts.set(sql, (t = dollarParams(sql)));
  }
  return t;
}

// ---------------------------------------------------------------------------
// Errors the engines raise for bad input, as the one AppError type.

const PG_RETRYABLE = new Set(["40001", "40P01"]);

/** The SQLSTATE of a PostgreSQL error, also when drizzle wrapped it ("Failed query: …", the driver's error as cause). */
function sqlState(e: unknown): string | undefined {
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
class InFlight {
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

// ---------------------------------------------------------------------------
// SQLite

/** A FIFO async mutex: the writer connection serves one transaction at a time. */
class Mutex {
  private tail: Promise<void> = Promise.resolve();
  lock(): Promise<() => void> {
    let release!: () => void;
    const next = new Promise<void>((r) => (release = r));
    const ready = this.tail.then(() => release);
    this.tail = this.tail.then(() => next);
    return ready;
  }
}

/**
 * drizzle prepares a fresh statement for every query it runs; bun:sqlite's
 * `query()` keeps compiled statements by SQL text. Handing drizzle a client
 * whose `prepare` is `query` lets every repeated query skip SQLite's compile
 * step (a third of a simple query's cost). drizzle only runs statements to
 * completion (all/get/run/values), so one shared statement per SQL text is safe.
 */
function withStatementCache(sqlite: Database): Database {
  return new Proxy(sqlite, {
    get(target, prop) {
      if (prop === "prepare") return (sql: string) => target.query(sql);
      const value = Reflect.get(target, prop, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

function openConnection(path: string, readonly: boolean): Database {
  const c = new Database(path, { create: true, strict: true });
  c.exec("PRAGMA busy_timeout = 5000");
  c.exec("PRAGMA foreign_keys = ON");
  c.exec("PRAGMA synchronous = NORMAL");
  if (readonly) c.exec("PRAGMA query_only = ON");
  return c;
}

function openSqlite(opts: StoreOptions): Store {
  let dir = opts.dataDir;
  let throwaway: string | null = null;
  if (dir === ":memory:") dir = throwaway = mkdtempSync(join(tmpdir(), "plinth-mem-"));
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "plinth.sqlite");
  // Before any connection here opens the WAL: see wal-index.ts for why the order matters.
  const walIndex = mapWalIndex(path);
  const writer = openConnection(path, false);
  writer.exec("PRAGMA journal_mode = WAL");
  const reader = openConnection(path, true);
  const writerDb = drizzleSqlite({ client: withStatementCache(writer) }) as Db;
  const readerDb = drizzleSqlite({ client: withStatementCache(reader) }) as Db;
  const als = new AsyncLocalStorage<TxState>();
  const mutex = new Mutex();
  const changes = new ChangeFeed();
  const inflight = new InFlight();
  // Another process's commit (a CLI beside the server) moves the writer's
  // data_version, and this process's own commits do not (SQLite counts only
  // other connections' commits): those reach the change feed with the tables
  // they wrote, so a write here drops only the caches built from those tables,
  // and a silent one (last-used times) none. Caches check it on every use.
  // Read on every check unless the WAL-index header, mapped before SQLite
  // opened it, shows no commit since the last reading (src/core/wal-index.ts).
  const dataVersion = writer.prepare<{ data_version: number }, []>("PRAGMA data_version");
  const readDataVersion = () => {
    changes.exactReads++;
    return dataVersion.get()!.data_version;
  };
  changes.setPoll(walIndex ? walIndex.poll(readDataVersion, () => inflight.closed) : readDataVersion);
  let savepoints = 0;

  async function transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: TxOptions): Promise<T> {
    const outer = als.getStore();
    if (outer && outer.open) {
      const name = `sp${++savepoints}`;
      writer.exec(`SAVEPOINT ${name}`);
      // After-commit hooks registered inside a savepoint run only if it is kept.
      const inner: TxState = { ...outer, depth: outer.depth + 1, after: [] };
      try {
        const r = await als.run(inner, () => fn(outer.tx));
        writer.exec(`RELEASE ${name}`);
        outer.after.push(...inner.after);
        return r;
      } catch (e) {
        writer.exec(`ROLLBACK TO ${name}`);
        writer.exec(`RELEASE ${name}`);
        throw mapDbError(e);
      }
    }
    return inflight.run(() => topLevel(fn, opts));
  }

  async function topLevel<T>(fn: (tx: Tx) => Promise<T>, opts?: TxOptions): Promise<T> {
    const release = await mutex.lock();
    const state: TxState = {
      tx: undefined as unknown as Tx,
      raw: null,
      tables: new Set(),
      after: [],
      depth: 0,
      open: true,
    };
    state.tx = tracking(writerDb, () => state, transaction);
    try {
      writer.exec("BEGIN IMMEDIATE");
      let result: T;
      try {
        result = await als.run(state, () => fn(state.tx));
        writer.exec("COMMIT");
      } catch (e) {
        if (writer.inTransaction) writer.exec("ROLLBACK");
        throw mapDbError(e);
      } finally {
        state.open = false;
      }
      if (opts?.silent) state.tables.clear();
      committed(state, changes);
      return result;
    } finally {
      release();
    }
  }

  const store: Store = {
    engine: "sqlite",
    db: routed(readerDb, als, transaction),
    live: readerDb,
    transaction,
    inTransaction: () => !!als.getStore()?.open,
    afterCommit(fn) {
      const s = als.getStore();
      if (s && s.open) s.after.push(fn);
      else fn();
    },
    async query<T>(sql: string, params: unknown[] = [], opts?: QueryOptions) {
      const s = als.getStore();
      const read = /^\s*(select|pragma|with)\b/i.test(sql);
      const writes = opts?.writes;
      // Raw SQL names no table the feed could report: unless told which, a write drops every cache once it commits.
      const flush = () => changes.remote(null);
      if (s && s.open) {
        if (!read) {
          if (writes) for (const t of writes) s.tables.add(t);
          else s.after.push(flush);
        }
        return writer.query(sql).all(...(params as [])) as T[];
      }
      if (read) return reader.query(sql).all(...(params as [])) as T[];
      if (writes)
        return transaction(async () => {
          for (const t of writes) als.getStore()!.tables.add(t);
          return writer.query(sql).all(...(params as [])) as T[];
        });
      const rows = await transaction(async () => writer.query(sql).all(...(params as [])) as T[]);
      flush();
      return rows;
    },
    changes,
    async migrate() {
      const release = await mutex.lock();
      try {
        return migrateSqlite(writer);
      } finally {
        release();
      }
    },
    get closed() {
      return inflight.closed;
    },
    async close() {
      if (inflight.closed) return;
      await inflight.drain();
      const release = await mutex.lock();
      try {
        reader.close();
        // Fold the WAL back into the database file so the file alone is a complete copy.
        try {
          writer.exec("PRAGMA wal_checkpoint(TRUNCATE)");
        } catch {}
        writer.close();
      } finally {
        release();
        if (throwaway) rmSync(throwaway, { recursive: true, force: true });
      }
    },
    sqlite: reader,
  };
  return store;
}

function migrateSqlite(sqlite: Database): string[] {
  sqlite.exec("CREATE TABLE IF NOT EXISTS _migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)");
  const done = new Set(
    sqlite
      .query<{ tag: string }, []>("SELECT tag FROM _migrations")
      .all()
      .map((r) => r.tag),
  );
  const applied: string[] = [];
  for (const m of migrations.sqlite) {
    if (done.has(m.tag)) continue;
    sqlite.transaction(() => {
      for (const stmt of m.sql.split("--> statement-breakpoint")) if (stmt.trim()) sqlite.exec(stmt);
      sqlite.query("INSERT INTO _migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, Date.now());
    })();
    applied.push(m.tag);
  }
  return applied;
}

// ---------------------------------------------------------------------------
// PostgreSQL

/** A PostgreSQL client that reads bigint and numeric as JS numbers (ids, cents and counts fit in 2^53). */
export function pgClient(url: string, max = 10): postgres.Sql {
  const asNumber = { to: 0, from: [20, 1700], serialize: (x: unknown) => String(x), parse: (x: string) => Number(x) };
  return postgres(url, {
    max,
    onnotice: () => {},
    types: { number: asNumber } as unknown as Record<string, postgres.PostgresType>,
    connection: { application_name: "plinth" },
  });
}

const MAX_ATTEMPTS = 20;
/** Unique violations are retried a few times too: a check-then-insert that raced another instance sees the winner on the next attempt and answers with its own clear conflict. */
const MAX_UNIQUE_RETRIES = 3;

function openPg(opts: StoreOptions): Store {
  const client = pgClient(opts.databaseUrl!, opts.poolSize ?? 10);
  const base = drizzlePg({ client }) as unknown as Db;
  // store.live: its own connections, opened on first use, so a latency-path read never waits behind queued transactions.
  const liveClient = pgClient(opts.databaseUrl!, 2);
  const live = drizzlePg({ client: liveClient }) as unknown as LiveDb;
  const als = new AsyncLocalStorage<TxState>();
  const changes = new ChangeFeed();
  const inflight = new InFlight();

  async function transaction<T>(fn: (tx: Tx) => Promise<T>, opts?: TxOptions): Promise<T> {
    const outer = als.getStore();
    if (outer && outer.open) {
      type Savepointer = { transaction(f: (inner: unknown) => Promise<T>): Promise<T> };
      const after: (() => void)[] = [];
      try {
        const r = await (outer.raw as Savepointer).transaction((inner) => {
          const state: TxState = { ...outer, raw: inner, depth: outer.depth + 1 };
          state.tx = tracking(inner as Db, () => state, transaction);
          // What a savepoint wrote is reported once, at the top (conservatively, even when it was rolled back);
          // its after-commit hooks run only if it is kept.
          state.tables = outer.tables;
          state.after = after;
          return als.run(state, () => fn(state.tx));
        });
        outer.after.push(...after);
        return r;
      } catch (e) {
        throw mapDbError(e);
      }
    }
    return inflight.run(() => topLevel(fn, opts));
  }

  // A transaction that lost a serialization race retries one at a time in
  // this instance (first attempts stay concurrent): N writers racing for one
  // hot row (a product's stock, a generated slug, a site's content version)
  // would otherwise keep colliding with each other on every retry and run out
  // of attempts. The lane is held for an attempt only, never across the
  // backoff sleep before it: a transaction that keeps losing to first
  // attempts would otherwise stall every other retry behind its sleeps.
  // Waiters hold no open transaction, so the lane cannot deadlock.
  const retryLane = new Mutex();

  async function topLevel<T>(fn: (tx: Tx) => Promise<T>, opts?: TxOptions): Promise<T> {
    let uniqueRetries = 0;
    for (let attempt = 1; ; attempt++) {
      const release = attempt > 1 ? await retryLane.lock() : null;
      try {
        return await once(fn, opts);
      } catch (e) {
        const code = sqlState(e);
        const retry =
          (code !== undefined && PG_RETRYABLE.has(code)) || (code === "23505" && uniqueRetries++ < MAX_UNIQUE_RETRIES);
        if (!retry || attempt >= MAX_ATTEMPTS) throw mapDbError(e);
      } finally {
        release?.();
      }
      // Full jitter, doubling from 10 ms to 200 ms: racing transactions spread out instead of colliding again.
      await Bun.sleep(Math.random() * Math.min(200, 5 * 2 ** attempt));
    }
  }

  async function once<T>(fn: (tx: Tx) => Promise<T>, opts: TxOptions | undefined): Promise<T> {
    const state: TxState = {
      tx: undefined as unknown as Tx,
      raw: null,
      tables: new Set(),
      after: [],
      depth: 0,
      open: true,
    };
    try {
      type Begin = { transaction(f: (tx: unknown) => Promise<T>, c?: { isolationLevel: "serializable" }): Promise<T> };
      let notified: Promise<unknown> | null = null;
      const result = await (base as unknown as Begin).transaction(
        async (raw) => {
          state.raw = raw;
          state.tx = tracking(raw as Db, () => state, transaction);
          const r = await als.run(state, () => fn(state.tx));
          if (opts?.silent) state.tables.clear();
          // Delivered to every instance's listener only if and when this commits. Not awaited here: the
          // driver pipelines it with the COMMIT that follows (one round trip, not two). Should it fail,
          // PostgreSQL has aborted the transaction and answers that COMMIT by rolling back; the await
          // below then throws, and the transaction counts as failed, as it is.
          if (state.tables.size) {
            // then() once: drizzle's query runs again on every then(), and once this has committed a second run would wait for ever.
            notified = (raw as { execute(q: unknown): Promise<unknown> })
              .execute(changes.notifySql(state.tables))
              .then(() => undefined);
            notified.catch(() => {});
          }
          return r;
        },
        // Read committed is PostgreSQL's default: a plain BEGIN, one round trip fewer.
        opts?.isolation === "read committed" ? undefined : { isolationLevel: "serializable" },
      );
      if (notified) await notified;
      state.open = false;
      committed(state, changes);
      return result;
    } finally {
      state.open = false;
    }
  }

  const store: Store = {
    engine: "pg",
    db: routed(base, als, transaction),
    live,
    transaction,
    inTransaction: () => !!als.getStore()?.open,
    afterCommit(fn) {
      const s = als.getStore();
      if (s && s.open) s.after.push(fn);
      else fn();
    },
    async query<T>(sql: string, params: unknown[] = [], opts?: QueryOptions) {
      const s = als.getStore();
      // Named tables join the transaction's NOTIFY like a builder's writes (a raw write outside one notifies nothing).
      if (s && s.open && opts?.writes) for (const t of opts.writes) s.tables.add(t);
      const run = s && s.open ? (s.raw as { session: { client: postgres.Sql } }).session.client : client;
      try {
        // drizzle hands timestamps to the driver as text; do the same for raw Dates.
        const values = params.map((p) => (p instanceof Date ? p.toISOString() : p));
        const text = opts?.prepare ? preparedText(sql) : dollarParams(sql);
        return (await run.unsafe(text, values as postgres.ParameterOrJSON<never>[], {
          prepare: opts?.prepare === true,
        })) as unknown as T[];
      } catch (e) {
        throw mapDbError(e);
      }
    },
    changes,
    async migrate() {
      return migratePg(client);
    },
    get closed() {
      return inflight.closed;
    },
    async close() {
      if (inflight.closed) return;
      await inflight.drain();
      await changes.stop();
      await Promise.all([client.end({ timeout: 5 }), liveClient.end({ timeout: 5 })]);
    },
    pg: client,
  };
  return store;
}

/** Serialised across instances by an advisory lock: two instances starting at once migrate once. */
async function migratePg(sql: postgres.Sql): Promise<string[]> {
  return sql.begin(async (tx) => {
    await tx`SELECT pg_advisory_xact_lock(8675309)`;
    await tx`CREATE TABLE IF NOT EXISTS _migrations (tag text PRIMARY KEY, applied_at bigint NOT NULL)`;
    const done = new Set((await tx<{ tag: string }[]>`SELECT tag FROM _migrations`).map((r) => r.tag));
    const applied: string[] = [];
    for (const m of migrations.pg) {
      if (done.has(m.tag)) continue;
      for (const stmt of m.sql.split("--> statement-breakpoint")) if (stmt.trim()) await tx.unsafe(stmt);
      await tx`INSERT INTO _migrations (tag, applied_at) VALUES (${m.tag}, ${Date.now()})`;
      applied.push(m.tag);
    }
    return applied;
  }) as Promise<string[]>;
}

// ---------------------------------------------------------------------------

function committed(state: TxState, changes: ChangeFeed) {
  if (state.tables.size) changes.local(state.tables);
  for (const fn of state.after) {
    try {
      fn();
    } catch (e) {
      console.error("after-commit hook failed:", e);
    }
  }
}

export function openStore(opts: StoreOptions | string): Store {
  const o = typeof opts === "string" ? { dataDir: opts } : opts;
  const wants = o.databaseUrl ? "pg" : "sqlite";
  if (o.databaseUrl && !/^postgres(ql)?:\/\//i.test(o.databaseUrl))
    throw new Error(`database URL must start with postgres:// or postgresql://`);
  if (wants !== engine())
    throw new Error(
      `this process's tables are built for ${engine()}, but the store asked for is ${wants} (set PLINTH_DATABASE_URL before start)`,
    );
  return wants === "pg" ? openPg(o) : openSqlite(o);
}
