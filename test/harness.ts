/**
 * The test harness: a real Plinth server on a fresh temp data dir, listening
 * on a free loopback port, with a clock the test controls. Tests talk HTTP to
 * `url`; `deps` is there to seed fixtures through the same verbs production uses.
 */
import type { DomainCatalog } from "../src/mcp/define";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../src/config";
import { ManualClock } from "../src/core/clock";
import type { Store } from "../src/core/db";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "./db";
import { testS3 } from "./s3";
import { startServer, type RunningServer } from "../src/server";
import type { Sink } from "../src/ops/access-log";

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
  config: Config;
}

export async function startTestServer(
  opts: {
    seed?: boolean;
    config?: Partial<Config>;
    clock?: ManualClock;
    accessLog?: Sink;
    catalog?: DomainCatalog;
  } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "plinth-test-"));
  const databaseUrl = ON_PG ? await freshDatabaseUrl() : null;
  const media = opts.config?.mediaStore ? {} : await testMediaConfig(databaseUrl !== null);
  // No access log unless a test asks for one (config.log "access", lines to opts.accessLog): it would drown the output.
  const config = {
    ...loadConfig({}, {}),
    port: 0,
    dataDir,
    databaseUrl,
    ...media,
    log: "off",
    ...opts.config,
  } as Config;
  if (!opts.config?.publicUrl) config.publicUrl = "http://localhost:0";
  const clock = opts.clock ?? new ManualClock(Date.now());
  const s = await startServer(config, { clock, seed: opts.seed, accessLog: opts.accessLog, catalog: opts.catalog });
  return {
    ...s,
    clock,
    dataDir,
    config,
    async stop() {
      await s.stop();
      await dropDatabase(databaseUrl);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Where this run's test servers keep media bytes: as production defaults do,
 * the database on PostgreSQL and the data dir on SQLite; with
 * PLINTH_TEST_MEDIA_STORE=s3, a bucket of its own on a loopback S3 server
 * (test/s3.ts), so any suite can run on each store.
 */
export async function testMediaConfig(onPg: boolean): Promise<Pick<Config, "mediaStore" | "s3">> {
  const wanted = process.env.PLINTH_TEST_MEDIA_STORE;
  if (wanted === "s3") return { mediaStore: "s3", s3: await (await testS3()).bucket() };
  if (wanted && wanted !== "local" && wanted !== "db")
    throw new Error(`PLINTH_TEST_MEDIA_STORE must be local, db or s3, got "${wanted}"`);
  const mediaStore = (wanted as "local" | "db" | undefined) ?? (onPg ? "db" : "local");
  if (mediaStore === "db" && !onPg)
    throw new Error("PLINTH_TEST_MEDIA_STORE=db needs PostgreSQL (scripts/with-postgres.ts)");
  return { mediaStore, s3: loadConfig({}, {}).s3 };
}

/** Raw SQL (`?` placeholders) on either engine, for checks a test makes behind the API's back. */
export async function rows<T = Record<string, any>>(
  deps: { store: Store },
  sql: string,
  ...params: unknown[]
): Promise<T[]> {
  return deps.store.query<T>(sql, params);
}
export async function row<T = Record<string, any>>(
  deps: { store: Store },
  sql: string,
  ...params: unknown[]
): Promise<T | undefined> {
  return (await deps.store.query<T>(sql, params))[0];
}
/** Committed writing transactions so far: equal before and after a refused call proves it wrote nothing. */
export function commits(deps: { store: Store }): number {
  return deps.store.changes.commits;
}

/** A JSON column as read by raw SQL: text on SQLite, already parsed on PostgreSQL. */
export function jsonValue(v: unknown): unknown {
  return typeof v === "string" ? JSON.parse(v) : v;
}

/** Every table of the schema (not the migrations ledger), sorted. */
export async function tableNames(deps: { store: Store }): Promise<string[]> {
  const sql =
    deps.store.engine === "pg"
      ? "SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_migrations' ORDER BY tablename"
      : "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_migrations' ORDER BY name";
  return (await rows<{ name: string }>(deps, sql)).map((r) => r.name);
}

/**
 * How long another instance may keep serving what a write elsewhere changed:
 * none on SQLite (every process checks data_version on every request); on
 * PostgreSQL the time for the change notice to arrive (docs/deploy.md).
 */
export const FOREIGN_WRITE_DELAY_MS = ON_PG ? 300 : 0;
export async function afterForeignWrite(): Promise<void> {
  if (FOREIGN_WRITE_DELAY_MS) await Bun.sleep(FOREIGN_WRITE_DELAY_MS);
}

/** The environment a `plinth` child process needs to reach a test server's database. */
export function storeEnv(config: { dataDir: string; databaseUrl: string | null }): Record<string, string | undefined> {
  return { ...process.env, PLINTH_DATA_DIR: config.dataDir, PLINTH_DATABASE_URL: config.databaseUrl ?? undefined };
}
