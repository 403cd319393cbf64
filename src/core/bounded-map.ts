/**
 * A Map bounded in entries and bytes, for the in-process caches on hot
 * paths (REST bodies, tools/list answers, read-tool answers): every cache
 * here has a byte limit. The oldest entry goes first once either bound is
 * passed; a hit does no recency bookkeeping (that would cost more lookups
 * per request than it saves), so a hot entry evicted is simply rebuilt once.
 * One value larger than `maxEntryBytes` is not kept at all, so it cannot
 * flush everything else.
 */
export interface BoundedMapOptions<K, V> {
  maxBytes: number;
  maxEntries?: number;
  /** Default: maxBytes. */
  maxEntryBytes?: number;
  /** What an entry costs in bytes (what counts is the caller's choice: the value, or key and value). */
  sizeOf(key: K, value: V): number;
}

export class BoundedMap<K, V> {
  private readonly map = new Map<K, V>();
  private held = 0;
  private readonly maxEntries: number;
  private readonly maxEntryBytes: number;

  constructor(private readonly opts: BoundedMapOptions<K, V>) {
    this.maxEntries = opts.maxEntries ?? Number.POSITIVE_INFINITY;
    this.maxEntryBytes = opts.maxEntryBytes ?? opts.maxBytes;
  }

  get(key: K): V | undefined {
    return this.map.get(key);
  }

  /** Keeps `value` under `key` (replacing what was there); false when it is too large to keep. */
  set(key: K, value: V): boolean {
    const size = this.opts.sizeOf(key, value);
    if (size > this.maxEntryBytes) return false;
    this.delete(key);
    this.map.set(key, value);
    this.held += size;
    while (this.map.size > this.maxEntries || this.held > this.opts.maxBytes)
      this.delete(this.map.keys().next().value as K);
    return true;
  }

  delete(key: K): boolean {
    const v = this.map.get(key);
    if (v === undefined) return false;
    this.map.delete(key);
    this.held -= this.opts.sizeOf(key, v);
    return true;
  }

  has(key: K): boolean {
    return this.map.has(key);
  }

  clear(): void {
    this.map.clear();
    this.held = 0;
  }

  get size(): number {
    return this.map.size;
  }

  /** The bytes held, as `sizeOf` counts them: never above `maxBytes`. */
  get bytes(): number {
    return this.held;
  }
}
