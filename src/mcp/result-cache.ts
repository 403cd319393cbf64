/**
 * Answers of read tools that declare `cachedBy` (the tables their answer is
 * built from), kept until one of those tables changes: the MCP side of what
 * REST's body cache does for listPosts. A hit skips the verb's queries, its
 * row mapping and the result's JSON, which were most of a read call's cost.
 *
 * Freshness is the change feed's (src/core/changes.ts), the one the
 * credential and REST caches already trust: this process's commits drop
 * the entries of the tables they wrote at once; another process's commit on
 * SQLite drops everything on the very next call; other instances on
 * PostgreSQL are heard by NOTIFY or Redis, and an entry is read again after
 * MAX_AGE_MS whatever happens. An entry carries the token taken *before*
 * its read, so a write that commits while the read is under way leaves it
 * stale at once instead of cached over.
 *
 * Only what the verb returned is kept, never an error, and only for the
 * caller it was computed for: the key holds the user, the credential's
 * scopes, the company (and its name) and the caller's role there, and the arguments as
 * validated. Authorization runs before the lookup on every call, so a key
 * that lost a scope or a membership is refused exactly as without a cache.
 * Bounded like every cache here: BUDGET.mcpResults bytes of keys and text
 * (src/core/memory-budget.ts), oldest out first.
 */
import { getTableName } from "drizzle-orm";
import { BoundedMap } from "../core/bounded-map";
import type { ActorContext } from "../core/context";
import { MAX_AGE_MS, type ChangeFeed, type ChangeWatch } from "../core/changes";
import { BUDGET, ENTRY_OVERHEAD, stringBytes } from "../core/memory-budget";
import type { ToolDef } from "./define";
import { RESULT_JSON, toolOk, type ToolResult } from "./errors";

/** Larger answers (with their key) are not kept: one page of a long list must not push out a hundred small ones. */
const MAX_ENTRY_BYTES = 256 * 1024;
/** Calls with longer keys (long search strings) are answered but not kept. */
const MAX_KEY_CHARS = 2048;

interface Entry {
  token: number;
  at: number;
  text: string;
  /** The tool result `{content:[{type:"text",text}]}` as JSON, encoded once. */
  json: string;
}

class ResultCache {
  // Strings are UTF-16 in memory: two bytes a character (key, text and its JSON form).
  private readonly map = new BoundedMap<string, Entry>({
    maxBytes: BUDGET.mcpResults,
    maxEntryBytes: MAX_ENTRY_BYTES,
    sizeOf: (key, e) => stringBytes(key) + stringBytes(e.text) + stringBytes(e.json) + ENTRY_OVERHEAD,
  });
  private readonly watches = new Map<string, ChangeWatch>();
  hits = 0;
  misses = 0;

  constructor(private readonly feed: ChangeFeed) {}

  watch(tool: ToolDef): ChangeWatch {
    let w = this.watches.get(tool.name);
    if (!w) this.watches.set(tool.name, (w = this.feed.watch(tool.cachedBy!.map((t) => getTableName(t)))));
    return w;
  }

  get(key: string, token: number): Entry | undefined {
    const e = this.map.get(key);
    if (e === undefined) return undefined;
    if (e.token === token && !(this.feed.agesOut && performance.now() - e.at > MAX_AGE_MS)) return e;
    this.map.delete(key);
    return undefined;
  }

  set(key: string, e: Entry) {
    if (key.length <= MAX_KEY_CHARS) this.map.set(key, e);
  }

  get size() {
    return this.map.size;
  }

  get bytes() {
    return this.map.bytes;
  }
}

const caches = new WeakMap<ChangeFeed, ResultCache>();

function cacheOf(feed: ChangeFeed): ResultCache {
  let c = caches.get(feed);
  if (!c) caches.set(feed, (c = new ResultCache(feed)));
  return c;
}

/**
 * The tool result for `tool` (which declares cachedBy), from the cache or
 * from `run`. Called after authorization and argument validation.
 */
export async function cachedAnswer(
  ctx: ActorContext,
  tool: ToolDef,
  input: unknown,
  run: () => Promise<unknown>,
): Promise<ToolResult> {
  const cache = cacheOf(ctx.deps.store.changes);
  const p = ctx.principal;
  const key = `${tool.name}\u0000${p.userId}\u0000${p.scopes.join(" ")}\u0000${ctx.company.id}\u0000${ctx.company.role}\u0000${ctx.company.name}\u0000${JSON.stringify(input)}`;
  const token = cache.watch(tool).current();
  let e = cache.get(key, token);
  if (e !== undefined) cache.hits++;
  else {
    cache.misses++;
    const r = toolOk(await run());
    e = { token, at: performance.now(), text: r.content[0]!.text, json: JSON.stringify(r) };
    cache.set(key, e);
  }
  // A fresh object each time: callers may add to it; the strings are shared.
  return { content: [{ type: "text", text: e.text }], [RESULT_JSON]: e.json };
}

/** Entries held, hits and misses for this store's change feed (tests). */
export function resultCacheStats(feed: ChangeFeed): { entries: number; bytes: number; hits: number; misses: number } {
  const c = caches.get(feed);
  return { entries: c?.size ?? 0, bytes: c?.bytes ?? 0, hits: c?.hits ?? 0, misses: c?.misses ?? 0 };
}
