/**
 * Outgoing mail: one outbox every domain writes to, one job that sends it.
 *
 * A verb calls `queueMail(tx, deps, mail)` inside its own transaction (an
 * invitation, a booking confirmation with its .ics, a notification digest),
 * so a message exists exactly when the change that asked for it committed,
 * and a rolled-back change sends nothing. The `mail.send` job (a core job,
 * src/core/housekeeping.ts) delivers due messages over SMTP with nodemailer
 * and records the outcome on the row: `sent` with the server's answer,
 * `failed` when the server refused the message or retries ran out, or
 * `no_transport` when no SMTP server is configured (PLINTH_SMTP_URL), so a
 * development install shows what it would have sent.
 *
 * Delivery is at least once: an attempt is written down before it starts,
 * so a crash mid-send retries later, and every retry carries the Message-ID
 * fixed at queue time (receivers drop the duplicate). Connection, TLS,
 * authentication and 4xx problems are retried with backoff (1 min, 5 min,
 * 15 min, 1 h, 3 h, 6 h, 12 h: eight attempts over about a day); a 5xx
 * answer about the message itself fails it at once.
 *
 * The SMTP URL holds the password: it is never logged, and anything
 * recorded from an error has the user name and password blanked out.
 *
 * @example
 * await deps.store.transaction(async (tx) => {
 *   // … the change …
 *   await queueMail(tx, deps, { companyId, to: "ana@example.com", subject: "Your booking", text, tag: "booking.confirmation",
 *     attachments: [{ filename: "invite.ics", contentType: "text/calendar; method=REQUEST", content: ics }] });
 * });
 */
import { and, asc, desc, eq, inArray, lt, lte, ne } from "drizzle-orm";
import type nodemailer from "nodemailer";
import type { Config } from "../config";
import { iso } from "./clock";
import type { Deps } from "./context";
import type { Db } from "./db";
import { invalid } from "./errors";
import { anyRow, type JobDef } from "./jobs";
import { randomHex } from "./secrets";
import { mailOutbox } from "./tables";

export interface OutgoingMail {
  /** The company the mail is about (null for mail about no company, e.g. a sign-up). */
  companyId: number | null;
  to: string | string[];
  subject: string;
  /** The plain-text body; always sent (the alternative every client can read). */
  text: string;
  html?: string | null;
  replyTo?: string | null;
  /** Extra headers (List-Unsubscribe, X-Entity-Ref-ID…); the envelope and MIME headers are Plinth's. */
  headers?: Record<string, string>;
  /** Attachments: content is UTF-8 text (an .ics invitation, a CSV), or base64 of any bytes with encoding "base64" (a ticket's files). */
  attachments?: MailAttachment[];
  /** What sent it, for the delivery log: `booking.confirmation`, `team.invitation`. */
  tag?: string | null;
}

export interface MailAttachment {
  filename: string;
  contentType: string;
  content: string;
  /** "base64": content is the bytes in base64; absent: content is the text itself. */
  encoding?: "base64";
}

export type MailStatus = "queued" | "sent" | "failed" | "no_transport";

export const MAIL_LIMITS = {
  recipients: 50,
  subject: 998,
  text: 1_000_000,
  html: 2_000_000,
  attachments: 10,
  attachmentBytes: 5_000_000,
  headers: 20,
} as const;

/** Delays before the 2nd … 8th attempt; after the 8th the message is failed. */
export const RETRY_DELAYS_MS = [
  60_000,
  5 * 60_000,
  15 * 60_000,
  3600_000,
  3 * 3600_000,
  6 * 3600_000,
  12 * 3600_000,
] as const;
export const MAX_MAIL_ATTEMPTS = RETRY_DELAYS_MS.length + 1;
/** Messages one run of the job sends at most (it runs every second while there is work). */
const BATCH = 50;
export const MAIL_RETENTION_MS = 90 * 24 * 3600_000;

const ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/;
/** Headers Plinth writes itself: a caller's value would forge or break the envelope or MIME structure. */
const RESERVED_HEADERS = new Set([
  "from",
  "to",
  "cc",
  "bcc",
  "subject",
  "date",
  "message-id",
  "reply-to",
  "sender",
  "return-path",
  "mime-version",
  "content-type",
  "content-transfer-encoding",
  "content-disposition",
  "received",
  "dkim-signature",
]);
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

