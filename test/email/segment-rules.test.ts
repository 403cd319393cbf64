/**
 * Segment rules on hand-built subscribers: what each operator means at the
 * edges (missing values, accents, numbers written as text, any vs all,
 * list status), and which rules are refused before they are stored.
 */
import { describe, expect, test } from "bun:test";
import { checkRules, matches, parseRules, type Candidate } from "../../src/domains/email/segment-rules";

const zoe: Candidate = {
  id: 1,
  email: "zoe@acme.test",
  name: "Zoë Ünal",
  attributes: { plan: "Pro", seats: "12", vip: true },
  createdAt: new Date("2026-03-01T00:00:00Z"),
  lists: new Map([
    [5, "subscribed"],
    [6, "unsubscribed"],
  ]),
};
const max: Candidate = {
  id: 2,
  email: "max@other.test",
  name: null,
  attributes: { plan: "free", seats: 1 },
  createdAt: new Date("2025-12-31T23:59:59Z"),
  lists: new Map([[6, "subscribed"]]),
};
const who = (rules: unknown) =>
  [zoe, max].filter((c) => matches(checkRules(parseRules(rules)).rules, c)).map((c) => c.id);

describe("operators", () => {
  const cases: [string, unknown, number[]][] = [
    ["accents and case are ignored", { conditions: [{ field: "name", op: "eq", value: "zoe unal" }] }, [1]],
    [
      "a missing name is not equal to anything, and is 'not containing'",
      { conditions: [{ field: "name", op: "not_contains", value: "zo" }] },
      [2],
    ],
    ["neq holds for a missing value", { conditions: [{ field: "name", op: "neq", value: "x" }] }, [1, 2]],
    [
      "numbers stored as text compare as numbers",
      { conditions: [{ field: "attributes.seats", op: "gt", value: 9 }] },
      [1],
    ],
    ["gte at the exact boundary", { conditions: [{ field: "attributes.seats", op: "gte", value: 12 }] }, [1]],
    ["lt at the exact boundary excludes it", { conditions: [{ field: "attributes.seats", op: "lt", value: 1 }] }, []],
    ["exists / not_exists", { conditions: [{ field: "attributes.vip", op: "exists" }] }, [1]],
    ["booleans compare as text", { conditions: [{ field: "attributes.vip", op: "eq", value: true }] }, [1]],
    [
      "createdAt after is strict",
      { conditions: [{ field: "createdAt", op: "after", value: "2025-12-31T23:59:59Z" }] },
      [1],
    ],
    ["createdAt before", { conditions: [{ field: "createdAt", op: "before", value: "2026-01-01T00:00:00Z" }] }, [2]],
    ["list in means subscribed by default", { conditions: [{ field: "list", op: "in", value: 6 }] }, [2]],
    ["list in with a status", { conditions: [{ field: "list", op: "in", value: 6, status: "unsubscribed" }] }, [1]],
    ["list not_in", { conditions: [{ field: "list", op: "not_in", value: 5 }] }, [2]],
    [
      "all: every condition",
      {
        match: "all",
        conditions: [
          { field: "email", op: "ends_with", value: ".test" },
          { field: "attributes.plan", op: "eq", value: "pro" },
        ],
      },
      [1],
    ],
    [
      "any: one condition",
      {
        match: "any",
        conditions: [
          { field: "email", op: "starts_with", value: "max" },
          { field: "attributes.plan", op: "eq", value: "pro" },
        ],
      },
      [1, 2],
    ],
  ];
  for (const [label, rules, ids] of cases) test(label, () => expect(who(rules)).toEqual(ids));
});

describe("refused rules", () => {
  const bad: [unknown, RegExp][] = [
    [{ conditions: [] }, /conditions/],
    [{ conditions: [{ field: "email", op: "gt", value: 1 }] }, /email takes/],
    [{ conditions: [{ field: "list", op: "eq", value: 1 }] }, /in or not_in/],
    [{ conditions: [{ field: "list", op: "in", value: "five" }] }, /list id/],
    [{ conditions: [{ field: "attributes", op: "eq", value: 1 }] }, /unknown field/],
    [{ conditions: [{ field: "attributes.a.b", op: "eq", value: 1 }] }, /unknown field/],
    [{ conditions: [{ field: "crm", op: "eq", value: "won" }] }, /unknown field/],
    [{ conditions: [{ field: "email", op: "eq" }] }, /needs a value/],
    [{ conditions: [{ field: "email", op: "eq", value: "x", status: "subscribed" }] }, /list conditions only/],
    [{ conditions: [{ field: "email", op: "eq", value: "x" }], extra: 1 }, /rules/],
  ];
  for (const [rules, msg] of bad)
    test(JSON.stringify(rules), () => expect(() => checkRules(parseRules(rules))).toThrow(msg));
});
