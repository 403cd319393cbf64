/**
 * Serialized REST bodies by ETag basis (site, content version, operation,
 * parameters). The basis changes whenever the content may have, so an entry
 * is never stale, only unused; least recently used entries go first once the
 * cache holds `maxEntries` bodies or `maxBytes` characters. This is what lets
 * a hot endpoint answer at close to the speed of a static response.
 */
export class ResponseCache {
  private readonly map = new Map<string, string>();
  private size = 0;
  constructor(
    private readonly maxEntries = 2000,
    private readonly maxBytes = 32 * 1024 * 1024,
  ) {}

  get(key: string): string | undefined {
    const body = this.map.get(key);
    if (body !== undefined) {
      // Re-insert: a Map iterates in insertion order, so the head is the least recently used.
      this.map.delete(key);
      this.map.set(key, body);
    }
    return body;
  }

  set(key: string, body: string) {
    // One oversized body must not flush everything else.
    if (body.length > this.maxBytes / 8) return;
    const old = this.map.get(key);
    if (old !== undefined) {
      this.size -= old.length;
      this.map.delete(key);
    }
    this.map.set(key, body);
    this.size += body.length;
    while (this.map.size > this.maxEntries || this.size > this.maxBytes) {
      const [k, v] = this.map.entries().next().value as [string, string];
      this.map.delete(k);
      this.size -= v.length;
    }
  }

  get entries() {
    return this.map.size;
  }
}
