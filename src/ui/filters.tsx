/**
 * The filter row of a list page (tickets, bookings, content, subscribers):
 * a plain GET form, so a filtered list is a URL the person can bookmark.
 * Each filter is a labelled select whose id is `f-<name>` (the browser
 * tests and the page's own links find it by that id), with the value the
 * list is filtered by selected.
 */
import type { FC } from "hono/jsx";

/** One filter: `options` are [value, text] pairs; the one equal to `value` is selected. */
export const FilterSelect: FC<{
  name: string;
  label: string;
  value: string | undefined;
  options: [value: string, text: string][];
}> = ({ name, label, value, options }) => (
  <div>
    <label for={`f-${name}`}>{label}</label>
    <select id={`f-${name}`} name={name}>
      {options.map(([v, text]) => (
        <option value={v} selected={value === v}>
          {text}
        </option>
      ))}
    </select>
  </div>
);
