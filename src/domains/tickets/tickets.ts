/**
 * Tickets: create, read, list (the views people use), update, assign,
 * change status, delete; the queue summary and the tags in use.
 *
 * @public Serves crm (the tickets part of a contact's timeline) and, through
 * intake.ts, chat (a conversation turned into a ticket).
 */
import { and, asc, count, desc, eq, inArray, isNotNull, isNull, lte, not, or, sql, type SQL } from "drizzle-orm";
import type * as v from "valibot";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import type { Db } from "../../core/db";
import { conflict, invalid } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { byText, containsText } from "../../core/sql";
import {
  assigneeOf,
  extrasFor,
  messageOut,
  ref,
  ticketByNumber,
  ticketOut,
  ticketsRead,
  ticketsWrite,
  userIdOf,
  usersOf,
} from "./access";
import { forgetFiles, keysOfTicket, recordFiles, type StoredFile } from "./attachments";
import { ticketAssigned, ticketCreated, ticketDeleted, ticketUpdated } from "./events";
import { checkTransition, moveStatus, nextNumber, onTicket } from "./lifecycle";
import type {
  ticketAssignInput,
  ticketCreateInput,
  ticketListInput,
  ticketRef,
  ticketStatusInput,
  ticketUpdateInput,
} from "./schemas";
import { dueTimes, policyOf, recordBreaches, type TicketRow } from "./sla";
import { type AttachmentSource, ticketMessages, tickets, ticketTags, type TicketStatus } from "./tables";

export const MESSAGES_IN_GET = 50;

async function setTags(tx: Db, ticketId: number, tags: string[]) {
  await tx.delete(ticketTags).where(eq(ticketTags.ticketId, ticketId));
  const unique = [...new Set(tags)];
  if (unique.length) await tx.insert(ticketTags).values(unique.map((tag) => ({ ticketId, tag })));
}

/** Opens a ticket for a requester's first message (status new, or open when assigned). */
export async function createTicket(
  ctx: ActorContext,
  input: v.InferOutput<typeof ticketCreateInput>,
  opts: {
    followUpOf?: TicketRow;
    sourceChatNumber?: number;
    /** Files already stored (a chat's, by key) to record on the first message, each with its source. */
    files?: { source: AttachmentSource; file: StoredFile }[];
  } = {},
) {
  ticketsWrite(ctx);
  return ctx.deps.db.transaction(async (tx) => {
    const now = ctx.deps.clock.now();
    const assignee = input.assigneeId !== undefined ? await assigneeOf(tx, ctx, input.assigneeId) : null;
    const policy = await policyOf(tx, ctx.company.id);
    const number = await nextNumber(tx, ctx.company.id);
    const status: TicketStatus = assignee ? "open" : "new";
    const base = { createdAt: now, priority: input.priority, status, slaPausedAt: null, slaPauses: [] };
    const dues = dueTimes(base, policy);
    const row = (
      await tx
        .insert(tickets)
        .values({
          companyId: ctx.company.id,
          number,
          subject: input.subject,
          requesterEmail: input.requesterEmail.toLowerCase(),
          requesterName: input.requesterName ?? null,
          assigneeId: assignee?.id ?? null,
          followUpOfId: opts.followUpOf?.id ?? null,
          sourceChatNumber: opts.sourceChatNumber ?? null,
          updatedAt: now,
          lastMessageAt: now,
          ...base,
          ...dues,
        })
        .returning()
    )[0]!;
    const msg = (
      await tx
        .insert(ticketMessages)
        .values({
          ticketId: row.id,
          kind: "reply",
          author: "requester",
          userId: null,
          body: input.body,
          createdAt: now,
        })
        .returning({ id: ticketMessages.id })
    )[0]!;
    for (const source of ["requester", "agent"] as const) {
      const files = (opts.files ?? []).filter((f) => f.source === source).map((f) => f.file);
      await recordFiles(
        tx,
        ctx.deps,
        { companyId: ctx.company.id, ticketId: row.id, messageId: msg.id, source, userId: null },
        files,
      );
    }
    const tags = [...new Set(input.tags ?? [])].sort();
    await setTags(tx, row.id, tags);
    await audit(tx, ctx, "tickets.create", {
      type: "ticket",
      id: number,
      detail: { messageId: msg.id, followUpOf: opts.followUpOf?.number ?? null },
    });
    await emit(
      tx,
      ctx,
      ticketCreated,
      { id: number },
      {
        number,
        subject: row.subject,
        requesterEmail: row.requesterEmail,
        requesterName: row.requesterName,
        status,
        priority: row.priority,
        assigneeUserId: row.assigneeId,
        tags,
        body: input.body,
        firstResponseDueAt: iso(row.firstResponseDueAt),
        resolutionDueAt: iso(row.resolutionDueAt),
        followUpOf: opts.followUpOf?.number ?? null,
      },
    );
    if (assignee)
      await emit(
        tx,
        ctx,
        ticketAssigned,
        { id: number },
        {
          number,
          subject: row.subject,
          requesterEmail: row.requesterEmail,
          requesterName: row.requesterName,
          priority: row.priority,
          status,
          assigneeUserId: assignee.id,
          previousAssigneeUserId: null,
          byUserId: ctx.principal.userId,
        },
      );
    return {
      id: number,
      ref: ref(number),
      status,
      priority: row.priority,
      assigneeId: row.assigneeId,
      firstResponseDueAt: iso(row.firstResponseDueAt),
      resolutionDueAt: iso(row.resolutionDueAt),
      ...(opts.followUpOf && { followUpOfId: opts.followUpOf.number }),
      ...(opts.sourceChatNumber !== undefined && { sourceChatId: opts.sourceChatNumber }),
    };
  });
}

