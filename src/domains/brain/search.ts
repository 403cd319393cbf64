/**
 * brain_search and brain_context: one search over every kind of record.
 *
 * Full text always (search-engine.ts: FTS5 or tsvector, the same answer
 * shape); when an embeddings endpoint is configured, also the nearest
 * chunks by meaning, fused with the full-text ranking by reciprocal rank
 * (RRF, k = 60: a record high in either list rises, one high in both
 * rises most; no score calibration between bm25 and cosine needed). If
 * the endpoint fails at query time the answer is full text, saying so.
 */
import { engine } from "../../core/engine";
import { and, eq, gte, inArray, lt } from "drizzle-orm";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { memberFor, readAccess, recordFor, type RecordRef } from "./access";
import { chunksWaitingForCredits, creditPauseNote, embeddingsOn, vectorSearch, type VectorHit } from "./embeddings";
import { anyOf, MAX_TERMS, parseQuery, questionQuery, type ParsedQuery } from "./search-query";
import { CONTEXT_CANDIDATES, RANK_CANDIDATES, type Hit, type SearchEngine, type SearchFilters } from "./search-engine";
import { pgSearch } from "./search-pg";
import { sqliteSearch } from "./search-sqlite";
import { othersMatching, type OtherItem } from "./others";
import { brainRecords, brainRelations, type RecordKind } from "./tables";

/** The full-text implementation of the engine this process runs on. */
function searchEngine(): SearchEngine {
  return engine() === "pg" ? pgSearch : sqliteSearch;
}

const RRF_K = 60;
/** How deep each list goes before fusing. */
const FUSE_DEPTH = 50;

function when(s: string, field: string, endOfDay: boolean): Date {
  const d = /^\d{4}-\d{2}-\d{2}$/.test(s) ? new Date(`${s}T00:00:00Z`) : new Date(s);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(s))
    throw invalid(`${field} must be a date (2026-03-02) or an ISO date-time.`);
  // "to: 2026-03-31" means through that day.
  return endOfDay && /^\d{4}-\d{2}-\d{2}$/.test(s) ? new Date(d.getTime() + 86_400_000) : d;
}

interface FilterInput {
  kinds?: RecordKind[];
  topic?: RecordRef;
  author?: number | string;
  from?: string;
  to?: string;
}

async function filtersOf(ctx: ActorContext, input: FilterInput): Promise<SearchFilters> {
  const f: SearchFilters = { companyId: ctx.company.id };
  if (input.kinds?.length) f.kinds = input.kinds;
  if (input.topic !== undefined) f.topicId = (await recordFor(ctx.deps.db, ctx, input.topic, ["topic"])).id;
  if (input.author !== undefined) f.authorUserId = await memberFor(ctx.deps.db, ctx, input.author);
  if (input.from) f.from = when(input.from, "from", false);
  if (input.to) f.to = when(input.to, "to", true);
  if (f.from && f.to && f.to <= f.from) throw invalid("to must be after from.");
  return f;
}

/** The records among `ids` that pass the filters (vector candidates have not been filtered yet). */
async function passing(
  ctx: ActorContext,
  f: SearchFilters,
  ids: number[],
): Promise<Map<number, { kind: string; title: string; at: Date; updatedAt: Date }>> {
  if (!ids.length) return new Map();
  const rows = await ctx.deps.db
    .select({
      id: brainRecords.id,
      kind: brainRecords.kind,
      title: brainRecords.title,
      at: brainRecords.at,
      updatedAt: brainRecords.updatedAt,
    })
    .from(brainRecords)
    .where(
      and(
        eq(brainRecords.companyId, f.companyId),
        inArray(brainRecords.id, ids),
        f.kinds ? inArray(brainRecords.kind, [...f.kinds] as RecordKind[]) : undefined,
        f.authorUserId !== undefined ? eq(brainRecords.createdByUserId, f.authorUserId) : undefined,
        f.from ? gte(brainRecords.at, f.from) : undefined,
        f.to ? lt(brainRecords.at, f.to) : undefined,
        f.topicId !== undefined
          ? inArray(
              brainRecords.id,
              ctx.deps.db
                .select({ id: brainRelations.fromId })
                .from(brainRelations)
                .where(and(eq(brainRelations.toId, f.topicId), eq(brainRelations.type, "about"))),
            )
          : undefined,
      ),
    );
  return new Map(rows.map((r) => [r.id, r]));
}

