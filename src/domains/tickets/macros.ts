/**
 * Macros: what agents do to tickets again and again (answer the same
 * question, set pending, tag it, hand it to billing), saved per company and
 * applied in one call. tickets_apply_macro applies every part (reply,
 * tags, assignee, status) in one transaction with one audit row and the
 * events each part emits on its own (ticket.updated for tags,
 * ticket.assigned, ticket.status_changed, ticket.replied). Every part is
 * checked before anything is written: a part that cannot apply (an
 * assignee no longer a member, a status the ticket cannot move to, too
 * many tags) refuses the whole macro with a message naming the part.
 *
 * The reply's variables are filled from the ticket and the agent:
 * {{ticket.requester.name}} (the requester's name, else "there"),
 * {{ticket.requester.first_name}}, {{ticket.requester.email}},
 * {{ticket.number}}, {{ticket.subject}}, {{agent.name}}. An unknown
 * variable is refused when the macro is saved, so it never reaches a
 * customer unfilled.
 */
import { and, asc, count, eq, type SQL } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { AppError, conflict, invalid, notFound } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { containsText } from "../../core/sql";
import { users } from "../../core/tables";
import { assigneeOf, refuseClosed, ticketsRead, ticketsWrite } from "./access";
import { ticketAssigned, ticketReplied, ticketUpdated } from "./events";
import { checkTransition, moveStatus, onTicket } from "./lifecycle";
import type { applyMacroInput, macroCreateInput, macroListInput, macroRef, macroUpdateInput } from "./schemas";
import { MAX_TAGS } from "./schemas";
import { ticketMacros, ticketMessages, tickets, ticketTags } from "./tables";

type Row = typeof ticketMacros.$inferSelect;

export const MACRO_VARIABLES = [
  "ticket.requester.name",
  "ticket.requester.first_name",
  "ticket.requester.email",
  "ticket.number",
  "ticket.subject",
  "agent.name",
] as const;
const VARIABLE = /\{\{\s*([a-z_.]+)\s*\}\}/g;

function checkVariables(body: string | null | undefined) {
  if (!body) return;
  for (const m of body.matchAll(VARIABLE))
    if (!(MACRO_VARIABLES as readonly string[]).includes(m[1]!))
      throw invalid(
        `The reply uses {{${m[1]}}}, which is not a macro variable; use ${MACRO_VARIABLES.map((x) => `{{${x}}}`).join(", ")}.`,
      );
}

const out = (r: Row) => ({
  id: r.id,
  name: r.name,
  body: r.body,
  status: r.status,
  addTags: r.addTags,
  removeTags: r.removeTags,
  assigneeId: r.assigneeId,
  updatedAt: iso(r.updatedAt)!,
});

async function macroById(q: Pick<Db, "select">, ctx: ActorContext, id: number): Promise<Row> {
  const r = (
    await q
      .select()
      .from(ticketMacros)
      .where(and(eq(ticketMacros.companyId, ctx.company.id), eq(ticketMacros.id, id)))
      .limit(1)
  )[0];
  if (!r) throw notFound(`Macro ${id} not found in ${ctx.company.name}. Find macros with ticket_macros_list.`);
  return r;
}

async function nameFree(tx: Db, ctx: ActorContext, name: string, except?: number) {
  const taken = (
    await tx
      .select({ id: ticketMacros.id })
      .from(ticketMacros)
      .where(and(eq(ticketMacros.companyId, ctx.company.id), eq(ticketMacros.name, name)))
      .limit(1)
  )[0];
  if (taken && taken.id !== except)
    throw conflict(`A macro named "${name}" exists (id ${taken.id}); pick another name or update that one.`);
}

function checkParts(m: Pick<Row, "body" | "status" | "addTags" | "removeTags" | "assigneeId">) {
  if (!m.body && !m.status && !m.addTags.length && !m.removeTags.length && m.assigneeId === null)
    throw invalid("A macro needs at least one part: body, status, addTags, removeTags or assigneeId.");
  checkVariables(m.body);
}

