/**
 * The surveys verbs on a real store (this run's engine): drafting and
 * approval, what a live survey does with proposed changes, submissions page
 * by page, quota and close date (exact instants, races), responses (filters,
 * tags, notes, CSV, summaries), tenancy, roles and the events each write
 * emits in its transaction.
 */
import "../../src/catalog"; // builds the catalog: emit() knows every domain's events
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import Papa from "papaparse";
import { events } from "../../src/core/tables";
import { domains } from "../../src/domains";
import { closeDueSurveys } from "../jobs";
import { surveyResponses, surveys } from "../../src/domains/surveys/tables";
import { surveysDomain } from "../../src/domains/surveys/tools";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { approvalLinks } from "../../src/domains/approvals/tables";
import { call, errorOf, makeWorld, type World } from "../store/world";
import { approve, createApproved, FEEDBACK, pageShown, submit, tokenHash } from "./fixtures";

let w: World;
beforeAll(async () => {
  w = await makeWorld();
});
afterAll(async () => {
  await w?.close();
});

const ok = (name: string, args: Record<string, unknown>, ctx = w.ctx()) => call(surveysDomain, ctx, name, args);
const fail = (name: string, args: Record<string, unknown>, ctx = w.ctx()) =>
  errorOf(() => call(surveysDomain, ctx, name, args));
const eventsOf = async (type: string) =>
  (await w.deps.db.select().from(events).where(eq(events.type, type)).orderBy(events.id)).map((e) => e.data as any);
let tokens = 0;
const tok = () => (++tokens).toString(16).padStart(32, "0");

/** A visitor answering FEEDBACK end to end: returns the outcome of the last page. */
async function answerAll(id: number, nps: number, opts: { hidden?: Record<string, string>; token?: string } = {}) {
  const t = opts.token ?? tok();
  const first = await submit(
    w.deps,
    id,
    t,
    "p1",
    { "q.nps": String(nps), "q.visits": "weekly" },
    { hidden: opts.hidden },
  );
  if (pageShown(first) === "p2")
    await submit(w.deps, id, t, "p2", { "q.why": "More oat milk" }, { hidden: opts.hidden });
  return {
    token: t,
    last: await submit(
      w.deps,
      id,
      t,
      "p3",
      [
        ["q.drinks", "espresso"],
        ["q.pastry", "4"],
      ],
      { hidden: opts.hidden },
    ),
  };
}

