/**
 * Delivery: the `email.deliver` job turns sending campaigns into send rows
 * and sends due rows over SMTP (the mail core's nodemailer transport for
 * PLINTH_SMTP_URL), at each campaign's rate, retrying with backoff.
 *
 * Exactly once per (campaign, subscriber), in three steps that each commit
 * on their own:
 *  1. queuing: recipients are inserted in batches with their cursor in the
 *     same transaction, against a unique (campaign, subscriber) index — a
 *     crash between batches resumes at the cursor, a repeated batch inserts
 *     nothing, two instances cannot both add a recipient;
 *  2. claiming: a row's attempt is written down (attempts + 1, the next
 *     attempt pushed out) before the SMTP conversation, with a conditional
 *     update only one runner can win;
 *  3. recording: the outcome is written after the server answered.
 * A crash between the server's "250" and step 3 is the one window left:
 * that row is retried after its claim lapses (90 s), with the same
 * Message-ID so receivers drop the copy. SMTP offers no way to close it.
 *
 * Every message from an address at a domain the company has a DKIM key
 * for is signed with it (sending-domains.ts); the rest go out unsigned.
 *
 * Rate: each campaign sends at most `ratePerMinute` in any 60 s window
 * (counted from the rows' last attempts, so it holds across restarts), in
 * slices of a second so the flow is even. Test sends, transactional mail
 * and confirmations go first and are not rate limited.
 */
import { and, asc, count, eq, exists, gt, inArray, isNotNull, isNull, lte, or, sql } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { emit } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { describeError, permanent, redact, sendMailRetryingDrop, transportFor, type SmtpError } from "../../core/mail";
import { randomHex } from "../../core/secrets";
import { InsufficientCredits, refundCredits } from "../ai/credits";
import { meteredBalance, meter, meteredSoFar, PRICES } from "../ai/meter";
import { notify } from "../notifications/notify";
import { memberships } from "../../core/tables";
import { audienceBatch } from "./audience";
import { fromHeader, publicBase, smtpReady, type CampaignRow } from "./access";
import { campaignSent, campaignStatusChanged, membershipChanged } from "./events";
import { renderCampaignMessage } from "./render";
import { dkimFor } from "./sending-domains";
import { checkRules, rulesSchema, type Rules } from "./segment-rules";
import { emailCampaigns, emailLists, emailMemberships, emailSegments, emailSends, emailSubscribers } from "./tables";
import * as v from "valibot";
import type { Tx } from "../../core/db";

/** Delays before the 2nd … 7th attempt; after the 7th a message is failed. */
export const SEND_RETRY_MS = [60_000, 5 * 60_000, 15 * 60_000, 3600_000, 3 * 3600_000, 6 * 3600_000] as const;
export const MAX_SEND_ATTEMPTS = SEND_RETRY_MS.length + 1;
/**
 * How long a claimed attempt may take before it is assumed lost (a crash)
 * and retried: longer than the transport's own limits (15 s connect, 15 s
 * greeting, 60 s socket), so a slow server never gets a row sent twice.
 */
export const CLAIM_MS = 90_000;
/** One run of the job works at most this long, so its lease (below) is never outlived. */
const RUN_BUDGET_MS = 20_000;
export const DEFAULT_RATE_PER_MINUTE = 600;

export type SendKind = "campaign" | "test" | "transactional" | "confirmation";

export function messageIdFor(deps: Pick<Deps, "config">): string {
  const from = deps.config.mailFrom ? /@([^\s>]+)>?\s*$/.exec(deps.config.mailFrom)?.[1] : undefined;
  const host = (from ?? new URL(deps.config.publicUrl).hostname).toLowerCase() || "plinth.invalid";
  return `<${randomHex(16)}@${host}>`;
}

export interface QueuedMessage {
  companyId: number;
  kind: Exclude<SendKind, "campaign">;
  email: string;
  subscriberId?: number | null;
  campaignId?: number | null;
  listId?: number | null;
  subject: string;
  html: string;
  text: string;
  fromName?: string | null;
  fromEmail?: string | null;
  replyTo?: string | null;
  tag: string;
  token?: string;
}

