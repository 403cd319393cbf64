/**
 * Conversations as agents work them (MCP): list and search, read with the
 * thread, reply, internal notes, assignment, priority and labels, snooze,
 * resolve and reopen, and emailing the transcript.
 *
 * Statuses: open (someone should act), pending (waiting on the visitor or
 * on hold), snoozed (hidden until snoozedUntil; the job reopens it, and so
 * does a visitor's message), resolved (a visitor's message reopens it).
 * Replies and notes are separate tools on purpose: one "private" toggle is
 * how help-desk users end up sending internal notes to customers.
 */
import { and, asc, count, desc, eq, exists, inArray, isNull, lte, or, type SQL } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { queueMail } from "../../core/mail";
import { page } from "../../core/pagination";
import { containsText } from "../../core/sql";
import { notify } from "../notifications/notify";
import { siteName } from "../sites/facts";
import {
  assigneeOf,
  chatRead,
  chatWrite,
  conversationByNumber,
  conversationOut,
  convFacts,
  extrasFor,
  factsFor,
  labelsOf,
  lockConversation,
  messageOut,
  ref,
  userIdOf,
  usersById,
  type ConversationRow,
} from "./access";
import {
  chatConversationAssigned,
  chatConversationStatusChanged,
  chatConversationUpdated,
  chatMessageCreated,
  chatNoteAdded,
  chatTranscriptSent,
} from "./events";
import type {
  assignInput,
  conversationGetInput,
  conversationListInput,
  noteInput,
  replyInput,
  snoozeInput,
  statusInput,
  transcriptInput,
  updateInput,
} from "./schemas";
import { chatConversations, chatInboxes, chatLabels, chatMessages, chatVisitors, type ChatStatus } from "./tables";
import { cannedByRef } from "./canned";
import { kickHub } from "./hub";
import { chatAttachmentOut, filesBody, filesOfMessages, recordChatFiles } from "./attachments";
import { discardStored, type StoredFile } from "../tickets/files";

const DEFAULT_STATUSES: ChatStatus[] = ["open", "pending"];

export async function listConversations(ctx: ActorContext, input: v.InferOutput<typeof conversationListInput>) {
  chatRead(ctx);
  const db = ctx.deps.db;
  const conds: (SQL | undefined)[] = [eq(chatConversations.companyId, ctx.company.id)];
  const status = input.status ?? (input.q ? "all" : undefined);
  if (status === undefined) conds.push(inArray(chatConversations.status, DEFAULT_STATUSES));
  else if (status !== "all") conds.push(eq(chatConversations.status, status));
  if (input.inboxId !== undefined) conds.push(eq(chatConversations.inboxId, input.inboxId));
  if (input.priority !== undefined) conds.push(eq(chatConversations.priority, input.priority));
  if (input.assigneeId === "none") conds.push(isNull(chatConversations.assigneeId));
  else if (input.assigneeId !== undefined)
    conds.push(eq(chatConversations.assigneeId, (await userIdOf(db, ctx, input.assigneeId)) ?? -1));
  if (input.label !== undefined)
    conds.push(
      exists(
        db
          .select({ x: chatLabels.label })
          .from(chatLabels)
          .where(and(eq(chatLabels.conversationId, chatConversations.id), eq(chatLabels.label, input.label))),
      ),
    );
  if (input.q !== undefined) {
    const q = input.q;
    const num = /^#?(\d{1,15})$/.exec(q);
    conds.push(
      or(
        num ? eq(chatConversations.number, Number(num[1])) : undefined,
        exists(
          db
            .select({ x: chatVisitors.id })
            .from(chatVisitors)
            .where(
              and(
                eq(chatVisitors.id, chatConversations.visitorId),
                or(containsText(chatVisitors.name, q), containsText(chatVisitors.email, q)),
              ),
            ),
        ),
        exists(
          db
            .select({ x: chatMessages.id })
            .from(chatMessages)
            .where(and(eq(chatMessages.conversationId, chatConversations.id), containsText(chatMessages.body, q))),
        ),
      ),
    );
  }
  const cond = and(...conds);
  const total = (await db.select({ n: count() }).from(chatConversations).where(cond))[0]!.n;
  const rows = await db
    .select()
    .from(chatConversations)
    .where(cond)
    .orderBy(desc(chatConversations.lastMessageAt), desc(chatConversations.id))
    .limit(input.limit)
    .offset(input.offset);
  const x = await extrasFor(db, rows);
  return page(
    rows.map((r) => conversationOut(r, x)),
    total,
    input.limit,
    input.offset,
  );
}

