/**
 * What every media store shares (src/core/blobs.ts): the interface they
 * implement, the key rules, range arithmetic, and how large a body may be
 * to come back as bytes. A module of its own, importing none of them, so
 * the stores (and Deps) can import it without a circle through blobs.ts.
 */

export interface BlobInfo {
  size: number;
  /** Stable for as long as the object's bytes are unchanged (no quotes). */
  etag: string;
}

/** An inclusive byte range, as in an HTTP Range header; `end` past the object's end is cut to it. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * What read() returns: bytes in memory up to WHOLE_MAX (the db and s3
 * stores), a stream beyond (and always for the local store, whose file
 * streams Bun sends with their length). Bun.serve drops Content-Length
 * for any other streamed body (it sends it chunked, oven-sh/bun#10507), so
 * files up to that size keep the exact headers on every store.
 */
export type BlobBody = ReadableStream<Uint8Array> | Uint8Array;

export interface BlobStore {
  readonly kind: "local" | "db" | "s3";
  /** Stores `bytes` under `key`, replacing what was there. */
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Size and ETag; null when absent. */
  head(key: string): Promise<BlobInfo | null>;
  /** The whole object or an inclusive byte range; null when absent. */
  read(key: string, range?: ByteRange): Promise<BlobBody | null>;
  /** Removes the objects; absent keys are fine. */
  remove(keys: string[]): Promise<void>;
  /** Every key starting with `prefix`, in no particular order (for copies between stores and checks). */
  keys(prefix?: string): AsyncIterable<string>;
}

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
