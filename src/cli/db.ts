/**
 * `plinth db copy --from <source> --to <target>`: moves an install from the
 * embedded SQLite store to PostgreSQL, or back, with its ids and media.
 *
 *  1. Refuses a source whose applied migrations are not exactly this
 *     binary's, and a target that holds rows or was migrated by another
 *     version; migrates the target (creating the schema) when needed.
 *  2. Reads both catalogs. What to copy, and in which order, comes from the
 *     target's catalog (pg_constraint, PRAGMA foreign_key_list), so a new
 *     domain's tables are copied without touching this file. Column types
 *     come from the PostgreSQL side (one side always is one), and every
 *     value is converted by them: 0/1 ↔ boolean, epoch ms ↔ timestamptz,
 *     JSON text ↔ json (verbatim, key order kept), blob ↔ bytea.
 *  3. In one transaction on the target, reading one snapshot of the source
 *     in pages (PAGE_ROWS rows or PAGE_BYTES bytes, whichever comes first):
 *     every table's rows with their ids, referenced tables first. A foreign
 *     key back into its own table (a parent id that may point to a later
 *     row), or one that closes a cycle between tables, is inserted as NULL
 *     and filled in by a second pass (UPDATE by primary key) once every row
 *     is in. That needs nothing but INSERT and UPDATE on the tables, so the
 *     database's ordinary owner can run it: no superuser, no
 *     session_replication_role, no DEFERRABLE constraints, no disabled
 *     triggers. (Such a column must be nullable; a NOT NULL one is refused.)
 *  4. Compares row counts table by table, moves every identity sequence
 *     (SQLite: the AUTOINCREMENT counter) to the largest copied id, or to the
 *     source's own counter when that is higher (so ids of deleted rows are
 *     never handed out again), copies the media files into the target's
 *     media store and checks them, and only then commits. Any failure rolls
 *     the whole copy back: the target keeps its schema and no rows.
 *
 * The PostgreSQL side goes through the store (src/core/db.ts), so it is
 * migrated by the same code as always and its "db" media store
 * (src/core/blobs-db.ts) writes inside the copy's transaction; main.ts builds
 * this process's tables for PostgreSQL when the command is `db copy`. The
 * SQLite side is a plain bun:sqlite connection (this process's tables are
 * not built for it).
 */