function address(raw: string, what: string): string {
  const a = raw.trim().toLowerCase();
  if (a.length > 254 || !ADDRESS.test(a)) throw invalid(`${what} is not an email address: "${raw.slice(0, 100)}".`);
  return a;
}

/** Checks a message and returns what is stored: addresses normalised, the subject on one line. */
function normalise(mail: OutgoingMail) {
  const list = (Array.isArray(mail.to) ? mail.to : [mail.to]).map((a) => address(a, "A recipient"));
  const to = [...new Set(list)];
  if (to.length === 0) throw invalid("A message needs at least one recipient.");
  if (to.length > MAIL_LIMITS.recipients)
    throw invalid(`A message goes to at most ${MAIL_LIMITS.recipients} recipients; send several.`);
  // Folded onto one line: a newline in a subject would start a new header.
  const subject = mail.subject.replace(/[\r\n\t]+/g, " ").trim();
  if (!subject) throw invalid("A message needs a subject.");
  if (subject.length > MAIL_LIMITS.subject || CONTROL.test(subject.replace(/\t/g, " ")))
    throw invalid("The subject is too long or holds control characters.");
  if (mail.text.length > MAIL_LIMITS.text) throw invalid(`The text body is over ${MAIL_LIMITS.text} characters.`);
  if ((mail.html?.length ?? 0) > MAIL_LIMITS.html)
    throw invalid(`The HTML body is over ${MAIL_LIMITS.html} characters.`);
  if ([mail.subject, mail.text, mail.html ?? ""].some((s) => s.includes("\u0000")))
    throw invalid("A message must not contain the NUL character.");
  const headers = Object.entries(mail.headers ?? {});
  if (headers.length > MAIL_LIMITS.headers) throw invalid(`At most ${MAIL_LIMITS.headers} extra headers.`);
  for (const [name, value] of headers) {
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,75}$/.test(name)) throw invalid(`Not a header name: "${name.slice(0, 80)}".`);
    if (RESERVED_HEADERS.has(name.toLowerCase()))
      throw invalid(`The ${name} header is set by Plinth, not by the caller.`);
    if (typeof value !== "string" || value.length > 998 || CONTROL.test(value) || value.includes("\r"))
      throw invalid(`The ${name} header must be one line of at most 998 characters.`);
  }
  const attachments = mail.attachments ?? [];
  if (attachments.length > MAIL_LIMITS.attachments) throw invalid(`At most ${MAIL_LIMITS.attachments} attachments.`);
  let bytes = 0;
  for (const a of attachments) {
    if (
      !a.filename ||
      a.filename.length > 200 ||
      /[/\\]/.test(a.filename) ||
      CONTROL.test(a.filename) ||
      a.filename.includes("\r")
    )
      throw invalid(`Not an attachment file name: "${String(a.filename).slice(0, 80)}".`);
    if (
      !/^[\w.+-]+\/[\w.+-]+(\s*;\s*[\w.+-]+=("[^"\r\n]*"|[\w.+-]+))*$/.test(a.contentType) ||
      a.contentType.length > 200
    )
      throw invalid(`Not a content type: "${a.contentType.slice(0, 80)}".`);
    if (a.encoding === "base64") {
      if (!/^[A-Za-z0-9+/]*={0,2}$/.test(a.content) || a.content.length % 4 !== 0)
        throw invalid(`The attachment ${a.filename.slice(0, 80)} is not valid base64.`);
      bytes += Buffer.byteLength(a.content, "base64");
      continue;
    }
    if (a.content.includes("\u0000")) throw invalid("An attachment must not contain the NUL character.");
    bytes += Buffer.byteLength(a.content, "utf8");
  }
  if (bytes > MAIL_LIMITS.attachmentBytes)
    throw invalid(`Attachments total over ${MAIL_LIMITS.attachmentBytes} bytes.`);
  const replyTo = mail.replyTo ? address(mail.replyTo, "Reply-To") : null;
  const tag = mail.tag?.trim() ? mail.tag.trim().slice(0, 100) : null;
  return {
    to,
    subject,
    replyTo,
    tag,
    headers: headers.length ? Object.fromEntries(headers) : null,
    attachments: attachments.length ? attachments : null,
  };
}

/** The host part of Message-IDs: the From address's domain, else the public URL's host. */
function idDomain(config: Config): string {
  const from = config.mailFrom ? /@([^\s>]+)>?\s*$/.exec(config.mailFrom)?.[1] : undefined;
  return (from ?? new URL(config.publicUrl).hostname).toLowerCase() || "plinth.invalid";
}

