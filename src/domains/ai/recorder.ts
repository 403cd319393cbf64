/**
 * Records MCP tool calls into AI history without slowing them down.
 *
 * The observer (a toolCallObserver on the ai Domain) runs on the hot path:
 * it copies what it needs into a bounded in-memory buffer and returns. The
 * buffer is written in one transaction per batch, FLUSH_MS after its first
 * call or as soon as FLUSH_AT calls wait, whichever comes first; argument
 * redaction and conversation grouping happen then, off the request. Past
 * MAX_BUFFERED waiting calls (the database is down or far behind) new
 * calls are dropped and counted (`dropped`), never the request. A failed
 * write is retried with the next batch once, then dropped.
 *
 * Grouping (LiteLLM keeps a `session_id` per spend log the same way):
 *   - the client's own session: the Mcp-Session-Id header, or in
 *     params._meta a `sessionId`, `conversationId`, `traceId` or a W3C
 *     `traceparent` (its trace id);
 *   - otherwise, per credential and company, a call within IDLE_GAP_MS of
 *     the previous one continues its conversation; a longer pause starts a
 *     new one.
 * Conversations are per company: a session that switches clientId shows
 * up in each company's history with that company's calls only.
 */
import { and, desc, eq, gte, isNull, sql } from "drizzle-orm";
import { bulkInsert } from "../../core/bulk";
import type { Deps } from "../../core/context";
import type { ToolCallRecord } from "../../mcp/define";
import { summariseArgs, summariseError } from "./redact";
import { aiConversations, aiToolCalls } from "./tables";

export const IDLE_GAP_MS = 30 * 60_000;
const FLUSH_MS = 200;
const FLUSH_AT = 200;
const MAX_BUFFERED = 10_000;
const MAX_TOOLS = 50;

/** What the hot path keeps of a call: plain values only. */
interface Pending {
  companyId: number | null;
  userId: number;
  credentialKind: string;
  credentialId: number;
  clientName: string | null;
  oauthClientId: string | null;
  sessionKey: string | null;
  tool: string;
  toolset: string | null;
  args: unknown;
  status: "ok" | "tool_error" | "protocol_error";
  /** Errors: the message; ok results: the text only when it may hold an approval envelope. */
  text: string | null;
  durationMs: number;
  requestId: string;
  at: Date;
  retried?: boolean;
}

interface Buffer {
  items: Pending[];
  timer: ReturnType<typeof setTimeout> | null;
  /** A batch is being written: the next waits for it (one writer per process, and the buffer stays the bound). */
  busy: boolean;
  writing: Promise<void>;
  dropped: number;
  written: number;
}

const buffers = new WeakMap<object, Buffer>();

function bufferOf(deps: Deps): Buffer {
  let b = buffers.get(deps.store);
  if (!b)
    buffers.set(
      deps.store,
      (b = { items: [], timer: null, busy: false, writing: Promise.resolve(), dropped: 0, written: 0 }),
    );
  return b;
}

const SESSION_RE = /^[\x21-\x7e]{1,200}$/;

/** The client's own conversation id, if it sent one we can use. */
export function sessionKeyOf(sessionId: string | null, meta: Record<string, unknown> | null): string | null {
  if (sessionId && SESSION_RE.test(sessionId)) return `session:${sessionId}`;
  if (!meta) return null;
  for (const k of ["sessionId", "conversationId", "threadId"]) {
    const v = meta[k];
    if (typeof v === "string" && SESSION_RE.test(v)) return `session:${v}`;
  }
  const trace = meta.traceId ?? meta.trace_id;
  if (typeof trace === "string" && SESSION_RE.test(trace)) return `trace:${trace}`;
  const tp = meta.traceparent;
  if (typeof tp === "string") {
    const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(tp.trim());
    if (m && !/^0+$/.test(m[1]!)) return `trace:${m[1]}`;
  }
  return null;
}