import { Database } from "bun:sqlite";
import { getTableName } from "drizzle-orm";
import type postgres from "postgres";
import { existsSync, mkdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { migrations } from "../../db/migrations/index";
import type { Config } from "../config";
import { bodyBytes, openBlobStore, type BlobStore } from "../core/blobs";
import { dbBlobStore } from "../core/blobs-db";
import { localBlobStore } from "../core/blobs-local";
import { mediaBlobs } from "../core/tables";
import type { Store } from "../core/db";
import { openStore } from "../core/open";
import { MIME_BY_EXT } from "../domains/cms/media-sniff";
import { needFlag, UsageError, type Command } from "./command";

/** Rows per page read from the source and written in one statement. */
export const PAGE_ROWS = 2000;
/** …unless the page's values reach this many bytes first (posts with large block content). */
export const PAGE_BYTES = 8 * 1024 * 1024;
const LEDGER = "_migrations";

// ---------------------------------------------------------------------------
// Values

/** What a column holds, from the PostgreSQL side's type. */
type Kind = "integer" | "real" | "text" | "boolean" | "timestamp" | "json" | "bytes";

/**
 * A value between the engines: integer → bigint, real → number, text →
 * string, boolean → boolean, timestamp → epoch ms (number), json → its text,
 * bytes → Uint8Array.
 */
type Value = null | bigint | number | string | boolean | Uint8Array;

function kindOfPgType(type: string): Kind | null {
  if (/^(bigint|integer|smallint)$/.test(type)) return "integer";
  if (/^(double precision|real)$/.test(type)) return "real";
  if (/^(text|character varying|character)\b/.test(type)) return "text";
  if (type === "boolean") return "boolean";
  if (/^timestamp\b/.test(type)) return "timestamp";
  if (type === "json" || type === "jsonb") return "json";
  if (type === "bytea") return "bytes";
  return null;
}

/** A value that does not fit its column: names the table, column and row. */
class BadValue extends Error {}

function show(v: unknown): string {
  if (v instanceof Uint8Array) return `${v.byteLength} bytes`;
  const s = typeof v === "string" ? JSON.stringify(v) : String(v);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/** A raw bun:sqlite value (safeIntegers on) as the canonical value of its kind. */
function fromSqlite(v: unknown, kind: Kind): Value {
  if (v === null || v === undefined) return null;
  const bad = (what: string) => {
    throw new BadValue(`${show(v)} is not ${what}`);
  };
  switch (kind) {
    case "integer":
      if (typeof v === "bigint") return v;
      if (typeof v === "number" && Number.isInteger(v)) return BigInt(v);
      if (typeof v === "string" && /^-?\d{1,19}$/.test(v)) return BigInt(v);
      return bad("a whole number");
    case "real":
      if (typeof v === "number") return v;
      if (typeof v === "bigint") return Number(v);
      return bad("a number");
    case "boolean":
      if (v === 0n || v === 0) return false;
      if (v === 1n || v === 1) return true;
      return bad("a boolean (0 or 1)");
    case "timestamp":
      if (typeof v === "bigint" || (typeof v === "number" && Number.isInteger(v))) {
        const ms = Number(v);
        if (Math.abs(ms) <= 8.64e15) return ms;
      }
      return bad("a time (epoch milliseconds)");
    case "text":
    case "json":
      if (typeof v === "string") return v;
      if (typeof v === "number" || typeof v === "bigint") return String(v);
      return bad("text");
    case "bytes":
      if (v instanceof Uint8Array) return v;
      if (typeof v === "string") return Buffer.from(v);
      return bad("bytes");
  }
}

/** The canonical value as bun:sqlite binds it into the SQLite store's columns. */
function toSqlite(v: Value, kind: Kind): unknown {
  if (v === null) return null;
  switch (kind) {
    case "integer":
      return typeof v === "bigint" && v >= BigInt(Number.MIN_SAFE_INTEGER) && v <= BigInt(Number.MAX_SAFE_INTEGER)
        ? Number(v)
        : v;
    case "boolean":
      return v ? 1 : 0;
    default:
      return v;
  }
}

/** The select expression that reads a PostgreSQL column as its canonical value (fromPg finishes the job). */
function pgSelect(column: string, kind: Kind): string {
  const c = q(column);
  switch (kind) {
    case "integer":
    case "json":
      return `${c}::text`;
    case "timestamp":
      return `(extract(epoch from ${c}) * 1000)::int8::text`;
    default:
      return c;
  }
}

function fromPg(v: unknown, kind: Kind): Value {
  if (v === null || v === undefined) return null;
  switch (kind) {
    case "integer":
      return BigInt(v as string);
    case "timestamp":
      return Number(v);
    case "bytes":
      return v as Uint8Array;
    default:
      return v as Value;
  }
}

/** The canonical value as the text PostgreSQL parses into the column's type (every parameter is text, cast in SQL). */
function toPgText(v: Value, kind: Kind): string | null {
  if (v === null) return null;
  switch (kind) {
    case "boolean":
      return v ? "t" : "f";
    case "timestamp":
      return new Date(v as number).toISOString();
    case "bytes":
      return `\\x${Buffer.from(v as Uint8Array).toString("hex")}`;
    default:
      return String(v);
  }
}

function sizeOf(row: Value[]): number {
  let n = 0;
  for (const v of row) n += typeof v === "string" ? v.length * 2 : v instanceof Uint8Array ? v.byteLength : 8;
  return n;
}

/** A quoted identifier (both engines). */
function q(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

// ---------------------------------------------------------------------------
// Catalogs and the plan

interface Column {
  name: string;
  notNull: boolean;
  /** format_type() on PostgreSQL; null on SQLite. */
  pgType: string | null;
}

interface TableInfo {
  name: string;
  columns: Column[];
  /** Primary key columns, in key order (empty: none). */
  pk: string[];
  /** The column ids come from: an identity (or serial) column on PostgreSQL, an AUTOINCREMENT key on SQLite. */
  identity: string | null;
}

interface ForeignKey {
  table: string;
  columns: string[];
  ref: string;
}

interface Catalog {
  tables: Map<string, TableInfo>;
  fks: ForeignKey[];
}

/** Refused before or instead of copying: one line for the operator, exit 1. */
class Refusal extends Error {}

/**
 * The order to insert tables in (referenced tables first; ties by name) and
 * the foreign-key columns to insert as NULL and fill in afterwards: every
 * self-reference, and on each cycle between tables one nullable edge.
 */
export function copyOrder(
  tables: string[],
  fks: ForeignKey[],
  nullable: (table: string, column: string) => boolean,
): { order: string[]; deferred: { table: string; column: string }[] } {
  const names = new Set(tables);
  const deferred: { table: string; column: string }[] = [];
  const defer = (fk: ForeignKey, why: string) => {
    const notNull = fk.columns.filter((c) => !nullable(fk.table, c));
    if (notNull.length)
      throw new Refusal(
        `${fk.table}.${notNull.join(", ")} ${why}, but is NOT NULL: db copy cannot insert those rows in any order (make the column nullable or the constraint DEFERRABLE)`,
      );
    for (const column of fk.columns)
      if (!deferred.some((d) => d.table === fk.table && d.column === column))
        deferred.push({ table: fk.table, column });
  };
  let edges: ForeignKey[] = [];
  for (const fk of fks) {
    if (!names.has(fk.table) || !names.has(fk.ref)) continue;
    if (fk.table === fk.ref) defer(fk, `refers to its own table ${fk.ref}`);
    else edges.push(fk);
  }
  const order: string[] = [];
  const left = new Set([...names].sort());
  while (left.size) {
    const ready = [...left].find((t) => !edges.some((e) => e.table === t && left.has(e.ref)));
    if (ready) {
      order.push(ready);
      left.delete(ready);
      continue;
    }
    // Every table left waits for another one left: a cycle. Break it at a nullable edge.
    const inCycle = edges
      .filter((e) => left.has(e.table) && left.has(e.ref))
      .sort(
        (a, b) =>
          a.table.localeCompare(b.table) ||
          a.ref.localeCompare(b.ref) ||
          a.columns.join().localeCompare(b.columns.join()),
      );
    const breakable = inCycle.find((e) => e.columns.every((c) => nullable(e.table, c)));
    const edge = breakable ?? inCycle[0]!;
    defer(edge, `closes a cycle of foreign keys (${[...left].join(", ")})`);
    edges = edges.filter((e) => e !== edge);
  }
  return { order, deferred };
}

interface TablePlan {
  name: string;
  source: TableInfo;
  target: TableInfo;
  columns: string[];
  kinds: Kind[];
  /** Indexes into columns inserted as NULL and filled in by the second pass. */
  deferred: number[];
}

interface Plan {
  tables: TablePlan[];
  /** Target tables the source lacks: left empty. */
  targetOnly: string[];
  /** Source tables the target lacks: refused if they hold rows. */
  sourceOnly: string[];
}

function makePlan(src: Catalog, dst: Catalog, pgSide: "source" | "target", skip: Set<string>): Plan {
  const pgCat = pgSide === "source" ? src : dst;
  const common = [...dst.tables.keys()].filter((t) => src.tables.has(t) && !skip.has(t));
  const { order, deferred } = copyOrder(
    common,
    dst.fks,
    (t, c) => !dst.tables.get(t)!.columns.find((x) => x.name === c)?.notNull,
  );
  const tables = order.map((name): TablePlan => {
    const source = src.tables.get(name)!;
    const target = dst.tables.get(name)!;
    const have = new Set(source.columns.map((c) => c.name));
    const want = new Set(target.columns.map((c) => c.name));
    const missing = [...want].filter((c) => !have.has(c));
    const extra = [...have].filter((c) => !want.has(c));
    if (missing.length || extra.length)
      throw new Refusal(
        `table ${name} differs between source and target (${[
          missing.length ? `only in the target: ${missing.join(", ")}` : "",
          extra.length ? `only in the source: ${extra.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join("; ")}); are both at the same migration level?`,
      );
    const columns = target.columns.map((c) => c.name);
    const kinds = columns.map((c) => {
      const col = pgCat.tables.get(name)!.columns.find((x) => x.name === c)!;
      const kind = kindOfPgType(col.pgType!);
      if (!kind) throw new Refusal(`${name}.${c} has type ${col.pgType}, which db copy does not know how to convert`);
      return kind;
    });
    const late = deferred.filter((d) => d.table === name).map((d) => columns.indexOf(d.column));
    if (late.length && !target.pk.length)
      throw new Refusal(
        `table ${name} needs a second pass for ${deferred.map((d) => d.column).join(", ")} but has no primary key`,
      );
    return { name, source, target, columns, kinds, deferred: late };
  });
  return {
    tables,
    targetOnly: [...dst.tables.keys()].filter((t) => !src.tables.has(t)).sort(),
    sourceOnly: [...src.tables.keys()].filter((t) => !dst.tables.has(t)).sort(),
  };
}

// ---------------------------------------------------------------------------
// The two sides

interface Reader {
  count(table: string): Promise<number>;
  /** Rows of `columns` in primary-key order, in pages; `whereSet` keeps rows where that column is not NULL. */
  pages(t: TableInfo, columns: string[], kinds: Kind[], whereSet?: string): AsyncGenerator<Value[][]>;
  /** The last id the source handed out for the table (its sequence or AUTOINCREMENT counter); 0 when none. */
  lastId(t: TableInfo): Promise<number>;
}

interface Writer {
  firstNonEmpty(tables: string[]): Promise<string | null>;
  insert(t: TableInfo, columns: string[], kinds: Kind[], rows: Value[][]): Promise<void>;
  /** rows: [...primary key, value]. */
  update(t: TableInfo, column: string, kinds: Kind[], rows: Value[][]): Promise<void>;
  count(table: string): Promise<number>;
  /** Moves the id source past max(id) and `atLeast`; returns the id the next new row gets, or null when the table has none. */
  continueIds(t: TableInfo, atLeast: number): Promise<number | null>;
}

interface Side {
  readonly engine: "sqlite" | "pg";
  /** For messages: the URL without its password, or sqlite:<file>. */
  readonly label: string;
  /** Applied migration tags; null without a ledger. */
  ledger(): Promise<string[] | null>;
  catalog(): Promise<Catalog>;
  migrate(): Promise<string[]>;
  /** Runs fn over one consistent snapshot (source). */
  snapshot<T>(fn: (r: Reader) => Promise<T>): Promise<T>;
  /** Runs fn in one transaction, rolled back when it throws (target). */
  write<T>(fn: (w: Writer) => Promise<T>): Promise<T>;
  /** Outside any transaction: the first of `tables` that has a row. */
  firstNonEmpty(tables: string[]): Promise<string | null>;
  close(): Promise<void>;
}

function sqliteCatalog(db: Database): Catalog {
  const all = <T>(sql: string, ...params: string[]) => db.query(sql).all(...params) as T[];
  const tables = new Map<string, TableInfo>();
  const fks: ForeignKey[] = [];
  const rows = all<{ name: string; sql: string | null }>(
    // Virtual tables (full-text indexes) and their shadow tables are not data: triggers rebuild them from the rows copied.
    "SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> ? AND name IN (SELECT name FROM pragma_table_list WHERE type = 'table') ORDER BY name",
    LEDGER,
  );
  for (const { name, sql } of rows) {
    const cols = all<{ name: string; notnull: bigint | number; pk: bigint | number; hidden: bigint | number }>(
      `SELECT * FROM pragma_table_xinfo(?)`,
      name,
    );
    const visible = cols.filter((c) => Number(c.hidden) === 0);
    const pk = visible
      .filter((c) => Number(c.pk) > 0)
      .sort((a, b) => Number(a.pk) - Number(b.pk))
      .map((c) => c.name);
    const identity = pk.length === 1 && /\bAUTOINCREMENT\b/i.test(sql ?? "") ? pk[0]! : null;
    tables.set(name, {
      name,
      columns: visible.map((c) => ({
        name: c.name,
        notNull: Number(c.notnull) === 1 || pk.includes(c.name),
        pgType: null,
      })),
      pk,
      identity,
    });
    const byId = new Map<string, ForeignKey>();
    for (const fk of all<{ id: bigint | number; table: string; from: string }>(
      `SELECT * FROM pragma_foreign_key_list(?) ORDER BY id, seq`,
      name,
    )) {
      const key = String(fk.id);
      const got = byId.get(key) ?? { table: name, columns: [], ref: fk.table };
      got.columns.push(fk.from);
      byId.set(key, got);
    }
    fks.push(...byId.values());
  }
  return { tables, fks };
}

/** The SQLite store: one plinth.sqlite, opened with a plain connection. */
class SqliteSide implements Side {
  readonly engine = "sqlite";
  readonly label: string;
  private db: Database;

  constructor(
    readonly file: string,
    create: boolean,
  ) {
    this.label = `sqlite:${file}`;
    if (create) mkdirSync(dirname(file), { recursive: true });
    this.db = new Database(file, { create, readwrite: true, strict: true, safeIntegers: true });
    this.db.exec("PRAGMA busy_timeout = 5000");
    this.db.exec("PRAGMA foreign_keys = ON");
    if (create) this.db.exec("PRAGMA journal_mode = WAL");
    else this.db.exec("PRAGMA query_only = ON");
  }

  get dataDir(): string {
    return dirname(this.file);
  }

  private all<T>(sql: string, ...params: unknown[]): T[] {
    return this.db.query(sql).all(...(params as [])) as T[];
  }

  async ledger() {
    if (!this.all("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", LEDGER).length) return null;
    return this.all<{ tag: string }>(`SELECT tag FROM ${LEDGER} ORDER BY tag`).map((r) => r.tag);
  }

  async catalog() {
    return sqliteCatalog(this.db);
  }

  /** The same steps as the store's own migrate (src/core/db.ts), on this connection. */
  async migrate() {
    this.db.exec(`CREATE TABLE IF NOT EXISTS ${LEDGER} (tag TEXT PRIMARY KEY, applied_at INTEGER NOT NULL)`);
    const done = new Set((await this.ledger())!);
    const applied: string[] = [];
    for (const m of migrations.sqlite) {
      if (done.has(m.tag)) continue;
      this.db.transaction(() => {
        for (const stmt of m.sql.split("--> statement-breakpoint")) if (stmt.trim()) this.db.exec(stmt);
        this.db.query(`INSERT INTO ${LEDGER} (tag, applied_at) VALUES (?, ?)`).run(m.tag, Date.now());
      })();
      applied.push(m.tag);
    }
    return applied;
  }

  async firstNonEmpty(tables: string[]) {
    return tables.find((t) => this.all(`SELECT 1 FROM ${q(t)} LIMIT 1`).length > 0) ?? null;
  }

  async snapshot<T>(fn: (r: Reader) => Promise<T>): Promise<T> {
    const db = this.db;
    const all = this.all.bind(this);
    const hasSequence = all("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").length > 0;
    const reader: Reader = {
      async count(table) {
        return Number(all<{ n: bigint }>(`SELECT count(*) AS n FROM ${q(table)}`)[0]!.n);
      },
      async *pages(t, columns, kinds, whereSet) {
        const order = t.pk.length ? t.pk.map(q).join(", ") : "rowid";
        const stmt = db.prepare(
          `SELECT ${columns.map(q).join(", ")} FROM ${q(t.name)}${whereSet ? ` WHERE ${q(whereSet)} IS NOT NULL` : ""} ORDER BY ${order}`,
        );
        try {
          let page: Value[][] = [];
          let bytes = 0;
          for (const raw of stmt.iterate() as Iterable<Record<string, unknown>>) {
            const row = columns.map((c, i) => {
              try {
                return fromSqlite(raw[c], kinds[i]!);
              } catch (e) {
                if (!(e instanceof BadValue)) throw e;
                const at = t.pk.length ? ` (row ${t.pk.map((k) => `${k}=${show(raw[k])}`).join(", ")})` : "";
                throw new BadValue(`${t.name}.${c}${at}: ${e.message}`);
              }
            });
            page.push(row);
            bytes += sizeOf(row);
            if (page.length >= PAGE_ROWS || bytes >= PAGE_BYTES) {
              yield page;
              page = [];
              bytes = 0;
            }
          }
          if (page.length) yield page;
        } finally {
          stmt.finalize();
        }
      },
      async lastId(t) {
        if (!hasSequence) return 0;
        const r = all<{ seq: bigint }>("SELECT seq FROM sqlite_sequence WHERE name = ?", t.name)[0];
        return r ? Number(r.seq) : 0;
      },
    };
    // A read transaction: every page of every table from the same snapshot, whatever a running server writes meanwhile.
    db.exec("BEGIN");
    try {
      return await fn(reader);
    } finally {
      db.exec("ROLLBACK");
    }
  }

  async write<T>(fn: (w: Writer) => Promise<T>): Promise<T> {
    const db = this.db;
    const all = this.all.bind(this);
    const inserts = new Map<string, ReturnType<Database["prepare"]>>();
    const writer: Writer = {
      firstNonEmpty: (tables) => this.firstNonEmpty(tables),
      async insert(t, columns, kinds, rows) {
        let stmt = inserts.get(t.name);
        if (!stmt) {
          stmt = db.prepare(
            `INSERT INTO ${q(t.name)} (${columns.map(q).join(", ")}) VALUES (${columns.map(() => "?").join(", ")})`,
          );
          inserts.set(t.name, stmt);
        }
        for (const row of rows) stmt.run(...(row.map((v, i) => toSqlite(v, kinds[i]!)) as []));
      },
      async update(t, column, kinds, rows) {
        const stmt = db.prepare(
          `UPDATE ${q(t.name)} SET ${q(column)} = ? WHERE ${t.pk.map((k) => `${q(k)} = ?`).join(" AND ")}`,
        );
        try {
          const n = t.pk.length;
          for (const row of rows)
            stmt.run(
              toSqlite(row[n]!, kinds[n]!) as never,
              ...(row.slice(0, n).map((v, i) => toSqlite(v, kinds[i]!)) as []),
            );
        } finally {
          stmt.finalize();
        }
      },
      async count(table) {
        return Number(all<{ n: bigint }>(`SELECT count(*) AS n FROM ${q(table)}`)[0]!.n);
      },
      async continueIds(t, atLeast) {
        if (!t.identity) return null;
        const max = Number(
          all<{ m: bigint | null }>(`SELECT max(${q(t.identity)}) AS m FROM ${q(t.name)}`)[0]!.m ?? 0n,
        );
        const next = Math.max(max, atLeast);
        // Inserting explicit ids already moved the counter to max(id); the source's counter may be higher.
        if (next > 0) {
          const changed = db
            .query("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?")
            .run(next, t.name).changes;
          if (!changed) db.query("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)").run(t.name, next);
        }
        return next + 1;
      },
    };
    db.exec("BEGIN IMMEDIATE");
    try {
      const r = await fn(writer);
      db.exec("COMMIT");
      return r;
    } catch (e) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw e;
    } finally {
      for (const s of inserts.values()) s.finalize();
    }
  }

  async close() {
    try {
      // Fold the WAL back into the file, as the store does on close.
      this.db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
    } catch {}
    this.db.close();
  }
}

/** Redacts the password of a postgres:// URL for messages. */
function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "postgres://…";
  }
}

const PG_CATALOG = `
SELECT c.relname AS "table", a.attname AS "column", format_type(a.atttypid, a.atttypmod) AS "type", a.attnotnull AS "notNull",
       (a.attidentity <> '' OR coalesce(pg_get_expr(d.adbin, d.adrelid), '') LIKE 'nextval(%') AS "identity",
       coalesce((SELECT array_position(k.conkey, a.attnum) FROM pg_constraint k WHERE k.conrelid = c.oid AND k.contype = 'p'), 0) AS "pk"
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attgenerated = ''
LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p') AND c.relname <> '${LEDGER}'
ORDER BY c.relname, a.attnum`;

const PG_FOREIGN_KEYS = `
SELECT c.relname AS "table", r.relname AS "ref",
       (SELECT json_agg(a.attname ORDER BY x.n) FROM unnest(k.conkey) WITH ORDINALITY AS x(attnum, n)
          JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.attnum) AS "columns"
FROM pg_constraint k
JOIN pg_class c ON c.oid = k.conrelid
JOIN pg_class r ON r.oid = k.confrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE k.contype = 'f' AND n.nspname = current_schema()
ORDER BY c.relname, k.conname`;

/** PostgreSQL through the store: migrations, transactions and the "db" media store as the server has them. */
class PgSide implements Side {
  readonly engine = "pg";
  readonly label: string;
  readonly store: Store;

  constructor(readonly url: string) {
    this.label = redact(url);
    this.store = openStore({ dataDir: ":memory:", databaseUrl: url, poolSize: 2 });
  }

  async ledger() {
    const [r] = await this.store.query<{ t: string | null }>(`SELECT to_regclass('${LEDGER}')::text AS t`);
    if (!r?.t) return null;
    return (await this.store.query<{ tag: string }>(`SELECT tag FROM ${LEDGER} ORDER BY tag`)).map((x) => x.tag);
  }

  async catalog(): Promise<Catalog> {
    const tables = new Map<string, TableInfo>();
    type Row = { table: string; column: string; type: string; notNull: boolean; identity: boolean; pk: number };
    for (const r of await this.store.query<Row>(PG_CATALOG)) {
      let t = tables.get(r.table);
      if (!t) tables.set(r.table, (t = { name: r.table, columns: [], pk: [], identity: null }));
      t.columns.push({ name: r.column, notNull: r.notNull, pgType: r.type });
      if (r.identity) t.identity = r.column;
      if (r.pk > 0) t.pk[r.pk - 1] = r.column;
    }
    const fks = (await this.store.query<{ table: string; ref: string; columns: string[] }>(PG_FOREIGN_KEYS)).map(
      (r) => ({ ...r }),
    );
    return { tables, fks };
  }

  migrate() {
    return this.store.migrate();
  }

  async firstNonEmpty(tables: string[]) {
    for (const t of tables) if ((await this.store.query(`SELECT 1 FROM ${q(t)} LIMIT 1`)).length) return t;
    return null;
  }

  async snapshot<T>(fn: (r: Reader) => Promise<T>): Promise<T> {
    return (await this.store.pg!.begin("isolation level repeatable read read only", async (tx) => {
      const reader: Reader = {
        async count(table) {
          return Number((await tx.unsafe(`SELECT count(*) AS n FROM ${q(table)}`))[0]!.n);
        },
        async *pages(t, columns, kinds, whereSet) {
          const sql = `SELECT ${columns.map((c, i) => `${pgSelect(c, kinds[i]!)} AS c${i}`).join(", ")} FROM ${q(t.name)}${
            whereSet ? ` WHERE ${q(whereSet)} IS NOT NULL` : ""
          }${t.pk.length ? ` ORDER BY ${t.pk.map(q).join(", ")}` : ""}`;
          for await (const rows of tx.unsafe(sql).cursor(Math.min(PAGE_ROWS, 500))) {
            yield rows.map((r) => columns.map((_, i) => fromPg(r[`c${i}`], kinds[i]!)));
          }
        },
        async lastId(t) {
          if (!t.identity) return 0;
          const [r] = await tx.unsafe(
            `SELECT pg_sequence_last_value(pg_get_serial_sequence(quote_ident(current_schema()) || '.' || quote_ident($1), $2)::regclass)::text AS v`,
            [t.name, t.identity],
          );
          return r?.v ? Number(r.v) : 0;
        },
      };
      return fn(reader);
    })) as T;
  }

  async write<T>(fn: (w: Writer) => Promise<T>): Promise<T> {
    // Silent: the change feed has nothing to tell (no server runs on an empty target).
    return this.store.transaction(
      async (tx) => {
        // The transaction's own connection, as the store's query() finds it, but without its mapping of
        // engine errors to user-facing messages: an operator needs "Key (order_id)=(9) is not present".
        const sql = (tx as unknown as { session: { client: postgres.Sql } }).session.client;
        const run = (text: string, params: unknown[] = []) =>
          sql.unsafe(text, params as postgres.ParameterOrJSON<never>[]);
        const type = (t: TableInfo, c: string) => t.columns.find((x) => x.name === c)!.pgType!;
        const unnest = (n: number) =>
          `unnest(${Array.from({ length: n }, (_, i) => `$${i + 1}::text[]`).join(", ")}) AS u(${Array.from({ length: n }, (_, i) => `c${i}`).join(", ")})`;
        const seq = `pg_get_serial_sequence(quote_ident(current_schema()) || '.' || quote_ident($1), $2)`;
        const writer: Writer = {
          async firstNonEmpty(tables) {
            for (const t of tables) if ((await run(`SELECT 1 FROM ${q(t)} LIMIT 1`)).length) return t;
            return null;
          },
          async insert(t, columns, kinds, rows) {
            if (!rows.length) return;
            // GENERATED ALWAYS identity columns take the copied ids too.
            const overriding = t.identity ? " OVERRIDING SYSTEM VALUE" : "";
            await run(
              `INSERT INTO ${q(t.name)} (${columns.map(q).join(", ")})${overriding} SELECT ${columns
                .map((c, i) => `u.c${i}::${type(t, c)}`)
                .join(", ")} FROM ${unnest(columns.length)}`,
              columns.map((_, i) => rows.map((r) => toPgText(r[i]!, kinds[i]!))),
            );
          },
          async update(t, column, kinds, rows) {
            if (!rows.length) return;
            const names = [...t.pk, column];
            const n = t.pk.length;
            await run(
              `UPDATE ${q(t.name)} AS t SET ${q(column)} = u.c${n}::${type(t, column)} FROM ${unnest(names.length)} WHERE ${t.pk
                .map((k, i) => `t.${q(k)} = u.c${i}::${type(t, k)}`)
                .join(" AND ")}`,
              names.map((_, i) => rows.map((r) => toPgText(r[i]!, kinds[i]!))),
            );
          },
          async count(table) {
            return Number((await run(`SELECT count(*) AS n FROM ${q(table)}`))[0]!.n);
          },
          async continueIds(t, atLeast) {
            if (!t.identity) return null;
            const [m] = await run(`SELECT max(${q(t.identity)})::text AS m FROM ${q(t.name)}`);
            const next = Math.max(Number(m?.m ?? 0), atLeast);
            if (next > 0) await run(`SELECT setval(${seq}, $3, true)`, [t.name, t.identity, next]);
            else await run(`SELECT setval(${seq}, 1, false)`, [t.name, t.identity]);
            return next + 1;
          },
        };
        // No other writer until the copy commits (readers still read): a server started on the target too early waits.
        const tables = (
          await run(
            `SELECT quote_ident(relname) AS t FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')`,
          )
        ).map((r) => r.t as string);
        if (tables.length) await run(`LOCK TABLE ${tables.join(", ")} IN EXCLUSIVE MODE`);
        return fn(writer);
      },
      { silent: true },
    );
  }

  async close() {
    await this.store.close();
  }
}