/**
 * Puts a message in the outbox inside the caller's transaction; the
 * `mail.send` job sends it once the transaction has committed. Bad input
 * (an address that is not one, a header Plinth owns, oversized bodies)
 * throws a validation AppError naming the problem.
 */
export async function queueMail(tx: Pick<Db, "insert">, deps: Deps, mail: OutgoingMail): Promise<{ id: number }> {
  const m = normalise(mail);
  const now = deps.clock.now();
  const row = (
    await tx
      .insert(mailOutbox)
      .values({
        companyId: mail.companyId,
        to: m.to,
        subject: m.subject,
        text: mail.text,
        html: mail.html ?? null,
        replyTo: m.replyTo,
        headers: m.headers,
        attachments: m.attachments,
        tag: m.tag,
        messageId: `<${randomHex(16)}@${idDomain(deps.config)}>`,
        status: "queued",
        attempts: 0,
        nextAttemptAt: now,
        createdAt: now,
        updatedAt: now,
      })
      .returning({ id: mailOutbox.id })
  )[0]!;
  return { id: row.id };
}

// ------------------------------------------------------------------ sending

type Transport = ReturnType<typeof nodemailer.createTransport>;
/**
 * Transports by (URL, From). One process normally has one; a few are kept so
 * that two configurations alive at once (tests running servers side by side)
 * never close each other's transport under a send in flight.
 */
const transports = new Map<string, { key: string; transport: Transport; secrets: string[] }>();
const MAX_TRANSPORTS = 4;

const LOOPBACK = new Set(["localhost", "127.0.0.1", "::1", "[::1]"]);

/**
 * The nodemailer transport for the configured URL (made once per URL).
 * nodemailer reads the URL (host, port, credentials, its documented query
 * options such as `?tls.rejectUnauthorized=false` for a relay with a
 * self-signed certificate); on top, credentials sent over smtp:// to a host
 * that is not loopback require STARTTLS, so a password never crosses the
 * network in clear because a server forgot to offer TLS.
 */
export function transportFor(config: Config): { transport: Transport; secrets: string[] } {
  const url = config.smtpUrl!;
  const key = `${url}\u0000${config.mailFrom}`;
  const known = transports.get(key);
  if (known) return known;
  if (transports.size >= MAX_TRANSPORTS) {
    const [oldest, t] = transports.entries().next().value!;
    t.transport.close();
    transports.delete(oldest);
  }
  const u = new URL(url);
  const user = decodeURIComponent(u.username);
  const pass = decodeURIComponent(u.password);
  // Loaded on the first send: a process that never mails holds none of nodemailer (about 20 MB of RSS).
  const { createTransport }: typeof nodemailer = require("nodemailer");
  const probe = createTransport(url) as Transport & { options: Record<string, unknown> };
  const options = { ...probe.options };
  probe.close();
  if (u.protocol === "smtp:" && user && !LOOPBACK.has(u.hostname) && !u.searchParams.has("requireTLS"))
    options.requireTLS = true;
  const transport = createTransport({
    ...options,
    // Pooled: one SMTP connection carries many messages (about 11 ms each over
    // loopback) instead of a new connection, greeting and TLS per message
    // (about 110 ms, which capped a campaign at ~9 messages a second, below
    // its own default rate). Sends are sequential per process, so two
    // connections are plenty; a connection is renewed after 100 messages.
    pool: true,
    maxConnections: 2,
    maxMessages: 100,
    connectionTimeout: 15_000,
    greetingTimeout: 15_000,
    socketTimeout: 60_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  } as Parameters<typeof nodemailer.createTransport>[0]);
  const secrets = [
    user,
    pass,
    Buffer.from(user).toString("base64"),
    Buffer.from(pass).toString("base64"),
    u.password,
    u.username,
  ].filter((s) => s.length >= 3);
  const entry = { key, transport, secrets };
  transports.set(key, entry);
  return entry;
}

/** Closes the cached transports (server stop, tests switching servers). */
export function closeMailTransport(): void {
  for (const t of transports.values()) t.transport.close();
  transports.clear();
}

/** Text safe to store: credentials blanked, one line, bounded. */
export function redact(text: string, secrets: string[]): string {
  let out = text;
  for (const s of secrets) out = out.split(s).join("***");
  return out.replace(/\s+/g, " ").trim().slice(0, 1000);
}

