/**
 * Reading the form-encoded bodies of the token and revocation endpoints:
 * the content type RFC 6749 requires, a size cap, and no repeated
 * parameters (RFC 6749 §3.1: a parameter must not appear more than once).
 */
import type { Context } from "hono";
import { oauthError } from "./errors";

export const MAX_FORM_BYTES = 16 * 1024;

export async function readForm(c: Context): Promise<URLSearchParams> {
  const type = c.req.header("content-type") ?? "";
  if (!/^application\/x-www-form-urlencoded\b/i.test(type))
    throw oauthError("invalid_request", "The body must be application/x-www-form-urlencoded.");
  const declared = Number(c.req.header("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES)
    throw oauthError("invalid_request", `The body must be at most ${MAX_FORM_BYTES} bytes.`);
  const text = await c.req.text();
  if (text.length > MAX_FORM_BYTES)
    throw oauthError("invalid_request", `The body must be at most ${MAX_FORM_BYTES} bytes.`);
  const form = new URLSearchParams(text);
  const seen = new Set<string>();
  for (const key of form.keys()) {
    if (seen.has(key)) throw oauthError("invalid_request", `The ${key} parameter appears more than once.`);
    seen.add(key);
  }
  return form;
}

/** A parameter that must be present and non-empty. */
export function required(form: URLSearchParams, name: string): string {
  const v = form.get(name);
  if (!v) throw oauthError("invalid_request", `${name} is required.`);
  return v;
}