// ---------------------------------------------------------------------------
// Arguments

type Endpoint = { engine: "sqlite"; file: string } | { engine: "pg"; url: string };

const PG_URL = /^postgres(ql)?:\/\/\S+$/i;

function parseEndpoint(flag: "from" | "to", raw: string): Endpoint {
  if (PG_URL.test(raw)) return { engine: "pg", url: raw };
  let path = raw;
  if (/^sqlite:/i.test(path)) path = path.slice("sqlite:".length);
  else if (/^[a-z][a-z0-9+.-]*:/i.test(path))
    throw new UsageError(
      `--${flag} must be sqlite:<data dir or plinth.sqlite> (or a bare path) or postgres://…, got "${raw}"`,
    );
  if (!path) throw new UsageError(`--${flag} names no path`);
  path = resolve(path);
  const isDir = existsSync(path) && statSync(path).isDirectory();
  if (flag === "from") {
    const file = isDir ? join(path, "plinth.sqlite") : path;
    if (!existsSync(file) || !statSync(file).isFile())
      throw new UsageError(
        `--from: no Plinth database at ${file} (give the data dir holding plinth.sqlite, or the file itself)`,
      );
    return { engine: "sqlite", file };
  }
  // A target: an existing dir, or a path that does not look like a file, is a data dir.
  const file = isDir || !/\.(sqlite3?|db)$/i.test(basename(path)) ? join(path, "plinth.sqlite") : path;
  return { engine: "sqlite", file };
}

