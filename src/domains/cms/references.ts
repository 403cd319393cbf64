/**
 * Where something is used on a site, as lines a person (or a model) reads:
 * `post 7 ("Brew guide")`, `navigation item 3 ("Shop")`, `block template 2
 * ("Landing")`, `product category 4 ("Mugs")`, `the site's branding`.
 *
 * Three questions, one vocabulary:
 *  - mediaHolders: what shows a media file (media_delete refuses while any);
 *  - linksToSlug: what links to a page of the site (a post's slug): the
 *    navigation and other posts' or templates' blocks;
 *  - productShownAt: where a product appears: its category, blocks that
 *    name it, featured-products blocks (when featured), product grids of
 *    its category, links to it.
 * The last two are what an approval page lists under "Linked from" before
 * a person lets live content be taken down.
 *
 * Candidates are narrowed in SQL by a substring of the stored JSON text
 * (engine-neutral jsonContains), then judged exactly in JS over the blocks.
 *
 * @public Serves store (where a product is shown, before it is unpublished or
 * deleted).
 */
import { and, asc, eq, ne, or } from "drizzle-orm";
import { jsonContains } from "../../core/sql";
import { brandingMentions } from "../branding/public-reads";
import { productCategory, storePicturesAt } from "../store/facts";
import { blockTemplates, navItems, posts, type BlockContent } from "./tables";
import type { Tx } from "../../core/db";

/** Posts whose content, cover or OG image mentions `url`: what holds a media item. */
export async function postsReferencing(tx: Tx, siteId: number, url: string, limit = 6) {
  return await tx
    .select({ id: posts.id, title: posts.title })
    .from(posts)
    .where(
      and(
        eq(posts.siteId, siteId),
        or(eq(posts.coverImage, url), eq(posts.ogImage, url), jsonContains(posts.content, url)),
      ),
    )
    .limit(limit);
}

/** Most lines one answer lists; the last says how many more there were. */
const MAX_LINES = 12;
/** Candidate rows read per kind of holder. */
const SCAN = 200;

const name = (s: string) => `"${s.slice(0, 60)}"`;

function bounded(lines: string[]): string[] {
  const unique = [...new Set(lines)];
  if (unique.length <= MAX_LINES) return unique;
  return [...unique.slice(0, MAX_LINES), `…and ${unique.length - MAX_LINES} more`];
}

/** Everything on the site that shows this media item, by kind, for the "still in use" refusal. */
export async function mediaHolders(tx: Tx, siteId: number, url: string): Promise<string[]> {
  const out: string[] = [];
  for (const p of await postsReferencing(tx, siteId, url, 4)) out.push(`post ${p.id} (${name(p.title)})`);
  for (const n of await tx
    .select({ id: navItems.id, label: navItems.label })
    .from(navItems)
    .where(and(eq(navItems.siteId, siteId), eq(navItems.featuredImage, url)))
    .limit(3))
    out.push(`navigation item ${n.id} ("${n.label}")`);
  for (const t of await tx
    .select({ id: blockTemplates.id, name: blockTemplates.name })
    .from(blockTemplates)
    .where(
      and(
        eq(blockTemplates.siteId, siteId),
        or(jsonContains(blockTemplates.content, url), jsonContains(blockTemplates.draftContent, url)),
      ),
    )
    .orderBy(asc(blockTemplates.id))
    .limit(3))
    out.push(`block template ${t.id} ("${t.name}")`);
  // The store refers to pictures by URL too: product and variant images, category images.
  const store = await storePicturesAt(tx, siteId, url, 3);
  for (const pr of store.products)
    if (!out.includes(`product ${pr.id} (${name(pr.name)})`)) out.push(`product ${pr.id} (${name(pr.name)})`);
  for (const va of store.variants) out.push(`variant ${va.id} (${name(va.name)}) of product ${va.productId}`);
  for (const pc of store.categories) out.push(`product category ${pc.id} (${name(pc.name)})`);
  if (await brandingMentions(tx, siteId, url)) out.push("the site's branding");
  return out;
}

