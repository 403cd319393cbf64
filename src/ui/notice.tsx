/**
 * The message box at the top of a page: what just happened ("Key
 * created"), what went wrong, or what to watch out for. Errors are
 * announced at once (role=alert), the rest politely (role=status).
 */
import type { FC, PropsWithChildren } from "hono/jsx";

export type NoticeKind = "ok" | "error" | "warn" | "info";

export const Notice: FC<PropsWithChildren<{ kind?: NoticeKind }>> = ({ kind = "info", children }) => (
  <div class={`notice ${kind === "info" ? "" : kind}`} role={kind === "error" ? "alert" : "status"}>
    {children}
  </div>
);
