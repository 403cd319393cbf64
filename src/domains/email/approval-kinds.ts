/**
 * `email_campaign` as an approvable kind: the reviewer sees the message as
 * the first recipient would get it (variables filled from a real
 * subscriber, or a sample), at desktop width and at phone width, with the
 * subject, preheader, sender (with a warning when its domain has no DKIM
 * key or failed its last check), lists, segments and how many people it
 * would reach now. Approving makes the campaign sendable (status draft,
 * approved); rejecting leaves it an unsendable draft. Nothing is sent or
 * scheduled by the decision itself: that is email_campaigns_send/_schedule,
 * which need email:send.
 */
import { eq, inArray } from "drizzle-orm";
import { emit } from "../../core/events";
import { conflict } from "../../core/errors";
import { escapeHtml } from "../../core/public-page";
import type { ApprovalKind, ApprovalLink, ApprovalSupport } from "../approvals/kinds";
import { effectiveStatus } from "../approvals/links";
import { summarize } from "../approvals/preview";
import { audienceOf } from "./campaigns";
import { publicBase, type CampaignRow } from "./access";
import { campaignApproved, campaignRejected } from "./events";
import { bodyOf, renderCampaignMessage } from "./render";
import { sendingWarnings } from "./sending-domains";
import { emailLists, emailCampaigns, emailSegments } from "./tables";
import type { Tx } from "../../core/db";

async function campaignOf(db: Tx, link: ApprovalLink): Promise<CampaignRow | undefined> {
  if (link.entityId === null) return undefined;
  return (await db.select().from(emailCampaigns).where(eq(emailCampaigns.id, link.entityId)).limit(1))[0];
}

const proposalOf = (link: ApprovalLink): "new" | "changes" =>
  (link.payload as { proposal?: string } | null)?.proposal === "changes" ? "changes" : "new";

export const EMAIL_PREVIEW_CSS = [
  ".em-prev{display:flex;flex-wrap:wrap;gap:1.5rem;align-items:flex-start}",
  ".em-frame{border:1px solid #d1d5db;border-radius:.5rem;overflow:hidden;background:#fff;color:#111827}",
  ".em-frame>h3{margin:0;padding:.4rem .75rem;font:600 .8rem system-ui,sans-serif;background:#f3f4f6;color:#374151}",
  ".em-desktop{width:640px;max-width:100%}.em-narrow{width:360px}",
  ".em-head{padding:.5rem .75rem;border-bottom:1px solid #e5e7eb;font:.85rem system-ui,sans-serif}",
  ".em-body{padding:0;overflow-x:auto;overflow-wrap:anywhere}.em-body img{max-width:100%;height:auto}",
  ".em-narrow .em-body table{width:100%!important}",
  ".em-text{white-space:pre-wrap;font:.8rem ui-monospace,monospace;padding:.75rem;border-top:1px solid #e5e7eb;margin:0}",
].join("\n");

