/**
 * Survey verbs: draft, change, fork, translate, close, reopen, delete, read.
 *
 * Every draft and every change goes through a person: create, update,
 * fork and translations mint an approval link (entity type `survey`), and
 * nothing reaches /s/<slug> until it is approved. An approved survey that
 * is changed keeps serving its approved version; the proposal waits in
 * `draft` (successive changes accumulate into it, and the newest link is
 * the one to decide). Closing and reopening take effect at once: they only
 * stop or resume collecting, and never show anything a person did not
 * approve.
 *
 * States: pending (never approved) → open (approved) ⇄ closed; a rejected
 * first proposal is `rejected` until updated again (→ pending).
 */
import { and, count, desc, eq, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { conflict, invalid } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { containsText, jsonContains } from "../../core/sql";
import { slugify, slugNote, uniqueSlug } from "../../core/slug";
import { approvalState, latestLinkFor, mintLink, withdrawLinks, type ApprovalEnvelope } from "../approvals/links";
import { siteForActor } from "../sites/access";
import {
  acceptance,
  assertSlugFree,
  proposedDefinition,
  publicSurveyUrl,
  slugTaken,
  surveyInCompany,
  surveyRef,
  type SurveyRow,
} from "./access";
import {
  allQuestions,
  keepTranslations,
  normalizeDefinition,
  textKeys,
  type Definition,
  type DefinitionInput,
  type PageInput,
} from "./definition";
import { surveyClosed, surveyCreated, surveyDeleted, surveyReopened, surveyUpdated } from "./events";
import { surveyResponses, surveys } from "./tables";
import type { Tx } from "../../core/db";

export interface SurveyFields extends DefinitionInput {
  siteId?: number | null;
  slug?: string;
}

/** What a survey's approval link proposes, recorded on the link so it reads the same after the decision. */
export type SurveyProposal = { proposal: "new" } | { proposal: "changes"; fields: string[] };

const write = <T>(ctx: ActorContext, fn: (tx: Tx) => Promise<T>) =>
  ctx.deps.db.transaction((tx) => fn(tx as unknown as Tx));

/** A stored definition as the input it was made from (normalising it again gives it back). */
function asInput(d: Definition) {
  return {
    title: d.title,
    slug: d.slug,
    siteId: d.siteId,
    description: d.description,
    languages: d.languages,
    pages: d.pages as unknown as PageInput[],
    endings: d.endings,
    hiddenFields: d.hiddenFields,
    closesAt: d.closesAt,
    maxResponses: d.maxResponses,
    submitLabel: d.submitLabel,
    translations: d.translations,
  };
}

/** What writes say about a definition worth a second look. */
function definitionWarnings(def: Definition, dropped: string[]): string[] {
  const out: string[] = [];
  const keys = textKeys(def);
  const untranslated = def.languages.slice(1).filter((l) => Object.keys(def.translations[l] ?? {}).length < keys.size);
  if (untranslated.length)
    out.push(
      `Not every text is translated into ${untranslated.join(", ")}: visitors choosing it read the rest in ${def.languages[0]}. Use survey_translations_get / survey_translations_set.`,
    );
  if (dropped.length)
    out.push(
      `These translations were dropped because their ${def.languages[0]} text changed: ${dropped.slice(0, 20).join(", ")}${dropped.length > 20 ? ", …" : ""}. Translate them again.`,
    );
  if (!allQuestions(def).some((q) => q.required))
    out.push("No question is required: an empty submission counts as a response.");
  return out;
}

async function answeredCount(tx: Tx, surveyId: number, questionId: string): Promise<number> {
  const r = await tx
    .select({ n: count() })
    .from(surveyResponses)
    .where(
      and(
        eq(surveyResponses.surveyId, surveyId),
        jsonContains(surveyResponses.answers, `${JSON.stringify(questionId)}:`),
      ),
    );
  return r[0]?.n ?? 0;
}

/**
 * Responses are kept by question id: a question that has answers may not
 * change its type (its answers would stop making sense), and removing one
 * is allowed with a warning.
 */
async function checkAgainstResponses(tx: Tx, s: SurveyRow, next: Definition): Promise<string[]> {
  const warnings: string[] = [];
  const before = new Map(
    [...allQuestions(s.definition), ...(s.draft ? allQuestions(s.draft) : [])].map((q) => [q.id, q]),
  );
  const after = new Map(allQuestions(next).map((q) => [q.id, q]));
  for (const [id, q] of before) {
    const now = after.get(id);
    if (now && now.type === q.type) continue;
    const n = await answeredCount(tx, s.id, id);
    if (n === 0) continue;
    if (now)
      throw conflict(
        `Question "${id}" has answers in ${n} response(s), so it cannot change from ${q.type} to ${now.type}. Keep its type, or add the new question under a new id (and remove this one).`,
        { path: "pages" },
      );
    warnings.push(
      `Question "${id}" is removed, but ${n} response(s) answered it: those answers stay in survey_responses_get and exports; summaries no longer show it.`,
    );
  }
  return warnings;
}

function compact(
  deps: ActorContext["deps"],
  s: Pick<SurveyRow, "id" | "slug" | "status" | "draft">,
  extra: Record<string, unknown> = {},
) {
  return {
    id: s.id,
    slug: s.slug,
    status: s.status,
    url: publicSurveyUrl(deps, s.slug),
    ...(s.draft ? { pendingChanges: true } : {}),
    ...extra,
  };
}

async function surveyLink(
  ctx: ActorContext,
  tx: Tx,
  s: { id: number; title: string },
  siteId: number | null,
  what: SurveyProposal,
): Promise<ApprovalEnvelope> {
  return mintLink(tx, ctx, {
    linkType: "entity",
    entityType: "survey",
    entityId: s.id,
    siteId,
    title: s.title,
    payload: what as unknown as Record<string, unknown>,
  });
}

async function insertSurvey(ctx: ActorContext, tx: Tx, def: Definition, forkedFromId: number | null) {
  const now = ctx.deps.clock.now();
  const row = (
    await tx
      .insert(surveys)
      .values({
        companyId: ctx.company.id,
        siteId: def.siteId,
        slug: def.slug,
        title: def.title,
        status: "pending",
        definition: def,
        closesAt: def.closesAt ? new Date(def.closesAt) : null,
        maxResponses: def.maxResponses,
        forkedFromId,
        createdByUserId: ctx.principal.userId,
        createdAt: now,
        updatedAt: now,
      })
      .returning()
  )[0]!;
  const approval = await surveyLink(ctx, tx, row, def.siteId, { proposal: "new" });
  await audit(tx, ctx, forkedFromId ? "surveys.fork" : "surveys.create", {
    type: "survey",
    id: row.id,
    siteId: def.siteId,
    detail: { slug: row.slug, approvalId: approval.id, ...(forkedFromId ? { forkedFromId } : {}) },
  });
  await emit(
    tx,
    ctx,
    surveyCreated,
    { id: row.id, siteId: def.siteId },
    {
      slug: row.slug,
      title: row.title,
      forkedFromId,
      questions: allQuestions(def).length,
      languages: def.languages,
      approvalId: approval.id,
      createdByUserId: ctx.principal.userId,
    },
  );
  return { row, approval };
}

async function chooseSlug(tx: Tx, given: string | undefined, title: string, exceptId: number | null) {
  if (given !== undefined) {
    await assertSlugFree(tx, given, exceptId);
    return { slug: given, note: {} };
  }
  const base = slugify(title, "survey");
  const slug = await uniqueSlug(base, (x) => slugTaken(tx, x, exceptId));
  return { slug, note: slugNote(base, slug, "survey") };
}

export async function createSurvey(ctx: ActorContext, input: SurveyFields & { title: string; pages: PageInput[] }) {
  authorize(ctx, "surveys:write", { write: true });
  if (input.siteId != null) await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const { slug, note } = await chooseSlug(tx, input.slug, input.title, null);
    const def = normalizeDefinition({ ...input, slug }, ctx.deps.clock.now());
    const { row, approval } = await insertSurvey(ctx, tx, def, null);
    const warnings = definitionWarnings(def, []);
    return compact(ctx.deps, row, { ...note, approval, ...(warnings.length ? { warnings } : {}) });
  });
}

