/**
 * Issue 30: a require_cms_approval credential's every write the public
 * would see (REST, a public page, a recipient's inbox) is held for a
 * person, not only sites:write and media:write. The registry says per tool
 * how (ToolDef.supervised, read by `supervision`); this file checks that
 * no public-facing write escapes it, that docs/approvals.md lists what the
 * registry says, and, over MCP with a real SDK client against the real
 * server, that a supervised key's call per area is staged (nothing visible
 * on REST or the public page), made live by another member's approval, left
 * alone by a rejection, while an ordinary key's same call applies at once.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { catalog } from "../../src/catalog";
import { renderSupervisedList, withSupervisedList } from "../../src/domains/approvals/supervision-doc";
import { supervision } from "../../src/domains/approvals/staging";
import { mintRestKey } from "../fixtures/rest";
import { row, startTestServer, type TestServer } from "../harness";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { makeWorld, type World } from "../cms/world";

/** Scopes whose writes can change what the public sees. email:write only prepares: nothing is mailed without email:send. */
const PUBLIC_FACING_SCOPES = new Set([
  "sites:write",
  "media:write",
  "branding:write",
  "store:write",
  "decks:write",
  "surveys:write",
  "bookings:write",
  "email:send",
]);

/**
 * Writes of those scopes that are neither staged nor gated, each with why
 * the public does not see it. A new write of a public-facing scope must be
 * staged, gated, or argued for here.
 */
const NOT_PUBLIC: Record<string, string> = {
  // Decks: the public sees a deck only in a version a person approved (decks_publish, gated); these edit the draft.
  decks_create: "a new draft deck",
  decks_fill_template: "a new draft deck from a template",
  decks_replace_text: "edits the draft's text",
  slides_add: "edits the draft",
  slides_update: "edits the draft",
  slides_delete: "edits the draft",
  slides_move: "edits the draft",
  slides_reorder: "edits the draft",
  slides_duplicate: "edits the draft",
  // Store: records staff see; prices and stock come from the catalogue, whose changes are staged.
  customers_create: "a customer record",
  customers_update: "a customer record",
  orders_create: "an order record, priced from the catalogue",
  orders_update: "an order record",
  orders_delete: "an order record",
  orders_update_status: "an order's state (Plinth mails nothing for it)",
  reviews_create: "recorded pending: shown only once reviews_moderate (staged) approves it",
  customer_messages_create: "records a message a customer sent",
  customer_messages_reply: "records a staff reply in the thread; Plinth sends nothing",
  customer_messages_close: "a thread's state",
  customer_messages_reopen: "a thread's state",
  // Surveys: responses are staff-only; only a survey that is not open can be deleted.
  surveys_delete: "refused while the survey is open",
  survey_responses_tag: "staff-only notes on a response",
  survey_responses_annotate: "staff-only notes on a response",
  survey_responses_delete: "removes a response from the staff's view (spam, a respondent's request)",
  // Bookings: a booking's own lifecycle. The attendee is told, which is what these verbs are for.
  bookings_create: "books a slot the page offers, for the attendee named",
  bookings_confirm: "answers a booking request",
  bookings_decline: "answers a booking request",
  bookings_cancel: "a booking's lifecycle",
  bookings_reschedule: "a booking's lifecycle",
  bookings_update: "a booking's attendee details, private notes or host (the attendee is told)",
  bookings_mark_no_show: "a staff-only mark after the start",
  bookings_reassign: "a booking's lifecycle: hands it to another host of its page (the attendee is told)",
  // A member's own calendars: busy times only narrow what pages offer; a CalDAV password must not wait in a pending change.
  calendars_connect: "a member's own calendar: its busy times only remove times pages offer",
  calendars_disconnect: "a member's own calendar connection; pages fall back to the member's schedule",
  // Email: stopping mail. Holding it would keep mail going out while the request waits.
  email_campaigns_pause: "stops sending",
  email_campaigns_cancel: "stops sending",
};

const writes = [...catalog.tools.values()].filter((t) => !t.readOnly);

