/**
 * The SQLite store (the default engine): one file in the data dir, WAL,
 * foreign keys on. Two connections: a writer that only transactions use,
 * one at a time (an async mutex; SQLite has a single writer anyway), and a
 * query-only reader for everything else. Verbs await between statements,
 * so without the split a read from another request could see a
 * transaction's uncommitted rows, and a rolled-back write could leak into a
 * cached response. What both engines share is in db.ts.
 */
import { Database } from "bun:sqlite";
import { AsyncLocalStorage } from "node:async_hooks";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { drizzle as drizzleSqlite } from "drizzle-orm/bun-sqlite";
import { migrations } from "../../db/migrations/index";
import { ChangeFeed } from "./changes";
import {
  committed,
  type Db,
  InFlight,
  mapDbError,
  Mutex,
  type QueryOptions,
  routed,
  type Store,
  type StoreOptions,
  type Tx,
  type TxOptions,
  type TxState,
  tracking,
} from "./db";
import { mapWalIndex } from "./wal-index";

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

export function openSqlite(opts: StoreOptions): Store {
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
