/**
 * Automations an agent can read and trust, over a real server and MCP
 * client (issue 29, items 4 and 5): the guides and the event and action
 * shapes are resources and a tool; a dry run refuses exactly what the live
 * run refuses, with the same message, for every action type, and its
 * warnings are whole; a failed run is replayed once on the current version
 * with its original trigger data, and the history links the two.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { and, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import * as v from "valibot";
import { auditLog } from "../../src/core/tables";
import { automationRuns } from "../../src/domains/automations/tables";
import { linkGuides } from "../../src/mcp/define";
import { runQueued } from "../jobs";
import { startSmtp, type TestSmtp } from "../infra/smtp";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";

let s: TestServer;
let w: World;
let smtp: TestSmtp;
let webhookId = 0;

beforeAll(async () => {
  smtp = await startSmtp();
  s = await startTestServer({
    seed: false,
    config: { smtpUrl: smtp.url(), mailFrom: "Plinth <robot@plinth.test>", webhooksAllowPrivate: true },
  });
  w = await makeWorld(s);
  // The tests run queued runs themselves; the background runner would race them for the same rows.
  await s.jobs.stop();
  await w.ok(w.owner, "projects_create", { name: "Website", key: "WEB" });
  webhookId = (await w.ok(w.owner, "webhooks_create", { url: `${s.url}/nowhere`, eventTypes: ["post.published"] })).id;
});
afterAll(async () => {
  await s.stop();
  await smtp.stop();
});

const text = (r: { contents: unknown[] }) => (r.contents[0] as { text: string }).text;
const mime = (r: { contents: unknown[] }) => (r.contents[0] as { mimeType: string }).mimeType;

/** Starts a run the way a sender does: a signed POST to the automation's hook URL. */
async function fire(a: { hookUrl: string; hookSecret: string }, data: unknown) {
  const id = `msg_${crypto.randomUUID()}`;
  const body = JSON.stringify(data);
  const now = new Date();
  const r = await fetch(`${s.url}${new URL(a.hookUrl).pathname}`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "webhook-id": id,
      "webhook-timestamp": String(Math.floor(now.getTime() / 1000)),
      "webhook-signature": new Webhook(a.hookSecret).sign(id, now, body),
    },
    body,
  });
  expect(r.status).toBe(202);
  const runs = await w.ok(w.owner, "automation_runs_list", { automationId: (a as unknown as { id: number }).id });
  await runQueued(s.deps);
  return await w.ok(w.owner, "automation_runs_get", { id: runs.items[0].id });
}

