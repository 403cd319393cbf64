/**
 * The notification types people can set preferences for, with their
 * defaults. A domain that notifies about something new declares it on its
 * Domain (`notificationTypes`; the type is the event-style name it passes to
 * notify()); types not declared still work, with in-app on and email off,
 * and can be set by name.
 */
import type { Domain } from "../../mcp/define";

export interface NotificationType {
  type: string;
  /** What a person reads next to the switch. */
  label: string;
  inApp: boolean;
  email: boolean;
}

let byType: Map<string, NotificationType> | null = null;

function load(): Map<string, NotificationType> {
  // Required when first asked, not imported: the domain list imports this folder's tools, so a static import would be a cycle.
  const { domains } = require("../index") as { domains: Domain[] };
  if (!byType) {
    byType = new Map();
    for (const d of domains)
      for (const t of d.notificationTypes ?? []) {
        if (byType.has(t.type)) throw new Error(`notification type ${t.type} is declared twice (${d.name})`);
        byType.set(t.type, t);
      }
  }
  return byType;
}

/** Every notification type some domain declares, in the domains' order. */
export function notificationTypes(): NotificationType[] {
  return [...load().values()];
}

/** `card.assigned`, `message`, `agent.report_ready`: lower-case words, dot-separated. */
export const TYPE_RE = /^[a-z][a-z0-9_]{0,39}(\.[a-z][a-z0-9_]{0,39}){0,3}$/;

export function typeDefaults(type: string): { inApp: boolean; email: boolean } {
  const t = load().get(type);
  return t ? { inApp: t.inApp, email: t.email } : { inApp: true, email: false };
}

export function typeLabel(type: string): string {
  return load().get(type)?.label ?? type;
}