async function messagesPage(db: Db, c: ConversationRow, limit: number, offset: number | undefined) {
  const total = (await db.select({ n: count() }).from(chatMessages).where(eq(chatMessages.conversationId, c.id)))[0]!.n;
  const off = offset ?? Math.max(0, total - limit);
  const rows = await db
    .select()
    .from(chatMessages)
    .where(eq(chatMessages.conversationId, c.id))
    .orderBy(asc(chatMessages.id))
    .limit(limit)
    .offset(off);
  const authors = await usersById(
    db,
    rows.map((m) => m.userId),
  );
  const files = await filesOfMessages(
    db,
    rows.map((m) => m.id),
  );
  return {
    ...page(
      rows.map((m) => {
        const own = files.get(m.id);
        return own ? { ...messageOut(m, authors), files: own.map(chatAttachmentOut) } : messageOut(m, authors);
      }),
      total,
      limit,
      off,
    ),
    previousOffset: off > 0 ? Math.max(0, off - limit) : null,
  };
}

export async function getConversation(ctx: ActorContext, input: v.InferOutput<typeof conversationGetInput>) {
  chatRead(ctx);
  const db = ctx.deps.db;
  const c = await conversationByNumber(db, ctx, input.id);
  const out = conversationOut(c, await extrasFor(db, [c]));
  return { ...out, messages: await messagesPage(db, c, input.limit, input.offset) };
}

interface ConvTx {
  tx: Db;
  row: ConversationRow;
  now: Date;
  /** The payload fields of its events, from the row as it is now. */
  facts: () => ReturnType<typeof convFacts>;
}

/**
 * Every agent-side write to a conversation: one transaction that first
 * locks the conversation's row (lockConversation), read committed on
 * PostgreSQL. Writers of one conversation take turns on that lock; writers
 * of different conversations never wait for or abort each other. Under
 * SERIALIZABLE they did: a reply updates lastMessageAt, which is indexed,
 * so the update writes into the btree pages every other reply's lookup had
 * read, and half of a burst of 500 replies was aborted and retried one at a
 * time. What the verbs decide on is the locked row; the other reads (inbox
 * and visitor names, a canned response, an assignee's membership) are
 * committed data, as a moment earlier they would have been anyway.
 */
export async function onConversation<T>(ctx: ActorContext, number: number, fn: (c: ConvTx) => Promise<T>): Promise<T> {
  return ctx.deps.db.transaction(
    async (tx) => {
      const l = await lockConversation(tx, ctx, number);
      const c: ConvTx = {
        tx,
        row: l.row,
        now: ctx.deps.clock.now(),
        facts: () => convFacts(c.row, l.inbox, l.visitor),
      };
      return fn(c);
    },
    { isolation: "read committed" },
  );
}

/** Moves the status, writes the audit row and the event. */
async function moveStatus(ctx: ActorContext, c: ConvTx, to: ChatStatus, until: Date | null = null) {
  const from = c.row.status;
  c.row = (
    await c.tx
      .update(chatConversations)
      .set({ status: to, snoozedUntil: until, resolvedAt: to === "resolved" ? c.now : null, updatedAt: c.now })
      .where(eq(chatConversations.id, c.row.id))
      .returning()
  )[0]!;
  await audit(c.tx, ctx, "chat.status", { type: "chat_conversation", id: c.row.number, detail: { from, to } });
  await emit(
    c.tx,
    ctx,
    chatConversationStatusChanged,
    { id: c.row.number },
    { ...c.facts(), from, to, snoozedUntil: iso(until), reason: "agent" },
  );
}

