/**
 * Real-time fan-out of chat messages to the widgets (SSE streams) and to
 * agents waiting over MCP (chat_messages_wait), on one instance or many;
 * and of conversation changes (status, assignee, priority, labels: the
 * chat.conversation_* events the verbs emit) to the portal's live pages.
 *
 * One hub per store (process). It learns that chat tables changed from the
 * store's change feed (src/core/changes.ts): this process's commits at
 * once; on PostgreSQL other instances' commits through LISTEN/NOTIFY (or
 * the Redis bus when configured) — the same path cache invalidation uses.
 * It then reads the new rows ONCE (id > floor) and hands each row to the
 * streams of its visitor and the waiters of its company: 500 connected
 * widgets cost one query per burst of messages, not 500. Conversation
 * changes are read the same way from the event outbox (`events`, the rows
 * the verbs wrote in their own transaction), when chat_conversations or its
 * labels changed: only their ids, types and companies, handed to the
 * company's change listeners, which read the conversations' current state.
 * The same read tells widgets whose status changed (resolved, reopened, a
 * new conversation): for those events the hub reads the conversations'
 * state once and hands each to the status listeners of its visitor.
 *
 * Backstop (the documented poll fallback): while anyone is connected the
 * hub also reads every POLL_MS whatever the feed says, so a lost NOTIFY
 * delays a message by at most that long.
 *
 * On PostgreSQL ids are handed out before commit, so a row with a lower id
 * can become visible after a higher one. The hub keeps `floor` (every id at
 * or below it was seen or given up on) and the ids seen above it; a missing
 * id holds the floor for up to GAP_MS (a transaction still committing)
 * before it is taken for a rollback. Nothing is delivered twice by the hub,
 * and each stream also drops ids it already sent.
 */
import { and, eq, gt, inArray, max, or } from "drizzle-orm";
import type { ChangeWatch } from "../../core/changes";
import type { Deps } from "../../core/context";
import type { Store } from "../../core/db";
import { events } from "../../core/tables";
import { users } from "../../core/tables";
import { type ChatAttachmentRow, filesOfMessages } from "./attachments";
import { chatConversations, chatMessages, type ChatMessageKind, type ChatStatus } from "./tables";

export const TICK_MS = 20;
export const POLL_MS = 2_000;
const GAP_MS = 10_000;
const BATCH = 1000;

export interface HubRow {
  id: number;
  companyId: number;
  conversationId: number;
  number: number;
  inboxId: number;
  visitorId: number;
  kind: ChatMessageKind;
  userId: number | null;
  /** The author's name (agents' messages), read with the row so no stream needs a read of its own to show it. */
  authorName: string | null;
  body: string;
  createdAt: Date;
  /** The message's files (attachments.ts), read once for every stream; absent when it has none. */
  files?: ChatAttachmentRow[];
}

/** A conversation change, from the event outbox: which conversation (by number) of which company. */
export interface HubChange {
  eventId: number;
  companyId: number;
  number: number;
  type: string;
}

/** The events that change what a conversation page shows; messages (and the status a visitor's message reopens) come as messages too. */
export const CONVERSATION_CHANGES = [
  "chat.conversation_assigned",
  "chat.conversation_status_changed",
  "chat.conversation_updated",
] as const;

/**
 * The events that can change what a visitor's widget shows of a status: a
 * status moved, or a conversation began (which is then the visitor's
 * current one: a second tab of the same visitor learns of it too).
 */
export const VISITOR_STATUS_CHANGES = ["chat.conversation_created", "chat.conversation_status_changed"] as const;

/** A conversation's status now, read once for every widget of its visitor. */
export interface HubStatus {
  visitorId: number;
  number: number;
  status: ChatStatus;
  resolvedAt: Date | null;
}

type VisitorSink = (rows: HubRow[]) => void;
/** An agent-side listener: every new row of the company, notes included. */
type CompanySink = (rows: HubRow[]) => void;
type ChangeSink = (changes: HubChange[]) => void;
type StatusSink = (list: HubStatus[]) => void;

/**
 * Where "new" starts in one id-ordered table. On PostgreSQL ids are handed
 * out before commit, so a row with a lower id can become visible after a
 * higher one: `floor` is the id at or below which every row was seen or
 * given up on, `seen` the ids read above it, and a missing id holds the
 * floor for up to GAP_MS (a transaction still committing) before it is
 * taken for a rollback.
 */