describe("the registry says how every public-facing write is supervised", () => {
  test("every write of a public-facing scope is staged, gated, or listed with why the public does not see it", () => {
    const loose = writes
      .filter((t) => PUBLIC_FACING_SCOPES.has(t.scope ?? "") && supervision(t) === null && !(t.name in NOT_PUBLIC))
      .map((t) => t.name);
    expect(loose).toEqual([]);
  });

  test("the list of exceptions names only existing, unsupervised writes of those scopes", () => {
    for (const name of Object.keys(NOT_PUBLIC)) {
      const t = catalog.tools.get(name);
      expect(t, `${name} is not a tool`).toBeDefined();
      expect(t!.readOnly).toBe(false);
      expect(PUBLIC_FACING_SCOPES.has(t!.scope ?? "")).toBe(true);
      expect(supervision(t!), `${name} is supervised: take it off the list`).toBeNull();
    }
  });

  test("what the issue names is staged or gated as declared; reads and staff-only writes are not supervised", () => {
    const of = (n: string) => supervision(catalog.tools.get(n)!);
    for (const n of [
      "branding_update_profile",
      "branding_clear_fields",
      "branding_delete_profile",
      "brand_messaging_update",
      "nav_items_create",
      "products_set_status",
      "products_update",
      "product_variants_create",
      "product_variants_update",
      "product_variants_delete",
      "store_settings_update",
      "surveys_close",
      "booking_pages_update",
      "email_campaigns_send",
      "email_campaigns_schedule",
      "media_upload",
    ])
      expect([n, of(n)]).toEqual([n, "staged"]);
    for (const n of ["decks_publish", "decks_unpublish", "surveys_create", "email_campaigns_create"])
      expect([n, of(n)]).toEqual([n, "gated"]);
    for (const n of ["branding_get_profile", "contacts_create", "orders_create", "decks_create"])
      expect(of(n)).toBeNull();
    // Every staged call of the areas the issue names that changes an existing record has a staged target:
    // the page shows live → proposed, and approval detects a change made meanwhile.
    for (const t of writes)
      if (supervision(t) === "staged" && ["branding", "store", "surveys", "email"].includes(t.toolset))
        if (!/_create$/.test(t.name) && t.name !== "email_transactional_send")
          expect([t.name, catalog.stagedTargets.has(t.name)]).toEqual([t.name, true]);
  });

  test("docs/approvals.md lists the staged and gated tools as the registry declares them (regenerate with `make docs`)", () => {
    const doc = readFileSync(join(import.meta.dir, "../../docs/approvals.md"), "utf8");
    const stale = "docs/approvals.md is stale: run `make docs`";
    expect(doc.includes(renderSupervisedList(catalog.tools.values())), stale).toBe(true);
    expect(withSupervisedList(doc, catalog.tools.values()) === doc, stale).toBe(true);
    for (const t of writes) {
      const s = supervision(t);
      if (s) expect(doc).toContain(`\`${t.name}\``);
    }
  });
});

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let restKey: string;

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    config: { smtpUrl: smtp.url(), mailFrom: "Acme <news@acme.test>", rateLimit: 100_000 },
  });
  w = await makeWorld(s);
  restKey = (await mintRestKey(s.deps, w.siteA)).key;
});
afterAll(async () => {
  await s?.stop();
  await smtp?.stop();
});

/** GET on the site's public REST API. */
async function rest(path: string): Promise<{ status: number; body: any }> {
  const r = await fetch(`${s.url}/api/v1/sites/${w.siteA}${path}`, { headers: { Authorization: `Bearer ${restKey}` } });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}

/** A supervised call's answer: held, nothing applied. */
function expectStaged(r: any, tool: string) {
  expect(r).toMatchObject({
    status: "staged",
    staged: { tool },
    approval: { linkType: "pending_change", status: "pending" },
  });
}

