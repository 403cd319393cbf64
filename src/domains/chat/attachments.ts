/**
 * Files in live chat (issue 33): the visitor sends them from the widget,
 * an agent from the portal's transcript page; each is a chat message's
 * file. Checked, stored, limited and served through the tickets domain's
 * file face (tickets/files.ts), not a copy of it: the type comes from the
 * bytes, HTML and executables are refused, each file and the company's
 * files together (tickets and chats, one budget) stay within the limits
 * ticket_attachment_limits_set sets, and a download is always a download
 * (Content-Disposition: attachment, nosniff, the sniffed type).
 *
 * Who may fetch a file:
 *   - agents: by tool (chat_attachments_get: a sealed 15-minute link and the
 *     bytes when small) or from the portal's transcript (signed in);
 *   - the visitor: only through the links in their own thread, which the
 *     widget reads with the visitor token. A link is sealed over company,
 *     file and expiry (core/sealed.ts), so it can be neither made nor
 *     altered, and a visitor sees links to files of their own
 *     conversations only.
 * Anything else is "not found", another company's id included.
 */
import { and, asc, eq, inArray } from "drizzle-orm";
import type * as v from "valibot";
import { bodyBytes } from "../../core/blobs";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { notFound } from "../../core/errors";
import { seal, unseal } from "../../core/sealed";
import {
  checkBudget,
  fileResponse,
  INLINE_MAX,
  LINK_TTL_MS,
  type StoredFile,
  storedFileColumns,
} from "../tickets/files";
import { chatRead, conversationByNumber, ref } from "./access";
import type { attachmentGetInput, attachmentListInput } from "./schemas";
import { type ChatAttachmentSource, chatAttachments, chatConversations } from "./tables";

type Q = Pick<Db, "select">;
export type ChatAttachmentRow = typeof chatAttachments.$inferSelect;

/** Where the sealed links are served (no sign-in). */
export const CHAT_FILES_PREFIX = "/chat-files";
/** How long a link in the visitor's thread works: the widget reads the thread again on every load. */
export const VISITOR_LINK_TTL_MS = 24 * 3600_000;
const LINK_CONTEXT = "chat-attachment-link";

/** Records stored files on a chat message inside the caller's transaction, after the company's total is checked. */
export async function recordChatFiles(
  tx: Pick<Db, "select" | "insert">,
  deps: Deps,
  at: {
    companyId: number;
    conversationId: number;
    messageId: number;
    source: ChatAttachmentSource;
    userId: number | null;
  },
  files: StoredFile[],
): Promise<ChatAttachmentRow[]> {
  if (!files.length) return [];
  await checkBudget(tx, at.companyId, files);
  const now = deps.clock.now();
  return tx
    .insert(chatAttachments)
    .values(
      files.map((f) => ({
        companyId: at.companyId,
        conversationId: at.conversationId,
        messageId: at.messageId,
        source: at.source,
        ...storedFileColumns(f),
        uploadedBy: at.userId,
        createdAt: now,
      })),
    )
    .returning();
}

/** A message's text when it carries files and no words: the files' names. */
export const filesBody = (files: StoredFile[]) => files.map((f) => f.filename).join(", ");

