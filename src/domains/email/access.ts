/** What the email verbs, the delivery job and the public pages share. */
import { and, eq, inArray } from "drizzle-orm";
import type { ActorContext, Deps } from "../../core/context";
import type { Db } from "../../core/db";
import { invalid, notFound } from "../../core/errors";
import { emailCampaigns, emailLists, emailSegments, emailSubscribers, emailTemplates } from "./tables";

export type ListRow = typeof emailLists.$inferSelect;
export type SubscriberRow = typeof emailSubscribers.$inferSelect;
export type CampaignRow = typeof emailCampaigns.$inferSelect;
export type TemplateRow = typeof emailTemplates.$inferSelect;
export type SegmentRow = typeof emailSegments.$inferSelect;

export const MEMBER_STATUSES = ["unconfirmed", "subscribed", "unsubscribed", "bounced", "complained"] as const;
export type MemberStatus = (typeof MEMBER_STATUSES)[number];
export const CAMPAIGN_STATUSES = [
  "draft",
  "pending_approval",
  "scheduled",
  "sending",
  "sent",
  "paused",
  "cancelled",
] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];

const ADDRESS = /^[^\s@<>(),;:"[\]\\]+@[^\s@<>(),;:"[\]\\]+\.[^\s@<>(),;:"[\]\\]+$/;

/** An address as stored (trimmed, lower-cased), or a validation error naming it. */
export function normalEmail(raw: string, path = "email"): string {
  const a = raw.trim().toLowerCase();
  if (a.length > 254 || !ADDRESS.test(a)) throw invalid(`Not an email address: "${raw.slice(0, 100)}".`, { path });
  return a;
}

export const smtpReady = (deps: Pick<Deps, "config">) => Boolean(deps.config.smtpUrl && deps.config.mailFrom);

export const NO_SMTP =
  "Sending is off: no SMTP server is configured. Set PLINTH_SMTP_URL (smtp://user:pass@host:587 or smtps://…:465) and PLINTH_MAIL_FROM, then restart Plinth (`plinth --help` lists both). Nothing was queued.";

export function publicBase(deps: Pick<Deps, "config">): string {
  return `${deps.config.publicUrl}/e`;
}

export async function listIn(db: Pick<Db, "select">, ctx: ActorContext, id: number, path = "id"): Promise<ListRow> {
  const l = (
    await db
      .select()
      .from(emailLists)
      .where(and(eq(emailLists.id, id), eq(emailLists.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!l) throw notFound(`List ${id} not found in ${ctx.company.name}.${path === "id" ? "" : ` (${path})`}`);
  return l;
}

/** Every id must be a list of the caller's company; returns them in the order given, deduplicated. */
export async function listsIn(
  db: Pick<Db, "select">,
  ctx: ActorContext,
  ids: number[],
  path = "listIds",
): Promise<ListRow[]> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return [];
  const rows = await db
    .select()
    .from(emailLists)
    .where(and(inArray(emailLists.id, unique), eq(emailLists.companyId, ctx.company.id)));
  const byId = new Map(rows.map((r) => [r.id, r]));
  const missing = unique.filter((i) => !byId.has(i));
  if (missing.length) throw notFound(`List ${missing.join(", ")} not found in ${ctx.company.name} (${path}).`);
  return unique.map((i) => byId.get(i)!);
}

export async function subscriberRef(
  db: Pick<Db, "select">,
  ctx: ActorContext,
  ref: { id?: number; email?: string },
  idName = "id",
): Promise<SubscriberRow> {
  if (ref.id === undefined && ref.email === undefined)
    throw invalid(`Name the subscriber with ${idName} or email.`, { path: idName });
  const where =
    ref.id !== undefined
      ? and(eq(emailSubscribers.id, ref.id), eq(emailSubscribers.companyId, ctx.company.id))
      : and(
          eq(emailSubscribers.email, ref.email!.trim().toLowerCase()),
          eq(emailSubscribers.companyId, ctx.company.id),
        );
  const s = (await db.select().from(emailSubscribers).where(where).limit(1))[0];
  if (!s)
    throw notFound(
      ref.id !== undefined
        ? `Subscriber ${ref.id} not found in ${ctx.company.name}.`
        : `No subscriber ${ref.email!.slice(0, 120)} in ${ctx.company.name}.`,
    );
  return s;
}

export async function templateIn(
  db: Pick<Db, "select">,
  ctx: ActorContext,
  id: number,
  path = "id",
): Promise<TemplateRow> {
  const t = (
    await db
      .select()
      .from(emailTemplates)
      .where(and(eq(emailTemplates.id, id), eq(emailTemplates.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!t) throw notFound(`Template ${id} not found in ${ctx.company.name}.${path === "id" ? "" : ` (${path})`}`);
  return t;
}

export async function segmentIn(
  db: Pick<Db, "select">,
  ctx: ActorContext,
  id: number,
  path = "id",
): Promise<SegmentRow> {
  const s = (
    await db
      .select()
      .from(emailSegments)
      .where(and(eq(emailSegments.id, id), eq(emailSegments.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!s) throw notFound(`Segment ${id} not found in ${ctx.company.name}.${path === "id" ? "" : ` (${path})`}`);
  return s;
}

export async function campaignIn(db: Pick<Db, "select">, ctx: ActorContext, id: number): Promise<CampaignRow> {
  const c = (
    await db
      .select()
      .from(emailCampaigns)
      .where(and(eq(emailCampaigns.id, id), eq(emailCampaigns.companyId, ctx.company.id)))
      .limit(1)
  )[0];
  if (!c) throw notFound(`Campaign ${id} not found in ${ctx.company.name}.`);
  return c;
}

/** `"Name" <addr>` for a From header, or the bare address. */
export function fromHeader(name: string | null, address: string): string {
  if (!name) return address;
  return `"${name.replace(/["\\\r\n]/g, "")}" <${address}>`;
}
