/**
 * Survey logic without a server: checking definitions (references, cycles,
 * per-type rules), evaluating skip logic, reading hostile form values, and
 * summaries against hand-computed figures.
 */
import { describe, expect, test } from "bun:test";
import { readPage } from "../../src/domains/surveys/answers";
import { normalizeDefinition, type Definition } from "../../src/domains/surveys/definition";
import { conditionHolds, walk } from "../../src/domains/surveys/logic";
import { summarize, type SummaryRow } from "../../src/domains/surveys/summary";
import { FEEDBACK } from "./fixtures";

const NOW = new Date("2026-03-01T12:00:00Z");
const norm = (d: Record<string, unknown>) => normalizeDefinition({ slug: "s", ...(d as any) }, NOW);
const def = norm(FEEDBACK);
const err = (d: Record<string, unknown>): string => {
  try {
    norm(d);
  } catch (e: any) {
    return e.message;
  }
  throw new Error("expected the definition to be refused");
};
const withPages = (pages: unknown[], extra: Record<string, unknown> = {}) => ({ title: "T", pages, ...extra });
const q = (over: Record<string, unknown>) => ({ id: "q", type: "short_text", title: "Q", ...over });

describe("checking a definition", () => {
  test("defaults: page ids, required false, a default ending, text limits, rating scale", () => {
    const d = norm(
      withPages([
        { questions: [q({}), q({ id: "r", type: "rating" })] },
        { questions: [q({ id: "z", type: "long_text" })] },
      ]),
    );
    expect(d.pages.map((p) => p.id)).toEqual(["page-1", "page-2"]);
    expect(d.pages[0]!.questions[0]).toEqual({ id: "q", type: "short_text", title: "Q", required: false, max: 500 });
    expect(d.pages[0]!.questions[1]!.scale).toBe(5);
    expect(d.pages[1]!.questions[0]!.max).toBe(5000);
    expect(d.endings).toEqual([{ id: "end", title: "Thank you!", body: "Your response has been recorded." }]);
    expect(d.languages).toEqual(["en"]);
  });

  test("a jump back, or to its own page, is refused as a cycle naming the loop", () => {
    const pages = [
      { id: "a", questions: [q({ id: "q1" })] },
      { id: "b", questions: [q({ id: "q2" })], logic: [{ if: [{ field: "q1", op: "answered" }], goTo: "a" }] },
    ];
    expect(err(withPages(pages))).toBe(
      'pages[1].logic[0].goTo jumps back to page "a", which would make a cycle (a → b → a); jumps may only go to a later page or an ending.',
    );
    pages[1]!.logic![0]!.goTo = "b";
    expect(err(withPages(pages))).toContain("which would make a cycle (b → b)");
  });

  test("conditions may read only earlier or same-page answers and hidden fields; targets must exist", () => {
    const later = withPages([
      { id: "a", questions: [q({ id: "q1" })], logic: [{ if: [{ field: "q2", op: "answered" }], goTo: "end" }] },
      { id: "b", questions: [q({ id: "q2" })] },
    ]);
    expect(err(later)).toBe(
      'pages[0].logic[0].if[0].field reads "q2", which is asked later (page "b"); logic on page "a" can only read answers given by then.',
    );
    const unknown = withPages([
      { id: "a", questions: [q({ id: "q1" })], logic: [{ if: [{ field: "ghost", op: "answered" }], goTo: "end" }] },
    ]);
    expect(err(unknown)).toBe(
      'pages[0].logic[0].if[0].field "ghost" is not a question or hidden field of this survey.',
    );
    const nowhere = withPages([
      { id: "a", questions: [q({ id: "q1" })], logic: [{ if: [{ field: "q1", op: "answered" }], goTo: "nowhere" }] },
    ]);
    expect(err(nowhere)).toContain('"nowhere" is neither a page nor an ending (pages: a; endings: end)');
    const hidden = norm(
      withPages(
        [
          {
            id: "a",
            questions: [q({ id: "q1" })],
            logic: [{ if: [{ field: "src", op: "equals", value: "ad" }], goTo: "end" }],
          },
        ],
        { hiddenFields: ["src"] },
      ),
    );
    expect(hidden.pages[0]!.logic[0]!.if[0]).toEqual({ field: "src", op: "equals", value: "ad" });
  });

  test("operators and values must fit the question", () => {
    const choice = q({
      id: "c",
      type: "single_choice",
      choices: [
        { id: "y", label: "Yes" },
        { id: "n", label: "No" },
      ],
    });
    const rule = (c: Record<string, unknown>) =>
      withPages([{ id: "a", questions: [choice], logic: [{ if: [c], goTo: "end" }] }]);
    expect(err(rule({ field: "c", op: "lessThan", value: 3 }))).toContain(
      '"lessThan" does not apply to single_choice question "c": use equals, notEquals, answered, skipped',
    );
    expect(err(rule({ field: "c", op: "equals", value: "maybe" }))).toContain(
      'names "maybe", which is not a choice id of "c" (y, n)',
    );
    expect(err(rule({ field: "c", op: "equals" }))).toContain('value is required with op "equals"');
    expect(err(rule({ field: "c", op: "answered", value: "y" }))).toContain('is not used with op "answered"');
    expect(err(rule({ field: "c", op: "equals", value: { $gt: 1 } }))).toContain(
      "must be a text (up to 500 characters), a number, or a list of up to 100 texts",
    );
    const nps = withPages([
      {
        id: "a",
        questions: [q({ id: "n", type: "nps" })],
        logic: [{ if: [{ field: "n", op: "lessThan", value: "7" }], goTo: "end" }],
      },
    ]);
    expect(err(nps)).toContain('must be a number for nps question "n"');
  });

  test("per-type rules, with the path of the problem", () => {
    expect(err(withPages([{ questions: [q({ type: "single_choice" })] }]))).toContain(
      "pages[0].questions[0].choices needs at least 2 choices",
    );
    expect(err(withPages([{ questions: [q({ scale: 7 })] }]))).toBe(
      "pages[0].questions[0].scale does not apply to a short_text question (it takes: placeholder, min, max).",
    );
    expect(err(withPages([{ questions: [q({ type: "rating", scale: 11 })] }]))).toContain(
      "scale must be a whole number of points from 3 to 10",
    );
    expect(err(withPages([{ questions: [q({ type: "number", min: 5, max: 1 })] }]))).toContain(
      "min (5) is more than max (1)",
    );
    expect(err(withPages([{ questions: [q({ type: "date", min: "2026-02-30" })] }]))).toContain(
      "min must be a date like 2026-01-31",
    );
    expect(
      err(
        withPages([
          { questions: [q({ type: "matrix", rows: [{ id: "r", label: "R" }], columns: [{ id: "c", label: "C" }] })] },
        ]),
      ),
    ).toContain("columns needs at least 2 columns");
    expect(
      err(
        withPages([
          {
            questions: [
              q({
                type: "ranking",
                choices: [
                  { id: "a", label: "A" },
                  { id: "a", label: "B" },
                ],
              }),
            ],
          },
        ]),
      ),
    ).toContain('choices[1].id "a" is used twice');
    expect(
      err(withPages([{ questions: [q({ type: "single_choice", choices: [{ id: "a", label: "A" }, { id: "b" }] })] }])),
    ).toContain("pages[0].questions[0].choices[1].label");
    expect(
      err(
        withPages([
          {
            questions: [
              q({
                type: "single_choice",
                choices: [
                  { id: "a", label: "A", x: 1 },
                  { id: "b", label: "B" },
                ],
              }),
            ],
          },
        ]),
      ),
    ).toContain("choices[0].x is not a field here");
  });

  test("ids: unique across pages, questions, endings and hidden fields; letters first; lang is reserved", () => {
    expect(err(withPages([{ id: "x", questions: [q({ id: "x" })] }]))).toBe(
      'pages[0].questions[0].id "x" is already used at pages[0].id; ids of pages, questions, endings and hidden fields must all differ.',
    );
    expect(err(withPages([{ questions: [q({ id: "1abc" })] }]))).toContain('"1abc" must start with a letter');
    expect(err(withPages([{ questions: [q({ id: "a<b" })] }]))).toContain(
      "must start with a letter and hold only letters, digits, _ and -",
    );
    expect(err(withPages([{ questions: [q({})] }], { hiddenFields: ["lang"] }))).toContain(
      "the page's own URL parameter",
    );
  });

  test("settings: close date in the future, safe redirects, languages", () => {
    expect(err(withPages([{ questions: [q({})] }], { closesAt: "2026-03-01T11:59:59Z" }))).toContain(
      "is not in the future",
    );
    expect(norm(withPages([{ questions: [q({})] }], { closesAt: "2026-03-01T12:00:01Z" })).closesAt).toBe(
      "2026-03-01T12:00:01.000Z",
    );
    expect(
      err(
        withPages([{ questions: [q({})] }], { endings: [{ id: "e", title: "E", redirectUrl: "javascript:alert(1)" }] }),
      ),
    ).toContain("redirectUrl must be an absolute https:// URL");
    expect(err(withPages([{ questions: [q({})] }], { languages: ["en", "EN"] }))).toContain(
      '"EN" must be a language code',
    );
    expect(err(withPages([{ questions: [q({})] }], { languages: ["en", "en"] }))).toContain("lists a language twice");
  });
});

