/** What the survey verbs, the approval kind and the public pages share. */
import { and, eq, ne } from "drizzle-orm";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid, notFound } from "../../core/errors";
import { answerText } from "./answers";
import type { AnswerValue, Definition } from "./definition";
import { allQuestions } from "./definition";
import { surveys } from "./tables";

export type SurveyRow = typeof surveys.$inferSelect;

export function publicSurveyUrl(deps: Pick<Deps, "config">, slug: string): string {
  return `${deps.config.publicUrl}/s/${slug}`;
}

export async function surveyInCompany(db: Pick<Db, "select">, ctx: ActorContext, id: number): Promise<SurveyRow> {
  const s = (
    await db
      .select()
      .from(surveys)
      .where(and(eq(surveys.id, id), eq(surveys.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!s) throw notFound(`Survey ${id} not found in ${ctx.company.name}.`);
  return s;
}

export async function surveyBySlugInCompany(
  db: Pick<Db, "select">,
  ctx: ActorContext,
  slug: string,
): Promise<SurveyRow> {
  const s = (
    await db
      .select()
      .from(surveys)
      .where(and(eq(surveys.slug, slug), eq(surveys.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!s) throw notFound(`No survey with slug "${slug.slice(0, 120)}" in ${ctx.company.name}.`);
  return s;
}

/** A survey named by id or slug (one of them). */
export async function surveyRef(
  db: Pick<Db, "select">,
  ctx: ActorContext,
  ref: { id?: number; slug?: string },
  idName = "id",
  slugName = "slug",
): Promise<SurveyRow> {
  if (ref.id !== undefined) return surveyInCompany(db, ctx, ref.id);
  if (ref.slug !== undefined) return surveyBySlugInCompany(db, ctx, ref.slug);
  throw invalid(`Name the survey with ${idName} or ${slugName}.`, { path: idName });
}

/**
 * Slugs are one namespace for every company (the address is /s/<slug>).
 * A taken slug says only that it is taken, never whose it is.
 */
export async function slugTaken(db: Pick<Db, "select">, slug: string, exceptId: number | null): Promise<boolean> {
  const row = (
    await db
      .select({ id: surveys.id })
      .from(surveys)
      .where(and(eq(surveys.slug, slug), exceptId === null ? undefined : ne(surveys.id, exceptId)))
      .limit(1)
  )[0];
  return row !== undefined;
}

export async function assertSlugFree(db: Pick<Db, "select">, slug: string, exceptId: number | null) {
  if (await slugTaken(db, slug, exceptId))
    throw conflict(`The survey address /s/${slug} is taken. Choose another slug, or omit slug to have one generated.`, {
      path: "slug",
    });
}

export type Acceptance =
  | { accepting: true }
  | { accepting: false; reason: "pending" | "rejected" | "closed" | "date" | "quota" };

/** Whether the public form takes responses right now (the close date and quota are read live, not only by the job). */
export function acceptance(
  s: Pick<SurveyRow, "status" | "closesAt" | "maxResponses" | "responseCount">,
  now: Date,
): Acceptance {
  if (s.status === "pending" || s.status === "rejected") return { accepting: false, reason: s.status };
  if (s.status !== "open") return { accepting: false, reason: "closed" };
  if (s.closesAt && s.closesAt.getTime() <= now.getTime()) return { accepting: false, reason: "date" };
  if (s.maxResponses !== null && s.responseCount >= s.maxResponses) return { accepting: false, reason: "quota" };
  return { accepting: true };
}

/** The answers of a response as text, question by question, for events (bounded). */
export function answersAsText(def: Definition, answers: Record<string, AnswerValue>, other: Record<string, string>) {
  const out: { questionId: string; question: string; answer: string }[] = [];
  for (const q of allQuestions(def)) {
    if (answers[q.id] === undefined) continue;
    const text = answerText(q, answers[q.id], other[q.id]);
    out.push({
      questionId: q.id,
      question: q.title.slice(0, 200),
      answer: text.length > 1000 ? `${text.slice(0, 1000)}…` : text,
    });
    if (out.length >= 100) break;
  }
  return out;
}

/** What a survey proposes now: pending changes of an approved survey, else its definition. */
export const proposedDefinition = (s: SurveyRow): Definition => s.draft ?? s.definition;
