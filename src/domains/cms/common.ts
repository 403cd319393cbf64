/**
 * Pieces every CMS verb shares: the content schemas (valibot, convertible to
 * JSON Schema, so only pipes the converter understands), URL checks with
 * messages a model can act on, block content validation and its warnings.
 * The generic field schemas and the write helper (ids, text, slugs,
 * colours, URLs) are the core's, src/core/fields.ts.
 */
import * as v from "valibot";
import type { Tx } from "../../core/db";
import { invalid } from "../../core/errors";
import { publishedAs } from "../../core/json-value";
import { CONTENT_VERSION, type BlockContent } from "../blocks/catalog";
import { urlProblem } from "../blocks/urls";
import { referenceWarnings } from "../blocks/references";
import { assertValidContent } from "../blocks/validate";

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
const block = publishedAs(v.unknown(), "object");
export const blocksSchema = v.union(
  [v.array(block), v.strictObject({ blocks: v.array(block), version: v.optional(v.string()) })],
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
