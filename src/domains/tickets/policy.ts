/**
 * Reading and changing a company's SLA policy: time zone, weekly business
 * hours, holidays, targets per priority, auto-close. A company that never
 * set one works with DEFAULT_POLICY (sla.ts), which the read says.
 * Changing the policy affects due times computed from then on (new
 * tickets, priority changes, resumed clocks), not those already running.
 */
import type * as v from "valibot";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { ticketsRead, ticketsWrite } from "./access";
import { isTimeZone, parseWeekHours } from "./business-time";
import { slaPolicyUpdated } from "./events";
import type { slaPolicyUpdateInput } from "./schemas";
import { policyOf, type Policy } from "./sla";
import { TICKET_PRIORITIES, ticketSlaPolicies } from "./tables";

function policyOut(p: Policy & { isDefault: boolean }) {
  return {
    timeZone: p.timeZone,
    businessHours: p.businessHours,
    holidays: p.holidays,
    targets: p.targets,
    autoCloseDays: p.autoCloseDays,
    isDefault: p.isDefault,
  };
}

export async function getSlaPolicy(ctx: ActorContext) {
  ticketsRead(ctx);
  return policyOut(await policyOf(ctx.deps.db, ctx.company.id));
}

export async function updateSlaPolicy(ctx: ActorContext, input: v.InferOutput<typeof slaPolicyUpdateInput>) {
  ticketsWrite(ctx);
  if (input.timeZone !== undefined && !isTimeZone(input.timeZone))
    throw invalid(
      `timeZone "${input.timeZone.slice(0, 64)}" is not an IANA time zone; use a name such as Europe/Berlin or America/New_York.`,
    );
  if (input.businessHours !== undefined) parseWeekHours(input.businessHours);
  return ctx.deps.db.transaction(async (tx) => {
    const current = await policyOf(tx, ctx.company.id);
    const targets = { ...current.targets };
    for (const p of TICKET_PRIORITIES) {
      const t = input.targets?.[p];
      if (t)
        targets[p] = { ...targets[p], ...Object.fromEntries(Object.entries(t).filter(([, x]) => x !== undefined)) };
      const r = targets[p];
      if (
        r.firstResponseMinutes !== null &&
        r.resolutionMinutes !== null &&
        r.resolutionMinutes < r.firstResponseMinutes
      )
        throw invalid(
          `targets.${p}: resolutionMinutes (${r.resolutionMinutes}) is shorter than firstResponseMinutes (${r.firstResponseMinutes}).`,
        );
    }
    const next: Policy = {
      timeZone: input.timeZone ?? current.timeZone,
      businessHours: input.businessHours
        ? Object.fromEntries(Object.entries(input.businessHours).filter(([, x]) => x !== undefined))
        : current.businessHours,
      holidays: input.holidays ? [...new Set(input.holidays)].sort() : current.holidays,
      targets,
      autoCloseDays: input.autoCloseDays !== undefined ? input.autoCloseDays : current.autoCloseDays,
    };
    const fields = (["timeZone", "businessHours", "holidays", "targets", "autoCloseDays"] as const).filter(
      (k) => JSON.stringify(next[k]) !== JSON.stringify(current[k]),
    );
    const row = { companyId: ctx.company.id, ...next, updatedAt: ctx.deps.clock.now() };
    if (fields.length || current.isDefault) {
      await tx
        .insert(ticketSlaPolicies)
        .values(row)
        .onConflictDoUpdate({ target: ticketSlaPolicies.companyId, set: { ...next, updatedAt: row.updatedAt } });
      await audit(tx, ctx, "ticket_sla_policy.update", { type: "company", id: ctx.company.id, detail: { fields } });
      await emit(tx, ctx, slaPolicyUpdated, { id: ctx.company.id }, { fields: [...fields], timeZone: next.timeZone });
    }
    return { ...policyOut({ ...next, isDefault: false }), changed: fields };
  });
}
