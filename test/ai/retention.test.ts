/**
 * AI history retention (src/domains/ai/retention.ts) on this run's engine:
 * calls recorded by the real recorder at chosen instants, then the prune
 * at and just past the cutoff; conversations still going keep their recent
 * calls; 0 days keeps everything; a history larger than one delete batch
 * goes in several; the job is on the ai domain and runs through the runner;
 * its pending check finds work at exactly the instants the prune has some
 * (pruneHistory is test/jobs.ts's, held to that check).
 */
import { catalog } from "../../src/catalog";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { loadConfig } from "../../src/config";
import { ManualClock } from "../../src/core/clock";
import type { Deps } from "../../src/core/context";
import { JobRunner } from "../../src/core/jobs";
import type { Store } from "../../src/core/db";
import { flushToolCalls, observeToolCall } from "../../src/domains/ai/recorder";
import { historyPruneJob } from "../../src/domains/ai/retention";
import { aiConversations, aiToolCalls } from "../../src/domains/ai/tables";
import { aiDomain } from "../../src/domains/ai/tools";
import { createCompany, createUser } from "../fixtures/accounts";
import { openTestStore } from "../db";
import { pruneHistory } from "../jobs";

const DAY = 86_400_000;
const T0 = Date.UTC(2026, 0, 5, 9, 0, 0);

let store: Store;
let clock: ManualClock;
let deps: Deps;
let companyId: number;
let userId: number;

function depsWith(days: number): Deps {
  return {
    store,
    db: store.db,
    config: { ...loadConfig({}, {}), aiHistoryDays: days },
    clock,
    redis: null,
    blobs: null as never,
    catalog,
  };
}

beforeEach(async () => {
  store = await openTestStore();
  clock = new ManualClock(T0);
  deps = depsWith(90);
  userId = (await createUser(deps, { email: "olga@agency.test", name: "Olga" })).id;
  companyId = (await createCompany(deps, { name: "Acme", ownerUserId: userId })).id;
});
afterEach(() => store.close());

/** One recorded call by key `credentialId` at `at`, in the client's session when given. */
function call(at: number, opts: { credentialId?: number; session?: string; tool?: string } = {}) {
  observeToolCall({
    deps,
    principal: {
      userId,
      credential: { kind: "mcp_key", id: opts.credentialId ?? 1, name: "laptop" },
      scopes: ["*"],
      companies: [],
      requireCmsApproval: false,
    } as never,
    companyId,
    tool: opts.tool ?? "posts_list",
    toolset: "cms",
    args: { siteId: 1 },
    meta: null,
    sessionId: opts.session ?? null,
    outcome: "ok",
    resultText: "{}",
    startedAt: new Date(at),
    durationMs: 3,
    requestId: "r",
  });
}

async function history() {
  const convs = await deps.db.select().from(aiConversations).orderBy(aiConversations.id);
  const calls = await deps.db.select().from(aiToolCalls).orderBy(aiToolCalls.id);
  return convs
    .map((c) => ({
      key: c.sessionKey ?? `cred:${c.credentialId}`,
      callCount: c.callCount,
      kept: calls.filter((k) => k.conversationId === c.id).map((k) => k.createdAt.getTime() - T0),
    }))
    .sort((a, b) => (a.key < b.key ? -1 : 1));
}

