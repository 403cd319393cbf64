/**
 * Deck verbs through their tools' own schemas (as the MCP adapter calls
 * them): happy paths, refusals with their paths, tenancy, roles, the
 * publication workflow, templates, text replacement and events.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { decks, deckSlides, deckVersions } from "../../src/domains/decks/tables";
import { commits, row } from "../harness";
import { errorOf, everyLayout, makeDeckWorld, type DeckWorld } from "./world";

let w: DeckWorld;
beforeEach(async () => {
  w = await makeDeckWorld();
});
afterEach(() => w.close());

const count = async () => (await w.deps.db.select().from(decks)).length;

describe("decks_create", () => {
  test("one call makes a deck of every layout, in order, with a slug that cannot be guessed from the title", async () => {
    const d = await w.t("decks_create", { title: "A new shop for Harbor Coffee", slides: everyLayout(w) });
    expect(d.status).toBe("draft");
    expect(d.revision).toBe(1);
    expect(d.slug).toMatch(/^a-new-shop-for-harbor-coffee-[0-9a-f]{6}$/);
    expect(d.slides.map((s: any) => [s.position, s.layout])).toEqual([
      [1, "title"],
      [2, "title_body"],
      [3, "two_columns"],
      [4, "image"],
      [5, "quote"],
      [6, "metrics"],
      [7, "pricing"],
      [8, "team"],
      [9, "closing"],
    ]);
    const row = (await w.deps.db.select().from(decks).where(eq(decks.id, d.id)))[0]!;
    expect(row).toMatchObject({ companyId: w.companyId, siteId: w.siteId, status: "draft", isTemplate: false });
    const notes = (
      await w.deps.db.select().from(deckSlides).where(eq(deckSlides.deckId, d.id)).orderBy(deckSlides.position)
    ).map((s) => s.notes);
    expect(notes[0]).toBe("Open with the Monday-morning story.");
    const [ev] = await w.events("deck.created");
    expect(ev).toMatchObject({
      entityId: d.id,
      data: { deckId: d.id, slug: d.slug, siteId: w.siteId, slideCount: 9, isTemplate: false, fromDeckId: null },
    });
  });

  test("from a Markdown outline: a title slide, bullet slides, a quote slide", async () => {
    const d = await w.t("decks_create", {
      title: "Outline deck",
      outline:
        "## Harbor Coffee, online\nA proposal by Northwind\n\n## What we heard\n- Slow checkout\n- Manual subscriptions\n---\n> Orders doubled in a quarter. — Maya Chen, Owner\n## Next steps\nSign by Friday.",
    });
    const g = await w.t("decks_get", { id: d.id, include: ["slides"] });
    expect(g.slides.map((s: any) => [s.layout, s.content])).toEqual([
      ["title", { title: "Harbor Coffee, online", subtitle: "A proposal by Northwind" }],
      ["title_body", { title: "What we heard", bullets: ["Slow checkout", "Manual subscriptions"] }],
      ["quote", { quote: "Orders doubled in a quarter.", author: "Maya Chen", role: "Owner" }],
      ["title_body", { title: "Next steps", body: "Sign by Friday." }],
    ]);
  });

  test("an outline slide with more than 8 bullets is refused with the slide named", async () => {
    const e = await errorOf(() =>
      w.t("decks_create", {
        title: "Long",
        outline: `## Too many\n${Array.from({ length: 9 }, (_, i) => `- item ${i}`).join("\n")}`,
      }),
    );
    expect(e.message).toContain('"Too many" has 9 bullets');
  });

  test("the site defaults to the company's primary site; another company's site is not found", async () => {
    const d = await w.t("decks_create", { title: "Default site" });
    expect((await w.t("decks_get", { id: d.id })).siteId).toBe(w.siteId);
    const e = await errorOf(() => w.t("decks_create", { title: "Foreign", siteId: w.otherSiteId }));
    expect(e.code).toBe("not_found");
    expect(e.message).not.toContain("Rival");
  });

  test("placeholders are reported and long slides warned about, but accepted", async () => {
    const d = await w.t("decks_create", {
      title: "Pitch for {{client}}",
      slides: [{ layout: "title_body", content: { title: "Why {{client}}", body: "x ".repeat(400) } }],
    });
    expect(d.placeholders).toEqual(["client"]);
    expect(d.warnings[0]).toContain("slide 1 (title_body) holds about 815 characters");
  });

  const bad: [string, unknown, string][] = [
    [
      "unknown field",
      { layout: "title", content: { title: "Hi", subtitel: "x" } },
      'slides[0].content.subtitel: unknown field "subtitel"; layout title takes title, subtitle, presenter, date',
    ],
    [
      "missing required field",
      { layout: "quote", content: { author: "Ana" } },
      "slides[0].content.quote: missing (required by layout quote)",
    ],
    [
      "wrong type",
      { layout: "metrics", content: { metrics: [{ value: 2, label: "x" }] } },
      "slides[0].content.metrics[0].value: must be a string (got number 2)",
    ],
    [
      "huge string",
      { layout: "title", content: { title: "A".repeat(100_000) } },
      "slides[0].content.title: at most 160 characters (got a string of 100000 characters)",
    ],
    [
      "javascript: URL",
      { layout: "closing", content: { title: "Bye", ctaLabel: "Go", ctaUrl: "javascript:alert(1)" } },
      'slides[0].content.ctaUrl: scheme "javascript:" is not allowed',
    ],
    [
      "obfuscated javascript: URL",
      { layout: "closing", content: { title: "Bye", website: "java\tscript:alert(1)" } },
      "slides[0].content.website: must not contain spaces or control characters",
    ],
    [
      "protocol-relative URL",
      { layout: "closing", content: { title: "Bye", website: "//evil.example" } },
      "protocol-relative URLs are not allowed",
    ],
    [
      "fractional cents",
      { layout: "pricing", content: { plans: [{ name: "A", price: 10.5 }] } },
      "slides[0].content.plans[0].price: price is in whole cents (got number 10.5)",
    ],
    [
      "too many plans",
      { layout: "pricing", content: { plans: Array.from({ length: 5 }, () => ({ name: "P" })) } },
      "slides[0].content.plans: at most 4 plans",
    ],
    [
      "nested unknown field",
      { layout: "two_columns", content: { left: { heading: "a", onclick: "x" }, right: {} } },
      'slides[0].content.left.onclick: unknown field "onclick"; slides[0].content.left takes heading, body, bullets',
    ],
    ["notes with control characters", { layout: "title", content: { title: "x" }, notes: "a\u0007b" }, "notes"],
  ];
  for (const [label, slide, msg] of bad)
    test(`refused, nothing written: ${label}`, async () => {
      const before = commits(w.deps);
      const e = await errorOf(() => w.t("decks_create", { title: "Bad", slides: [slide] }));
      expect(e.code).toBe("validation");
      expect(e.message).toContain(msg);
      expect(commits(w.deps)).toBe(before);
      expect(await count()).toBe(0);
    });

  test("content that is not an object is refused by the schema", async () => {
    expect(
      (await errorOf(() => w.t("decks_create", { title: "Bad", slides: [{ layout: "title", content: "x" }] }))).message,
    ).toContain("slides.0.content");
  });

  test("an unknown layout is refused by the schema", async () => {
    const e = await errorOf(() => w.t("decks_create", { title: "Bad", slides: [{ layout: "chart", content: {} }] }));
    expect(e.message).toContain("slides.0.layout");
  });

  test("images: another company's media id answers like a missing one; non-images are refused; nothing is written", async () => {
    const foreign = await errorOf(() =>
      w.t("decks_create", { title: "X", slides: [{ layout: "image", content: { imageId: w.foreignPng } }] }),
    );
    const missing = await errorOf(() =>
      w.t("decks_create", { title: "X", slides: [{ layout: "image", content: { imageId: 999_999 } }] }),
    );
    expect(foreign.code).toBe("not_found");
    expect(foreign.message).toBe(
      `slides[0].content.imageId: media ${w.foreignPng} not found in Acme's sites (media_list shows their ids).`,
    );
    expect(missing.message).toBe(
      "slides[0].content.imageId: media 999999 not found in Acme's sites (media_list shows their ids).",
    );
    const team = await errorOf(() =>
      w.t("decks_create", {
        title: "X",
        slides: [{ layout: "team", content: { members: [{ name: "A" }, { name: "B", imageId: w.doc }] } }],
      }),
    );
    expect(team.message).toBe(
      `slides[0].content.members[1].imageId: media ${w.doc} is a application/pdf file, not an image.`,
    );
    expect(await count()).toBe(0);
    expect(await w.events()).toEqual([]);
  });

  test("an image from another site of the same company is fine", async () => {
    const d = await w.t("decks_create", { title: "X", slides: [{ layout: "image", content: { imageId: w.jpg } }] });
    expect(d.slides).toHaveLength(1);
  });

  test("a chosen slug is kept; a taken one is refused, naming the deck only when it is this company's", async () => {
    const a = await w.t("decks_create", { title: "A", slug: "acme-pitch" });
    expect(a.slug).toBe("acme-pitch");
    const mine = await errorOf(() => w.t("decks_create", { title: "B", slug: "acme-pitch" }));
    expect(mine.code).toBe("conflict");
    expect(mine.message).toBe(
      `The address /d/acme-pitch is already taken by deck ${a.id} ("A"). Choose another slug, or omit it to have one made.`,
    );
    const rival = w.ctx({ company: "other" });
    await w.deps.db
      .insert((await import("../../src/core/tables")).memberships)
      .values({ companyId: w.otherCompanyId, userId: rival.principal.userId, role: "owner" });
    const theirs = await errorOf(() =>
      w.t("decks_create", { title: "Theirs", slug: "acme-pitch", siteId: w.otherSiteId }, rival),
    );
    expect(theirs.message).toBe(
      "The address /d/acme-pitch is already taken. Choose another slug, or omit it to have one made.",
    );
  });

  test("viewers and read-only credentials are refused by the verb itself", async () => {
    expect((await errorOf(() => w.t("decks_create", { title: "X" }, w.ctx({ role: "viewer" })))).message).toContain(
      "role in Acme is viewer",
    );
    expect((await errorOf(() => w.t("decks_create", { title: "X" }, w.ctx({ scopes: ["decks:read"] })))).message).toBe(
      "This credential lacks the decks:write scope.",
    );
    expect((await errorOf(() => w.t("decks_list", {}, w.ctx({ scopes: ["sites:read"] })))).message).toBe(
      "This credential lacks the decks:read scope.",
    );
    expect(await count()).toBe(0);
  });
});

describe("reading", () => {
  test("decks_get by id or slug; another company's deck is not found", async () => {
    const d = await w.t("decks_create", { title: "Read me", slides: everyLayout(w).slice(0, 2) });
    const byId = await w.t("decks_get", { id: d.id });
    const bySlug = await w.t("decks_get", { slug: d.slug });
    expect(bySlug).toEqual(byId);
    expect(byId).toMatchObject({
      title: "Read me",
      status: "draft",
      slideCount: 2,
      url: null,
      published: null,
      approval: null,
      placeholders: [],
    });
    expect(byId.slides).toEqual([
      { id: d.slides[0].id, position: 1, layout: "title", title: "A new shop for Harbor Coffee", hasNotes: true },
      { id: d.slides[1].id, position: 2, layout: "title_body", title: "What we heard", hasNotes: false },
    ]);
    expect(byId.slides[0].content).toBeUndefined();
    const other = w.ctx({ company: "other" });
    expect((await errorOf(() => w.t("decks_get", { id: d.id }, other))).message).toBe(
      `Deck ${d.id} not found in Rival.`,
    );
    expect((await errorOf(() => w.t("decks_get", {}))).message).toBe("Give exactly one of id or slug.");
  });

  test("include html renders every slide escaped; the theme comes from the brand profile", async () => {
    const d = await w.t("decks_create", {
      title: "T",
      slides: [
        {
          layout: "title_body",
          content: { title: "<script>alert(1)</script>", bullets: ['"><img src=x onerror=alert(2)>'] },
        },
      ],
    });
    const g = await w.t("decks_get", { id: d.id, include: ["html"] });
    expect(g.html).toContain("&lt;script&gt;alert(1)&lt;/script&gt;");
    expect(g.html).toContain("&quot;&gt;&lt;img src=x onerror=alert(2)&gt;");
    expect(g.html).not.toContain("<script");
    expect(g.html).not.toContain("<img src=x");
    expect(g.html).toContain("--dk-primary:#0f766e");
    expect(g.html).toContain("--dk-head:Space Grotesk,system-ui,sans-serif");
  });

  test("decks_list filters by status, template, site and title, newest change first, paginated", async () => {
    const a = await w.t("decks_create", { title: "Alpha pitch" });
    w.clock.advance(1000);
    const b = await w.t("decks_create", { title: "Beta template", isTemplate: true });
    w.clock.advance(1000);
    const c = await w.t("decks_create", {
      title: "Gamma pitch",
      siteId: w.site2Id,
      slides: everyLayout(w).slice(0, 3),
    });
    const all = await w.t("decks_list", {});
    expect(all.items.map((x: any) => x.id)).toEqual([c.id, b.id, a.id]);
    expect(all.items[0]).toMatchObject({
      slideCount: 3,
      status: "draft",
      isTemplate: false,
      siteId: w.site2Id,
      url: null,
    });
    expect((await w.t("decks_list", { template: true })).items.map((x: any) => x.id)).toEqual([b.id]);
    expect((await w.t("decks_list", { siteId: w.site2Id })).items.map((x: any) => x.id)).toEqual([c.id]);
    expect((await w.t("decks_list", { search: "PITCH" })).items.map((x: any) => x.id)).toEqual([c.id, a.id]);
    expect(await w.t("decks_list", { limit: 2, offset: 0 })).toMatchObject({
      total: 3,
      limit: 2,
      offset: 0,
      nextOffset: 2,
    });
    expect((await w.t("decks_list", {}, w.ctx({ company: "other" }))).total).toBe(0);
    expect((await errorOf(() => w.t("decks_list", { siteId: w.otherSiteId }))).code).toBe("not_found");
  });

  test("deck_layouts_list describes every layout with its fields and an example that validates", async () => {
    const ref = await w.t("deck_layouts_list", {});
    expect(ref.map((l: any) => l.layout)).toEqual([
      "title",
      "title_body",
      "two_columns",
      "image",
      "quote",
      "metrics",
      "pricing",
      "team",
      "closing",
      "image_text",
      "image_full",
      "timeline",
    ]);
    const timeline = ref.find((l: any) => l.layout === "timeline");
    expect(timeline.fields.properties.steps).toMatchObject({ minItems: 3, maxItems: 8 });
    const pricing = ref.find((l: any) => l.layout === "pricing");
    expect(pricing.fields.required).toEqual(["plans"]);
    expect(pricing.fields.properties.plans.items.properties.price).toMatchObject({ type: "integer", minimum: 0 });
    // Every example is a valid slide (image ids swapped for this world's).
    for (const l of ref) {
      const content = JSON.parse(JSON.stringify(l.example).replace(/"imageId":\d+/g, `"imageId":${w.png}`));
      await w.t("decks_create", { title: `Example ${l.layout}`, slides: [{ layout: l.layout, content }] });
    }
  });
});

describe("decks_update", () => {
  test("changes fields, bumps the revision, and says what changed", async () => {
    const d = await w.t("decks_create", { title: "Old" });
    const u = await w.t("decks_update", {
      id: d.id,
      title: "New",
      description: "For Harbor",
      siteId: w.site2Id,
      slug: "new-slug",
    });
    expect(u).toEqual({
      id: d.id,
      slug: "new-slug",
      status: "draft",
      revision: 2,
      fields: ["title", "slug", "description", "siteId"],
    });
    const [ev] = await w.events("deck.updated");
    expect(ev!.data).toEqual({
      deckId: d.id,
      slug: "new-slug",
      title: "New",
      fields: ["title", "slug", "description", "siteId"],
      revision: 2,
    });
    expect((await errorOf(() => w.t("decks_update", { id: d.id, siteId: w.otherSiteId }))).code).toBe("not_found");
  });

  test("a published deck keeps its address; a template cannot be published or pending", async () => {
    const d = await w.t("decks_create", { title: "Live", slides: everyLayout(w).slice(0, 1) });
    await w.approve((await w.t("decks_publish", { id: d.id })).approval);
    const e = await errorOf(() => w.t("decks_update", { id: d.id, slug: "elsewhere" }));
    expect(e.code).toBe("conflict");
    expect(e.message).toContain(`is live at /d/${d.slug}`);
    expect((await errorOf(() => w.t("decks_update", { id: d.id, isTemplate: true }))).message).toContain(
      "a template is never published",
    );
    // The same slug again is no change of address.
    expect((await w.t("decks_update", { id: d.id, slug: d.slug, title: "Live!" })).fields).toEqual(["title", "slug"]);
  });

  test("with no changes it sends the draft for approval again, with a fresh link (after expiry)", async () => {
    const d = await w.t("decks_create", { title: "Again", slides: everyLayout(w).slice(0, 1) });
    const versionsBefore = Number((await row<{ n: number }>(w.deps, "SELECT count(*) AS n FROM deck_versions"))!.n);
    const first = await w.t("decks_publish", { id: d.id });
    w.clock.advance(15 * 24 * 3600 * 1000);
    expect((await w.t("decks_get", { id: d.id })).approval.status).toBe("expired");
    const again = await w.t("decks_update", { id: d.id });
    expect(again.status).toBe("pending");
    expect(again.approval.token).not.toBe(first.approval.token);
    // The draft did not change since version 1: the fresh link asks about version 1 again, nothing is frozen anew.
    expect(again.version).toBe(1);
    expect((await w.approve(again.approval)).version).toBe(1);
    expect(Number((await row<{ n: number }>(w.deps, "SELECT count(*) AS n FROM deck_versions"))!.n)).toBe(
      versionsBefore + 1,
    );
  });

  test("fields equal to the current ones change nothing: no revision, no event, no version when published again", async () => {
    const d = await w.t("decks_create", {
      title: "Same",
      description: "Kept",
      siteId: w.site2Id,
      slides: everyLayout(w).slice(0, 1),
    });
    await w.approve((await w.t("decks_publish", { id: d.id })).approval);
    const live = await w.t("decks_get", { id: d.id });
    const events = (await w.events("deck.updated")).length;
    const u = await w.t("decks_update", {
      id: d.id,
      title: "Same",
      slug: d.slug,
      description: "Kept",
      siteId: w.site2Id,
      isTemplate: false,
    });
    expect(u).toEqual({
      id: d.id,
      slug: d.slug,
      status: "published",
      revision: live.revision,
      fields: [],
      unchanged: true,
    });
    expect((await w.t("decks_get", { id: d.id })).revision).toBe(live.revision);
    expect((await w.events("deck.updated")).length).toBe(events);
    const p = await w.t("decks_publish", { id: d.id });
    expect(p.message).toContain("Nothing to publish");
    expect(p.approval).toBeUndefined();
    // One field that does differ is a change as before.
    expect(await w.t("decks_update", { id: d.id, title: "Same", description: null })).toMatchObject({
      revision: live.revision + 1,
      fields: ["title", "description"],
    });
  });
});

describe("publishing through approval", () => {
  test("publish freezes a version; approval makes it live; edits wait for the next approval", async () => {
    const d = await w.t("decks_create", { title: "Pitch", slides: everyLayout(w) });
    const p = await w.t("decks_publish", { id: d.id });
    expect(p).toMatchObject({ id: d.id, status: "pending", version: 1, url: `http://127.0.0.1:8787/d/${d.slug}` });
    expect(p.approval).toMatchObject({ linkType: "entity", status: "pending" });
    expect(p.approval.token).toMatch(/^[0-9a-f]{64}$/);
    const [req] = await w.events("deck.publish_requested");
    expect(req!.data).toEqual({
      deckId: d.id,
      slug: d.slug,
      title: "Pitch",
      version: 1,
      approvalId: p.approval.id,
      requestedByUserId: w.owner.principal.userId,
      slideCount: 9,
    });

    const result = await w.approve(p.approval);
    expect(result).toEqual({
      deckId: d.id,
      slug: d.slug,
      status: "published",
      version: 1,
      url: `http://127.0.0.1:8787/d/${d.slug}`,
    });
    const [pub] = await w.events("deck.published");
    expect(pub!.data).toMatchObject({
      deckId: d.id,
      version: 1,
      decidedBy: "Rita Reviewer",
      approvalId: p.approval.id,
      requestedByUserId: w.owner.principal.userId,
    });
    expect(pub!.userId).toBeNull();

    let g = await w.t("decks_get", { id: d.id });
    expect(g).toMatchObject({
      status: "published",
      url: `http://127.0.0.1:8787/d/${d.slug}`,
      pdfUrl: `http://127.0.0.1:8787/d/${d.slug}.pdf`,
      published: { version: 1, hasUnpublishedChanges: false },
      approval: { status: "approved" },
    });

    // Editing the draft leaves the live version alone.
    await w.t("slides_update", { deckId: d.id, id: d.slides[0].id, content: { title: "A better title" } });
    g = await w.t("decks_get", { id: d.id });
    expect(g.published.hasUnpublishedChanges).toBe(true);
    const live = await w.t("decks_get", { id: d.id, version: "published", include: ["slides"] });
    expect(live.slides[0].content.title).toBe("A new shop for Harbor Coffee");
    expect(live.version).toBe(1);

    const p2 = await w.t("decks_publish", { id: d.id });
    expect(p2).toMatchObject({ status: "published", version: 2 });
    expect(p2.message).toContain("live version stays online");
    await w.reject(p2.approval, "Keep the old title");
    expect((await w.t("decks_get", { id: d.id, version: "published" })).version).toBe(1);
    const [rej] = await w.events("deck.publish_rejected");
    expect(rej!.data).toMatchObject({ version: 2, comment: "Keep the old title" });

    const p3 = await w.t("decks_publish", { id: d.id });
    await w.approve(p3.approval);
    const now = await w.t("decks_get", { id: d.id, version: "published", include: ["slides"] });
    expect(now.version).toBe(3);
    expect(now.slides[0].content.title).toBe("A better title");
    expect((await w.t("decks_publish", { id: d.id })).message).toBe(
      "Nothing to publish: the live version is this draft already.",
    );
    expect(
      (await w.deps.db.select().from(deckVersions).where(eq(deckVersions.deckId, d.id))).map((v) => v.number),
    ).toEqual([1, 2, 3]);
  });

  test("a newer request supersedes the older one: only the latest proposal can be approved", async () => {
    const d = await w.t("decks_create", { title: "Two asks", slides: everyLayout(w).slice(0, 1) });
    const a = await w.t("decks_publish", { id: d.id });
    await w.t("slides_add", { deckId: d.id, slides: [{ layout: "closing", content: { title: "Bye" } }] });
    const b = await w.t("decks_publish", { id: d.id });
    await expect(w.approve(a.approval)).rejects.toThrow("replaced by a newer version");
    expect((await w.approve(b.approval)).version).toBe(2);
    expect((await w.t("decks_get", { id: d.id, version: "published" })).slideCount).toBe(2);
  });

  test("rejecting a first publication returns the deck to draft", async () => {
    const d = await w.t("decks_create", { title: "Nope", slides: everyLayout(w).slice(0, 1) });
    await w.reject((await w.t("decks_publish", { id: d.id })).approval);
    expect(await w.t("decks_get", { id: d.id })).toMatchObject({
      status: "draft",
      approval: { status: "rejected", comment: "Not yet" },
    });
  });

  const refusals: [string, Record<string, unknown>, string][] = [
    ["a template", { isTemplate: true, slides: [{ layout: "title", content: { title: "T" } }] }, "is a template"],
    ["an empty deck", {}, "has no slides yet"],
    [
      "unfilled placeholders",
      { slides: [{ layout: "title", content: { title: "For {{client}}" }, notes: "Mention {{ champion }}" }] },
      "still has unfilled placeholders: {{client}} (slide 1 title); {{champion}} (slide 1 notes)",
    ],
  ];
  for (const [label, extra, msg] of refusals)
    test(`publishing is refused for ${label}`, async () => {
      const d = await w.t("decks_create", { title: "Refused", ...extra });
      const before = commits(w.deps);
      const e = await errorOf(() => w.t("decks_publish", { id: d.id }));
      expect(e.code).toBe("conflict");
      expect(e.message).toContain(msg);
      expect(commits(w.deps)).toBe(before);
    });

  test("a picture deleted after the draft was written stops the publication, naming the slide", async () => {
    const d = await w.t("decks_create", { title: "Pic", slides: [{ layout: "image", content: { imageId: w.png } }] });
    const { media } = await import("../../src/domains/cms/tables");
    await w.deps.db.delete(media).where(eq(media.id, w.png));
    const e = await errorOf(() => w.t("decks_publish", { id: d.id }));
    expect(e.message).toBe(`slide 1 imageId: media ${w.png} not found in Acme's sites (media_list shows their ids).`);
    // Reading the draft still works: the missing picture renders as a placeholder.
    expect((await w.t("decks_get", { id: d.id, include: ["html"] })).html).toContain("dk-missing");
  });
});

describe("taking a deck down", () => {
  test("unpublishing a live deck waits for a person; approving archives it", async () => {
    const d = await w.t("decks_create", { title: "Down", slides: everyLayout(w).slice(0, 1) });
    await w.approve((await w.t("decks_publish", { id: d.id })).approval);
    const held = await w.t("decks_unpublish", { id: d.id });
    expect(held).toMatchObject({ status: "published", approval: { linkType: "pending_change", status: "pending" } });
    expect((await w.t("decks_get", { id: d.id })).status).toBe("published");
    expect(await w.events("deck.unpublished")).toEqual([]);
    expect(await w.approve(held.approval)).toMatchObject({ applied: "decks_unpublish", id: d.id, status: "archived" });
    expect(await w.t("decks_get", { id: d.id })).toMatchObject({ status: "archived", url: null, published: null });
    const [ev] = await w.events("deck.unpublished");
    expect(ev!.data).toEqual({ deckId: d.id, slug: d.slug, title: "Down", version: 1 });
    // Publishing again is a "republish".
    const again = await w.t("decks_publish", { id: d.id });
    expect(again.status).toBe("pending");
    await w.reject(again.approval);
    expect((await w.t("decks_get", { id: d.id })).status).toBe("archived");
  });

  test("a deck unpublished while an update waits for approval cannot go live again through that approval", async () => {
    const d = await w.t("decks_create", { title: "Taken down", slides: everyLayout(w).slice(0, 1) });
    await w.approve((await w.t("decks_publish", { id: d.id })).approval);
    await w.t("slides_update", { deckId: d.id, id: d.slides[0].id, content: { title: "Version two" } });
    const update = await w.t("decks_publish", { id: d.id });
    expect(update.message).toContain("live version stays online");
    await w.approve((await w.t("decks_unpublish", { id: d.id })).approval);
    expect((await w.t("decks_get", { id: d.id })).status).toBe("archived");
    // The old update's link is the way back to live no longer: it fails, and the deck stays down.
    await expect(w.approve(update.approval)).rejects.toThrow("withdrawn");
    expect(await w.t("decks_get", { id: d.id })).toMatchObject({ status: "archived", url: null, published: null });
    expect((await w.events("deck.published")).filter((e) => e.entityId === d.id)).toHaveLength(1);
  });

  test("unpublishing a pending deck withdraws the request at once", async () => {
    const d = await w.t("decks_create", { title: "Pending", slides: everyLayout(w).slice(0, 1) });
    const p = await w.t("decks_publish", { id: d.id });
    expect(await w.t("decks_unpublish", { id: d.id })).toMatchObject({ status: "draft" });
    await expect(w.approve(p.approval)).rejects.toThrow("withdrawn");
    expect((await w.t("decks_unpublish", { id: d.id })).message).toBe("The deck is not published.");
  });

  test("deleting: a draft at once (its open link withdrawn); a live deck only after approval", async () => {
    const draft = await w.t("decks_create", { title: "Draft", slides: everyLayout(w).slice(0, 1) });
    const p = await w.t("decks_publish", { id: draft.id });
    expect(await w.t("decks_delete", { id: draft.id })).toEqual({ id: draft.id, slug: draft.slug, status: "deleted" });
    await expect(w.approve(p.approval)).rejects.toThrow("withdrawn");
    expect((await w.deps.db.select().from(deckSlides).where(eq(deckSlides.deckId, draft.id))).length).toBe(0);

    const live = await w.t("decks_create", { title: "Live", slides: everyLayout(w).slice(0, 1) });
    await w.approve((await w.t("decks_publish", { id: live.id })).approval);
    const held = await w.t("decks_delete", { id: live.id });
    expect(held.status).toBe("published");
    expect(await count()).toBe(1);
    await w.approve(held.approval);
    expect(await count()).toBe(0);
    const evs = await w.events("deck.deleted");
    expect(evs.map((e) => e.data.wasPublished)).toEqual([false, true]);
  });

  test("a take-down approved after the deck was changed meanwhile is refused, not applied blindly", async () => {
    const d = await w.t("decks_create", { title: "Moving", slides: everyLayout(w).slice(0, 1) });
    await w.approve((await w.t("decks_publish", { id: d.id })).approval);
    const held = await w.t("decks_delete", { id: d.id });
    await w.t("decks_update", { id: d.id, title: "Renamed meanwhile" });
    await expect(w.approve(held.approval)).rejects.toThrow("was modified after the change was requested");
    expect(await count()).toBe(1);
  });
});

describe("templates", () => {
  async function template() {
    return await w.t("decks_create", {
      title: "Pitch for {{client}}",
      description: "Prepared for {{client}} by {{agency}}",
      isTemplate: true,
      slides: [
        {
          layout: "title",
          content: { title: "A new shop for {{client}}", presenter: "{{agency}}" },
          notes: "Ask {{champion}} about budget.",
        },
        { layout: "closing", content: { title: "Thank you, {{ client }}", email: "{{email}}" } },
      ],
    });
  }

  test("fills every {{name}} into a new draft and reports unfilled and unknown names", async () => {
    const t = await template();
    const f = await w.t("decks_fill_template", {
      id: t.id,
      variables: { client: "Harbor Coffee", agency: "Northwind", colour: "teal" },
    });
    expect(f).toMatchObject({
      status: "draft",
      slideCount: 2,
      filled: ["client", "agency"],
      unfilled: [
        { name: "champion", places: ["slide 1 notes"] },
        { name: "email", places: ["slide 2 email"] },
      ],
      unknown: ["colour"],
    });
    expect(f.slug).toMatch(/^pitch-for-harbor-coffee-[0-9a-f]{6}$/);
    const g = await w.t("decks_get", { id: f.id, include: ["slides"] });
    expect(g).toMatchObject({
      title: "Pitch for Harbor Coffee",
      description: "Prepared for Harbor Coffee by Northwind",
      isTemplate: false,
      placeholders: ["champion", "email"],
    });
    expect(g.slides[0].content).toEqual({ title: "A new shop for Harbor Coffee", presenter: "Northwind" });
    expect(g.slides[0].notes).toBe("Ask {{champion}} about budget.");
    expect(g.slides[1].content.title).toBe("Thank you, Harbor Coffee");
    // The template itself is untouched.
    expect((await w.t("decks_get", { id: t.id })).title).toBe("Pitch for {{client}}");
    const [ev] = (await w.events("deck.created")).filter((e) => e.data.fromDeckId === t.id);
    expect(ev!.data).toMatchObject({ deckId: f.id, fromDeckId: t.id, isTemplate: false });
  });

  test("strict refuses unfilled or unknown names and creates nothing", async () => {
    const t = await template();
    const before = await count();
    const e = await errorOf(() =>
      w.t("decks_fill_template", {
        id: t.id,
        strict: true,
        variables: { client: "Harbor", agency: "NW", email: "a@b.example", extra: "x" },
      }),
    );
    expect(e.message).toBe(
      "unfilled: {{champion}} (slide 1 notes). unknown (not in the template): extra. Nothing was created.",
    );
    expect(await count()).toBe(before);
    const ok = await w.t("decks_fill_template", {
      id: t.id,
      strict: true,
      variables: { client: "Harbor", agency: "NW", email: "a@b.example", champion: "Maya" },
    });
    expect(ok.unfilled).toEqual([]);
    // Fully filled, the new deck can be published.
    expect((await w.t("decks_publish", { id: ok.id })).status).toBe("pending");
  });

  test("a value that breaks a field's rules is refused with the slide and field; script is kept as text", async () => {
    const t = await template();
    const long = await errorOf(() => w.t("decks_fill_template", { id: t.id, variables: { client: "x".repeat(200) } }));
    expect(long.message).toContain("The filled title is 210 characters");
    const email = await errorOf(() =>
      w.t("decks_fill_template", { id: t.id, title: "Fine", variables: { email: "not an email" } }),
    );
    expect(email.message).toContain("slide 2 after filling.content.email: an email address");
    const f = await w.t("decks_fill_template", { id: t.id, variables: { client: "<script>alert(1)</script>" } });
    const g = await w.t("decks_get", { id: f.id, include: ["slides", "html"] });
    expect(g.slides[0].content.title).toBe("A new shop for <script>alert(1)</script>");
    expect(g.html).not.toContain("<script>");
  });

  test("variable names must look like placeholders", async () => {
    const t = await template();
    expect(
      (await errorOf(() => w.t("decks_fill_template", { id: t.id, variables: { "{{client}}": "x" } }))).message,
    ).toContain("is not a placeholder name");
  });
});

describe("decks_replace_text", () => {
  test("replaces in title, fields and notes; counts; case-sensitive unless matchCase false", async () => {
    const d = await w.t("decks_create", {
      title: "Acme pitch",
      slides: [
        { layout: "title", content: { title: "Acme, online", subtitle: "acme and ACME" }, notes: "Acme first" },
        { layout: "title_body", content: { title: "Nothing here" } },
        { layout: "metrics", content: { metrics: [{ value: "2×", label: "Acme orders" }] } },
      ],
    });
    const r = await w.t("decks_replace_text", { id: d.id, find: "Acme", replace: "Harbor" });
    expect(r).toEqual({ id: d.id, slug: d.slug, revision: 2, replaced: 4, slides: [1, 3] });
    const g = await w.t("decks_get", { id: d.id, include: ["slides"] });
    expect(g.title).toBe("Harbor pitch");
    expect(g.slides[0].content).toEqual({ title: "Harbor, online", subtitle: "acme and ACME" });
    expect(g.slides[0].notes).toBe("Harbor first");
    const ci = await w.t("decks_replace_text", { id: d.id, find: "acme", replace: "Harbor", matchCase: false });
    expect(ci.replaced).toBe(2);
    const [ev] = await w.events("deck.text_replaced");
    expect(ev!.data).toMatchObject({ find: "Acme", replace: "Harbor", count: 4, slides: [1, 3] });
  });

  test("no match writes nothing; a replacement that breaks a field is refused", async () => {
    const d = await w.t("decks_create", {
      title: "T",
      slides: [{ layout: "closing", content: { title: "Bye", ctaLabel: "Go", ctaUrl: "https://example.com/LINK" } }],
    });
    const before = commits(w.deps);
    expect(await w.t("decks_replace_text", { id: d.id, find: "zzz", replace: "y" })).toMatchObject({
      replaced: 0,
      revision: 1,
    });
    expect(commits(w.deps)).toBe(before);
    const e = await errorOf(() =>
      w.t("decks_replace_text", { id: d.id, find: "https://example.com/LINK", replace: "javascript:alert(1)" }),
    );
    expect(e.message).toContain('slide 1 after replacing.content.ctaUrl: scheme "javascript:" is not allowed');
    expect((await w.t("decks_get", { id: d.id, include: ["slides"] })).slides[0].content.ctaUrl).toBe(
      "https://example.com/LINK",
    );
  });
});
