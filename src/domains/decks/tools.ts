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
    description: "The company's pitch decks, newest change first; search matches titles.",
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
    description:
      'A deck by id or slug: status, url, approval, unfilled {{placeholders}}, slides. include ["slides"] (fields, notes) or ["html"]; version "published": the live one.',
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
    description:
      "Draft a deck from slides [{layout, content, notes}] (deck_layouts_list) or a Markdown outline, in the site's brand (default primary).",
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
    description:
      "Change a deck's title, slug, description, site (theme) or template flag. No fields = ask approval again (fresh link).",
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
    description: "Delete a deck and its slides; a published one only once a person approves at approval.url.",
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
    description:
      "Freeze the draft as a version for a person to approve (approval.url); then live at url. Refused with {{placeholders}} left.",
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
    description: "Take a published deck offline once a person approves at approval.url (withdraws a pending request).",
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
    description:
      'New draft deck from a template, replacing {{name}} with variables {"name": "…"}. Reports unfilled and unknown names; strict refuses them.',
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
    description:
      "Replace find in a deck's title, slides and notes (matchCase default true); returns count and slide numbers.",
    input: v.object({ id: deckId, find: line(200), replace: textBlock(2000), matchCase: v.optional(v.boolean()) }),
    run: (ctx, input) => replaceText(ctx, input),
  }),
  defineTool({
    name: "decks_export_pdf",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    title: "Export a deck as PDF",
    description: `The deck as PDF (one page per slide) in dataBase64. version: draft (default) or published. Costs ${PRICES["pdf.export"]} AI credits when the company is metered (result: credits, creditBalance).`,
    input: v.object({ id: deckId, version }),
    run: (ctx, input) => exportDeckPdf(ctx, input),
  }),
  defineTool({
    name: "decks_export_pptx",
    toolset: T,
    scope: "decks:read",
    readOnly: true,
    title: "Export a deck as PowerPoint",
    description: `The deck as an editable PowerPoint file (.pptx) in dataBase64. version: draft (default) or published. Costs ${PRICES["pptx.export"]} AI credits when the company is metered (result: credits, creditBalance).`,
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
    description:
      "Each slide layout with its content fields (JSON Schema) and an example. Images are media ids (media_list).",
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
    description: "One slide with its layout, content fields and speaker notes.",
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
    description: "Insert slides [{layout, content, notes}] at position (1-based; default the end).",
    input: v.object({ deckId, slides: slides(1), position: v.optional(position) }),
    run: (ctx, input) => addSlides(ctx, input),
  }),
  defineTool({
    name: "slides_update",
    toolset: T,
    scope: "decks:write",
    readOnly: false,
    title: "Update a slide",
    description:
      "Change a slide: content sets the given fields (null removes one), notes, or layout (fields it lacks are dropped).",
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
    description: "Move a slide to position (1-based); returns the new order of slide ids.",
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
    description: "Set the whole order: ids lists every slide of the deck exactly once.",
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
    description: "Copy a slide to position (default: right after it).",
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