describe("skip logic", () => {
  test("the path depends on earlier answers and hidden fields", () => {
    expect(walk(def, { nps: 10 }, {})).toEqual({ pages: ["p1", "p3"], ending: "thanks" });
    expect(walk(def, { nps: 9 }, {})).toEqual({ pages: ["p1", "p3"], ending: "thanks" });
    expect(walk(def, { nps: 8 }, {})).toEqual({ pages: ["p1", "p2", "p3"], ending: "thanks" });
    expect(walk(def, { nps: 10 }, { source: "vip" })).toEqual({ pages: ["p1", "p3"], ending: "vip" });
    expect(walk(def, {}, { source: "VIP " })).toEqual({ pages: ["p1", "p2", "p3"], ending: "vip" });
  });

  const d = norm(
    withPages(
      [
        {
          questions: [
            q({ id: "t" }),
            q({
              id: "c",
              type: "single_choice",
              choices: [
                { id: "y", label: "Y" },
                { id: "n", label: "N" },
              ],
            }),
            q({
              id: "m",
              type: "multiple_choice",
              choices: [
                { id: "a", label: "A" },
                { id: "b", label: "B" },
                { id: "c2", label: "C" },
              ],
            }),
            q({
              id: "x",
              type: "matrix",
              rows: [{ id: "r1", label: "R1" }],
              columns: [
                { id: "k1", label: "K1" },
                { id: "k2", label: "K2" },
              ],
            }),
            q({ id: "d", type: "date" }),
            q({ id: "n", type: "number" }),
          ],
        },
      ],
      { hiddenFields: ["h"] },
    ),
  );
  const holds = (
    field: string,
    op: any,
    value: any,
    answers: Record<string, any>,
    hidden: Record<string, string> = {},
  ) => conditionHolds(d, { field, op, value }, answers, hidden);

  test("a skipped question matches only `skipped`, even for notEquals and notContains", () => {
    expect(holds("t", "skipped", undefined, {})).toBe(true);
    expect(holds("t", "notEquals", "x", {})).toBe(false);
    expect(holds("m", "notContains", "a", {})).toBe(false);
    expect(holds("h", "skipped", undefined, {}, { h: "" })).toBe(true);
    expect(holds("t", "answered", undefined, { t: "hi" })).toBe(true);
  });

  test("text ignores case and spaces; choices, sets, matrix cells, dates and numbers compare as documented", () => {
    expect(holds("t", "equals", " Hello ", { t: "hello" })).toBe(true);
    expect(holds("t", "contains", "ELL", { t: "hello" })).toBe(true);
    expect(holds("c", "equals", ["n", "y"], { c: "y" })).toBe(true);
    expect(holds("c", "equals", "Y", { c: "y" })).toBe(false); // choice ids are exact
    expect(holds("m", "equals", ["b", "a"], { m: ["a", "b"] })).toBe(true);
    expect(holds("m", "equals", ["a"], { m: ["a", "b"] })).toBe(false);
    expect(holds("m", "contains", ["c2", "b"], { m: ["a", "b"] })).toBe(true);
    expect(holds("x", "contains", "r1=k2", { x: { r1: "k2" } })).toBe(true);
    expect(holds("x", "contains", "r1=k1", { x: { r1: "k2" } })).toBe(false);
    expect(holds("d", "lessThan", "2026-02-01", { d: "2026-01-31" })).toBe(true);
    expect(holds("d", "greaterOrEqual", "2026-02-01", { d: "2026-02-01" })).toBe(true);
    expect(holds("n", "lessOrEqual", 3, { n: 3 })).toBe(true);
    expect(holds("n", "greaterThan", 3, { n: 3 })).toBe(false);
    expect(holds("h", "equals", "Ads", {}, { h: "ads" })).toBe(true);
  });
});