describe("a require_cms_approval key's public-facing writes wait for a person", () => {
  test("branding: the colour REST /branding serves changes only when another member approves; a rejection leaves it", async () => {
    // An ordinary key applies at once.
    await w.ok(w.owner, "branding_update_profile", { siteId: w.siteA, branding: { primaryColor: "#111111" } });
    expect((await rest("/branding")).body.data.primaryColor).toBe("#111111");

    const staged = await w.ok(w.gated, "branding_update_profile", {
      siteId: w.siteA,
      branding: { primaryColor: "#0f766e", headingFont: "Inter" },
    });
    expectStaged(staged, "branding_update_profile");
    let served = await rest("/branding");
    expect(served.body.data.primaryColor).toBe("#111111");
    expect(served.body.data.headingFont).toBeUndefined();

    // The reviewer reads it field by field, live → proposed.
    const got = await w.ok(w.owner, "approvals_get", { id: staged.approval.id });
    expect(got).toMatchObject({ entityType: "brand_profile", tool: "branding_update_profile", status: "pending" });
    expect(got.proposal.changes).toEqual([
      { field: "primaryColor", before: "#111111", after: "#0f766e" },
      { field: "headingFont", before: null, after: "Inter" },
    ]);
    // The approval page shows the same, escaped, beside what is live.
    const page = await (await fetch(w.local(staged.approval.url))).text();
    expect(page).toContain("Live now");
    expect(page).toMatch(/<th scope="row">primaryColor<\/th><td>#111111<\/td><td>#0f766e<\/td>/);
    // The supervised key cannot wave its own change through.
    expect(await w.err(w.gated, "approvals_approve", { id: staged.approval.id })).toStartWith("Forbidden");
    expect(await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id })).toMatchObject({
      status: "approved",
      result: { applied: "branding_update_profile" },
    });
    served = await rest("/branding");
    expect(served.body.data).toMatchObject({ primaryColor: "#0f766e", headingFont: "Inter" });
    expect(JSON.stringify(served.body.cssVars)).toContain("#0f766e");

    const rejected = await w.ok(w.gated, "branding_clear_fields", { siteId: w.siteA, fields: ["primaryColor"] });
    expectStaged(rejected, "branding_clear_fields");
    expect((await w.ok(w.owner, "approvals_get", { id: rejected.approval.id })).proposal.changes).toEqual([
      { field: "primaryColor", before: "#0f766e", after: "(default)" },
    ]);
    await w.ok(w.colleague, "approvals_reject", { id: rejected.approval.id });
    expect((await rest("/branding")).body.data.primaryColor).toBe("#0f766e");

    // A profile edited meanwhile is not overwritten blindly.
    const late = await w.ok(w.gated, "branding_update_profile", {
      siteId: w.siteA,
      branding: { accentColor: "#ff0000" },
    });
    await w.ok(w.owner, "branding_update_profile", { siteId: w.siteA, branding: { textColor: "#222222" } });
    expect(await w.err(w.colleague, "approvals_approve", { id: late.approval.id })).toContain(
      "modified after the change was requested",
    );
    expect((await rest("/branding")).body.data.accentColor).toBeUndefined();

    // Messaging is held the same way.
    const msg = await w.ok(w.gated, "brand_messaging_update", { siteId: w.siteA, tagline: "Roasted today" });
    expectStaged(msg, "brand_messaging_update");
    expect((await w.ok(w.owner, "brand_messaging_get", { siteId: w.siteA })).tagline).toBeNull();
    await w.ok(w.colleague, "approvals_approve", { id: msg.approval.id });
    expect((await w.ok(w.owner, "brand_messaging_get", { siteId: w.siteA })).tagline).toBe("Roasted today");
  });

  test("store: a product goes on sale, a price, a variant's stock and the settings change only once approved", async () => {
    await w.ok(w.owner, "store_settings_update", { siteId: w.siteA, enabled: true });
    const mug = await w.ok(w.owner, "products_create", {
      siteId: w.siteA,
      name: "Blue Mug",
      price: 1800,
      options: [{ name: "Size", values: ["S", "M"] }],
      variants: [{ options: { Size: "S" }, price: 1800, quantity: 5 }],
    });
    const tee = await w.ok(w.owner, "products_create", { siteId: w.siteA, name: "Tee", price: 2500 });
    // An ordinary key puts a product on sale at once.
    await w.ok(w.owner, "products_set_status", { siteId: w.siteA, id: tee.id, status: "active" });
    expect((await rest("/products")).body.data.map((p: any) => p.slug)).toEqual(["tee"]);

    const on = await w.ok(w.gated, "products_set_status", { siteId: w.siteA, id: mug.id, status: "active" });
    expectStaged(on, "products_set_status");
    expect((await rest("/products")).body.data.map((p: any) => p.slug)).toEqual(["tee"]);
    expect((await rest("/products/blue-mug")).status).toBe(404);
    const preview = await w.ok(w.owner, "approvals_get", { id: on.approval.id });
    expect(preview).toMatchObject({ entityType: "product" });
    expect(preview.proposal.summary).toContain("Putting the product “Blue Mug” on sale");
    expect(preview.proposal.changes).toEqual([{ field: "status", before: "draft", after: "active" }]);
    await w.ok(w.colleague, "approvals_approve", { id: on.approval.id });
    expect((await rest("/products")).body.data.map((p: any) => p.slug).sort()).toEqual(["blue-mug", "tee"]);

    // A price: rejected, the storefront keeps the old one.
    const price = await w.ok(w.gated, "products_update", { siteId: w.siteA, id: tee.id, price: 9900 });
    expectStaged(price, "products_update");
    expect((await w.ok(w.owner, "approvals_get", { id: price.approval.id })).proposal.changes).toEqual([
      { field: "price", before: "2500", after: "9900" },
    ]);
    await w.ok(w.colleague, "approvals_reject", { id: price.approval.id });
    expect((await rest("/products/tee")).body.data.price).toBe(2500);

    // A variant's stock, and a new variant.
    const variantId = (await rest("/products/blue-mug")).body.data.variants[0].id;
    const stock = await w.ok(w.gated, "product_variants_update", { siteId: w.siteA, id: variantId, quantity: 0 });
    expectStaged(stock, "product_variants_update");
    const added = await w.ok(w.gated, "product_variants_create", {
      siteId: w.siteA,
      productId: mug.id,
      options: { Size: "M" },
      price: 2000,
    });
    expectStaged(added, "product_variants_create");
    expect((await w.ok(w.owner, "approvals_get", { id: stock.approval.id })).proposal.changes).toEqual([
      { field: "quantity", before: "5", after: "0" },
    ]);
    expect((await w.ok(w.owner, "approvals_get", { id: added.approval.id })).proposal.changes).toEqual([
      { field: "price", before: null, after: "2000" },
      { field: "options", before: null, after: '{"Size":"M"}' },
    ]);
    let detail = (await rest("/products/blue-mug")).body.data;
    expect(detail.variants.map((v: any) => [v.quantity, v.price])).toEqual([[5, 1800]]);
    await w.ok(w.colleague, "approvals_approve", { id: stock.approval.id });
    await w.ok(w.colleague, "approvals_approve", { id: added.approval.id });
    detail = (await rest("/products/blue-mug")).body.data;
    expect(detail.variants.map((v: any) => [v.quantity, v.price])).toEqual([
      [0, 1800],
      [null, 2000],
    ]);

    // Store settings: turning the store off would empty the storefront.
    const off = await w.ok(w.gated, "store_settings_update", { siteId: w.siteA, enabled: false });
    expectStaged(off, "store_settings_update");
    expect((await rest("/products")).status).toBe(200);
    expect((await w.ok(w.owner, "approvals_get", { id: off.approval.id })).proposal.changes).toEqual([
      { field: "enabled", before: "true", after: "false" },
    ]);
    await w.ok(w.colleague, "approvals_reject", { id: off.approval.id });
    expect((await rest("/products")).status).toBe(200);
  });

  test("surveys: closing an open survey is held; /s/<slug> keeps taking answers until a person approves", async () => {
    const created = await w.ok(w.owner, "surveys_create", {
      title: "Coffee feedback",
      pages: [{ questions: [{ id: "q", type: "short_text", title: "How was it?" }] }],
    });
    await w.ok(w.colleague, "approvals_approve", { id: created.approval.id });
    const page = async () => {
      const r = await fetch(`${s.url}/s/${created.slug}`);
      await r.text();
      return r.status;
    };
    expect(await page()).toBe(200);
    const staged = await w.ok(w.gated, "surveys_close", { id: created.id });
    expectStaged(staged, "surveys_close");
    expect(await page()).toBe(200);
    const preview = await w.ok(w.owner, "approvals_get", { id: staged.approval.id });
    expect(preview).toMatchObject({ entityType: "survey" });
    expect(preview.proposal.summary).toContain("Closing the open survey “Coffee feedback”");
    await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(await page()).toBe(410);
  });

  test("bookings: time off that removes public slots waits for approval", async () => {
    // An ordinary key's hours apply at once.
    await w.ok(w.owner, "booking_schedules_set", {
      member: w.ownerUserId,
      timeZone: "UTC",
      weeklyHours: { mon: ["09:00-17:00"] },
    });
    const year = s.clock.now().getUTCFullYear() + 1;
    const args = { member: w.ownerUserId, startDate: `${year}-03-02`, endDate: `${year}-03-04` };
    const staged = await w.ok(w.gated, "booking_time_off_create", args);
    expectStaged(staged, "booking_time_off_create");
    const timeOff = async () =>
      (await w.ok(w.owner, "booking_schedules_get", { member: w.ownerUserId })).timeOff as unknown[];
    expect(await timeOff()).toEqual([]);
    await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(await timeOff()).toEqual([expect.objectContaining({ startDate: args.startDate, endDate: args.endDate })]);
  });

  test("bookings: pausing a live page, or changing it, is held; one approval applies a change (no second review)", async () => {
    const created = await w.ok(w.owner, "booking_pages_create", { title: "Tasting", hosts: [w.ownerUserId] });
    await w.ok(w.colleague, "approvals_approve", { id: created.approval.id });
    const page = async () => {
      const r = await fetch(`${s.url}/b/${created.slug}`);
      return { status: r.status, html: await r.text() };
    };
    expect((await page()).html).not.toContain("not taking bookings");

    const pause = await w.ok(w.gated, "booking_pages_update", { id: created.id, paused: true });
    expectStaged(pause, "booking_pages_update");
    expect((await page()).html).not.toContain("not taking bookings");
    const preview = await w.ok(w.owner, "approvals_get", { id: pause.approval.id });
    expect(preview).toMatchObject({ entityType: "booking_page" });
    expect(preview.proposal.changes).toEqual([{ field: "paused", before: "false", after: "true" }]);
    await w.ok(w.colleague, "approvals_approve", { id: pause.approval.id });
    expect((await page()).html).toContain("not taking bookings");

    const renamed = await w.ok(w.gated, "booking_pages_update", { id: created.id, title: "Evening tasting" });
    expectStaged(renamed, "booking_pages_update");
    await w.ok(w.colleague, "approvals_approve", { id: renamed.approval.id });
    const got = await w.ok(w.owner, "booking_pages_get", { id: created.id });
    expect(got.title).toBe("Evening tasting");
    expect((await page()).html).toContain("Evening tasting");
  });

  test("email: sending an approved campaign waits for a person; the subscribers get nothing until then", async () => {
    const list = await w.ok(w.owner, "email_lists_create", { name: "Regulars", optIn: "single" });
    await w.ok(w.owner, "email_subscribers_add", { email: "pat@example.com", listIds: [list.id] });
    const c = await w.ok(w.owner, "email_campaigns_create", {
      name: "Autumn",
      subject: "New beans",
      html: "<p>New beans are in.</p>",
      listIds: [list.id],
    });
    await w.ok(w.colleague, "approvals_approve", { id: c.approval.id });
    const status = async () => (await w.ok(w.owner, "email_campaigns_get", { id: c.id })).status;
    expect(await status()).toBe("draft");

    const rejected = await w.ok(w.gated, "email_campaigns_schedule", {
      id: c.id,
      at: `${s.clock.now().getUTCFullYear() + 1}-01-05T09:00:00Z`,
    });
    expectStaged(rejected, "email_campaigns_schedule");
    await w.ok(w.colleague, "approvals_reject", { id: rejected.approval.id });
    expect(await status()).toBe("draft");

    const staged = await w.ok(w.gated, "email_campaigns_send", { id: c.id });
    expectStaged(staged, "email_campaigns_send");
    expect(await status()).toBe("draft");
    const sends = async () =>
      Number(
        (await row<{ n: number }>(s.deps, "SELECT count(*) AS n FROM email_sends WHERE campaign_id = ?", c.id))!.n,
      );
    expect(await sends()).toBe(0);
    const preview = await w.ok(w.owner, "approvals_get", { id: staged.approval.id });
    expect(preview).toMatchObject({ entityType: "email_campaign" });
    expect(preview.proposal.summary).toContain("Sending the campaign “Autumn”");
    await w.ok(w.colleague, "approvals_approve", { id: staged.approval.id });
    expect(await status()).not.toBe("draft");
  });

  test("a supervised call that would fail fails now, with the usual error, and mints nothing; other companies' records stay unseen", async () => {
    const links = async () => Number((await row<{ n: number }>(s.deps, "SELECT count(*) AS n FROM approval_links"))!.n);
    const before = await links();
    expect(
      await w.err(w.gated, "branding_update_profile", { siteId: w.siteA, branding: { primaryColor: "red; x" } }),
    ).toContain("primaryColor");
    expect(
      await w.err(w.gated, "branding_update_profile", { siteId: w.siteB, branding: { primaryColor: "#000000" } }),
    ).toStartWith("Not found");
    expect(await w.err(w.gated, "store_settings_update", { siteId: w.siteB, enabled: false })).toStartWith("Not found");
    const theirs = await w.ok(w.stranger, "products_create", { siteId: w.siteB, name: "Their mug", price: 100 });
    expect(
      await w.err(w.gated, "products_set_status", { siteId: w.siteA, id: theirs.id, status: "active" }),
    ).toStartWith("Not found");
    expect(await w.err(w.gated, "surveys_close", { id: 999_999 })).toStartWith("Not found");
    expect(await links()).toBe(before);
  });

  test("gated tools are not staged as well: a deck's draft is made at once, publishing asks a person once", async () => {
    const deck = await w.ok(w.gated, "decks_create", {
      title: "Supervised deck",
      slides: [{ layout: "title", content: { title: "Hello" } }],
    });
    expect(deck.status).not.toBe("staged");
    const pub = await w.ok(w.gated, "decks_publish", { id: deck.id });
    expect(pub.status).not.toBe("staged");
    expect(pub.approval).toMatchObject({ linkType: "entity", status: "pending" });
    expect((await fetch(`${s.url}/d/${deck.slug}`)).status).toBe(404);
  });
});
