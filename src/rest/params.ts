/**
 * REST v1 parameters, declared once as data: each spec yields the valibot
 * schema that validates the raw query string value and the OpenAPI
 * parameter object that documents it, so the two cannot drift.
 *
 * Rules shared by every query parameter (docs/rest.md, "Parameters"):
 * - an empty value (`?search=`) counts as not given;
 * - a parameter given twice is refused (400), never silently picked;
 * - unknown parameters are ignored (cache busters, tracking tags);
 * - integers are plain decimal digits (no sign, exponent, fraction or
 *   leading zeros);
 * - `limit` above its maximum is capped to it (spec rule "capped at 100";
 *   the effective value is echoed in `pagination.limit`); below 1 is a 400.
 */
import * as v from "valibot";
import { invalid } from "../core/errors";
import { isSlug, MAX_SLUG } from "../core/slug";

const DIGITS = /^(0|[1-9][0-9]*)$/;

interface Base {
  name: string;
  description: string;
}
export interface IntegerParam extends Base {
  kind: "integer";
  min: number;
  /** Largest accepted value; above it the request is refused unless `cap` is set. */
  max: number;
  /** Values above `max` are lowered to it instead of refused. */
  cap?: boolean;
  default: number;
}
export interface SlugParam extends Base {
  kind: "slug";
}
export interface TextParam extends Base {
  kind: "text";
  maxLength: number;
}
export interface EnumParam extends Base {
  kind: "enum";
  values: readonly string[];
  default: string;
}
export interface MimeParam extends Base {
  kind: "mime";
}
export type ParamSpec = IntegerParam | SlugParam | TextParam | EnumParam | MimeParam;

const SLUG_HELP = "lowercase letters, digits and single hyphens";
const MIME_RE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\/([a-z0-9!#$&^_.+-]{0,127}|\*))?$/;

function integerSchema(p: IntegerParam) {
  const msg = p.cap
    ? `${p.name} must be a whole number of at least ${p.min} (values above ${p.max} are capped)`
    : `${p.name} must be a whole number from ${p.min} to ${p.max}`;
  return v.pipe(
    v.string(),
    v.regex(DIGITS, msg),
    // Digit strings too long to be exact doubles are above any cap anyway.
    v.transform((s) => (p.cap && s.length > 16 ? p.max : Number(s))),
    v.minValue(p.min, msg),
    v.transform((n) => (p.cap ? Math.min(n, p.max) : n)),
    v.maxValue(p.max, msg),
  );
}

function schemaFor(p: ParamSpec): v.GenericSchema<string, unknown> {
  switch (p.kind) {
    case "integer":
      return integerSchema(p);
    case "slug":
      return v.pipe(
        v.string(),
        v.check(isSlug, `${p.name} must be a slug (${SLUG_HELP}, at most ${MAX_SLUG} characters)`),
      );
    case "text":
      return v.pipe(
        v.string(),
        v.maxLength(p.maxLength, `${p.name} must be at most ${p.maxLength} characters`),
        // Refused on both engines alike (PostgreSQL cannot compare text with NUL in it).
        v.check((s) => !s.includes("\u0000"), `${p.name} must not contain the NUL character`),
        v.trim(),
      );
    case "enum":
      return v.picklist(p.values as string[], `${p.name} must be one of ${p.values.join(", ")}`);
    case "mime":
      return v.pipe(
        v.string(),
        v.toLowerCase(),
        v.check(
          (s) => s === "all" || MIME_RE.test(s),
          `${p.name} must be a MIME type or prefix such as image, image/png or all`,
        ),
        // "all" means no filter; "image/*" means the prefix "image/".
        v.transform((s) => (s === "all" ? undefined : s.endsWith("/*") ? s.slice(0, -1) : s)),
      );
  }
}

export interface ParsedQuery {
  /** Validated values by name; omitted filters are undefined, defaults applied. */
  values: Record<string, unknown>;
  /** A canonical form of the values: equal for requests that mean the same. */
  canonical: string;
}

/**
 * Validates one operation's query parameters against their specs. Built once
 * per operation; `parse` throws the 400 AppError naming the first bad parameter.
 */
export function queryParser(specs: readonly ParamSpec[]) {
  const compiled = specs.map((p) => ({ spec: p, schema: schemaFor(p) }));
  return function parse(search: URLSearchParams): ParsedQuery {
    const values: Record<string, unknown> = {};
    const parts: string[] = [];
    for (const { spec, schema } of compiled) {
      const all = search.getAll(spec.name);
      if (all.length > 1) throw invalid(`${spec.name} is given more than once; give it at most once`);
      const raw: string | undefined = all[0] === "" ? undefined : all[0];
      let value: unknown;
      if (raw === undefined) value = spec.kind === "integer" || spec.kind === "enum" ? spec.default : undefined;
      else {
        const r = v.safeParse(schema, raw);
        if (!r.success) throw invalid(r.issues[0].message);
        value = r.output;
        if (value === "") value = undefined; // a search of only spaces
      }
      values[spec.name] = value;
      parts.push(value === undefined ? "" : String(value));
    }
    return { values, canonical: parts.join("\u0000") };
  };
}

/** The path's siteId: decimal digits, no leading zero, at most 2^53 - 1. */
export function parseSiteId(raw: string): number | null {
  if (!/^[1-9][0-9]{0,15}$/.test(raw)) return null;
  const n = Number(raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** The path's slug, or null when it cannot be a slug. */
export function parseSlug(raw: string): string | null {
  return isSlug(raw) ? raw : null;
}

export const INVALID_SLUG = `Invalid slug: use ${SLUG_HELP}, at most ${MAX_SLUG} characters`;

/** The OpenAPI 3.1 parameter object of a query parameter spec. */
export function openApiParameter(p: ParamSpec): Record<string, unknown> {
  let schema: Record<string, unknown>;
  switch (p.kind) {
    case "integer":
      schema = { type: "integer", minimum: p.min, maximum: p.max, default: p.default };
      break;
    case "slug":
      schema = { type: "string", pattern: "^[a-z0-9]+(?:-[a-z0-9]+)*$", maxLength: MAX_SLUG };
      break;
    case "text":
      schema = { type: "string", maxLength: p.maxLength };
      break;
    case "enum":
      schema = { type: "string", enum: [...p.values], default: p.default };
      break;
    case "mime":
      schema = { type: "string", examples: ["image", "image/png", "application/pdf", "all"] };
      break;
  }
  return { name: p.name, in: "query", required: false, description: p.description, schema };
}