describe("drafting and approval", () => {
  test("create drafts a pending survey with a link; approving opens it; events say so", async () => {
    const r = await ok("surveys_create", FEEDBACK);
    expect(r).toMatchObject({
      slug: "harbor-coffee-feedback",
      status: "pending",
      url: `${w.deps.config.publicUrl}/s/harbor-coffee-feedback`,
    });
    expect(r.approval.token).toMatch(/^[0-9a-f]{64}$/);
    expect(r.warnings[0]).toContain("Not every text is translated into de");
    expect((await ok("surveys_get", { id: r.id })).acceptingResponses).toBe(false);
    await approve(w.deps, r.approval.token);
    const got = await ok("surveys_get", { slug: r.slug });
    expect(got).toMatchObject({
      status: "open",
      acceptingResponses: true,
      version: 2,
      approval: { status: "approved" },
    });
    expect(got.definition.pages.map((p: any) => p.id)).toEqual(["p1", "p2", "p3"]);
    expect((await eventsOf("survey.created")).at(-1)).toMatchObject({
      slug: r.slug,
      questions: 6,
      languages: ["en", "de"],
    });
    expect((await eventsOf("survey.approved")).at(-1)).toMatchObject({
      slug: r.slug,
      change: "new",
      version: 2,
      decidedBy: "Rita Reviewer",
    });
  });

  test("a generated slug moves off a taken one and says so; a chosen taken slug is refused without naming its owner", async () => {
    const a = await ok("surveys_create", { ...FEEDBACK, title: "Same name" });
    const b = await ok("surveys_create", { ...FEEDBACK, title: "Same name" });
    expect(b.slug).toBe("same-name-2");
    expect(b.note).toContain('slug "same-name" is already used');
    // Another company's survey holds the slug: refused, and nothing says whose it is.
    const e = await fail("surveys_create", { ...FEEDBACK, slug: a.slug }, w.ctx({ company: "other" }));
    expect(e.message).toBe(
      `The survey address /s/${a.slug} is taken. Choose another slug, or omit slug to have one generated.`,
    );
  });

  test("rejecting a new survey leaves it closed to the public; updating it proposes again", async () => {
    const r = await ok("surveys_create", { ...FEEDBACK, title: "Rejected one" });
    const d = await decideApproval(w.deps, { token: r.approval.token }, "reject", {
      decidedBy: "Rita",
      comment: "Too long",
    });
    expect(d.ok).toBe(true);
    expect((await ok("surveys_get", { id: r.id })).status).toBe("rejected");
    expect((await eventsOf("survey.rejected")).at(-1)).toMatchObject({ slug: r.slug, comment: "Too long" });
    const again = await ok("surveys_update", { id: r.id, title: "Shorter one" });
    expect(again).toMatchObject({ status: "pending", slug: r.slug });
    expect((await ok("surveys_get", { id: r.id })).title).toBe("Shorter one");
  });

  test("changes to a live survey wait in a draft: the form keeps the approved version until approval", async () => {
    const s = await createApproved(w, { ...FEEDBACK, title: "Live one" });
    const pages = structuredClone(FEEDBACK.pages);
    pages[1]!.questions[0]!.title = "What one thing should we change?";
    const u = await ok("surveys_update", { id: s.id, pages, maxResponses: 500 });
    expect(u).toMatchObject({ status: "open", pendingChanges: true });
    expect(u.message).toContain("approved version stays live");
    let got = await ok("surveys_get", { id: s.id });
    expect(got.definition.pages[1].questions[0].title).toBe("What should we improve?");
    expect(got.proposed.pages[1].questions[0].title).toBe("What one thing should we change?");
    expect(got.proposedChanges).toEqual(["pages", "maxResponses"]);
    // A second update accumulates into the same draft and supersedes the first link.
    const u2 = await ok("surveys_update", { id: s.id, submitLabel: "Send" });
    const first = (await w.deps.db.select().from(approvalLinks).where(eq(approvalLinks.id, u.approval.id)))[0]!;
    expect(first.status).toBe("superseded");
    await approve(w.deps, u2.approval.token);
    got = await ok("surveys_get", { id: s.id });
    expect(got).toMatchObject({ pendingChanges: false, maxResponses: 500, version: 3 });
    expect(got.definition.pages[1].questions[0].title).toBe("What one thing should we change?");
    expect(got.definition.submitLabel).toBe("Send");
    expect((await eventsOf("survey.approved")).at(-1)).toMatchObject({ change: "changes", version: 3 });
    // Nothing new: a live survey says so and mints nothing.
    expect((await ok("surveys_update", { id: s.id })).message).toBe("Nothing to change: the survey is live as it is.");
  });

  test("a question with answers cannot change type; removing one warns", async () => {
    const s = await createApproved(w, { ...FEEDBACK, title: "Typed" });
    await answerAll(s.id, 5);
    const pages = structuredClone(FEEDBACK.pages) as any[];
    pages[2].questions[1] = { id: "pastry", type: "short_text", title: "Pastries?" };
    expect((await fail("surveys_update", { id: s.id, pages })).message).toContain(
      'Question "pastry" has answers in 1 response(s), so it cannot change from rating to short_text',
    );
    pages[2].questions.splice(1, 1);
    const r = await ok("surveys_update", { id: s.id, pages });
    expect(r.warnings.join(" ")).toContain('Question "pastry" is removed, but 1 response(s) answered it');
  });

  test("translations: keys listed, set through approval, dropped when their source text changes", async () => {
    const s = await createApproved(w, { ...FEEDBACK, title: "Translated" });
    const t = await ok("survey_translations_get", { surveyId: s.id });
    expect(t.defaultLanguage).toBe("en");
    expect(t.texts.find((x: any) => x.key === "visits.daily")).toEqual({
      key: "visits.daily",
      text: "Daily",
      translations: { de: null },
    });
    expect(
      (await fail("survey_translations_set", { surveyId: s.id, language: "de", texts: { "ghost.title": "x" } }))
        .message,
    ).toContain('"ghost.title" is not a text of this survey');
    const r = await ok("survey_translations_set", {
      surveyId: s.id,
      language: "de",
      texts: { "nps.title": "Wie wahrscheinlich empfehlen Sie uns?", "visits.daily": "Täglich" },
    });
    expect(r.pendingChanges).toBe(true);
    await approve(w.deps, r.approval.token);
    const after = await ok("survey_translations_get", { surveyId: s.id, language: "de" });
    expect(after.texts.find((x: any) => x.key === "visits.daily").translations.de).toBe("Täglich");
    expect(after.missing.de).toBe(after.texts.length - 2);
    const pages = structuredClone(FEEDBACK.pages) as any[];
    pages[0].questions[1].choices[0].label = "Every day";
    const u = await ok("surveys_update", { id: s.id, pages });
    expect(u.warnings.join(" ")).toContain("de:visits.daily");
    expect((await ok("surveys_get", { id: s.id })).proposed.translations.de).toEqual({
      "nps.title": "Wie wahrscheinlich empfehlen Sie uns?",
    });
  });

  test("fork copies the latest proposal into a new pending draft, without responses", async () => {
    const s = await createApproved(w, { ...FEEDBACK, title: "Original" });
    await answerAll(s.id, 10);
    const f = await ok("surveys_fork", { id: s.id });
    expect(f).toMatchObject({ slug: "original-copy", status: "pending", forkedFromId: s.id });
    const got = await ok("surveys_get", { id: f.id });
    expect(got).toMatchObject({ title: "Original (copy)", responseCount: 0, forkedFromId: s.id });
    expect(got.definition.pages).toEqual((await ok("surveys_get", { id: s.id })).definition.pages);
  });
});

