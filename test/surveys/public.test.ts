/**
 * The public survey page over real HTTP (no browser): who may see it, the
 * protections on every POST (same origin, double-submit cookie, rate
 * limit per address, honeypot, one-time form token), hostile input, closed
 * surveys, languages, redirects, and the first page served from a cache
 * keyed by the survey's version.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { surveyResponses } from "../../src/domains/surveys/tables";
import { SUBMITS_PER_MINUTE } from "../../src/domains/surveys/public-pages";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { approve, FEEDBACK } from "./fixtures";

let s: TestServer;
let w: World;
let slug: string;
let surveyId: number;

beforeAll(async () => {
  s = await startTestServer({ seed: false });
  w = await makeWorld(s);
  const r = await w.ok(w.owner, "surveys_create", { ...FEEDBACK, title: "Public feedback" });
  await approve(s.deps, r.approval.token);
  slug = r.slug;
  surveyId = r.id;
}, 30_000);
afterAll(async () => {
  await s?.stop();
});

interface Form {
  cookie: string;
  fields: Record<string, string>;
  html: string;
  status: number;
}

/** GETs a survey page like a browser and keeps what its form posts back (hidden inputs, cookie). */
async function open(path: string, headers: Record<string, string> = {}): Promise<Form> {
  const r = await fetch(`${s.url}${path}`, { headers });
  const html = await r.text();
  const cookie = (r.headers.get("set-cookie") ?? "").split(";")[0]!;
  return { cookie, fields: hiddenOf(html), html, status: r.status };
}

function hiddenOf(html: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g))
    out[m[1]!] = m[2]!
      .replace(/&lt;/g, "<")
      .replace(/&gt;/g, ">")
      .replace(/&quot;/g, '"')
      .replace(/&#39;/g, "'")
      .replace(/&amp;/g, "&");
  return out;
}

async function post(
  form: Form,
  answers: [string, string][] | Record<string, string>,
  opts: { headers?: Record<string, string>; at?: string } = {},
) {
  const body = new URLSearchParams(form.fields);
  for (const [k, v] of Array.isArray(answers) ? answers : Object.entries(answers)) body.append(k, v);
  const r = await fetch(`${s.url}/s/${opts.at ?? slug}`, {
    method: "POST",
    redirect: "manual",
    headers: {
      "Content-Type": "application/x-www-form-urlencoded",
      Origin: s.url,
      Cookie: form.cookie,
      ...opts.headers,
    },
    body,
  });
  const html = await r.text();
  return {
    status: r.status,
    html,
    next: { ...form, fields: hiddenOf(html), html, status: r.status } as Form,
    headers: r.headers,
  };
}

const responsesNow = async () =>
  (await s.deps.db.select().from(surveyResponses).where(eq(surveyResponses.surveyId, surveyId))).length;

describe("who sees what", () => {
  test("an approved survey is served with a strict page policy; unknown and unapproved ones are 404", async () => {
    const r = await fetch(`${s.url}/s/${slug}`);
    expect(r.status).toBe(200);
    const csp = r.headers.get("content-security-policy")!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'nonce-[0-9a-f]{32}'/);
    expect(r.headers.get("x-frame-options")).toBe("DENY");
    expect(r.headers.get("cache-control")).toBe("no-store");
    expect(r.headers.get("set-cookie")).toContain("SameSite=Strict");
    const html = await r.text();
    expect(html).toContain('<form class="sv-form" method="post"');
    expect(html).toContain("How likely are you to recommend us?");
    const pending = await w.ok(w.owner, "surveys_create", { ...FEEDBACK, title: "Not approved yet" });
    for (const p of [`/s/${pending.slug}`, "/s/no-such-survey", "/s/Bad%20Slug", `/s/${"a".repeat(300)}`]) {
      const g = await fetch(`${s.url}${p}`);
      expect(g.status).toBe(404);
      expect(await g.text()).toContain("Survey not found");
    }
  });

  test("the first page comes from a cache keyed by version: same bytes but its per-response holes; an approved change shows at once", async () => {
    const a = await open(`/s/${slug}`);
    const b = await open(`/s/${slug}`);
    const holes = (h: string) => h.replace(/[0-9a-f]{32}/g, "X");
    expect(holes(a.html)).toBe(holes(b.html));
    expect(a.fields.token).not.toBe(b.fields.token);
    const u = await w.ok(w.owner, "surveys_update", { id: surveyId, description: "Now with a new introduction." });
    expect((await open(`/s/${slug}`)).html).toContain("Two minutes, promise.");
    await approve(s.deps, u.approval.token);
    const c = await open(`/s/${slug}`);
    expect(c.html).toContain("Now with a new introduction.");
    expect(c.html).not.toContain("Two minutes, promise.");
  });

  test("hidden fields come from the address (only the survey's own names), escaped", async () => {
    const f = await open(`/s/${slug}?source=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E&admin=1`);
    expect(f.fields["h.source"]).toBe('"><script>alert(1)</script>');
    expect(f.html).not.toContain("<script>alert(1)");
    expect(f.html).toContain("&quot;&gt;&lt;script&gt;");
    expect(f.fields["h.admin"]).toBeUndefined();
  });

  test("language: from ?lang, then Accept-Language, else the default; the form's own words follow", async () => {
    const de = await open(`/s/${slug}?lang=de`);
    expect(de.html).toContain('<html lang="de">');
    expect(de.html).toContain(">Weiter</button>");
    expect(de.html).toContain("(Pflichtfeld)");
    expect((await open(`/s/${slug}`, { "Accept-Language": "fr-CH, de;q=0.8, en;q=0.5" })).html).toContain(
      '<html lang="de">',
    );
    expect((await open(`/s/${slug}?lang=xx`)).html).toContain('<html lang="en">');
  });
});

