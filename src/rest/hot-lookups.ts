/**
 * The two lookups every REST request makes — the presented key and the
 * site's state — answered from memory while the database is unchanged
 * (src/core/db-changes.ts says when it may have changed). Key expiry is time,
 * not data: it is evaluated on every use.
 */
import type { Deps } from "../core/context";
import { DbChangeWatch } from "../core/db-changes";
import {
  findRestKeyByHash,
  restKeyHash,
  restKeyUsable,
  touchRestKey,
  type RestKeyRecord,
} from "../domains/sites/rest-keys";
import { publicSiteState, type PublicSiteState } from "../domains/sites/public-reads";
import { presentedKey, type Caller } from "./auth";

export { CROSS_PROCESS_CHECK_MS } from "../core/db-changes";
const ANONYMOUS: Caller = Object.freeze({ presented: false, key: null, bucket: null });
const INVALID: Caller = Object.freeze({ presented: true, key: null, bucket: null });
/** Bounds memory against floods of distinct keys or site ids; a full cache simply starts over. */
const MAX_ENTRIES = 10_000;

export class HotLookups {
  /** By secret hash: the row, and the caller answer built from it once. */
  private keys = new Map<string, { record: RestKeyRecord; caller: Caller }>();
  /** Presented token → its SHA-256, so a busy key is hashed once, not per request. Never written anywhere. */
  private hashes = new Map<string, string>();
  private sites = new Map<number, PublicSiteState>();
  private readonly watch: DbChangeWatch;

  constructor(private readonly deps: Deps) {
    this.watch = new DbChangeWatch(deps.store.sqlite);
  }

  /** Drops every cached row if the database may have changed since the last request. */
  private revalidate() {
    if (this.watch.changed()) {
      this.keys.clear();
      this.sites.clear();
    }
  }

  /** Identifies the caller of a request. Call once per request, before `site`. */
  caller(headers: Headers): Caller {
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
    let k = this.keys.get(hash);
    if (!k) {
      const found = findRestKeyByHash(this.deps, hash);
      if (!found) return INVALID;
      if (this.keys.size >= MAX_ENTRIES) this.keys.clear();
      k = { record: found, caller: { presented: true, key: { id: found.id, siteId: found.siteId }, bucket: `key:${found.id}` } };
      this.keys.set(hash, k);
    }
    const now = this.deps.clock.ms();
    if (!restKeyUsable(k.record, now)) return INVALID;
    // Our own last-used write changes nothing this cache holds except that
    // field, which touchRestKey updated in place: accept it as seen.
    if (touchRestKey(this.deps, k.record, now)) this.watch.acknowledge();
    return k.caller;
  }

  site(siteId: number): PublicSiteState | null {
    const cached = this.sites.get(siteId);
    if (cached) return cached;
    const s = publicSiteState(this.deps, siteId);
    if (s) {
      if (this.sites.size >= MAX_ENTRIES) this.sites.clear();
      this.sites.set(siteId, s);
    }
    return s;
  }
}