// ---------------------------------------------------------------------------
// The copy

/** Row counts that differ after the copy: rolled back, listed, exit 1. */
class Mismatch extends Error {
  constructor(readonly tables: { table: string; source: number; target: number }[]) {
    super(`row counts differ: ${tables.map((t) => `${t.table} (source ${t.source}, target ${t.target})`).join(", ")}`);
  }
}

/** A failure while copying one table: the table's name, then the engine's own words. */
function failureMessage(table: string | null, e: unknown): string {
  const err = e as { message?: string; detail?: string; cause?: unknown };
  let root: unknown = e;
  for (let i = 0; i < 4 && root instanceof Error && root.cause instanceof Error; i++) root = root.cause;
  const r = root as { message?: string; detail?: string };
  const msg = r?.message ?? err?.message ?? String(e);
  const detail = r?.detail ?? err?.detail;
  return `${table ? `copying ${table}: ` : ""}${msg}${detail ? ` (${detail})` : ""}`;
}

function mimeOf(key: string): string {
  const ext = /\.([a-z0-9]+)$/i.exec(key)?.[1]?.toLowerCase() ?? "";
  return MIME_BY_EXT[ext] ?? "application/octet-stream";
}

interface MediaCopy {
  from: BlobStore;
  to: BlobStore;
  /** For the summary: "local /data/media → db". */
  label: string;
}

