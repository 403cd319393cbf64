/**
 * Paging under a newest-first list. Links only (no script, no form), so a
 * page of results is a plain URL the person can bookmark or share.
 */
import type { Context } from "hono";
import type { FC } from "hono/jsx";

/** The page number from the query (`?page=3`, or `key`); anything that is not one is page 1, never an error. */
export function pageNoOf(c: Context, key = "page"): number {
  const raw = c.req.query(key) ?? "1";
  return /^\d{1,6}$/.test(raw) && Number(raw) >= 1 ? Number(raw) : 1;
}

/** "← Newer · Page n of m · Older →"; nothing when it fits one page. `href` builds a page's URL with the list's filters. */
export const Pager: FC<{ pageNo: number; pages: number; href: (pageNo: number) => string }> = ({
  pageNo,
  pages,
  href,
}) =>
  pages > 1 ? (
    <p>
      {pageNo > 1 && <a href={href(pageNo - 1)}>← Newer</a>} Page {pageNo} of {pages}{" "}
      {pageNo < pages && <a href={href(pageNo + 1)}>Older →</a>}
    </p>
  ) : null;
