/**
 * Prepared reads for hot paths, on both engines. drizzle builds a query's
 * SQL text from its builder chain on every run, which costs more than
 * running a small indexed query (measured with bench/profile.ts: most of a
 * read tool's time went to drizzle's SQL building). A query declared here is
 * built and prepared once per store, with `sql.placeholder(name)` for what
 * changes per call:
 *
 *   - SQLite: on the query-only reader connection (bun:sqlite statement);
 *   - PostgreSQL: on the pool, as a named server-side statement (postgres.js
 *     prepares it once per connection).
 *
 * Inside a transaction the same query is built on that transaction instead
 * (at the builder's usual cost), so it sees the transaction's own rows, as
 * every `store.db` read does.
 *
 * @example
 * const siteById = preparedRead("site_by_id", (db) =>
 *   db.select().from(sites).where(eq(sites.id, sql.placeholder("id"))).limit(1));
 * const [site] = await siteById(ctx.deps.store, { id: 3 });
 */
import type { Db, Store } from "./db";

/** What drizzle's select builders offer on both engines (SQLite ignores the name). */
interface Preparable<R> {
  prepare(): { execute(placeholders?: Record<string, unknown>): PromiseLike<R> };
}
type Prepared<R> = { execute(placeholders?: Record<string, unknown>): PromiseLike<R> };

export type PreparedRead<P extends Record<string, unknown>, R> = (store: Store, params: P) => Promise<R>;

/**
 * Declares a prepared read. `name` must be unique in the process: on
 * PostgreSQL it marks the statement for server-side preparation.
 */
export function preparedRead<P extends Record<string, unknown>, R>(
  name: string,
  build: (db: Db) => Preparable<R>,
): PreparedRead<P, R> {
  const perStore = new WeakMap<Store, Prepared<R>>();
  const prepare = (db: Db) => (build(db) as unknown as { prepare(name: string): Prepared<R> }).prepare(name);
  return async (store, params) => {
    // store.db is the open transaction's here: build on it, so the read sees that transaction's rows.
    if (store.inTransaction()) return await prepare(store.db).execute(params);
    let p = perStore.get(store);
    // Outside a transaction store.db is the reader (SQLite) or the pool (PostgreSQL): prepared once, reused.
    if (!p) perStore.set(store, (p = prepare(store.db)));
    return await p.execute(params);
  };
}