/** The {{name}} placeholder of canned responses: the visitor's first name, or "there". */
function fill(text: string, visitorName: string | null): string {
  const first = visitorName?.trim().split(/\s+/)[0] || "there";
  return text.replace(/\{\{\s*name\s*\}\}/g, first);
}

/**
 * An agent's reply, live to the visitor. `files` (the portal's upload,
 * stored already by tickets/files.ts) are recorded on the message in the
 * same transaction, or removed again when it does not commit; with files
 * the text may be left out (the message then reads as the files' names).
 */
export async function reply(ctx: ActorContext, input: v.InferOutput<typeof replyInput>, files: StoredFile[] = []) {
  chatWrite(ctx);
  const bare = input.body === undefined && input.cannedId === undefined;
  if (bare ? !files.length : input.body !== undefined && input.cannedId !== undefined)
    throw invalid("Give either body or cannedId (a canned response's id or short code).");
  const out = await onConversation(ctx, input.id, async (c) => {
    const facts = c.facts();
    const body = bare
      ? filesBody(files)
      : (input.body ?? fill((await cannedByRef(c.tx, ctx, input.cannedId!)).content, facts.visitorName));
    // The hot path of a burst of replies: statements that do not depend on each other are sent together
    // (PostgreSQL pipelines them on the transaction's connection: one round trip each pair; SQLite runs
    // them in turn). Same statements, same transaction, fewer waits.
    const [msgRows, convRows] = await Promise.all([
      c.tx
        .insert(chatMessages)
        .values({
          companyId: ctx.company.id,
          conversationId: c.row.id,
          kind: "agent",
          userId: ctx.principal.userId,
          body,
          createdAt: c.now,
        })
        .returning(),
      c.tx
        .update(chatConversations)
        .set({ lastMessageAt: c.now, lastAgentMessageAt: c.now, updatedAt: c.now })
        .where(eq(chatConversations.id, c.row.id))
        .returning(),
    ]);
    const msg = msgRows[0]!;
    c.row = convRows[0]!;
    await recordChatFiles(
      c.tx,
      ctx.deps,
      {
        companyId: ctx.company.id,
        conversationId: c.row.id,
        messageId: msg.id,
        source: "agent",
        userId: ctx.principal.userId,
      },
      files,
    );
    // Answering a snoozed conversation means someone is on it again.
    const to = input.status ?? (c.row.status === "snoozed" ? "open" : undefined);
    if (to !== undefined && to !== c.row.status) await moveStatus(ctx, c, to);
    await Promise.all([
      audit(c.tx, ctx, "chat.reply", { type: "chat_conversation", id: c.row.number, detail: { messageId: msg.id } }),
      emit(
        c.tx,
        ctx,
        chatMessageCreated,
        { id: c.row.number },
        {
          ...facts,
          messageId: msg.id,
          author: "agent",
          authorUserId: ctx.principal.userId,
          body,
          status: c.row.status,
        },
      ),
    ]);
    return { id: c.row.number, messageId: msg.id, status: c.row.status, body };
  }).catch(async (e) => {
    await discardStored(ctx.deps, files);
    throw e;
  });
  kickHub(ctx.deps);
  return out;
}

