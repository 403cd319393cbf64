/**
 * `plinth db copy` as an operator runs it: real `plinth` processes, a real
 * PostgreSQL (the one scripts/with-postgres.ts started when
 * PLINTH_TEST_PG_URL is set, else a temp cluster of our own), databases
 * owned by an ordinary (non-superuser) role.
 *
 * The demo seeded into a SQLite data dir, plus some CLI writes, is copied to
 * PostgreSQL; servers on both answer REST the same, ids carry over, new rows
 * continue after them, keys and the portal password minted before the copy
 * still work, and a copy back to SQLite gives the same rows. Then the
 * refusals (non-empty target, bad arguments, another migration level),
 * failures midway (the target keeps no rows), and foreign keys that point
 * into their own table or round a cycle.
 *
 * The test process itself runs on either engine: everything it does to a
 * database goes through child processes, bun:sqlite or its own admin client.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import { migrations } from "../../db/migrations/index";
import { copyOrder } from "../../src/cli/db";
import { callTool, mcpClient } from "../fixtures/accounts";
import { ensureDebianPackages, PackageInstallError, SERVICE_PACKAGES, startPostgres } from "../infra/services";

const root = join(import.meta.dir, "../..");

const skipReason = process.env.PLINTH_TEST_PG_URL
  ? null
  : await ensureDebianPackages([SERVICE_PACKAGES.postgres]).then(
      () => null,
      (e: unknown) => {
        if (e instanceof PackageInstallError) return e.message;
        throw e;
      },
    );
if (skipReason) console.warn(`test/cli/db-copy.test.ts SKIPPED: ${skipReason}`);
const suite = skipReason ? describe.skip : describe;

// ------------------------------------------------------------------ helpers

const temps: string[] = [];
function tmp(prefix: string): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}

/** The environment of a `plinth` child: none of this process's PLINTH_* settings (the engine comes from each command's flags). */
function childEnv(): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...process.env };
  for (const k of Object.keys(env)) if (k.startsWith("PLINTH_")) delete env[k];
  return env;
}

