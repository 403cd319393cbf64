/**
 * Slide verbs: read one, add (one or several, anywhere), change, move,
 * reorder, duplicate, delete. They edit the deck's draft; a published
 * deck's audience sees the change only once it is published and approved.
 *
 * Each write starts with lockDeck (access.ts): concurrent writers to one
 * deck queue, and positions stay exactly 1..n.
 */
import { eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { authorize } from "../../core/scopes";
import {
  checkSlide,
  checkSlideCount,
  checkSlides,
  deckInCompany,
  lockDeck,
  resolveImages,
  slideInDeck,
  slidesOf,
  slideWarnings,
  write,
  type SlideInput,
} from "./access";
import { slideAdded, slideDeleted, slideMoved, slidesReordered, slideUpdated } from "./events";
import { imageRefs, LAYOUT_SCHEMAS, type Layout } from "./layouts";
import { deckSlides, type DeckRow, type SlideRow } from "./tables";
import type { Tx } from "../../core/db";

/** Moves slides to the given positions without two ever sharing one (the unique index): through negative places first. */
async function reposition(tx: Tx, moves: { id: number; from: number; to: number }[], now: Date) {
  const real = moves.filter((m) => m.from !== m.to);
  for (const m of real) await tx.update(deckSlides).set({ position: -m.to }).where(eq(deckSlides.id, m.id));
  for (const m of real)
    await tx.update(deckSlides).set({ position: m.to, updatedAt: now }).where(eq(deckSlides.id, m.id));
}

/** Puts the deck's slides in the order of `ids` (all of them). */
async function applyOrder(tx: Tx, rows: SlideRow[], ids: number[], now: Date) {
  const from = new Map(rows.map((r) => [r.id, r.position]));
  await reposition(
    tx,
    ids.map((id, i) => ({ id, from: from.get(id)!, to: i + 1 })),
    now,
  );
}

function positionIn(position: number | undefined, n: number, what: string): number {
  if (position === undefined) return n + 1;
  if (position > n + 1)
    throw invalid(
      `position ${position} is past the end: the deck has ${n} slide${n === 1 ? "" : "s"}, so ${what} can go at 1 to ${n + 1}.`,
      { path: "position" },
    );
  return position;
}

async function insertAt(
  tx: Tx,
  ctx: ActorContext,
  deck: DeckRow,
  rows: SlideRow[],
  at: number,
  slides: { layout: Layout; content: Record<string, unknown>; notes: string | null }[],
  sourceSlideId: number | null,
) {
  const now = ctx.deps.clock.now();
  const n = slides.length;
  await reposition(
    tx,
    rows.filter((r) => r.position >= at).map((r) => ({ id: r.id, from: r.position, to: r.position + n })),
    now,
  );
  const added: { id: number; position: number; layout: Layout }[] = [];
  for (const [i, s] of slides.entries()) {
    const position = at + i;
    const row = (
      await tx
        .insert(deckSlides)
        .values({
          deckId: deck.id,
          position,
          layout: s.layout,
          content: s.content,
          notes: s.notes,
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: deckSlides.id })
    )[0]!;
    added.push({ id: row.id, position, layout: s.layout });
    await emit(
      tx,
      ctx,
      slideAdded,
      { id: row.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title: deck.title,
        position,
        layout: s.layout,
        sourceSlideId,
        revision: deck.revision,
      },
    );
  }
  return added;
}

export async function getSlide(ctx: ActorContext, input: { deckId: number; id: number }) {
  authorize(ctx, "decks:read", { write: false });
  const deck = await deckInCompany(ctx.deps.db, ctx, input.deckId);
  const s = await slideInDeck(ctx.deps.db, deck, input.id);
  return {
    id: s.id,
    deckId: deck.id,
    position: s.position,
    layout: s.layout,
    content: s.content,
    notes: s.notes,
    updatedAt: iso(s.updatedAt),
  };
}

export async function addSlides(ctx: ActorContext, input: { deckId: number; slides: SlideInput[]; position?: number }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const checked = await checkSlides(tx, ctx, input.slides, "slides");
    const deck = await lockDeck(tx, ctx, input.deckId);
    const rows = await slidesOf(tx, deck.id);
    checkSlideCount(rows.length + checked.length);
    const at = positionIn(input.position, rows.length, "new slides");
    const added = await insertAt(tx, ctx, deck, rows, at, checked, null);
    await audit(tx, ctx, "slides.add", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { slides: added.map((a) => a.id), position: at },
    });
    const warnings = slideWarnings(checked, at);
    return {
      deckId: deck.id,
      revision: deck.revision,
      slideCount: rows.length + added.length,
      slides: added,
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

export interface UpdateSlideInput {
  deckId: number;
  id: number;
  layout?: string;
  /** Fields to set; null removes an optional field. Other fields are kept. */
  content?: Record<string, unknown>;
  notes?: string | null;
}

export async function updateSlide(ctx: ActorContext, input: UpdateSlideInput) {
  authorize(ctx, "decks:write", { write: true });
  if (input.layout === undefined && input.content === undefined && input.notes === undefined)
    throw invalid("Nothing to change: give layout, content (the fields to set) or notes.");
  return write(ctx, async (tx) => {
    const deck = await lockDeck(tx, ctx, input.deckId);
    const slide = await slideInDeck(tx, deck, input.id);
    const layout = input.layout ?? slide.layout;
    const merged: Record<string, unknown> = { ...slide.content };
    for (const [k, x] of Object.entries(input.content ?? {})) {
      if (x === null) delete merged[k];
      else merged[k] = x;
    }
    // A new layout keeps the fields it shares with the old one; the rest are dropped (and said).
    const dropped: string[] = [];
    if (
      input.layout !== undefined &&
      input.layout !== slide.layout &&
      (LAYOUT_SCHEMAS as Record<string, { entries: object }>)[input.layout]
    ) {
      const keep = Object.keys((LAYOUT_SCHEMAS as Record<string, { entries: object }>)[input.layout]!.entries);
      for (const k of Object.keys(merged))
        if (!keep.includes(k) && !Object.hasOwn(input.content ?? {}, k)) {
          dropped.push(k);
          delete merged[k];
        }
    }
    const checked = checkSlide(
      { layout, content: merged, notes: input.notes === undefined ? slide.notes : input.notes },
      "slide",
    );
    await resolveImages(
      tx,
      ctx,
      imageRefs(checked.content).map((r) => ({ id: r.id, path: `content.${r.path}` })),
    );
    const fields = [
      ...(input.layout !== undefined && input.layout !== slide.layout ? ["layout"] : []),
      ...Object.keys(input.content ?? {}).map((k) => `content.${k}`),
      ...dropped.map((k) => `content.${k}`),
      ...(input.notes !== undefined ? ["notes"] : []),
    ];
    await tx
      .update(deckSlides)
      .set({ layout: checked.layout, content: checked.content, notes: checked.notes, updatedAt: ctx.deps.clock.now() })
      .where(eq(deckSlides.id, slide.id));
    await audit(tx, ctx, "slides.update", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { slideId: slide.id, fields },
    });
    await emit(
      tx,
      ctx,
      slideUpdated,
      { id: slide.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title: deck.title,
        position: slide.position,
        layout: checked.layout,
        fields,
        revision: deck.revision,
      },
    );
    const warnings = slideWarnings([checked], slide.position);
    return {
      id: slide.id,
      deckId: deck.id,
      position: slide.position,
      layout: checked.layout,
      revision: deck.revision,
      ...(dropped.length ? { dropped } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

export async function moveSlide(ctx: ActorContext, input: { deckId: number; id: number; position: number }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const deck = await lockDeck(tx, ctx, input.deckId);
    const slide = await slideInDeck(tx, deck, input.id);
    const rows = await slidesOf(tx, deck.id);
    if (input.position > rows.length)
      throw invalid(
        `position ${input.position} is past the end: the deck has ${rows.length} slides (positions 1 to ${rows.length}).`,
        { path: "position" },
      );
    const order = rows.map((r) => r.id).filter((id) => id !== slide.id);
    order.splice(input.position - 1, 0, slide.id);
    await applyOrder(tx, rows, order, ctx.deps.clock.now());
    await audit(tx, ctx, "slides.move", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { slideId: slide.id, from: slide.position, to: input.position },
    });
    await emit(
      tx,
      ctx,
      slideMoved,
      { id: slide.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title: deck.title,
        position: input.position,
        layout: slide.layout,
        from: slide.position,
        order,
        revision: deck.revision,
      },
    );
    return {
      id: slide.id,
      deckId: deck.id,
      position: input.position,
      from: slide.position,
      revision: deck.revision,
      order,
    };
  });
}

export async function reorderSlides(ctx: ActorContext, input: { deckId: number; ids: number[] }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const deck = await lockDeck(tx, ctx, input.deckId);
    const rows = await slidesOf(tx, deck.id);
    const have = new Set(rows.map((r) => r.id));
    const seen = new Set<number>();
    const twice = input.ids.filter((id) => (seen.has(id) ? true : (seen.add(id), false)));
    const unknown = input.ids.filter((id) => !have.has(id));
    const missing = rows.map((r) => r.id).filter((id) => !seen.has(id));
    if (twice.length || unknown.length || missing.length)
      throw invalid(
        `ids must list each of the deck's ${rows.length} slides exactly once (its order now: ${rows.map((r) => r.id).join(", ")})` +
          [
            twice.length ? `; listed twice: ${[...new Set(twice)].join(", ")}` : "",
            unknown.length ? `; not in this deck: ${unknown.join(", ")}` : "",
            missing.length ? `; missing: ${missing.join(", ")}` : "",
          ].join("") +
          ".",
        { path: "ids" },
      );
    await applyOrder(tx, rows, input.ids, ctx.deps.clock.now());
    await audit(tx, ctx, "slides.reorder", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { order: input.ids },
    });
    await emit(
      tx,
      ctx,
      slidesReordered,
      { id: deck.id, siteId: deck.siteId },
      { deckId: deck.id, slug: deck.slug, title: deck.title, order: input.ids, revision: deck.revision },
    );
    return { deckId: deck.id, revision: deck.revision, order: input.ids };
  });
}

