/**
 * `booking_page` as an approvable kind (approvals/kinds.ts). The preview is
 * the public page as visitors will get it: the same details, the next
 * week's free times computed from the proposed settings and the hosts'
 * real schedules, and the booking form with the proposed questions
 * (disabled), built by the same render.ts functions; beside it the facts a
 * reviewer checks (address, hosts, limits, notice, buffers, cutoffs) and,
 * for a change to a live page, each changed field live → proposed.
 *
 * The link records what it proposed (`payload.config`, and `before` for a
 * change), so it reads the same after the decision.
 */
import { eq } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { conflict } from "../../core/errors";
import { emit } from "../../core/events";
import type { ApprovalKind, ApprovalLink, ApprovalSupport, ChangeRow } from "../approvals/kinds";
import { effectiveStatus } from "../approvals/links";
import { summarize } from "../approvals/preview";
import { loadCalendars } from "./calendar-busy";
import { pageSlots } from "./availability-load";
import { remindersOf, type PageConfig } from "./config";
import { bookingPagePublished } from "./events";
import { assertSlugFree, changedFields, publicPageUrl, type PageRow } from "./pages";
import { CSS, detailsHtml, durationText, formFieldsHtml, locationText, localDate, slotsHtml } from "./render";
import { membersById, type Member } from "./schedules";
import { bookingPages } from "./tables";
import { DAY } from "./zoned";

interface Recorded {
  proposal: "new" | "update";
  config: PageConfig;
  before?: PageConfig;
}

async function pageOf(db: Deps["db"], link: ApprovalLink): Promise<PageRow | undefined> {
  if (link.entityId === null) return undefined;
  return (await db.select().from(bookingPages).where(eq(bookingPages.id, link.entityId)).limit(1))[0];
}

function recorded(link: ApprovalLink, p: PageRow): Recorded {
  const r = link.payload as Partial<Recorded> | null;
  if (r?.config) return r as Recorded;
  return {
    proposal: p.draft ? "update" : "new",
    config: p.draft ?? p.config,
    ...(p.draft ? { before: p.config } : {}),
  };
}

const LABELS: Partial<Record<keyof PageConfig, string>> = {
  title: "Title",
  slug: "Address",
  description: "Description",
  durations: "Lengths",
  location: "Place",
  videoLink: "Video link per booking",
  questions: "Questions",
  minNotice: "Minimum notice",
  bufferBefore: "Buffer before",
  bufferAfter: "Buffer after",
  slotInterval: "Start times every",
  dailyLimit: "Daily limit per host",
  weeklyLimit: "Weekly limit per host",
  maxAdvanceDays: "Bookable ahead",
  hostMode: "Host mode",
  hostUserIds: "Hosts",
  requiresConfirmation: "Host confirms each booking",
  cancelCutoff: "Attendees may cancel until",
  rescheduleCutoff: "Attendees may reschedule until",
  reminders: "Reminder emails",
  timeZone: "Page time zone",
};

const minutes = (m: number) => (m === 0 ? "none" : durationText(m));
/** Said per mode: round robin hosts take turns, collective hosts all meet the visitor together. */
const MODE: Record<string, string> = {
  single: "one host",
  round_robin: "hosts take turns (round robin: whoever is free, least recently booked first)",
  collective: "all hosts together (a time is free only when every host is)",
};

function valueText(k: keyof PageConfig, c: PageConfig, names: Map<number, string>, deps: Deps): string | null {
  switch (k) {
    case "slug":
      return publicPageUrl(deps, c.slug);
    case "durations":
      return c.durations.map(durationText).join(", ");
    case "location":
      return locationText(c.location);
    case "questions":
      return c.questions.length
        ? c.questions
            .map(
              (q) =>
                `${q.label} (${q.type.replace("_", " ")}${q.required ? ", required" : ""}${q.options ? `: ${q.options.join(" / ")}` : ""})`,
            )
            .join("; ")
        : "only name and email";
    case "minNotice":
    case "bufferBefore":
    case "bufferAfter":
      return minutes(c[k]);
    case "slotInterval":
      return c.slotInterval === null ? "the meeting's length" : durationText(c.slotInterval);
    case "dailyLimit":
    case "weeklyLimit":
      return c[k] === null ? "none" : String(c[k]);
    case "maxAdvanceDays":
      return c.maxAdvanceDays === null ? "no limit" : `${c.maxAdvanceDays} days`;
    case "hostMode":
      return MODE[c.hostMode] ?? c.hostMode;
    case "hostUserIds":
      return c.hostUserIds.map((id) => names.get(id) ?? `user ${id} (no longer a member)`).join(", ");
    case "requiresConfirmation":
      return c.requiresConfirmation ? "yes" : "no";
    case "reminders": {
      const r = remindersOf(c);
      return r.length ? `${r.map(durationText).join(" and ")} before the start` : "none";
    }
    case "cancelCutoff":
    case "rescheduleCutoff":
      return c[k] === 0 ? "the start" : `${durationText(c[k])} before the start`;
    default: {
      const v = c[k];
      return v === null || v === undefined ? null : String(v);
    }
  }
}

const FACT_KEYS: (keyof PageConfig)[] = [
  "slug",
  "hostUserIds",
  "hostMode",
  "location",
  "videoLink",
  "durations",
  "questions",
  "minNotice",
  "bufferBefore",
  "bufferAfter",
  "slotInterval",
  "dailyLimit",
  "weeklyLimit",
  "maxAdvanceDays",
  "requiresConfirmation",
  "cancelCutoff",
  "rescheduleCutoff",
  "reminders",
  "timeZone",
];

