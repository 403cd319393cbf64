/**
 * Automations that branch and wait, over a real server and MCP client on
 * this run's engine: `if` steps on event data and on an earlier step's
 * output (nested), waits for a duration and until a time moved through by
 * the test clock, a restart while waiting (a fresh store on the same
 * database resumes the run), two instances racing to resume the same runs
 * (each resumed once: on PostgreSQL two pools, on SQLite one store), the
 * dry run following both branches, run history naming branches and waits,
 * and saves refusing hostile definitions with the path of the bad step.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import { ManualClock } from "../../src/core/clock";
import type { Deps } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import { openStore } from "../../src/core/open";
import { automationRuns } from "../../src/domains/automations/tables";
import { notifications } from "../../src/domains/notifications/tables";
import { ON_PG } from "../db";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { runQueued } from "../jobs";
import { caughtUp } from "./settle";

let s: TestServer;
let w: World;
const T0 = Date.UTC(2026, 0, 15, 7, 0, 0);
const DAY = 86_400_000;
let project = 0;

beforeAll(async () => {
  s = await startTestServer({ seed: false, clock: new ManualClock(T0) });
  w = await makeWorld(s);
  // The tests drive runs themselves; the background runner would race them for the same rows.
  await s.jobs.stop();
});
afterAll(async () => {
  await s.stop();
});

/** A project of its own per automation, so each test's cards trigger only its own automation. */
async function automation(name: string, actions: unknown[]) {
  const key = `P${++project}`;
  await w.ok(w.owner, "projects_create", { name: `Flow ${project}`, key });
  const a = await w.ok(w.owner, "automations_create", {
    name,
    trigger: {
      type: "event",
      eventType: "card.created",
      filters: [{ path: "trigger.data.projectKey", op: "eq", value: key }],
    },
    actions,
    enabled: true,
  });
  return { id: a.id as number, key };
}

async function card(key: string, title: string, priority = 0) {
  await w.ok(w.owner, "cards_create", { projectId: key, title, priority });
  await caughtUp(s);
}

async function runsOf(id: number) {
  const list = await w.ok(w.owner, "automation_runs_list", { automationId: id });
  return Promise.all(list.items.map((r: any) => w.ok(w.owner, "automation_runs_get", { id: r.id })));
}

/** An if step's `then` key: Biome reads a literal `then:` key as a thenable object. */
const THEN = "then";
const note = (title: string) => ({ type: "notify", with: { roles: ["owner"], title } });

async function titles(prefix: string) {
  const rows = await s.deps.db.select({ title: notifications.title }).from(notifications);
  return rows.map((r) => r.title).filter((t) => t.startsWith(prefix));
}

