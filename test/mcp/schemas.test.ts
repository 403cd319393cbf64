/**
 * Every argument typed and explained where its name does not say it all
 * (issue 29, item 3). A model sees only the published schema: an argument
 * without a type, a list of `{}`, or "integer or string" without a word on
 * the string ("Hale Hotel" sent where a company's domain was wanted) sets
 * it up to fail. This walks every tool's published inputSchema, whatever
 * domain declared it, so tools added later are held to it too.
 *
 * Values of free-form maps (`additionalProperties: {}`: custom fields,
 * template data, a trigger sample) are any JSON by design (src/core/json-value.ts)
 * and are not walked; everything with a name or a position is.
 */
import { describe, expect, test } from "bun:test";
import { registry } from "../../src/mcp/routes";

type Node = Record<string, any>;

const reg = registry();

/** The types a schema admits, null left out: from type, the branches of anyOf/oneOf, enum values or const. */
function typesOf(s: Node): string[] | null {
  if (!s || typeof s !== "object") return null;
  if (typeof s.type === "string") return [s.type];
  if (Array.isArray(s.type)) return s.type;
  for (const k of ["anyOf", "oneOf"])
    if (Array.isArray(s[k])) {
      if (!s[k].length) return null;
      const each = s[k].map(typesOf);
      return each.includes(null) ? null : (each as string[][]).flat();
    }
  const jsType = (x: unknown) => (x === null ? "null" : Number.isInteger(x) ? "integer" : typeof x);
  if (Array.isArray(s.enum) && s.enum.length) return s.enum.map(jsType);
  if ("const" in s) return [jsType(s.const)];
  return null;
}

/** A string of any words among the types (an enum or const names its strings itself). */
function freeString(s: Node): boolean {
  if (!s || typeof s !== "object" || s.enum || "const" in s) return false;
  if (s.type === "string" || (Array.isArray(s.type) && s.type.includes("string"))) return true;
  return ["anyOf", "oneOf"].some((k) => Array.isArray(s[k]) && s[k].some(freeString));
}

/**
 * Fields whose accepted values depend on another field, and words their
 * description must contain to say how. Add to it when a tool's field reads
 * differently by the value of another.
 */
export const DEPENDENT_FIELDS: { tools: RegExp; path: string; says: RegExp[] }[] = [
  // An address in person, the number to call by phone, an https URL for video.
  { tools: /^booking_pages_(create|update)$/, path: "where", says: [/in.person/, /phone/, /video/, /https/] },
  // The fields a CSV column may fill.
  { tools: /^contacts_import$/, path: "mapping", says: [/firstName/, /emails/, /custom\./] },
  // Picks for choice questions, bounds of the value otherwise.
  { tools: /^surveys_create$/, path: "pages[].questions[].min", says: [/choice/, /number|date|text/] },
  { tools: /^surveys_create$/, path: "pages[].questions[].max", says: [/choice/, /number|date|text/] },
];

/** What is wrong with one published schema, as "path: problem" lines (empty when nothing). */
export function schemaProblems(schema: Node): string[] {
  const out: string[] = [];
  const walk = (s: Node, path: string) => {
    if (!s || typeof s !== "object") return;
    const types = typesOf(s);
    if (!types) out.push(`${path}: no type`);
    else {
      const nonNull = new Set(types.filter((t) => t !== "null"));
      if (freeString(s) && nonNull.size > 1 && !s.description)
        out.push(`${path}: ${[...nonNull].join(" or ")} without a description of what the string accepts`);
    }
    if ("items" in s && !typesOf(s.items)) out.push(`${path}[]: items without a type`);
    for (const [k, child] of Object.entries((s.properties ?? {}) as Record<string, Node>))
      walk(child, path ? `${path}.${k}` : k);
    if (s.items && typesOf(s.items)) walk(s.items, `${path}[]`);
    for (const k of ["anyOf", "oneOf"])
      for (const branch of (s[k] ?? []) as Node[]) if (branch.properties || branch.items) walk(branch, path);
    if (s.additionalProperties && typeof s.additionalProperties === "object" && typesOf(s.additionalProperties))
      walk(s.additionalProperties, `${path}.*`);
  };
  walk(schema, "");
  return out;
}

/** The property at a dotted path ("pages[].questions[].min"), or undefined. */
function at(schema: Node, path: string): Node | undefined {
  let s: Node | undefined = schema;
  for (const part of path.split(".")) {
    const name = part.replace(/\[\]/g, "");
    s = s?.properties?.[name];
    for (let i = 0; i < (part.match(/\[\]/g)?.length ?? 0); i++) s = s?.items;
  }
  return s;
}

describe("the checker itself", () => {
  test("finds an untyped property, an items {}, an undescribed id-or-string and a described one", () => {
    expect(
      schemaProblems({
        type: "object",
        properties: {
          a: { examples: [1] },
          b: { type: "array", items: {} },
          c: { type: ["integer", "string"] },
          d: { type: ["integer", "string", "null"], description: "id or key" },
          e: { anyOf: [{ type: "string" }, { type: "object", properties: { f: {} } }] },
          g: { enum: ["x", "y"] },
          i: { anyOf: [{ type: "integer" }, { const: "active" }] },
          h: { type: "object", additionalProperties: {} },
        },
      }),
    ).toEqual([
      "a: no type",
      "b[]: items without a type",
      "c: integer or string without a description of what the string accepts",
      "e: string or object without a description of what the string accepts",
      "e.f: no type",
    ]);
  });
});

describe("every argument of every tool", () => {
  test("has a type; lists say what they hold; an id-or-string says what the string accepts", () => {
    const offenders = reg.tools.flatMap((t) =>
      schemaProblems(t.entrySingle.inputSchema).map((p) => `${t.def.name} ${p}`),
    );
    if (offenders.length) console.log(offenders.join("\n"));
    expect(offenders).toEqual([]);
  });

  test("a field whose values depend on another says how", () => {
    const missing: string[] = [];
    let checked = 0;
    for (const d of DEPENDENT_FIELDS)
      for (const t of reg.tools.filter((x) => d.tools.test(x.def.name))) {
        checked++;
        const field = at(t.entrySingle.inputSchema, d.path);
        const words = String(field?.description ?? "");
        const unsaid = d.says.filter((re) => !re.test(words));
        if (!field || unsaid.length)
          missing.push(`${t.def.name} ${d.path}: ${field ? `says nothing of ${unsaid.join(", ")}` : "absent"}`);
      }
    expect(missing).toEqual([]);
    expect(checked).toBeGreaterThanOrEqual(DEPENDENT_FIELDS.length);
  });
});
