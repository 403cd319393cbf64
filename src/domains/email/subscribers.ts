/**
 * Subscribers and their status on each list.
 *
 * Adding an address to a single opt-in list subscribes it; to a double
 * opt-in list it is `unconfirmed` and a confirmation message is queued with
 * a link to /e/confirm/<token> (a page with a button: link scanners that
 * fetch every URL confirm nothing). Consent is never overridden by a
 * re-add: an address that unsubscribed, bounced or complained keeps that
 * status (`kept` in the answer); only email_subscribers_update sets a list
 * status by hand.
 */
import { and, asc, count, desc, eq, inArray, isNotNull, or } from "drizzle-orm";
import { audit } from "../../core/audit";
import { iso } from "../../core/clock";
import type { ActorContext, Deps } from "../../core/context";
import { emit } from "../../core/events";
import { conflict, invalid } from "../../core/errors";
import { page } from "../../core/pagination";
import { escapeHtml } from "../../core/public-page";
import { authorize } from "../../core/scopes";
import { randomHex, sha256Hex } from "../../core/secrets";
import { containsText } from "../../core/sql";
import {
  listIn,
  listsIn,
  normalEmail,
  publicBase,
  smtpReady,
  subscriberRef,
  type ListRow,
  type MemberStatus,
  type SubscriberRow,
} from "./access";
import { queueSend } from "./delivery";
import { foldSubscriber } from "./segment-rules";
import { membershipChanged, subscriberAdded, subscriberDeleted, subscriberUpdated } from "./events";
import { emailCampaigns, emailLists, emailMemberships, emailSends, emailSubscribers, type Attributes } from "./tables";
import type { Tx } from "../../core/db";

export const ATTRIBUTE_LIMITS = { keys: 50, value: 1000 } as const;

export function checkAttributes(a: Record<string, unknown>, path = "attributes"): Attributes {
  const keys = Object.keys(a);
  if (keys.length > ATTRIBUTE_LIMITS.keys) throw invalid(`At most ${ATTRIBUTE_LIMITS.keys} attributes.`, { path });
  const out: Attributes = {};
  for (const k of keys) {
    if (!/^[a-zA-Z_][\w-]{0,49}$/.test(k))
      throw invalid(`Attribute names are letters, digits, _ and - (at most 50): "${k.slice(0, 60)}".`, { path });
    const val = a[k];
    if (typeof val === "string" && val.length > ATTRIBUTE_LIMITS.value)
      throw invalid(`Attribute ${k} is over ${ATTRIBUTE_LIMITS.value} characters.`, { path });
    if (typeof val === "number" && !Number.isFinite(val))
      throw invalid(`Attribute ${k} must be a finite number.`, { path });
    if (val !== null && !["string", "number", "boolean"].includes(typeof val))
      throw invalid(`Attribute ${k} must be text, a number, true/false or null.`, { path });
    out[k] = val as Attributes[string];
  }
  return out;
}

function memberView(
  rows: { listId: number; listName: string; status: string; confirmedAt: Date | null; unsubscribedAt: Date | null }[],
) {
  return rows.map((m) => ({
    listId: m.listId,
    listName: m.listName,
    status: m.status,
    ...(m.confirmedAt ? { confirmedAt: iso(m.confirmedAt) } : {}),
    ...(m.unsubscribedAt ? { unsubscribedAt: iso(m.unsubscribedAt) } : {}),
  }));
}

async function membershipsOf(db: Tx, subscriberIds: number[]) {
  if (subscriberIds.length === 0) return [];
  return db
    .select({
      subscriberId: emailMemberships.subscriberId,
      listId: emailMemberships.listId,
      listName: emailLists.name,
      status: emailMemberships.status,
      confirmedAt: emailMemberships.confirmedAt,
      unsubscribedAt: emailMemberships.unsubscribedAt,
    })
    .from(emailMemberships)
    .innerJoin(emailLists, eq(emailLists.id, emailMemberships.listId))
    .where(inArray(emailMemberships.subscriberId, subscriberIds))
    .orderBy(asc(emailMemberships.listId));
}

