/**
 * Block templates: reusable block arrangements agents start posts from.
 * Their content goes through approval like a post's: a new template is
 * `pending` until approved; a proposal for an approved (`published`)
 * template waits in `draftContent` while the approved content stays in use.
 * Name and description are labels, changed directly.
 */
import { and, asc, count, eq, ne } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { slugify, slugNote, uniqueSlug } from "../../core/slug";
import { renderBlocksHtml } from "../blocks/render";
import { approvalState, latestLinkFor, mintLink, withdrawLinks } from "../approvals/links";
import { approvedLinkId } from "../approvals/staging";
import { siteForActor } from "../sites/access";
import { contentFrom, contentWarnings, type BlocksInput, type Include } from "./common";
import { blockTemplates, type BlockContent } from "./tables";
import { containsText } from "../../core/sql";
import { byText } from "../../core/sql";
import { write } from "../../core/fields";
import type { Tx } from "../../core/db";

export type TemplateRow = typeof blockTemplates.$inferSelect;

async function slugOwner(tx: Tx, siteId: number, slug: string, exceptId: number | null) {
  return (
    await tx
      .select({ id: blockTemplates.id, name: blockTemplates.name })
      .from(blockTemplates)
      .where(
        and(
          eq(blockTemplates.siteId, siteId),
          eq(blockTemplates.slug, slug),
          exceptId === null ? undefined : ne(blockTemplates.id, exceptId),
        ),
      )
      .limit(1)
  )[0];
}

async function assertSlugFree(tx: Tx, siteId: number, slug: string, exceptId: number | null) {
  const o = await slugOwner(tx, siteId, slug, exceptId);
  if (o)
    throw conflict(`Block template slug "${slug}" is already used by template ${o.id} ("${o.name}") on this site.`, {
      path: "slug",
    });
}

export async function templateInSite(tx: Tx, siteId: number, id: number): Promise<TemplateRow> {
  const t = (
    await tx
      .select()
      .from(blockTemplates)
      .where(and(eq(blockTemplates.id, id), eq(blockTemplates.siteId, siteId)))
      .limit(1)
  )[0];
  if (!t) throw notFound(`Block template ${id} not found on site ${siteId}.`);
  return t;
}

function withContent(out: Record<string, unknown>, content: BlockContent | null, include: Include) {
  if (include.includes("blocks")) out.blocks = content?.blocks ?? [];
  if (include.includes("html")) out.html = renderBlocksHtml(content ?? { blocks: [] });
  return out;
}

/** What a template's link proposes (recorded so it reads the same after the decision): a template never approved, or new blocks for an approved one. */
const templateLink = async (
  ctx: ActorContext,
  tx: Tx,
  t: { id: number; siteId: number; name: string },
  proposal: "new" | "update",
) =>
  await mintLink(tx, ctx, {
    linkType: "entity",
    entityType: "block_template",
    entityId: t.id,
    siteId: t.siteId,
    title: t.name,
    payload: { proposal },
  });

export async function listTemplates(
  ctx: ActorContext,
  input: { siteId: number; status?: string; search?: string; limit: number; offset: number },
) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  const conds = [eq(blockTemplates.siteId, site.id)];
  if (input.status) conds.push(eq(blockTemplates.status, input.status));
  if (input.search) {
    conds.push(containsText(blockTemplates.name, input.search));
  }
  const where = and(...conds);
  const total = (await db.select({ n: count() }).from(blockTemplates).where(where).limit(1))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(blockTemplates)
    .where(where)
    .orderBy(asc(byText(blockTemplates.name)), asc(blockTemplates.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    rows.map((t) => ({
      id: t.id,
      name: t.name,
      slug: t.slug,
      description: t.description,
      status: t.status,
      hasPendingChanges: t.draftContent !== null,
      blockCount: t.content.blocks.length,
      updatedAt: iso(t.updatedAt),
    })),
    total,
    input.limit,
    input.offset,
  );
}

