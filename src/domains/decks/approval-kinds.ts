/**
 * `pitch_deck`, an approvable entity type (interface.md 3): how the
 * approval page shows a proposed deck (EVERY slide rendered, with its
 * speaker notes, in the version's theme), what approving makes live (that
 * exact version at /d/<slug>), what rejecting leaves (whatever was live
 * stays live). Also the staged target for taking a live deck down
 * (decks_unpublish, decks_delete), and the slide styles approval pages need.
 */
import { and, eq } from "drizzle-orm";
import type { ActorContext, Deps } from "../../core/context";
import { conflict } from "../../core/errors";
import { emit } from "../../core/events";
import type {
  ApprovalKind,
  ApprovalLink,
  ApprovalPreview,
  ApprovalSupport,
  ChangeRow,
  StagedTarget,
} from "../approvals/kinds";
import { effectiveStatus } from "../approvals/links";
import { summarize } from "../approvals/preview";
import { siteName } from "../sites/facts";
import { deckUrl, versionRenderSlides } from "./access";
import type { DeckProposal } from "./decks";
import { deckPublished, deckPublishRejected } from "./events";
import { slideTitle, type VersionSlide } from "./layouts";
import { DECK_CSS, renderDeck } from "./render";
import { decks, deckVersions, type DeckRow, type VersionRow } from "./tables";
import type { Tx } from "../../core/db";

async function deckOf(db: Tx, link: ApprovalLink): Promise<DeckRow | undefined> {
  if (link.entityId === null) return undefined;
  return (
    await db
      .select()
      .from(decks)
      .where(and(eq(decks.id, link.entityId), eq(decks.companyId, link.companyId)))
      .limit(1)
  )[0];
}

async function versionOf(db: Tx, deckId: number, id: number | null | undefined): Promise<VersionRow | undefined> {
  if (typeof id !== "number") return undefined;
  return (
    await db
      .select()
      .from(deckVersions)
      .where(and(eq(deckVersions.id, id), eq(deckVersions.deckId, deckId)))
      .limit(1)
  )[0];
}

const proposalOf = (link: ApprovalLink) => (link.payload ?? {}) as Partial<DeckProposal>;

/** Slide by slide, what the proposed version changes against the live one. */
function slideChanges(before: VersionSlide[], after: VersionSlide[]): ChangeRow[] {
  const rows: ChangeRow[] = [];
  const label = (s: VersionSlide) =>
    `${s.layout}${slideTitle(s.layout, s.content) ? ` “${slideTitle(s.layout, s.content)}”` : ""}`;
  const n = Math.max(before.length, after.length);
  for (let i = 0; i < n; i++) {
    const a = before[i];
    const b = after[i];
    if (
      a &&
      b &&
      a.layout === b.layout &&
      JSON.stringify(a.content) === JSON.stringify(b.content) &&
      a.notes === b.notes
    )
      continue;
    rows.push({
      field: `Slide ${i + 1}`,
      before: a ? label(a) : null,
      after: b ? `${label(b)}${a && a.id === b.id && a.layout === b.layout ? " (edited)" : ""}` : null,
    });
    if (rows.length >= 30) break;
  }
  return rows;
}

