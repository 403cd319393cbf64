/**
 * Campaigns: drafted by agents, approved by people, sent by the delivery job.
 *
 * States: create/update → pending_approval (an approval link, entity type
 * email_campaign); approve → draft with `approved: true` (ready); reject →
 * draft, unapproved. Only an approved draft can be sent (→ sending) or
 * scheduled (→ scheduled → sending at its time); sending ⇄ paused;
 * scheduled/sending/paused → cancelled; sending → sent when every recipient
 * is done. Any change to content or audience needs approval again, and is
 * refused once sending started.
 *
 * Sending needs email:send on top of email:write, and a configured SMTP
 * server: without one a send is refused with how to configure it, never
 * queued to vanish.
 */
import { and, count, desc, eq, gt, inArray, notInArray, sum } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { conflict, forbidden, invalid } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { containsText } from "../../core/sql";
import { memberships, users } from "../../core/tables";
import { approvalState, latestLinkFor, mintLink, withdrawLinks, type ApprovalEnvelope } from "../approvals/links";
import { isTimeZone, wallToInstant } from "../bookings/zoned";
import { audienceSize } from "./audience";
import { sendingWarnings } from "./sending-domains";
import {
  campaignIn,
  listsIn,
  NO_SMTP,
  normalEmail,
  publicBase,
  segmentIn,
  smtpReady,
  templateIn,
  type CampaignRow,
  type CampaignStatus,
} from "./access";
import { meter } from "../ai/meter";
import { DEFAULT_RATE_PER_MINUTE, inFlight, payForRecipients, queueSend, refundUnsent, segmentRules } from "./delivery";
import { campaignCreated, campaignDeleted, campaignStatusChanged, campaignUpdated, testSent } from "./events";
import { renderCampaignMessage } from "./render";
import { checkAttributes } from "./subscribers";
import { cleanContent, templateText } from "./templates";
import { emailCampaigns, emailFeedback, emailSends, emailSubscribers } from "./tables";
import type { Tx } from "../../core/db";

export interface CampaignFields {
  name?: string;
  subject?: string;
  preheader?: string | null;
  fromName?: string | null;
  fromEmail?: string | null;
  replyTo?: string | null;
  templateId?: number;
  html?: string;
  text?: string | null;
  listIds?: number[];
  segmentIds?: number[];
  trackOpens?: boolean;
  trackClicks?: boolean;
  ratePerMinute?: number;
}

const CONTENT_FIELDS: (keyof CampaignFields)[] = [
  "name",
  "subject",
  "preheader",
  "fromName",
  "fromEmail",
  "replyTo",
  "templateId",
  "html",
  "text",
  "listIds",
  "segmentIds",
  "trackOpens",
  "trackClicks",
  "ratePerMinute",
];

export async function audienceOf(db: Tx, c: Pick<CampaignRow, "companyId" | "listIds" | "segmentIds">, sample = 0) {
  return audienceSize(db, c.companyId, c.listIds, await segmentRules(db, c.companyId, c.segmentIds), sample);
}

function compact(c: CampaignRow, extra: Record<string, unknown> = {}) {
  return { id: c.id, name: c.name, status: c.status, approved: c.approvedAt !== null, ...extra };
}