function shape(s: SubscriberRow, lists: Awaited<ReturnType<typeof membershipsOf>>) {
  return {
    id: s.id,
    email: s.email,
    name: s.name,
    attributes: s.attributes,
    blocklisted: s.blocklisted,
    lists: memberView(lists.filter((m) => m.subscriberId === s.id)),
    createdAt: iso(s.createdAt),
  };
}

/** Queues the double opt-in message for one membership; returns the token's hash to store. */
export async function queueConfirmation(
  tx: Tx,
  deps: Deps,
  company: { id: number; name: string },
  s: { id: number; email: string; name: string | null },
  list: ListRow,
): Promise<string> {
  const token = randomHex(24);
  const url = `${publicBase(deps)}/confirm/${token}`;
  const hello = s.name ? `Hello ${s.name},` : "Hello,";
  const subject = `Confirm your subscription to ${list.name}`;
  await queueSend(tx, deps, {
    companyId: company.id,
    kind: "confirmation",
    email: s.email,
    subscriberId: s.id,
    listId: list.id,
    subject,
    text: `${hello}\n\nPlease confirm that you want to receive "${list.name}" from ${company.name}:\n${url}\n\nIf you did not ask for this, ignore this message: you will not be added.`,
    html: `<!doctype html><html><body><p>${escapeHtml(hello)}</p><p>Please confirm that you want to receive “${escapeHtml(list.name)}” from ${escapeHtml(company.name)}.</p><p><a href="${escapeHtml(url)}">Confirm my subscription</a></p><p style="color:#6b7280;font-size:12px">If you did not ask for this, ignore this message: you will not be added.</p></body></html>`,
    tag: "email.confirmation",
  });
  return sha256Hex(token);
}

export interface AddRow {
  email: string;
  name?: string | null;
  attributes?: Record<string, unknown>;
}

