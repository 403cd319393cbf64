/**
 * Files on tickets (issue 33): kept from inbound mail, attached by agents
 * to their replies (and mailed with them, delivery.ts), listed and fetched
 * by tool, downloaded from the portal and from short-lived links.
 *
 * The bytes live in the media store (deps.blobs), so a file is wherever
 * the company's media is (data dir, database, S3) and the same backups
 * carry it. The rules a file must pass are the media library's, reused
 * through cms/file-rules.ts: the type comes from the bytes, never from the
 * name or the declared type (HTML, executables and anything unrecognised
 * are refused; a declaration the bytes contradict too), and the file name
 * is cut to its last segment. The download name ends in the extension of
 * the sniffed type, so a PNG named "invoice.html" downloads as
 * "invoice.html.png" and never opens as a page.
 *
 * Limits per company (ticket_attachment_limits, defaults below): each file
 * at most maxFileBytes (inclusive), and every stored file of the company's
 * tickets and chats (chat/attachments.ts stores through files.ts) together
 * at most maxTotalBytes; checked inside the transaction
 * that records the file. Two uploads racing can pass the total by at most
 * one file each, the price of not locking the company's rows.
 *
 * Downloads are always `Content-Disposition: attachment` with
 * `X-Content-Type-Options: nosniff`, the sniffed type as Content-Type and
 * the media route's sandboxing CSP: whatever the bytes are, they never
 * render as a page of our origin.
 */
import { createHash } from "node:crypto";
import { and, asc, eq, inArray, max, notInArray, sum } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { bodyBytes } from "../../core/blobs";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { AppError, invalid, notFound } from "../../core/errors";
import { randomHex } from "../../core/secrets";
import { seal, unseal } from "../../core/sealed";
import { authorize } from "../../core/scopes";
import {
  cleanFilename,
  contentDisposition,
  decideType,
  decodeUpload,
  MEDIA_CSP,
  MEDIA_TYPES,
  normaliseMime,
} from "../cms/file-rules";
import { chatFileSizes, chatHeldKeys } from "../chat/file-keys";
import { ticketByNumber, ticketsRead } from "./access";
import type { attachmentGetInput, attachmentLimitsInput, attachmentListInput } from "./schemas";
import { type AttachmentSource, ticketAttachmentLimits, ticketAttachments, tickets } from "./tables";

type Q = Pick<Db, "select">;
type AttachmentRow = typeof ticketAttachments.$inferSelect;

export const DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_TOTAL_BYTES = 1024 * 1024 * 1024;
/** Files one reply or one mail may carry. */
export const MAX_FILES_PER_MESSAGE = 10;
/** ticket_attachments_get returns the bytes themselves (base64) up to this size; larger files by link only. */
export const INLINE_MAX = 256 * 1024;
/** How long a download link from ticket_attachments_get works. */
export const LINK_TTL_MS = 15 * 60_000;
export const FILES_PREFIX = "/ticket-files";

const LINK_CONTEXT = "ticket-attachment-link";

/** A file before it is stored: from a mail part, or decoded from a tool's base64. */
export interface IncomingFile {
  filename: string;
  bytes: Uint8Array;
  /** The type the sender claimed; used only for text types, which have no magic number. */
  declared?: string;
}

/** A file checked and in the store, waiting for its row. */
/** A stored file's columns, as the ticket and chat attachment tables both keep them. */
export const storedFileColumns = (f: StoredFile) => ({
  filename: f.filename,
  mimeType: f.mimeType,
  sizeBytes: f.sizeBytes,
  storageKey: f.storageKey,
  sha256: f.sha256,
});

export interface StoredFile {
  filename: string;
  mimeType: string;
  sizeBytes: number;
  storageKey: string;
  sha256: string;
  /** Whether this call wrote the bytes (false: an earlier attachment's key, reused). */
  fresh: boolean;
}

export interface Limits {
  maxFileBytes: number;
  maxTotalBytes: number;
}

export async function limitsOf(q: Q, companyId: number): Promise<Limits> {
  const row = (
    await q.select().from(ticketAttachmentLimits).where(eq(ticketAttachmentLimits.companyId, companyId)).limit(1)
  )[0];
  return {
    maxFileBytes: row?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES,
    maxTotalBytes: row?.maxTotalBytes ?? DEFAULT_MAX_TOTAL_BYTES,
  };
}

