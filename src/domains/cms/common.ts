/**
 * Pieces every CMS verb shares: input schemas (valibot, convertible to JSON
 * Schema, so only pipes the converter understands), URL and colour checks
 * with messages a model can act on, block content validation, and the
 * one-transaction write helper.
 */
import * as v from "valibot";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid } from "../../core/errors";
import { MAX_SLUG } from "../../core/slug";
import { CONTENT_VERSION, type BlockContent } from "../blocks/catalog";
import { urlProblem } from "../blocks/urls";
import { referenceWarnings } from "../blocks/references";
import { assertValidContent } from "../blocks/validate";
import type { Tx } from "../approvals/links";

export type { Tx };

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

/** Heavy fields come back only when asked for. */
export const includeSchema = v.optional(v.array(v.picklist(["blocks", "html"])), []);
export type Include = ("blocks" | "html")[];

/**
 * A post's or template's blocks, in either form an agent may hold them: the
 * bare array, or exactly the content object blocks://schema documents,
 * `{"blocks": [...], "version": "1"}` (version optional; another version is
 * refused by contentFrom). The blocks themselves are validated against the
 * catalog by the verb, which reports the path of each offending block.
 */
export const blocksSchema = v.union(
  [v.array(v.unknown()), v.strictObject({ blocks: v.array(v.unknown()), version: v.optional(v.string()) })],
  'must be an array of blocks, or {"blocks": [...], "version": "1"} (see blocks://schema)',
);
export type BlocksInput = v.InferOutput<typeof blocksSchema>;

export function checkUrl(field: string, value: string | null | undefined, httpsOnly = false): void {
  if (value === null || value === undefined) return;
  const problem = urlProblem(value, httpsOnly);
  if (problem) throw invalid(`${field} ${problem}.`, { path: field });
}

/**
 * Validated, normalised block content for the given blocks (the catalog of
 * listBlocks and blocks://schema), from the bare array or the content object.
 */
export function contentFrom(input: BlocksInput | unknown[]): BlockContent {
  if (!Array.isArray(input)) {
    if (input.version !== undefined && input.version !== CONTENT_VERSION)
      throw invalid(
        `blocks.version "${input.version.slice(0, 20)}" is not a content version this service writes: the current one is "${CONTENT_VERSION}". ` +
          `Send {"blocks": [...], "version": "${CONTENT_VERSION}"}, or the bare array of blocks.`,
        { path: "blocks.version" },
      );
    return assertValidContent({ blocks: input.blocks, version: CONTENT_VERSION }) as BlockContent;
  }
  return assertValidContent({ blocks: input, version: CONTENT_VERSION }) as BlockContent;
}

/**
 * Level-1 headings in content: a post's title is rendered as its page's
 * h1, so one in the body would be a second (and a template's ends up in a
 * post's body). Accepted, and said in the write result's `warnings`.
 */
export function headingWarnings(
  content: { blocks: readonly unknown[] } | null | undefined,
  what: "post" | "template",
): string[] {
  const out: string[] = [];
  const walk = (blocks: readonly unknown[], path: string) =>
    blocks.forEach((b, i) => {
      if (!b || typeof b !== "object") return;
      const block = b as { type?: unknown; props?: Record<string, unknown>; children?: unknown };
      const at = `${path}[${i}]`;
      if (block.type === "heading" && block.props?.level === 1)
        out.push(
          `${at} is a level-1 heading: ${what === "post" ? "the post's title is" : "the title of a post built from this template is"} ` +
            "already the page's h1, so this makes a second one. Use level 2 for sections, or drop it if it repeats the title.",
        );
      if (Array.isArray(block.children)) walk(block.children, `${at}.children`);
    });
  if (content) walk(content.blocks, "blocks");
  return out.slice(0, 5);
}

/**
 * What a write says about content it accepted, as `{ warnings }` to spread
 * into its result (nothing when all is well): product slugs that name no
 * product of the site, a second h1.
 */
export async function contentWarnings(
  tx: Tx,
  siteId: number,
  content: { blocks: readonly unknown[] } | null | undefined,
  what: "post" | "template",
): Promise<{ warnings?: string[] }> {
  const warnings = [
    ...headingWarnings(content, what),
    ...((await referenceWarnings(tx, siteId, content)).warnings ?? []),
  ];
  return warnings.length ? { warnings } : {};
}

export function normalColor(c: string | null | undefined): string | null | undefined {
  return typeof c === "string" ? c.toLowerCase() : c;
}

/** Runs `fn` in one transaction (a savepoint when the caller already holds one: approval apply, dry runs). */
export function write<T>(ctx: ActorContext, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return (ctx.deps.db as Db).transaction((tx) => fn(tx as unknown as Tx));
}

/** Keys of an update input that carry a change (present, not undefined), minus addressing keys. */
export function changedKeys(
  input: Record<string, unknown>,
  skip: readonly string[] = ["siteId", "id", "include"],
): string[] {
  return Object.keys(input).filter((k) => input[k] !== undefined && !skip.includes(k));
}

/** A list of ids given by the caller, each unique. */
export function uniqueIds(field: string, ids: number[]): number[] {
  const set = new Set(ids);
  if (set.size !== ids.length) throw invalid(`${field} lists the same id more than once.`, { path: field });
  return [...set];
}