describe("guides and shapes an agent can read", () => {
  test("resources/list offers the guides and the shapes, each with a one-line description", async () => {
    const list = (await w.owner.listResources()).resources;
    for (const uri of ["docs://automations", "docs://webhooks", "automations://events", "automations://actions"]) {
      const r = list.find((x) => x.uri === uri);
      expect(r?.description?.length).toBeGreaterThan(40);
      expect(r?.description).not.toContain("\n");
    }
  });

  test("docs://automations is the guide in the repository, as Markdown, links between served guides as URIs", async () => {
    const r = await w.owner.readResource({ uri: "docs://automations" });
    expect(mime(r)).toBe("text/markdown");
    const file = readFileSync(join(import.meta.dir, "../../docs/automations.md"), "utf8");
    expect(text(r)).toBe(linkGuides(file));
    expect(text(r)).toContain("## Dry run");
    expect(text(await w.owner.readResource({ uri: "docs://webhooks" }))).toContain("# ");
    expect(linkGuides("see [webhooks](webhooks.md#retries) and [mail](mail.md)")).toBe(
      "see [webhooks](docs://webhooks#retries) and [mail](mail.md)",
    );
  });

  test("a credential without automations:read is not offered them, and reading one is refused", async () => {
    const uris = (await w.reader.listResources()).resources.map((r) => r.uri);
    expect(uris).not.toContain("docs://automations");
    expect(uris).not.toContain("automations://events");
    await expect(w.reader.readResource({ uri: "docs://automations" })).rejects.toThrow(/not found/i);
  });

  test("automations://events: every event type with its data as JSON Schema and an example its own schema accepts", async () => {
    const r = await w.owner.readResource({ uri: "automations://events" });
    expect(mime(r)).toBe("application/json");
    const body = JSON.parse(text(r));
    expect(body.events.map((e: any) => e.type)).toEqual([...s.deps.catalog.events.keys()].sort());
    const published = body.events.find((e: any) => e.type === "post.published");
    expect(published.entity).toBe("post");
    expect(published.data.required).toEqual(expect.arrayContaining(["title", "slug", "proposal", "approvedBy"]));
    expect(published.data.properties.proposal.enum).toEqual(["new", "republish", "revision"]);
    expect(published.example.proposal).toBe("new");
    // The example is made from the same schema the emit checks: each one passes it.
    const refused = body.events.filter(
      (e: any) => !v.safeParse(s.deps.catalog.events.get(e.type)!.payload, e.example).success,
    );
    expect(refused.map((e: any) => e.type)).toEqual([]);
    expect(Object.keys(body.trigger)).toEqual(expect.arrayContaining(["data", "entity", "eventType"]));
  });

  test("automations://actions: each action's with fields, required ones listed, create_card's are cards_create's", async () => {
    const body = JSON.parse(text(await w.owner.readResource({ uri: "automations://actions" })));
    const by = Object.fromEntries(body.actions.map((a: any) => [a.type, a]));
    expect(Object.keys(by).sort()).toEqual([
      "call_tool",
      "call_webhook",
      "create_card",
      "http",
      "if",
      "notify",
      "post_chat_message",
      "send_email",
      "wait",
    ]);
    // Flow steps are described from the schemas saves check them with.
    expect(by.if.with.required).toEqual(["conditions", "then"]);
    expect(by.if.with.properties.conditions.items.properties.op.enum).toContain("gt");
    expect(by.wait.with.properties.for.description).toContain("2d");
    expect(by.wait.with.properties.untilChanged.required).toEqual(["tool", "path", "timeout"]);
    expect(by.http.with.required).toEqual(["url"]);
    expect(by.http.with.properties.method.enum).toEqual(["GET", "POST", "PUT", "PATCH", "DELETE"]);
    expect(by.send_email.with.required).toEqual(["to", "subject", "text"]);
    expect(by.send_email.with.properties.to.description).toContain("1 to 20 email addresses");
    expect(by.notify.with.properties.roles.items.enum).toEqual(["owner", "admin", "viewer"]);
    expect(by.call_webhook.with.required).toEqual(["webhookId"]);
    expect(by.post_chat_message.with.required).toEqual(["text"]);
    expect(by.create_card.tool).toBe("cards_create");
    expect(by.create_card.with.required).toEqual(expect.arrayContaining(["title"]));
    expect(by.create_card.with.properties.projectId).toBeDefined();
    for (const a of body.actions) expect(a.example).toBeDefined();
  });

  test("automation_catalog_get: event names alone, one type or a prefix with data, an unknown one refused", async () => {
    const all = await w.ok(w.owner, "automation_catalog_get", {});
    expect(all.actions).toHaveLength(9);
    expect(all.events.find((e: any) => e.type === "post.published")).toEqual({
      type: "post.published",
      description: expect.any(String),
    });
    const post = await w.ok(w.owner, "automation_catalog_get", { eventType: "post.*", actionType: "send_email" });
    expect(post.events.map((e: any) => e.type)).toEqual(
      [...s.deps.catalog.events.keys()].filter((k) => k.startsWith("post.")).sort(),
    );
    expect(post.events[0].data.properties).toBeDefined();
    expect(post.actions.map((a: any) => a.type)).toEqual(["send_email"]);
    const every = await w.ok(w.owner, "automation_catalog_get", { eventType: "*" });
    expect(every.events).toHaveLength(s.deps.catalog.events.size);
    const one = await w.ok(w.owner, "automation_catalog_get", { eventType: "order.created" });
    expect(one.events.map((e: any) => e.type)).toEqual(["order.created"]);
    expect(await w.err(w.owner, "automation_catalog_get", { eventType: "post.exploded" })).toContain(
      'No event type matches "post.exploded"',
    );
    expect(await w.err(w.owner, "automation_catalog_get", { actionType: "launch" })).toContain("actionType");
  });
});

