/**
 * SLA: each company's policy (time zone, weekly business hours, holidays,
 * first-response and resolution targets per priority, auto-close), the due
 * times of a ticket, its SLA state as tools show it, and breach recording.
 *
 * The clocks (choices the issue left open, as Zendesk and Freshdesk do them):
 *  - First response runs from creation until the first public agent reply;
 *    solving or closing without one stops it.
 *  - Resolution runs from creation while the ticket is new or open; it is
 *    paused while pending (waiting on the requester) or solved, and resumes
 *    on reopening. Its due time is creation + target of working time, not
 *    counting the paused stretches, so every resume recomputes it exactly.
 *  - Due times are computed with the policy and priority in force when they
 *    are computed: at creation, on a priority change, on resuming. A policy
 *    change does not rewrite tickets already running.
 *  - A target is breached at its due instant (inclusive). Each breach is
 *    recorded once on the ticket (the due instant it missed) and announced
 *    once with ticket.sla_breached, by whichever comes first: the job, or a
 *    write to the ticket at or after that instant. A later priority change
 *    does not undo a recorded breach.
 */
import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, or, type SQL } from "drizzle-orm";
import { DAY_MS, iso } from "../../core/clock";
import type { Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { emit, type EventActor } from "../../core/events";
import { anyRow, type JobDef } from "../../core/jobs";
import { addWorkingTime, parseWeekHours, type Schedule } from "./business-time";
import { ticketSlaBreached, ticketStatusChanged } from "./events";
import {
  ticketSlaPolicies,
  tickets,
  type SlaPause,
  type SlaTarget,
  type TicketPriority,
  type TicketStatus,
  type WeekHours,
} from "./tables";

type Q = Pick<Db, "select">;
export type TicketRow = typeof tickets.$inferSelect;

export interface Policy {
  timeZone: string;
  businessHours: WeekHours;
  holidays: string[];
  targets: Record<TicketPriority, SlaTarget>;
  autoCloseDays: number | null;
}

const WEEKDAYS_9_TO_5 = ["09:00-17:00"];

/** What a company without a policy of its own gets: Mon–Fri 09:00–17:00 UTC, urgent 24/7. */
export const DEFAULT_POLICY: Policy = Object.freeze({
  timeZone: "UTC",
  businessHours: {
    mon: WEEKDAYS_9_TO_5,
    tue: WEEKDAYS_9_TO_5,
    wed: WEEKDAYS_9_TO_5,
    thu: WEEKDAYS_9_TO_5,
    fri: WEEKDAYS_9_TO_5,
  },
  holidays: [],
  targets: {
    urgent: { firstResponseMinutes: 60, resolutionMinutes: 8 * 60, businessHours: false },
    high: { firstResponseMinutes: 4 * 60, resolutionMinutes: 2 * 8 * 60, businessHours: true },
    normal: { firstResponseMinutes: 8 * 60, resolutionMinutes: 5 * 8 * 60, businessHours: true },
    low: { firstResponseMinutes: 2 * 8 * 60, resolutionMinutes: 10 * 8 * 60, businessHours: true },
  },
  autoCloseDays: 4,
}) as Policy;

export async function policyOf(q: Q, companyId: number): Promise<Policy & { isDefault: boolean }> {
  const row = (await q.select().from(ticketSlaPolicies).where(eq(ticketSlaPolicies.companyId, companyId)).limit(1))[0];
  if (!row) return { ...DEFAULT_POLICY, isDefault: true };
  return {
    timeZone: row.timeZone,
    businessHours: row.businessHours,
    holidays: row.holidays,
    targets: row.targets,
    autoCloseDays: row.autoCloseDays,
    isDefault: false,
  };
}

export function scheduleFor(p: Policy, target: SlaTarget): Schedule {
  return target.businessHours
    ? { timeZone: p.timeZone, hours: parseWeekHours(p.businessHours), holidays: new Set(p.holidays) }
    : { timeZone: p.timeZone, hours: null, holidays: new Set() };
}

/** Statuses in which the resolution clock runs; pending and solved pause it; closed stops it. */
const RUNNING: readonly TicketStatus[] = ["new", "open"];
/** Statuses in which a missing first reply can still breach. */
const AWAITING_FIRST_REPLY: readonly TicketStatus[] = ["new", "open", "pending"];

type SlaFields = Pick<TicketRow, "createdAt" | "priority" | "status" | "slaPausedAt" | "slaPauses">;

/** The due times of a ticket in its current state, under `p`. */
export function dueTimes(t: SlaFields, p: Policy): { firstResponseDueAt: Date | null; resolutionDueAt: Date | null } {
  const target = p.targets[t.priority];
  const start = t.createdAt.getTime();
  const sched = scheduleFor(p, target);
  const fr =
    target.firstResponseMinutes === null
      ? null
      : new Date(addWorkingTime(start, target.firstResponseMinutes * 60_000, sched));
  let res: Date | null = null;
  if (target.resolutionMinutes !== null && t.slaPausedAt === null && RUNNING.includes(t.status)) {
    const pauses = t.slaPauses.map(([a, b]) => [Date.parse(a), Date.parse(b)] as [number, number]);
    res = new Date(addWorkingTime(start, target.resolutionMinutes * 60_000, sched, pauses));
  }
  return { firstResponseDueAt: fr, resolutionDueAt: res };
}

/**
 * The clock fields after a move to `to` at `now`: running → paused starts a
 * pause, paused → running ends it, closing freezes it; plus the due times.
 */
export function clockAfter(t: TicketRow, to: TicketStatus, now: Date, p: Policy) {
  let slaPausedAt = t.slaPausedAt;
  let slaPauses: SlaPause[] = t.slaPauses;
  const runs = RUNNING.includes(to);
  if (!runs && slaPausedAt === null) slaPausedAt = now;
  if (runs && slaPausedAt !== null) {
    slaPauses = [...slaPauses, [slaPausedAt.toISOString(), now.toISOString()]];
    slaPausedAt = null;
  }
  const dues = dueTimes({ ...t, status: to, slaPausedAt, slaPauses }, p);
  return { slaPausedAt, slaPauses, ...dues };
}

export type TargetState = "none" | "running" | "paused" | "met" | "breached" | "stopped";

/** How tools show a ticket's SLA at `now`. */
export function slaView(t: TicketRow, now: Date) {
  const ms = now.getTime();
  let fr: TargetState;
  if (t.firstResponseBreachedAt) fr = "breached";
  else if (t.firstRespondedAt)
    fr = t.firstResponseDueAt && t.firstRespondedAt >= t.firstResponseDueAt ? "breached" : "met";
  else if (!t.firstResponseDueAt) fr = "none";
  else if (!AWAITING_FIRST_REPLY.includes(t.status)) fr = "stopped";
  else fr = t.firstResponseDueAt.getTime() <= ms ? "breached" : "running";
  let res: TargetState;
  if (t.resolutionBreachedAt) res = "breached";
  else if (t.status === "solved" || t.status === "closed") res = t.mergedIntoId ? "stopped" : "met";
  else if (t.slaPausedAt) res = "paused";
  else if (!t.resolutionDueAt) res = "none";
  else res = t.resolutionDueAt.getTime() <= ms ? "breached" : "running";
  return {
    firstResponse: { state: fr, dueAt: iso(t.firstResponseDueAt), respondedAt: iso(t.firstRespondedAt) },
    resolution: { state: res, dueAt: iso(t.resolutionDueAt ?? t.resolutionBreachedAt) },
  };
}

/** The targets a ticket is breaching at `now` (recorded or not yet). */
export function breachedTargets(t: TicketRow, now: Date): ("first_response" | "resolution")[] {
  const v = slaView(t, now);
  const out: ("first_response" | "resolution")[] = [];
  if (v.firstResponse.state === "breached") out.push("first_response");
  if (v.resolution.state === "breached") out.push("resolution");
  return out;
}

/**
 * Records the breaches `t` has reached by `now` and emits one
 * ticket.sla_breached for each, inside `tx`. The update is conditional (the
 * breach column still empty), so racing writers and jobs record it once.
 * Returns the row as it now stands.
 */
export async function recordBreaches(tx: Db, actor: EventActor, t: TicketRow, now: Date): Promise<TicketRow> {
  let row = t;
  const frDue = row.firstResponseDueAt;
  if (
    !row.firstResponseBreachedAt &&
    frDue &&
    frDue <= now &&
    !row.firstRespondedAt &&
    AWAITING_FIRST_REPLY.includes(row.status)
  ) {
    const won = await tx
      .update(tickets)
      .set({ firstResponseBreachedAt: frDue })
      .where(and(eq(tickets.id, row.id), isNull(tickets.firstResponseBreachedAt)))
      .returning();
    if (won[0]) {
      row = won[0];
      await announce(tx, actor, row, "first_response", frDue, now);
    }
  }
  const resDue = row.resolutionDueAt;
  if (!row.resolutionBreachedAt && resDue && resDue <= now && !row.slaPausedAt && RUNNING.includes(row.status)) {
    const won = await tx
      .update(tickets)
      .set({ resolutionBreachedAt: resDue })
      .where(and(eq(tickets.id, row.id), isNull(tickets.resolutionBreachedAt)))
      .returning();
    if (won[0]) {
      row = won[0];
      await announce(tx, actor, row, "resolution", resDue, now);
    }
  }
  return row;
}

async function announce(
  tx: Db,
  actor: EventActor,
  t: TicketRow,
  target: "first_response" | "resolution",
  due: Date,
  now: Date,
) {
  await emit(
    tx,
    actor,
    ticketSlaBreached,
    { id: t.number },
    {
      number: t.number,
      subject: t.subject,
      requesterEmail: t.requesterEmail,
      requesterName: t.requesterName,
      target,
      dueAt: due.toISOString(),
      detectedAt: now.toISOString(),
      priority: t.priority,
      status: t.status,
      assigneeUserId: t.assigneeId,
    },
  );
}

const BATCH = 200;

/**
 * Tickets with a target past its due time and its breach not recorded (the
 * conditions recordBreaches records under): what the breach job walks, and
 * what its pending check looks for.
 */
const breachDue = (now: Date) =>
  or(
    and(
      lte(tickets.firstResponseDueAt, now),
      isNull(tickets.firstResponseBreachedAt),
      isNull(tickets.firstRespondedAt),
      inArray(tickets.status, [...AWAITING_FIRST_REPLY]),
    ),
    and(
      lte(tickets.resolutionDueAt, now),
      isNull(tickets.resolutionBreachedAt),
      isNull(tickets.slaPausedAt),
      inArray(tickets.status, [...RUNNING]),
    ),
  );

/**
 * The breach job: every ticket whose due time has passed without its breach
 * recorded, in id order (a cursor, so a row the condition still matches can
 * never loop). It asks the database what is due by now, so after downtime
 * it reports every breach once, with the instant it was due.
 */
export async function checkBreaches(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  let after = 0;
  let found = 0;
  for (;;) {
    const due = await deps.db
      .select({ id: tickets.id, companyId: tickets.companyId })
      .from(tickets)
      .where(and(gt(tickets.id, after), breachDue(now)))
      .orderBy(asc(tickets.id))
      .limit(BATCH);
    for (const d of due) {
      await deps.store.transaction(async (tx) => {
        const row = (await tx.select().from(tickets).where(eq(tickets.id, d.id)).limit(1))[0];
        if (!row) return;
        const recorded = await recordBreaches(tx, { deps, company: { id: d.companyId } }, row, now);
        if (recorded !== row) found++;
      });
    }
    if (due.length < BATCH) return found;
    after = due[due.length - 1]!.id;
  }
}

/** Solved tickets solved at or before `t`. */
const solvedBy = (t: Date) => and(eq(tickets.status, "solved"), isNotNull(tickets.solvedAt), lte(tickets.solvedAt, t));

/**
 * Solved tickets whose company's autoCloseDays (policyOf's: the default's
 * for a company without a policy row, never for one whose row says null)
 * have passed since they were solved, at `now`: what autoClose closes and
 * what its pending check looks for. A condition on tickets left-joined to
 * their company's policy (dueToClose), with one branch per setting in use,
 * read first; null when no setting can close anything.
 */
async function closeDue(q: Db, now: Date): Promise<SQL | null> {
  const settings = await q
    .selectDistinct({ days: ticketSlaPolicies.autoCloseDays })
    .from(ticketSlaPolicies)
    .where(isNotNull(ticketSlaPolicies.autoCloseDays));
  const solvedDaysAgo = (days: number) => solvedBy(new Date(now.getTime() - days * DAY_MS));
  const branches = settings.map(({ days }) => and(eq(ticketSlaPolicies.autoCloseDays, days!), solvedDaysAgo(days!)));
  if (DEFAULT_POLICY.autoCloseDays !== null)
    branches.push(and(isNull(ticketSlaPolicies.companyId), solvedDaysAgo(DEFAULT_POLICY.autoCloseDays)));
  return branches.length ? or(...branches)! : null;
}

/** The tickets `due` (closeDue) selects, after id `after`, in id order. */
const dueToClose = (q: Db, due: SQL, after: number, limit: number) =>
  q
    .select({ id: tickets.id, companyId: tickets.companyId })
    .from(tickets)
    .leftJoin(ticketSlaPolicies, eq(ticketSlaPolicies.companyId, tickets.companyId))
    .where(and(gt(tickets.id, after), due))
    .orderBy(asc(tickets.id))
    .limit(limit);

/** The auto-close job's pending check: a solved ticket autoClose would close now. */
async function anyToClose(deps: Deps): Promise<boolean> {
  const due = await closeDue(deps.db, deps.clock.now());
  return due !== null && (await anyRow(dueToClose(deps.db, due, 0, 1)));
}

/**
 * Solved tickets close after the policy's autoCloseDays (a requester reply
 * reopens them before that), in id order (a cursor, as checkBreaches).
 */
export async function autoClose(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  const due = await closeDue(deps.db, now);
  if (!due) return 0;
  let closed = 0;
  let after = 0;
  for (;;) {
    const batch = await dueToClose(deps.db, due, after, BATCH);
    for (const d of batch) {
      await deps.store.transaction(async (tx) => {
        const won = (
          await tx
            .update(tickets)
            .set({ status: "closed", closedAt: now, updatedAt: now })
            .where(and(eq(tickets.id, d.id), eq(tickets.status, "solved")))
            .returning()
        )[0];
        if (!won) return;
        closed++;
        await emit(
          tx,
          { deps, company: { id: d.companyId } },
          ticketStatusChanged,
          { id: won.number },
          {
            number: won.number,
            subject: won.subject,
            requesterEmail: won.requesterEmail,
            requesterName: won.requesterName,
            from: "solved",
            to: "closed",
            reason: "auto_close",
            assigneeUserId: won.assigneeId,
          },
        );
      });
    }
    if (batch.length < BATCH) return closed;
    after = batch[batch.length - 1]!.id;
  }
}

export const ticketJobs: JobDef[] = [
  {
    name: "tickets.sla_breaches",
    description:
      "Records SLA targets that passed their due time without being met and emits ticket.sla_breached once each.",
    everyMs: 60_000,
    pending: (deps) =>
      anyRow(deps.db.select({ id: tickets.id }).from(tickets).where(breachDue(deps.clock.now())).limit(1)),
    run: async (deps) => {
      await checkBreaches(deps);
    },
  },
  {
    name: "tickets.auto_close",
    description: "Closes solved tickets after the company's autoCloseDays.",
    everyMs: 60 * 60_000,
    pending: anyToClose,
    run: async (deps) => {
      await autoClose(deps);
    },
  },
];
