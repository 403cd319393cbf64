/** The catalog's invariants: every other block feature is derived from it. */
import { describe, expect, test } from "bun:test";
import {
  BLOCK_CATALOG,
  BLOCK_CATEGORIES,
  blockCatalogEntries,
  getBlockDefinition,
  type Block,
} from "../../src/domains/blocks/catalog";
import { validateContent } from "../../src/domains/blocks/validate";

/** A block's example as a top-level-valid block list (a column needs its columns). */
function standalone(example: Block): Block[] {
  const def = getBlockDefinition(example.type)!;
  return def.parents ? [{ type: def.parents[0]!, props: {}, children: [example] }] : [example];
}

describe("block catalog", () => {
  test("has at least 20 types covering all five categories", () => {
    expect(BLOCK_CATALOG.length).toBeGreaterThanOrEqual(20);
    expect(new Set(BLOCK_CATALOG.map((d) => d.category))).toEqual(new Set(BLOCK_CATEGORIES));
    expect([...BLOCK_CATEGORIES].sort()).toEqual(["basic", "component", "ecommerce", "layout", "media"]);
  });

  test("types are unique kebab-case ids and carry a name and description", () => {
    const types = BLOCK_CATALOG.map((d) => d.type);
    expect(new Set(types).size).toBe(types.length);
    for (const d of BLOCK_CATALOG) {
      expect(d.type).toMatch(/^[a-z][a-z0-9-]*$/);
      expect(d.name.length).toBeGreaterThan(0);
      expect(d.description.length).toBeGreaterThan(20);
    }
  });

  test("REST entries are exactly type, name, category and the input names of each definition", () => {
    const entries = blockCatalogEntries();
    expect(entries.length).toBe(BLOCK_CATALOG.length);
    entries.forEach((e, i) => {
      const d = BLOCK_CATALOG[i]!;
      expect(Object.keys(e).sort()).toEqual(["category", "inputs", "name", "type"]);
      expect(e).toEqual({ type: d.type, name: d.name, category: d.category, inputs: Object.keys(d.inputs) });
    });
    // Precomputed and shared: the same array every call, and nobody can mutate it.
    expect(blockCatalogEntries()).toBe(entries);
    expect(() => (entries as any[]).push({})).toThrow();
    expect(() => ((entries[0] as any).inputs as string[]).push("x")).toThrow();
  });

  test("inputs are internally consistent", () => {
    for (const d of BLOCK_CATALOG) {
      for (const [name, spec] of Object.entries(d.inputs)) {
        expect(["id", "type", "children"]).not.toContain(name);
        expect(spec.description.length).toBeGreaterThan(0);
        if (spec.kind === "enum") {
          expect(spec.values.length).toBeGreaterThan(1);
          if (spec.default !== undefined) expect(spec.values).toContain(spec.default);
        }
        if (spec.kind === "integer") {
          expect(spec.min).toBeLessThanOrEqual(spec.max);
          if (spec.default !== undefined) {
            expect(spec.default).toBeGreaterThanOrEqual(spec.min);
            expect(spec.default).toBeLessThanOrEqual(spec.max);
          }
        }
        if (spec.kind === "text") expect(spec.maxLength).toBeGreaterThan(0);
        if (spec.kind === "list") expect(Object.keys(spec.fields).length).toBeGreaterThan(0);
      }
    }
  });

  test("only layout blocks have a children slot, and section/columns/column/grid do", () => {
    const withSlot = BLOCK_CATALOG.filter((d) => d.children).map((d) => d.type);
    for (const t of withSlot) expect(getBlockDefinition(t)!.category).toBe("layout");
    expect(withSlot.sort()).toEqual(["column", "columns", "grid", "section"]);
  });

  test("every definition's example is valid content and sets every required input", () => {
    for (const d of BLOCK_CATALOG) {
      const r = validateContent({ blocks: standalone(d.example), version: "1" });
      if (!r.ok) throw new Error(`${d.type}: ${JSON.stringify(r.errors)}`);
      expect(d.example.type).toBe(d.type);
      for (const [name, spec] of Object.entries(d.inputs))
        if (spec.required) expect(d.example.props).toHaveProperty(name);
    }
  });

  test("the catalog is frozen", () => {
    expect(() => ((BLOCK_CATALOG[0] as any).type = "x")).toThrow();
    expect(getBlockDefinition("heading")!.type).toBe("heading");
    expect(getBlockDefinition("constructor")).toBeUndefined();
  });
});