/** Content, audience and options checked against the company; template content copied in. */
async function resolve(tx: Tx, ctx: ActorContext, i: CampaignFields, base: CampaignRow | null) {
  const warnings: string[] = [];
  const out: Partial<CampaignRow> = {};
  if (i.listIds !== undefined) {
    if (i.listIds.length === 0)
      throw invalid("A campaign goes to at least one list (listIds); segments narrow it.", { path: "listIds" });
    out.listIds = (await listsIn(tx, ctx, i.listIds)).map((l) => l.id);
  }
  if (i.segmentIds !== undefined) {
    for (const s of new Set(i.segmentIds)) await segmentIn(tx, ctx, s, "segmentIds");
    out.segmentIds = [...new Set(i.segmentIds)];
  }
  if (i.templateId !== undefined) {
    if (i.html !== undefined) throw invalid("Give templateId or html, not both.", { path: "html" });
    const t = await templateIn(tx, ctx, i.templateId, "templateId");
    out.templateId = t.id;
    out.html = t.html;
    out.text = i.text ? i.text : templateText(t);
  } else if (i.html !== undefined) {
    const c = cleanContent(i.html, i.text);
    warnings.push(...c.warnings);
    out.templateId = null;
    out.html = c.html;
    out.text = c.text ?? templateText({ html: c.html, text: null });
  } else if (i.text !== undefined && base) {
    out.text = i.text ?? templateText({ html: base.html, text: null });
  } else if (!base)
    throw invalid("Give the content: templateId, or html (and optionally text).", { path: "templateId" });
  for (const k of ["fromEmail", "replyTo"] as const) {
    const val = i[k];
    if (val !== undefined) out[k] = val === null ? null : normalEmail(val, k);
  }
  for (const k of ["name", "subject", "preheader", "fromName"] as const) {
    const val = i[k];
    if (val !== undefined)
      (out as Record<string, unknown>)[k] = val === null ? null : val.replace(/[\r\n\t]+/g, " ").trim();
  }
  if (i.trackOpens !== undefined) out.trackOpens = i.trackOpens;
  if (i.trackClicks !== undefined) out.trackClicks = i.trackClicks;
  if (i.ratePerMinute !== undefined) out.ratePerMinute = i.ratePerMinute;
  if (out.html && !/\{\{\s*unsubscribe_url\b/.test(out.html))
    warnings.push(
      "The HTML has no {{ unsubscribe_url }}: a footer with the unsubscribe link is added to every message.",
    );
  return { set: out, warnings };
}

async function campaignLink(
  ctx: ActorContext,
  tx: Tx,
  c: CampaignRow,
  proposal: "new" | "changes",
): Promise<ApprovalEnvelope> {
  return mintLink(tx, ctx, {
    linkType: "entity",
    entityType: "email_campaign",
    entityId: c.id,
    siteId: null,
    title: `${c.name}: ${c.subject}`,
    payload: { proposal },
  });
}

export async function createCampaign(
  ctx: ActorContext,
  i: CampaignFields & { name: string; subject: string; listIds: number[] },
) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const { set, warnings } = await resolve(tx, ctx, { segmentIds: [], ...i }, null);
    const now = ctx.deps.clock.now();
    const c = (
      await tx
        .insert(emailCampaigns)
        .values({
          companyId: ctx.company.id,
          name: set.name!,
          subject: set.subject!,
          preheader: set.preheader ?? null,
          fromName: set.fromName ?? null,
          fromEmail: set.fromEmail ?? null,
          replyTo: set.replyTo ?? null,
          templateId: set.templateId ?? null,
          html: set.html!,
          text: set.text!,
          listIds: set.listIds!,
          segmentIds: set.segmentIds ?? [],
          status: "pending_approval",
          trackOpens: set.trackOpens ?? false,
          trackClicks: set.trackClicks ?? false,
          ratePerMinute: set.ratePerMinute ?? DEFAULT_RATE_PER_MINUTE,
          createdByUserId: ctx.principal.userId,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    const approval = await campaignLink(ctx, tx, c, "new");
    await audit(tx, ctx, "email.campaigns.create", {
      type: "email_campaign",
      id: c.id,
      detail: { name: c.name, approvalId: approval.id },
    });
    await emit(
      tx,
      ctx,
      campaignCreated,
      { id: c.id },
      {
        name: c.name,
        subject: c.subject,
        listIds: c.listIds,
        segmentIds: c.segmentIds,
        approvalId: approval.id,
        createdByUserId: ctx.principal.userId,
      },
    );
    const audience = (await audienceOf(tx, c)).count;
    return compact(c, { audience, approval, ...(warnings.length ? { warnings } : {}) });
  });
}

export async function updateCampaign(ctx: ActorContext, i: CampaignFields & { id: number }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    if (!["draft", "pending_approval", "scheduled"].includes(c.status))
      throw conflict(
        `Campaign ${c.id} is ${c.status}; only a draft, pending or scheduled campaign can change (duplicate it with email_campaigns_create instead).`,
      );
    const { set, warnings } = await resolve(tx, ctx, i, c);
    const fields = CONTENT_FIELDS.filter(
      (k) =>
        i[k] !== undefined &&
        JSON.stringify((set as Record<string, unknown>)[k === "templateId" ? "templateId" : k]) !==
          JSON.stringify((c as Record<string, unknown>)[k]),
    );
    if (set.html !== undefined && set.html !== c.html && !fields.includes("html")) fields.push("html");
    const now = ctx.deps.clock.now();
    const next = (
      await tx
        .update(emailCampaigns)
        .set({
          ...set,
          status: "pending_approval",
          approvedAt: null,
          approvedBy: null,
          scheduledAt: null,
          timeZone: null,
          updatedAt: now,
        })
        .where(eq(emailCampaigns.id, c.id))
        .returning()
    )[0]!;
    if (c.status === "scheduled")
      warnings.push("The schedule was removed: schedule again once the changes are approved.");
    const approval = await campaignLink(ctx, tx, next, "changes");
    await audit(tx, ctx, "email.campaigns.update", {
      type: "email_campaign",
      id: c.id,
      detail: { fields, approvalId: approval.id },
    });
    await emit(
      tx,
      ctx,
      campaignUpdated,
      { id: c.id },
      { name: next.name, subject: next.subject, fields, approvalId: approval.id, userId: ctx.principal.userId },
    );
    return compact(next, { changed: fields, approval, ...(warnings.length ? { warnings } : {}) });
  });
}

