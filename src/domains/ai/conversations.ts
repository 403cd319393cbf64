/**
 * Reading AI history: conversations of the company the call acts for,
 * their calls, and a search over tool names, argument summaries and errors.
 * Owners and admins see every conversation in the company; a viewer sees
 * only those of their own credentials (another person's agent session is
 * theirs to share).
 *
 * @public Serves integrations (the AI clients source reports a connection's
 * call health).
 */
import { and, count, countDistinct, desc, eq, gt, gte, inArray, lte, max, or, type SQL } from "drizzle-orm";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { invalid, notFound } from "../../core/errors";
import { page } from "../../core/pagination";
import { authorize } from "../../core/scopes";
import { containsText } from "../../core/sql";
import { users } from "../../core/tables";
import { flushToolCalls } from "./recorder";
import { aiConversations, aiToolCalls } from "./tables";

type ConvRow = typeof aiConversations.$inferSelect;
type CallRow = typeof aiToolCalls.$inferSelect;

function visible(ctx: ActorContext): SQL {
  const own = eq(aiConversations.companyId, ctx.company.id);
  return ctx.company.role === "viewer" ? and(own, eq(aiConversations.userId, ctx.principal.userId))! : own;
}

function convOut(r: ConvRow, email: string | null) {
  return {
    id: r.id,
    startedAt: iso(r.startedAt),
    lastCallAt: iso(r.lastCallAt),
    userId: r.userId,
    userEmail: email,
    credential: { kind: r.credentialKind, id: r.credentialId, name: r.clientName },
    oauthClientId: r.oauthClientId,
    session: r.sessionKey,
    calls: r.callCount,
    errors: r.errorCount,
    approvals: r.approvalCount,
    durationMs: r.totalDurationMs,
    tools: r.tools.slice(0, 10),
  };
}

function callOut(r: CallRow) {
  let args: unknown;
  try {
    args = JSON.parse(r.args);
  } catch {
    args = r.args;
  }
  return {
    id: r.id,
    at: iso(r.createdAt),
    tool: r.tool,
    args,
    status: r.status,
    error: r.error,
    durationMs: r.durationMs,
    approvalId: r.approvalId,
  };
}

async function userIdByEmail(ctx: ActorContext, email: string): Promise<number> {
  const u = (
    await ctx.deps.db.select({ id: users.id }).from(users).where(eq(users.email, email.trim().toLowerCase())).limit(1)
  )[0];
  // Unknown and foreign people alike simply match nothing.
  return u?.id ?? -1;
}

function when(s: string | undefined, what: string): Date | undefined {
  if (s === undefined) return undefined;
  const d = new Date(s);
  if (Number.isNaN(d.getTime())) throw invalid(`${what} must be an ISO 8601 date-time, got "${s.slice(0, 40)}".`);
  return d;
}

export interface ConversationFilter {
  userId?: number;
  email?: string;
  tool?: string;
  since?: string;
  until?: string;
  hasErrors?: boolean;
  hasApprovals?: boolean;
  limit: number;
  offset: number;
}

async function emails(ctx: ActorContext, rows: ConvRow[]) {
  const ids = [...new Set(rows.map((r) => r.userId).filter((x): x is number => x !== null))];
  if (!ids.length) return new Map<number, string>();
  const found = await ctx.deps.db
    .select({ id: users.id, email: users.email })
    .from(users)
    .where(inArray(users.id, ids));
  return new Map(found.map((u) => [u.id, u.email]));
}

export async function listConversations(ctx: ActorContext, f: ConversationFilter) {
  authorize(ctx, "ai:read", { write: false });
  const conds: SQL[] = [visible(ctx)];
  const userId = f.userId ?? (f.email !== undefined ? await userIdByEmail(ctx, f.email) : undefined);
  if (userId !== undefined) conds.push(eq(aiConversations.userId, userId));
  const since = when(f.since, "since");
  const until = when(f.until, "until");
  if (since) conds.push(gte(aiConversations.lastCallAt, since));
  if (until) conds.push(lte(aiConversations.startedAt, until));
  if (f.hasErrors !== undefined)
    conds.push(f.hasErrors ? gt(aiConversations.errorCount, 0) : eq(aiConversations.errorCount, 0));
  if (f.hasApprovals !== undefined)
    conds.push(f.hasApprovals ? gt(aiConversations.approvalCount, 0) : eq(aiConversations.approvalCount, 0));
  if (f.tool !== undefined) {
    const calls = ctx.deps.db
      .select({ c: aiToolCalls.conversationId })
      .from(aiToolCalls)
      .where(and(eq(aiToolCalls.companyId, ctx.company.id), eq(aiToolCalls.tool, f.tool)));
    conds.push(inArray(aiConversations.id, calls));
  }
  const where = and(...conds);
  const total = (await ctx.deps.db.select({ n: count() }).from(aiConversations).where(where))[0]?.n ?? 0;
  const rows = await ctx.deps.db
    .select()
    .from(aiConversations)
    .where(where)
    .orderBy(desc(aiConversations.lastCallAt), desc(aiConversations.id))
    .limit(f.limit)
    .offset(f.offset);
  const who = await emails(ctx, rows);
  return page(
    rows.map((r) => convOut(r, r.userId ? (who.get(r.userId) ?? null) : null)),
    total,
    f.limit,
    f.offset,
  );
}