/** Adds (or finds) one address and puts it on lists; shared by add and import. */
async function addOne(
  tx: Tx,
  ctx: ActorContext,
  row: AddRow,
  lists: ListRow[],
  opts: { preconfirmed: boolean; source: "tool" | "import" },
) {
  const now = ctx.deps.clock.now();
  const email = normalEmail(row.email);
  const attributes = row.attributes ? checkAttributes(row.attributes) : undefined;
  const name = row.name?.trim() ? row.name.trim().slice(0, 200) : null;
  let s = (
    await tx
      .select()
      .from(emailSubscribers)
      .where(and(eq(emailSubscribers.companyId, ctx.company.id), eq(emailSubscribers.email, email)))
      .limit(1)
  )[0];
  let created = false;
  if (!s) {
    s = (
      await tx
        .insert(emailSubscribers)
        .values({
          companyId: ctx.company.id,
          email,
          name,
          attributes: attributes ?? {},
          fold: foldSubscriber({ email, name, attributes: attributes ?? {} }),
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing()
        .returning()
    )[0];
    created = s !== undefined;
    s ??= (
      await tx
        .select()
        .from(emailSubscribers)
        .where(and(eq(emailSubscribers.companyId, ctx.company.id), eq(emailSubscribers.email, email)))
        .limit(1)
    )[0]!;
  } else if ((name && name !== s.name) || attributes) {
    s = (
      await tx
        .update(emailSubscribers)
        .set({
          name: name ?? s.name,
          attributes: { ...s.attributes, ...(attributes ?? {}) },
          fold: foldSubscriber({
            email: s.email,
            name: name ?? s.name,
            attributes: { ...s.attributes, ...(attributes ?? {}) },
          }),
          updatedAt: now,
        })
        .where(eq(emailSubscribers.id, s.id))
        .returning()
    )[0]!;
  }
  const result: { listId: number; listName: string; status: MemberStatus }[] = [];
  const kept: { listId: number; status: string }[] = [];
  let confirmations = 0;
  for (const l of lists) {
    const m = (
      await tx
        .select()
        .from(emailMemberships)
        .where(and(eq(emailMemberships.listId, l.id), eq(emailMemberships.subscriberId, s.id)))
        .limit(1)
    )[0];
    if (m && m.status !== "unconfirmed") {
      if (m.status !== "subscribed") kept.push({ listId: l.id, status: m.status });
      result.push({ listId: l.id, listName: l.name, status: m.status as MemberStatus });
      continue;
    }
    const direct = l.optIn === "single" || opts.preconfirmed;
    const status: MemberStatus = direct ? "subscribed" : "unconfirmed";
    const tokenHash = direct || s.blocklisted ? null : await queueConfirmation(tx, ctx.deps, ctx.company, s, l);
    if (tokenHash) confirmations++;
    if (m) {
      await tx
        .update(emailMemberships)
        .set({
          status,
          confirmTokenHash: tokenHash ?? m.confirmTokenHash,
          confirmedAt: direct ? now : null,
          updatedAt: now,
        })
        .where(eq(emailMemberships.id, m.id));
    } else {
      await tx
        .insert(emailMemberships)
        .values({
          companyId: ctx.company.id,
          listId: l.id,
          subscriberId: s.id,
          status,
          confirmTokenHash: tokenHash,
          confirmedAt: direct ? now : null,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing();
    }
    result.push({ listId: l.id, listName: l.name, status });
  }
  await emit(
    tx,
    ctx,
    subscriberAdded,
    { id: s.id },
    { email: s.email, name: s.name, created, lists: result, source: opts.source },
  );
  return { subscriber: s, created, lists: result, kept, confirmations };
}

export async function addSubscriber(ctx: ActorContext, i: AddRow & { listIds?: number[]; preconfirmed?: boolean }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const lists = await listsIn(tx, ctx, i.listIds ?? []);
    const r = await addOne(tx, ctx, i, lists, { preconfirmed: i.preconfirmed ?? false, source: "tool" });
    await audit(tx, ctx, "email.subscribers.add", {
      type: "email_subscriber",
      id: r.subscriber.id,
      detail: { email: r.subscriber.email, created: r.created, listIds: lists.map((l) => l.id) },
    });
    const warnings: string[] = [];
    if (r.kept.length)
      warnings.push(
        `Kept the status on list ${r.kept.map((k) => `${k.listId} (${k.status})`).join(", ")}: a re-add never overrides an unsubscribe, bounce or complaint; email_subscribers_update can, with the person's consent.`,
      );
    if (r.confirmations && !smtpReady(ctx.deps))
      warnings.push("No SMTP server is configured: the confirmation waits in the queue until PLINTH_SMTP_URL is set.");
    if (r.subscriber.blocklisted) warnings.push("This address is blocklisted: it gets no mail.");
    return {
      id: r.subscriber.id,
      email: r.subscriber.email,
      created: r.created,
      lists: r.lists,
      ...(r.confirmations ? { confirmationsQueued: r.confirmations } : {}),
      ...(warnings.length ? { warnings } : {}),
    };
  });
}

export const IMPORT_MAX = 1000;

export async function importSubscribers(
  ctx: ActorContext,
  i: { listIds: number[]; rows: AddRow[]; preconfirmed?: boolean; dryRun?: boolean },
) {
  authorize(ctx, "email:write", { write: true });
  if (i.rows.length > IMPORT_MAX)
    throw invalid(`At most ${IMPORT_MAX} rows per import; split the file.`, { path: "rows" });
  const report = {
    created: 0,
    updated: 0,
    refused: [] as { row: number; email: string; reason: string }[],
    confirmationsQueued: 0,
  };
  const run = async (tx: Tx) => {
    const lists = await listsIn(tx, ctx, i.listIds);
    const seen = new Set<string>();
    for (const [n, row] of i.rows.entries()) {
      const email = String(row.email ?? "")
        .trim()
        .toLowerCase();
      try {
        if (seen.has(email)) throw invalid("the same address appears earlier in this import");
        seen.add(email);
        // One row's error must not roll back the others: each row is a savepoint.
        const r = await tx.transaction(async (sp) =>
          addOne(sp as unknown as Tx, ctx, row, lists, { preconfirmed: i.preconfirmed ?? false, source: "import" }),
        );
        if (r.created) report.created++;
        else report.updated++;
        report.confirmationsQueued += r.confirmations;
      } catch (e) {
        report.refused.push({
          row: n + 1,
          email: email.slice(0, 120),
          reason: e instanceof Error ? e.message : String(e),
        });
      }
    }
    await audit(tx, ctx, "email.subscribers.import", {
      detail: {
        listIds: i.listIds,
        created: report.created,
        updated: report.updated,
        refused: report.refused.length,
        dryRun: i.dryRun ?? false,
      },
    });
    if (i.dryRun) throw new DryRun();
  };
  try {
    await ctx.deps.db.transaction(run);
  } catch (e) {
    if (!(e instanceof DryRun)) throw e;
    return { dryRun: true, ...report, confirmationsQueued: 0 };
  }
  return { dryRun: false, ...report };
}

class DryRun extends Error {}

export async function listSubscribers(
  ctx: ActorContext,
  i: { listId?: number; status?: MemberStatus; search?: string; blocklisted?: boolean; limit: number; offset: number },
) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  if (i.listId !== undefined) await listIn(db, ctx, i.listId, "listId");
  const memberCond =
    i.listId !== undefined || i.status !== undefined
      ? inArray(
          emailSubscribers.id,
          db
            .select({ id: emailMemberships.subscriberId })
            .from(emailMemberships)
            .where(
              and(
                eq(emailMemberships.companyId, ctx.company.id),
                i.listId !== undefined ? eq(emailMemberships.listId, i.listId) : undefined,
                i.status ? eq(emailMemberships.status, i.status) : undefined,
              ),
            ),
        )
      : undefined;
  const where = and(
    eq(emailSubscribers.companyId, ctx.company.id),
    memberCond,
    i.search
      ? or(containsText(emailSubscribers.email, i.search), containsText(emailSubscribers.name, i.search))
      : undefined,
    i.blocklisted !== undefined ? eq(emailSubscribers.blocklisted, i.blocklisted) : undefined,
  );
  const total = (await db.select({ n: count() }).from(emailSubscribers).where(where))[0]!.n;
  const rows = await db
    .select()
    .from(emailSubscribers)
    .where(where)
    .orderBy(desc(emailSubscribers.id))
    .limit(i.limit)
    .offset(i.offset);
  const mems = await membershipsOf(
    db,
    rows.map((r) => r.id),
  );
  return page(
    rows.map((r) => shape(r, mems)),
    total,
    i.limit,
    i.offset,
  );
}

export async function getSubscriber(ctx: ActorContext, i: { id?: number; email?: string }) {
  authorize(ctx, "email:read", { write: false });
  const s = await subscriberRef(ctx.deps.db, ctx, i);
  return shape(s, await membershipsOf(ctx.deps.db, [s.id]));
}

async function setStatus(
  tx: Tx,
  ctx: ActorContext | { deps: Deps; company: { id: number } },
  s: { id: number; email: string },
  listId: number,
  listName: string,
  to: MemberStatus,
  source: "tool" | "confirm_page" | "unsubscribe_page" | "one_click",
  campaignId: number | null,
) {
  const now = ctx.deps.clock.now();
  const m = (
    await tx
      .select()
      .from(emailMemberships)
      .where(and(eq(emailMemberships.listId, listId), eq(emailMemberships.subscriberId, s.id)))
      .limit(1)
  )[0];
  if (m?.status === to) return false;
  const stamp = {
    ...(to === "subscribed" ? { confirmedAt: now, confirmTokenHash: null } : {}),
    ...(to === "unsubscribed" ? { unsubscribedAt: now } : {}),
  };
  if (m)
    await tx
      .update(emailMemberships)
      .set({ status: to, ...stamp, updatedAt: now })
      .where(eq(emailMemberships.id, m.id));
  else
    await tx.insert(emailMemberships).values({
      companyId: ctx.company.id,
      listId,
      subscriberId: s.id,
      status: to,
      ...stamp,
      createdAt: now,
      updatedAt: now,
    });
  await emit(
    tx,
    ctx as ActorContext,
    membershipChanged,
    { id: s.id },
    { email: s.email, listId, listName, from: (m?.status as MemberStatus) ?? null, to, source, campaignId },
  );
  return true;
}

export async function updateSubscriber(
  ctx: ActorContext,
  i: {
    id?: number;
    email?: string;
    newEmail?: string;
    name?: string | null;
    attributes?: Record<string, unknown>;
    blocklisted?: boolean;
    lists?: { listId: number; status: MemberStatus }[];
  },
) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const s = await subscriberRef(tx, ctx, i);
    const fields: string[] = [];
    const set: Partial<SubscriberRow> = {};
    if (i.newEmail !== undefined) {
      const e = normalEmail(i.newEmail, "newEmail");
      if (e !== s.email) {
        const taken = (
          await tx
            .select({ id: emailSubscribers.id })
            .from(emailSubscribers)
            .where(and(eq(emailSubscribers.companyId, ctx.company.id), eq(emailSubscribers.email, e)))
            .limit(1)
        )[0];
        if (taken)
          throw conflict(`${e} is already subscriber ${taken.id}.`, { path: "newEmail", existingId: taken.id });
        set.email = e;
        fields.push("email");
      }
    }
    if (i.name !== undefined && (i.name?.trim() || null) !== s.name) {
      set.name = i.name?.trim() ? i.name.trim().slice(0, 200) : null;
      fields.push("name");
    }
    if (i.attributes !== undefined) {
      const merged: Record<string, unknown> = { ...s.attributes, ...i.attributes };
      for (const [k, val] of Object.entries(i.attributes)) if (val === null) delete merged[k];
      set.attributes = checkAttributes(merged);
      fields.push("attributes");
    }
    if (i.blocklisted !== undefined && i.blocklisted !== s.blocklisted) {
      set.blocklisted = i.blocklisted;
      fields.push("blocklisted");
    }
    // The folded copy segments compare is rewritten with what it folds.
    const fold =
      set.email !== undefined || set.name !== undefined || set.attributes
        ? foldSubscriber({
            email: set.email ?? s.email,
            name: set.name !== undefined ? set.name : s.name,
            attributes: set.attributes ?? s.attributes,
          })
        : undefined;
    if (fields.length)
      await tx
        .update(emailSubscribers)
        .set({ ...set, ...(fold && { fold }), updatedAt: ctx.deps.clock.now() })
        .where(eq(emailSubscribers.id, s.id));
    const email = set.email ?? s.email;
    const changedLists: number[] = [];
    if (i.lists?.length) {
      const lists = await listsIn(
        tx,
        ctx,
        i.lists.map((l) => l.listId),
        "lists",
      );
      for (const l of i.lists) {
        const list = lists.find((x) => x.id === l.listId)!;
        if (await setStatus(tx, ctx, { id: s.id, email }, list.id, list.name, l.status, "tool", null))
          changedLists.push(list.id);
      }
    }
    if (fields.length)
      await emit(
        tx,
        ctx,
        subscriberUpdated,
        { id: s.id },
        { email, fields, blocklisted: set.blocklisted ?? s.blocklisted },
      );
    await audit(tx, ctx, "email.subscribers.update", {
      type: "email_subscriber",
      id: s.id,
      detail: { fields, lists: i.lists ?? [] },
    });
    const row = (await tx.select().from(emailSubscribers).where(eq(emailSubscribers.id, s.id)).limit(1))[0]!;
    return { ...shape(row, await membershipsOf(tx, [s.id])), changed: fields, listsChanged: changedLists };
  });
}