/** This visitor's own response (by its token), never another one that happens to look alike. */
async function responseOf(surveyId: number, token: string) {
  const rows = await w.deps.db
    .select()
    .from(surveyResponses)
    .where(and(eq(surveyResponses.surveyId, surveyId), eq(surveyResponses.tokenHash, tokenHash(surveyId, token))));
  expect(rows).toHaveLength(1);
  return rows[0]!;
}

describe("submissions", () => {
  let s: { id: number; slug: string };
  beforeAll(async () => {
    s = await createApproved(w, { ...FEEDBACK, title: "Submissions" });
  });

  test("skip logic across pages; the response is created on page 1 and finished at the ending", async () => {
    const t = tok();
    const one = await submit(w.deps, s.id, t, "p1", { "q.nps": "10", "q.visits": "daily" });
    expect(pageShown(one)).toBe("p3");
    const created = (await eventsOf("survey.response_created")).at(-1);
    expect(created).toMatchObject({
      slug: s.slug,
      finished: false,
      answers: [
        { questionId: "nps", answer: "10" },
        { questionId: "visits", answer: "Daily" },
      ],
    });
    const end = await submit(w.deps, s.id, t, "p3", [
      ["q.drinks", "tea"],
      ["q.pastry", "5"],
      ["q.email", "ana@example.com"],
    ]);
    expect(end).toMatchObject({ kind: "ending", endingId: "thanks", already: false });
    const r = (await w.deps.db.select().from(surveyResponses).where(eq(surveyResponses.surveyId, s.id)))[0]!;
    expect(r).toMatchObject({
      finished: true,
      path: ["p1", "p3"],
      endingId: "thanks",
      answers: { nps: 10, visits: "daily", drinks: ["tea"], pastry: 5, email: "ana@example.com" },
    });
    expect((await eventsOf("survey.response_finished")).at(-1)).toMatchObject({
      surveyId: s.id,
      endingId: "thanks",
      finished: true,
    });
  });

  test("a double submit of the last page stores one response and shows the same ending", async () => {
    const { token, last } = await answerAll(s.id, 9);
    expect(last).toMatchObject({ kind: "ending", already: false });
    const before = (await ok("surveys_get", { id: s.id })).responseCount;
    const again = await submit(w.deps, s.id, token, "p3", [["q.drinks", "filter"]]);
    expect(again).toMatchObject({ kind: "ending", endingId: "thanks", already: true });
    expect((await ok("surveys_get", { id: s.id })).responseCount).toBe(before);
  });

  test("racing submits of one form (two tabs, a double click) store one finished response", async () => {
    const t = tok();
    await submit(w.deps, s.id, t, "p1", { "q.nps": "10", "q.visits": "daily" });
    const before = (await ok("surveys_get", { id: s.id })).responseCount;
    const outs = await Promise.all(Array.from({ length: 8 }, () => submit(w.deps, s.id, t, "p3", [["q.pastry", "3"]])));
    expect(outs.filter((o) => o.kind === "ending" && !o.already)).toHaveLength(1);
    expect(outs.every((o) => o.kind === "ending")).toBe(true);
    expect((await ok("surveys_get", { id: s.id })).responseCount).toBe(before + 1);
  });

  test("a forged page id or a page the logic skipped is not read: the visitor gets the page they are on", async () => {
    const t = tok();
    await submit(w.deps, s.id, t, "p1", { "q.nps": "10", "q.visits": "daily" });
    // p2 is skipped for a promoter: its answers are ignored, p3 is shown again.
    const skipped = await submit(w.deps, s.id, t, "p2", { "q.why": "<script>alert(1)</script>" });
    expect(pageShown(skipped)).toBe("p3");
    expect(pageShown(await submit(w.deps, s.id, t, "nope", { "q.why": "x" }))).toBe("p3");
    const row = await responseOf(s.id, t);
    expect(row).toMatchObject({ path: ["p1"], finished: false });
    expect(row.answers).toEqual({ nps: 10, visits: "daily" });
    // Answers to questions of another page, sent with this page, are not read either.
    await submit(w.deps, s.id, t, "p3", [
      ["q.pastry", "2"],
      ["q.why", "forged"],
      ["q.nps", "0"],
    ]);
    const done = (await w.deps.db.select().from(surveyResponses).where(eq(surveyResponses.id, row.id)))[0]!;
    expect(done.answers).toEqual({ nps: 10, visits: "daily", pastry: 2 });
  });

  test("going back keeps answers; changing an earlier answer re-routes and drops answers of pages left off the path", async () => {
    const t = tok();
    expect(pageShown(await submit(w.deps, s.id, t, "p1", { "q.nps": "3", "q.visits": "weekly" }))).toBe("p2");
    await submit(w.deps, s.id, t, "p2", { "q.why": "Slow service" });
    const back = await submit(w.deps, s.id, t, "p3", [["q.pastry", "4"]], { nav: "back" });
    expect(pageShown(back)).toBe("p2");
    expect(back.kind === "page" && back.values.get("q.why")).toEqual(["Slow service"]);
    const back2 = await submit(w.deps, s.id, t, "p2", {}, { nav: "back" });
    expect(pageShown(back2)).toBe("p1");
    expect(back2.kind === "page" && back2.values.get("q.nps")).toEqual(["3"]);
    // Now a promoter: p2 is off the path, and its answer is not kept when the response finishes.
    expect(pageShown(await submit(w.deps, s.id, t, "p1", { "q.nps": "10", "q.visits": "weekly" }))).toBe("p3");
    const p3 = await submit(w.deps, s.id, t, "p3", [["q.pastry", "4"]]);
    expect(p3.kind).toBe("ending");
    // Read this visitor's response by its token: another finished one (answerAll's) looks just like it.
    const r = await responseOf(s.id, t);
    expect(r).toMatchObject({ finished: true, path: ["p1", "p3"] });
    expect(r.answers).toEqual({ nps: 10, visits: "weekly", pastry: 4 });
  });

  test("errors re-show the page with what was typed and store nothing", async () => {
    const t = tok();
    const o = await submit(w.deps, s.id, t, "p1", { "q.nps": "11", "q.visits": "monthly" });
    expect(o.kind === "page" && o.errors).toEqual({ nps: { key: "errChoose" }, visits: { key: "errChoose" } });
    expect(o.kind === "page" && o.values.get("q.nps")).toEqual(["11"]);
    const none = await w.deps.db
      .select()
      .from(surveyResponses)
      .where(and(eq(surveyResponses.surveyId, s.id), eq(surveyResponses.tokenHash, "x")));
    expect(none).toEqual([]);
  });

  test("a hidden field picks the ending and is kept from the first page", async () => {
    const { last } = await answerAll(s.id, 10, { hidden: { source: "vip" } });
    expect(last).toMatchObject({ kind: "ending", endingId: "vip" });
  });
});

