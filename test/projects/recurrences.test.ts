/**
 * Card recurrences: the RRULE subset and its local-time instants across DST
 * (Europe/London, America/New_York), the job making cards exactly when due,
 * and a restart after downtime (every missed card once: no duplicate, no
 * gap), racing runs, "latest" catch-up, and templates whose labels, people
 * or columns went away.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import type { Store } from "../../src/core/db";
import { openStore } from "../../src/core/open";
import { JobRunner } from "../../src/core/jobs";
import { memberships } from "../../src/core/tables";
import { instantOf, nextOccurrence, parseRRule, type Rule } from "../../src/domains/projects/recurrence-rules";
import { recurrenceJob } from "../../src/domains/projects/recurrences";
import { cardRecurrences } from "../../src/domains/projects/tables";
import { runRecurrences } from "../jobs";
import { workDomains } from "../../src/domains/projects/tools";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { makeWorld, type World } from "./world";

const rule = (text: string, startDate: string, extra: Partial<Rule> = {}): Rule => {
  const r = parseRRule(text);
  if (typeof r === "string") throw new Error(r);
  return { ...r, timeOfDay: "09:00", timeZone: "UTC", startDate, endDate: null, ...extra };
};
/** The first n occurrence dates. */
const dates = (r: Rule, n: number) => {
  const out: string[] = [];
  let d: string | null = r.startDate;
  while (out.length < n && (d = nextOccurrence(r, d))) {
    out.push(d);
    d = Temporal.PlainDate.from(d).add({ days: 1 }).toString();
  }
  return out;
};

describe("rules", () => {
  test("the RRULE subset, and clear refusals of the rest", () => {
    expect(parseRRule("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH")).toEqual({
      frequency: "weekly",
      interval: 2,
      weekdays: ["mo", "th"],
      monthDay: null,
      weekOfMonth: null,
    });
    expect(parseRRule("RRULE:freq=monthly;byday=-1fr")).toEqual({
      frequency: "monthly",
      interval: 1,
      weekdays: ["fr"],
      monthDay: null,
      weekOfMonth: -1,
    });
    expect(parseRRule("FREQ=YEARLY")).toContain("not supported");
    expect(parseRRule("FREQ=DAILY;COUNT=3")).toContain("COUNT is not supported");
    expect(parseRRule("FREQ=MONTHLY;BYDAY=TU")).toContain("needs an ordinal");
    expect(parseRRule("FREQ=WEEKLY;BYDAY=2TU")).toContain("FREQ=MONTHLY");
    expect(parseRRule("FREQ=MONTHLY;BYMONTHDAY=32")).toContain("1 to 31");
    expect(parseRRule("FREQ=MONTHLY;BYDAY=5MO")).toContain("1 to 4");
    expect(parseRRule("FREQ=DAILY;INTERVAL=0")).toContain("INTERVAL");
    expect(parseRRule("BYDAY=MO")).toContain("FREQ is required");
    expect(parseRRule("FREQ=DAILY;BYDAY")).toContain("KEY=VALUE");
  });

  test("day rules: weekdays only, every other week, the 31st in short months, 2nd Tuesday, last Friday", () => {
    expect(dates(rule("FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR", "2026-03-05"), 4)).toEqual([
      "2026-03-05",
      "2026-03-06",
      "2026-03-09",
      "2026-03-10",
    ]);
    expect(dates(rule("FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,TH", "2026-03-02"), 5)).toEqual([
      "2026-03-02",
      "2026-03-05",
      "2026-03-16",
      "2026-03-19",
      "2026-03-30",
    ]);
    expect(dates(rule("FREQ=WEEKLY", "2026-03-04"), 2)).toEqual(["2026-03-04", "2026-03-11"]);
    expect(dates(rule("FREQ=MONTHLY;BYMONTHDAY=31", "2026-01-31"), 4)).toEqual([
      "2026-01-31",
      "2026-02-28",
      "2026-03-31",
      "2026-04-30",
    ]);
    expect(dates(rule("FREQ=MONTHLY;BYMONTHDAY=-1", "2028-01-15"), 2)).toEqual(["2028-01-31", "2028-02-29"]);
    expect(dates(rule("FREQ=MONTHLY;BYDAY=2TU", "2026-01-01"), 3)).toEqual(["2026-01-13", "2026-02-10", "2026-03-10"]);
    expect(dates(rule("FREQ=MONTHLY;BYDAY=-1FR", "2026-01-01"), 3)).toEqual(["2026-01-30", "2026-02-27", "2026-03-27"]);
    expect(dates(rule("FREQ=MONTHLY;INTERVAL=3;BYMONTHDAY=1", "2026-01-01"), 3)).toEqual([
      "2026-01-01",
      "2026-04-01",
      "2026-07-01",
    ]);
    expect(dates(rule("FREQ=DAILY", "2026-03-01", { endDate: "2026-03-02" }), 5)).toEqual(["2026-03-01", "2026-03-02"]);
  });

  test("Europe/London: 09:00 is 09:00Z in winter and 08:00Z from 29 March; a skipped time moves on, a repeated one is taken once", () => {
    const london = (date: string, time = "09:00") =>
      instantOf({ timeOfDay: time, timeZone: "Europe/London" }, date).toISOString();
    expect(london("2026-03-28")).toBe("2026-03-28T09:00:00.000Z");
    expect(london("2026-03-29")).toBe("2026-03-29T08:00:00.000Z");
    expect(london("2026-03-29", "01:30")).toBe("2026-03-29T01:30:00.000Z"); // 01:30 does not exist: 02:30 BST
    expect(london("2026-10-25", "01:30")).toBe("2026-10-25T00:30:00.000Z"); // 01:30 happens twice: the first (BST)
    expect(london("2026-10-26")).toBe("2026-10-26T09:00:00.000Z");
  });

  test("America/New_York: 8 March 02:30 does not exist (→ 03:30 EDT), 1 November 01:30 happens twice (→ the EDT one)", () => {
    const ny = (date: string, time: string) =>
      instantOf({ timeOfDay: time, timeZone: "America/New_York" }, date).toISOString();
    expect(ny("2026-03-07", "02:30")).toBe("2026-03-07T07:30:00.000Z");
    expect(ny("2026-03-08", "02:30")).toBe("2026-03-08T07:30:00.000Z");
    expect(ny("2026-03-09", "02:30")).toBe("2026-03-09T06:30:00.000Z");
    expect(ny("2026-11-01", "01:30")).toBe("2026-11-01T05:30:00.000Z");
    expect(ny("2026-11-02", "01:30")).toBe("2026-11-02T06:30:00.000Z");
  });
});

