/**
 * The outbox and its dispatcher, and the job runner, on this run's engine
 * (make test: SQLite; make test-pg: PostgreSQL, where two stores on one
 * database stand for two instances).
 */
import { buildCatalog } from "../../src/mcp/catalog";
import { catalog } from "../../src/catalog";
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { eq } from "drizzle-orm";
import * as v from "valibot";
import { loadConfig } from "../../src/config";
import { ManualClock } from "../../src/core/clock";
import type { Deps } from "../../src/core/context";
import type { Store } from "../../src/core/db";
import { openStore } from "../../src/core/open";
import { Dispatcher, MAX_ATTEMPTS } from "../../src/core/dispatcher";
import { defineEvent, emit, type EventRecord, type Subscriber } from "../../src/core/events";
import { coreJobs, EVENT_RETENTION_MS, FAILURE_RETENTION_MS } from "../../src/core/housekeeping";
import { JobRunner, type JobDef } from "../../src/core/jobs";
import { auditLog, companies, eventCursors, eventFailures, events } from "../../src/core/tables";
import { buildRegistry } from "../../src/mcp/registry";
import { domains } from "../../src/domains";
import { dropDatabase, freshDatabaseUrl, ON_PG, openTestStore } from "../db";
import { pruneEvents } from "../jobs";

const thingMade = defineEvent({
  type: "thing.made",
  entity: "thing",
  description: "A test thing was made.",
  payload: v.object({ name: v.string(), size: v.number() }),
});
const thingUnlisted = defineEvent({
  type: "thing.unlisted",
  entity: "thing",
  description: "Defined, but on no domain.",
  payload: v.object({}),
});
// The registry lists what domains declare; emit refuses the rest from then on.
buildRegistry(
  buildCatalog([
    ...domains,
    { name: "things", title: "Things", description: "Fixture.", tools: [], events: [thingMade] },
  ]),
);

function depsOf(store: Store, clock: ManualClock): Deps {
  return { store, db: store.db, config: loadConfig({}, {}), clock, redis: null, blobs: null as never, catalog };
}

let store: Store;
let clock: ManualClock;
let deps: Deps;
let companyId: number;

beforeEach(async () => {
  store = await openTestStore();
  clock = new ManualClock(Date.parse("2026-11-23T12:00:00Z"));
  deps = depsOf(store, clock);
  const [c] = await store.transaction((tx) =>
    tx.insert(companies).values({ name: "Acme", createdAt: clock.now() }).returning(),
  );
  companyId = c!.id;
});
afterEach(() => store.close());

const actor = () => ({ deps, company: { id: companyId } });
const make = (name: string, size = 1, d: Deps = deps) =>
  d.store.transaction((tx) =>
    emit(tx, { deps: d, company: { id: companyId } }, thingMade, { id: size, siteId: null }, { name, size }),
  );

/** A subscriber whose database effect is an audit row naming the event; `fail` decides which events throw. */
function recorder(name: string, fail: (e: EventRecord) => boolean = () => false): Subscriber & { seen: string[] } {
  const seen: string[] = [];
  return {
    name,
    types: ["thing.made"],
    seen,
    async handle(d, e) {
      await d.db.insert(auditLog).values({
        companyId: e.companyId,
        action: `seen.${name}`,
        entityType: "event",
        entityId: e.id,
        detail: e.data,
        createdAt: d.clock.now(),
      });
      if (fail(e)) throw new Error(`cannot take ${String(e.data.name)}`);
      // Counted when it commits: a batch retried after a serialization failure is seen once.
      d.store.afterCommit(() => seen.push(String(e.data.name)));
    },
  };
}

const auditNames = async (name: string) =>
  (
    await store.db
      .select({ detail: auditLog.detail })
      .from(auditLog)
      .where(eq(auditLog.action, `seen.${name}`))
      .orderBy(auditLog.entityId)
  ).map((r) => (r.detail as { name: string }).name);

