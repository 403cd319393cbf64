/** blocks://schema: the Markdown reference covers the whole catalog and its examples are valid. */
import { describe, expect, test } from "bun:test";
import { BLOCK_CATALOG, BLOCK_CATEGORIES, getBlockDefinition, type Block } from "../../src/domains/blocks/catalog";
import { blockSchemaMarkdown, EXAMPLE_CONTENT } from "../../src/domains/blocks/markdown";
import { validateContent } from "../../src/domains/blocks/validate";

const md = blockSchemaMarkdown();
const jsonBlocks = [...md.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => JSON.parse(m[1]!));

describe("blockSchemaMarkdown", () => {
  test("documents every block type with its category, inputs and whether each is required", () => {
    for (const cat of BLOCK_CATEGORIES) expect(md).toContain(`## Category \`${cat}\``);
    for (const d of BLOCK_CATALOG) {
      const start = md.indexOf(`### \`${d.type}\` — ${d.name}`);
      expect(start).toBeGreaterThan(-1);
      const end = md.indexOf("\n### ", start + 1);
      const section = md.slice(start, end === -1 ? undefined : end);
      // The section sits under its category heading.
      const catHeading = md.lastIndexOf("## Category `", start);
      expect(md.slice(catHeading, catHeading + 40)).toContain(`\`${d.category}\``);
      for (const [name, spec] of Object.entries(d.inputs)) {
        const row = section.split("\n").find((l) => l.startsWith(`| \`${name}\` |`));
        expect(row).toBeDefined();
        expect(row).toContain(spec.required ? "| **yes** |" : "| no |");
        if (spec.kind === "enum") for (const v of spec.values) expect(row).toContain(`\`${v}\``);
        if (spec.kind === "integer") expect(row).toContain(`${spec.min}–${spec.max}`);
        if (spec.kind === "text") expect(row).toContain(`max ${spec.maxLength} chars`);
        if (spec.kind === "list")
          for (const f of Object.keys(spec.fields)) expect(section).toContain(`| \`${name}[].${f}\` |`);
        if (spec.kind === "slugList")
          expect(row).toContain(
            `| array of slugs | no | ${spec.minItems}–${spec.maxItems} items, each a lower-case slug |`,
          );
      }
      if (d.children) expect(section).toContain("Children:");
    }
  });

  test("states the content format and limits", () => {
    expect(md).toContain('{"blocks": [Block, ...], "version": "1"}');
    expect(md).toContain("at most 8 levels of nesting and 2000 blocks");
    expect(md).toContain("javascript:");
    // Product slugs that name nothing are warned about, not refused: a model should know before it writes.
    expect(md).toContain("the write result lists it under `warnings`");
    expect(md).toContain("| `productSlugs` | array of slugs |");
  });

  test("every JSON example in it is valid, and the last is a complete post body", () => {
    expect(jsonBlocks.length).toBe(BLOCK_CATALOG.length + 2); // format sample, one per type, full example
    for (const ex of jsonBlocks.slice(1, -1) as Block[]) {
      const def = getBlockDefinition(ex.type)!;
      const list = def.parents ? [{ type: def.parents[0]!, props: {}, children: [ex] }] : [ex];
      const r = validateContent({ blocks: list });
      if (!r.ok) throw new Error(`${ex.type}: ${JSON.stringify(r.errors)}`);
    }
    const full = jsonBlocks.at(-1);
    expect(full).toEqual(EXAMPLE_CONTENT);
    expect(validateContent(full).ok).toBe(true);
    // The full example shows nesting and several categories.
    const types = new Set<string>();
    const walk = (bs: Block[]) =>
      bs.forEach((b) => (types.add(getBlockDefinition(b.type)!.category), walk(b.children ?? [])));
    walk(full.blocks);
    expect(types.size).toBeGreaterThanOrEqual(4);
  });

  test("is computed once", () => {
    const t = performance.now();
    for (let i = 0; i < 1000; i++) blockSchemaMarkdown();
    expect(performance.now() - t).toBeLessThan(20);
    expect(blockSchemaMarkdown()).toBe(md);
  });
});
