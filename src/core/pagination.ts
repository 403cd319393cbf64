/**
 * Pagination for MCP read tools: offset/limit in, { items, total, limit,
 * offset, nextOffset } out. (REST has its own envelopes per the spec.)
 */
import * as v from "valibot";

export const MAX_PAGE = 100;

export const pageInput = {
  limit: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_PAGE)), 20),
  offset: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(Number.MAX_SAFE_INTEGER)), 0),
};

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  offset: number;
  /** Offset of the next page, or null on the last page. */
  nextOffset: number | null;
}

export function page<T>(items: T[], total: number, limit: number, offset: number): Page<T> {
  return { items, total, limit, offset, nextOffset: offset + items.length < total ? offset + items.length : null };
}