describe("emit", () => {
  test("an event exists exactly when its transaction commits, with its payload and who caused it", async () => {
    await make("kept");
    await store
      .transaction(async (tx) => {
        await emit(tx, actor(), thingMade, { id: 2 }, { name: "rolled back", size: 2 });
        throw new Error("abort");
      })
      .catch(() => {});
    const rows = await store.db.select().from(events);
    expect(rows.map((r) => [r.type, r.entityType, r.entityId, r.companyId, r.data])).toEqual([
      ["thing.made", "thing", 1, companyId, { name: "kept", size: 1 }],
    ]);
    expect(rows[0]!.createdAt.toISOString()).toBe("2026-11-23T12:00:00.000Z");
    expect(rows[0]!.userId).toBeNull();
  });

  test("a payload that does not match its definition fails the write; an unlisted type is refused", async () => {
    await expect(
      store.transaction((tx) => emit(tx, actor(), thingMade, { id: 1 }, { name: "x" } as never)),
    ).rejects.toThrow("thing.made does not match its definition");
    await expect(store.transaction((tx) => emit(tx, actor(), thingUnlisted, { id: 1 }, {}))).rejects.toThrow(
      "listed on no domain",
    );
    expect(await store.db.select().from(events)).toEqual([]);
  });

  test("the same type cannot be defined twice", () => {
    expect(() =>
      defineEvent({ type: "thing.made", entity: "thing", description: "again", payload: v.object({}) }),
    ).toThrow("defined twice");
    expect(() =>
      defineEvent({ type: "Thing Made", entity: "thing", description: "bad", payload: v.object({}) }),
    ).toThrow("<entity>.<what_happened>");
  });
});

test("store: after-commit hooks of a rolled-back savepoint never run; a kept one's run after the top commit", async () => {
  const ran: string[] = [];
  await store.transaction(async () => {
    await store
      .transaction(async () => {
        store.afterCommit(() => ran.push("undone"));
        throw new Error("roll back the savepoint");
      })
      .catch(() => {});
    await store.transaction(async () => store.afterCommit(() => ran.push("kept")));
    expect(ran).toEqual([]);
  });
  expect(ran).toEqual(["kept"]);
});