/** Connection-level failures with no answer from the server: the pooled connection was closed under us. */
const DROPPED = new Set(["ECONNECTION", "ESOCKET", "ECONNRESET", "EPIPE"]);

/**
 * `transport.sendMail`, sent again once at once when the pooled connection
 * it used was dropped before the server answered (a relay closing an idle
 * connection, the pool renewing one after maxMessages): the message was not
 * accepted, and a fresh connection usually takes it, rather than waiting a
 * whole retry delay (1 minute) in the outbox. Any answer from the server
 * (4xx/5xx, EAUTH) is final for this attempt, as before.
 */
export async function sendMailRetryingDrop(
  transport: Transport,
  mail: import("nodemailer").SendMailOptions,
): Promise<{ rejected?: unknown[]; response?: unknown }> {
  try {
    return await transport.sendMail(mail);
  } catch (err) {
    const e = err as SmtpError;
    if (e.responseCode !== undefined || !e.code || !DROPPED.has(e.code)) throw err;
    return await transport.sendMail(mail);
  }
}

export interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  response?: string;
  command?: string;
}

/**
 * A refusal that retrying cannot fix: the server answered 5xx about this
 * message or its recipients. Authentication (EAUTH) and connection-level
 * failures are the operator's to fix and are retried, so a bad password
 * found on Friday night loses no mail.
 */
export function permanent(e: SmtpError): boolean {
  if (
    e.code === "EAUTH" ||
    e.code === "ECONNECTION" ||
    e.code === "ETIMEDOUT" ||
    e.code === "ESOCKET" ||
    e.code === "EDNS" ||
    e.code === "ETLS" ||
    e.code === "EPROTOCOL"
  )
    return false;
  return typeof e.responseCode === "number" && e.responseCode >= 500 && e.responseCode < 600;
}

export function describeError(e: SmtpError): string {
  const parts = [e.code, e.responseCode ? String(e.responseCode) : null, e.response ?? e.message].filter(Boolean);
  return parts.join(" ");
}

type Row = typeof mailOutbox.$inferSelect;

async function sendOne(deps: Deps, row: Row): Promise<void> {
  const now = deps.clock.now();
  const attempt = row.attempts + 1;
  // Written down before trying, so a crash mid-send is retried later (at least once).
  const claimed = await deps.store.transaction(
    (tx) =>
      tx
        .update(mailOutbox)
        .set({
          attempts: attempt,
          nextAttemptAt: new Date(now.getTime() + (RETRY_DELAYS_MS[attempt - 1] ?? RETRY_DELAYS_MS.at(-1)!)),
          updatedAt: now,
        })
        .where(and(eq(mailOutbox.id, row.id), eq(mailOutbox.status, "queued"), eq(mailOutbox.attempts, row.attempts)))
        .returning({ id: mailOutbox.id }),
    { silent: true },
  );
  if (claimed.length === 0) return;
  const { transport, secrets } = transportFor(deps.config);
  let update: Partial<Row>;
  try {
    const info = await sendMailRetryingDrop(transport, {
      from: deps.config.mailFrom!,
      to: row.to,
      subject: row.subject,
      text: row.text,
      ...(row.html ? { html: row.html } : {}),
      ...(row.replyTo ? { replyTo: row.replyTo } : {}),
      messageId: row.messageId,
      date: row.createdAt,
      headers: row.headers ?? undefined,
      attachments: (row.attachments ?? []).map((a) => ({
        filename: a.filename,
        contentType: a.contentType,
        content: a.content,
        ...(a.encoding && { encoding: a.encoding }),
      })),
    });
    const rejected = (info.rejected ?? []).map(String);
    const response = rejected.length ? `${info.response} (refused: ${rejected.join(", ")})` : String(info.response);
    update = { status: "sent", sentAt: deps.clock.now(), smtpResponse: redact(response, secrets) };
  } catch (err) {
    const e = err as SmtpError;
    const giveUp = permanent(e) || attempt >= MAX_MAIL_ATTEMPTS;
    update = { status: giveUp ? "failed" : "queued", smtpResponse: redact(describeError(e), secrets) };
  }
  await deps.store.transaction(
    (tx) =>
      tx
        .update(mailOutbox)
        .set({ ...update, updatedAt: deps.clock.now() })
        .where(eq(mailOutbox.id, row.id)),
    { silent: true },
  );
}