describe("a dry run refuses what the live run refuses, with the same message", () => {
  // One per action type: `with` (templates), data the run accepts, data it refuses and the live run's message.
  const cases: { type: string; with: Record<string, unknown>; good?: () => unknown; bad: unknown; message: string }[] =
    [
      {
        type: "send_email",
        with: { to: "{{trigger.data.to}}", subject: "Hi {{trigger.data.n}}", text: "Order {{trigger.data.n}}" },
        good: () => ({ to: "ops@example.com", n: 7 }),
        bad: { to: "team", n: 7 },
        message: 'send_email: with.to must be 1 to 20 email addresses; got "team".',
      },
      {
        type: "notify",
        with: { roles: "{{trigger.data.roles}}", title: "New lead" },
        good: () => ({ roles: ["owner"] }),
        bad: { roles: ["boss"] },
        message: "notify: with.roles.0 must each be one of owner, admin, viewer.",
      },
      {
        type: "call_webhook",
        with: { webhookId: "{{trigger.data.hook}}", body: { n: "{{trigger.data.n}}" } },
        good: () => ({ hook: webhookId, n: 1 }),
        bad: { hook: 999_999 },
        message: "Webhook 999999 not found.",
      },
      {
        type: "create_card",
        with: { projectId: "WEB", title: "{{trigger.data.title}}" },
        good: () => ({ title: "Lead" }),
        bad: { title: 5 },
        message: "Invalid arguments for cards_create: title: Invalid type: Expected string but received 5",
      },
      {
        type: "call_tool",
        with: { tool: "automations_get", arguments: { id: "{{trigger.data.id}}" } },
        good: () => ({ id: 1 }),
        bad: { id: "first" },
        message: 'Invalid arguments for automations_get: id: Invalid type: Expected number but received "first"',
      },
      {
        type: "post_chat_message",
        with: { conversationId: "{{trigger.data.conversation}}", text: "Hello" },
        bad: { note: "no conversation named" },
        message: "No conversation: give with.conversationId (a conversation number) or trigger on a chat event.",
      },
    ];

  for (const c of cases)
    test(`${c.type}: the dry run passes good data and refuses bad data as the live run does`, async () => {
      const a = await w.ok(w.owner, "automations_create", {
        name: `Trust ${c.type}`,
        trigger: { type: "webhook" },
        actions: [{ type: c.type, with: c.with }],
        enabled: true,
      });
      if (c.good) {
        const dry = await w.ok(w.owner, "automations_test", { id: a.id, sample: { data: c.good() } });
        expect(dry.steps[0].problems).toEqual([]);
        expect(dry.steps[0].ok).toBe(true);
      }
      const dry = await w.ok(w.owner, "automations_test", { id: a.id, sample: { data: c.bad } });
      expect(dry.steps[0].ok).toBe(false);
      expect(dry.steps[0].problems).toEqual([c.message]);
      // The live run with the same data fails at that step with the very same message.
      const run = await fire(a, c.bad);
      expect(run.status).toBe("failed");
      expect(run.steps[0].error).toBe(c.message);
    });

  test("a save refuses a field without templates the way the run would", async () => {
    const msg = await w.err(w.owner, "automations_create", {
      name: "Team mail",
      trigger: { type: "webhook" },
      actions: [{ type: "send_email", with: { to: "team", subject: "x", text: "y" } }],
    });
    expect(msg).toContain('with.to must be 1 to 20 email addresses; got "team"');
    // Fields with templates are left to the run; the others are still checked.
    expect(
      await w.err(w.owner, "automations_create", {
        name: "Team mail",
        trigger: { type: "webhook" },
        actions: [{ type: "notify", with: { title: "{{trigger.data.t}}", roles: ["boss"] } }],
      }),
    ).toContain("with.roles.0 must each be one of owner, admin, viewer");
  });

  test("sampleWarning lists whole issues, never cut mid-word", async () => {
    const a = await w.ok(w.owner, "automations_create", {
      name: "Warn me",
      trigger: { type: "event", eventType: "post.published" },
      actions: [{ type: "notify", with: { roles: ["owner"], title: "{{trigger.data.title}}" } }],
    });
    const dry = await w.ok(w.owner, "automations_test", { id: a.id, sample: { data: { title: 5 } } });
    const warning: string = dry.trigger.sampleWarning;
    expect(warning.startsWith("sample.data does not match post.published: ")).toBe(true);
    expect(warning.endsWith(".")).toBe(true);
    const items = warning.slice("sample.data does not match post.published: ".length, -1).split("; ");
    expect(items).toContain("data.title: Invalid type: Expected string but received 5");
    expect(items).toContain("data.slug is required");
    // At most ten whole issues, then how many more.
    expect(items.length).toBe(11);
    expect(items[10]).toMatch(/^and \d+ more$/);
    for (const i of items.slice(0, 10)) expect(i).toMatch(/^data\.\w+ (is required|: .+)$|^data\.\w+: .+$/);
  });
});

