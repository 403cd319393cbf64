/**
 * What a visitor does through the widget, without an account: write
 * (opening a conversation on the first message), read their own thread
 * (never notes), leave a name and email, and ask for the transcript.
 *
 * A visitor is known by a random token the widget keeps (localStorage of
 * the widget's frame); only its sha256 is stored. The first message makes
 * the visitor and returns the token once.
 *
 * Which conversation a message joins: the visitor's newest one, reopened
 * if it was pending, snoozed or resolved within REOPEN_WINDOW_MS; a
 * conversation resolved longer ago stays closed and the message starts a
 * new one (agents see a fresh conversation rather than an old thread
 * jumping back to the top, a common complaint in Chatwoot's tracker).
 *
 * What the visitor is told of a conversation's status (visitorStatus): open
 * or resolved, and for how long writing again still reopens it. Pending and
 * snoozed are the agents' workflow (waiting on someone, hidden until a
 * time); to the visitor the conversation is still live, and their message
 * reopens it like an open one, so they show as open.
 */
import { and, asc, desc, eq, gt, inArray, ne } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { forUpdate } from "../../core/sql";
import { randomHex, sha256Hex } from "../../core/secrets";
import { memberships } from "../../core/tables";
import { notify } from "../notifications/notify";
import { convFacts, nextNumber, ref, usersById, type ConversationRow, type InboxRow, type VisitorRow } from "./access";
import { sendTranscript } from "./conversations";
import {
  chatConversationCreated,
  chatConversationStatusChanged,
  chatMessageCreated,
  chatVisitorIdentified,
} from "./events";
import { kickHub } from "./hub";
import { discardStored, type StoredFile } from "../tickets/files";
import { filesBody, filesOfMessages, recordChatFiles, visitorFiles, type VisitorFile } from "./attachments";
import { chatConversations, chatMessages, chatVisitors, type ChatStatus } from "./tables";

export const REOPEN_WINDOW_MS = 24 * 3600_000;
export const VISITOR_LIMITS = { body: 4000, name: 120, email: 254, pageUrl: 1000 } as const;
const TOKEN_RE = /^cv_[0-9a-f]{48}$/;

export async function visitorByToken(
  deps: Deps,
  inbox: InboxRow,
  token: string | null | undefined,
): Promise<VisitorRow | null> {
  if (!token || !TOKEN_RE.test(token)) return null;
  const row = (
    await deps.db
      .select()
      .from(chatVisitors)
      .where(eq(chatVisitors.tokenHash, sha256Hex(token)))
      .limit(1)
  )[0];
  return row && row.inboxId === inbox.id ? row : null;
}

/** Cleans visitor text: trims, refuses blank, NUL and over-long. */
export function cleanBody(raw: unknown): string {
  if (typeof raw !== "string") throw invalid("body must be a string.");
  const body = raw.replace(/\r\n?/g, "\n").trim();
  if (!body) throw invalid("Write a message first.");
  if (body.length > VISITOR_LIMITS.body) throw invalid(`A message is at most ${VISITOR_LIMITS.body} characters.`);
  if (/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(body))
    throw invalid("The message contains control characters.");
  return body;
}