export async function deleteCampaign(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    const sent = (
      await tx
        .select({ n: count() })
        .from(emailSends)
        .where(
          and(
            eq(emailSends.campaignId, c.id),
            eq(emailSends.kind, "campaign"),
            inArray(emailSends.status, ["sent", "bounced"]),
          ),
        )
    )[0]!.n;
    if (["scheduled", "sending", "paused"].includes(c.status))
      throw conflict(`Campaign ${c.id} is ${c.status}; cancel it first.`);
    if (sent > 0)
      throw conflict(`Campaign ${c.id} reached ${sent} recipient(s); it is kept for its stats and history.`);
    const busy = (
      await tx
        .select({ n: count() })
        .from(emailSends)
        .where(and(eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign"), eq(emailSends.status, "queued")))
    )[0]!.n;
    if (busy > 0)
      throw conflict(
        `Campaign ${c.id} still has ${busy} message(s) with the mail server; delete it in a minute, once they are done.`,
      );
    // A campaign paid for when scheduled, then edited back to a draft and deleted, gets its credits back.
    await refundUnsent(tx, ctx.deps, c, ctx.principal.userId);
    await withdrawLinks(tx, ctx.company.id, "email_campaign", c.id, ctx.deps.clock.now());
    await tx.delete(emailSends).where(eq(emailSends.campaignId, c.id));
    await tx.delete(emailCampaigns).where(eq(emailCampaigns.id, c.id));
    await audit(tx, ctx, "email.campaigns.delete", { type: "email_campaign", id: c.id, detail: { name: c.name } });
    await emit(tx, ctx, campaignDeleted, { id: c.id }, { name: c.name, subject: c.subject });
    return { id: c.id, status: "deleted" as const };
  });
}

export async function listCampaigns(
  ctx: ActorContext,
  i: { status?: CampaignStatus; search?: string; limit: number; offset: number },
) {
  authorize(ctx, "email:read", { write: false });
  const where = and(
    eq(emailCampaigns.companyId, ctx.company.id),
    i.status ? eq(emailCampaigns.status, i.status) : undefined,
    i.search ? containsText(emailCampaigns.name, i.search) : undefined,
  );
  const total = (await ctx.deps.db.select({ n: count() }).from(emailCampaigns).where(where))[0]!.n;
  const rows = await ctx.deps.db
    .select()
    .from(emailCampaigns)
    .where(where)
    .orderBy(desc(emailCampaigns.id))
    .limit(i.limit)
    .offset(i.offset);
  return page(
    rows.map((c) =>
      compact(c, {
        subject: c.subject,
        listIds: c.listIds,
        segmentIds: c.segmentIds,
        scheduledAt: iso(c.scheduledAt),
        recipients: c.recipientCount,
        startedAt: iso(c.startedAt),
        finishedAt: iso(c.finishedAt),
      }),
    ),
    total,
    i.limit,
    i.offset,
  );
}

