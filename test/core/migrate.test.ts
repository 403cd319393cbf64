import { describe, expect, test } from "bun:test";
import { migrations } from "../../db/migrations/index";
import { engine } from "../../src/core/engine";
import { openTestStore } from "../db";
import { row } from "../harness";

describe("migrations", () => {
  test("apply once, then are a no-op, and keep rows", async () => {
    const s = await openTestStore();
    // openTestStore migrated it already: every embedded migration is recorded, a second run applies none.
    const recorded = await s.query<{ tag: string }>("SELECT tag FROM _migrations ORDER BY tag");
    expect(recorded.map((r) => r.tag)).toEqual(migrations[engine()].map((m) => m.tag));
    await s.query("INSERT INTO companies (name, created_at) VALUES ('Acme', ?)", [s.engine === "pg" ? new Date(0) : 0]);
    expect(await s.migrate()).toEqual([]);
    expect(await row({ store: s }, "SELECT count(*) AS n FROM companies")).toEqual({ n: 1 });
    await s.close();
  });
  test("foreign keys are enforced", async () => {
    const s = await openTestStore();
    const at = s.engine === "pg" ? new Date(0) : 0;
    expect(
      s.query("INSERT INTO sites (company_id, name, created_at, updated_at) VALUES (999, 'x', ?, ?)", [at, at]),
    ).rejects.toThrow();
    await s.close();
  });
});
