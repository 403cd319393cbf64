/**
 * The byte budget of every in-process cache that grows with distinct input
 * (a URL, a token, a query, a header value, a client address), in one
 * place so the sum is stated and checked (test/core/memory-budget.test.ts):
 * the service should hold 200 MB whatever it is sent, with a 160 MB soft
 * limit (src/ops/memory.ts), and the process itself (runtime, code, the
 * tool registry and its search index) is 165–200 MB of RSS after warm-up,
 * ~60 MB of it live heap (bench/README.md "Memory"), so what caches may
 * add is kept small: about 50 MiB in all. Each cache counts its entries' bytes
 * (BoundedMap's sizeOf, or an entry's fixed cost × its entry bound where
 * the entries are of bounded size) and drops its oldest entries past its
 * budget; README "Memory" lists them.
 *
 * The sizes are estimates of what the entry holds in the heap: strings are
 * two bytes a character (JSC keeps most Latin-1 strings in one, so this
 * over-counts), plus ENTRY_OVERHEAD for the map slot and the objects around
 * the values.
 */
const KiB = 1024;
const MiB = 1024 * KiB;

/** A map slot, an entry object and its strings' headers, roughly (measured with heapStats: 150–250 bytes). */
export const ENTRY_OVERHEAD = 256;

/** What a string costs in the heap, counted generously. */
export const stringBytes = (s: string): number => 2 * s.length;

/** A rendered page kept as byte parts (split where a per-response nonce goes), with its entry. */
export const partsBytes = (parts: readonly Uint8Array[]): number =>
  parts.reduce((n, p) => n + p.byteLength + 64, ENTRY_OVERHEAD);

export const BUDGET = {
  /** REST response bodies by ETag basis (src/rest/cache.ts). */
  restBodies: 8 * MiB,
  /** REST URLs already parsed, each with its two header templates (src/rest/routes.ts). */
  restUrls: 4 * MiB,
  /** REST keys: presented token → hash, known keys, unknown hashes, public site states (src/rest/hot-lookups.ts). */
  restLookups: 2 * MiB,
  /** MCP keys and OAuth tokens: token → kind and hash, resolved credentials (src/domains/accounts/credentials.ts). */
  credentials: 2 * MiB,
  /** Answers of MCP read tools (src/mcp/result-cache.ts). */
  mcpResults: 4 * MiB,
  /** tools/list answers, one per distinct list key and header set (src/mcp/server.ts). */
  mcpLists: 4 * MiB,
  /** Public deck pages: slugs → live version, and rendered pages by version (src/domains/decks/public-pages.ts). */
  deckPages: 2 * MiB,
  /** Public deck PDFs by version (one is tens of KB to a few MB). */
  deckPdfs: 2 * MiB,
  /** Public survey pages: surveys by slug, rendered first pages, site brands (src/domains/surveys/public-pages.ts). */
  surveyPages: 2 * MiB,
  /** Public booking pages rendered, by page and query (src/domains/bookings/public-pages.ts). */
  bookingPages: 2 * MiB,
  /** Argument names already classified by the AI history's redaction (src/domains/ai/redact.ts). */
  redactKeys: 512 * KiB,
  /** Failed sign-ins per email and per address, client registrations per address: each counter (src/core/attempts.ts). */
  attempts: 1 * MiB,
  /** The REST and the MCP rate limiters' buckets, each (src/core/rate-limit.ts). */
  rateLimitMain: 2 * MiB,
  /** Busy times read from members' connected calendars (src/domains/bookings/calendar-busy.ts). */
  calendarBusy: 1.5 * MiB,
  /** Every other rate limiter's buckets (public pages' posts and reads, hooks), each. */
  rateLimitOther: 512 * KiB,
} as const;

/** Rate limiters besides REST and MCP (src/core/limits.ts callers): counted here, checked by the test. */
export const OTHER_RATE_LIMITERS = 13;

/** In-memory attempt counters (src/core/limits.ts attemptCounter callers): counted here, checked by the test. */
export const ATTEMPT_COUNTERS = 3;

/** The sum of every budget above: what caches can hold at most, whatever the requests. */
export const TOTAL_CACHE_BYTES =
  BUDGET.restBodies +
  BUDGET.restUrls +
  BUDGET.restLookups +
  BUDGET.credentials +
  BUDGET.mcpResults +
  BUDGET.mcpLists +
  BUDGET.deckPages +
  BUDGET.deckPdfs +
  BUDGET.surveyPages +
  BUDGET.bookingPages +
  BUDGET.redactKeys +
  ATTEMPT_COUNTERS * BUDGET.attempts +
  BUDGET.calendarBusy +
  2 * BUDGET.rateLimitMain +
  OTHER_RATE_LIMITERS * BUDGET.rateLimitOther;
