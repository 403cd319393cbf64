/**
 * Product references in block content. Store blocks name products by slug
 * (`productSlug` on product-card and add-to-cart, `productSlugs` on
 * featured-products); a slug that names no product of the site is not an
 * error (the product may be created next, and renderers show nothing for
 * it), but the write that stores such content says so in `warnings`, so an
 * agent that mistyped a slug learns it at once.
 *
 * Content reaching here has been validated: props are the catalog's shapes.
 *
 * @public Serves cms (warnings on content that names missing products).
 */
import type { Db } from "../../core/db";
import { productSlugsOfSite } from "../store/facts";
import type { Block } from "./catalog";

/** Validated content (the cms tables type blocks loosely). */
type Content = { blocks: readonly unknown[] } | null | undefined;

type Q = Pick<Db, "select">;

/** At most this many warnings are listed; the last line says how many more there were. */
export const MAX_REFERENCE_WARNINGS = 20;

interface Ref {
  path: string;
  slug: string;
}

function collect(blocks: readonly Block[], path: string, out: Ref[]) {
  blocks.forEach((b, i) => {
    const at = `${path}[${i}]`;
    if (typeof b.props.productSlug === "string")
      out.push({ path: `${at}.props.productSlug`, slug: b.props.productSlug });
    if (Array.isArray(b.props.productSlugs))
      b.props.productSlugs.forEach(
        (slug, j) => typeof slug === "string" && out.push({ path: `${at}.props.productSlugs[${j}]`, slug }),
      );
    if (b.children) collect(b.children, `${at}.children`, out);
  });
}

/**
 * One line per product slug in `content` that names no product of the site
 * (any status counts: a draft is still the product meant), e.g.
 * `blocks[2].props.productSlugs[1]: no product "house-espreso" on this site`.
 * Empty when every slug resolves.
 */
export async function productReferenceWarnings(q: Q, siteId: number, content: Content): Promise<string[]> {
  if (!content) return [];
  const refs: Ref[] = [];
  collect(content.blocks as Block[], "blocks", refs);
  if (refs.length === 0) return [];
  const wanted = [...new Set(refs.map((r) => r.slug))];
  const found = await productSlugsOfSite(q, siteId, wanted);
  const missing = refs.filter((r) => !found.has(r.slug));
  const lines = missing.slice(0, MAX_REFERENCE_WARNINGS).map((r) => `${r.path}: no product "${r.slug}" on this site`);
  if (missing.length > MAX_REFERENCE_WARNINGS)
    lines.push(`(and ${missing.length - MAX_REFERENCE_WARNINGS} more product slugs that name no product on this site)`);
  return lines;
}

/** `{ warnings }` when there are any, else nothing: spread into a write result. */
export async function referenceWarnings(q: Q, siteId: number, content: Content): Promise<{ warnings?: string[] }> {
  const warnings = await productReferenceWarnings(q, siteId, content);
  return warnings.length ? { warnings } : {};
}