describe("reading a submitted page (hostile values)", () => {
  const d = norm(
    withPages([
      {
        questions: [
          q({ id: "short", required: true, max: 20 }),
          q({ id: "mail", type: "email" }),
          q({ id: "num", type: "number", min: 0, max: 100, integer: true }),
          q({ id: "rate", type: "rating", scale: 5 }),
          q({
            id: "one",
            type: "single_choice",
            choices: [
              { id: "a", label: "A" },
              { id: "b", label: "B" },
            ],
            allowOther: true,
          }),
          q({
            id: "many",
            type: "multiple_choice",
            choices: [
              { id: "a", label: "A" },
              { id: "b", label: "B" },
              { id: "c", label: "C" },
            ],
            max: 2,
          }),
          q({
            id: "grid",
            type: "matrix",
            required: true,
            rows: [
              { id: "r1", label: "R1" },
              { id: "r2", label: "R2" },
            ],
            columns: [
              { id: "x", label: "X" },
              { id: "y", label: "Y" },
            ],
          }),
          q({
            id: "rank",
            type: "ranking",
            choices: [
              { id: "a", label: "A" },
              { id: "b", label: "B" },
              { id: "c", label: "C" },
            ],
          }),
          q({ id: "day", type: "date", min: "2026-01-01" }),
        ],
      },
    ]),
  );
  const read = (fields: [string, string][]) => readPage(d.pages[0]!, new URLSearchParams(fields));
  const good: [string, string][] = [
    ["q.short", "  Hi there \r\n "],
    ["q.mail", "ana@example.com"],
    ["q.num", "42"],
    ["q.rate", "4"],
    ["q.one", "other"],
    ["q.one.other", "From a friend"],
    ["q.many", "c"],
    ["q.many", "a"],
    ["q.grid.r1", "x"],
    ["q.grid.r2", "y"],
    ["q.rank.a", "2"],
    ["q.rank.b", "3"],
    ["q.rank.c", "1"],
    ["q.day", "2026-02-28"],
  ];

  test("well-formed values become typed answers (choices in listed order, ranking by position)", () => {
    const r = read(good);
    expect(r.errors).toEqual({});
    expect(r.answers).toEqual({
      short: "Hi there",
      mail: "ana@example.com",
      num: 42,
      rate: 4,
      one: "other",
      many: ["a", "c"],
      grid: { r1: "x", r2: "y" },
      rank: ["c", "a", "b"],
      day: "2026-02-28",
    });
    expect(r.other).toEqual({ one: "From a friend" });
  });

  const bad = (name: string, value: string | string[], expected: string) =>
    test(`${name} = ${JSON.stringify(value).slice(0, 40)} → ${expected}`, () => {
      const fields = good.filter(([k]) => k !== name && !k.startsWith(`${name}.`));
      for (const v of Array.isArray(value) ? value : [value]) fields.push([name, v]);
      const qid = name.split(".")[1]!;
      expect(read(fields).errors[qid]?.key).toBe(expected as any);
      expect(read(fields).answers[qid]).toBeUndefined();
    });
  bad("q.short", "x".repeat(21), "errTooLong");
  bad("q.short", "x".repeat(100_000), "errTooLong");
  bad("q.short", "   ", "errRequired");
  bad("q.mail", "<script>alert(1)</script>@x.y", "errEmail");
  bad("q.num", "1e400", "errNumber");
  bad("q.num", "4.5", "errWhole");
  bad("q.num", "-1", "errMin");
  bad("q.num", '{"$gt":0}', "errNumber");
  bad("q.rate", "6", "errChoose");
  bad("q.rate", "0x3", "errChoose");
  bad("q.one", "c", "errChoose");
  bad("q.many", ["a", "a"], "errChooseSome");
  bad("q.many", ["a", "b", "c"], "errPickMax");
  bad("q.many", ["zzz"], "errChooseSome");
  bad("q.day", "2026-02-30", "errDate");
  bad("q.day", "2025-12-31", "errDateMin");

  test("a forged matrix column, a half-answered required matrix, a ranking that repeats a position", () => {
    const f = (extra: [string, string][], drop: string) =>
      read([...good.filter(([k]) => !k.startsWith(drop)), ...extra]);
    expect(
      f(
        [
          ["q.grid.r1", "<b>"],
          ["q.grid.r2", "x"],
        ],
        "q.grid",
      ).errors.grid?.key,
    ).toBe("errMatrix");
    expect(f([["q.grid.r1", "x"]], "q.grid").errors.grid?.key).toBe("errMatrix");
    expect(
      f(
        [
          ["q.rank.a", "1"],
          ["q.rank.b", "1"],
          ["q.rank.c", "2"],
        ],
        "q.rank",
      ).errors.rank?.key,
    ).toBe("errRanking");
    expect(f([["q.rank.a", "1"]], "q.rank").errors.rank?.key).toBe("errRanking");
  });

  test("control characters are removed, never stored; fields of other questions are never read", () => {
    const r = read([
      ...good.filter(([k]) => k !== "q.short"),
      ["q.short", "a\u0000b\u0007c"],
      ["q.ghost", "x"],
      ["q.short.extra", "y"],
    ]);
    expect(r.answers.short).toBe("a b c");
    expect(Object.keys(r.answers)).not.toContain("ghost");
  });
});