export const emailApprovalKind: ApprovalKind = {
  entityType: "email_campaign",
  label: "Email campaign",

  async preview(deps, link) {
    const c = await campaignOf(deps.db, link);
    if (!c) return null;
    const { count, sample } = await audienceOf(deps.db, c, 1);
    const who = sample[0];
    const parts = renderCampaignMessage(
      { ...c, trackOpens: false, trackClicks: false },
      { name: who?.name ?? "Alex Example", email: who?.email ?? "alex@example.com", attributes: who?.attributes ?? {} },
      { unsubscribeUrl: `${publicBase(deps)}/u/preview` },
    );
    const lists = c.listIds.length
      ? await deps.db.select({ name: emailLists.name }).from(emailLists).where(inArray(emailLists.id, c.listIds))
      : [];
    const segs = c.segmentIds.length
      ? await deps.db
          .select({ name: emailSegments.name })
          .from(emailSegments)
          .where(inArray(emailSegments.id, c.segmentIds))
      : [];
    const from = c.fromEmail
      ? `${c.fromName ? `${c.fromName} ` : ""}<${c.fromEmail}>`
      : (deps.config.mailFrom ?? "(the server's From, once SMTP is configured)");
    const head = `<div class="em-head"><div><strong>From:</strong> ${escapeHtml(from)}</div><div><strong>Subject:</strong> ${escapeHtml(parts.subject)}</div>${c.preheader ? `<div><strong>Preview text:</strong> ${escapeHtml(c.preheader)}</div>` : ""}</div>`;
    const body = bodyOf(parts.html);
    const frame = (cls: string, label: string) =>
      `<section class="em-frame ${cls}" aria-label="${label}"><h3>${label}</h3>${head}<div class="em-body">${body}</div></section>`;
    const html = `<div class="em-prev">${frame("em-desktop", "Desktop (640 px)")}${frame("em-narrow", "Phone (360 px)")}</div><details><summary>Plain-text part</summary><pre class="em-text">${escapeHtml(parts.text)}</pre></details>`;
    const pending = effectiveStatus(link, deps.clock.now()) === "pending";
    const senderWarnings = await sendingWarnings(deps.db, deps, c.companyId, c.fromEmail);
    const what = proposalOf(link);
    const facts = [
      { label: "Subject", value: c.subject },
      { label: "From", value: from },
      ...(senderWarnings.length ? [{ label: "Sending domain", value: senderWarnings.join(" ") }] : []),
      ...(c.replyTo ? [{ label: "Reply-To", value: c.replyTo }] : []),
      { label: "Audience now", value: `${count} subscriber(s)` },
      { label: "Lists", value: lists.map((l) => l.name).join(", ") || "none" },
      ...(segs.length ? [{ label: "Only those in segments", value: segs.map((s) => s.name).join(", ") }] : []),
      {
        label: "Tracking",
        value: [c.trackOpens ? "opens" : null, c.trackClicks ? "clicks" : null].filter(Boolean).join(", ") || "none",
      },
      { label: "Shown with the data of", value: who ? who.email : "a sample subscriber (nobody is on the lists yet)" },
      { label: "Status", value: c.status },
    ];
    return {
      title: c.name,
      summary: summarize(link, deps.clock.now(), {
        proposal: what === "changes" ? `Changes to the campaign “${c.name}”` : "A new email campaign",
        pending: `${what === "changes" ? "A changed" : "A new"} email campaign to ${count} subscriber(s). Approving lets it be sent or scheduled; it is not sent by approving.`,
        applied: "approved for sending",
        kept: "it stays unsendable",
      }),
      facts: pending ? facts : facts.filter((f) => f.label !== "Audience now"),
      changes: [],
      html,
    };
  },

  async approve(tx, deps, link, d) {
    const c = await campaignOf(tx, link);
    if (!c) throw conflict("The campaign no longer exists.");
    if (c.status !== "pending_approval")
      throw conflict(`The campaign is ${c.status} now, so this request no longer applies.`);
    await tx
      .update(emailCampaigns)
      .set({ status: "draft", approvedAt: d.now, approvedBy: d.decidedBy.slice(0, 200), updatedAt: d.now })
      .where(eq(emailCampaigns.id, c.id));
    const audience = (await audienceOf(tx, c)).count;
    await emit(
      tx,
      { deps, company: { id: c.companyId } },
      campaignApproved,
      { id: c.id },
      { name: c.name, subject: c.subject, decidedBy: d.decidedBy, audience },
    );
    return { campaignId: c.id, status: "draft", approved: true, audience };
  },

  async reject(tx, deps, link, d) {
    const c = await campaignOf(tx, link);
    if (!c) return;
    if (c.status === "pending_approval")
      await tx
        .update(emailCampaigns)
        .set({ status: "draft", approvedAt: null, updatedAt: d.now })
        .where(eq(emailCampaigns.id, c.id));
    await emit(
      tx,
      { deps, company: { id: c.companyId } },
      campaignRejected,
      { id: c.id },
      { name: c.name, subject: c.subject, decidedBy: d.decidedBy, comment: d.comment },
    );
  },
};

export const emailApprovalSupport: ApprovalSupport = {
  previewCss: async () => EMAIL_PREVIEW_CSS,
};
