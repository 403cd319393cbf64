/**
 * Inbound email: a company connects its support mailbox, and every new mail
 * in it opens a ticket or continues one, as if an agent had typed it in with
 * tickets_create or tickets_add_requester_reply (the same verbs run, so the
 * reopen rules, follow-ups of closed tickets, SLA and events are theirs).
 *
 * Why IMAP polling and a ledger: a mailbox is the one thing every provider
 * offers, and polling by UID needs no public address. Each mail is imported
 * in one transaction that inserts its ledger row (ticket_mail_imports,
 * unique per mailbox and Message-ID) and writes the ticket; the mailbox's
 * last UID moves only after that commits. A poll that dies between the two
 * reads the mail again next time, and the ledger's unique insert rolls the
 * second import back: each mail is imported exactly once, across restarts
 * and instances. A per-mailbox claim (pollUntil) keeps two instances (or the
 * job and ticket_mailboxes_poll) from polling the same mailbox at once.
 *
 * Threading, first match wins: In-Reply-To/References naming one of our
 * reply threads (<ticket-<company>-<number>@plinth.invalid>, delivery.ts)
 * or a mail imported earlier; then "[… #1042]" in the subject, but only
 * from the ticket's own requester (anyone can type a number). Otherwise a
 * new ticket. Auto-replies, bounces and our own mail coming back are kept
 * in the ledger as ignored, with the reason, and never open or answer
 * anything.
 *
 * A mail's files are kept as the ticket message's attachments
 * (attachments.ts): each checked on its own (type from the bytes, the
 * company's per-file and total limits), and one that is refused is named
 * in the message text instead.
 *
 * The password is sealed (core/sealed.ts) and never leaves this file: no
 * tool returns it, imapflow's logger is off, errors carry the server's
 * words only.
 */
import { createHash } from "node:crypto";
import { and, asc, desc, eq, inArray, isNotNull, isNull, lt, or } from "drizzle-orm";
import type { ImapFlow } from "imapflow";
import type { ParsedMail } from "mailparser";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { invalid, isAppError, notFound } from "../../core/errors";
import { anyRow, type JobDef } from "../../core/jobs";
import { seal, unseal } from "../../core/sealed";
import { companies } from "../../core/tables";
import { authorize } from "../../core/scopes";
import {
  discardStored,
  limitsOf,
  MAX_FILES_PER_MESSAGE,
  recordFiles,
  type StoredFile,
  storeFiles,
  usedBytes,
} from "./attachments";
import { addRequesterReply } from "./messages";
import type { mailboxConnectInput, mailboxRef, mailboxUpdateInput } from "./schemas";
import { MAX_BODY } from "./schemas";
import { createTicket } from "./tickets";
import { ticketMailboxes, ticketMailImports, ticketMessages, tickets } from "./tables";

type MailboxRow = typeof ticketMailboxes.$inferSelect;

/** The job's period; a mailbox polled less than this ago is not due. */
export const POLL_EVERY_MS = 60_000;
/** How long a poll may hold its mailbox before another instance may assume it died. */
const POLL_LEASE_MS = 5 * 60_000;
/** At most this many mails per poll; the next poll goes on from there. */
const POLL_BATCH = 200;
/** Mails larger than this are recorded as ignored (their attachments stay in the mailbox). */
export const MAX_MAIL_BYTES = 10 * 1024 * 1024;

/** Settings are the company's: admins and owners with tickets:write, as the SLA policy. */
function mailboxesAdmin(ctx: ActorContext, write = true) {
  authorize(ctx, write ? "tickets:write" : "tickets:read", { write, minRole: "admin" });
}

const sealContext = (companyId: number) => `ticket-mailbox:${companyId}`;

function mailboxOut(m: MailboxRow) {
  return {
    id: m.id,
    host: m.host,
    port: m.port,
    tls: m.tls,
    username: m.username,
    folder: m.folder,
    state: m.state,
    lastError: m.lastError,
    lastPolledAt: iso(m.lastPolledAt),
    createdAt: iso(m.createdAt),
    updatedAt: iso(m.updatedAt),
  };
}