/**
 * Bytes the company's files take, each stored key once: its tickets' files
 * and its chats' (chat/file-keys.ts), one budget. A chat file carried over
 * to a ticket shares its key and counts once.
 */
export async function usedBytes(q: Q, companyId: number): Promise<number> {
  const perKey = q
    .select({ key: ticketAttachments.storageKey, size: max(ticketAttachments.sizeBytes).as("size") })
    .from(ticketAttachments)
    .where(eq(ticketAttachments.companyId, companyId))
    .groupBy(ticketAttachments.storageKey)
    .as("per_key");
  const ticketKeys = q
    .select({ key: ticketAttachments.storageKey })
    .from(ticketAttachments)
    .where(eq(ticketAttachments.companyId, companyId));
  const chat = chatFileSizes(q, companyId).as("chat_key");
  const t = (await q.select({ n: sum(perKey.size) }).from(perKey))[0];
  const c = (
    await q
      .select({ n: sum(chat.size) })
      .from(chat)
      .where(notInArray(chat.key, ticketKeys))
  )[0];
  return Number(t?.n ?? 0) + Number(c?.n ?? 0);
}

/** The name the file downloads as: the cleaned original, ending in the sniffed type's extension. */
export function downloadName(filename: string, ext: string): string {
  const own = /\.([A-Za-z0-9]{1,10})$/.exec(filename)?.[1]?.toLowerCase();
  const same = own === ext || (ext === "jpg" && own === "jpeg");
  return same ? filename : `${filename.slice(0, 240)}.${ext}`;
}

/**
 * Checks one file against the company's per-file limit and the type rules;
 * returns what to store or throws a validation error naming the file.
 */
export function checkFile(f: IncomingFile, limits: Limits, label: string) {
  let filename: string;
  try {
    filename = cleanFilename(f.filename);
  } catch {
    throw invalid(`${label}: the file name ${JSON.stringify(f.filename.slice(0, 80))} names no file.`);
  }
  if (f.bytes.length === 0) throw invalid(`${label} (${filename}) is empty.`);
  if (f.bytes.length > limits.maxFileBytes)
    throw new AppError(
      "payload_too_large",
      `${label} (${filename}) is ${f.bytes.length} bytes; a file is at most ${limits.maxFileBytes} bytes.`,
      { maxBytes: limits.maxFileBytes },
    );
  const declared = f.declared === undefined ? undefined : normaliseMime(f.declared);
  const decided = decideType(f.bytes, declared && MEDIA_TYPES[declared] ? declared : undefined);
  if (!decided.ok) throw invalid(`${label} (${filename}) is refused: ${decided.message}`);
  return { filename: downloadName(filename, decided.type.ext), type: decided.type };
}

/** Removes keys from the store, logging (not throwing): used when the rows that wanted them did not commit. */
async function discard(deps: Deps, keys: string[]) {
  if (!keys.length) return;
  try {
    await deps.blobs.remove(keys);
  } catch (e) {
    console.error(`tickets: could not remove ${keys.join(", ")}:`, e);
  }
}

/**
 * Checks and stores files for company `companyId` before the transaction
 * that records them; call `rows` inside it, and `discard` if it fails.
 */
export async function storeFiles(deps: Deps, companyId: number, files: IncomingFile[], label = "Attachment") {
  if (files.length > MAX_FILES_PER_MESSAGE)
    throw invalid(`At most ${MAX_FILES_PER_MESSAGE} files on one message; ${files.length} were given.`);
  const limits = await limitsOf(deps.db, companyId);
  const checked = files.map((f, i) => ({
    ...checkFile(f, limits, files.length > 1 ? `${label} ${i + 1}` : label),
    bytes: f.bytes,
  }));
  const out: StoredFile[] = [];
  try {
    for (const f of checked) {
      const key = `att/${companyId}/${randomHex(12)}.${f.type.ext}`;
      await deps.blobs.put(key, f.bytes, f.type.mime);
      out.push({
        filename: f.filename,
        mimeType: f.type.mime,
        sizeBytes: f.bytes.length,
        storageKey: key,
        sha256: createHash("sha256").update(f.bytes).digest("hex"),
        fresh: true,
      });
    }
  } catch (e) {
    await discard(
      deps,
      out.map((o) => o.storageKey),
    );
    throw e;
  }
  return out;
}