export async function duplicateSlide(ctx: ActorContext, input: { deckId: number; id: number; position?: number }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const deck = await lockDeck(tx, ctx, input.deckId);
    const source = await slideInDeck(tx, deck, input.id);
    const rows = await slidesOf(tx, deck.id);
    checkSlideCount(rows.length + 1);
    const at = input.position === undefined ? source.position + 1 : positionIn(input.position, rows.length, "the copy");
    const [copy] = await insertAt(
      tx,
      ctx,
      deck,
      rows,
      at,
      [{ layout: source.layout as Layout, content: source.content, notes: source.notes }],
      source.id,
    );
    await audit(tx, ctx, "slides.duplicate", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { from: source.id, slideId: copy!.id, position: at },
    });
    return {
      id: copy!.id,
      deckId: deck.id,
      position: at,
      layout: source.layout,
      sourceSlideId: source.id,
      revision: deck.revision,
      slideCount: rows.length + 1,
    };
  });
}

export async function deleteSlide(ctx: ActorContext, input: { deckId: number; id: number }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const deck = await lockDeck(tx, ctx, input.deckId);
    const slide = await slideInDeck(tx, deck, input.id);
    const rows = await slidesOf(tx, deck.id);
    await tx.delete(deckSlides).where(eq(deckSlides.id, slide.id));
    await reposition(
      tx,
      rows.filter((r) => r.position > slide.position).map((r) => ({ id: r.id, from: r.position, to: r.position - 1 })),
      ctx.deps.clock.now(),
    );
    await audit(tx, ctx, "slides.delete", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { slideId: slide.id, position: slide.position },
    });
    await emit(
      tx,
      ctx,
      slideDeleted,
      { id: slide.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title: deck.title,
        position: slide.position,
        layout: slide.layout,
        revision: deck.revision,
      },
    );
    return {
      id: slide.id,
      status: "deleted",
      deckId: deck.id,
      position: slide.position,
      revision: deck.revision,
      slideCount: rows.length - 1,
    };
  });
}