export async function unsubscribeSubscriber(ctx: ActorContext, i: { id?: number; email?: string; listIds?: number[] }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const s = await subscriberRef(tx, ctx, i);
    const mine = await membershipsOf(tx, [s.id]);
    const targets = i.listIds
      ? (await listsIn(tx, ctx, i.listIds)).map((l) => ({ listId: l.id, listName: l.name }))
      : mine;
    const changed: number[] = [];
    for (const t of targets) {
      const cur = mine.find((m) => m.listId === t.listId);
      if (!cur || cur.status === "unsubscribed" || cur.status === "bounced" || cur.status === "complained") continue;
      await setStatus(tx, ctx, s, t.listId, t.listName, "unsubscribed", "tool", null);
      changed.push(t.listId);
    }
    await audit(tx, ctx, "email.subscribers.unsubscribe", {
      type: "email_subscriber",
      id: s.id,
      detail: { listIds: changed },
    });
    return { id: s.id, email: s.email, unsubscribedFrom: changed };
  });
}

export async function deleteSubscriber(ctx: ActorContext, i: { id?: number; email?: string }) {
  authorize(ctx, "email:write", { write: true });
  return ctx.deps.db.transaction(async (tx) => {
    const s = await subscriberRef(tx, ctx, i);
    // Erasure: the address leaves the send history too (counts stay for stats), and nothing still queued goes out.
    const now = ctx.deps.clock.now();
    await tx
      .update(emailSends)
      .set({ status: "cancelled", updatedAt: now })
      .where(and(eq(emailSends.subscriberId, s.id), eq(emailSends.status, "queued")));
    await tx
      .update(emailSends)
      .set({ email: `erased-${s.id}@invalid`, subject: null, html: null, text: null, updatedAt: now })
      .where(eq(emailSends.subscriberId, s.id));
    await tx.delete(emailMemberships).where(eq(emailMemberships.subscriberId, s.id));
    await tx.delete(emailSubscribers).where(eq(emailSubscribers.id, s.id));
    await audit(tx, ctx, "email.subscribers.delete", {
      type: "email_subscriber",
      id: s.id,
      detail: { email: s.email },
    });
    await emit(tx, ctx, subscriberDeleted, { id: s.id }, { email: s.email });
    return { id: s.id, status: "deleted" as const };
  });
}

