/**
 * The SQLite face of the column helpers (see columns.ts). Times are epoch
 * milliseconds in INTEGER columns, booleans 0/1 INTEGERs, JSON as TEXT.
 */
import {
  blob,
  index,
  integer as sqliteInteger,
  primaryKey,
  real,
  sqliteTable,
  text,
  uniqueIndex,
} from "drizzle-orm/sqlite-core";

/** Whole numbers: ids, counts, cents. 64-bit on both engines. */
const integer = (name: string) => sqliteInteger(name);

export const sqliteColumns = {
  table: sqliteTable,
  integer,
  text,
  real,
  index,
  uniqueIndex,
  primaryKey,
  id: () => sqliteInteger("id").primaryKey({ autoIncrement: true }),
  createdAt: () =>
    sqliteInteger("created_at", { mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  updatedAt: () =>
    sqliteInteger("updated_at", { mode: "timestamp_ms" })
      .notNull()
      .$defaultFn(() => new Date()),
  time: (name: string) => sqliteInteger(name, { mode: "timestamp_ms" }),
  bool: (name: string) => sqliteInteger(name, { mode: "boolean" }),
  json: <T>(name: string) => text(name, { mode: "json" }).$type<T>(),
  bytes: (name: string) => blob(name, { mode: "buffer" }),
};
