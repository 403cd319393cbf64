/**
 * Post types (blog, page, case-study, …): REST filters posts by their slug
 * and listPages serves the type `page`. The built-in types `blog` and `page`
 * exist on demand: the first post of that type creates it, so a new site
 * needs no setup before posts_create.
 */
import { and, asc, count, eq, ne } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { bumpContentVersion } from "../sites/content-version";
import { conflict, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { slugify } from "../../core/slug";
import { siteForActor } from "../sites/access";
import { posts, postTypes } from "./tables";
import { mapSeq } from "../../core/maybe";
import { byText } from "../../core/sql";
import { write } from "../../core/fields";
import type { Tx } from "../../core/db";
import { checkDefinitions, definitionsOf, type FieldDef } from "./custom-fields";

export const BUILT_IN_POST_TYPES: Record<string, { name: string; description: string }> = {
  blog: { name: "Blog post", description: "Articles and news, listed newest first." },
  page: { name: "Page", description: "Standalone pages such as About or Contact (served by REST listPages)." },
};

export async function postTypeBySlug(tx: Tx, siteId: number, slug: string) {
  return (
    await tx
      .select()
      .from(postTypes)
      .where(and(eq(postTypes.siteId, siteId), eq(postTypes.slug, slug)))
      .limit(1)
  )[0];
}

/** The post type with this slug; built-ins are created on first use. */
export async function ensurePostType(tx: Tx, siteId: number, slug: string) {
  const found = await postTypeBySlug(tx, siteId, slug);
  if (found) return found;
  const builtIn = BUILT_IN_POST_TYPES[slug];
  if (builtIn)
    return (
      await tx
        .insert(postTypes)
        .values({ siteId, slug, ...builtIn })
        .returning()
    )[0];
  const known = (await tx.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.siteId, siteId))).map(
    (t) => t.slug,
  );
  const names = [...new Set([...Object.keys(BUILT_IN_POST_TYPES), ...known])].sort();
  throw notFound(
    `Post type "${slug}" does not exist on this site. Available: ${names.join(", ")}. Create it with post_types_create.`,
  );
}

async function typeInSite(tx: Tx, siteId: number, id: number) {
  const t = (
    await tx
      .select()
      .from(postTypes)
      .where(and(eq(postTypes.id, id), eq(postTypes.siteId, siteId)))
      .limit(1)
  )[0];
  if (!t) throw notFound(`Post type ${id} not found on site ${siteId}.`);
  return t;
}

async function assertTypeSlugFree(tx: Tx, siteId: number, slug: string, exceptId: number | null) {
  const owner = (
    await tx
      .select({ id: postTypes.id })
      .from(postTypes)
      .where(
        and(
          eq(postTypes.siteId, siteId),
          eq(postTypes.slug, slug),
          exceptId === null ? undefined : ne(postTypes.id, exceptId),
        ),
      )
      .limit(1)
  )[0];
  if (owner)
    throw conflict(`Post type slug "${slug}" is already used by post type ${owner.id} on this site.`, { path: "slug" });
}

async function postCount(tx: Tx, typeId: number) {
  return (await tx.select({ n: count() }).from(posts).where(eq(posts.postTypeId, typeId)).limit(1))[0]?.n ?? 0;
}

export async function listPostTypes(ctx: ActorContext, input: { siteId: number; limit: number; offset: number }) {
  authorize(ctx, "sites:read", { write: false });
  const site = await siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  const where = eq(postTypes.siteId, site.id);
  const total = (await db.select({ n: count() }).from(postTypes).where(where).limit(1))[0]?.n ?? 0;
  const rows = await db
    .select()
    .from(postTypes)
    .where(where)
    .orderBy(asc(byText(postTypes.slug)))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    await mapSeq(rows, async (t) => ({
      id: t.id,
      slug: t.slug,
      name: t.name,
      description: t.description,
      postCount: await postCount(db, t.id),
      builtIn: t.slug in BUILT_IN_POST_TYPES,
      ...(definitionsOf(t).length ? { fields: definitionsOf(t) } : {}),
    })),
    total,
    input.limit,
    input.offset,
  );
}

