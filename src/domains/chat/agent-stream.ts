/**
 * GET /chat/agent/stream — the agents' real-time feed, for the portal or
 * any integration that holds a credential (an MCP key, an OAuth token):
 * Server-Sent Events of every new message of the company's conversations
 * (visitor messages, replies, and notes: agents see notes), each as the
 * tools show it plus the conversation's number and the visitor.
 *
 *   Authorization: Bearer <credential with chat:read>
 *   ?clientId=<company id>   needed when the credential reaches several companies
 *   ?after=<message id>      resume: first everything after it (Last-Event-ID works too)
 *   ?inboxId=<id>            only one inbox
 *
 * MCP clients that cannot hold a stream open use chat_messages_wait.
 */
import { and, asc, eq, gt, inArray } from "drizzle-orm";
import type { Context } from "hono";
import type { ActorContext, Deps } from "../../core/context";
import { isAppError, httpStatus } from "../../core/errors";
// Straight from the accounts domain (as src/mcp/auth.ts does): importing src/mcp here would close an import cycle through the registry.
import { resolveBearer } from "../accounts/credentials";
import { events } from "../../core/tables";
import { chatRead, conversationOut, extrasFor, inboxById, messageOut, usersById } from "./access";
import { CONVERSATION_CHANGES, hubFor, type HubChange, type HubRow } from "./hub";
import { chatConversations, chatMessages, chatVisitors } from "./tables";

const HEARTBEAT_MS = 5_000;
const CATCH_UP = 500;

const err = (status: number, error: string) =>
  new Response(JSON.stringify({ error }), {
    status,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store" },
  });

function intParam(raw: string | undefined): number | null {
  if (raw === undefined || raw === "") return null;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : NaN;
}

export async function agentStream(deps: Deps, c: Context): Promise<Response> {
  const m = /^Bearer[ ]+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
  const principal = m ? await resolveBearer(deps, m[1]!) : null;
  if (!principal) return err(401, "Unauthorized");
  const clientId = intParam(c.req.query("clientId"));
  const after = intParam(c.req.query("after") ?? c.req.header("last-event-id"));
  const inboxId = intParam(c.req.query("inboxId"));
  if ([clientId, after, inboxId].some((x) => Number.isNaN(x)))
    return err(400, "clientId, after and inboxId are whole numbers.");
  const company =
    clientId === null
      ? principal.companies.length === 1
        ? principal.companies[0]
        : undefined
      : principal.companies.find((x) => x.id === clientId);
  if (!company)
    return err(
      400,
      clientId === null
        ? "clientId is required: this credential reaches several companies."
        : `clientId ${clientId} is not a company this credential can act for.`,
    );
  const ctx: ActorContext = { deps, principal, company, requestId: "chat-stream" };
  try {
    chatRead(ctx);
    if (inboxId !== null) await inboxById(deps.db, ctx, inboxId);
  } catch (e) {
    if (isAppError(e)) return err(httpStatus[e.code], e.message);
    throw e;
  }
  return messageStream(ctx, c.req.raw.signal, { after, inboxId });
}

/**
 * The SSE response itself, for an actor already allowed to read the
 * company's chats: the agent feed above, and the portal's live pages
 * (src/domains/chat/portal.tsx, one conversation by its row id).
 */
