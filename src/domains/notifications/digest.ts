/**
 * Email for notifications, batched: one message per person carrying
 * everything that arrived for them, instead of one email per event.
 *
 * A notification whose type the person wants by email waits ("pending")
 * until the oldest waiting one is DIGEST_DELAY_MS old, so a burst (ten cards
 * assigned in a minute) becomes one email; anything they read in the portal
 * or over MCP meanwhile is left out. When their profile has a time zone and
 * working hours, the email waits for working time (nobody is mailed at 3 am
 * their time); without them it goes at once. It works from the database,
 * so a server that was down sends what came due on its next run, once: the
 * rows are marked in the same transaction that queues the mail.
 */
import { and, asc, eq, inArray, lte } from "drizzle-orm";
import type { Deps } from "../../core/context";
import { anyRow, type JobDef } from "../../core/jobs";
import { queueMail } from "../../core/mail";
import { escapeHtml } from "../../core/public-page";
import { companies, memberships, users } from "../../core/tables";
import { isWorkingTime } from "../profile/hours";
import { profilesOf } from "../profile/verbs";
import { notifications } from "./tables";

export const DIGEST_DELAY_MS = 5 * 60_000;
/** A digest lists at most this many; the rest are counted and wait in the inbox. */
const MAX_ITEMS = 25;

type Item = { id: number; companyId: number; company: string; title: string; body: string | null; link: string | null };

function compose(deps: Deps, name: string | null, items: Item[], more: number) {
  const base = deps.config.publicUrl;
  const companyNames = [...new Set(items.map((i) => i.company))];
  const total = items.length + more;
  const subject =
    total === 1
      ? `${companyNames.length ? `[${companyNames[0]}] ` : ""}${items[0]!.title}`
      : `${total} new notifications${companyNames.length === 1 ? ` in ${companyNames[0]}` : ""}`;
  const lines = [`Hi ${name ?? "there"},`, ""];
  const html = [`<p>Hi ${escapeHtml(name ?? "there")},</p>`];
  for (const company of companyNames) {
    lines.push(company);
    html.push(`<h3 style="margin:16px 0 4px">${escapeHtml(company)}</h3><ul>`);
    for (const i of items.filter((x) => x.company === company)) {
      lines.push(`• ${i.title}`);
      if (i.body) lines.push(...i.body.split("\n").map((l) => `  ${l}`));
      if (i.link) lines.push(`  ${base}${i.link}`);
      const title = i.link ? `<a href="${escapeHtml(base + i.link)}">${escapeHtml(i.title)}</a>` : escapeHtml(i.title);
      html.push(
        `<li><strong>${title}</strong>${i.body ? `<br>${escapeHtml(i.body).replace(/\n/g, "<br>")}` : ""}</li>`,
      );
    }
    lines.push("");
    html.push("</ul>");
  }
  if (more) {
    lines.push(`…and ${more} more in your inbox.`, "");
    html.push(`<p>…and ${more} more in your inbox.</p>`);
  }
  lines.push(`Your inbox: ${base}/inbox`, `Choose what Plinth emails you: ${base}/settings/profile`);
  html.push(
    `<p><a href="${escapeHtml(base)}/inbox">Open your inbox</a> · <a href="${escapeHtml(base)}/settings/profile">Choose what Plinth emails you</a></p>`,
  );
  return {
    subject,
    text: lines.join("\n"),
    html: html.join("\n"),
    companyId: companyNames.length === 1 ? items[0]!.companyId : null,
  };
}

/**
 * Notifications waiting for email that are DIGEST_DELAY_MS old by `now`. A
 * person has one exactly when the oldest of their waiting ones is that old:
 * these rows name the people whose digest is due (and the job's check).
 */
const digestDue = (now: Date) =>
  and(eq(notifications.emailState, "pending"), lte(notifications.createdAt, new Date(now.getTime() - DIGEST_DELAY_MS)));

export async function sendDigests(deps: Deps): Promise<number> {
  const now = deps.clock.now();
  let sent = 0;
  const due = await deps.db
    .selectDistinct({ userId: notifications.userId })
    .from(notifications)
    .where(digestDue(now))
    .orderBy(asc(notifications.userId));
  for (const p of due) {
    const profile = (await profilesOf(deps, [p.userId])).get(p.userId)!;
    if (!isWorkingTime(profile, now)) continue;
    sent += await deps.store.transaction(async (tx) => {
      const rows = await tx
        .select({ n: notifications, company: companies.name })
        .from(notifications)
        .innerJoin(companies, eq(companies.id, notifications.companyId))
        .where(and(eq(notifications.userId, p.userId), eq(notifications.emailState, "pending")))
        .orderBy(asc(notifications.createdAt), asc(notifications.id));
      const member = new Set(
        (await tx.select({ c: memberships.companyId }).from(memberships).where(eq(memberships.userId, p.userId))).map(
          (r) => r.c,
        ),
      );
      const user = (
        await tx.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, p.userId)).limit(1)
      )[0];
      // Read meanwhile, or no longer theirs to see: not mailed.
      const wanted = rows.filter((r) => r.n.readAt === null && member.has(r.n.companyId));
      const skipped = rows.filter((r) => !wanted.includes(r)).map((r) => r.n.id);
      if (skipped.length)
        await tx.update(notifications).set({ emailState: "skipped" }).where(inArray(notifications.id, skipped));
      if (!wanted.length || !user) return 0;
      const items = wanted.slice(0, MAX_ITEMS).map((r) => ({
        id: r.n.id,
        companyId: r.n.companyId,
        company: r.company,
        title: r.n.title,
        body: r.n.body,
        link: r.n.link,
      }));
      const mail = compose(deps, user.name, items, wanted.length - items.length);
      await queueMail(tx, deps, {
        companyId: mail.companyId,
        to: user.email,
        subject: mail.subject,
        text: mail.text,
        html: mail.html,
        headers: { "List-Unsubscribe": `<${deps.config.publicUrl}/settings/profile>` },
        tag: "notifications.digest",
      });
      await tx
        .update(notifications)
        .set({ emailState: "sent" })
        .where(
          inArray(
            notifications.id,
            wanted.map((r) => r.n.id),
          ),
        );
      return 1;
    });
  }
  return sent;
}

export const digestJob: JobDef = {
  name: "notifications.email",
  description:
    "Email each person one digest of the notifications they want by email, 5 minutes after the first, in their working hours.",
  everyMs: 60_000,
  // Wider than the work: a due digest outside its recipient's working hours keeps it true until they start
  // (the hours are a profile's, checked in process), and the run then writes nothing for them.
  pending: (deps) =>
    anyRow(deps.db.select({ id: notifications.id }).from(notifications).where(digestDue(deps.clock.now())).limit(1)),
  run: async (deps) => void (await sendDigests(deps)),
};
