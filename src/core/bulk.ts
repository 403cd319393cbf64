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
 */
import { getTableColumns, getTableName, is, SQL, type Table } from "drizzle-orm";
import type { Store } from "./db";

export async function bulkInsert<T extends Table>(store: Store, table: T, rows: readonly T["$inferInsert"][], chunk = 100): Promise<void> {
  if (!rows.length) return;
  const name = getTableName(table);
  const cols = Object.entries(getTableColumns(table)).filter(([k, c]) => rows.some((r) => (r as Record<string, unknown>)[k] !== undefined) || c.defaultFn);
  const head = `insert into "${name}" (${cols.map(([, c]) => `"${c.name}"`).join(", ")}) values `;
  const one = `(${cols.map(() => "?").join(", ")})`;
  for (let i = 0; i < rows.length; i += chunk) {
    const part = rows.slice(i, i + chunk);
    const params: unknown[] = [];
    for (const r of part)
      for (const [k, c] of cols) {
        let v = (r as Record<string, unknown>)[k];
        if (v === undefined) v = c.defaultFn ? c.defaultFn() : c.default !== undefined && !is(c.default, SQL) ? c.default : null;
        params.push(v === null || v === undefined ? null : c.mapToDriverValue(v));
      }
    await store.query(head + part.map(() => one).join(", "), params, { writes: [name] });
  }
}