export function chatAttachmentOut(a: ChatAttachmentRow) {
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

/** Files of the given messages, by message id, oldest first. */
export async function filesOfMessages(q: Q, messageIds: number[]): Promise<Map<number, ChatAttachmentRow[]>> {
  const out = new Map<number, ChatAttachmentRow[]>();
  if (!messageIds.length) return out;
  const rows = await q
    .select()
    .from(chatAttachments)
    .where(inArray(chatAttachments.messageId, messageIds))
    .orderBy(asc(chatAttachments.id));
  for (const r of rows) out.set(r.messageId, [...(out.get(r.messageId) ?? []), r]);
  return out;
}

/** Every file of a conversation, oldest first. */
export async function filesOfConversation(q: Q, conversationId: number) {
  return q
    .select()
    .from(chatAttachments)
    .where(eq(chatAttachments.conversationId, conversationId))
    .orderBy(asc(chatAttachments.id));
}

/** A sealed link to the file that works for `ttlMs` without signing in. */
export function chatFileLink(
  deps: Deps,
  a: Pick<ChatAttachmentRow, "id" | "companyId">,
  ttlMs = LINK_TTL_MS,
): { url: string; expiresAt: string } {
  const exp = deps.clock.now().getTime() + ttlMs;
  const token = seal(deps.config, `${a.companyId}.${a.id}.${exp}`, LINK_CONTEXT);
  return {
    url: `${deps.config.publicUrl.replace(/\/+$/, "")}${CHAT_FILES_PREFIX}/${token}`,
    expiresAt: new Date(exp).toISOString(),
  };
}

/** The file a link names, or null when the link is altered, expired or the file is gone. */
export async function chatFileOfLink(deps: Deps, token: string): Promise<ChatAttachmentRow | null> {
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
        .from(chatAttachments)
        .where(and(eq(chatAttachments.id, Number(m[2])), eq(chatAttachments.companyId, Number(m[1]))))
        .limit(1)
    )[0] ?? null
  );
}

/** One file of the acting company's conversation `number` (when given); anything else is "not found". */
export async function chatFileOf(q: Q, ctx: ActorContext, id: number, number?: number): Promise<ChatAttachmentRow> {
  const c = number === undefined ? null : await conversationByNumber(q, ctx, number);
  const r = (
    await q
      .select()
      .from(chatAttachments)
      .where(
        and(
          eq(chatAttachments.id, id),
          eq(chatAttachments.companyId, ctx.company.id),
          c ? eq(chatAttachments.conversationId, c.id) : undefined,
        ),
      )
      .limit(1)
  )[0];
  if (!r)
    throw notFound(`Chat file ${id} not found${c ? ` in conversation ${ref(c.number)}` : ""} in ${ctx.company.name}.`);
  return r;
}

export { fileResponse };

// ---------------------------------------------------------------------------
// Tools

export async function listChatAttachments(ctx: ActorContext, input: v.InferOutput<typeof attachmentListInput>) {
  chatRead(ctx);
  const db = ctx.deps.db;
  const c = await conversationByNumber(db, ctx, input.conversationId);
  const rows = await filesOfConversation(db, c.id);
  return { conversationId: c.number, items: rows.map(chatAttachmentOut) };
}

export async function getChatAttachment(ctx: ActorContext, input: v.InferOutput<typeof attachmentGetInput>) {
  chatRead(ctx);
  const db = ctx.deps.db;
  const a = await chatFileOf(db, ctx, input.id);
  const number = (
    await db
      .select({ n: chatConversations.number })
      .from(chatConversations)
      .where(eq(chatConversations.id, a.conversationId))
      .limit(1)
  )[0]!.n;
  const link = chatFileLink(ctx.deps, a);
  let dataBase64: string | undefined;
  if (a.sizeBytes <= INLINE_MAX) {
    const body = await ctx.deps.blobs.read(a.storageKey);
    if (body) dataBase64 = Buffer.from(await bodyBytes(body)).toString("base64");
  }
  return {
    ...chatAttachmentOut(a),
    conversationId: number,
    downloadUrl: link.url,
    downloadUrlExpiresAt: link.expiresAt,
    ...(dataBase64 !== undefined
      ? { dataBase64 }
      : { note: `Larger than ${INLINE_MAX} bytes: fetch it from downloadUrl (works until it expires).` }),
  };
}

/** A file as the visitor's thread shows it: name, type, size and a sealed link that works for a day. */
export interface VisitorFile {
  id: number;
  name: string;
  type: string;
  size: number;
  url: string;
}

export function visitorFiles(deps: Deps, rows: ChatAttachmentRow[] | undefined): VisitorFile[] | undefined {
  if (!rows?.length) return undefined;
  return rows.map((a) => ({
    id: a.id,
    name: a.filename,
    type: a.mimeType,
    size: a.sizeBytes,
    url: chatFileLink(deps, a, VISITOR_LINK_TTL_MS).url,
  }));
}
