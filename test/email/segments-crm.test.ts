/**
 * Segments over CRM fields, on hand-built contacts: a subscriber matches on
 * the CRM contact holding its address (any of the contact's addresses) in
 * the same company. No contact → no match (but `crm.contact not_exists`);
 * custom fields compare by their type; another company's contact with the
 * same address is never seen; campaign audiences use the same rules.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { crmDomain } from "../../src/domains/crm/tools";
import { call } from "../store/world";
import { errorOf, makeEmailWorld, type EmailWorld } from "./world";

let w: EmailWorld;
let listId: number;
let ownerUserId: number;
const crm = (name: string, args: Record<string, unknown>, ctx = w.owner) => call(crmDomain, ctx, name, args);
const members = async (conditions: unknown[], match: "all" | "any" = "all", ctx = w.owner) =>
  ((await w.t("email_segments_count", { rules: { match, conditions } }, ctx)).sample as { email: string }[])
    .map((s) => s.email)
    .sort();

beforeAll(async () => {
  w = await makeEmailWorld();
  ownerUserId = w.owner.principal.userId!;
  for (const [object, key, type, options] of [
    ["contact", "budget", "number"],
    ["contact", "renewal", "date"],
    ["contact", "newsletter", "boolean"],
    ["contact", "channels", "multi_select", ["email", "phone"]],
    ["contact", "tier", "select", ["gold", "silver"]],
    ["company", "region", "select", ["emea", "apac"]],
  ] as const)
    await crm("crm_fields_create", { object, key, label: key, type, ...(options && { options }) });
  await crm("scoring_rules_create", {
    name: "Customers",
    field: "lifecycleStage",
    op: "eq",
    value: "customer",
    points: 25,
  });
  const co = await crm("crm_companies_create", {
    name: "Acme Industries",
    domain: "acme-industries.test",
    industry: "Manufacturing",
    tags: ["key-account"],
    custom: { region: "emea" },
  });
  await crm("contacts_create", {
    firstName: "Ann",
    emails: ["ann@a.test"],
    lifecycleStage: "customer",
    ownerId: ownerUserId,
    tags: ["VIP"],
    companyId: co.id,
    custom: { budget: 5000, renewal: "2026-06-30", newsletter: true, channels: ["email"], tier: "gold" },
  });
  // Bob's contact holds the subscriber's address as its second one.
  await crm("contacts_create", {
    firstName: "Bob",
    emails: ["bob@b.test", "bob.alt@b.test"],
    lifecycleStage: "lead",
    custom: { budget: 100, newsletter: false },
  });
  // Dan is a customer of the other company only: never seen from Acme.
  const rival = w.ctx({ company: "other" });
  await crm("crm_fields_create", { object: "contact", key: "budget", label: "Budget", type: "number" }, rival);
  await crm(
    "contacts_create",
    { firstName: "Dan", emails: ["dan@d.test"], lifecycleStage: "customer", custom: { budget: 9999 } },
    rival,
  );
  const list = await w.t("email_lists_create", { name: "News", optIn: "single" });
  listId = list.id;
  for (const email of ["ann@a.test", "bob.alt@b.test", "cat@c.test", "dan@d.test"])
    await w.t("email_subscribers_add", { email, listIds: [listId] });
  const rlist = await w.t("email_lists_create", { name: "Rival news", optIn: "single" }, rival);
  for (const email of ["ann@a.test", "dan@d.test"])
    await w.t("email_subscribers_add", { email, listIds: [rlist.id] }, rival);
});
afterAll(() => w.done());

describe("crm fields in segments", () => {
  const cases: [string, unknown[], string[], ("all" | "any")?][] = [
    [
      "lifecycle stage (another company's customer with the same address is not one)",
      [{ field: "crm.lifecycleStage", op: "eq", value: "customer" }],
      ["ann@a.test"],
    ],
    ["any of the contact's addresses", [{ field: "crm.firstName", op: "eq", value: "bob" }], ["bob.alt@b.test"]],
    ["a contact exists", [{ field: "crm.contact", op: "exists" }], ["ann@a.test", "bob.alt@b.test"]],
    ["no contact", [{ field: "crm.contact", op: "not_exists" }], ["cat@c.test", "dan@d.test"]],
    [
      "neq never matches subscribers without a contact",
      [{ field: "crm.lifecycleStage", op: "neq", value: "customer" }],
      ["bob.alt@b.test"],
    ],
    ["not_exists on a field needs a contact", [{ field: "crm.custom.tier", op: "not_exists" }], ["bob.alt@b.test"]],
    ["number gt", [{ field: "crm.custom.budget", op: "gt", value: 1000 }], ["ann@a.test"]],
    [
      "number gte at the boundary",
      [{ field: "crm.custom.budget", op: "gte", value: 100 }],
      ["ann@a.test", "bob.alt@b.test"],
    ],
    ["number lt excludes the boundary", [{ field: "crm.custom.budget", op: "lt", value: 100 }], []],
    ["date before", [{ field: "crm.custom.renewal", op: "before", value: "2026-07-01" }], ["ann@a.test"]],
    ["date after is strict", [{ field: "crm.custom.renewal", op: "after", value: "2026-06-30" }], []],
    ["date eq", [{ field: "crm.custom.renewal", op: "eq", value: "2026-06-30" }], ["ann@a.test"]],
    ["boolean false", [{ field: "crm.custom.newsletter", op: "eq", value: false }], ["bob.alt@b.test"]],
    ["multi-select holds a value", [{ field: "crm.custom.channels", op: "eq", value: "email" }], ["ann@a.test"]],
    ["select", [{ field: "crm.custom.tier", op: "eq", value: "GOLD" }], ["ann@a.test"]],
    ["tags, case folded", [{ field: "crm.tags", op: "eq", value: "vip" }], ["ann@a.test"]],
    ["owner by email", [{ field: "crm.owner", op: "eq", value: "owner@example.test" }], ["ann@a.test"]],
    ["no owner", [{ field: "crm.owner", op: "not_exists" }], ["bob.alt@b.test"]],
    ["score (from the scoring rule)", [{ field: "crm.score", op: "gte", value: 25 }], ["ann@a.test"]],
    [
      "company name, accents and case folded",
      [{ field: "crm.company.name", op: "contains", value: "INDUSTRÍES" }],
      ["ann@a.test"],
    ],
    ["company tags", [{ field: "crm.company.tags", op: "eq", value: "key-account" }], ["ann@a.test"]],
    ["company custom select", [{ field: "crm.company.custom.region", op: "eq", value: "emea" }], ["ann@a.test"]],
    [
      "mixed with subscriber fields (any)",
      [
        { field: "crm.lifecycleStage", op: "eq", value: "lead" },
        { field: "email", op: "starts_with", value: "cat" },
      ],
      ["bob.alt@b.test", "cat@c.test"],
      "any",
    ],
  ];
  // Each case twice: as given (exact conditions answered by SQL) and under
  // "any" with a never-true text condition, which forces evaluation in
  // process: both paths must agree.
  const never = { field: "email", op: "eq", value: "nobody@nowhere.invalid" };
  for (const [label, conditions, emails, match] of cases)
    test(label, async () => {
      expect(await members(conditions, match)).toEqual(emails);
      if ((match ?? "all") === "all" && conditions.length === 1)
        expect(await members([...conditions, never], "any")).toEqual(emails);
    });

  test("owner by user id", async () => {
    expect(await members([{ field: "crm.owner", op: "eq", value: ownerUserId }])).toEqual(["ann@a.test"]);
    expect(await members([{ field: "crm.owner", op: "neq", value: ownerUserId }])).toEqual(["bob.alt@b.test"]);
  });

  test("counts: exact rules are counted by the database, the rest in process, with the same answer", async () => {
    const n = async (rules: unknown) => (await w.t("email_segments_count", { rules })).count;
    expect(await n({ conditions: [{ field: "crm.contact", op: "exists" }] })).toBe(2);
    expect(await n({ match: "any", conditions: [{ field: "crm.contact", op: "exists" }, never] })).toBe(2);
    expect(
      await n({
        conditions: [
          { field: "crm.score", op: "lt", value: 25 },
          { field: "crm.firstName", op: "eq", value: "BOB" },
        ],
      }),
    ).toBe(1);
    expect(
      await n({
        match: "any",
        conditions: [
          { field: "crm.lifecycleStage", op: "eq", value: "customer" },
          { field: "list", op: "in", value: listId },
        ],
      }),
    ).toBe(4);
  });

  test("the other company sees its own contacts only", async () => {
    const rival = w.ctx({ company: "other" });
    expect(await members([{ field: "crm.lifecycleStage", op: "eq", value: "customer" }], "all", rival)).toEqual([
      "dan@d.test",
    ]);
    expect(await members([{ field: "crm.custom.budget", op: "gt", value: 1000 }], "all", rival)).toEqual([
      "dan@d.test",
    ]);
    // Acme's contact Ann is not Rival's: Rival's subscriber ann@a.test has no contact there.
    expect(await members([{ field: "crm.contact", op: "not_exists" }], "all", rival)).toEqual(["ann@a.test"]);
  });

  test("a saved segment narrows a campaign's audience", async () => {
    const seg = await w.t("email_segments_create", {
      name: "Customers",
      rules: { conditions: [{ field: "crm.lifecycleStage", op: "eq", value: "customer" }] },
    });
    const tpl = await w.t("email_templates_create", { name: "Plain", html: "<p>Hi {{ name | there }}</p>" });
    const c = await w.t("email_campaigns_create", {
      name: "For customers",
      subject: "Hello",
      templateId: tpl.id,
      listIds: [listId],
      segmentIds: [seg.id],
    });
    expect(c.audience).toBe(1);
    // Bob becomes a customer: the audience follows the CRM.
    await crm("contacts_update", { id: "bob@b.test", lifecycleStage: "customer" });
    expect((await w.t("email_campaigns_get", { id: c.id })).audience).toBe(2);
    await crm("contacts_update", { id: "bob@b.test", lifecycleStage: "lead" });
  });

  const refused: [unknown, RegExp][] = [
    [{ field: "crm.custom.unknown", op: "eq", value: "x" }, /unknown CRM field/],
    [{ field: "crm.stage", op: "eq", value: "won" }, /unknown CRM field/],
    [{ field: "crm.custom.budget", op: "gt", value: "lots" }, /needs a number/],
    [{ field: "crm.custom.budget", op: "contains", value: "1" }, /takes eq, neq, gt/],
    [{ field: "crm.custom.renewal", op: "before", value: "June" }, /YYYY-MM-DD/],
    [{ field: "crm.custom.newsletter", op: "eq", value: "yes" }, /true or false/],
    [{ field: "crm.lifecycleStage", op: "eq", value: "won" }, /one of subscriber, lead/],
    [{ field: "crm.owner", op: "eq", value: "nobody" }, /user id or email/],
    [{ field: "crm.contact", op: "eq", value: "x" }, /takes exists, not_exists/],
    [{ field: "crm.company.custom.budget", op: "eq", value: 1 }, /unknown CRM field/],
  ];
  for (const [cond, msg] of refused)
    test(`refused: ${JSON.stringify(cond)}`, async () => {
      const e = await errorOf(() => w.t("email_segments_create", { name: "Bad", rules: { conditions: [cond] } }));
      expect(e.code).toBe("validation");
      expect(e.message).toMatch(msg);
    });
});