const excerpt = (text: string, n = 240) => {
  const t = text.replace(/\s+/g, " ").trim();
  return t.length > n ? `${t.slice(0, n)}…` : t;
};

interface Ranked {
  id: number;
  kind: string;
  title: string;
  snippet: string;
  score: number;
  matchedBy: ("text" | "meaning")[];
  at: Date;
  updatedAt: Date;
}

/** Full text (and meaning, when configured) for `q`, best first, up to `depth`. */
async function ranked(
  ctx: ActorContext,
  q: ParsedQuery,
  raw: string,
  f: SearchFilters,
  depth: number,
  semantic: boolean,
  candidates?: number,
): Promise<{ items: Ranked[]; textTotal: number; mode: "text" | "hybrid"; note?: string }> {
  const text = await searchEngine().search(ctx.deps.store, q, f, depth, 0, candidates);
  const toRanked = (h: Hit, score: number): Ranked => ({
    id: h.id,
    kind: h.kind,
    title: h.title,
    snippet: h.snippet,
    score,
    matchedBy: ["text"],
    at: h.at,
    updatedAt: h.updatedAt,
  });
  if (!semantic) return { items: text.hits.map((h) => toRanked(h, h.rank)), textTotal: text.total, mode: "text" };
  let vec: VectorHit[];
  try {
    vec = await vectorSearch(ctx.deps, ctx.company.id, raw, FUSE_DEPTH * 2);
  } catch (e) {
    return {
      items: text.hits.map((h) => toRanked(h, h.rank)),
      textTotal: text.total,
      mode: "text",
      note: `Semantic search is unavailable right now (${(e as Error).message.slice(0, 160)}); these are full-text results.`,
    };
  }
  const ok = await passing(
    ctx,
    f,
    vec.map((v) => v.recordId),
  );
  vec = vec.filter((v) => ok.has(v.recordId)).slice(0, FUSE_DEPTH);
  const fused = new Map<number, Ranked>();
  text.hits.forEach((h, i) => fused.set(h.id, toRanked(h, 1 / (RRF_K + i + 1))));
  vec.forEach((v, i) => {
    const cur = fused.get(v.recordId);
    const s = 1 / (RRF_K + i + 1);
    if (cur) {
      cur.score += s;
      cur.matchedBy.push("meaning");
    } else {
      const r = ok.get(v.recordId)!;
      fused.set(v.recordId, {
        id: v.recordId,
        kind: r.kind,
        title: r.title,
        snippet: excerpt(v.text.slice(r.title.length)),
        score: s,
        matchedBy: ["meaning"],
        at: r.at,
        updatedAt: r.updatedAt,
      });
    }
  });
  const items = [...fused.values()].sort((a, b) => b.score - a.score || b.id - a.id).slice(0, depth);
  return { items, textTotal: text.total, mode: "hybrid" };
}

