/**
 * A ticket's events reach people: a public reply is emailed to the
 * requester over real SMTP (never an internal note), the assignee is
 * notified, and a missed SLA target notifies the assignee or, for an
 * unowned ticket, the company's owners and admins.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { and, asc, eq } from "drizzle-orm";
import { Dispatcher } from "../../src/core/dispatcher";
import { checkBreaches, sendDueMail } from "../jobs";
import { domains } from "../../src/domains";
import { notifications } from "../../src/domains/notifications/tables";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { makeTicketWorld, type TWorld } from "./world";

let smtp: TestSmtp;
let w: TWorld;
let dispatcher: Dispatcher;

beforeAll(async () => {
  smtp = await startSmtp();
});
afterAll(() => smtp.stop());

beforeEach(async () => {
  w = await makeTicketWorld();
  w.deps.config.smtpUrl = smtp.url();
  w.deps.config.mailFrom = "Plinth <support@plinth.test>";
  smtp.messages.length = 0;
  dispatcher = new Dispatcher(
    w.deps,
    domains.flatMap((d) => d.subscribers ?? []),
  );
  await dispatcher.init();
});
afterEach(() => w.close());

const noticesOf = (userId: number) =>
  w.deps.db
    .select()
    .from(notifications)
    .where(and(eq(notifications.userId, userId), eq(notifications.companyId, w.acme)))
    .orderBy(asc(notifications.id));

describe("ticket delivery", () => {
  test("a public reply reaches the requester by email in the ticket's thread; a note never does", async () => {
    const t = await w.call("tickets_create", {
      subject: "Grinder <b>jammed</b>",
      requesterEmail: "Pat@Example.com",
      requesterName: "Pat",
      body: "It stopped.",
    });
    await w.call("tickets_add_note", { id: t.id, body: "SECRET-NOTE: customer is on a discount plan" });
    await w.call("tickets_reply", { id: t.id, body: "Please send a photo of the burrs." });
    await dispatcher.drain();
    await sendDueMail(w.deps);
    await smtp.waitFor(1);
    expect(smtp.messages).toHaveLength(1);
    const m = smtp.messages[0]!;
    expect(m.envelope.to).toEqual(["pat@example.com"]);
    expect(m.raw).toContain(`Subject: [Acme #${t.id}] Grinder <b>jammed</b>`);
    expect(m.raw).toContain(`In-Reply-To: <ticket-${w.acme}-${t.id}@plinth.invalid>`);
    expect(m.raw).toContain("Hello Pat,");
    expect(m.raw).toContain("Please send a photo of the burrs.");
    expect(m.raw).not.toContain("SECRET-NOTE");
  });

  test("assigning notifies the assignee, not the person who assigned", async () => {
    const t = await w.call("tickets_create", { subject: "Refund", requesterEmail: "a@b.test", body: "Please refund." });
    await w.call("tickets_assign", { id: t.id, assigneeId: w.users.ada });
    await w.call("tickets_assign", { id: t.id, assigneeId: "me" });
    await dispatcher.drain();
    const ada = await noticesOf(w.users.ada);
    expect(ada.map((n) => [n.type, n.title, n.entityId, n.actorUserId])).toEqual([
      ["ticket.assigned", `#${t.id} Refund`, t.id, w.users.olga],
    ]);
    // Olga assigned it to herself: nobody is told what they did themself.
    expect(await noticesOf(w.users.olga)).toEqual([]);
  });

  test("a missed SLA target notifies the assignee, or every owner and admin when nobody owns the ticket", async () => {
    const owned = await w.call("tickets_create", {
      subject: "Owned",
      requesterEmail: "a@b.test",
      body: "x",
      priority: "urgent",
      assigneeId: w.users.ada,
    });
    const unowned = await w.call("tickets_create", {
      subject: "Unowned",
      requesterEmail: "c@d.test",
      body: "y",
      priority: "urgent",
    });
    await dispatcher.drain();
    const before = (await noticesOf(w.users.ada)).length;
    w.clock.advance(30 * 24 * 3600_000);
    await checkBreaches(w.deps);
    await dispatcher.drain();
    const titles = (u: number) =>
      noticesOf(u).then((ns) =>
        ns
          .filter((n) => n.type === "ticket.sla_breached")
          .map((n) => n.title)
          .sort(),
      );
    expect(await titles(w.users.ada)).toEqual(
      [
        `#${owned.id} missed its first response target`,
        `#${owned.id} missed its resolution target`,
        `#${unowned.id} missed its first response target`,
        `#${unowned.id} missed its resolution target`,
      ].sort(),
    );
    expect(await titles(w.users.olga)).toEqual(
      [`#${unowned.id} missed its first response target`, `#${unowned.id} missed its resolution target`].sort(),
    );
    // The viewer answers for nothing.
    expect(await titles(w.users.vic)).toEqual([]);
    expect((await noticesOf(w.users.ada)).length).toBe(before + 4);
  });
});
