/**
 * The demo's newsletter, seeded into a fresh store: Harbor's list, its
 * October campaign's stats as counted by hand in db/seed/demo-email.ts,
 * per-subscriber history, the pro segment, a draft that cannot be sent
 * before approval, and the signed sending domain harbor.example.
 */
import { catalog } from "../../src/catalog";
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicKey, createSign, createVerify } from "node:crypto";
import { eq } from "drizzle-orm";
import { loadConfig } from "../../src/config";
import { openBlobStore } from "../../src/core/blobs";
import { ManualClock } from "../../src/core/clock";
import type { ActorContext, Deps } from "../../src/core/context";
import { companies, users } from "../../src/core/tables";
import { seedDemo } from "../../db/seed/demo";
import { emailDomain } from "../../src/domains/email/tools";
import { dkimFor } from "../../src/domains/email/sending-domains";
import { openTestStore } from "../db";
import { testMediaConfig } from "../harness";
import { call, errorOf } from "../store/world";

let deps: Deps;
let dataDir: string;
let ctx: ActorContext;
const t = (name: string, args: Record<string, unknown>) => call(emailDomain, ctx, name, args);

beforeAll(async () => {
  const store = await openTestStore();
  dataDir = mkdtempSync(join(tmpdir(), "plinth-email-demo-"));
  const config = { ...loadConfig({ "data-dir": dataDir }, {}), ...(await testMediaConfig(store.engine === "pg")) };
  deps = {
    store,
    db: store.db,
    config,
    clock: new ManualClock(new Date("2031-03-15T12:00:00Z")),
    redis: null,
    blobs: openBlobStore({ config, store }),
    catalog,
  };
  await seedDemo(deps);
  const harbor = (await deps.db.select().from(companies).where(eq(companies.name, "Harbor Coffee Roasters")))[0]!;
  const demo = (await deps.db.select().from(users).where(eq(users.email, "demo@plinth.dev")))[0]!;
  const company = { id: harbor.id, name: harbor.name, role: "admin" as const };
  ctx = {
    deps,
    company,
    requestId: "t",
    principal: {
      userId: demo.id,
      credential: { kind: "cli", id: 0, name: "test" },
      scopes: ["*"],
      companies: [company],
      requireCmsApproval: false,
    },
  };
}, 60_000);
afterAll(async () => {
  await deps?.store.close();
  rmSync(dataDir, { recursive: true, force: true });
});

test("Harbor's newsletter: 24 addresses, counted per status", async () => {
  const lists = await t("email_lists_list", {});
  expect(lists.items.map((l: any) => [l.name, l.optIn, l.counts])).toEqual([
    [
      "Harbor Coffee Newsletter",
      "double",
      { unconfirmed: 1, subscribed: 19, unsubscribed: 2, bounced: 1, complained: 1 },
    ],
  ]);
});

test("the October campaign's stats read as counted by hand", async () => {
  const c = (await t("email_campaigns_list", { status: "sent" })).items[0];
  expect(c).toMatchObject({ name: "October roast drop", approved: true, recipients: 22 });
  expect(await t("email_campaigns_stats", { id: c.id })).toMatchObject({
    recipients: 22,
    delivered: 21,
    bounced: 1,
    opened: 14,
    clicked: 6,
    unsubscribed: 2,
    openRate: 66.67,
    clickRate: 28.57,
    unsubscribeRate: 9.52,
  });
  const fb = await t("email_feedback_list", {});
  expect(fb.items.map((f: any) => [f.kind, f.email, f.format])).toEqual([
    ["complaint", "wren.doyle@example.com", "arf"],
  ]);
  const h = await t("email_subscribers_history", { email: "theo.grant@example.com" });
  expect(h.items[0]).toMatchObject({
    campaignName: "October roast drop",
    status: "sent",
    openedAt: expect.any(String),
  });
  expect(h.lists[0]).toMatchObject({ status: "unsubscribed" });
});

test("the pro segment holds the seven pro customers on the list; the draft needs approval", async () => {
  const seg = (await t("email_segments_list", {})).items[0];
  expect((await t("email_segments_count", { id: seg.id })).count).toBe(7);
  const draft = (await t("email_campaigns_list", { status: "draft" })).items[0];
  expect(draft).toMatchObject({ name: "Holiday gift guide", approved: false });
  deps.config.smtpUrl = "smtp://127.0.0.1:9/";
  deps.config.mailFrom = "Harbor <hello@harbor.example>";
  expect((await errorOf(() => t("email_campaigns_send", { id: draft.id }))).message).toContain("not approved");
});

test("Harbor's sending domain is signed: a key that opens and matches its DNS record, and a last check that passed", async () => {
  const list = await t("email_domains_list", {});
  expect(list.items.map((d: any) => [d.domain, d.signing, d.lastCheck?.ok])).toEqual([["harbor.example", true, true]]);
  const d = await t("email_domains_get", { domain: "harbor.example" });
  expect(d.lastCheck.records.map((r: any) => [r.record, r.status])).toEqual([
    ["spf", "ok"],
    ["dkim", "ok"],
    ["dmarc", "ok"],
    ["mx", "ok"],
  ]);
  expect(JSON.stringify(d)).not.toContain("PRIVATE KEY");
  // The sealed key opens with this instance's key and is the private half of the published record.
  const key = await dkimFor(deps, ctx.company.id, "Harbor <hello@harbor.example>");
  expect(key).toMatchObject({ domainName: "harbor.example", keySelector: d.selector });
  const p = d.records.find((r: any) => r.record === "dkim").value.split("p=")[1];
  const pub = createPublicKey({ key: Buffer.from(p, "base64"), format: "der", type: "spki" });
  const sig = createSign("sha256").update("roast").sign(key!.privateKey);
  expect(createVerify("sha256").update("roast").verify(pub, sig)).toBe(true);
});