export async function searchBrain(
  ctx: ActorContext,
  input: FilterInput & { query: string; mode?: "auto" | "text"; others?: boolean; limit: number; offset: number },
) {
  readAccess(ctx);
  let q = parseQuery(input.query);
  const f = await filtersOf(ctx, input);
  const semantic = embeddingsOn(ctx.deps) && input.mode !== "text";
  const notes: string[] = [];
  if (q.dropped) notes.push(`Only the first ${MAX_TERMS} terms were used.`);
  if (q.stopped) notes.push(`Common words ignored: ${q.stopped.slice(0, 6).join(", ")}.`);
  let relaxed = false;
  let items: Ranked[];
  let total: number;
  let mode: "text" | "hybrid";
  const run = async (pq: ParsedQuery) => {
    if (!semantic) {
      const r = await searchEngine().search(ctx.deps.store, pq, f, input.limit, input.offset);
      return {
        items: r.hits.map((h) => ({
          id: h.id,
          kind: h.kind,
          title: h.title,
          snippet: h.snippet,
          score: h.rank,
          matchedBy: ["text" as const],
          at: h.at,
          updatedAt: h.updatedAt,
        })),
        total: r.total,
        mode: "text" as const,
        capped: r.capped,
        note: r.capped
          ? `Over ${RANK_CANDIDATES} records match; the newest ${RANK_CANDIDATES} are ranked and counted. Add words or filters to narrow it.`
          : undefined,
      };
    }
    // Hybrid pages through the fused list, which goes FUSE_DEPTH deep in each half.
    const r = await ranked(ctx, pq, input.query, f, Math.max(FUSE_DEPTH, input.offset + input.limit), true);
    return {
      items: r.items.slice(input.offset, input.offset + input.limit),
      total: r.items.length,
      mode: r.mode,
      capped: false,
      note: r.note,
    };
  };
  let r = await run(q);
  // All words found nothing: try any of them (say so), as people expect from a search box.
  if (r.total === 0 && input.offset === 0 && q.must.length > 1) {
    q = anyOf(q);
    r = await run(q);
    relaxed = r.total > 0;
  }
  ({ items, total, mode } = r);
  const capped = r.capped;
  if (r.note) notes.push(r.note);
  if (!embeddingsOn(ctx.deps)) notes.push("Full text only: semantic search is off (PLINTH_EMBEDDINGS_URL is not set).");
  else if (semantic) {
    const waiting = await chunksWaitingForCredits(ctx.deps, ctx.company.id);
    if (waiting) notes.push(creditPauseNote(waiting));
  }
  // Other domains' matches (CRM contacts and deals, project cards), read live through their own verbs: on the first page only, never ranked into items.
  const others = input.offset === 0 && input.others !== false ? await othersMatching(ctx, q.words) : null;
  return {
    query: input.query.slice(0, 200),
    mode,
    items: items.map((h) => ({
      id: h.id,
      kind: h.kind,
      title: h.title,
      snippet: h.snippet,
      score: Math.round(h.score * 10000) / 10000,
      ...(mode === "hybrid" ? { matchedBy: h.matchedBy } : {}),
      updatedAt: h.updatedAt.toISOString(),
    })),
    total,
    limit: input.limit,
    offset: input.offset,
    nextOffset: input.offset + items.length < total ? input.offset + items.length : null,
    ...(capped ? { totalCapped: true } : {}),
    ...(relaxed ? { relaxed: true } : {}),
    ...(others?.items.length ? { others: others.items } : {}),
    ...(others?.skipped.length ? { othersSkipped: others.skipped } : {}),
    ...(notes.length ? { note: notes.join(" ") } : {}),
  };
}

// ---------------------------------------------------------------------------
// brain_context: passages to cite

/**
 * A question's content words rarely all appear in one contact or deal
 * name, which each domain's search requires: all words first, then each of
 * the three longest words alone ("What did Northwind decide about pricing"
 * finds the contact or deal named Northwind).
 */
async function contextOthers(ctx: ActorContext, words: readonly string[]) {
  const all = await othersMatching(ctx, words);
  if (all.items.length || words.length < 2) return all;
  const seen = new Set<string>();
  const items: OtherItem[] = [];
  for (const w of [...words].sort((a, b) => b.length - a.length || a.localeCompare(b)).slice(0, 3)) {
    for (const it of (await othersMatching(ctx, [w], 2)).items) {
      const k = `${it.source}:${it.type}:${it.id}`;
      if (!seen.has(k)) seen.add(k), items.push(it);
    }
  }
  return { items: items.slice(0, 8), skipped: all.skipped };
}

