/**
 * The brain reads CRM contacts and deals and project cards live through
 * their own domains' verbs: marked with their source, never copied, each
 * domain's scope (crm:read, projects:read) required besides brain:read, its
 * tenancy kept. People link to CRM contacts (stored link or shared email).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { brainRecords } from "../../src/domains/brain/tables";
import { eq } from "drizzle-orm";
import { makeWorld, type World } from "./world";

let w: World;
let ines: { id: number };
let deal: { id: number };
let rivalContact: { id: number };
const brainOnly = () => w.ctx({ scopes: ["brain:read", "brain:write"] });
const crmOnly = () => w.ctx({ scopes: ["crm:read"] });
const both = () => w.ctx({ scopes: ["brain:read", "crm:read"] });

beforeAll(async () => {
  w = await makeWorld();
  ines = await w.call("contacts_create", {
    firstName: "Ines",
    lastName: "Costa",
    emails: ["ines@harbor.example"],
    jobTitle: "Marketing lead",
  });
  await w.call("contacts_create", { firstName: "Tom", lastName: "Weber", emails: ["tom@harbor.example"] });
  await w.call("pipelines_create", { name: "Agency sales" });
  deal = await w.call("deals_create", {
    name: "Harbor website rebuild",
    amountCents: 1_250_000,
    currency: "EUR",
    contactIds: ["ines@harbor.example"],
  });
  await w.call("deals_create", { name: "Other retainer", amountCents: 50_000 });
  rivalContact = await w.call(
    "contacts_create",
    { firstName: "Rita", lastName: "Rival", emails: ["rita@rival.example"] },
    w.ctx({ company: "other" }),
  );
  await w.call("brain_people_create", { title: "Ines Costa", email: "ines@harbor.example" });
});
afterAll(() => w.close());

describe("CRM contacts and deals through brain:read", () => {
  test("contacts come from the CRM with their source and the linked brain person", async () => {
    const r = await w.call("brain_contacts_list", { search: "harbor" }, both());
    expect(r.source).toBe("crm");
    expect(r.total).toBe(2);
    const byName = Object.fromEntries(r.items.map((c: any) => [c.name, c]));
    expect(byName["Ines Costa"].email).toBe("ines@harbor.example");
    expect(byName["Ines Costa"].brainPerson.title).toBe("Ines Costa");
    expect(byName["Tom Weber"].brainPerson).toBeNull();
  });

  test("deals come from the CRM, filtered by contact email", async () => {
    const r = await w.call("brain_deals_list", { contact: "ines@harbor.example" }, both());
    expect(r.source).toBe("crm");
    expect(r.items.map((d: any) => [d.name, d.amountCents, d.currency])).toEqual([
      ["Harbor website rebuild", 1_250_000, "EUR"],
    ]);
    expect((await w.call("brain_deals_list", { status: "open" }, both())).total).toBe(2);
  });

  test("brain:read alone does not open the CRM; crm:read alone does not open the brain", async () => {
    for (const name of ["brain_contacts_list", "brain_deals_list"]) {
      const e = await w.err(name, {}, brainOnly());
      expect(e.code).toBe("forbidden");
      expect(e.message).toContain("crm:read");
      const e2 = await w.err(name, {}, crmOnly());
      expect(e2.code).toBe("forbidden");
      expect(e2.message).toContain("brain:read");
    }
    // crm:write implies crm:read (the CRM's own rule), and a viewer may read.
    expect(
      (
        await w.call(
          "brain_contacts_list",
          {},
          w.ctx({ scopes: ["brain:read", "crm:write"], role: "viewer", as: w.users.leo }),
        )
      ).total,
    ).toBe(2);
  });

  test("the CRM's tenancy holds: another company's contacts never appear, its ids are not found", async () => {
    const mine = await w.call("brain_contacts_list", { search: "rival" }, both());
    expect(mine.total).toBe(0);
    const theirs = await w.call("brain_contacts_list", {}, w.ctx({ company: "other" }));
    expect(theirs.items.map((c: any) => c.id)).toEqual([rivalContact.id]);
    const e = await w.err("brain_deals_list", { contact: rivalContact.id }, both());
    expect(e.code).toBe("not_found");
  });

  test("nothing is copied: a CRM change shows on the next read", async () => {
    await w.call("contacts_update", { id: ines.id, jobTitle: "Head of marketing" });
    const r = await w.call("brain_contacts_list", { search: "ines" }, both());
    expect(r.items[0].jobTitle).toBe("Head of marketing");
    const rows = await w.deps.db.select().from(brainRecords).where(eq(brainRecords.companyId, w.companyId));
    expect(rows.some((x) => JSON.stringify(x).includes("Head of marketing"))).toBe(false);
  });
});

describe("people linked to CRM contacts", () => {
  test("a person with the contact's email shows the contact live; with crm:read only", async () => {
    const p = await w.call("brain_records_get", { id: "Ines Costa" }, both());
    expect(p.crmContact).toMatchObject({ source: "crm", linkedBy: "email", id: ines.id, name: "Ines Costa" });
    expect(p.crmContact.deals.map((d: any) => d.name)).toEqual(["Harbor website rebuild"]);
    const hidden = await w.call("brain_records_get", { id: "Ines Costa" }, brainOnly());
    // Linked by email only: nothing about the CRM without crm:read.
    expect(hidden.crmContact).toBeNull();
  });

  test("an explicit link by id or email; needs crm:read; null clears; other companies' contacts not found", async () => {
    const tom = await w.call("brain_people_create", { title: "Tom (Harbor)", crmContact: "TOM@harbor.example" });
    const got = await w.call("brain_records_get", { id: tom.id }, both());
    expect(got.crmContactId).toBeGreaterThan(0);
    expect(got.crmContact).toMatchObject({ source: "crm", linkedBy: "link", name: "Tom Weber" });
    const hidden = await w.call("brain_records_get", { id: tom.id }, brainOnly());
    expect(hidden.crmContact).toEqual({
      source: "crm",
      id: got.crmContactId,
      note: "Linked to a CRM contact; reading it needs crm:read.",
    });
    expect((await w.err("brain_people_update", { id: tom.id, crmContact: ines.id }, brainOnly())).message).toContain(
      "crm:read",
    );
    expect((await w.err("brain_people_update", { id: tom.id, crmContact: rivalContact.id })).code).toBe("not_found");
    expect((await w.err("brain_people_update", { id: tom.id, crmContact: "nobody@nowhere.example" })).code).toBe(
      "not_found",
    );
    const cleared = await w.call("brain_people_update", { id: tom.id, crmContact: null });
    expect(cleared.changed).toEqual(["crmContactId"]);
    expect((await w.call("brain_records_get", { id: tom.id }, both())).crmContact).toBeNull();
  });

  test("a deleted contact leaves a marked dangling link, not an error", async () => {
    const c = await w.call("contacts_create", { firstName: "Gone", emails: ["gone@harbor.example"] });
    const p = await w.call("brain_people_create", { title: "Gone Person", crmContact: c.id });
    await w.call("contacts_delete", { id: c.id });
    expect((await w.call("brain_records_get", { id: p.id })).crmContact).toMatchObject({
      source: "crm",
      id: c.id,
      missing: true,
    });
  });
});

describe("search and context show other domains' matches, marked", () => {
  test("brain_search: others on the first page when the credential may read them", async () => {
    await w.call("brain_notes_create", { title: "Harbor brief", body: "Harbor wants a faster website." });
    const r = await w.call("brain_search", { query: "harbor website" });
    expect(r.items.map((i: any) => i.title)).toEqual(["Harbor brief"]);
    expect(r.others).toEqual([
      {
        source: "crm",
        type: "deal",
        id: deal.id,
        title: "Harbor website rebuild",
        detail: "open · Lead · 12500.00 EUR",
      },
    ]);
    const ro = await w.call("brain_search", { query: "harbor website" }, brainOnly());
    expect(ro.others).toBeUndefined();
    expect(ro.othersSkipped).toEqual(["crm (needs crm:read)", "projects (needs projects:read)"]);
    expect((await w.call("brain_search", { query: "harbor website", others: false })).others).toBeUndefined();
    expect((await w.call("brain_search", { query: "harbor website", offset: 1 })).others).toBeUndefined();
  });

  test("project cards too, through the projects domain", async () => {
    await w.call("projects_create", { name: "Harbor relaunch", key: "HR" });
    await w.call("cards_create", { projectId: "HR", title: "Harbor website wireframes" });
    const r = await w.call("brain_search", { query: "harbor website" });
    expect(r.others.map((o: any) => [o.source, o.type, o.title])).toEqual([
      ["crm", "deal", "Harbor website rebuild"],
      ["projects", "card", "HR-1 Harbor website wireframes"],
    ]);
  });

  test("brain_context: a question's words find the contact and deal by name", async () => {
    const r = await w.call("brain_context", { question: "What does Ines want from the website?" });
    expect(r.others.map((o: any) => [o.type, o.title])).toEqual(
      expect.arrayContaining([
        ["contact", "Ines Costa"],
        ["deal", "Harbor website rebuild"],
      ]),
    );
    const ro = await w.call(
      "brain_context",
      { question: "What does Ines want from the website?" },
      w.ctx({ scopes: ["brain:read"] }),
    );
    expect(ro.others).toBeUndefined();
  });
});
