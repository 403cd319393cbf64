/**
 * What the deck and slide verbs share: tenancy (a deck of another company
 * answers exactly like one that does not exist), the per-deck write lock,
 * slide ordering, media checks, placeholders and snapshots.
 *
 * Ordering: a deck's slide positions are always exactly 1..n (a unique
 * index guards it). Every write to a deck starts by bumping the deck's
 * revision, an UPDATE of the deck row: on PostgreSQL that row lock queues
 * concurrent writers to one deck behind each other (and SERIALIZABLE
 * retries whoever read stale rows); SQLite has one writer anyway. So two
 * agents moving slides at once each see the other's result, never a
 * half-applied order.
 */
import { and, asc, eq, ne, sql } from "drizzle-orm";
import type { ActorContext, Deps } from "../../core/context";
import type { Tx } from "../../core/db";
import { conflict, invalid, notFound } from "../../core/errors";
import { randomHex } from "../../core/secrets";
import { slugify } from "../../core/slug";
import { mediaOfCompany } from "../cms/media-facts";
import {
  imageRefs,
  isLayout,
  LAYOUTS,
  MAX_NOTES,
  MAX_SLIDES,
  mapStrings,
  validateContent,
  textWarning,
  type Layout,
  type ResolvedImage,
  type VersionSlide,
} from "./layouts";
import type { RenderSlide } from "./render";
import { themeForSite } from "./theme";
import { decks, deckSlides, deckVersions, type DeckRow, type SlideRow } from "./tables";

/** Runs `fn` in one transaction (a savepoint inside an approval's or an idempotent call's). */
export function write<T>(ctx: { deps: Deps }, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return ctx.deps.db.transaction((tx) => fn(tx as unknown as Tx));
}