/** Queues one pre-rendered message inside the caller's transaction. */
export async function queueSend(
  tx: Pick<Tx, "insert">,
  deps: Deps,
  m: QueuedMessage,
): Promise<{ id: number; token: string; messageId: string }> {
  const now = deps.clock.now();
  const token = m.token ?? randomHex(24);
  const messageId = messageIdFor(deps);
  const row = (
    await tx
      .insert(emailSends)
      .values({
        companyId: m.companyId,
        campaignId: m.campaignId ?? null,
        subscriberId: m.subscriberId ?? null,
        listId: m.listId ?? null,
        email: m.email,
        kind: m.kind,
        status: "queued",
        nextAttemptAt: now,
        messageId,
        token,
        subject: m.subject,
        html: m.html,
        text: m.text,
        fromName: m.fromName ?? null,
        fromEmail: m.fromEmail ?? null,
        replyTo: m.replyTo ?? null,
        tag: m.tag,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: emailSends.id })
  )[0]!;
  return { id: row.id, token, messageId };
}

export async function segmentRules(db: Pick<Tx, "select">, companyId: number, ids: number[]): Promise<Rules[]> {
  if (ids.length === 0) return [];
  const rows = await db
    .select()
    .from(emailSegments)
    .where(and(eq(emailSegments.companyId, companyId), inArray(emailSegments.id, ids)));
  return rows.map((r) => checkRules(v.parse(rulesSchema, r.rules)).rules);
}

// ------------------------------------------------------------- scheduling

/** Scheduled campaigns whose time has come. */
const dueCampaigns = (now: Date) => and(eq(emailCampaigns.status, "scheduled"), lte(emailCampaigns.scheduledAt, now));

/** Scheduled campaigns whose time has come start sending. */
async function startDue(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  const due = await deps.db.select().from(emailCampaigns).where(dueCampaigns(now)).limit(50);
  for (const c of due) {
    await deps.db.transaction(async (tx) => {
      const won = await tx
        .update(emailCampaigns)
        .set({ status: "sending", startedAt: now, updatedAt: now })
        .where(
          and(
            eq(emailCampaigns.id, c.id),
            eq(emailCampaigns.status, "scheduled"),
            isNotNull(emailCampaigns.approvedAt),
          ),
        )
        .returning({ id: emailCampaigns.id });
      if (won.length === 0) return;
      await emit(
        tx,
        { deps, company: { id: c.companyId } },
        campaignStatusChanged,
        { id: c.id },
        {
          name: c.name,
          subject: c.subject,
          from: "scheduled",
          to: "sending",
          scheduledAt: c.scheduledAt?.toISOString() ?? null,
          userId: null,
        },
      );
    });
  }
}

// ---------------------------------------------------------------- credits

export const campaignRef = (id: number) => `campaign:${id}`;

/**
 * Pays, per recipient, for the part of `recipients` not paid for yet
 * (docs/email.md, "AI credits"): the audience when the campaign is sent or
 * scheduled, then any growth as recipients are queued. A no-op for a
 * company that is not metered; throws InsufficientCredits otherwise.
 */
export async function payForRecipients(
  tx: Tx,
  deps: Deps,
  c: Pick<CampaignRow, "id" | "companyId">,
  recipients: number,
  userId: number | null,
  atMost = Infinity,
) {
  if ((await meteredBalance(tx, c.companyId)) === null) return null;
  const paid = Math.floor(
    (await meteredSoFar(tx, c.companyId, "email.send", campaignRef(c.id))) / PRICES["email.send"],
  );
  return meter(tx, deps, c.companyId, "email.send", Math.min(recipients - paid, atMost), campaignRef(c.id), userId);
}

/**
 * Gives back the credits of a finished (cancelled or sent) campaign's
 * recipients that were paid for and never sent: rows cancelled (dropped by
 * the cancel, or skipped at send time because the person unsubscribed or
 * was blocklisted) and people paid for at send/schedule time who were never
 * queued (the audience shrank before queuing). Sent, bounced and failed
 * rows were handed to a mail server and stay paid; rows still queued (a
 * message in the mail server's hands while the cancel ran) count as paid
 * until their outcome is recorded, when this runs again.
 *
 * Idempotent: it computes what is owed back in total from the rows and the
 * ledger settles only the difference (refundCredits), so the cancel, the
 * delivery job and a delete may all call it. Paid at most what was debited:
 * a company metered only midway paid for fewer recipients than the rows;
 * its unsent rows are refunded up to what it paid.
 */
