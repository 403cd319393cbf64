/**
 * Post types (blog, page, case-study, …): REST filters posts by their slug
 * and listPages serves the type `page`. The built-in types `blog` and `page`
 * exist on demand: the first post of that type creates it, so a new site
 * needs no setup before posts_create.
 */
import { and, asc, count, eq, ne } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { bumpContentVersion } from "../../core/content-version";
import { conflict, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { slugify } from "../../core/slug";
import { siteForActor } from "../sites/access";
import { write, type Tx } from "./common";
import { posts, postTypes } from "./tables";

export const BUILT_IN_POST_TYPES: Record<string, { name: string; description: string }> = {
  blog: { name: "Blog post", description: "Articles and news, listed newest first." },
  page: { name: "Page", description: "Standalone pages such as About or Contact (served by REST listPages)." },
};

export function postTypeBySlug(tx: Tx, siteId: number, slug: string) {
  return tx.select().from(postTypes).where(and(eq(postTypes.siteId, siteId), eq(postTypes.slug, slug))).get();
}

/** The post type with this slug; built-ins are created on first use. */
export function ensurePostType(tx: Tx, siteId: number, slug: string) {
  const found = postTypeBySlug(tx, siteId, slug);
  if (found) return found;
  const builtIn = BUILT_IN_POST_TYPES[slug];
  if (builtIn) return tx.insert(postTypes).values({ siteId, slug, ...builtIn }).returning().get();
  const known = tx.select({ slug: postTypes.slug }).from(postTypes).where(eq(postTypes.siteId, siteId)).all().map((t) => t.slug);
  const names = [...new Set([...Object.keys(BUILT_IN_POST_TYPES), ...known])].sort();
  throw notFound(`Post type "${slug}" does not exist on this site. Available: ${names.join(", ")}. Create it with post_types_create.`);
}

function typeInSite(tx: Tx, siteId: number, id: number) {
  const t = tx.select().from(postTypes).where(and(eq(postTypes.id, id), eq(postTypes.siteId, siteId))).get();
  if (!t) throw notFound(`Post type ${id} not found on site ${siteId}.`);
  return t;
}

function assertTypeSlugFree(tx: Tx, siteId: number, slug: string, exceptId: number | null) {
  const owner = tx
    .select({ id: postTypes.id })
    .from(postTypes)
    .where(and(eq(postTypes.siteId, siteId), eq(postTypes.slug, slug), exceptId === null ? undefined : ne(postTypes.id, exceptId)))
    .get();
  if (owner) throw conflict(`Post type slug "${slug}" is already used by post type ${owner.id} on this site.`, { path: "slug" });
}

function postCount(tx: Tx, typeId: number) {
  return tx.select({ n: count() }).from(posts).where(eq(posts.postTypeId, typeId)).get()?.n ?? 0;
}

export function listPostTypes(ctx: ActorContext, input: { siteId: number; limit: number; offset: number }) {
  authorize(ctx, "sites:read", { write: false });
  const site = siteForActor(ctx, input.siteId);
  const db = ctx.deps.db;
  const where = eq(postTypes.siteId, site.id);
  const total = db.select({ n: count() }).from(postTypes).where(where).get()?.n ?? 0;
  const rows = db.select().from(postTypes).where(where).orderBy(asc(postTypes.slug)).limit(input.limit).offset(input.offset).all();
  return page(
    rows.map((t) => ({ id: t.id, slug: t.slug, name: t.name, description: t.description, postCount: postCount(db, t.id), builtIn: t.slug in BUILT_IN_POST_TYPES })),
    total,
    input.limit,
    input.offset,
  );
}

export function createPostType(ctx: ActorContext, input: { siteId: number; name: string; slug?: string; description?: string | null }) {
  authorize(ctx, "sites:write", { write: true });
  const site = siteForActor(ctx, input.siteId);
  return write(ctx, (tx) => {
    const slug = input.slug ?? slugify(input.name, "type");
    assertTypeSlugFree(tx, site.id, slug, null);
    const row = tx
      .insert(postTypes)
      .values({ siteId: site.id, slug, name: input.name, description: input.description ?? null, createdAt: ctx.deps.clock.now() })
      .returning()
      .get();
    audit(tx, ctx, "post_types.create", { type: "post_type", id: row.id, siteId: site.id, detail: { slug } });
    return { id: row.id, slug, name: row.name };
  });
}

export function updatePostType(ctx: ActorContext, input: { siteId: number; id: number; name?: string; slug?: string; description?: string | null }) {
  authorize(ctx, "sites:write", { write: true });
  const site = siteForActor(ctx, input.siteId);
  return write(ctx, (tx) => {
    const t = typeInSite(tx, site.id, input.id);
    if (input.slug !== undefined && input.slug !== t.slug) assertTypeSlugFree(tx, site.id, input.slug, t.id);
    const set = {
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.slug !== undefined ? { slug: input.slug } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
    };
    if (Object.keys(set).length) tx.update(postTypes).set(set).where(eq(postTypes.id, t.id)).run();
    // REST serves the type's slug as PostSummary.postType.
    if (input.slug !== undefined && input.slug !== t.slug) bumpContentVersion(tx, site.id);
    audit(tx, ctx, "post_types.update", { type: "post_type", id: t.id, siteId: site.id, detail: { fields: Object.keys(set) } });
    return { id: t.id, slug: input.slug ?? t.slug, name: input.name ?? t.name };
  });
}

export function deletePostType(ctx: ActorContext, input: { siteId: number; id: number }) {
  authorize(ctx, "sites:write", { write: true });
  const site = siteForActor(ctx, input.siteId);
  return write(ctx, (tx) => {
    const t = typeInSite(tx, site.id, input.id);
    const n = postCount(tx, t.id);
    if (n > 0) {
      const some = tx.select({ id: posts.id, title: posts.title }).from(posts).where(eq(posts.postTypeId, t.id)).limit(3).all();
      throw conflict(
        `Post type "${t.slug}" is used by ${n} post(s), e.g. ${some.map((p) => `${p.id} ("${p.title.slice(0, 60)}")`).join(", ")}. ` +
          "Delete those posts or change their postType first.",
        { postCount: n },
      );
    }
    tx.delete(postTypes).where(eq(postTypes.id, t.id)).run();
    audit(tx, ctx, "post_types.delete", { type: "post_type", id: t.id, siteId: site.id, detail: { slug: t.slug } });
    return { id: t.id, slug: t.slug, status: "deleted" };
  });
}
