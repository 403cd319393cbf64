/**
 * Taxonomies: categories (with an optional description and hex colour) and
 * tags. Both are served by REST, so every write bumps the content version.
 * Deleting one that posts still use is refused with the posts that hold it.
 */
import { and, asc, count, eq, ne } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { bumpContentVersion } from "../sites/content-version";
import { conflict, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { slugify, slugNote, uniqueSlug } from "../../core/slug";
import { siteForActor } from "../sites/access";
import { categories, postCategories, posts, postTags, tags } from "./tables";
import { mapSeq } from "../../core/maybe";
import { containsText } from "../../core/sql";
import { byText } from "../../core/sql";
import { normalColor, write } from "../../core/fields";
import type { Tx } from "../../core/db";

export type TaxonomyKind = "category" | "tag";

const T = {
  category: {
    table: categories,
    link: postCategories,
    linkCol: postCategories.categoryId,
    noun: "Category",
    tool: "categories",
  },
  tag: { table: tags, link: postTags, linkCol: postTags.tagId, noun: "Tag", tool: "tags" },
} as const;

interface TermInput {
  name?: string;
  slug?: string;
  description?: string | null;
  color?: string | null;
}

async function termInSite(tx: Tx, kind: TaxonomyKind, siteId: number, id: number) {
  const { table, noun } = T[kind];
  const row = (
    await tx
      .select()
      .from(table)
      .where(and(eq(table.id, id), eq(table.siteId, siteId)))
      .limit(1)
  )[0];
  if (!row) throw notFound(`${noun} ${id} not found on site ${siteId}.`);
  return row as typeof categories.$inferSelect & Partial<Record<"description" | "color", string | null>>;
}

async function slugTaken(tx: Tx, kind: TaxonomyKind, siteId: number, slug: string, exceptId: number | null) {
  const { table } = T[kind];
  return (
    await tx
      .select({ id: table.id, name: table.name })
      .from(table)
      .where(
        and(eq(table.siteId, siteId), eq(table.slug, slug), exceptId === null ? undefined : ne(table.id, exceptId)),
      )
      .limit(1)
  )[0];
}

async function usage(tx: Tx, kind: TaxonomyKind, id: number) {
  const { link, linkCol } = T[kind];
  return (await tx.select({ n: count() }).from(link).where(eq(linkCol, id)).limit(1))[0]?.n ?? 0;
}

export async function listTerms(
  ctx: ActorContext,
  kind: TaxonomyKind,
  input: { siteId: number; search?: string; limit: number; offset: number },
) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  const { table } = T[kind];
  const conds = [eq(table.siteId, site.id)];
  if (input.search) {
    conds.push(containsText(table.name, input.search));
  }
  const where = and(...conds);
  const total = (await db.select({ n: count() }).from(table).where(where).limit(1))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(table)
    .where(where)
    .orderBy(asc(byText(table.name)), asc(table.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    await mapSeq(rows, async (r) => ({ ...view(kind, r), postCount: await usage(db, kind, r.id) })),
    total,
    input.limit,
    input.offset,
  );
}

function view(kind: TaxonomyKind, r: Record<string, unknown>) {
  const base = { id: r.id as number, name: r.name as string, slug: r.slug as string };
  return kind === "category"
    ? { ...base, description: (r.description as string | null) ?? null, color: (r.color as string | null) ?? null }
    : base;
}

export async function getTerm(ctx: ActorContext, kind: TaxonomyKind, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const r = await termInSite(ctx.deps.db, kind, site.id, input.id);
  return { ...view(kind, r), postCount: await usage(ctx.deps.db, kind, r.id) };
}

export async function createTerm(
  ctx: ActorContext,
  kind: TaxonomyKind,
  input: TermInput & { siteId: number; name: string },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const { table, noun, tool } = T[kind];
  return write(ctx, async (tx) => {
    let slug: string;
    let note = {};
    if (input.slug !== undefined) {
      const owner = await slugTaken(tx, kind, site.id, input.slug, null);
      if (owner)
        throw conflict(
          `${noun} slug "${input.slug}" is already used by ${noun.toLowerCase()} ${owner.id} ("${owner.name}") on this site.`,
          { path: "slug" },
        );
      slug = input.slug;
    } else {
      const base = slugify(input.name, kind);
      slug = await uniqueSlug(base, async (s) => !!(await slugTaken(tx, kind, site.id, s, null)));
      note = slugNote(base, slug, kind);
    }
    const values: Record<string, unknown> = {
      siteId: site.id,
      name: input.name,
      slug,
      createdAt: ctx.deps.clock.now(),
    };
    if (kind === "category")
      Object.assign(values, { description: input.description ?? null, color: normalColor(input.color) ?? null });
    const row = (
      await tx
        .insert(table)
        .values(values as never)
        .returning()
    )[0] as Record<string, unknown>;
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, `${tool}.create`, { type: kind, id: row.id as number, siteId: site.id, detail: { slug } });
    return { ...view(kind, row), ...note };
  });
}

export async function updateTerm(
  ctx: ActorContext,
  kind: TaxonomyKind,
  input: TermInput & { siteId: number; id: number },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const { table, noun, tool } = T[kind];
  return write(ctx, async (tx) => {
    const cur = await termInSite(tx, kind, site.id, input.id);
    if (input.slug !== undefined && input.slug !== cur.slug) {
      const owner = await slugTaken(tx, kind, site.id, input.slug, cur.id);
      if (owner)
        throw conflict(
          `${noun} slug "${input.slug}" is already used by ${noun.toLowerCase()} ${owner.id} ("${owner.name}") on this site.`,
          { path: "slug" },
        );
    }
    const set: Record<string, unknown> = {};
    if (input.name !== undefined) set.name = input.name;
    if (input.slug !== undefined) set.slug = input.slug;
    if (kind === "category") {
      if (input.description !== undefined) set.description = input.description;
      if (input.color !== undefined) set.color = normalColor(input.color);
    }
    if (Object.keys(set).length) {
      await tx
        .update(table)
        .set(set as never)
        .where(eq(table.id, cur.id));
      await bumpContentVersion(tx, site.id);
    }
    await audit(tx, ctx, `${tool}.update`, {
      type: kind,
      id: cur.id,
      siteId: site.id,
      detail: { fields: Object.keys(set) },
    });
    return view(kind, { ...cur, ...set });
  });
}

export async function deleteTerm(ctx: ActorContext, kind: TaxonomyKind, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const { table, link, linkCol, noun, tool } = T[kind];
  return write(ctx, async (tx) => {
    const cur = await termInSite(tx, kind, site.id, input.id);
    const n = await usage(tx, kind, cur.id);
    if (n > 0) {
      const holders = await tx
        .select({ id: posts.id, title: posts.title })
        .from(link)
        .innerJoin(posts, eq(posts.id, (link as typeof postCategories).postId))
        .where(eq(linkCol, cur.id))
        .limit(3);
      throw conflict(
        `${noun} "${cur.name}" is used by ${n} post(s), e.g. ${holders.map((p) => `${p.id} ("${p.title.slice(0, 60)}")`).join(", ")}. ` +
          `Remove it from those posts (posts_update with ${kind === "category" ? "categoryIds" : "tagIds"}) first.`,
        { postCount: n },
      );
    }
    await tx.delete(table).where(eq(table.id, cur.id));
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, `${tool}.delete`, { type: kind, id: cur.id, siteId: site.id, detail: { slug: cur.slug } });
    return { id: cur.id, slug: cur.slug, status: "deleted" };
  });
}