describe("dispatcher", () => {
  test("a new subscriber starts at the end of the outbox, then gets every event once, in order", async () => {
    await make("before");
    const s = recorder("r1");
    const d = new Dispatcher(deps, [s]);
    await d.init();
    for (const n of ["a", "b", "c"]) await make(n);
    expect(await d.drain()).toBe(3);
    expect(await d.drain()).toBe(0);
    expect(s.seen).toEqual(["a", "b", "c"]);
    expect(await auditNames("r1")).toEqual(["a", "b", "c"]);
    // A restart (a new dispatcher on the same cursor) delivers nothing again.
    const again = recorder("r1");
    const d2 = new Dispatcher(deps, [again]);
    await d2.init();
    await make("d");
    await d2.drain();
    expect(again.seen).toEqual(["d"]);
  });

  test("a failing event is retried with backoff, its effects undone each time; after the last attempt it is recorded and passed", async () => {
    const s = recorder("flaky", (e) => e.data.name === "bad");
    const other = recorder("steady");
    const d = new Dispatcher(deps, [s, other]);
    await d.init();
    await make("ok1");
    await make("bad");
    await make("ok2");
    await d.drain();
    // The steady subscriber is not held up by the other's trouble.
    expect(other.seen).toEqual(["ok1", "bad", "ok2"]);
    expect(s.seen).toEqual(["ok1"]);
    // The failed attempt's own write was rolled back with its savepoint.
    expect(await auditNames("flaky")).toEqual(["ok1"]);
    const cursor = () =>
      store.query<{ attempts: number; last_error: string; retry_at: unknown }>(
        "select attempts, last_error, retry_at from event_cursors where subscriber = ?",
        ["flaky"],
      );
    expect((await cursor())[0]!.attempts).toBe(1);
    expect((await cursor())[0]!.last_error).toContain("cannot take bad");
    // Not due yet: nothing happens until the backoff (1 s, then doubling) has passed.
    await d.drain();
    expect((await cursor())[0]!.attempts).toBe(1);
    clock.advance(999);
    await d.drain();
    expect((await cursor())[0]!.attempts).toBe(1);
    clock.advance(1);
    await d.drain();
    expect((await cursor())[0]!.attempts).toBe(2);
    for (let i = 2; i < MAX_ATTEMPTS; i++) {
      clock.advance(10 * 60_000);
      await d.drain();
    }
    expect(s.seen).toEqual(["ok1", "ok2"]);
    const failures = await store.db.select().from(eventFailures);
    expect(failures.map((f) => [f.subscriber, f.attempts, f.error])).toEqual([
      ["flaky", MAX_ATTEMPTS, "cannot take bad"],
    ]);
    expect((await cursor())[0]).toMatchObject({ attempts: 0, last_error: null });
  });

  test("started in the background, it delivers soon after the commit", async () => {
    const s = recorder("live");
    const d = new Dispatcher(deps, [s], { idleMs: 60_000 });
    await d.init();
    d.start();
    try {
      await make("x");
      const until = Date.now() + 5000;
      while (s.seen.length === 0 && Date.now() < until) await Bun.sleep(10);
      expect(s.seen).toEqual(["x"]);
    } finally {
      await d.stop();
    }
  });

  test.skipIf(!ON_PG)(
    "PostgreSQL: an event committed late behind a higher id is delivered in its turn, never skipped",
    async () => {
      const s = recorder("order");
      const d = new Dispatcher(deps, [s]);
      await d.init();
      let releaseA!: () => void;
      const holdA = new Promise<void>((r) => (releaseA = r));
      let aWrote!: () => void;
      const aHasXid = new Promise<void>((r) => (aWrote = r));
      // A takes its transaction id first (an unrelated write), then B writes and commits an event, then A writes its event.
      const a = store.transaction(async (tx) => {
        await tx.insert(auditLog).values({ companyId, action: "unrelated", createdAt: clock.now() });
        aWrote();
        await holdA;
        await emit(tx, actor(), thingMade, { id: 1 }, { name: "A", size: 1 });
      });
      await aHasXid;
      await make("B", 2);
      const [b] = await store.db.select().from(events);
      expect(b!.data).toEqual({ name: "B", size: 2 });
      // B is committed but an older transaction (A) is still open: B waits.
      expect(await d.drain()).toBe(0);
      releaseA();
      await a;
      await d.drain();
      const rows = await store.db.select().from(events).orderBy(events.id);
      // A's event has the higher id but the older transaction: it comes first.
      expect(rows.map((r) => r.data.name)).toEqual(["B", "A"]);
      expect(s.seen).toEqual(["A", "B"]);
    },
  );

  test.skipIf(!ON_PG)(
    "PostgreSQL: two instances working one outbox deliver each event to a subscriber once",
    async () => {
      const dbUrl = await freshDatabaseUrl();
      const s1 = openStore({ dataDir: ":memory:", databaseUrl: dbUrl });
      const s2 = openStore({ dataDir: ":memory:", databaseUrl: dbUrl });
      try {
        const d1deps = depsOf(s1, clock);
        const d2deps = depsOf(s2, clock);
        const [c] = await s1.transaction((tx) =>
          tx.insert(companies).values({ name: "Two", createdAt: clock.now() }).returning(),
        );
        companyId = c!.id;
        const r1 = recorder("shared");
        const r2 = recorder("shared");
        const d1 = new Dispatcher(d1deps, [r1]);
        const d2 = new Dispatcher(d2deps, [r2]);
        await d1.init();
        await d2.init();
        const writes = Array.from({ length: 60 }, (_, i) => make(`e${i}`, i + 1, i % 2 ? d1deps : d2deps));
        const drains = Array.from({ length: 20 }, (_, i) => (i % 2 ? d1 : d2).drain());
        await Promise.all([...writes, ...drains]);
        await d1.drain();
        await d2.drain();
        const delivered = [...r1.seen, ...r2.seen];
        expect(delivered.length).toBe(60);
        expect(new Set(delivered).size).toBe(60);
        const effects = await s1.query<{ n: number }>(
          "select count(*)::int as n from audit_log where action = 'seen.shared'",
        );
        expect(effects[0]!.n).toBe(60);
        // Each instance saw its share in outbox order.
        const order = (await s1.db.select().from(events).orderBy(events.tx, events.id)).map((r) => r.data.name);
        for (const seen of [r1.seen, r2.seen])
          expect(seen).toEqual(order.filter((n) => seen.includes(String(n))) as string[]);
      } finally {
        await s1.close();
        await s2.close();
        await dropDatabase(dbUrl);
      }
    },
  );
});