/** The files' keys this call wrote, to discard when their transaction failed. */
export const discardStored = (deps: Deps, files: StoredFile[]) =>
  discard(
    deps,
    files.filter((f) => f.fresh).map((f) => f.storageKey),
  );

/** Earlier attachments of the acting company, by id, to send again: another company's id is "not found". */
export async function reuseFiles(q: Q, ctx: ActorContext, ids: number[]): Promise<StoredFile[]> {
  if (!ids.length) return [];
  const found = await q
    .select()
    .from(ticketAttachments)
    .where(and(eq(ticketAttachments.companyId, ctx.company.id), inArray(ticketAttachments.id, ids)));
  return ids.map((id) => {
    const r = found.find((x) => x.id === id);
    if (!r) throw notFound(`Attachment ${id} not found in ${ctx.company.name}. See ticket_attachments_list.`);
    return { ...r, fresh: false };
  });
}

/**
 * Refuses (payload_too_large) when `files` would take the company past its
 * total; fresh bytes only, a reused key is counted already. Inside the
 * transaction that records them.
 */
export async function checkBudget(q: Q, companyId: number, files: StoredFile[]) {
  const adding = files.filter((f) => f.fresh).reduce((n, f) => n + f.sizeBytes, 0);
  if (adding === 0) return;
  const limits = await limitsOf(q, companyId);
  const used = await usedBytes(q, companyId);
  if (used + adding > limits.maxTotalBytes)
    throw new AppError(
      "payload_too_large",
      `The company's files (tickets and chats) would take ${used + adding} bytes; the limit is ${limits.maxTotalBytes} (${used} in use). Nothing was attached.`,
      { maxBytes: limits.maxTotalBytes, usedBytes: used },
    );
}

/**
 * Records stored files on a ticket's message inside the caller's
 * transaction, after checking the company's total (fresh bytes only: a
 * reused key is counted already).
 */
export async function recordFiles(
  tx: Pick<Db, "select" | "insert">,
  deps: Deps,
  at: {
    companyId: number;
    ticketId: number;
    messageId: number | null;
    source: AttachmentSource;
    userId: number | null;
  },
  files: StoredFile[],
) {
  if (!files.length) return [];
  await checkBudget(tx, at.companyId, files);
  const now = deps.clock.now();
  return tx
    .insert(ticketAttachments)
    .values(
      files.map((f) => ({
        companyId: at.companyId,
        ticketId: at.ticketId,
        messageId: at.messageId,
        source: at.source,
        ...storedFileColumns(f),
        uploadedBy: at.userId,
        createdAt: now,
      })),
    )
    .returning();
}

export function attachmentOut(a: AttachmentRow) {
  return {
    id: a.id,
    filename: a.filename,
    mimeType: a.mimeType,
    sizeBytes: a.sizeBytes,
    source: a.source,
    messageId: a.messageId,
    createdAt: iso(a.createdAt),
  };
}

/** Attachments of ticket rows, by message id (for the thread); files of no message under 0. */
export async function attachmentsOfTickets(q: Q, ticketIds: number[]) {
  if (!ticketIds.length) return [];
  return q
    .select()
    .from(ticketAttachments)
    .where(inArray(ticketAttachments.ticketId, ticketIds))
    .orderBy(asc(ticketAttachments.id));
}

export async function attachmentsOfMessage(q: Q, companyId: number, messageId: number) {
  return q
    .select()
    .from(ticketAttachments)
    .where(and(eq(ticketAttachments.companyId, companyId), eq(ticketAttachments.messageId, messageId)))
    .orderBy(asc(ticketAttachments.id));
}

/** One attachment of the acting company on ticket `number` (when given); anything else is "not found". */
export async function attachmentOf(q: Q, ctx: ActorContext, id: number, number?: number): Promise<AttachmentRow> {
  const t = number === undefined ? null : await ticketByNumber(q, ctx, number);
  const r = (
    await q
      .select()
      .from(ticketAttachments)
      .where(
        and(
          eq(ticketAttachments.id, id),
          eq(ticketAttachments.companyId, ctx.company.id),
          t ? eq(ticketAttachments.ticketId, t.id) : undefined,
        ),
      )
      .limit(1)
  )[0];
  if (!r) throw notFound(`Attachment ${id} not found${t ? ` on ticket #${t.number}` : ""} in ${ctx.company.name}.`);
  return r;
}

// ---------------------------------------------------------------------------
// Tools

export async function listAttachments(ctx: ActorContext, input: v.InferOutput<typeof attachmentListInput>) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const t = await ticketByNumber(db, ctx, input.ticketId);
  const rows = await attachmentsOfTickets(db, [t.id]);
  return { ticketId: t.number, items: rows.map(attachmentOut) };
}

