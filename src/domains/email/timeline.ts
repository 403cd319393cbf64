/**
 * What the email domain shows on a CRM timeline (crm/activities.ts): the
 * mail a company sent to some addresses and what became of it — delivered,
 * opened, clicked, bounced (at SMTP time or by a later report), complained,
 * soft-bounced, unsubscribed. Read from the send rows and feedback reports
 * the email domain owns; the CRM keeps no copy. Test sends are left out.
 *
 * @public Serves crm (the email part of a contact's timeline).
 */
import { and, desc, eq, inArray, ne } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { authorize } from "../../core/scopes";
import { emailCampaigns, emailFeedback, emailSends } from "./tables";

export interface EmailTimelineItem {
  at: string;
  type:
    | "email_sent"
    | "email_opened"
    | "email_clicked"
    | "email_bounced"
    | "email_soft_bounced"
    | "email_complained"
    | "email_unsubscribed";
  email: string;
  sendId: number | null;
  kind: string | null;
  campaignId: number | null;
  campaign: string | null;
  subject: string | null;
  status?: string | null;
}

/**
 * The newest `limit` events about these addresses in the caller's company,
 * newest first. Needs email:read (throws forbidden without it).
 */
export async function emailTimeline(ctx: ActorContext, emails: string[], limit: number): Promise<EmailTimelineItem[]> {
  authorize(ctx, "email:read", { write: false });
  const addrs = [...new Set(emails.map((e) => e.toLowerCase()))].slice(0, 50);
  if (!addrs.length || limit < 1) return [];
  const db = ctx.deps.db;
  const sends = await db
    .select({ s: emailSends, campaign: emailCampaigns.name, campaignSubject: emailCampaigns.subject })
    .from(emailSends)
    .leftJoin(emailCampaigns, eq(emailCampaigns.id, emailSends.campaignId))
    .where(and(eq(emailSends.companyId, ctx.company.id), inArray(emailSends.email, addrs), ne(emailSends.kind, "test")))
    .orderBy(desc(emailSends.id))
    .limit(limit);
  const reports = await db
    .select()
    .from(emailFeedback)
    .where(and(eq(emailFeedback.companyId, ctx.company.id), inArray(emailFeedback.email, addrs)))
    .orderBy(desc(emailFeedback.receivedAt))
    .limit(limit);
  const bySend = new Map(sends.map((r) => [r.s.id, r]));
  const reported = new Set(reports.filter((f) => f.kind === "hard_bounce" && f.sendId !== null).map((f) => f.sendId!));
  const items: EmailTimelineItem[] = [];
  for (const { s, campaign, campaignSubject } of sends) {
    const base = {
      email: s.email,
      sendId: s.id,
      kind: s.kind,
      campaignId: s.campaignId,
      campaign,
      subject: s.subject ?? campaignSubject,
    };
    const push = (at: Date | null, type: EmailTimelineItem["type"], extra: Partial<EmailTimelineItem> = {}) =>
      at && items.push({ at: iso(at)!, type, ...base, ...extra });
    push(s.sentAt, "email_sent");
    push(s.openedAt, "email_opened");
    push(s.clickedAt, "email_clicked");
    push(s.unsubscribedAt, "email_unsubscribed");
    // Refused at SMTP time (no report row): the bounce is the last attempt.
    if (s.status === "bounced" && !reported.has(s.id))
      push(s.lastAttemptAt ?? s.updatedAt, "email_bounced", { status: s.smtpResponse?.slice(0, 200) ?? null });
  }
  for (const f of reports) {
    const r = f.sendId === null ? undefined : bySend.get(f.sendId);
    items.push({
      at: iso(f.receivedAt)!,
      type:
        f.kind === "complaint" ? "email_complained" : f.kind === "soft_bounce" ? "email_soft_bounced" : "email_bounced",
      email: f.email,
      sendId: f.sendId,
      kind: r?.s.kind ?? null,
      campaignId: f.campaignId,
      campaign: r?.campaign ?? null,
      subject: r ? (r.s.subject ?? r.campaignSubject) : null,
      status: f.status,
    });
  }
  items.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  return items.slice(0, limit);
}