/**
 * Proposes `next` for survey `s`: a survey never approved is re-drafted in
 * place (and pending again); an approved one keeps its live definition and
 * holds `next` in draft. Either way a fresh link is minted for the newest
 * proposal (older open links are superseded).
 */
async function propose(
  ctx: ActorContext,
  tx: Tx,
  s: SurveyRow,
  next: Definition,
  fields: string[],
  warnings: string[],
) {
  const now = ctx.deps.clock.now();
  const live = s.approvedAt !== null;
  if (live) {
    await tx.update(surveys).set({ draft: next, updatedAt: now }).where(eq(surveys.id, s.id));
  } else {
    await tx
      .update(surveys)
      .set({
        definition: next,
        title: next.title,
        slug: next.slug,
        siteId: next.siteId,
        closesAt: next.closesAt ? new Date(next.closesAt) : null,
        maxResponses: next.maxResponses,
        status: "pending",
        updatedAt: now,
      })
      .where(eq(surveys.id, s.id));
  }
  const approval = await surveyLink(
    ctx,
    tx,
    { id: s.id, title: next.title },
    next.siteId,
    live ? { proposal: "changes", fields } : { proposal: "new" },
  );
  await audit(tx, ctx, "surveys.update", {
    type: "survey",
    id: s.id,
    siteId: next.siteId,
    detail: { fields, approvalId: approval.id, live },
  });
  await emit(
    tx,
    ctx,
    surveyUpdated,
    { id: s.id, siteId: next.siteId },
    { slug: s.slug, title: next.title, fields, live, approvalId: approval.id, userId: ctx.principal.userId },
  );
  const after = (await tx.select().from(surveys).where(eq(surveys.id, s.id)).limit(1))[0]!;
  return compact(ctx.deps, after, {
    approval,
    ...(live
      ? { message: "The approved version stays live until a person approves these changes at approval.url." }
      : {}),
    ...(warnings.length ? { warnings } : {}),
  });
}

