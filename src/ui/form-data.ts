/**
 * Reading the form posts of signed-in pages (the portal's and the domains').
 * Every such form is urlencoded (the browser default) — but for the upload
 * paths domains declare (PortalPages.uploads), which may also be multipart
 * with files — bounded in size, and
 * read through `Form`, whose getters turn missing, oversized or mistyped
 * fields into AppError validation errors with a message fit to show next to
 * the form: a 4xx, never a 500. The portal's formGuard reads the form once,
 * checks its CSRF token, and hands it to the page (see signed-in.ts).
 * `parsed` then holds what was read to the verb's own input schema.
 */
import type { Context } from "hono";
import * as v from "valibot";
import { AppError, invalid } from "../core/errors";

export const MAX_FORM_BYTES = 64 * 1024;

export class Form {
  constructor(
    readonly params: URLSearchParams,
    private readonly uploads: Map<string, File[]> = new Map(),
  ) {}

  /** The files of a file input (multipart forms of upload paths only); an input left empty gives none. */
  files(name: string): File[] {
    return this.uploads.get(name) ?? [];
  }

  /** A single text field, trimmed; "" when absent unless required. */
  text(name: string, opts: { label?: string; max?: number; required?: boolean } = {}): string {
    const label = opts.label ?? name;
    const all = this.params.getAll(name);
    if (all.length > 1) throw invalid(`${label} was sent more than once.`);
    const v = (all[0] ?? "").trim();
    if (v.includes("\u0000")) throw invalid(`${label} must not contain the NUL character.`);
    if (opts.required && !v) throw invalid(`${label} is required.`);
    const max = opts.max ?? 200;
    if (v.length > max) throw invalid(`${label} must be at most ${max} characters.`);
    return v;
  }

  /** Every value of a repeated field (checkbox groups). */
  list(name: string, opts: { max?: number; maxLength?: number } = {}): string[] {
    const all = this.params.getAll(name);
    if (all.length > (opts.max ?? 200)) throw invalid(`Too many values for ${name}.`);
    if (all.some((v) => v.length > (opts.maxLength ?? 200))) throw invalid(`A value for ${name} is too long.`);
    if (all.some((v) => v.includes("\u0000"))) throw invalid(`A value for ${name} must not contain the NUL character.`);
    return all;
  }

  /** A positive integer id, or undefined when the field is empty and optional. */
  id(name: string, opts: { label?: string; required?: boolean } = {}): number | undefined {
    const raw = this.text(name, { label: opts.label, max: 20, required: opts.required });
    if (!raw) return undefined;
    if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1)
      throw invalid(`${opts.label ?? name} must be a positive whole number.`);
    return Number(raw);
  }

  /** Integer ids from a repeated field. */
  ids(name: string, label = name): number[] {
    return this.list(name, { max: 1000, maxLength: 1000 }).map((raw) => {
      if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw invalid(`${label} must be positive whole numbers.`);
      return Number(raw);
    });
  }

  bool(name: string): boolean {
    const v = this.params.getAll(name);
    return v.length > 0 && v.some((x) => x === "on" || x === "true" || x === "1");
  }
}

/**
 * Reads the form. `uploadBytes` (given for upload paths only, see the
 * portal's formGuard) also takes multipart/form-data of at most that many
 * bytes of files besides MAX_FORM_BYTES of fields; the text fields read as
 * any form's, the files through Form.files.
 */
export async function readForm(c: Context, opts: { uploadBytes?: number } = {}): Promise<Form> {
  const type = c.req.header("content-type") ?? "";
  if (opts.uploadBytes !== undefined && /^multipart\/form-data\b/i.test(type))
    return readMultipart(c, opts.uploadBytes);
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw new AppError("validation", "This form must be sent as application/x-www-form-urlencoded.");
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) throw new AppError("payload_too_large", "The form is too large.");
  const text = await c.req.text();
  if (text.length > MAX_FORM_BYTES) throw new AppError("payload_too_large", "The form is too large.");
  return new Form(new URLSearchParams(text));
}

/** Checks a verb's input against its own schema, so a form gets the tool's rules and a message naming the field. */
export function parsed<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  labels: Record<string, string>,
): v.InferOutput<S> {
  const r = v.safeParse(schema, input);
  if (r.success) return r.output;
  const issue = r.issues[0]!;
  const path = v.getDotPath(issue) ?? "";
  throw invalid(`${labels[path.split(".")[0]!] ?? "The form"} ${issue.message.replace(/^Invalid \w+: /, "")}`.trim());
}

async function readMultipart(c: Context, uploadBytes: number): Promise<Form> {
  const bound = uploadBytes + MAX_FORM_BYTES;
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > bound)
    throw new AppError("payload_too_large", `The files are too large (at most ${uploadBytes} bytes).`);
  let data: FormData;
  try {
    data = await c.req.raw.formData();
  } catch {
    throw invalid("This form could not be read; send it again.");
  }
  const params = new URLSearchParams();
  const uploads = new Map<string, File[]>();
  let size = 0;
  for (const [name, entry] of data.entries()) {
    if (typeof entry === "string") {
      size += name.length + entry.length;
      params.append(name, entry);
      continue;
    }
    const value = entry as unknown as File;
    // An input left empty sends a part with no file name and no bytes (which may read as a Blob without a name).
    if (value.size === 0 && !value.name) continue;
    if (typeof value.name !== "string") throw invalid(`${name.slice(0, 40)}: a file without a name was sent.`);
    size += value.size;
    uploads.set(name, [...(uploads.get(name) ?? []), value]);
  }
  if (size > bound) throw new AppError("payload_too_large", `The files are too large (at most ${uploadBytes} bytes).`);
  return new Form(params, uploads);
}