describe("AI history retention", () => {
  test("a conversation goes when its last call is older than the retention, not at the instant; a long session keeps its recent calls", async () => {
    call(T0, { credentialId: 1 });
    call(T0 + 60_000, { credentialId: 1 });
    call(T0 + 10 * DAY, { credentialId: 2 });
    call(T0, { credentialId: 3, session: "long" });
    call(T0 + 95 * DAY, { credentialId: 3, session: "long" });
    await flushToolCalls(deps);
    expect(await history()).toEqual([
      { key: "cred:1", callCount: 2, kept: [0, 60_000] },
      { key: "cred:2", callCount: 1, kept: [10 * DAY] },
      { key: "session:long", callCount: 2, kept: [0, 95 * DAY] },
    ]);

    // Exactly 90 days after conversation 1's last call: that call is not older than 90 days yet, so the
    // conversation stays; its first call and the long session's first call are older, and go.
    clock.set(T0 + 60_000 + 90 * DAY);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 2 });
    expect((await history()).map((h) => h.kept)).toEqual([[60_000], [10 * DAY], [95 * DAY]]);

    clock.advance(1);
    expect(await pruneHistory(deps)).toEqual({ conversations: 1, calls: 1 });
    expect(await history()).toEqual([
      { key: "cred:2", callCount: 1, kept: [10 * DAY] },
      // Counters keep counting every call the conversation made; the rows listing them age out.
      { key: "session:long", callCount: 2, kept: [95 * DAY] },
    ]);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 0 });

    clock.set(T0 + 100 * DAY + 1);
    expect(await pruneHistory(deps)).toEqual({ conversations: 1, calls: 1 });
    expect(await history()).toEqual([{ key: "session:long", callCount: 2, kept: [95 * DAY] }]);
  });

  test("0 days keeps everything; a history larger than one delete batch goes in several", async () => {
    for (let i = 0; i < 4_500; i++) call(T0 + i, { credentialId: 1 });
    call(T0 + 50 * DAY, { credentialId: 2 });
    await flushToolCalls(deps);
    clock.set(T0 + 400 * DAY);
    deps = depsWith(0);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 0 });
    expect(await deps.db.$count(aiToolCalls)).toBe(4_501);
    deps = depsWith(365);
    expect(await pruneHistory(deps)).toEqual({ conversations: 1, calls: 4_500 });
    expect((await history()).map((h) => [h.key, h.kept.length])).toEqual([["cred:2", 1]]);
  });

  test("the job's check finds work exactly when the prune has some: an idle conversation, an old call of one still going; none at 0 days", async () => {
    const pending = () => historyPruneJob.pending!(deps);
    call(T0, { credentialId: 1 });
    call(T0 + 5 * DAY, { credentialId: 3, session: "long" });
    call(T0 + 10 * DAY, { credentialId: 3, session: "long" });
    call(T0 + 95 * DAY, { credentialId: 3, session: "long" });
    await flushToolCalls(deps);
    expect(await pending()).toBe(false);
    // Cutoff T0: conversation 1's last call is not older than it yet.
    clock.set(T0 + 90 * DAY);
    expect(await pending()).toBe(false);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 0 });
    // A millisecond later it is: an idle conversation.
    clock.advance(1);
    expect(await pending()).toBe(true);
    expect(await pruneHistory(deps)).toEqual({ conversations: 1, calls: 1 });
    expect(await pending()).toBe(false);
    // The long session, still going: its first call exactly at the cutoff is no work, a millisecond older it is.
    clock.set(T0 + 95 * DAY);
    expect(await pending()).toBe(false);
    clock.advance(1);
    expect(await pending()).toBe(true);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 1 });
    // Started before the cutoff now: a later call exactly at the cutoff is no work either, a millisecond older it is.
    clock.set(T0 + 100 * DAY);
    expect(await pending()).toBe(false);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 0 });
    clock.advance(1);
    expect(await pending()).toBe(true);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 1 });
    // Started before the cutoff and still going, but no call older than it: no work.
    expect(await pending()).toBe(false);
    expect(await history()).toEqual([{ key: "session:long", callCount: 3, kept: [95 * DAY] }]);
    // Everything idle for a year: work, unless the history is kept forever.
    clock.set(T0 + 460 * DAY);
    expect(await pending()).toBe(true);
    deps = depsWith(0);
    expect(await pending()).toBe(false);
    expect(await pruneHistory(deps)).toEqual({ conversations: 0, calls: 0 });
  });

  test("the ai domain runs it hourly through the job runner, when its check finds work", async () => {
    expect(aiDomain.jobs).toContain(historyPruneJob);
    call(T0, { credentialId: 1 });
    call(T0 + DAY, { credentialId: 2 });
    await flushToolCalls(deps);
    const runner = new JobRunner(deps, aiDomain.jobs!);
    await runner.init();
    const kept = async () =>
      (await deps.db.select().from(aiConversations).where(eq(aiConversations.companyId, companyId))).map(
        (c) => c.credentialId,
      );
    clock.set(T0 + 91 * DAY);
    expect(await runner.runDue()).toEqual([{ name: "ai.history_prune", ok: true }]);
    expect(await kept()).toEqual([2]);
    clock.advance(59 * 60_000);
    expect(await runner.runDue()).toEqual([]);
    // An hour on, the second conversation is idle past the retention too.
    clock.advance(60_000);
    expect(await runner.runDue()).toEqual([{ name: "ai.history_prune", ok: true }]);
    expect(await kept()).toEqual([]);
    // Another hour: due again, but nothing to prune, so not run.
    clock.advance(60 * 60_000);
    expect(await runner.runDue()).toEqual([]);
  });
});