export async function getTemplate(
  ctx: ActorContext,
  input: { siteId: number; id?: number; slug?: string; include?: Include },
) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  if ((input.id === undefined) === (input.slug === undefined)) throw invalid("Give exactly one of id or slug.");
  const t =
    input.id !== undefined
      ? await templateInSite(db, site.id, input.id)
      : (
          await db
            .select()
            .from(blockTemplates)
            .where(and(eq(blockTemplates.siteId, site.id), eq(blockTemplates.slug, input.slug ?? "")))
            .limit(1)
        )[0];
  if (!t) throw notFound(`Block template "${input.slug}" not found on site ${site.id}.`);
  const include = input.include ?? [];
  const out = withContent(
    {
      id: t.id,
      siteId: t.siteId,
      name: t.name,
      slug: t.slug,
      description: t.description,
      status: t.status,
      blockCount: t.content.blocks.length,
      hasPendingChanges: t.draftContent !== null,
      approval: approvalState(await latestLinkFor(db, ctx.company.id, "block_template", t.id), ctx.deps.clock.now()),
      createdAt: iso(t.createdAt),
      updatedAt: iso(t.updatedAt),
    },
    t.content,
    include,
  );
  if (t.draftContent && include.includes("blocks")) out.pendingBlocks = t.draftContent.blocks;
  return out;
}

export async function createTemplate(
  ctx: ActorContext,
  input: {
    siteId: number;
    name: string;
    slug?: string;
    description?: string | null;
    blocks: BlocksInput;
    include?: Include;
  },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const content = contentFrom(input.blocks);
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    if (input.slug !== undefined) await assertSlugFree(tx, site.id, input.slug, null);
    const base = slugify(input.name, "template");
    const slug = input.slug ?? (await uniqueSlug(base, async (s) => !!(await slugOwner(tx, site.id, s, null))));
    const row = (
      await tx
        .insert(blockTemplates)
        .values({
          siteId: site.id,
          name: input.name,
          slug,
          description: input.description ?? null,
          content,
          status: "pending",
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0];
    const approval = await templateLink(ctx, tx, row, "new");
    await audit(tx, ctx, "block_templates.create", {
      type: "block_template",
      id: row.id,
      siteId: site.id,
      detail: { slug, approvalId: approval.id },
    });
    const warnings = await contentWarnings(tx, site.id, content, "template");
    return withContent(
      {
        id: row.id,
        slug,
        status: "pending",
        ...(input.slug ? {} : slugNote(base, slug, "block template")),
        approval,
        ...warnings,
      },
      content,
      input.include ?? [],
    );
  });
}

export async function updateTemplate(
  ctx: ActorContext,
  input: {
    siteId: number;
    id: number;
    name?: string;
    slug?: string;
    description?: string | null;
    blocks?: BlocksInput;
    include?: Include;
  },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const content = input.blocks !== undefined ? contentFrom(input.blocks) : undefined;
  const now = ctx.deps.clock.now();
  return write(ctx, async (tx) => {
    const t = await templateInSite(tx, site.id, input.id);
    if (input.slug !== undefined && input.slug !== t.slug) await assertSlugFree(tx, site.id, input.slug, t.id);
    const set: Partial<TemplateRow> = { updatedAt: now };
    if (input.name !== undefined) set.name = input.name;
    if (input.slug !== undefined) set.slug = input.slug;
    if (input.description !== undefined) set.description = input.description;
    const live = t.status === "published";
    if (live) {
      if (content) set.draftContent = content;
    } else {
      if (content) set.content = content;
      set.status = "pending";
    }
    await tx.update(blockTemplates).set(set).where(eq(blockTemplates.id, t.id));
    const proposal = live ? (set.draftContent ?? t.draftContent) : (set.content ?? t.content);
    // A live template with no pending content has nothing to approve: label edits apply directly.
    const approval =
      !live || proposal
        ? await templateLink(ctx, tx, { ...t, name: set.name ?? t.name }, live ? "update" : "new")
        : undefined;
    await audit(tx, ctx, "block_templates.update", {
      type: "block_template",
      id: t.id,
      siteId: site.id,
      detail: {
        fields: Object.keys(set).filter((k) => k !== "updatedAt"),
        ...(approval ? { approvalId: approval.id } : {}),
      },
    });
    return withContent(
      {
        id: t.id,
        slug: set.slug ?? t.slug,
        status: set.status ?? t.status,
        ...(approval ? { approval } : {}),
        hasPendingChanges: live && !!proposal,
        ...(await contentWarnings(tx, site.id, content, "template")),
      },
      proposal ?? t.content,
      input.include ?? [],
    );
  });
}

export async function deleteTemplate(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const t = await templateInSite(tx, site.id, input.id);
    await tx.delete(blockTemplates).where(eq(blockTemplates.id, t.id));
    await withdrawLinks(tx, ctx.company.id, "block_template", t.id, ctx.deps.clock.now(), approvedLinkId(ctx));
    await audit(tx, ctx, "block_templates.delete", {
      type: "block_template",
      id: t.id,
      siteId: site.id,
      detail: { slug: t.slug },
    });
    return { id: t.id, slug: t.slug, status: "deleted" };
  });
}
