/**
 * Deck verbs: create (from slides or an outline), change, delete, publish
 * through approval, take down, fill a template's {{variables}}, replace
 * text, read and list.
 *
 * States of a deck (our names; the spec leaves them open):
 *   draft      never live, nothing waiting
 *   pending    its first publication waits for a person
 *   published  a version is live at /d/<slug> (a newer one may wait too)
 *   archived   taken offline with decks_unpublish (a person approved it)
 * Agents always edit the draft. Publishing freezes the draft into a version
 * and asks a person; the public page serves only approved versions, so the
 * audience never sees an edit in progress.
 */
import { and, count, desc, eq, inArray } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { AppError, conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { containsText } from "../../core/sql";
import { approvalState, effectiveStatus, latestLinkFor, mintLink, withdrawLinks } from "../approvals/links";
import { approvedLinkId, holdForApproval, isApprovedRun } from "../approvals/staging";
import { siteForActor } from "../sites/access";
import { primarySiteId as firstActiveSite } from "../sites/facts";
import {
  assertSlugFree,
  checkSlide,
  checkSlideCount,
  checkSlides,
  deckInCompany,
  deckUrl,
  draftRenderSlides,
  generatedSlug,
  lockDeck,
  PLACEHOLDER_RE,
  placeholdersOf,
  resolveImages,
  slidesOf,
  slideWarnings,
  snapshot,
  versionRenderSlides,
  write,
  type CheckedSlide,
  type SlideInput,
} from "./access";
import {
  deckCreated,
  deckDeleted,
  deckPublishRequested,
  deckTextReplaced,
  deckUnpublished,
  deckUpdated,
} from "./events";
import { imageRefs, mapStrings, slideTitle, type Layout } from "./layouts";
import { slidesFromOutline } from "./outline";
import { assertAffordable, meter } from "../ai/meter";
import { renderDeck } from "./render";
import {
  decks,
  deckSlides,
  deckVersions,
  type DeckRow,
  type DeckStatus,
  type SlideRow,
  type VersionRow,
} from "./tables";
import { themeForSite } from "./theme";
import type { Tx } from "../../core/db";

const PITCH_DECK = "pitch_deck";

/** The company's primary site (its first active site): where a deck lives when the call names none. */
async function primarySiteId(ctx: ActorContext): Promise<number> {
  const s = await firstActiveSite(ctx.deps.db, ctx.company.id);
  if (s === null)
    throw notFound(
      `${ctx.company.name} has no active site; a deck takes its brand and pictures from one. Pass siteId.`,
    );
  return s;
}

async function insertDeck(
  tx: Tx,
  ctx: ActorContext,
  d: {
    siteId: number;
    title: string;
    slug?: string;
    description: string | null;
    isTemplate: boolean;
    slides: CheckedSlide[];
    fromDeckId: number | null;
  },
) {
  const now = ctx.deps.clock.now();
  if (d.slug !== undefined) await assertSlugFree(tx, ctx, d.slug, null);
  const slug = d.slug ?? (await generatedSlug(tx, d.title));
  const deck = (
    await tx
      .insert(decks)
      .values({
        companyId: ctx.company.id,
        siteId: d.siteId,
        title: d.title,
        slug,
        description: d.description,
        isTemplate: d.isTemplate,
        status: "draft",
        createdByUserId: ctx.principal.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!;
  const ids: number[] = [];
  for (const [i, s] of d.slides.entries()) {
    const row = (
      await tx
        .insert(deckSlides)
        .values({
          deckId: deck.id,
          position: i + 1,
          layout: s.layout,
          content: s.content,
          notes: s.notes,
          createdAt: now,
          updatedAt: now,
        })
        .returning({ id: deckSlides.id })
    )[0]!;
    ids.push(row.id);
  }
  await audit(tx, ctx, "decks.create", {
    type: "deck",
    id: deck.id,
    siteId: deck.siteId,
    detail: { slug, slides: ids.length, fromDeckId: d.fromDeckId },
  });
  await emit(
    tx,
    ctx,
    deckCreated,
    { id: deck.id, siteId: deck.siteId },
    {
      deckId: deck.id,
      slug,
      title: deck.title,
      siteId: deck.siteId,
      slideCount: ids.length,
      isTemplate: deck.isTemplate,
      fromDeckId: d.fromDeckId,
      createdByUserId: ctx.principal.userId,
    },
  );
  return { deck, slideIds: ids };
}

export interface CreateDeckInput {
  title: string;
  siteId?: number;
  slug?: string;
  description?: string | null;
  isTemplate?: boolean;
  slides?: SlideInput[];
  outline?: string;
}

export async function createDeck(ctx: ActorContext, input: CreateDeckInput) {
  authorize(ctx, "decks:write", { write: true });
  if (input.slides !== undefined && input.outline !== undefined) throw invalid("Give slides or outline, not both.");
  const siteId = input.siteId !== undefined ? (await siteForActor(ctx, input.siteId)).id : await primarySiteId(ctx);
  const given = input.outline !== undefined ? slidesFromOutline(input.outline) : (input.slides ?? []);
  checkSlideCount(given.length);
  return write(ctx, async (tx) => {
    const slides = await checkSlides(tx, ctx, given, input.outline !== undefined ? "outline slides" : "slides");
    const { deck, slideIds } = await insertDeck(tx, ctx, {
      siteId,
      title: input.title,
      slug: input.slug,
      description: input.description ?? null,
      isTemplate: input.isTemplate ?? false,
      slides,
      fromDeckId: null,
    });
    const placeholders = [...placeholdersOf(deck, slides).keys()];
    const warnings = slideWarnings(slides);
    return {
      id: deck.id,
      slug: deck.slug,
      status: deck.status,
      revision: deck.revision,
      slides: slideIds.map((id, i) => ({ id, position: i + 1, layout: slides[i]!.layout })),
      ...(placeholders.length ? { placeholders } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

export interface UpdateDeckInput {
  id: number;
  title?: string;
  slug?: string;
  description?: string | null;
  siteId?: number;
  isTemplate?: boolean;
}

export async function updateDeck(ctx: ActorContext, input: UpdateDeckInput) {
  authorize(ctx, "decks:write", { write: true });
  const fields = (["title", "slug", "description", "siteId", "isTemplate"] as const).filter(
    (k) => input[k] !== undefined,
  );
  // As posts_update does: calling with no changes sends the draft for approval again (a fresh link for an expired one).
  if (fields.length === 0) return await publishDeck(ctx, { id: input.id });
  const siteId = input.siteId !== undefined ? (await siteForActor(ctx, input.siteId)).id : undefined;
  return write(ctx, async (tx) => {
    const before = await deckInCompany(tx, ctx, input.id);
    if (input.slug !== undefined && input.slug !== before.slug) {
      if (before.status === "published")
        throw conflict(
          `Deck ${before.id} is live at /d/${before.slug}, the address its audience has: its slug cannot change while it is published. Unpublish it first, or fill a copy (decks_fill_template) under a new slug.`,
          { path: "slug" },
        );
      await assertSlugFree(tx, ctx, input.slug, before.id);
    }
    if (input.isTemplate === true && (before.status === "published" || before.status === "pending"))
      throw conflict(
        `Deck ${before.id} is ${before.status}: a template is never published. Unpublish it first, or fill a copy and make that the template.`,
        { path: "isTemplate" },
      );
    // Every field equal to what the deck has: nothing to change, so no new revision (which would make the
    // next publish freeze a version identical to the last), no event, no audit line.
    if (fields.every((k) => (k === "siteId" ? siteId : input[k]) === before[k]))
      return {
        id: before.id,
        slug: before.slug,
        status: before.status,
        revision: before.revision,
        fields: [],
        unchanged: true,
      };
    const deck = await lockDeck(tx, ctx, before.id);
    const set: Partial<DeckRow> = {};
    if (input.title !== undefined) set.title = input.title;
    if (input.slug !== undefined) set.slug = input.slug;
    if (input.description !== undefined) set.description = input.description;
    if (siteId !== undefined) set.siteId = siteId;
    if (input.isTemplate !== undefined) set.isTemplate = input.isTemplate;
    await tx.update(decks).set(set).where(eq(decks.id, deck.id));
    const after = { ...deck, ...set };
    await audit(tx, ctx, "decks.update", { type: "deck", id: deck.id, siteId: after.siteId, detail: { fields } });
    await emit(
      tx,
      ctx,
      deckUpdated,
      { id: deck.id, siteId: after.siteId },
      { deckId: deck.id, slug: after.slug, title: after.title, fields: [...fields], revision: deck.revision },
    );
    return { id: deck.id, slug: after.slug, status: deck.status, revision: deck.revision, fields: [...fields] };
  });
}

/** What a deck's link proposes, recorded on the link so it reads the same after the decision. */
export interface DeckProposal {
  versionId: number;
  version: number;
  proposal: "new" | "update" | "republish";
  /** The version live when this one was proposed (updates only). */
  liveVersionId: number | null;
}

async function versionById(tx: Tx, id: number | null): Promise<VersionRow | null> {
  if (id === null) return null;
  return (await tx.select().from(deckVersions).where(eq(deckVersions.id, id)).limit(1))[0] ?? null;
}

/**
 * The version the deck's latest request proposed, when the draft has not
 * changed since it was frozen and no person decided it (the link is pending,
 * expired or withdrawn): asking again (a fresh link after expiry, decks_update
 * with no changes) asks about that version rather than freezing a copy of it.
 * A rejected or approved version is never asked about again.
 */
async function undecidedSameDraft(tx: Tx, ctx: ActorContext, deck: DeckRow): Promise<VersionRow | null> {
  const link = await latestLinkFor(tx, ctx.company.id, PITCH_DECK, deck.id);
  if (!link || !["pending", "expired", "withdrawn"].includes(effectiveStatus(link, ctx.deps.clock.now()))) return null;
  const asked = await versionById(tx, (link.payload as Partial<DeckProposal> | null)?.versionId ?? null);
  return asked && asked.deckId === deck.id && asked.revision === deck.revision ? asked : null;
}

export async function publishDeck(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const deck = await deckInCompany(tx, ctx, input.id);
    if (deck.isTemplate)
      throw conflict(
        `Deck ${deck.id} is a template: templates are filled into new decks with decks_fill_template, and those are published.`,
      );
    const rows = await slidesOf(tx, deck.id);
    if (rows.length === 0)
      throw conflict(`Deck ${deck.id} has no slides yet; add some with slides_add before publishing.`);
    const open = placeholdersOf(deck, rows);
    if (open.size)
      throw conflict(
        `Deck ${deck.id} still has unfilled placeholders: ${[...open]
          .slice(0, 5)
          .map(([name, at]) => `{{${name}}} (${at.slice(0, 3).join(", ")})`)
          .join("; ")}. Fill them with decks_replace_text or slides_update, or make this a template and fill a copy.`,
        { placeholders: [...open.keys()] },
      );
    const live = deck.status === "published" ? await versionById(tx, deck.publishedVersionId) : null;
    if (live && live.revision === deck.revision)
      return {
        id: deck.id,
        slug: deck.slug,
        status: deck.status,
        version: live.number,
        url: deckUrl(ctx.deps, deck.slug),
        message: "Nothing to publish: the live version is this draft already.",
      };
    const version = (await undecidedSameDraft(tx, ctx, deck)) ?? (await snapshot(tx, ctx, deck, rows));
    const status: DeckStatus = deck.status === "published" ? "published" : "pending";
    if (status !== deck.status) await tx.update(decks).set({ status }).where(eq(decks.id, deck.id));
    const proposal: DeckProposal = {
      versionId: version.id,
      version: version.number,
      proposal: live ? "update" : deck.publishedAt ? "republish" : "new",
      liveVersionId: live?.id ?? null,
    };
    const approval = await mintLink(tx, ctx, {
      linkType: "entity",
      entityType: PITCH_DECK,
      entityId: deck.id,
      siteId: deck.siteId,
      title: deck.title,
      payload: proposal as unknown as Record<string, unknown>,
    });
    await audit(tx, ctx, "decks.publish", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { version: version.number, approvalId: approval.id },
    });
    await emit(
      tx,
      ctx,
      deckPublishRequested,
      { id: deck.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title: deck.title,
        version: version.number,
        approvalId: approval.id,
        requestedByUserId: ctx.principal.userId,
        slideCount: rows.length,
      },
    );
    return {
      id: deck.id,
      slug: deck.slug,
      status,
      version: version.number,
      url: deckUrl(ctx.deps, deck.slug),
      approval,
      message: live
        ? "The live version stays online unchanged until a person approves this one at approval.url."
        : "Nothing is public yet: a person approves at approval.url, then the deck is served at url.",
    };
  });
}

/**
 * Taking a live deck down (decks_unpublish, decks_delete) waits for a
 * person, as publishing does: the call returns a pending_change link, the
 * deck stays served, and approving re-runs the call (isApprovedRun).
 */
async function holdTakedown(ctx: ActorContext, deck: DeckRow, tool: "decks_unpublish" | "decks_delete") {
  const approval = await holdForApproval(ctx, {
    tool,
    input: { id: deck.id },
    entityId: deck.id,
    siteId: deck.siteId,
    title: `${tool === "decks_delete" ? "Delete" : "Unpublish"} deck: ${deck.title}`,
  });
  return {
    id: deck.id,
    slug: deck.slug,
    status: deck.status,
    approval,
    message: `Nothing changed yet: the deck is live at /d/${deck.slug}, so taking it down needs a person's approval at approval.url. It stays online until then.`,
  };
}

export async function unpublishDeck(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const deck = await deckInCompany(tx, ctx, input.id);
    const now = ctx.deps.clock.now();
    if (deck.status === "pending") {
      // Never live: withdrawing the request is enough.
      await withdrawLinks(tx, ctx.company.id, PITCH_DECK, deck.id, now);
      await tx.update(decks).set({ status: "draft", updatedAt: now }).where(eq(decks.id, deck.id));
      await audit(tx, ctx, "decks.unpublish", {
        type: "deck",
        id: deck.id,
        siteId: deck.siteId,
        detail: { withdrawn: true },
      });
      await emit(
        tx,
        ctx,
        deckUnpublished,
        { id: deck.id, siteId: deck.siteId },
        { deckId: deck.id, slug: deck.slug, title: deck.title, version: null },
      );
      return {
        id: deck.id,
        slug: deck.slug,
        status: "draft",
        message: "The publication request was withdrawn; the deck was never live.",
      };
    }
    if (deck.status !== "published")
      return { id: deck.id, slug: deck.slug, status: deck.status, message: "The deck is not published." };
    if (!isApprovedRun(ctx)) return await holdTakedown(ctx, deck, "decks_unpublish");
    const live = await versionById(tx, deck.publishedVersionId);
    await tx
      .update(decks)
      .set({ status: "archived", publishedVersionId: null, updatedAt: now })
      .where(eq(decks.id, deck.id));
    // An update that was waiting would put it back online: it goes with the take-down.
    await withdrawLinks(tx, ctx.company.id, PITCH_DECK, deck.id, now, approvedLinkId(ctx));
    await audit(tx, ctx, "decks.unpublish", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { version: live?.number ?? null },
    });
    await emit(
      tx,
      ctx,
      deckUnpublished,
      { id: deck.id, siteId: deck.siteId },
      { deckId: deck.id, slug: deck.slug, title: deck.title, version: live?.number ?? null },
    );
    return { id: deck.id, slug: deck.slug, status: "archived" };
  });
}

export async function deleteDeck(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "decks:write", { write: true });
  return write(ctx, async (tx) => {
    const deck = await deckInCompany(tx, ctx, input.id);
    if (deck.status === "published" && !isApprovedRun(ctx)) return await holdTakedown(ctx, deck, "decks_delete");
    await tx.delete(decks).where(eq(decks.id, deck.id));
    await withdrawLinks(tx, ctx.company.id, PITCH_DECK, deck.id, ctx.deps.clock.now(), approvedLinkId(ctx));
    await audit(tx, ctx, "decks.delete", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { slug: deck.slug, wasPublished: deck.status === "published" },
    });
    await emit(
      tx,
      ctx,
      deckDeleted,
      { id: deck.id, siteId: deck.siteId },
      { deckId: deck.id, slug: deck.slug, title: deck.title, wasPublished: deck.status === "published" },
    );
    return { id: deck.id, slug: deck.slug, status: "deleted" };
  });
}

// ---------------------------------------------------------------------------
// Templates and text

const VAR_NAME_RE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

export interface FillInput {
  id: number;
  variables: Record<string, string>;
  title?: string;
  slug?: string;
  siteId?: number;
  strict?: boolean;
}

/**
 * A new draft deck from a template (or any deck): every {{name}} with a
 * value in `variables` is replaced in the title, description, slide fields
 * and notes. Reports `unfilled` placeholders (left as they are, and
 * publishing refuses them) and `unknown` variables the template does not
 * use; `strict` refuses either instead of creating anything.
 */
export async function fillTemplate(ctx: ActorContext, input: FillInput) {
  authorize(ctx, "decks:write", { write: true });
  for (const k of Object.keys(input.variables))
    if (!VAR_NAME_RE.test(k))
      throw invalid(
        `variables: "${k.slice(0, 60)}" is not a placeholder name (letters, digits, _ . -, starting with a letter).`,
        { path: "variables" },
      );
  const siteId = input.siteId !== undefined ? (await siteForActor(ctx, input.siteId)).id : undefined;
  return write(ctx, async (tx) => {
    const source = await deckInCompany(tx, ctx, input.id);
    const rows = await slidesOf(tx, source.id);
    const used = placeholdersOf(source, rows);
    const vars = input.variables;
    const unknown = Object.keys(vars).filter((k) => !used.has(k));
    const unfilled = [...used]
      .filter(([k]) => !Object.hasOwn(vars, k))
      .map(([name, places]) => ({ name, places: places.slice(0, 10) }));
    if (input.strict && (unknown.length || unfilled.length))
      throw invalid(
        [
          unfilled.length
            ? `unfilled: ${unfilled.map((u) => `{{${u.name}}} (${u.places.slice(0, 3).join(", ")})`).join("; ")}`
            : "",
          unknown.length ? `unknown (not in the template): ${unknown.join(", ")}` : "",
        ]
          .filter(Boolean)
          .join(". ") + ". Nothing was created.",
        { unfilled: unfilled.map((u) => u.name), unknown },
      );
    const sub = (s: string) =>
      s.replace(PLACEHOLDER_RE, (m, name: string) => (Object.hasOwn(vars, name) ? vars[name]! : m));
    const title = input.title ?? sub(source.title);
    if (title.length > 200)
      throw invalid(`The filled title is ${title.length} characters; at most 200. Pass title.`, { path: "title" });
    const slides: CheckedSlide[] = rows.map((r) =>
      checkSlide(
        { layout: r.layout, content: mapStrings(r.content, sub), notes: r.notes === null ? null : sub(r.notes) },
        `slide ${r.position} after filling`,
      ),
    );
    await resolveImages(
      tx,
      ctx,
      slides.flatMap((s, i) => imageRefs(s.content).map((ref) => ({ id: ref.id, path: `slide ${i + 1} ${ref.path}` }))),
    );
    const { deck, slideIds } = await insertDeck(tx, ctx, {
      siteId: siteId ?? source.siteId,
      title,
      slug: input.slug,
      description: source.description === null ? null : sub(source.description),
      isTemplate: false,
      slides,
      fromDeckId: source.id,
    });
    const warnings = slideWarnings(slides);
    return {
      id: deck.id,
      slug: deck.slug,
      status: deck.status,
      revision: deck.revision,
      slideCount: slideIds.length,
      filled: Object.keys(vars).filter((k) => used.has(k)),
      unfilled,
      unknown,
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

function escapeRe(s: string) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replaces text across a deck (title, description, every slide field and note), like Google Slides' replaceAllText. */
export async function replaceText(
  ctx: ActorContext,
  input: { id: number; find: string; replace: string; matchCase?: boolean },
) {
  authorize(ctx, "decks:write", { write: true });
  const re = new RegExp(escapeRe(input.find), input.matchCase === false ? "gi" : "g");
  return write(ctx, async (tx) => {
    const deck = await deckInCompany(tx, ctx, input.id);
    const rows = await slidesOf(tx, deck.id);
    let total = 0;
    const swap = (s: string) =>
      s.replace(re, () => {
        total++;
        return input.replace;
      });
    const title = swap(deck.title);
    const description = deck.description === null ? null : swap(deck.description);
    if (title.length > 200 || title.trim() === "")
      throw invalid(
        `The replaced title would be ${title.trim() ? `${title.length} characters (at most 200)` : "empty"}.`,
      );
    const changed: { row: SlideRow; content: Record<string, unknown>; notes: string | null }[] = [];
    for (const r of rows) {
      const before = total;
      const content = mapStrings(r.content, swap);
      const notes = r.notes === null ? null : swap(r.notes);
      if (total === before) continue;
      const checked = checkSlide({ layout: r.layout, content, notes }, `slide ${r.position} after replacing`);
      changed.push({ row: r, content: checked.content, notes: checked.notes });
    }
    if (total === 0) return { id: deck.id, slug: deck.slug, revision: deck.revision, replaced: 0, slides: [] };
    const locked = await lockDeck(tx, ctx, deck.id);
    const now = ctx.deps.clock.now();
    if (title !== deck.title || description !== deck.description)
      await tx.update(decks).set({ title, description }).where(eq(decks.id, deck.id));
    for (const c of changed)
      await tx
        .update(deckSlides)
        .set({ content: c.content, notes: c.notes, updatedAt: now })
        .where(eq(deckSlides.id, c.row.id));
    const positions = changed.map((c) => c.row.position);
    await audit(tx, ctx, "decks.replace_text", {
      type: "deck",
      id: deck.id,
      siteId: deck.siteId,
      detail: { count: total, slides: positions },
    });
    await emit(
      tx,
      ctx,
      deckTextReplaced,
      { id: deck.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title,
        find: input.find,
        replace: input.replace,
        count: total,
        slides: positions,
        revision: locked.revision,
      },
    );
    return { id: deck.id, slug: deck.slug, revision: locked.revision, replaced: total, slides: positions };
  });
}

// ---------------------------------------------------------------------------
// Reads

export type Include = ("slides" | "html")[];

function slideSummary(r: {
  id: number;
  position: number;
  layout: string;
  content: Record<string, unknown>;
  notes: string | null;
}) {
  return {
    id: r.id,
    position: r.position,
    layout: r.layout,
    title: slideTitle(r.layout as Layout, r.content),
    hasNotes: !!r.notes,
  };
}

async function deckByIdOrSlug(ctx: ActorContext, input: { id?: number; slug?: string }): Promise<DeckRow> {
  if ((input.id === undefined) === (input.slug === undefined)) throw invalid("Give exactly one of id or slug.");
  const d = (
    await ctx.deps.db
      .select()
      .from(decks)
      .where(
        and(
          eq(decks.companyId, ctx.company.id),
          input.id !== undefined ? eq(decks.id, input.id) : eq(decks.slug, input.slug!),
        ),
      )
      .limit(1)
  )[0];
  if (!d) throw notFound(`Deck ${input.id ?? `"${input.slug}"`} not found in ${ctx.company.name}.`);
  return d;
}

export async function getDeck(
  ctx: ActorContext,
  input: { id?: number; slug?: string; version?: "draft" | "published"; include?: Include },
) {
  authorize(ctx, "decks:read", { write: false });
  const db = ctx.deps.db;
  const deck = await deckByIdOrSlug(ctx, input);
  const include = input.include ?? [];
  const live = deck.status === "published" ? await versionById(db, deck.publishedVersionId) : null;
  const out: Record<string, unknown> = {
    id: deck.id,
    siteId: deck.siteId,
    title: deck.title,
    slug: deck.slug,
    description: deck.description,
    status: deck.status,
    isTemplate: deck.isTemplate,
    revision: deck.revision,
    url: live ? deckUrl(ctx.deps, deck.slug) : null,
    pdfUrl: live ? `${deckUrl(ctx.deps, deck.slug)}.pdf` : null,
    published: live
      ? {
          version: live.number,
          publishedAt: iso(deck.publishedAt),
          hasUnpublishedChanges: live.revision !== deck.revision,
        }
      : null,
    approval: approvalState(await latestLinkFor(db, ctx.company.id, PITCH_DECK, deck.id), ctx.deps.clock.now()),
    createdAt: iso(deck.createdAt),
    updatedAt: iso(deck.updatedAt),
  };
  if (input.version === "published") {
    if (!live)
      throw notFound(
        `Deck ${deck.id} has no published version${deck.status === "pending" ? " yet: its first one waits for approval" : ""}.`,
      );
    const slides = live.slides.map((s, i) => ({
      id: s.id,
      position: i + 1,
      layout: s.layout,
      content: s.content,
      notes: s.notes,
    }));
    Object.assign(out, {
      version: live.number,
      title: live.title,
      description: live.description,
      slideCount: slides.length,
    });
    out.slides = include.includes("slides") ? slides : slides.map(slideSummary);
    if (include.includes("html")) out.html = renderDeck(versionRenderSlides(live.slides), live.theme, { notes: true });
    return out;
  }
  const rows = await slidesOf(db, deck.id);
  out.slideCount = rows.length;
  out.placeholders = [...placeholdersOf(deck, rows).keys()];
  out.slides = include.includes("slides")
    ? rows.map((r) => ({ id: r.id, position: r.position, layout: r.layout, content: r.content, notes: r.notes }))
    : rows.map(slideSummary);
  if (include.includes("html"))
    out.html = renderDeck(await draftRenderSlides(db, ctx, rows), await themeForSite(ctx.deps, deck.siteId), {
      notes: true,
    });
  return out;
}

export async function listDecks(
  ctx: ActorContext,
  input: { siteId?: number; status?: DeckStatus; template?: boolean; search?: string; limit: number; offset: number },
) {
  authorize(ctx, "decks:read", { write: false });
  const db = ctx.deps.db;
  const conds = [eq(decks.companyId, ctx.company.id)];
  if (input.siteId !== undefined) conds.push(eq(decks.siteId, (await siteForActor(ctx, input.siteId)).id));
  if (input.status) conds.push(eq(decks.status, input.status));
  if (input.template !== undefined) conds.push(eq(decks.isTemplate, input.template));
  if (input.search) conds.push(containsText(decks.title, input.search));
  const where = and(...conds);
  const total = (await db.select({ n: count() }).from(decks).where(where).limit(1))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(decks)
    .where(where)
    .orderBy(desc(decks.updatedAt), desc(decks.id))
    .limit(input.limit)
    .offset(input.offset);
  const counts = new Map(
    rows.length
      ? (
          await db
            .select({ deckId: deckSlides.deckId, n: count() })
            .from(deckSlides)
            .where(
              inArray(
                deckSlides.deckId,
                rows.map((r) => r.id),
              ),
            )
            .groupBy(deckSlides.deckId)
        ).map((r) => [r.deckId, r.n])
      : [],
  );
  return page(
    rows.map((d) => ({
      id: d.id,
      title: d.title,
      slug: d.slug,
      status: d.status,
      isTemplate: d.isTemplate,
      siteId: d.siteId,
      slideCount: counts.get(d.id) ?? 0,
      revision: d.revision,
      url: d.status === "published" ? deckUrl(ctx.deps, d.slug) : null,
      updatedAt: iso(d.updatedAt),
    })),
    total,
    input.limit,
    input.offset,
  );
}

/** The slides and theme of a deck's draft or live version, for the PDF. */
export async function deckForExport(ctx: ActorContext, input: { id: number; version?: "draft" | "published" }) {
  const db = ctx.deps.db;
  const deck = await deckInCompany(db, ctx, input.id);
  if (input.version === "published") {
    const live = deck.status === "published" ? await versionById(db, deck.publishedVersionId) : null;
    if (!live) throw notFound(`Deck ${deck.id} has no published version.`);
    return {
      deck,
      title: live.title,
      slides: versionRenderSlides(live.slides),
      theme: live.theme,
      version: live.number,
    };
  }
  const rows = await slidesOf(db, deck.id);
  if (rows.length === 0) throw conflict(`Deck ${deck.id} has no slides to export.`);
  return {
    deck,
    title: deck.title,
    slides: await draftRenderSlides(db, ctx, rows),
    theme: await themeForSite(ctx.deps, deck.siteId),
    version: null,
  };
}

/** Largest PDF a tool result carries as base64; a bigger one is downloaded from the public .pdf address. */
const MAX_PDF_RESULT = 8 * 1024 * 1024;

export async function exportDeckPdf(ctx: ActorContext, input: { id: number; version?: "draft" | "published" }) {
  authorize(ctx, "decks:read", { write: false });
  const d = await deckForExport(ctx, input);
  // Metered companies pay per export: balance and hard budget checked before rendering (no work for a company that cannot pay), debited after it.
  await assertAffordable(ctx.deps.db, ctx.deps, ctx.company.id, "pdf.export");
  // The PDF and PowerPoint writers (pdf-lib, pptxgenjs: ~35 MB of RSS) load on the first export.
  const { deckPdf } = await import("./pdf");
  const bytes = await deckPdf(ctx.deps, { title: d.title, slides: d.slides, theme: d.theme });
  if (bytes.length > MAX_PDF_RESULT)
    throw new AppError(
      "payload_too_large",
      `The PDF is ${bytes.length} bytes, too large for a tool result (at most ${MAX_PDF_RESULT}); publish the deck and download ${deckUrl(ctx.deps, d.deck.slug)}.pdf.`,
    );
  const paid = await ctx.deps.db.transaction((tx) =>
    meter(
      tx,
      ctx.deps,
      ctx.company.id,
      "pdf.export",
      1,
      `deck:${d.deck.id}:${d.version ? `v${d.version}` : "draft"}`,
      ctx.principal.userId,
    ),
  );
  return {
    ...(paid ? { credits: paid.credits, creditBalance: paid.balanceAfter } : {}),
    id: d.deck.id,
    filename: `${d.deck.slug}${d.version ? `-v${d.version}` : "-draft"}.pdf`,
    mimeType: "application/pdf",
    pages: d.slides.length,
    bytes: bytes.length,
    dataBase64: Buffer.from(bytes).toString("base64"),
  };
}

/** A .pptx file's media type. */
export const PPTX_MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation";

/** The deck as PowerPoint, on the PDF's terms: same slides, same credit policy (its own price, pptx.export), same size cap. */
export async function exportDeckPptx(ctx: ActorContext, input: { id: number; version?: "draft" | "published" }) {
  authorize(ctx, "decks:read", { write: false });
  const d = await deckForExport(ctx, input);
  await assertAffordable(ctx.deps.db, ctx.deps, ctx.company.id, "pptx.export");
  const { deckPptx } = await import("./pptx");
  const bytes = await deckPptx(ctx.deps, { title: d.title, slides: d.slides, theme: d.theme });
  if (bytes.length > MAX_PDF_RESULT)
    throw new AppError(
      "payload_too_large",
      `The PowerPoint file is ${bytes.length} bytes, too large for a tool result (at most ${MAX_PDF_RESULT}); use smaller pictures, or publish the deck and download ${deckUrl(ctx.deps, d.deck.slug)}.pdf.`,
    );
  const paid = await ctx.deps.db.transaction((tx) =>
    meter(
      tx,
      ctx.deps,
      ctx.company.id,
      "pptx.export",
      1,
      `deck:${d.deck.id}:${d.version ? `v${d.version}` : "draft"}`,
      ctx.principal.userId,
    ),
  );
  return {
    ...(paid ? { credits: paid.credits, creditBalance: paid.balanceAfter } : {}),
    id: d.deck.id,
    filename: `${d.deck.slug}${d.version ? `-v${d.version}` : "-draft"}.pptx`,
    mimeType: PPTX_MIME,
    slides: d.slides.length,
    bytes: bytes.length,
    dataBase64: Buffer.from(bytes).toString("base64"),
  };
}