describe("replay a failed run on the current version", () => {
  let a: any;
  let failed: any;

  test("a failed run, fixed, replayed: the new run uses the current version and the original data; the two are linked", async () => {
    a = await w.ok(w.owner, "automations_create", {
      name: "Mail the sender",
      trigger: { type: "webhook" },
      actions: [
        { type: "send_email", with: { to: "{{trigger.data.team}}", subject: "Hi", text: "{{trigger.data.n}}" } },
      ],
      enabled: true,
    });
    failed = await fire(a, { team: "team", email: "ada@example.com", n: 42 });
    expect(failed.status).toBe("failed");
    await w.ok(w.owner, "automations_update", {
      id: a.id,
      actions: [
        { type: "send_email", with: { to: "{{trigger.data.email}}", subject: "Hi", text: "{{trigger.data.n}}" } },
      ],
    });
    const r = await w.ok(w.owner, "automation_runs_replay", { id: failed.id });
    expect(r).toEqual({
      id: expect.any(Number),
      automationId: a.id,
      version: 2,
      status: "queued",
      replayOf: failed.id,
    });
    await runQueued(s.deps);
    const replay = await w.ok(w.owner, "automation_runs_get", { id: r.id });
    expect(replay.status).toBe("succeeded");
    expect(replay.version).toBe(2);
    expect(replay.trigger.data).toEqual(failed.trigger.data);
    expect(replay.steps[0].output.to).toEqual(["ada@example.com"]);
    expect(replay.replayOf).toBe(failed.id);
    expect(replay.replayedBy).toBeNull();
    const old = await w.ok(w.owner, "automation_runs_get", { id: failed.id });
    expect(old.replayedBy).toBe(r.id);
    expect(old.replayOf).toBeNull();
    const list = await w.ok(w.owner, "automation_runs_list", { automationId: a.id });
    expect(list.items.map((x: any) => [x.id, x.replayOf, x.replayedBy])).toEqual([
      [r.id, failed.id, null],
      [failed.id, null, r.id],
    ]);
    const audits = await s.deps.db
      .select()
      .from(auditLog)
      .where(and(eq(auditLog.action, "automation_runs.replay"), eq(auditLog.entityId, r.id)));
    expect(audits).toHaveLength(1);
  });

  test("a run is replayed once: a second call names the replay", async () => {
    expect(await w.err(w.owner, "automation_runs_replay", { id: failed.id })).toContain(
      `Run ${failed.id} was already replayed as run`,
    );
  });

  test("succeeded runs, other companies' runs, disabled and deleted automations are refused clearly", async () => {
    const runs = await w.ok(w.owner, "automation_runs_list", { automationId: a.id, status: "succeeded" });
    expect(await w.err(w.owner, "automation_runs_replay", { id: runs.items[0].id })).toContain(
      "replaying it would do its actions again",
    );
    expect(await w.err(w.stranger, "automation_runs_replay", { id: failed.id })).toContain(
      `Run ${failed.id} not found`,
    );
    const b = await w.ok(w.owner, "automations_create", {
      name: "Off later",
      trigger: { type: "webhook" },
      actions: [{ type: "send_email", with: { to: "{{trigger.data.to}}", subject: "x", text: "y" } }],
      enabled: true,
    });
    const bad = await fire(b, { to: "nobody" });
    expect(bad.status).toBe("failed");
    await w.ok(w.owner, "automations_toggle", { id: b.id, enabled: false });
    expect(await w.err(w.owner, "automation_runs_replay", { id: bad.id })).toContain(
      `Automation ${b.id} is disabled; enable it`,
    );
    const before = w.changes();
    await w.ok(w.owner, "automations_delete", { id: b.id });
    expect(w.changes()).toBeGreaterThan(before);
    expect(await w.err(w.owner, "automation_runs_replay", { id: bad.id })).toContain(
      `Run ${bad.id} not found (a run goes with its automation when that is deleted`,
    );
  });

  test("racing replays of one run make one new run; the other call is told which", async () => {
    const again = await fire(a, { email: "not an address", n: 1 });
    expect(again.status).toBe("failed");
    const out = await Promise.all([0, 1, 2].map(() => w.call(w.owner, "automation_runs_replay", { id: again.id })));
    const ok = out.filter((o) => !o.isError);
    expect(ok).toHaveLength(1);
    for (const o of out.filter((o) => o.isError)) expect(o.text).toContain(`already replayed as run ${ok[0]!.data.id}`);
    const rows = await s.deps.db.select().from(automationRuns).where(eq(automationRuns.replayOf, again.id));
    expect(rows.map((r) => r.id)).toEqual([ok[0]!.data.id]);
  });
});
