/**
 * Write-side validation of block content against the catalog.
 *
 * Every write that stores block content (posts, block templates) runs
 * `assertValidContent` so nothing the renderers cannot handle reaches the
 * database. Errors carry a path into the submitted JSON
 * (`blocks[0].children[1].props.src`) and a message a model can act on.
 *
 * Strings are data: `<script>` in a paragraph is valid text, and every
 * renderer escapes it (render.ts). What is rejected is structure the catalog
 * does not describe, values of the wrong type, broken constraints, unsafe URL
 * schemes and control characters.
 *
 * The returned value is a fresh, normalised copy: `props` always present,
 * `null` optional inputs dropped, `children` present (possibly empty) exactly
 * on blocks that have a slot, `version` filled in when omitted.
 *
 * @public Serves cms (content written by posts and block templates).
 */
import { invalid } from "../../core/errors";
import { isSlug, MAX_SLUG } from "../../core/slug";
import {
  BLOCK_CATALOG,
  BLOCK_ID_RE,
  CONTENT_VERSION,
  getBlockDefinition,
  MAX_BLOCK_ID,
  MAX_BLOCKS,
  MAX_DEPTH,
  type Block,
  type BlockContent,
  type BlockDefinition,
  type FieldInput,
  type InputSpec,
} from "./catalog";
import { urlProblem } from "./urls";

export interface ContentError {
  path: string;
  message: string;
}

export type ContentValidation = { ok: true; value: BlockContent } | { ok: false; errors: ContentError[] };

/** Stop collecting after this many errors: enough to fix a batch, bounded for hostile input. */
export const MAX_ERRORS = 50;

const BLOCK_KEYS = new Set(["id", "type", "props", "children"]);
const CONTENT_KEYS = new Set(["blocks", "version"]);
// C0 controls except tab, newline, carriage return; DEL; lone surrogates would
// be replaced by JSON encoders, so they are left alone.
const CONTROL_RE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

class Collector {
  errors: ContentError[] = [];
  blockCount = 0;
  seenIds = new Set<string>();
  /** Set when the block cap is hit: nothing further is visited. */
  halted = false;
  add(path: string, message: string) {
    if (this.errors.length < MAX_ERRORS) this.errors.push({ path, message });
  }
  get full() {
    return this.halted || this.errors.length >= MAX_ERRORS;
  }
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== "object" || x === null || Array.isArray(x)) return false;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null;
}

function describe(x: unknown): string {
  if (x === null) return "null";
  if (Array.isArray(x)) return "array";
  return typeof x;
}

