/**
 * Writing and reading brain records. Every kind goes through saveRecord:
 * the tool's fields are mapped onto columns, kind data (validated by
 * kinds.ts) and relationships; then, in one transaction, the row, its
 * revision (who, through which credential), its [[references]], its
 * full-text entry (triggers / generated column), its embedding chunks, the
 * audit row and the event are written — or, when the write must be
 * reviewed, nothing but a review item.
 */
import { and, asc, count, desc, eq, gte, inArray, lt, ne, or, sql } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext } from "../../core/context";
import { conflict, invalid, notFound, isAppError } from "../../core/errors";
import { emit } from "../../core/events";
import { page } from "../../core/pagination";
import { containsText } from "../../core/sql";
import { users } from "../../core/tables";
import {
  KIND_LABEL,
  personFor,
  readAccess,
  recordFor,
  titlesOf,
  writeAccess,
  type Q,
  type RecordRef,
  type RecordRow,
} from "./access";
import { queueChunks } from "./embeddings";
import { peopleMerged, recordCreated, recordDeleted, recordUpdated } from "./events";
import { checkData, DATA_SCHEMAS, DEFAULT_STATUS, searchTextOf, STATUSES, titleKey, uniqueKeyOf } from "./kinds";
import { addEdge, backlinksOf, edgeIds, relationsOf, resolveRefs, rewriteLinks, setEdges, syncRefs } from "./links";
import { linkContact, personContact } from "./others";
import { approvedLinkId, holdIfNeeded } from "./review";
import { brainRecords, brainRefs, brainRelations, brainRevisions, type RecordKind } from "./tables";

type Input = Record<string, unknown>;

/** Data fields each kind takes straight from the tool's arguments. */
const DATA_FIELDS: Record<RecordKind, string[]> = Object.fromEntries(
  Object.entries(DATA_SCHEMAS).map(([k, s]) => [
    k,
    Object.keys((s as unknown as { entries: Record<string, unknown> }).entries).filter(
      (f) => f !== "aliases" && f !== "actionItems" && f !== "crmContactId",
    ),
  ]),
) as Record<RecordKind, string[]>;

/** The tool that writes each kind (for held writes, re-run on approval). */
export const KIND_TOOL: Record<RecordKind, string> = {
  note: "brain_notes",
  document: "brain_documents",
  meeting: "brain_meetings",
  task: "brain_tasks",
  person: "brain_people",
  topic: "brain_topics",
  glossary: "brain_glossary",
  goal: "brain_goals",
  initiative: "brain_initiatives",
  playbook: "brain_playbooks",
  org_unit: "brain_org_units",
};

/** Compact echo of a written record. */
function echo(row: RecordRow, extra: Record<string, unknown> = {}) {
  return { id: row.id, kind: row.kind, title: row.title, version: row.version, ...extra };
}

function write<T>(ctx: ActorContext, fn: (tx: Q) => Promise<T>): Promise<T> {
  writeAccess(ctx);
  return ctx.deps.db.transaction(fn);
}

async function revision(tx: Q, ctx: ActorContext, row: RecordRow, action: string, changed: string[]) {
  await tx.insert(brainRevisions).values({
    companyId: row.companyId,
    recordId: row.id,
    kind: row.kind,
    version: row.version,
    action,
    title: row.title,
    body: row.body,
    data: row.data,
    changed,
    userId: ctx.principal.userId,
    credentialKind: ctx.principal.credential.kind,
    credentialId: ctx.principal.credential.id,
    credentialName: ctx.principal.credential.name || null,
    reviewId: approvedLinkId(ctx),
    createdAt: ctx.deps.clock.now(),
  });
}