export async function getTicket(ctx: ActorContext, input: v.InferOutput<typeof ticketRef>) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const t = await ticketByNumber(db, ctx, input.id);
  const now = ctx.deps.clock.now();
  const [x, total, recent, merged] = [
    await extrasFor(db, [t]),
    (await db.select({ n: count() }).from(ticketMessages).where(eq(ticketMessages.ticketId, t.id)))[0]!.n,
    await db
      .select()
      .from(ticketMessages)
      .where(eq(ticketMessages.ticketId, t.id))
      .orderBy(desc(ticketMessages.createdAt), desc(ticketMessages.id))
      .limit(MESSAGES_IN_GET),
    await db
      .select({ number: tickets.number })
      .from(tickets)
      .where(eq(tickets.mergedIntoId, t.id))
      .orderBy(asc(tickets.number)),
  ];
  const authors = await usersOf(
    db,
    recent.map((m) => m.userId),
  );
  return {
    ...ticketOut(t, x, now),
    mergedTicketIds: merged.map((m) => m.number),
    messagesTotal: total,
    messages: recent.reverse().map((m) => messageOut(m, authors)),
    ...(total > MESSAGES_IN_GET && {
      olderMessages: `Showing the newest ${MESSAGES_IN_GET}; page older ones with ticket_messages_list.`,
    }),
  };
}

const AWAITING = ["new", "open", "pending"] as const;
const RUNNING = ["new", "open"] as const;

/** The SQL twin of slaView's "breached": never NULL, so NOT() of it is exact. */
function breachedSql(now: Date): SQL {
  return or(
    isNotNull(tickets.firstResponseBreachedAt),
    isNotNull(tickets.resolutionBreachedAt),
    and(
      isNotNull(tickets.firstResponseDueAt),
      lte(tickets.firstResponseDueAt, now),
      isNull(tickets.firstRespondedAt),
      inArray(tickets.status, [...AWAITING]),
    ),
    and(
      isNotNull(tickets.resolutionDueAt),
      lte(tickets.resolutionDueAt, now),
      isNull(tickets.slaPausedAt),
      inArray(tickets.status, [...RUNNING]),
    ),
  )!;
}

/** The nearest due time that still counts: the first reply's while awaited, else the resolution's. */
const nextDue = sql`case when ${tickets.firstRespondedAt} is null and ${tickets.firstResponseDueAt} is not null and ${tickets.status} in ('new', 'open', 'pending')
  then case when ${tickets.resolutionDueAt} is not null and ${tickets.resolutionDueAt} < ${tickets.firstResponseDueAt} then ${tickets.resolutionDueAt} else ${tickets.firstResponseDueAt} end
  else ${tickets.resolutionDueAt} end`;