class IdCursor {
  floor = -1;
  private seen = new Set<number>();
  private gaps = new Map<number, number>();

  reset() {
    this.floor = -1;
    this.seen.clear();
    this.gaps.clear();
  }

  /** The ids not seen before, marked seen. */
  fresh<T extends { id: number }>(rows: T[]): T[] {
    const out = rows.filter((r) => !this.seen.has(r.id));
    for (const r of out) this.seen.add(r.id);
    return out;
  }

  advance(batchEnd: number | null) {
    let top = this.floor;
    for (const id of this.seen) if (id > top) top = id;
    if (batchEnd !== null && batchEnd < top) top = batchEnd;
    const now = performance.now();
    // A jump this large is not transactions in flight (ids are per table); skip ahead rather than loop.
    if (top - this.floor > 100_000) {
      this.floor = top;
      this.seen.clear();
      this.gaps.clear();
      return;
    }
    while (this.floor < top) {
      const next = this.floor + 1;
      if (this.seen.delete(next)) {
        this.gaps.delete(next);
        this.floor = next;
        continue;
      }
      const since = this.gaps.get(next);
      if (since === undefined) {
        this.gaps.set(next, now);
        break;
      }
      if (now - since < GAP_MS) break;
      this.gaps.delete(next);
      this.floor = next;
    }
  }
}

export class ChatHub {
  private visitors = new Map<number, Set<VisitorSink>>();
  private companies = new Map<number, Set<CompanySink>>();
  private changeSinks = new Map<number, Set<ChangeSink>>();
  private statusSinks = new Map<number, Set<StatusSink>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private watch: ChangeWatch;
  private convWatch: ChangeWatch;
  private messages = new IdCursor();
  private outbox = new IdCursor();
  private convChanged = false;
  private lastPump = 0;
  private pumping: Promise<void> | null = null;
  private again = false;
  /** Streams currently open (for limits and the bench). */
  streams = 0;

  constructor(private deps: Deps) {
    this.watch = deps.store.changes.watch(["chat_messages"]);
    this.convWatch = deps.store.changes.watch(["chat_conversations", "chat_conversation_labels"]);
  }

  get size() {
    let n = 0;
    for (const s of this.visitors.values()) n += s.size;
    for (const s of this.companies.values()) n += s.size;
    for (const s of this.changeSinks.values()) n += s.size;
    for (const s of this.statusSinks.values()) n += s.size;
    return n;
  }

  /** A widget's stream: gets the visitor-visible rows (never notes) of its visitor's conversations. */
  onVisitor(visitorId: number, sink: VisitorSink): () => void {
    return this.add(this.visitors, visitorId, sink);
  }

  /** A widget's stream: the current status of its visitor's conversations as they change (the state now, never an event's payload). */
  onVisitorStatus(visitorId: number, sink: StatusSink): () => void {
    return this.add(this.statusSinks, visitorId, sink);
  }

  /** An agent's stream: every new row of the company (notes too: agents see them). */
  onCompany(companyId: number, sink: CompanySink): () => void {
    return this.add(this.companies, companyId, sink);
  }

  /** A portal page: changes to the company's conversations (status, assignee, priority, labels), never another company's. */
  onChanges(companyId: number, sink: ChangeSink): () => void {
    return this.add(this.changeSinks, companyId, sink);
  }