export async function addNote(ctx: ActorContext, input: v.InferOutput<typeof noteInput>) {
  chatWrite(ctx);
  const out = await onConversation(ctx, input.id, async (c) => {
    const msg = (
      await c.tx
        .insert(chatMessages)
        .values({
          companyId: ctx.company.id,
          conversationId: c.row.id,
          kind: "note",
          userId: ctx.principal.userId,
          body: input.body,
          createdAt: c.now,
        })
        .returning()
    )[0]!;
    await c.tx.update(chatConversations).set({ updatedAt: c.now }).where(eq(chatConversations.id, c.row.id));
    await audit(c.tx, ctx, "chat.note", { type: "chat_conversation", id: c.row.number, detail: { messageId: msg.id } });
    await emit(
      c.tx,
      ctx,
      chatNoteAdded,
      { id: c.row.number },
      { ...c.facts(), messageId: msg.id, authorUserId: ctx.principal.userId },
    );
    return { id: c.row.number, messageId: msg.id, internal: true };
  });
  kickHub(ctx.deps);
  return out;
}

export async function assign(ctx: ActorContext, input: v.InferOutput<typeof assignInput>) {
  chatWrite(ctx);
  const out = await onConversation(ctx, input.id, async (c) => {
    const who = input.assigneeId === null ? null : await assigneeOf(c.tx, ctx, input.assigneeId);
    const previous = c.row.assigneeId;
    if ((who?.id ?? null) === previous) return { id: c.row.number, assignee: who, changed: false };
    c.row = (
      await c.tx
        .update(chatConversations)
        .set({ assigneeId: who?.id ?? null, updatedAt: c.now })
        .where(eq(chatConversations.id, c.row.id))
        .returning()
    )[0]!;
    const facts = c.facts();
    await audit(c.tx, ctx, "chat.assign", {
      type: "chat_conversation",
      id: c.row.number,
      detail: { from: previous, to: who?.id ?? null },
    });
    await emit(
      c.tx,
      ctx,
      chatConversationAssigned,
      { id: c.row.number },
      { ...facts, previousAssigneeUserId: previous, byUserId: ctx.principal.userId },
    );
    if (who)
      await notify(ctx.deps, {
        companyId: ctx.company.id,
        userIds: [who.id],
        type: "chat.conversation_assigned",
        title: `Chat ${ref(c.row.number)} with ${facts.visitorName ?? facts.visitorEmail ?? "a visitor"} was assigned to you`,
        link: `/chat/${c.row.number}`,
        entity: { type: "chat_conversation", id: c.row.number },
        actorUserId: ctx.principal.userId,
      });
    return { id: c.row.number, assignee: who, changed: true };
  });
  // Open portal pages show the change now (hub.ts); the change feed would tell the hub within a tick anyway.
  kickHub(ctx.deps);
  return out;
}

export async function update(ctx: ActorContext, input: v.InferOutput<typeof updateInput>) {
  chatWrite(ctx);
  const out = await onConversation(ctx, input.id, async (c) => {
    const changes: { priority?: typeof input.priority; labels?: string[] } = {};
    if (input.priority !== undefined && input.priority !== c.row.priority) {
      c.row = (
        await c.tx
          .update(chatConversations)
          .set({ priority: input.priority, updatedAt: c.now })
          .where(eq(chatConversations.id, c.row.id))
          .returning()
      )[0]!;
      changes.priority = input.priority;
    }
    const before = (await labelsOf(c.tx, [c.row.id])).get(c.row.id)!;
    const after = new Set(before);
    for (const l of input.addLabels ?? []) after.add(l);
    for (const l of input.removeLabels ?? []) after.delete(l);
    if (after.size > 20) throw invalid("A conversation has at most 20 labels.");
    const labels = [...after].sort();
    if (labels.join() !== before.join()) {
      await c.tx.delete(chatLabels).where(eq(chatLabels.conversationId, c.row.id));
      if (labels.length)
        await c.tx.insert(chatLabels).values(labels.map((label) => ({ conversationId: c.row.id, label })));
      await c.tx.update(chatConversations).set({ updatedAt: c.now }).where(eq(chatConversations.id, c.row.id));
      changes.labels = labels;
    }
    if (Object.keys(changes).length) {
      await audit(c.tx, ctx, "chat.update", { type: "chat_conversation", id: c.row.number, detail: changes });
      await emit(c.tx, ctx, chatConversationUpdated, { id: c.row.number }, { ...c.facts(), changes });
    }
    return { id: c.row.number, priority: c.row.priority, labels, changed: Object.keys(changes) };
  });
  // Open portal pages show the change now (hub.ts); the change feed would tell the hub within a tick anyway.
  kickHub(ctx.deps);
  return out;
}