export async function subscriberHistory(
  ctx: ActorContext,
  i: { id?: number; email?: string; limit: number; offset: number },
) {
  authorize(ctx, "email:read", { write: false });
  const db = ctx.deps.db;
  const s = await subscriberRef(db, ctx, i);
  const where = and(eq(emailSends.companyId, ctx.company.id), eq(emailSends.subscriberId, s.id));
  const total = (await db.select({ n: count() }).from(emailSends).where(where))[0]!.n;
  const rows = await db
    .select({ send: emailSends, campaignName: emailCampaigns.name, campaignSubject: emailCampaigns.subject })
    .from(emailSends)
    .leftJoin(emailCampaigns, eq(emailCampaigns.id, emailSends.campaignId))
    .where(where)
    .orderBy(desc(emailSends.id))
    .limit(i.limit)
    .offset(i.offset);
  const lists = memberView((await membershipsOf(db, [s.id])).filter((m) => m.subscriberId === s.id));
  return {
    id: s.id,
    email: s.email,
    lists,
    ...page(
      rows.map(({ send: r, campaignName, campaignSubject }) => ({
        sendId: r.id,
        kind: r.kind,
        campaignId: r.campaignId,
        campaignName,
        subject: r.subject ?? campaignSubject,
        status: r.status,
        attempts: r.attempts,
        queuedAt: iso(r.createdAt),
        sentAt: iso(r.sentAt),
        openedAt: iso(r.openedAt),
        clickedAt: iso(r.clickedAt),
        unsubscribedAt: iso(r.unsubscribedAt),
        smtpResponse: r.smtpResponse,
      })),
      total,
      i.limit,
      i.offset,
    ),
  };
}