describe("branches", () => {
  test("on event data and on an earlier step's output, nested; run history names each branch", async () => {
    const a = await automation("Triage", [
      { id: "card", type: "call_tool", with: { tool: "cards_get", arguments: { id: "{{trigger.data.key}}" } } },
      {
        id: "urgent",
        type: "if",
        with: {
          conditions: [{ path: "trigger.data.title", op: "contains", value: "urgent" }],
          [THEN]: [
            {
              id: "prio",
              type: "if",
              with: {
                conditions: [{ path: "steps.card.output.priority", op: "gt", value: 2 }],
                [THEN]: [note("B1 hot {{trigger.data.title}}")],
                else: [note("B1 warm {{trigger.data.title}}")],
              },
            },
          ],
          else: [note("B1 calm {{trigger.data.title}}")],
        },
      },
      note("B1 done {{trigger.data.title}} {{steps.urgent.output.branch}}/{{steps.prio.output.branch}}"),
    ]);
    await card(a.key, "urgent one", 3);
    await card(a.key, "urgent two", 1);
    await card(a.key, "quiet", 3);
    await runQueued(s.deps);
    expect((await titles("B1")).sort()).toEqual([
      "B1 calm quiet",
      "B1 done quiet else/",
      "B1 done urgent one then/then",
      "B1 done urgent two then/else",
      "B1 hot urgent one",
      "B1 warm urgent two",
    ]);
    const runs = await runsOf(a.id);
    const one = runs.find((r: any) => r.trigger.data.title === "urgent one");
    expect(one.status).toBe("succeeded");
    expect(one.steps.map((x: any) => [x.path ?? x.index, x.type, x.branch ?? null, x.status])).toEqual([
      [0, "call_tool", null, "succeeded"],
      [1, "if", "then", "succeeded"],
      ["actions[1].with.then[0]", "if", "then", "succeeded"],
      ["actions[1].with.then[0].with.then[0]", "notify", null, "succeeded"],
      [2, "notify", null, "succeeded"],
    ]);
    // The branch's record shows each condition and whether it held.
    expect(one.steps[2].input.conditions).toEqual([
      { path: "steps.card.output.priority", op: "gt", value: 2, holds: true },
    ]);
  });

  test("the dry run follows both branches: the one taken, the other skipped with the reason; waits say until when", async () => {
    const a = await automation("Dry", [
      {
        type: "if",
        with: {
          conditions: [{ path: "trigger.data.priority", op: "gt", value: 2 }],
          [THEN]: [{ type: "wait", with: { for: "2d" } }, note("hot {{trigger.data.title}}")],
          else: [{ type: "send_email", with: { to: "{{trigger.data.title}}", subject: "x", text: "y" } }],
        },
      },
      { type: "wait", with: { for: "1d" } },
    ]);
    const before = (await runsOf(a.id)).length;
    const dry = await w.ok(w.owner, "automations_test", {
      id: a.id,
      sample: { data: { title: "T", priority: 4, projectKey: a.key } },
    });
    const now = s.clock.now().getTime();
    expect(dry.wouldRun).toBe(true);
    expect(dry.steps.map((x: any) => [x.path ?? x.index, x.type, x.ok, x.skipped ?? null])).toEqual([
      [0, "if", true, null],
      ["actions[0].with.then[0]", "wait", true, null],
      ["actions[0].with.then[1]", "notify", true, null],
      ["actions[0].with.else[0]", "send_email", false, "actions[0] would take then: every condition holds."],
      [1, "wait", true, null],
    ]);
    expect(dry.steps[0].branch).toBe("then");
    expect(dry.steps[1].wouldWaitUntil).toBe(new Date(now + 2 * DAY).toISOString());
    // Waits add up: the second ends a day after the first.
    expect(dry.steps[4].wouldWaitUntil).toBe(new Date(now + 3 * DAY).toISOString());
    // The branch not taken is still checked: its problems show before it ever runs.
    expect(dry.steps[3].problems[0]).toContain("with.to must be 1 to 20 email addresses");
    const other = await w.ok(w.owner, "automations_test", { id: a.id, sample: { data: { title: "T", priority: 1 } } });
    expect(other.steps[0].branch).toBe("else");
    expect(other.steps.map((x: any) => [x.path ?? x.index, x.skipped ?? null])).toEqual([
      [0, null],
      ["actions[0].with.then[0]", "actions[0] would take else: a condition does not hold."],
      ["actions[0].with.then[1]", "actions[0] would take else: a condition does not hold."],
      ["actions[0].with.else[0]", null],
      [1, null],
    ]);
    // The skipped wait does not count: the one that runs ends a day from now.
    expect(other.steps[4].wouldWaitUntil).toBe(new Date(now + DAY).toISOString());
    expect((await runsOf(a.id)).length).toBe(before);
  });
});

