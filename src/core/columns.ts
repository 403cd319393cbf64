/**
 * Column helpers every tables.ts imports: one table definition, built for
 * the engine this process runs on (src/core/engine.ts). drizzle has no
 * dialect-neutral table builder, so each engine has one small module of
 * helpers with the same names (columns-sqlite.ts, columns-pg.ts) and this
 * module hands out one of them. drizzle-kit generates each engine's
 * migrations from the same tables.ts files (drizzle.config.ts,
 * drizzle.pg.config.ts).
 *
 * Types are SQLite's: verbs are written once against them and use only what
 * both engines' query builders share (awaited queries, `.returning()`,
 * `onConflictDoUpdate`); test/core/engine-neutral.test.ts refuses the
 * SQLite-only `.get()/.all()/.run()` in src, and the whole suite runs on
 * both engines (make test, make test-pg).
 *
 * Times are Date in code (epoch ms / timestamptz in storage), booleans are
 * booleans, JSON columns hold parsed values.
 */
import { engine } from "./engine";
import { pgColumns } from "./columns-pg";
import { sqliteColumns } from "./columns-sqlite";

const c = engine() === "pg" ? pgColumns : sqliteColumns;

export const table = c.table;
export const integer = c.integer;
export const text = c.text;
export const real = c.real;
export const index = c.index;
export const uniqueIndex = c.uniqueIndex;
export const primaryKey = c.primaryKey;
export const id = c.id;
export const createdAt = c.createdAt;
export const updatedAt = c.updatedAt;
export const time = c.time;
export const bool = c.bool;
export const json = c.json;
export const bytes = c.bytes;
