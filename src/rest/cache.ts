/**
 * Encoded REST bodies by ETag basis (site, content version, operation,
 * parameters). The basis changes whenever the content may have, so an entry
 * is never stale, only unused; the oldest entries go first once the cache
 * holds `maxBytes` (BUDGET.restBodies, src/core/memory-budget.ts: bodies,
 * their keys and each entry's overhead), and one body over an eighth of
 * that is not kept (src/core/bounded-map.ts). Bodies are kept as UTF-8
 * bytes so a hit costs no serialization or encoding at all: this is what
 * lets a hot endpoint answer at close to the speed of a static file.
 */
import { BoundedMap } from "../core/bounded-map";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../core/memory-budget";

export class ResponseCache {
  private readonly map: BoundedMap<string, Uint8Array<ArrayBuffer>>;

  constructor(maxBytes: number = BUDGET.restBodies) {
    this.map = new BoundedMap({
      maxBytes,
      maxEntryBytes: maxBytes / 8,
      sizeOf: (key, body) => body.byteLength + stringBytes(key) + ENTRY_OVERHEAD,
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

  /** The bytes held, as the budget counts them. */
  get bytes() {
    return this.map.bytes;
  }
}
