/**
 * Media bytes in the shared database (PLINTH_MEDIA_STORE=db, the default on
 * PostgreSQL): one `media_blobs` row per key (src/core/tables.ts), so every
 * instance behind a balancer serves every file without a shared disk.
 *
 * A put is a transaction of its own (a savepoint of the caller's when one is
 * open: the demo seed's, an approval's, which then commit or roll back with
 * it). Reads never load more than CHUNK bytes at a time: ranges and large
 * files are cut in SQL with `substr(bytes, from, length)`, which both engines
 * define on binary values with 1-based byte offsets; on PostgreSQL the
 * column is stored uncompressed (the migration sets STORAGE EXTERNAL: media
 * formats are compressed already), so a slice reads only the TOAST chunks
 * it needs. The ETag is size and creation time, like the local store's.
 *
 * The table exists on SQLite too (one schema for both engines) and this
 * store works there, but config only offers it with PostgreSQL: on SQLite
 * the data dir is one machine's anyway.
 */
import { and, asc, eq, gt, inArray, sql, type SQL } from "drizzle-orm";
import type { BlobStore } from "./blobs-common";
import { checkKey, checkPrefix, checkRange, WHOLE_MAX } from "./blobs-common";
import type { Store } from "./db";
import { mediaBlobs } from "./tables";

/** The most bytes one query returns (and one read holds in memory): a body up to this size is one query. */
export const CHUNK = WHOLE_MAX;
const KEYS_PAGE = 1000;
const REMOVE_BATCH = 500;

const asBuffer = (b: Uint8Array) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength));

/** `length` bytes of the blob from byte offset `from` (0-based), as bytes on both engines. */
const slice = (from: number, length: number) => sql<Uint8Array>`substr(${mediaBlobs.bytes}, ${from + 1}, ${length})`;

export function dbBlobStore(store: Store): BlobStore {
  const byKey = (key: string) => eq(mediaBlobs.key, key);

  async function chunkAt(key: string, from: number, length: number): Promise<Uint8Array> {
    const r = (
      await store.db
        .select({ chunk: slice(from, length) })
        .from(mediaBlobs)
        .where(byKey(key))
        .limit(1)
    )[0];
    if (!r) throw new Error(`media blob ${key} was removed while being read`);
    return r.chunk ?? new Uint8Array(0);
  }

  return {
    kind: "db",

    async put(key, bytes, contentType) {
      checkKey(key);
      const buf = asBuffer(bytes);
      const row = { bytes: buf, size: buf.length, contentType, createdAt: new Date() };
      await store.transaction(async (tx) => {
        await tx
          .insert(mediaBlobs)
          .values({ key, ...row })
          .onConflictDoUpdate({ target: mediaBlobs.key, set: row });
      });
    },

    async head(key) {
      checkKey(key);
      const r = (
        await store.db
          .select({ size: mediaBlobs.size, createdAt: mediaBlobs.createdAt })
          .from(mediaBlobs)
          .where(byKey(key))
          .limit(1)
      )[0];
      return r ? { size: r.size, etag: `${r.size.toString(36)}-${r.createdAt.getTime().toString(36)}` } : null;
    },

    async read(key, range) {
      checkKey(key);
      if (range) checkRange(range);
      const start = range?.start ?? 0;
      const wanted = range ? range.end + 1 : Number.MAX_SAFE_INTEGER;
      // One round trip for the size and the first chunk: all of a small file or range.
      const first = (
        await store.db
          .select({ size: mediaBlobs.size, chunk: slice(start, Math.min(CHUNK, wanted - start)) })
          .from(mediaBlobs)
          .where(byKey(key))
          .limit(1)
      )[0];
      if (!first) return null;
      const head = first.chunk ?? new Uint8Array(0);
      const end = Math.min(wanted, first.size);
      let pos = start + head.length;
      if (pos >= end) return head;
      return new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
        },
        async pull(controller) {
          const length = Math.min(CHUNK, end - pos);
          const chunk = await chunkAt(key, pos, length);
          if (chunk.length === 0)
            return controller.error(new Error(`media blob ${key} is shorter than its recorded size`));
          controller.enqueue(chunk);
          pos += chunk.length;
          if (pos >= end) controller.close();
        },
      });
    },

    async remove(keys) {
      keys.forEach(checkKey);
      if (!keys.length) return;
      await store.transaction(async (tx) => {
        for (let i = 0; i < keys.length; i += REMOVE_BATCH)
          await tx.delete(mediaBlobs).where(inArray(mediaBlobs.key, keys.slice(i, i + REMOVE_BATCH)));
      });
    },

    async *keys(prefix = "") {
      checkPrefix(prefix);
      let after: string | null = null;
      for (;;) {
        const conds: SQL[] = [];
        if (prefix) conds.push(sql`substr(${mediaBlobs.key}, 1, ${prefix.length}) = ${prefix}`);
        if (after !== null) conds.push(gt(mediaBlobs.key, after));
        const rows: { key: string }[] = await store.db
          .select({ key: mediaBlobs.key })
          .from(mediaBlobs)
          .where(and(...conds))
          .orderBy(asc(mediaBlobs.key))
          .limit(KEYS_PAGE);
        for (const r of rows) yield r.key;
        if (rows.length < KEYS_PAGE) return;
        after = rows[rows.length - 1]!.key;
      }
    },
  };
}