/** Length in code points, which is what "characters" means to a model and to JSON Schema. */
function charLength(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** The catalog name nearest to `name`, if it is a plausible typo. */
function nearest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  const a = name.toLowerCase().slice(0, 64);
  for (const c of candidates) {
    const d = editDistance(a, c.toLowerCase());
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  return best !== undefined && bestD <= Math.max(2, Math.floor(best.length / 3)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const tmp = prev[j]!;
      prev[j] = Math.min(prev[j]! + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = tmp;
    }
  }
  return prev[b.length]!;
}

const ALL_TYPES = BLOCK_CATALOG.map((d) => d.type);

function checkText(
  c: Collector,
  path: string,
  v: unknown,
  spec: { maxLength: number; minLength?: number; pattern?: RegExp; patternHint?: string },
): string | undefined {
  if (typeof v !== "string") {
    c.add(path, `must be a string, got ${describe(v)}`);
    return undefined;
  }
  if (v.length > spec.maxLength && charLength(v) > spec.maxLength) {
    c.add(path, `must be at most ${spec.maxLength} characters (got ${charLength(v)})`);
    return undefined;
  }
  if (spec.minLength && (charLength(v) < spec.minLength || v.trim() === "")) {
    c.add(path, spec.minLength === 1 ? "must not be empty" : `must be at least ${spec.minLength} characters`);
    return undefined;
  }
  if (CONTROL_RE.test(v)) {
    c.add(path, "must not contain control characters (only tab and line breaks are allowed)");
    return undefined;
  }
  if (spec.pattern && v !== "" && !spec.pattern.test(v)) {
    c.add(path, `must be ${spec.patternHint ?? `a string matching ${spec.pattern}`}`);
    return undefined;
  }
  return v;
}

/** A validated copy of one input value, or undefined after recording an error. */
function checkInput(c: Collector, path: string, v: unknown, spec: InputSpec): unknown {
  switch (spec.kind) {
    case "text":
      return checkText(c, path, v, spec);
    case "enum":
      if (typeof v !== "string" || !spec.values.includes(v)) {
        c.add(
          path,
          `must be one of ${spec.values.map((x) => JSON.stringify(x)).join(", ")}` +
            (typeof v === "string" ? "" : `, got ${describe(v)}`),
        );
        return undefined;
      }
      return v;
    case "integer":
      if (typeof v !== "number" || !Number.isInteger(v)) {
        c.add(
          path,
          `must be an integer from ${spec.min} to ${spec.max}, got ${typeof v === "number" ? String(v) : describe(v)}`,
        );
        return undefined;
      }
      if (v < spec.min || v > spec.max) {
        c.add(path, `must be an integer from ${spec.min} to ${spec.max}, got ${v}`);
        return undefined;
      }
      return v;
    case "boolean":
      if (typeof v !== "boolean") {
        c.add(path, `must be true or false, got ${describe(v)}`);
        return undefined;
      }
      return v;
    case "url": {
      if (typeof v !== "string") {
        c.add(path, `must be a URL string, got ${describe(v)}`);
        return undefined;
      }
      const problem = urlProblem(v, spec.httpsOnly);
      if (problem) {
        c.add(path, `URL ${problem}`);
        return undefined;
      }
      return v;
    }
    case "color":
      if (typeof v !== "string" || !/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/.test(v)) {
        c.add(
          path,
          `must be a hex colour like "#1e40af" or "#fff"` + (typeof v === "string" ? "" : `, got ${describe(v)}`),
        );
        return undefined;
      }
      return v;
    case "slug":
      if (typeof v !== "string" || !isSlug(v)) {
        c.add(
          path,
          `must be a slug (lower-case letters, digits and single hyphens, at most ${MAX_SLUG} characters)` +
            (typeof v === "string" ? "" : `, got ${describe(v)}`),
        );
        return undefined;
      }
      return v;
    case "slugList": {
      if (!Array.isArray(v)) {
        c.add(path, `must be an array of slugs, got ${describe(v)}`);
        return undefined;
      }
      if (v.length < spec.minItems || v.length > spec.maxItems) {
        c.add(path, `must have ${spec.minItems} to ${spec.maxItems} items (got ${v.length})`);
        return undefined;
      }
      let ok = true;
      v.forEach((item, i) => {
        if (
          checkInput(c, `${path}[${i}]`, item, { kind: "slug", required: true, description: spec.description }) ===
          undefined
        )
          ok = false;
      });
      return ok ? [...v] : undefined;
    }
    case "textList": {
      if (!Array.isArray(v)) {
        c.add(path, `must be an array of strings, got ${describe(v)}`);
        return undefined;
      }
      if (v.length < spec.minItems || v.length > spec.maxItems) {
        c.add(path, `must have ${spec.minItems} to ${spec.maxItems} items (got ${v.length})`);
        return undefined;
      }
      const out: string[] = [];
      let ok = true;
      v.forEach((item, i) => {
        const s = checkText(c, `${path}[${i}]`, item, { maxLength: spec.itemMaxLength, minLength: 1 });
        if (s === undefined) ok = false;
        else out.push(s);
      });
      return ok ? out : undefined;
    }
    case "list": {
      if (!Array.isArray(v)) {
        c.add(path, `must be an array of objects, got ${describe(v)}`);
        return undefined;
      }
      if (v.length < spec.minItems || v.length > spec.maxItems) {
        c.add(path, `must have ${spec.minItems} to ${spec.maxItems} items (got ${v.length})`);
        return undefined;
      }
      const out: Record<string, unknown>[] = [];
      let ok = true;
      v.forEach((item, i) => {
        const r = checkFields(c, `${path}[${i}]`, item, spec.fields, "field");
        if (r === undefined) ok = false;
        else out.push(r);
      });
      return ok ? out : undefined;
    }
  }
}

/** Validate an object of named inputs (a block's props, or one item of a list input). */
function checkFields(
  c: Collector,
  path: string,
  v: unknown,
  fields: Record<string, InputSpec | FieldInput>,
  noun: "input" | "field",
  blockType?: string,
): Record<string, unknown> | undefined {
  if (!isPlainObject(v)) {
    c.add(path, `must be an object, got ${describe(v)}`);
    return undefined;
  }
  let ok = true;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(v)) {
    if (c.full) return undefined;
    const keyPath = `${path}.${key}`;
    if (!Object.hasOwn(fields, key)) {
      const hint = nearest(key, Object.keys(fields));
      const owner = blockType ? `block "${blockType}"` : "this item";
      c.add(
        keyPath,
        `unknown ${noun} "${key.slice(0, 64)}" for ${owner}` +
          (hint ? `; did you mean "${hint}"?` : "") +
          `; accepted: ${Object.keys(fields).join(", ")}`,
      );
      ok = false;
      continue;
    }
    const spec = fields[key]!;
    if (value === null || value === undefined) {
      if (spec.required) {
        c.add(keyPath, "is required");
        ok = false;
      }
      continue; // null means "not set" for optional inputs
    }
    const checked = checkInput(c, keyPath, value, spec);
    if (checked === undefined) ok = false;
    else out[key] = checked;
  }
  for (const [key, spec] of Object.entries(fields)) {
    if (spec.required && !Object.hasOwn(v, key)) {
      c.add(`${path}.${key}`, `is required (${spec.description})`);
      ok = false;
    }
  }
  return ok ? out : undefined;
}