export async function listMacros(ctx: ActorContext, input: v.InferOutput<typeof macroListInput>) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const cond: SQL | undefined = and(
    eq(ticketMacros.companyId, ctx.company.id),
    input.q ? containsText(ticketMacros.name, input.q) : undefined,
  );
  const total = (await db.select({ n: count() }).from(ticketMacros).where(cond))[0]!.n;
  const rows = await db
    .select()
    .from(ticketMacros)
    .where(cond)
    .orderBy(asc(ticketMacros.name), asc(ticketMacros.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(rows.map(out), total, input.limit, input.offset);
}

export async function createMacro(ctx: ActorContext, input: v.InferOutput<typeof macroCreateInput>) {
  ticketsWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const assignee = input.assigneeId != null ? await assigneeOf(tx, ctx, input.assigneeId) : null;
    const fields = {
      body: input.body ?? null,
      status: input.status ?? null,
      addTags: [...new Set(input.addTags ?? [])].sort(),
      removeTags: [...new Set(input.removeTags ?? [])].sort(),
      assigneeId: assignee?.id ?? null,
    };
    checkParts(fields);
    await nameFree(tx, ctx, input.name);
    const row = (
      await tx
        .insert(ticketMacros)
        .values({ companyId: ctx.company.id, name: input.name, ...fields, createdAt: now, updatedAt: now })
        .returning()
    )[0]!;
    await audit(tx, ctx, "tickets.macro_create", { type: "ticket_macro", id: row.id, detail: { name: row.name } });
    return out(row);
  });
}

export async function updateMacro(ctx: ActorContext, input: v.InferOutput<typeof macroUpdateInput>) {
  ticketsWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const cur = await macroById(tx, ctx, input.id);
    const set: Partial<typeof ticketMacros.$inferInsert> = {};
    if (input.name !== undefined && input.name !== cur.name) {
      await nameFree(tx, ctx, input.name, cur.id);
      set.name = input.name;
    }
    if (input.body !== undefined) set.body = input.body;
    if (input.status !== undefined) set.status = input.status;
    if (input.addTags !== undefined) set.addTags = [...new Set(input.addTags)].sort();
    if (input.removeTags !== undefined) set.removeTags = [...new Set(input.removeTags)].sort();
    if (input.assigneeId !== undefined)
      set.assigneeId = input.assigneeId === null ? null : (await assigneeOf(tx, ctx, input.assigneeId)).id;
    checkParts({ ...cur, ...set } as Row);
    const row = (
      await tx
        .update(ticketMacros)
        .set({ ...set, updatedAt: ctx.deps.clock.now() })
        .where(eq(ticketMacros.id, cur.id))
        .returning()
    )[0]!;
    await audit(tx, ctx, "tickets.macro_update", {
      type: "ticket_macro",
      id: row.id,
      detail: { changed: Object.keys(set) },
    });
    return out(row);
  });
}

export async function deleteMacro(ctx: ActorContext, input: v.InferOutput<typeof macroRef>) {
  ticketsWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const cur = await macroById(tx, ctx, input.id);
    await tx.delete(ticketMacros).where(eq(ticketMacros.id, cur.id));
    await audit(tx, ctx, "tickets.macro_delete", { type: "ticket_macro", id: cur.id, detail: { name: cur.name } });
    return { id: cur.id, status: "deleted" as const };
  });
}

/** Runs `check`; an error it throws refuses the whole macro, naming the part. */
async function part<T>(macro: Row, name: string, check: () => Promise<T> | T): Promise<T> {
  try {
    return await check();
  } catch (e) {
    if (e instanceof AppError)
      throw conflict(`Macro "${macro.name}" was not applied (nothing changed): its ${name} part: ${e.message}`, {
        part: name,
      });
    throw e;
  }
}

