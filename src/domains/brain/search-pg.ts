/**
 * Brain full text on PostgreSQL: the generated tsvector search_vector
 * (english configuration; title weight A, the rest D) with its GIN index,
 * ranked by ts_rank, snippets by ts_headline on the page's rows only. The
 * tsquery text is built from the parsed tree (search-query.ts): words are
 * letters and digits only, so nothing a user types is tsquery syntax.
 */
import type { Store } from "../../core/db";
import { END_MARK, START_MARK, toDate, type ParsedQuery, type Term } from "./search-query";
import { RANK_CANDIDATES, type Hit, type SearchEngine, type SearchFilters } from "./search-engine";

function term(t: Term): string {
  const ws = t.words.map((w, i) => (t.prefix && i === t.words.length - 1 ? `${w}:*` : w));
  return ws.length > 1 ? `(${ws.join(" <-> ")})` : ws[0]!;
}

export function tsqueryText(q: ParsedQuery): string {
  const must = q.must.map((c) => (c.any.length > 1 ? `(${c.any.map(term).join(" | ")})` : term(c.any[0]!))).join(" & ");
  return q.not.length ? `(${must}) & !(${q.not.map(term).join(" | ")})` : must;
}

function where(f: SearchFilters): { sql: string; params: unknown[] } {
  const parts = ["r.company_id = ?", "r.search_vector @@ q.q"];
  const params: unknown[] = [f.companyId];
  if (f.kinds?.length) {
    parts.push(`r.kind IN (${f.kinds.map(() => "?").join(", ")})`);
    params.push(...f.kinds);
  }
  if (f.topicId !== undefined) {
    parts.push("r.id IN (SELECT from_id FROM brain_relations WHERE to_id = ? AND type = 'about')");
    params.push(f.topicId);
  }
  if (f.authorUserId !== undefined) {
    parts.push("r.created_by_user_id = ?");
    params.push(f.authorUserId);
  }
  if (f.from) {
    parts.push("r.at >= ?");
    params.push(f.from);
  }
  if (f.to) {
    parts.push("r.at < ?");
    params.push(f.to);
  }
  if (f.ids) {
    parts.push(f.ids.length ? `r.id IN (${f.ids.map(() => "?").join(", ")})` : "false");
    params.push(...f.ids);
  }
  return { sql: parts.join(" AND "), params };
}

const HEADLINE = `StartSel="${START_MARK}", StopSel="${END_MARK}", MaxWords=30, MinWords=12, MaxFragments=2, FragmentDelimiter=" … "`;

export const pgSearch: SearchEngine = {
  async search(
    store: Store,
    q: ParsedQuery,
    f: SearchFilters,
    limit: number,
    offset: number,
    candidates = RANK_CANDIDATES,
  ) {
    const w = where(f);
    const tq = tsqueryText(q);
    // Rank the newest RANK_CANDIDATES (+1, to know there are more) matches only (see search-engine.ts);
    // their count is the total (capped), so nothing walks the matches twice; headlines for the page only.
    const rows = await store.query<Record<string, unknown>>(
      `WITH c AS MATERIALIZED (
         SELECT r.id FROM brain_records r, to_tsquery('english', ?) AS q(q)
          WHERE ${w.sql}
          ORDER BY r.id DESC LIMIT ${candidates + 1}),
       n AS (SELECT count(*) AS n FROM c),
       p AS (SELECT c.id, ts_rank(r.search_vector, q.q) AS rank, r.kind, r.title, r.search_text, r.at, r.updated_at
               FROM c JOIN brain_records r ON r.id = c.id, to_tsquery('english', ?) AS q(q)
              ORDER BY rank DESC, c.id DESC LIMIT ? OFFSET ?)
       SELECT p.id, p.kind, p.title, p.at, p.updated_at, p.rank, n.n,
              ts_headline('english', p.title || E'\\n' || p.search_text, q.q, '${HEADLINE}') AS snippet
         FROM n LEFT JOIN p ON true, to_tsquery('english', ?) AS q(q)
        ORDER BY p.rank DESC, p.id DESC`,
      [tq, ...w.params, tq, limit, offset, tq],
    );
    const n = Number(rows[0]?.n ?? 0);
    const hits: Hit[] = rows
      .filter((r) => r.id !== null && r.id !== undefined)
      .map((r) => ({
        id: Number(r.id),
        kind: String(r.kind),
        title: String(r.title),
        rank: Number(r.rank),
        snippet: String(r.snippet ?? "")
          .replace(/\s+/g, " ")
          .trim(),
        at: toDate(r.at),
        updatedAt: toDate(r.updated_at),
      }));
    return { hits, total: Math.min(n, candidates), capped: n > candidates };
  },
};