export async function getCampaign(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  const c = await campaignIn(db, ctx, i.id);
  const link = await latestLinkFor(db, ctx.company.id, "email_campaign", c.id);
  const audience = ["sent", "cancelled"].includes(c.status) ? null : (await audienceOf(db, c)).count;
  return {
    ...compact(c),
    subject: c.subject,
    preheader: c.preheader,
    fromName: c.fromName,
    fromEmail: c.fromEmail ?? ctx.deps.config.mailFrom,
    replyTo: c.replyTo,
    templateId: c.templateId,
    html: c.html,
    text: c.text,
    listIds: c.listIds,
    segmentIds: c.segmentIds,
    trackOpens: c.trackOpens,
    trackClicks: c.trackClicks,
    ratePerMinute: c.ratePerMinute,
    audience,
    recipients: c.recipientCount,
    approvedAt: iso(c.approvedAt),
    approvedBy: c.approvedBy,
    scheduledAt: iso(c.scheduledAt),
    timeZone: c.timeZone,
    startedAt: iso(c.startedAt),
    finishedAt: iso(c.finishedAt),
    approvalState: approvalState(link, ctx.deps.clock.now()),
  };
}

// ---------------------------------------------------------------- sending

function sendAuth(ctx: ActorContext) {
  authorize(ctx, "email:write", { write: true });
  authorize(ctx, "email:send", { write: true });
}

async function transition(
  tx: Tx,
  ctx: ActorContext,
  c: CampaignRow,
  to: CampaignStatus,
  set: Partial<CampaignRow> = {},
) {
  const now = ctx.deps.clock.now();
  const won = await tx
    .update(emailCampaigns)
    .set({ ...set, status: to, updatedAt: now })
    .where(and(eq(emailCampaigns.id, c.id), eq(emailCampaigns.status, c.status)))
    .returning();
  if (won.length === 0) throw conflict(`Campaign ${c.id} changed meanwhile; read it again.`);
  const next = won[0]!;
  await audit(tx, ctx, `email.campaigns.${to}`, { type: "email_campaign", id: c.id, detail: { from: c.status, to } });
  await emit(
    tx,
    ctx,
    campaignStatusChanged,
    { id: c.id },
    {
      name: c.name,
      subject: c.subject,
      from: c.status as CampaignStatus,
      to,
      scheduledAt: iso(next.scheduledAt),
      userId: ctx.principal.userId,
    },
  );
  return next;
}

function requireApproved(c: CampaignRow, what: string) {
  if (c.approvedAt === null || c.status === "pending_approval")
    throw conflict(
      `Campaign ${c.id} is not approved${c.status === "pending_approval" ? " yet (its approval link is waiting for a person)" : ""}; it cannot be ${what}. Approval comes from the link returned by email_campaigns_create/update.`,
    );
}

export async function sendCampaign(ctx: ActorContext, i: { id: number }) {
  sendAuth(ctx);
  if (!smtpReady(ctx.deps)) throw conflict(NO_SMTP);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    requireApproved(c, "sent");
    if (c.status !== "draft" && c.status !== "scheduled")
      throw conflict(
        `Campaign ${c.id} is ${c.status}; only an approved draft or a scheduled campaign can be sent now.`,
      );
    const audience = (await audienceOf(tx, c)).count;
    if (audience === 0)
      throw conflict(
        `Campaign ${c.id} has no recipients: nobody is subscribed to its lists${c.segmentIds.length ? " within its segments" : ""}.`,
      );
    // Metered companies pay per recipient now (a scheduled campaign paid when scheduled): a refusal leaves it unsent.
    const paid = await payForRecipients(tx, ctx.deps, c, audience, ctx.principal.userId);
    const next = await transition(tx, ctx, c, "sending", { startedAt: ctx.deps.clock.now(), scheduledAt: null });
    // The sending domain's state is said, never enforced: the decision to send stays the sender's.
    const warnings = await sendingWarnings(tx, ctx.deps, c.companyId, c.fromEmail);
    return compact(next, {
      audience,
      ...(paid ? { credits: paid.credits, creditBalance: paid.balanceAfter } : {}),
      ...(warnings.length ? { warnings } : {}),
    });
  });
}