export async function createPostType(
  ctx: ActorContext,
  input: { siteId: number; name: string; slug?: string; description?: string | null },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const slug = input.slug ?? slugify(input.name, "type");
    await assertTypeSlugFree(tx, site.id, slug, null);
    const row = (
      await tx
        .insert(postTypes)
        .values({
          siteId: site.id,
          slug,
          name: input.name,
          description: input.description ?? null,
          createdAt: ctx.deps.clock.now(),
        })
        .returning()
    )[0];
    await audit(tx, ctx, "post_types.create", { type: "post_type", id: row.id, siteId: site.id, detail: { slug } });
    return { id: row.id, slug, name: row.name };
  });
}

export async function updatePostType(
  ctx: ActorContext,
  input: { siteId: number; id: number; name?: string; slug?: string; description?: string | null },
) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const t = await typeInSite(tx, site.id, input.id);
    if (input.slug !== undefined && input.slug !== t.slug) await assertTypeSlugFree(tx, site.id, input.slug, t.id);
    const set = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.slug !== undefined ? { slug: input.slug } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    };
    if (Object.keys(set).length) await tx.update(postTypes).set(set).where(eq(postTypes.id, t.id));
    // REST serves the type's slug as PostSummary.postType.
    if (input.slug !== undefined && input.slug !== t.slug) await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "post_types.update", {
      type: "post_type",
      id: t.id,
      siteId: site.id,
      detail: { fields: Object.keys(set) },
    });
    return { id: t.id, slug: input.slug ?? t.slug, name: input.name ?? t.name };
  });
}

export async function deletePostType(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  return write(ctx, async (tx) => {
    const t = await typeInSite(tx, site.id, input.id);
    const n = await postCount(tx, t.id);
    if (n > 0) {
      const some = await tx
        .select({ id: posts.id, title: posts.title })
        .from(posts)
        .where(eq(posts.postTypeId, t.id))
        .limit(3);
      throw conflict(
        `Post type "${t.slug}" is used by ${n} post(s), e.g. ${some.map((p) => `${p.id} ("${p.title.slice(0, 60)}")`).join(", ")}. ` +
          "Delete those posts or change their postType first.",
        { postCount: n },
      );
    }
    await tx.delete(postTypes).where(eq(postTypes.id, t.id));
    await audit(tx, ctx, "post_types.delete", {
      type: "post_type",
      id: t.id,
      siteId: site.id,
      detail: { slug: t.slug },
    });
    return { id: t.id, slug: t.slug, status: "deleted" };
  });
}

/**
 * Replaces a post type's custom field definitions (an empty list removes
 * them). Posts keep their stored values: each is checked against the new
 * definitions at its next write, and REST serves only defined fields, so a
 * removed field disappears from PostDetail at once (the content version moves).
 */
export async function setPostTypeFields(ctx: ActorContext, input: { siteId: number; id: number; fields: FieldDef[] }) {
  authorize(ctx, "sites:write", { write: true });
  const site = await siteForActor(ctx, input.siteId);
  const defs = checkDefinitions(input.fields);
  return write(ctx, async (tx) => {
    const t = await typeInSite(tx, site.id, input.id);
    // Stored without the optional keys left out, so the definitions read back exactly as given.
    const stored = defs.length ? (JSON.parse(JSON.stringify(defs)) as Record<string, unknown>[]) : null;
    await tx.update(postTypes).set({ fields: stored }).where(eq(postTypes.id, t.id));
    await bumpContentVersion(tx, site.id);
    await audit(tx, ctx, "post_types.fields", {
      type: "post_type",
      id: t.id,
      siteId: site.id,
      detail: { fields: defs.map((d) => d.name) },
    });
    return { id: t.id, slug: t.slug, fields: defs, postCount: await postCount(tx, t.id) };
  });
}