describe("posting answers", () => {
  test("page by page with skip logic, to the ending; a second submit of the same form stores nothing more", async () => {
    const before = await responsesNow();
    const f = await open(`/s/${slug}?source=web`);
    const p1 = await post(f, { page: "p1", "q.nps": "4", "q.visits": "weekly" });
    expect(p1.status).toBe(200);
    expect(p1.next.fields.page).toBe("p2");
    expect(p1.html).toContain("What should we improve?");
    expect(p1.html).toContain('name="nav" value="back"');
    const p2 = await post(p1.next, { page: "p2", "q.why": "Music too loud" });
    expect(p2.next.fields.page).toBe("p3");
    const done = await post(p2.next, [
      ["page", "p3"],
      ["q.drinks", "tea"],
      ["q.pastry", "5"],
    ]);
    expect(done.html).toContain("We read every answer.");
    expect(await responsesNow()).toBe(before + 1);
    const again = await post(p2.next, [
      ["page", "p3"],
      ["q.drinks", "espresso"],
    ]);
    expect(again.html).toContain("We read every answer.");
    expect(await responsesNow()).toBe(before + 1);
    const row = (await s.deps.db.select().from(surveyResponses).where(eq(surveyResponses.surveyId, surveyId))).at(-1)!;
    expect(row).toMatchObject({
      finished: true,
      hidden: { source: "web" },
      answers: { nps: 4, visits: "weekly", why: "Music too loud", drinks: ["tea"], pastry: 5 },
    });
  });

  test("errors: 400, an error summary linking each field, messages tied with aria-describedby, what was typed kept and escaped", async () => {
    const f = await open(`/s/${slug}`);
    const r = await post(f, {
      page: "p1",
      "q.nps": "<img src=x onerror=alert(1)>",
      "q.visits": "other",
      "q.visits.other": "",
    });
    expect(r.status).toBe(400);
    expect(r.html).toContain('<div class="sv-summary" role="alert" tabindex="-1" id="sv-errors"');
    expect(r.html).toContain('<a href="#q:nps">How likely are you to recommend us?: Choose one of the options.</a>');
    expect(r.html).toContain(
      '<fieldset class="sv-fieldset" id="q:visits" tabindex="-1" aria-describedby="q:visits:error"',
    );
    expect(r.html).toContain('<p class="sv-error" id="q:visits:error">');
    expect(r.html).toContain("Say what “Other” is.");
    expect(r.html).not.toContain("<img src=x");
    expect(r.next.fields.token).toBe(f.fields.token);
  });

  test("hostile answers are stored as text and shown escaped; forged question ids are ignored", async () => {
    const f = await open(`/s/${slug}`);
    const p1 = await post(f, {
      page: "p1",
      "q.nps": "3",
      "q.visits": "other",
      "q.visits.other": "<script>alert('x')</script>",
      "q.admin": "1",
      "q.why": "forged",
    });
    const p2 = await post(p1.next, { page: "p2", "q.why": "</textarea><script>alert(1)</script>" });
    const back = await post(p2.next, { page: "p3", nav: "back" });
    expect(back.html).toContain("&lt;/textarea&gt;&lt;script&gt;alert(1)&lt;/script&gt;</textarea>");
    const row = (await s.deps.db.select().from(surveyResponses).where(eq(surveyResponses.surveyId, surveyId))).find(
      (x) => x.otherTexts.visits?.includes("<script>"),
    )!;
    expect(row.otherTexts.visits).toBe("<script>alert('x')</script>");
    expect(row.answers.why).toBe("</textarea><script>alert(1)</script>");
    expect(Object.keys(row.answers).sort()).toEqual(["nps", "visits", "why"]);
  });

  test("cross-site posts, a missing cookie, a bad token, oversized and non-form bodies are refused and store nothing", async () => {
    const before = await responsesNow();
    const f = await open(`/s/${slug}`);
    const answers = { page: "p1", "q.nps": "10", "q.visits": "daily" };
    expect((await post(f, answers, { headers: { Origin: "https://evil.example" } })).status).toBe(403);
    expect((await post(f, answers, { headers: { "Sec-Fetch-Site": "cross-site" } })).status).toBe(403);
    expect((await post({ ...f, cookie: "" }, answers)).status).toBe(403);
    expect((await post({ ...f, fields: { ...f.fields, csrf: "0".repeat(32) } }, answers)).status).toBe(403);
    expect((await post({ ...f, fields: { ...f.fields, token: "not-a-token" } }, answers)).status).toBe(400);
    expect((await post(f, { ...answers, "q.why": "x".repeat(300 * 1024) })).status).toBe(413);
    const json = await fetch(`${s.url}/s/${slug}`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Origin: s.url, Cookie: f.cookie },
      body: "{}",
    });
    expect(json.status).toBe(415);
    expect(await responsesNow()).toBe(before);
  });

  test("a filled honeypot is thanked and nothing is stored", async () => {
    const before = await responsesNow();
    const f = await open(`/s/${slug}`);
    const r = await post(f, { page: "p1", "q.nps": "10", "q.visits": "daily", website: "http://spam.example" });
    expect(r.status).toBe(200);
    expect(r.html).toContain("Thank you!");
    expect(await responsesNow()).toBe(before);
  });

  test("an ending with a redirect sends the visitor there (303) once finished", async () => {
    const r = await w.ok(w.owner, "surveys_create", {
      title: "Quick poll",
      pages: [
        {
          questions: [
            {
              id: "ok",
              type: "single_choice",
              title: "OK?",
              required: true,
              choices: [
                { id: "y", label: "Yes" },
                { id: "n", label: "No" },
              ],
            },
          ],
        },
      ],
      endings: [{ id: "bye", title: "Bye", redirectUrl: "https://harbor.example/thanks" }],
    });
    await approve(s.deps, r.approval.token);
    const f = await open(`/s/${r.slug}`);
    const done = await post(f, { page: "page-1", "q.ok": "y" }, { at: r.slug });
    expect(done.status).toBe(303);
    expect(done.headers.get("location")).toBe("https://harbor.example/thanks");
  });

  test("a closed survey answers 410 to the page and to posts", async () => {
    const r = await w.ok(w.owner, "surveys_create", { ...FEEDBACK, title: "Soon closed" });
    await approve(s.deps, r.approval.token);
    const f = await open(`/s/${r.slug}`);
    await w.ok(w.owner, "surveys_close", { id: r.id });
    const g = await fetch(`${s.url}/s/${r.slug}`);
    expect(g.status).toBe(410);
    expect(await g.text()).toContain("This survey is closed");
    expect((await post(f, { page: "p1", "q.nps": "1", "q.visits": "daily" }, { at: r.slug })).status).toBe(410);
  });
});

