/**
 * The jobs' steps as their tests drive them (sendDueMail, deliver,
 * deliverDue, runQueued, runSchedules, runHostingChecks, the 30-second and
 * minute jobs' reopenSnoozed, invoiceDueSubscriptions, markOverdue,
 * closeDueSurveys, sendReminders, expireUnconfirmed, foldSubscribers,
 * sendDigests, runRecurrences, checkBreaches, and the hourly jobs'
 * pruneEvents, pruneMail, pruneHistory, pruneRuns, pruneDeliveries,
 * autoClose, decayScores; runChecked for any job by its definition), each
 * held to its job's `pending` check (src/core/jobs.ts): the runner skips a
 * job whose check finds nothing, so a check that misses work would leave
 * mail unsent in production while these tests, calling the step directly,
 * still passed. Here, whenever the check says "nothing to do", the step
 * runs inside a transaction that watches for writes and fails the test if
 * there was one.
 */
import { coreJobs } from "../src/core/housekeeping";
import { mailJobs, sendDueMail as sendDueMailStep } from "../src/core/mail";
import type { Deps } from "../src/core/context";
import type { JobDef } from "../src/core/jobs";
import { historyPruneJob, pruneHistory as pruneHistoryStep } from "../src/domains/ai/retention";
import {
  pruneRunsJob,
  runJob,
  runQueued as runQueuedStep,
  runSchedules as runSchedulesStep,
  scheduleJob,
} from "../src/domains/automations/runner";
import {
  deliverDue as deliverDueStep,
  deliverJob as webhooksJob,
  pruneDeliveries as pruneDeliveriesStep,
  pruneDeliveriesJob,
} from "../src/domains/automations/webhooks";
import { scoreDecayJob } from "../src/domains/crm/scoring";
import { deliver as deliverStep, deliverJob as emailJob } from "../src/domains/email/delivery";
import { hostingJob, runHostingChecks as runHostingChecksStep } from "../src/domains/hosting/checks";
import { billingJobs } from "../src/domains/billing/jobs";
import { markOverdue as markOverdueStep } from "../src/domains/billing/invoices";
import { invoiceDueSubscriptions as invoiceDueSubscriptionsStep } from "../src/domains/billing/subscriptions";
import { expireJob, expireUnconfirmed as expireUnconfirmedStep } from "../src/domains/bookings/bookings";
import { reminderJob, sendReminders as sendRemindersStep } from "../src/domains/bookings/delivery";
import { calendarWriteJob, writeDue as writeCalendarsStep } from "../src/domains/bookings/caldav";
import { chatJobs, reopenSnoozed as reopenSnoozedStep } from "../src/domains/chat/conversations";
import { foldJob } from "../src/domains/email/audience";
import { digestJob, sendDigests as sendDigestsStep } from "../src/domains/notifications/digest";
import { recurrenceJob, runRecurrences as runRecurrencesStep } from "../src/domains/projects/recurrences";
import { closeDueJob, closeDueSurveys as closeDueSurveysStep } from "../src/domains/surveys/jobs";
import { autoClose as autoCloseStep, checkBreaches as checkBreachesStep, ticketJobs } from "../src/domains/tickets/sla";
import { ON_PG } from "./db";

/** Rows this transaction changed so far (SQLite), or whether it wrote at all (PostgreSQL assigns an id on the first write). */
async function writeMark(deps: Deps): Promise<string> {
  const sql = ON_PG ? "select coalesce(txid_current_if_assigned()::text, 'none') as n" : "select total_changes() as n";
  const [row] = await deps.store.query<{ n: unknown }>(sql);
  return String(row!.n);
}

async function checked<T>(deps: Deps, job: JobDef, step: () => Promise<T>): Promise<T> {
  if (!job.pending) throw new Error(`${job.name} has no pending check`);
  if (await job.pending(deps)) return step();
  return deps.store.transaction(async () => {
    const before = await writeMark(deps);
    const out = await step();
    if ((await writeMark(deps)) !== before)
      throw new Error(`${job.name}: its pending check found nothing to do, but the run wrote`);
    return out;
  });
}

const named = (jobs: readonly JobDef[], name: string) => jobs.find((j) => j.name === name)!;
const mailJob = named(mailJobs, "mail.send");

export const sendDueMail = (deps: Deps) => checked(deps, mailJob, () => sendDueMailStep(deps));
export const deliver = (deps: Deps) => checked(deps, emailJob, () => deliverStep(deps));
export const writeCalendars = (deps: Deps) => checked(deps, calendarWriteJob, () => writeCalendarsStep(deps));
export const deliverDue = (deps: Deps) => checked(deps, webhooksJob, () => deliverDueStep(deps));
export const runQueued = (deps: Deps) => checked(deps, runJob, () => runQueuedStep(deps));
export const runSchedules = (deps: Deps) => checked(deps, scheduleJob, () => runSchedulesStep(deps));
export const runHostingChecks = (deps: Deps) => checked(deps, hostingJob, () => runHostingChecksStep(deps));
export const reopenSnoozed = (deps: Deps) =>
  checked(deps, named(chatJobs, "chat.snooze_ended"), () => reopenSnoozedStep(deps));
export const invoiceDueSubscriptions = (deps: Deps) =>
  checked(deps, named(billingJobs, "billing.subscription_invoices"), () => invoiceDueSubscriptionsStep(deps));
export const markOverdue = (deps: Deps) =>
  checked(deps, named(billingJobs, "billing.overdue"), () => markOverdueStep(deps));
export const closeDueSurveys = (deps: Deps) => checked(deps, closeDueJob, () => closeDueSurveysStep(deps));
export const sendReminders = (deps: Deps) => checked(deps, reminderJob, () => sendRemindersStep(deps));
export const expireUnconfirmed = (deps: Deps) => checked(deps, expireJob, () => expireUnconfirmedStep(deps));
export const foldSubscribers = (deps: Deps) => checked(deps, foldJob, () => foldJob.run(deps));
export const sendDigests = (deps: Deps) => checked(deps, digestJob, () => sendDigestsStep(deps));
export const runRecurrences = (deps: Deps) => checked(deps, recurrenceJob, () => runRecurrencesStep(deps));
export const checkBreaches = (deps: Deps) =>
  checked(deps, named(ticketJobs, "tickets.sla_breaches"), () => checkBreachesStep(deps));

// The hourly jobs.
export const pruneEvents = (deps: Deps) => runChecked(deps, named(coreJobs, "events.prune"));
export const pruneMail = (deps: Deps) => runChecked(deps, named(mailJobs, "mail.prune"));
export const pruneHistory = (deps: Deps) => checked(deps, historyPruneJob, () => pruneHistoryStep(deps));
export const pruneRuns = (deps: Deps) => runChecked(deps, pruneRunsJob);
export const pruneDeliveries = (deps: Deps) => checked(deps, pruneDeliveriesJob, () => pruneDeliveriesStep(deps));
export const autoClose = (deps: Deps) =>
  checked(deps, named(ticketJobs, "tickets.auto_close"), () => autoCloseStep(deps));
export const decayScores = (deps: Deps) => runChecked(deps, scoreDecayJob);

/** Runs `job` as the runner would, past its check (held to it as above); a job without one (the storage probe) just runs. */
export function runChecked(deps: Deps, job: JobDef): Promise<void> {
  return job.pending ? checked(deps, job, () => job.run(deps)) : job.run(deps);
}
