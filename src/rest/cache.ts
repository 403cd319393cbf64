/**
 * Encoded REST bodies by ETag basis (site, content version, operation,
 * parameters). The basis changes whenever the content may have, so an entry
 * is never stale, only unused; the oldest entries go first once the cache
 * holds `maxEntries` bodies or `maxBytes` bytes (src/core/bounded-map.ts),
 * and one body over an eighth of that is not kept. Bodies are kept as
 * UTF-8 bytes so a hit costs no serialization or encoding at all: this is
 * what lets a hot endpoint answer at close to the speed of a static file.
 */
import { BoundedMap } from "../core/bounded-map";

export class ResponseCache {
  private readonly map: BoundedMap<string, Uint8Array<ArrayBuffer>>;

  constructor(maxEntries = 2000, maxBytes = 32 * 1024 * 1024) {
    this.map = new BoundedMap({
      maxEntries,
      maxBytes,
      maxEntryBytes: maxBytes / 8,
      sizeOf: (_, body) => body.byteLength,
    });
  }

  get(key: string): Uint8Array<ArrayBuffer> | undefined {
    return this.map.get(key);
  }

  set(key: string, body: Uint8Array<ArrayBuffer>) {
    this.map.set(key, body);
  }

  get entries() {
    return this.map.size;
  }
}