test("a flood from one address is limited (429 with Retry-After); posts stop being processed", async () => {
  const f = await open(`/s/${slug}`);
  const before = await responsesNow();
  let limited: Awaited<ReturnType<typeof post>> | null = null;
  for (let i = 0; i < SUBMITS_PER_MINUTE + 5 && !limited; i++) {
    const r = await post(
      { ...f, fields: { ...f.fields, token: i.toString(16).padStart(32, "a") } },
      { page: "p1", "q.nps": "10", "q.visits": "daily" },
    );
    if (r.status === 429) limited = r;
  }
  expect(limited).not.toBeNull();
  expect(Number(limited!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
  expect(limited!.html).toContain("Too many submissions");
  const after = await responsesNow();
  expect(after - before).toBeLessThanOrEqual(SUBMITS_PER_MINUTE);
  // A minute later the address may post again.
  s.clock.advance(61_000);
  const ok = await post(
    { ...f, fields: { ...f.fields, token: "f".repeat(32) } },
    { page: "p1", "q.nps": "10", "q.visits": "daily" },
  );
  expect(ok.status).toBe(200);
});

describe("drafting over MCP (real SDK client)", () => {
  test("a retried create with one idempotencyKey makes one survey, even when the retries race", async () => {
    const args = { ...FEEDBACK, title: "Retried", idempotencyKey: "3b1f-retry" };
    const all = await Promise.all(Array.from({ length: 5 }, () => w.ok(w.owner, "surveys_create", args)));
    expect(new Set(all.map((r) => r.id)).size).toBe(1);
    expect(all.filter((r) => r.replayed).length).toBe(4);
    expect(await w.err(w.owner, "surveys_create", { ...args, title: "Other" })).toContain(
      "was already used with other arguments",
    );
  });

  test("racing creates with one title get distinct slugs, never an error", async () => {
    const all = await Promise.all(
      Array.from({ length: 6 }, () => w.ok(w.owner, "surveys_create", { ...FEEDBACK, title: "Race day" })),
    );
    expect(new Set(all.map((r) => r.slug)).size).toBe(6);
    expect(all.map((r) => r.slug).sort()).toEqual([
      "race-day",
      "race-day-2",
      "race-day-3",
      "race-day-4",
      "race-day-5",
      "race-day-6",
    ]);
  });

  test("argument errors name the path the verb found, for parts the listing leaves loose", async () => {
    expect(
      await w.err(w.owner, "surveys_update", {
        id: surveyId,
        pages: [{ questions: [{ id: "x", type: "nps", title: "X" }], logic: [{ if: [], goTo: "end" }] }],
      }),
    ).toContain("pages[0].logic[0].if");
    expect(
      await w.err(w.owner, "surveys_update", {
        id: surveyId,
        pages: [{ questions: [{ id: "x", type: "teapot", title: "X" }] }],
      }),
    ).toContain("pages[0].questions[0].type");
    expect(
      await w.err(w.owner, "survey_responses_summarize", { surveyId, filter: { where: [{ field: "nps" }] } }),
    ).toContain("filter.where[0].op");
  });
});

describe("the quota under concurrent submits", () => {
  test("many visitors finishing at once over HTTP: exactly maxResponses are accepted, the rest see the closed page", async () => {
    const max = 5;
    const visitors = 24;
    const r = await w.ok(w.owner, "surveys_create", { ...FEEDBACK, title: "Quota race", maxResponses: max });
    await approve(s.deps, r.approval.token);
    // A fresh allowance for this address (the limiter runs on the test clock), then everyone on the last page.
    s.clock.advance(61_000);
    const onLast: Form[] = [];
    for (let i = 0; i < visitors; i++) {
      const f = await open(`/s/${r.slug}`);
      const p1 = await post(f, { page: "p1", "q.nps": "10", "q.visits": "daily" }, { at: r.slug });
      expect(p1.next.fields.page).toBe("p3");
      onLast.push(p1.next);
    }
    s.clock.advance(61_000);
    const outs = await Promise.all(
      onLast.map((f) =>
        post(
          f,
          [
            ["page", "p3"],
            ["q.pastry", "5"],
          ],
          { at: r.slug },
        ),
      ),
    );
    const accepted = outs.filter((o) => o.status === 200 && o.html.includes("We read every answer."));
    const refused = outs.filter((o) => o.status === 410);
    expect({ accepted: accepted.length, refused: refused.length }).toEqual({ accepted: max, refused: visitors - max });
    const finished = (await s.deps.db.select().from(surveyResponses).where(eq(surveyResponses.surveyId, r.id))).filter(
      (x) => x.finished,
    );
    expect(finished).toHaveLength(max);
    expect(await w.ok(w.owner, "surveys_get", { id: r.id })).toMatchObject({
      responseCount: max,
      status: "closed",
      closedReason: "quota",
    });
  }, 60_000);
});

describe("the tab icon", () => {
  test("a survey of a site whose branding names a favicon links that icon; one without links the service's", async () => {
    const r = await w.ok(w.owner, "surveys_create", { ...FEEDBACK, title: "Branded", siteId: w.siteA2 });
    await approve(s.deps, r.approval.token);
    const plain = await (await fetch(`${s.url}/s/public-feedback`)).text();
    expect(plain).toContain('<link rel="icon" href="/favicon.ico" sizes="32x32">');
    const branded = () => fetch(`${s.url}/s/${r.slug}`).then((x) => x.text());
    expect(await branded()).toContain('<link rel="icon" href="/favicon.ico" sizes="32x32">');
    await w.ok(w.owner, "branding_update_profile", {
      siteId: w.siteA2,
      branding: { faviconUrl: "https://cdn.example.test/icon.png?v=1&size=32" },
    });
    // A brand change reaches the kept first page at once; the URL is escaped.
    const html = await branded();
    expect(html).toContain('<link rel="icon" href="https://cdn.example.test/icon.png?v=1&amp;size=32">');
    expect(html).not.toContain("/favicon.ico");
  });
});
