/**
 * What a ticket's events do outside the tickets tables: public replies are
 * emailed to the requester with their files (through the mail outbox, so a reply exists and
 * is queued in one transaction with the subscriber's cursor), and the
 * people who must act are notified (assigned; an SLA missed). Internal
 * notes never reach this file: ticket.note_added carries no text and is not
 * subscribed to.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { Deps } from "../../core/context";
import type { EventDef, EventRecord, Subscriber } from "../../core/events";
import { bodyBytes } from "../../core/blobs";
import { MAIL_LIMITS, type MailAttachment, queueMail } from "../../core/mail";
import { companies, memberships } from "../../core/tables";
import { notify } from "../notifications/notify";
import { attachmentsOfMessage } from "./attachments";
import { ticketAssigned, ticketReplied, ticketSlaBreached } from "./events";

type Data<E> = E extends EventDef<infer T> ? T : never;

const ref = (n: number) => `#${n}`;

/** One thread per ticket in the requester's mail client. */
const threadId = (companyId: number, number: number) => `<ticket-${companyId}-${number}@plinth.invalid>`;

async function companyName(deps: Deps, id: number): Promise<string> {
  const [c] = await deps.db.select({ name: companies.name }).from(companies).where(eq(companies.id, id));
  return c?.name ?? "Support";
}

/**
 * The reply's files as mail attachments, in order, while they fit the
 * outbox's total (MAIL_LIMITS.attachmentBytes); the rest are named in the
 * text instead, so the requester knows to ask for them.
 */
async function replyFiles(deps: Deps, companyId: number, messageId: number) {
  const rows = await attachmentsOfMessage(deps.db, companyId, messageId);
  const attachments: MailAttachment[] = [];
  const left: string[] = [];
  let total = 0;
  for (const a of rows) {
    const body =
      total + a.sizeBytes <= MAIL_LIMITS.attachmentBytes && attachments.length < MAIL_LIMITS.attachments
        ? await deps.blobs.read(a.storageKey)
        : null;
    if (!body) {
      left.push(`${a.filename} (${a.sizeBytes} bytes)`);
      continue;
    }
    total += a.sizeBytes;
    attachments.push({
      filename: a.filename,
      contentType: a.mimeType,
      content: Buffer.from(await bodyBytes(body)).toString("base64"),
      encoding: "base64",
    });
  }
  return { attachments, left };
}

async function replyEmail(deps: Deps, e: EventRecord) {
  const d = e.data as Data<typeof ticketReplied>;
  const company = await companyName(deps, e.companyId);
  const greeting = d.requesterName ? `Hello ${d.requesterName},\n\n` : "";
  const files = await replyFiles(deps, e.companyId, d.messageId);
  const notSent = files.left.length
    ? `\n\nNot attached (too large for email; reply to ask for them): ${files.left.join(", ")}.`
    : "";
  await queueMail(deps.db, deps, {
    companyId: e.companyId,
    to: d.requesterEmail,
    subject: `[${company} ${ref(d.number)}] ${d.subject}`,
    text: `${greeting}${d.body}${notSent}\n\n— ${company} support, ticket ${ref(d.number)}. Reply to this email to answer.`,
    headers: { "In-Reply-To": threadId(e.companyId, d.number), References: threadId(e.companyId, d.number) },
    ...(files.attachments.length && { attachments: files.attachments }),
    tag: "ticket.reply",
  });
}

/** The people who answer for a ticket nobody owns: the company's owners and admins. */
async function responders(deps: Deps, companyId: number): Promise<number[]> {
  const rows = await deps.db
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.companyId, companyId), inArray(memberships.role, ["owner", "admin"])));
  return rows.map((r) => r.userId);
}

export const ticketDelivery: Subscriber = {
  name: "tickets.delivery",
  types: [ticketReplied.type, ticketAssigned.type, ticketSlaBreached.type],
  async handle(deps, e) {
    if (e.type === ticketReplied.type) return replyEmail(deps, e);
    if (e.type === ticketAssigned.type) {
      const d = e.data as Data<typeof ticketAssigned>;
      if (d.assigneeUserId === null) return;
      await notify(deps, {
        companyId: e.companyId,
        userIds: [d.assigneeUserId],
        type: "ticket.assigned",
        title: `${ref(d.number)} ${d.subject}`,
        body: `Assigned to you (${d.priority} priority). Requester: ${d.requesterName ?? d.requesterEmail}.`,
        entity: { type: "ticket", id: d.number },
        actorUserId: d.byUserId,
      });
      return;
    }
    const d = e.data as Data<typeof ticketSlaBreached>;
    const target = d.target === "first_response" ? "first response" : "resolution";
    await notify(deps, {
      companyId: e.companyId,
      userIds: d.assigneeUserId !== null ? [d.assigneeUserId] : await responders(deps, e.companyId),
      type: "ticket.sla_breached",
      title: `${ref(d.number)} missed its ${target} target`,
      body: `${d.subject} — was due ${d.dueAt.replace("T", " ").slice(0, 16)} UTC (${d.priority} priority).`,
      entity: { type: "ticket", id: d.number },
    });
  },
};