function checkBlocks(
  c: Collector,
  path: string,
  v: unknown,
  depth: number,
  parent: BlockDefinition | null,
): Block[] | undefined {
  if (!Array.isArray(v)) {
    c.add(path, `must be an array of blocks, got ${describe(v)}`);
    return undefined;
  }
  if (depth > MAX_DEPTH) {
    c.add(path, `blocks are nested too deeply (at most ${MAX_DEPTH} levels)`);
    return undefined;
  }
  const out: Block[] = [];
  let ok = true;
  for (let i = 0; i < v.length; i++) {
    if (c.full) return undefined;
    c.blockCount++;
    if (c.blockCount > MAX_BLOCKS) {
      c.add(`${path}[${i}]`, `too many blocks: content may hold at most ${MAX_BLOCKS} blocks, counting nested ones`);
      c.halted = true;
      return undefined;
    }
    const b = checkBlock(c, `${path}[${i}]`, v[i], depth, parent);
    if (b === undefined) ok = false;
    else out.push(b);
  }
  return ok ? out : undefined;
}

function checkBlock(
  c: Collector,
  path: string,
  v: unknown,
  depth: number,
  parent: BlockDefinition | null,
): Block | undefined {
  if (!isPlainObject(v)) {
    c.add(path, `must be a block object like {"type": "paragraph", "props": {"text": "…"}}, got ${describe(v)}`);
    return undefined;
  }
  let ok = true;
  for (const key of Object.keys(v)) {
    if (!BLOCK_KEYS.has(key)) {
      c.add(
        `${path}.${key.slice(0, 64)}`,
        `unknown field; a block has only "id", "type", "props" and "children" (inputs go inside "props")`,
      );
      ok = false;
    }
  }

  let id: string | undefined;
  if (v.id !== undefined && v.id !== null) {
    if (typeof v.id !== "string" || v.id.length === 0 || v.id.length > MAX_BLOCK_ID || !BLOCK_ID_RE.test(v.id)) {
      c.add(`${path}.id`, `must be a string of 1 to ${MAX_BLOCK_ID} letters, digits, "-" or "_"`);
      ok = false;
    } else if (c.seenIds.has(v.id)) {
      c.add(`${path}.id`, `duplicate block id "${v.id}"; ids must be unique within the content`);
      ok = false;
    } else {
      c.seenIds.add(v.id);
      id = v.id;
    }
  }

  if (typeof v.type !== "string" || v.type === "") {
    c.add(
      `${path}.type`,
      v.type === undefined
        ? 'is required: the block type, e.g. "paragraph"'
        : `must be a block type string, got ${describe(v.type)}`,
    );
    return undefined;
  }
  const def = getBlockDefinition(v.type);
  if (!def) {
    const hint = nearest(v.type, ALL_TYPES);
    c.add(
      `${path}.type`,
      `unknown block type "${v.type.slice(0, 64)}"` +
        (hint ? `; did you mean "${hint}"?` : "") +
        "; read blocks://schema for the catalog",
    );
    return undefined;
  }
  if (def.parents && !(parent && def.parents.includes(parent.type))) {
    c.add(
      `${path}.type`,
      `"${def.type}" blocks may only appear directly inside ${def.parents.map((p) => `"${p}"`).join(" or ")}`,
    );
    ok = false;
  }
  if (parent?.children?.allowed && !parent.children.allowed.includes(def.type)) {
    c.add(
      `${path}.type`,
      `"${parent.type}" may only contain ${parent.children.allowed.map((p) => `"${p}"`).join(", ")} blocks, not "${def.type}"`,
    );
    ok = false;
  }

  const props = checkFields(c, `${path}.props`, v.props ?? {}, def.inputs, "input", def.type);
  if (props === undefined) ok = false;

  let children: Block[] | undefined;
  if (def.children) {
    const raw = v.children ?? [];
    const slot = def.children;
    if (Array.isArray(raw) && (raw.length < slot.minItems || raw.length > slot.maxItems)) {
      c.add(
        `${path}.children`,
        `"${def.type}" must hold ${slot.minItems} to ${slot.maxItems} blocks (got ${raw.length}): ${slot.description}`,
      );
      ok = false;
    } else {
      children = checkBlocks(c, `${path}.children`, raw, depth + 1, def);
      if (children === undefined) ok = false;
    }
  } else if (
    v.children !== undefined &&
    v.children !== null &&
    !(Array.isArray(v.children) && v.children.length === 0)
  ) {
    c.add(
      `${path}.children`,
      `"${def.type}" blocks cannot hold children; only layout blocks with a slot can (section, columns, column, grid)`,
    );
    ok = false;
  }

  if (!ok || props === undefined) return undefined;
  const block: Block = { ...(id !== undefined ? { id } : {}), type: def.type, props };
  if (def.children) block.children = children ?? [];
  return block;
}

