/**
 * The PostgreSQL face of the column helpers (see columns.ts), with each
 * engine's native types: timestamptz (millisecond precision, like SQLite's
 * epoch ms), boolean, json (not jsonb: jsonb reorders object keys, and a
 * post's block content must come back byte-for-byte as SQLite returns it),
 * bytea. Whole numbers are bigint read as JS numbers, so an id or amount
 * that fits SQLite's 64-bit INTEGER (up to 2^53, as the tool schemas allow)
 * fits here too: a hostile large id is "not found", never an overflow.
 */
import {
  bigint,
  boolean,
  customType,
  doublePrecision,
  index,
  json as pgJson,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
} from "drizzle-orm/pg-core";
import type { sqliteColumns } from "./columns-sqlite";

const bytea = customType<{ data: Buffer; driverData: Buffer }>({ dataType: () => "bytea" });
const integer = (name: string) => bigint(name, { mode: "number" });
const time = (name: string) => timestamp(name, { withTimezone: true, precision: 3, mode: "date" });

export const pgColumns = {
  table: pgTable,
  integer,
  text,
  real: doublePrecision,
  index,
  uniqueIndex,
  primaryKey,
  id: () => bigint("id", { mode: "number" }).primaryKey().generatedByDefaultAsIdentity(),
  createdAt: () =>
    time("created_at")
      .notNull()
      .$defaultFn(() => new Date()),
  updatedAt: () =>
    time("updated_at")
      .notNull()
      .$defaultFn(() => new Date()),
  time,
  bool: (name: string) => boolean(name),
  json: <T>(name: string) => pgJson(name).$type<T>(),
  bytes: (name: string) => bytea(name),
} as unknown as typeof sqliteColumns;
