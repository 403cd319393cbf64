/**
 * The field schemas and input helpers every domain's tools and verbs share:
 * the one id schema, single- and multi-line text, slugs, colours, URLs,
 * lists of unique ids, and the one-transaction write helper. They lived in
 * cms/common.ts, which six domains imported as a schema library; they are
 * about input, not about posts, so they live here.
 *
 * Schemas are valibot, convertible to JSON Schema: only pipes the
 * converter understands, because the published tool schemas (tools/list,
 * docs/tools.md) are generated from them.
 */
import * as v from "valibot";
import type { ActorContext } from "./context";
import type { Db, Tx } from "./db";
import { invalid } from "./errors";
import { MAX_SLUG } from "./slug";

/**
 * A schema with the words a model needs beside its type, published as its
 * JSON Schema `description`: what the string form of an id-or-name union
 * accepts ("integer id, or the company's domain such as acme.com"), or how
 * the values a field accepts depend on another field. Give the words once,
 * on the shared field schema (companyRef, memberRef…), not on every tool;
 * test/mcp/schemas.test.ts fails on an id-or-string union without them.
 */
export const described = <S extends v.GenericSchema>(schema: S, words: string) => v.pipe(schema, v.description(words));

/** How every domain says a person given by id or by words, alike. */
export const USER_REF_WORDS = 'user id, email or "me"';
export const MEMBER_REF_WORDS = "user id or email";

/** A row id: a positive integer a JavaScript number holds exactly. The one id schema of every tool. */
export const idSchema = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(Number.MAX_SAFE_INTEGER));

// No C0 control characters (and DEL) in single-line text; multi-line text may hold tab, LF, CR.
const SINGLE_LINE_RE = /^[^\u0000-\u001f\u007f]*$/;
const MULTI_LINE_RE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;

/** Single-line plain text, 1..max characters. */
export const line = (max: number, min = 1) =>
  v.pipe(
    v.string(),
    v.minLength(min),
    v.maxLength(max),
    v.regex(SINGLE_LINE_RE, "must not contain control characters or line breaks"),
  );
/** Multi-line plain text, 0..max characters. */
export const textBlock = (max: number) =>
  v.pipe(v.string(), v.maxLength(max), v.regex(MULTI_LINE_RE, "must not contain control characters"));

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const slugSchema = v.pipe(
  v.string(),
  v.minLength(1),
  v.maxLength(MAX_SLUG),
  v.regex(SLUG_PATTERN, "must be lower-case letters, digits and single hyphens, like my-first-post"),
);

export const COLOR_PATTERN = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;
export const colorSchema = v.pipe(v.string(), v.regex(COLOR_PATTERN, "must be a hex colour like #2563eb or #fff"));

/** URLs are checked in the verbs (urlProblem) so the message can name the field; the schema only bounds them. */
export const urlSchema = v.pipe(v.string(), v.minLength(1), v.maxLength(2048));

export function normalColor(c: string | null | undefined): string | null | undefined {
  return typeof c === "string" ? c.toLowerCase() : c;
}

/** Runs `fn` in one transaction (a savepoint when the caller already holds one: approval apply, dry runs). */
export function write<T>(ctx: ActorContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return (ctx.deps.db as Db).transaction((tx) => fn(tx as unknown as Tx));
}

/** A list of ids given by the caller, each unique. */
export function uniqueIds(field: string, ids: number[]): number[] {
  const set = new Set(ids);
  if (set.size !== ids.length) throw invalid(`${field} lists the same id more than once.`, { path: field });
  return [...set];
}
