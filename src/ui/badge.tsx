/**
 * The small rounded label next to a name or in a table cell: a status
 * ("active", "expired", "open"), a role, a count. Its tone says how the
 * reader should take it; the text always says it too, so colour is never
 * the only signal.
 */
import type { FC, PropsWithChildren } from "hono/jsx";

/** neutral: grey (roles, plain states); ok: done or healthy; warn: needs attention; danger: failed, revoked; unread: new. */
export type Tone = "neutral" | "ok" | "warn" | "danger" | "unread";

export const StatusBadge: FC<PropsWithChildren<{ tone?: Tone }>> = ({ tone = "neutral", children }) => (
  <span class={tone === "neutral" ? "badge" : `badge ${tone}`}>{children}</span>
);
