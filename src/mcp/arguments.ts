/**
 * Tool arguments as a model sends them, checked against the published
 * schema before the tool's own validation runs, so every tool answers the
 * common mistakes the same way and in words a model acts on:
 *
 *   unknown argument "sort"; accepted: siteId, status, search, limit, offset
 *   missing siteId (did you mean site_id → siteId?)
 *   unknown argument "text" and missing items; accepted: cardId, items
 *   productId must be a number, got "blue-mug" (id takes a number; give the slug as slug)
 *
 * Paths use one notation everywhere: rules[0].priceType.
 */
import type * as v from "valibot";
import type { JsonSchema } from "./registry";

type Schema = JsonSchema & {
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  anyOf?: Schema[];
  type?: string | string[];
};

/** "site_id", "SiteID", "site-id" → "siteid": what a model meant when it got the case or separators wrong. */
const loose = (s: string) => s.toLowerCase().replace(/[_\-\s]/g, "");

/** a.b, a[0].b: the notation of every path in a message. */
export function joinPath(base: string, key: string | number): string {
  if (typeof key === "number") return `${base}[${key}]`;
  return base ? `${base}.${key}` : key;
}

function isObject(x: unknown): x is Record<string, unknown> {
  return typeof x === "object" && x !== null && !Array.isArray(x);
}

/** The object alternatives a value of this schema may be. */
function objectShapes(s: Schema): Schema[] {
  if (s.anyOf) return s.anyOf.flatMap(objectShapes);
  const t = s.type;
  if ((t === "object" || (Array.isArray(t) && t.includes("object"))) && s.properties) return [s];
  return [];
}

/**
 * The first unknown or missing argument (both, when one of each), as a message; null when the keys
 * are right (types and values are the tool's own schema's to judge).
 */
export function argumentProblem(schema: Schema, value: unknown, path = ""): string | null {
  if (Array.isArray(value) && schema.items) {
    for (let i = 0; i < value.length; i++) {
      const p = argumentProblem(schema.items, value[i], joinPath(path, i));
      if (p) return p;
    }
    return null;
  }
  if (!isObject(value)) return null;
  const shapes = objectShapes(schema);
  if (!shapes.length) return null;
  // Several possible shapes (a union): judge by the one that knows the most keys.
  const keys = Object.keys(value);
  const shape =
    shapes.length === 1
      ? shapes[0]!
      : shapes.reduce((best, s) =>
          keys.filter((k) => k in s.properties!).length > keys.filter((k) => k in best.properties!).length ? s : best,
        );
  const props = shape.properties!;
  const unknown = shape.additionalProperties === false ? keys.filter((k) => !(k in props)) : [];
  const missing = shape.required?.length ? shape.required.filter((k) => value[k] === undefined) : [];
  const accepted = Object.keys(props);
  const unknownLabel = (u: string) => (path ? `property "${joinPath(path, u)}"` : `argument "${u}"`);
  const first = missing[0];
  if (first !== undefined) {
    const meant = unknown.find((u) => loose(u) === loose(first));
    const where = joinPath(path, first);
    if (meant) return `missing ${where} (did you mean ${joinPath(path, meant)} → ${where}?)`;
    // An unknown name beside a missing one is most often the same thing misnamed (text for items): say both.
    if (unknown.length)
      return `unknown ${unknownLabel(unknown[0]!)} and missing ${missing
        .map((m) => joinPath(path, m))
        .join(", ")}; accepted: ${accepted.join(", ")}`;
    return `missing ${where}`;
  }
  if (unknown.length) {
    const u = unknown[0]!;
    const close = accepted.find((a) => loose(a) === loose(u));
    const hint = close ? ` (did you mean ${close}?)` : "";
    return `unknown ${unknownLabel(u)}${hint}; accepted: ${accepted.join(", ")}`;
  }
  for (const k of keys) {
    const x = value[k];
    // Only objects and arrays can hold a problem (see the top): no path is built for the rest.
    if (x === null || typeof x !== "object" || !props[k]) continue;
    const p = argumentProblem(props[k]!, x, joinPath(path, k));
    if (p) return p;
  }
  return null;
}

/** A valibot issue's path in the one notation. */
function issuePath(issue: v.BaseIssue<unknown>): string {
  let out = "";
  for (const item of issue.path ?? []) {
    const key = (item as { key: unknown }).key;
    out = joinPath(out, typeof key === "number" ? key : String(key));
  }
  return out;
}

const TYPE_WORDS: Record<string, string> = {
  number: "a number",
  string: "a string",
  boolean: "true or false",
  array: "a list",
  object: "an object",
  integer: "a whole number",
};

function shown(x: unknown): string {
  const s =
    typeof x === "string"
      ? JSON.stringify(x)
      : Array.isArray(x)
        ? "a list"
        : x === null
          ? "null"
          : typeof x === "object"
            ? "an object"
            : String(x);
  return s.length > 60 ? `${s.slice(0, 57)}…` : s;
}

/**
 * Valibot issues → one message naming each argument by its path:
 * `items[2].price must be a number, got "12.50"`. A custom message that
 * already says what is wrong is kept as it is (prefixed with the path when it
 * does not start with the argument's name).
 */
export function issuesMessage(issues: readonly v.BaseIssue<unknown>[], schema?: Schema): string {
  const parts = issues.slice(0, 5).map((i) => {
    const path = issuePath(i);
    const last = path.replace(/.*[.\]]/, "").replace(/\[.*$/, "");
    if (i.kind === "schema" && i.expected && TYPE_WORDS[i.expected] !== undefined) {
      let msg = `${path || "the arguments"} must be ${TYPE_WORDS[i.expected]}, got ${shown(i.input)}`;
      // A slug or name where an id goes: say which argument takes it.
      if (i.expected === "number" && typeof i.input === "string" && /Id$|^id$/.test(last)) {
        const takesSlug = schema?.properties && "slug" in schema.properties;
        msg += takesSlug
          ? ` (${last} is the numeric id; give a slug as slug)`
          : ` (${last} is the numeric id; list the items to find it)`;
      }
      return msg;
    }
    if (i.kind === "schema" && i.type === "picklist")
      return `${path} must be one of ${i.expected}, got ${shown(i.input)}`;
    const m = i.message;
    if (!path || m.startsWith(last) || m.startsWith(path)) return m;
    return `${path}: ${m}`;
  });
  if (issues.length > 5) parts.push(`…and ${issues.length - 5} more`);
  return `Invalid arguments: ${parts.join("; ")}`;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
}

/** The names among `candidates` a model most likely meant by `name` (post_create → posts_create), best first. */
export function closest(name: string, candidates: readonly string[], max = 3): string[] {
  const n = name.toLowerCase().slice(0, 128);
  return candidates
    .map((c) => ({ c, d: distance(n, c) }))
    .filter((x) => x.d <= Math.max(2, Math.floor(x.c.length / 4)))
    .sort((a, b) => a.d - b.d || (a.c < b.c ? -1 : 1))
    .slice(0, max)
    .map((x) => x.c);
}