/**
 * Where the media bytes go: from the source's store into the target's.
 * SQLite → PostgreSQL: the files in the source data dir into the target's
 * configured store (PLINTH_MEDIA_STORE; "db" by default on PostgreSQL).
 * PostgreSQL → SQLite: the "db" store's blobs into the target data dir.
 * Null when both name the same place (a local store in the same data dir).
 */
function mediaCopy(config: Config, flags: Record<string, string | true>, source: Side, target: Side): MediaCopy | null {
  if (source instanceof SqliteSide && target instanceof PgSide) {
    const explicit = flags["media-store"] !== undefined || process.env.PLINTH_MEDIA_STORE !== undefined;
    const kind = explicit ? config.mediaStore : "db";
    if (kind === "local" && resolve(config.dataDir) === resolve(source.dataDir)) return null;
    const to = openBlobStore({ config: { ...config, mediaStore: kind, databaseUrl: target.url }, store: target.store });
    const where =
      kind === "local"
        ? `local ${join(resolve(config.dataDir), "media")}`
        : kind === "s3"
          ? `s3 ${config.s3.bucket}`
          : "db (media_blobs)";
    return { from: localBlobStore(source.dataDir), to, label: `${join(source.dataDir, "media")} → ${where}` };
  }
  if (source instanceof PgSide && target instanceof SqliteSide) {
    return {
      from: dbBlobStore(source.store),
      to: localBlobStore(target.dataDir),
      label: `db (media_blobs) → ${join(target.dataDir, "media")}`,
    };
  }
  return null;
}

