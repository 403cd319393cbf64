/**
 * Lists of records on signed-in pages: a table in a card that scrolls
 * sideways on a phone rather than squeezing, with columns that can step
 * aside on small screens, and the one-line empty state shown instead of a
 * table with no rows.
 */
import type { Child, FC, PropsWithChildren } from "hono/jsx";

/** A column heading; `hideSm` hides the column (heading and cells, which carry class "hide-sm") under 600 px. */
export type Column = string | { label: Child; hideSm?: boolean };

/** The rows are the children (`<tr>`s); columns without a heading (actions) are "". */
export const DataTable: FC<
  PropsWithChildren<{ columns: Column[]; id?: string; label?: string; class?: string; framed?: boolean }>
> = (p) => {
  const table = (
    <table id={p.id} class={p.class} aria-label={p.label}>
      <thead>
        <tr>
          {p.columns.map((col) =>
            typeof col === "string" ? <th>{col}</th> : <th class={col.hideSm ? "hide-sm" : undefined}>{col.label}</th>,
          )}
        </tr>
      </thead>
      <tbody>{p.children}</tbody>
    </table>
  );
  // framed={false}: the caller already holds the table in its own card (a heading or a note sits beside it).
  return p.framed === false ? table : <div class="card scroll">{table}</div>;
};

/** What a list says when it has nothing to show ("No keys yet."). */
export const EmptyState: FC<PropsWithChildren> = ({ children }) => <p class="muted">{children}</p>;