// ------------------------------------------------------------ public pages

export interface TokenTarget {
  companyId: number;
  companyName: string;
  subscriber: { id: number; email: string };
  lists: { listId: number; listName: string; status: string }[];
}

/** The membership a confirmation token points at, if still unconfirmed. */
export async function confirmationFor(deps: Deps, token: string) {
  const m = (
    await deps.db
      .select({ m: emailMemberships, listName: emailLists.name, email: emailSubscribers.email })
      .from(emailMemberships)
      .innerJoin(emailLists, eq(emailLists.id, emailMemberships.listId))
      .innerJoin(emailSubscribers, eq(emailSubscribers.id, emailMemberships.subscriberId))
      .where(and(isNotNull(emailMemberships.confirmTokenHash), eq(emailMemberships.confirmTokenHash, sha256Hex(token))))
      .limit(1)
  )[0];
  return m ?? null;
}

export async function confirmByToken(
  deps: Deps,
  token: string,
): Promise<{ listName: string; email: string; changed: boolean } | null> {
  return deps.db.transaction(async (tx) => {
    const hit = await confirmationFor(deps, token);
    if (!hit) return null;
    const changed = hit.m.status === "unconfirmed";
    if (changed)
      await setStatus(
        tx,
        { deps, company: { id: hit.m.companyId } },
        { id: hit.m.subscriberId, email: hit.email },
        hit.m.listId,
        hit.listName,
        "subscribed",
        "confirm_page",
        null,
      );
    return { listName: hit.listName, email: hit.email, changed };
  });
}

