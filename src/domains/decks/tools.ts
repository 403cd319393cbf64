/**
 * The decks toolset: pitch decks of ordered, typed slides, created from an
 * outline in one call, edited slide by slide (what Gamma's API cannot do),
 * filled from templates, published through a person's approval, exported as
 * PDF. Thin declarations over the verbs (decks.ts, slides.ts), which check
 * scope, role and tenancy themselves.
 *
 * Slide `content` is a loose object in these schemas (tools/list stays
 * small); deck_layouts_list gives each layout's fields, and the verbs
 * validate them with paths (`slides[2].content.plans[0].price`).
 */
import { demoDecks } from "./demo";
import * as v from "valibot";
import { jsonObject } from "../../core/json-value";
import { pageInput } from "../../core/pagination";
import { defineTool, type Domain } from "../../mcp/define";
import { deckApprovalSupport, deckStagedTarget, pitchDeckKind } from "./approval-kinds";
import {
  createDeck,
  deleteDeck,
  exportDeckPdf,
  exportDeckPptx,
  fillTemplate,
  getDeck,
  listDecks,
  publishDeck,
  replaceText,
  unpublishDeck,
  updateDeck,
} from "./decks";
import { deckEvents } from "./events";
import { LAYOUTS, layoutReference, MAX_NOTES, MAX_SLIDES } from "./layouts";
import { deckPublicPages } from "./public-pages";
import { addSlides, deleteSlide, duplicateSlide, getSlide, moveSlide, reorderSlides, updateSlide } from "./slides";
import { DECK_STATUSES } from "./tables";
import { PRICES } from "../ai/meter";
import { idSchema, line, slugSchema, textBlock } from "../../core/fields";

const T = "decks";
const deckId = idSchema;
const position = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(MAX_SLIDES + 1));
const content = jsonObject();
const notes = v.optional(v.nullable(textBlock(MAX_NOTES)));
const slide = v.object({ layout: v.picklist(LAYOUTS), content: v.optional(content), notes });
const slides = (min: number) =>
  min
    ? v.pipe(v.array(slide), v.minLength(min), v.maxLength(MAX_SLIDES))
    : v.pipe(v.array(slide), v.maxLength(MAX_SLIDES));
const version = v.optional(v.picklist(["draft", "published"]));

const deckTools = [
  defineTool({
    name: "decks_list",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    title: "List decks",
    description: "The company's pitch decks, newest change first; search: titles.",
    input: v.object({
      siteId: v.optional(idSchema),
      status: v.optional(v.picklist(DECK_STATUSES)),
      template: v.optional(v.boolean()),
      search: v.optional(v.pipe(v.string(), v.maxLength(200))),
      ...pageInput,
    }),
    run: (ctx, input) => listDecks(ctx, input),
  }),
  defineTool({
    name: "decks_get",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    title: "Get a deck",
    description: "A deck by id or slug with status, url, unfilled placeholders.",
    input: v.object({
      id: v.optional(deckId),
      slug: v.optional(slugSchema),
      version,
      include: v.optional(v.array(v.picklist(["slides", "html"]))),
    }),
    run: (ctx, input) => getDeck(ctx, input),
  }),
  defineTool({
    name: "decks_create",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    title: "Create a deck",
    description: "Draft a deck from slides or a Markdown outline (## per slide).",
    input: v.object({
      title: line(200),
      siteId: v.optional(idSchema),
      slug: v.optional(slugSchema),
      description: v.optional(v.nullable(textBlock(1000))),
      isTemplate: v.optional(v.boolean()),
      slides: v.optional(slides(0)),
      outline: v.optional(
        v.pipe(
          textBlock(50_000),
          v.description(
            '## per slide, - bullets, > quote; bullets "**48%** label" metrics, "Week 1: step" timeline, "**Name**, Role" team; ![alt](media:ID "full")',
          ),
        ),
      ),
    }),
    run: (ctx, input) => createDeck(ctx, input),
  }),
  defineTool({
    name: "decks_update",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    approval: "pitch_deck",
    title: "Update a deck",
    description: "Change a deck's title, slug, description, site or template flag.",
    input: v.object({
      id: deckId,
      title: v.optional(line(200)),
      slug: v.optional(slugSchema),
      description: v.optional(v.nullable(textBlock(1000))),
      siteId: v.optional(idSchema),
      isTemplate: v.optional(v.boolean()),
    }),
    run: (ctx, input) => updateDeck(ctx, input),
  }),
  defineTool({
    name: "decks_delete",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    supervised: "gated",
    destructive: true,
    title: "Delete a deck",
    description: "Delete a deck and its slides; a published one needs approval.",
    input: v.object({ id: deckId }),
    run: (ctx, input) => deleteDeck(ctx, input),
  }),
  defineTool({
    name: "decks_publish",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    approval: "pitch_deck",
    title: "Publish a deck",
    description: "Freeze the draft for approval, then live at url.",
    input: v.object({ id: deckId }),
    run: (ctx, input) => publishDeck(ctx, input),
  }),
  defineTool({
    name: "decks_unpublish",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    supervised: "gated",
    destructive: true,
    title: "Unpublish a deck",
    description: "Take a published deck offline; needs approval.",
    input: v.object({ id: deckId }),
    run: (ctx, input) => unpublishDeck(ctx, input),
  }),
  defineTool({
    name: "decks_fill_template",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    idempotencyKey: true,
    title: "Fill a template",
    description: "New draft deck from a template, filling {{name}} placeholders.",
    input: v.object({
      id: deckId,
      variables: v.record(v.string(), textBlock(1000)),
      title: v.optional(line(200)),
      slug: v.optional(slugSchema),
      siteId: v.optional(idSchema),
      strict: v.optional(v.boolean()),
    }),
    run: (ctx, input) => fillTemplate(ctx, input),
  }),
  defineTool({
    name: "decks_replace_text",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    title: "Replace text in a deck",
    description: "Replace text in a deck's title, slides and notes.",
    input: v.object({ id: deckId, find: line(200), replace: textBlock(2000), matchCase: v.optional(v.boolean()) }),
    run: (ctx, input) => replaceText(ctx, input),
  }),
  defineTool({
    name: "decks_export_pdf",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    title: "Export a deck as PDF",
    description: `A deck as PDF in dataBase64. Costs ${PRICES["pdf.export"]} AI credits.`,
    input: v.object({ id: deckId, version }),
    run: (ctx, input) => exportDeckPdf(ctx, input),
  }),
  defineTool({
    name: "decks_export_pptx",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    title: "Export a deck as PowerPoint",
    description: `A deck as PowerPoint (.pptx) in dataBase64. Costs ${PRICES["pptx.export"]} AI credits.`,
    input: v.object({ id: deckId, version }),
    run: (ctx, input) => exportDeckPptx(ctx, input),
  }),
  defineTool({
    name: "deck_layouts_list",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    companyFree: true,
    title: "List slide layouts",
    description: "Slide layouts with their content fields and an example.",
    input: v.object({}),
    run: () => layoutReference(),
  }),
];

