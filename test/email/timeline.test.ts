/**
 * Email events on the CRM timeline: mail sent to a contact's addresses
 * (any of them), its opens, clicks, unsubscribe, a bounce report and a
 * complaint show on the contact's timeline and its company's, read from
 * the email domain (email/timeline.ts); test sends, other contacts' mail
 * and another company's mail to the same address never do; a credential
 * without email:read is told.
 */
import { afterAll, beforeAll, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { crmDomain } from "../../src/domains/crm/tools";
import { applyReports, parseRawReport } from "../../src/domains/email/feedback";
import { emailPublicRoutes } from "../../src/domains/email/public-pages";
import { emailSends } from "../../src/domains/email/tables";
import { call } from "../store/world";
import { makeEmailWorld, type EmailWorld } from "./world";

let w: EmailWorld;
const crm = (name: string, args: Record<string, unknown>, ctx = w.owner) => call(crmDomain, ctx, name, args);
const at = (iso: string) => w.clock.set(Date.parse(iso));
const sendOf = async (campaignId: number, email: string) =>
  (
    await w.deps.db
      .select()
      .from(emailSends)
      .where(and(eq(emailSends.campaignId, campaignId), eq(emailSends.email, email)))
  )[0]!;

beforeAll(async () => {
  w = await makeEmailWorld();
});
afterAll(() => w.done());

test("a contact's and its company's timelines show the mail sent to the contact's addresses and what became of it", async () => {
  const co = await crm("crm_companies_create", { name: "Harbor Coffee", domain: "harbor.test" });
  const zoe = await crm("contacts_create", {
    firstName: "Zoë",
    emails: ["zoe@harbor.test", "zoe.private@example.com"],
    companyId: co.id,
  });
  await crm("contacts_create", { firstName: "Ian", emails: ["ian@harbor.test"], companyId: co.id });
  // The other company mails the same address: never on this company's timeline.
  const rival = w.ctx({ company: "other" });
  const rlist = await w.t("email_lists_create", { name: "Rival", optIn: "single" }, rival);
  await w.t("email_subscribers_add", { email: "zoe@harbor.test", listIds: [rlist.id] }, rival);
  const rtpl = await w.t("email_templates_create", { name: "R", html: "<p>Rival</p>" }, rival);
  const rc = await w.t(
    "email_campaigns_create",
    { name: "Rival news", subject: "Rival", templateId: rtpl.id, listIds: [rlist.id] },
    rival,
  );
  await w.approve(rc.approval);
  await w.t("email_campaigns_send", { id: rc.id }, rival);

  at("2026-02-01T10:00:00Z");
  const { campaignId } = await w.readyCampaign(["zoe.private@example.com", "ian@harbor.test", "zoe@harbor.test"], {
    trackOpens: true,
    trackClicks: true,
  });
  await w.t("email_campaigns_test", { id: campaignId, to: ["owner@example.test"] });
  await w.t("email_campaigns_send", { id: campaignId });
  await w.flush();
  const priv = await sendOf(campaignId, "zoe.private@example.com");
  const work = await sendOf(campaignId, "zoe@harbor.test");
  expect(priv.status).toBe("sent");
  const pages = emailPublicRoutes(w.deps);
  at("2026-02-01T12:00:00Z");
  expect((await pages.request(`/o/${priv.token}`)).status).toBe(200);
  at("2026-02-01T12:05:00Z");
  expect((await pages.request(`/c/${priv.token}/0`)).status).toBe(302);
  at("2026-02-02T08:00:00Z");
  expect(
    (
      await pages.request(`/u/${priv.token}`, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: "List-Unsubscribe=One-Click",
      })
    ).status,
  ).toBe(200);
  at("2026-02-03T09:00:00Z");
  const dsn = (await Bun.file(`${import.meta.dir}/fixtures/dsn-hard.eml`).text())
    .replaceAll("{{RCPT}}", work.email)
    .replaceAll("{{MESSAGE_ID}}", work.messageId)
    .replaceAll("{{TOKEN}}", work.token);
  expect((await applyReports(w.deps, w.companyId, (await parseRawReport(dsn)).reports)).applied).toHaveLength(1);

  const tl = await crm("crm_timeline_get", { contactId: zoe.id });
  const mail = tl.items.filter((i: any) => i.type.startsWith("email_"));
  expect(mail.map((i: any) => `${i.at.slice(0, 16)} ${i.type} ${i.email}`)).toEqual([
    "2026-02-03T09:00 email_bounced zoe@harbor.test",
    "2026-02-02T08:00 email_unsubscribed zoe.private@example.com",
    "2026-02-01T12:05 email_clicked zoe.private@example.com",
    "2026-02-01T12:00 email_opened zoe.private@example.com",
    // Both delivered in the same flush; the order between them is the send order (newest first).
    expect.stringMatching(/^2026-02-01T10:0\d email_sent zoe@harbor.test$/),
    expect.stringMatching(/^2026-02-01T10:0\d email_sent zoe.private@example.com$/),
  ]);
  expect(mail[0]).toMatchObject({ campaignId, campaign: "Spring", status: "5.1.1", kind: "campaign" });
  expect(mail.some((i: any) => i.campaignId === rc.id)).toBe(false);

  const companyTl = await crm("crm_timeline_get", { companyId: co.id, limit: 50 });
  const companyMail = companyTl.items
    .filter((i: any) => i.type === "email_sent")
    .map((i: any) => i.email)
    .sort();
  expect(companyMail).toEqual(["ian@harbor.test", "zoe.private@example.com", "zoe@harbor.test"]);

  const noEmail = await crm("crm_timeline_get", { contactId: zoe.id }, w.ctx({ scopes: ["crm:read", "tickets:read"] }));
  expect(noEmail.items.some((i: any) => i.type.startsWith("email_"))).toBe(false);
  expect(noEmail.note).toContain("email:read");
});
