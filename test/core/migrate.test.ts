import { describe, expect, test } from "bun:test";
import { migrate, openStore } from "../../src/core/db";
import { migrations } from "../../db/migrations/index";

describe("migrations", () => {
  test("apply once, then are a no-op, and keep rows", () => {
    const s = openStore(":memory:");
    expect(migrate(s.sqlite)).toEqual(migrations.map((m) => m.tag));
    s.sqlite.query("INSERT INTO companies (name, created_at) VALUES ('Acme', 0)").run();
    expect(migrate(s.sqlite)).toEqual([]);
    expect(s.sqlite.query("SELECT count(*) AS n FROM companies").get()).toEqual({ n: 1 });
    s.close();
  });
  test("foreign keys are enforced", () => {
    const s = openStore(":memory:");
    migrate(s.sqlite);
    expect(() => s.sqlite.query("INSERT INTO sites (company_id, name, created_at, updated_at) VALUES (999, 'x', 0, 0)").run()).toThrow();
    s.close();
  });
});