describe("quota and close date", () => {
  test("at the quota the survey closes itself (event), and racing visitors never exceed it", async () => {
    const s = await createApproved(w, { ...FEEDBACK, title: "Quota", maxResponses: 3 });
    await answerAll(s.id, 10);
    // Five visitors on the last page at once, two places left.
    const ts = Array.from({ length: 5 }, () => tok());
    for (const t of ts) await submit(w.deps, s.id, t, "p1", { "q.nps": "10", "q.visits": "daily" });
    const outs = await Promise.all(ts.map((t) => submit(w.deps, s.id, t, "p3", [["q.pastry", "5"]])));
    expect(outs.filter((o) => o.kind === "ending").length).toBe(2);
    expect(outs.filter((o) => o.kind === "closed").length).toBe(3);
    const got = await ok("surveys_get", { id: s.id });
    expect(got).toMatchObject({ responseCount: 3, status: "closed", closedReason: "quota", acceptingResponses: false });
    const finished = await w.deps.db
      .select()
      .from(surveyResponses)
      .where(and(eq(surveyResponses.surveyId, s.id), eq(surveyResponses.finished, true)));
    expect(finished).toHaveLength(3);
    expect((await eventsOf("survey.closed")).at(-1)).toMatchObject({ slug: s.slug, reason: "quota", responseCount: 3 });
    expect((await fail("surveys_reopen", { id: s.id })).message).toContain("reached its limit of 3 responses");
    // Raising the quota through approval reopens it.
    const u = await ok("surveys_update", { id: s.id, maxResponses: 10 });
    await approve(w.deps, u.approval.token);
    expect(await ok("surveys_get", { id: s.id })).toMatchObject({ status: "open", acceptingResponses: true });
  });

  test("the close date is exact: open until the instant before, closed from it; the job marks it once", async () => {
    const closesAt = new Date(w.clock.now().getTime() + 60 * 60_000).toISOString();
    const s = await createApproved(w, { ...FEEDBACK, title: "Dated", closesAt });
    w.clock.set(Date.parse(closesAt) - 1);
    const t = tok();
    expect(pageShown(await submit(w.deps, s.id, t, "p1", { "q.nps": "10", "q.visits": "daily" }))).toBe("p3");
    w.clock.set(Date.parse(closesAt));
    expect(await submit(w.deps, s.id, t, "p3", [["q.pastry", "5"]])).toEqual({ kind: "closed", reason: "date" });
    expect((await ok("surveys_get", { id: s.id })).status).toBe("open");
    expect(await closeDueSurveys(w.deps)).toBeGreaterThanOrEqual(1);
    expect(await ok("surveys_get", { id: s.id })).toMatchObject({ status: "closed", closedReason: "date" });
    const closed = (await eventsOf("survey.closed")).filter((e) => e.slug === s.slug);
    expect(await closeDueSurveys(w.deps)).toBe(0);
    expect((await eventsOf("survey.closed")).filter((e) => e.slug === s.slug)).toEqual(closed);
    expect(closed).toHaveLength(1);
  });

  test("close and reopen by hand; delete only when not open, responses only when asked", async () => {
    const s = await createApproved(w, { ...FEEDBACK, title: "Manual" });
    await answerAll(s.id, 2);
    expect((await fail("surveys_delete", { id: s.id })).message).toContain("close it with surveys_close first");
    expect(await ok("surveys_close", { id: s.id })).toMatchObject({ status: "closed", closedReason: "manual" });
    expect(await ok("surveys_close", { id: s.id })).toMatchObject({ alreadyClosed: true });
    expect(await submit(w.deps, s.id, tok(), "p1", { "q.nps": "1", "q.visits": "daily" })).toEqual({
      kind: "closed",
      reason: "closed",
    });
    expect(await ok("surveys_reopen", { id: s.id })).toMatchObject({ status: "open" });
    await ok("surveys_close", { id: s.id });
    expect((await fail("surveys_delete", { id: s.id })).message).toContain("has 1 response(s)");
    expect(await ok("surveys_delete", { id: s.id, deleteResponses: true })).toEqual({
      id: s.id,
      slug: s.slug,
      status: "deleted",
      responsesDeleted: 1,
    });
    expect(await w.deps.db.select().from(surveyResponses).where(eq(surveyResponses.surveyId, s.id))).toEqual([]);
  });
});

