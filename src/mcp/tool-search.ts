/**
 * Ranked tool search, behind tools_search (issue 29): people ask "who is free
 * for a meeting" or "pdf of pitch deck", not "booking_availability_get", and
 * an all-words match answered such requests with nothing. Tools are ranked
 * with BM25+ (minisearch) over their own words: name parts, title,
 * description, toolset, argument names and argument descriptions, with
 * field boosts so a name outranks a passing mention in a description.
 * Words are reduced to their stems (Porter), so "summaries", "summarize"
 * and "summary" meet; partial words match by prefix and small typos by
 * edit distance.
 *
 * What people say and tools never say is each domain's vocabulary
 * (`Domain.vocabulary`: "newsletter" → campaign). It is applied at query
 * time, to the declaring domain's tools only and at a lower weight than the
 * words asked, so the index stays the tools' own words and "lead" in the
 * CRM does not drag in every tool that mentions a contact.
 *
 * Each word asked is a slot a tool may fill, by the word itself (any of its
 * prefixes or near misses) or by a vocabulary key containing it; a tool's
 * score is the sum over the slots it fills times how many it fills, so a
 * tool answering more of the request ranks above one echoing one word, and
 * a key never counts twice for the same word.
 *
 * Built once per registry (src/mcp/discovery.ts keeps it); a search reads
 * only memory. Which tools a caller may see is the caller's business
 * (`keep`), decided before anything is ranked out.
 */
import MiniSearch, { type SearchOptions } from "minisearch";
import { stemmer } from "stemmer";
import type { Domain, ToolDef } from "./define";
import type { RegisteredTool, ToolsetInfo } from "./registry-types";

/**
 * Words that say how a request is phrased, not what it is about: articles,
 * pronouns, auxiliaries, question words and politeness ("can you please
 * show me…"). Kept short on purpose: a word that names a thing or an action
 * ("off", "out", "up", "all") stays searchable, since some tool is about it.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([
  "a",
  "an",
  "the",
  "to",
  "of",
  "for",
  "in",
  "on",
  "at",
  "by",
  "from",
  "with",
  "and",
  "or",
  "is",
  "are",
  "was",
  "be",
  "do",
  "does",
  "did",
  "i",
  "i'm",
  "im",
  "me",
  "my",
  "we",
  "our",
  "us",
  "you",
  "your",
  "it",
  "its",
  "this",
  "that",
  "these",
  "those",
  "there",
  "what",
  "which",
  "who",
  "how",
  "please",
  "show",
  "can",
  "could",
  "would",
  "want",
  "need",
  "like",
  "some",
  "any",
]);

/**
 * Words every toolset uses the same way: the verbs people say for the
 * verbs tool names end in. Applied like a domain's vocabulary, to every tool.
 */
export const COMMON_VOCABULARY: Readonly<Record<string, string[]>> = {
  new: ["create"],
  add: ["create"],
  make: ["create"],
  write: ["create"],
  edit: ["update"],
  change: ["update"],
  modify: ["update"],
  rename: ["update"],
  fix: ["update"],
  remove: ["delete"],
  erase: ["delete"],
  design: ["create"],
  build: ["create"],
  draft: ["create"],
  find: ["search", "list"],
  look: ["search", "get"],
  see: ["list", "get"],
};

/** A vocabulary word counts this much of a word the caller said. */
const VOCABULARY_WEIGHT = 0.6;
/** Hits scoring under this share of the best one are noise (a fuzzy echo of one word), not answers. */
const MIN_SHARE_OF_BEST = 0.12;

/** A request that opens with one of these asks to be told something: reading tools come first. */
const QUESTION_WORDS: ReadonlySet<string> = new Set([
  "what",
  "which",
  "who",
  "whom",
  "how",
  "when",
  "where",
  "why",
  "is",
  "are",
  "was",
  "do",
  "does",
  "did",
  "any",
]);

/**
 * What a tool is worth before any word is compared: a question is answered
 * by reading, and a tool that deletes or cannot be undone is offered only a
 * little behind one that does not (asked for by name, "delete", it still wins).
 */
