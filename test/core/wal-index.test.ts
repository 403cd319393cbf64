/**
 * SQLite's change check from the mapped WAL-index header (src/core/wal-index.ts):
 * with nothing committed a cache check reads no database at all; another
 * process's commit is seen on the very next check; and the mapping is never
 * made where it could cost SQLite its locks (a descriptor of the -shm file
 * already open in this process), nor trusted once the path stops naming the
 * file SQLite uses.
 */
import { afterEach, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync, statSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Store } from "../../src/core/db";
import { openStore } from "../../src/core/open";
import { ON_PG } from "../db";

const ON_LINUX = process.platform === "linux";
const cleanup: (() => unknown)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

async function freshStore(
  dir = mkdtempSync(join(tmpdir(), "plinth-wal-")),
): Promise<{ store: Store; dir: string; file: string }> {
  const store = openStore(dir);
  await store.migrate();
  cleanup.push(() => rmSync(dir, { recursive: true, force: true }));
  cleanup.push(() => store.close());
  return { store, dir, file: join(dir, "plinth.sqlite") };
}

/** Commits from a process of its own, as a CLI beside the server does. */
async function commitElsewhere(file: string) {
  const p = Bun.spawn(
    [
      process.execPath,
      "-e",
      `const { Database } = require("bun:sqlite"); const d = new Database(${JSON.stringify(file)}); d.exec("PRAGMA busy_timeout = 5000"); d.exec("INSERT INTO companies (name, created_at) VALUES ('elsewhere', 0)"); d.close();`,
    ],
    { stderr: "pipe" },
  );
  const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
  expect({ code, err }).toEqual({ code: 0, err: "" });
}

/** POSIX locks this process holds on `file` (/proc/locks lists them by pid and device:inode). */
function locksHeld(file: string): number {
  const { ino } = statSync(file);
  return readFileSync("/proc/locks", "utf8")
    .split("\n")
    .filter((l) => {
      const f = l.trim().split(/\s+/);
      return f[1] === "POSIX" && f[4] === String(process.pid) && f[5]?.endsWith(`:${ino}`);
    }).length;
}

test.skipIf(ON_PG || !ON_LINUX)(
  "with nothing committed, cache checks read nothing; a commit in another process is seen on the very next check",
  async () => {
    const { store, file } = await freshStore();
    const watch = store.changes.watch(["companies"]);
    watch.changed();
    watch.changed(); // the first checks take their readings
    const before = store.changes.exactReads;
    for (let i = 0; i < 1000; i++) expect(watch.changed()).toBe(false);
    expect(store.changes.exactReads).toBe(before);

    await commitElsewhere(file);
    expect(watch.changed()).toBe(true);
    expect(store.changes.exactReads).toBe(before + 1);
    expect(watch.changed()).toBe(false);
    expect(store.changes.exactReads).toBe(before + 1);

    // This process's own commit moves the header too: one exact reading, which shows no foreign change, so other caches stay.
    const sitesWatch = store.changes.watch(["sites"]);
    sitesWatch.changed();
    await store.query("INSERT INTO companies (name, created_at) VALUES ('here', 0)", [], { writes: ["companies"] });
    expect(watch.changed()).toBe(true);
    expect(sitesWatch.changed()).toBe(false);
    expect(store.changes.exactReads).toBe(before + 2);
  },
);

test.skipIf(ON_PG || !ON_LINUX)(
  "a -shm file this process already has open is not touched: its locks stay, and every check reads data_version",
  async () => {
    const { store: first, dir, file } = await freshStore();
    await first.close();
    const raw = new Database(file);
    cleanup.push(() => raw.close());
    raw.exec("PRAGMA journal_mode = WAL");
    raw.query("SELECT count(*) FROM companies").get(); // SQLite here now holds the -shm file and its locks
    const held = locksHeld(`${file}-shm`);
    expect(held).toBeGreaterThan(0);

    const store = openStore(dir);
    cleanup.push(() => store.close());
    expect(locksHeld(`${file}-shm`)).toBeGreaterThanOrEqual(held);
    const watch = store.changes.watch(["companies"]);
    watch.changed();
    const before = store.changes.exactReads;
    for (let i = 0; i < 10; i++) watch.changed();
    expect(store.changes.exactReads).toBe(before + 10);
    await commitElsewhere(file);
    expect(watch.changed()).toBe(true);
  },
);

test.skipIf(ON_PG || !ON_LINUX)(
  "once the path no longer names the mapped file, checks go back to data_version within a second",
  async () => {
    const { store, file } = await freshStore();
    const watch = store.changes.watch(["companies"]);
    watch.changed();
    watch.changed();
    const before = store.changes.exactReads;
    watch.changed();
    expect(store.changes.exactReads).toBe(before);
    unlinkSync(`${file}-shm`); // SQLite here keeps using its (now unlinked) file; the mapping can no longer be proven to be it
    await Bun.sleep(1100);
    watch.changed();
    watch.changed();
    expect(store.changes.exactReads).toBe(before + 2);
  },
);

test.skipIf(ON_PG || !ON_LINUX)(
  "opening holds SQLite's locks on the -shm file, and a fresh data dir gets the fast check from its first start",
  async () => {
    const { store, file } = await freshStore();
    const watch = store.changes.watch(["companies"]);
    watch.changed();
    expect(locksHeld(`${file}-shm`)).toBeGreaterThan(0);
    const before = store.changes.exactReads;
    watch.changed();
    expect(store.changes.exactReads).toBe(before);
  },
);
