/**
 * Bounce and complaint feedback that arrives after the SMTP conversation:
 *
 *  - raw reports, as an MTA receives them at the bounce address: RFC 3464
 *    delivery status notifications (multipart/report; report-type=
 *    delivery-status) and RFC 5965 ARF complaint reports (report-type=
 *    feedback-report), parsed with mailparser;
 *  - the JSON notifications of two common relays: Amazon SES (direct, or
 *    wrapped in an SNS notification) and Postmark (bounce and spam
 *    complaint webhooks).
 *
 * They come in through POST /e/feedback/<secret> (one secret per company,
 * stored as SHA-256, public-pages.ts) or `plinth email feedback` on stdin
 * for an MTA pipe (the CLI runs on the server: no secret, the report finds
 * its company through the message it is about).
 *
 * A report names the message it is about by its Message-ID (ours, fixed
 * at queue time) or, failing that, by the unsubscribe token in its
 * List-Unsubscribe header; relays name the recipient address. Effects:
 * a hard bounce (5.x.x, failed) marks the send bounced and the address
 * bounced on every list; a complaint marks it complained on every list and
 * blocklists it (no further mail of any kind); a soft bounce (4.x.x,
 * delayed) is recorded and counted only. Each report is applied once:
 * `reportKey` hashes what it says, under a unique index.
 */
import { and, count, desc, eq, inArray } from "drizzle-orm";
import type { simpleParser as SimpleParser } from "mailparser";
import { randomBytes } from "node:crypto";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { safeEqual, sha256Hex } from "../../core/secrets";
import { normalEmail, publicBase } from "./access";
import { feedbackReceived, feedbackSecretSet, membershipChanged } from "./events";
import { emailFeedback, emailFeedbackKeys, emailLists, emailMemberships, emailSends, emailSubscribers } from "./tables";
import type { Tx } from "../../core/db";

export type FeedbackKind = "hard_bounce" | "soft_bounce" | "complaint";
export type FeedbackFormat = "dsn" | "arf" | "ses" | "postmark";

export interface Report {
  kind: FeedbackKind;
  /** The recipient the report names (lower-cased), if it names one. */
  email: string | null;
  /** The Message-ID of our message the report is about (with angle brackets). */
  messageId: string | null;
  /** The unsubscribe token found in the original's List-Unsubscribe. */
  token: string | null;
  status: string | null;
  diagnostic: string | null;
  format: FeedbackFormat;
  /** What makes this report the same report when read again. */
  key: string;
}

export interface Parsed {
  reports: Report[];
  /** Why nothing was read (not a report, a delivery success…). */
  ignored?: string;
}

/** Largest report accepted (a DSN carries at most the original's headers or a truncated copy). */
export const MAX_REPORT_BYTES = 1024 * 1024;

export class ReportError extends Error {}

const ADDRESS = /^[^\s@<>]{1,200}@[^\s@<>]{1,253}$/;
const cleanAddress = (raw: string | undefined | null): string | null => {
  if (!raw) return null;
  // "rfc822; user@host", "<user@host>"
  const a = raw
    .replace(/^\s*rfc822\s*;/i, "")
    .trim()
    .replace(/^<|>$/g, "")
    .trim()
    .toLowerCase();
  return ADDRESS.test(a) ? a : null;
};
const cleanMessageId = (raw: string | undefined | null): string | null => {
  if (!raw) return null;
  const m = /<[^<>\s]{3,250}>/.exec(raw.trim()) ?? /^[^<>\s@]{1,200}@[^<>\s]{1,200}$/.exec(raw.trim());
  if (!m) return null;
  return m[0].startsWith("<") ? m[0] : `<${m[0]}>`;
};
const TOKEN_IN_URL = /\/e\/u\/([0-9a-f]{48})\b/;
const cut = (s: string | null | undefined, n = 500) => (s ? s.replace(/\s+/g, " ").trim().slice(0, n) : null);

