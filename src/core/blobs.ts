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

import type { BlobStore } from "./blobs-common";
export type { BlobBody, BlobInfo, BlobStore, ByteRange } from "./blobs-common";
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