export async function getConversation(
  ctx: ActorContext,
  input: { id: number; status?: "ok" | "error"; limit: number; offset: number },
) {
  authorize(ctx, "ai:read", { write: false });
  const conv = (
    await ctx.deps.db
      .select()
      .from(aiConversations)
      .where(and(eq(aiConversations.id, input.id), visible(ctx)))
      .limit(1)
  )[0];
  if (!conv)
    throw notFound(
      `Conversation ${input.id} not found in ${ctx.company.name}'s AI history. List them with ai_conversations_list.`,
    );
  const conds: SQL[] = [eq(aiToolCalls.conversationId, conv.id)];
  if (input.status === "ok") conds.push(eq(aiToolCalls.status, "ok"));
  if (input.status === "error")
    conds.push(or(eq(aiToolCalls.status, "tool_error"), eq(aiToolCalls.status, "protocol_error"))!);
  const where = and(...conds);
  const total = (await ctx.deps.db.select({ n: count() }).from(aiToolCalls).where(where))[0]?.n ?? 0;
  const calls = await ctx.deps.db
    .select()
    .from(aiToolCalls)
    .where(where)
    .orderBy(aiToolCalls.id)
    .limit(input.limit)
    .offset(input.offset);
  const who = await emails(ctx, [conv]);
  return {
    ...convOut(conv, conv.userId ? (who.get(conv.userId) ?? null) : null),
    tools: conv.tools,
    calls: page(calls.map(callOut), total, input.limit, input.offset),
  };
}

/** Conversations with calls whose tool name, argument summary or error contains `query` (ASCII case folded), newest hit first. */
export async function searchConversations(
  ctx: ActorContext,
  input: { query: string; since?: string; until?: string; limit: number; offset: number },
) {
  authorize(ctx, "ai:read", { write: false });
  const q = input.query.trim();
  if (q.length < 2) throw invalid("query needs at least 2 characters.");
  const conds: SQL[] = [
    eq(aiToolCalls.companyId, ctx.company.id),
    or(containsText(aiToolCalls.tool, q), containsText(aiToolCalls.args, q), containsText(aiToolCalls.error, q))!,
  ];
  if (ctx.company.role === "viewer") conds.push(eq(aiToolCalls.userId, ctx.principal.userId));
  const since = when(input.since, "since");
  const until = when(input.until, "until");
  if (since) conds.push(gte(aiToolCalls.createdAt, since));
  if (until) conds.push(lte(aiToolCalls.createdAt, until));
  const where = and(...conds);
  const total =
    (
      await ctx.deps.db
        .select({ n: countDistinct(aiToolCalls.conversationId) })
        .from(aiToolCalls)
        .where(where)
    )[0]?.n ?? 0;
  const lastHit = max(aiToolCalls.id);
  const groups = await ctx.deps.db
    .select({ conversationId: aiToolCalls.conversationId, hits: count(), lastHit })
    .from(aiToolCalls)
    .where(where)
    .groupBy(aiToolCalls.conversationId)
    .orderBy(desc(lastHit))
    .limit(input.limit)
    .offset(input.offset);
  const ids = groups.map((g) => g.conversationId);
  const convs = ids.length
    ? await ctx.deps.db.select().from(aiConversations).where(inArray(aiConversations.id, ids))
    : [];
  const hitIds = groups.map((g) => Number(g.lastHit));
  const hits = hitIds.length ? await ctx.deps.db.select().from(aiToolCalls).where(inArray(aiToolCalls.id, hitIds)) : [];
  const byId = new Map(convs.map((c) => [c.id, c]));
  const hitBy = new Map(hits.map((h) => [h.conversationId, h]));
  const who = await emails(ctx, convs);
  const items = groups.flatMap((g) => {
    const c = byId.get(g.conversationId);
    if (!c) return [];
    const h = hitBy.get(g.conversationId);
    return [
      {
        ...convOut(c, c.userId ? (who.get(c.userId) ?? null) : null),
        matches: Number(g.hits),
        lastMatch: h ? callOut(h) : null,
      },
    ];
  });
  return { query: q, ...page(items, Number(total), input.limit, input.offset) };
}

/**
 * For the integrations domain's health: what AI history knows of these
 * credentials' calls in the company: the last successful call, the last
 * failed one, and whether the latest call of all failed.
 */
export async function callHealth(
  deps: ActorContext["deps"],
  companyId: number,
  credentialKind: string,
  credentialIds: number[],
) {
  if (!credentialIds.length) return { lastSuccessAt: null, lastError: null, latestFailed: false };
  await flushToolCalls(deps);
  const mine = and(
    eq(aiToolCalls.companyId, companyId),
    eq(aiToolCalls.credentialKind, credentialKind),
    inArray(aiToolCalls.credentialId, credentialIds),
  );
  const failedOnly = or(eq(aiToolCalls.status, "tool_error"), eq(aiToolCalls.status, "protocol_error"));
  const last = async (cond: SQL | undefined) =>
    (await deps.db.select().from(aiToolCalls).where(cond).orderBy(desc(aiToolCalls.id)).limit(1))[0];
  const [okCall, failed, latest] = [
    await last(and(mine, eq(aiToolCalls.status, "ok"))),
    await last(and(mine, failedOnly)),
    await last(mine),
  ];
  return {
    lastSuccessAt: okCall?.createdAt ?? null,
    lastError: failed ? { at: failed.createdAt, message: `${failed.tool}: ${failed.error ?? "failed"}` } : null,
    latestFailed: !!latest && latest.status !== "ok",
  };
}