/**
 * Header blocks ("Name: value" lines, continuations folded, blocks split by
 * blank lines), as message/delivery-status and feedback-report parts hold
 * them. Names lower-cased; the first value of a repeated name wins.
 */
export function headerBlocks(text: string): Map<string, string>[] {
  const blocks: Map<string, string>[] = [];
  let cur = new Map<string, string>();
  let last: string | null = null;
  for (const line of text.replace(/\r\n?/g, "\n").split("\n")) {
    if (line.trim() === "") {
      if (cur.size) blocks.push(cur);
      cur = new Map();
      last = null;
      continue;
    }
    if (/^[ \t]/.test(line) && last) {
      cur.set(last, `${cur.get(last)} ${line.trim()}`);
      continue;
    }
    const i = line.indexOf(":");
    if (i <= 0) continue;
    const name = line.slice(0, i).trim().toLowerCase();
    if (!cur.has(name)) cur.set(name, line.slice(i + 1).trim());
    last = name;
  }
  if (cur.size) blocks.push(cur);
  return blocks;
}

/** Message-ID and unsubscribe token of the original message (its headers or the whole of it). */
function original(text: string | null): { messageId: string | null; token: string | null; to: string | null } {
  if (!text) return { messageId: null, token: null, to: null };
  const head = headerBlocks(text.split(/\r?\n\r?\n/)[0] ?? "")[0] ?? new Map();
  return {
    messageId: cleanMessageId(head.get("message-id")),
    token: TOKEN_IN_URL.exec(head.get("list-unsubscribe") ?? "")?.[1] ?? null,
    to: cleanAddress(head.get("to")),
  };
}

/** Reads one raw RFC 5322 message: a DSN or an ARF report gives reports; anything else is ignored. */
export async function parseRawReport(raw: string | Buffer): Promise<Parsed> {
  const bytes = typeof raw === "string" ? Buffer.from(raw) : raw;
  if (bytes.length === 0) throw new ReportError("The message is empty.");
  if (bytes.length > MAX_REPORT_BYTES) throw new ReportError(`The message is larger than ${MAX_REPORT_BYTES} bytes.`);
  // mailparser (~35 MB of RSS with its dependencies) loads with the first report.
  const { simpleParser }: { simpleParser: typeof SimpleParser } = await import("mailparser");
  let mail;
  try {
    mail = await simpleParser(bytes, {
      keepDeliveryStatus: true,
      ignoreEmbedded: true,
      skipHtmlToText: true,
      skipTextToHtml: true,
      skipImageLinks: true,
      checksumAlgo: false,
      maxChildNodes: 50,
      maxHeadSize: 256 * 1024,
    });
  } catch (e) {
    throw new ReportError(
      `The message could not be parsed: ${e instanceof Error ? e.message.slice(0, 200) : "unknown error"}.`,
    );
  }
  const ct = mail.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  if (!ct || typeof ct !== "object" || ct.value?.toLowerCase() !== "multipart/report")
    return { reports: [], ignored: "Not a report (multipart/report): nothing to do." };
  const type = (ct.params?.["report-type"] ?? "").toLowerCase();
  const part = (...types: string[]) =>
    mail.attachments.find((a) => types.includes(a.contentType.toLowerCase()))?.content.toString("utf8") ?? null;
  const orig = original(part("message/rfc822", "text/rfc822-headers", "message/rfc822-headers"));
  const reportId = cleanMessageId(mail.messageId) ?? sha256Hex(bytes.toString("latin1"));
  if (type === "delivery-status") {
    const status = part("message/delivery-status", "message/global-delivery-status");
    if (!status) throw new ReportError("A delivery-status report without its message/delivery-status part.");
    const [, ...recipients] = headerBlocks(status);
    const reports: Report[] = [];
    for (const r of recipients) {
      const action = (r.get("action") ?? "").toLowerCase();
      const code = /\b([245])\.\d{1,3}\.\d{1,3}\b/.exec(r.get("status") ?? "")?.[0] ?? null;
      let kind: FeedbackKind | null = null;
      if (action === "failed") kind = code?.startsWith("4") ? "soft_bounce" : "hard_bounce";
      else if (action === "delayed") kind = "soft_bounce";
      if (!kind) continue; // delivered, relayed, expanded: not a problem
      const email = cleanAddress(r.get("final-recipient")) ?? cleanAddress(r.get("original-recipient")) ?? orig.to;
      reports.push({
        kind,
        email,
        messageId: orig.messageId,
        token: orig.token,
        status: code,
        diagnostic: cut(r.get("diagnostic-code")),
        format: "dsn",
        key: sha256Hex(`dsn|${reportId}|${kind}|${email}|${orig.messageId}`),
      });
    }
    return reports.length ? { reports } : { reports, ignored: "The report lists no failed or delayed recipient." };
  }
  if (type === "feedback-report") {
    const fb = part("message/feedback-report");
    if (!fb) throw new ReportError("A feedback report without its message/feedback-report part.");
    const f = headerBlocks(fb)[0] ?? new Map<string, string>();
    const ftype = (f.get("feedback-type") ?? "").toLowerCase();
    // abuse and fraud are complaints; not-spam, virus, other are not about the recipient's consent.
    if (ftype !== "abuse" && ftype !== "fraud")
      return { reports: [], ignored: `Feedback type "${cut(ftype, 40)}" is not a complaint.` };
    const email = cleanAddress(f.get("original-rcpt-to")) ?? orig.to;
    return {
      reports: [
        {
          kind: "complaint",
          email,
          messageId: orig.messageId,
          token: orig.token,
          status: ftype,
          diagnostic: cut(f.get("user-agent"), 200),
          format: "arf",
          key: sha256Hex(`arf|${reportId}|${email}|${orig.messageId}`),
        },
      ],
    };
  }
  return { reports: [], ignored: `Report type "${cut(type, 40)}" is neither delivery-status nor feedback-report.` };
}