/** A rough stem: enough to see "meetings" and "meeting" as one word when picking passages. */
const stem = (w: string) =>
  w
    .toLowerCase()
    .replace(/(ing|ed|es|s|ly)$/, "")
    .slice(0, 8);

function passagesOf(text: string): string[] {
  const out: string[] = [];
  for (const p of text.split(/\n\s*\n/)) {
    const t = p.trim();
    if (!t) continue;
    if (t.length <= 800) out.push(t);
    else for (let i = 0; i < t.length && out.length < 400; i += 700) out.push(t.slice(i, i + 800));
  }
  return out;
}

export async function brainContext(
  ctx: ActorContext,
  input: { question: string; kinds?: RecordKind[]; topic?: RecordRef; limit: number },
) {
  readAccess(ctx);
  const q = questionQuery(input.question);
  const f = await filtersOf(ctx, input);
  const r = await ranked(ctx, q, input.question, f, 12, embeddingsOn(ctx.deps), CONTEXT_CANDIDATES);
  const others = await contextOthers(ctx, q.words);
  const extra = {
    ...(others.items.length ? { others: others.items } : {}),
    ...(others.skipped.length ? { othersSkipped: others.skipped } : {}),
  };
  if (!r.items.length)
    return {
      question: input.question.slice(0, 200),
      mode: r.mode,
      passages: [],
      ...extra,
      note: "Nothing in the knowledge base matches; say so rather than guess.",
    };
  const rows = await ctx.deps.db
    .select({
      id: brainRecords.id,
      kind: brainRecords.kind,
      title: brainRecords.title,
      text: brainRecords.searchText,
      updatedAt: brainRecords.updatedAt,
    })
    .from(brainRecords)
    .where(
      and(
        eq(brainRecords.companyId, ctx.company.id),
        inArray(
          brainRecords.id,
          r.items.map((i) => i.id),
        ),
      ),
    );
  const byId = new Map(rows.map((x) => [x.id, x]));
  const want = new Set(q.words.map(stem));
  const candidates: { recordId: number; kind: string; title: string; text: string; score: number; updatedAt: Date }[] =
    [];
  r.items.forEach((item, rank) => {
    const row = byId.get(item.id);
    if (!row) return;
    const inTitle = new Set((row.title.match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
    const ps = passagesOf(row.text);
    // A record with no text (a bare topic) has nothing to cite but its name; it still counts when nothing else answers.
    if (!ps.length) ps.push(row.title);
    const bare = !row.text.trim();
    for (const p of ps) {
      const words = new Set((p.match(/[\p{L}\p{N}]+/gu) ?? []).map(stem));
      let hits = 0;
      for (const w of want) if (words.has(w) || inTitle.has(w)) hits++;
      // Coverage of the question's words first, then the record's place in the search ranking.
      candidates.push({
        recordId: row.id,
        kind: row.kind,
        title: row.title,
        text: p,
        score: (hits / want.size + 1 / (rank + 2)) * (bare ? 0.25 : 1),
        updatedAt: row.updatedAt,
      });
    }
  });
  candidates.sort((a, b) => b.score - a.score || a.recordId - b.recordId);
  const perRecord = new Map<number, number>();
  const passages = [];
  for (const c of candidates) {
    if (passages.length >= input.limit) break;
    const n = perRecord.get(c.recordId) ?? 0;
    if (n >= 2) continue;
    perRecord.set(c.recordId, n + 1);
    passages.push({
      recordId: c.recordId,
      kind: c.kind,
      title: c.title,
      text: c.text,
      cite: `[[${c.title}]] (#${c.recordId})`,
      score: Math.round(c.score * 1000) / 1000,
      updatedAt: c.updatedAt.toISOString(),
    });
  }
  return {
    question: input.question.slice(0, 200),
    mode: r.mode,
    passages,
    ...extra,
    ...(r.note ? { note: r.note } : {}),
  };
}
