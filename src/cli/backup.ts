/**
 * `plinth backup --to FILE`: a consistent copy of the SQLite database while
 * the server keeps running, with nothing but this executable (no sqlite3
 * command line tool). SQLite's `VACUUM INTO` reads one snapshot through an
 * ordinary read transaction, so writers carry on, and writes a compacted
 * database that holds everything committed before it began, WAL included.
 *
 * The copy is made beside the target under a temporary name, checked
 * (`PRAGMA quick_check`, the migration ledger present) and only then renamed
 * into place, so FILE is never a half-written database. An existing FILE is
 * refused rather than overwritten.
 *
 * Media files are not in the database on SQLite (PLINTH_MEDIA_STORE=local):
 * copy `<data dir>/media` beside the backup; file names are never reused, so
 * `rsync -a` at any time is safe. On PostgreSQL use pg_dump (docs/deploy.md).
 */
import { Database } from "bun:sqlite";
import { existsSync, renameSync, rmSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { UsageError, needFlag, type Command } from "./command";

export const backupCommands: Command[] = [
  {
    name: "backup",
    summary: "Copy the SQLite database to FILE while the server runs (VACUUM INTO); on PostgreSQL use pg_dump.",
    flags: [{ name: "to", value: "<file>", required: true, help: "where to write the copy; must not exist yet" }],
    async run({ flags, config }) {
      const to = resolve(needFlag(flags, "to"));
      if (config.databaseUrl) {
        console.error(
          "plinth backup: this install runs on PostgreSQL; back it up with pg_dump, e.g.\n" +
            '  pg_dump --format=custom --file plinth.dump "$PLINTH_DATABASE_URL"\n' +
            "(and the media bucket if PLINTH_MEDIA_STORE=s3). See docs/deploy.md#backups.",
        );
        return 1;
      }
      const source = join(config.dataDir, "plinth.sqlite");
      if (!existsSync(source)) throw new UsageError(`no database at ${source} (is --data-dir right?)`);
      if (existsSync(to)) throw new UsageError(`${to} already exists; give a new file name`);
      if (!existsSync(dirname(to))) throw new UsageError(`the folder ${dirname(to)} does not exist`);
      const partial = `${to}.partial-${process.pid}`;
      const db = new Database(source, { readonly: true });
      try {
        db.exec("PRAGMA busy_timeout = 5000");
        db.query("VACUUM INTO ?").run(partial);
      } finally {
        db.close();
      }
      try {
        const copy = new Database(partial, { readonly: true });
        try {
          const ok = copy.query<{ quick_check: string }, []>("PRAGMA quick_check").get()?.quick_check;
          if (ok !== "ok") throw new Error(`the copy failed its check: ${ok}`);
          const tags = copy.query<{ n: number }, []>("SELECT count(*) AS n FROM _migrations").get()?.n ?? 0;
          if (!tags) throw new Error("the copy has no applied migrations");
        } finally {
          copy.close();
        }
        renameSync(partial, to);
      } catch (e) {
        rmSync(partial, { force: true });
        throw e;
      }
      console.log(`backed up ${source} to ${to} (${statSync(to).size} bytes)`);
      if (config.mediaStore === "local")
        console.error(
          `Media files are not in it: copy ${join(resolve(config.dataDir), "media")} too (rsync -a is safe at any time).`,
        );
    },
  },
];
