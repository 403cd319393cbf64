/**
 * Encoded REST bodies by ETag basis (site, content version, operation,
 * parameters). The basis changes whenever the content may have, so an entry
 * is never stale, only unused; the oldest entries go first once the cache
 * holds `maxEntries` bodies or `maxBytes` bytes. Bodies are kept as
 * UTF-8 bytes so a hit costs no serialization or encoding at all: this is
 * what lets a hot endpoint answer at close to the speed of a static file.
 */
export class ResponseCache {
  private readonly map = new Map<string, Uint8Array<ArrayBuffer>>();
  private bytes = 0;
  constructor(
    private readonly maxEntries = 2000,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get(key: string): Uint8Array<ArrayBuffer> | undefined {
    // No recency bookkeeping on a hit (that would cost two more hash lookups
    // per request): eviction is first in, first out, and an evicted hot body
    // is simply rebuilt once.
    return this.map.get(key);
  }

  set(key: string, body: Uint8Array<ArrayBuffer>) {
    // One oversized body must not flush everything else.
    if (body.byteLength > this.maxBytes / 8) return;
    const old = this.map.get(key);
    if (old !== undefined) {
      this.bytes -= old.byteLength;
      this.map.delete(key);
    }
    this.map.set(key, body);
    this.bytes += body.byteLength;
    while (this.map.size > this.maxEntries || this.bytes > this.maxBytes) {
      const [k, v] = this.map.entries().next().value as [string, Uint8Array<ArrayBuffer>];
      this.map.delete(k);
      this.bytes -= v.byteLength;
    }
  }

  get entries() {
    return this.map.size;
  }
}
