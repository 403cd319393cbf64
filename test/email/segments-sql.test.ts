/**
 * Segment conditions answered in SQL must give exactly what the in-process
 * matcher (the reference) gives: every operator on every subscriber field
 * type, on values built to trip SQL up (accents, case, LIKE wildcards and
 * the escape character in values, quotes, missing attributes, numbers
 * stored as text, ±Infinity, a key named like an Object method), plus
 * the CRM fields now decided in SQL (company fields, owner by email,
 * createdAt). Each case: the planned path must be pure SQL (nothing left
 * for the process) and agree with the in-process path; a few answers are
 * also checked by hand. Runs on both engines.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { crmDomain } from "../../src/domains/crm/tools";
import { planContext, segmentMembers } from "../../src/domains/email/audience";
import { checkRules, foldSubscriber, parseRules, planRules } from "../../src/domains/email/segment-rules";
import { emailSubscribers } from "../../src/domains/email/tables";
import { foldSubscribers } from "../jobs";
import { call } from "../store/world";
import { errorOf, makeEmailWorld, type EmailWorld } from "./world";

let w: EmailWorld;
let companyId: number;
const crm = (name: string, args: Record<string, unknown>) => call(crmDomain, w.owner, name, args);

const SUBSCRIBERS: { email: string; name?: string; attributes?: Record<string, unknown> }[] = [
  {
    email: "zoe@acme.test",
    name: "Zoë Ünal",
    attributes: { plan: "Pro", seats: "12", vip: true, note: "50% off_now", big: "Infinity", code: "0x10", blank: " " },
  },
  {
    email: "max@other.test",
    attributes: { plan: "free", seats: 1, note: "50 percent", quote: `O'Brien "x"`, neg: "-1e999" },
  },
  {
    email: "åsa@straße.test",
    name: "ÅSA Öberg",
    attributes: { plan: "PRO ", seats: 12.5, score: "-3", town: "İstanbul", vip: false },
  },
  { email: "li@x.test", name: "  ", attributes: { plan: "", seats: "abc", constructor: "Builder", big: 1e300 } },
  { email: "ann@x.test", name: "Ann", attributes: { seats: "1e3", note: "a\\b_%", town: "istanbul" } },
];

const TEXT_FIELDS = [
  "email",
  "name",
  "attributes.plan",
  "attributes.seats",
  "attributes.note",
  "attributes.quote",
  "attributes.town",
  "attributes.vip",
  "attributes.constructor",
  "attributes.missing",
  "attributes.__proto__",
  "attributes.toString",
  'attributes.a"b',
];
const TEXT_OPS = ["eq", "neq", "contains", "not_contains", "starts_with", "ends_with", "exists", "not_exists"];
const TEXT_VALUES: (string | number | boolean)[] = [
  "zoe",
  "ZOË ünal",
  "pro",
  "PRO ",
  "%",
  "_",
  "50%",
  "off_",
  "\\",
  "a\\b",
  "o'brien",
  `"x"`,
  "",
  " ",
  "istanbul",
  "İSTANBUL",
  "x.test",
  ".test",
  "12",
  12,
  true,
  "false",
  "builder",
  "[object",
];
const NUM_FIELDS = [
  "attributes.seats",
  "attributes.big",
  "attributes.neg",
  "attributes.code",
  "attributes.blank",
  "attributes.score",
  "attributes.vip",
  "attributes.plan",
  "attributes.missing",
  "attributes.constructor",
];
const NUM_OPS = ["gt", "gte", "lt", "lte"];
const NUM_VALUES: (string | number | boolean)[] = [
  12,
  "12",
  1,
  0,
  -3,
  12.5,
  1000,
  1e300,
  16,
  "Infinity",
  "-Infinity",
  true,
  "1e3",
  " 7 ",
];

const who = async (conditions: unknown[], match: "all" | "any" = "all", inProcess = false) => {
  const rules = checkRules(parseRules({ match, conditions })).rules;
  const r = await segmentMembers(w.deps.db, companyId, rules, 100, { inProcess });
  expect(r.sample.length).toBe(r.count);
  return r.sample.map((s) => s.email).sort();
};
/** The SQL plan leaves nothing to the process. */
const pureSql = async (conditions: unknown[], match: "all" | "any" = "all") => {
  const rules = checkRules(parseRules({ match, conditions })).rules;
  const pc = await planContext(w.deps.db, companyId, [rules]);
  return planRules(rules, companyId, pc.crm, { folded: pc.folded }).rest === null;
};
const valid = (c: unknown) => {
  try {
    checkRules(parseRules({ conditions: [c] }));
    return true;
  } catch {
    return false;
  }
};

