/**
 * Fresh databases for tests, on whichever engine this run uses: `make test`
 * runs SQLite (a throwaway file per store); `make test-pg` runs the same
 * tests on a PostgreSQL server started by scripts/with-postgres.ts, which
 * sets PLINTH_ENGINE=pg and PLINTH_TEST_PG_URL (a superuser URL). Each store
 * then gets its own database, cloned from a template migrated once per run,
 * with an en-US collation.
 */
import postgres from "postgres";
import type { Store } from "../src/core/db";
import { openStore } from "../src/core/open";
import { engine } from "../src/core/engine";

export const ON_PG = engine() === "pg";

let admin: postgres.Sql | null = null;
let template: Promise<string> | null = null;
let n = 0;

function adminUrl(): string {
  const url = process.env.PLINTH_TEST_PG_URL;
  if (!url) throw new Error("PLINTH_ENGINE=pg needs PLINTH_TEST_PG_URL (run the suite through `make test-pg`)");
  return url;
}

function urlFor(db: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${db}`;
  return u.toString();
}

function adminSql(): postgres.Sql {
  return (admin ??= postgres(adminUrl(), { max: 2, onnotice: () => {} }));
}

/** The migrated template, made once per test process. */
function templateDb(): Promise<string> {
  return (template ??= (async () => {
    const name = `plinth_tpl_${process.pid}`;
    const sql = adminSql();
    await sql.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    // A linguistic collation (ICU, so no OS locale is needed), as many
    // production databases have: an ordering left to the database's locale
    // would then differ from SQLite's and fail the suite.
    await sql.unsafe(
      `CREATE DATABASE ${name} TEMPLATE template0 ENCODING 'UTF8' LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`,
    );
    const s = openStore({ dataDir: ":memory:", databaseUrl: urlFor(name) });
    await s.migrate();
    await s.close();
    return name;
  })());
}

/** A new, migrated, empty PostgreSQL database; dropDatabase removes it. */
export async function freshDatabaseUrl(): Promise<string> {
  const tpl = await templateDb();
  const name = `plinth_t_${process.pid}_${++n}`;
  await adminSql().unsafe(`CREATE DATABASE ${name} TEMPLATE ${tpl}`);
  return urlFor(name);
}

export async function dropDatabase(url: string | null | undefined): Promise<void> {
  if (!url) return;
  const name = new URL(url).pathname.slice(1);
  await adminSql().unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}

/** A fresh, migrated store on this run's engine; close() also removes its database. */
export async function openTestStore(): Promise<Store> {
  if (!ON_PG) {
    const s = openStore(":memory:");
    await s.migrate();
    return s;
  }
  const url = await freshDatabaseUrl();
  const s = openStore({ dataDir: ":memory:", databaseUrl: url });
  const close = s.close.bind(s);
  return Object.assign(s, {
    async close() {
      await close();
      await dropDatabase(url);
    },
  });
}
