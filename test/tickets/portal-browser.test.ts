/**
 * The tickets pages in headless Chromium (issue 31): the queue with its
 * filters and SLA badges, and a ticket with its thread and forms, against a
 * real server whose tickets an agent made over MCP. A viewer sees and
 * cannot act (no forms; a post is refused); an agent replies, notes,
 * changes status and assigns, and tickets_get over MCP shows each change;
 * another company's numbers are 404; planted markup stays text; a post
 * without the CSRF token or from another origin is refused; axe-core finds
 * nothing serious; at 390 px nothing overflows sideways. Screenshots go to
 * test-artifacts/ (docs/img/ keeps one each with PLINTH_DOC_SHOTS=1).
 * Runs on SQLite and, through scripts/with-postgres.ts, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import type { Browser, Page } from "playwright-core";
import {
  ARTIFACTS,
  checkEveryPage,
  expectForgedPostsRefused,
  launchChromium,
  signInAs,
} from "../fixtures/portal-browser";
import { toolOk } from "../fixtures/accounts";
import { rows as dbRows } from "../harness";
import { ratingLinks } from "../../src/domains/tickets/satisfaction";
import { PASSWORD, PDF, type TicketsWorld, ticketsWorld, XSS_BODY, XSS_FILE, XSS_SUBJECT } from "./portal-world";

let w: TicketsWorld;
let browser: Browser;

beforeAll(async () => {
  w = await ticketsWorld();
  browser = await launchChromium();
  mkdirSync(ARTIFACTS, { recursive: true });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.s.stop();
});

const signIn = (email: string, width = 1280) => signInAs(browser, w.s.url, email, PASSWORD, width);

/** The ticket numbers the queue shows, in its order. */
const rows = (page: Page) =>
  page.locator("#tickets tbody tr").evaluateAll((els) => els.map((e) => Number((e as HTMLElement).dataset.ticket)));

const csrfOf = (page: Page) => page.locator('header input[name="_csrf"]').first().inputValue();

