/**
 * Verb-level world for email tests: the store world (two companies, actors
 * of any role and scope, a ManualClock) plus a real SMTP server on
 * loopback, and helpers to approve links, run the delivery job until the
 * queue is empty, and read events and the messages that arrived.
 */
import "../../src/domains";
import { and, eq } from "drizzle-orm";
import { closeMailTransport } from "../../src/core/mail";
import { events } from "../../src/core/tables";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { deliver } from "../jobs";
import { emailSends } from "../../src/domains/email/tables";
import { emailDomain } from "../../src/domains/email/tools";
import type { ActorContext } from "../../src/core/context";
import { call, errorOf, makeWorld, type World } from "../store/world";
import { startSmtp, type SmtpOptions, type TestSmtp } from "../infra/smtp";

export { errorOf };

export interface EmailWorld extends World {
  owner: ActorContext;
  smtp: TestSmtp;
  t(name: string, args: Record<string, unknown>, ctx?: ActorContext): Promise<any>;
  events(type?: string): Promise<{ type: string; entityId: number; data: any }[]>;
  approve(approval: { token: string }, decidedBy?: string): Promise<any>;
  reject(approval: { token: string }, comment?: string): Promise<any>;
  /** Runs the delivery job, a second of clock at a time, until nothing is due (at most `rounds`). */
  flush(rounds?: number): Promise<void>;
  queued(): Promise<number>;
  /** A list, a template and an approved campaign to `emails` (single opt-in). */
  readyCampaign(
    emails: string[],
    extra?: Record<string, unknown>,
  ): Promise<{ listId: number; campaignId: number; templateId: number }>;
  done(): Promise<void>;
}

export async function makeEmailWorld(smtpOptions: SmtpOptions = {}): Promise<EmailWorld> {
  const w = await makeWorld();
  const smtp = await startSmtp(smtpOptions);
  closeMailTransport();
  w.deps.config.smtpUrl = smtp.url();
  w.deps.config.mailFrom = "Acme News <news@acme.test>";
  w.deps.config.publicUrl = "https://plinth.test";
  const owner = w.ctx();
  const t = (name: string, args: Record<string, unknown>, ctx = owner) => call(emailDomain, ctx, name, args);
  const queued = async () =>
    (await w.deps.db.select({ id: emailSends.id }).from(emailSends).where(eq(emailSends.status, "queued"))).length;
  const self: EmailWorld = {
    ...w,
    owner,
    smtp,
    t,
    async events(type) {
      const rows = await w.deps.db.select().from(events).orderBy(events.id);
      return rows
        .filter((r) => !type || r.type === type)
        .map((r) => ({ type: r.type, entityId: r.entityId, data: r.data }));
    },
    async approve(approval, decidedBy = "Rita Reviewer") {
      const o = await decideApproval(w.deps, { token: approval.token }, "approve", { decidedBy });
      if (!o.ok) throw new Error(o.message);
      return o.approval.result;
    },
    async reject(approval, comment = "Not yet") {
      const o = await decideApproval(w.deps, { token: approval.token }, "reject", {
        decidedBy: "Rita Reviewer",
        comment,
      });
      if (!o.ok) throw new Error(o.message);
      return o.approval;
    },
    async flush(rounds = 200) {
      for (let i = 0; i < rounds; i++) {
        await deliver(w.deps);
        const due = await w.deps.db
          .select({ id: emailSends.id })
          .from(emailSends)
          .where(and(eq(emailSends.status, "queued")));
        if (due.length === 0) {
          await deliver(w.deps); // lets a finished campaign become sent
          return;
        }
        w.clock.advance(1000);
      }
    },
    queued,
    async readyCampaign(emails, extra = {}) {
      const list = await t("email_lists_create", {
        name: `News ${Math.random().toString(36).slice(2, 7)}`,
        optIn: "single",
      });
      for (const e of emails) await t("email_subscribers_add", { email: e, listIds: [list.id] });
      const tpl = await t("email_templates_create", {
        name: `T ${Math.random().toString(36).slice(2, 7)}`,
        html: '<h1>Hello {{ name | friend }}</h1><p>Read <a href="https://acme.test/post?a=1&b=2">the post</a>.</p>',
      });
      const c = await t("email_campaigns_create", {
        name: "Spring",
        subject: "Spring news for {{ name | you }}",
        listIds: [list.id],
        templateId: tpl.id,
        ...extra,
      });
      await self.approve(c.approval);
      return { listId: list.id, campaignId: c.id, templateId: tpl.id };
    },
    async done() {
      closeMailTransport();
      await smtp.stop();
      await w.close();
    },
  };
  return self;
}