/** An instant from `at`: ISO with Z or an offset, or a local date-time read in `timeZone`. */
export function scheduleInstant(at: string, timeZone: string | undefined): Date {
  if (/(Z|[+-]\d\d:?\d\d)$/i.test(at)) {
    const ms = Date.parse(at);
    if (Number.isNaN(ms)) throw invalid(`Not a date-time: "${at.slice(0, 60)}".`, { path: "at" });
    return new Date(ms);
  }
  if (!timeZone)
    throw invalid("A local time needs timeZone (e.g. Europe/Berlin), or give at with Z or an offset.", {
      path: "timeZone",
    });
  if (!isTimeZone(timeZone)) throw invalid(`Unknown time zone "${timeZone.slice(0, 60)}".`, { path: "timeZone" });
  let wall: Temporal.PlainDateTime;
  try {
    wall = Temporal.PlainDateTime.from(at);
  } catch {
    throw invalid(`Not a local date-time (YYYY-MM-DDTHH:MM): "${at.slice(0, 60)}".`, { path: "at" });
  }
  const ms = wallToInstant(wall, timeZone, "start");
  if (ms === null)
    throw invalid(`${at} does not exist in ${timeZone} (the clocks skip it); choose another time.`, { path: "at" });
  return new Date(ms);
}

export async function scheduleCampaign(ctx: ActorContext, i: { id: number; at: string; timeZone?: string }) {
  sendAuth(ctx);
  if (!smtpReady(ctx.deps)) throw conflict(NO_SMTP);
  const when = scheduleInstant(i.at, i.timeZone);
  const now = ctx.deps.clock.now();
  if (when.getTime() <= now.getTime())
    throw invalid(`${when.toISOString()} is in the past; use email_campaigns_send to send now.`, { path: "at" });
  if (when.getTime() > now.getTime() + 366 * 86_400_000)
    throw invalid("Schedule at most a year ahead.", { path: "at" });
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    requireApproved(c, "scheduled");
    if (c.status !== "draft" && c.status !== "scheduled")
      throw conflict(`Campaign ${c.id} is ${c.status}; only an approved draft can be scheduled.`);
    // Paid when scheduled, so a want of credits shows now rather than at the send time; growth is paid as recipients are queued.
    const paid = await payForRecipients(tx, ctx.deps, c, (await audienceOf(tx, c)).count, ctx.principal.userId);
    const next = await transition(tx, ctx, c, "scheduled", { scheduledAt: when, timeZone: i.timeZone ?? null });
    const warnings = await sendingWarnings(tx, ctx.deps, c.companyId, c.fromEmail);
    return compact(next, {
      scheduledAt: iso(when),
      timeZone: next.timeZone,
      ...(paid ? { credits: paid.credits, creditBalance: paid.balanceAfter } : {}),
      ...(warnings.length ? { warnings } : {}),
    });
  });
}

export async function pauseCampaign(ctx: ActorContext, i: { id: number }) {
  sendAuth(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    if (c.status === "paused") return compact(c);
    if (c.status !== "sending" && c.status !== "scheduled")
      throw conflict(`Campaign ${c.id} is ${c.status}; only a sending or scheduled campaign can be paused.`);
    return compact(await transition(tx, ctx, c, "paused"));
  });
}

export async function resumeCampaign(ctx: ActorContext, i: { id: number }) {
  sendAuth(ctx);
  if (!smtpReady(ctx.deps)) throw conflict(NO_SMTP);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    if (c.status !== "paused") throw conflict(`Campaign ${c.id} is ${c.status}; only a paused campaign resumes.`);
    const now = ctx.deps.clock.now();
    const backToSchedule = c.startedAt === null && c.scheduledAt !== null && c.scheduledAt.getTime() > now.getTime();
    const next = await transition(
      tx,
      ctx,
      c,
      backToSchedule ? "scheduled" : "sending",
      backToSchedule ? {} : { startedAt: c.startedAt ?? now },
    );
    return compact(next, { scheduledAt: iso(next.scheduledAt) });
  });
}