/** The toolCallObserver: queue and return. */
export function observeToolCall(call: ToolCallRecord): void {
  const b = bufferOf(call.deps);
  if (b.items.length >= MAX_BUFFERED) {
    b.dropped++;
    return;
  }
  const c = call.principal.credential;
  const text =
    call.outcome === "ok"
      ? call.resultText && call.resultText.includes('"approval"')
        ? call.resultText
        : null
      : call.resultText;
  b.items.push({
    companyId: call.companyId,
    userId: call.principal.userId,
    credentialKind: c.kind,
    credentialId: c.id,
    clientName: c.name ? c.name.slice(0, 200) : null,
    oauthClientId: c.kind === "oauth" ? c.name : null,
    sessionKey: sessionKeyOf(call.sessionId, call.meta),
    tool: call.tool,
    toolset: call.toolset,
    args: call.args,
    status: call.outcome,
    text,
    durationMs: Math.max(0, Math.round(call.durationMs)),
    requestId: call.requestId,
    at: call.startedAt,
  });
  if (b.items.length >= FLUSH_AT) void flush(call.deps, b);
  else schedule(call.deps, b, FLUSH_MS);
}

function schedule(deps: Deps, b: Buffer, ms: number) {
  if (b.timer) return;
  b.timer = setTimeout(() => void flush(deps, b), ms);
  (b.timer as { unref?: () => void }).unref?.();
}

function flush(deps: Deps, b: Buffer): Promise<void> {
  if (b.timer) clearTimeout(b.timer);
  b.timer = null;
  if (b.busy || !b.items.length) return b.writing;
  const batch = b.items;
  b.items = [];
  b.busy = true;
  b.writing = (async () => {
    let failed = false;
    try {
      if (deps.store.closed) {
        b.dropped += batch.length;
        return;
      }
      await writeBatch(deps, batch);
      b.written += batch.length;
    } catch {
      // Once more with the next batch, then given up: history must never hold up the service.
      failed = true;
      const again = batch.filter((p) => !p.retried);
      for (const p of again) p.retried = true;
      const room = Math.max(0, MAX_BUFFERED - b.items.length);
      b.dropped += batch.length - Math.min(again.length, room);
      b.items.unshift(...again.slice(0, room));
    } finally {
      b.busy = false;
      if (b.items.length) schedule(deps, b, failed ? FLUSH_MS * 5 : b.items.length >= FLUSH_AT ? 0 : FLUSH_MS);
    }
  })();
  return b.writing;
}

/** Writes everything waiting now (tests, shutdown, the read tools: a client sees its own calls). */
export async function flushToolCalls(deps: Deps): Promise<void> {
  const b = bufferOf(deps);
  for (let i = 0; i < 3 && (b.busy || b.items.length); i++) {
    await b.writing;
    await flush(deps, b);
  }
}

/** Calls waiting, written and dropped in this process (for tests and metrics). */
export function recorderStats(deps: Deps) {
  const b = bufferOf(deps);
  return { waiting: b.items.length, written: b.written, dropped: b.dropped };
}

function approvalIdOf(text: string | null): number | null {
  if (!text) return null;
  try {
    const r = JSON.parse(text) as { approval?: { id?: unknown } };
    const id = r?.approval?.id;
    return typeof id === "number" && Number.isSafeInteger(id) ? id : null;
  } catch {
    return null;
  }
}

type ConvKey = string;
const keyOf = (p: Pending): ConvKey =>
  `${p.credentialKind}|${p.credentialId}|${p.companyId ?? "-"}|${p.sessionKey ?? ""}`;