describe("waits", () => {
  test("for a duration: the run waits (history says until when), resumes once the clock gets there", async () => {
    const a = await automation("Follow up", [
      note("W1 first {{trigger.data.title}}"),
      { id: "pause", type: "wait", with: { for: "2d" } },
      note("W1 after {{trigger.data.title}} {{steps.pause.output.endedAt}}"),
    ]);
    const t = s.clock.now().getTime();
    await card(a.key, "lead");
    await runQueued(s.deps);
    let [run] = await runsOf(a.id);
    expect(run.status).toBe("waiting");
    expect(run.resumeAt).toBe(new Date(t + 2 * DAY).toISOString());
    expect(run.waitingAt).toBe("actions[1]");
    expect(run.steps[1]).toMatchObject({ type: "wait", status: "waiting", waitUntil: run.resumeAt, finishedAt: null });
    expect(await titles("W1")).toEqual(["W1 first lead"]);
    // A day later nothing is due: the job's check finds nothing and the run still waits.
    s.clock.advance(DAY);
    await runQueued(s.deps);
    expect((await runsOf(a.id))[0].status).toBe("waiting");
    s.clock.advance(DAY);
    await runQueued(s.deps);
    [run] = await runsOf(a.id);
    expect(run.status).toBe("succeeded");
    expect(run.attempts).toBe(1);
    const end = new Date(t + 2 * DAY).toISOString();
    expect(run.steps[1]).toMatchObject({ status: "succeeded", waitUntil: end, finishedAt: end });
    expect(await titles("W1")).toEqual(["W1 first lead", `W1 after lead ${end}`]);
  });

  test("until a time (a literal, a template; a past time does not wait; a bad one fails clearly)", async () => {
    const t = s.clock.now().getTime();
    const at = new Date(t + 3 * 3_600_000).toISOString();
    const a = await automation("Until", [
      {
        type: "if",
        with: {
          conditions: [{ path: "trigger.data.priority", op: "eq", value: 1 }],
          [THEN]: [{ type: "wait", with: { until: at } }],
          else: [{ type: "wait", with: { until: "{{trigger.data.title}}" } }],
        },
      },
      note("U1 after {{trigger.data.title}}"),
    ]);
    await card(a.key, "literal", 1);
    await card(a.key, new Date(t - DAY).toISOString(), 0);
    await card(a.key, "not a time", 0);
    await runQueued(s.deps);
    const runs = await runsOf(a.id);
    const by = (title: string) => runs.find((r: any) => r.trigger.data.title === title);
    expect(by("literal")).toMatchObject({ status: "waiting", resumeAt: at, waitingAt: "actions[0].with.then[0]" });
    expect(by(new Date(t - DAY).toISOString()).status).toBe("succeeded");
    const bad = by("not a time");
    expect(bad.status).toBe("failed");
    expect(bad.error).toBe(
      'Step actions[0].with.else[0] (wait) failed: with.until must be an ISO 8601 time; got "not a time"',
    );
    expect(bad.resumeAtStep).toBe("actions[0].with.else[0]");
    // A retry resumes at that nested step: the branch is not recorded twice, the failed record is replaced.
    expect(await w.ok(w.owner, "automation_runs_retry", { id: bad.id })).toMatchObject({
      resumeAtStep: "actions[0].with.else[0]",
    });
    await runQueued(s.deps);
    const again = await w.ok(w.owner, "automation_runs_get", { id: bad.id });
    expect(again.status).toBe("failed");
    expect(again.attempts).toBe(2);
    expect(again.steps.map((x: any) => [x.type, x.status])).toEqual([
      ["if", "succeeded"],
      ["wait", "failed"],
    ]);
    s.clock.advance(3 * 3_600_000);
    await runQueued(s.deps);
    expect((await titles("U1")).sort()).toEqual([`U1 after ${new Date(t - DAY).toISOString()}`, "U1 after literal"]);
  });

  test("a wait inside a branch resumes in that branch; the branch is not chosen again", async () => {
    // The condition reads the wait's own record: absent when the branch is chosen, present after; re-choosing would flip it.
    const a = await automation("Stay", [
      {
        type: "if",
        with: {
          conditions: [{ path: "steps.hold.status", op: "exists", value: false }],
          [THEN]: [{ id: "hold", type: "wait", with: { for: "1h" } }, note("S1 then {{trigger.data.title}}")],
          else: [note("S1 else {{trigger.data.title}}")],
        },
      },
    ]);
    await card(a.key, "kept");
    await runQueued(s.deps);
    expect((await runsOf(a.id))[0]).toMatchObject({ status: "waiting", waitingAt: "actions[0].with.then[0]" });
    s.clock.advance(3_600_000);
    await runQueued(s.deps);
    expect(await titles("S1")).toEqual(["S1 then kept"]);
    const [run] = await runsOf(a.id);
    expect(run.steps.map((x: any) => [x.type, x.status])).toEqual([
      ["if", "succeeded"],
      ["wait", "succeeded"],
      ["notify", "succeeded"],
    ]);
  });

  test("until a field changes: looked at every 5 minutes; a change ends the wait, else the timeout does", async () => {
    const watch = {
      id: "watch",
      type: "wait",
      with: {
        untilChanged: {
          tool: "cards_get",
          arguments: { id: "{{trigger.data.key}}" },
          path: "priority",
          timeout: "1h",
        },
      },
    };
    const a = await automation("Watch", [
      watch,
      note(
        "C1 {{trigger.data.title}} {{steps.watch.output.changed}} {{steps.watch.output.from}}>{{steps.watch.output.to}}",
      ),
    ]);
    await card(a.key, "moved", 1);
    await card(a.key, "still", 1);
    await runQueued(s.deps);
    const t = s.clock.now().getTime();
    let runs = await runsOf(a.id);
    for (const r of runs) {
      expect(r).toMatchObject({ status: "waiting", resumeAt: new Date(t + 5 * 60_000).toISOString() });
      expect(r.steps[0]).toMatchObject({
        status: "waiting",
        output: { baseline: 1 },
        waitUntil: new Date(t + 3_600_000).toISOString(),
      });
    }
    // Nothing changed at the first look: the run waits for the next one.
    s.clock.advance(5 * 60_000);
    expect(await runQueued(s.deps)).toBe(2);
    expect((await runsOf(a.id)).map((r: any) => r.status)).toEqual(["waiting", "waiting"]);
    await w.ok(w.owner, "cards_update", { id: `${a.key}-1`, priority: 4 });
    s.clock.advance(5 * 60_000);
    await runQueued(s.deps);
    expect(await titles("C1")).toEqual(["C1 moved true 1>4"]);
    s.clock.advance(3_600_000);
    await runQueued(s.deps);
    expect((await titles("C1")).sort()).toEqual(["C1 moved true 1>4", "C1 still false 1>1"]);
    runs = await runsOf(a.id);
    expect(runs.map((r: any) => r.status)).toEqual(["succeeded", "succeeded"]);
    // The dry run checks the reading tool and says how long the watch may last.
    const dry = await w.ok(w.owner, "automations_test", { id: a.id, sample: { data: { key: "NOPE-1" } } });
    expect(dry.steps[0]).toMatchObject({
      ok: true,
      wouldWaitUntil: new Date(s.clock.now().getTime() + 3_600_000).toISOString(),
    });
  });

  test("a restart mid-wait: a fresh store on the same database resumes the run, once", async () => {
    const a = await automation("Restart", [
      { type: "wait", with: { for: "1h" } },
      note("R1 after {{trigger.data.title}}"),
    ]);
    await card(a.key, "survivor");
    await runQueued(s.deps);
    expect((await runsOf(a.id))[0].status).toBe("waiting");
    s.clock.advance(3_600_000);
    const fresh = await openStore({ dataDir: s.dataDir, databaseUrl: s.config.databaseUrl });
    try {
      const deps: Deps = { ...s.deps, store: fresh, db: fresh.db };
      expect(await runQueued(deps)).toBe(1);
      expect(await runQueued(deps)).toBe(0);
    } finally {
      await fresh.close();
    }
    expect(await runQueued(s.deps)).toBe(0);
    expect((await runsOf(a.id))[0].status).toBe("succeeded");
    expect(await titles("R1")).toEqual(["R1 after survivor"]);
  });

  test("two instances racing to resume the same waiting runs: each run resumes exactly once", async () => {
    const a = await automation("Race", [{ type: "wait", with: { for: "30m" } }, note("X1 {{trigger.data.title}}")]);
    for (let i = 0; i < 6; i++) await card(a.key, `r${i}`);
    await runQueued(s.deps);
    expect((await runsOf(a.id)).map((r: any) => r.status)).toEqual(Array(6).fill("waiting"));
    s.clock.advance(30 * 60_000);
    // On PostgreSQL a second pool is a second instance; SQLite has one writer per process, so both race on one store.
    let second: Store | null = null;
    if (ON_PG) second = await openStore({ dataDir: ":memory:", databaseUrl: s.config.databaseUrl });
    try {
      const other: Deps = second ? { ...s.deps, store: second, db: second.db } : s.deps;
      const done = await Promise.all([runQueued(s.deps), runQueued(other), runQueued(s.deps), runQueued(other)]);
      expect(done.reduce((x, y) => x + y, 0)).toBe(6);
    } finally {
      await second?.close();
    }
    expect((await titles("X1")).sort()).toEqual(["X1 r0", "X1 r1", "X1 r2", "X1 r3", "X1 r4", "X1 r5"]);
    for (const r of await runsOf(a.id)) {
      expect(r.status).toBe("succeeded");
      expect(r.steps.map((x: any) => x.status)).toEqual(["succeeded", "succeeded"]);
    }
  });

  test("a run waiting when its automation is disabled is skipped when it would resume", async () => {
    const a = await automation("Paused", [{ type: "wait", with: { for: "1h" } }, note("D1 {{trigger.data.title}}")]);
    await card(a.key, "held");
    await runQueued(s.deps);
    await w.ok(w.owner, "automations_toggle", { id: a.id, enabled: false });
    s.clock.advance(3_600_000);
    await runQueued(s.deps);
    const [run] = await runsOf(a.id);
    expect(run).toMatchObject({ status: "skipped", error: "The automation was disabled while the run waited." });
    expect(await titles("D1")).toEqual([]);
  });

  test("a run resumes on the version it started with, even after an update", async () => {
    const a = await automation("Versioned", [
      { type: "wait", with: { for: "1h" } },
      note("V1 old {{trigger.data.title}}"),
    ]);
    await card(a.key, "v");
    await runQueued(s.deps);
    await w.ok(w.owner, "automations_update", { id: a.id, actions: [note("V1 new {{trigger.data.title}}")] });
    s.clock.advance(3_600_000);
    await runQueued(s.deps);
    expect(await titles("V1")).toEqual(["V1 old v"]);
    // A waiting run is neither retried nor replayed.
    const [run] = await runsOf(a.id);
    expect(run.status).toBe("succeeded");
  });

  test("a waiting run cannot be replayed until it has finished", async () => {
    const a = await automation("No replay", [{ type: "wait", with: { for: "1h" } }, note("N1")]);
    await card(a.key, "n");
    await runQueued(s.deps);
    const [run] = await runsOf(a.id);
    expect(await w.err(w.owner, "automation_runs_replay", { id: run.id })).toContain("is waiting; replay it once");
    expect(await w.err(w.stranger, "automation_runs_get", { id: run.id })).toContain("not found");
    const row = (await s.deps.db.select().from(automationRuns).where(eq(automationRuns.id, run.id)))[0]!;
    expect(row.cursor).toEqual([0]);
  });
});