export async function cancelCampaign(ctx: ActorContext, i: { id: number }) {
  sendAuth(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    if (!["scheduled", "sending", "paused"].includes(c.status))
      throw conflict(`Campaign ${c.id} is ${c.status}; only a scheduled, sending or paused campaign can be cancelled.`);
    const now = ctx.deps.clock.now();
    const next = await transition(tx, ctx, c, "cancelled", { finishedAt: now });
    const mine = and(eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign"), eq(emailSends.status, "queued"));
    // Messages the delivery job is handing to the mail server this moment are left to it: it records how
    // they ended and settles their credits then (refundUnsent), so a message that did go out is never refunded.
    const held = (
      await tx
        .select({
          id: emailSends.id,
          attempts: emailSends.attempts,
          lastAttemptAt: emailSends.lastAttemptAt,
          nextAttemptAt: emailSends.nextAttemptAt,
        })
        .from(emailSends)
        .where(and(mine, gt(emailSends.attempts, 0), gt(emailSends.nextAttemptAt, now)))
    )
      .filter((r) => inFlight(r, now))
      .map((r) => r.id);
    const dropped = await tx
      .update(emailSends)
      .set({ status: "cancelled", smtpResponse: "Not sent: the campaign was cancelled.", updatedAt: now })
      .where(and(mine, held.length ? notInArray(emailSends.id, held) : undefined))
      .returning({ id: emailSends.id });
    // Recipients paid for and now never sent: their credits come back in this transaction.
    const back = await refundUnsent(tx, ctx.deps, c, ctx.principal.userId);
    return compact(next, {
      notSent: dropped.length,
      ...(held.length ? { stillSending: held.length } : {}),
      ...(back ? { creditsRefunded: back.credits, creditBalance: back.balanceAfter } : {}),
    });
  });
}

export const TEST_MAX = 5;

/**
 * A test of the campaign to given addresses: "[Test]" in the subject, not
 * counted in stats. Before approval it may only go to the company's own
 * members (so an unapproved campaign cannot reach outsiders this way).
 */
export async function testCampaign(
  ctx: ActorContext,
  i: { id: number; to: string[]; name?: string; attributes?: Record<string, unknown> },
) {
  sendAuth(ctx);
  if (!smtpReady(ctx.deps)) throw conflict(NO_SMTP);
  const to = [...new Set(i.to.map((a, n) => normalEmail(a, `to[${n}]`)))];
  if (to.length > TEST_MAX) throw invalid(`A test goes to at most ${TEST_MAX} addresses.`, { path: "to" });
  return ctx.deps.db.transaction(async (tx) => {
    const c = await campaignIn(tx, ctx, i.id);
    if (c.approvedAt === null) {
      const members = new Set(
        (
          await tx
            .select({ email: users.email })
            .from(memberships)
            .innerJoin(users, eq(users.id, memberships.userId))
            .where(eq(memberships.companyId, ctx.company.id))
        ).map((u) => u.email.toLowerCase()),
      );
      const outsiders = to.filter((a) => !members.has(a));
      if (outsiders.length)
        throw forbidden(
          `Campaign ${c.id} is not approved: tests go only to members of ${ctx.company.name} until it is (${outsiders.join(", ")} is not one).`,
        );
    }
    const queued: number[] = [];
    for (const email of to) {
      const sub = (
        await tx
          .select()
          .from(emailSubscribers)
          .where(and(eq(emailSubscribers.companyId, ctx.company.id), eq(emailSubscribers.email, email)))
          .limit(1)
      )[0];
      const parts = renderCampaignMessage(
        { ...c, subject: `[Test] ${c.subject}`, trackOpens: false, trackClicks: false },
        {
          name: i.name ?? sub?.name ?? null,
          email,
          attributes: i.attributes ? checkAttributes(i.attributes) : (sub?.attributes ?? {}),
        },
        { unsubscribeUrl: `${publicBase(ctx.deps)}/u/test` },
      );
      const r = await queueSend(tx, ctx.deps, {
        companyId: ctx.company.id,
        kind: "test",
        campaignId: c.id,
        email,
        ...parts,
        fromName: c.fromName,
        fromEmail: c.fromEmail,
        replyTo: c.replyTo,
        tag: "email.test",
      });
      queued.push(r.id);
    }
    const paid = await meter(
      tx,
      ctx.deps,
      ctx.company.id,
      "email.send",
      queued.length,
      `campaign:${c.id}:test`,
      ctx.principal.userId,
    );
    await audit(tx, ctx, "email.campaigns.test", { type: "email_campaign", id: c.id, detail: { to } });
    await emit(tx, ctx, testSent, { id: c.id }, { name: c.name, subject: c.subject, to, userId: ctx.principal.userId });
    return {
      id: c.id,
      to,
      queued: queued.length,
      ...(paid ? { credits: paid.credits, creditBalance: paid.balanceAfter } : {}),
    };
  });
}