export async function refundUnsent(
  tx: Tx,
  deps: Deps,
  c: Pick<CampaignRow, "id" | "companyId">,
  userId: number | null = null,
) {
  if ((await meteredBalance(tx, c.companyId)) === null) return null;
  const paid = Math.floor(
    (await meteredSoFar(tx, c.companyId, "email.send", campaignRef(c.id))) / PRICES["email.send"],
  );
  if (paid === 0) return null;
  const byStatus = await tx
    .select({ status: emailSends.status, n: count() })
    .from(emailSends)
    .where(and(eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign")))
    .groupBy(emailSends.status);
  const rows = byStatus.reduce((a, x) => a + x.n, 0);
  const dropped = byStatus.find((x) => x.status === "cancelled")?.n ?? 0;
  const owed = Math.min(paid, dropped + Math.max(0, paid - rows));
  return refundCredits(tx, deps, c.companyId, "email.send", campaignRef(c.id), owed * PRICES["email.send"], {
    userId,
    note: "Recipients of the campaign that were paid for and not sent",
  });
}

/** A claim in force: a runner is talking to the mail server about this row right now (claim() pushed its next attempt exactly CLAIM_MS out). */
export function inFlight(r: Pick<SendRow, "attempts" | "lastAttemptAt" | "nextAttemptAt">, now: Date): boolean {
  return (
    r.attempts > 0 &&
    r.lastAttemptAt !== null &&
    r.nextAttemptAt.getTime() > now.getTime() &&
    r.nextAttemptAt.getTime() - r.lastAttemptAt.getTime() === CLAIM_MS
  );
}

/**
 * Cancelled campaigns whose last messages are done being in flight (their
 * claim lapsed: the runner crashed, or a retry came due): dropped now, and
 * their credits settled. The normal path settles in sendOne's record step.
 */
async function settleCancelled(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  const stale = await deps.db
    .select({ id: emailCampaigns.id, companyId: emailCampaigns.companyId })
    .from(emailCampaigns)
    .where(
      and(
        eq(emailCampaigns.status, "cancelled"),
        exists(
          deps.db
            .select({ x: emailSends.id })
            .from(emailSends)
            .where(
              and(
                eq(emailSends.campaignId, emailCampaigns.id),
                eq(emailSends.status, "queued"),
                eq(emailSends.kind, "campaign"),
                lte(emailSends.nextAttemptAt, now),
              ),
            ),
        ),
      ),
    )
    .limit(50);
  for (const c of stale)
    await deps.db.transaction(async (tx) => {
      await tx
        .update(emailSends)
        .set({ status: "cancelled", smtpResponse: "Not sent: the campaign was cancelled.", updatedAt: now })
        .where(
          and(
            eq(emailSends.campaignId, c.id),
            eq(emailSends.kind, "campaign"),
            eq(emailSends.status, "queued"),
            lte(emailSends.nextAttemptAt, now),
          ),
        );
      await refundUnsent(tx, deps, c);
    });
}

/** A campaign whose new recipients the balance cannot pay for stops (paused) and its company's owners and admins hear why. */
async function pauseForCredits(deps: Deps, campaignId: number, why: string): Promise<void> {
  await deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const won = (
      await tx
        .update(emailCampaigns)
        .set({ status: "paused", updatedAt: now })
        .where(and(eq(emailCampaigns.id, campaignId), eq(emailCampaigns.status, "sending")))
        .returning()
    )[0];
    if (!won) return;
    await emit(
      tx,
      { deps, company: { id: won.companyId } },
      campaignStatusChanged,
      { id: won.id },
      { name: won.name, subject: won.subject, from: "sending", to: "paused", scheduledAt: null, userId: null },
    );
    const people = (
      await tx
        .select({ u: memberships.userId })
        .from(memberships)
        .where(and(eq(memberships.companyId, won.companyId), inArray(memberships.role, ["owner", "admin"])))
    ).map((r) => r.u);
    if (people.length)
      await notify(deps, {
        companyId: won.companyId,
        userIds: people,
        type: "email.campaign_paused",
        title: `Campaign “${won.name.slice(0, 150)}” paused: not enough AI credits for its new recipients`,
        body: `${why}\nResume it (email_campaigns_resume) once the agency has granted more credits.`,
        link: `/email/campaigns/${won.id}`,
        entity: { type: "email_campaign", id: won.id },
      });
  });
}

