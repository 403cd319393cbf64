/**
 * Builds arguments for any tool from its published JSON Schema, so the
 * registry suite can exercise every tool of every domain without knowing it:
 * a valid sample (to get past validation and reach the tenancy and role
 * checks) and, per argument, a wrongly typed variant.
 *
 * A tool whose schema cannot be satisfied from the schema alone (say, a
 * string with an unusual pattern) should say so with `v.examples([...])` on
 * that argument: the first example is used.
 */
type Schema = Record<string, any>;

const STRING_CANDIDATES = [
  "example",
  "hello-world",
  "x",
  "Example text",
  "#2563eb",
  "https://example.com/a.png",
  "2030-01-01",
  "2030-01-01T00:00:00.000Z",
  "a@example.com",
  "00000000-0000-4000-8000-000000000000",
  "abc123",
  "1",
  "ABC",
  "a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90",
];

function stringSample(s: Schema): string | undefined {
  const fmt: Record<string, string> = {
    email: "a@example.com",
    uri: "https://example.com/a",
    url: "https://example.com/a",
    "date-time": "2030-01-01T00:00:00.000Z",
    date: "2030-01-01",
    uuid: "00000000-0000-4000-8000-000000000000",
    ipv4: "127.0.0.1",
  };
  const pattern = s.pattern ? new RegExp(s.pattern, "u") : null;
  const min = s.minLength ?? 0;
  const max = s.maxLength ?? Infinity;
  const fits = (c: string) => c.length >= min && c.length <= max && (!pattern || pattern.test(c));
  const candidates = [...(s.format && fmt[s.format] ? [fmt[s.format]!] : []), ...STRING_CANDIDATES];
  for (const c of candidates) if (fits(c)) return c;
  if (!pattern && max >= min) return "x".repeat(Math.max(min, 1));
  return undefined;
}

function numberSample(s: Schema, integer: boolean): number {
  let n = 1;
  if (typeof s.minimum === "number") n = Math.max(n, s.minimum);
  if (typeof s.exclusiveMinimum === "number") n = Math.max(n, s.exclusiveMinimum + 1);
  if (typeof s.maximum === "number") n = Math.min(n, s.maximum);
  if (typeof s.exclusiveMaximum === "number") n = Math.min(n, s.exclusiveMaximum - 1);
  return integer ? Math.ceil(n) : n;
}

/** A value that satisfies `s`, or undefined when the schema alone does not tell. */
export function sample(s: Schema, depth = 0): unknown {
  if (depth > 8) return undefined;
  if (Array.isArray(s.examples) && s.examples.length) return s.examples[0];
  if (s.default !== undefined) return s.default;
  if (s.const !== undefined) return s.const;
  if (Array.isArray(s.enum)) return s.enum[0];
  for (const key of ["anyOf", "oneOf"] as const)
    if (Array.isArray(s[key])) {
      for (const alt of s[key] as Schema[]) {
        if (alt.type === "null") continue;
        const v = sample(alt, depth + 1);
        if (v !== undefined) return v;
      }
      return (s[key] as Schema[]).some((a) => a.type === "null") ? null : undefined;
    }
  if (Array.isArray(s.allOf)) return sample(Object.assign({}, ...s.allOf), depth + 1);
  const type = Array.isArray(s.type) ? s.type.find((t: string) => t !== "null") : s.type;
  switch (type) {
    case "string":
      return stringSample(s);
    case "integer":
      return numberSample(s, true);
    case "number":
      return numberSample(s, false);
    case "boolean":
      return false;
    case "null":
      return null;
    case "array": {
      const n = s.minItems ?? 0;
      if (n === 0) return [];
      const item = sample(s.items ?? {}, depth + 1);
      return item === undefined ? undefined : Array.from({ length: n }, () => item);
    }
    case "object": {
      const out: Record<string, unknown> = {};
      const props = (s.properties ?? {}) as Record<string, Schema>;
      for (const name of (s.required ?? []) as string[]) {
        const v = sample(props[name] ?? {}, depth + 1);
        if (v === undefined) return undefined;
        out[name] = v;
      }
      return out;
    }
    default:
      return undefined;
  }
}

/** JSON types a schema accepts, as far as the schema says. */
function acceptedTypes(s: Schema): Set<string> {
  const out = new Set<string>();
  const add = (x: Schema) => {
    if (Array.isArray(x.anyOf)) x.anyOf.forEach(add);
    else if (Array.isArray(x.oneOf)) x.oneOf.forEach(add);
    else if (Array.isArray(x.type)) x.type.forEach((t: string) => out.add(t));
    else if (typeof x.type === "string") out.add(x.type);
    else if (Array.isArray(x.enum))
      for (const e of x.enum) out.add(e === null ? "null" : Array.isArray(e) ? "array" : typeof e);
    else if (x.const !== undefined) out.add(typeof x.const);
    else out.add("any");
  };
  add(s);
  return out;
}

/** Near misses first (a number as a string, "true" for true): the mistakes models really make. */
const NEAR_MISS: Record<string, unknown[]> = {
  string: [12345, { wrong: true }],
  number: ["12", { wrong: true }],
  integer: ["12", 1.5, { wrong: true }],
  boolean: ["true", 1],
  array: ["not-an-array", { wrong: true }],
  object: ["not-an-object", [1]],
  null: ["null"],
};

function jsonType(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "array";
  if (typeof v === "number") return Number.isInteger(v) ? "integer" : "number";
  return typeof v;
}

/** A value of a JSON type the schema does not accept; undefined when it accepts anything. */
export function wrongTyped(s: Schema): unknown {
  const ok = acceptedTypes(s);
  if (ok.has("any")) return undefined;
  const accepts = (v: unknown) => {
    const t = jsonType(v);
    return ok.has(t) || (t === "integer" && ok.has("number"));
  };
  for (const t of ok) for (const v of NEAR_MISS[t] ?? []) if (!accepts(v)) return v;
  return undefined;
}
