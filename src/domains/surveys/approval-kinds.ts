/**
 * `survey` as an approvable kind (approvals/kinds.ts): the reviewer sees
 * every page, question, rule, ending and translation, drawn by the same
 * renderer as the public form; approving opens the survey at /s/<slug> (or
 * makes proposed changes live), rejecting leaves the live version as it
 * was. What a link proposed (a new survey, or changes to an approved one) is
 * recorded on it when minted, so it reads the same after the decision.
 */
import { eq, sql } from "drizzle-orm";
import { iso } from "../../core/clock";
import { emit } from "../../core/events";
import { conflict } from "../../core/errors";
import type { ApprovalKind, ApprovalLink, ApprovalSupport, ChangeRow } from "../approvals/kinds";
import { effectiveStatus } from "../approvals/links";
import { summarize } from "../approvals/preview";
import { acceptance, publicSurveyUrl, slugTaken, type SurveyRow } from "./access";
import { allQuestions, textKeys, type Definition, type Question } from "./definition";
import { renderPreview, SURVEY_CSS, ruleWords } from "./render";
import { surveyApproved, surveyRejected } from "./events";
import { surveys } from "./tables";
import type { Tx } from "../../core/db";

async function surveyOf(db: Tx, link: ApprovalLink): Promise<SurveyRow | undefined> {
  if (link.entityId === null) return undefined;
  return (await db.select().from(surveys).where(eq(surveys.id, link.entityId)).limit(1))[0];
}

const proposalOf = (link: ApprovalLink): "new" | "changes" =>
  (link.payload as { proposal?: string } | null)?.proposal === "changes" ? "changes" : "new";

function questionLine(q: Question): string {
  const bits = [q.type.replace("_", " "), q.required ? "required" : "optional"];
  const opts = q.choices ?? q.rows;
  if (opts)
    bits.push(
      opts
        .map((o) => o.label)
        .join(" / ")
        .slice(0, 300),
    );
  return `${q.title} (${bits.join("; ")})`;
}

/** Live → proposed, part by part and question by question, in words a reviewer reads. */
function changeRows(live: Definition, next: Definition): ChangeRow[] {
  const rows: ChangeRow[] = [];
  const plain: [keyof Definition, string][] = [
    ["title", "Title"],
    ["slug", "Address"],
    ["description", "Introduction"],
    ["submitLabel", "Submit button"],
    ["closesAt", "Closes at"],
    ["maxResponses", "Response limit"],
  ];
  for (const [k, label] of plain) {
    const a = live[k] ?? null;
    const b = next[k] ?? null;
    if (JSON.stringify(a) !== JSON.stringify(b))
      rows.push({ field: label, before: a === null ? null : String(a), after: b === null ? null : String(b) });
  }
  if (live.siteId !== next.siteId)
    rows.push({
      field: "Branding (site id)",
      before: live.siteId === null ? null : String(live.siteId),
      after: next.siteId === null ? null : String(next.siteId),
    });
  if (live.languages.join() !== next.languages.join())
    rows.push({ field: "Languages", before: live.languages.join(", "), after: next.languages.join(", ") });
  if (live.hiddenFields.join() !== next.hiddenFields.join())
    rows.push({
      field: "Hidden fields",
      before: live.hiddenFields.join(", ") || null,
      after: next.hiddenFields.join(", ") || null,
    });
  const before = new Map(allQuestions(live).map((q) => [q.id, q]));
  const after = new Map(allQuestions(next).map((q) => [q.id, q]));
  for (const [id, q] of after) {
    const old = before.get(id);
    if (!old) rows.push({ field: `Question ${id}`, before: null, after: `added: ${questionLine(q)}` });
    else if (JSON.stringify(old) !== JSON.stringify(q))
      rows.push({ field: `Question ${id}`, before: questionLine(old), after: questionLine(q) });
  }
  for (const [id, q] of before)
    if (!after.has(id)) rows.push({ field: `Question ${id}`, before: questionLine(q), after: "removed" });
  const order = (d: Definition) =>
    d.pages.map((p) => `${p.id}: ${p.questions.map((q) => q.id).join(", ")}`).join(" | ");
  if (order(live) !== order(next)) rows.push({ field: "Pages and order", before: order(live), after: order(next) });
  const logic = (d: Definition) =>
    d.pages.flatMap((p) => p.logic.map((_, i) => `${p.id}: ${ruleWords(d, p, i)}`)).join("\n");
  if (logic(live) !== logic(next))
    rows.push({ field: "Skip logic", before: logic(live) || null, after: logic(next) || null });
  const endings = (d: Definition) =>
    d.endings
      .map((e) => `${e.id}: ${e.title}${e.body ? ` — ${e.body}` : ""}${e.redirectUrl ? ` → ${e.redirectUrl}` : ""}`)
      .join("\n");
  if (endings(live) !== endings(next)) rows.push({ field: "Endings", before: endings(live), after: endings(next) });
  for (const l of new Set([...Object.keys(live.translations), ...Object.keys(next.translations)])) {
    const a = live.translations[l] ?? {};
    const b = next.translations[l] ?? {};
    const changed = [...new Set([...Object.keys(a), ...Object.keys(b)])].filter((k) => a[k] !== b[k]);
    if (changed.length)
      rows.push({
        field: `Translations (${l})`,
        before: `${Object.keys(a).length} texts`,
        after: `${Object.keys(b).length} texts; changed: ${changed.slice(0, 30).join(", ")}${changed.length > 30 ? ", …" : ""}`,
      });
  }
  return rows;
}