const obj = (x: unknown): Record<string, unknown> | null =>
  x && typeof x === "object" && !Array.isArray(x) ? (x as Record<string, unknown>) : null;
const str = (x: unknown): string | null => (typeof x === "string" ? x : null);

/** A relay's JSON notification: Amazon SES (direct or inside SNS) or Postmark. */
export function parseJsonReport(body: unknown): Parsed {
  let b = obj(body);
  if (!b) throw new ReportError("The JSON body must be an object.");
  if (b.Type === "SubscriptionConfirmation")
    return {
      reports: [],
      ignored:
        "An SNS subscription confirmation: open its SubscribeURL yourself to confirm (Plinth never fetches URLs from requests).",
    };
  if (b.Type === "Notification" && typeof b.Message === "string") {
    try {
      b = obj(JSON.parse(b.Message));
    } catch {
      throw new ReportError("The SNS Message is not JSON.");
    }
    if (!b) throw new ReportError("The SNS Message is not an object.");
  }
  const sesType = str(b.notificationType) ?? str(b.eventType);
  if (sesType) {
    const mail = obj(b.mail);
    const headers = Array.isArray(mail?.headers) ? (mail!.headers as unknown[]).map(obj) : [];
    const hdr = (n: string) => str(headers.find((h) => str(h?.name)?.toLowerCase() === n)?.value);
    const messageId = cleanMessageId(hdr("message-id"));
    const token = TOKEN_IN_URL.exec(hdr("list-unsubscribe") ?? "")?.[1] ?? null;
    const sesId = str(mail?.messageId) ?? "";
    if (sesType === "Bounce") {
      const bounce = obj(b.bounce);
      const permanent = str(bounce?.bounceType) === "Permanent";
      const list = Array.isArray(bounce?.bouncedRecipients) ? (bounce!.bouncedRecipients as unknown[]).map(obj) : [];
      const reports = list.flatMap((r): Report[] => {
        const email = cleanAddress(str(r?.emailAddress));
        if (!email) return [];
        const kind: FeedbackKind = permanent ? "hard_bounce" : "soft_bounce";
        return [
          {
            kind,
            email,
            messageId,
            token,
            status: cut(str(r?.status), 20),
            diagnostic: cut(str(r?.diagnosticCode)),
            format: "ses",
            key: sha256Hex(`ses|${str(bounce?.feedbackId)}|${sesId}|${kind}|${email}`),
          },
        ];
      });
      if (!reports.length) throw new ReportError("An SES bounce without bouncedRecipients[].emailAddress.");
      return { reports };
    }
    if (sesType === "Complaint") {
      const complaint = obj(b.complaint);
      const list = Array.isArray(complaint?.complainedRecipients)
        ? (complaint!.complainedRecipients as unknown[]).map(obj)
        : [];
      const reports = list.flatMap((r): Report[] => {
        const email = cleanAddress(str(r?.emailAddress));
        return email
          ? [
              {
                kind: "complaint",
                email,
                messageId,
                token,
                status: cut(str(complaint?.complaintFeedbackType), 40) ?? "abuse",
                diagnostic: null,
                format: "ses",
                key: sha256Hex(`ses|${str(complaint?.feedbackId)}|${sesId}|complaint|${email}`),
              },
            ]
          : [];
      });
      if (!reports.length) throw new ReportError("An SES complaint without complainedRecipients[].emailAddress.");
      return { reports };
    }
    return { reports: [], ignored: `SES notification "${cut(sesType, 40)}" is not a bounce or complaint.` };
  }
  const record = str(b.RecordType);
  if (record) {
    const email = cleanAddress(str(b.Email));
    if (!email) throw new ReportError("A Postmark notification without Email.");
    const id = `${b.ID ?? ""}|${str(b.MessageID) ?? ""}`;
    const headers = Array.isArray(b.Headers) ? (b.Headers as unknown[]).map(obj) : [];
    const messageId = cleanMessageId(str(headers.find((h) => str(h?.Name)?.toLowerCase() === "message-id")?.Value));
    if (record === "SpamComplaint")
      return {
        reports: [
          {
            kind: "complaint",
            email,
            messageId,
            token: null,
            status: "abuse",
            diagnostic: null,
            format: "postmark",
            key: sha256Hex(`postmark|${id}|complaint|${email}`),
          },
        ],
      };
    if (record === "Bounce") {
      const t = str(b.Type) ?? "";
      // Postmark's types: HardBounce, BadEmailAddress… are permanent; SoftBounce, Transient, DnsError… are not.
      const hard = ["HardBounce", "BadEmailAddress", "ManuallyDeactivated", "Blocked", "AddressChange"].includes(t);
      const kind: FeedbackKind = t === "SpamNotification" ? "complaint" : hard ? "hard_bounce" : "soft_bounce";
      return {
        reports: [
          {
            kind,
            email,
            messageId,
            token: null,
            status: cut(t, 40),
            diagnostic: cut(str(b.Description) ?? str(b.Details)),
            format: "postmark",
            key: sha256Hex(`postmark|${id}|${kind}|${email}`),
          },
        ],
      };
    }
    return { reports: [], ignored: `Postmark record "${cut(record, 40)}" is not a bounce or complaint.` };
  }
  throw new ReportError(
    "Not a notification this endpoint reads (Amazon SES or SNS, Postmark); post raw DSN/ARF messages as message/rfc822.",
  );
}