describe("responses", () => {
  let s: { id: number; slug: string };
  beforeAll(async () => {
    s = await createApproved(w, { ...FEEDBACK, title: "Responses" });
    await answerAll(s.id, 10, { hidden: { source: "newsletter" } });
    w.clock.advance(60_000);
    await answerAll(s.id, 6);
    w.clock.advance(60_000);
    await answerAll(s.id, 9, { hidden: { source: "newsletter" } });
    w.clock.advance(60_000);
    await submit(w.deps, s.id, tok(), "p1", { "q.nps": "0", "q.visits": "rarely" }); // unfinished
  });

  test("list and filter by completion, answer, hidden field, date and search", async () => {
    const all = await ok("survey_responses_list", { surveyId: s.id });
    expect(all.total).toBe(4);
    expect(all.items.map((r: any) => r.answers.nps)).toEqual([0, 9, 6, 10]);
    expect(
      (await ok("survey_responses_list", { surveyId: s.id, filter: { finished: false } })).items.map(
        (r: any) => r.answers.nps,
      ),
    ).toEqual([0]);
    const promoters = await ok("survey_responses_list", {
      surveySlug: s.slug,
      filter: { where: [{ field: "nps", op: "greaterOrEqual", value: 9 }] },
    });
    expect(promoters.items.map((r: any) => r.answers.nps)).toEqual([9, 10]);
    const src = await ok("survey_responses_list", {
      surveyId: s.id,
      filter: {
        where: [
          { field: "source", op: "equals", value: "newsletter" },
          { field: "nps", op: "equals", value: 9 },
        ],
      },
    });
    expect(src.items.map((r: any) => r.answers.nps)).toEqual([9]);
    const early = await ok("survey_responses_list", {
      surveyId: s.id,
      filter: { to: new Date(w.clock.now().getTime() - 2 * 60_000 + 1).toISOString() },
    });
    expect(early.items.map((r: any) => r.answers.nps)).toEqual([6, 10]);
    // `to` is exclusive: the response created at that very instant is not included.
    const exact = await ok("survey_responses_list", {
      surveyId: s.id,
      filter: { to: new Date(w.clock.now().getTime() - 2 * 60_000).toISOString() },
    });
    expect(exact.items.map((r: any) => r.answers.nps)).toEqual([10]);
    const found = await ok("survey_responses_list", { surveyId: s.id, filter: { search: "OAT MILK" } });
    expect(
      found.items.map((r: any) => r.answers.nps),
      JSON.stringify(all.items),
    ).toEqual([6]);
    expect(
      (await fail("survey_responses_list", { surveyId: s.id, filter: { where: [{ field: "ghost", op: "answered" }] } }))
        .message,
    ).toContain('filter.where[0].field "ghost" is not a question or hidden field');
    expect(
      (
        await fail("survey_responses_list", {
          surveyId: s.id,
          filter: { where: [{ field: "nps", op: "contains", value: 1 }] },
        })
      ).message,
    ).toContain('"contains" does not apply to nps question');
  });

  test("tag, annotate, get; tags list and filter; events", async () => {
    const [newest] = (await ok("survey_responses_list", { surveyId: s.id, filter: { finished: true }, limit: 1 }))
      .items;
    expect(await ok("survey_responses_tag", { id: newest.id, add: ["Follow up", "vip"] })).toMatchObject({
      tags: ["follow up", "vip"],
    });
    expect(await ok("survey_responses_tag", { id: newest.id, remove: ["VIP"] })).toMatchObject({ tags: ["follow up"] });
    const n = await ok("survey_responses_annotate", { id: newest.id, note: "Called back, happy now." });
    expect(n.note).toMatchObject({ id: 1, text: "Called back, happy now.", by: "Owner" });
    const got = await ok("survey_responses_get", { id: newest.id });
    expect(got).toMatchObject({
      tags: ["follow up"],
      notes: [{ id: 1, text: "Called back, happy now." }],
      survey: { id: s.id, slug: s.slug },
      path: ["p1", "p3"],
      hidden: { source: "newsletter" },
    });
    expect(got.answersText.find((a: any) => a.questionId === "visits")).toEqual({
      questionId: "visits",
      question: "How often do you visit?",
      type: "single_choice",
      value: "weekly",
      text: "Weekly",
    });
    expect(
      (await ok("survey_responses_list", { surveyId: s.id, filter: { tag: "Follow Up" } })).items.map((r: any) => r.id),
    ).toEqual([newest.id]);
    expect(await ok("survey_tags_list", { surveyId: s.id })).toEqual({
      surveyId: s.id,
      tags: [{ tag: "follow up", count: 1 }],
    });
    expect((await eventsOf("survey.response_tagged")).slice(-2).map((e) => [e.added, e.removed])).toEqual([
      [["follow up", "vip"], []],
      [[], ["vip"]],
    ]);
    expect((await eventsOf("survey.response_annotated")).at(-1)).toMatchObject({
      noteId: 1,
      text: "Called back, happy now.",
    });
  });

  test("summary over filtered responses", async () => {
    const all = await ok("survey_responses_summarize", { surveyId: s.id });
    expect(all).toMatchObject({ responses: 4, finished: 3, completionRate: 75 });
    const nps = all.questions.find((q: any) => q.id === "nps");
    // 10, 6, 9, 0: promoters 2, detractors 2 → 0; average 25/4 = 6.25.
    expect(nps).toMatchObject({
      answered: 4,
      average: 6.25,
      nps: { score: 0, promoters: 2, passives: 0, detractors: 2 },
    });
    const fin = await ok("survey_responses_summarize", { surveyId: s.id, filter: { finished: true } });
    // 10, 6, 9: promoters 2, detractors 1 → (2 − 1) / 3 = 33.33.
    expect(fin.questions.find((q: any) => q.id === "nps")).toMatchObject({
      answered: 3,
      average: 8.33,
      nps: { score: 33.33, promoters: 2, passives: 0, detractors: 1 },
    });
    expect(
      (await fail("survey_responses_summarize", { surveyId: s.id, filter: { finished: "yes" } })).message,
    ).toContain("filter.finished");
  });

  test("CSV export: one column per question, labels, and formulas neutralised", async () => {
    const t = tok();
    await submit(
      w.deps,
      s.id,
      t,
      "p1",
      { "q.nps": "2", "q.visits": "other", "q.visits.other": '=HYPERLINK("http://evil.example","x")' },
      { hidden: { source: "+cmd" } },
    );
    await submit(w.deps, s.id, t, "p2", { "q.why": "=1+2\n@SUM(A1)" });
    await submit(w.deps, s.id, t, "p3", [["q.email", "a@b.co"]]);
    const out = await ok("survey_responses_export", {
      surveyId: s.id,
      filter: { where: [{ field: "nps", op: "equals", value: 2 }] },
    });
    expect(out).toMatchObject({ rows: 1, total: 1, nextOffset: null });
    const parsed = Papa.parse<string[]>(out.csv.trim(), { skipEmptyLines: true }).data;
    const [head, row] = parsed as [string[], string[]];
    expect(head.slice(0, 9)).toEqual([
      "Response ID",
      "Created",
      "Finished",
      "Finished at",
      "Language",
      "Ending",
      "Tags",
      "Notes",
      "hidden: source",
    ]);
    const col = (name: string) => row[head.indexOf(name)];
    expect(col("How often do you visit?")).toBe("Other");
    expect(col("How often do you visit? (other)")).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(col("What should we improve?")).toBe("'=1+2\n@SUM(A1)");
    expect(col("hidden: source")).toBe("'+cmd");
    expect(col("How likely are you to recommend us?")).toBe("2");
    // No cell of the whole export starts with a formula character.
    const all = await ok("survey_responses_export", { surveyId: s.id });
    for (const r of Papa.parse<string[]>(all.csv, { skipEmptyLines: true }).data)
      for (const c of r) expect(c).not.toMatch(/^[=+@\t\r]|^-[^\d]/);
  });

  test("CSV export: a cell starting with -, +, a tab or a carriage return is a formula too", async () => {
    const cells = ["-2+3*cmd|' /C calc'!A0", "+1+cmd", "\t=1+1", "\r=1+1", "-", "+"];
    const q = await createApproved(w, {
      title: "Formula starts",
      hiddenFields: ["source"],
      pages: [{ questions: [{ id: "a", type: "short_text", title: "Anything?" }] }],
    });
    for (const [i, c] of cells.entries())
      await submit(w.deps, q.id, tok(), "page-1", { "q.a": `answer ${i}` }, { hidden: { source: c } });
    const out = await ok("survey_responses_export", { surveyId: q.id });
    const [head, ...rows] = Papa.parse<string[]>(out.csv, { skipEmptyLines: true }).data as string[][];
    const source = head!.indexOf("hidden: source");
    // Newest first; each kept whole behind the quote.
    expect(rows.map((r) => r[source]).reverse()).toEqual(cells.map((c) => `'${c}`));
  });

  test("CSV headers are neutralised too (question titles and choice labels come from the survey)", async () => {
    const q = await createApproved(w, {
      title: "Formula titles",
      pages: [
        { questions: [{ id: "a", type: "short_text", title: '=HYPERLINK("http://x.example")', required: true }] },
      ],
    });
    await submit(w.deps, q.id, tok(), "page-1", { "q.a": "-2+3" });
    const out = await ok("survey_responses_export", { surveyId: q.id });
    const [head, row] = Papa.parse<string[]>(out.csv, { skipEmptyLines: true }).data as [string[], string[]];
    expect(head.at(-1)).toBe('\'=HYPERLINK("http://x.example")');
    expect(row.at(-1)).toBe("'-2+3");
  });

  test("delete a response: it is gone and its place in the quota is freed", async () => {
    const [r] = (await ok("survey_responses_list", { surveyId: s.id, filter: { finished: true }, limit: 1 })).items;
    const before = (await ok("surveys_get", { id: s.id })).responseCount;
    expect(await ok("survey_responses_delete", { id: r.id })).toEqual({ id: r.id, status: "deleted", surveyId: s.id });
    expect((await ok("surveys_get", { id: s.id })).responseCount).toBe(before - 1);
    expect((await fail("survey_responses_get", { id: r.id })).code).toBe("not_found");
  });
});

