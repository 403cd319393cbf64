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
import { and, asc, gt, gte, inArray, lt, type SQL } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { JobDef } from "../../core/jobs";
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
    const ids = (await deps.db.select({ id: aiToolCalls.id }).from(aiToolCalls).where(where).limit(CALL_BATCH)).map((r) => r.id);
    if (!ids.length) return n;
    await deps.store.transaction((tx) => tx.delete(aiToolCalls).where(inArray(aiToolCalls.id, ids)), { silent: true });
    n += ids.length;
    if (ids.length < CALL_BATCH) return n;
  }
}

export async function pruneHistory(deps: Deps): Promise<PruneOutcome> {
  const out: PruneOutcome = { conversations: 0, calls: 0 };
  const days = deps.config.aiHistoryDays;
  if (!days) return out;
  const cutoff = new Date(deps.clock.ms() - days * 86_400_000);
  // Conversations idle since before the cutoff: their calls, then themselves.
  for (;;) {
    if (deps.store.closed) return out;
    const ids = (await deps.db.select({ id: aiConversations.id }).from(aiConversations).where(lt(aiConversations.lastCallAt, cutoff)).limit(BATCH)).map((r) => r.id);
    if (!ids.length) break;
    out.calls += await deleteCalls(deps, inArray(aiToolCalls.conversationId, ids));
    if (deps.store.closed) return out;
    // A call recorded meanwhile moved last_call_at past the cutoff: that conversation stays.
    const gone = await deps.store.transaction(
      (tx) => tx.delete(aiConversations).where(and(inArray(aiConversations.id, ids), lt(aiConversations.lastCallAt, cutoff))).returning({ id: aiConversations.id }),
      { silent: true },
    );
    out.conversations += gone.length;
    if (ids.length < BATCH) break;
  }
  // Conversations that started before the cutoff and are still going: their older calls.
  let after = 0;
  for (;;) {
    if (deps.store.closed) return out;
    const live = (
      await deps.db
        .select({ id: aiConversations.id })
        .from(aiConversations)
        .where(and(lt(aiConversations.startedAt, cutoff), gte(aiConversations.lastCallAt, cutoff), gt(aiConversations.id, after)))
        .orderBy(asc(aiConversations.id))
        .limit(BATCH)
    ).map((r) => r.id);
    if (!live.length) break;
    after = live[live.length - 1]!;
    out.calls += await deleteCalls(deps, and(inArray(aiToolCalls.conversationId, live), lt(aiToolCalls.createdAt, cutoff))!);
    if (live.length < BATCH) break;
  }
  return out;
}

export const historyPruneJob: JobDef = {
  name: "ai.history_prune",
  description: "Deletes AI history older than PLINTH_AI_HISTORY_DAYS (default 90): conversations idle that long with their calls, and older calls of conversations still going.",
  everyMs: 3_600_000,
  run: async (deps) => void (await pruneHistory(deps)),
};
