/**
 * Pitch decks: the deck (a working draft an agent edits slide by slide),
 * its ordered slides, and immutable versions. Publishing snapshots the
 * draft into a version; a person approves that exact version, and the
 * public page at /d/<slug> serves it, so later edits of the draft never
 * reach the audience until they are approved in turn.
 */
import {
  bool,
  createdAt,
  id,
  index,
  integer,
  json,
  table,
  text,
  time,
  uniqueIndex,
  updatedAt,
} from "../../core/columns";
import { companies, users } from "../../core/tables";
import { sites } from "../sites/tables";
import type { DeckTheme, VersionSlide } from "./layouts";

export const DECK_STATUSES = ["draft", "pending", "published", "archived"] as const;
export type DeckStatus = (typeof DECK_STATUSES)[number];

export const decks = table(
  "decks",
  {
    id: id(),
    companyId: integer("company_id")
      .notNull()
      .references(() => companies.id, { onDelete: "cascade" }),
    /** The site whose brand profile themes the deck and whose company's media it shows. */
    siteId: integer("site_id")
      .notNull()
      .references(() => sites.id, { onDelete: "cascade" }),
    title: text("title").notNull(),
    /** Public address /d/<slug>: unique across the whole service, since the URL names no company. */
    slug: text("slug").notNull(),
    description: text("description"),
    /** A template is filled into new decks (decks_fill_template) and is never published itself. */
    isTemplate: bool("is_template").notNull().default(false),
    /** draft (never live, nothing asked), pending (first publication waits for a person), published, archived (taken down). */
    status: text("status").$type<DeckStatus>().notNull().default("draft"),
    /** Bumped by every change to the deck or its slides; a version records the revision it was taken at. */
    revision: integer("revision").notNull().default(1),
    publishedVersionId: integer("published_version_id"),
    publishedAt: time("published_at"),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("decks_slug").on(t.slug), index("decks_company").on(t.companyId, t.updatedAt)],
);

export const deckSlides = table(
  "deck_slides",
  {
    id: id(),
    deckId: integer("deck_id")
      .notNull()
      .references(() => decks.id, { onDelete: "cascade" }),
    /** 1-based slide number; the positions of a deck are always exactly 1..n. */
    position: integer("position").notNull(),
    layout: text("layout").notNull(),
    /** The layout's typed fields (layouts.ts); images are media ids. */
    content: json<Record<string, unknown>>("content").notNull(),
    /** Speaker notes: shown to the reviewer, never to the audience. */
    notes: text("notes"),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex("deck_slides_position").on(t.deckId, t.position)],
);

/** What was proposed for publication, frozen: slides with their images resolved, and the theme of that moment. */
export const deckVersions = table(
  "deck_versions",
  {
    id: id(),
    deckId: integer("deck_id")
      .notNull()
      .references(() => decks.id, { onDelete: "cascade" }),
    /** 1, 2, 3… per deck. */
    number: integer("number").notNull(),
    /** The deck's revision when the snapshot was taken: the draft has unpublished changes when they differ. */
    revision: integer("revision").notNull(),
    title: text("title").notNull(),
    description: text("description"),
    slides: json<VersionSlide[]>("slides").notNull(),
    theme: json<DeckTheme>("theme").notNull(),
    createdByUserId: integer("created_by_user_id").references(() => users.id, { onDelete: "set null" }),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("deck_versions_number").on(t.deckId, t.number)],
);

export type DeckRow = typeof decks.$inferSelect;
export type SlideRow = typeof deckSlides.$inferSelect;
export type VersionRow = typeof deckVersions.$inferSelect;