async function plinth(...args: string[]): Promise<{ code: number; out: string; err: string; ms: number }> {
  const t0 = performance.now();
  const p = Bun.spawn([process.execPath, join(root, "src/main.ts"), ...args], {
    cwd: root,
    stdout: "pipe",
    stderr: "pipe",
    env: childEnv(),
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out: out.trim(), err: err.trim(), ms: performance.now() - t0 };
}

interface Served {
  url: string;
  stop(): Promise<void>;
}

/** `plinth serve --port 0 …` as a child; resolves once it prints where it listens. */
async function serve(...args: string[]): Promise<Served> {
  const p = Bun.spawn(
    [
      process.execPath,
      join(root, "src/main.ts"),
      "serve",
      "--port",
      "0",
      "--public-url",
      "http://cms.example.test",
      ...args,
    ],
    {
      cwd: root,
      stdout: "pipe",
      stderr: "pipe",
      env: childEnv(),
    },
  );
  const reader = p.stdout.getReader();
  let text = "";
  const deadline = Date.now() + 30_000;
  for (;;) {
    const m = /Plinth is listening on (\S+)/.exec(text);
    if (m) {
      reader.releaseLock();
      return {
        url: m[1]!,
        async stop() {
          p.kill("SIGTERM");
          await p.exited;
        },
      };
    }
    const chunk = await Promise.race([reader.read(), Bun.sleep(Math.max(0, deadline - Date.now())).then(() => null)]);
    if (!chunk || chunk.done) {
      p.kill("SIGKILL");
      throw new Error(`plinth serve ${args.join(" ")} did not start: ${text}\n${await new Response(p.stderr).text()}`);
    }
    text += new TextDecoder().decode(chunk.value);
  }
}

let adminUrl: string;
let admin: postgres.Sql;
let stopPg: (() => Promise<void>) | null = null;
const owner = `copy_owner_${process.pid}`;
const databases: string[] = [];
let dbCount = 0;

/** A new empty database owned by the ordinary role `owner`; its URL signs in as that role. */
async function createDb(): Promise<string> {
  const name = `plinth_copy_${process.pid}_${++dbCount}`;
  await admin.unsafe(`CREATE DATABASE ${name} OWNER ${owner}`);
  databases.push(name);
  return urlOf(name, owner);
}

function urlOf(db: string, user?: string): string {
  const u = new URL(adminUrl);
  u.pathname = `/${db}`;
  if (user) u.username = user;
  return u.toString();
}

/** A superuser connection to the database behind `url`, for checks and sabotage behind plinth's back. */
function adminTo(url: string): postgres.Sql {
  return postgres(urlOf(new URL(url).pathname.slice(1)), { max: 1, onnotice: () => {} });
}

async function withAdmin<T>(url: string, fn: (sql: postgres.Sql) => Promise<T>): Promise<T> {
  const sql = adminTo(url);
  try {
    return await fn(sql);
  } finally {
    await sql.end({ timeout: 1 });
  }
}

/** Row counts of every table but the migrations ledger, by name. */
async function pgCounts(url: string): Promise<Record<string, number>> {
  return withAdmin(url, async (sql) => {
    const names = (
      await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename <> '_migrations' ORDER BY tablename`
    ).map((r) => r.tablename as string);
    const out: Record<string, number> = {};
    for (const t of names) out[t] = Number((await sql.unsafe(`SELECT count(*) AS n FROM "${t}"`))[0]!.n);
    return out;
  });
}

function sqliteTables(db: Database): string[] {
  // Full-text indexes (virtual tables and their shadow tables) are not copied: triggers rebuild them from the rows.
  return (
    db
      .query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> '_migrations' AND name IN (SELECT name FROM pragma_table_list WHERE type = 'table') ORDER BY name",
      )
      .all() as { name: string }[]
  ).map((r) => r.name);
}

function sqliteCounts(file: string): Record<string, number> {
  const db = new Database(file, { readonly: true });
  try {
    return Object.fromEntries(
      sqliteTables(db).map((t) => [t, (db.query(`SELECT count(*) AS n FROM "${t}"`).get() as { n: number }).n]),
    );
  } finally {
    db.close();
  }
}

/** Every row of every table (and the AUTOINCREMENT counters), in key order, exactly as SQLite holds them. */
function sqliteDump(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true, safeIntegers: true });
  try {
    const out: Record<string, unknown[]> = {};
    for (const t of [...sqliteTables(db), "sqlite_sequence"])
      out[t] = db.query(`SELECT * FROM "${t}" ORDER BY 1, 2`).all();
    return out;
  } finally {
    db.close();
  }
}

function sqliteExec(file: string, ...statements: string[]) {
  const db = new Database(file);
  try {
    for (const s of statements) db.exec(s);
  } finally {
    db.close();
  }
}

function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(d, e.name), `${rel}${e.name}/`);
      else out[`${rel}${e.name}`] = new Bun.CryptoHasher("sha256").update(readFileSync(join(d, e.name))).digest("hex");
    }
  };
  walk(dir, "");
  return out;
}

const LAST_TAG = migrations.sqlite[migrations.sqlite.length - 1]!.tag;

// ------------------------------------------------------------ the fixture

/** A SQLite data dir with the demo and some CLI writes; tests copy it before changing it. */
let seeded: string;
let creds: {
  siteId: number;
  restKey: string;
  mcpKey: string;
  email: string;
  password: string;
  restKey2: string;
  revokedKey: string;
  mcpKey2: string;
};

beforeAll(async () => {
  if (skipReason) return;
  if (process.env.PLINTH_TEST_PG_URL) adminUrl = process.env.PLINTH_TEST_PG_URL;
  else {
    const pg = await startPostgres({ database: "postgres" });
    adminUrl = pg.adminUrl;
    stopPg = pg.stop;
  }
  admin = postgres(adminUrl, { max: 2, onnotice: () => {} });
  await admin.unsafe(`CREATE ROLE ${owner} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE`);

  seeded = tmp("plinth-copy-src-");
  const s = await plinth("seed", "--demo", "--data-dir", seeded);
  expect(s.code).toBe(0);
  const rest = /REST key \(site (\d+)\): (\S+)/.exec(s.out)!;
  const mcp = /MCP key: (\S+)/.exec(s.out)!;
  const portal = /Portal: (\S+) \/ (\S+)/.exec(s.out)!;
  const cli = async (...args: string[]) => {
    const r = await plinth(...args, "--data-dir", seeded);
    if (r.code !== 0) throw new Error(`plinth ${args.join(" ")}: ${r.err}`);
    return r;
  };
  const restKey2 = (await cli("keys", "create", "--site", rest[1]!, "--name", "before the copy")).out;
  const revoked = await cli(
    "keys",
    "create",
    "--site",
    rest[1]!,
    "--name",
    "revoked before the copy",
    "--expires",
    "2999-01-01",
  );
  await cli("keys", "revoke", /Key (\d+)/.exec(revoked.err)![1]!);
  await cli(
    "users",
    "create",
    "--email",
    "extra@example.test",
    "--password",
    "extra password 1",
    "--name",
    "Ünïcode “quotes” 'and' \\ backslash",
  );
  await cli("companies", "create", "--name", "Extra Co", "--owner", "extra@example.test");
  const mcpKey2 = (
    await cli(
      "mcp-keys",
      "create",
      "--email",
      "extra@example.test",
      "--scopes",
      "*",
      "--name",
      "before the copy",
      "--require-cms-approval",
    )
  ).out;
  creds = {
    siteId: Number(rest[1]),
    restKey: rest[2]!,
    mcpKey: mcp[1]!,
    email: portal[1]!,
    password: portal[2]!,
    restKey2,
    revokedKey: revoked.out,
    mcpKey2,
  };
}, 120_000);

afterAll(async () => {
  if (admin) {
    for (const d of databases) await admin.unsafe(`DROP DATABASE IF EXISTS ${d} WITH (FORCE)`);
    await admin.unsafe(`DROP ROLE IF EXISTS ${owner}`);
    await admin.end({ timeout: 1 });
  }
  await stopPg?.();
  for (const d of temps) rmSync(d, { recursive: true, force: true });
});

// ------------------------------------------------------------------- tests

describe("copy order", () => {
  const fk = (table: string, ref: string, ...columns: string[]) => ({ table, ref, columns });
  test("referenced tables first, ties by name; self-references and one edge of each cycle deferred", () => {
    const tables = ["posts", "sites", "companies", "nodes", "a", "b", "c"];
    const fks = [
      fk("posts", "sites", "site_id"),
      fk("sites", "companies", "company_id"),
      fk("nodes", "nodes", "parent_id"),
      fk("a", "b", "b_id"),
      fk("b", "c", "c_id"),
      fk("c", "a", "a_id"),
    ];
    const { order, deferred } = copyOrder(tables, fks, (_t, c) => c !== "c_id");
    // b.c_id is NOT NULL, so the cycle a → b → c → a is broken at a.b_id, the first nullable edge.
    expect(order).toEqual(["companies", "nodes", "sites", "posts", "a", "c", "b"]);
    expect(deferred).toEqual([
      { table: "nodes", column: "parent_id" },
      { table: "a", column: "b_id" },
    ]);
  });
  test("a cycle through NOT NULL columns only is refused by name", () => {
    expect(() => copyOrder(["a", "b"], [fk("a", "b", "b_id"), fk("b", "a", "a_id")], () => false)).toThrow(/cycle/);
    expect(() => copyOrder(["n"], [fk("n", "n", "parent_id")], () => false)).toThrow(
      /n\.parent_id refers to its own table/,
    );
  });
});

suite("plinth db copy", () => {
  test("SQLite → PostgreSQL: same REST answers, same ids, new ids after them, old credentials work; and back to SQLite unchanged", async () => {
    const src = tmp("plinth-copy-main-");
    cpSync(seeded, src, { recursive: true });
    const url = await createDb();

    const copied = await plinth("db", "copy", "--from", `sqlite:${src}`, "--to", url);
    expect(copied.err).not.toContain("error");
    expect(copied.code).toBe(0);
    console.log(
      `demo copy SQLite → PostgreSQL: ${Math.round(copied.ms)} ms for the whole process (${copied.out.split("\n").at(-1)})`,
    );
    // The summary lists every table with the source's count, and the media files.
    const want = sqliteCounts(join(src, "plinth.sqlite"));
    for (const [t, n] of Object.entries(want)) expect(copied.out).toMatch(new RegExp(`^${t} +${n}$`, "m"));
    const mediaFiles = Object.keys(files(join(src, "media"))).length;
    expect(mediaFiles).toBeGreaterThan(10);
    expect(copied.out).toMatch(new RegExp(`^media files +${mediaFiles}$`, "m"));
    expect(copied.out).toMatch(/row counts match$/);
    expect(copied.out).not.toContain(creds.password);
    const got = await pgCounts(url);
    expect(got).toEqual({ ...want, media_blobs: mediaFiles });

    // Ids preserved, table by table.
    const sdb = new Database(join(src, "plinth.sqlite"), { readonly: true });
    const idTables = sqliteTables(sdb).filter(
      (t) => (sdb.query(`SELECT name FROM pragma_table_info(?) WHERE name = 'id'`).all(t) as unknown[]).length,
    );
    await withAdmin(url, async (sql) => {
      for (const t of idTables) {
        const a = (sdb.query(`SELECT id FROM "${t}" ORDER BY id`).all() as { id: number }[]).map((r) => r.id);
        const b = (await sql.unsafe(`SELECT id::int AS id FROM "${t}" ORDER BY id`)).map((r) => r.id as number);
        expect({ t, ids: b }).toEqual({ t, ids: a });
      }
    });

    // Back to SQLite: every row and counter as it was, the media files byte for byte.
    const back = tmp("plinth-copy-back-");
    const reverse = await plinth("db", "copy", "--from", url, "--to", `sqlite:${back}`);
    expect(reverse.code).toBe(0);
    expect(reverse.err).toContain("media_blobs is copied as files");
    expect(sqliteDump(join(back, "plinth.sqlite"))).toEqual(sqliteDump(join(src, "plinth.sqlite")));
    expect(files(join(back, "media"))).toEqual(files(join(src, "media")));

    const a = await serve("--data-dir", src);
    const b = await serve("--data-dir", tmp("plinth-copy-pgdir-"), "--database-url", url);
    try {
      const get = async (base: string, path: string, key = creds.restKey) => {
        const r = await fetch(`${base}/api/v1/sites/${creds.siteId}${path}`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        // (ETags are salted per process, so they differ between any two servers.)
        return { status: r.status, body: await r.json() };
      };
      const posts = await get(a.url, "/posts?limit=100");
      const products = await get(a.url, "/products?limit=100");
      expect(posts.body.data.length).toBeGreaterThan(5);
      const paths = [
        "/posts",
        "/posts?limit=100",
        `/posts/${posts.body.data[0].slug}`,
        `/posts/${posts.body.data.at(-1).slug}`,
        "/pages",
        "/products?limit=100",
        `/products/${products.body.data[0].slug}`,
        "/product-categories",
        "/categories",
        "/tags",
        "/navigation",
        "/config",
        "/branding",
        "/media?limit=100",
        "/blocks",
      ];
      for (const path of paths) {
        const [x, y] = [await get(a.url, path), await get(b.url, path)];
        expect(x.status).toBe(200);
        expect({ path, ...y }).toEqual({ path, ...x });
      }
      // Media files come out of the database store with the same bytes.
      const m = (await get(a.url, "/media?limit=100")).body.data.find((x: { mimeType: string }) =>
        x.mimeType.startsWith("image/"),
      );
      const mediaPath = new URL(m.url, "http://cms.example.test").pathname;
      const [fa, fb] = [await fetch(`${a.url}${mediaPath}`), await fetch(`${b.url}${mediaPath}`)];
      expect(fb.status).toBe(200);
      expect(Buffer.from(await fb.arrayBuffer()).equals(Buffer.from(await fa.arrayBuffer()))).toBe(true);

      // Keys minted before the copy (stored hashed) work; the revoked one stays revoked.
      expect((await get(b.url, "/posts?limit=1", creds.restKey2)).status).toBe(200);
      expect((await get(b.url, "/posts?limit=1", creds.revokedKey)).status).toBe(401);
      for (const key of [creds.mcpKey, creds.mcpKey2]) {
        const client = await mcpClient(b.url, key);
        const who = await callTool(client, "whoami");
        expect(who.isError).toBe(false);
        await client.close();
      }
      // The portal password printed once at seeding.
      const login = await fetch(`${b.url}/login`, {
        method: "POST",
        redirect: "manual",
        headers: {
          "Content-Type": "application/x-www-form-urlencoded",
          Origin: b.url,
          "Sec-Fetch-Site": "same-origin",
        },
        body: new URLSearchParams({ email: creds.email, password: creds.password, next: "/" }),
      });
      expect(login.status).toBe(303);
      expect(login.headers.get("set-cookie")).toBeTruthy();

      // New rows get ids after the copied ones: through MCP on the server, and through the CLI.
      const maxPost = Math.max(...(sdb.query("SELECT id FROM posts").all() as { id: number }[]).map((r) => r.id));
      const client = await mcpClient(b.url, creds.mcpKey);
      const { company_id: clientId } = sdb.query("SELECT company_id FROM sites WHERE id = ?").get(creds.siteId) as {
        company_id: number;
      };
      const made = await callTool(client, "posts_create", {
        clientId,
        siteId: creds.siteId,
        title: "Written after the move",
      });
      await client.close();
      expect(made.isError).toBe(false);
      expect(made.data.id).toBe(maxPost + 1);
      const maxUser = Math.max(...(sdb.query("SELECT id FROM users").all() as { id: number }[]).map((r) => r.id));
      const u = await plinth(
        "users",
        "create",
        "--database-url",
        url,
        "--email",
        "after@example.test",
        "--password",
        "after password 1",
      );
      expect(u.out).toBe(`created user ${maxUser + 1} after@example.test`);
      const maxKey = Math.max(...(sdb.query("SELECT id FROM rest_keys").all() as { id: number }[]).map((r) => r.id));
      const k = await plinth("keys", "create", "--site", String(creds.siteId), "--database-url", url);
      expect(k.err).toContain(`Key ${maxKey + 1} `);
      expect((await get(b.url, "/posts?limit=1", k.out)).status).toBe(200);
    } finally {
      sdb.close();
      await a.stop();
      await b.stop();
    }
  }, 120_000);

  test("refuses a target with rows (naming the table) and changes nothing there", async () => {
    const url = await createDb();
    const u = await plinth(
      "users",
      "create",
      "--database-url",
      url,
      "--email",
      "already@example.test",
      "--password",
      "already here 1",
    );
    expect(u.code).toBe(0);
    const before = await pgCounts(url);
    const r = await plinth("db", "copy", "--from", seeded, "--to", url);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^plinth db copy: the target postgres:\/\/\S+ is not empty \(table users has rows\)/);
    expect(r.out).toBe("");
    expect(await pgCounts(url)).toEqual(before);
    expect(before.users).toBe(1);

    // The other way: the seeded data dir is no place to copy into either.
    const back = await plinth("db", "copy", "--from", url, "--to", `sqlite:${seeded}`);
    expect(back.code).toBe(1);
    // The first table with rows in copy order (the demo's audit log, since parts of the seed run through verbs).
    expect(back.err).toMatch(/is not empty \(table \w+ has rows\)/);
  }, 60_000);

  test("bad --from / --to are usage errors (exit 2 with the usage line)", async () => {
    const url = urlOf("nowhere", owner);
    const cases: [string[], RegExp][] = [
      [["--to", url], /--from is required/],
      [["--from", seeded], /--to is required/],
      [["--from", "mysql://x/y", "--to", url], /--from must be sqlite:/],
      [["--from", join(seeded, "nope"), "--to", url], /--from: no Plinth database at/],
      [["--from", `sqlite:${seeded}`, "--to", "http://example.test/db"], /--to must be sqlite:/],
      [
        ["--from", `sqlite:${seeded}`, "--to", `sqlite:${tmp("plinth-copy-x-")}`],
        /one of --from and --to must be PostgreSQL/,
      ],
      [["--from", url, "--to", url], /one of --from and --to must be PostgreSQL/],
      [["--from", seeded, "--to", url, "extra"], /unexpected argument "extra"/],
    ];
    const results = await Promise.all(cases.map(([args]) => plinth("db", "copy", ...args)));
    for (const [i, [args, msg]] of cases.entries()) {
      const r = results[i]!;
      expect({ args, code: r.code }).toEqual({ args, code: 2 });
      expect(r.err).toMatch(msg);
      expect(r.err).toContain("usage: plinth db copy --from");
    }
  }, 60_000);

  test("refuses a source at another migration level, before touching the target", async () => {
    const url = await createDb();
    const older = tmp("plinth-copy-older-");
    cpSync(seeded, older, { recursive: true });
    sqliteExec(join(older, "plinth.sqlite"), `DELETE FROM _migrations WHERE tag = '${LAST_TAG}'`);
    const r = await plinth("db", "copy", "--from", `sqlite:${older}`, "--to", url);
    expect(r.code).toBe(1);
    expect(r.err).toContain(`not applied: ${LAST_TAG}`);
    expect(r.err).toContain(`run \`plinth migrate --data-dir ${older}\` with this version first`);

    const newer = tmp("plinth-copy-newer-");
    cpSync(seeded, newer, { recursive: true });
    sqliteExec(
      join(newer, "plinth.sqlite"),
      `INSERT INTO _migrations (tag, applied_at) VALUES ('9999_from_the_future', 0)`,
    );
    const n = await plinth("db", "copy", "--from", newer, "--to", url);
    expect(n.code).toBe(1);
    expect(n.err).toContain("migrated by a newer Plinth (9999_from_the_future");

    // The target was not even migrated.
    await withAdmin(url, async (sql) =>
      expect((await sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public'`)[0]!.n).toBe(0),
    );
  }, 60_000);

  test("a failure midway leaves the target with its schema and no rows", async () => {
    const cases: { name: string; sabotage: string[]; expect: RegExp }[] = [
      {
        name: "a foreign key the target enforces",
        sabotage: [
          "PRAGMA foreign_keys = OFF",
          "UPDATE order_items SET order_id = 999999 WHERE id = (SELECT max(id) FROM order_items)",
        ],
        expect:
          /copying order_items: .*foreign key.*\(Key \(order_id\)=\(999999\) is not present in table "orders"\.\); nothing was copied/,
      },
      {
        name: "a value of the wrong type",
        sabotage: ["UPDATE products SET price = 'twelve' WHERE id = 5"],
        expect: /copying products: products\.price \(row id=5\): "twelve" is not a whole number; nothing was copied/,
      },
    ];
    for (const c of cases) {
      const bad = tmp("plinth-copy-bad-");
      cpSync(seeded, bad, { recursive: true });
      sqliteExec(join(bad, "plinth.sqlite"), ...c.sabotage);
      const url = await createDb();
      const r = await plinth("db", "copy", "--from", bad, "--to", url);
      expect({ case: c.name, code: r.code }).toEqual({ case: c.name, code: 1 });
      expect(r.err).toMatch(c.expect);
      const counts = await pgCounts(url);
      expect(Object.keys(counts)).toContain("posts");
      expect(Object.entries(counts).filter(([, n]) => n > 0)).toEqual([]);
    }

    // Counts that do not match (here a trigger in the target swallows a review) roll back too.
    const url = await createDb();
    expect((await plinth("migrate", "--database-url", url)).code).toBe(0);
    await withAdmin(url, async (sql) => {
      await sql.unsafe(
        `CREATE FUNCTION swallow() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.id = 3 THEN RETURN NULL; END IF; RETURN NEW; END $$`,
      );
      await sql.unsafe(`CREATE TRIGGER swallow BEFORE INSERT ON reviews FOR EACH ROW EXECUTE FUNCTION swallow()`);
    });
    const r = await plinth("db", "copy", "--from", seeded, "--to", url);
    expect(r.code).toBe(1);
    const reviews = sqliteCounts(join(seeded, "plinth.sqlite")).reviews!;
    expect(r.err).toContain(
      `row counts differ: reviews (source ${reviews}, target ${reviews - 1}); the target was rolled back and holds no rows`,
    );
    expect(Object.entries(await pgCounts(url)).filter(([, n]) => n > 0)).toEqual([]);
  }, 120_000);

  test("foreign keys into the same table (parents after children) and around a cycle; counters past deleted ids", async () => {
    const src = tmp("plinth-copy-tree-");
    expect((await plinth("migrate", "--data-dir", src)).code).toBe(0);
    const file = join(src, "plinth.sqlite");
    sqliteExec(
      file,
      "PRAGMA foreign_keys = ON",
      "CREATE TABLE zz_nodes (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, parent_id integer REFERENCES zz_nodes(id), name text NOT NULL, done integer NOT NULL, at integer, meta text)",
      "CREATE TABLE zz_a (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, b_id integer REFERENCES zz_b(id))",
      "CREATE TABLE zz_b (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, a_id integer NOT NULL REFERENCES zz_a(id))",
      // Node 1's parent is node 3, a later row; node 4 is deleted, so the counter (4) is past max(id) (3).
      `INSERT INTO zz_nodes (id, parent_id, name, done, at, meta) VALUES (1, NULL, 'leaf', 1, 1700000000123, '{"z":1,"a":[true,null]}'), (2, 1, 'twig', 0, NULL, NULL), (3, NULL, 'root', 1, 0, '"x"'), (4, 3, 'gone', 0, NULL, NULL)`,
      "UPDATE zz_nodes SET parent_id = 3 WHERE id = 1",
      "DELETE FROM zz_nodes WHERE id = 4",
      "INSERT INTO zz_a (id, b_id) VALUES (1, NULL)",
      "INSERT INTO zz_b (id, a_id) VALUES (1, 1)",
      "UPDATE zz_a SET b_id = 1 WHERE id = 1",
    );
    const url = await createDb();
    expect((await plinth("migrate", "--database-url", url)).code).toBe(0);
    // The same tables in the target, made by its ordinary owner, as a new domain's migration would.
    const asOwner = postgres(url, { max: 1, onnotice: () => {} });
    try {
      await asOwner.unsafe(`
        CREATE TABLE zz_nodes (id bigint PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, parent_id bigint REFERENCES zz_nodes(id), name text NOT NULL, done boolean NOT NULL, at timestamp(3) with time zone, meta json);
        CREATE TABLE zz_a (id bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY, b_id bigint);
        CREATE TABLE zz_b (id bigint PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, a_id bigint NOT NULL REFERENCES zz_a(id));
        ALTER TABLE zz_a ADD FOREIGN KEY (b_id) REFERENCES zz_b(id);`);

      const r = await plinth("db", "copy", "--from", src, "--to", url);
      expect(r.err).toContain("zz_nodes.parent_id refers back into the copy; filled in by a second pass");
      expect(r.err).toContain("zz_a.b_id refers back into the copy");
      expect(r.code).toBe(0);
      expect(r.out).toMatch(/^zz_nodes +3$/m);

      const nodes = await asOwner`SELECT id::int, parent_id::int, name, done, at, meta::text FROM zz_nodes ORDER BY id`;
      expect([...nodes]).toEqual([
        { id: 1, parent_id: 3, name: "leaf", done: true, at: new Date(1700000000123), meta: '{"z":1,"a":[true,null]}' },
        { id: 2, parent_id: 1, name: "twig", done: false, at: null, meta: null },
        { id: 3, parent_id: null, name: "root", done: true, at: new Date(0), meta: '"x"' },
      ]);
      expect([
        ...(await asOwner`SELECT zz_a.id::int, b_id::int, a_id::int FROM zz_a JOIN zz_b ON zz_b.id = zz_a.b_id`),
      ]).toEqual([{ id: 1, b_id: 1, a_id: 1 }]);
      // The next id continues after the source's counter, not after max(id): deleted ids are not handed out again.
      expect((await asOwner`INSERT INTO zz_nodes (name, done) VALUES ('new', false) RETURNING id::int`)[0]!.id).toBe(5);
      expect((await asOwner`INSERT INTO zz_a DEFAULT VALUES RETURNING id::int`)[0]!.id).toBe(2);

      // And back to SQLite (into the same extra tables), foreign keys intact.
      const back = tmp("plinth-copy-tree-back-");
      expect((await plinth("migrate", "--data-dir", back)).code).toBe(0);
      sqliteExec(
        join(back, "plinth.sqlite"),
        "CREATE TABLE zz_nodes (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, parent_id integer REFERENCES zz_nodes(id), name text NOT NULL, done integer NOT NULL, at integer, meta text)",
        "CREATE TABLE zz_a (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, b_id integer REFERENCES zz_b(id))",
        "CREATE TABLE zz_b (id integer PRIMARY KEY AUTOINCREMENT NOT NULL, a_id integer NOT NULL REFERENCES zz_a(id))",
      );
      const rb = await plinth("db", "copy", "--from", url, "--to", back);
      expect(rb.code).toBe(0);
      const db = new Database(join(back, "plinth.sqlite"), { readonly: true });
      try {
        expect(db.query("SELECT id, parent_id, name, done, at, meta FROM zz_nodes ORDER BY id").all()).toEqual([
          { id: 1, parent_id: 3, name: "leaf", done: 1, at: 1700000000123, meta: '{"z":1,"a":[true,null]}' },
          { id: 2, parent_id: 1, name: "twig", done: 0, at: null, meta: null },
          { id: 3, parent_id: null, name: "root", done: 1, at: 0, meta: '"x"' },
          { id: 5, parent_id: null, name: "new", done: 0, at: null, meta: null },
        ]);
        expect(db.query("SELECT * FROM pragma_foreign_key_check").all()).toEqual([]);
        expect(db.query("SELECT seq FROM sqlite_sequence WHERE name = 'zz_nodes'").get()).toEqual({ seq: 5 });
      } finally {
        db.close();
      }
    } finally {
      await asOwner.end({ timeout: 1 });
    }
  }, 60_000);
});