describe("tenancy and roles", () => {
  test("another company's survey and responses are not found; a viewer reads but cannot write", async () => {
    const s = await createApproved(w, { ...FEEDBACK, title: "Private" });
    const { token } = await answerAll(s.id, 7);
    const [resp] = (await ok("survey_responses_list", { surveyId: s.id })).items;
    const other = w.ctx({ company: "other" });
    expect((await fail("surveys_get", { id: s.id }, other)).code).toBe("not_found");
    expect((await fail("survey_responses_get", { id: resp.id }, other)).code).toBe("not_found");
    expect((await fail("survey_responses_list", { surveyId: s.id }, other)).code).toBe("not_found");
    expect((await fail("survey_responses_tag", { id: resp.id, add: ["x"] }, other)).code).toBe("not_found");
    expect((await fail("surveys_close", { id: s.id }, other)).code).toBe("not_found");
    expect((await fail("surveys_fork", { id: s.id }, other)).code).toBe("not_found");
    expect((await fail("surveys_create", { ...FEEDBACK, siteId: w.otherSiteId })).code).toBe("not_found");
    const viewer = w.ctx({ role: "viewer" });
    expect((await ok("surveys_get", { id: s.id }, viewer)).id).toBe(s.id);
    expect((await fail("surveys_close", { id: s.id }, viewer)).code).toBe("forbidden");
    expect((await fail("survey_responses_annotate", { id: resp.id, note: "x" }, viewer)).code).toBe("forbidden");
    const readOnly = w.ctx({ scopes: ["surveys:read"] });
    expect((await fail("surveys_update", { id: s.id, title: "x" }, readOnly)).message).toBe(
      "This credential lacks the surveys:write scope.",
    );
    expect((await fail("surveys_list", {}, w.ctx({ scopes: ["sites:read"] }))).code).toBe("forbidden");
    expect(token).toBeTruthy();
  });

  test("a write that fails leaves no event behind", async () => {
    const before = (await w.deps.db.select().from(events)).length;
    await fail("surveys_create", {
      ...FEEDBACK,
      pages: [{ questions: [{ id: "x", type: "nps", title: "X", choices: [] }] }],
    });
    expect((await w.deps.db.select().from(events)).length).toBe(before);
    expect((await w.deps.db.select().from(surveys).where(eq(surveys.title, "X"))).length).toBe(0);
  });
});