// ------------------------------------------------------------------ stats

export async function campaignStats(ctx: ActorContext, i: { id: number }) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  const c = await campaignIn(db, ctx, i.id);
  const mine = and(eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign"));
  const byStatus = await db
    .select({ status: emailSends.status, n: count() })
    .from(emailSends)
    .where(mine)
    .groupBy(emailSends.status);
  const n = (s: string) => byStatus.find((x) => x.status === s)?.n ?? 0;
  // Counted in the database: a campaign to 50,000 people is one row here, not 50,000.
  const t = (
    await db
      .select({
        opened: count(emailSends.openedAt),
        clicked: count(emailSends.clickedAt),
        unsub: count(emailSends.unsubscribedAt),
        opens: sum(emailSends.opens),
        clicks: sum(emailSends.clicks),
      })
      .from(emailSends)
      .where(mine)
  )[0]!;
  // Reports that came back later (feedback.ts): complaints, and soft bounces (the hard ones already turned rows to bounced).
  const fb = await db
    .select({ kind: emailFeedback.kind, n: count() })
    .from(emailFeedback)
    .where(and(eq(emailFeedback.companyId, c.companyId), eq(emailFeedback.campaignId, c.id)))
    .groupBy(emailFeedback.kind);
  const opened = t.opened;
  const clicked = t.clicked;
  const unsubscribed = t.unsub;
  const delivered = n("sent");
  const rate = (x: number) => (delivered ? Math.round((x / delivered) * 10000) / 100 : 0);
  return {
    id: c.id,
    name: c.name,
    status: c.status,
    recipients: byStatus.reduce((a, x) => a + x.n, 0),
    queued: n("queued"),
    delivered,
    bounced: n("bounced"),
    failed: n("failed"),
    cancelled: n("cancelled"),
    opened: c.trackOpens ? opened : null,
    clicked: c.trackClicks ? clicked : null,
    totalOpens: c.trackOpens ? Number(t.opens ?? 0) : null,
    totalClicks: c.trackClicks ? Number(t.clicks ?? 0) : null,
    unsubscribed,
    complained: fb.find((x) => x.kind === "complaint")?.n ?? 0,
    softBounced: fb.find((x) => x.kind === "soft_bounce")?.n ?? 0,
    openRate: c.trackOpens ? rate(opened) : null,
    clickRate: c.trackClicks ? rate(clicked) : null,
    unsubscribeRate: rate(unsubscribed),
    // Opens are counted from image loads: clients that block images are missed, and some (Apple Mail's privacy
    // protection) load every image unread. Clicks, deliveries and unsubscribes are counted exactly.
    estimated: c.trackOpens ? ESTIMATED_FIGURES : [],
    startedAt: iso(c.startedAt),
    finishedAt: iso(c.finishedAt),
  };
}

/** The stats' figures that are estimates (the open pixel), named in every stats result. */
const ESTIMATED_FIGURES = ["opened", "totalOpens", "openRate"];

export async function campaignRecipients(
  ctx: ActorContext,
  i: {
    id: number;
    status?: "queued" | "sent" | "failed" | "bounced" | "cancelled";
    search?: string;
    limit: number;
    offset: number;
  },
) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  const c = await campaignIn(db, ctx, i.id);
  const where = and(
    eq(emailSends.campaignId, c.id),
    eq(emailSends.kind, "campaign"),
    i.status ? eq(emailSends.status, i.status) : undefined,
    i.search ? containsText(emailSends.email, i.search) : undefined,
  );
  const total = (await db.select({ n: count() }).from(emailSends).where(where))[0]!.n;
  const rows = await db.select().from(emailSends).where(where).orderBy(emailSends.id).limit(i.limit).offset(i.offset);
  return page(
    rows.map((r) => ({
      subscriberId: r.subscriberId,
      email: r.email,
      status: r.status,
      attempts: r.attempts,
      sentAt: iso(r.sentAt),
      openedAt: iso(r.openedAt),
      clickedAt: iso(r.clickedAt),
      unsubscribedAt: iso(r.unsubscribedAt),
      smtpResponse: r.smtpResponse,
    })),
    total,
    i.limit,
    i.offset,
  );
}
