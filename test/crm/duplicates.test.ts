/**
 * Fuzzy duplicates on hand-built contacts and companies: each reason on
 * its own (phone digits written two ways, a name with and without accents,
 * a one-letter slip at the same company, the same mailbox name at another
 * domain), what must not pair (different people, another tenant's twin),
 * ranking, the id and minScore filters, and the pair feeding the merge.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { editDistance, companyKey } from "../../src/domains/crm/duplicates";
import { errorOf } from "../store/world";
import { makeCrmWorld, type CWorld } from "./world";

let w: CWorld;
const ids: Record<string, number> = {};
const pairOf = (r: any) =>
  [r.a.id, r.b.id]
    .map((id: number) => Object.keys(ids).find((k) => ids[k] === id))
    .sort()
    .join("+");

beforeAll(async () => {
  w = await makeCrmWorld();
  const acme = await w.call("crm_companies_create", { name: "Acme Works" });
  const other = await w.call("crm_companies_create", { name: "Umbrella" });
  const add = async (key: string, args: Record<string, unknown>, ctx = w.ctx()) =>
    (ids[key] = (await w.call("contacts_create", args, ctx)).id);
  await add("zoe", { firstName: "Zoë", lastName: "Ünal", emails: ["zoe@zoe.example"] });
  await add("zoe2", { firstName: "ZOE", lastName: "unal", emails: ["z.unal@other.example"] });
  await add("tel1", { firstName: "Pat", lastName: "Kim", phones: ["+44 20 7946 0018"] });
  await add("tel2", { firstName: "Patrick", lastName: "Kimball", phones: ["work: 020 7946 0018"] });
  await add("jon", { firstName: "Jon", lastName: "Smith", emails: ["jon@acmeworks.example"], companyId: acme.id });
  await add("john", { firstName: "John", lastName: "Smith", emails: ["john.s@acmeworks.example"], companyId: acme.id });
  await add("mary1", { firstName: "Mary", lastName: "Major", emails: ["mary@acmeworks.example"], companyId: acme.id });
  await add("mary2", { firstName: "Mary", lastName: "Major", emails: ["m.major@mail.example"], companyId: acme.id });
  await add("jane1", { firstName: "Jane", lastName: "Doe", emails: ["jane.doe@gmail.com"] });
  await add("jane2", { emails: ["jane.doe@doe-studio.example"] });
  // Not duplicates: similar names at different companies, the same mailbox name on two different people.
  await add("ann", { firstName: "Ann", lastName: "Berg", emails: ["ann@acmeworks.example"], companyId: acme.id });
  await add("anna", { firstName: "Anna", lastName: "Berg", emails: ["anna@umbrella.example"], companyId: other.id });
  await add("chris1", { firstName: "Chris", lastName: "Lee", emails: ["chris.lee@a.example"] });
  await add("chris2", { firstName: "Christopher", lastName: "Leeds", emails: ["chris.lee@b.example"] });
  // Another tenant's Zoë Ünal never pairs with ours.
  await add("rivalZoe", { firstName: "Zoë", lastName: "Ünal", emails: ["zoe@rival.example"] }, w.ctx("rita"));
  for (const name of [
    "Initech Systems",
    "Initech Sytems",
    "ACME, Inc.",
    "Acme GmbH",
    "Globex",
    "Studio 54 Events",
    "Studio 55 Events",
  ])
    ids[`co:${name}`] = (await w.call("crm_companies_create", { name })).id;
});
afterAll(() => w.close());

describe("helpers", () => {
  test("edit distance, bounded", () => {
    expect(editDistance("jon smith", "john smith")).toBe(1);
    expect(editDistance("kitten", "sitting")).toBe(3);
    expect(editDistance("kitten", "sitting", 3)).toBe(3);
    expect(editDistance("abc", "abcdefgh")).toBe(3); // gave up: more than 2
  });
  test("company names lose case, accents, punctuation and legal suffixes", () => {
    expect(companyKey("ACME, Inc.")).toBe("acme");
    expect(companyKey("Acme GmbH")).toBe("acme");
    expect(companyKey("Société Générale S.A.")).toBe("societe generale s a");
  });
});

describe("crm_duplicates_find", () => {
  test("contacts: every reason, ranked, with nothing else", async () => {
    const r = await w.call("crm_duplicates_find", { limit: 50 });
    expect(r.items.map((p: any) => [pairOf(p), p.score, p.reasons])).toEqual([
      ["tel1+tel2", 0.9, ["same_phone"]],
      ["mary1+mary2", 0.9, ["same_name"]],
      ["zoe+zoe2", 0.75, ["same_name"]],
      ["john+jon", 0.6, ["similar_name"]],
      ["jane1+jane2", 0.5, ["same_email_user"]],
    ]);
    expect(r.items[1].a).toMatchObject({ name: "Mary Major", company: "Acme Works" });
    expect(r.merge).toContain("contacts_merge");
  });

  test("id narrows to one record's pairs; minScore drops weak ones", async () => {
    expect((await w.call("crm_duplicates_find", { id: ids.zoe, limit: 50 })).items.map(pairOf)).toEqual(["zoe+zoe2"]);
    expect((await w.call("crm_duplicates_find", { minScore: 0.8, limit: 50 })).items.map(pairOf)).toEqual([
      "tel1+tel2",
      "mary1+mary2",
    ]);
    expect((await errorOf(() => w.call("crm_duplicates_find", { id: ids.rivalZoe! }))).message).toContain("not found");
    expect((await errorOf(() => w.call("crm_duplicates_find", { minScore: 2 }))).code).toBe("validation");
  });

  test("the other tenant sees its own records only", async () => {
    expect((await w.call("crm_duplicates_find", { limit: 50 }, w.ctx("rita"))).items).toEqual([]);
  });

  test("companies: same name under suffixes and punctuation, and a typo", async () => {
    const r = await w.call("crm_duplicates_find", { object: "company", limit: 50 });
    const names = (p: any) => [p.a.name, p.b.name].sort().join(" + ");
    expect(r.items.map((p: any) => [names(p), p.reasons])).toEqual([
      ["ACME, Inc. + Acme GmbH", ["same_name"]],
      ["Initech Systems + Initech Sytems", ["similar_name"]],
    ]);
  });

  test("a pair merged is no longer listed", async () => {
    await w.call("contacts_merge", { id: ids.mary1, mergeId: ids.mary2 });
    expect((await w.call("crm_duplicates_find", { limit: 50 })).items.map(pairOf)).not.toContain("mary1+mary2");
  });
});
