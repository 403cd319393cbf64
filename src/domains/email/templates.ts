/**
 * Email templates: sanitised HTML with {{ variables }} and an optional
 * plain-text part (generated when missing). Campaigns copy a template's
 * content when proposed, so editing a template never changes what a person
 * already approved.
 */
import { and, count, desc, eq, inArray } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { conflict, invalid } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { containsText } from "../../core/sql";
import { templateIn, type TemplateRow } from "./access";
import { checkAttributes } from "./subscribers";
import { templateCreated, templateDeleted, templateUpdated } from "./events";
import { htmlToText, renderTransactional, sanitizeTemplate, unknownVariables } from "./render";
import { emailCampaigns, emailTemplates } from "./tables";
import type { Tx } from "../../core/db";

export function templateText(t: Pick<TemplateRow, "html" | "text">): string {
  return t.text ?? htmlToText(t.html);
}

function shape(t: TemplateRow, full: boolean) {
  return {
    id: t.id,
    name: t.name,
    ...(full ? { html: t.html, text: templateText(t), textGenerated: t.text === null } : {}),
    createdAt: iso(t.createdAt),
    updatedAt: iso(t.updatedAt),
  };
}

/** The stored form of template content, and what a writer should know about it. */
export function cleanContent(html: string, text: string | null | undefined) {
  const clean = sanitizeTemplate(html);
  if (!clean)
    throw invalid("The HTML is empty after removing what email clients do not render (scripts, forms, frames).", {
      path: "html",
    });
  const warnings: string[] = [];
  if (
    clean.replace(/\s+/g, "") !==
    html
      .replace(/<!doctype[^>]*>/i, "")
      .replace(/<\/?(html|head|body)[^>]*>/gi, "")
      .replace(/\s+/g, "")
  )
    warnings.push(
      "Parts of the HTML were removed (scripts, styles blocks, event handlers, unsafe links, or tags email clients ignore); use inline style attributes.",
    );
  const unknown = unknownVariables(`${html}\n${text ?? ""}`);
  if (unknown.length)
    warnings.push(
      `Unknown variables (they render empty): ${unknown.slice(0, 10).join(", ")}. Known: name, email, attributes.<key>, data.<key>, unsubscribe_url, subject.`,
    );
  return { html: clean, text: text?.trim() ? text : null, warnings };
}

async function nameFree(tx: Tx, ctx: ActorContext, name: string, except: number | null) {
  const hit = (
    await tx
      .select({ id: emailTemplates.id })
      .from(emailTemplates)
      .where(and(eq(emailTemplates.companyId, ctx.company.id), eq(emailTemplates.name, name)))
      .limit(1)
  )[0];
  if (hit && hit.id !== except)
    throw conflict(`A template named "${name}" already exists (id ${hit.id}).`, { path: "name", existingId: hit.id });
}

export async function listTemplates(ctx: ActorContext, i: { search?: string; limit: number; offset: number }) {
  authorize(ctx, "email:read", { write: false });
  const where = and(
    eq(emailTemplates.companyId, ctx.company.id),
    i.search ? containsText(emailTemplates.name, i.search) : undefined,
  );
  const total = (await ctx.deps.db.select({ n: count() }).from(emailTemplates).where(where))[0]!.n;
  const rows = await ctx.deps.db
    .select()
    .from(emailTemplates)
    .where(where)
    .orderBy(desc(emailTemplates.id))
    .limit(i.limit)
    .offset(i.offset);
  return page(
    rows.map((t) => shape(t, false)),
    total,
    i.limit,
    i.offset,
  );
}

export async function getTemplate(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:read", { write: false });
  return shape(await templateIn(ctx.deps.db, ctx, i.id), true);
}

export async function createTemplate(ctx: ActorContext, i: { name: string; html: string; text?: string }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    await nameFree(tx, ctx, i.name, null);
    const c = cleanContent(i.html, i.text);
    const now = ctx.deps.clock.now();
    const t = (
      await tx
        .insert(emailTemplates)
        .values({ companyId: ctx.company.id, name: i.name, html: c.html, text: c.text, createdAt: now, updatedAt: now })
        .returning()
    )[0]!;
    await audit(tx, ctx, "email.templates.create", { type: "email_template", id: t.id, detail: { name: t.name } });
    await emit(tx, ctx, templateCreated, { id: t.id }, { name: t.name });
    return { ...shape(t, false), ...(c.warnings.length ? { warnings: c.warnings } : {}) };
  });
}

export async function updateTemplate(
  ctx: ActorContext,
  i: { id: number; name?: string; html?: string; text?: string | null },
) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const t = await templateIn(tx, ctx, i.id);
    if (i.name !== undefined) await nameFree(tx, ctx, i.name, t.id);
    const c = cleanContent(i.html ?? t.html, i.text === undefined ? t.text : i.text);
    const next = (
      await tx
        .update(emailTemplates)
        .set({ name: i.name ?? t.name, html: c.html, text: c.text, updatedAt: ctx.deps.clock.now() })
        .where(eq(emailTemplates.id, t.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "email.templates.update", { type: "email_template", id: t.id, detail: { name: next.name } });
    await emit(tx, ctx, templateUpdated, { id: t.id }, { name: next.name });
    return { ...shape(next, false), ...(c.warnings.length ? { warnings: c.warnings } : {}) };
  });
}

export async function deleteTemplate(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const t = await templateIn(tx, ctx, i.id);
    // Campaigns hold their own copy of the content; the reference just goes.
    const using = await tx
      .select({ id: emailCampaigns.id })
      .from(emailCampaigns)
      .where(and(eq(emailCampaigns.templateId, t.id), inArray(emailCampaigns.status, ["draft", "pending_approval"])));
    await tx.delete(emailTemplates).where(eq(emailTemplates.id, t.id));
    await audit(tx, ctx, "email.templates.delete", {
      type: "email_template",
      id: t.id,
      detail: { name: t.name, draftCampaigns: using.map((u) => u.id) },
    });
    await emit(tx, ctx, templateDeleted, { id: t.id }, { name: t.name });
    return { id: t.id, status: "deleted" as const };
  });
}

/** A template rendered with sample values: what a recipient would get. */
export async function renderTemplate(
  ctx: ActorContext,
  i: {
    id: number;
    subject?: string;
    name?: string;
    email?: string;
    attributes?: Record<string, unknown>;
    data?: Record<string, unknown>;
  },
) {
  authorize(ctx, "email:read", { write: false });
  const t = await templateIn(ctx.deps.db, ctx, i.id);
  const r = renderTransactional(
    { subject: i.subject ?? t.name, html: t.html, text: templateText(t) },
    {
      name: i.name ?? "Alex Example",
      email: i.email ?? "alex@example.com",
      attributes: checkAttributes(i.attributes ?? {}),
      data: i.data ?? {},
      unsubscribeUrl: `${ctx.deps.config.publicUrl}/e/u/example`,
    },
  );
  return r;
}
