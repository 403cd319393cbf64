/**
 * Media bytes in the data dir: `<dataDir>/media/<key>`, the layout Plinth
 * has always used (`<siteId>/<24 hex>[.thumb].<ext>`), so existing installs
 * keep their files and URLs. One machine only: another instance cannot see
 * this folder (use the db or s3 store there).
 *
 * A file is written beside its final name and renamed into place, so a
 * reader never sees half of it. The ETag is size and modification time,
 * exactly as the media route made it before there were stores.
 */
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { BlobStore } from "./blobs-common";
import { checkKey, checkPrefix, clampRange, isBlobKey } from "./blobs-common";
import { randomHex } from "./secrets";

export function localBlobStore(dataDir: string): BlobStore {
  const root = join(dataDir, "media");
  const pathOf = (key: string) => join(root, checkKey(key));

  async function statFile(key: string) {
    try {
      const st = await stat(pathOf(key));
      return st.isFile() ? st : null;
    } catch (e) {
      if (isMissing(e)) return null;
      throw e;
    }
  }

  return {
    kind: "local",

    async put(key, bytes) {
      const path = pathOf(key);
      await mkdir(dirname(path), { recursive: true });
      // A dot name: never a key, so keys() skips it if a crash leaves it behind.
      const tmp = join(dirname(path), `.${randomHex(8)}.part`);
      try {
        await Bun.write(tmp, bytes);
        await rename(tmp, path);
      } catch (e) {
        await rm(tmp, { force: true });
        throw e;
      }
    },

    async head(key) {
      const st = await statFile(key);
      return st ? { size: st.size, etag: `${st.size.toString(36)}-${Math.floor(st.mtimeMs).toString(36)}` } : null;
    },

    async read(key, range) {
      const st = await statFile(key);
      if (!st) return null;
      const file = Bun.file(pathOf(key));
      if (!range) return file.stream();
      const { from, to } = clampRange(st.size, range);
      return file.slice(from, to).stream();
    },

    async remove(keys) {
      const paths = keys.map(pathOf);
      for (const p of paths) await rm(p, { force: true });
    },

    async *keys(prefix = "") {
      checkPrefix(prefix);
      // Only the folder the prefix names can hold matching keys.
      const dir = prefix.slice(0, prefix.lastIndexOf("/") + 1);
      yield* walk(join(root, dir), dir, prefix);
    },
  };
}

async function* walk(abs: string, rel: string, prefix: string): AsyncGenerator<string> {
  let entries;
  try {
    entries = await readdir(abs, { withFileTypes: true });
  } catch (e) {
    if (isMissing(e) || (e as NodeJS.ErrnoException).code === "ENOTDIR") return;
    throw e;
  }
  for (const e of entries) {
    const key = rel + e.name;
    if (e.isDirectory()) {
      if (isBlobKey(e.name) && (key.startsWith(prefix) || prefix.startsWith(`${key}/`)))
        yield* walk(join(abs, e.name), `${key}/`, prefix);
    } else if (e.isFile() && isBlobKey(key) && key.startsWith(prefix)) yield key;
  }
}

function isMissing(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException)?.code;
  return code === "ENOENT" || code === "ENOTDIR";
}