export function messageStream(
  ctx: ActorContext,
  signal: AbortSignal,
  opts: {
    after: number | null;
    inboxId?: number | null;
    conversationRowId?: number;
    /**
     * Also push conversation changes (status, assignee, priority, labels) as
     * `event: conversation` records with the conversation's current state
     * (the portal's pages; the agent feed's contract stays messages only).
     * Record ids then carry both cursors, `<message id>-<event id>`, so a
     * reconnect resumes both; `after` is the event cursor to catch up from.
     */
    changes?: { after: number | null; number?: number };
    /**
     * End the stream after this long: the client reconnects (EventSource does
     * by itself, resuming from Last-Event-ID, so nothing is lost) and is
     * authorised again, so a person removed from the company stops receiving.
     */
    maxLifetimeMs?: number;
  },
): Response {
  const { deps, company } = ctx;
  const { after, changes } = opts;
  const inboxId = opts.inboxId ?? null;
  let lastMessage = after ?? 0;
  let lastChange = changes?.after ?? 0;
  const recordId = () => (changes ? `${lastMessage}-${lastChange}` : String(lastMessage));
  const only = opts.conversationRowId;
  const hub = hubFor(deps);
  const enc = new TextEncoder();
  const sent = new Set<number>();
  const names = new Map<number, { id: number; name: string | null }>();
  const convs = new Map<
    number,
    { number: number; visitor: { name: string | null; email: string | null }; inboxId: number }
  >();
  let closed = false;
  let off = () => {};
  let beat: ReturnType<typeof setInterval> | null = null;
  let life: ReturnType<typeof setTimeout> | null = null;

  // On the store's live connections, as the hub reads: a burst of writes queued on the pool does not hold up the feed.
  async function describe(rows: { conversationId: number; userId: number | null; authorName?: string | null }[]) {
    const want = [...new Set(rows.map((r) => r.conversationId).filter((id) => !convs.has(id)))];
    if (want.length)
      for (const r of await deps.store.live
        .select({
          id: chatConversations.id,
          number: chatConversations.number,
          inboxId: chatConversations.inboxId,
          name: chatVisitors.name,
          email: chatVisitors.email,
        })
        .from(chatConversations)
        .innerJoin(chatVisitors, eq(chatVisitors.id, chatConversations.visitorId))
        .where(inArray(chatConversations.id, want)))
        convs.set(r.id, { number: r.number, inboxId: r.inboxId, visitor: { name: r.name, email: r.email } });
    for (const r of rows)
      if (r.userId !== null && r.authorName !== undefined) names.set(r.userId, { id: r.userId, name: r.authorName });
    const users = rows.map((r) => r.userId).filter((u): u is number => u !== null && !names.has(u));
    for (const [id, u] of await usersById(deps.store.live, users)) names.set(id, u);
  }

  const stream = new ReadableStream<Uint8Array>({
    start: async (ctrl) => {
      if (opts.maxLifetimeMs !== undefined)
        life = setTimeout(() => {
          close();
          try {
            ctrl.close();
          } catch {
            /* already closed */
          }
        }, opts.maxLifetimeMs);
      hub.streams++;
      const write = (s: string) => {
        if (closed) return;
        try {
          ctrl.enqueue(enc.encode(s));
        } catch {
          close();
        }
      };
      const send = async (rows: (typeof chatMessages.$inferSelect)[] | HubRow[]) => {
        await describe(rows);
        for (const m of rows) {
          const conv = convs.get(m.conversationId);
          if (
            !conv ||
            sent.has(m.id) ||
            (after !== null && m.id <= after) ||
            (inboxId !== null && conv.inboxId !== inboxId)
          )
            continue;
          if (only !== undefined && m.conversationId !== only) continue;
          sent.add(m.id);
          lastMessage = m.id;
          const out = {
            ...messageOut({ ...m, companyId: company.id } as typeof chatMessages.$inferSelect, names, conv.number),
            visitor: conv.visitor,
          };
          write(`id: ${recordId()}\nevent: message\ndata: ${JSON.stringify(out)}\n\n`);
        }
      };
      /** Each changed conversation's state now (never the event's payload: several changes in a burst show as the last one). */
      const sendChanges = async (list: Pick<HubChange, "eventId" | "number">[]) => {
        if (!changes || !list.length) return;
        for (const ch of list) if (ch.eventId > lastChange) lastChange = ch.eventId;
        const numbers = [
          ...new Set(list.map((ch) => ch.number).filter((n) => changes.number === undefined || n === changes.number)),
        ];
        if (!numbers.length) return;
        const rows = await deps.db
          .select()
          .from(chatConversations)
          .where(and(eq(chatConversations.companyId, company.id), inArray(chatConversations.number, numbers)));
        const x = await extrasFor(deps.db, rows);
        for (const r of rows) {
          if (inboxId !== null && r.inboxId !== inboxId) continue;
          const o = conversationOut(r, x);
          const state = {
            id: o.id,
            ref: o.ref,
            status: o.status,
            snoozedUntil: o.snoozedUntil,
            priority: o.priority,
            assignee: o.assignee,
            labels: o.labels,
            waitingSince: o.waitingSince,
          };
          write(`id: ${recordId()}\nevent: conversation\ndata: ${JSON.stringify(state)}\n\n`);
        }
      };
      const pending: HubRow[] = [];
      const pendingChanges: HubChange[] = [];
      let live = false;
      const offMessages = hub.onCompany(company.id, (rows) => {
        if (live) void send(rows).catch(() => {});
        else pending.push(...rows);
      });
      const offChanges = changes
        ? hub.onChanges(company.id, (list) => {
            if (live) void sendChanges(list).catch(() => {});
            else pendingChanges.push(...list);
          })
        : () => {};
      off = () => {
        offMessages();
        offChanges();
      };
      write(`retry: 2000\n: connected\n\n`);
      try {
        await hub.ready;
        if (after !== null) {
          const rows = await deps.db
            .select()
            .from(chatMessages)
            .where(
              and(
                eq(chatMessages.companyId, company.id),
                gt(chatMessages.id, after),
                only !== undefined ? eq(chatMessages.conversationId, only) : undefined,
              ),
            )
            .orderBy(asc(chatMessages.id))
            .limit(CATCH_UP);
          await send(rows);
        }
        if (changes && changes.after !== null) {
          const missed = await deps.db
            .select({ eventId: events.id, number: events.entityId, type: events.type })
            .from(events)
            .where(
              and(
                eq(events.companyId, company.id),
                gt(events.id, changes.after),
                inArray(events.type, [...CONVERSATION_CHANGES]),
                changes.number !== undefined ? eq(events.entityId, changes.number) : undefined,
              ),
            )
            .orderBy(asc(events.id))
            .limit(CATCH_UP);
          await sendChanges(missed.map((r) => ({ ...r, companyId: company.id })));
        }
        live = true;
        await send(pending.splice(0));
        await sendChanges(pendingChanges.splice(0));
      } catch {
        close();
      }
      if (!closed) beat = setInterval(() => write(`: ping\n\n`), HEARTBEAT_MS);
    },
    cancel: () => close(),
  });
  function close() {
    if (closed) return;
    closed = true;
    off();
    if (beat) clearInterval(beat);
    hub.streams--;
    if (life) clearTimeout(life);
  }
  signal.addEventListener("abort", close, { once: true });
  return new Response(stream, {
    headers: {
      "Content-Type": "text/event-stream; charset=utf-8",
      "Cache-Control": "no-store",
      "X-Accel-Buffering": "no",
      "X-Content-Type-Options": "nosniff",
    },
  });
}