/** The public page's body for `cfg`: details, a week of free times in the page's zone, and the (disabled) form. */
async function pageHtml(
  deps: Deps,
  companyId: number,
  pageId: number,
  cfg: PageConfig,
  hosts: Member[],
): Promise<string> {
  const now = deps.clock.now().getTime();
  const tz = cfg.timeZone;
  const { slots } = await pageSlots(
    deps.db,
    companyId,
    { id: pageId, config: cfg },
    {
      from: now,
      to: now + 7 * DAY,
      now,
      durationMin: cfg.durations[0]!,
      calendars: await loadCalendars(deps, companyId, cfg.hostUserIds),
    },
  );
  const days = Array.from({ length: 7 }, (_, i) => localDate(now + i * DAY, tz));
  return `<div class="bk">${detailsHtml(cfg, hosts)}<h2>Free times this week (${tz.replace(/_/g, " ")}, ${durationText(cfg.durations[0]!)})</h2>${slotsHtml(slots, tz, null, days)}<h2>Booking form</h2><form class="bk-form">${formFieldsHtml(cfg, {}, true)}</form></div>`;
}

export const bookingPageApprovalKind: ApprovalKind = {
  entityType: "booking_page",
  label: "Booking page",

  async preview(deps, link) {
    const p = await pageOf(deps.db, link);
    if (!p) return null;
    const r = recorded(link, p);
    const cfg = r.config;
    const ids = [...new Set([...cfg.hostUserIds, ...(r.before?.hostUserIds ?? [])])];
    const members = await membersById(deps.db, p.companyId, ids);
    const names = new Map(members.map((m) => [m.userId, m.name ?? m.email]));
    const hosts = cfg.hostUserIds.map((id) => members.find((m) => m.userId === id)).filter((m): m is Member => !!m);
    const facts = FACT_KEYS.map((k) => ({ label: LABELS[k]!, value: valueText(k, cfg, names, deps) ?? "—" }));
    const changes: ChangeRow[] = r.before
      ? changedFields(r.before, cfg).map((k) => ({
          field: LABELS[k] ?? k,
          before: valueText(k, r.before!, names, deps),
          after: valueText(k, cfg, names, deps),
        }))
      : [];
    const pending = effectiveStatus(link, deps.clock.now()) === "pending";
    return {
      title: cfg.title,
      summary: summarize(
        link,
        deps.clock.now(),
        r.proposal === "update"
          ? {
              proposal: `Changes to the live booking page “${r.before?.title ?? p.title}”`,
              pending: `Changes to the live booking page “${r.before?.title ?? p.title}”. It keeps taking bookings as it is until you approve.`,
              applied: "applied to the live page",
              kept: "the live page stayed as it was",
            }
          : {
              proposal: "A new booking page",
              pending: `A new booking page, not yet public: approving opens ${publicPageUrl(deps, cfg.slug)} for bookings.`,
              applied: "opened for bookings",
              kept: "it was not opened",
            },
      ),
      facts,
      changes,
      html: await pageHtml(deps, p.companyId, p.id, cfg, hosts),
      ...(r.before && pending
        ? {
            liveHtml: await pageHtml(
              deps,
              p.companyId,
              p.id,
              r.before,
              await membersById(deps.db, p.companyId, r.before.hostUserIds),
            ),
          }
        : {}),
    };
  },

  async approve(tx, deps, link, d) {
    const p = await pageOf(tx, link);
    if (!p) throw conflict("The booking page no longer exists.");
    const r = recorded(link, p);
    let next: PageConfig;
    const firstTime = p.publishedAt === null;
    if (r.proposal === "update") {
      if (!p.draft) throw conflict("This change is no longer waiting: it was applied or withdrawn.");
      next = p.draft;
    } else {
      if (p.status !== "pending")
        throw conflict(`The booking page is ${p.status} now, so this request no longer applies.`);
      next = p.config;
    }
    const members = await membersById(tx, p.companyId, next.hostUserIds);
    if (members.length !== next.hostUserIds.length)
      throw conflict("A host of this page is no longer a member of the company; the page must name its hosts again.");
    if (next.slug !== p.slug) await assertSlugFree(tx, next.slug, p.id);
    const status = p.status === "paused" ? "paused" : "live";
    await tx
      .update(bookingPages)
      .set({
        config: next,
        draft: null,
        slug: next.slug,
        title: next.title,
        status,
        version: p.version + 1,
        publishedAt: p.publishedAt ?? d.now,
        updatedAt: d.now,
      })
      .where(eq(bookingPages.id, p.id));
    await emit(
      tx,
      { deps, company: { id: p.companyId } },
      bookingPagePublished,
      { id: p.id },
      {
        slug: next.slug,
        title: next.title,
        status,
        hostUserIds: next.hostUserIds,
        url: publicPageUrl(deps, next.slug),
        firstTime,
      },
    );
    return { bookingPageId: p.id, slug: next.slug, status, url: publicPageUrl(deps, next.slug) };
  },

  async reject(tx, _deps, link, d) {
    const p = await pageOf(tx, link);
    if (!p) return;
    if (p.status === "pending")
      await tx.update(bookingPages).set({ status: "rejected", updatedAt: d.now }).where(eq(bookingPages.id, p.id));
    else if (p.draft)
      await tx.update(bookingPages).set({ draft: null, updatedAt: d.now }).where(eq(bookingPages.id, p.id));
  },
};

/** The preview's styles: the public page's own stylesheet, so the reviewer sees it as visitors will. */
export const bookingsApprovalSupport: ApprovalSupport = {
  async previewCss() {
    return CSS;
  },
};
