/**
 * The few SQL fragments that differ between SQLite and PostgreSQL, each
 * with both forms side by side, so verbs stay engine-neutral and answer the
 * same on both (test: the whole suite runs on each engine).
 *
 * Text matching folds ASCII letters only, on both engines: SQLite's lower()
 * and LIKE know no other case pairs, and PostgreSQL's lower() would fold
 * more (by its locale), so its side lowers A–Z with translate(). Searches
 * that must fold all of Unicode (REST's title search) match in JS instead.
 */
import { sql, type SQL, type SQLWrapper, type Table } from "drizzle-orm";
import { engine } from "./engine";

const UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const LOWER = "abcdefghijklmnopqrstuvwxyz";

/** Lower-cases ASCII letters only, as the SQL side does. */
export const asciiLower = (s: string) => s.replace(/[A-Z]/g, (c) => c.toLowerCase());

/** LIKE pattern characters taken literally: a search for "50%" means those characters. */
const escapeLike = (s: string) => s.replace(/[\\%_]/g, (m) => `\\${m}`);

function folded(col: SQLWrapper): SQL {
  return engine() === "pg" ? sql`translate(${col}, ${UPPER}, ${LOWER})` : sql`lower(${col})`;
}

/**
 * `col` contains `needle`, ASCII case folded; NULL never matches. On
 * PostgreSQL an ILIKE runs first: it matches everything the ASCII fold
 * matches (and maybe more), costs a fifth of translate(), and leaves
 * translate() only the few rows that can match.
 */
export function containsText(col: SQLWrapper, needle: string): SQL {
  const pattern = `%${escapeLike(asciiLower(needle))}%`;
  if (engine() === "pg")
    return sql`(${col} ilike ${pattern} escape '\\' and ${folded(col)} like ${pattern} escape '\\')`;
  return sql`${folded(col)} like ${pattern} escape '\\'`;
}

/** `col` starts with `prefix`, ASCII case folded. */
export function startsWithText(col: SQLWrapper, prefix: string): SQL {
  return sql`${folded(col)} like ${`${escapeLike(asciiLower(prefix))}%`} escape '\\'`;
}

/** The stored JSON text of `col` contains `needle` exactly (a URL inside block content, say). */
export function jsonContains(col: SQLWrapper, needle: string): SQL {
  const text = engine() === "pg" ? sql`${col}::text` : sql`${col}`;
  return sql`${text} like ${`%${escapeLike(needle)}%`} escape '\\'`;
}

/** How many rows have `col` true. */
export function countTrue(col: SQLWrapper): SQL<number> {
  return sql<number>`coalesce(sum(case when ${col} then 1 else 0 end), 0)`.mapWith(Number);
}

/** The larger of two numbers (SQLite's two-argument max, PostgreSQL's greatest). */
export function greatest(a: SQLWrapper | number, b: SQLWrapper | number): SQL {
  return engine() === "pg" ? sql`greatest(${a}, ${b})` : sql`max(${a}, ${b})`;
}

/**
 * Ordering by text in byte order on both engines (SQLite's BINARY
 * collation; PostgreSQL's depends on the database's locale unless told).
 */
export function byText(col: SQLWrapper): SQL {
  return engine() === "pg" ? sql`${col} collate "C"` : sql`${col}`;
}

/**
 * `SELECT … FOR UPDATE SKIP LOCKED` on PostgreSQL: the row is this
 * transaction's until it ends, and another instance asking for it gets
 * nothing instead of waiting. SQLite has one writer at a time, so the plain
 * select already is that.
 */
export function lockedOrSkipped<Q>(query: Q): Q {
  return engine() === "pg"
    ? (query as unknown as { for(s: string, o: object): Q }).for("update", { skipLocked: true })
    : query;
}

/**
 * `SELECT … FOR UPDATE` on PostgreSQL: the rows are this transaction's until
 * it ends; another writer asking for them waits, then reads them as that
 * one left them. What a read-committed transaction (TxOptions.isolation)
 * locks before deciding on. SQLite has one writer at a time, so the plain
 * select already is that. `of`: of a join, only that table's rows.
 */
