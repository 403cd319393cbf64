/**
 * `plinth backup --to FILE` through the real CLI: on SQLite a consistent
 * copy made while the server runs and writes (VACUUM INTO), that a server
 * started on it serves; never over an existing file; on PostgreSQL it points
 * to pg_dump instead.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ON_PG } from "../db";
import { rawMcp } from "../fixtures/accounts";
import { row, startTestServer, type TestServer } from "../harness";
import { childEnv, MAIN, ROOT } from "../ops/child";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "plinth-backup-"));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function plinth(env: Record<string, string | undefined>, ...args: string[]) {
  const p = Bun.spawn([process.execPath, MAIN, ...args], {
    cwd: ROOT,
    stdout: "pipe",
    stderr: "pipe",
    env: childEnv(env),
  });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out, err };
}

describe.skipIf(ON_PG)("plinth backup on SQLite", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(async () => {
    await s?.stop();
  });

  test("copies the database while the server runs and writes; a server on the copy serves the same data", async () => {
    const who = await (
      await rawMcp(s.url, s.demo!.mcpKey, {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "whoami", arguments: {} },
      })
    ).json();
    const clientId = JSON.parse(who.result.content[0].text).defaultClientId;
    const writes = Promise.all(
      Array.from({ length: 15 }, (_, i) =>
        rawMcp(s.url, s.demo!.mcpKey, {
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: {
            name: "posts_create",
            arguments: { clientId, siteId: s.demo!.siteId, title: `During backup ${i}` },
          },
        }),
      ),
    );
    const file = join(dir, "copy.sqlite");
    const r = await plinth({}, "backup", "--to", file, "--data-dir", s.dataDir);
    await writes;
    expect(r.err).toContain("Media files are not in it");
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^backed up .*plinth\.sqlite to .*copy\.sqlite \(\d+ bytes\)\n$/);
    expect(readdirSync(dir).filter((f) => f.includes("partial"))).toEqual([]);

    const copy = new Database(file, { readonly: true });
    expect(copy.query("PRAGMA integrity_check").get()).toEqual({ integrity_check: "ok" });
    const counts = (db: { query: (sql: string) => { get(): unknown } }) =>
      ["sites", "products", "rest_keys", "mcp_keys", "_migrations"].map(
        (t) => (db.query(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n,
      );
    const live = await Promise.all(
      ["sites", "products", "rest_keys", "mcp_keys", "_migrations"].map(
        async (t) => (await row<{ n: number }>(s.deps, `SELECT count(*) AS n FROM ${t}`))!.n,
      ),
    );
    expect(counts(copy)).toEqual(live);
    // Posts written during the copy are either wholly in it or not at all: a snapshot.
    const during = (
      copy.query("SELECT count(*) AS n FROM posts WHERE title LIKE 'During backup %'").get() as { n: number }
    ).n;
    expect(during).toBeGreaterThanOrEqual(0);
    expect(during).toBeLessThanOrEqual(15);
    copy.close();

    // Restoring is copying the file in as plinth.sqlite.
    const restored = join(dir, "restored");
    mkdirSync(restored);
    copyFileSync(file, join(restored, "plinth.sqlite"));
    const again = await startTestServer({ seed: false, config: { dataDir: restored } });
    try {
      const path = `/api/v1/sites/${s.demo!.siteId}/tags`;
      const headers = { Authorization: `Bearer ${s.demo!.restKey}` };
      const [a, b] = await Promise.all([
        fetch(`${s.url}${path}`, { headers }),
        fetch(`${again.url}${path}`, { headers }),
      ]);
      expect(b.status).toBe(200);
      expect(await b.json()).toEqual(await a.json());
    } finally {
      await again.stop();
    }
  }, 60_000);

  test("refuses an existing file, a data dir without a database and a missing folder (exit 2)", async () => {
    const taken = join(dir, "taken.sqlite");
    await Bun.write(taken, "keep me");
    const cases = [
      [taken, s.dataDir, "already exists"],
      [join(dir, "x.sqlite"), join(dir, "empty-data-dir"), "no database at"],
      [join(dir, "no", "such", "folder.sqlite"), s.dataDir, "does not exist"],
    ] as const;
    for (const [to, data, message] of cases) {
      const r = await plinth({}, "backup", "--to", to, "--data-dir", data);
      expect(r.code).toBe(2);
      expect(r.err).toContain(message);
    }
    expect(await Bun.file(taken).text()).toBe("keep me");
    expect(existsSync(join(dir, "empty-data-dir"))).toBe(false);
  });
});

describe.skipIf(!ON_PG)("plinth backup on PostgreSQL", () => {
  test("points to pg_dump and writes nothing", async () => {
    const s = await startTestServer({ seed: false });
    try {
      const file = join(dir, "pg.sqlite");
      const r = await plinth({ PLINTH_DATABASE_URL: s.config.databaseUrl! }, "backup", "--to", file);
      expect(r.code).toBe(1);
      expect(r.err).toContain("pg_dump");
      expect(existsSync(file)).toBe(false);
    } finally {
      await s.stop();
    }
  });
});