export async function applyMacro(ctx: ActorContext, input: v.InferOutput<typeof applyMacroInput>) {
  ticketsWrite(ctx);
  return onTicket(ctx, input.ticketId, async (c) => {
    const t = c.row;
    refuseClosed(t, "apply the macro");
    const macro = await macroById(c.tx, ctx, input.macroId);

    // Check every part before writing anything.
    const assignee =
      macro.assigneeId === null ? null : await part(macro, "assignee", () => assigneeOf(c.tx, ctx, macro.assigneeId!));
    const opened = t.status === "new" && (macro.body !== null || (assignee !== null && assignee.id !== t.assigneeId));
    const afterImplied = opened ? "open" : t.status;
    if (macro.status !== null && macro.status !== afterImplied)
      await part(macro, "status", () => checkTransition({ ...t, status: afterImplied }, macro.status!));
    const current = (await c.tx.select({ tag: ticketTags.tag }).from(ticketTags).where(eq(ticketTags.ticketId, t.id)))
      .map((r) => r.tag)
      .sort();
    const tagSet = new Set([...current, ...macro.addTags]);
    for (const r of macro.removeTags) tagSet.delete(r);
    const nextTags = [...tagSet].sort();
    if (nextTags.length > MAX_TAGS)
      await part(macro, "tags", () => {
        throw invalid(`A ticket holds at most ${MAX_TAGS} tags; this would make ${nextTags.length}.`);
      });
    const agent = (await c.tx.select({ name: users.name }).from(users).where(eq(users.id, ctx.principal.userId!)))[0];
    const body =
      macro.body === null
        ? null
        : fill(macro.body, {
            "ticket.requester.name": t.requesterName ?? "there",
            "ticket.requester.first_name": t.requesterName?.trim().split(/\s+/)[0] || "there",
            "ticket.requester.email": t.requesterEmail,
            "ticket.number": `#${t.number}`,
            "ticket.subject": t.subject,
            "agent.name": agent?.name ?? ctx.company.name,
          });

    const applied: string[] = [];
    if (nextTags.join(",") !== current.join(",")) {
      await c.tx.delete(ticketTags).where(eq(ticketTags.ticketId, t.id));
      if (nextTags.length) await c.tx.insert(ticketTags).values(nextTags.map((tag) => ({ ticketId: t.id, tag })));
      await emit(
        c.tx,
        ctx,
        ticketUpdated,
        { id: t.number },
        {
          number: t.number,
          subject: t.subject,
          requesterEmail: t.requesterEmail,
          requesterName: t.requesterName,
          changes: { tags: nextTags },
          firstResponseDueAt: iso(t.firstResponseDueAt),
          resolutionDueAt: iso(t.resolutionDueAt),
          assigneeUserId: t.assigneeId,
        },
      );
      applied.push("tags");
    }
    if (assignee && assignee.id !== t.assigneeId) {
      c.row = (
        await c.tx
          .update(tickets)
          .set({ assigneeId: assignee.id, updatedAt: c.now })
          .where(eq(tickets.id, t.id))
          .returning()
      )[0]!;
      await emit(
        c.tx,
        ctx,
        ticketAssigned,
        { id: t.number },
        {
          number: t.number,
          subject: t.subject,
          requesterEmail: t.requesterEmail,
          requesterName: t.requesterName,
          priority: t.priority,
          status: afterImplied,
          assigneeUserId: assignee.id,
          previousAssigneeUserId: t.assigneeId,
          byUserId: ctx.principal.userId,
        },
      );
      applied.push("assignee");
    }
    let messageId: number | null = null;
    if (body !== null) {
      messageId = (
        await c.tx
          .insert(ticketMessages)
          .values({
            ticketId: t.id,
            kind: "reply",
            author: "agent",
            userId: ctx.principal.userId,
            body,
            createdAt: c.now,
          })
          .returning({ id: ticketMessages.id })
      )[0]!.id;
      c.row = (
        await c.tx
          .update(tickets)
          .set({ firstRespondedAt: t.firstRespondedAt ?? c.now, lastMessageAt: c.now, updatedAt: c.now })
          .where(eq(tickets.id, t.id))
          .returning()
      )[0]!;
      applied.push("reply");
    }
    if (opened) await moveStatus(c, ctx, "open", "agent");
    if (macro.status !== null && macro.status !== c.row.status) {
      await moveStatus(c, ctx, macro.status, "agent");
      applied.push("status");
    }
    if (!applied.length && !opened) await c.tx.update(tickets).set({ updatedAt: c.now }).where(eq(tickets.id, t.id));
    if (body !== null)
      await emit(
        c.tx,
        ctx,
        ticketReplied,
        { id: t.number },
        {
          number: t.number,
          subject: t.subject,
          requesterEmail: t.requesterEmail,
          requesterName: t.requesterName,
          messageId: messageId!,
          body,
          authorUserId: ctx.principal.userId,
          status: c.row.status,
          assigneeUserId: c.row.assigneeId,
        },
      );
    await audit(c.tx, ctx, "tickets.apply_macro", {
      type: "ticket",
      id: t.number,
      detail: { macroId: macro.id, macro: macro.name, applied, messageId },
    });
    return {
      id: t.number,
      macroId: macro.id,
      applied,
      status: c.row.status,
      assigneeId: c.row.assigneeId,
      tags: nextTags,
      ...(messageId !== null && { messageId }),
    };
  });
}

function fill(text: string, values: Record<(typeof MACRO_VARIABLES)[number], string>) {
  return text.replace(VARIABLE, (all, name: string) => (values as Record<string, string>)[name] ?? all);
}
