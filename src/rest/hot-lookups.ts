/**
 * The two lookups every REST request makes — the presented key and the
 * site's state — answered from memory while their tables are unchanged
 * (src/core/changes.ts says when they may have changed, on every instance).
 * A hit touches no database and, on SQLite, makes no promise; a miss reads
 * once. Key expiry is time, not data: it is evaluated on every use.
 */
import type { ChangeWatch } from "../core/changes";
import type { Deps } from "../core/context";
import { then, type MaybePromise } from "../core/maybe";
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
/** Bounds memory against floods of distinct keys or site ids; a full cache simply starts over. */
const MAX_ENTRIES = 10_000;

export class HotLookups {
  /** By secret hash: the row, and the caller answer built from it once. */
  private keys = new Map<string, { record: RestKeyRecord; caller: Caller }>();
  /**
   * Hashes of well-formed tokens that match no key: refused from memory like
   * a known key is accepted, so a client (or a flood) repeating a wrong or
   * deleted key reads the database once per change of rest_keys, not per request.
   */
  private unknown = new Set<string>();
  /** Presented token → its SHA-256, so a busy key is hashed once, not per request. Never written anywhere. */
  private hashes = new Map<string, string>();
  private sites = new Map<number, PublicSiteState>();
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
      if (this.hashes.size >= MAX_ENTRIES) this.hashes.clear();
      this.hashes.set(token, hash);
    }
    const k = this.keys.get(hash);
    if (k) return this.use(k);
    if (this.unknown.has(hash)) return INVALID;
    const h = hash;
    return then(findRestKeyByHash(this.deps, h), (found) => {
      if (!found) {
        if (this.unknown.size >= MAX_ENTRIES) this.unknown.clear();
        this.unknown.add(h);
        return INVALID;
      }
      if (this.keys.size >= MAX_ENTRIES) this.keys.clear();
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

  site(siteId: number): MaybePromise<PublicSiteState | null> {
    const cached = this.sites.get(siteId);
    if (cached) return cached;
    return then(publicSiteState(this.deps, siteId), (s) => {
      if (s) {
        if (this.sites.size >= MAX_ENTRIES) this.sites.clear();
        this.sites.set(siteId, s);
      }
      return s;
    });
  }
}