describe("tickets pages", () => {
  test("every page: strict CSP, no serious axe findings, screenshots, no overflow at 390 px", async () => {
    const pages: [name: string, path: string][] = [
      ["queue", "/tickets"],
      ["queue-filtered", "/tickets?status=any&sla=breached"],
      ["ticket", `/tickets/${w.n.ok}`],
    ];
    await checkEveryPage({
      browser,
      base: w.s.url,
      password: PASSWORD,
      prefix: "tickets",
      pages,
      emails: ["olga@acme.test", "vic@acme.test"],
      docShot: (name) => (name === "queue-filtered" ? undefined : `tickets-${name}.png`),
    });
  }, 120_000);

  test("the queue lists what tickets_list lists, with the SLA in words and colour", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/tickets`);
    const listed = (await toolOk(w.olga, "tickets_list", { status: "unsolved", limit: 100 })).items;
    expect(await rows(page)).toEqual(listed.map((t: { id: number }) => t.id));
    const badge = (n: number) => page.locator(`tr[data-ticket="${n}"] td.sla .badge`);
    expect(await badge(w.n.breached).innerText()).toBe("SLA breached");
    expect(await badge(w.n.breached).getAttribute("class")).toBe("badge danger");
    expect(await badge(w.n.soon).innerText()).toBe("due in 2 h");
    expect(await badge(w.n.soon).getAttribute("class")).toBe("badge warn");
    expect(await badge(w.n.ok).innerText()).toBe("SLA ok");
    expect(await badge(w.n.ok).getAttribute("class")).toBe("badge ok");
    expect(await badge(w.n.paused).innerText()).toBe("SLA paused");
    await ctx.close();
  }, 30_000);

  test("the filters: status, assignee (me, unassigned, a person), priority, SLA breached and due soon", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    const shown = async (query: string) => {
      const res = await page.goto(`${w.s.url}/tickets?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 200 });
      return (await rows(page)).sort((a, b) => a - b);
    };
    const mcp = async (args: Record<string, unknown>) =>
      ((await toolOk(w.olga, "tickets_list", { limit: 100, ...args })).items as { id: number }[])
        .map((t) => t.id)
        .sort((a, b) => a - b);
    expect(await shown("sla=breached")).toEqual([w.n.breached]);
    expect(await shown("sla=breached")).toEqual(await mcp({ status: "unsolved", breached: true }));
    expect(await shown("sla=soon")).toEqual([w.n.soon]);
    expect(await shown(`assignee=${w.ids.sam}`)).toEqual([w.n.ok]);
    expect(await shown("assignee=none")).toEqual(await mcp({ status: "unsolved", assigneeId: "none" }));
    expect(await shown("assignee=me")).toEqual([]);
    expect(await page.locator("main").innerText()).toContain("No tickets match these filters.");
    expect(await shown("priority=urgent")).toEqual([w.n.breached]);
    expect(await shown("status=pending")).toEqual([w.n.paused]);
    expect(await shown("status=any&priority=low")).toEqual([w.n.paused]);
    // The form keeps what was chosen, and filtering through it gives the same URL.
    await page.goto(`${w.s.url}/tickets`);
    await page.locator("#f-sla").selectOption("soon");
    await page.locator("#f-priority").selectOption("high");
    await Promise.all([page.waitForURL(/sla=soon/), page.click('#filters button[type="submit"]')]);
    expect(await rows(page)).toEqual([w.n.soon]);
    expect(await page.locator("#f-sla").inputValue()).toBe("soon");
    // A value the list does not know is a 400 with the reason, never a 500.
    for (const query of ["status=bogus", "assignee=<b>", "priority=now", "sla=late", "sort=random"]) {
      const res = await page.goto(`${w.s.url}/tickets?${query}`);
      expect({ query, status: res!.status() }).toEqual({ query, status: 400 });
    }
    await ctx.close();
  }, 30_000);

  test("a ticket shows its thread oldest first, notes marked in words, requester apart from agents", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/tickets/${w.n.ok}`);
    const thread = (await toolOk(w.olga, "ticket_messages_list", { ticketId: w.n.ok })).items;
    const msgs = page.locator("#thread ol.thread > li");
    expect(await msgs.count()).toBe(thread.length);
    expect(await msgs.locator("p.body").allInnerTexts()).toEqual(thread.map((m: { body: string }) => m.body));
    const who = await msgs.locator("p.who strong").allInnerTexts();
    expect(who).toEqual(["Requester", "Internal note", "Agent", "Requester"]);
    const note = msgs.nth(1);
    expect(await note.getAttribute("class")).toBe("msg note");
    expect(await note.innerText()).toContain("not shown to the requester");
    expect(await msgs.nth(2).getAttribute("class")).toBe("msg agent");
    expect(await page.locator("aside").innerText()).toContain("Sam Agent");
    await ctx.close();
  }, 30_000);

  test("a viewer reads the queue and a ticket but gets no forms, and every post is refused", async () => {
    const { ctx, page } = await signIn("vic@acme.test");
    await page.goto(`${w.s.url}/tickets`);
    expect((await rows(page)).length).toBeGreaterThan(3);
    await page.goto(`${w.s.url}/tickets/${w.n.soon}`);
    expect(await page.locator("main form[method=post], main textarea").count()).toBe(0);
    expect(await page.locator("main").innerText()).toContain("owners and admins reply and change it");
    const before = await toolOk(w.olga, "tickets_get", { id: w.n.soon });
    const csrf = await csrfOf(page);
    for (const [action, form] of [
      ["reply", { body: "by a viewer" }],
      ["note", { body: "by a viewer" }],
      ["status", { status: "solved" }],
      ["assign", { assignee: String(w.ids.vic) }],
    ] as const) {
      const r = await page.request.post(`${w.s.url}/tickets/${w.n.soon}/${action}`, {
        form: { _csrf: csrf, ...form },
        headers: { Origin: w.s.url },
        maxRedirects: 0,
      });
      expect({ action, status: r.status() }).toEqual({ action, status: 403 });
    }
    const after = await toolOk(w.olga, "tickets_get", { id: w.n.soon });
    expect(after).toEqual(before);
    await ctx.close();
  }, 30_000);

  test("an agent replies, notes, changes status and assigns; tickets_get over MCP shows each", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    const n = w.n.soon;
    await page.goto(`${w.s.url}/tickets/${n}`);
    await page.fill("#reply-body", "Changed: the street is now <b>Main St 5</b>.");
    await page.locator("#reply-status").selectOption("pending");
    await Promise.all([page.waitForURL(/done=replied/), page.click('form[action$="/reply"] button[type="submit"]')]);
    let got = await toolOk(w.olga, "tickets_get", { id: n });
    expect(got.messages.at(-1)).toMatchObject({
      kind: "reply",
      internal: false,
      body: "Changed: the street is now <b>Main St 5</b>.",
    });
    expect(got.status).toBe("pending");
    expect(got.sla.firstResponse.state).toBe("met");
    expect(await page.locator("#thread ol.thread > li").last().locator("p.body").innerText()).toBe(
      "Changed: the street is now <b>Main St 5</b>.",
    );

    await page.fill("#note-body", "Checked with billing; no credit note needed.");
    await Promise.all([page.waitForURL(/done=noted/), page.click('form[action$="/note"] button[type="submit"]')]);
    got = await toolOk(w.olga, "tickets_get", { id: n });
    expect(got.messages.at(-1)).toMatchObject({ kind: "note", internal: true });
    expect(await page.locator("#thread ol.thread > li").last().locator("p.who strong").innerText()).toBe(
      "Internal note",
    );

    await page.locator("#status select").selectOption("solved");
    await Promise.all([page.waitForURL(/done=status/), page.click("#status button")]);
    expect((await toolOk(w.olga, "tickets_get", { id: n })).status).toBe("solved");

    await page.locator("#assign select").selectOption(String(w.ids.sam));
    await Promise.all([page.waitForURL(/done=assigned/), page.click("#assign button")]);
    expect((await toolOk(w.olga, "tickets_get", { id: n })).assignee).toMatchObject({ id: w.ids.sam });
    await page.locator("#assign select").selectOption("none");
    await Promise.all([page.waitForURL(/done=assigned/), page.click("#assign button")]);
    expect((await toolOk(w.olga, "tickets_get", { id: n })).assignee).toBeNull();

    // A transition the verb refuses re-shows the page with its reason (4xx), changing nothing.
    await page.locator("#status select").selectOption("new");
    const [bad] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith("/status")),
      page.click("#status button"),
    ]);
    expect([400, 409]).toContain(bad.status());
    expect(await page.locator("#status .notice.error").innerText()).toMatch(/solved/);
    expect((await toolOk(w.olga, "tickets_get", { id: n })).status).toBe("solved");
    // A blank reply is a 400 with the reason beside its form, never a 500.
    const csrf = await csrfOf(page);
    const blank = await page.request.post(`${w.s.url}/tickets/${n}/note`, {
      form: { _csrf: csrf, body: "   " },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(blank.status()).toBe(400);
    expect(await blank.text()).toContain("Note is required.");
    // Assigning a viewer is refused by the verb (they cannot work tickets).
    const viewer = await page.request.post(`${w.s.url}/tickets/${n}/assign`, {
      form: { _csrf: csrf, assignee: String(w.ids.vic) },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(viewer.status()).toBeGreaterThanOrEqual(400);
    expect(viewer.status()).toBeLessThan(500);
    expect((await toolOk(w.olga, "tickets_get", { id: n })).assignee).toBeNull();
    expect(seen.dialogs).toEqual([]);
    await ctx.close();
  }, 60_000);

  test("planted markup stays text in the queue, the title and the thread", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/tickets`);
    expect(await page.locator(`tr[data-ticket="${w.n.hostile}"] td a`).innerText()).toBe(
      `#${w.n.hostile} ${XSS_SUBJECT}`,
    );
    await page.goto(`${w.s.url}/tickets/${w.n.hostile}`);
    expect(await page.locator("h1").innerText()).toBe(`#${w.n.hostile} ${XSS_SUBJECT}`);
    expect(await page.locator("#thread p.body").allInnerTexts()).toEqual([
      XSS_BODY,
      "<script>alert(5)</script> **not markup**",
    ]);
    expect(await page.locator("main img, main script").count()).toBe(0);
    expect(seen.dialogs).toEqual([]);
    expect(seen.errors).toEqual([]);
    await ctx.close();
  }, 30_000);

  test("another company's ticket numbers are 404 both ways, and its queue holds none of ours", async () => {
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/tickets?status=any`);
    expect(await rita.page.locator("#tickets tbody").innerText()).toContain("Rival secret ticket");
    expect(await rows(rita.page)).toEqual([w.rivalTicket]);
    // Numbers are per company: Rival's first ticket has the number of Acme's first.
    expect(w.rivalTicket).toBe(w.n.breached);
    for (const n of [w.n.soon, w.n.hostile]) {
      const res = await rita.page.goto(`${w.s.url}/tickets/${n}`);
      expect({ n, status: res!.status() }).toEqual({ n, status: 404 });
    }
    // That number is Rival's own ticket for Rita, not Acme's.
    await rita.page.goto(`${w.s.url}/tickets/${w.rivalTicket}`);
    expect(await rita.page.locator("h1").innerText()).toBe(`#${w.rivalTicket} Rival secret ticket`);
    expect(await rita.page.locator("main").innerText()).not.toContain("Checkout fails");
    const csrf = await csrfOf(rita.page);
    const before = await toolOk(w.olga, "tickets_get", { id: w.n.soon });
    const r = await rita.page.request.post(`${w.s.url}/tickets/${w.n.soon}/note`, {
      form: { _csrf: csrf, body: "from Rival" },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(404);
    expect(await toolOk(w.olga, "tickets_get", { id: w.n.soon })).toEqual(before);
    const olga = await signIn("olga@acme.test");
    for (const path of ["/tickets/99", "/tickets/abc", "/tickets/0", "/tickets/%231"])
      expect({ path, status: (await olga.page.goto(`${w.s.url}${path}`))!.status() }).toEqual({ path, status: 404 });
    await rita.ctx.close();
    await olga.ctx.close();
  }, 30_000);

  test("a message's files are listed under it and download signed in, as a download; never across companies", async () => {
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/tickets/${w.n.ok}`);
    const link = page.locator("#thread ul.files a");
    expect(await link.count()).toBe(1);
    // The planted name is text, in the link and nowhere as markup.
    expect(await link.innerText()).toBe(XSS_FILE);
    expect(await page.locator("main img").count()).toBe(0);
    const href = (await link.getAttribute("href"))!;
    expect(href).toMatch(new RegExp(`^/tickets/${w.n.ok}/files/\\d+$`));
    const res = await page.request.get(`${w.s.url}${href}`);
    expect(res.status()).toBe(200);
    expect(res.headers()["content-type"]).toBe("application/pdf");
    expect(res.headers()["content-disposition"]).toStartWith("attachment;");
    expect(res.headers()["x-content-type-options"]).toBe("nosniff");
    expect(Buffer.from(await res.body()).equals(PDF)).toBe(true);
    expect(seen.dialogs).toEqual([]);
    // A viewer reads the ticket, so they may download its files.
    const vic = await signIn("vic@acme.test");
    expect((await vic.page.request.get(`${w.s.url}${href}`)).status()).toBe(200);
    // Rita: not Acme's file, neither under Acme's number nor under her own ticket's number.
    const rita = await signIn("rita@rival.test");
    const id = href.split("/").at(-1);
    for (const path of [href, `/tickets/${w.rivalTicket}/files/${id}`, `/tickets/${w.n.ok}/files/abc`])
      expect({ path, status: (await rita.page.request.get(`${w.s.url}${path}`)).status() }).toEqual({
        path,
        status: 404,
      });
    // Under another of Acme's tickets, the file is not found either.
    expect((await page.request.get(`${w.s.url}/tickets/${w.n.soon}/files/${id}`)).status()).toBe(404);
    await Promise.all([ctx.close(), vic.ctx.close(), rita.ctx.close()]);
  }, 30_000);

  test("Apply macro: the form does what tickets_apply_macro does; a viewer gets no form and a post of theirs is refused", async () => {
    const macro = await toolOk(w.olga, "ticket_macros_create", {
      name: "Export help",
      body: "Hi {{ticket.requester.first_name}}, exports are under Settings → Orders ({{ticket.number}}).",
      status: "pending",
      addTags: ["export"],
      assigneeId: w.ids.sam,
    });
    await toolOk(w.olga, "ticket_macros_create", { name: "Close it", status: "solved" });
    const twin = async () =>
      (
        await toolOk(w.olga, "tickets_create", {
          subject: "Where is the export?",
          requesterEmail: "casey@customer.test",
          requesterName: "Casey Customer",
          body: "I cannot find the CSV export.",
        })
      ).id as number;
    const [byPage, byTool] = [await twin(), await twin()];
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/tickets/${byPage}`);
    const options = await page.locator("#macro select option").allInnerTexts();
    expect(options).toEqual(["Close it (set solved)", "Export help (reply · set pending · tag export · assign)"]);
    await page.locator("#macro select").selectOption(String(macro.id));
    await Promise.all([page.waitForURL(/done=macro/), page.locator("#macro button").click()]);
    expect(await page.locator(".notice").first().innerText()).toContain("Macro applied.");
    await toolOk(w.olga, "tickets_apply_macro", { ticketId: byTool, macroId: macro.id });
    // The same result either way, but for the ticket's own number in the filled reply.
    const shape = async (n: number) => {
      const t = await toolOk(w.olga, "tickets_get", { id: n });
      const last = t.messages.at(-1);
      return {
        status: t.status,
        tags: t.tags,
        assignee: t.assignee?.id,
        reply: [last.kind, last.author, last.body.replace(`#${n}`, "#N")],
        messages: t.messages.length,
      };
    };
    const want = await shape(byTool);
    expect(want).toMatchObject({ status: "pending", tags: ["export"], assignee: w.ids.sam });
    expect(await shape(byPage)).toEqual(want);
    // A part that cannot apply refuses the whole macro, and the page says why: solved cannot go to pending.
    await toolOk(w.olga, "tickets_set_status", { id: byPage, status: "solved" });
    await page.goto(`${w.s.url}/tickets/${byPage}`);
    const before = await toolOk(w.olga, "tickets_get", { id: byPage });
    await page.locator("#macro select").selectOption(String(macro.id));
    await page.locator("#macro button").click();
    await page.waitForLoadState();
    expect(await page.locator("#macro .notice").innerText()).toContain("was not applied");
    expect(await toolOk(w.olga, "tickets_get", { id: byPage })).toEqual(before);
    expect(seen).toEqual({ dialogs: [], errors: [], csp: [] });
    // A viewer sees no macro form, and posting one anyway is refused by the verb.
    const vic = await signIn("vic@acme.test");
    await vic.page.goto(`${w.s.url}/tickets/${byTool}`);
    expect(await vic.page.locator("#macro, #h-macro").count()).toBe(0);
    const r = await vic.page.request.post(`${w.s.url}/tickets/${byTool}/macro`, {
      form: { _csrf: await csrfOf(vic.page), macro: String(macro.id) },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(r.status()).toBe(403);
    // Another company's macro id is not found, through Rita's own ticket.
    const rita = await signIn("rita@rival.test");
    await rita.page.goto(`${w.s.url}/tickets/${w.rivalTicket}`);
    const foreign = await rita.page.request.post(`${w.s.url}/tickets/${w.rivalTicket}/macro`, {
      form: { _csrf: await csrfOf(rita.page), macro: String(macro.id) },
      headers: { Origin: w.s.url },
      maxRedirects: 0,
    });
    expect(foreign.status()).toBe(404);
    await Promise.all([ctx.close(), vic.ctx.close(), rita.ctx.close()]);
  }, 60_000);

  test("a post without the CSRF token, or from another site, is refused", async () => {
    const { ctx, page } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/tickets/${w.n.breached}`);
    const before = await toolOk(w.olga, "tickets_get", { id: w.n.breached });
    await expectForgedPostsRefused(page, w.s.url, `/tickets/${w.n.breached}/reply`, { body: "forged" });
    expect(await toolOk(w.olga, "tickets_get", { id: w.n.breached })).toEqual(before);
    await ctx.close();
  }, 30_000);

  test("the ticket page shows the requester's rating and comment, as text", async () => {
    const t = await toolOk(w.olga, "tickets_create", {
      subject: "Rated ticket",
      requesterEmail: "casey@customer.test",
      body: "Please help.",
    });
    await toolOk(w.olga, "tickets_reply", { id: t.id, body: "Fixed.", status: "solved" });
    await w.s.dispatcher.drain();
    const survey = (
      await dbRows(
        w.s.deps,
        "SELECT r.id, r.company_id FROM ticket_ratings r JOIN tickets t ON t.id = r.ticket_id WHERE t.number = ? AND t.subject = ?",
        t.id,
        "Rated ticket",
      )
    )[0]!;
    const links = ratingLinks(w.s.deps, { id: Number(survey.id), companyId: Number(survey.company_id) });
    const good = `${w.s.url}${new URL(links.good).pathname}`;
    const { ctx, page, seen } = await signIn("olga@acme.test");
    await page.goto(`${w.s.url}/tickets/${t.id}`);
    expect(await page.locator("#rating").innerText()).toContain("not answered");
    expect((await fetch(good)).status).toBe(200);
    await fetch(good.replace(/\/good$/, "/comment"), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ comment: "<img src=x onerror=alert(7)> very quick" }),
    });
    await page.goto(`${w.s.url}/tickets/${t.id}`);
    const shown = await page.locator("#rating").innerText();
    expect(shown).toContain("Good");
    expect(shown).toContain("<img src=x onerror=alert(7)> very quick");
    expect(await page.locator("#rating img").count()).toBe(0);
    expect(seen).toEqual({ dialogs: [], errors: [], csp: [] });
    await ctx.close();
  }, 30_000);
});
