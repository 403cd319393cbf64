/**
 * Cache tags carried by content events (post.published, product.updated,
 * branding.updated…), so a renderer subscribed through an outgoing webhook
 * can revalidate exactly what changed (Next.js revalidateTag, a CDN's
 * surrogate keys) without a second call. One scheme for every domain:
 *
 *   site:<siteId>                    anything on the site
 *   site:<siteId>:<kind>s            lists of that kind (index pages, feeds, sitemaps)
 *   site:<siteId>:<kind>:<id>        one record by id
 *   site:<siteId>:<kind>/<slug>      one record by slug (old and new slug on a rename)
 *
 * @public Serves every domain whose content events carry cache tags (cms,
 * store).
 */
export function cacheTags(
  siteId: number,
  kind: string,
  id: number | null,
  slugs: readonly (string | null | undefined)[] = [],
): string[] {
  const tags = [`site:${siteId}`, `site:${siteId}:${kind}s`];
  if (id !== null) tags.push(`site:${siteId}:${kind}:${id}`);
  for (const s of new Set(slugs)) if (s) tags.push(`site:${siteId}:${kind}/${s}`);
  return tags;
}