const slideTools = [
  defineTool({
    name: "slides_get",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    title: "Get a slide",
    description: "A slide with its layout, content fields and speaker notes.",
    input: v.object({ deckId, id: idSchema }),
    run: (ctx, input) => getSlide(ctx, input),
  }),
  defineTool({
    name: "slides_add",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    idempotencyKey: true,
    title: "Add slides",
    description: "Insert slides at a 1-based position (default the end).",
    input: v.object({ deckId, slides: slides(1), position: v.optional(position) }),
    run: (ctx, input) => addSlides(ctx, input),
  }),
  defineTool({
    name: "slides_update",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    title: "Update a slide",
    description: "Change a slide's content fields (null removes), notes or layout.",
    input: v.object({
      deckId,
      id: idSchema,
      layout: v.optional(v.picklist(LAYOUTS)),
      content: v.optional(content),
      notes,
    }),
    run: (ctx, input) => updateSlide(ctx, input),
  }),
  defineTool({
    name: "slides_move",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    title: "Move a slide",
    description: "Move a slide to a 1-based position; returns the new order.",
    input: v.object({ deckId, id: idSchema, position }),
    run: (ctx, input) => moveSlide(ctx, input),
  }),
  defineTool({
    name: "slides_reorder",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    idempotent: true,
    title: "Reorder slides",
    description: "Set the order of a deck's slides: every slide id once.",
    input: v.object({ deckId, ids: v.pipe(v.array(idSchema), v.minLength(1), v.maxLength(MAX_SLIDES)) }),
    run: (ctx, input) => reorderSlides(ctx, input),
  }),
  defineTool({
    name: "slides_duplicate",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    idempotencyKey: true,
    title: "Duplicate a slide",
    description: "Copy a slide to position (default right after it).",
    input: v.object({ deckId, id: idSchema, position: v.optional(position) }),
    run: (ctx, input) => duplicateSlide(ctx, input),
  }),
  defineTool({
    name: "slides_delete",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    destructive: true,
    title: "Delete a slide",
    description: "Delete a slide; the slides after it move up.",
    input: v.object({ deckId, id: idSchema }),
    run: (ctx, input) => deleteSlide(ctx, input),
  }),
];

export const decksDomain: Domain = {
  demo: demoDecks,
  scopes: [
    {
      area: "decks",
      title: "Pitch decks",
      words: { "decks:read": "read pitch decks", "decks:write": "create, change, delete and publish them" },
    },
  ],
  name: "decks",
  title: "Decks",
  description:
    "Pitch decks: typed slides in the brand's theme, templates, publishing through approval at /d/<slug>, PDF and PowerPoint export.",
  vocabulary: {
    presentation: ["deck"],
    slideshow: ["deck"],
    pitch: ["deck"],
    download: ["export", "pdf"],
    print: ["export", "pdf"],
    share: ["publish"],
    public: ["publish"],
    publicly: ["publish"],
    replace: ["replace", "text"],
    before: ["move"],
    after: ["move"],
    order: ["reorder"],
  },
  tools: [...deckTools, ...slideTools],
  approvalKinds: [pitchDeckKind],
  stagedTargets: [deckStagedTarget],
  approvalSupport: deckApprovalSupport,
  events: deckEvents,
  publicPages: [deckPublicPages],
};