/** Copies every object, then checks each one's size in the target; returns how many. */
async function copyMedia(m: MediaCopy): Promise<number> {
  const keys: string[] = [];
  for await (const key of m.from.keys()) keys.push(key);
  keys.sort();
  for (const key of keys) {
    const body = await m.from.read(key);
    if (!body) throw new Error(`media ${key} vanished from the source while copying`);
    await m.to.put(key, await bodyBytes(body), mimeOf(key));
  }
  const wrong: string[] = [];
  for (const key of keys) {
    const [a, b] = await Promise.all([m.from.head(key), m.to.head(key)]);
    if (!a || !b || a.size !== b.size) wrong.push(key);
  }
  if (wrong.length)
    throw new Error(
      `media files differ after the copy: ${wrong.slice(0, 5).join(", ")}${wrong.length > 5 ? ` and ${wrong.length - 5} more` : ""}`,
    );
  return keys.length;
}

function checkLedger(side: Side, applied: string[] | null, role: "source" | "target", how: string) {
  const known = migrations[side.engine].map((m) => m.tag);
  if (role === "source") {
    if (applied === null)
      throw new Refusal(`the source ${side.label} has no ${LEDGER} table: is it a Plinth database?`);
    const unknown = applied.filter((t) => !known.includes(t));
    if (unknown.length)
      throw new Refusal(
        `the source was migrated by a newer Plinth (${unknown.join(", ")} unknown to this one): run db copy with that version`,
      );
    const missing = known.filter((t) => !applied.includes(t));
    if (missing.length)
      throw new Refusal(
        `the source is not at this version's migration level (not applied: ${missing.join(", ")}): run \`plinth migrate ${how}\` with this version first, then copy again`,
      );
  } else if (applied !== null) {
    const unknown = applied.filter((t) => !known.includes(t));
    if (unknown.length)
      throw new Refusal(`the target was migrated by a newer Plinth (${unknown.join(", ")} unknown to this one)`);
  }
}