/** Adds the next batch of recipients of one sending campaign; true when every recipient has a row (or it paused for credits). */
export async function queueNextBatch(deps: Deps, campaignId: number): Promise<boolean> {
  try {
    return await queueBatch(deps, campaignId);
  } catch (e) {
    if (!(e instanceof InsufficientCredits)) throw e;
    // The batch rolled back whole: nobody was queued that is not paid for.
    await pauseForCredits(deps, campaignId, e.message);
    return true;
  }
}

async function queueBatch(deps: Deps, campaignId: number): Promise<boolean> {
  return deps.db.transaction(async (tx) => {
    const c = (await tx.select().from(emailCampaigns).where(eq(emailCampaigns.id, campaignId)).limit(1))[0];
    if (!c || c.status !== "sending" || c.queuedAll) return true;
    const segments = await segmentRules(tx, c.companyId, c.segmentIds);
    const batch = await audienceBatch(tx, c.companyId, c.listIds, segments, c.queueCursor);
    const now = deps.clock.now();
    let added = 0;
    if (batch.recipients.length) {
      const rows = await tx
        .insert(emailSends)
        .values(
          batch.recipients.map((r) => ({
            companyId: c.companyId,
            campaignId: c.id,
            subscriberId: r.id,
            email: r.email,
            kind: "campaign",
            status: "queued",
            nextAttemptAt: now,
            messageId: messageIdFor(deps),
            token: randomHex(24),
            tag: `email.campaign`,
            createdAt: now,
            updatedAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ id: emailSends.id });
      added = rows.length;
      // Recipients who joined since the send was paid for are paid for here, in the batch's transaction
      // (never more than this batch: a company metered only since the campaign started pays from now on).
      if (added) await payForRecipients(tx, deps, c, c.recipientCount + added, null, added);
    }
    await tx
      .update(emailCampaigns)
      .set({
        queueCursor: batch.lastId,
        queuedAll: batch.done,
        recipientCount: sql`${emailCampaigns.recipientCount} + ${added}`,
        updatedAt: now,
      })
      .where(eq(emailCampaigns.id, c.id));
    return batch.done;
  });
}

// ---------------------------------------------------------------- sending

type SendRow = typeof emailSends.$inferSelect;

async function claim(deps: Deps, row: SendRow): Promise<boolean> {
  const now = deps.clock.now();
  const won = await deps.db.transaction(async (tx) => {
    // A campaign cancelled (or paused) since the runner looked sends nothing more; read in the claim's
    // transaction, so a cancel either sees this claim (and leaves the row to it) or makes it fail.
    if (row.kind === "campaign") {
      const st = (
        await tx
          .select({ status: emailCampaigns.status })
          .from(emailCampaigns)
          .where(eq(emailCampaigns.id, row.campaignId!))
          .limit(1)
      )[0];
      if (st && st.status !== "sending") return [];
    }
    return tx
      .update(emailSends)
      .set({
        attempts: row.attempts + 1,
        lastAttemptAt: now,
        nextAttemptAt: new Date(now.getTime() + CLAIM_MS),
        updatedAt: now,
      })
      .where(and(eq(emailSends.id, row.id), eq(emailSends.status, "queued"), eq(emailSends.attempts, row.attempts)))
      .returning({ id: emailSends.id });
  });
  return won.length === 1;
}

/** A hard bounce: the address is marked bounced on every list it was subscribed to. */
async function markBounced(tx: Tx, deps: Deps, row: SendRow): Promise<void> {
  if (row.subscriberId === null) return;
  const mems = await tx
    .select({
      id: emailMemberships.id,
      listId: emailMemberships.listId,
      status: emailMemberships.status,
      listName: emailLists.name,
    })
    .from(emailMemberships)
    .innerJoin(emailLists, eq(emailLists.id, emailMemberships.listId))
    .where(
      and(
        eq(emailMemberships.subscriberId, row.subscriberId),
        inArray(emailMemberships.status, ["subscribed", "unconfirmed"]),
      ),
    );
  const now = deps.clock.now();
  for (const m of mems) {
    await tx.update(emailMemberships).set({ status: "bounced", updatedAt: now }).where(eq(emailMemberships.id, m.id));
    await emit(
      tx,
      { deps, company: { id: row.companyId } },
      membershipChanged,
      { id: row.subscriberId },
      {
        email: row.email,
        listId: m.listId,
        listName: m.listName,
        from: m.status as "subscribed",
        to: "bounced",
        source: "bounce",
        campaignId: row.campaignId,
      },
    );
  }
}

interface Rendered {
  subject: string;
  html: string;
  text: string;
  from: string;
  replyTo: string | null;
  headers: Record<string, string>;
}

/** Campaigns read during one run of the job (content cannot change while a campaign sends). */
type CampaignCache = Map<number, CampaignRow>;

async function render(deps: Deps, row: SendRow, cache: CampaignCache): Promise<Rendered | null | "skip"> {
  const base = publicBase(deps);
  const defaultFrom = deps.config.mailFrom!;
  const unsubscribe = `${base}/u/${row.token}`;
  if (row.kind !== "campaign") {
    const headers: Record<string, string> = {};
    if (row.kind === "test" || row.kind === "confirmation") headers["Auto-Submitted"] = "auto-generated";
    return {
      subject: row.subject!,
      html: row.html!,
      text: row.text!,
      from: row.fromEmail ? fromHeader(row.fromName, row.fromEmail) : defaultFrom,
      replyTo: row.replyTo,
      headers,
    };
  }
  let c = cache.get(row.campaignId!);
  if (!c) {
    c = (await deps.db.select().from(emailCampaigns).where(eq(emailCampaigns.id, row.campaignId!)).limit(1))[0];
    if (!c) return null;
    cache.set(c.id, c);
  }
  const sub =
    row.subscriberId === null
      ? undefined
      : (await deps.db.select().from(emailSubscribers).where(eq(emailSubscribers.id, row.subscriberId)).limit(1))[0];
  // Consent is read again at send time: someone who unsubscribed (or was blocklisted) after being queued gets nothing.
  if (!sub || sub.blocklisted) return "skip";
  const still = await deps.db
    .select({ id: emailMemberships.id })
    .from(emailMemberships)
    .where(
      and(
        eq(emailMemberships.subscriberId, sub.id),
        inArray(emailMemberships.listId, c.listIds),
        eq(emailMemberships.status, "subscribed"),
      ),
    )
    .limit(1);
  if (still.length === 0) return "skip";
  const parts = renderCampaignMessage(
    c,
    { name: sub?.name ?? null, email: row.email, attributes: sub?.attributes ?? {} },
    { unsubscribeUrl: unsubscribe, openUrl: `${base}/o/${row.token}`, clickUrl: (n) => `${base}/c/${row.token}/${n}` },
  );
  return {
    ...parts,
    from: c.fromEmail ? fromHeader(c.fromName, c.fromEmail) : defaultFrom,
    replyTo: c.replyTo,
    headers: {
      // RFC 8058: mail clients show an unsubscribe button that POSTs List-Unsubscribe=One-Click to this URL.
      "List-Unsubscribe": `<${unsubscribe}>`,
      "List-Unsubscribe-Post": "List-Unsubscribe=One-Click",
      "List-Id": `<campaign-${c.id}.company-${c.companyId}.${new URL(deps.config.publicUrl).hostname}>`,
      Precedence: "bulk",
      "X-Plinth-Campaign": String(c.id),
    },
  };
}

async function sendOne(deps: Deps, row: SendRow, cache: CampaignCache = new Map()): Promise<void> {
  if (!(await claim(deps, row))) return;
  const attempt = row.attempts + 1;
  const { transport, secrets } = transportFor(deps.config);
  let update: Partial<SendRow>;
  let bounced = false;
  try {
    const r = await render(deps, row, cache);
    if (!r) {
      update = { status: "cancelled", smtpResponse: "The campaign no longer exists." };
    } else if (r === "skip") {
      update = {
        status: "cancelled",
        smtpResponse: "Not sent: unsubscribed, blocklisted or deleted after the campaign was queued.",
      };
    } else {
      // Signed when the company has a key for the From domain (sending-domains.ts): nodemailer's dkim option.
      const dkim = await dkimFor(deps, row.companyId, r.from);
      const info = await sendMailRetryingDrop(transport, {
        from: r.from,
        to: row.email,
        subject: r.subject,
        text: r.text,
        html: r.html,
        ...(r.replyTo ? { replyTo: r.replyTo } : {}),
        messageId: row.messageId,
        date: row.createdAt,
        headers: r.headers,
        ...(dkim ? { dkim } : {}),
      });
      if ((info.rejected ?? []).length > 0) {
        bounced = true;
        update = {
          status: "bounced",
          smtpResponse: redact(`${info.response} (refused: ${(info.rejected ?? []).map(String).join(", ")})`, secrets),
        };
      } else
        update = { status: "sent", sentAt: deps.clock.now(), smtpResponse: redact(String(info.response), secrets) };
    }
  } catch (err) {
    const e = err as SmtpError;
    const perm = permanent(e);
    // A 5xx about the recipient (RCPT) is a hard bounce; about the message, a failure.
    bounced =
      perm && (e.command === "RCPT TO" || /recipient|mailbox|user unknown|no such user/i.test(e.response ?? ""));
    const giveUp = perm || attempt >= MAX_SEND_ATTEMPTS;
    update = {
      status: giveUp ? (bounced ? "bounced" : "failed") : "queued",
      smtpResponse: redact(describeError(e), secrets),
      ...(giveUp ? {} : { nextAttemptAt: new Date(deps.clock.ms() + SEND_RETRY_MS[attempt - 1]!) }),
    };
  }
  await deps.db.transaction(async (tx) => {
    // Cancelled while this message was with the mail server: its outcome is recorded as it is, a retry
    // becomes "not sent", and the campaign's credits are settled now that nothing of it is in flight.
    const cancelled =
      row.kind === "campaign" &&
      (
        await tx
          .select({ status: emailCampaigns.status })
          .from(emailCampaigns)
          .where(eq(emailCampaigns.id, row.campaignId!))
          .limit(1)
      )[0]?.status === "cancelled";
    if (cancelled && update.status === "queued")
      update = {
        status: "cancelled",
        smtpResponse:
          `Not sent: the campaign was cancelled (last attempt: ${update.smtpResponse ?? "no answer"})`.slice(0, 1000),
      };
    await tx
      .update(emailSends)
      .set({ ...update, updatedAt: deps.clock.now() })
      .where(eq(emailSends.id, row.id));
    if (bounced && row.kind === "campaign") await markBounced(tx, deps, row);
    if (cancelled) await refundUnsent(tx, deps, { id: row.campaignId!, companyId: row.companyId });
  });
}

const due = (now: Date) => and(eq(emailSends.status, "queued"), lte(emailSends.nextAttemptAt, now));

/** One slice of work: start due schedules, queue recipients, send what is due within each campaign's rate. */
export async function deliver(deps: Deps): Promise<void> {
  const started = Date.now();
  const cache: CampaignCache = new Map();
  await startDue(deps);
  await settleCancelled(deps);
  const sending = await deps.db.select().from(emailCampaigns).where(eq(emailCampaigns.status, "sending"));
  for (const c of sending) {
    if (!c.queuedAll)
      for (let i = 0; i < 20 && !(await queueNextBatch(deps, c.id)); i++)
        if (Date.now() - started > RUN_BUDGET_MS / 2) break;
  }
  if (!smtpReady(deps)) return; // rows wait, queued, until SMTP is configured; sends are refused at the tools
  // Single messages (tests, transactional, confirmations) first.
  for (;;) {
    const now = deps.clock.now();
    const rows = await deps.db
      .select()
      .from(emailSends)
      .where(and(due(now), isNull(emailSends.campaignId)))
      .orderBy(asc(emailSends.nextAttemptAt), asc(emailSends.id))
      .limit(50);
    const tests = await deps.db
      .select()
      .from(emailSends)
      .where(and(due(now), eq(emailSends.kind, "test")))
      .orderBy(asc(emailSends.id))
      .limit(50);
    const all = [...rows, ...tests];
    for (const r of all) {
      if (deps.store.closed) return;
      await sendOne(deps, r);
    }
    if (all.length < 50 || Date.now() - started > RUN_BUDGET_MS) break;
  }
  for (const c of sending) {
    if (deps.store.closed || Date.now() - started > RUN_BUDGET_MS) return;
    const now = deps.clock.now();
    const recent = (
      await deps.db
        .select({ n: count() })
        .from(emailSends)
        .where(
          and(
            eq(emailSends.campaignId, c.id),
            eq(emailSends.kind, "campaign"),
            gt(emailSends.lastAttemptAt, new Date(now.getTime() - 60_000)),
          ),
        )
    )[0]!.n;
    const perMinute = Math.max(0, c.ratePerMinute - recent);
    const slice = Math.min(perMinute, Math.max(1, Math.ceil(c.ratePerMinute / 60)), 200);
    if (slice > 0) {
      const rows = await deps.db
        .select()
        .from(emailSends)
        .where(and(due(now), eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign")))
        .orderBy(asc(emailSends.id))
        .limit(slice);
      for (const r of rows) {
        if (deps.store.closed) return;
        // Paused or cancelled meanwhile: stop at once.
        const st = (
          await deps.db
            .select({ status: emailCampaigns.status })
            .from(emailCampaigns)
            .where(eq(emailCampaigns.id, c.id))
            .limit(1)
        )[0];
        if (st?.status !== "sending") break;
        await sendOne(deps, r, cache);
      }
    }
    await finishIfDone(deps, c.id);
  }
}

/** A campaign whose every recipient is sent, bounced or failed becomes `sent`. */
export async function finishIfDone(deps: Deps, campaignId: number): Promise<boolean> {
  const c = (await deps.db.select().from(emailCampaigns).where(eq(emailCampaigns.id, campaignId)).limit(1))[0];
  if (!c || c.status !== "sending" || !c.queuedAll) return false;
  const open = (
    await deps.db
      .select({ n: count() })
      .from(emailSends)
      .where(and(eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign"), eq(emailSends.status, "queued")))
  )[0]!.n;
  if (open > 0) return false;
  return deps.db.transaction(async (tx) => {
    const now = deps.clock.now();
    const won = await tx
      .update(emailCampaigns)
      .set({ status: "sent", finishedAt: now, updatedAt: now })
      .where(and(eq(emailCampaigns.id, c.id), eq(emailCampaigns.status, "sending")))
      .returning({ id: emailCampaigns.id });
    if (won.length === 0) return false;
    const counts = await tx
      .select({ status: emailSends.status, n: count() })
      .from(emailSends)
      .where(and(eq(emailSends.campaignId, c.id), eq(emailSends.kind, "campaign")))
      .groupBy(emailSends.status);
    const n = (s: string) => counts.find((x) => x.status === s)?.n ?? 0;
    // Recipients skipped at send time (unsubscribed meanwhile) and paid-for people never queued get their credits back.
    await refundUnsent(tx, deps, c);
    await emit(
      tx,
      { deps, company: { id: c.companyId } },
      campaignSent,
      { id: c.id },
      {
        name: c.name,
        subject: c.subject,
        recipients: counts.reduce((a, x) => a + x.n, 0),
        delivered: n("sent"),
        bounced: n("bounced"),
        failed: n("failed"),
      },
    );
    return true;
  });
}

/**
 * Whether deliver() has anything to do: a scheduled campaign to start, a
 * campaign sending (its recipients to queue, its rate slice, its finish),
 * or a send due — which covers single and test messages and a cancelled
 * campaign's queued sends to settle. Wider than each step, never narrower.
 */
async function deliveryPending(deps: Deps): Promise<boolean> {
  const now = deps.clock.now();
  return (
    (await anyRow(
      deps.db
        .select({ id: emailCampaigns.id })
        .from(emailCampaigns)
        .where(or(dueCampaigns(now), eq(emailCampaigns.status, "sending")))
        .limit(1),
    )) || (await anyRow(deps.db.select({ id: emailSends.id }).from(emailSends).where(due(now)).limit(1)))
  );
}

export const deliverJob: JobDef = {
  name: "email.deliver",
  description:
    "Start scheduled campaigns, queue their recipients (once each), and send due email over SMTP at each campaign's rate with retries.",
  everyMs: 1000,
  leaseMs: CLAIM_MS,
  pending: deliveryPending,
  run: deliver,
};
