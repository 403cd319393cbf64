/**
 * @public What other domains may read about the media library and a site's
 * content without reaching into cms' tables: media items of a company's
 * sites by id (decks' images, project card attachments, CRM CSV imports), a
 * site's media item by URL (a deck's logo), and a site's post and media
 * counts (sites_get). Served to decks, projects, crm and sites.
 *
 * Reads only, taking the caller's transaction or database (`q`), so a
 * query stays inside the transaction it was in. mediaOfCompany filters by
 * the company in the query (another company's media id answers like a
 * missing one); the others are for ids the caller holds from its own rows.
 */
import { and, count, eq, inArray } from "drizzle-orm";
import type { Db } from "../../core/db";
import { inCompanySites } from "../sites/facts";
import { media, posts } from "./tables";

type Q = Pick<Db, "select">;

export interface MediaFacts {
  id: number;
  siteId: number;
  filename: string;
  mimeType: string;
  url: string;
  storageKey: string | null;
  alt: string | null;
  width: number | null;
  height: number | null;
  sizeBytes: number | null;
}

const facts = {
  id: media.id,
  siteId: media.siteId,
  filename: media.filename,
  mimeType: media.mimeType,
  url: media.url,
  storageKey: media.storageKey,
  alt: media.alt,
  width: media.width,
  height: media.height,
  sizeBytes: media.sizeBytes,
};

/** The tables sites_get's counts read, for a tool's cachedBy. */
export const contentTables = [posts, media] as const;

/** The media items among `ids` that belong to one of the company's sites (in no particular order). */
export async function mediaOfCompany(q: Q, companyId: number, ids: readonly number[]): Promise<MediaFacts[]> {
  if (ids.length === 0) return [];
  return await q
    .select(facts)
    .from(media)
    .where(and(inArray(media.id, [...ids]), inCompanySites(media.siteId, q, companyId)));
}

/** The media items with these ids, whatever their site: for ids the caller's own rows hold (attachments). */
export async function mediaByIds(q: Q, ids: readonly number[]): Promise<Map<number, MediaFacts>> {
  if (ids.length === 0) return new Map();
  const rows = await q
    .select(facts)
    .from(media)
    .where(inArray(media.id, [...new Set(ids)]));
  return new Map(rows.map((r) => [r.id, r]));
}

/** The site's media item at this URL, or null (the first one, when the same URL was registered twice). */
export async function mediaAtUrl(q: Q, siteId: number, url: string): Promise<MediaFacts | null> {
  return (
    (
      await q
        .select(facts)
        .from(media)
        .where(and(eq(media.siteId, siteId), eq(media.url, url)))
        .limit(1)
    )[0] ?? null
  );
}

/** How many posts, published posts and media items a site has. */
export async function siteContentCounts(
  q: Q,
  siteId: number,
): Promise<{ posts: number; publishedPosts: number; media: number }> {
  const n = (r: { n: number } | undefined) => r?.n ?? 0;
  return {
    posts: n((await q.select({ n: count() }).from(posts).where(eq(posts.siteId, siteId)).limit(1))[0]),
    publishedPosts: n(
      (
        await q
          .select({ n: count() })
          .from(posts)
          .where(and(eq(posts.siteId, siteId), eq(posts.published, true)))
          .limit(1)
      )[0],
    ),
    media: n((await q.select({ n: count() }).from(media).where(eq(media.siteId, siteId)).limit(1))[0]),
  };
}
