/**
 * Multi-row INSERT without drizzle's query builder. Building SQL costs
 * drizzle tens of microseconds per row (measured: AI history's batches of
 * recorded tool calls cost more than the calls themselves); this builds the
 * statement text once per batch shape and passes values through each
 * column's own driver mapping, so rows are stored exactly as
 * `insert().values()` would store them, on both engines. The tables written
 * are reported to the change feed like a builder's writes.
 *
 * A column a row leaves undefined takes its `$defaultFn` value, else its
 * `.default(value)`, else NULL; a default written as SQL is not applied.
 *
 * Rows go in chunks of a power of two (at most MAX_CHUNK): a batch of any
 * size is written with a handful of statement shapes, so each is compiled
 * once and kept — prepared on PostgreSQL, where parsing and planning a
 * fresh 1,500-parameter statement per batch was most of the database's
 * CPU for AI history (and SQLite's statement cache holds a few shapes,
 * not one per batch size).
 */
import { getTableColumns, getTableName, is, SQL, type Table } from "drizzle-orm";
import type { Store } from "./db";

const MAX_CHUNK = 128;
/** Statement texts by column list and row count: a few per table in use. */
const texts = new Map<string, string>();

/** The largest power of two ≤ min(n, MAX_CHUNK). */
export function chunkSize(n: number): number {
  let size = MAX_CHUNK;
  while (size > n) size >>= 1;
  return size;
}

export async function bulkInsert<T extends Table>(
  store: Store,
  table: T,
  rows: readonly T["$inferInsert"][],
): Promise<void> {
  if (!rows.length) return;
  const name = getTableName(table);
  const cols = Object.entries(getTableColumns(table)).filter(
    ([k, c]) => rows.some((r) => (r as Record<string, unknown>)[k] !== undefined) || c.defaultFn,
  );
  const head = `insert into "${name}" (${cols.map(([, c]) => `"${c.name}"`).join(", ")}) values `;
  const one = `(${cols.map(() => "?").join(", ")})`;
  for (let i = 0; i < rows.length; ) {
    const part = rows.slice(i, (i += chunkSize(rows.length - i)));
    const key = `${part.length}|${head}`;
    let text = texts.get(key);
    if (text === undefined) texts.set(key, (text = head + part.map(() => one).join(", ")));
    const params: unknown[] = [];
    for (const r of part)
      for (const [k, c] of cols) {
        let v = (r as Record<string, unknown>)[k];
        if (v === undefined)
          v = c.defaultFn ? c.defaultFn() : c.default !== undefined && !is(c.default, SQL) ? c.default : null;
        params.push(v === null || v === undefined ? null : c.mapToDriverValue(v));
      }
    await store.query(text, params, { writes: [name], prepare: true });
  }
}