async function mailboxOf(ctx: ActorContext, id: number): Promise<MailboxRow> {
  const m = (
    await ctx.deps.db
      .select()
      .from(ticketMailboxes)
      .where(and(eq(ticketMailboxes.id, id), eq(ticketMailboxes.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!m) throw notFound(`Mailbox ${id} not found in ${ctx.company.name}. See ticket_mailboxes_list.`);
  return m;
}

interface Account {
  host: string;
  port: number;
  tls: MailboxRow["tls"];
  username: string;
  password: string;
}

/** imapflow is loaded on first use: it costs every process start (CLI included) most of a second otherwise. */
async function client(a: Account): Promise<ImapFlow> {
  const { ImapFlow } = await import("imapflow");
  return new ImapFlow({
    host: a.host,
    port: a.port,
    secure: a.tls === "tls",
    doSTARTTLS: a.tls === "starttls" ? true : a.tls === "none" ? false : undefined,
    auth: { user: a.username, pass: a.password },
    logger: false,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
  });
}

/** The server's own words for a failure (never the password, which imapflow does not echo). */
function imapError(e: unknown): string {
  const x = e as { authenticationFailed?: boolean; responseText?: string; code?: string; message?: string };
  if (x?.authenticationFailed) return `login refused: ${x.responseText || "authentication failed"}`;
  return (x?.responseText || x?.code || x?.message || String(e)).slice(0, 300);
}

/**
 * Logs in and opens the folder: what connect and update check before they
 * save. Returns the folder's UIDVALIDITY and the highest UID in it now (mail
 * already there is not imported: only what arrives after connecting).
 */
async function tryLogin(a: Account, folder: string): Promise<{ uidValidity: string; lastUid: string }> {
  const c = await client(a);
  c.on("error", () => {});
  try {
    await c.connect();
  } catch (e) {
    throw invalid(`Could not sign in to ${a.host}:${a.port} as ${a.username}: ${imapError(e)}. Nothing was saved.`);
  }
  try {
    const box = await c.mailboxOpen(folder, { readOnly: true }).catch((e) => {
      throw invalid(`Signed in, but folder ${JSON.stringify(folder)} cannot be opened: ${imapError(e)}.`);
    });
    return { uidValidity: String(box.uidValidity), lastUid: String(Math.max(0, Number(box.uidNext) - 1)) };
  } finally {
    await c.logout().catch(() => c.close());
  }
}

export async function connectMailbox(ctx: ActorContext, input: v.InferOutput<typeof mailboxConnectInput>) {
  mailboxesAdmin(ctx);
  const account = { ...input, port: input.port ?? (input.tls === "tls" ? 993 : 143) };
  const start = await tryLogin(account, input.folder);
  const now = ctx.deps.clock.now();
  return ctx.deps.db.transaction(async (tx) => {
    const dup = await tx
      .select({ id: ticketMailboxes.id })
      .from(ticketMailboxes)
      .where(
        and(
          eq(ticketMailboxes.companyId, ctx.company.id),
          eq(ticketMailboxes.host, account.host),
          eq(ticketMailboxes.username, account.username),
          eq(ticketMailboxes.folder, input.folder),
        ),
      )
      .limit(1);
    if (dup[0]) throw invalid(`This mailbox is already connected as mailbox ${dup[0].id}.`);
    const row = (
      await tx
        .insert(ticketMailboxes)
        .values({
          companyId: ctx.company.id,
          host: account.host,
          port: account.port,
          tls: account.tls,
          username: account.username,
          passwordSealed: seal(ctx.deps.config, input.password, sealContext(ctx.company.id)),
          folder: input.folder,
          uidValidity: start.uidValidity,
          lastUid: start.lastUid,
          state: "active",
          // The login just read the folder: the job's first poll is a period from now.
          lastPolledAt: now,
          createdBy: ctx.principal.userId || null,
          createdAt: now,
          updatedAt: now,
        })
        .returning()
    )[0]!;
    await audit(tx, ctx, "tickets.mailbox_connect", {
      type: "ticket_mailbox",
      id: row.id,
      detail: { host: row.host, username: row.username },
    });
    return {
      ...mailboxOut(row),
      note: "Connected. Mail that arrives from now on opens or continues tickets; the password is stored sealed and is never shown.",
    };
  });
}

export async function listMailboxes(ctx: ActorContext) {
  mailboxesAdmin(ctx, false);
  const rows = await ctx.deps.db
    .select()
    .from(ticketMailboxes)
    .where(eq(ticketMailboxes.companyId, ctx.company.id))
    .orderBy(asc(ticketMailboxes.id));
  return { items: rows.map(mailboxOut) };
}

export async function getMailbox(ctx: ActorContext, input: v.InferOutput<typeof mailboxRef>) {
  mailboxesAdmin(ctx, false);
  const m = await mailboxOf(ctx, input.id);
  const recent = await ctx.deps.db
    .select({
      outcome: ticketMailImports.outcome,
      reason: ticketMailImports.reason,
      number: tickets.number,
      at: ticketMailImports.createdAt,
    })
    .from(ticketMailImports)
    .leftJoin(tickets, eq(tickets.id, ticketMailImports.ticketId))
    .where(and(eq(ticketMailImports.companyId, ctx.company.id), eq(ticketMailImports.source, m.id)))
    .orderBy(asc(ticketMailImports.id))
    .limit(20);
  return {
    ...mailboxOut(m),
    recentMails: recent.map((r) => ({ outcome: r.outcome, reason: r.reason, ticket: r.number, at: iso(r.at) })),
  };
}

export async function updateMailbox(ctx: ActorContext, input: v.InferOutput<typeof mailboxUpdateInput>) {
  mailboxesAdmin(ctx);
  const m = await mailboxOf(ctx, input.id);
  const account: Account = {
    host: input.host ?? m.host,
    port: input.port ?? m.port,
    tls: input.tls ?? m.tls,
    username: input.username ?? m.username,
    password: input.password ?? unseal(ctx.deps.config, m.passwordSealed, sealContext(m.companyId)),
  };
  const folder = input.folder ?? m.folder;
  const moved =
    account.host !== m.host || account.username !== m.username || folder !== m.folder || input.password !== undefined;
  const changed = moved || account.port !== m.port || account.tls !== m.tls;
  const start = changed ? await tryLogin(account, folder) : null;
  const now = ctx.deps.clock.now();
  const row = (
    await ctx.deps.db
      .update(ticketMailboxes)
      .set({
        host: account.host,
        port: account.port,
        tls: account.tls,
        username: account.username,
        folder,
        ...(input.password !== undefined && {
          passwordSealed: seal(ctx.deps.config, input.password, sealContext(m.companyId)),
        }),
        // Another account or folder starts from what is in it now, as a new connection does.
        ...(start && (account.host !== m.host || account.username !== m.username || folder !== m.folder) && start),
        // paused says so; a login that now works clears an error but does not resume a paused mailbox.
        state:
          input.paused === true
            ? "paused"
            : input.paused === false || (changed && m.state === "error")
              ? "active"
              : m.state,
        lastError: changed || input.paused === false ? null : m.lastError,
        updatedAt: now,
      })
      .where(and(eq(ticketMailboxes.id, m.id), eq(ticketMailboxes.companyId, ctx.company.id)))
      .returning()
  )[0]!;
  await audit(ctx.deps.db, ctx, "tickets.mailbox_update", { type: "ticket_mailbox", id: m.id });
  return mailboxOut(row);
}

export async function disconnectMailbox(ctx: ActorContext, input: v.InferOutput<typeof mailboxRef>) {
  mailboxesAdmin(ctx);
  const m = await mailboxOf(ctx, input.id);
  await ctx.deps.db
    .delete(ticketMailboxes)
    .where(and(eq(ticketMailboxes.id, m.id), eq(ticketMailboxes.companyId, ctx.company.id)));
  await audit(ctx.deps.db, ctx, "tickets.mailbox_disconnect", { type: "ticket_mailbox", id: m.id });
  return { id: m.id, disconnected: true, note: "The sealed password is deleted; tickets it opened stay." };
}

export async function pollMailboxNow(ctx: ActorContext, input: v.InferOutput<typeof mailboxRef>) {
  mailboxesAdmin(ctx);
  const m = await mailboxOf(ctx, input.id);
  if (m.state === "paused") throw invalid(`Mailbox ${m.id} is paused; resume it with ticket_mailboxes_update.`);
  const r = await pollMailbox(ctx.deps, m.id);
  const after = await mailboxOf(ctx, m.id);
  return { id: m.id, ...r, state: after.state, lastError: after.lastError };
}

// ---------------------------------------------------------------------------
// Recognising mail that must never open or answer a ticket

const header = (p: ParsedMail, name: string): string => {
  const h = p.headers.get(name);
  if (h === undefined || h === null) return "";
  if (typeof h === "string") return h;
  if (typeof h === "object" && "value" in h) return String((h as { value: unknown }).value);
  return String(h);
};

/** Why this mail is not a person writing to support, or null when it is. */
export function ignoredBecause(p: ParsedMail, raw: Buffer, ours: string[]): string | null {
  if (raw.length > MAX_MAIL_BYTES) return "too large";
  const auto = header(p, "auto-submitted").trim().toLowerCase();
  if (auto && auto !== "no") return `auto-submitted: ${auto}`;
  if (p.headers.has("x-autoreply") || p.headers.has("x-autorespond")) return "auto-reply";
  const precedence = header(p, "precedence").trim().toLowerCase();
  if (["bulk", "auto_reply", "list", "junk"].includes(precedence)) return `precedence: ${precedence}`;
  if (p.headers.has("x-auto-response-suppress")) return "auto-reply (x-auto-response-suppress)";
  const ct = p.headers.get("content-type") as { value?: string; params?: Record<string, string> } | undefined;
  if (ct?.value?.toLowerCase() === "multipart/report") return `bounce (${ct.params?.["report-type"] ?? "report"})`;
  const from = p.from?.value[0]?.address?.toLowerCase() ?? "";
  if (!from) return "no sender address";
  const local = from.split("@")[0]!;
  if (local === "mailer-daemon" || local === "postmaster") return "bounce (from the mail system)";
  if (ours.includes(from)) return "loop (sent by this mailbox or Plinth)";
  if (/@plinth\.invalid>$/.test(p.messageId ?? "")) return "loop (one of our own messages)";
  return null;
}

// ---------------------------------------------------------------------------
// Importing one mail

/** The principal the imports act as: the company's tickets verbs, as an admin, attributed to who connected it. */
async function mailActor(deps: Deps, companyId: number, userId: number | null): Promise<ActorContext> {
  const c = (await deps.db.select({ name: companies.name }).from(companies).where(eq(companies.id, companyId)))[0];
  const company = { id: companyId, name: c?.name ?? `Company ${companyId}`, role: "admin" as const };
  return {
    deps,
    principal: {
      userId: userId ?? 0,
      credential: { kind: "cli", id: 0, name: "ticket mailbox" },
      scopes: ["tickets:write"],
      companies: [company],
      requireCmsApproval: false,
    },
    company,
    requestId: "ticket-mailbox",
  };
}

const THREAD = /^<ticket-(\d+)-(\d+)@plinth\.invalid>$/;
const SUBJECT_REF = /\[[^\]]*#(\d{1,15})\]/;

const idsOf = (x: string | string[] | undefined): string[] =>
  (Array.isArray(x) ? x : x ? x.split(/\s+/) : []).map((s) => s.trim()).filter((s) => s.startsWith("<"));

/** The ticket this mail continues (its number), or null for a new thread. */
async function threadOf(deps: Deps, companyId: number, p: ParsedMail, from: string): Promise<number | null> {
  const refs = [...idsOf(p.inReplyTo), ...idsOf(p.references)];
  for (const r of refs) {
    const m = THREAD.exec(r);
    if (m && Number(m[1]) === companyId) {
      const t = await deps.db
        .select({ n: tickets.number })
        .from(tickets)
        .where(and(eq(tickets.companyId, companyId), eq(tickets.number, Number(m[2]))))
        .limit(1);
      if (t[0]) return t[0].n;
    }
  }
  if (refs.length) {
    const t = await deps.db
      .select({ n: tickets.number })
      .from(ticketMailImports)
      .innerJoin(tickets, eq(tickets.id, ticketMailImports.ticketId))
      .where(and(eq(ticketMailImports.companyId, companyId), inArray(ticketMailImports.messageId, refs.slice(0, 50))))
      .orderBy(asc(ticketMailImports.id))
      .limit(1);
    if (t[0]) return t[0].n;
  }
  const s = SUBJECT_REF.exec(p.subject ?? "");
  if (s) {
    const t = await deps.db
      .select({ n: tickets.number, requester: tickets.requesterEmail })
      .from(tickets)
      .where(and(eq(tickets.companyId, companyId), eq(tickets.number, Number(s[1]))))
      .limit(1);
    if (t[0] && t[0].requester === from) return t[0].n;
  }
  return null;
}

function bodyOf(p: ParsedMail, notes: string[] = []): string {
  let text = (p.text ?? "").trim();
  if (!text && p.html)
    text = p.html
      .replace(/<[^>]*>/g, " ")
      .replace(/\s+/g, " ")
      .trim();
  if (!text) text = "(no text)";
  const tail = notes.length ? `\n\n${notes.join("\n")}`.slice(0, 4000) : "";
  const room = MAX_BODY - tail.length;
  return (text.length > room ? `${text.slice(0, room - 20)}\n[… shortened]` : text) + tail;
}

/**
 * The mail's files, each checked and stored on its own: one refused file
 * (an executable, HTML, past the per-file limit) is named in the message
 * instead of costing the requester the whole mail.
 */
async function mailFiles(deps: Deps, companyId: number, p: ParsedMail) {
  const stored: StoredFile[] = [];
  const notes: string[] = [];
  const parts = p.attachments ?? [];
  for (const [i, a] of parts.entries()) {
    const name = a.filename?.trim() || `attachment-${i + 1}`;
    if (i >= MAX_FILES_PER_MESSAGE) {
      notes.push(`[Attachment "${name.slice(0, 100)}" was not kept: at most ${MAX_FILES_PER_MESSAGE} files a mail.]`);
      continue;
    }
    try {
      stored.push(
        ...(await storeFiles(deps, companyId, [{ filename: name, bytes: a.content, declared: a.contentType }])),
      );
    } catch (e) {
      if (!isAppError(e)) throw e;
      // "Attachment (name) is refused: why" → "why": the note names the file already.
      const why = e.message.replace(/^Attachment \(.*?\) (is refused: )?/, "");
      notes.push(`[Attachment "${name.slice(0, 100)}" was not kept: ${why}]`);
    }
  }
  return { stored, notes };
}

export type ImportOutcome =
  | { outcome: "opened" | "replied"; ticket: number }
  | { outcome: "ignored"; reason: string }
  | { outcome: "duplicate" };

/**
 * Imports one raw mail for a company from `source` (a mailbox id): the
 * ledger row and the ticket write in one transaction; a mail already in the
 * ledger changes nothing. `fallbackKey` names a mail without a Message-ID.
 * The webhook (mail-hook.ts) calls it with id 0 and no username.
 */
export async function importMail(
  deps: Deps,
  mailbox: Pick<MailboxRow, "id" | "companyId" | "username" | "createdBy">,
  raw: Buffer,
  fallbackKey: string,
): Promise<ImportOutcome> {
  // mailparser (~35 MB of RSS with its dependencies) loads with the first mail.
  const { simpleParser } = await import("mailparser");
  const p = await simpleParser(raw.length > MAX_MAIL_BYTES ? raw.subarray(0, 64 * 1024) : raw);
  const messageId = p.messageId?.trim() || null;
  const key = messageId
    ? `mid:${createHash("sha256").update(messageId).digest("hex")}`
    : `uid:${createHash("sha256").update(fallbackKey).digest("hex")}`;
  const ours = mailbox.username ? [mailbox.username.toLowerCase()] : [];
  const mailFrom = deps.config.mailFrom?.match(/<([^>]+)>/)?.[1] ?? deps.config.mailFrom;
  if (mailFrom) ours.push(mailFrom.trim().toLowerCase());
  const reason = ignoredBecause(p, raw, ours);
  const from = p.from?.value[0]?.address?.toLowerCase() ?? "";
  const actor = await mailActor(deps, mailbox.companyId, mailbox.createdBy);
  // Files are stored before the transaction; those it does not record are removed after it.
  const files = reason ? { stored: [], notes: [] } : await mailFiles(deps, mailbox.companyId, p);
  const kept = new Set<StoredFile>();
  try {
    return await importOne(deps, mailbox, p, { key, messageId, reason, from, actor }, files, kept);
  } catch (e) {
    kept.clear(); // rolled back: no row holds them
    throw e;
  } finally {
    await discardStored(
      deps,
      files.stored.filter((f) => !kept.has(f)),
    );
  }
}

async function importOne(
  deps: Deps,
  mailbox: Pick<MailboxRow, "id" | "companyId" | "username" | "createdBy">,
  p: ParsedMail,
  m: { key: string; messageId: string | null; reason: string | null; from: string; actor: ActorContext },
  files: { stored: StoredFile[]; notes: string[] },
  kept: Set<StoredFile>,
): Promise<ImportOutcome> {
  const { key, messageId, reason, from, actor } = m;
  return deps.store.transaction(async (tx) => {
    const now = deps.clock.now();
    const claimed = await tx
      .insert(ticketMailImports)
      .values({
        companyId: mailbox.companyId,
        source: mailbox.id,
        key,
        messageId,
        outcome: reason ? "ignored" : "opened",
        reason,
        createdAt: now,
      })
      .onConflictDoNothing()
      .returning({ id: ticketMailImports.id });
    if (!claimed[0]) return { outcome: "duplicate" } as const;
    if (reason) return { outcome: "ignored", reason } as const;
    // The company's total decides which stored files are kept; the others are named in the message.
    const limits = await limitsOf(tx, mailbox.companyId);
    let room = limits.maxTotalBytes - (await usedBytes(tx, mailbox.companyId));
    const keep: StoredFile[] = [];
    const notes = [...files.notes];
    for (const f of files.stored) {
      if (f.sizeBytes <= room) {
        keep.push(f);
        room -= f.sizeBytes;
      } else
        notes.push(`[Attachment "${f.filename.slice(0, 100)}" was not kept: the company's files are at their limit.]`);
    }
    const body = bodyOf(p, notes);
    const existing = await threadOf(deps, mailbox.companyId, p, from);
    let number: number;
    let outcome: "opened" | "replied";
    if (existing !== null) {
      const r = await addRequesterReply(actor, { id: existing, body });
      number = r.id;
      outcome = "replied";
    } else {
      const r = await createTicket(actor, {
        subject: (p.subject ?? "").trim().slice(0, 300) || "(no subject)",
        requesterEmail: from,
        requesterName: p.from?.value[0]?.name?.trim().slice(0, 200) || undefined,
        body,
        priority: "normal",
        tags: ["email"],
      });
      number = r.id;
      outcome = "opened";
    }
    const t = (
      await tx
        .select({ id: tickets.id })
        .from(tickets)
        .where(and(eq(tickets.companyId, mailbox.companyId), eq(tickets.number, number)))
        .limit(1)
    )[0]!;
    await tx.update(ticketMailImports).set({ ticketId: t.id, outcome }).where(eq(ticketMailImports.id, claimed[0].id));
    if (keep.length) {
      // The requester's message just written (a reply, a new ticket's first message or a follow-up's).
      const msg = (
        await tx
          .select({ id: ticketMessages.id })
          .from(ticketMessages)
          .where(and(eq(ticketMessages.ticketId, t.id), eq(ticketMessages.author, "requester")))
          .orderBy(desc(ticketMessages.id))
          .limit(1)
      )[0];
      await recordFiles(
        tx,
        deps,
        { companyId: mailbox.companyId, ticketId: t.id, messageId: msg?.id ?? null, source: "mail", userId: null },
        keep,
      );
      for (const f of keep) kept.add(f);
    }
    return { outcome, ticket: number };
  });
}

// ---------------------------------------------------------------------------
// Polling

/** For tests: runs after a mail's import committed and before the mailbox's last UID moves past it. */
export const pollHooks: { afterImport?: (uid: number) => void | Promise<void> } = {};

export interface PollResult {
  /** False when another poll holds the mailbox right now. */
  polled: boolean;
  opened: number;
  replied: number;
  ignored: number;
  duplicates: number;
  error?: string;
}

/**
 * Polls one mailbox: claims it, fetches the mails past its last UID (all
 * of them again when the folder's UIDVALIDITY changed: the ledger skips
 * what was imported), imports each, and advances the last UID after each
 * commit. A failure is kept on the mailbox (state error, lastError).
 */
export async function pollMailbox(deps: Deps, mailboxId: number): Promise<PollResult> {
  const now = deps.clock.now();
  const claimed = (
    await deps.db
      .update(ticketMailboxes)
      .set({ pollUntil: new Date(now.getTime() + POLL_LEASE_MS) })
      .where(
        and(
          eq(ticketMailboxes.id, mailboxId),
          or(isNull(ticketMailboxes.pollUntil), lt(ticketMailboxes.pollUntil, now)),
        ),
      )
      .returning()
  )[0];
  const r: PollResult = { polled: false, opened: 0, replied: 0, ignored: 0, duplicates: 0 };
  if (!claimed) return r;
  r.polled = true;
  const m = claimed;
  let lastUid = Number(m.lastUid ?? 0);
  let uidValidity = m.uidValidity;
  const c = await client({
    host: m.host,
    port: m.port,
    tls: m.tls,
    username: m.username,
    password: unseal(deps.config, m.passwordSealed, sealContext(m.companyId)),
  });
  c.on("error", () => {});
  try {
    await c.connect();
    const lock = await c.getMailboxLock(m.folder, { readOnly: true });
    try {
      const box = c.mailbox;
      const validity = box ? String(box.uidValidity) : null;
      if (validity !== uidValidity) {
        lastUid = 0;
        uidValidity = validity;
      }
      const mails: { uid: number; source: Buffer }[] = [];
      if (box && Number(box.uidNext) - 1 > lastUid) {
        for await (const msg of c.fetch(`${lastUid + 1}:*`, { uid: true, source: true }, { uid: true })) {
          if (msg.uid > lastUid && msg.source) mails.push({ uid: msg.uid, source: msg.source });
          if (mails.length >= POLL_BATCH) break;
        }
      }
      mails.sort((a, b) => a.uid - b.uid);
      for (const mail of mails) {
        const out = await importMail(deps, m, mail.source, `${uidValidity}:${mail.uid}`);
        if (out.outcome === "duplicate") r.duplicates++;
        else r[out.outcome]++;
        await pollHooks.afterImport?.(mail.uid);
        lastUid = mail.uid;
        await deps.db
          .update(ticketMailboxes)
          .set({ lastUid: String(lastUid), uidValidity })
          .where(eq(ticketMailboxes.id, m.id));
      }
    } finally {
      lock.release();
    }
    await c.logout().catch(() => {});
    await deps.db
      .update(ticketMailboxes)
      .set({ state: "active", lastError: null, lastPolledAt: deps.clock.now(), pollUntil: null, uidValidity })
      .where(and(eq(ticketMailboxes.id, m.id), isNotNull(ticketMailboxes.pollUntil)));
  } catch (e) {
    c.close();
    r.error = imapError(e);
    await deps.db
      .update(ticketMailboxes)
      .set({ state: "error", lastError: r.error, lastPolledAt: deps.clock.now(), pollUntil: null })
      .where(eq(ticketMailboxes.id, m.id));
  }
  return r;
}

/** Mailboxes not paused whose last poll is a period ago or more (or never). */
const pollDue = (now: Date) =>
  and(
    inArray(ticketMailboxes.state, ["active", "error"]),
    or(
      isNull(ticketMailboxes.lastPolledAt),
      lt(ticketMailboxes.lastPolledAt, new Date(now.getTime() - POLL_EVERY_MS + 1000)),
    ),
    or(isNull(ticketMailboxes.pollUntil), lt(ticketMailboxes.pollUntil, now)),
  );

export const mailboxJobs: JobDef[] = [
  {
    name: "tickets.mailbox_poll",
    description: "Polls the companies' support mailboxes (IMAP): new mail opens or continues tickets.",
    everyMs: POLL_EVERY_MS,
    leaseMs: POLL_LEASE_MS,
    pending: (deps) =>
      anyRow(
        deps.db.select({ id: ticketMailboxes.id }).from(ticketMailboxes).where(pollDue(deps.clock.now())).limit(1),
      ),
    run: async (deps) => {
      const due = await deps.db
        .select({ id: ticketMailboxes.id })
        .from(ticketMailboxes)
        .where(pollDue(deps.clock.now()))
        .orderBy(asc(ticketMailboxes.id));
      for (const d of due) await pollMailbox(deps, d.id);
    },
  },
];
