/**
 * AI credits in the portal (/ai/credits): owners and admins grant credits
 * and set or remove the monthly budget through the operator verbs (audited
 * as their session, events emitted); everyone reads balance, budget and the
 * paginated ledger with balanceAfter; bad amounts are shown on the form and
 * write nothing; viewers are refused; cross-site posts are refused; another
 * company's ledger is never shown. One pass in headless Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromium } from "playwright-core";
import type { ActorContext } from "../../src/core/context";
import { debitCredits, grantCredits, grantCreditsAs, setBudgetAs } from "../../src/domains/ai/credits";
import { addMember, createCompany, createUser } from "../fixtures/accounts";
import { commits, jsonValue, row, rows, startTestServer, type TestServer } from "../harness";
import { Browser, pageText, readForms } from "../oauth/helpers";

const PASSWORD = "a long passphrase for tests";
let s: TestServer;
let acme = 0;
let rival = 0;
const ids: Record<string, number> = {};
const b: Record<string, Browser> = {};

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  for (const [who, name] of [
    ["olga", "Olga Owner"],
    ["ada", "Ada Admin"],
    ["vic", "Vic Viewer"],
    ["rita", "Rita Rival"],
  ])
    ids[who] = (await createUser(s.deps, { email: `${who}@test.example`, name, password: PASSWORD })).id;
  acme = (await createCompany(s.deps, { name: "Acme", ownerUserId: ids.olga })).id;
  rival = (await createCompany(s.deps, { name: "Rival", ownerUserId: ids.rita })).id;
  await addMember(s.deps, acme, ids.ada!, "admin");
  await addMember(s.deps, acme, ids.vic!, "viewer");
  await grantCredits(s.deps, { companyId: rival, amount: 777, note: "RIVAL-ONLY" });
  for (const who of ["olga", "ada", "vic", "rita"]) {
    b[who] = new Browser(s.config.publicUrl);
    expect((await b[who]!.signIn(`${who}@test.example`, PASSWORD)).status).toBe(303);
  }
}, 30_000);
afterAll(() => s.stop());

const page = async (who: string, path = "/ai/credits") => {
  const res = await b[who]!.get(path);
  const html = await res.text();
  return { status: res.status, html, text: await pageText(html) };
};
const post = async (who: string, path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  b[who]!.post(path, { _csrf: await b[who]!.csrf("/"), ...fields }, headers);
const ledger = () =>
  rows<{ kind: string; amount: number; balance_after: number; note: string | null; user_id: number | null }>(
    s.deps,
    "SELECT kind, amount, balance_after, note, user_id FROM ai_credit_ledger WHERE company_id = ? ORDER BY id",
    acme,
  );
const balance = async () =>
  Number((await row(s.deps, "SELECT balance FROM ai_credit_accounts WHERE company_id = ?", acme))?.balance ?? 0);
const budget = () =>
  row<{ monthly_limit: number; thresholds: unknown; hard: unknown }>(
    s.deps,
    "SELECT monthly_limit, thresholds, hard FROM ai_credit_budgets WHERE company_id = ?",
    acme,
  );

describe("reading", () => {
  test("every member sees the page; only owners and admins get the forms; the nav links it", async () => {
    for (const who of ["olga", "ada", "vic"]) {
      const p = await page(who);
      expect(p.status).toBe(200);
      expect(p.text).toContain("AI credits of Acme");
      expect(p.text).toMatch(/Balance\s*0\s*credits/);
      expect(p.html).toContain('href="/ai/credits" aria-current="page"');
      const actions = (await readForms(p.html)).map((f) => f.action);
      expect({
        who,
        grant: actions.includes("/ai/credits/grant"),
        budget: actions.includes("/ai/credits/budget"),
      }).toEqual({ who, grant: who !== "vic", budget: who !== "vic" });
    }
    expect((await page("vic")).text).toContain("set by the company's owners and admins");
    // Rival's grant is Rival's alone.
    expect((await page("olga")).text).not.toContain("RIVAL-ONLY");
    expect((await page("rita")).text).toContain("RIVAL-ONLY");
  });
});

describe("granting", () => {
  test("a grant lands in the ledger with balanceAfter, audited as the person's session, with its event", async () => {
    const res = await post("olga", "/ai/credits/grant", {
      amount: "5,000",
      note: "Q3 allowance <script>alert(1)</script>",
    });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/ai/credits?done=granted");
    expect((await post("ada", "/ai/credits/grant", { amount: "250", note: "" })).status).toBe(303);
    expect(await ledger()).toEqual([
      {
        kind: "grant",
        amount: 5000,
        balance_after: 5000,
        note: "Q3 allowance <script>alert(1)</script>",
        user_id: ids.olga!,
      },
      { kind: "grant", amount: 250, balance_after: 5250, note: null, user_id: ids.ada! },
    ]);
    expect(await balance()).toBe(5250);
    const audits = await rows(
      s.deps,
      "SELECT action, user_id, credential_kind FROM audit_log WHERE company_id = ? AND action = 'credits.grant' ORDER BY id",
      acme,
    );
    expect(audits).toEqual([
      { action: "credits.grant", user_id: ids.olga, credential_kind: "session" },
      { action: "credits.grant", user_id: ids.ada, credential_kind: "session" },
    ]);
    const ev = await rows<{ data: any }>(
      s.deps,
      "SELECT data FROM events WHERE type = 'credits.granted' AND company_id = ? ORDER BY id",
      acme,
    );
    expect(ev.map((e) => jsonValue(e.data) as any).map((d) => [d.amount, d.balanceAfter, d.grantedByUserId])).toEqual([
      [5000, 5000, ids.olga],
      [250, 5250, ids.ada],
    ]);
    const p = await page("vic");
    expect(p.text).toMatch(/Balance\s*5,250\s*credits/);
    expect(p.text).toContain("+5,000");
    expect(p.text).toContain("Olga Owner");
    expect(p.html).not.toContain("<script>alert(1)");
    expect(p.text).toContain("Q3 allowance <script>alert(1)</script>");
  });

  test("bad amounts are shown on the form with what was typed, and nothing is written", async () => {
    for (const amount of ["0", "-5", "1000000001", "99999999999999999999", "abc", "1.5", "1e6", "", "  "]) {
      const writes = commits(s.deps);
      const res = await post("olga", "/ai/credits/grant", { amount, note: "kept note" });
      expect({ amount, status: res.status }).toEqual({ amount, status: 400 });
      const html = await res.text();
      const form = (await readForms(html)).find((f) => f.action === "/ai/credits/grant")!;
      expect(form.fields.find((f) => f.name === "note")!.value).toBe("kept note");
      expect(form.fields.find((f) => f.name === "amount")!.value).toBe(amount);
      expect(await pageText(html)).toMatch(
        amount.trim() ? /Credits must be a whole number of credits from 1 to 1,000,000,000/ : /Credits is required/,
      );
      expect(commits(s.deps)).toBe(writes);
    }
    // The largest grant is allowed.
    expect((await post("olga", "/ai/credits/grant", { amount: "1000000000" })).status).toBe(303);
    expect(await balance()).toBe(1_000_005_250);
  });

  test("viewers are refused with the reason, and nothing is written; agents cannot grant at all", async () => {
    for (const [path, fields] of [
      ["/ai/credits/grant", { amount: "100" }],
      ["/ai/credits/budget", { monthly_limit: "100", thresholds: "50" }],
      ["/ai/credits/budget/remove", {}],
    ] as const) {
      const writes = commits(s.deps);
      const res = await post("vic", path, fields);
      expect({ path, status: res.status }).toEqual({ path, status: 403 });
      expect(await pageText(await res.text())).toContain("Only owners and admins of Acme");
      expect(commits(s.deps)).toBe(writes);
    }
    const agent: ActorContext = {
      deps: s.deps,
      principal: {
        userId: ids.olga!,
        credential: { kind: "mcp_key", id: 1, name: "k" },
        scopes: ["*"],
        companies: [{ id: acme, name: "Acme", role: "owner" }],
        requireCmsApproval: false,
      },
      company: { id: acme, name: "Acme", role: "owner" },
      requestId: "t",
    };
    await expect(grantCreditsAs(agent, { amount: 5 })).rejects.toThrow(/not by agents/);
    await expect(setBudgetAs(agent, { monthlyLimit: 5 })).rejects.toThrow(/not by agents/);
  });

  test("cross-site posts and posts without the token are refused and change nothing", async () => {
    const token = await b.olga!.csrf("/");
    for (const [fields, headers] of [
      [{ _csrf: token, amount: "999" }, { origin: "https://evil.example" }],
      [
        { _csrf: token, amount: "999" },
        { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
      ],
      [{ amount: "999" }, {}],
    ] as [Record<string, string>, Record<string, string>][]) {
      const writes = commits(s.deps);
      expect((await b.olga!.post("/ai/credits/grant", fields, headers)).status).toBe(403);
      expect(commits(s.deps)).toBe(writes);
    }
  });
});

describe("budgets", () => {
  test("set, change and remove a monthly budget; audited, with events; bad thresholds refused", async () => {
    expect(
      (await post("ada", "/ai/credits/budget", { monthly_limit: "1,500", thresholds: "90, 50", hard: "1" })).status,
    ).toBe(303);
    let bud = (await budget())!;
    expect(bud.monthly_limit).toBe(1500);
    expect(jsonValue(bud.thresholds)).toEqual([50, 90]);
    expect(Boolean(bud.hard)).toBe(true);
    let p = await page("vic");
    expect(p.text).toContain("1,500 credits a month (UTC), hard: debits past it are refused. Alerts at 50, 90%.");
    // The form shows what is set; saving without the box makes it soft.
    const form = (await readForms((await page("olga")).html)).find((f) => f.action === "/ai/credits/budget")!;
    expect(form.fields.find((f) => f.name === "monthly_limit")!.value).toBe("1500");
    expect(form.fields.find((f) => f.name === "hard")!.checked).toBe(true);
    expect((await post("olga", "/ai/credits/budget", { monthly_limit: "2000", thresholds: "" })).status).toBe(303);
    bud = (await budget())!;
    expect([bud.monthly_limit, jsonValue(bud.thresholds), Boolean(bud.hard)]).toEqual([2000, [50, 80, 100], false]);

    for (const [fields, msg] of [
      [{ monthly_limit: "0", thresholds: "50" }, /Credits per month must be a whole number/],
      [{ monthly_limit: "100", thresholds: "0, 101" }, /whole percentages from 1 to 100/],
      [{ monthly_limit: "100", thresholds: "fifty" }, /whole percentages from 1 to 100/],
    ] as [Record<string, string>, RegExp][]) {
      const writes = commits(s.deps);
      const res = await post("olga", "/ai/credits/budget", fields);
      expect(res.status).toBe(400);
      expect(await pageText(await res.text())).toMatch(msg);
      expect(commits(s.deps)).toBe(writes);
    }

    expect((await post("olga", "/ai/credits/budget/remove", {})).status).toBe(303);
    expect(await budget()).toBeUndefined();
    p = await page("olga");
    expect(p.text).toContain("No budget");
    const audits = await rows(
      s.deps,
      "SELECT action, user_id, credential_kind FROM audit_log WHERE company_id = ? AND action LIKE 'credits.budget%' ORDER BY id",
      acme,
    );
    expect(audits).toEqual([
      { action: "credits.budget", user_id: ids.ada, credential_kind: "session" },
      { action: "credits.budget", user_id: ids.olga, credential_kind: "session" },
      { action: "credits.budget_remove", user_id: ids.olga, credential_kind: "session" },
    ]);
    const ev = await rows<{ data: any }>(
      s.deps,
      "SELECT data FROM events WHERE type = 'credits.budget_set' AND company_id = ? ORDER BY id",
      acme,
    );
    expect(ev.map((e) => jsonValue(e.data) as any)).toEqual([
      { monthlyLimit: 1500, thresholds: [50, 90], hard: true, setByUserId: ids.ada },
      { monthlyLimit: 2000, thresholds: [50, 80, 100], hard: false, setByUserId: ids.olga },
      { monthlyLimit: null, thresholds: null, hard: null, setByUserId: ids.olga },
    ]);
  });
});

describe("the ledger", () => {
  test("25 entries a page, newest first, filtered to grants or debits, balanceAfter on each", async () => {
    for (let i = 1; i <= 30; i++)
      await s.deps.db.transaction((tx) => debitCredits(tx, s.deps, acme, i, "email.send", `mail:${i}`));
    const start = 1_000_005_250;
    const entries = (html: string) =>
      [...html.matchAll(/<tr id="entry-(\d+)">([\s\S]*?)<\/tr>/g)].map((m) =>
        m[2]!
          .replace(/<[^>]+>/g, " ")
          .replace(/\s+/g, " ")
          .trim(),
      );
    const first = entries((await page("vic", "/ai/credits")).html);
    expect(first).toHaveLength(25);
    // Newest first: the 30th debit, after which 1+…+30 = 465 had been spent.
    expect(first[0]).toContain("email.send mail:30");
    expect(first[0]).toContain("−30");
    expect(first[0]).toContain((start - 465).toLocaleString("en-US"));
    const p2 = await page("vic", "/ai/credits?page=2");
    expect(p2.text).toContain("Page 2 of 2");
    expect(entries(p2.html)).toHaveLength(3 + 30 - 25);
    const debits = [
      ...entries((await page("vic", "/ai/credits?kind=debit")).html),
      ...entries((await page("vic", "/ai/credits?kind=debit&page=2")).html),
    ];
    expect(debits).toHaveLength(30);
    expect(debits.every((e) => e.startsWith("20") && e.includes("debit"))).toBe(true);
    const grants = entries((await page("vic", "/ai/credits?kind=grant")).html);
    expect(grants).toHaveLength(3);
    expect(grants.every((e) => e.includes("grant"))).toBe(true);
    expect(grants[0]).toContain(start.toLocaleString("en-US"));
    // Odd query strings fall back, never a 500.
    expect((await page("vic", "/ai/credits?kind=<x>&page=abc")).status).toBe(200);
  });
});

describe("in a browser", () => {
  test("an owner grants credits from the page: a bad amount is explained, a good one shows in the ledger", async () => {
    const browser = await chromium.launch({
      executablePath: "/usr/bin/chromium",
      headless: true,
      args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    try {
      const pg = await (await browser.newContext()).newPage();
      const errors: string[] = [];
      pg.on("pageerror", (e) => errors.push(String(e)));
      await pg.goto(`${s.url}/login`);
      await pg.fill('input[name="email"]', "olga@test.example");
      await pg.fill('input[name="password"]', PASSWORD);
      await Promise.all([pg.waitForURL(`${s.url}/`), pg.click('button[type="submit"]')]);
      await pg.click('nav.main a[href="/ai/credits"]');
      await pg.waitForURL(`${s.url}/ai/credits`);
      const before = await balanceText(pg);
      await pg.fill("#grant-amount", "twelve");
      await Promise.all([pg.waitForLoadState("load"), pg.click('#grant button[type="submit"]')]);
      expect(await pg.locator("#grant .notice.error").innerText()).toContain("whole number of credits");
      expect(await pg.inputValue("#grant-amount")).toBe("twelve");
      await pg.fill("#grant-amount", "1200");
      await pg.fill("#grant-note", "Browser grant");
      await Promise.all([pg.waitForURL(/done=granted/), pg.click('#grant button[type="submit"]')]);
      const row = pg.locator("#ledger tbody tr").first();
      expect(await row.innerText()).toContain("Browser grant");
      expect(await row.innerText()).toContain("+1,200");
      expect(await balanceText(pg)).toBe(before + 1200);
      expect(errors).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);
});

async function balanceText(pg: import("playwright-core").Page): Promise<number> {
  return Number((await pg.locator("#balance strong").innerText()).replace(/,/g, ""));
}
