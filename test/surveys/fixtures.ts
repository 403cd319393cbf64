/**
 * Survey fixtures: one realistic survey with every feature the logic tests
 * need (three pages, a jump on NPS, an ending chosen by a hidden field,
 * "Other", two languages), and helpers to approve it and to submit pages
 * through the same verb the public form uses.
 */
import { decideApproval } from "../../src/domains/approvals/verbs";
import { surveysDomain } from "../../src/domains/surveys/tools";
import { submitPage, type SubmitOutcome } from "../../src/domains/surveys/submit";
import { sha256Hex } from "../../src/core/secrets";
import type { Deps } from "../../src/core/context";
import { call, type World } from "../store/world";

export const FEEDBACK = {
  title: "Harbor coffee feedback",
  description: "Two minutes, promise.",
  languages: ["en", "de"],
  hiddenFields: ["source"],
  pages: [
    {
      id: "p1",
      title: "About you",
      questions: [
        { id: "nps", type: "nps", title: "How likely are you to recommend us?", required: true },
        {
          id: "visits",
          type: "single_choice",
          title: "How often do you visit?",
          required: true,
          allowOther: true,
          choices: [
            { id: "daily", label: "Daily" },
            { id: "weekly", label: "Weekly" },
            { id: "rarely", label: "Rarely" },
          ],
        },
      ],
      logic: [{ if: [{ field: "nps", op: "greaterOrEqual", value: 9 }], goTo: "p3" }],
    },
    {
      id: "p2",
      title: "Tell us more",
      questions: [{ id: "why", type: "long_text", title: "What should we improve?", required: true, max: 2000 }],
    },
    {
      id: "p3",
      title: "Last bits",
      questions: [
        {
          id: "drinks",
          type: "multiple_choice",
          title: "What do you drink?",
          max: 2,
          choices: [
            { id: "espresso", label: "Espresso" },
            { id: "filter", label: "Filter" },
            { id: "tea", label: "Tea" },
          ],
        },
        { id: "pastry", type: "rating", title: "Rate our pastries", scale: 5 },
        { id: "email", type: "email", title: "Email for a reply" },
      ],
      logic: [{ if: [{ field: "source", op: "equals", value: "vip" }], goTo: "vip" }],
    },
  ],
  endings: [
    { id: "thanks", title: "Thank you!", body: "We read every answer." },
    { id: "vip", title: "Thank you, regular!", body: "Your next flat white is on us." },
  ],
};

/** Creates a survey through the tool and approves its link as a reviewer would. */
export async function createApproved(
  w: World,
  def: Record<string, unknown> = FEEDBACK,
): Promise<{ id: number; slug: string; approvalId: number }> {
  const r = await call(surveysDomain, w.ctx(), "surveys_create", def);
  await approve(w.deps, r.approval.token);
  return { id: r.id, slug: r.slug, approvalId: r.approval.id };
}

export async function approve(deps: Deps, token: string) {
  const o = await decideApproval(deps, { token }, "approve", { decidedBy: "Rita Reviewer" });
  if (!o.ok) throw new Error(o.message);
  return o;
}

export const tokenHash = (surveyId: number, token: string) => sha256Hex(`${surveyId}:${token}`);

/** Submits one page as the public form would (fields as the browser sends them). */
export function submit(
  deps: Deps,
  surveyId: number,
  token: string,
  pageId: string,
  fields: [string, string][] | Record<string, string>,
  opts: { nav?: "next" | "back"; hidden?: Record<string, string>; lang?: string } = {},
): Promise<SubmitOutcome> {
  const form = new URLSearchParams(Array.isArray(fields) ? fields : Object.entries(fields));
  return submitPage(deps, {
    surveyId,
    tokenHash: tokenHash(surveyId, token),
    pageId,
    nav: opts.nav ?? "next",
    form,
    lang: opts.lang ?? "en",
    hidden: opts.hidden ?? {},
  });
}

/** The page a submit outcome shows, by id. */
export function pageShown(o: SubmitOutcome): string {
  if (o.kind !== "page") throw new Error(`expected a page, got ${JSON.stringify(o).slice(0, 200)}`);
  return o.def.pages[o.pageIndex]!.id;
}
