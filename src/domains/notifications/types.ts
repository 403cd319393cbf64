/**
 * The notification types people can set preferences for, with their
 * defaults. A domain that notifies about something new adds one line here
 * (the type is the event-style name it passes to notify()); types not listed
 * still work, with in-app on and email off, and can be set by name.
 */
export interface NotificationType {
  type: string;
  /** What a person reads next to the switch. */
  label: string;
  inApp: boolean;
  email: boolean;
}

export const NOTIFICATION_TYPES: readonly NotificationType[] = [
  { type: "approval.decided", label: "An approval you asked for was approved or rejected", inApp: true, email: true },
  { type: "invitation.accepted", label: "Someone accepted your invitation to the team", inApp: true, email: false },
  { type: "card.assigned", label: "You were assigned a card", inApp: true, email: true },
  { type: "comment.mentioned", label: "You were mentioned in a comment", inApp: true, email: true },
  { type: "ticket.assigned", label: "A ticket was assigned to you", inApp: true, email: true },
  { type: "ticket.sla_breached", label: "A ticket you own breached its SLA", inApp: true, email: true },
  { type: "booking.created", label: "Someone booked time with you", inApp: true, email: true },
  { type: "booking.rescheduled", label: "A booking with you was moved", inApp: true, email: true },
  { type: "booking.cancelled", label: "A booking with you was cancelled", inApp: true, email: true },
  { type: "hosting.incident_opened", label: "A site domain went down", inApp: true, email: true },
  { type: "hosting.incident_resolved", label: "A site domain is back up", inApp: true, email: true },
  { type: "hosting.certificate_problem", label: "A site's TLS certificate is expiring, expired or invalid", inApp: true, email: true },
  { type: "invoice.overdue", label: "An invoice became overdue", inApp: true, email: true },
  { type: "credits.budget_threshold", label: "Your company's AI credit spending reached a budget threshold", inApp: true, email: true },
  { type: "credits.paused", label: "Work stopped for want of AI credits (a campaign paused)", inApp: true, email: true },
  { type: "webhook.disabled", label: "An outgoing webhook was disabled after failing", inApp: true, email: true },
  { type: "automation.failed", label: "An automation you made failed", inApp: true, email: true },
  { type: "automation.message", label: "Messages from automations", inApp: true, email: false },
  { type: "message", label: "Messages from your team and its agents", inApp: true, email: false },
];

const BY_TYPE = new Map(NOTIFICATION_TYPES.map((t) => [t.type, t]));

/** `card.assigned`, `message`, `agent.report_ready`: lower-case words, dot-separated. */
export const TYPE_RE = /^[a-z][a-z0-9_]{0,39}(\.[a-z][a-z0-9_]{0,39}){0,3}$/;

export function typeDefaults(type: string): { inApp: boolean; email: boolean } {
  const t = BY_TYPE.get(type);
  return t ? { inApp: t.inApp, email: t.email } : { inApp: true, email: false };
}

export function typeLabel(type: string): string {
  return BY_TYPE.get(type)?.label ?? type;
}