export const pitchDeckKind: ApprovalKind = {
  entityType: "pitch_deck",
  label: "Pitch deck",

  async preview(deps: Deps, link: ApprovalLink): Promise<ApprovalPreview | null> {
    const db = deps.db;
    const deck = await deckOf(db, link);
    if (!deck) return null;
    const p = proposalOf(link);
    const version = await versionOf(db, deck.id, p.versionId);
    if (!version) return null;
    const live = p.liveVersionId ? await versionOf(db, deck.id, p.liveVersionId) : undefined;
    const site = await siteName(db, deck.siteId);
    const pending = effectiveStatus(link, deps.clock.now()) === "pending";
    const facts = [
      ...(site !== null ? [{ label: "Site (brand and pictures)", value: site }] : []),
      { label: "Public address", value: deckUrl(deps, deck.slug) },
      { label: "Slides", value: String(version.slides.length) },
      { label: "Version", value: String(version.number) },
    ];
    if (version.description) facts.push({ label: "Description", value: version.description });
    if (!pending && deck.revision !== version.revision)
      facts.push({
        label: "Since then",
        value: "The draft was edited after this version was proposed; the preview shows the version as proposed.",
      });
    const words =
      p.proposal === "update"
        ? {
            proposal: `A new version of the published deck “${version.title}”`,
            pending: `A new version of the published deck “${version.title}”. The live version stays online unchanged until you approve.`,
            applied: "published in place of the live version",
            kept: "the live version stayed as it was",
          }
        : {
            proposal:
              p.proposal === "republish" ? "A deck that was taken offline, to be published again" : "A new pitch deck",
            pending: `A pitch deck of ${version.slides.length} slides, not yet public: approving publishes it at ${deckUrl(deps, deck.slug)}.`,
            applied: "published",
            kept: "nothing was published",
          };
    return {
      title: version.title,
      summary: summarize(link, deps.clock.now(), words),
      facts,
      changes: live ? slideChanges(live.slides, version.slides) : [],
      html: renderDeck(versionRenderSlides(version.slides), version.theme, { notes: true }),
      ...(live && pending
        ? { liveHtml: renderDeck(versionRenderSlides(live.slides), live.theme, { notes: true }) }
        : {}),
    };
  },

  async approve(tx, deps, link, d) {
    const deck = await deckOf(tx, link);
    if (!deck) throw conflict("The deck no longer exists.");
    const version = await versionOf(tx, deck.id, proposalOf(link).versionId);
    if (!version) throw conflict("The proposed version of this deck no longer exists.");
    if (deck.isTemplate) throw conflict("The deck was made a template since; templates are not published.");
    await tx
      .update(decks)
      .set({
        status: "published",
        publishedVersionId: version.id,
        publishedAt: deck.publishedAt ?? d.now,
        updatedAt: d.now,
      })
      .where(eq(decks.id, deck.id));
    const url = deckUrl(deps, deck.slug);
    await emit(
      tx,
      { deps, company: { id: deck.companyId } },
      deckPublished,
      { id: deck.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title: version.title,
        version: version.number,
        url,
        approvalId: link.id,
        decidedBy: d.decidedBy,
        requestedByUserId: link.requestedByUserId,
      },
    );
    return { deckId: deck.id, slug: deck.slug, status: "published", version: version.number, url };
  },

  async reject(tx, deps, link, d) {
    const deck = await deckOf(tx, link);
    if (!deck) return;
    const p = proposalOf(link);
    const version = await versionOf(tx, deck.id, p.versionId);
    // Never live: back to a draft (or to archived, for a deck that was taken down before); live: stays live.
    if (deck.status === "pending")
      await tx
        .update(decks)
        .set({ status: p.proposal === "republish" ? "archived" : "draft", updatedAt: d.now })
        .where(eq(decks.id, deck.id));
    await emit(
      tx,
      { deps, company: { id: deck.companyId } },
      deckPublishRejected,
      { id: deck.id, siteId: deck.siteId },
      {
        deckId: deck.id,
        slug: deck.slug,
        title: version?.title ?? deck.title,
        version: version?.number ?? 0,
        approvalId: link.id,
        decidedBy: d.decidedBy,
        comment: d.comment,
        requestedByUserId: link.requestedByUserId,
      },
    );
  },
};

/** The live deck a take-down would remove, as the reviewer and the moved-on check see it. */
export const deckStagedTarget: StagedTarget = {
  entityType: "pitch_deck",
  tools: ["decks_unpublish", "decks_delete"],
  async current(ctx: ActorContext, input) {
    const d = (
      await ctx.deps.db
        .select()
        .from(decks)
        .where(and(eq(decks.id, input.id as number), eq(decks.companyId, ctx.company.id)))
        .limit(1)
    )[0];
    if (!d) return null;
    return { title: d.title, slug: d.slug, status: d.status, publishedVersionId: d.publishedVersionId };
  },
  async present(deps, call) {
    const b = call.before ?? {};
    const name = `the published deck “${String(b.title ?? "")}”`;
    const live =
      typeof b.publishedVersionId === "number" && call.link.entityId !== null
        ? await versionOf(deps.db, call.link.entityId, b.publishedVersionId)
        : undefined;
    return {
      proposal: call.tool === "decks_delete" ? `Delete ${name}` : `Take ${name} offline`,
      applied: call.tool === "decks_delete" ? "deleted" : "taken offline",
      facts: [{ label: "Disappears", value: `${deckUrl(deps, String(b.slug ?? ""))} and its PDF` }],
      handled: ["id"],
      html: live ? renderDeck(versionRenderSlides(live.slides), live.theme) : "",
    };
  },
};

/** Slide styles for approval pages (rendered decks sit in the preview box). */
export const deckApprovalSupport: ApprovalSupport = {
  async previewCss() {
    return DECK_CSS;
  },
};