export function forUpdate<Q>(query: Q, of?: Table): Q {
  return engine() === "pg"
    ? (query as unknown as { for(s: string, o?: object): Q }).for("update", of ? { of } : undefined)
    : query;
}

/**
 * PostgreSQL: the oldest transaction id still running, as a number; every
 * transaction below it has finished. (On SQLite, 1: the outbox's tx is 0.)
 */
export function finishedTxHorizon(): SQL<number> {
  return engine() === "pg" ? sql<number>`(pg_snapshot_xmin(pg_current_snapshot())::text)::bigint` : sql<number>`1`;
}

/**
 * The value under `key` of a JSON object column, as text (NULL when
 * absent): SQLite's json_extract cast to text, PostgreSQL's ->>. Numbers
 * read as their JSON text ("5"); booleans as 1/0 on SQLite and true/false
 * on PostgreSQL; arrays as their JSON text.
 */
export function jsonFieldText(col: SQLWrapper, key: string): SQL {
  if (!/^[A-Za-z0-9_]+$/.test(key)) throw new Error(`jsonFieldText: unsafe key ${key}`);
  return engine() === "pg" ? sql`(${col} ->> ${key})` : sql`cast(json_extract(${col}, ${`$.${key}`}) as text)`;
}

/** JSON path keys these helpers take: letters, digits, _ and - (quoted in SQLite's path, a parameter on PostgreSQL). */
const pathKeys = (keys: string[]) => {
  for (const k of keys) if (!/^[\w-]+$/.test(k)) throw new Error(`json path: unsafe key ${k}`);
  return keys;
};

/** The text at a JSON path (`col.a.b`), NULL when absent. */
export function jsonPathText(col: SQLWrapper, keys: string[]): SQL {
  pathKeys(keys);
  if (engine() === "pg")
    return sql`json_extract_path_text(${col}, ${sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    )})`;
  return sql`cast(json_extract(${col}, ${`$.${keys.map((k) => `"${k}"`).join(".")}`}) as text)`;
}

/** The JSON number at a path as a SQL number, NULL when absent or not a number. */
export function jsonPathNumber(col: SQLWrapper, keys: string[]): SQL {
  pathKeys(keys);
  if (engine() === "pg") {
    const args = sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    );
    return sql`(case when json_typeof(json_extract_path(${col}, ${args})) = 'number' then json_extract_path_text(${col}, ${args})::numeric end)`;
  }
  const p = `$.${keys.map((k) => `"${k}"`).join(".")}`;
  return sql`(case when json_type(${col}, ${p}) in ('integer', 'real') then json_extract(${col}, ${p}) end)`;
}

/** A number as a parameter compared exactly with jsonPathNumber (numeric on PostgreSQL, a double on SQLite). */
export function numberParam(n: number): SQL {
  return engine() === "pg" ? sql`${String(n)}::numeric` : sql`${n}`;
}

/** A LIKE pattern (escape '\\') matching text that contains / starts with / ends with `s` taken literally, case-sensitively on folded text. */
export function likeFolded(col: SQLWrapper, s: string, where: "contains" | "starts" | "ends"): SQL {
  const e = escapeLike(s);
  const pattern = where === "contains" ? `%${e}%` : where === "starts" ? `${e}%` : `%${e}`;
  return sql`${col} like ${pattern} escape '\\'`;
}

/** The JSON boolean at a path as the text 'true' / 'false', NULL when absent or not a boolean. */
export function jsonPathBool(col: SQLWrapper, keys: string[]): SQL {
  pathKeys(keys);
  if (engine() === "pg") {
    const args = sql.join(
      keys.map((k) => sql`${k}`),
      sql`, `,
    );
    return sql`(case when json_typeof(json_extract_path(${col}, ${args})) = 'boolean' then json_extract_path_text(${col}, ${args}) end)`;
  }
  const p = `$.${keys.map((k) => `"${k}"`).join(".")}`;
  return sql`(case json_type(${col}, ${p}) when 'true' then 'true' when 'false' then 'false' end)`;
}

/** A JSON column as its stored text (comparable and groupable on both engines; PostgreSQL's json has no equality). */
export function jsonAsText(col: SQLWrapper): SQL {
  return engine() === "pg" ? sql`(${col})::text` : sql`${col}`;
}
