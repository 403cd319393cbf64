/**
 * Which database engine this process runs on: the embedded SQLite store (the
 * default) or PostgreSQL. Table definitions are built for one engine when
 * their modules load (src/core/columns.ts), so the engine is fixed before any
 * tables.ts is imported: main.ts reads --database-url / PLINTH_DATABASE_URL
 * first and imports the rest afterwards; tests and drizzle-kit set
 * PLINTH_DATABASE_URL (or PLINTH_ENGINE) in the environment.
 *
 * This module imports nothing, so it can be loaded first.
 */
export type Engine = "sqlite" | "pg";

/** The engine a database URL names: postgres:// or postgresql:// is PostgreSQL; anything else (or none) is SQLite. */
export function engineOfUrl(url: string | undefined | null): Engine {
  return url && /^postgres(ql)?:\/\//i.test(url) ? "pg" : "sqlite";
}

let chosen: Engine | null = null;
let read = false;

/**
 * Fixes the engine for this process. Only main.ts calls it, before it loads
 * anything that defines a table; calling it later with another engine is a
 * programming error (tables of the other engine were already built).
 */
export function setEngine(e: Engine): void {
  if (read && engine() !== e) throw new Error(`engine already fixed as ${engine()}; cannot switch to ${e}`);
  chosen = e;
}

export function engine(): Engine {
  read = true;
  if (chosen) return chosen;
  const env = typeof process === "undefined" ? {} : process.env;
  chosen =
    env.PLINTH_ENGINE === "pg" || env.PLINTH_ENGINE === "sqlite"
      ? env.PLINTH_ENGINE
      : engineOfUrl(env.PLINTH_DATABASE_URL);
  return chosen;
}
