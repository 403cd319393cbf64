/**
 * Slide verbs: positions always exactly 1..n, whatever is added, moved,
 * duplicated or deleted (and however many writers race), content patches
 * and layout changes, and the events each change emits.
 */
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { commits } from "../harness";
import { errorOf, makeDeckWorld, slideOrder, type DeckWorld } from "./world";

let w: DeckWorld;
beforeEach(async () => {
  w = await makeDeckWorld();
});
afterEach(() => w.close());

const s = (title: string) => ({ layout: "title_body", content: { title } });

/** A deck of slides titled A, B, C…; returns its id and slide ids in order. */
async function deck(n = 4) {
  const d = await w.t("decks_create", {
    title: "Order",
    slides: Array.from({ length: n }, (_, i) => s(i < 26 ? String.fromCharCode(65 + i) : `S${i}`)),
  });
  return { id: d.id as number, ids: d.slides.map((x: any) => x.id) as number[] };
}

async function titles(deckId: number) {
  return (await w.t("decks_get", { id: deckId })).slides.map((x: any) => `${x.position}${x.title}`).join(" ");
}

describe("slides_add", () => {
  test("at the end by default, or at a position (later slides move down), several at once", async () => {
    const d = await deck(3);
    const end = await w.t("slides_add", { deckId: d.id, slides: [s("D")] });
    expect(end).toMatchObject({
      deckId: d.id,
      revision: 2,
      slideCount: 4,
      slides: [{ position: 4, layout: "title_body" }],
    });
    const mid = await w.t("slides_add", { deckId: d.id, position: 2, slides: [s("X"), s("Y")] });
    expect(mid.slides.map((x: any) => x.position)).toEqual([2, 3]);
    expect(await titles(d.id)).toBe("1A 2X 3Y 4B 5C 6D");
    const added = await w.events("slide.added");
    expect(added.map((e) => [e.data.position, e.data.sourceSlideId])).toEqual([
      [4, null],
      [2, null],
      [3, null],
    ]);
    expect(added[1]!.entityId).toBe(mid.slides[0].id);
  });

  test("position 1 puts it first; one past the end is the end; further is refused", async () => {
    const d = await deck(2);
    await w.t("slides_add", { deckId: d.id, position: 1, slides: [s("Z")] });
    await w.t("slides_add", { deckId: d.id, position: 4, slides: [s("E")] });
    expect(await titles(d.id)).toBe("1Z 2A 3B 4E");
    const e = await errorOf(() => w.t("slides_add", { deckId: d.id, position: 6, slides: [s("F")] }));
    expect(e.message).toBe("position 6 is past the end: the deck has 4 slides, so new slides can go at 1 to 5.");
    expect((await errorOf(() => w.t("slides_add", { deckId: d.id, position: 0, slides: [s("F")] }))).message).toContain(
      "position",
    );
  });

  test("a deck holds at most 100 slides", async () => {
    const d = await deck(99);
    await w.t("slides_add", { deckId: d.id, slides: [s("last")] });
    const e = await errorOf(() => w.t("slides_add", { deckId: d.id, slides: [s("one too many")] }));
    expect(e.message).toBe("A deck holds at most 100 slides; this would make 101.");
  });

  test("invalid slides and other companies' decks or pictures change nothing", async () => {
    const d = await deck(2);
    const before = commits(w.deps);
    expect(
      (
        await errorOf(() =>
          w.t("slides_add", {
            deckId: d.id,
            slides: [s("ok"), { layout: "image", content: { imageId: w.foreignPng } }],
          }),
        )
      ).code,
    ).toBe("not_found");
    expect(
      (await errorOf(() => w.t("slides_add", { deckId: d.id, slides: [{ layout: "title", content: { title: 5 } }] })))
        .message,
    ).toContain("slides[0].content.title: must be a string");
    expect(
      (await errorOf(() => w.t("slides_add", { deckId: d.id, slides: [s("x")] }, w.ctx({ company: "other" })))).message,
    ).toBe(`Deck ${d.id} not found in Rival.`);
    expect(commits(w.deps)).toBe(before);
    expect(await slideOrder(w, d.id)).toEqual(d.ids);
  });
});

