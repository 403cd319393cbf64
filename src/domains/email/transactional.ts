/**
 * Transactional mail: one message to one address from a template with
 * variables (`data.*`), sent ahead of campaigns and not rate limited. A
 * retry with the same idempotencyKey (the registry keeps it a day, per
 * company, user and tool) returns the first answer and queues nothing.
 * Addresses that are blocklisted are refused; list statuses do not apply
 * (a receipt is not marketing).
 */
import { and, eq } from "drizzle-orm";
import { audit } from "../../core/audit";
import type { ActorContext } from "../../core/context";
import { emit } from "../../core/events";
import { conflict } from "../../core/errors";
import { authorize } from "../../core/scopes";
import { NO_SMTP, normalEmail, smtpReady, templateIn } from "./access";
import { meter } from "../ai/meter";
import { queueSend } from "./delivery";
import { transactionalQueued } from "./events";
import { renderTransactional } from "./render";
import { emailSubscribers } from "./tables";
import { templateText } from "./templates";

export async function sendTransactional(
  ctx: ActorContext,
  i: {
    to: string;
    templateId: number;
    subject: string;
    name?: string;
    data?: Record<string, unknown>;
    fromName?: string;
    fromEmail?: string;
    replyTo?: string;
  },
) {
  authorize(ctx, "email:write", { write: true });
  authorize(ctx, "email:send", { write: true });
  if (!smtpReady(ctx.deps)) throw conflict(NO_SMTP);
  const to = normalEmail(i.to, "to");
  const fromEmail = i.fromEmail ? normalEmail(i.fromEmail, "fromEmail") : null;
  const replyTo = i.replyTo ? normalEmail(i.replyTo, "replyTo") : null;
  return ctx.deps.db.transaction(async (tx) => {
    const t = await templateIn(tx, ctx, i.templateId, "templateId");
    const sub = (
      await tx
        .select()
        .from(emailSubscribers)
        .where(and(eq(emailSubscribers.companyId, ctx.company.id), eq(emailSubscribers.email, to)))
        .limit(1)
    )[0];
    if (sub?.blocklisted) throw conflict(`${to} is blocklisted in ${ctx.company.name}; nothing was sent.`);
    const parts = renderTransactional(
      { subject: i.subject, html: t.html, text: templateText(t) },
      { name: i.name ?? sub?.name ?? null, email: to, attributes: sub?.attributes ?? {}, data: i.data ?? {} },
    );
    const r = await queueSend(tx, ctx.deps, {
      companyId: ctx.company.id,
      kind: "transactional",
      email: to,
      subscriberId: sub?.id ?? null,
      ...parts,
      fromName: i.fromName ?? null,
      fromEmail,
      replyTo,
      tag: "email.transactional",
    });
    const paid = await meter(tx, ctx.deps, ctx.company.id, "email.send", 1, `email_send:${r.id}`, ctx.principal.userId);
    await audit(tx, ctx, "email.transactional.send", {
      type: "email_send",
      id: r.id,
      detail: { to, templateId: t.id },
    });
    await emit(
      tx,
      ctx,
      transactionalQueued,
      { id: r.id },
      { to, subject: parts.subject, templateId: t.id, templateName: t.name, userId: ctx.principal.userId },
    );
    return {
      id: r.id,
      to,
      subject: parts.subject,
      status: "queued" as const,
      messageId: r.messageId,
      // What a metered company paid, as every paid operation says (nothing for an unmetered one).
      ...(paid ? { credits: paid.credits, creditBalance: paid.balanceAfter } : {}),
    };
  });
}
