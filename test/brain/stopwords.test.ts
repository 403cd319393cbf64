/**
 * The same queries give the same results on both engines: stop words are
 * decided once (search-query.ts), not by FTS5 (which indexes them) or
 * PostgreSQL's english configuration (which drops them). This file holds
 * one expectation per query and runs on whichever engine the run uses; CI
 * runs it on SQLite and on PostgreSQL, so both must produce exactly this.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { parseQuery } from "../../src/domains/brain/search-query";
import { makeWorld, type World } from "./world";

let w: World;

const CORPUS: [title: string, body: string][] = [
  ["Launch plan", "The plan for the May launch: press first, then the newsletter."],
  ["Fallbacks", "Plan B: a second venue if ours cancels."],
  ["Office rules", "The espresso machine is shared. Be kind to it."],
  ["Matrix of roles", "Who decides what: a responsibility matrix for each project."],
  ["Client charter", "Our bill of rights for clients: answers within a day."],
  ["Pricing", "Our pricing is per project, with a retainer option."],
  ["Questions clients ask", "What is included in our pricing, and what is not."],
];

beforeAll(async () => {
  w = await makeWorld();
  for (const [title, body] of CORPUS) await w.call("brain_notes_create", { title, body });
});
afterAll(() => w.close());

const search = async (query: string) =>
  (await w.call("brain_search", { query })) as { items: { title: string }[]; note?: string; total: number };
const titles = async (query: string) => (await search(query)).items.map((i) => i.title);

describe("stop words: one rule on both engines", () => {
  test("parser: stop words alone are dropped, phrases lose only their outer ones", () => {
    expect(parseQuery("the plan").must.map((c) => c.any[0]!.words)).toEqual([["plan"]]);
    expect(parseQuery('"the matrix"').must[0]!.any[0]!.words).toEqual(["matrix"]);
    expect(parseQuery('"bill of rights"').must[0]!.any[0]!.words).toEqual(["bill", "of", "rights"]);
    expect(parseQuery("plan -the").not).toEqual([]);
    expect(parseQuery("on* plan").must.map((c) => c.any[0]!.words)).toEqual([["plan"]]);
    expect(parseQuery("the plan").stopped).toEqual(["the"]);
  });

  // Expected results, in order, hand-decided: title matches first (title weighs 10x in bm25, A vs D in ts_rank), then body matches, newest first on ties.
  const CASES: [query: string, expected: string[]][] = [
    // Before: SQLite needed "the" in the record (Fallbacks lacks it), PostgreSQL ignored it.
    ["the plan", ["Launch plan", "Fallbacks"]],
    ["plan -the", ["Launch plan", "Fallbacks"]],
    ["what is the plan", ["Launch plan", "Fallbacks"]],
    // A phrase's leading stop word: SQLite needed "the matrix" adjacent, PostgreSQL did not.
    ['"the matrix"', ["Matrix of roles"]],
    // Inner stop words keep their place in a phrase on both.
    ['"bill of rights"', ["Client charter"]],
    ["pricing", ["Pricing", "Questions clients ask"]],
    ["what is our pricing", ["Pricing", "Questions clients ask"]],
    ["espresso OR the", ["Office rules"]],
  ];
  for (const [query, expected] of CASES)
    test(`${query} → ${expected.join(", ")}`, async () => {
      expect(await titles(query)).toEqual(expected);
    });

  test("the skipped words are said in the result", async () => {
    expect((await search("the plan")).note).toContain("Common words ignored: the.");
  });

  test("stop words only: the same clear refusal on both", async () => {
    for (const q of ["the", "to be or not to be", '"the who"', "on*"]) {
      const e = await w.err("brain_search", { query: q });
      expect(e.code).toBe("validation");
      expect(e.message).toContain("only common words");
    }
  });

  test("brain_context drops the same glue words", async () => {
    const r = await w.call("brain_context", { question: "What is the plan for the launch?" });
    expect(r.passages[0].title).toBe("Launch plan");
  });
});
