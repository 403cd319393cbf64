/**
 * Paging under a newest-first list. Links only (no script, no form), so a
 * page of results is a plain URL the person can bookmark or share.
 */
import type { FC } from "hono/jsx";

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