const EMAIL_RE = /^[^\s@<>()[\],;:"\\]+@[^\s@<>()[\],;:"\\]+\.[^\s@<>()[\],;:"\\]+$/;

export function cleanProfile(o: { name?: unknown; email?: unknown }): { name?: string | null; email?: string | null } {
  const out: { name?: string | null; email?: string | null } = {};
  if (o.name !== undefined && o.name !== null) {
    if (typeof o.name !== "string") throw invalid("name must be a string.");
    const n = o.name.replace(/\s+/g, " ").trim();
    if (n.length > VISITOR_LIMITS.name) throw invalid(`A name is at most ${VISITOR_LIMITS.name} characters.`);
    if (/[\u0000-\u001f\u007f]/.test(n)) throw invalid("The name contains control characters.");
    out.name = n || null;
  }
  if (o.email !== undefined && o.email !== null) {
    if (typeof o.email !== "string") throw invalid("email must be a string.");
    const e = o.email.trim().toLowerCase();
    if (e && (e.length > VISITOR_LIMITS.email || !EMAIL_RE.test(e)))
      throw invalid("That does not look like an email address.");
    out.email = e || null;
  }
  return out;
}

function cleanPageUrl(raw: unknown): string | null {
  if (typeof raw !== "string" || raw.length > VISITOR_LIMITS.pageUrl) return null;
  try {
    const u = new URL(raw);
    return u.protocol === "https:" || u.protocol === "http:" ? u.toString() : null;
  } catch {
    return null;
  }
}

async function staff(db: Db, companyId: number): Promise<number[]> {
  const rows = await db
    .select({ u: memberships.userId, role: memberships.role })
    .from(memberships)
    .where(and(eq(memberships.companyId, companyId), ne(memberships.role, "viewer")));
  return rows.map((r) => r.u);
}

export interface PostResult {
  token: string | null;
  visitorId: number;
  conversation: number;
  message: VisibleMessage;
}

/** A visitor's message: makes the visitor (first message), the conversation, or reopens one; notifies; one transaction. */
export async function visitorPost(
  deps: Deps,
  inbox: InboxRow,
  visitor: VisitorRow | null,
  input: { body: unknown; name?: unknown; email?: unknown; pageUrl?: unknown },
  /** Files checked and stored already (storeFiles); discarded here when the message does not commit. */
  files: StoredFile[] = [],
): Promise<PostResult> {
  const body =
    files.length && (input.body === undefined || input.body === "") ? filesBody(files) : cleanBody(input.body);
  const profile = cleanProfile(input);
  const pageUrl = cleanPageUrl(input.pageUrl);
  const actor = { deps, company: { id: inbox.companyId } };
  // Read committed on PostgreSQL, like the agents' verbs (conversations.ts): what this decides on is
  // locked first (the visitor's row by its update, then the conversation), and a new conversation's
  // number comes from an upsert of the company's counter row, which waits for a racing one instead of
  // aborting it as SERIALIZABLE would. A first message makes a new visitor: nothing to race with.
  const out = await deps.db
    .transaction(
      async (tx) => {
        const now = deps.clock.now();
        let token: string | null = null;
        let v = visitor;
        if (!v) {
          token = `cv_${randomHex(24)}`;
          v = (
            await tx
              .insert(chatVisitors)
              .values({
                companyId: inbox.companyId,
                inboxId: inbox.id,
                tokenHash: sha256Hex(token),
                name: profile.name ?? null,
                email: profile.email ?? null,
                createdAt: now,
                lastSeenAt: now,
              })
              .returning()
          )[0]!;
        } else {
          const set: Partial<VisitorRow> = { lastSeenAt: now };
          if (profile.name) set.name = profile.name;
          if (profile.email) set.email = profile.email;
          v = (await tx.update(chatVisitors).set(set).where(eq(chatVisitors.id, v.id)).returning())[0]!;
        }
        // Locked: an agent's verb on this conversation (resolve, reply) waits for this one or this for it (read committed, below).
        let conv: ConversationRow | undefined = (
          await forUpdate(
            tx
              .select()
              .from(chatConversations)
              .where(eq(chatConversations.visitorId, v.id))
              .orderBy(desc(chatConversations.id))
              .limit(1),
          )
        )[0];
        if (conv && startsNew(conv, now)) conv = undefined;
        const visitorFacts = { id: v.id, name: v.name, email: v.email };
        let created = false;
        if (!conv) {
          created = true;
          const number = await nextNumber(tx, inbox.companyId);
          conv = (
            await tx
              .insert(chatConversations)
              .values({
                companyId: inbox.companyId,
                inboxId: inbox.id,
                visitorId: v.id,
                number,
                status: "open",
                snoozedUntil: null,
                priority: "none",
                assigneeId: null,
                pageUrl,
                createdAt: now,
                updatedAt: now,
                lastMessageAt: now,
                lastVisitorMessageAt: now,
              })
              .returning()
          )[0]!;
        }
        const msg = (
          await tx
            .insert(chatMessages)
            .values({
              companyId: inbox.companyId,
              conversationId: conv.id,
              kind: "visitor",
              userId: null,
              body,
              createdAt: now,
            })
            .returning()
        )[0]!;
        const attached = await recordChatFiles(
          tx,
          deps,
          { companyId: inbox.companyId, conversationId: conv.id, messageId: msg.id, source: "visitor", userId: null },
          files,
        );
        const from = conv.status;
        conv = (
          await tx
            .update(chatConversations)
            .set({
              status: "open",
              snoozedUntil: null,
              resolvedAt: null,
              lastMessageAt: now,
              lastVisitorMessageAt: now,
              updatedAt: now,
            })
            .where(eq(chatConversations.id, conv.id))
            .returning()
        )[0]!;
        const facts = convFacts(conv, inbox, visitorFacts);
        const entity = { id: conv.number, siteId: inbox.siteId };
        const who = v.name ?? v.email ?? "A visitor";
        if (created) {
          await emit(tx, actor, chatConversationCreated, entity, { ...facts, messageId: msg.id, body, pageUrl });
          await notify(deps, {
            companyId: inbox.companyId,
            userIds: await staff(tx, inbox.companyId),
            type: "chat.conversation_created",
            title: `${who} started chat ${ref(conv.number)} on ${inbox.name}`,
            body: body.slice(0, 300),
            link: `/chat/${conv.number}`,
            entity: { type: "chat_conversation", id: conv.number },
          });
        } else if (from !== "open") {
          await emit(tx, actor, chatConversationStatusChanged, entity, {
            ...facts,
            from,
            to: "open",
            snoozedUntil: null,
            reason: "visitor_message",
          });
        }
        await emit(tx, actor, chatMessageCreated, entity, {
          ...facts,
          messageId: msg.id,
          author: "visitor",
          authorUserId: null,
          body,
          status: conv.status,
        });
        if (!created && conv.assigneeId !== null)
          await notify(deps, {
            companyId: inbox.companyId,
            userIds: [conv.assigneeId],
            type: "chat.message_created",
            title: `${who} wrote in chat ${ref(conv.number)}`,
            body: body.slice(0, 300),
            link: `/chat/${conv.number}`,
            entity: { type: "chat_conversation", id: conv.number },
          });
        return {
          token,
          visitorId: v.id,
          conversation: conv.number,
          message: visible(msg, new Map(), visitorFiles(deps, attached)),
        };
      },
      { isolation: "read committed" },
    )
    .catch(async (e) => {
      await discardStored(deps, files);
      throw e;
    });
  kickHub(deps);
  return out;
}

export interface VisibleMessage {
  id: number;
  from: "visitor" | "agent";
  author: string | null;
  body: string;
  at: string;
  /** The message's files with links for this visitor (attachments.ts); absent when none. */
  files?: VisitorFile[];
}

/** What the visitor sees of a message: who (the agent's name only), the text, the time. Never a note. */
export function visible(
  m: { id: number; kind: string; userId: number | null; body: string; createdAt: Date },
  authors: Map<number, { name: string | null }>,
  files?: VisitorFile[],
): VisibleMessage {
  if (m.kind === "note") throw new Error("a note must never reach a visitor");
  return {
    id: m.id,
    from: m.kind === "visitor" ? "visitor" : "agent",
    author: m.kind === "agent" && m.userId !== null ? (authors.get(m.userId)?.name?.split(/\s+/)[0] ?? null) : null,
    body: m.body,
    at: iso(m.createdAt)!,
    ...(files && { files }),
  };
}

/** The visitor's messages across their conversations, after `after` (an id), oldest first; notes never. */
export async function visitorMessages(
  deps: Deps,
  visitor: VisitorRow,
  after: number,
  limit = 200,
): Promise<VisibleMessage[]> {
  const convs = (
    await deps.db
      .select({ id: chatConversations.id })
      .from(chatConversations)
      .where(eq(chatConversations.visitorId, visitor.id))
  ).map((c) => c.id);
  if (!convs.length) return [];
  const rows = await deps.db
    .select()
    .from(chatMessages)
    .where(
      and(
        inArray(chatMessages.conversationId, convs),
        inArray(chatMessages.kind, ["visitor", "agent"]),
        gt(chatMessages.id, after),
      ),
    )
    .orderBy(asc(chatMessages.id))
    .limit(limit);
  const authors = await usersById(
    deps.db,
    rows.map((r) => r.userId),
  );
  const files = await filesOfMessages(
    deps.db,
    rows.map((r) => r.id),
  );
  return rows.map((r) => visible(r, authors, visitorFiles(deps, files.get(r.id))));
}

/**
 * Whether a visitor's message starts a new conversation rather than
 * reopening this one: resolved more than REOPEN_WINDOW_MS ago. The one home
 * of the rule, for visitorPost and for what the widget is told.
 */
export function startsNew(c: { status: ChatStatus; resolvedAt: Date | null }, now: Date): boolean {
  // Resolved without a time (rows written outside the verbs): nothing to count from, so a message reopens it.
  return c.status === "resolved" && c.resolvedAt !== null && now.getTime() - c.resolvedAt.getTime() > REOPEN_WINDOW_MS;
}

/**
 * A conversation's status as its visitor sees it: the `event: status` of
 * the widget's stream and `status` of GET …/messages. Nothing an agent
 * keeps to themselves (assignee, priority, labels, notes, snooze time).
 */
export interface VisitorStatus {
  /** The conversation's number, as the visitor's POST answers it. */
  conversation: number;
  /** pending and snoozed show as open (see above). */
  status: "open" | "resolved";
  /** Resolved: seconds during which writing again reopens it (0: a message starts a new conversation). Open: null. */
  reopensFor: number | null;
}

export function visitorStatus(
  c: { number: number; status: ChatStatus; resolvedAt: Date | null },
  now: Date,
): VisitorStatus {
  if (c.status !== "resolved") return { conversation: c.number, status: "open", reopensFor: null };
  if (startsNew(c, now)) return { conversation: c.number, status: "resolved", reopensFor: 0 };
  const left = c.resolvedAt ? c.resolvedAt.getTime() + REOPEN_WINDOW_MS - now.getTime() : REOPEN_WINDOW_MS;
  // Rounded up (and at least 1 while the rule still reopens): the widget says "reopen" as long as the server would.
  return { conversation: c.number, status: "resolved", reopensFor: Math.max(1, Math.ceil(left / 1000)) };
}

/** The status of the visitor's newest conversation (the one their next message goes to, or follows): what the widget shows. */
export async function currentStatus(deps: Deps, db: Db, visitorId: number): Promise<VisitorStatus | null> {
  const c = (
    await db
      .select({
        number: chatConversations.number,
        status: chatConversations.status,
        resolvedAt: chatConversations.resolvedAt,
      })
      .from(chatConversations)
      .where(eq(chatConversations.visitorId, visitorId))
      .orderBy(desc(chatConversations.id))
      .limit(1)
  )[0];
  return c ? visitorStatus(c, deps.clock.now()) : null;
}

export async function updateProfile(
  deps: Deps,
  inbox: InboxRow,
  visitor: VisitorRow,
  input: { name?: unknown; email?: unknown },
) {
  const p = cleanProfile(input);
  return deps.db.transaction(async (tx) => {
    const row = (
      await tx
        .update(chatVisitors)
        .set({ ...p, lastSeenAt: deps.clock.now() })
        .where(eq(chatVisitors.id, visitor.id))
        .returning()
    )[0]!;
    await emit(
      tx,
      { deps, company: { id: inbox.companyId } },
      chatVisitorIdentified,
      { id: row.id, siteId: inbox.siteId },
      { inboxId: inbox.id, name: row.name, email: row.email },
    );
    return { name: row.name, email: row.email };
  });
}

/** The visitor's newest conversation, emailed to the address they gave. */
export async function visitorTranscript(deps: Deps, visitor: VisitorRow) {
  if (!visitor.email) throw invalid("Leave your email first, then ask for the transcript.");
  return deps.db.transaction(async (tx) => {
    const conv = (
      await tx
        .select()
        .from(chatConversations)
        .where(eq(chatConversations.visitorId, visitor.id))
        .orderBy(desc(chatConversations.id))
        .limit(1)
    )[0];
    if (!conv) throw conflict("There is no conversation to send yet.");
    const n = await sendTranscript(deps, tx, conv, visitor.email!, "visitor", null);
    return { to: visitor.email, messages: n };
  });
}
