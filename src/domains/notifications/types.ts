/**
 * The notification types people can set preferences for, with their
 * defaults. A domain that notifies about something new declares it on its
 * Domain (`notificationTypes`; the type is the event-style name it passes to
 * notify()); the catalog collects them (Deps.catalog.notificationTypes).
 * Types not declared still work, with in-app on and email off, and can be
 * set by name.
 */
import type { Deps } from "../../core/context";

export type { NotificationType } from "../../mcp/define";

/** `card.assigned`, `message`, `agent.report_ready`: lower-case words, dot-separated. */
export const TYPE_RE = /^[a-z][a-z0-9_]{0,39}(\.[a-z][a-z0-9_]{0,39}){0,3}$/;

export function typeDefaults(deps: Deps, type: string): { inApp: boolean; email: boolean } {
  const t = deps.catalog.notificationTypes.get(type);
  return t ? { inApp: t.inApp, email: t.email } : { inApp: true, email: false };
}

export function typeLabel(deps: Deps, type: string): string {
  return deps.catalog.notificationTypes.get(type)?.label ?? type;
}