describe("summaries against hand-computed figures", () => {
  const at = (n: number) => new Date(Date.UTC(2026, 2, 1, 10, n));
  const row = (
    id: number,
    path: string[],
    answers: Record<string, any>,
    finished: boolean,
    other: Record<string, string> = {},
  ): SummaryRow => ({
    id,
    path,
    answers,
    otherTexts: other,
    finished,
    createdAt: at(id),
  });
  const rows = [
    row(1, ["p1", "p3"], { nps: 10, visits: "daily", drinks: ["espresso", "filter"], pastry: 5 }, true),
    row(2, ["p1", "p2", "p3"], { nps: 6, visits: "weekly", why: "Too loud", drinks: ["tea"], pastry: 3 }, true),
    row(3, ["p1", "p2"], { nps: 8, visits: "other", why: "More seats" }, false, { visits: "Monthly" }),
    row(4, ["p1", "p3"], { nps: 9, visits: "daily", drinks: ["espresso"], pastry: 4, email: "a@b.co" }, true),
    row(5, ["p1"], { nps: 0, visits: "rarely" }, false),
  ];
  const s = summarize(def, rows);
  const byId = (id: string) => s.questions.find((x: any) => x.id === id) as any;

  test("completion", () => {
    expect({ responses: s.responses, finished: s.finished, completionRate: s.completionRate }).toEqual({
      responses: 5,
      finished: 3,
      completionRate: 60,
    });
  });

  test("NPS: 2 promoters, 1 passive, 2 detractors of 5 → score 0; average 6.6, median 8", () => {
    const n = byId("nps");
    expect(n).toMatchObject({
      seen: 5,
      answered: 5,
      skipped: 0,
      average: 6.6,
      median: 8,
      min: 0,
      max: 10,
      nps: { score: 0, promoters: 2, passives: 1, detractors: 2 },
    });
    expect(n.distribution.filter((d: any) => d.count)).toEqual([
      { value: 0, count: 1, percent: 20 },
      { value: 6, count: 1, percent: 20 },
      { value: 8, count: 1, percent: 20 },
      { value: 9, count: 1, percent: 20 },
      { value: 10, count: 1, percent: 20 },
    ]);
    expect(n.distribution).toHaveLength(11);
  });

  test("single choice with Other; multiple choice percentages of respondents", () => {
    expect(byId("visits").choices).toEqual([
      { id: "daily", label: "Daily", count: 2, percent: 40 },
      { id: "weekly", label: "Weekly", count: 1, percent: 20 },
      { id: "rarely", label: "Rarely", count: 1, percent: 20 },
      { id: "other", label: "Other", count: 1, percent: 20 },
    ]);
    expect(byId("visits").otherTexts).toEqual([{ responseId: 3, text: "Monthly" }]);
    expect(byId("drinks")).toMatchObject({ seen: 3, answered: 3 });
    expect(byId("drinks").choices.map((c: any) => [c.id, c.count, c.percent])).toEqual([
      ["espresso", 2, 66.67],
      ["filter", 1, 33.33],
      ["tea", 1, 33.33],
    ]);
  });

  test("rating, text and email: seen counts only responses that reached the page", () => {
    expect(byId("pastry")).toMatchObject({ seen: 3, answered: 3, average: 4, median: 4 });
    expect(byId("why")).toMatchObject({
      seen: 2,
      answered: 2,
      skipped: 0,
      latest: [
        { responseId: 3, text: "More seats" },
        { responseId: 2, text: "Too loud" },
      ],
    });
    expect(byId("email")).toMatchObject({
      seen: 3,
      answered: 1,
      skipped: 2,
      latest: [{ responseId: 4, text: "a@b.co" }],
    });
  });

  test("matrix, ranking, number and date", () => {
    const d = norm(
      withPages([
        {
          id: "only",
          questions: [
            q({
              id: "m",
              type: "matrix",
              rows: [
                { id: "speed", label: "Speed" },
                { id: "taste", label: "Taste" },
              ],
              columns: [
                { id: "bad", label: "Bad" },
                { id: "ok", label: "OK" },
                { id: "great", label: "Great" },
              ],
            }),
            q({
              id: "rk",
              type: "ranking",
              choices: [
                { id: "a", label: "A" },
                { id: "b", label: "B" },
                { id: "c", label: "C" },
              ],
            }),
            q({ id: "cups", type: "number" }),
            q({ id: "day", type: "date" }),
          ],
        },
      ]),
    );
    const rs = [
      row(1, ["only"], { m: { speed: "great", taste: "ok" }, rk: ["a", "b", "c"], cups: 2, day: "2026-03-01" }, true),
      row(
        2,
        ["only"],
        { m: { speed: "great", taste: "great" }, rk: ["b", "a", "c"], cups: 3, day: "2026-01-15" },
        true,
      ),
      row(3, ["only"], { m: { speed: "bad" }, rk: ["b", "c", "a"], cups: 3, day: "2026-03-01" }, true),
      row(4, ["only"], { cups: 10 }, true),
    ];
    const sm = summarize(d, rs).questions as any[];
    expect(sm[0].rows).toEqual([
      {
        id: "speed",
        label: "Speed",
        answered: 3,
        columns: [
          { id: "bad", label: "Bad", count: 1, percent: 33.33 },
          { id: "ok", label: "OK", count: 0, percent: 0 },
          { id: "great", label: "Great", count: 2, percent: 66.67 },
        ],
      },
      {
        id: "taste",
        label: "Taste",
        answered: 2,
        columns: [
          { id: "bad", label: "Bad", count: 0, percent: 0 },
          { id: "ok", label: "OK", count: 1, percent: 50 },
          { id: "great", label: "Great", count: 1, percent: 50 },
        ],
      },
    ]);
    expect(sm[1].ranking).toEqual([
      { id: "b", label: "B", averagePosition: 1.33, firstPlace: 2 },
      { id: "a", label: "A", averagePosition: 2, firstPlace: 1 },
      { id: "c", label: "C", averagePosition: 2.67, firstPlace: 0 },
    ]);
    expect(sm[2]).toMatchObject({
      answered: 4,
      average: 4.5,
      median: 3,
      min: 2,
      max: 10,
      sum: 18,
      mostCommon: [
        { value: 3, count: 2, percent: 50 },
        { value: 2, count: 1, percent: 25 },
        { value: 10, count: 1, percent: 25 },
      ],
    });
    expect(sm[3]).toMatchObject({
      answered: 3,
      earliest: "2026-01-15",
      latest: "2026-03-01",
      mostCommon: [
        { value: "2026-03-01", count: 2 },
        { value: "2026-01-15", count: 1 },
      ],
    });
  });

  test("no responses: zeros and nulls, never NaN", () => {
    const e = summarize(def, []);
    expect(e.completionRate).toBe(0);
    expect((e.questions[0] as any).nps).toEqual({ score: null, promoters: 0, passives: 0, detractors: 0 });
    expect(JSON.stringify(e)).not.toContain("NaN");
  });
});

test("FEEDBACK normalises to a stable stored form", () => {
  const again = normalizeDefinition({ ...(def as any) }, null) as Definition;
  expect(again).toEqual(def);
});