/** Mail the `mail.send` job sends now (and its pending check looks for). */
const dueMail = (now: Date) => and(eq(mailOutbox.status, "queued"), lte(mailOutbox.nextAttemptAt, now));

/** Sends what is due now; with no SMTP server configured, marks it no_transport. */
export async function sendDueMail(deps: Deps): Promise<void> {
  const now = deps.clock.now();
  const due = await deps.db
    .select()
    .from(mailOutbox)
    .where(dueMail(now))
    .orderBy(asc(mailOutbox.nextAttemptAt), asc(mailOutbox.id))
    .limit(BATCH);
  if (due.length === 0) return;
  if (!deps.config.smtpUrl || !deps.config.mailFrom) {
    await deps.store.transaction(
      (tx) =>
        tx
          .update(mailOutbox)
          .set({
            status: "no_transport",
            smtpResponse: "No SMTP server is configured (PLINTH_SMTP_URL); not sent.",
            updatedAt: now,
          })
          .where(
            and(
              inArray(
                mailOutbox.id,
                due.map((r) => r.id),
              ),
              eq(mailOutbox.status, "queued"),
            ),
          ),
      { silent: true },
    );
    return;
  }
  for (const row of due) {
    if (deps.store.closed) return;
    await sendOne(deps, row);
  }
}

/** Mail older than the delivery log's retention (at `now`, epoch ms) that no longer waits to be sent: what `mail.prune` deletes (and its pending check looks for). */
const expiredMail = (now: number) =>
  and(lt(mailOutbox.createdAt, new Date(now - MAIL_RETENTION_MS)), ne(mailOutbox.status, "queued"));

export const mailJobs: JobDef[] = [
  {
    name: "mail.send",
    description: "Send queued outgoing mail over SMTP (PLINTH_SMTP_URL), retrying with backoff; record each outcome.",
    everyMs: 1000,
    leaseMs: 5 * 60_000,
    pending: (deps) =>
      anyRow(deps.db.select({ id: mailOutbox.id }).from(mailOutbox).where(dueMail(deps.clock.now())).limit(1)),
    run: sendDueMail,
  },
  {
    name: "mail.prune",
    description:
      "Delete outgoing mail older than 90 days that is no longer waiting to be sent (the delivery log's retention).",
    everyMs: 3600_000,
    pending: (deps) =>
      anyRow(deps.db.select({ id: mailOutbox.id }).from(mailOutbox).where(expiredMail(deps.clock.ms())).limit(1)),
    async run(deps) {
      await deps.store.transaction((tx) => tx.delete(mailOutbox).where(expiredMail(deps.clock.ms())), { silent: true });
    },
  },
];

/** One line of the delivery log, without bodies. */
export interface MailLogEntry {
  id: number;
  companyId: number | null;
  to: string[];
  subject: string;
  tag: string | null;
  status: MailStatus;
  attempts: number;
  smtpResponse: string | null;
  messageId: string;
  createdAt: string;
  sentAt: string | null;
  nextAttemptAt: string | null;
}

/** The delivery log, newest first: for the CLI, the portal and tests. */
export async function mailLog(
  deps: Deps,
  filter: { companyId?: number; tag?: string; status?: MailStatus; limit?: number } = {},
): Promise<MailLogEntry[]> {
  const rows = await deps.db
    .select()
    .from(mailOutbox)
    .where(
      and(
        filter.companyId === undefined ? undefined : eq(mailOutbox.companyId, filter.companyId),
        filter.tag === undefined ? undefined : eq(mailOutbox.tag, filter.tag),
        filter.status === undefined ? undefined : eq(mailOutbox.status, filter.status),
      ),
    )
    .orderBy(desc(mailOutbox.id))
    .limit(Math.min(Math.max(filter.limit ?? 50, 1), 500));
  return rows.map((r) => ({
    id: r.id,
    companyId: r.companyId,
    to: r.to,
    subject: r.subject,
    tag: r.tag,
    status: r.status,
    attempts: r.attempts,
    smtpResponse: r.smtpResponse,
    messageId: r.messageId,
    createdAt: iso(r.createdAt)!,
    sentAt: iso(r.sentAt),
    nextAttemptAt: r.status === "queued" ? iso(r.nextAttemptAt) : null,
  }));
}
