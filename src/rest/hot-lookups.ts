/**
 * The two lookups every REST request makes — the presented key and the
 * site's state — answered from memory while the database is unchanged.
 *
 * Each SQLite read in WAL mode costs a read transaction (a few microseconds
 * of locking), which on the hot path is most of a cached response's cost.
 * So rows are cached and the whole cache is dropped as soon as the database
 * may have changed:
 *   - writes on this process's connection move `total_changes()` (a
 *     statement that touches no table, so it is nearly free) — checked on
 *     every request, so in-process changes (a revoked key, a bumped content
 *     version, a deactivated site) apply to the very next request;
 *   - writes by another process (`plinth keys revoke` run beside the server)
 *     move `PRAGMA data_version`, which costs a read transaction, so it is
 *     checked at most every CROSS_PROCESS_CHECK_MS of wall time.
 * Key expiry is time, not data: it is evaluated on every use.
 */
import type { Deps } from "../core/context";
import {
  findRestKeyByHash,
  restKeyHash,
  restKeyUsable,
  touchRestKey,
  type RestKeyRecord,
} from "../domains/sites/rest-keys";
import { publicSiteState, type PublicSiteState } from "../domains/sites/public-reads";
import { presentedKey, type Caller } from "./auth";

export const CROSS_PROCESS_CHECK_MS = 50;
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
  private totalChanges = -1;
  private dataVersion = -1;
  private lastCrossCheck = -Infinity;
  private readonly totalChangesStmt;
  private readonly dataVersionStmt;

  constructor(private readonly deps: Deps) {
    this.totalChangesStmt = deps.store.sqlite.prepare<unknown, []>("SELECT total_changes()");
    this.dataVersionStmt = deps.store.sqlite.prepare<unknown, []>("PRAGMA data_version");
  }

  private readTotalChanges(): number {
    return this.totalChangesStmt.values()[0]![0] as number;
  }

  /** Drops every cached row if the database may have changed since the last request. */
  private revalidate() {
    let changed = false;
    const tc = this.readTotalChanges();
    if (tc !== this.totalChanges) {
      this.totalChanges = tc;
      changed = true;
    }
    const now = performance.now();
    if (now - this.lastCrossCheck >= CROSS_PROCESS_CHECK_MS) {
      this.lastCrossCheck = now;
      const dv = this.dataVersionStmt.values()[0]![0] as number;
      if (dv !== this.dataVersion) {
        this.dataVersion = dv;
        changed = true;
      }
    }
    if (changed) {
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
    if (touchRestKey(this.deps, k.record, now)) this.totalChanges = this.readTotalChanges();
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
