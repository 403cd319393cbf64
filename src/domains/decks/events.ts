/**
 * What the decks domain tells subscribers (automations, webhooks,
 * notifications). Each payload carries what a receiver needs without a
 * second call: the deck's id, slug and title, the slide's number and layout,
 * what changed, and the people involved.
 */
import * as v from "valibot";
import { defineEvent } from "../../core/events";

const deck = { deckId: v.number(), slug: v.string(), title: v.string() };
const nullableNumber = v.nullable(v.number());

export const deckCreated = defineEvent({
  type: "deck.created",
  entity: "deck",
  description: "A deck was created (from an outline, slides, or by filling a template: fromDeckId).",
  payload: v.object({
    ...deck,
    siteId: v.number(),
    slideCount: v.number(),
    isTemplate: v.boolean(),
    fromDeckId: nullableNumber,
    createdByUserId: v.number(),
  }),
});

export const deckUpdated = defineEvent({
  type: "deck.updated",
  entity: "deck",
  description: "A deck's own fields changed (title, slug, description, site, template flag).",
  payload: v.object({ ...deck, fields: v.array(v.string()), revision: v.number() }),
});

export const deckTextReplaced = defineEvent({
  type: "deck.text_replaced",
  entity: "deck",
  description: "Text was replaced across a deck's slides (decks_replace_text).",
  payload: v.object({
    ...deck,
    find: v.string(),
    replace: v.string(),
    count: v.number(),
    slides: v.array(v.number()),
    revision: v.number(),
  }),
});

export const deckDeleted = defineEvent({
  type: "deck.deleted",
  entity: "deck",
  description: "A deck was deleted (a published one only after a person approved it).",
  payload: v.object({ ...deck, wasPublished: v.boolean() }),
});

export const deckPublishRequested = defineEvent({
  type: "deck.publish_requested",
  entity: "deck",
  description: "A version of a deck was submitted for approval; nothing is public until a person approves.",
  payload: v.object({
    ...deck,
    version: v.number(),
    approvalId: v.number(),
    requestedByUserId: v.number(),
    slideCount: v.number(),
  }),
});

export const deckPublished = defineEvent({
  type: "deck.published",
  entity: "deck",
  description: "A person approved a deck version: it is served at url (and url + .pdf).",
  payload: v.object({
    ...deck,
    version: v.number(),
    url: v.string(),
    approvalId: v.number(),
    decidedBy: v.string(),
    requestedByUserId: nullableNumber,
  }),
});

export const deckPublishRejected = defineEvent({
  type: "deck.publish_rejected",
  entity: "deck",
  description: "A person rejected a deck version; what was live (if anything) stays live.",
  payload: v.object({
    ...deck,
    version: v.number(),
    approvalId: v.number(),
    decidedBy: v.string(),
    comment: v.nullable(v.string()),
    requestedByUserId: nullableNumber,
  }),
});

export const deckUnpublished = defineEvent({
  type: "deck.unpublished",
  entity: "deck",
  description: "A published deck was taken offline (archived) after a person approved it.",
  payload: v.object({ ...deck, version: nullableNumber }),
});

const slide = { ...deck, position: v.number(), layout: v.string() };

export const slideAdded = defineEvent({
  type: "slide.added",
  entity: "slide",
  description: "A slide was added to a deck (sourceSlideId when it is a duplicate).",
  payload: v.object({ ...slide, sourceSlideId: nullableNumber, revision: v.number() }),
});

export const slideUpdated = defineEvent({
  type: "slide.updated",
  entity: "slide",
  description: "A slide's layout, content fields or speaker notes changed.",
  payload: v.object({ ...slide, fields: v.array(v.string()), revision: v.number() }),
});

export const slideMoved = defineEvent({
  type: "slide.moved",
  entity: "slide",
  description: "A slide moved to another position; order lists every slide id in the new order.",
  payload: v.object({ ...slide, from: v.number(), order: v.array(v.number()), revision: v.number() }),
});

export const slideDeleted = defineEvent({
  type: "slide.deleted",
  entity: "slide",
  description: "A slide was deleted; the slides after it moved up one place.",
  payload: v.object({ ...slide, revision: v.number() }),
});

export const slidesReordered = defineEvent({
  type: "deck.slides_reordered",
  entity: "deck",
  description: "A deck's slides were put in a new order (order: every slide id).",
  payload: v.object({ ...deck, order: v.array(v.number()), revision: v.number() }),
});

export const deckEvents = [
  deckCreated,
  deckUpdated,
  deckTextReplaced,
  deckDeleted,
  deckPublishRequested,
  deckPublished,
  deckPublishRejected,
  deckUnpublished,
  slidesReordered,
  slideAdded,
  slideUpdated,
  slideMoved,
  slideDeleted,
];
