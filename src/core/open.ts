/**
 * From configuration to the dependencies every verb receives: the store on
 * the configured engine (migrated), Redis when configured, the change feed
 * wired to whatever carries changes between instances, and the catalog the
 * caller built from the domains (src/catalog.ts). Used by the server, the
 * CLI and the tests alike. `openStore` is where the engine's opener is
 * chosen (db-sqlite.ts, db-pg.ts; what they share is db.ts).
 */
import type Redis from "ioredis";
import type { Config } from "../config";
import { redisChangeBus } from "./bus-redis";
import { systemClock, type Clock } from "./clock";
import type { Catalog, Deps } from "./context";
import { openBlobStore } from "./blobs";
import type { Store, StoreOptions } from "./db";
import type { openPg } from "./db-pg";
import { openSqlite } from "./db-sqlite";
import { engine } from "./engine";

/** The store on the engine `opts` asks for, which must be the one this process's tables were built for. */
export function openStore(opts: StoreOptions | string): Store {
  const o = typeof opts === "string" ? { dataDir: opts } : opts;
  const wants = o.databaseUrl ? "pg" : "sqlite";
  if (o.databaseUrl && !/^postgres(ql)?:\/\//i.test(o.databaseUrl))
    throw new Error(`database URL must start with postgres:// or postgresql://`);
  if (wants !== engine())
    throw new Error(
      `this process's tables are built for ${engine()}, but the store asked for is ${wants} (set PLINTH_DATABASE_URL before start)`,
    );
  if (wants === "sqlite") return openSqlite(o);
  // Loaded only for PostgreSQL, as ioredis below only for Redis: a SQLite
  // process never holds their modules (about 12 and 19 MB of RSS; the
  // process keeps to a memory budget, src/core/memory-budget.ts).
  const pg: { openPg: typeof openPg } = require("./db-pg");
  return pg.openPg(o);
}

export interface OpenedDeps extends Deps {
  close(): Promise<void>;
}

export function connectRedis(url: string): Redis {
  const { default: RedisClient }: typeof import("ioredis") = require("ioredis");
  return new RedisClient(url, {
    // Commands wait while reconnecting rather than fail at once, but not forever.
    maxRetriesPerRequest: 2,
    enableOfflineQueue: true,
    connectTimeout: 5000,
    lazyConnect: false,
  });
}

export async function openDeps(
  config: Config,
  catalog: Catalog,
  opts: { clock?: Clock; migrate?: boolean; listen?: boolean } = {},
): Promise<OpenedDeps> {
  const store = openStore({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, poolSize: config.dbPoolSize });
  let redis: Redis | null = null;
  try {
    if (opts.migrate !== false) await store.migrate();
    if (config.redisUrl) redis = connectRedis(config.redisUrl);
    if (store.engine === "pg") {
      // Every write transaction NOTIFYs; with Redis its tables also go out on
      // Redis (for deployments behind PgBouncer in transaction mode, where
      // LISTEN hears nothing). A CLI command publishes but does not listen.
      if (redis) await store.changes.useBus(redisChangeBus(redis), { subscribe: opts.listen !== false });
      if (opts.listen !== false) await store.changes.listenPg(store.pg!);
    }
  } catch (e) {
    redis?.disconnect();
    await store.close();
    throw e;
  }
  return {
    store,
    db: store.db,
    config,
    clock: opts.clock ?? systemClock,
    redis,
    blobs: openBlobStore({ config, store }),
    catalog,
    async close() {
      await store.close();
      // quit, not disconnect: change notices still queued (a CLI revoke's) go out first.
      await redis?.quit().catch(() => redis?.disconnect());
    },
  };
}