describe("slides_update", () => {
  test("content sets the given fields, null removes one, others are kept; notes change or clear", async () => {
    const d = await w.t("decks_create", {
      title: "U",
      slides: [{ layout: "title", content: { title: "Hi", subtitle: "Sub", date: "May" }, notes: "old" }],
    });
    const id = d.slides[0].id;
    const r = await w.t("slides_update", { deckId: d.id, id, content: { title: "Hello", date: null }, notes: null });
    expect(r).toEqual({ id, deckId: d.id, position: 1, layout: "title", revision: 2 });
    expect(await w.t("slides_get", { deckId: d.id, id })).toMatchObject({
      layout: "title",
      content: { title: "Hello", subtitle: "Sub" },
      notes: null,
    });
    const [ev] = await w.events("slide.updated");
    expect(ev!.data).toMatchObject({
      deckId: d.id,
      position: 1,
      layout: "title",
      fields: ["content.title", "content.date", "notes"],
      revision: 2,
    });
  });

  test("a new layout keeps the shared fields and drops (and names) the rest", async () => {
    const d = await w.t("decks_create", {
      title: "L",
      slides: [{ layout: "title", content: { title: "Hi", subtitle: "Sub", presenter: "Ana" } }],
    });
    const id = d.slides[0].id;
    const r = await w.t("slides_update", { deckId: d.id, id, layout: "title_body", content: { bullets: ["one"] } });
    expect(r.dropped).toEqual(["subtitle", "presenter"]);
    expect((await w.t("slides_get", { deckId: d.id, id })).content).toEqual({ title: "Hi", bullets: ["one"] });
    const e = await errorOf(() => w.t("slides_update", { deckId: d.id, id, layout: "metrics" }));
    expect(e.message).toContain("slide.content.metrics: missing (required by layout metrics)");
  });

  test("refusals: nothing to change, a bad field, a foreign picture, a missing slide", async () => {
    const d = await deck(1);
    const id = d.ids[0]!;
    expect((await errorOf(() => w.t("slides_update", { deckId: d.id, id }))).message).toBe(
      "Nothing to change: give layout, content (the fields to set) or notes.",
    );
    expect((await errorOf(() => w.t("slides_update", { deckId: d.id, id, content: { title: "" } }))).message).toContain(
      "slide.content.title: must not be empty",
    );
    expect(
      (
        await errorOf(() =>
          w.t("slides_update", { deckId: d.id, id, layout: "image", content: { imageId: w.foreignPng } }),
        )
      ).message,
    ).toBe(`content.imageId: media ${w.foreignPng} not found in Acme's sites (media_list shows their ids).`);
    expect(
      (await errorOf(() => w.t("slides_update", { deckId: d.id, id: 999, content: { title: "x" } }))).message,
    ).toBe(`Slide 999 not found in deck ${d.id}.`);
    const other = await deck(1);
    // A slide of another deck is not found through this one.
    expect(
      (await errorOf(() => w.t("slides_update", { deckId: d.id, id: other.ids[0], content: { title: "x" } }))).code,
    ).toBe("not_found");
    expect((await w.t("decks_get", { id: d.id })).revision).toBe(1);
  });
});

