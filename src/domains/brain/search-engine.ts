/**
 * The full-text side of brain search, as one interface with one
 * implementation per engine (search-sqlite.ts: FTS5 with bm25;
 * search-pg.ts: tsvector with ts_rank). Both answer the same shape, rank
 * title matches above body matches, stem English words and mark matched
 * words in the snippet with « ». This file is the shape both implement;
 * search.ts picks the engine's (so neither implementation imports a
 * module that imports it).
 */
import type { Store } from "../../core/db";
import type { ParsedQuery } from "./search-query";

export interface SearchFilters {
  companyId: number;
  kinds?: readonly string[];
  /** Records about this topic record (an `about` relation). */
  topicId?: number;
  authorUserId?: number;
  from?: Date;
  to?: Date;
  /** Only these records (hybrid search re-filtering vector candidates). */
  ids?: readonly number[];
}

export interface Hit {
  id: number;
  kind: string;
  title: string;
  /** Higher is better; comparable within one answer only. */
  rank: number;
  snippet: string;
  at: Date;
  updatedAt: Date;
}

/**
 * A query matching more records than this is ranked among its newest this
 * many matches (by id, newest first): ranking a word found in every record
 * of a 100,000-record knowledge base would cost a second, and for such a
 * word the newest records are what people look for. Fewer matches: every
 * match is ranked. Totals are counted in the same walk, so they stop there
 * too: beyond it, total is this many and totalCapped is true (counting the
 * rest walked every match again: half the time of a broad query).
 */
export const RANK_CANDIDATES = 1000;
/**
 * brain_context ranks fewer: a question is searched as "any of" its
 * words, and bm25 over five OR'ed common words cost ~50 µs a row; it needs
 * a dozen good records, not a thousand ranked.
 */
export const CONTEXT_CANDIDATES = 250;

export interface SearchEngine {
  /** `candidates`: how many of the newest matches are ranked (RANK_CANDIDATES unless a caller needs fewer). */
  search(
    store: Store,
    q: ParsedQuery,
    f: SearchFilters,
    limit: number,
    offset: number,
    candidates?: number,
  ): Promise<{ hits: Hit[]; total: number; capped: boolean }>;
}

export { START_MARK, END_MARK } from "./search-query";
