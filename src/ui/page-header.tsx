/**
 * The top of a page: its title, the line under it saying what the page is
 * for, and the page's own actions (a "New …" link, an export) in a row.
 */
import type { Child, FC, PropsWithChildren } from "hono/jsx";

export const PageHeader: FC<PropsWithChildren<{ title: Child; lead?: Child }>> = (p) => (
  <>
    <h1>{p.title}</h1>
    {p.lead && <p class="lead">{p.lead}</p>}
    {p.children && <div class="actions">{p.children}</div>}
  </>
);