async function open(e: Endpoint, role: "source" | "target"): Promise<Side> {
  if (e.engine === "sqlite") {
    try {
      return new SqliteSide(e.file, role === "target");
    } catch (err) {
      throw new Refusal(`cannot open ${e.file}: ${(err as Error).message}`);
    }
  }
  const side = new PgSide(e.url);
  try {
    await side.store.query("SELECT 1");
  } catch (err) {
    await side.close().catch(() => {});
    throw new Refusal(`cannot connect to the ${role} ${side.label}: ${failureMessage(null, err)}`);
  }
  return side;
}

function columnsText(rows: [string, string][]): string {
  const w = Math.max(...rows.map((r) => r[0].length));
  const v = Math.max(...rows.map((r) => r[1].length));
  return rows.map(([a, b]) => `${a.padEnd(w)}  ${b.padStart(v)}`).join("\n");
}

async function copy(
  from: Endpoint,
  to: Endpoint,
  config: Config,
  flags: Record<string, string | true>,
): Promise<number> {
  const t0 = performance.now();
  const source = await open(from, "source");
  let target: Side | null = null;
  try {
    const how = from.engine === "sqlite" ? `--data-dir ${dirname(from.file)}` : `--database-url ${source.label}`;
    checkLedger(source, await source.ledger(), "source", how);
    target = await open(to, "target");

    // Refuse a target with rows before writing anything to it, migrations included.
    const before = await target.ledger();
    checkLedger(target, before, "target", "");
    const existing = await target.catalog();
    if (before === null && existing.tables.size)
      throw new Refusal(
        `the target ${target.label} already has tables (${[...existing.tables.keys()].slice(0, 3).join(", ")}…) but no Plinth ${LEDGER}: give an empty database`,
      );
    const full = await target.firstNonEmpty(parentsFirst(existing));
    if (full)
      throw new Refusal(
        `the target ${target.label} is not empty (table ${full} has rows); db copy only fills an empty database`,
      );
    const applied = await target.migrate();
    if (applied.length) console.error(`db copy: migrated the target (${applied.join(", ")})`);

    const [srcCat, dstCat] = [await source.catalog(), await target.catalog()];
    const media = mediaCopy(config, flags, source, target);
    // Back on SQLite the "db" media store's blobs become files in the data dir (the media step), not rows.
    const skip = new Set(media?.from.kind === "db" ? [getTableName(mediaBlobs)] : []);
    for (const t of skip) console.error(`db copy: ${t} is copied as files (${media!.label}), not as rows`);
    const plan = makePlan(srcCat, dstCat, source.engine === "pg" ? "source" : "target", skip);
    for (const t of plan.tables) {
      const late = t.deferred.map((i) => t.columns[i]).join(", ");
      if (late) console.error(`db copy: ${t.name}.${late} refers back into the copy; filled in by a second pass`);
    }

    const w = target;
    const result = await w.write(async (writer) => {
      // Checked again inside the transaction: nothing may have arrived since.
      const late = await writer.firstNonEmpty(plan.tables.map((t) => t.name));
      if (late)
        throw new Refusal(`the target is not empty (table ${late} has rows); db copy only fills an empty database`);
      return source.snapshot(async (reader) => {
        for (const name of plan.sourceOnly) {
          const n = await reader.count(name);
          if (n)
            throw new Refusal(
              `the source's table ${name} (${n} rows) does not exist in the target; are both at the same migration level?`,
            );
        }
        let current: string | null = null;
        try {
          for (const t of plan.tables) {
            current = t.name;
            for await (const page of reader.pages(t.source, t.columns, t.kinds)) {
              for (const row of page) for (const i of t.deferred) row[i] = null;
              await writer.insert(t.target, t.columns, t.kinds, page);
            }
          }
          for (const t of plan.tables) {
            current = t.name;
            for (const i of t.deferred) {
              const keyKinds = t.target.pk.map((k) => t.kinds[t.columns.indexOf(k)]!);
              const cols = [...t.target.pk, t.columns[i]!];
              for await (const page of reader.pages(t.source, cols, [...keyKinds, t.kinds[i]!], t.columns[i]))
                await writer.update(t.target, t.columns[i]!, [...keyKinds, t.kinds[i]!], page);
            }
          }
        } catch (e) {
          if (e instanceof Refusal) throw e;
          throw new Refusal(`${failureMessage(current, e)}; nothing was copied (the target was rolled back)`);
        }
        const counts: { table: string; source: number; target: number }[] = [];
        for (const t of plan.tables)
          counts.push({ table: t.name, source: await reader.count(t.name), target: await writer.count(t.name) });
        const off = counts.filter((c) => c.source !== c.target);
        if (off.length) throw new Mismatch(off);
        for (const t of plan.tables)
          if (t.target.identity) await writer.continueIds(t.target, await reader.lastId(t.source));
        let files: number | null = null;
        if (media) {
          try {
            files = await copyMedia(media);
          } catch (e) {
            throw new Refusal(`copying media (${media.label}): ${failureMessage(null, e)}; the rows were rolled back`);
          }
        }
        return { counts, files };
      });
    });

    const rows: [string, string][] = [
      ["table", "rows"],
      ...result.counts.map((c): [string, string] => [c.table, String(c.target)]),
    ];
    if (result.files !== null) rows.push(["media files", String(result.files)]);
    console.log(columnsText(rows));
    for (const t of plan.targetOnly) console.error(`db copy: ${t} exists only in the target; left empty`);
    const total = result.counts.reduce((s, c) => s + c.target, 0);
    const secs = ((performance.now() - t0) / 1000).toFixed(1);
    console.log(
      `copied ${total} rows in ${result.counts.length} tables${result.files !== null ? ` and ${result.files} media files (${media!.label})` : ""} from ${source.label} to ${target.label} in ${secs} s; row counts match`,
    );
    return 0;
  } catch (e) {
    if (e instanceof Mismatch) {
      console.error(`plinth db copy: ${e.message}; the target was rolled back and holds no rows`);
      return 1;
    }
    if (e instanceof Refusal) {
      console.error(`plinth db copy: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await source.close();
    await target?.close();
  }
}

/** A catalog's tables, referenced ones first: the order non-empty tables are looked for and named in. */
function parentsFirst(cat: Catalog): string[] {
  return copyOrder([...cat.tables.keys()], cat.fks, () => true).order;
}

export const dbCommands: Command[] = [
  {
    name: "db copy",
    usage:
      "plinth db copy --from sqlite:<data dir or plinth.sqlite> --to postgres://… (or --from postgres://… --to sqlite:<data dir>)",
    summary:
      "Copy every row (ids kept) and the media into an empty database on the other engine, in one transaction; checks counts.",
    async run({ flags, rest, config }) {
      if (rest.length) throw new UsageError(`unexpected argument "${rest[0]}"`);
      const from = parseEndpoint("from", needFlag(flags, "from"));
      const to = parseEndpoint("to", needFlag(flags, "to"));
      if (from.engine === to.engine)
        throw new UsageError(
          `one of --from and --to must be PostgreSQL (postgres://…) and the other SQLite; both are ${from.engine === "pg" ? "PostgreSQL" : "SQLite"}`,
        );
      return copy(from, to, config, flags);
    },
  },
];