beforeAll(async () => {
  w = await makeEmailWorld();
  companyId = w.owner.company.id;
  const list = await w.t("email_lists_create", { name: "All", optIn: "single" });
  for (const s of SUBSCRIBERS) await w.t("email_subscribers_add", { ...s, listIds: [list.id] });
  // The same addresses in the other company, with other values: never counted here.
  const rival = w.ctx({ company: "other" });
  const rlist = await w.t("email_lists_create", { name: "All", optIn: "single" }, rival);
  await w.t(
    "email_subscribers_add",
    { email: "zoe@acme.test", name: "Zoe", attributes: { plan: "pro", seats: 99 }, listIds: [rlist.id] },
    rival,
  );
});
afterAll(() => w.done());

describe("subscriber fields: SQL and in-process agree", () => {
  test("every text operator × field × value", async () => {
    let n = 0;
    for (const field of TEXT_FIELDS)
      for (const op of TEXT_OPS)
        for (const value of op === "exists" || op === "not_exists" ? [undefined] : TEXT_VALUES) {
          const c = { field, op, ...(value !== undefined && { value }) };
          if (!valid(c)) continue;
          expect({ c, pure: await pureSql([c]) }).toEqual({ c, pure: true });
          expect({ c, sql: await who([c]) }).toEqual({ c, sql: await who([c], "all", true) });
          n++;
        }
    expect(n).toBeGreaterThan(1000);
  });

  test("every number operator × field × value", async () => {
    let n = 0;
    for (const field of NUM_FIELDS)
      for (const op of NUM_OPS)
        for (const value of NUM_VALUES) {
          const c = { field, op, value };
          if (!valid(c)) continue;
          expect({ c, pure: await pureSql([c]) }).toEqual({ c, pure: true });
          expect({ c, sql: await who([c]) }).toEqual({ c, sql: await who([c], "all", true) });
          n++;
        }
    expect(n).toBeGreaterThan(400);
  });

  test("any / all over mixed conditions", async () => {
    const sets: [unknown[], "all" | "any"][] = [
      [
        [
          { field: "attributes.plan", op: "eq", value: "pro" },
          { field: "attributes.seats", op: "gte", value: 12 },
        ],
        "all",
      ],
      [
        [
          { field: "attributes.plan", op: "eq", value: "free" },
          { field: "name", op: "contains", value: "öb" },
        ],
        "any",
      ],
      [
        [
          { field: "attributes.note", op: "contains", value: "%" },
          { field: "email", op: "ends_with", value: "x.test" },
          { field: "attributes.big", op: "gt", value: 1 },
        ],
        "any",
      ],
      [
        [
          { field: "name", op: "not_exists" },
          { field: "attributes.seats", op: "lt", value: 100 },
        ],
        "all",
      ],
    ];
    for (const [conds, match] of sets) {
      expect(await pureSql(conds, match)).toBe(true);
      expect(await who(conds, match)).toEqual(await who(conds, match, true));
    }
  });

  // Hand-computed answers (so agreement cannot hide a shared mistake).
  const hand: [string, unknown, string[]][] = [
    ["accents and case folded", { field: "name", op: "eq", value: "zoe unal" }, ["zoe@acme.test"]],
    ["an address folded", { field: "email", op: "contains", value: "STRASSE" }, []],
    ["ß is not ss (no NFKD decomposition)", { field: "email", op: "contains", value: "straße" }, ["åsa@straße.test"]],
    ["% is literal", { field: "attributes.note", op: "contains", value: "%" }, ["ann@x.test", "zoe@acme.test"]],
    ["_ is literal", { field: "attributes.note", op: "contains", value: "f_" }, ["zoe@acme.test"]],
    ["the escape character is literal", { field: "attributes.note", op: "starts_with", value: "a\\b" }, ["ann@x.test"]],
    ["trailing space kept", { field: "attributes.plan", op: "eq", value: "pro" }, ["zoe@acme.test"]],
    [
      "numbers stored as text",
      { field: "attributes.seats", op: "gte", value: 12 },
      ["ann@x.test", "zoe@acme.test", "åsa@straße.test"],
    ],
    ["Infinity in text", { field: "attributes.big", op: "gt", value: 1e300 }, ["zoe@acme.test"]],
    ["eq compares folded text, not numbers", { field: "attributes.code", op: "eq", value: "0X10" }, ["zoe@acme.test"]],
    [
      "a blank name is missing",
      { field: "name", op: "exists" },
      ["zoe@acme.test", "åsa@straße.test"].concat(["ann@x.test"]).sort(),
    ],
    ["an empty attribute is missing", { field: "attributes.plan", op: "not_exists" }, ["ann@x.test", "li@x.test"]],
    [
      "a key named constructor is never one (input drops it; Object's is not read)",
      { field: "attributes.constructor", op: "exists" },
      [],
    ],
    ["Object's own keys are not attributes", { field: "attributes.toString", op: "exists" }, []],
    ["booleans read as text", { field: "attributes.vip", op: "eq", value: "TRUE" }, ["zoe@acme.test"]],
    ["İ folds to i", { field: "attributes.town", op: "eq", value: "istanbul" }, ["ann@x.test", "åsa@straße.test"]],
  ];
  for (const [label, c, emails] of hand)
    test(label, async () => {
      expect(await who([c])).toEqual([...emails].sort());
      expect(await who([c], "all", true)).toEqual([...emails].sort());
    });
  test("numbers compare as numbers", async () => {
    expect(await who([{ field: "attributes.blank", op: "lte", value: 0 }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "attributes.code", op: "gt", value: 15 }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "attributes.neg", op: "lt", value: -1e300 }])).toEqual(["max@other.test"]);
    expect(await who([{ field: "attributes.seats", op: "lt", value: "1e3" }])).toEqual([
      "max@other.test",
      "zoe@acme.test",
      "åsa@straße.test",
    ]);
  });
});