export async function deckInCompany(tx: Tx, ctx: ActorContext, id: number): Promise<DeckRow> {
  const d = (
    await tx
      .select()
      .from(decks)
      .where(and(eq(decks.id, id), eq(decks.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!d) throw notFound(`Deck ${id} not found in ${ctx.company.name}.`);
  return d;
}

/**
 * Takes the deck for writing: bumps its revision (and updatedAt) first, so
 * concurrent writers to the same deck queue on its row. Returns the deck
 * as it is now, with the new revision.
 */
export async function lockDeck(tx: Tx, ctx: ActorContext, id: number): Promise<DeckRow> {
  const now = ctx.deps.clock.now();
  const row = (
    await tx
      .update(decks)
      .set({ revision: sql`${decks.revision} + 1`, updatedAt: now })
      .where(and(eq(decks.id, id), eq(decks.companyId, ctx.company.id)))
      .returning()
  )[0];
  if (!row) throw notFound(`Deck ${id} not found in ${ctx.company.name}.`);
  return row;
}

export async function slidesOf(tx: Tx, deckId: number): Promise<SlideRow[]> {
  return await tx.select().from(deckSlides).where(eq(deckSlides.deckId, deckId)).orderBy(asc(deckSlides.position));
}

export async function slideInDeck(tx: Tx, deck: DeckRow, id: number): Promise<SlideRow> {
  const s = (
    await tx
      .select()
      .from(deckSlides)
      .where(and(eq(deckSlides.id, id), eq(deckSlides.deckId, deck.id)))
      .limit(1)
  )[0];
  if (!s) throw notFound(`Slide ${id} not found in deck ${deck.id}.`);
  return s;
}

/** A slide as an agent gives it (slides_add, decks_create). */
export interface SlideInput {
  layout: string;
  content?: Record<string, unknown>;
  notes?: string | null;
}

export interface CheckedSlide {
  layout: Layout;
  content: Record<string, unknown>;
  notes: string | null;
}

/** Validates slides for their layouts and checks every image they name; `at` prefixes error paths ("slides"). */
export async function checkSlides(tx: Tx, ctx: ActorContext, input: SlideInput[], at: string): Promise<CheckedSlide[]> {
  const out = input.map((s, i) => checkSlide(s, `${at}[${i}]`));
  await resolveImages(
    tx,
    ctx,
    out.flatMap((s, i) => imageRefs(s.content).map((r) => ({ id: r.id, path: `${at}[${i}].content.${r.path}` }))),
  );
  return out;
}

export function checkSlide(s: SlideInput, at: string): CheckedSlide {
  if (!isLayout(s.layout))
    throw invalid(`${at}.layout must be one of ${LAYOUTS.join(", ")}.`, { path: `${at}.layout` });
  if (typeof s.notes === "string" && s.notes.length > MAX_NOTES)
    throw invalid(`${at}.notes: at most ${MAX_NOTES} characters.`, { path: `${at}.notes` });
  return {
    layout: s.layout,
    content: validateContent(s.layout, s.content ?? {}, `${at}.content`),
    notes: s.notes ?? null,
  };
}

export function checkSlideCount(n: number) {
  if (n > MAX_SLIDES) throw invalid(`A deck holds at most ${MAX_SLIDES} slides; this would make ${n}.`);
}

/**
 * The media items `refs` name, each an image in one of the company's sites.
 * Another company's media id answers exactly like a missing one.
 */
export async function resolveImages(
  tx: Tx,
  ctx: { company: { id: number; name: string } },
  refs: { id: number; path: string }[],
): Promise<Map<number, ResolvedImage>> {
  const out = new Map<number, ResolvedImage>();
  const ids = [...new Set(refs.map((r) => r.id))];
  if (ids.length === 0) return out;
  const rows = await mediaOfCompany(tx, ctx.company.id, ids);
  for (const r of rows)
    out.set(r.id, {
      url: r.url,
      alt: r.alt,
      width: r.width,
      height: r.height,
      mimeType: r.mimeType,
      storageKey: r.storageKey,
    });
  for (const ref of refs) {
    const m = out.get(ref.id);
    if (!m)
      throw notFound(
        `${ref.path}: media ${ref.id} not found in ${ctx.company.name}'s sites (media_list shows their ids).`,
      );
    if (!m.mimeType.startsWith("image/"))
      throw invalid(`${ref.path}: media ${ref.id} is a ${m.mimeType} file, not an image.`, { path: ref.path });
  }
  return out;
}

/** The images of slides, resolved now, keyed as a version keeps them (by id, as a string). */
export async function imagesFor(
  tx: Tx,
  ctx: { company: { id: number; name: string } },
  content: Record<string, unknown>,
): Promise<Record<string, ResolvedImage>> {
  const refs = imageRefs(content);
  const out: Record<string, ResolvedImage> = {};
  if (!refs.length) return out;
  // A media item deleted since the slide was written renders as "not available" rather than failing the read.
  const rows = await mediaOfCompany(tx, ctx.company.id, [...new Set(refs.map((r) => r.id))]);
  for (const r of rows)
    if (r.mimeType.startsWith("image/"))
      out[String(r.id)] = {
        url: r.url,
        alt: r.alt,
        width: r.width,
        height: r.height,
        mimeType: r.mimeType,
        storageKey: r.storageKey,
      };
  return out;
}

/** The draft's slides as the renderers take them (images resolved now). */
export async function draftRenderSlides(
  tx: Tx,
  ctx: { company: { id: number; name: string } },
  rows: SlideRow[],
): Promise<RenderSlide[]> {
  const out: RenderSlide[] = [];
  for (const r of rows)
    out.push({
      layout: r.layout as Layout,
      content: r.content,
      notes: r.notes,
      images: await imagesFor(tx, ctx, r.content),
    });
  return out;
}

// ---------------------------------------------------------------------------
// Slugs

/** Slugs are global (the URL names no company): a generated one gets a random tail, so decks cannot be found by guessing titles. */
export async function generatedSlug(tx: Tx, title: string): Promise<string> {
  const base = slugify(title, "deck").slice(0, 100).replace(/-+$/, "");
  for (;;) {
    const slug = `${base}-${randomHex(3)}`;
    if (!(await slugTaken(tx, slug, null))) return slug;
  }
}

export async function slugTaken(tx: Tx, slug: string, exceptId: number | null) {
  return (
    await tx
      .select({ id: decks.id, companyId: decks.companyId, title: decks.title })
      .from(decks)
      .where(and(eq(decks.slug, slug), exceptId === null ? undefined : ne(decks.id, exceptId)))
      .limit(1)
  )[0];
}

/** A slug the caller chose: refused when any deck has it (another company's deck is not named). */
export async function assertSlugFree(tx: Tx, ctx: ActorContext, slug: string, exceptId: number | null) {
  const owner = await slugTaken(tx, slug, exceptId);
  if (!owner) return;
  const whose = owner.companyId === ctx.company.id ? ` by deck ${owner.id} ("${owner.title.slice(0, 80)}")` : "";
  throw conflict(`The address /d/${slug} is already taken${whose}. Choose another slug, or omit it to have one made.`, {
    path: "slug",
  });
}

// ---------------------------------------------------------------------------
// Placeholders: {{name}} in any text of a deck

export const PLACEHOLDER_RE = /\{\{\s*([A-Za-z][A-Za-z0-9_.-]{0,63})\s*\}\}/g;

/** Where each placeholder of a deck is: `{ client: ["title", "slide 2 title"] }`. */
export function placeholdersOf(
  deck: { title: string; description: string | null },
  slides: { content: Record<string, unknown>; notes: string | null }[],
): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const scan = (s: string, where: string) => {
    for (const m of s.matchAll(PLACEHOLDER_RE)) {
      const list = found.get(m[1]!) ?? [];
      if (!list.includes(where)) list.push(where);
      found.set(m[1]!, list);
    }
  };
  scan(deck.title, "title");
  if (deck.description) scan(deck.description, "description");
  slides.forEach((sl, i) => {
    mapStrings(sl.content, (s, path) => (scan(s, `slide ${i + 1} ${path}`), s));
    if (sl.notes) scan(sl.notes, `slide ${i + 1} notes`);
  });
  return found;
}

/** Text warnings for slides that hold more than reads well. */
export function slideWarnings(
  slides: { layout: string; content: Record<string, unknown> }[],
  firstPosition = 1,
): string[] {
  return slides
    .map((s, i) => textWarning(firstPosition + i, s.layout as Layout, s.content))
    .filter((w): w is string => w !== null)
    .slice(0, 10);
}

// ---------------------------------------------------------------------------
// Versions

/** Freezes the draft into the next version: slides with images resolved, the theme of now. */
export async function snapshot(tx: Tx, ctx: ActorContext, deck: DeckRow, rows: SlideRow[]) {
  const slides: VersionSlide[] = [];
  for (const r of rows) {
    const images = await resolveImages(
      tx,
      ctx,
      imageRefs(r.content).map((ref) => ({ id: ref.id, path: `slide ${r.position} ${ref.path}` })),
    );
    slides.push({
      id: r.id,
      layout: r.layout as Layout,
      content: r.content,
      notes: r.notes,
      images: Object.fromEntries([...images].map(([k, x]) => [String(k), x])),
    });
  }
  const last =
    (
      await tx
        .select({ n: deckVersions.number })
        .from(deckVersions)
        .where(eq(deckVersions.deckId, deck.id))
        .orderBy(sql`${deckVersions.number} desc`)
        .limit(1)
    )[0]?.n ?? 0;
  return (
    await tx
      .insert(deckVersions)
      .values({
        deckId: deck.id,
        number: last + 1,
        revision: deck.revision,
        title: deck.title,
        description: deck.description,
        slides,
        theme: await themeForSite(ctx.deps, deck.siteId),
        createdByUserId: ctx.principal.userId,
        createdAt: ctx.deps.clock.now(),
      })
      .returning()
  )[0]!;
}

export function versionRenderSlides(slides: VersionSlide[]): RenderSlide[] {
  return slides.map((s) => ({ layout: s.layout, content: s.content, notes: s.notes, images: s.images }));
}

/** The public address of a deck. */
export function deckUrl(deps: Deps, slug: string): string {
  return `${deps.config.publicUrl}/d/${slug}`;
}