export async function snooze(ctx: ActorContext, input: v.InferOutput<typeof snoozeInput>) {
  chatWrite(ctx);
  if ((input.until === undefined) === (input.minutes === undefined))
    throw invalid("Give either until (an ISO instant) or minutes.");
  const now = ctx.deps.clock.now().getTime();
  const until = new Date(input.until !== undefined ? Date.parse(input.until) : now + input.minutes! * 60_000);
  if (!(until.getTime() > now)) throw invalid(`until must be in the future (now is ${new Date(now).toISOString()}).`);
  if (until.getTime() > now + 90 * 86_400_000) throw invalid("Snooze at most 90 days.");
  const out = await onConversation(ctx, input.id, async (c) => {
    if (c.row.status === "resolved")
      throw conflict(`Conversation ${ref(c.row.number)} is resolved; reopen it before snoozing.`);
    await moveStatus(ctx, c, "snoozed", until);
    return { id: c.row.number, status: c.row.status, snoozedUntil: iso(until) };
  });
  // Open portal pages show the change now (hub.ts); the change feed would tell the hub within a tick anyway.
  kickHub(ctx.deps);
  return out;
}

export async function setStatus(ctx: ActorContext, input: v.InferOutput<typeof statusInput>) {
  chatWrite(ctx);
  const out = await onConversation(ctx, input.id, async (c) => {
    if (c.row.status === input.status) return { id: c.row.number, status: c.row.status, changed: false };
    const from = c.row.status;
    await moveStatus(ctx, c, input.status);
    return { id: c.row.number, status: c.row.status, from, changed: true };
  });
  // Open portal pages show the change now (hub.ts); the change feed would tell the hub within a tick anyway.
  kickHub(ctx.deps);
  return out;
}

const TRANSCRIPT_MAX_MESSAGES = 2000;

