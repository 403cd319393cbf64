/**
 * Brain full text on SQLite: the FTS5 table brain_fts (title, search_text;
 * porter stemming over unicode61, diacritics folded), ranked by bm25 with
 * the title weighing ten times the body. Queries are built from the parsed
 * tree only (search-query.ts): every word is a quoted FTS5 string.
 */
import type { Store } from "../../core/db";
import { END_MARK, START_MARK, toDate, type ParsedQuery, type Term } from "./search-query";
import { RANK_CANDIDATES, type Hit, type SearchEngine, type SearchFilters } from "./search-engine";

const term = (t: Term) => `"${t.words.join(" ")}"${t.prefix ? "*" : ""}`;

export function ftsExpression(q: ParsedQuery): string {
  const must = q.must
    .map((c) => (c.any.length > 1 ? `(${c.any.map(term).join(" OR ")})` : term(c.any[0]!)))
    .join(" AND ");
  return q.not.length ? `(${must}) NOT (${q.not.map(term).join(" OR ")})` : must;
}

/**
 * Tenancy and filters join each match's row, through the narrow covering
 * index brain_records_search_filter (the planner would read the wide rows
 * by rowid: three times slower for a word in most records). (Company and kind as tokens of
 * extra FTS columns were tried: intersecting with a company's doclist on
 * every query made selective searches 3x slower and broad ones no faster.)
 */
function where(q: ParsedQuery, f: SearchFilters): { sql: string; params: unknown[] } {
  const parts = ["brain_fts MATCH ?", "r.company_id = ?"];
  const params: unknown[] = [ftsExpression(q), f.companyId];
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
    params.push(f.from.getTime());
  }
  if (f.to) {
    parts.push("r.at < ?");
    params.push(f.to.getTime());
  }
  if (f.ids) {
    parts.push(f.ids.length ? `r.id IN (${f.ids.map(() => "?").join(", ")})` : "0");
    params.push(...f.ids);
  }
  return { sql: parts.join(" AND "), params };
}

/** The body's passage when the match is there; else the marked title and how the body starts (as ts_headline over both reads). */
function snippetOf(title: string, body: string): string {
  const b = body.replace(/\s+/g, " ").trim();
  if (b.includes(START_MARK) || !title.includes(START_MARK)) return b || title;
  return b ? `${title} — ${b}` : title;
}

export const sqliteSearch: SearchEngine = {
  async search(
    store: Store,
    q: ParsedQuery,
    f: SearchFilters,
    limit: number,
    offset: number,
    candidates = RANK_CANDIDATES,
  ) {
    const w = where(q, f);
    // The newest RANK_CANDIDATES (+1, to know there are more) matches, found by FTS5 walking its index in
    // rowid order and stopping there, each ranked once; their count is the total (capped), so no second
    // walk counts them; then the page, and only the page's rows are read from the wide table.
    const ranked = await store.query<Record<string, unknown>>(
      `WITH c AS MATERIALIZED (
         SELECT brain_fts.rowid AS id, -bm25(brain_fts, 10.0, 1.0) AS rank
           FROM brain_fts JOIN brain_records r INDEXED BY brain_records_search_filter ON r.id = brain_fts.rowid
          WHERE ${w.sql}
          ORDER BY brain_fts.rowid DESC LIMIT ${candidates + 1}),
       n AS (SELECT count(*) AS n FROM c)
       SELECT p.id, p.rank, r.kind, r.title, r.at, r.updated_at, n.n
         FROM n LEFT JOIN (SELECT id, rank FROM c ORDER BY rank DESC, id DESC LIMIT ? OFFSET ?) p ON 1
         LEFT JOIN brain_records r ON r.id = p.id
        ORDER BY p.rank DESC, p.id DESC`,
      [...w.params, limit, offset],
    );
    const n = Number(ranked[0]?.n ?? 0);
    const page = ranked.filter((r) => r.id !== null && r.id !== undefined);
    const snippets = new Map<number, { title: string; body: string }>();
    if (page.length) {
      const ids = page.map((r) => Number(r.id));
      const list = ids.map(() => "?").join(", ");
      const sn = (col: number) => `snippet(brain_fts, ${col}, '${START_MARK}', '${END_MARK}', '…', 24)`;
      // Snippets for the page's rows only. FTS5 seeks each rowid of an IN list, except for prefix terms,
      // whose merged match list it rebuilds at every seek (20 snippets of camp* took 165 ms): those walk
      // the page's rowid range once instead, computing snippets only for the page's rows (7 ms).
      const prefix = [...q.must.flatMap((c) => c.any), ...q.not].some((t) => t.prefix);
      const rows = prefix
        ? await store.query<Record<string, unknown>>(
            `SELECT id, t, b FROM (SELECT rowid AS id, CASE WHEN rowid IN (${list}) THEN ${sn(0)} END AS t, CASE WHEN rowid IN (${list}) THEN ${sn(1)} END AS b
               FROM brain_fts WHERE brain_fts MATCH ? AND rowid >= ? AND rowid <= ?) WHERE t IS NOT NULL`,
            [...ids, ...ids, w.params[0], Math.min(...ids), Math.max(...ids)],
          )
        : await store.query<Record<string, unknown>>(
            `SELECT rowid AS id, ${sn(0)} AS t, ${sn(1)} AS b FROM brain_fts WHERE brain_fts MATCH ? AND rowid IN (${list})`,
            [w.params[0], ...ids],
          );
      for (const r of rows) snippets.set(Number(r.id), { title: String(r.t ?? ""), body: String(r.b ?? "") });
    }
    const capped = n > candidates;
    const hits: Hit[] = page.map((r) => {
      const s = snippets.get(Number(r.id));
      return {
        id: Number(r.id),
        kind: String(r.kind),
        title: String(r.title),
        rank: Number(r.rank),
        snippet: s ? snippetOf(s.title, s.body) : String(r.title),
        at: toDate(r.at),
        updatedAt: toDate(r.updated_at),
      };
    });
    return { hits, total: Math.min(n, candidates), capped };
  },
};