/**
 * Check block content against the catalog. Accepts the content object, or
 * its JSON encoding (the form REST serves in PostDetail.content).
 */
export function validateContent(content: unknown): ContentValidation {
  const c = new Collector();
  if (typeof content === "string") {
    try {
      content = JSON.parse(content);
    } catch {
      return { ok: false, errors: [{ path: "content", message: "is a string but not valid JSON" }] };
    }
  }
  if (!isPlainObject(content)) {
    return {
      ok: false,
      errors: [
        {
          path: "content",
          message: `must be an object like {"blocks": [...], "version": "${CONTENT_VERSION}"}, got ${describe(content)}`,
        },
      ],
    };
  }
  for (const key of Object.keys(content)) {
    if (!CONTENT_KEYS.has(key)) c.add(key.slice(0, 64), `unknown field; content has only "blocks" and "version"`);
  }
  if (content.version !== undefined && content.version !== CONTENT_VERSION) {
    c.add(
      "version",
      `must be "${CONTENT_VERSION}" (the only content format version), got ${JSON.stringify(content.version)?.slice(0, 64)}`,
    );
  }
  let blocks: Block[] | undefined;
  if (content.blocks === undefined) c.add("blocks", "is required: an array of blocks (may be empty)");
  else blocks = checkBlocks(c, "blocks", content.blocks, 1, null);

  if (c.errors.length > 0 || blocks === undefined) return { ok: false, errors: c.errors };
  return { ok: true, value: { blocks, version: CONTENT_VERSION } };
}

/** Human summary of the first errors, for an AppError message. */
export function formatContentErrors(errors: ContentError[], max = 3): string {
  const head = errors.slice(0, max).map((e) => `${e.path}: ${e.message}`);
  const more = errors.length > max ? ` (and ${errors.length - max} more)` : "";
  return `Invalid block content: ${head.join("; ")}${more}. Read blocks://schema for the block reference.`;
}

/**
 * The validated, normalised content, or an AppError `validation` whose
 * message names the first offending paths and whose details list them all.
 */
export function assertValidContent(content: unknown): BlockContent {
  const r = validateContent(content);
  if (r.ok) return r.value;
  throw invalid(formatContentErrors(r.errors), { errors: r.errors });
}