describe("moving, reordering, duplicating, deleting", () => {
  test("slides_move forward and back, with the new order and a slide.moved event", async () => {
    const d = await deck(5);
    const [a, b, c, dd, e] = d.ids;
    const r = await w.t("slides_move", { deckId: d.id, id: a, position: 4 });
    expect(r).toEqual({ id: a, deckId: d.id, position: 4, from: 1, revision: 2, order: [b, c, dd, a, e] });
    expect(await titles(d.id)).toBe("1B 2C 3D 4A 5E");
    await w.t("slides_move", { deckId: d.id, id: e, position: 1 });
    expect(await titles(d.id)).toBe("1E 2B 3C 4D 5A");
    await w.t("slides_move", { deckId: d.id, id: c, position: 3 });
    expect(await titles(d.id)).toBe("1E 2B 3C 4D 5A");
    const moved = await w.events("slide.moved");
    expect(moved[0]!.data).toMatchObject({ from: 1, position: 4, order: [b, c, dd, a, e] });
    expect((await errorOf(() => w.t("slides_move", { deckId: d.id, id: a, position: 6 }))).message).toBe(
      "position 6 is past the end: the deck has 5 slides (positions 1 to 5).",
    );
  });

  test("slides_reorder takes every slide exactly once", async () => {
    const d = await deck(3);
    const [a, b, c] = d.ids as [number, number, number];
    expect(await w.t("slides_reorder", { deckId: d.id, ids: [c, a, b] })).toEqual({
      deckId: d.id,
      revision: 2,
      order: [c, a, b],
    });
    expect(await titles(d.id)).toBe("1C 2A 3B");
    const e = await errorOf(() => w.t("slides_reorder", { deckId: d.id, ids: [a, a, 999] }));
    expect(e.message).toBe(
      `ids must list each of the deck's 3 slides exactly once (its order now: ${c}, ${a}, ${b}); listed twice: ${a}; not in this deck: 999; missing: ${c}, ${b}.`,
    );
    const [ev] = await w.events("deck.slides_reordered");
    expect(ev!.data.order).toEqual([c, a, b]);
  });

  test("slides_duplicate copies right after the original, or to a position", async () => {
    const d = await w.t("decks_create", {
      title: "Dup",
      slides: [s("A"), { layout: "quote", content: { quote: "Q" }, notes: "n" }, s("C")],
    });
    const q = d.slides[1].id;
    const copy = await w.t("slides_duplicate", { deckId: d.id, id: q });
    expect(copy).toMatchObject({ position: 3, layout: "quote", sourceSlideId: q, slideCount: 4 });
    expect(await w.t("slides_get", { deckId: d.id, id: copy.id })).toMatchObject({
      content: { quote: "Q" },
      notes: "n",
    });
    await w.t("slides_duplicate", { deckId: d.id, id: d.slides[0].id, position: 5 });
    expect(await titles(d.id)).toBe("1A 2Q 3Q 4C 5A");
    expect((await w.events("slide.added")).map((e) => e.data.sourceSlideId)).toEqual([q, d.slides[0].id]);
  });

  test("slides_delete closes the gap", async () => {
    const d = await deck(4);
    const r = await w.t("slides_delete", { deckId: d.id, id: d.ids[1] });
    expect(r).toEqual({ id: d.ids[1], status: "deleted", deckId: d.id, position: 2, revision: 2, slideCount: 3 });
    expect(await titles(d.id)).toBe("1A 2C 3D");
    expect((await w.events("slide.deleted"))[0]!.data).toMatchObject({ position: 2, layout: "title_body" });
    expect((await errorOf(() => w.t("slides_delete", { deckId: d.id, id: d.ids[1] }))).code).toBe("not_found");
  });

  test("a viewer cannot change slides", async () => {
    const d = await deck(2);
    const viewer = w.ctx({ role: "viewer" });
    for (const [name, args] of [
      ["slides_move", { deckId: d.id, id: d.ids[0], position: 2 }],
      ["slides_delete", { deckId: d.id, id: d.ids[0] }],
      ["slides_update", { deckId: d.id, id: d.ids[0], notes: "x" }],
    ] as const)
      expect((await errorOf(() => w.t(name, args, viewer))).code).toBe("forbidden");
    expect(await w.t("slides_get", { deckId: d.id, id: d.ids[0] }, viewer)).toMatchObject({ position: 1 });
  });
});

describe("concurrent writers to one deck", () => {
  test("30 racing moves, adds and deletes leave positions exactly 1..n, matching the last writer's answer", async () => {
    const d = await deck(8);
    const ops: Promise<any>[] = [];
    for (let i = 0; i < 30; i++) {
      const id = d.ids[i % 8]!;
      if (i % 10 === 4) ops.push(w.t("slides_add", { deckId: d.id, position: 1 + (i % 5), slides: [s(`n${i}`)] }));
      else ops.push(w.t("slides_move", { deckId: d.id, id, position: 1 + ((i * 5) % 8) }));
    }
    const results = await Promise.all(ops);
    const rows = await slideOrder(w, d.id);
    expect(rows.length).toBe(11);
    const g = await w.t("decks_get", { id: d.id });
    expect(g.slides.map((x: any) => x.position)).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    // Every write saw the one before it: revisions 2..31, each once.
    expect(results.map((r) => r.revision).sort((a, b) => a - b)).toEqual(Array.from({ length: 30 }, (_, i) => i + 2));
    const last = results.find((r) => r.revision === 31);
    if (last.order) expect(rows).toEqual(last.order);
  });
});