describe("hostile values", () => {
  const refused: [unknown, RegExp][] = [
    [{ field: "name", op: "eq", value: "a\u0000b" }, /NUL/],
    [{ field: "name", op: "eq", value: "\ud800" }, /broken character/],
    [{ field: "name", op: "contains", value: "x".repeat(1001) }, /over 1000 characters/],
  ];
  for (const [c, msg] of refused)
    test(`refused: ${JSON.stringify(c).slice(0, 60)}`, async () => {
      const e = await errorOf(() => w.t("email_segments_count", { rules: { conditions: [c] } }));
      expect(e.code).toBe("validation");
      expect(e.message).toMatch(msg);
    });
  test("quotes and SQL in values are text", async () => {
    for (const value of ["' or 1=1 --", `"); drop table email_subscribers; --`, "o'brien"])
      expect(
        (
          await w.t("email_segments_count", {
            rules: { conditions: [{ field: "attributes.quote", op: "contains", value }] },
          })
        ).count,
      ).toBe(value === "o'brien" ? 1 : 0);
  });
});

describe("rows without a folded copy", () => {
  test("are checked in process until the fold job reaches them, with the same answers", async () => {
    const c = [{ field: "name", op: "eq", value: "ZOE UNAL" }];
    await w.deps.db.update(emailSubscribers).set({ fold: null }).where(eq(emailSubscribers.email, "zoe@acme.test"));
    expect(await pureSql(c)).toBe(false);
    expect(await who(c)).toEqual(["zoe@acme.test"]);
    expect(
      (
        await w.t("email_segments_count", {
          rules: { conditions: [{ field: "attributes.plan", op: "eq", value: "PRO" }] },
        })
      ).count,
    ).toBe(1);
    await foldSubscribers(w.deps);
    expect(await pureSql(c)).toBe(true);
    expect(await who(c)).toEqual(["zoe@acme.test"]);
  });
  test("updates rewrite the folded copy", async () => {
    await w.t("email_subscribers_update", {
      email: "li@x.test",
      name: "Lí Wéi",
      attributes: { plan: "Éco", seats: null },
    });
    expect(await who([{ field: "name", op: "starts_with", value: "li we" }])).toEqual(["li@x.test"]);
    expect(await who([{ field: "attributes.plan", op: "eq", value: "eco" }])).toEqual(["li@x.test"]);
    expect(await who([{ field: "attributes.seats", op: "exists" }])).not.toContain("li@x.test");
    await w.t("email_subscribers_update", { email: "li@x.test", newEmail: "lee@x.test" });
    expect(await who([{ field: "email", op: "starts_with", value: "lee@" }])).toEqual(["lee@x.test"]);
  });
});