const FIELD_KEYS = [
  "title",
  "slug",
  "siteId",
  "description",
  "languages",
  "pages",
  "endings",
  "hiddenFields",
  "closesAt",
  "maxResponses",
  "submitLabel",
] as const;

export async function updateSurvey(ctx: ActorContext, input: SurveyFields & { id: number }) {
  authorize(ctx, "surveys:write", { write: true });
  if (input.siteId != null) await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const s = await surveyInCompany(tx, ctx, input.id);
    const base = proposedDefinition(s);
    const fields = FIELD_KEYS.filter((k) => input[k] !== undefined);
    if (input.slug !== undefined && input.slug !== base.slug) await assertSlugFree(tx, input.slug, s.id);
    const merged = { ...asInput(base) };
    for (const k of fields) (merged as Record<string, unknown>)[k] = input[k];
    const next = normalizeDefinition(merged, input.closesAt !== undefined ? ctx.deps.clock.now() : null);
    const { kept, dropped } = keepTranslations(next, base.translations, base);
    next.translations = kept;
    const live = s.approvedAt !== null;
    if (live && !s.draft && JSON.stringify(next) === JSON.stringify(s.definition))
      return compact(ctx.deps, s, { message: "Nothing to change: the survey is live as it is." });
    const warnings = [...(await checkAgainstResponses(tx, s, next)), ...definitionWarnings(next, dropped)];
    const changed = live ? changedParts(s.definition, next) : fields;
    return propose(ctx, tx, s, next, changed.length ? changed : [...fields], warnings);
  });
}

/** Top-level parts of a definition that differ (for the link's record and the event). */
export function changedParts(a: Definition, b: Definition): string[] {
  const keys = [...FIELD_KEYS, "translations"] as const;
  return keys.filter(
    (k) =>
      JSON.stringify((a as unknown as Record<string, unknown>)[k] ?? null) !==
      JSON.stringify((b as unknown as Record<string, unknown>)[k] ?? null),
  );
}

export async function forkSurvey(
  ctx: ActorContext,
  input: { id: number; title?: string; slug?: string; idempotencyKey?: string },
) {
  authorize(ctx, "surveys:write", { write: true });
  return write(ctx, async (tx) => {
    const s = await surveyInCompany(tx, ctx, input.id);
    const base = proposedDefinition(s);
    const title = input.title ?? `${base.title} (copy)`.slice(0, 300);
    const { slug, note } = await chooseSlug(tx, input.slug, title, null);
    const warnings: string[] = [];
    let closesAt = base.closesAt;
    if (closesAt && Date.parse(closesAt) <= ctx.deps.clock.now().getTime()) {
      warnings.push(
        `The original's close date (${closesAt}) has passed, so the copy has none; set one with surveys_update.`,
      );
      closesAt = null;
    }
    const def = normalizeDefinition({ ...asInput(base), title, slug, closesAt }, null);
    const { row, approval } = await insertSurvey(ctx, tx, def, s.id);
    return compact(ctx.deps, row, { forkedFromId: s.id, ...note, approval, ...(warnings.length ? { warnings } : {}) });
  });
}

export async function getTranslations(ctx: ActorContext, input: { id: number; language?: string }) {
  authorize(ctx, "surveys:read", { write: false });
  const s = await surveyInCompany(ctx.deps.db, ctx, input.id);
  const def = proposedDefinition(s);
  const langs = input.language ? [input.language] : def.languages.slice(1);
  for (const l of langs)
    if (!def.languages.includes(l) || l === def.languages[0])
      throw invalid(
        `language "${l}" is not a translation language of this survey (its languages: ${def.languages.join(", ")}; ${def.languages[0]} is the default). Add it with survey_translations_set.`,
        { path: "language" },
      );
  const texts = [...textKeys(def).entries()].map(([key, text]) => ({
    key,
    text,
    translations: Object.fromEntries(langs.map((l) => [l, def.translations[l]?.[key] ?? null])),
  }));
  return {
    id: s.id,
    defaultLanguage: def.languages[0],
    languages: def.languages,
    missing: Object.fromEntries(langs.map((l) => [l, texts.filter((t) => t.translations[l] === null).length])),
    texts,
  };
}