async function writeBatch(deps: Deps, batch: Pending[]) {
  // In call order: grouping by idle gap depends on it.
  batch.sort((a, b) => a.at.getTime() - b.at.getTime());
  await deps.store.transaction(
    async (tx) => {
      const open = new Map<
        ConvKey,
        {
          id: number;
          last: number;
          tools: string[];
          stats: { calls: number; errors: number; approvals: number; ms: number };
          first: number;
        }
      >();
      const rows: (typeof aiToolCalls.$inferInsert)[] = [];
      for (const p of batch) {
        const key = keyOf(p);
        let conv = open.get(key);
        const at = p.at.getTime();
        if (conv && !p.sessionKey && at - conv.last > IDLE_GAP_MS) {
          await save(tx, conv);
          open.delete(key);
          conv = undefined;
        }
        if (!conv) conv = await findOrStart(tx, p);
        open.set(key, conv);
        const approvalId = p.status === "ok" ? approvalIdOf(p.text) : null;
        conv.last = Math.max(conv.last, at);
        conv.stats.calls++;
        if (p.status !== "ok") conv.stats.errors++;
        if (approvalId) conv.stats.approvals++;
        conv.stats.ms += p.durationMs;
        if (!conv.tools.includes(p.tool) && conv.tools.length < MAX_TOOLS) conv.tools.push(p.tool);
        rows.push({
          conversationId: conv.id,
          companyId: p.companyId,
          userId: p.userId,
          credentialKind: p.credentialKind,
          credentialId: p.credentialId,
          tool: p.tool,
          toolset: p.toolset,
          args: summariseArgs(p.args),
          status: p.status,
          error: p.status === "ok" ? null : summariseError(p.text ?? "protocol error"),
          durationMs: p.durationMs,
          approvalId,
          requestId: p.requestId || null,
          createdAt: p.at,
        });
      }
      for (const conv of open.values()) await save(tx, conv);
      // Raw multi-row inserts: drizzle's builder cost more per recorded call than most calls (src/core/bulk.ts).
      await bulkInsert(deps.store, aiToolCalls, rows);
    },
    { silent: true },
  );

  async function findOrStart(tx: Deps["db"], p: Pending) {
    const who = and(
      eq(aiConversations.credentialKind, p.credentialKind),
      eq(aiConversations.credentialId, p.credentialId),
      p.companyId === null ? isNull(aiConversations.companyId) : eq(aiConversations.companyId, p.companyId),
    );
    const where = p.sessionKey
      ? and(who, eq(aiConversations.sessionKey, p.sessionKey))
      : and(
          who,
          isNull(aiConversations.sessionKey),
          gte(aiConversations.lastCallAt, new Date(p.at.getTime() - IDLE_GAP_MS)),
        );
    let row = (
      await tx.select().from(aiConversations).where(where).orderBy(desc(aiConversations.lastCallAt)).limit(1)
    )[0];
    if (!row) {
      const values = {
        companyId: p.companyId,
        userId: p.userId,
        credentialKind: p.credentialKind,
        credentialId: p.credentialId,
        clientName: p.clientName,
        oauthClientId: p.oauthClientId,
        sessionKey: p.sessionKey,
        startedAt: p.at,
        lastCallAt: p.at,
        tools: [],
      };
      // Another instance may have started the same session a moment ago: then continue that one.
      row = (await tx.insert(aiConversations).values(values).onConflictDoNothing().returning())[0];
      if (!row) row = (await tx.select().from(aiConversations).where(where).limit(1))[0]!;
    }
    return {
      id: row.id,
      first: row.startedAt.getTime(),
      last: row.lastCallAt.getTime(),
      tools: [...row.tools],
      stats: { calls: 0, errors: 0, approvals: 0, ms: 0 },
    };
  }

  async function save(
    tx: Deps["db"],
    conv: {
      id: number;
      last: number;
      tools: string[];
      stats: { calls: number; errors: number; approvals: number; ms: number };
    },
  ) {
    await tx
      .update(aiConversations)
      .set({
        // conv.last started from the row read in this transaction (serializable on PostgreSQL): a plain set is safe.
        lastCallAt: new Date(conv.last),
        callCount: sql`${aiConversations.callCount} + ${conv.stats.calls}`,
        errorCount: sql`${aiConversations.errorCount} + ${conv.stats.errors}`,
        approvalCount: sql`${aiConversations.approvalCount} + ${conv.stats.approvals}`,
        totalDurationMs: sql`${aiConversations.totalDurationMs} + ${conv.stats.ms}`,
        tools: conv.tools,
      })
      .where(eq(aiConversations.id, conv.id));
  }
}
