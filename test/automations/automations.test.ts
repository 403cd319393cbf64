/**
 * Automations end to end over a real server and MCP client: a published
 * post creates a card and sends an email through the SMTP sink; dry runs
 * write nothing; a failed run resumes from its failed step; loop
 * protection; versions and rollback; schedules in a time zone; signed
 * incoming webhooks; validation and tenancy; run history retention.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { ManualClock } from "../../src/core/clock";
import { mcpKeys } from "../../src/domains/accounts/tables";
import { decideApproval } from "../../src/domains/approvals/verbs";
import { pruneRuns, runQueued, runSchedules, sendDueMail } from "../jobs";
import { MAX_CHAIN, pruneRunsJob, RUN_RETENTION_DAYS } from "../../src/domains/automations/runner";
import { automationRuns, automations } from "../../src/domains/automations/tables";
import { auditLog, memberships } from "../../src/core/tables";
import { notifications } from "../../src/domains/notifications/tables";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { caughtUp } from "./settle";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;
let smtp: TestSmtp;
const T0 = Date.UTC(2026, 0, 15, 7, 0, 0); // 08:00 in Paris (UTC+1 in January)

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    clock: new ManualClock(T0),
    config: { smtpUrl: smtp.url(), mailFrom: "Plinth <robot@plinth.test>", webhooksAllowPrivate: true },
  });
  w = await makeWorld(s);
  // The tests drive delivery and runs themselves; the background runner would race them for the same rows.
  await s.jobs.stop();
  await w.ok(w.owner, "projects_create", { name: "Website", key: "WEB" });
});
afterAll(async () => {
  await s.stop();
  await smtp.stop();
});

async function settle() {
  await caughtUp(s);
  await runQueued(s.deps);
  await caughtUp(s);
}

async function publish(title: string) {
  const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title });
  const o = await decideApproval(s.deps, { token: p.approval.token }, "approve", { decidedBy: "Rita Reviewer" });
  if (!o.ok) throw new Error(o.message);
  return p;
}

describe("a published post creates a card and sends an email", () => {
  let autoId = 0;
  test("end to end", async () => {
    const a = await w.ok(w.owner, "automations_create", {
      name: "Promote new posts",
      trigger: {
        type: "event",
        eventType: "post.published",
        filters: [{ path: "trigger.data.postType", op: "eq", value: "blog" }],
      },
      conditions: [{ path: "trigger.data.proposal", op: "eq", value: "new" }],
      actions: [
        {
          type: "create_card",
          with: {
            projectId: "WEB",
            title: "Share “{{trigger.data.title}}” on social",
            description: "Live at /{{trigger.data.slug}}",
            priority: 2,
          },
        },
        {
          type: "send_email",
          with: {
            to: "editor@example.test",
            subject: "Published: {{trigger.data.title}}",
            text: "Card {{steps.0.output.key}} tracks the social posts for {{trigger.data.slug}}.",
          },
        },
      ],
      enabled: true,
    });
    autoId = a.id;
    expect(a).toMatchObject({ enabled: true, version: 1 });
    const p = await publish("Spring <b>menu</b>");
    await settle();
    const runs = await w.ok(w.owner, "automation_runs_list", { automationId: autoId });
    expect(runs.items.map((r: any) => r.status)).toEqual(["succeeded"]);
    const run = await w.ok(w.owner, "automation_runs_get", { id: runs.items[0].id });
    expect(run.trigger).toMatchObject({
      kind: "event",
      eventType: "post.published",
      data: { postId: p.id, title: "Spring <b>menu</b>" },
    });
    expect(run.steps.map((x: any) => [x.type, x.status])).toEqual([
      ["create_card", "succeeded"],
      ["send_email", "succeeded"],
    ]);
    const key = run.steps[0].output.key;
    expect(key).toBe("WEB-1");
    expect(run.steps[0].input.title).toBe("Share “Spring <b>menu</b>” on social");
    const card = await w.ok(w.owner, "cards_get", { id: "WEB-1" });
    expect(card.title).toBe("Share “Spring <b>menu</b>” on social");
    expect(card.description).toBe(`Live at /${p.slug}`);
    // The card was made by the run, for its creator: the audit row names the automation credential.
    const rows = await s.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "cards.create"), eq(auditLog.entityId, card.id)));
    expect(rows[0]).toMatchObject({ userId: w.ownerUserId, credentialKind: "automation", credentialId: run.id });
    await sendDueMail(s.deps);
    const [m] = await smtp.waitFor(1);
    const parsed = await m!.parse();
    expect(m!.envelope.to).toEqual(["editor@example.test"]);
    expect(parsed.subject).toBe("Published: Spring <b>menu</b>");
    expect(parsed.text?.trim()).toBe(`Card WEB-1 tracks the social posts for ${p.slug}.`);
  });

  test("an unpublished page (filter) or a republish (condition) does not make a card", async () => {
    const before = (await w.ok(w.owner, "automation_runs_list", { automationId: autoId })).total;
    await w.ok(w.owner, "post_types_create", { siteId: w.siteA, name: "Landing", slug: "landing" }).catch(() => null);
    const p = await w
      .ok(w.owner, "posts_create", { siteId: w.siteA, title: "Landing", postType: "landing" })
      .catch(() => null);
    if (p) {
      await decideApproval(s.deps, { token: p.approval.token }, "approve", { decidedBy: "Rita" });
      await settle();
      // Filtered out: no run at all.
      expect((await w.ok(w.owner, "automation_runs_list", { automationId: autoId })).total).toBe(before);
    }
  });

  test("dry run with a sample writes nothing and shows filled inputs", async () => {
    const before = w.changes();
    const r = await w.ok(w.owner, "automations_test", {
      id: autoId,
      sample: { data: { postId: 9, slug: "hello", title: "Hello", postType: "blog", proposal: "new" } },
    });
    expect(r.wouldRun).toBe(true);
    expect(r.steps[0]).toMatchObject({
      type: "create_card",
      ok: true,
      input: { projectId: "WEB", title: "Share “Hello” on social" },
    });
    expect(r.steps[1].input.text).toBe("Card  tracks the social posts for hello.");
    const r2 = await w.ok(w.owner, "automations_test", {
      id: autoId,
      sample: { data: { postType: "page", proposal: "new" } },
    });
    expect(r2.wouldRun).toBe(false);
    expect(r2.filters[0].holds).toBe(false);
    expect(w.changes()).toBe(before);
  });

  test("versions and rollback", async () => {
    const u = await w.ok(w.owner, "automations_update", { id: autoId, name: "Promote posts v2", conditions: [] });
    expect(u.version).toBe(2);
    const vs = await w.ok(w.owner, "automation_versions_list", { id: autoId });
    expect(vs.items.map((x: any) => [x.version, x.current])).toEqual([
      [2, true],
      [1, false],
    ]);
    const rb = await w.ok(w.owner, "automations_rollback", { id: autoId, version: 1 });
    expect(rb).toMatchObject({ version: 3, restoredFrom: 1, name: "Promote new posts" });
    const g = await w.ok(w.owner, "automations_get", { id: autoId });
    expect(g.conditions).toEqual([{ path: "trigger.data.proposal", op: "eq", value: "new" }]);
    expect(await w.err(w.owner, "automations_rollback", { id: autoId, version: 3 })).toContain("already the current");
    expect(await w.err(w.owner, "automations_rollback", { id: autoId, version: 9 })).toContain("no version 9");
    await w.ok(w.owner, "automations_toggle", { id: autoId, enabled: false });
  });
});

describe("failure, retry and loops", () => {
  test("a failed step stops the run; retry resumes there without repeating earlier steps", async () => {
    const a = await w.ok(w.owner, "automations_create", {
      name: "Ops intake",
      trigger: { type: "event", eventType: "order.created" },
      actions: [
        { type: "notify", with: { userIds: [w.ownerUserId], title: "New order {{trigger.data.orderId}}" } },
        {
          type: "call_tool",
          with: { tool: "cards_create", arguments: { projectId: "OPS", title: "Pack order {{trigger.data.orderId}}" } },
        },
      ],
      enabled: true,
    });
    await w.ok(w.owner, "store_settings_update", { siteId: w.siteA, enabled: true, currency: "eur" });
    const prod = await w.ok(w.owner, "products_create", {
      siteId: w.siteA,
      name: "Beans",
      price: 900,
      status: "active",
    });
    const order = await w.ok(w.owner, "orders_create", {
      siteId: w.siteA,
      items: [{ productId: prod.id, quantity: 1 }],
    });
    await settle();
    const [run] = (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items;
    expect(run.status).toBe("failed");
    let full = await w.ok(w.owner, "automation_runs_get", { id: run.id });
    expect(full.resumeAtStep).toBe(1);
    expect(full.steps[1].error).toContain("OPS");
    const count = async () =>
      (
        await s.deps.db
          .select()
          .from(notifications)
          .where(and(eq(notifications.userId, w.ownerUserId), eq(notifications.type, "automation.message")))
      ).length;
    // The automation notifies its creator too (it is not "their own action" to be skipped).
    expect(full.steps[0].output.notified).toEqual([w.ownerUserId]);
    const n0 = await count();
    expect(n0).toBe(1);
    const failedNote = await s.deps.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, w.ownerUserId), eq(notifications.type, "automation.failed")));
    expect(failedNote.map((n) => n.title)).toEqual(["Automation “Ops intake” failed at step 1 (call_tool)"]);
    await w.ok(w.owner, "projects_create", { name: "Operations", key: "OPS" });
    expect(await w.ok(w.owner, "automation_runs_retry", { id: run.id })).toMatchObject({
      status: "queued",
      resumeAtStep: 1,
    });
    expect(await w.err(w.owner, "automation_runs_retry", { id: run.id })).toContain("only failed runs");
    await settle();
    full = await w.ok(w.owner, "automation_runs_get", { id: run.id });
    expect(full.status).toBe("succeeded");
    expect(full.attempts).toBe(2);
    expect(full.steps.map((x: any) => x.status)).toEqual(["succeeded", "succeeded"]);
    expect(full.steps[1].output.title).toBe(`Pack order ${order.id}`);
    expect(await count()).toBe(n0);
    await w.ok(w.owner, "automations_toggle", { id: a.id, enabled: false });
  });

  test("loop protection: an automation's own event does not trigger it again", async () => {
    const a = await w.ok(w.owner, "automations_create", {
      name: "Echo cards",
      trigger: { type: "event", eventType: "card.created" },
      actions: [{ type: "create_card", with: { projectId: "WEB", title: "Echo of {{trigger.data.key}}" } }],
      enabled: true,
    });
    await w.ok(w.owner, "cards_create", { projectId: "WEB", title: "Human card" });
    for (let i = 0; i < 4; i++) await settle();
    const runs = (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items;
    expect(runs.map((r: any) => r.status)).toEqual(["skipped", "succeeded"]);
    expect(runs[0].error).toContain("Loop protection");
    await w.ok(w.owner, "automations_delete", { id: a.id });
    expect(await w.err(w.owner, "automations_get", { id: a.id })).toContain("not found");
  });

  test(`loop protection at exactly the limit: ${MAX_CHAIN} different automations chain; the next one in the chain is skipped`, async () => {
    // Relay 1 starts on a person's card; relay k+1 starts on relay k's card: a chain of different automations.
    const relays = [];
    for (let k = 1; k <= MAX_CHAIN + 2; k++)
      relays.push(
        await w.ok(w.owner, "automations_create", {
          name: `Relay ${k}`,
          trigger: { type: "event", eventType: "card.created" },
          conditions: [
            { path: "trigger.data.title", op: "eq", value: k === 1 ? "Relay start" : `Relay ${k - 1} done` },
          ],
          actions: [{ type: "create_card", with: { projectId: "WEB", title: `Relay ${k} done` } }],
          enabled: true,
        }),
      );
    await w.ok(w.owner, "cards_create", { projectId: "WEB", title: "Relay start" });
    for (let i = 0; i < MAX_CHAIN + 3; i++) await settle();
    // Each relay also sees the other cards: those runs are skipped (conditions not met, or its own card).
    const runsOf = async (a: { id: number }) =>
      (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items as any[];
    const succeeded = [];
    for (const a of relays) succeeded.push((await runsOf(a)).filter((r) => r.status === "succeeded").length);
    expect(succeeded).toEqual([...Array.from({ length: MAX_CHAIN }, () => 1), 0, 0]);
    const stopped = (await runsOf(relays[MAX_CHAIN]!)).filter((r) => r.error?.includes("automations in a row"));
    expect(stopped).toHaveLength(1);
    expect(stopped[0].status).toBe("skipped");
    expect(stopped[0].error).toContain(`${MAX_CHAIN} automations in a row led to this event`);
    const titles = (await w.ok(w.owner, "cards_list", { search: "Relay" })).items.map((c: any) => c.title);
    expect(titles).toContain(`Relay ${MAX_CHAIN} done`);
    expect(titles).not.toContain(`Relay ${MAX_CHAIN + 1} done`);
    for (const a of relays) await w.ok(w.owner, "automations_toggle", { id: a.id, enabled: false });
  });

  test("call_tool: an approval-gated tool returns its approval; nothing goes live; the creator's role is read at run time", async () => {
    const a = await w.ok(w.colleague, "automations_create", {
      name: "Draft a recap",
      trigger: { type: "event", eventType: "card.created" },
      conditions: [{ path: "trigger.data.title", op: "contains", value: "recap" }],
      actions: [
        {
          type: "call_tool",
          with: { tool: "posts_create", arguments: { siteId: w.siteA, title: "Recap: {{trigger.data.title}}" } },
        },
      ],
      enabled: true,
    });
    expect(a.warnings.join(" ")).toContain("drafts for approval");
    await w.ok(w.owner, "cards_create", { projectId: "WEB", title: "Weekly recap" });
    await settle();
    let [run] = (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items;
    const full = await w.ok(w.owner, "automation_runs_get", { id: run.id });
    expect(full.status).toBe("succeeded");
    const out = full.steps[0].output;
    expect(out).toMatchObject({ status: "pending", approval: { status: "pending" } });
    const post = await w.ok(w.owner, "posts_get", { siteId: w.siteA, id: out.id });
    expect(post.status).toBe("pending");
    // The colleague becomes a viewer: the next run is refused at the step, as their own call would be.
    await s.deps.db
      .update(memberships)
      .set({ role: "viewer" })
      .where(
        and(
          eq(
            memberships.userId,
            (await s.deps.db.select().from(mcpKeys).where(eq(mcpKeys.id, w.colleagueKeyId)))[0]!.userId,
          ),
          eq(memberships.companyId, w.A.id),
        ),
      );
    await w.ok(w.owner, "cards_create", { projectId: "WEB", title: "Monthly recap" });
    await settle();
    [run] = (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items;
    expect(run.status).toBe("failed");
    expect(run.error).toMatch(/role in .* is viewer/);
    await s.deps.db
      .update(memberships)
      .set({ role: "admin" })
      .where(
        and(
          eq(memberships.companyId, w.A.id),
          eq(memberships.role, "viewer"),
          eq(
            memberships.userId,
            (await s.deps.db.select().from(mcpKeys).where(eq(mcpKeys.id, w.colleagueKeyId)))[0]!.userId,
          ),
        ),
      );
    await w.ok(w.owner, "automations_delete", { id: a.id });
  });

  test("loop protection: two automations feeding each other stop after one hop each", async () => {
    const mk = (name: string) =>
      w.ok(w.owner, "automations_create", {
        name,
        trigger: { type: "event", eventType: "card.created" },
        conditions: [{ path: "trigger.data.title", op: "contains", value: "ping" }],
        actions: [{ type: "create_card", with: { projectId: "WEB", title: `${name}: {{trigger.data.title}}` } }],
        enabled: true,
      });
    const A = await mk("Ping A");
    const B = await mk("Ping B");
    const before = (await w.ok(w.owner, "cards_list", { projectId: "WEB", limit: 1 })).total;
    await w.ok(w.owner, "cards_create", { projectId: "WEB", title: "ping" });
    for (let i = 0; i < 5; i++) await settle();
    for (const a of [A, B]) {
      const runs = (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items;
      // Its own run on the person's card, one on the other's card, and three refusals (its own card, and both second-hop cards).
      expect(runs.map((r: any) => r.status).sort()).toEqual([
        "skipped",
        "skipped",
        "skipped",
        "succeeded",
        "succeeded",
      ]);
      expect(
        runs.filter((r: any) => r.status === "skipped").every((r: any) => r.error.startsWith("Loop protection")),
      ).toBe(true);
    }
    // The person's card, A's and B's copies of it, and one copy of each other's: 5 in all.
    expect((await w.ok(w.owner, "cards_list", { projectId: "WEB", limit: 1 })).total).toBe(before + 5);
    await w.ok(w.owner, "automations_delete", { id: A.id });
    await w.ok(w.owner, "automations_delete", { id: B.id });
  });

  test("a revoked key stops its automations", async () => {
    const a = await w.ok(w.gated, "automations_create", {
      name: "Gated",
      trigger: { type: "event", eventType: "card.created" },
      actions: [{ type: "notify", with: { roles: ["owner"], title: "card" } }],
      enabled: true,
    });
    await s.deps.db
      .update(mcpKeys)
      .set({ revokedAt: new Date(T0) })
      .where(eq(mcpKeys.id, w.gatedKeyId));
    await w.ok(w.owner, "cards_create", { projectId: "WEB", title: "Another" });
    await settle();
    const [run] = (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items;
    expect(run.status).toBe("failed");
    expect(run.error).toContain("revoked");
    await w.ok(w.owner, "automations_delete", { id: a.id });
  });
});

describe("schedules and incoming webhooks", () => {
  test("cron in a time zone: next run computed in Paris time, missed runs fold into one", async () => {
    const a = await w.ok(w.owner, "automations_create", {
      name: "Morning digest",
      trigger: { type: "schedule", cron: "0 9 * * *", timeZone: "Europe/Paris" },
      actions: [{ type: "notify", with: { roles: ["admin"], title: "Good morning" } }],
      enabled: true,
    });
    const g = await w.ok(w.owner, "automations_get", { id: a.id });
    expect(g.nextRunAt).toBe("2026-01-15T08:00:00.000Z"); // 09:00 CET
    s.clock.advance(60 * 60_000 - 1); // 08:59:59.999 Paris
    await runSchedules(s.deps);
    expect((await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).total).toBe(0);
    s.clock.advance(1); // 09:00:00.000 Paris: due
    await runSchedules(s.deps);
    expect((await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).total).toBe(1);
    expect((await w.ok(w.owner, "automations_get", { id: a.id })).nextRunAt).toBe("2026-01-16T08:00:00.000Z");
    s.clock.advance(-1);
    s.clock.advance(3 * 24 * 3600_000); // down for three days: now 2026-01-18 07:59:59.999Z, the 16th and 17th were missed
    await runSchedules(s.deps);
    await runSchedules(s.deps);
    expect((await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).total).toBe(2);
    expect((await w.ok(w.owner, "automations_get", { id: a.id })).nextRunAt).toBe("2026-01-18T08:00:00.000Z");
    await runQueued(s.deps);
    expect(
      (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items.map((r: any) => r.status),
    ).toEqual(["succeeded", "succeeded"]);
    await w.ok(w.owner, "automations_delete", { id: a.id });
  });

  test("a signed POST to hookUrl starts a run; bad signatures and replays do not", async () => {
    const a = await w.ok(w.owner, "automations_create", {
      name: "Form to card",
      trigger: { type: "webhook" },
      actions: [{ type: "create_card", with: { projectId: "WEB", title: "Lead: {{trigger.data.name}}" } }],
      enabled: true,
    });
    expect(a.hookSecret).toMatch(/^whsec_/);
    const path = new URL(a.hookUrl).pathname;
    const body = JSON.stringify({ name: "Ada <script>" });
    const sign = (id: string, secret = a.hookSecret) => {
      const now = new Date();
      return {
        "content-type": "application/json",
        "webhook-id": id,
        "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
        "webhook-signature": new Webhook(secret).sign(id, now, body),
      };
    };
    const post = (headers: Record<string, string>, b = body) =>
      fetch(`${s.url}${path}`, { method: "POST", headers, body: b });
    let r = await post(sign("msg_1"));
    expect(r.status).toBe(202);
    const first = await r.json();
    expect(first.status).toBe("queued");
    r = await post(sign("msg_1"));
    expect(await r.json()).toEqual({ runId: first.runId, status: "duplicate" });
    expect((await post(sign("msg_2", "whsec_" + Buffer.from("x".repeat(32)).toString("base64")))).status).toBe(401);
    expect((await post({ "content-type": "application/json" })).status).toBe(401);
    expect((await post(sign("msg_3"), body + " ")).status).toBe(401);
    expect(
      (await fetch(`${s.url}/hooks/${"0".repeat(32)}`, { method: "POST", headers: sign("msg_4"), body })).status,
    ).toBe(404);
    const huge = JSON.stringify({ name: "x".repeat(70_000) });
    expect((await fetch(`${s.url}${path}`, { method: "POST", headers: sign("msg_5"), body: huge })).status).toBe(413);
    expect((await fetch(`${s.url}/hooks/not-a-token`, { method: "POST", headers: sign("msg_6"), body })).status).toBe(
      404,
    );
    await runQueued(s.deps);
    const run = await w.ok(w.owner, "automation_runs_get", { id: first.runId });
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].output.title).toBe("Lead: Ada <script>");
    expect((await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).total).toBe(1);
    // Disabled: a correctly signed, fresh message starts nothing (409), and nothing is queued for later.
    await w.ok(w.owner, "automations_toggle", { id: a.id, enabled: false });
    r = await post(sign("msg_7"));
    expect(r.status).toBe(409);
    expect(await r.json()).toEqual({ error: "automation is disabled" });
    await runQueued(s.deps);
    expect((await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).total).toBe(1);
    // Enabled again, the same kind of message runs: it was the switch, not the signature.
    await w.ok(w.owner, "automations_toggle", { id: a.id, enabled: true });
    expect((await post(sign("msg_8"))).status).toBe(202);
    expect((await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).total).toBe(2);
    // Run it and pass its card's event now, so nothing of this test is left for later ones to trip on.
    await settle();
    await w.ok(w.owner, "automations_toggle", { id: a.id, enabled: false });
  });
});

describe("validation and tenancy", () => {
  const base = {
    trigger: { type: "event", eventType: "post.published" },
    actions: [{ type: "notify", with: { roles: ["owner"], title: "x" } }],
  };
  test("refused definitions say why", async () => {
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "a",
        trigger: { type: "event", eventType: "post.publishd" },
      }),
    ).toContain("not an event");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "b",
        trigger: { type: "schedule", cron: "61 * * * *", timeZone: "UTC" },
      }),
    ).toContain("cron");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "c",
        trigger: { type: "schedule", cron: "* * * * *", timeZone: "UTC" },
      }),
    ).toContain("every 5 minutes");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "d",
        trigger: { type: "schedule", cron: "0 9 * * *", timeZone: "Mars/Base" },
      }),
    ).toContain("time zone");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "e",
        actions: [{ type: "call_tool", with: { tool: "automations_delete", arguments: { id: 1 } } }],
      }),
    ).toContain("cannot change automations");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "f",
        actions: [{ type: "call_tool", with: { tool: "nope_nope" } }],
      }),
    ).toContain('no tool "nope_nope"');
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "g",
        actions: [{ type: "create_card", with: { title: 5 } }],
      }),
    ).toContain("would refuse");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "h",
        actions: [{ type: "send_email", with: { to: "a@b.test", subject: "{{secrets.x}}", text: "t" } }],
      }),
    ).toContain("must start with trigger.");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "i",
        actions: [{ type: "call_webhook", with: { webhookId: 99999 } }],
      }),
    ).toContain("webhook 99999 not found");
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "j",
        trigger: { type: "schedule", timeZone: "UTC" },
      }),
    ).toContain("trigger.cron is required");
    expect(await w.err(w.owner, "automations_create", { ...base, name: "k", trigger: { type: "event" } })).toContain(
      "trigger.eventType is required",
    );
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "l",
        trigger: { type: "webhook", cron: "0 9 * * *" },
      }),
    ).toContain('belong to type "schedule"');
    expect(await w.err(w.owner, "automations_create", { ...base, name: "m", actions: [] })).toMatch(/actions/);
    const many = Array.from({ length: 21 }, () => base.actions[0]);
    expect(await w.err(w.owner, "automations_create", { ...base, name: "n", actions: many })).toMatch(/actions/);
    expect(await w.err(w.owner, "automations_create", { ...base, name: "x".repeat(121) })).toMatch(/name/);
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "o",
        conditions: [{ path: "trigger.data'; DROP TABLE automations;--", op: "eq" }],
      }),
    ).toMatch(/path/);
    expect(
      await w.err(w.owner, "automations_create", { ...base, name: "p", trigger: { type: "event", eventType: 42 } }),
    ).toMatch(/eventType/);
    expect(
      await w.err(w.owner, "automations_create", {
        ...base,
        name: "q",
        trigger: { type: "event", eventType: "nothing.*" },
      }),
    ).toContain("not an event");
    const prefixed = await w.ok(w.owner, "automations_create", {
      ...base,
      name: "Any order event",
      trigger: { type: "event", eventType: "order.*" },
    });
    expect(
      (await w.ok(w.owner, "automations_test", { id: prefixed.id, sample: { type: "order.status_changed", data: {} } }))
        .typeMatches,
    ).toBe(true);
    expect(
      (await w.ok(w.owner, "automations_test", { id: prefixed.id, sample: { type: "post.published", data: {} } }))
        .typeMatches,
    ).toBe(false);
    const ok = await w.ok(w.owner, "automations_create", { ...base, name: "Unique" });
    expect(ok.enabled).toBe(false);
    expect(await w.err(w.owner, "automations_create", { ...base, name: "Unique" })).toContain("already exists");
    expect(await w.err(w.stranger, "automations_get", { id: ok.id })).toContain("not found");
    expect(await w.err(w.stranger, "automation_runs_list", { automationId: ok.id })).toContain("not found");
    expect(await w.err(w.viewer, "automations_toggle", { id: ok.id, enabled: true })).toMatch(/role|viewer/i);
    const list = await w.ok(w.viewer, "automations_list", { enabled: false });
    expect(list.items.some((x: any) => x.id === ok.id)).toBe(true);
  });
});

describe("concurrency", () => {
  test("racing creates of one name: exactly one wins, the other is told it exists", async () => {
    const def = {
      trigger: { type: "event", eventType: "card.created" },
      actions: [{ type: "notify", with: { roles: ["owner"], title: "x" } }],
    };
    const rs = await Promise.all(
      Array.from({ length: 4 }, () => w.call(w.owner, "automations_create", { ...def, name: "Raced" })),
    );
    expect(rs.filter((r) => !r.isError).length).toBe(1);
    for (const r of rs.filter((r) => r.isError)) expect(r.text).toMatch(/already exists|conflict/i);
  });
  test("racing retries of one failed run queue it once", async () => {
    const a = await w.ok(w.owner, "automations_create", {
      name: "Retry race",
      trigger: { type: "event", eventType: "card.created" },
      actions: [{ type: "call_tool", with: { tool: "cards_create", arguments: { projectId: "NOPE", title: "x" } } }],
      enabled: true,
    });
    await w.ok(w.owner, "cards_create", { projectId: "WEB", title: "Trigger" });
    await settle();
    const [run] = (await w.ok(w.owner, "automation_runs_list", { automationId: a.id })).items;
    expect(run.status).toBe("failed");
    const rs = await Promise.all(
      Array.from({ length: 4 }, () => w.call(w.owner, "automation_runs_retry", { id: run.id })),
    );
    expect(rs.filter((r) => !r.isError).length).toBe(1);
    await w.ok(w.owner, "automations_delete", { id: a.id });
  });
});

describe("run history retention", () => {
  test("automations.prune's check finds finished runs 90 days old or older, not younger ones nor unfinished ones; the run deletes exactly those", async () => {
    const pending = () => pruneRunsJob.pending!(s.deps);
    const now = s.clock.ms();
    const RETENTION = RUN_RETENTION_DAYS * 86_400_000;
    expect(await pending()).toBe(false);
    const [a] = await s.deps.db.select().from(automations).limit(1);
    const run = async (status: "succeeded" | "queued", age: number) =>
      (
        await s.deps.db
          .insert(automationRuns)
          .values({
            automationId: a!.id,
            companyId: a!.companyId,
            version: a!.version,
            status,
            trigger: { kind: "manual" },
            chain: [],
            steps: [],
            createdAt: new Date(now - age),
          })
          .returning()
      )[0]!.id;
    const ids = async () =>
      (
        await s.deps.db
          .select({ id: automationRuns.id })
          .from(automationRuns)
          .where(eq(automationRuns.automationId, a!.id))
          .orderBy(automationRuns.id)
      ).map((r) => r.id);
    const before = await ids();
    const done = await run("succeeded", RETENTION - 1);
    const waiting = await run("queued", 2 * RETENTION);
    expect(await pending()).toBe(false);
    await pruneRuns(s.deps); // held to the check: it must not write
    expect(await ids()).toEqual([...before, done, waiting]);
    // The run deletes created_at ≤ now − 90 days: exactly 90 days old goes.
    await s.deps.db
      .update(automationRuns)
      .set({ createdAt: new Date(now - RETENTION) })
      .where(eq(automationRuns.id, done));
    expect(await pending()).toBe(true);
    await pruneRuns(s.deps);
    expect(await ids()).toEqual([...before, waiting]);
    expect(await pending()).toBe(false);
    await s.deps.db.delete(automationRuns).where(eq(automationRuns.id, waiting));
  });
});
