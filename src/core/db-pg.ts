/**
 * The PostgreSQL store: a postgres.js pool. Write transactions run
 * SERIALIZABLE and are retried on serialization failures, so every
 * check-then-write that SQLite's single writer made safe (unique slugs,
 * stock, approval decisions, single-use codes, token rotation) stays safe
 * across instances without per-verb locking. A hot path whose writers each
 * touch their own row can opt out (`isolation: "read committed"`) and lock
 * that row itself (`forUpdate`, src/core/sql.ts): SERIALIZABLE tracks reads
 * by btree page, so writers of different rows on one page abort each
 * other. What both engines share is in db.ts.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { drizzle as drizzlePg } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { migrations } from "../../db/migrations/index";
import { ChangeFeed } from "./changes";
import {
  committed,
  type Db,
  dollarParams,
  InFlight,
  type LiveDb,
  mapDbError,
  Mutex,
  PG_RETRYABLE,
  type QueryOptions,
  routed,
  type Store,
  type StoreOptions,
  sqlState,
  type Tx,
  type TxOptions,
  type TxState,
  tracking,
} from "./db";

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

export function openPg(opts: StoreOptions): Store {
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