/** True when `href` is a path or URL whose last path segment is `slug`: /blog/espresso-guide, https://x.test/espresso-guide/?ref=nav. */
export function linksToPath(href: string, slug: string): boolean {
  if (!/^(?:\/|https?:\/\/)/i.test(href)) return false;
  const path = href
    .replace(/^https?:\/\/[^/]*/i, "")
    .split(/[?#]/)[0]!
    .replace(/\/+$/, "");
  return path.slice(path.lastIndexOf("/") + 1) === slug;
}

interface BlockLike {
  type?: unknown;
  props?: Record<string, unknown>;
  children?: unknown;
}

function walk(blocks: unknown, visit: (b: BlockLike) => void) {
  if (!Array.isArray(blocks)) return;
  for (const b of blocks) {
    if (!b || typeof b !== "object") continue;
    visit(b as BlockLike);
    walk((b as BlockLike).children, visit);
  }
}

/** True when some string prop of some block links to the page `slug`. */
function blocksLinkTo(content: BlockContent | null, slug: string): boolean {
  let hit = false;
  walk(content?.blocks, (b) => {
    for (const v of Object.values(b.props ?? {})) {
      if (typeof v === "string" && linksToPath(v, slug)) hit = true;
      // Lists of records (faq items, pricing plans…) hold links too.
      if (Array.isArray(v))
        for (const item of v)
          if (item && typeof item === "object")
            for (const w of Object.values(item)) if (typeof w === "string" && linksToPath(w, slug)) hit = true;
    }
  });
  return hit;
}

const postLabel = (p: { id: number; title: string; status: string }) =>
  `post ${p.id} (${name(p.title)}${p.status === "published" ? "" : `, ${p.status}`})`;

/**
 * What links to the page with this slug: navigation items and the blocks
 * of other posts and of block templates whose link's last path segment is
 * the slug (the site's renderer decides the prefix, /blog/… or /…).
 */
export async function linksToSlug(
  tx: Tx,
  siteId: number,
  slug: string,
  opts: { exceptPostId?: number } = {},
): Promise<string[]> {
  const out: string[] = [];
  const needle = `/${slug}`;
  for (const n of await tx
    .select({ id: navItems.id, label: navItems.label, href: navItems.href })
    .from(navItems)
    .where(and(eq(navItems.siteId, siteId), jsonContains(navItems.href, needle)))
    .orderBy(asc(navItems.id))
    .limit(SCAN))
    if (linksToPath(n.href, slug)) out.push(`navigation item ${n.id} (${name(n.label)}, ${n.href})`);
  for (const p of await tx
    .select({ id: posts.id, title: posts.title, status: posts.status, content: posts.content })
    .from(posts)
    .where(
      and(
        eq(posts.siteId, siteId),
        opts.exceptPostId !== undefined ? ne(posts.id, opts.exceptPostId) : undefined,
        jsonContains(posts.content, needle),
      ),
    )
    .orderBy(asc(posts.id))
    .limit(SCAN))
    if (blocksLinkTo(p.content, slug)) out.push(`${postLabel(p)} links to it`);
  for (const t of await tx
    .select({
      id: blockTemplates.id,
      name: blockTemplates.name,
      content: blockTemplates.content,
      draft: blockTemplates.draftContent,
    })
    .from(blockTemplates)
    .where(
      and(
        eq(blockTemplates.siteId, siteId),
        or(jsonContains(blockTemplates.content, needle), jsonContains(blockTemplates.draftContent, needle)),
      ),
    )
    .orderBy(asc(blockTemplates.id))
    .limit(SCAN))
    if (blocksLinkTo(t.content, slug) || blocksLinkTo(t.draft, slug))
      out.push(`block template ${t.id} (${name(t.name)}) links to it`);
  return bounded(out);
}

/** How a product appears in some blocks, or null when it does not. */
function productBlocks(
  content: BlockContent | null,
  p: { slug: string; featured: boolean; categorySlug: string | null },
): string[] {
  const how = new Set<string>();
  walk(content?.blocks, (b) => {
    const props = b.props ?? {};
    const type = typeof b.type === "string" ? b.type : "";
    if (props.productSlug === p.slug) how.add(`${type} block`);
    else if (Array.isArray(props.productSlugs)) {
      if (props.productSlugs.includes(p.slug)) how.add(`${type} block`);
    } else if (type === "featured-products" && p.featured) how.add("featured-products block (it is featured)");
    if (
      type === "product-grid" &&
      (props.categorySlug === undefined || props.categorySlug === null || props.categorySlug === p.categorySlug)
    )
      how.add(props.categorySlug ? `product-grid block of its category` : "product-grid block of all products");
    for (const v of Object.values(props)) if (typeof v === "string" && linksToPath(v, p.slug)) how.add("a link");
  });
  return [...how];
}

/**
 * Where a product shows on the site: the product category that lists it,
 * blocks naming it (product-card, add-to-cart, featured-products
 * productSlugs), featured-products blocks while it is featured, product
 * grids of its category or of all products, and links whose last path
 * segment is its slug (navigation, blocks).
 */
export async function productShownAt(
  tx: Tx,
  siteId: number,
  product: { slug: string; featured: boolean; categoryId: number | null },
): Promise<string[]> {
  const out: string[] = [];
  let categorySlug: string | null = null;
  if (product.categoryId !== null) {
    const c = await productCategory(tx, product.categoryId);
    if (c) {
      categorySlug = c.slug;
      out.push(`product category ${c.id} (${name(c.name)}) lists it`);
    }
  }
  const p = { slug: product.slug, featured: product.featured, categorySlug };
  const mentions = (col: typeof posts.content | typeof blockTemplates.content) =>
    or(
      jsonContains(col, `"${product.slug}"`),
      jsonContains(col, `/${product.slug}`),
      jsonContains(col, '"featured-products"'),
      jsonContains(col, '"product-grid"'),
    );
  for (const r of await tx
    .select({ id: posts.id, title: posts.title, status: posts.status, content: posts.content })
    .from(posts)
    .where(and(eq(posts.siteId, siteId), mentions(posts.content)))
    .orderBy(asc(posts.id))
    .limit(SCAN)) {
    const how = productBlocks(r.content, p);
    if (how.length) out.push(`${postLabel(r)}: ${how.join(", ")}`);
  }
  for (const t of await tx
    .select({ id: blockTemplates.id, name: blockTemplates.name, content: blockTemplates.content })
    .from(blockTemplates)
    .where(and(eq(blockTemplates.siteId, siteId), mentions(blockTemplates.content)))
    .orderBy(asc(blockTemplates.id))
    .limit(SCAN)) {
    const how = productBlocks(t.content, p);
    if (how.length) out.push(`block template ${t.id} (${name(t.name)}): ${how.join(", ")}`);
  }
  for (const n of await tx
    .select({ id: navItems.id, label: navItems.label, href: navItems.href })
    .from(navItems)
    .where(and(eq(navItems.siteId, siteId), jsonContains(navItems.href, `/${product.slug}`)))
    .orderBy(asc(navItems.id))
    .limit(SCAN))
    if (linksToPath(n.href, product.slug)) out.push(`navigation item ${n.id} (${name(n.label)}, ${n.href})`);
  return bounded(out);
}