export const surveyApprovalKind: ApprovalKind = {
  entityType: "survey",
  label: "Survey",

  async preview(deps, link) {
    const s = await surveyOf(deps.db, link);
    if (!s) return null;
    const pending = effectiveStatus(link, deps.clock.now()) === "pending";
    const what = proposalOf(link);
    // While open, a change proposal shows its draft beside the live version; once decided, the survey as it is.
    const open = what === "changes" && pending && s.draft !== null;
    const proposed = open ? s.draft! : s.definition;
    const url = publicSurveyUrl(deps, proposed.slug);
    const facts = [
      { label: "Public address", value: url },
      { label: "Questions", value: `${allQuestions(proposed).length} on ${proposed.pages.length} page(s)` },
      { label: "Languages", value: proposed.languages.join(", ") },
      { label: "Texts to translate", value: `${textKeys(proposed).size} per language` },
    ];
    if (what === "changes") facts.push({ label: "Responses so far", value: String(s.responseCount) });
    if (!pending && s.updatedAt.getTime() > (link.decidedAt ?? link.expiresAt).getTime())
      facts.push({
        label: "Since then",
        value: `The survey was changed again on ${iso(s.updatedAt)}; the preview shows it as it is now.`,
      });
    const words =
      what === "changes"
        ? {
            proposal: `Changes to the survey “${s.title}”`,
            pending: `Changes to the live survey “${s.title}”. Visitors keep getting the approved version until you approve.`,
            applied: "applied to the live survey",
            kept: "the live survey stayed as it was",
          }
        : {
            proposal: "A new survey",
            pending: `A new survey, not yet open: approving opens it to the public at ${url}.`,
            applied: "opened to the public",
            kept: "it was never opened",
          };
    return {
      title: proposed.title,
      summary: summarize(link, deps.clock.now(), words),
      facts,
      changes: open ? changeRows(s.definition, s.draft!) : [],
      html: renderPreview(proposed, url),
      ...(open ? { liveHtml: renderPreview(s.definition, publicSurveyUrl(deps, s.slug)) } : {}),
    };
  },

  async approve(tx, deps, link, d) {
    const s = await surveyOf(tx, link);
    if (!s) throw conflict("The survey no longer exists.");
    const what = proposalOf(link);
    let next: Definition;
    if (what === "changes") {
      if (!s.draft)
        throw conflict("These changes are no longer pending (applied or dropped), so there is nothing to approve.");
      next = s.draft;
      if (next.slug !== s.slug && (await slugTaken(tx, next.slug, s.id)))
        throw conflict(`The address /s/${next.slug} was taken meanwhile; the author must choose another slug.`);
    } else {
      if (s.status !== "pending") throw conflict(`The survey is ${s.status} now, so this request no longer applies.`);
      next = s.definition;
    }
    const closesAt = next.closesAt ? new Date(next.closesAt) : null;
    // A survey its date or quota closed opens again when the approved change lifts that limit.
    let status = what === "new" ? "open" : s.status;
    let closed = { closedAt: s.closedAt, closedReason: s.closedReason };
    if (status === "closed" && (s.closedReason === "date" || s.closedReason === "quota")) {
      const a = acceptance(
        { status: "open", closesAt, maxResponses: next.maxResponses, responseCount: s.responseCount },
        d.now,
      );
      if (a.accepting) {
        status = "open";
        closed = { closedAt: null, closedReason: null };
      }
    }
    await tx
      .update(surveys)
      .set({
        definition: next,
        draft: null,
        title: next.title,
        slug: next.slug,
        siteId: next.siteId,
        closesAt,
        maxResponses: next.maxResponses,
        status,
        ...closed,
        approvedAt: s.approvedAt ?? d.now,
        version: sql`${surveys.version} + 1`,
        updatedAt: d.now,
      })
      .where(eq(surveys.id, s.id));
    const version = s.version + 1;
    const url = publicSurveyUrl(deps, next.slug);
    await emit(
      tx,
      { deps, company: { id: s.companyId } },
      surveyApproved,
      { id: s.id, siteId: next.siteId },
      { slug: next.slug, title: next.title, url, change: what, version, decidedBy: d.decidedBy },
    );
    return { surveyId: s.id, slug: next.slug, status, url, version };
  },

  async reject(tx, deps, link, d) {
    const s = await surveyOf(tx, link);
    if (!s) return;
    const what = proposalOf(link);
    if (what === "changes") {
      if (s.draft) await tx.update(surveys).set({ draft: null, updatedAt: d.now }).where(eq(surveys.id, s.id));
    } else if (s.status === "pending") {
      await tx.update(surveys).set({ status: "rejected", updatedAt: d.now }).where(eq(surveys.id, s.id));
    }
    await emit(
      tx,
      { deps, company: { id: s.companyId } },
      surveyRejected,
      { id: s.id, siteId: s.siteId },
      { slug: s.slug, title: s.title, change: what, decidedBy: d.decidedBy, comment: d.comment },
    );
  },
};

/** The survey preview's styles on every approval page (scoped to .sv, so other kinds' previews are untouched). */
export const surveysApprovalSupport: ApprovalSupport = {
  previewCss: async () => `${SURVEY_CSS}\n.ap-content .sv{--sv-bg:transparent}`,
};