const TEXT_RE = /^[^\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]*$/;

export async function setTranslations(
  ctx: ActorContext,
  input: { id: number; language: string; texts: Record<string, string> },
) {
  authorize(ctx, "surveys:write", { write: true });
  return write(ctx, async (tx) => {
    const s = await surveyInCompany(tx, ctx, input.id);
    const base = proposedDefinition(s);
    if (input.language === base.languages[0])
      throw invalid(`${input.language} is the survey's default language: change its texts with surveys_update.`, {
        path: "language",
      });
    const keys = textKeys(base);
    const entries = Object.entries(input.texts);
    if (entries.length === 0)
      throw invalid('texts is empty: give {"<key>": "<translation>"} with keys from survey_translations_get.', {
        path: "texts",
      });
    if (entries.length > 2000) throw invalid("texts holds more than 2000 entries.", { path: "texts" });
    for (const [k, t] of entries) {
      if (!keys.has(k)) {
        const sample = [...keys.keys()].slice(0, 6).join(", ");
        throw invalid(
          `texts: "${k.slice(0, 80)}" is not a text of this survey (keys look like ${sample}…; survey_translations_get lists them).`,
          { path: `texts.${k.slice(0, 80)}` },
        );
      }
      if (typeof t !== "string" || t.trim() === "" || t.length > 2000 || !TEXT_RE.test(t))
        throw invalid(`texts.${k} must be 1 to 2000 characters without control characters.`, { path: `texts.${k}` });
    }
    const languages = base.languages.includes(input.language) ? base.languages : [...base.languages, input.language];
    if (languages.length > 10) throw invalid("A survey may have at most 10 languages.", { path: "language" });
    const translations = {
      ...base.translations,
      [input.language]: { ...(base.translations[input.language] ?? {}), ...input.texts },
    };
    const next: Definition = { ...base, languages, translations };
    const warnings = definitionWarnings(next, []);
    return propose(ctx, tx, s, next, ["translations"], warnings);
  });
}

export async function closeSurvey(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "surveys:write", { write: true });
  return write(ctx, async (tx) => {
    const s = await surveyInCompany(tx, ctx, input.id);
    if (s.status === "closed") return compact(ctx.deps, s, { alreadyClosed: true, closedReason: s.closedReason });
    if (s.status !== "open")
      throw conflict(`Survey ${s.id} is ${s.status}: it is not open, so there is nothing to close.`);
    const now = ctx.deps.clock.now();
    await tx
      .update(surveys)
      .set({
        status: "closed",
        closedAt: now,
        closedReason: "manual",
        version: sql`${surveys.version} + 1`,
        updatedAt: now,
      })
      .where(eq(surveys.id, s.id));
    await audit(tx, ctx, "surveys.close", { type: "survey", id: s.id, siteId: s.siteId });
    await emit(
      tx,
      ctx,
      surveyClosed,
      { id: s.id, siteId: s.siteId },
      { slug: s.slug, title: s.title, reason: "manual", responseCount: s.responseCount },
    );
    return compact(ctx.deps, { ...s, status: "closed" }, { closedReason: "manual" });
  });
}

export async function reopenSurvey(ctx: ActorContext, input: { id: number }) {
  authorize(ctx, "surveys:write", { write: true });
  return write(ctx, async (tx) => {
    const s = await surveyInCompany(tx, ctx, input.id);
    if (s.status !== "closed")
      throw conflict(`Survey ${s.id} is ${s.status}, not closed: only a closed survey can be reopened.`);
    const now = ctx.deps.clock.now();
    const a = acceptance({ ...s, status: "open" }, now);
    if (!a.accepting)
      throw conflict(
        a.reason === "date"
          ? `Its close date (${iso(s.closesAt)}) has passed: propose a later closesAt (or null) with surveys_update; approving it reopens the survey.`
          : `It reached its limit of ${s.maxResponses} responses: propose a higher maxResponses (or null) with surveys_update; approving it reopens the survey.`,
      );
    await tx
      .update(surveys)
      .set({ status: "open", closedAt: null, closedReason: null, version: sql`${surveys.version} + 1`, updatedAt: now })
      .where(eq(surveys.id, s.id));
    await audit(tx, ctx, "surveys.reopen", { type: "survey", id: s.id, siteId: s.siteId });
    await emit(
      tx,
      ctx,
      surveyReopened,
      { id: s.id, siteId: s.siteId },
      { slug: s.slug, title: s.title, url: publicSurveyUrl(ctx.deps, s.slug) },
    );
    return compact(ctx.deps, { ...s, status: "open" });
  });
}

