/**
 * What every media store shares (src/core/blobs.ts): the key rules, range
 * arithmetic, and how large a body may be to come back as bytes. A module
 * of its own so the stores can import it without importing each other.
 */
import type { BlobBody, ByteRange } from "./blobs";

/** Bodies up to this size come back from read() as bytes (see BlobBody). */
export const WHOLE_MAX = 4 * 1024 * 1024;

const SEGMENT = "[A-Za-z0-9_-][A-Za-z0-9._-]*";
const KEY_RE = new RegExp(`^${SEGMENT}(?:/${SEGMENT})*$`);
const PREFIX_RE = /^[A-Za-z0-9._/-]*$/;
export const MAX_KEY_LENGTH = 512;

/** A key every store accepts: `/`-separated segments of letters, digits, `._-`, none starting with a dot. */
export function isBlobKey(key: string): boolean {
  return key.length <= MAX_KEY_LENGTH && KEY_RE.test(key);
}

export function checkKey(key: string): string {
  if (!isBlobKey(key)) throw new Error(`not a blob key: ${JSON.stringify(key.slice(0, 80))}`);
  return key;
}

export function checkPrefix(prefix: string): string {
  if (prefix.length > MAX_KEY_LENGTH || !PREFIX_RE.test(prefix))
    throw new Error(`not a blob key prefix: ${JSON.stringify(prefix.slice(0, 80))}`);
  return prefix;
}

/** A range of whole, non-negative offsets with end ≥ start. */
export function checkRange(range: ByteRange): ByteRange {
  if (
    !Number.isSafeInteger(range.start) ||
    !Number.isSafeInteger(range.end) ||
    range.start < 0 ||
    range.end < range.start
  )
    throw new Error(`bad byte range ${range.start}-${range.end}`);
  return range;
}

/** The range cut to an object of `size` bytes: [from, to) offsets, possibly empty. */
export function clampRange(size: number, range?: ByteRange): { from: number; to: number } {
  if (!range) return { from: 0, to: size };
  checkRange(range);
  const from = Math.min(range.start, size);
  return { from, to: Math.min(range.end + 1, size) };
}

/** Reads a whole body into memory (tests and copies; the media route streams). */
export async function bodyBytes(body: BlobBody): Promise<Uint8Array> {
  if (body instanceof Uint8Array) return body;
  return new Uint8Array(await new Response(body).arrayBuffer());
}