const priorityRank = sql`case ${tickets.priority} when 'urgent' then 0 when 'high' then 1 when 'normal' then 2 else 3 end`;

export async function listTickets(ctx: ActorContext, input: v.InferOutput<typeof ticketListInput>) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const now = ctx.deps.clock.now();
  const where: (SQL | undefined)[] = [eq(tickets.companyId, ctx.company.id)];
  if (input.status !== undefined)
    where.push(input.status === "unsolved" ? inArray(tickets.status, [...AWAITING]) : eq(tickets.status, input.status));
  if (input.priority !== undefined) where.push(eq(tickets.priority, input.priority));
  if (input.assigneeId === "none") where.push(isNull(tickets.assigneeId));
  else if (input.assigneeId !== undefined) {
    const uid = await userIdOf(db, ctx, input.assigneeId);
    where.push(uid === null ? sql`1 = 0` : eq(tickets.assigneeId, uid));
  }
  if (input.tag !== undefined)
    where.push(sql`exists (select 1 from ticket_tags tt where tt.ticket_id = ${tickets.id} and tt.tag = ${input.tag})`);
  if (input.requester !== undefined) {
    const r = input.requester.toLowerCase();
    // A whole address matches exactly; a fragment (a domain, a name) matches within email or name.
    where.push(
      r.includes("@") && !r.startsWith("@")
        ? eq(tickets.requesterEmail, r)
        : or(containsText(tickets.requesterEmail, r), containsText(tickets.requesterName, r)),
    );
  }
  if (input.breached !== undefined) where.push(input.breached ? breachedSql(now) : not(breachedSql(now)));
  if (input.q !== undefined) {
    const q = input.q;
    const num = /^#?\d{1,15}$/.test(q) ? Number(q.replace("#", "")) : null;
    where.push(
      or(
        num !== null ? eq(tickets.number, num) : undefined,
        containsText(tickets.subject, q),
        containsText(tickets.requesterEmail, q),
        containsText(tickets.requesterName, q),
        // The thread too (notes included: only agents search); results never show a note's text.
        sql`exists (select 1 from ticket_messages tm where tm.ticket_id = ${tickets.id} and ${containsText(sql`tm.body`, q)})`,
      ),
    );
  }
  const cond = and(...where);
  const total = (await db.select({ n: count() }).from(tickets).where(cond))[0]!.n;
  const order =
    input.sort === "created"
      ? [desc(tickets.createdAt), desc(tickets.id)]
      : input.sort === "due"
        ? [asc(sql`(${nextDue}) is null`), asc(nextDue), desc(tickets.id)]
        : input.sort === "priority"
          ? [asc(priorityRank), desc(tickets.updatedAt), desc(tickets.id)]
          : [desc(tickets.updatedAt), desc(tickets.id)];
  const rows = await db
    .select()
    .from(tickets)
    .where(cond)
    .orderBy(...order)
    .limit(input.limit)
    .offset(input.offset);
  const x = await extrasFor(db, rows);
  return page(
    rows.map((r) => ticketOut(r, x, now)),
    total,
    input.limit,
    input.offset,
  );
}