/** A link to the file that works for LINK_TTL_MS without signing in: sealed, so it cannot be made or altered. */
export function downloadLink(
  deps: Deps,
  a: Pick<AttachmentRow, "id" | "companyId">,
): { url: string; expiresAt: string } {
  const exp = deps.clock.now().getTime() + LINK_TTL_MS;
  const token = seal(deps.config, `${a.companyId}.${a.id}.${exp}`, LINK_CONTEXT);
  return {
    url: `${deps.config.publicUrl.replace(/\/+$/, "")}${FILES_PREFIX}/${token}`,
    expiresAt: new Date(exp).toISOString(),
  };
}

export async function getAttachment(ctx: ActorContext, input: v.InferOutput<typeof attachmentGetInput>) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const a = await attachmentOf(db, ctx, input.id);
  const number = (await db.select({ n: tickets.number }).from(tickets).where(eq(tickets.id, a.ticketId)).limit(1))[0]!
    .n;
  const link = downloadLink(ctx.deps, a);
  let dataBase64: string | undefined;
  if (a.sizeBytes <= INLINE_MAX) {
    const body = await ctx.deps.blobs.read(a.storageKey);
    if (body) dataBase64 = Buffer.from(await bodyBytes(body)).toString("base64");
  }
  return {
    ...attachmentOut(a),
    ticketId: number,
    downloadUrl: link.url,
    downloadUrlExpiresAt: link.expiresAt,
    ...(dataBase64 !== undefined
      ? { dataBase64 }
      : { note: `Larger than ${INLINE_MAX} bytes: fetch it from downloadUrl (works until it expires).` }),
  };
}

export async function setAttachmentLimits(ctx: ActorContext, input: v.InferOutput<typeof attachmentLimitsInput>) {
  authorize(ctx, "tickets:write", { write: true, minRole: "admin" });
  const db = ctx.deps.db;
  const now = ctx.deps.clock.now();
  const before = await limitsOf(db, ctx.company.id);
  const bound = ctx.deps.config.maxUploadBytes;
  if (input.maxFileBytes !== undefined && input.maxFileBytes > bound)
    throw invalid(`maxFileBytes is at most ${bound} on this server (PLINTH_MAX_UPLOAD_BYTES bounds every upload).`, {
      path: "maxFileBytes",
    });
  const next = {
    maxFileBytes: input.maxFileBytes ?? before.maxFileBytes,
    maxTotalBytes: input.maxTotalBytes ?? before.maxTotalBytes,
  };
  await ctx.deps.store.transaction(async (tx) => {
    await tx
      .insert(ticketAttachmentLimits)
      .values({ companyId: ctx.company.id, ...next, updatedAt: now })
      .onConflictDoUpdate({ target: ticketAttachmentLimits.companyId, set: { ...next, updatedAt: now } });
    await audit(tx, ctx, "tickets.attachment_limits", { type: "company", id: ctx.company.id, detail: next });
  });
  return { ...next, usedBytes: await usedBytes(db, ctx.company.id) };
}

// ---------------------------------------------------------------------------
// Serving

/** The response for a stored file: always a download, typed by the sniffed type, never sniffed again. */
export async function fileResponse(
  deps: Deps,
  a: Pick<AttachmentRow, "storageKey" | "mimeType" | "filename" | "sizeBytes">,
): Promise<Response> {
  const body = await deps.blobs.read(a.storageKey);
  if (!body) return new Response("Not found", { status: 404, headers: { "Content-Type": "text/plain" } });
  const text = a.mimeType.startsWith("text/") || a.mimeType === "application/json";
  return new Response(body as BodyInit, {
    status: 200,
    headers: {
      "Content-Type": text ? `${a.mimeType}; charset=utf-8` : a.mimeType,
      "Content-Disposition": contentDisposition("attachment", a.filename),
      "Content-Length": String(a.sizeBytes),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": MEDIA_CSP,
      "Cache-Control": "private, no-store",
      "Referrer-Policy": "no-referrer",
    },
  });
}