export interface Applied {
  feedbackId: number;
  kind: FeedbackKind;
  email: string;
  campaignId: number | null;
  listsChanged: number;
}
export interface ApplyResult {
  applied: Applied[];
  duplicates: number;
  /** Reports about no message or address of ours (of this company, when one is given). */
  unmatched: number;
}

/**
 * Applies reports. `companyId` (from the endpoint's secret) limits them to
 * that company's messages and subscribers; null (the CLI on the server)
 * lets a report find its company through the message it names.
 */
export async function applyReports(deps: Deps, companyId: number | null, reports: Report[]): Promise<ApplyResult> {
  const out: ApplyResult = { applied: [], duplicates: 0, unmatched: 0 };
  for (const r of reports) {
    const res = await deps.db.transaction((tx) => applyOne(tx, deps, companyId, r));
    if (res === "duplicate") out.duplicates++;
    else if (res === "unmatched") out.unmatched++;
    else out.applied.push(res);
  }
  return out;
}

async function applyOne(
  tx: Tx,
  deps: Deps,
  companyId: number | null,
  r: Report,
): Promise<Applied | "duplicate" | "unmatched"> {
  const scope = companyId === null ? undefined : eq(emailSends.companyId, companyId);
  let send = r.messageId
    ? (
        await tx
          .select()
          .from(emailSends)
          .where(and(eq(emailSends.messageId, r.messageId), scope))
          .limit(1)
      )[0]
    : undefined;
  if (!send && r.token)
    send = (
      await tx
        .select()
        .from(emailSends)
        .where(and(eq(emailSends.token, r.token), scope))
        .limit(1)
    )[0];
  // A relay names the address; a report about one of our messages trusts the address we sent to.
  const company = send?.companyId ?? companyId;
  const email = send?.email ?? r.email;
  if (company === null || !email) return "unmatched";
  const sub = send?.subscriberId
    ? (await tx.select().from(emailSubscribers).where(eq(emailSubscribers.id, send.subscriberId)).limit(1))[0]
    : (
        await tx
          .select()
          .from(emailSubscribers)
          .where(and(eq(emailSubscribers.companyId, company), eq(emailSubscribers.email, email)))
          .limit(1)
      )[0];
  if (!send && !sub) return "unmatched";
  const now = deps.clock.now();
  const row = (
    await tx
      .insert(emailFeedback)
      .values({
        companyId: company,
        kind: r.kind,
        email,
        sendId: send?.id ?? null,
        campaignId: send?.campaignId ?? null,
        subscriberId: sub?.id ?? null,
        status: r.status,
        diagnostic: r.diagnostic,
        format: r.format,
        reportKey: r.key,
        receivedAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: emailFeedback.id })
  )[0];
  if (!row) return "duplicate";
  const actor = { deps, company: { id: company } };
  if (r.kind === "hard_bounce" && send && send.status === "sent")
    await tx
      .update(emailSends)
      .set({
        status: "bounced",
        smtpResponse: cut(`${r.status ?? ""} ${r.diagnostic ?? ""} (${r.format} report)`),
        updatedAt: now,
      })
      .where(eq(emailSends.id, send.id));
  let listsChanged = 0;
  if (sub && r.kind !== "soft_bounce") {
    const to = r.kind === "hard_bounce" ? "bounced" : "complained";
    // A bounce ends active subscriptions; a complaint overrides every status but an earlier complaint.
    const from =
      r.kind === "hard_bounce"
        ? ["subscribed", "unconfirmed"]
        : ["subscribed", "unconfirmed", "unsubscribed", "bounced"];
    const mems = await tx
      .select({
        id: emailMemberships.id,
        listId: emailMemberships.listId,
        status: emailMemberships.status,
        listName: emailLists.name,
      })
      .from(emailMemberships)
      .innerJoin(emailLists, eq(emailLists.id, emailMemberships.listId))
      .where(and(eq(emailMemberships.subscriberId, sub.id), inArray(emailMemberships.status, from)));
    for (const m of mems) {
      await tx.update(emailMemberships).set({ status: to, updatedAt: now }).where(eq(emailMemberships.id, m.id));
      await emit(
        tx,
        actor,
        membershipChanged,
        { id: sub.id },
        {
          email: sub.email,
          listId: m.listId,
          listName: m.listName,
          from: m.status as "subscribed",
          to,
          source: r.kind === "complaint" ? "complaint" : "bounce",
          campaignId: send?.campaignId ?? null,
        },
      );
      listsChanged++;
    }
    if (r.kind === "complaint" && !sub.blocklisted)
      await tx
        .update(emailSubscribers)
        .set({ blocklisted: true, updatedAt: now })
        .where(eq(emailSubscribers.id, sub.id));
  }
  await emit(
    tx,
    actor,
    feedbackReceived,
    { id: row.id },
    {
      email,
      kind: r.kind,
      format: r.format,
      status: r.status,
      campaignId: send?.campaignId ?? null,
      sendId: send?.id ?? null,
      subscriberId: sub?.id ?? null,
      blocklisted: r.kind === "complaint" && !!sub,
    },
  );
  return { feedbackId: row.id, kind: r.kind, email, campaignId: send?.campaignId ?? null, listsChanged };
}

