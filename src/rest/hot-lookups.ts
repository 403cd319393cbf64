/**
 * The two lookups every REST request makes — the presented key and the
 * site's state — answered from memory while their tables are unchanged
 * (src/core/changes.ts says when they may have changed, on every instance).
 * A hit touches no database and, on SQLite, makes no promise; a miss reads
 * once. Key expiry is time, not data: it is evaluated on every use.
 */
import { BoundedMap } from "../core/bounded-map";
import type { ChangeWatch } from "../core/changes";
import type { Deps } from "../core/context";
import { then, type MaybePromise } from "../core/maybe";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../core/memory-budget";
import {
  findRestKeyByHash,
  restKeyHash,
  restKeyUsable,
  touchRestKey,
  type RestKeyRecord,
} from "../domains/sites/rest-keys";
import { publicSiteState, type PublicSiteState } from "../domains/sites/public-reads";
import { presentedKey, type Caller } from "./auth";

const ANONYMOUS: Caller = Object.freeze({ presented: false, key: null, bucket: null });
const INVALID: Caller = Object.freeze({ presented: true, key: null, bucket: null });
/**
 * Bounds memory against floods of distinct keys or site ids: each of the
 * four maps below holds at most a quarter of BUDGET.restLookups
 * (src/core/memory-budget.ts), oldest out first. A key's row and caller
 * answer, or a site's state, are small fixed objects: counted at ROW_BYTES.
 */
const PART = BUDGET.restLookups / 4;
const ROW_BYTES = 768;
const bounded = <K, V>(sizeOf: (k: K, v: V) => number) => new BoundedMap<K, V>({ maxBytes: PART, sizeOf });

export class HotLookups {
  /** By secret hash: the row, and the caller answer built from it once. */
  private keys = bounded<string, { record: RestKeyRecord; caller: Caller }>(
    (hash) => stringBytes(hash) + ENTRY_OVERHEAD + ROW_BYTES,
  );
  /**
   * Hashes of well-formed tokens that match no key: refused from memory like
   * a known key is accepted, so a client (or a flood) repeating a wrong or
   * deleted key reads the database once per change of rest_keys, not per request.
   */
  private unknown = bounded<string, true>((hash) => stringBytes(hash) + ENTRY_OVERHEAD);
  /** Presented token → its SHA-256, so a busy key is hashed once, not per request. Never written anywhere. */
  private hashes = bounded<string, string>((token, hash) => stringBytes(token) + stringBytes(hash) + ENTRY_OVERHEAD);
  private sites = bounded<number, PublicSiteState>(() => ENTRY_OVERHEAD + ROW_BYTES);
  private readonly watch: ChangeWatch;

  constructor(private readonly deps: Deps) {
    this.watch = deps.store.changes.watch(["rest_keys", "sites", "stores"]);
  }

  /** Drops every cached row if the database may have changed since the last request. */
  private revalidate() {
    if (this.watch.changed()) {
      this.keys.clear();
      this.unknown.clear();
      this.sites.clear();
    }
  }

  /** Identifies the caller of a request. Call once per request, before `site`. */
  caller(headers: Headers): MaybePromise<Caller> {
    this.revalidate();
    const token = presentedKey(headers);
    if (token === null) return ANONYMOUS;
    let hash: string | null | undefined = this.hashes.get(token);
    if (hash === undefined) {
      hash = restKeyHash(token);
      if (!hash) return INVALID;
      // Only well-formed tokens are remembered, so junk cannot fill the map.
      this.hashes.set(token, hash);
    }
    const k = this.keys.get(hash);
    if (k) return this.use(k);
    if (this.unknown.has(hash)) return INVALID;
    const h = hash;
    return then(findRestKeyByHash(this.deps, h), (found) => {
      if (!found) {
        this.unknown.set(h, true);
        return INVALID;
      }
      const entry = {
        record: found,
        caller: { presented: true, key: { id: found.id, siteId: found.siteId }, bucket: `key:${found.id}` },
      };
      this.keys.set(h, entry);
      return this.use(entry);
    });
  }

  private use(k: { record: RestKeyRecord; caller: Caller }): MaybePromise<Caller> {
    const now = this.deps.clock.ms();
    if (!restKeyUsable(k.record, now)) return INVALID;
    // At most once a second per key: the request waits for its last-used write.
    const touched = touchRestKey(this.deps, k.record, now);
    return touched ? touched.then(() => k.caller) : k.caller;
  }

  /** The bytes the four maps hold, as the budget counts them (tests). */
  get bytes(): number {
    return this.keys.bytes + this.unknown.bytes + this.hashes.bytes + this.sites.bytes;
  }

  site(siteId: number): MaybePromise<PublicSiteState | null> {
    const cached = this.sites.get(siteId);
    if (cached) return cached;
    return then(publicSiteState(this.deps, siteId), (s) => {
      if (s) {
        this.sites.set(siteId, s);
      }
      return s;
    });
  }
}