export async function updateTicket(ctx: ActorContext, input: v.InferOutput<typeof ticketUpdateInput>) {
  ticketsWrite(ctx);
  return onTicket(ctx, input.id, async (c) => {
    const t = c.row;
    if (t.status === "closed") throw conflict(`Ticket #${t.number} is closed, and closed tickets are final.`);
    const changes: { subject?: string; priority?: typeof t.priority; tags?: string[] } = {};
    const set: Partial<typeof tickets.$inferInsert> = {};
    if (input.subject !== undefined && input.subject !== t.subject) set.subject = changes.subject = input.subject;
    if (input.priority !== undefined && input.priority !== t.priority) {
      set.priority = changes.priority = input.priority;
      const dues = dueTimes({ ...t, priority: input.priority }, c.policy);
      // The first reply's due time stays as it was once the reply is in (met or late).
      set.firstResponseDueAt = t.firstRespondedAt ? t.firstResponseDueAt : dues.firstResponseDueAt;
      set.resolutionDueAt = dues.resolutionDueAt;
    }
    const current = (await c.tx.select({ tag: ticketTags.tag }).from(ticketTags).where(eq(ticketTags.ticketId, t.id)))
      .map((r) => r.tag)
      .sort();
    let next = current;
    if (input.addTags || input.removeTags) {
      const s = new Set([...current, ...(input.addTags ?? [])]);
      for (const r of input.removeTags ?? []) s.delete(r);
      next = [...s].sort();
    }
    if (next.length > 20) throw invalid(`A ticket holds at most 20 tags; this would make ${next.length}.`);
    if (next.join(",") !== current.join(",")) {
      await setTags(c.tx, t.id, next);
      changes.tags = next;
    }
    if (!Object.keys(changes).length) return { id: t.number, status: t.status, changed: [] as string[] };
    let row = (
      await c.tx
        .update(tickets)
        .set({ ...set, updatedAt: c.now })
        .where(eq(tickets.id, t.id))
        .returning()
    )[0]!;
    // A priority raised past its own due time is breached now.
    row = await recordBreaches(c.tx, ctx, row, c.now);
    await audit(c.tx, ctx, "tickets.update", {
      type: "ticket",
      id: t.number,
      detail: { changed: Object.keys(changes) },
    });
    await emit(
      c.tx,
      ctx,
      ticketUpdated,
      { id: t.number },
      {
        number: t.number,
        subject: row.subject,
        requesterEmail: t.requesterEmail,
        requesterName: t.requesterName,
        changes,
        firstResponseDueAt: iso(row.firstResponseDueAt),
        resolutionDueAt: iso(row.resolutionDueAt),
        assigneeUserId: row.assigneeId,
      },
    );
    return {
      id: t.number,
      status: row.status,
      changed: Object.keys(changes),
      ...(changes.priority && {
        firstResponseDueAt: iso(row.firstResponseDueAt),
        resolutionDueAt: iso(row.resolutionDueAt),
      }),
    };
  });
}

export async function assignTicket(ctx: ActorContext, input: v.InferOutput<typeof ticketAssignInput>) {
  ticketsWrite(ctx);
  return onTicket(ctx, input.id, async (c) => {
    const t = c.row;
    if (t.status === "closed") throw conflict(`Ticket #${t.number} is closed, and closed tickets are final.`);
    const assignee = input.assigneeId === null ? null : await assigneeOf(c.tx, ctx, input.assigneeId);
    const to = assignee?.id ?? null;
    if (to === t.assigneeId) return { id: t.number, status: t.status, assigneeId: to, unchanged: true };
    await c.tx.update(tickets).set({ assigneeId: to, updatedAt: c.now }).where(eq(tickets.id, t.id));
    c.row = { ...t, assigneeId: to, updatedAt: c.now };
    await audit(c.tx, ctx, "tickets.assign", { type: "ticket", id: t.number, detail: { from: t.assigneeId, to } });
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
        status: t.status === "new" && to !== null ? "open" : t.status,
        assigneeUserId: to,
        previousAssigneeUserId: t.assigneeId,
        byUserId: ctx.principal.userId,
      },
    );
    // Someone owns it now: a new ticket is open.
    if (t.status === "new" && to !== null) await moveStatus(c, ctx, "open", "agent");
    return { id: t.number, status: c.row.status, assigneeId: to, previousAssigneeId: t.assigneeId };
  });
}

export async function setTicketStatus(ctx: ActorContext, input: v.InferOutput<typeof ticketStatusInput>) {
  ticketsWrite(ctx);
  return onTicket(ctx, input.id, async (c) => {
    const t = c.row;
    if (t.status === input.status) return { id: t.number, status: t.status, unchanged: true };
    if (t.status === "closed" && t.mergedIntoId !== null) {
      const into = (
        await c.tx.select({ n: tickets.number }).from(tickets).where(eq(tickets.id, t.mergedIntoId)).limit(1)
      )[0]?.n;
      throw conflict(`Ticket #${t.number} was merged into #${into} and is closed; work on #${into}.`);
    }
    checkTransition(t, input.status);
    const row = await moveStatus(c, ctx, input.status, "agent");
    await audit(c.tx, ctx, "tickets.set_status", {
      type: "ticket",
      id: t.number,
      detail: { from: t.status, to: row.status },
    });
    return { id: t.number, status: row.status, previousStatus: t.status };
  });
}

