/**
 * CSV import: the dry run reports exactly what the real run then does,
 * line by line; hostile rows (formulas, huge cells, bad encodings,
 * duplicates inside the file) are refused or neutralised per line; a
 * media item works like inline text.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sites } from "../../src/domains/sites/tables";
import { errorOf, makeCrmWorld, type CWorld } from "./world";

let w: CWorld;
beforeAll(async () => {
  w = await makeCrmWorld();
  await w.call("crm_fields_create", {
    object: "contact",
    key: "tier",
    label: "Tier",
    type: "select",
    options: ["gold", "silver"],
  });
  await w.call("contacts_create", { firstName: "Eve", emails: ["known@x.example"] });
});
afterAll(async () => await w.close());

const huge = "h".repeat(2001);
const CSV = [
  "First Name,Last Name,Email,Phone,Company,Tags,Tier,Notes",
  "Ada,Lovelace,ada@engine.example,+44 20 7946 0001,Engine Ltd,vip;math,gold,first",
  '"=HYPERLINK(""http://evil.example"",""x"")",Hacker,evil@x.example,,@SUM(1+1),,,',
  "Bob,,not-an-email,,,,,",
  '"Multi\nline",Name,multi@x.example,,,,,',
  "Zed,Dup,ADA@engine.example,,,,,",
  "Eve,Existing,known@x.example,+1 555 0123,,newtag,,",
  `Huge,${huge},huge@x.example,,,,,`,
  "Bad,Enc\uFFFD,bad@x.example,,,,,",
  "Phone,Formula,pf@x.example,=1+2,,,,",
  "Tier,Wrong,tw@x.example,,,,platinum,",
  "Grace,Hopper,grace@navy.example,,Engine Ltd,,silver,",
].join("\r\n");

describe("CSV import", () => {
  let dry: any;
  test("dry run: a line-by-line report, nothing written", async () => {
    const contactsBefore = (await w.call("contacts_list", {})).total;
    const eventsBefore = (await w.events()).length;
    dry = await w.call("contacts_import", { csv: CSV });
    expect(dry).toMatchObject({
      dryRun: true,
      lines: 11,
      created: 4,
      updated: 1,
      skipped: 0,
      refused: 6,
      companiesCreated: 2,
      ignoredColumns: ["Notes"],
    });
    expect(dry.columns).toEqual({
      "First Name": "firstName",
      "Last Name": "lastName",
      Email: "emails",
      Phone: "phones",
      Company: "company",
      Tags: "tags",
      Tier: "custom.tier",
      Notes: "ignore",
    });
    const by = Object.fromEntries(dry.report.map((l: any) => [l.line, l]));
    expect(by[2].action).toBe("create");
    // Nothing was written: created lines carry no id (an update names the contact that exists).
    expect(dry.report.filter((l: any) => l.action === "create" && "id" in l)).toEqual([]);
    expect(by[3].action).toBe("create");
    expect(by[3].warnings.length).toBe(2);
    expect(by[3].warnings[0]).toContain("formula");
    expect(by[4]).toMatchObject({ action: "refuse" });
    expect(by[4].reason).toContain("email");
    expect(by[5].action).toBe("create");
    expect(by[6]).toMatchObject({ action: "refuse", reason: "ada@engine.example is also on line 2 of this file." });
    expect(by[7]).toMatchObject({ action: "update", email: "known@x.example" });
    expect(by[7].id).toBeNumber();
    expect(by[8].reason).toContain("2001 characters");
    expect(by[9].reason).toContain("bad encoding");
    expect(by[10].reason).toContain("phone");
    expect(by[11].reason).toContain("one of gold, silver");
    expect(by[12].action).toBe("create");
    expect(dry.next).toContain("dryRun: false");
    expect((await w.call("contacts_list", {})).total).toBe(contactsBefore);
    expect((await w.events()).length).toBe(eventsBefore);
    expect((await w.call("crm_companies_list", {})).total).toBe(0);
  });

  test("the real run does what the dry run said; formula-looking text is stored as written", async () => {
    const real = await w.call("contacts_import", { csv: CSV, dryRun: false });
    const strip = (r: any) => ({
      ...r,
      dryRun: undefined,
      next: undefined,
      report: r.report.map((l: any) => ({ ...l, id: undefined })),
    });
    expect(strip(real)).toEqual(strip(dry));
    const ada = await w.call("contacts_get", { id: "ada@engine.example" });
    expect(ada).toMatchObject({
      firstName: "Ada",
      lastName: "Lovelace",
      tags: ["math", "vip"],
      custom: { tier: "gold" },
    });
    expect(ada.phones).toEqual([{ number: "+44 20 7946 0001", label: null }]);
    expect(ada.company.name).toBe("Engine Ltd");
    // One company for both lines naming it.
    expect((await w.call("contacts_get", { id: "grace@navy.example" })).company.id).toBe(ada.company.id);
    const evil = await w.call("contacts_get", { id: "evil@x.example" });
    expect(evil.firstName).toBe(`=HYPERLINK("http://evil.example","x")`);
    expect(evil.company.name).toBe("@SUM(1+1)");
    expect((await w.call("contacts_get", { id: "multi@x.example" })).firstName).toBe("Multi\nline");
    const eve = await w.call("contacts_get", { id: "known@x.example" });
    expect(eve).toMatchObject({ firstName: "Eve", lastName: "Existing", tags: ["newtag"] });
    expect(eve.phones).toEqual([{ number: "+1 555 0123", label: null }]);
    const created = (await w.events("contact.created")).filter((e) => e.data.source === "import");
    expect(created.length).toBe(4);
    // Again: everyone exists now; skip leaves them be.
    const again = await w.call("contacts_import", { csv: CSV, dryRun: false, onDuplicate: "skip" });
    expect(again).toMatchObject({ created: 0, skipped: 5, refused: 6 });
  });

  test("a full-name cell is split at its last space, unless it starts like a formula: then it is kept whole, as written", async () => {
    const r = await w.call("contacts_import", {
      csv: 'Name,Email\n"=HYPERLINK(""http://e.example"", ""Click me"")",whole@x.example\nAda King Lovelace,split@x.example',
      dryRun: false,
    });
    expect(r).toMatchObject({ created: 2, refused: 0 });
    expect(r.report[0].warnings).toEqual([
      "Name: starts like a spreadsheet formula; stored as written, neutralised in CSV exports.",
    ]);
    const whole = await w.call("contacts_get", { id: "whole@x.example" });
    expect([whole.firstName, whole.lastName]).toEqual(['=HYPERLINK("http://e.example", "Click me")', null]);
    const split = await w.call("contacts_get", { id: "split@x.example" });
    expect([split.firstName, split.lastName]).toEqual(["Ada King", "Lovelace"]);
  });

  test("mapping overrides headers; unknown targets and files without a name or email column are refused", async () => {
    const r = await w.call("contacts_import", {
      csv: "Wer,E-Post\nJürgen,juergen@x.example",
      mapping: { Wer: "name", "E-Post": "emails" },
      dryRun: false,
    });
    expect(r.created).toBe(1);
    expect((await w.call("contacts_get", { id: "juergen@x.example" })).firstName).toBe("Jürgen");
    expect((await errorOf(() => w.call("contacts_import", { csv: "a,b\n1,2" }))).message).toContain("mapping");
    expect(
      (await errorOf(() => w.call("contacts_import", { csv: "x\n1", mapping: { x: "shoeSize" } }))).message,
    ).toContain("not a contact field");
    expect((await errorOf(() => w.call("contacts_import", {}))).message).toContain("csv");
    expect((await errorOf(() => w.call("contacts_import", { csv: "" }))).message).toContain("empty");
  });

  test("from a media item of the company's sites; another tenant's media is not found", async () => {
    const [site] = await w.deps.db.insert(sites).values({ name: "Acme site", companyId: w.acme }).returning();
    const [theirs] = await w.deps.db.insert(sites).values({ name: "Rival site", companyId: w.rival }).returning();
    const file = "email,first name\r\nmedia@x.example,Medi\r\n";
    const up = await w.call("media_upload", {
      siteId: site!.id,
      filename: "people.csv",
      mimeType: "text/csv",
      dataBase64: Buffer.from(file).toString("base64"),
    });
    const r = await w.call("contacts_import", { mediaId: up.id, dryRun: false });
    expect(r).toMatchObject({ created: 1, refused: 0 });
    expect((await w.call("contacts_get", { id: "media@x.example" })).firstName).toBe("Medi");
    const up2 = await w.call(
      "media_upload",
      {
        siteId: theirs!.id,
        filename: "theirs.csv",
        mimeType: "text/csv",
        dataBase64: Buffer.from(file).toString("base64"),
      },
      w.ctx("rita"),
    );
    expect((await errorOf(() => w.call("contacts_import", { mediaId: up2.id }))).code).toBe("not_found");
  });

  test("a viewer cannot import", async () => {
    expect((await errorOf(() => w.call("contacts_import", { csv: CSV }, w.ctx("vic")))).code).toBe("forbidden");
  });
});
