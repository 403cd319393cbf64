/** How signed-in pages write values people read: one format everywhere, whichever page shows it. */

/** Date-times: UTC, minute precision, unambiguous on any device; "—" when there is none. */
export function when(d: Date | null | undefined): string {
  if (!d) return "—";
  return d.toISOString().slice(0, 16).replace("T", " ") + " UTC";
}
