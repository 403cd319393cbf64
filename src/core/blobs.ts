/**
 * Where media bytes live: a small key → bytes store, one per process
 * (`deps.blobs`), chosen by PLINTH_MEDIA_STORE:
 *
 *   local  the data dir, `<dataDir>/media/<key>` (the SQLite default; one
 *          machine only). Keys are today's storage keys, `<siteId>/<name>`,
 *          so files written before this store existed keep being served.
 *   db     the `media_blobs` table of the database every instance shares
 *          (the PostgreSQL default), src/core/blobs-db.ts.
 *   s3     an S3-compatible bucket (Bun's S3Client), src/core/blobs-s3.ts.
 *
 * The media verbs write and remove through it, the /media route serves
 * through it (so every store keeps the route's headers, ETags and ranges),
 * and the demo seed writes its files through it.
 *
 * Keys are relative paths of plain ASCII segments (`1/abc.png`); anything
 * else is refused before any store sees it, so a key can never leave the
 * local store's folder.
 */
import type { Deps } from "./context";
import { localBlobStore } from "./blobs-local";
import { dbBlobStore } from "./blobs-db";
import { s3BlobStore } from "./blobs-s3";

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

export {
  bodyBytes,
  checkKey,
  checkPrefix,
  checkRange,
  clampRange,
  isBlobKey,
  MAX_KEY_LENGTH,
  WHOLE_MAX,
} from "./blobs-common";

export function openBlobStore(deps: Pick<Deps, "config" | "store">): BlobStore {
  switch (deps.config.mediaStore) {
    case "local":
      return localBlobStore(deps.config.dataDir);
    case "db":
      return dbBlobStore(deps.store);
    case "s3":
      return s3BlobStore(deps.config.s3);
  }
}
