/**
 * Lists of records on signed-in pages: a table in a card that scrolls
 * sideways on a phone rather than squeezing, with columns that can step
 * aside on small screens, and the one-line empty state shown instead of a
 * table with no rows.
 */
import type { Child, FC, PropsWithChildren } from "hono/jsx";

/** What a list says when it has nothing to show ("No keys yet."). */
export const EmptyState: FC<PropsWithChildren> = ({ children }) => <p class="muted">{children}</p>;

/** A column heading; `hideSm` hides the column (heading and cells, which carry class "hide-sm") under 600 px. */
export type Column = string | { label: Child; hideSm?: boolean };

/**
 * The rows are the children (`<tr>`s); columns without a heading (actions)
 * are "". With `empty` (say `empty={rows.length === 0 && "No invoices yet."}`)
 * the card stays and says so instead of showing a table: for a section that
 * keeps its place on the page. A page that drops the section shows
 * EmptyState instead of the whole table. `footer` sits under the table in
 * the same card ("Showing 50 of 80 members.").
 */
export const DataTable: FC<
  PropsWithChildren<{ columns: Column[]; id?: string; label?: string; class?: string; empty?: Child; footer?: Child }>
> = (p) => (
  <div class="card scroll">
    {p.empty ? (
      <EmptyState>{p.empty}</EmptyState>
    ) : (
      <table id={p.id} class={p.class} aria-label={p.label}>
        <thead>
          <tr>
            {p.columns.map((col) =>
              typeof col === "string" ? (
                <th>{col}</th>
              ) : (
                <th class={col.hideSm ? "hide-sm" : undefined}>{col.label}</th>
              ),
            )}
          </tr>
        </thead>
        <tbody>{p.children}</tbody>
      </table>
    )}
    {!p.empty && p.footer}
  </div>
);
