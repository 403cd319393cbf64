/**
 * Free-form JSON arguments (a trigger sample, template data, custom values,
 * filters, slide content, survey pages…) are published loosely so the
 * listing stays short, and checked by their verbs. Two things no verb should
 * have to think about are settled here, once, for every one of them:
 *
 *  - an object is an object: valibot's `record` takes an array as an object
 *    and quietly turns `[1,2,3]` into `{"0":1,"1":2,"2":3}`; `jsonObject`
 *    refuses it, naming the argument;
 *  - a bound on shape: at most JSON_MAX_DEPTH levels and JSON_MAX_NODES
 *    values, so a 2,000-deep array or a list of a million items is refused
 *    at the door instead of being walked, stored and rendered by code that
 *    recurses. The walk is iterative and stops at the first value past a
 *    bound, so measuring hostile input costs at most JSON_MAX_NODES steps.
 *
 * Both keep the published JSON Schema as it was (checks are not published).
 * `publishedAs` gives such a value its JSON type in the listing (a list of
 * blocks says its items are objects) while the verb keeps checking it.
 */
import * as v from "valibot";

export const JSON_MAX_DEPTH = 32;
export const JSON_MAX_NODES = 10_000;

/** What is wrong with the shape of `value` ("nested deeper than…", "holds more than…"), or null. */
export function jsonShapeProblem(value: unknown): string | null {
  const stack: [unknown, number][] = [[value, 1]];
  let nodes = 0;
  while (stack.length) {
    const [x, depth] = stack.pop()!;
    if (++nodes > JSON_MAX_NODES) return `holds more than ${JSON_MAX_NODES.toLocaleString("en")} values`;
    if (x === null || typeof x !== "object") continue;
    if (depth > JSON_MAX_DEPTH) return `is nested deeper than ${JSON_MAX_DEPTH} levels`;
    for (const child of Array.isArray(x) ? x : Object.values(x)) stack.push([child, depth + 1]);
  }
  return null;
}

/**
 * The bound as a pipe step: `v.pipe(v.array(v.unknown()), jsonBounds("pages"))`.
 * Named, the message reads "pages is nested deeper than 32 levels"; nested
 * under a list item, leave the name out and the path is put in front.
 */
export function jsonBounds<T>(name?: string) {
  return v.rawCheck<T>(({ dataset, addIssue }) => {
    if (!dataset.typed) return;
    const p = jsonShapeProblem(dataset.value);
    if (p) addIssue({ message: name ? `${name} ${p}` : p });
  });
}

type ObjectSchema<T extends v.GenericSchema> = v.RecordSchema<v.StringSchema<undefined>, T, undefined>;

/**
 * A free-form object argument: `v.record(v.string(), value)` that refuses an
 * array ("sample must be an object, not an array") and is held to the bounds.
 * Published exactly as the plain record.
 */
export function jsonObject<T extends v.GenericSchema = v.UnknownSchema>(name?: string, value?: T) {
  const base = v.record(v.string(), value ?? v.unknown()) as ObjectSchema<T>;
  // The record itself with one more refusal first; _standardSchema points its Standard Schema face at this copy.
  const objectOnly: ObjectSchema<T> = v._standardSchema({
    ...base,
    "~run"(dataset, config) {
      if (Array.isArray(dataset.value)) {
        const message = name ? `${name} must be an object, not an array` : "must be an object, not an array";
        v._addIssue(this, "type", dataset, config, { message, received: '"Array"' });
        return dataset as unknown as v.OutputDataset<v.InferOutput<ObjectSchema<T>>, v.RecordIssue>;
      }
      return base["~run"](dataset, config);
    },
  });
  return v.pipe(objectOnly, jsonBounds<v.InferOutput<ObjectSchema<T>>>(name));
}

/**
 * A free-form value published with its JSON type(s), still checked by its
 * verb: `v.array(publishedAs(v.unknown(), "object"))` lists its items as
 * objects instead of `{}` (test/mcp/schemas.test.ts refuses an untyped
 * argument). Where the type lists a string beside another, give words too
 * (`described` in src/core/fields.ts) saying when which.
 */
export function publishedAs<S extends v.GenericSchema>(schema: S, type: string | string[]) {
  return v.pipe(schema, v.metadata({ type }));
}