// ------------------------------------------------------------ the company's secret

export const SECRET_RE = /^efb_[A-Za-z0-9_-]{43}$/;

/** Makes (or replaces) the company's feedback secret; the answer is the only time it is shown. */
export async function newFeedbackSecret(
  tx: Tx,
  deps: Deps,
  companyId: number,
): Promise<{ secret: string; hint: string; replaced: boolean }> {
  const secret = `efb_${randomBytes(32).toString("base64url")}`;
  const hint = secret.slice(-4);
  const had =
    (
      await tx
        .select({ c: emailFeedbackKeys.companyId })
        .from(emailFeedbackKeys)
        .where(eq(emailFeedbackKeys.companyId, companyId))
        .limit(1)
    ).length > 0;
  await tx.delete(emailFeedbackKeys).where(eq(emailFeedbackKeys.companyId, companyId));
  await tx
    .insert(emailFeedbackKeys)
    .values({ companyId, secretHash: sha256Hex(secret), hint, createdAt: deps.clock.now() });
  return { secret, hint, replaced: had };
}

/** The company a secret belongs to, or null; the stored digest is compared in constant time. */
export async function companyForSecret(deps: Deps, secret: string): Promise<number | null> {
  if (!SECRET_RE.test(secret)) return null;
  const hash = sha256Hex(secret);
  const row = (
    await deps.db.select().from(emailFeedbackKeys).where(eq(emailFeedbackKeys.secretHash, hash)).limit(1)
  )[0];
  return row && safeEqual(row.secretHash, hash) ? row.companyId : null;
}

