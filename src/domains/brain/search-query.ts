/**
 * What a person or a model types into brain_search, parsed once into a
 * small query tree that each engine writes in its own syntax
 * (search-sqlite.ts, search-pg.ts). Nothing typed reaches FTS5's or
 * PostgreSQL's query parser as syntax: words are runs of letters and digits,
 * quoted, so `NEAR(`, `"`, `*`, `:`, `&`, `|`, `!`, `(` and control
 * characters are either our own small grammar or ignored, and every query
 * either runs or is refused with a sentence.
 *
 * Grammar (Google-like, what users already type):
 *   word word        both words (stemmed: "meetings" finds "meeting")
 *   "two words"      the phrase
 *   word*            words starting with it (≥ 2 letters before the star)
 *   a OR b           either
 *   -word            without it
 */
import { invalid } from "../../core/errors";

/** How snippets mark matched words, on both engines. */
export const START_MARK = "«";
export const END_MARK = "»";

/** A time as raw SQL returns it: epoch ms (SQLite) or a Date / text (PostgreSQL). */
export const toDate = (x: unknown): Date =>
  x instanceof Date ? x : new Date(typeof x === "string" && !/^\d+$/.test(x) ? x : Number(x));

export interface Term {
  words: string[];
  prefix: boolean;
}
/** Terms OR'ed together. */
export interface Clause {
  any: Term[];
}
export interface ParsedQuery {
  /** AND of clauses. */
  must: Clause[];
  /** None of these. */
  not: Term[];
  /** Every positive word, for highlighting passages in JS. */
  words: string[];
  /** Words dropped beyond the limits, said in the result. */
  dropped: number;
  /** Stop words left out (the same on both engines), said in the result. */
  stopped?: string[];
}

/**
 * Stop words, decided here for both engines: PostgreSQL's english
 * configuration drops these (its english.stop list, verbatim) from the
 * index and from queries, while FTS5 indexes every word. Left to the
 * engines, "the plan" found only records containing "the" on SQLite and
 * every record with "plan" on PostgreSQL. So the parser drops them before
 * either engine sees the query: a stop word alone (also as -word or
 * word*) is ignored, a phrase loses its leading and trailing stop words
 * ("the matrix" is "matrix"; "bill of rights" keeps its inner "of"), and a
 * query of stop words only is refused with a sentence.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    "i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself it its itself they them their theirs themselves " +
    "what which who whom this that these those am is are was were be been being have has had having do does did doing a an the and but if or because as until while " +
    "of at by for with about against between into through during before after above below to from up down in out on off over under again further then once here there " +
    "when where why how all any both each few more most other some such no nor not only own same so than too very s t can will just don should now"
  ).split(" "),
);

/** A term without its leading and trailing stop words (null: nothing left). */
function withoutStopWords(t: Term): Term | null {
  let a = 0;
  let b = t.words.length;
  while (a < b && STOP_WORDS.has(t.words[a]!)) a++;
  while (b > a && STOP_WORDS.has(t.words[b - 1]!)) b--;
  if (a === b) return null;
  // A trailing prefix word that was a stop word is gone: the rest is a whole-word phrase.
  return { words: t.words.slice(a, b), prefix: t.prefix && b === t.words.length };
}

export const MAX_TERMS = 24;
const MAX_WORD = 64;

const WORD_RE = /[\p{L}\p{N}]+/gu;

function wordsOf(s: string): string[] {
  return (s.normalize("NFKC").match(WORD_RE) ?? []).map((w) => w.toLowerCase().slice(0, MAX_WORD));
}

export function parseQuery(raw: string): ParsedQuery {
  // Control characters (and the rest of C0/C1) are never meaningful in a query.
  const text = raw.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ");
  const tokens: { neg: boolean; or: boolean; term: Term }[] = [];
  let dropped = 0;
  const stopped: string[] = [];
  const re = /(-?)"([^"]*)"?(\*?)|(\S+)/g;
  let m: RegExpExecArray | null;
  let pendingOr = false;
  while ((m = re.exec(text))) {
    let neg = false;
    let words: string[];
    let prefix = false;
    if (m[2] !== undefined && m[0].includes('"')) {
      neg = m[1] === "-";
      words = wordsOf(m[2]);
      prefix = m[3] === "*";
    } else {
      let t = m[4]!;
      if (t === "OR" || t === "|") {
        pendingOr = tokens.length > 0;
        continue;
      }
      if (t.startsWith("-") && t.length > 1) {
        neg = true;
        t = t.slice(1);
      }
      prefix = /[\p{L}\p{N}]{2,}\*$/u.test(t);
      words = wordsOf(t);
    }
    if (!words.length) continue;
    const kept = withoutStopWords({ words: words.slice(0, 8), prefix });
    if (!kept) {
      for (const w of words) if (!stopped.includes(w)) stopped.push(w);
      pendingOr = false;
      continue;
    }
    if (tokens.length >= MAX_TERMS) {
      dropped += words.length;
      continue;
    }
    // A word split by punctuation (e-mail, 2026-03) is searched as a phrase.
    tokens.push({ neg, or: pendingOr && !neg, term: kept });
    pendingOr = false;
  }
  const must: Clause[] = [];
  const not: Term[] = [];
  for (const t of tokens) {
    if (t.neg) not.push(t.term);
    else if (t.or && must.length) must[must.length - 1]!.any.push(t.term);
    else must.push({ any: [t.term] });
  }
  if (!must.length) {
    if (stopped.length && !not.length)
      throw invalid(
        `The query has only common words (${stopped.slice(0, 6).join(", ")}), which search ignores; add a word that says what you are looking for.`,
      );
    throw invalid(
      not.length
        ? "The query only excludes words (-word); add at least one word to find."
        : 'The query has no words to search for (letters or digits); try a few plain words, "a phrase" or word*.',
    );
  }
  const words = [...new Set(must.flatMap((c) => c.any.flatMap((t) => t.words)))];
  return { must, not, words, dropped, ...(stopped.length ? { stopped } : {}) };
}

/** The same query with every clause OR'ed: for questions (brain_context) and as the relaxed retry when all words find nothing. */
export function anyOf(q: ParsedQuery): ParsedQuery {
  return { ...q, must: [{ any: q.must.flatMap((c) => c.any) }] };
}

/** A question's glue words: the stop words, and a few more that questions are made of. */
const STOP = new Set([...STOP_WORDS, "us", "tell", "know", "please", "would", "could"]);

export function questionQuery(question: string): ParsedQuery {
  const words = wordsOf(question.replace(/[\u0000-\u001f\u007f-\u009f]/g, " ")).filter(
    (w) => !STOP.has(w) && w.length > 1,
  );
  if (!words.length) throw invalid("The question has no words to look up; ask with a few content words.");
  const uniq = [...new Set(words)].slice(0, MAX_TERMS);
  return {
    must: [{ any: uniq.map((w) => ({ words: [w], prefix: false })) }],
    not: [],
    words: uniq,
    dropped: Math.max(0, new Set(words).size - MAX_TERMS),
  };
}
