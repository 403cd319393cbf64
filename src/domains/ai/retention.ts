/**
 * AI history retention: `ai_tool_calls` gains a row per MCP call, so it is
 * kept for PLINTH_AI_HISTORY_DAYS (default 90; 0 keeps everything), like
 * LiteLLM's spend-log retention. Hourly, the `ai.history_prune` job deletes
 *   - conversations whose last call is older than that, with their calls;
 *   - in a conversation still going (a client that reuses one session or
 *     trace id for months), its calls older than that.
 * A kept conversation's counters (calls, errors, approvals, time) still
 * count every call it made; only the rows listing them age out.
 * Deletes go in batches, each its own short transaction, so a first run on
 * a large history never holds the write lock for long.
 */
import { and, asc, eq, gt, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { anyRow, type JobDef } from "../../core/jobs";
import { aiConversations, aiToolCalls } from "./tables";

/** Conversations looked at per pass. */
const BATCH = 500;
/** Call rows deleted per transaction: a first run over a large history never holds the write lock for long. */
const CALL_BATCH = 2_000;

export interface PruneOutcome {
  conversations: number;
  calls: number;
}

/** Deletes the calls matching `where`, CALL_BATCH at a time; how many. */
async function deleteCalls(deps: Deps, where: SQL): Promise<number> {
  let n = 0;
  for (;;) {
    if (deps.store.closed) return n;
    const ids = (await deps.db.select({ id: aiToolCalls.id }).from(aiToolCalls).where(where).limit(CALL_BATCH)).map(
      (r) => r.id,
    );
    if (!ids.length) return n;
    await deps.store.transaction((tx) => tx.delete(aiToolCalls).where(inArray(aiToolCalls.id, ids)), { silent: true });
    n += ids.length;
    if (ids.length < CALL_BATCH) return n;
  }
}

/** Rows older than this instant go; null while PLINTH_AI_HISTORY_DAYS is 0 (everything is kept). */
function cutoffOf(deps: Deps): Date | null {
  const days = deps.config.aiHistoryDays;
  return days ? new Date(deps.clock.ms() - days * 86_400_000) : null;
}

/** Conversations whose last call is older than the cutoff: pruneHistory deletes them, with all their calls. */
const idle = (cutoff: Date) => lt(aiConversations.lastCallAt, cutoff);

/** Conversations that started before the cutoff and are still going: pruneHistory deletes their calls older than it (`oldCall`). */
const live = (cutoff: Date) => and(lt(aiConversations.startedAt, cutoff), gte(aiConversations.lastCallAt, cutoff));
const oldCall = (cutoff: Date) => lt(aiToolCalls.createdAt, cutoff);

/**
 * The job's pending check: anything pruneHistory would delete now, an idle
 * conversation or an old call of a live one (one read each, the second only
 * when the first finds none).
 */
async function historyToPrune(deps: Deps): Promise<boolean> {
  const cutoff = cutoffOf(deps);
  if (!cutoff) return false;
  return (
    (await anyRow(deps.db.select({ id: aiConversations.id }).from(aiConversations).where(idle(cutoff)).limit(1))) ||
    (await anyRow(
      deps.db
        .select({ id: aiToolCalls.id })
        .from(aiToolCalls)
        .innerJoin(aiConversations, eq(aiConversations.id, aiToolCalls.conversationId))
        .where(and(live(cutoff), oldCall(cutoff)))
        .limit(1),
    ))
  );
}

export async function pruneHistory(deps: Deps): Promise<PruneOutcome> {
  const out: PruneOutcome = { conversations: 0, calls: 0 };
  const cutoff = cutoffOf(deps);
  if (!cutoff) return out;
  // Conversations idle since before the cutoff: their calls, then themselves.
  for (;;) {
    if (deps.store.closed) return out;
    const ids = (
      await deps.db.select({ id: aiConversations.id }).from(aiConversations).where(idle(cutoff)).limit(BATCH)
    ).map((r) => r.id);
    if (!ids.length) break;
    out.calls += await deleteCalls(deps, inArray(aiToolCalls.conversationId, ids));
    if (deps.store.closed) return out;
    // A call recorded meanwhile moved last_call_at past the cutoff: that conversation stays.
    const gone = await deps.store.transaction(
      (tx) =>
        tx
          .delete(aiConversations)
          .where(and(inArray(aiConversations.id, ids), idle(cutoff)))
          .returning({ id: aiConversations.id }),
      { silent: true },
    );
    out.conversations += gone.length;
    if (ids.length < BATCH) break;
  }
  // Conversations that started before the cutoff and are still going: their older calls.
  let after = 0;
  for (;;) {
    if (deps.store.closed) return out;
    const going = (
      await deps.db
        .select({ id: aiConversations.id })
        .from(aiConversations)
        .where(and(live(cutoff), gt(aiConversations.id, after)))
        .orderBy(asc(aiConversations.id))
        .limit(BATCH)
    ).map((r) => r.id);
    if (!going.length) break;
    after = going[going.length - 1]!;
    out.calls += await deleteCalls(deps, and(inArray(aiToolCalls.conversationId, going), oldCall(cutoff))!);
    if (going.length < BATCH) break;
  }
  return out;
}

export const historyPruneJob: JobDef = {
  name: "ai.history_prune",
  description:
    "Deletes AI history older than PLINTH_AI_HISTORY_DAYS (default 90): conversations idle that long with their calls, and older calls of conversations still going.",
  everyMs: 3_600_000,
  pending: historyToPrune,
  run: async (deps) => void (await pruneHistory(deps)),
};