/** The attachment a download link names, or null when the link is altered, expired or the file is gone. */
export async function attachmentOfLink(deps: Deps, token: string): Promise<AttachmentRow | null> {
  if (token.length > 400 || !/^[A-Za-z0-9._-]+$/.test(token)) return null;
  let plain: string;
  try {
    plain = unseal(deps.config, token, LINK_CONTEXT);
  } catch {
    return null;
  }
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(plain);
  if (!m || Number(m[3]) < deps.clock.now().getTime()) return null;
  return (
    (
      await deps.db
        .select()
        .from(ticketAttachments)
        .where(and(eq(ticketAttachments.id, Number(m[2])), eq(ticketAttachments.companyId, Number(m[1]))))
        .limit(1)
    )[0] ?? null
  );
}

/** One file of a tool's `attachments`: an upload (filename + dataBase64) or an earlier attachment's id. */
export interface AttachmentArg {
  attachmentId?: number;
  filename?: string;
  dataBase64?: string;
  mimeType?: string;
}

/**
 * A tool's files, checked, decoded within the company's per-file limit
 * and stored; earlier attachments looked up in the acting company. Call
 * before the transaction; discardStored when it fails.
 */
export async function prepareFiles(ctx: ActorContext, args: AttachmentArg[] | undefined): Promise<StoredFile[]> {
  if (!args?.length) return [];
  if (args.length > MAX_FILES_PER_MESSAGE)
    throw invalid(`At most ${MAX_FILES_PER_MESSAGE} attachments on one message; ${args.length} were given.`);
  const ids: number[] = [];
  const uploads: IncomingFile[] = [];
  const limits = await limitsOf(ctx.deps.db, ctx.company.id);
  args.forEach((a, i) => {
    const at = `attachments[${i}]`;
    if (a.attachmentId !== undefined) {
      if (a.dataBase64 !== undefined || a.filename !== undefined)
        throw invalid(`${at}: give attachmentId, or filename with dataBase64, not both.`);
      ids.push(a.attachmentId);
      return;
    }
    if (a.dataBase64 === undefined || a.filename === undefined)
      throw invalid(`${at}: give filename and dataBase64 (the file's bytes), or attachmentId.`);
    const { bytes, declared } = decodeUpload(a.dataBase64, limits.maxFileBytes);
    uploads.push({ filename: a.filename, bytes, declared: a.mimeType ?? declared });
  });
  const reused = await reuseFiles(ctx.deps.db, ctx, ids);
  const stored = await storeFiles(ctx.deps, ctx.company.id, uploads);
  // In the order given.
  return args.map((a) => (a.attachmentId !== undefined ? reused.shift()! : stored.shift()!));
}

/** Storage keys of a ticket's files, read before it is deleted (the rows go with it). */
export async function keysOfTicket(q: Q, ticketId: number): Promise<string[]> {
  const r = await q
    .select({ key: ticketAttachments.storageKey })
    .from(ticketAttachments)
    .where(eq(ticketAttachments.ticketId, ticketId))
    .groupBy(ticketAttachments.storageKey);
  return r.map((x) => x.key);
}

/**
 * Removes the bytes of `keys` that no attachment row holds any more (a file
 * sent again on another ticket, or still on the chat it came from, stays). In the database store the removal
 * is part of the caller's transaction; elsewhere it waits for the commit,
 * so a rollback never leaves a row without its file.
 */
export async function forgetFiles(q: Q, deps: Deps, keys: string[]) {
  if (!keys.length) return;
  const held = new Set(
    (
      await q
        .select({ key: ticketAttachments.storageKey })
        .from(ticketAttachments)
        .where(inArray(ticketAttachments.storageKey, keys))
        .groupBy(ticketAttachments.storageKey)
    ).map((r) => r.key),
  );
  for (const k of await chatHeldKeys(q, keys)) held.add(k);
  const gone = keys.filter((k) => !held.has(k));
  if (!gone.length) return;
  if (deps.blobs.kind === "db" || !deps.store.inTransaction()) return deps.blobs.remove(gone);
  deps.store.afterCommit(() => void discard(deps, gone));
}
