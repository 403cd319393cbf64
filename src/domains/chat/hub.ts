/**
 * Real-time fan-out of chat messages to the widgets (SSE streams) and to
 * agents waiting over MCP (chat_messages_wait), on one instance or many.
 *
 * One hub per store (process). It learns that chat tables changed from the
 * store's change feed (src/core/changes.ts): this process's commits at
 * once; on PostgreSQL other instances' commits through LISTEN/NOTIFY (or
 * the Redis bus when configured) — the same path cache invalidation uses.
 * It then reads the new rows ONCE (id > floor) and hands each row to the
 * streams of its visitor and the waiters of its company: 500 connected
 * widgets cost one query per burst of messages, not 500.
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
import { and, eq, gt, max } from "drizzle-orm";
import type { ChangeWatch } from "../../core/changes";
import type { Deps } from "../../core/context";
import type { Store } from "../../core/db";
import { users } from "../accounts/tables";
import { chatConversations, chatMessages, type ChatMessageKind } from "./tables";

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
}

type VisitorSink = (rows: HubRow[]) => void;
/** An agent-side listener: every new row of the company, notes included. */
type CompanySink = (rows: HubRow[]) => void;

export class ChatHub {
  private visitors = new Map<number, Set<VisitorSink>>();
  private companies = new Map<number, Set<CompanySink>>();
  private timer: ReturnType<typeof setInterval> | null = null;
  private watch: ChangeWatch;
  private floor = -1;
  private seen = new Set<number>();
  private gaps = new Map<number, number>();
  private lastPump = 0;
  private pumping: Promise<void> | null = null;
  private again = false;
  /** Streams currently open (for limits and the bench). */
  streams = 0;

  constructor(private deps: Deps) {
    this.watch = deps.store.changes.watch(["chat_messages"]);
  }

  get size() {
    let n = 0;
    for (const s of this.visitors.values()) n += s.size;
    for (const s of this.companies.values()) n += s.size;
    return n;
  }

  /** A widget's stream: gets the visitor-visible rows (never notes) of its visitor's conversations. */
  onVisitor(visitorId: number, sink: VisitorSink): () => void {
    return this.add(this.visitors, visitorId, sink);
  }

  /** An agent's stream: every new row of the company (notes too: agents see them). */
  onCompany(companyId: number, sink: CompanySink): () => void {
    return this.add(this.companies, companyId, sink);
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
      if (this.visitors.size === 0 && this.companies.size === 0) this.stop();
    };
  }

  /**
   * Called by this process's verbs right after their commit: read now rather
   * than at the next tick. Only a shortcut; the feed and the poll still
   * catch everything (and other instances' writes).
   */
  kick() {
    if (this.timer && !this.deps.store.inTransaction()) void this.pump();
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
    this.floor = -1;
    this.seen.clear();
    this.gaps.clear();
  }

  private tick() {
    let changed = false;
    try {
      changed = this.watch.changed();
    } catch {
      changed = true;
    }
    if (changed || performance.now() - this.lastPump >= POLL_MS) void this.pump();
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
    // this read would wait for all of them, and every message for the slowest.
    const db = this.deps.store.live;
    if (this.floor < 0) {
      this.floor = (await db.select({ m: max(chatMessages.id) }).from(chatMessages))[0]?.m ?? 0;
      return;
    }
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
      .where(and(gt(chatMessages.id, this.floor)))
      .orderBy(chatMessages.id)
      .limit(BATCH);
    const fresh = rows.filter((r) => !this.seen.has(r.id));
    for (const r of fresh) this.seen.add(r.id);
    this.advance(rows.length === BATCH ? rows[rows.length - 1]!.id : null);
    if (!fresh.length) return;
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
    for (const [companyId, list] of byCompany) for (const sink of [...(this.companies.get(companyId) ?? [])]) sink(list);
    if (rows.length === BATCH) this.again = true;
  }

  private advance(batchEnd: number | null) {
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
