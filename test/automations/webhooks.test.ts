/**
 * Outgoing webhooks against a loopback receiver, over a real server and MCP
 * client: Standard Webhooks signatures verified by the reference library,
 * retries on the backoff schedule, order per entity, disabling after
 * repeated failure (with a notification), redelivery, and the SSRF guard.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { ManualClock } from "../../src/core/clock";
import { notifications } from "../../src/domains/notifications/tables";
import { checkTargetUrl, isPrivateAddress } from "../../src/domains/automations/outbound";
import {
  deliveriesToPrune,
  DELIVERY_RETENTION_DAYS,
  FAILURE_LIMIT,
  MAX_ATTEMPTS,
  RETRY_DELAYS_MS,
} from "../../src/domains/automations/webhooks";
import { deliverDue, pruneDeliveries } from "../jobs";
import { webhookDeliveries } from "../../src/domains/automations/tables";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { caughtUp } from "./settle";

interface Received {
  id: string;
  type: string;
  entity: string;
  verified: boolean;
  body: any;
}

let s: TestServer;
let w: World;
let receiver: ReturnType<typeof Bun.serve>;
let secret = "";
let failing = false;
const got: Received[] = [];
let hits = 0;

beforeAll(async () => {
  s = await startTestServer({
    seed: false,
    clock: new ManualClock(Date.now()),
    config: { webhooksAllowPrivate: true },
  });
  w = await makeWorld(s);
  // The tests drive delivery and runs themselves; the background runner would race them for the same rows.
  await s.jobs.stop();
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      hits++;
      const body = await req.text();
      if (failing) return new Response("down for maintenance", { status: 503 });
      let verified = false;
      let parsed: any = null;
      try {
        parsed = new Webhook(secret).verify(body, Object.fromEntries(req.headers));
        verified = true;
      } catch {
        parsed = JSON.parse(body);
      }
      got.push({
        id: req.headers.get("webhook-id")!,
        type: parsed.type,
        entity: `${parsed.entity.type}:${parsed.entity.id}`,
        verified,
        body: parsed,
      });
      return new Response("ok");
    },
  });
});
afterAll(async () => {
  receiver.stop(true);
  await s.stop();
});

const url = () => `http://127.0.0.1:${receiver.port}/hooks/plinth`;
async function pump() {
  await caughtUp(s);
  return await deliverDue(s.deps);
}

describe("webhooks", () => {
  let hookId = 0;
  test("create returns the secret once; a post's events arrive signed, in order, with cache tags", async () => {
    const created = await w.ok(w.owner, "webhooks_create", {
      url: url(),
      eventTypes: ["post.*"],
      description: "Next.js revalidation",
    });
    expect(created.secret).toMatch(/^whsec_/);
    secret = created.secret;
    hookId = created.id;
    const got1 = await w.ok(w.owner, "webhooks_get", { id: hookId });
    expect(got1.secretHint).toBe(`${secret.slice(0, 10)}…`);
    expect(JSON.stringify(got1)).not.toContain(secret.slice(10));

    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Launch notes" });
    await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: p.id, title: "Launch notes, final" });
    await w
      .ok(w.owner, "tickets_create", { subject: "Not subscribed", requesterEmail: "x@example.test", body: "hi" })
      .catch(() => null);
    expect(await pump()).toBe(2);
    expect(got.map((g) => [g.type, g.verified])).toEqual([
      ["post.created", true],
      ["post.updated", true],
    ]);
    expect(got[0]!.body.data.cacheTags).toContain(`site:${w.siteA}:post:${p.id}`);
    expect(got[0]!.body.siteId).toBe(w.siteA);
    expect(got[0]!.id).toBe(got[0]!.body.id);
    const list = await w.ok(w.owner, "webhook_deliveries_list", { webhookId: hookId, status: "succeeded" });
    expect(list.total).toBe(2);
  });

  test("a failing receiver: retries on the schedule, later events of the same entity wait, order holds", async () => {
    got.length = 0;
    failing = true;
    const p = await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Retry me" });
    await w.ok(w.owner, "posts_update", { siteId: w.siteA, id: p.id, excerpt: "second event" });
    const before = hits;
    // Only the first of the two is attempted: the second waits behind it.
    expect(await pump()).toBe(1);
    expect(hits - before).toBe(1);
    expect(await deliverDue(s.deps)).toBe(0); // not due again for 5 s
    s.clock.advance(RETRY_DELAYS_MS[0]! - 1);
    expect(await deliverDue(s.deps)).toBe(0);
    s.clock.advance(1);
    expect(await deliverDue(s.deps)).toBe(1);
    const [first] = (
      await w.ok(w.owner, "webhook_deliveries_list", { webhookId: hookId, status: "pending" })
    ).items.slice(-1);
    const detail = await w.ok(w.owner, "webhook_deliveries_get", { id: first.id });
    expect(detail.attempts).toBe(2);
    expect(detail.attemptLog.map((a: any) => [a.statusCode, a.responseBody])).toEqual([
      [503, "down for maintenance"],
      [503, "down for maintenance"],
    ]);
    failing = false;
    s.clock.advance(RETRY_DELAYS_MS[1]!);
    expect(await deliverDue(s.deps)).toBe(2);
    expect(got.map((g) => g.type)).toEqual(["post.created", "post.updated"]);
    expect(got.every((g) => g.entity === `post:${p.id}` && g.verified)).toBe(true);
  });

  test("repeated failure disables the webhook and notifies; enabling resends what waited; redeliver", async () => {
    failing = true;
    got.length = 0;
    const ids: number[] = [];
    for (let i = 0; i < FAILURE_LIMIT; i++)
      ids.push((await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: `Doomed ${i}` })).id);
    await caughtUp(s);
    for (let i = 0; i < MAX_ATTEMPTS; i++) {
      await deliverDue(s.deps);
      s.clock.advance(RETRY_DELAYS_MS[Math.min(i, RETRY_DELAYS_MS.length - 1)]!);
    }
    const hook = await w.ok(w.owner, "webhooks_get", { id: hookId });
    expect(hook.status).toBe("disabled");
    expect(hook.failureStreak).toBe(FAILURE_LIMIT);
    expect(hook.disabledReason).toContain(`${MAX_ATTEMPTS} attempts`);
    expect(hook.deliveries.failed).toBe(FAILURE_LIMIT);
    const notes = await s.deps.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.userId, w.ownerUserId), eq(notifications.type, "webhook.disabled")));
    expect(notes.length).toBe(1);
    expect(notes[0]!.title).toContain(url());
    // Disabled: new events make no deliveries.
    const n0 = (await s.deps.db.select().from(webhookDeliveries)).length;
    await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "While disabled" });
    await pump();
    expect((await s.deps.db.select().from(webhookDeliveries)).length).toBe(n0);

    failing = false;
    await w.ok(w.owner, "webhooks_update", { id: hookId, enabled: true });
    const failed = (await w.ok(w.owner, "webhook_deliveries_list", { webhookId: hookId, status: "failed" })).items;
    expect(failed.length).toBe(FAILURE_LIMIT);
    const r = await w.ok(w.owner, "webhook_deliveries_redeliver", { id: failed[0].id });
    expect(r.status).toBe("pending");
    expect(await w.err(w.owner, "webhook_deliveries_redeliver", { id: failed[0].id })).toContain("already pending");
    expect(await deliverDue(s.deps)).toBe(1);
    expect(got[0]!.verified).toBe(true);
    expect(got[0]!.id).toBe(failed[0].eventId ? `evt_${failed[0].eventId}` : "");
    expect((await w.ok(w.owner, "webhooks_get", { id: hookId })).failureStreak).toBe(0);
  });

  test("rotate secret: deliveries are signed with the new one", async () => {
    const r = await w.ok(w.owner, "webhooks_rotate_secret", { id: hookId });
    const old = secret;
    secret = r.secret;
    expect(secret).not.toBe(old);
    got.length = 0;
    await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "After rotation" });
    await pump();
    expect(got.length).toBe(1);
    expect(got[0]!.verified).toBe(true);
    expect(() =>
      new Webhook(old).verify(JSON.stringify(got[0]!.body), {
        "webhook-id": "x",
        "webhook-timestamp": "1",
        "webhook-signature": "v1,xx",
      }),
    ).toThrow();
  });

  test("the delivery job runs from the job runner", async () => {
    got.length = 0;
    await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: "Via the runner" });
    await caughtUp(s);
    s.clock.advance(60_000);
    const outcomes = await s.jobs.runDue();
    expect(outcomes.find((o) => o.name === "webhooks.deliver")).toEqual({ name: "webhooks.deliver", ok: true });
    expect(got.map((g) => g.type)).toEqual(["post.created"]);
  });

  test("two deliverers at once: each delivery is sent once, order per entity holds", async () => {
    got.length = 0;
    const ids: number[] = [];
    for (let i = 0; i < 6; i++)
      ids.push((await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: `Race ${i}` })).id);
    for (const id of ids.slice(0, 3)) await w.ok(w.owner, "posts_update", { siteId: w.siteA, id, excerpt: "edited" });
    await caughtUp(s);
    const [a, b] = await Promise.all([deliverDue(s.deps), deliverDue(s.deps)]);
    expect(a + b).toBe(9);
    expect(got.length).toBe(9);
    expect(new Set(got.map((g) => g.id)).size).toBe(9);
    for (const id of ids.slice(0, 3))
      expect(got.filter((g) => g.entity === `post:${id}`).map((g) => g.type)).toEqual(["post.created", "post.updated"]);
  });

  test("webhooks_test sends a signed test payload and reports the answer; nothing is recorded", async () => {
    got.length = 0;
    const n0 = (await s.deps.db.select().from(webhookDeliveries)).length;
    const r = await w.ok(w.owner, "webhooks_test", { id: hookId });
    expect(r).toMatchObject({ ok: true, statusCode: 200, error: null, response: "ok" });
    expect(got.map((g) => [g.type, g.verified])).toEqual([["webhook.test", true]]);
    failing = true;
    const bad = await w.ok(w.owner, "webhooks_test", { id: hookId });
    failing = false;
    expect(bad).toMatchObject({ ok: false, statusCode: 503, error: "HTTP 503", response: "down for maintenance" });
    expect((await s.deps.db.select().from(webhookDeliveries)).length).toBe(n0);
    expect(await w.err(w.viewer, "webhooks_test", { id: hookId })).toMatch(/role|viewer/i);
  });

  test("finished deliveries are pruned after 30 days, with their attempts; pending ones stay; the job's check finds work at the same instants", async () => {
    const { webhookAttempts } = await import("../../src/domains/automations/tables");
    const all = await s.deps.db.select().from(webhookDeliveries);
    expect(all.length).toBeGreaterThan(0);
    const times = all.map((d) => d.createdAt.getTime());
    const oldest = Math.min(...times);
    const newest = Math.max(...times);
    const oldestFinished = all.filter((d) => d.createdAt.getTime() === oldest && d.status !== "pending").length;
    expect(oldestFinished).toBeGreaterThan(0);
    s.clock.set(oldest + DELIVERY_RETENTION_DAYS * 86_400_000 - 1);
    expect(await deliveriesToPrune(s.deps)).toBe(false);
    await pruneDeliveries(s.deps); // held to the check: it must not write
    expect((await s.deps.db.select().from(webhookDeliveries)).length).toBe(all.length);
    // At exactly 30 days old (the run deletes created_at ≤ now − 30 days).
    s.clock.set(oldest + DELIVERY_RETENTION_DAYS * 86_400_000);
    expect(await deliveriesToPrune(s.deps)).toBe(true);
    await pruneDeliveries(s.deps);
    expect((await s.deps.db.select().from(webhookDeliveries)).length).toBe(all.length - oldestFinished);
    // Every delivery so far has finished: one is made pending again (its next attempt far off), and stays.
    const [stuck] = await s.deps.db
      .select()
      .from(webhookDeliveries)
      .where(eq(webhookDeliveries.status, "failed"))
      .limit(1);
    await s.deps.db
      .update(webhookDeliveries)
      .set({ status: "pending", nextAttemptAt: new Date(newest + 365 * 86_400_000) })
      .where(eq(webhookDeliveries.id, stuck!.id));
    s.clock.set(newest + DELIVERY_RETENTION_DAYS * 86_400_000);
    expect(await deliveriesToPrune(s.deps)).toBe(true);
    await pruneDeliveries(s.deps);
    const left = await s.deps.db.select().from(webhookDeliveries);
    expect(left.map((d) => [d.id, d.status])).toEqual([[stuck!.id, "pending"]]);
    // A pending delivery, however old, is no work.
    expect(await deliveriesToPrune(s.deps)).toBe(false);
    const attempts = await s.deps.db.select().from(webhookAttempts);
    expect(attempts.every((a) => left.some((d) => d.id === a.deliveryId))).toBe(true);
    await s.deps.db.delete(webhookDeliveries).where(eq(webhookDeliveries.id, stuck!.id));
  });

  test("validation, tenancy and roles", async () => {
    expect(await w.err(w.owner, "webhooks_create", { url: url(), eventTypes: ["post.publishd"] })).toContain(
      "Unknown event type",
    );
    expect(await w.err(w.owner, "webhooks_create", { url: "ftp://example.com/x", eventTypes: ["*"] })).toContain(
      "http(s)",
    );
    expect(
      await w.err(w.owner, "webhooks_create", { url: "https://user:pw@example.com/x", eventTypes: ["*"] }),
    ).toContain("credentials");
    expect(await w.err(w.owner, "webhooks_create", { url: "not a url", eventTypes: ["*"] })).toContain("not a URL");
    expect(await w.err(w.owner, "webhooks_update", { id: hookId })).toContain("Nothing to update");
    expect(await w.err(w.stranger, "webhooks_get", { id: hookId })).toContain("not found");
    expect(await w.err(w.stranger, "webhook_deliveries_list", { webhookId: hookId })).toContain("not found");
    expect(await w.err(w.viewer, "webhooks_create", { url: url(), eventTypes: ["*"] })).toMatch(/role|viewer/i);
    const ok = await w.ok(w.owner, "webhooks_create", { url: url(), eventTypes: ["order.*", "branding.updated"] });
    expect((await w.ok(w.owner, "webhooks_delete", { id: ok.id })).status).toBe("deleted");
  });
});

describe("SSRF guard", () => {
  const deny = { config: { webhooksAllowPrivate: false } } as any;
  test("private, loopback, link-local and mapped addresses are refused", () => {
    for (const ip of [
      "127.0.0.1",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "::1",
      "::",
      "fc00::1",
      "fd12::1",
      "fe80::1",
      "::ffff:127.0.0.1",
      "::ffff:10.0.0.1",
    ])
      expect([ip, isPrivateAddress(ip)]).toEqual([ip, true]);
    for (const ip of ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "::ffff:8.8.8.8"])
      expect([ip, isPrivateAddress(ip)]).toEqual([ip, false]);
  });
  test("URLs naming them are refused when saved unless the operator allows private targets", () => {
    for (const u of [
      "http://127.0.0.1:8080/x",
      "http://localhost/x",
      "http://[::1]/x",
      "http://169.254.169.254/latest/meta-data",
      "http://api.localhost/x",
    ])
      expect(() => checkTargetUrl(deny, u)).toThrow(/loopback or private/);
    expect(checkTargetUrl(deny, "https://hooks.example.com/plinth")).toBe("https://hooks.example.com/plinth");
    expect(checkTargetUrl({ config: { webhooksAllowPrivate: true } } as any, "http://127.0.0.1:9/x")).toBe(
      "http://127.0.0.1:9/x",
    );
  });
  test("a 3xx is never followed (here to a loopback 'metadata' address): the attempt fails with its status and is retried", async () => {
    let trapped = 0;
    const trap = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch() {
        trapped++;
        return new Response("metadata");
      },
    });
    let code = 302;
    const redirector = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      fetch: () =>
        new Response("moved", {
          status: code,
          headers: { location: `http://127.0.0.1:${trap.port}/latest/meta-data` },
        }),
    });
    try {
      const hook = await w.ok(w.owner, "webhooks_create", {
        url: `http://127.0.0.1:${redirector.port}/hook`,
        eventTypes: ["post.created"],
      });
      const codes = [301, 302, 303, 307, 308];
      for (const c of codes) {
        code = c;
        await w.ok(w.owner, "posts_create", { siteId: w.siteA, title: `Moved ${c}` });
        await pump();
      }
      expect(trapped).toBe(0);
      const list = await w.ok(w.owner, "webhook_deliveries_list", { webhookId: hook.id });
      expect(list.total).toBe(codes.length);
      const seen = [];
      for (const d of list.items) {
        // Failed attempts, not successes: pending with a retry scheduled on the usual backoff.
        expect(d).toMatchObject({
          status: "pending",
          attempts: 1,
          lastError: `redirect (${d.lastStatusCode}) not followed`,
        });
        expect(Date.parse(d.nextAttemptAt)).toBe(s.clock.ms() + RETRY_DELAYS_MS[0]!);
        const detail = await w.ok(w.owner, "webhook_deliveries_get", { id: d.id });
        expect(detail.attemptLog).toHaveLength(1);
        expect(detail.attemptLog[0].error).toBe(`redirect (${detail.attemptLog[0].statusCode}) not followed`);
        seen.push(detail.attemptLog[0].statusCode);
      }
      expect(seen.sort()).toEqual(codes);
      await w.ok(w.owner, "webhooks_delete", { id: hook.id });
    } finally {
      trap.stop(true);
      redirector.stop(true);
    }
  });
  test("a name resolving to loopback is refused at send time", async () => {
    const { sendSigned } = await import("../../src/domains/automations/outbound");
    const o = await sendSigned(
      deny,
      { url: `http://localhost:${receiver.port}/x`, secret: "whsec_" + Buffer.from("k".repeat(32)).toString("base64") },
      "msg_1",
      "{}",
    );
    expect(o.ok).toBe(false);
    expect(o.error).toMatch(/refused: localhost resolves to a loopback or private address/);
  });
});