/** Occurrence dates of the cards a recurrence made, in order. */
async function made(w: World, recurrenceId: number): Promise<string[]> {
  const rows = await w.store.query<{ occurrence: string }>(
    "SELECT occurrence FROM cards WHERE recurrence_id = ? ORDER BY occurrence",
    [recurrenceId],
  );
  return rows.map((r) => r.occurrence);
}

describe("the job", () => {
  let w: World;
  let jobs: JobRunner;
  const at = (iso: string) => w.clock.set(new Date(iso));
  beforeAll(async () => {
    w = await makeWorld({ start: new Date("2026-03-27T10:00:00Z") });
    await w.call("projects_create", { name: "Ops", key: "OPS" });
    jobs = await w.jobs();
  });
  afterAll(() => w.close());

  test("London daily 09:00: due exactly at 09:00 local, before and after the clocks change", async () => {
    const r = await w.call("card_recurrences_create", {
      projectId: "OPS",
      title: "Standup {date}",
      rule: "FREQ=DAILY",
      time: "09:00",
      timeZone: "Europe/London",
    });
    // Created at 10:00 on the 27th: today's 09:00 has passed and is not backfilled.
    expect(r).toMatchObject({
      nextDate: "2026-03-28",
      nextAt: "2026-03-28T09:00:00.000Z",
      schedule: "daily at 09:00 (Europe/London)",
    });
    // The job's work at exact instants (the runner itself runs it at most once a minute).
    at("2026-03-28T08:59:59Z");
    expect(await runRecurrences(w.deps)).toBe(0);
    at("2026-03-28T09:00:00Z");
    expect(await runRecurrences(w.deps)).toBe(1);
    expect(await made(w, r.id)).toEqual(["2026-03-28"]);
    at("2026-03-29T07:59:59Z");
    expect(await runRecurrences(w.deps)).toBe(0);
    expect(await made(w, r.id)).toEqual(["2026-03-28"]);
    at("2026-03-29T08:00:00Z"); // 09:00 BST
    expect(await jobs.runDue()).toEqual([{ name: "projects.recurrences", ok: true }]);
    expect(await made(w, r.id)).toEqual(["2026-03-28", "2026-03-29"]);
    const list = (await w.call("cards_list", { projectId: "OPS", search: "Standup" })).items.map((c: any) => c.title);
    expect(list).toEqual(["Standup 2026-03-28", "Standup 2026-03-29"]);
    await w.call("card_recurrences_update", { id: r.id, active: false });
  });

  test("New York at 02:30 across both changes: one card per day, at the instants the zone gives", async () => {
    at("2026-03-06T12:00:00Z");
    const r = await w.call("card_recurrences_create", {
      projectId: "OPS",
      title: "Backup check",
      rule: "FREQ=DAILY",
      time: "02:30",
      timeZone: "America/New_York",
    });
    for (const [now, want] of [
      ["2026-03-07T07:29:00Z", []],
      ["2026-03-07T07:30:00Z", ["2026-03-07"]],
      ["2026-03-08T07:29:00Z", ["2026-03-07"]],
      ["2026-03-08T07:30:00Z", ["2026-03-07", "2026-03-08"]], // 02:30 skipped: 03:30 EDT
      ["2026-03-09T06:30:00Z", ["2026-03-07", "2026-03-08", "2026-03-09"]],
    ] as const) {
      at(now);
      await runRecurrences(w.deps);
      expect(await made(w, r.id)).toEqual([...want]);
    }
    await w.call("card_recurrences_update", { id: r.id, time: "01:30" });
    // Fall back: 01:30 happens at 05:30Z (EDT) and again at 06:30Z (EST); one card.
    at("2026-10-31T12:00:00Z");
    await w.call("card_recurrences_update", { id: r.id, rule: "FREQ=DAILY" }); // re-plan from "now", no backfill of March to October
    at("2026-11-01T05:29:00Z");
    await runRecurrences(w.deps);
    const before = (await made(w, r.id)).length;
    at("2026-11-01T05:30:00Z");
    expect(await runRecurrences(w.deps)).toBe(1);
    at("2026-11-01T06:45:00Z");
    expect(await runRecurrences(w.deps)).toBe(0);
    const after = await made(w, r.id);
    expect(after.length).toBe(before + 1);
    expect(after.at(-1)).toBe("2026-11-01");
    expect(
      (await w.call("card_recurrences_list", { projectId: "OPS" })).items.find((x: any) => x.id === r.id),
    ).toMatchObject({ nextDate: "2026-11-02", nextAt: "2026-11-02T06:30:00.000Z" });
  });

  test("racing runs (two instances without the lease) make each card once", async () => {
    at("2026-11-10T12:00:00Z");
    const r = await w.call("card_recurrences_create", {
      projectId: "OPS",
      title: "Race",
      rule: "FREQ=DAILY",
      time: "09:00",
      timeZone: "UTC",
    });
    at("2026-11-15T10:00:00Z");
    const counts = await Promise.all([runRecurrences(w.deps), runRecurrences(w.deps), runRecurrences(w.deps)]);
    expect(await made(w, r.id)).toEqual(["2026-11-11", "2026-11-12", "2026-11-13", "2026-11-14", "2026-11-15"]);
    expect(counts.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(5);
    await w.call("card_recurrences_delete", { id: r.id });
  });

  test("catchUp latest: after downtime only the most recent missed card", async () => {
    at("2026-11-20T12:00:00Z");
    const r = await w.call("card_recurrences_create", {
      projectId: "OPS",
      title: "Weekly report",
      rule: "FREQ=WEEKLY;BYDAY=MO",
      time: "08:00",
      timeZone: "Europe/London",
      catchUp: "latest",
    });
    at("2026-12-16T12:00:00Z"); // Mondays 23 Nov, 30 Nov, 7 Dec, 14 Dec missed
    await jobs.runDue();
    expect(await made(w, r.id)).toEqual(["2026-12-14"]);
    expect((await w.call("card_recurrences_list", {})).items.find((x: any) => x.id === r.id)).toMatchObject({
      lastDate: "2026-12-14",
      nextDate: "2026-12-21",
    });
  });

  test("template parts that went away are dropped; a full column sends the card to the first column; archived projects pause", async () => {
    at("2027-01-04T12:00:00Z");
    await w.call("project_labels_create", { projectId: "OPS", name: "Routine" });
    const r = await w.call("card_recurrences_create", {
      projectId: "OPS",
      title: "Invoice {date}",
      rule: "FREQ=MONTHLY;BYMONTHDAY=-1",
      labels: ["Routine"],
      assignees: [w.users.priya, "me"],
      columnId: "In progress",
      estimate: 2,
      checklist: ["Hours", "Send"],
      dueInDays: 3,
      priority: 2,
    });
    const progress = (await w.call("projects_get", { id: "OPS" })).boards[0].columns.find(
      (c: any) => c.name === "In progress",
    );
    await w.call("board_columns_update", { id: progress.id, wipLimit: 1 });
    await w.call("cards_create", { projectId: "OPS", title: "Occupies the column", columnId: progress.id });
    await w.call("project_labels_delete", {
      id: (await w.call("project_labels_list", { projectId: "OPS" })).labels[0].id,
    });
    await w.deps.db.delete(memberships).where(eq(memberships.userId, w.users.priya));
    at("2027-01-31T09:00:00Z");
    await jobs.runDue();
    const key = (await w.call("cards_list", { projectId: "OPS", search: "Invoice" })).items[0].key;
    const c = await w.call("cards_get", { id: key });
    expect(c).toMatchObject({
      title: "Invoice 2027-01-31",
      column: { name: "Backlog" },
      labels: [],
      estimate: 2,
      dueDate: "2027-02-03",
      priority: 2,
      recurrenceId: r.id,
    });
    expect(c.assignees.map((a: any) => a.id)).toEqual([w.users.owner]);
    expect(c.checklist.items.map((i: any) => i.text)).toEqual(["Hours", "Send"]);
    await w.call("projects_archive", { id: "OPS" });
    at("2027-03-01T09:00:00Z");
    await jobs.runDue();
    expect(await made(w, r.id)).toEqual(["2027-01-31"]);
  });

  test("bad schedules are refused with an example", async () => {
    await w.call("projects_create", { name: "Ops Two", key: "OPS2" });
    const e = await w.err("card_recurrences_create", { projectId: "OPS2", title: "x", rule: "FREQ=HOURLY" });
    expect(e.message).toContain("rule: FREQ=HOURLY is not supported");
    expect(e.message).toContain("Examples:");
    expect(
      (
        await w.err("card_recurrences_create", {
          projectId: "OPS2",
          title: "x",
          rule: "FREQ=DAILY",
          timeZone: "Mars/Olympus",
        })
      ).message,
    ).toContain("not an IANA time zone");
    expect(
      (await w.err("card_recurrences_create", { projectId: "OPS2", title: "x", rule: "FREQ=DAILY", time: "25:00" }))
        .message,
    ).toContain("time");
    expect(
      (await w.err("card_recurrences_create", { projectId: "OPS2", title: "x", rule: "FREQ=DAILY", labels: ["Nope"] }))
        .message,
    ).toContain("is not a label of project OPS2");
  });
});

describe("the job's pending check (an idle server claims no lease)", () => {
  test("true for a due occurrence, and for a stored instant the rule disagrees with (the run recomputes it, no card); false once caught up, and for an archived project", async () => {
    const w = await makeWorld({ start: new Date("2026-05-04T12:00:00Z") });
    try {
      const pending = () => recurrenceJob.pending!(w.deps);
      const nextAt = async (id: number) =>
        (
          await w.deps.db.select({ at: cardRecurrences.nextAt }).from(cardRecurrences).where(eq(cardRecurrences.id, id))
        )[0]!.at?.toISOString();
      await w.call("projects_create", { name: "Desk", key: "DSK" });
      const r = await w.call("card_recurrences_create", {
        projectId: "DSK",
        title: "Tidy {date}",
        rule: "FREQ=DAILY",
        time: "09:00",
        timeZone: "UTC",
      });
      expect(await pending()).toBe(false);
      w.clock.set(new Date("2026-05-05T08:59:59.999Z"));
      expect(await pending()).toBe(false);
      w.clock.set(new Date("2026-05-05T09:00:00Z"));
      expect(await pending()).toBe(true);
      expect(await runRecurrences(w.deps)).toBe(1);
      expect(await pending()).toBe(false);

      // Only a stored instant earlier than the rule's (computed under other zone data): due by it, the run fixes it and makes nothing.
      await w.deps.db
        .update(cardRecurrences)
        .set({ nextAt: new Date("2026-05-05T10:00:00Z") })
        .where(eq(cardRecurrences.id, r.id));
      w.clock.set(new Date("2026-05-05T10:00:00Z"));
      expect(await pending()).toBe(true);
      expect(await runRecurrences(w.deps)).toBe(0);
      expect(await nextAt(r.id)).toBe("2026-05-06T09:00:00.000Z");
      expect(await made(w, r.id)).toEqual(["2026-05-05"]);
      expect(await pending()).toBe(false);

      // An archived project's recurrence waits: not work for the job while it stays archived.
      w.clock.set(new Date("2026-05-06T09:00:00Z"));
      expect(await pending()).toBe(true);
      await w.call("projects_archive", { id: "DSK" });
      expect(await pending()).toBe(false);
      expect(await runRecurrences(w.deps)).toBe(0);
    } finally {
      await w.close();
    }
  });
});

describe("restart after downtime", () => {
  test("every missed card once, none twice, none missing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "plinth-restart-"));
    const url = ON_PG ? await freshDatabaseUrl() : null;
    const open = async (): Promise<Store> => {
      const s = openStore(url ? { dataDir: ":memory:", databaseUrl: url } : { dataDir: dir });
      await s.migrate();
      return s;
    };
    const w = await makeWorld({ start: new Date("2026-03-02T08:00:00Z"), store: await open() });
    try {
      await w.call("projects_create", { name: "Studio", key: "STU" });
      const r = await w.call("card_recurrences_create", {
        projectId: "STU",
        title: "Standup {date}",
        rule: "FREQ=DAILY;BYDAY=MO,TU,WE,TH,FR",
        time: "09:00",
        timeZone: "Europe/London",
      });
      let jobs = await w.jobs();
      w.clock.set(new Date("2026-03-02T09:05:00Z"));
      await jobs.runDue();
      w.clock.set(new Date("2026-03-03T09:05:00Z"));
      await jobs.runDue();
      expect(await made(w, r.id)).toEqual(["2026-03-02", "2026-03-03"]);

      // Down from Wednesday 08:00 to the next Monday noon.
      await w.store.close();
      w.clock.set(new Date("2026-03-09T12:00:00Z"));
      const store = await open();
      const deps = { ...w.deps, store, db: store.db };
      jobs = new JobRunner(
        deps,
        workDomains.flatMap((d) => d.jobs ?? []),
      );
      await jobs.init();
      await jobs.runDue();
      const after = { ...w, store };
      expect(await made(after, r.id)).toEqual([
        "2026-03-02",
        "2026-03-03",
        "2026-03-04",
        "2026-03-05",
        "2026-03-06",
        "2026-03-09",
      ]);
      // Another instance coming up, and a later run, change nothing.
      const again = new JobRunner(
        deps,
        workDomains.flatMap((d) => d.jobs ?? []),
      );
      w.clock.set(new Date("2026-03-09T12:30:00Z"));
      await again.runDue();
      await runRecurrences(deps);
      expect(await made(after, r.id)).toEqual([
        "2026-03-02",
        "2026-03-03",
        "2026-03-04",
        "2026-03-05",
        "2026-03-06",
        "2026-03-09",
      ]);
      // The missed cards carry their own day in the title, and keys in order.
      const titles = (
        await store.query<{ title: string; number: number }>(
          "SELECT title, number FROM cards WHERE recurrence_id = ? ORDER BY number",
          [r.id],
        )
      ).map((x) => `${x.number} ${x.title}`);
      expect(titles).toEqual([
        "1 Standup 2026-03-02",
        "2 Standup 2026-03-03",
        "3 Standup 2026-03-04",
        "4 Standup 2026-03-05",
        "5 Standup 2026-03-06",
        "6 Standup 2026-03-09",
      ]);
      await store.close();
    } finally {
      await dropDatabase(url);
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