/** Text and HTML of a transcript: visitor and agent messages only, never notes. */
export async function transcriptMail(db: Db, c: ConversationRow, companyName: string) {
  const rows = await db
    .select()
    .from(chatMessages)
    .where(and(eq(chatMessages.conversationId, c.id), inArray(chatMessages.kind, ["visitor", "agent"])))
    .orderBy(asc(chatMessages.id))
    .limit(TRANSCRIPT_MAX_MESSAGES);
  const authors = await usersById(
    db,
    rows.map((m) => m.userId),
  );
  const who = (m: (typeof rows)[number]) =>
    m.kind === "visitor" ? "You" : (authors.get(m.userId ?? -1)?.name ?? companyName);
  const esc = (s: string) =>
    s.replace(/[&<>"']/g, (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!);
  const text = rows.map((m) => `[${iso(m.createdAt)}] ${who(m)}:\n${m.body}\n`).join("\n");
  const html = `<div style="font-family:sans-serif">${rows
    .map(
      (m) =>
        `<p><strong>${esc(who(m))}</strong> <small>${esc(iso(m.createdAt)!)}</small><br>${esc(m.body).replace(/\n/g, "<br>")}</p>`,
    )
    .join("")}</div>`;
  return { text: `Your conversation with ${companyName}\n\n${text}`, html, count: rows.length };
}

/** Queues the transcript email inside the caller's transaction and emits the event. */
export async function sendTranscript(
  deps: Deps,
  tx: Db,
  c: ConversationRow,
  to: string,
  requestedBy: "agent" | "visitor",
  actor: ActorContext | null,
) {
  // The site's name is who the visitor talked to ("Harbor Coffee Roasters"), not the inbox's internal name.
  const inbox = (
    await tx.select({ siteId: chatInboxes.siteId }).from(chatInboxes).where(eq(chatInboxes.id, c.inboxId)).limit(1)
  )[0];
  const company = (inbox ? await siteName(tx, inbox.siteId) : null) ?? "us";
  const t = await transcriptMail(tx, c, company);
  if (t.count === 0) throw conflict(`Conversation ${ref(c.number)} has no messages to send.`);
  await queueMail(tx, deps, {
    companyId: c.companyId,
    to,
    subject: `Your chat with ${company} (${ref(c.number)})`,
    text: t.text,
    html: t.html,
    tag: "chat.transcript",
  });
  const facts = await factsFor(tx, c);
  await emit(
    tx,
    actor ?? { deps, company: { id: c.companyId } },
    chatTranscriptSent,
    { id: c.number },
    { ...facts, to, messages: t.count, requestedBy },
  );
  return t.count;
}

export async function emailTranscript(ctx: ActorContext, input: v.InferOutput<typeof transcriptInput>) {
  chatWrite(ctx);
  return onConversation(ctx, input.id, async (c) => {
    const facts = c.facts();
    const to = input.to ?? facts.visitorEmail;
    if (!to) throw invalid(`The visitor of ${ref(c.row.number)} left no email; pass to.`);
    const n = await sendTranscript(ctx.deps, c.tx, c.row, to.toLowerCase(), "agent", ctx);
    await audit(c.tx, ctx, "chat.transcript", {
      type: "chat_conversation",
      id: c.row.number,
      detail: { to, messages: n },
    });
    return { id: c.row.number, to: to.toLowerCase(), messages: n, queued: true };
  });
}

/** Snoozed conversations whose time has come by `now`: what reopenSnoozed reopens. */
const snoozeEnded = (now: Date) =>
  and(eq(chatConversations.status, "snoozed"), lte(chatConversations.snoozedUntil, now));

/** The job: snoozed conversations whose time has come are open again (and their assignee told). */
export async function reopenSnoozed(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  let reopened = 0;
  for (;;) {
    const due = await deps.db
      .select({ id: chatConversations.id })
      .from(chatConversations)
      .where(snoozeEnded(now))
      .orderBy(asc(chatConversations.id))
      .limit(100);
    for (const d of due) {
      await deps.store.transaction(async (tx) => {
        // Only the run that flips it reports it: a second instance (or a rerun) finds it open already.
        const won = (
          await tx
            .update(chatConversations)
            .set({ status: "open", snoozedUntil: null, updatedAt: now })
            .where(and(eq(chatConversations.id, d.id), snoozeEnded(now)))
            .returning()
        )[0];
        if (!won) return;
        reopened++;
        const facts = await factsFor(tx, won);
        await emit(
          tx,
          { deps, company: { id: won.companyId } },
          chatConversationStatusChanged,
          { id: won.number },
          {
            ...facts,
            from: "snoozed",
            to: "open",
            snoozedUntil: null,
            reason: "snooze_ended",
          },
        );
        if (won.assigneeId !== null)
          await notify(deps, {
            companyId: won.companyId,
            userIds: [won.assigneeId],
            type: "chat.snooze_ended",
            title: `Chat ${ref(won.number)} with ${facts.visitorName ?? facts.visitorEmail ?? "a visitor"} is back from snooze`,
            link: `/chat/${won.number}`,
            entity: { type: "chat_conversation", id: won.number },
          });
      });
    }
    if (due.length < 100) break;
  }
  return reopened;
}

export const chatJobs: JobDef[] = [
  {
    name: "chat.snooze_ended",
    description: "Reopens snoozed chat conversations whose snoozedUntil has passed and tells their assignee.",
    everyMs: 30_000,
    pending: (deps) =>
      anyRow(
        deps.db
          .select({ id: chatConversations.id })
          .from(chatConversations)
          .where(snoozeEnded(deps.clock.now()))
          .limit(1),
      ),
    run: async (deps) => {
      await reopenSnoozed(deps);
    },
  },
];