export async function deleteSurvey(ctx: ActorContext, input: { id: number; deleteResponses?: boolean }) {
  authorize(ctx, "surveys:write", { write: true });
  return write(ctx, async (tx) => {
    const s = await surveyInCompany(tx, ctx, input.id);
    if (s.status === "open")
      throw conflict(
        `Survey ${s.id} is open and collecting responses at ${publicSurveyUrl(ctx.deps, s.slug)}: close it with surveys_close first.`,
      );
    const n =
      (await tx.select({ n: count() }).from(surveyResponses).where(eq(surveyResponses.surveyId, s.id)))[0]?.n ?? 0;
    if (n > 0 && !input.deleteResponses)
      throw conflict(
        `Survey ${s.id} has ${n} response(s); deleting it deletes them too. Export them first if needed (survey_responses_export), then pass deleteResponses: true.`,
      );
    await tx.delete(surveyResponses).where(eq(surveyResponses.surveyId, s.id));
    await tx.delete(surveys).where(eq(surveys.id, s.id));
    await withdrawLinks(tx, ctx.company.id, "survey", s.id, ctx.deps.clock.now());
    await audit(tx, ctx, "surveys.delete", {
      type: "survey",
      id: s.id,
      siteId: s.siteId,
      detail: { slug: s.slug, responsesDeleted: n },
    });
    await emit(
      tx,
      ctx,
      surveyDeleted,
      { id: s.id, siteId: s.siteId },
      { slug: s.slug, title: s.title, responsesDeleted: n },
    );
    return { id: s.id, slug: s.slug, status: "deleted", responsesDeleted: n };
  });
}

function summaryOf(ctx: ActorContext, s: SurveyRow) {
  const a = acceptance(s, ctx.deps.clock.now());
  return {
    id: s.id,
    slug: s.slug,
    title: s.title,
    status: s.status,
    url: publicSurveyUrl(ctx.deps, s.slug),
    acceptingResponses: a.accepting,
    ...(a.accepting ? {} : { notAcceptingBecause: a.reason }),
    responseCount: s.responseCount,
    siteId: s.siteId,
    pendingChanges: s.draft !== null,
    closesAt: iso(s.closesAt),
    maxResponses: s.maxResponses,
    createdAt: iso(s.createdAt),
    updatedAt: iso(s.updatedAt),
  };
}

export async function getSurvey(ctx: ActorContext, input: { id?: number; slug?: string }) {
  authorize(ctx, "surveys:read", { write: false });
  const s = await surveyRef(ctx.deps.db, ctx, input);
  const link = await latestLinkFor(ctx.deps.db, ctx.company.id, "survey", s.id);
  const def = s.definition;
  return {
    ...summaryOf(ctx, s),
    version: s.version,
    forkedFromId: s.forkedFromId,
    closedReason: s.closedReason,
    approvedAt: iso(s.approvedAt),
    approval: approvalState(link, ctx.deps.clock.now()),
    definition: stripSlug(def),
    ...(s.draft ? { proposed: stripSlug(s.draft), proposedChanges: changedParts(s.definition, s.draft) } : {}),
  };
}

/** The definition as agents write it (slug and siteId are the survey's own fields). */
function stripSlug(d: Definition) {
  const { slug: _s, siteId: _site, ...rest } = d;
  return rest;
}

export async function listSurveys(
  ctx: ActorContext,
  input: { status?: string; search?: string; siteId?: number; limit: number; offset: number },
) {
  authorize(ctx, "surveys:read", { write: false });
  if (input.siteId !== undefined) await siteForActor(ctx, input.siteId);
  const where = and(
    eq(surveys.companyId, ctx.company.id),
    input.status ? eq(surveys.status, input.status) : undefined,
    input.siteId !== undefined ? eq(surveys.siteId, input.siteId) : undefined,
    input.search ? containsText(surveys.title, input.search) : undefined,
  );
  const total = (await ctx.deps.db.select({ n: count() }).from(surveys).where(where))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select()
    .from(surveys)
    .where(where)
    .orderBy(desc(surveys.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    rows.map((s) => summaryOf(ctx, s)),
    total,
    input.limit,
    input.offset,
  );
}