function prior(t: ToolDef, question: boolean): number {
  return (question && t.readOnly ? 1.3 : 1) * (t.destructive ? 0.85 : 1);
}

/** Names outrank titles, titles descriptions; the toolset's words and argument names only tip the balance. */
const TOOL_BOOST = { name: 5, title: 3, description: 1.5, args: 0.8, toolset: 0.8 };
const TOOLSET_BOOST = { name: 4, title: 3, vocabulary: 2, description: 1 };

/** Lower-case words of a text: camelCase and snake_case split apart, bare numbers and single letters dropped. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .toLowerCase()
    .split(/[^a-z0-9']+/)
    .map((w) => w.replace(/^'+|'+$/g, "").replace(/'s$/, ""))
    .filter((w) => w.length > 1 && !/^\d+$/.test(w));
}

/** The indexed form of a word: its stem. Every word is indexed ("show" is in bookings_mark_no_show); queries drop stop words. */
function stem(word: string): string {
  return stemmer(word.replace(/'/g, ""));
}

/** Every word of a text as a stem, in order, without repeats: what vocabulary keys are matched against. */
export function stems(text: string): string[] {
  return [...new Set(words(text).map(stem))];
}

/** The terms a query is searched by: its stems less the stop words. */
export function terms(text: string): string[] {
  return [
    ...new Set(
      words(text)
        .filter((w) => !STOP_WORDS.has(w))
        .map(stem),
    ),
  ];
}

/** Light fuzziness: prefixes from three letters, one typo from five, two from ten. */
const MATCHING: SearchOptions = {
  prefix: (t) => t.length >= 3,
  fuzzy: (t) => (t.length >= 5 ? 0.2 : false),
  maxFuzzy: 2,
  combineWith: "OR",
};

interface Expansion {
  /** The key's stems, stop words included ("didn't show"), all of which the query must contain. */
  key: string[];
  /** The words tools use instead, stemmed; a tool matching any of them fills the key's place in the query, more for more of them. */
  words: string[];
  /** The toolset whose tools it applies to; null for every toolset. */
  toolset: string | null;
}

function expansions(vocabulary: Readonly<Record<string, readonly string[]>>, toolset: string | null): Expansion[] {
  return Object.entries(vocabulary).map(([key, to]) => ({
    key: stems(key),
    words: stems(to.join(" ")),
    toolset,
  }));
}

export interface RankedTool {
  name: string;
  score: number;
}

export interface ToolSearch {
  /** Tools for a query, best first, among those `keep` admits; empty when no word of it matches. */
  tools(query: string, keep: (name: string) => boolean): RankedTool[];
  /** Toolsets closest to a query, best first, among those `keep` admits. */
  toolsets(query: string, keep: (toolset: string) => boolean): string[];
}

/** Everything an argument says about itself: its camelCase name split into words, and its description. */
function argumentText(t: RegisteredTool): string {
  const props = (t.schema.properties ?? {}) as Record<string, { description?: unknown }>;
  return Object.entries(props)
    .filter(([name]) => name !== "idempotencyKey")
    .map(([name, p]) => `${name} ${typeof p.description === "string" ? p.description : ""}`)
    .join(" ");
}

export function buildToolSearch(
  tools: readonly RegisteredTool[],
  toolsets: readonly ToolsetInfo[],
  domains: readonly Domain[],
): ToolSearch {
  const toolsetText = new Map(toolsets.map((ts) => [ts.name, `${ts.name} ${ts.title} ${ts.description}`]));
  const toolIndex = new MiniSearch({
    fields: Object.keys(TOOL_BOOST),
    tokenize: words,
    processTerm: stem,
    searchOptions: { ...MATCHING, boost: TOOL_BOOST },
  });
  toolIndex.addAll(
    tools.map((t) => ({
      id: t.def.name,
      name: t.def.name.replace(/_/g, " "),
      title: t.def.title ?? "",
      description: t.def.description,
      args: argumentText(t),
      toolset: toolsetText.get(t.def.toolset) ?? t.def.toolset,
    })),
  );

  const vocabularies = new Map(domains.map((d) => [d.name, d.vocabulary ?? {}]));
  const toolsetIndex = new MiniSearch({
    fields: Object.keys(TOOLSET_BOOST),
    tokenize: words,
    processTerm: stem,
    searchOptions: { ...MATCHING, boost: TOOLSET_BOOST },
  });
  toolsetIndex.addAll(
    toolsets.map((ts) => {
      const vocabulary = vocabularies.get(ts.name) ?? {};
      return {
        id: ts.name,
        name: ts.name,
        title: ts.title,
        description: ts.description,
        vocabulary: Object.entries(vocabulary)
          .map(([k, to]) => `${k} ${to.join(" ")}`)
          .join(" "),
      };
    }),
  );

  const allExpansions = [
    ...expansions(COMMON_VOCABULARY, null),
    ...domains.flatMap((d) => expansions(d.vocabulary ?? {}, d.name)),
  ];

  const facts = new Map(tools.map((t) => [t.def.name, t.def]));
  // The query is already stemmed: the index's tokenizer and stemmer must not run on it again.
  const asIs = { tokenize: (s: string) => [s], processTerm: (t: string) => t };

  return {
    tools(query, keep) {
      const asked = terms(query);
      if (!asked.length) return [];
      const said = new Set(stems(query));
      const scored = new Map<string, Map<string, number>>();
      /** BM25 scores of one term (with its prefixes and near misses) over the tools `keep` admits. */
      const hitsOf = (t: string) => {
        let hits = scored.get(t);
        if (!hits) {
          hits = new Map(toolIndex.search(t, { ...asIs, filter: (r) => keep(r.id) }).map((r) => [r.id, r.score]));
          scored.set(t, hits);
        }
        return hits;
      };
      // One slot per word asked; a vocabulary key fills the slots of its words (its own slot when they are all stop words).
      const slots = new Map(asked.map((t) => [t, new Map(hitsOf(t))]));
      for (const x of allExpansions) {
        if (!x.key.length || !x.key.every((k) => said.has(k))) continue;
        // Its words add up, damped by how many there are: a tool matching "time" and "log" beats one matching "time".
        const alt = new Map<string, number>();
        const damp = VOCABULARY_WEIGHT / Math.sqrt(x.words.length);
        for (const w of x.words)
          for (const [id, score] of hitsOf(w))
            if (x.toolset === null || facts.get(id)?.toolset === x.toolset)
              alt.set(id, (alt.get(id) ?? 0) + damp * score);
        const filled = x.key.filter((k) => slots.has(k));
        for (const k of filled.length ? filled : [`:${x.key.join(" ")}`]) {
          const slot = slots.get(k) ?? new Map<string, number>();
          for (const [id, score] of alt) if (score > (slot.get(id) ?? 0)) slot.set(id, score);
          slots.set(k, slot);
        }
      }
      // Sum over slots, times how many slots a tool fills: a tool answering more of the request beats one echoing a word.
      const sum = new Map<string, { score: number; filled: number }>();
      for (const slot of slots.values())
        for (const [id, score] of slot) {
          const s = sum.get(id) ?? { score: 0, filled: 0 };
          s.score += score;
          s.filled++;
          sum.set(id, s);
        }
      const question = QUESTION_WORDS.has(words(query)[0] ?? "");
      const ranked = [...sum.entries()]
        .map(([name, { score, filled }]) => ({ name, score: score * filled * prior(facts.get(name)!, question) }))
        .sort((a, b) => b.score - a.score || (a.name < b.name ? -1 : 1));
      const best = ranked[0]?.score ?? 0;
      return ranked.filter((h) => h.score >= best * MIN_SHARE_OF_BEST);
    },
    toolsets(query, keep) {
      return toolsetIndex
        .search(terms(query).join(" "), {
          tokenize: (s) => s.split(" "),
          processTerm: (t) => t,
          filter: (r) => keep(r.id),
        })
        .map((r) => r.id as string);
    },
  };
}