export async function deleteTicket(ctx: ActorContext, input: v.InferOutput<typeof ticketRef>) {
  ticketsWrite(ctx);
  return onTicket(ctx, input.id, async (c) => {
    const t = c.row;
    const merged = await c.tx
      .select({ n: tickets.number })
      .from(tickets)
      .where(eq(tickets.mergedIntoId, t.id))
      .orderBy(asc(tickets.number));
    if (merged.length)
      throw conflict(
        `Ticket #${t.number} holds the threads of merged tickets ${merged.map((m) => `#${m.n}`).join(", ")}; deleting it would leave them pointing nowhere.`,
        {
          mergedTicketIds: merged.map((m) => m.n),
        },
      );
    await c.tx.update(tickets).set({ followUpOfId: null }).where(eq(tickets.followUpOfId, t.id));
    const files = await keysOfTicket(c.tx, t.id);
    await c.tx.delete(tickets).where(eq(tickets.id, t.id));
    await forgetFiles(c.tx, ctx.deps, files);
    await audit(c.tx, ctx, "tickets.delete", {
      type: "ticket",
      id: t.number,
      detail: { subject: t.subject, requesterEmail: t.requesterEmail },
    });
    await emit(
      c.tx,
      ctx,
      ticketDeleted,
      { id: t.number },
      {
        number: t.number,
        subject: t.subject,
        requesterEmail: t.requesterEmail,
        requesterName: t.requesterName,
        status: t.status,
      },
    );
    return { id: t.number, status: "deleted" };
  });
}

/** The queue at a glance: counts per status, and the active tickets that need someone. */
export async function ticketSummary(ctx: ActorContext) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const now = ctx.deps.clock.now();
  const mine = eq(tickets.companyId, ctx.company.id);
  const active = and(mine, inArray(tickets.status, [...AWAITING]));
  const byStatus = await db
    .select({ status: tickets.status, n: count() })
    .from(tickets)
    .where(mine)
    .groupBy(tickets.status);
  const n = async (cond: SQL | undefined) => (await db.select({ n: count() }).from(tickets).where(cond))[0]!.n;
  const soon = new Date(now.getTime() + 60 * 60_000);
  return {
    byStatus: Object.fromEntries(
      ["new", "open", "pending", "solved", "closed"].map((s) => [s, byStatus.find((r) => r.status === s)?.n ?? 0]),
    ),
    active: await n(active),
    unassigned: await n(and(active, isNull(tickets.assigneeId))),
    mine: await n(and(active, eq(tickets.assigneeId, ctx.principal.userId))),
    breached: await n(and(active, breachedSql(now))),
    dueWithinHour: await n(
      and(
        active,
        not(breachedSql(now)),
        sql`(${nextDue}) is not null`,
        lte(nextDue, sql.param(soon, tickets.resolutionDueAt)),
      ),
    ),
    urgent: await n(and(active, eq(tickets.priority, "urgent"))),
  };
}

/** Tags in use on the company's tickets, most used first: reuse them rather than coin near-duplicates. */
export async function listTicketTags(ctx: ActorContext, input: { limit: number; offset: number }) {
  ticketsRead(ctx);
  const db = ctx.deps.db;
  const cond = eq(tickets.companyId, ctx.company.id);
  const total = (
    await db
      .select({ n: sql<number>`count(distinct ${ticketTags.tag})`.mapWith(Number) })
      .from(ticketTags)
      .innerJoin(tickets, eq(tickets.id, ticketTags.ticketId))
      .where(cond)
  )[0]!.n;
  const rows = await db
    .select({
      tag: ticketTags.tag,
      tickets: count(),
      open: sql<number>`coalesce(sum(case when ${tickets.status} <> 'closed' then 1 else 0 end), 0)`.mapWith(Number),
    })
    .from(ticketTags)
    .innerJoin(tickets, eq(tickets.id, ticketTags.ticketId))
    .where(cond)
    .groupBy(ticketTags.tag)
    .orderBy(desc(count()), asc(byText(ticketTags.tag)))
    .limit(input.limit)
    .offset(input.offset);
  return page(rows, total, input.limit, input.offset);
}