// ------------------------------------------------------------ tools

/** email_feedback_setup: a new secret and the URL to give the relay or MTA; the old secret stops working. */
export async function setupFeedback(ctx: ActorContext) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const { secret, hint, replaced } = await newFeedbackSecret(tx, ctx.deps, ctx.company.id);
    await audit(tx, ctx, "email.feedback.secret", { type: "company", id: ctx.company.id, detail: { hint, replaced } });
    await emit(tx, ctx, feedbackSecretSet, { id: ctx.company.id }, { hint, replaced });
    return {
      url: `${publicBase(ctx.deps)}/feedback/${secret}`,
      hint,
      replaced,
      accepts:
        "POST raw DSN/ARF mail (Content-Type message/rfc822) or Amazon SES/SNS and Postmark bounce/complaint JSON. Shown once: store it now.",
    };
  });
}

/** email_feedback_list: bounce and complaint reports received, newest first. */
export async function listFeedback(
  ctx: ActorContext,
  i: { kind?: FeedbackKind; email?: string; campaignId?: number; limit: number; offset: number },
) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  const where = and(
    eq(emailFeedback.companyId, ctx.company.id),
    i.kind ? eq(emailFeedback.kind, i.kind) : undefined,
    i.email ? eq(emailFeedback.email, normalEmail(i.email)) : undefined,
    i.campaignId ? eq(emailFeedback.campaignId, i.campaignId) : undefined,
  );
  const total = (await db.select({ n: count() }).from(emailFeedback).where(where))[0]!.n;
  const rows = await db
    .select()
    .from(emailFeedback)
    .where(where)
    .orderBy(desc(emailFeedback.id))
    .limit(i.limit)
    .offset(i.offset);
  return page(
    rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      email: r.email,
      campaignId: r.campaignId,
      sendId: r.sendId,
      status: r.status,
      diagnostic: r.diagnostic,
      format: r.format,
      receivedAt: iso(r.receivedAt),
    })),
    total,
    i.limit,
    i.offset,
  );
}
