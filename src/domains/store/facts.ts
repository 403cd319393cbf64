/**
 * @public What other domains may read about a site's store without reaching
 * into the store's tables: which product slugs exist (blocks' warnings on
 * content that names a missing product), what shows a picture URL (cms'
 * "still in use" answer before a media item is deleted), and a product
 * category's name and slug (where cms says a product is shown), and the
 * products a post's custom reference fields name (cms' custom-fields.ts:
 * checked on write, resolved for REST). Served to blocks and cms.
 *
 * Reads only, on the caller's transaction or database (`q`), each filtered
 * by the site (or, for a category, by the id the caller's product holds).
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "../../core/db";
import { productCategories, productImages, products, productVariants } from "./tables";

type Q = Pick<Db, "select">;

/** Slugs per query: far below both engines' bound-parameter limits. */
const CHUNK = 500;

/** The slugs among `slugs` that name a product of the site (any status). */
export async function productSlugsOfSite(q: Q, siteId: number, slugs: readonly string[]): Promise<Set<string>> {
  const found = new Set<string>();
  for (let i = 0; i < slugs.length; i += CHUNK) {
    const rows = await q
      .select({ slug: products.slug })
      .from(products)
      .where(and(eq(products.siteId, siteId), inArray(products.slug, slugs.slice(i, i + CHUNK))));
    for (const r of rows) found.add(r.slug);
  }
  return found;
}

/** The products among `ids` that belong to the site, with what a renderer links them by; `activeOnly`: the ones on sale. */
export async function productRefsOfSite(q: Q, siteId: number, ids: readonly number[], activeOnly = false) {
  const out: { id: number; slug: string; name: string }[] = [];
  for (let i = 0; i < ids.length; i += CHUNK)
    out.push(
      ...(await q
        .select({ id: products.id, slug: products.slug, name: products.name })
        .from(products)
        .where(
          and(
            eq(products.siteId, siteId),
            inArray(products.id, ids.slice(i, i + CHUNK)),
            activeOnly ? eq(products.status, "active") : undefined,
          ),
        )),
    );
  return out;
}

/** The site's products, variants and categories that show the picture at `url` (at most `limit` of each). */
export async function storePicturesAt(q: Q, siteId: number, url: string, limit = 3) {
  return {
    products: await q
      .select({ id: products.id, name: products.name })
      .from(productImages)
      .innerJoin(products, eq(products.id, productImages.productId))
      .where(and(eq(products.siteId, siteId), eq(productImages.url, url)))
      .limit(limit),
    variants: await q
      .select({ id: productVariants.id, name: productVariants.name, productId: productVariants.productId })
      .from(productVariants)
      .innerJoin(products, eq(products.id, productVariants.productId))
      .where(and(eq(products.siteId, siteId), eq(productVariants.image, url)))
      .limit(limit),
    categories: await q
      .select({ id: productCategories.id, name: productCategories.name })
      .from(productCategories)
      .where(and(eq(productCategories.siteId, siteId), eq(productCategories.image, url)))
      .limit(limit),
  };
}

/** A product category's id, name and slug, or null: for the category id a product of the caller's site holds. */
export async function productCategory(
  q: Q,
  categoryId: number,
): Promise<{ id: number; name: string; slug: string } | null> {
  return (
    (
      await q
        .select({ id: productCategories.id, name: productCategories.name, slug: productCategories.slug })
        .from(productCategories)
        .where(eq(productCategories.id, categoryId))
        .limit(1)
    )[0] ?? null
  );
}