describe("racing writes", () => {
  test("the folded copy always matches the values it was written with", async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        i % 2
          ? w.t("email_subscribers_update", {
              email: "ann@x.test",
              name: `Ånn ${i}`,
              attributes: { plan: `Plän ${i}` },
            })
          : w.t("email_subscribers_add", { email: "ann@x.test", name: `Ann ${i}`, attributes: { seats: i } }),
      ),
    );
    const row = (await w.deps.db.select().from(emailSubscribers).where(eq(emailSubscribers.email, "ann@x.test")))[0]!;
    expect(row.fold).toEqual(foldSubscriber(row));
  });
});

describe("CRM fields now decided in SQL", () => {
  beforeAll(async () => {
    const co = await crm("crm_companies_create", {
      name: "Ünited Retail",
      domain: "united.test",
      industry: "Retail",
      size: "11-50",
      tags: ["Key"],
    });
    await crm("crm_companies_create", { name: "Other Co", industry: "Réseau 50%" });
    for (const [key, type, options] of [
      ["nick", "text"],
      ["site", "url"],
      ["tier", "select", ["Gold", "Silver"]],
      ["budget", "number"],
      ["vip", "boolean"],
      ["channels", "multi_select", ["E-mail", "Phone", "50%_off"]],
    ] as const)
      await crm("crm_fields_create", { object: "contact", key, label: key, type, ...(options && { options }) });
    await crm("contacts_create", {
      firstName: "Zoë",
      lastName: "O'Brien_%",
      jobTitle: "Head of Ünits",
      emails: ["zoe@acme.test"],
      companyId: co.id,
      ownerId: w.owner.principal.userId,
      lifecycleStage: "customer",
      custom: {
        nick: "Zed",
        site: "https://zoe.test/a_b",
        tier: "Gold",
        budget: 12.5,
        vip: true,
        channels: ["E-mail", "50%_off"],
      },
      tags: ["VIP", "Key_Account"],
    });
    await crm("contacts_create", {
      firstName: "Max",
      emails: ["max@other.test"],
      lifecycleStage: "lead",
      custom: { nick: "", budget: -3, vip: false, channels: ["Phone"] },
      tags: [],
    });
    // Another tenant's contact with Ann's address and matching values: never seen.
    await call(crmDomain, w.ctx({ company: "other" }), "contacts_create", {
      firstName: "Zoe",
      emails: ["ann@x.test"],
      jobTitle: "Head",
    });
  });
  const cases: unknown[] = [];
  for (const field of [
    "crm.company.name",
    "crm.company.industry",
    "crm.company.domain",
    "crm.company.size",
    "crm.company.tags",
  ])
    for (const op of TEXT_OPS)
      for (const value of op.endsWith("exists")
        ? [undefined]
        : ["retail", "RÉTAIL", "united", "%", "key", "11-50", ".test", "réseau 50%"])
        cases.push({ field, op, ...(value !== undefined && { value }) });
  for (const field of [
    "crm.firstName",
    "crm.lastName",
    "crm.jobTitle",
    "crm.lifecycleStage",
    "crm.custom.nick",
    "crm.custom.site",
    "crm.custom.tier",
    "crm.tags",
    "crm.custom.channels",
  ])
    for (const op of TEXT_OPS)
      for (const value of op.endsWith("exists")
        ? [undefined]
        : [
            "zoe",
            "ZOË",
            "o'brien_%",
            "_",
            "%",
            "head",
            "ünits",
            "customer",
            "CUST",
            "zed",
            "",
            "a_b",
            "gold",
            "GOLD",
            "vip",
            "key_",
            "_",
            "e-mail",
            "50%",
            "phone",
          ])
        cases.push({ field, op, ...(value !== undefined && { value }) });
  for (const op of ["eq", "neq", "gt", "gte", "lt", "lte", "exists", "not_exists"])
    for (const value of op.endsWith("exists") ? [undefined] : [12.5, -3, 0, 1e300])
      cases.push({ field: "crm.custom.budget", op, ...(value !== undefined && { value }) });
  for (const op of ["eq", "neq", "exists", "not_exists"])
    for (const value of op.endsWith("exists") ? [undefined] : [true, false])
      cases.push({ field: "crm.custom.vip", op, ...(value !== undefined && { value }) });
  for (const op of ["eq", "neq"])
    for (const value of ["owner@example.test", "OWNER@EXAMPLE.TEST", "nobody@x.test"])
      cases.push({ field: "crm.owner", op, value });
  for (const op of ["before", "after"])
    for (const value of ["2000-01-01", "2999-01-01T00:00:00Z", "2000"])
      cases.push({ field: "crm.createdAt", op, value });
  test("every case is pure SQL and agrees with the process", async () => {
    for (const c of cases) {
      expect({ c, pure: await pureSql([c]) }).toEqual({ c, pure: true });
      expect({ c, sql: await who([c]) }).toEqual({ c, sql: await who([c], "all", true) });
    }
  });
  test("by hand", async () => {
    expect(await who([{ field: "crm.company.industry", op: "eq", value: "RETAIL" }])).toEqual(["zoe@acme.test"]);
    // Max has a contact but no company: neq holds, a subscriber with no contact never matches.
    expect(await who([{ field: "crm.company.industry", op: "neq", value: "retail" }])).toEqual(["max@other.test"]);
    expect(await who([{ field: "crm.company.name", op: "starts_with", value: "unit" }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "crm.owner", op: "eq", value: "OWNER@example.test" }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "crm.createdAt", op: "after", value: "2000-01-01" }])).toEqual([
      "max@other.test",
      "zoe@acme.test",
    ]);
    expect(await who([{ field: "crm.firstName", op: "eq", value: "ZOE" }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "crm.lastName", op: "ends_with", value: "_%" }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "crm.jobTitle", op: "neq", value: "head of units" }])).toEqual(["max@other.test"]);
    expect(await who([{ field: "crm.custom.nick", op: "not_exists" }])).toEqual(["max@other.test"]);
    expect(await who([{ field: "crm.lifecycleStage", op: "contains", value: "CUST" }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "crm.custom.budget", op: "lt", value: 12.5 }])).toEqual(["max@other.test"]);
    expect(await who([{ field: "crm.custom.vip", op: "neq", value: true }])).toEqual(["max@other.test"]);
    expect(await who([{ field: "crm.tags", op: "eq", value: "KEY_account" }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "crm.tags", op: "not_exists" }])).toEqual(["max@other.test"]);
    expect(await who([{ field: "crm.custom.channels", op: "contains", value: "%_" }])).toEqual(["zoe@acme.test"]);
    expect(await who([{ field: "crm.custom.channels", op: "neq", value: "phone" }])).toEqual(["zoe@acme.test"]);
  });
});
