/** src/core/bounded-map.ts: the bounds every hot-path cache relies on. */
import { expect, test } from "bun:test";
import { BoundedMap } from "../../src/core/bounded-map";

const bytes = (maxBytes: number, extra: Partial<ConstructorParameters<typeof BoundedMap<string, string>>[0]> = {}) =>
  new BoundedMap<string, string>({ maxBytes, sizeOf: (_, v) => v.length, ...extra });

test("oldest out first when the bytes are passed; a replaced value is counted once", () => {
  const m = bytes(10);
  m.set("a", "xxxx");
  m.set("b", "xxxx");
  m.set("b", "xxxx"); // replaced, not counted twice
  expect([m.get("a"), m.size]).toEqual(["xxxx", 2]);
  m.set("c", "xxxx");
  expect([m.get("a"), m.get("b"), m.get("c"), m.size]).toEqual([undefined, "xxxx", "xxxx", 2]);
});

test("oldest out first past maxEntries; deleting frees its bytes", () => {
  const m = bytes(1000, { maxEntries: 2 });
  for (const k of ["a", "b", "c"]) m.set(k, k);
  expect([m.get("a"), m.get("b"), m.get("c")]).toEqual([undefined, "b", "c"]);
  const n = bytes(8);
  n.set("a", "xxxxxxxx");
  expect(n.delete("a")).toBe(true);
  expect(n.delete("a")).toBe(false);
  n.set("b", "xxxxxxxx");
  expect([n.get("b"), n.size]).toEqual(["xxxxxxxx", 1]);
});

test("a value over maxEntryBytes is not kept and leaves the others (and an older value under its key) alone", () => {
  const m = bytes(100, { maxEntryBytes: 10 });
  m.set("a", "small");
  m.set("b", "kept");
  expect(m.set("b", "x".repeat(11))).toBe(false);
  expect([m.get("a"), m.get("b"), m.size]).toEqual(["small", "kept", 2]);
});