/** What an unsubscribe token reaches: the send's subscriber and the lists that mail came through. */
export async function unsubscribeTarget(deps: Deps, token: string) {
  const send = (await deps.db.select().from(emailSends).where(eq(emailSends.token, token)).limit(1))[0];
  if (!send || send.subscriberId === null) return null;
  const s = (
    await deps.db.select().from(emailSubscribers).where(eq(emailSubscribers.id, send.subscriberId)).limit(1)
  )[0];
  if (!s) return null;
  let listIds: number[] = [];
  if (send.campaignId !== null)
    listIds =
      (
        await deps.db
          .select({ listIds: emailCampaigns.listIds })
          .from(emailCampaigns)
          .where(eq(emailCampaigns.id, send.campaignId))
          .limit(1)
      )[0]?.listIds ?? [];
  else if (send.listId !== null) listIds = [send.listId];
  const mems = (await membershipsOf(deps.db, [s.id])).filter((m) => m.subscriberId === s.id);
  return { send, subscriber: s, campaignLists: mems.filter((m) => listIds.includes(m.listId)), allLists: mems };
}

/** Unsubscribes from the mail's lists (or all lists of the company); idempotent. */
export async function unsubscribeByToken(
  deps: Deps,
  token: string,
  all: boolean,
  source: "unsubscribe_page" | "one_click",
) {
  return deps.db.transaction(async (tx) => {
    const t = await unsubscribeTarget(deps, token);
    if (!t) return null;
    const targets = all ? t.allLists : t.campaignLists;
    const now = deps.clock.now();
    const changed: string[] = [];
    for (const m of targets) {
      if (m.status === "unsubscribed" || m.status === "bounced" || m.status === "complained") continue;
      await setStatus(
        tx,
        { deps, company: { id: t.send.companyId } },
        t.subscriber,
        m.listId,
        m.listName,
        "unsubscribed",
        source,
        t.send.campaignId,
      );
      changed.push(m.listName);
    }
    if (t.send.unsubscribedAt === null)
      await tx.update(emailSends).set({ unsubscribedAt: now, updatedAt: now }).where(eq(emailSends.id, t.send.id));
    return { email: t.subscriber.email, lists: targets.map((m) => m.listName), changed };
  });
}
