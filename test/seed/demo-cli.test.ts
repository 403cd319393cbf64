/** `plinth seed --demo` through the real CLI: seeds once, then refuses to mix the demo into existing data. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Database } from "bun:sqlite";
import { sha256Hex } from "../../src/core/secrets";
import { demoFiles } from "../../db/seed/demo-files";
import { HARBOR_MEDIA, NORTHWIND_MEDIA } from "../../db/seed/demo-media";

const dir = mkdtempSync(join(tmpdir(), "plinth-seed-cli-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function plinth(...args: string[]) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("PLINTH_")));
  const r = Bun.spawnSync([process.execPath, join(import.meta.dir, "../../src/main.ts"), ...args], {
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
}

describe("plinth seed --demo", () => {
  test("seeds an empty data dir and prints credentials whose hashes are stored", () => {
    const r = plinth("seed", "--demo", "--data-dir", dir);
    expect(r.err).toBe("");
    expect(r.code).toBe(0);
    const [, siteId, restKey] = /REST key \(site (\d+)\): (svc_live_[0-9a-f]{64})\n/.exec(r.out)!;
    const [, mcpKey] = /MCP key: (svc_mcp_[0-9a-f]{64})\n/.exec(r.out)!;
    expect(r.out).toMatch(/Portal: demo@plinth\.dev \/ demo-[0-9a-f]{16}\n/);
    const db = new Database(join(dir, "plinth.sqlite"), { readonly: true });
    expect(db.query("SELECT site_id FROM rest_keys WHERE secret_hash = ?").get(sha256Hex(restKey!))).toEqual({
      site_id: Number(siteId),
    });
    expect(db.query("SELECT count(*) AS n FROM mcp_keys WHERE secret_hash = ?").get(sha256Hex(mcpKey!))).toEqual({
      n: 1,
    });
    db.close();
  });

  test("writes every media file into the data dir, byte for byte what this process generates", () => {
    const db = new Database(join(dir, "plinth.sqlite"), { readonly: true });
    const rows = db.query("SELECT filename, storage_key, thumbnail_url, size_bytes FROM media").all() as {
      filename: string;
      storage_key: string;
      thumbnail_url: string | null;
      size_bytes: number;
    }[];
    db.close();
    expect(rows.length).toBe(HARBOR_MEDIA.length + NORTHWIND_MEDIA.length);
    // Another process, another moment: the same bytes (the pictures are deterministic, not random).
    const here = demoFiles([...HARBOR_MEDIA, ...NORTHWIND_MEDIA]);
    for (const r of rows) {
      const f = here.get(r.filename)!;
      const written = readFileSync(join(dir, "media", r.storage_key));
      expect(written.length).toBe(r.size_bytes);
      expect(written.equals(f.bytes)).toBe(true);
      if (f.thumb) expect(readFileSync(join(dir, r.thumbnail_url!)).equals(f.thumb.bytes)).toBe(true);
    }
  });

  test("a second run refuses, exits non-zero and changes nothing", () => {
    const count = () => {
      const db = new Database(join(dir, "plinth.sqlite"), { readonly: true });
      const n = db
        .query(
          "SELECT (SELECT count(*) FROM sites) AS sites, (SELECT count(*) FROM posts) AS posts, (SELECT count(*) FROM users) AS users",
        )
        .get();
      db.close();
      return n;
    };
    const before = count();
    const r = plinth("seed", "--demo", "--data-dir", dir);
    expect(r.code).toBe(1);
    expect(r.err).toContain("already has sites");
    expect(r.out).not.toContain("svc_");
    expect(count()).toEqual(before);
  });

  test("without --demo it is a usage error", () => {
    const r = plinth("seed", "--data-dir", dir);
    expect(r.code).not.toBe(0);
    expect(r.err).toContain("--demo");
  });
});
