/**
 * Opening the store: one SQLite file in the data dir, WAL, foreign keys on,
 * a busy timeout, and the embedded migrations applied by the same code in
 * tests and in the compiled binary.
 */
import { Database } from "bun:sqlite";
import { drizzle, type BunSQLiteDatabase } from "drizzle-orm/bun-sqlite";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { migrations } from "../../db/migrations/index";
import * as schema from "./schema";

export type Db = BunSQLiteDatabase<typeof schema>;

export interface Store {
  sqlite: Database;
  db: Db;
  close(): void;
}

export function openStore(dataDir: string | ":memory:"): Store {
  let path = ":memory:";
  if (dataDir !== ":memory:") {
    mkdirSync(dataDir, { recursive: true });
    path = join(dataDir, "plinth.sqlite");
  }
  const sqlite = new Database(path, { create: true, strict: true });
  sqlite.exec("PRAGMA journal_mode = WAL");
  sqlite.exec("PRAGMA synchronous = NORMAL");
  sqlite.exec("PRAGMA foreign_keys = ON");
  sqlite.exec("PRAGMA busy_timeout = 5000");
  const db = drizzle({ client: withStatementCache(sqlite), schema });
  return { sqlite, db, close: () => sqlite.close() };
}

/**
 * drizzle prepares a fresh statement for every query it runs; bun:sqlite's
 * `query()` keeps compiled statements by SQL text. Handing drizzle a client
 * whose `prepare` is `query` lets every repeated query skip SQLite's compile
 * step (a third of a simple query's cost), with no change in any verb.
 * drizzle only runs statements to completion (all/get/run/values), so one
 * shared statement per SQL text is safe.
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

/**
 * Applies the migrations not yet recorded, each in its own transaction.
 * Returns the tags applied; an up-to-date database gets [] and no writes.
 */
export function migrate(sqlite: Database): string[] {
  sqlite.exec(
    "CREATE TABLE IF NOT EXISTS _migrations (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)",
  );
  const done = new Set(
    sqlite.query<{ tag: string }, []>("SELECT tag FROM _migrations").all().map((r) => r.tag),
  );
  const applied: string[] = [];
  for (const m of migrations) {
    if (done.has(m.tag)) continue;
    sqlite.transaction(() => {
      for (const stmt of m.sql.split("--> statement-breakpoint")) {
        if (stmt.trim()) sqlite.exec(stmt);
      }
      sqlite.query("INSERT INTO _migrations (tag, applied_at) VALUES (?, ?)").run(m.tag, Date.now());
    })();
    applied.push(m.tag);
  }
  return applied;
}
