/**
 * The engines differ where it hurts; answers must not. This file runs in
 * both suites (make test on SQLite, make test-pg on PostgreSQL) and pins
 * the answers where the engines would otherwise disagree: NUL in text,
 * ids beyond 32 bits, case folding in searches, alphabetical orderings.
 * It also keeps src free of the SQLite-only query calls.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { asciiLower } from "../../src/core/sql";
import { makeWorld, type World } from "../cms/world";
import { startTestServer, type TestServer } from "../harness";
import { mintRestKey } from "../fixtures/rest";

let s: TestServer;
let w: World;
beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
});
afterAll(async () => {
  await s?.stop();
});

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? sourceFiles(p) : /\.tsx?$/.test(name) ? [p] : [];
  });
}

describe("verbs are written once for both engines", () => {
  test("no SQLite-only .get() / .all() / .run() on a query in src (await the query instead)", () => {
    const root = join(import.meta.dir, "../../src");
    const offenders = sourceFiles(root)
      // Files that speak bun:sqlite on purpose (the store itself, the SQLite backup) import it by name.
      .filter((f) => !/from "bun:sqlite"/.test(readFileSync(f, "utf8")))
      .flatMap((f) =>
        readFileSync(f, "utf8")
          .split("\n")
          .map((line, i) => ({ f, i, line }))
          .filter(
            ({ line }) =>
              /\.(get|all|run)\(\)/.test(line) && !line.trim().startsWith("*") && !line.trim().startsWith("//"),
          ),
      )
      .map(({ f, i, line }) => `${f.slice(root.length + 1)}:${i + 1}: ${line.trim()}`);
    expect(offenders).toEqual([]);
  });
});

describe("same answers on both engines", () => {
  test("a NUL character in any argument is refused with the argument's path, never stored", async () => {
    const msg = await w.err(w.owner, "posts_create", {
      siteId: w.siteA,
      title: "Has a NUL in its blocks",
      blocks: [{ type: "paragraph", props: { text: "before\u0000after" } }],
    });
    expect(msg).toContain("blocks[0].props.text must not contain the NUL character");
    const list = await w.ok(w.owner, "posts_list", { siteId: w.siteA, search: "Has a NUL" });
    expect(list.items).toEqual([]);
  });

  test("a NUL in a REST search parameter is a 400 naming it", async () => {
    const { key } = await mintRestKey(s.deps, w.siteA);
    const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}/posts?search=a%00b`, {
      headers: { Authorization: `Bearer ${key}` },
    });
    expect(r.status).toBe(400);
    expect(((await r.json()) as { message: string }).message).toBe("search must not contain the NUL character");
  });

  test("ids up to 2^53 - 1 are simply not found: no 32-bit overflow anywhere", async () => {
    const big = Number.MAX_SAFE_INTEGER;
    expect(await w.err(w.owner, "posts_get", { siteId: w.siteA, id: big })).toMatch(/not found/i);
    expect(await w.err(w.owner, "posts_get", { siteId: big, id: 1 })).toMatch(/not found/i);
    expect(await w.err(w.owner, "categories_delete", { siteId: w.siteA, id: 2 ** 40 })).toMatch(/not found/i);
    const r = await fetch(`${s.url}/api/v1/sites/${big}/config`);
    expect(r.status).toBe(404);
  });

  test("name searches fold ASCII case only, identically: the answer is the reference implementation's", async () => {
    const names = ["Café Crème", "CAFÉ NOIR", "café au lait", "Cafeteria", "Ärger", "ärger", "50% off", "under_score"];
    for (const name of names) await w.ok(w.owner, "tags_create", { siteId: w.siteA, name });
    for (const q of ["caf", "CAFÉ", "café", "é", "ärger", "50%", "_", "r_s"]) {
      const got = (await w.ok(w.owner, "tags_list", { siteId: w.siteA, search: q, limit: 100 })).items
        .map((t: { name: string }) => t.name)
        .sort();
      const want = names.filter((n) => asciiLower(n).includes(asciiLower(q))).sort();
      expect({ q, got }).toEqual({ q, got: want });
    }
  });

  test("alphabetical lists order by code point on both engines (PostgreSQL's locale does not decide)", async () => {
    const names = ["banana", "Banana", "apple", "Zebra", "éclair", "eclair", "_under", "-dash", "10 items", "9 items"];
    for (const name of names) await w.ok(w.owner, "categories_create", { siteId: w.siteA2, name });
    const got = (await w.ok(w.owner, "categories_list", { siteId: w.siteA2, limit: 100 })).items.map(
      (c: { name: string }) => c.name,
    );
    const codePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    expect(got).toEqual([...names].sort(codePoint));
  });
});