/** Topic records by id or name; names not found become new topics (agents tag freely). */
async function topicIds(tx: Q, ctx: ActorContext, refs: readonly RecordRef[]): Promise<number[]> {
  const out: number[] = [];
  for (const ref of refs.slice(0, 50)) {
    let row: RecordRow | null = null;
    try {
      row = await recordFor(tx, ctx, ref, ["topic"]);
    } catch (e) {
      if (!(isAppError(e) && e.code === "not_found" && typeof ref === "string" && !/^#\d/.test(ref.trim()))) throw e;
    }
    if (!row) row = (await insertRecord(tx, ctx, "topic", { title: String(ref).trim().slice(0, 200) })).row;
    if (!out.includes(row.id)) out.push(row.id);
  }
  return out;
}

/** People by id, email or name; with `create`, unknown names or emails become person records (meeting attendees). */
async function peopleIds(tx: Q, ctx: ActorContext, refs: readonly RecordRef[], create: boolean): Promise<number[]> {
  const out: number[] = [];
  for (const ref of refs.slice(0, 200)) {
    let row = await personFor(tx, ctx, ref);
    if (!row) {
      if (!create)
        throw notFound(`No person “${String(ref).slice(0, 120)}” in the brain; create them with brain_people_create.`);
      const s = String(ref).trim();
      const email = /^[^\s@]+@[^\s@]+$/.test(s) ? s.toLowerCase() : undefined;
      row = (
        await insertRecord(tx, ctx, "person", {
          title: email ? email.split("@")[0]! : s.slice(0, 200),
          data: email ? { email } : {},
        })
      ).row;
    }
    if (!out.includes(row.id)) out.push(row.id);
  }
  return out;
}

interface Fields {
  title: string;
  body?: string;
  data?: Record<string, unknown>;
  status?: string | null;
  personId?: number | null;
  dueDate?: string | null;
  at?: Date;
}

/** Inserts a record with its revision, refs, chunks, audit and event (no review: callers decided). */
async function insertRecord(
  tx: Q,
  ctx: ActorContext,
  kind: RecordKind,
  f: Fields,
  extra: { meetingId?: number } = {},
): Promise<{ row: RecordRow; mentionedIds: number[] }> {
  const title = f.title.trim();
  if (!title) throw invalid("title must not be blank.");
  const checked = checkData(kind, f.data ?? {});
  if (!checked.ok) throw invalid(checked.message);
  const data = checked.data;
  const body = f.body ?? "";
  const at = ctx.deps.clock.now();
  const uniqueKey = uniqueKeyOf(kind, title, data);
  if (uniqueKey) {
    const clash = (
      await tx
        .select({ id: brainRecords.id, title: brainRecords.title })
        .from(brainRecords)
        .where(and(eq(brainRecords.companyId, ctx.company.id), eq(brainRecords.uniqueKey, uniqueKey)))
        .limit(1)
    )[0];
    if (clash)
      throw conflict(
        `A ${KIND_LABEL[kind]} ${kind === "person" ? `with email ${data.email}` : `“${title}”`} already exists: #${clash.id} (“${clash.title}”).`,
        { id: clash.id },
      );
  }
  const row = (
    await tx
      .insert(brainRecords)
      .values({
        companyId: ctx.company.id,
        kind,
        title,
        body,
        data,
        searchText: searchTextOf(kind, body, data),
        titleKey: titleKey(title),
        uniqueKey,
        status: f.status ?? DEFAULT_STATUS[kind] ?? null,
        personId: f.personId ?? null,
        dueDate: f.dueDate ?? null,
        at: f.at ?? at,
        version: 1,
        createdByUserId: ctx.principal.userId,
        updatedByUserId: ctx.principal.userId,
        createdAt: at,
        updatedAt: at,
      })
      .returning()
  )[0]!;
  const refs = await syncRefs(tx, ctx.company.id, row.id, body);
  const mentionedIds = (await resolveRefs(tx, ctx.company.id, refs)).filter((x) => x !== row.id);
  await queueChunks(tx, ctx.deps, ctx.company.id, row.id, title, row.searchText);
  await revision(tx, ctx, row, "create", ["title", ...(body ? ["body"] : []), ...Object.keys(data)]);
  await audit(tx, ctx, `brain.${kind}.create`, { type: "brain_record", id: row.id, detail: { kind, title } });
  await emit(
    tx,
    ctx,
    recordCreated,
    { id: row.id },
    { kind, title, version: 1, personId: row.personId, mentionedIds, meetingId: extra.meetingId ?? null },
  );
  return { row, mentionedIds };
}

/** Applies changed columns to a record (version + 1), with revision, refs, chunks, audit, event. */
async function updateRow(
  tx: Q,
  ctx: ActorContext,
  row: RecordRow,
  f: Partial<Fields>,
  action: "update" | "restore" | "merge",
  opts: { restoredFrom?: number; relationsChanged?: string[] } = {},
) {
  const title = f.title !== undefined ? f.title.trim() : row.title;
  if (!title) throw invalid("title must not be blank.");
  const body = f.body ?? row.body;
  let data = f.data ?? row.data;
  const checked = checkData(row.kind, data);
  if (!checked.ok) throw invalid(checked.message);
  data = checked.data;
  const next = {
    title,
    body,
    data,
    status: f.status !== undefined ? f.status : row.status,
    personId: f.personId !== undefined ? f.personId : row.personId,
    dueDate: f.dueDate !== undefined ? f.dueDate : row.dueDate,
    at: f.at ?? row.at,
  };
  const changed: string[] = [...(opts.relationsChanged ?? [])];
  if (next.title !== row.title) changed.push("title");
  if (next.body !== row.body) changed.push("body");
  for (const k of new Set([...Object.keys(row.data), ...Object.keys(next.data)]))
    if (JSON.stringify(row.data[k]) !== JSON.stringify(next.data[k])) changed.push(k);
  if (next.status !== row.status) changed.push("status");
  if (next.personId !== row.personId) changed.push(row.kind === "task" ? "assignee" : "owner");
  if (next.dueDate !== row.dueDate) changed.push(row.kind === "task" ? "due" : "targetDate");
  if (next.at.getTime() !== row.at.getTime()) changed.push("at");
  if (!changed.length && action !== "restore") return { row, changed, relinked: [] as number[] };
  const uniqueKey = uniqueKeyOf(row.kind, title, data);
  if (uniqueKey && uniqueKey !== row.uniqueKey) {
    const clash = (
      await tx
        .select({ id: brainRecords.id, title: brainRecords.title })
        .from(brainRecords)
        .where(and(eq(brainRecords.companyId, row.companyId), eq(brainRecords.uniqueKey, uniqueKey)))
        .limit(1)
    )[0];
    if (clash && clash.id !== row.id)
      throw conflict(
        `Another ${KIND_LABEL[row.kind]} already has that ${row.kind === "person" ? "email" : "name"}: #${clash.id} (“${clash.title}”).`,
        { id: clash.id },
      );
  }
  const at = ctx.deps.clock.now();
  const searchText = searchTextOf(row.kind, body, data);
  const updated = (
    await tx
      .update(brainRecords)
      .set({
        ...next,
        searchText,
        titleKey: titleKey(title),
        uniqueKey,
        version: row.version + 1,
        updatedByUserId: ctx.principal.userId,
        updatedAt: at,
      })
      // The version we read: a concurrent writer that got there first makes this one retry from a fresh read, never overwrite blindly.
      .where(and(eq(brainRecords.id, row.id), eq(brainRecords.version, row.version)))
      .returning()
  )[0];
  if (!updated) throw conflict(`Record #${row.id} was changed by someone else just now; read it again and retry.`);
  let mentionedIds: number[] = [];
  if (next.body !== row.body) {
    const refs = await syncRefs(tx, row.companyId, row.id, body);
    mentionedIds = (await resolveRefs(tx, row.companyId, refs)).filter((x) => x !== row.id);
  }
  if (searchText !== row.searchText || title !== row.title)
    await queueChunks(tx, ctx.deps, row.companyId, row.id, title, searchText);
  await revision(tx, ctx, updated, action, changed);
  const relinked = updated.titleKey !== row.titleKey ? await relinkAfterRename(tx, ctx, row, updated) : [];
  await audit(tx, ctx, `brain.${row.kind}.${action}`, {
    type: "brain_record",
    id: row.id,
    detail: { changed, version: updated.version, ...(opts.restoredFrom ? { restoredFrom: opts.restoredFrom } : {}) },
  });
  await emit(
    tx,
    ctx,
    recordUpdated,
    { id: row.id },
    {
      kind: row.kind,
      title,
      version: updated.version,
      changed,
      personId: updated.personId,
      mentionedIds,
      restoredFrom: opts.restoredFrom ?? null,
    },
  );
  return { row: updated, changed, relinked };
}

/**
 * Renaming keeps links, as Obsidian's "update internal links" and Notion's
 * id-based mentions do: in the rename's transaction, every record whose
 * markdown says `[[Old title]]` is rewritten to the new title (a new
 * version of it, by whoever renamed). Not when another record still has
 * the old title: those links were ambiguous or meant the other one, and
 * keep resolving to it. A linking record changed concurrently is re-read
 * and rewritten again (its update applies only to the version read; on
 * PostgreSQL a serialization failure retries the whole transaction), so
 * neither the rename nor the other edit is lost. Links written after the
 * rename with the old title resolve through formerTitleKeys (links.ts).
 */
async function relinkAfterRename(tx: Q, ctx: ActorContext, before: RecordRow, after: RecordRow): Promise<number[]> {
  const others = (key: string) =>
    tx
      .select({ id: brainRecords.id })
      .from(brainRecords)
      .where(
        and(eq(brainRecords.companyId, after.companyId), eq(brainRecords.titleKey, key), ne(brainRecords.id, after.id)),
      )
      .limit(1);
  if ((await others(before.titleKey)).length) return [];
  const shared = (await others(after.titleKey)).length > 0;
  const linking = await tx
    .selectDistinct({ id: brainRefs.fromId })
    .from(brainRefs)
    .where(
      and(
        eq(brainRefs.companyId, after.companyId),
        eq(brainRefs.target, before.titleKey),
        ne(brainRefs.fromId, after.id),
      ),
    )
    .orderBy(brainRefs.fromId)
    .limit(1000);
  const done: number[] = [];
  for (const { id } of linking) {
    for (let attempt = 0; ; attempt++) {
      const cur = (await tx.select().from(brainRecords).where(eq(brainRecords.id, id)).limit(1))[0];
      if (!cur) break;
      const body = rewriteLinks(cur.body, before.titleKey, { id: after.id, title: after.title }, shared);
      if (body === cur.body) break;
      try {
        await updateRow(tx, ctx, cur, { body }, "update");
        done.push(id);
        break;
      } catch (e) {
        if (!(isAppError(e) && e.code === "conflict") || attempt >= 4) throw e;
      }
    }
  }
  return done;
}

// ---------------------------------------------------------------------------
// The one save verb behind every kind's create and update tool

function dateTime(s: string, field: string): Date {
  const d = new Date(s);
  if (Number.isNaN(d.getTime()) || !/^\d{4}-\d{2}-\d{2}/.test(s))
    throw invalid(`${field} must be an ISO date-time like 2026-03-02T10:00:00Z.`);
  return d;
}

/** Meeting action items: new ones become tasks (assignee, due) linked from_meeting; kept ones keep their task. */
async function actionItems(
  tx: Q,
  ctx: ActorContext,
  meeting: RecordRow | null,
  items: Input[],
  meetingId: () => number,
) {
  const before = ((meeting?.data.actionItems as { text: string; taskId?: number }[] | undefined) ?? []).filter(
    (x) => x.taskId,
  );
  const out: { text: string; taskId?: number }[] = [];
  const created: Array<{ text: string; assignee?: RecordRef; due?: string }> = [];
  for (const it of items) {
    const text = String(it.text).trim();
    const kept = before.find((b) => b.text === text);
    if (kept) out.push({ text, taskId: kept.taskId });
    else {
      out.push({ text });
      created.push(it as { text: string; assignee?: RecordRef; due?: string });
    }
  }
  return {
    data: out,
    /** Runs after the meeting row exists. */
    async createTasks(): Promise<{ id: number; title: string }[]> {
      const made: { id: number; title: string }[] = [];
      const id = meetingId();
      for (const c of created) {
        const assignee = c.assignee !== undefined ? (await peopleIds(tx, ctx, [c.assignee], true))[0]! : null;
        const { row } = await insertRecord(
          tx,
          ctx,
          "task",
          { title: c.text.slice(0, 300), body: `From meeting [[#${id}]].`, personId: assignee, dueDate: c.due ?? null },
          { meetingId: id },
        );
        await addEdge(tx, ctx.company.id, row.id, id, "from_meeting", ctx.principal.userId, ctx.deps.clock.now());
        const slot = out.find((o) => o.text === c.text && o.taskId === undefined);
        if (slot) slot.taskId = row.id;
        made.push({ id: row.id, title: row.title });
      }
      return made;
    },
  };
}

/**
 * Creates (no `id`) or updates a record of `kind` from a tool's arguments;
 * `tool` is the calling tool's name, kept on a held write to re-run it.
 */
export async function saveRecord(ctx: ActorContext, kind: RecordKind, tool: string, input: Input): Promise<unknown> {
  return write(ctx, async (tx) => {
    const existing = input.id !== undefined ? await recordFor(tx, ctx, input.id as RecordRef, [kind]) : null;
    const f: Partial<Fields> = {};
    if (input.title !== undefined) f.title = String(input.title);
    if (input.body !== undefined) f.body = input.body === null ? "" : String(input.body);
    // Data: arguments override, null clears.
    const data: Record<string, unknown> = { ...(existing?.data ?? {}) };
    let dataTouched = false;
    for (const k of DATA_FIELDS[kind]) {
      if (input[k] === undefined) continue;
      dataTouched = true;
      if (input[k] === null) delete data[k];
      else data[k] = input[k];
    }
    if (input.status !== undefined) {
      const allowed = STATUSES[kind];
      if (!allowed) throw invalid(`A ${KIND_LABEL[kind]} has no status.`);
      if (input.status !== null && !allowed.includes(String(input.status)))
        throw invalid(`status must be one of ${allowed.join(", ")}.`);
      f.status = (input.status as string | null) ?? DEFAULT_STATUS[kind] ?? null;
    }
    const personArg = kind === "task" ? "assignee" : "owner";
    let ownerChange = false;
    if ((kind === "task" || kind === "goal" || kind === "initiative") && input[personArg] !== undefined) {
      f.personId =
        input[personArg] === null ? null : (await peopleIds(tx, ctx, [input[personArg] as RecordRef], false))[0]!;
      ownerChange = kind !== "task" && !!existing && existing.personId !== null && f.personId !== existing.personId;
    }
    const dateArg = kind === "task" ? "due" : "targetDate";
    if ((kind === "task" || kind === "goal" || kind === "initiative") && input[dateArg] !== undefined)
      f.dueDate = input[dateArg] as string | null;
    if (kind === "meeting" && input.at !== undefined) f.at = dateTime(String(input.at), "at");
    if (kind === "meeting" && !existing && f.at === undefined)
      throw invalid("at (when the meeting took place) is required.");
    // Relationship fields, resolved now (so a wrong name fails before anything is held or written).
    const topics = input.topics !== undefined ? await topicIds(tx, ctx, input.topics as RecordRef[]) : undefined;
    const attendees =
      kind === "meeting" && input.attendees !== undefined
        ? await peopleIds(tx, ctx, input.attendees as RecordRef[], true)
        : undefined;
    const members =
      kind === "org_unit" && input.members !== undefined
        ? await peopleIds(tx, ctx, input.members as RecordRef[], false)
        : undefined;
    const orgUnits =
      kind === "person" && input.orgUnits !== undefined
        ? await Promise.all(
            (input.orgUnits as RecordRef[]).map(async (r) => (await recordFor(tx, ctx, r, ["org_unit"])).id),
          )
        : undefined;
    const goals =
      kind === "initiative" && input.goals !== undefined
        ? await Promise.all((input.goals as RecordRef[]).map(async (r) => (await recordFor(tx, ctx, r, ["goal"])).id))
        : undefined;
    if (kind === "person" && input.crmContact !== undefined) {
      if (input.crmContact === null) delete data.crmContactId;
      else data.crmContactId = await linkContact(tx, ctx, input.crmContact as number | string);
      dataTouched = true;
    }
    let parent: number | null | undefined;
    if (kind === "org_unit" && input.parent !== undefined) {
      parent = input.parent === null ? null : (await recordFor(tx, ctx, input.parent as RecordRef, ["org_unit"])).id;
      if (parent !== null && existing) {
        // The org tree stays a tree: a unit cannot sit under itself or under one of its own sub-units.
        let cur: number | null = parent;
        for (let depth = 0; cur !== null && depth < 100; depth++) {
          if (cur === existing.id) throw invalid("parent would put the unit under itself; org units form a tree.");
          cur = (await edgeIds(tx, cur, "part_of", false))[0] ?? null;
        }
      }
    }
    let items: Awaited<ReturnType<typeof actionItems>> | null = null;
    let meetingId = existing?.id ?? 0;
    if (kind === "meeting" && input.actionItems !== undefined) {
      items = await actionItems(tx, ctx, existing, (input.actionItems as Input[] | null) ?? [], () => meetingId);
      data.actionItems = items.data;
      dataTouched = true;
    }
    if (dataTouched) f.data = data;
    if (existing === null && f.title === undefined) throw invalid("title is required.");
    // Validate data before holding: a held write that could never apply is refused now.
    const checked = checkData(kind, f.data ?? existing?.data ?? {});
    if (!checked.ok) throw invalid(checked.message);

    const held = await holdIfNeeded(tx, ctx, {
      tool,
      input,
      record: existing,
      title: existing ? `Update ${KIND_LABEL[kind]}: ${existing.title}` : `New ${KIND_LABEL[kind]}: ${f.title}`,
      always: ownerChange ? `Changing a ${KIND_LABEL[kind]}'s owner is always reviewed.` : undefined,
    });
    if (held) return held;

    const at = ctx.deps.clock.now();
    const uid = ctx.principal.userId;
    let row: RecordRow;
    let changed: string[] = [];
    const relChanged: string[] = [];
    if (!existing) {
      row = (await insertRecord(tx, ctx, kind, { ...f, title: f.title! })).row;
      meetingId = row.id;
    } else row = existing;
    const rel = async (
      name: string,
      ids: number[] | undefined,
      type: Parameters<typeof setEdges>[3],
      incoming: boolean,
    ) => {
      if (ids === undefined) return;
      const before = await edgeIds(tx, row.id, type, incoming);
      if (JSON.stringify([...before].sort()) === JSON.stringify([...ids].sort())) return;
      await setEdges(tx, ctx.company.id, row.id, type, ids, { incoming, userId: uid, at });
      relChanged.push(name);
    };
    await rel("topics", topics, "about", false);
    await rel("attendees", attendees, "attended", true);
    await rel("members", members, "works_in", true);
    await rel("orgUnits", orgUnits, "works_in", false);
    await rel("goals", goals, "serves", false);
    if (parent !== undefined) await rel("parent", parent === null ? [] : [parent], "part_of", false);
    let tasks: { id: number; title: string }[] = [];
    let relinked: number[] = [];
    if (items) {
      tasks = await items.createTasks();
      if (tasks.length) f.data = { ...(f.data ?? row.data), actionItems: items.data };
    }
    if (existing || tasks.length) {
      const r = await updateRow(tx, ctx, row, f, "update", { relationsChanged: existing ? relChanged : [] });
      row = r.row;
      changed = r.changed;
      relinked = r.relinked;
    }
    return echo(row, {
      ...(existing ? { changed } : {}),
      ...(tasks.length ? { tasksCreated: tasks } : {}),
      ...(relinked.length ? { linksUpdatedIn: relinked } : {}),
    });
  });
}

// ---------------------------------------------------------------------------
// Reads

function view(row: RecordRow) {
  const out: Record<string, unknown> = {
    id: row.id,
    kind: row.kind,
    title: row.title,
    body: row.body,
    ...row.data,
  };
  if (row.status !== null) out.status = row.status;
  if (row.kind === "task") out.due = row.dueDate;
  if (row.kind === "goal" || row.kind === "initiative") out.targetDate = row.dueDate;
  if (row.kind === "meeting") out.at = iso(row.at);
  out.version = row.version;
  out.createdAt = iso(row.createdAt);
  out.updatedAt = iso(row.updatedAt);
  return out;
}

export async function getRecord(ctx: ActorContext, input: { id: RecordRef; kind?: RecordKind }) {
  readAccess(ctx);
  const q = ctx.deps.db;
  const row = await recordFor(q, ctx, input.id, input.kind ? [input.kind] : undefined);
  const out = view(row);
  if (row.personId !== null) {
    const p = (await titlesOf(q, row.companyId, [row.personId])).get(row.personId);
    out[row.kind === "task" ? "assignee" : "owner"] = p ? { id: row.personId, title: p.title } : null;
  }
  const relations = await relationsOf(q, row);
  const authors = await q
    .select({ id: users.id, name: users.name, email: users.email })
    .from(users)
    .where(inArray(users.id, [row.createdByUserId ?? 0, row.updatedByUserId ?? 0]));
  const who = (id: number | null) => {
    const u = authors.find((a) => a.id === id);
    return u ? { userId: u.id, name: u.name ?? u.email } : null;
  };
  return {
    ...out,
    createdBy: who(row.createdByUserId),
    updatedBy: who(row.updatedByUserId),
    relations,
    backlinks: await backlinksOf(q, row),
    ...(row.kind === "person" ? { crmContact: await personContact(ctx, row) } : {}),
  };
}

export async function listRecords(
  ctx: ActorContext,
  input: {
    kind?: RecordKind;
    status?: string;
    person?: RecordRef;
    topic?: RecordRef;
    titleContains?: string;
    dueBefore?: string;
    updatedSince?: string;
    sort?: "updated" | "title" | "due";
    limit: number;
    offset: number;
  },
) {
  readAccess(ctx);
  const q = ctx.deps.db;
  const conds = [eq(brainRecords.companyId, ctx.company.id)];
  if (input.kind) conds.push(eq(brainRecords.kind, input.kind));
  if (input.status) conds.push(eq(brainRecords.status, input.status));
  if (input.person !== undefined) {
    const p = await personFor(q, ctx, input.person);
    if (!p) throw notFound(`No person “${String(input.person).slice(0, 120)}”.`);
    conds.push(eq(brainRecords.personId, p.id));
  }
  if (input.topic !== undefined) {
    const t = await recordFor(q, ctx, input.topic, ["topic"]);
    conds.push(
      inArray(
        brainRecords.id,
        q
          .select({ id: brainRelations.fromId })
          .from(brainRelations)
          .where(and(eq(brainRelations.toId, t.id), eq(brainRelations.type, "about"))),
      ),
    );
  }
  if (input.titleContains) conds.push(containsText(brainRecords.title, input.titleContains));
  if (input.dueBefore) conds.push(lt(brainRecords.dueDate, input.dueBefore));
  if (input.updatedSince) conds.push(gte(brainRecords.updatedAt, dateTime(input.updatedSince, "updatedSince")));
  const where = and(...conds);
  const total = (await q.select({ n: count() }).from(brainRecords).where(where))[0]?.n ?? 0;
  const order =
    input.sort === "title"
      ? [asc(brainRecords.titleKey), asc(brainRecords.id)]
      : input.sort === "due"
        ? [sql`${brainRecords.dueDate} is null`, asc(brainRecords.dueDate), asc(brainRecords.id)]
        : [desc(brainRecords.updatedAt), desc(brainRecords.id)];
  const rows = await q
    .select({
      id: brainRecords.id,
      kind: brainRecords.kind,
      title: brainRecords.title,
      status: brainRecords.status,
      personId: brainRecords.personId,
      dueDate: brainRecords.dueDate,
      at: brainRecords.at,
      updatedAt: brainRecords.updatedAt,
      version: brainRecords.version,
    })
    .from(brainRecords)
    .where(where)
    .orderBy(...order)
    .limit(input.limit)
    .offset(input.offset);
  const names = await titlesOf(
    q,
    ctx.company.id,
    rows.map((r) => r.personId).filter((x): x is number => x !== null),
  );
  return page(
    rows.map((r) => ({
      id: r.id,
      kind: r.kind,
      title: r.title,
      ...(r.status !== null ? { status: r.status } : {}),
      ...(r.personId !== null ? { person: { id: r.personId, title: names.get(r.personId)?.title ?? null } } : {}),
      ...(r.dueDate !== null ? { due: r.dueDate } : {}),
      ...(r.kind === "meeting" ? { at: iso(r.at) } : {}),
      updatedAt: iso(r.updatedAt),
    })),
    Number(total),
    input.limit,
    input.offset,
  );
}

// ---------------------------------------------------------------------------
// Delete, history, restore, merge

export async function deleteRecord(ctx: ActorContext, input: { id: RecordRef }) {
  return write(ctx, async (tx) => {
    const row = await recordFor(tx, ctx, input.id);
    const held = await holdIfNeeded(tx, ctx, {
      tool: "brain_records_delete",
      input: { id: row.id },
      record: row,
      title: `Delete ${KIND_LABEL[row.kind]}: ${row.title}`,
      always: row.kind === "document" ? "Deleting a document is always reviewed." : undefined,
    });
    if (held) return held;
    if (row.kind === "person") {
      // Tasks and goals of a deleted person are left unassigned, each as a new version (not silently pointing nowhere).
      const held = await tx
        .select()
        .from(brainRecords)
        .where(and(eq(brainRecords.companyId, ctx.company.id), eq(brainRecords.personId, row.id)));
      for (const r of held) await updateRow(tx, ctx, r, { personId: null }, "update");
    }
    await revision(tx, ctx, { ...row, version: row.version + 1 }, "delete", []);
    // Markdown references from other records stay as text; edges go with the row.
    await tx.delete(brainRecords).where(eq(brainRecords.id, row.id));
    await audit(tx, ctx, `brain.${row.kind}.delete`, {
      type: "brain_record",
      id: row.id,
      detail: { kind: row.kind, title: row.title },
    });
    await emit(tx, ctx, recordDeleted, { id: row.id }, { kind: row.kind, title: row.title, version: row.version + 1 });
    return { id: row.id, status: "deleted" };
  });
}

export async function recordHistory(
  ctx: ActorContext,
  input: { id: number; version?: number; limit: number; offset: number },
) {
  readAccess(ctx);
  const q = ctx.deps.db;
  const where = and(eq(brainRevisions.companyId, ctx.company.id), eq(brainRevisions.recordId, input.id));
  if (input.version !== undefined) {
    const r = (
      await q
        .select()
        .from(brainRevisions)
        .where(and(where, eq(brainRevisions.version, input.version)))
        .limit(1)
    )[0];
    if (!r) throw notFound(`Record ${input.id} has no version ${input.version}.`);
    return {
      recordId: r.recordId,
      kind: r.kind,
      version: r.version,
      action: r.action,
      title: r.title,
      body: r.body,
      ...r.data,
      changed: r.changed,
      at: iso(r.createdAt),
    };
  }
  const total = (await q.select({ n: count() }).from(brainRevisions).where(where))[0]?.n ?? 0;
  if (!total) throw notFound(`Record ${input.id} not found.`);
  const rows = await q
    .select({ r: brainRevisions, name: users.name, email: users.email })
    .from(brainRevisions)
    .leftJoin(users, eq(users.id, brainRevisions.userId))
    .where(where)
    .orderBy(desc(brainRevisions.version), desc(brainRevisions.id))
    .limit(input.limit)
    .offset(input.offset);
  return page(
    rows.map(({ r, name, email }) => ({
      version: r.version,
      action: r.action,
      title: r.title,
      changed: r.changed,
      by: { userId: r.userId, name: name ?? email ?? null },
      credential: { kind: r.credentialKind, id: r.credentialId, name: r.credentialName },
      ...(r.reviewId !== null ? { reviewId: r.reviewId } : {}),
      at: iso(r.createdAt),
    })),
    Number(total),
    input.limit,
    input.offset,
  );
}

export async function restoreRecord(ctx: ActorContext, input: { id: number; version: number }) {
  return write(ctx, async (tx) => {
    const row = await recordFor(tx, ctx, input.id);
    const rev = (
      await tx
        .select()
        .from(brainRevisions)
        .where(and(eq(brainRevisions.recordId, row.id), eq(brainRevisions.version, input.version)))
        .limit(1)
    )[0];
    if (!rev || rev.action === "delete") throw notFound(`Record ${row.id} has no version ${input.version} to restore.`);
    if (rev.version === row.version) return echo(row, { changed: [], note: "That is the current version." });
    const held = await holdIfNeeded(tx, ctx, {
      tool: "brain_records_restore",
      input: { id: row.id, version: input.version },
      record: row,
      title: `Restore ${KIND_LABEL[row.kind]} v${input.version}: ${row.title}`,
    });
    if (held) return held;
    const { row: after, changed } = await updateRow(
      tx,
      ctx,
      row,
      { title: rev.title, body: rev.body, data: rev.data },
      "restore",
      { restoredFrom: rev.version },
    );
    return echo(after, { changed, restoredFrom: rev.version });
  });
}

export async function mergePeople(ctx: ActorContext, input: { id: RecordRef; mergeIds: number[] }) {
  return write(ctx, async (tx) => {
    const keep = await recordFor(tx, ctx, input.id, ["person"]);
    const others: RecordRow[] = [];
    for (const id of [...new Set(input.mergeIds)]) {
      if (id === keep.id) throw invalid("mergeIds must not include the person kept (id).");
      others.push(await recordFor(tx, ctx, id, ["person"]));
    }
    const held = await holdIfNeeded(tx, ctx, {
      tool: "brain_people_merge",
      input: { id: keep.id, mergeIds: others.map((o) => o.id) },
      record: keep,
      title: `Merge ${others.map((o) => o.title).join(", ")} into ${keep.title}`,
      always: "Merging people is always reviewed.",
    });
    if (held) return held;
    const ids = others.map((o) => o.id);
    // Edges move to the kept person (duplicates collapse), assignments and ownerships follow, emails become aliases.
    const edges = await tx
      .select()
      .from(brainRelations)
      .where(or(inArray(brainRelations.fromId, ids), inArray(brainRelations.toId, ids)));
    for (const e of edges) {
      const from = ids.includes(e.fromId) ? keep.id : e.fromId;
      const to = ids.includes(e.toId) ? keep.id : e.toId;
      if (from !== to)
        await addEdge(
          tx,
          ctx.company.id,
          from,
          to,
          e.type as Parameters<typeof addEdge>[4],
          e.createdByUserId,
          e.createdAt,
        );
    }
    const assigned = await tx
      .select()
      .from(brainRecords)
      .where(and(eq(brainRecords.companyId, ctx.company.id), inArray(brainRecords.personId, ids)));
    for (const r of assigned) await updateRow(tx, ctx, r, { personId: keep.id }, "update");
    // Links written as [[Old name]] or @old@email keep resolving: the old names go on the kept person as aliases.
    await tx
      .update(brainRefs)
      .set({ target: `#${keep.id}` })
      .where(
        and(
          eq(brainRefs.companyId, ctx.company.id),
          inArray(
            brainRefs.target,
            others.map((o) => `#${o.id}`),
          ),
        ),
      );
    const aliases = new Set<string>((keep.data.aliases as string[] | undefined) ?? []);
    for (const o of others) {
      if (typeof o.data.email === "string") aliases.add(o.data.email);
      for (const a of (o.data.aliases as string[] | undefined) ?? []) aliases.add(a);
    }
    const data = {
      ...Object.fromEntries(others.flatMap((o) => Object.entries(o.data))),
      ...keep.data,
      ...(aliases.size ? { aliases: [...aliases].sort() } : {}),
    };
    for (const o of others) {
      await revision(tx, ctx, { ...o, version: o.version + 1 }, "delete", []);
      await tx.delete(brainRecords).where(eq(brainRecords.id, o.id));
      await emit(tx, ctx, recordDeleted, { id: o.id }, { kind: o.kind, title: o.title, version: o.version + 1 });
    }
    const body = [keep.body, ...others.map((o) => o.body)].filter((b) => b.trim()).join("\n\n");
    const { row } = await updateRow(tx, ctx, keep, { data, body }, "merge");
    await audit(tx, ctx, "brain.person.merge", { type: "brain_record", id: keep.id, detail: { mergedIds: ids } });
    await emit(
      tx,
      ctx,
      peopleMerged,
      { id: keep.id },
      { title: keep.title, mergedIds: ids, mergedTitles: others.map((o) => o.title) },
    );
    return echo(row, { merged: others.map((o) => ({ id: o.id, title: o.title })) });
  });
}

/** The org chart: units nested by part_of, with their members (works_in). */
export async function orgTree(ctx: ActorContext, input: { root?: RecordRef }) {
  readAccess(ctx);
  const q = ctx.deps.db;
  const units = await q
    .select({ id: brainRecords.id, title: brainRecords.title })
    .from(brainRecords)
    .where(and(eq(brainRecords.companyId, ctx.company.id), eq(brainRecords.kind, "org_unit")))
    .orderBy(asc(brainRecords.titleKey))
    .limit(2000);
  const ids = units.map((u) => u.id);
  const edges = ids.length
    ? await q
        .select({ from: brainRelations.fromId, to: brainRelations.toId, type: brainRelations.type })
        .from(brainRelations)
        .where(and(inArray(brainRelations.toId, ids), inArray(brainRelations.type, ["part_of", "works_in"])))
    : [];
  const people = await titlesOf(
    q,
    ctx.company.id,
    edges.filter((e) => e.type === "works_in").map((e) => e.from),
  );
  const parentOf = new Map(edges.filter((e) => e.type === "part_of").map((e) => [e.from, e.to]));
  type Node = { id: number; title: string; members: { id: number; title: string }[]; children: Node[] };
  const nodes = new Map<number, Node>(
    units.map((u) => [u.id, { id: u.id, title: u.title, members: [], children: [] }]),
  );
  for (const e of edges)
    if (e.type === "works_in") nodes.get(e.to)?.members.push({ id: e.from, title: people.get(e.from)?.title ?? "" });
  const roots: Node[] = [];
  for (const n of nodes.values()) {
    const p = parentOf.get(n.id);
    if (p !== undefined && nodes.has(p)) nodes.get(p)!.children.push(n);
    else roots.push(n);
  }
  if (input.root !== undefined) {
    const r = await recordFor(q, ctx, input.root, ["org_unit"]);
    return { units: [nodes.get(r.id)!] };
  }
  return { units: roots };
}

/** Terms by exact name or synonym, case-insensitive: what a writer checks before using a word. */
export async function lookupGlossary(ctx: ActorContext, input: { term: string }) {
  readAccess(ctx);
  const key = titleKey(input.term);
  const rows = await ctx.deps.db
    .select()
    .from(brainRecords)
    .where(and(eq(brainRecords.companyId, ctx.company.id), eq(brainRecords.kind, "glossary")))
    .limit(5000);
  const hits = rows.filter(
    (r) => r.titleKey === key || ((r.data.synonyms as string[] | undefined) ?? []).some((s) => titleKey(s) === key),
  );
  return {
    term: input.term,
    matches: hits.map((r) => ({
      id: r.id,
      term: r.title,
      definition: r.body,
      synonyms: (r.data.synonyms as string[] | undefined) ?? [],
    })),
  };
}