/** The store, counting its write transactions (`n`). */
function countingTransactions(target: Store) {
  const c = { n: 0, store: target };
  c.store = new Proxy(target, {
    get(t, key) {
      const v = Reflect.get(t, key);
      if (key === "transaction") return (...args: Parameters<Store["transaction"]>) => (c.n++, t.transaction(...args));
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
  return c;
}

describe("jobs", () => {
  test("a job runs when due, once per period, and records what happened", async () => {
    let runs = 0;
    const job: JobDef = { name: "tick", description: "counts", everyMs: 60_000, run: async () => void runs++ };
    const r = new JobRunner(deps, [job]);
    await r.init();
    expect(await r.runDue()).toEqual([{ name: "tick", ok: true }]);
    expect(await r.runDue()).toEqual([]);
    clock.advance(59_999);
    expect(await r.runDue()).toEqual([]);
    clock.advance(1);
    expect(await r.runDue()).toEqual([{ name: "tick", ok: true }]);
    expect(runs).toBe(2);
    const [lease] = await store.query<{ runs: number; failures: number; holder: string | null }>(
      "select runs, failures, holder from job_leases where name = 'tick'",
    );
    expect(lease).toEqual({ runs: 2, failures: 0, holder: null });
  });

  test("a tick with nothing due takes no write transaction; a due job takes two (claim, finish)", async () => {
    const tx = countingTransactions(store);
    const runs: string[] = [];
    const jobs: JobDef[] = ["quiet_a", "quiet_b", "quiet_c"].map((name) => ({
      name,
      description: "counts",
      everyMs: 60_000,
      run: async () => void runs.push(name),
    }));
    const r = new JobRunner({ ...deps, store: tx.store }, jobs);
    await r.init();
    tx.n = 0;
    expect((await r.runDue()).map((o) => o.name)).toEqual(["quiet_a", "quiet_b", "quiet_c"]);
    expect(tx.n).toBe(6);
    tx.n = 0;
    for (let i = 0; i < 5; i++) {
      clock.advance(1000);
      expect(await r.runDue()).toEqual([]);
    }
    expect(tx.n).toBe(0);
    clock.advance(55_000);
    expect((await r.runDue()).map((o) => o.name)).toEqual(["quiet_a", "quiet_b", "quiet_c"]);
    expect(tx.n).toBe(6);
    expect(runs).toHaveLength(6);
  });

  test("a job whose pending check finds nothing is neither claimed nor run; it runs the tick its check finds work", async () => {
    const tx = countingTransactions(store);
    let work = false;
    let runs = 0;
    const job: JobDef = {
      name: "sender",
      description: "sends",
      everyMs: 1000,
      pending: async () => work,
      run: async () => void runs++,
    };
    const r = new JobRunner({ ...deps, store: tx.store }, [job]);
    await r.init();
    tx.n = 0;
    for (let i = 0; i < 3; i++) {
      expect(await r.runDue()).toEqual([]);
      clock.advance(1000);
    }
    expect([tx.n, runs]).toEqual([0, 0]);
    const lease = async () =>
      (
        await store.query<{ runs: number; last_started_at: unknown }>(
          "select runs, last_started_at from job_leases where name = 'sender'",
        )
      )[0];
    expect(await lease()).toEqual({ runs: 0, last_started_at: null });
    work = true;
    expect(await r.runDue()).toEqual([{ name: "sender", ok: true }]);
    expect([tx.n, runs]).toEqual([2, 1]);
    expect((await lease())!.runs).toBe(1);
  });

  test("a pending check that found nothing is asked again one period later, not at every tick (an hourly check is one read an hour)", async () => {
    let work = false;
    let asked = 0;
    let runs = 0;
    const job: JobDef = {
      name: "hourly_prune",
      description: "prunes",
      everyMs: 3_600_000,
      pending: async () => (asked++, work),
      run: async () => void runs++,
    };
    const r = new JobRunner(deps, [job]);
    await r.init();
    expect(await r.runDue()).toEqual([]);
    expect(asked).toBe(1);
    // Work appears: it waits for the period, as it did when the run itself looked once an hour.
    work = true;
    for (let i = 0; i < 59; i++) {
      clock.advance(60_000);
      expect(await r.runDue()).toEqual([]);
    }
    expect(asked).toBe(1);
    // Asked again at the first tick within half a tick (1 s here) of the period: ticks jitter by a few ms.
    clock.advance(59_499);
    expect(await r.runDue()).toEqual([]);
    expect(asked).toBe(1);
    clock.advance(1);
    expect(await r.runDue()).toEqual([{ name: "hourly_prune", ok: true }]);
    expect([asked, runs]).toEqual([2, 1]);
    // After a run the lease decides: not due again for an hour, and then the check is asked at once.
    clock.advance(3_599_999);
    expect(await r.runDue()).toEqual([]);
    expect(asked).toBe(2);
    clock.advance(1);
    expect(await r.runDue()).toEqual([{ name: "hourly_prune", ok: true }]);
    expect([asked, runs]).toEqual([3, 2]);
  });

  test("a one-second job whose check found nothing is asked at every tick, also when a tick comes a few ms early", async () => {
    let asked = 0;
    const job: JobDef = {
      name: "sender_jitter",
      description: "sends",
      everyMs: 1000,
      pending: async () => (asked++, false),
      run: async () => {},
    };
    const r = new JobRunner(deps, [job]);
    await r.init();
    await r.runDue();
    for (const step of [1000, 990, 1010, 501]) {
      clock.advance(step);
      await r.runDue();
    }
    expect(asked).toBe(5);
    // Within half a tick of the last ask: the same tick, run twice (the runner does not overlap its own ticks).
    clock.advance(499);
    await r.runDue();
    expect(asked).toBe(5);
  });

  test("an idle server's frequent jobs take no write transaction: every job due each second, and those every 5 and 10, have a pending check that finds nothing", async () => {
    const tx = countingTransactions(store);
    const all = [...coreJobs, ...domains.flatMap((d) => d.jobs ?? [])];
    const everySecond = all.filter((j) => j.everyMs === 1000).map((j) => j.name);
    expect(everySecond.sort()).toEqual([
      "automations.run",
      "automations.schedule",
      "email.deliver",
      "mail.send",
      "webhooks.deliver",
    ]);
    const r = new JobRunner({ ...deps, store: tx.store }, all);
    await r.init();
    await r.runDue(); // the first tick runs what is due at once and has no check (the storage probe)
    tx.n = 0;
    // Ten seconds: the 5 s embedding queue twice, the 10 s hosting checks once (the next job runs every 30 s).
    expect(
      all
        .filter((j) => j.everyMs > 1000 && j.everyMs <= 10_000)
        .map((j) => j.name)
        .sort(),
    ).toEqual(["brain.embed", "hosting.checks"]);
    for (let i = 0; i < 10; i++) {
      clock.advance(1000);
      expect(await r.runDue()).toEqual([]);
    }
    expect(tx.n).toBe(0);
  });

  test("an idle server takes no write transaction for an hour but the 15-minute storage check's: every other job has a pending check that finds nothing", async () => {
    const tx = countingTransactions(store);
    const all = [...coreJobs, ...domains.flatMap((d) => d.jobs ?? [])];
    // The only job without a check: the storage probe (it tests object storage, not the database).
    expect(all.filter((j) => !j.pending).map((j) => j.name)).toEqual(["integrations.storage_check"]);
    expect(all.find((j) => j.name === "integrations.storage_check")!.everyMs).toBe(15 * 60_000);
    // The hourly jobs, due at the first tick (they never ran) and at every tick after: their checks find nothing.
    const hourly = all.filter((j) => j.everyMs === 3_600_000).map((j) => j.name);
    expect(hourly.sort()).toEqual([
      "ai.history_prune",
      "automations.prune",
      "crm.score_decay",
      "events.prune",
      "mail.prune",
      "tickets.auto_close",
      "webhooks.prune",
    ]);
    const r = new JobRunner({ ...deps, store: tx.store }, all);
    await r.init();
    tx.n = 0;
    expect((await r.runDue()).map((o) => o.name)).toEqual(["integrations.storage_check"]);
    expect(tx.n).toBe(2); // its claim and finish (the health row it records goes through deps.db, not counted here)
    const ran: string[] = [];
    // An hour in 30-second ticks (the 30 s and minute jobs are due at every tick or every other one).
    for (let i = 0; i < 120; i++) {
      clock.advance(30_000);
      const before = tx.n;
      const out = await r.runDue();
      ran.push(...out.map((o) => o.name));
      // A tick that ran nothing took no write transaction.
      if (!out.length) expect(tx.n).toBe(before);
    }
    // The storage check at 15, 30, 45 and 60 minutes, and nothing else: claim and finish each.
    expect(ran).toEqual(Array(4).fill("integrations.storage_check"));
    expect(tx.n).toBe(2 + 4 * 2);
    expect(
      await store.query("select name, runs from job_leases where runs > 0 or last_started_at is not null"),
    ).toEqual([{ name: "integrations.storage_check", runs: 5 }]);
  });

  test("a failing job is recorded and runs again next period", async () => {
    let n = 0;
    const job: JobDef = {
      name: "flaky",
      description: "fails once",
      everyMs: 1000,
      run: async () => {
        if (n++ === 0) throw new Error("upstream down");
      },
    };
    const r = new JobRunner(deps, [job]);
    await r.init();
    expect(await r.runDue()).toEqual([{ name: "flaky", ok: false, error: "upstream down" }]);
    clock.advance(1000);
    expect(await r.runDue()).toEqual([{ name: "flaky", ok: true }]);
    const [lease] = await store.query<{ runs: number; failures: number; last_error: string | null }>(
      "select runs, failures, last_error from job_leases where name = 'flaky'",
    );
    expect(lease).toEqual({ runs: 2, failures: 1, last_error: null });
  });

  test("while one runner holds a job, another does not run it; a lapsed lease is taken over", async () => {
    let release!: () => void;
    const blocked = new Promise<void>((r) => (release = r));
    const started: string[] = [];
    const job = (who: string): JobDef => ({
      name: "exclusive",
      description: "one at a time",
      everyMs: 1000,
      leaseMs: 60_000,
      run: async () => {
        started.push(who);
        if (who === "a") await blocked;
      },
    });
    const a = new JobRunner(deps, [job("a")]);
    const b = new JobRunner(deps, [job("b")]);
    await a.init();
    await b.init();
    const running = a.runDue();
    while (started.length === 0) await Bun.sleep(1);
    clock.advance(5000);
    expect(await b.runDue()).toEqual([]);
    // A stops answering: its lease lapses and B takes the job over.
    clock.advance(60_000);
    expect(await b.runDue()).toEqual([{ name: "exclusive", ok: true }]);
    release();
    await running;
    expect(started).toEqual(["a", "b"]);
  });

  test("events.prune deletes old events every subscriber has passed, and keeps the rest", async () => {
    const s = recorder("pruned");
    const d = new Dispatcher(deps, [s]);
    await d.init();
    await make("old-passed");
    await d.drain();
    // A second subscriber whose cursor sits before the next event keeps it.
    await make("old-unpassed");
    const [first] = await store.db.select().from(events).orderBy(events.id).limit(1);
    await store.transaction((tx) =>
      tx
        .insert(eventCursors)
        .values({ subscriber: "lagging", lastTx: first!.tx, lastId: first!.id, attempts: 0, updatedAt: clock.now() }),
    );
    clock.advance(EVENT_RETENTION_MS + 1);
    await make("new");
    const r = new JobRunner(deps, coreJobs);
    await r.init();
    // Other core jobs (mail.send, mail.prune) run beside it.
    expect((await r.runDue()).filter((o) => o.name === "events.prune")).toEqual([{ name: "events.prune", ok: true }]);
    const left = (await store.db.select().from(events).orderBy(events.id)).map((e) => e.data.name);
    expect(left).toEqual(["old-unpassed", "new"]);
  });

  test("events.prune's check: an event older than 30 days every cursor has passed, or a failure older than 90 days; an old event a cursor has not passed is no work", async () => {
    const job = coreJobs.find((j) => j.name === "events.prune")!;
    const pending = () => job.pending!(deps);
    const names = async () => (await store.db.select().from(events).orderBy(events.id)).map((e) => e.data.name);
    const s = recorder("pruned");
    const d = new Dispatcher(deps, [s]);
    await d.init();
    const t0 = clock.ms();
    await make("old");
    await d.drain();
    expect(await pending()).toBe(false);
    // Exactly 30 days old is not older than 30 days (the run deletes created_at < now − 30 days).
    clock.set(t0 + EVENT_RETENTION_MS);
    expect(await pending()).toBe(false);
    await pruneEvents(deps);
    clock.advance(1);
    expect(await pending()).toBe(true);
    // A cursor that has not passed it: the same event is no work, and the run deletes nothing.
    await store.transaction((tx) =>
      tx
        .insert(eventCursors)
        .values({ subscriber: "lagging", lastTx: 0, lastId: 0, attempts: 0, updatedAt: clock.now() }),
    );
    expect(await pending()).toBe(false);
    await pruneEvents(deps); // held to the check: it must not write
    expect(await names()).toEqual(["old"]);
    // A failure: at 90 days no work; a millisecond older, work on its own (the lagging cursor still keeps the event).
    const [f] = await store.transaction((tx) =>
      tx
        .insert(eventFailures)
        .values({
          subscriber: "lagging",
          eventId: 1,
          error: "x",
          attempts: 5,
          createdAt: new Date(clock.ms() - FAILURE_RETENTION_MS),
        })
        .returning(),
    );
    expect(await pending()).toBe(false);
    await store.transaction((tx) =>
      tx
        .update(eventFailures)
        .set({ createdAt: new Date(clock.ms() - FAILURE_RETENTION_MS - 1) })
        .where(eq(eventFailures.id, f!.id)),
    );
    expect(await pending()).toBe(true);
    await pruneEvents(deps);
    expect(await store.db.select().from(eventFailures)).toEqual([]);
    expect(await names()).toEqual(["old"]);
    expect(await pending()).toBe(false);
    // The lagging cursor catches up: the event is work again, and goes.
    const [ev] = await store.db.select().from(events);
    await store.transaction((tx) =>
      tx.update(eventCursors).set({ lastTx: ev!.tx, lastId: ev!.id }).where(eq(eventCursors.subscriber, "lagging")),
    );
    expect(await pending()).toBe(true);
    await pruneEvents(deps);
    expect(await names()).toEqual([]);
    expect(await pending()).toBe(false);
  });
});