describe("saves refuse hostile definitions, naming the step", () => {
  const save = (actions: unknown[]) =>
    w.err(w.owner, "automations_create", {
      name: `Bad ${crypto.randomUUID().slice(0, 8)}`,
      trigger: { type: "event", eventType: "card.created" },
      actions,
    });
  const nest = (depth: number): unknown =>
    depth === 0
      ? note("deep")
      : {
          type: "if",
          with: { conditions: [{ path: "trigger.data.priority", op: "gt", value: 1 }], [THEN]: [nest(depth - 1)] },
        };

  test("nesting deeper than 3, huge or malformed waits, waits over 90 days in all, bad nested steps, duplicate ids", async () => {
    await w.ok(w.owner, "automations_create", {
      name: "Three deep",
      trigger: { type: "event", eventType: "card.created" },
      actions: [nest(3)],
    });
    expect(await save([nest(4)])).toContain(
      "actions[0].with.then[0].with.then[0].with.then[0]: if steps nest at most 3 deep.",
    );
    // Deeper still, the tool's JSON bound refuses it before the definition is read.
    expect(await save([nest(30)])).toContain("actions[0].with: is nested deeper than 32 levels");
    expect(
      await save([{ type: "if", with: { conditions: [], [THEN]: [{ type: "wait", with: { for: "99999999999d" } }] } }]),
    ).toContain("actions[0] (if): with.conditions must hold at least one condition.");
    expect(await save([{ type: "wait", with: { for: "9999d" } }])).toContain(
      'actions[0] (wait): with.for must be a duration from 1m to 90d such as "2d"; got "9999d".',
    );
    expect(await save([{ type: "wait", with: { for: "2d", until: "2026-01-01T00:00:00Z" } }])).toContain(
      "give one of for (a duration), until (a time) or untilChanged (a field to watch)",
    );
    expect(await save([{ type: "wait", with: { until: "<script>alert(1)</script>" } }])).toContain(
      "with.until must be an ISO 8601 time",
    );
    expect(
      await save([
        { type: "wait", with: { for: "60d" } },
        { type: "wait", with: { for: "31d" } },
      ]),
    ).toContain("The waits add up to more than 90 days.");
    expect(
      await save([
        {
          type: "if",
          with: { conditions: [{ path: "trigger.data.x", op: "eq", value: 1 }], [THEN]: [{ type: "rm -rf" }] },
        },
      ]),
    ).toContain("actions[0].with.then[0]: type");
    expect(
      await save([
        {
          type: "if",
          with: {
            conditions: [{ path: "trigger.data.x", op: "eq", value: 1 }],
            [THEN]: [{ type: "notify", with: { title: "x" } }],
          },
        },
      ]),
    ).toContain("actions[0].with.then[0] (notify): give userIds (member ids) or roles");
    expect(
      await save([
        { id: "a", ...note("1") },
        {
          type: "if",
          with: { conditions: [{ path: "nothing.x", op: "eq", value: 1 }], [THEN]: [{ id: "a", ...note("2") }] },
        },
      ]),
    ).toMatch(/actions\[1\]\.with\.then\[0\]\.id "a" is used by another step.*|"nothing\.x" must start with/);
    expect(
      await save([
        {
          type: "wait",
          with: { untilChanged: { tool: "cards_delete", arguments: { id: "X-1" }, path: "title", timeout: "1d" } },
        },
      ]),
    ).toContain("actions[0] (wait): untilChanged reads with a read-only tool; cards_delete writes.");
    expect(
      await save([{ type: "wait", with: { untilChanged: { tool: "cards_get", path: "title", timeout: "91d" } } }]),
    ).toContain('with.untilChanged.timeout must be a duration from 1m to 90d such as "7d"; got "91d"');
    const many = Array.from({ length: 20 }, () => ({
      type: "if",
      with: { conditions: [{ path: "trigger.data.x", op: "eq", value: 1 }], [THEN]: [note("a"), note("b")] },
    }));
    expect(await save(many)).toContain("an automation holds at most 50 steps in all.");
  });
});