  /** Resolves at the next new message of the company (an agent's long poll), or after timeoutMs. */
  waitCompany(companyId: number, timeoutMs: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      let off = () => {};
      const done = () => {
        clearTimeout(t);
        off();
        resolve();
      };
      const t = setTimeout(done, timeoutMs);
      off = this.add(this.companies, companyId, done);
      signal?.addEventListener("abort", done, { once: true });
    });
  }

  private add<T>(map: Map<number, Set<T>>, key: number, v: T): () => void {
    let set = map.get(key);
    if (!set) map.set(key, (set = new Set()));
    set.add(v);
    this.start();
    return () => {
      set!.delete(v);
      if (set!.size === 0 && map.get(key) === set) map.delete(key);
      if (
        this.visitors.size === 0 &&
        this.companies.size === 0 &&
        this.changeSinks.size === 0 &&
        this.statusSinks.size === 0
      )
        this.stop();
    };
  }

  /**
   * Called by this process's verbs right after their commit: read now rather
   * than at the next tick. Only a shortcut; the feed and the poll still
   * catch everything (and other instances' writes).
   */
  kick() {
    if (this.timer && !this.deps.store.inTransaction()) {
      this.convChanged = true;
      void this.pump();
    }
  }

  /**
   * Resolves once the hub knows where "new" starts. A listener subscribes,
   * awaits this, then reads its own backlog: everything committed before
   * the backlog read is in the backlog, everything after the floor comes
   * from the hub (the overlap is dropped by id), so nothing falls between.
   */
  ready: Promise<void> = Promise.resolve();

  private start() {
    if (this.timer) return;
    this.lastPump = performance.now();
    this.timer = setInterval(() => this.tick(), TICK_MS);
    (this.timer as { unref?: () => void }).unref?.();
    // Start from what exists now: listeners catch up on older rows themselves.
    this.ready = this.pump();
  }

  private stop() {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    // Idle: forget the position, so a later start does not replay what was written meanwhile.
    this.messages.reset();
    this.outbox.reset();
  }

  private tick() {
    let changed = false;
    try {
      changed = this.watch.changed();
    } catch {
      changed = true;
    }
    try {
      if (this.convWatch.changed()) this.convChanged = true;
    } catch {
      this.convChanged = true;
    }
    if (changed || this.convChanged || performance.now() - this.lastPump >= POLL_MS) void this.pump();
  }

  /** Read new rows once and hand them out; overlapping calls coalesce into one more run. */
  pump(): Promise<void> {
    if (this.pumping) {
      this.again = true;
      return this.pumping;
    }
    this.pumping = (async () => {
      try {
        do {
          this.again = false;
          this.lastPump = performance.now();
          await this.readOnce();
        } while (this.again);
      } catch {
        // The store may be closing; the next tick tries again, and streams end with their requests.
      } finally {
        this.pumping = null;
      }
    })();
    return this.pumping;
  }

  private async readOnce() {
    // Connections of its own on PostgreSQL: behind a burst of write transactions queued on the pool,
    // these reads would wait for all of them, and every message for the slowest.
    const db = this.deps.store.live;
    if (this.messages.floor < 0 || this.outbox.floor < 0) {
      this.messages.floor = (await db.select({ m: max(chatMessages.id) }).from(chatMessages))[0]?.m ?? 0;
      this.outbox.floor = (await db.select({ m: max(events.id) }).from(events))[0]?.m ?? 0;
      return;
    }
    await this.readMessages();
    // The outbox holds every domain's events: read it when a conversation changed (or at the poll backstop), not on every message.
    if (!this.convChanged && performance.now() - this.lastOutbox < POLL_MS) return;
    this.convChanged = false;
    this.lastOutbox = performance.now();
    if (this.changeSinks.size > 0 || this.statusSinks.size > 0) return await this.readChanges();
    // Nobody listens for changes (only widgets that follow no status): keep the position current, so a page that opens later
    // does not wade through what was written meanwhile (it reads its own backlog from its cursor).
    this.outbox.reset();
    this.outbox.floor = (await this.deps.store.live.select({ m: max(events.id) }).from(events))[0]?.m ?? 0;
  }

  private lastOutbox = 0;

  private async readMessages() {
    const db = this.deps.store.live;
    const rows: HubRow[] = await db
      .select({
        id: chatMessages.id,
        companyId: chatMessages.companyId,
        conversationId: chatMessages.conversationId,
        number: chatConversations.number,
        inboxId: chatConversations.inboxId,
        visitorId: chatConversations.visitorId,
        kind: chatMessages.kind,
        userId: chatMessages.userId,
        authorName: users.name,
        body: chatMessages.body,
        createdAt: chatMessages.createdAt,
      })
      .from(chatMessages)
      .innerJoin(chatConversations, eq(chatConversations.id, chatMessages.conversationId))
      .leftJoin(users, eq(users.id, chatMessages.userId))
      .where(and(gt(chatMessages.id, this.messages.floor)))
      .orderBy(chatMessages.id)
      .limit(BATCH);
    const fresh = this.messages.fresh(rows);
    this.messages.advance(rows.length === BATCH ? rows[rows.length - 1]!.id : null);
    if (rows.length === BATCH) this.again = true;
    if (!fresh.length) return;
    // Written in the message's transaction, so committed with it: one read for every stream.
    const files = await filesOfMessages(
      db,
      fresh.filter((r) => r.kind !== "note").map((r) => r.id),
    );
    for (const r of fresh) if (files.has(r.id)) r.files = files.get(r.id);
    const byVisitor = new Map<number, HubRow[]>();
    const byCompany = new Map<number, HubRow[]>();
    for (const r of fresh) {
      const c = byCompany.get(r.companyId);
      if (c) c.push(r);
      else byCompany.set(r.companyId, [r]);
      if (r.kind === "note") continue;
      const list = byVisitor.get(r.visitorId);
      if (list) list.push(r);
      else byVisitor.set(r.visitorId, [r]);
    }
    for (const [visitorId, list] of byVisitor) for (const sink of [...(this.visitors.get(visitorId) ?? [])]) sink(list);
    for (const [companyId, list] of byCompany)
      for (const sink of [...(this.companies.get(companyId) ?? [])]) sink(list);
  }

  /** New outbox rows: every id is read (so no other domain's event looks like a gap), the conversation changes handed out by company. */
  private async readChanges() {
    const rows = await this.deps.store.live
      .select({ id: events.id, type: events.type, companyId: events.companyId, entityId: events.entityId })
      .from(events)
      .where(gt(events.id, this.outbox.floor))
      .orderBy(events.id)
      .limit(BATCH);
    const fresh = this.outbox.fresh(rows);
    this.outbox.advance(rows.length === BATCH ? rows[rows.length - 1]!.id : null);
    if (rows.length === BATCH) {
      this.again = true;
      this.convChanged = true;
    }
    const byCompany = new Map<number, HubChange[]>();
    const forVisitors = new Map<number, Set<number>>();
    for (const r of fresh) {
      if ((VISITOR_STATUS_CHANGES as readonly string[]).includes(r.type)) {
        const numbers = forVisitors.get(r.companyId) ?? new Set();
        numbers.add(r.entityId);
        forVisitors.set(r.companyId, numbers);
      }
      if (!(CONVERSATION_CHANGES as readonly string[]).includes(r.type)) continue;
      const list = byCompany.get(r.companyId) ?? [];
      list.push({ eventId: r.id, companyId: r.companyId, number: r.entityId, type: r.type });
      byCompany.set(r.companyId, list);
    }
    for (const [companyId, list] of byCompany)
      for (const sink of [...(this.changeSinks.get(companyId) ?? [])]) sink(list);
    if (forVisitors.size && this.statusSinks.size) await this.readStatuses(forVisitors);
  }

  /**
   * The changed conversations' status now, in one read for every widget
   * (the events name a conversation by company and number; its visitor is
   * on the row). Read after the event was seen, and the event commits with
   * the change, so the last status handed out is never older than the last
   * change.
   */
  private async readStatuses(numbersByCompany: Map<number, Set<number>>) {
    const rows: HubStatus[] = await this.deps.store.live
      .select({
        visitorId: chatConversations.visitorId,
        number: chatConversations.number,
        status: chatConversations.status,
        resolvedAt: chatConversations.resolvedAt,
      })
      .from(chatConversations)
      .where(
        or(
          ...[...numbersByCompany].map(([companyId, numbers]) =>
            and(eq(chatConversations.companyId, companyId), inArray(chatConversations.number, [...numbers])),
          ),
        ),
      );
    const byVisitor = new Map<number, HubStatus[]>();
    for (const r of rows) {
      if (!this.statusSinks.has(r.visitorId)) continue;
      const list = byVisitor.get(r.visitorId) ?? [];
      list.push(r);
      byVisitor.set(r.visitorId, list);
    }
    for (const [visitorId, list] of byVisitor)
      for (const sink of [...(this.statusSinks.get(visitorId) ?? [])]) sink(list);
  }
}

const hubs = new WeakMap<Store, ChatHub>();

/** After a commit that wrote chat messages: wake this process's hub (if anyone listens). */
export function kickHub(deps: Deps) {
  hubs.get(deps.store)?.kick();
}

export function hubFor(deps: Deps): ChatHub {
  let h = hubs.get(deps.store);
  if (!h) hubs.set(deps.store, (h = new ChatHub(deps)));
  return h;
}
