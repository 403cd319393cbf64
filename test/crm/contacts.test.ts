/**
 * Contacts and CRM companies: create with duplicate detection, update,
 * search (case, accents, phone), custom fields with validation, saved
 * views, tenancy and roles.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { errorOf, makeCrmWorld, type CWorld } from "./world";

let w: CWorld;
beforeAll(async () => {
  w = await makeCrmWorld();
});
afterAll(async () => await w.close());

describe("contacts", () => {
  test("create echoes a compact result, emits contact.created, links the company by email domain", async () => {
    const co = await w.call("crm_companies_create", {
      name: "Zoë's Bäckerei",
      domain: "https://www.Baeckerei.example/about",
    });
    expect(co).toMatchObject({ created: true, domain: "baeckerei.example" });
    const c = await w.call("contacts_create", {
      firstName: "Zoë",
      lastName: "Ärnström",
      emails: ["Zoe@Baeckerei.example", "zoe.private@gmail.com"],
      phones: ["+44 20 7946 0018", "office: (030) 1234-5678"],
      tags: ["VIP", "bakery"],
    });
    expect(c).toMatchObject({
      created: true,
      name: "Zoë Ärnström",
      email: "zoe@baeckerei.example",
      companyId: co.id,
      score: 0,
    });
    const got = await w.call("contacts_get", { id: "zoe.private@gmail.com" });
    expect(got.id).toBe(c.id);
    expect(got.emails).toEqual(["zoe@baeckerei.example", "zoe.private@gmail.com"]);
    expect(got.phones).toEqual([
      { number: "+44 20 7946 0018", label: null },
      { number: "(030) 1234-5678", label: "office" },
    ]);
    expect(got.tags).toEqual(["bakery", "vip"]);
    expect(got.lifecycleStage).toBe("lead");
    expect(got.company).toEqual({ id: co.id, name: "Zoë's Bäckerei" });
    const ev = (await w.events("contact.created")).at(-1)!;
    expect(ev.entityId).toBe(c.id);
    expect(ev.data).toMatchObject({
      name: "Zoë Ärnström",
      emails: ["zoe@baeckerei.example", "zoe.private@gmail.com"],
      companyId: co.id,
      source: "tool",
    });
  });

  test("a known email creates nothing and answers with the existing contact", async () => {
    const before = (await w.call("contacts_list", {})).total;
    const dup = await w.call("contacts_create", { firstName: "Zoe", emails: ["ZOE.PRIVATE@gmail.com"] });
    expect(dup.created).toBe(false);
    expect(dup.duplicate).toEqual({ matchedOn: "email", value: "zoe.private@gmail.com" });
    expect(dup.contact.lastName).toBe("Ärnström");
    expect((await w.call("contacts_list", {})).total).toBe(before);
  });

  test("a known domain creates no second company", async () => {
    const dup = await w.call("crm_companies_create", { name: "Other name", domain: "baeckerei.example" });
    expect(dup.created).toBe(false);
    expect(dup.duplicate.matchedOn).toBe("domain");
    expect(dup.company.name).toBe("Zoë's Bäckerei");
  });

  test("search ignores case and accents, finds by email, domain and phone fragments", async () => {
    await w.call("contacts_create", {
      firstName: "José",
      lastName: "Muñoz",
      emails: ["jose@muñoz.example".replace("ñ", "n")],
      phones: ["+34 91 555 0199"],
    });
    const names = async (q: string) => (await w.call("crm_search", { q })).items.map((i: any) => `${i.type}:${i.name}`);
    expect(await names("zoe arnstrom")).toEqual(["contact:Zoë Ärnström"]);
    expect(await names("ARNSTRÖM")).toEqual(["contact:Zoë Ärnström"]);
    expect(await names("jose munoz")).toEqual(["contact:José Muñoz"]);
    expect(await names("MUÑOZ")).toEqual(["contact:José Muñoz"]);
    expect(await names("baeckerei")).toEqual(["contact:Zoë Ärnström", "company:Zoë's Bäckerei"]);
    expect(await names("bäckerei")).toEqual(["company:Zoë's Bäckerei"]);
    // Phones by digits: international or national, with any punctuation.
    expect(await names("020 7946 0018")).toEqual(["contact:Zoë Ärnström"]);
    expect(await names("915550199")).toEqual(["contact:José Muñoz"]);
    expect(await names("no such person")).toEqual([]);
    // Hostile text is only text.
    expect(await names("%' OR 1=1 --")).toEqual([]);
    expect(await names("_")).toEqual([]);
  });

  test("update: emails added, conflicting email refused naming its holder, tags edited, event says what changed", async () => {
    const jose = (await w.call("crm_search", { q: "munoz", types: ["contact"] })).items[0];
    const zoe = await w.call("contacts_get", { id: "zoe@baeckerei.example" });
    const e = await errorOf(() => w.call("contacts_update", { id: jose.id, addEmails: ["zoe@baeckerei.example"] }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(`contact ${zoe.id}`);
    const r = await w.call("contacts_update", {
      id: jose.id,
      addEmails: ["j.munoz@work.example"],
      primaryEmail: "j.munoz@work.example",
      addTags: ["spain"],
      lifecycleStage: "customer",
      jobTitle: "CTO",
    });
    expect(r.changed.sort()).toEqual(["emails", "jobTitle", "lifecycleStage", "tags"]);
    const got = await w.call("contacts_get", { id: "j.munoz@work.example" });
    expect(got.email).toBe("j.munoz@work.example");
    expect(got.emails).toEqual(["j.munoz@work.example", "jose@munoz.example"]);
    const ev = (await w.events("contact.updated")).at(-1)!;
    expect(ev.data.previousLifecycleStage).toBe("lead");
    expect(ev.data.lifecycleStage).toBe("customer");
    // A removed address frees it for someone else.
    await w.call("contacts_update", { id: jose.id, removeEmails: ["jose@munoz.example"] });
    const other = await w.call("contacts_create", { firstName: "Other", emails: ["jose@munoz.example"] });
    expect(other.created).toBe(true);
    expect((await w.call("contacts_update", { id: jose.id, lifecycleStage: "customer" })).changed).toEqual([]);
  });

  test("a contact needs a name or email; hostile and malformed input is refused cleanly", async () => {
    expect((await errorOf(() => w.call("contacts_create", { tags: ["x"] }))).message).toContain("name or an email");
    expect((await errorOf(() => w.call("contacts_create", { emails: ["not-an-email"] }))).code).toBe("validation");
    expect((await errorOf(() => w.call("contacts_create", { firstName: "x".repeat(101) }))).code).toBe("validation");
    expect(
      (await errorOf(() => w.call("contacts_create", { firstName: "A", phones: ["=cmd|' /C calc'!A0"] }))).code,
    ).toBe("validation");
    expect(
      (await errorOf(() => w.call("contacts_create", { firstName: "A", ownerId: "nobody@nowhere.test" }))).message,
    ).toContain("not a member");
    const xss = await w.call("contacts_create", { firstName: "<script>alert(1)</script>", emails: ["x@y.example"] });
    expect((await w.call("contacts_get", { id: xss.id })).firstName).toBe("<script>alert(1)</script>");
  });

  test("another tenant's records are not found, and cannot be linked", async () => {
    const theirs = await w.call(
      "contacts_create",
      { firstName: "Rival", emails: ["zoe@baeckerei.example"] },
      w.ctx("rita"),
    );
    // Same address in another tenant is no duplicate.
    expect(theirs.created).toBe(true);
    expect((await errorOf(() => w.call("contacts_get", { id: theirs.id }))).code).toBe("not_found");
    expect((await errorOf(() => w.call("contacts_update", { id: theirs.id, firstName: "Mine" }))).code).toBe(
      "not_found",
    );
    const theirCo = await w.call("crm_companies_create", { name: "Rival Co", domain: "rival.example" }, w.ctx("rita"));
    expect((await errorOf(() => w.call("contacts_create", { firstName: "A", companyId: theirCo.id }))).code).toBe(
      "not_found",
    );
    expect((await w.call("crm_search", { q: "rival" })).items).toEqual([]);
  });

  test("a viewer reads but cannot write; a read-only credential cannot write", async () => {
    expect((await w.call("contacts_list", {}, w.ctx("vic"))).total).toBeGreaterThan(0);
    expect((await errorOf(() => w.call("contacts_create", { firstName: "V" }, w.ctx("vic")))).code).toBe("forbidden");
    expect(
      (await errorOf(() => w.call("contacts_create", { firstName: "R" }, w.ctx("olga", { scopes: ["crm:read"] }))))
        .code,
    ).toBe("forbidden");
    expect((await errorOf(() => w.call("contacts_list", {}, w.ctx("olga", { scopes: ["tickets:read"] })))).code).toBe(
      "forbidden",
    );
  });

  test("delete: contact gone, its addresses free, activities on it alone removed, shared ones kept", async () => {
    const c = await w.call("contacts_create", { firstName: "Temp", emails: ["temp@t.example"] });
    const co = await w.call("crm_companies_create", { name: "Temp Co" });
    const alone = await w.call("crm_activities_create", { kind: "note", body: "only on the contact", contactId: c.id });
    const shared = await w.call("crm_activities_create", { kind: "call", contactId: c.id, companyId: co.id });
    expect(await w.call("contacts_delete", { id: "temp@t.example" })).toEqual({
      id: c.id,
      status: "deleted",
      name: "Temp",
    });
    expect((await errorOf(() => w.call("crm_activities_update", { id: alone.id, body: "x" }))).code).toBe("not_found");
    const left = (await w.call("crm_activities_list", { companyId: co.id })).items;
    expect(left.map((a: any) => [a.id, a.contactId])).toEqual([[shared.id, null]]);
    expect((await w.call("contacts_create", { firstName: "New", emails: ["temp@t.example"] })).created).toBe(true);
    expect((await w.events("contact.deleted")).at(-1)!.data).toEqual({ name: "Temp", emails: ["temp@t.example"] });
  });
});

test("tag filters take the tag literally (no LIKE wildcards) and match whole tags", async () => {
  const x = await w.call("contacts_create", { firstName: "Tag", lastName: "Under", tags: ["a_b"] });
  await w.call("contacts_create", { firstName: "Tag", lastName: "Other", tags: ["axb", "a_bc"] });
  expect((await w.call("contacts_list", { tag: "a_b" })).items.map((c: any) => c.id)).toEqual([x.id]);
  expect((await errorOf(() => w.call("contacts_list", { tag: "a%" }))).code).toBe("validation");
});

describe("custom fields and saved views", () => {
  test("values are checked against their definitions on every write", async () => {
    await w.call("crm_fields_create", { object: "contact", key: "budget", label: "Budget", type: "number" });
    await w.call("crm_fields_create", {
      object: "contact",
      key: "tier",
      label: "Tier",
      type: "select",
      options: ["gold", "silver"],
    });
    await w.call("crm_fields_create", {
      object: "contact",
      key: "channels",
      label: "Channels",
      type: "multi_select",
      options: ["email", "phone", "sms"],
    });
    await w.call("crm_fields_create", { object: "contact", key: "renewal", label: "Renewal", type: "date" });
    await w.call("crm_fields_create", { object: "contact", key: "newsletter", label: "Newsletter", type: "boolean" });
    await w.call("crm_fields_create", { object: "contact", key: "linkedin", label: "LinkedIn", type: "url" });
    const bad: [Record<string, unknown>, string][] = [
      [{ budget: "lots" }, "custom.budget must be a number"],
      [{ tier: "bronze" }, "one of gold, silver"],
      [{ channels: ["email", "fax"] }, "a list of email, phone, sms"],
      [{ renewal: "2025-02-30" }, "a real date"],
      [{ renewal: "tomorrow" }, "YYYY-MM-DD"],
      [{ newsletter: "yes" }, "true or false"],
      [{ linkedin: "javascript:alert(1)" }, "http(s) URL"],
      [{ colour: "red" }, "custom.colour is not a contact field"],
    ];
    for (const [custom, msg] of bad) {
      const e = await errorOf(() => w.call("contacts_create", { firstName: "Field", custom }));
      expect(e.code).toBe("validation");
      expect(e.message).toContain(msg);
    }
    const ok = await w.call("contacts_create", {
      firstName: "Field",
      emails: ["field@f.example"],
      custom: {
        budget: 1200.5,
        tier: "gold",
        channels: ["sms", "email", "sms"],
        renewal: "2024-02-29",
        newsletter: true,
        linkedin: "https://linkedin.com/in/x",
      },
    });
    const got = await w.call("contacts_get", { id: ok.id });
    expect(got.custom).toEqual({
      budget: 1200.5,
      tier: "gold",
      channels: ["sms", "email"],
      renewal: "2024-02-29",
      newsletter: true,
      linkedin: "https://linkedin.com/in/x",
    });
    // null removes a value; updates are validated too.
    await w.call("contacts_update", { id: ok.id, custom: { budget: null } });
    expect((await w.call("contacts_get", { id: ok.id })).custom.budget).toBeUndefined();
    expect((await errorOf(() => w.call("contacts_update", { id: ok.id, custom: { tier: "platinum" } }))).code).toBe(
      "validation",
    );
  });

  test("an option in use cannot be removed; a required field cannot be added over empty records; delete clears values", async () => {
    const fields = (await w.call("crm_fields_list", { object: "contact" })).items;
    const tier = fields.find((f: any) => f.key === "tier");
    expect((await errorOf(() => w.call("crm_fields_update", { id: tier.id, options: ["silver"] }))).code).toBe(
      "conflict",
    );
    expect(
      (
        await errorOf(() =>
          w.call("crm_fields_create", { object: "contact", key: "vat", label: "VAT", type: "text", required: true }),
        )
      ).code,
    ).toBe("conflict");
    await w.call("crm_fields_update", { id: tier.id, options: ["gold", "silver", "bronze"], label: "Tier level" });
    const budget = fields.find((f: any) => f.key === "budget");
    const del = await w.call("crm_fields_delete", { id: budget.id });
    expect(del).toMatchObject({ status: "deleted", key: "budget" });
  });

  test("custom filters and saved views apply to list tools; explicit arguments override the view", async () => {
    const a = await w.call("contacts_create", {
      firstName: "Gold",
      lastName: "One",
      custom: { tier: "gold", newsletter: true, channels: ["phone"] },
      lifecycleStage: "customer",
    });
    await w.call("contacts_create", {
      firstName: "Silver",
      lastName: "Two",
      custom: { tier: "silver", newsletter: false },
      lifecycleStage: "customer",
    });
    const ids = async (args: Record<string, unknown>) =>
      (await w.call("contacts_list", { ...args, limit: 100 })).items.map((c: any) => c.firstName).sort();
    expect(await ids({ custom: { tier: "gold" } })).toEqual(["Field", "Gold"]);
    expect(await ids({ custom: { newsletter: true } })).toEqual(["Field", "Gold"]);
    expect(await ids({ custom: { newsletter: false } })).toEqual(["Silver"]);
    expect(await ids({ custom: { channels: ["phone"] } })).toEqual(["Gold"]);
    const view = await w.call("crm_views_create", {
      object: "contact",
      name: "Gold customers",
      filters: { custom: { tier: "gold" }, lifecycleStage: "customer", sort: "name" },
      columns: ["name", "email", "score"],
    });
    expect((await w.call("contacts_list", { viewId: view.id })).items.map((c: any) => c.id)).toEqual([a.id]);
    expect(await ids({ viewId: view.id, lifecycleStage: "lead" })).toEqual(["Field"]);
    expect(
      (await errorOf(() => w.call("crm_views_create", { object: "contact", name: "Bad", filters: { stage: "won" } })))
        .message,
    ).toContain("filters");
    expect((await errorOf(() => w.call("deals_list", { viewId: view.id }))).message).toContain("lists contacts");
    expect((await errorOf(() => w.call("contacts_list", { viewId: 999999 }))).code).toBe("not_found");
    const theirs = await w.call("crm_views_create", { object: "contact", name: "Theirs" }, w.ctx("rita"));
    expect((await errorOf(() => w.call("contacts_list", { viewId: theirs.id }))).code).toBe("not_found");
    expect((await w.call("crm_views_list", {})).items.map((v: any) => v.name)).toEqual(["Gold customers"]);
  });
});
