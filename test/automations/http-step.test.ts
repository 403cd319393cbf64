/**
 * The http step over a real server, MCP client and a Bun.serve receiver:
 * a call to an allowed host with a stored secret in a header (sent, never
 * shown), its JSON answer steering a later branch; hosts the company has
 * not allowed, and private addresses when the SSRF guard is on, refused
 * with the reason; an oversized answer cut; the dry run saying what it
 * would call without calling; saves refusing secrets outside headers.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ManualClock } from "../../src/core/clock";
import { HTTP_BODY_MAX } from "../../src/domains/automations/outbound";
import { notifications } from "../../src/domains/notifications/tables";
import { startTestServer, type TestServer } from "../harness";
import { makeWorld, type World } from "../cms/world";
import { runQueued } from "../jobs";
import { caughtUp } from "./settle";

let s: TestServer;
let w: World;
let receiver: ReturnType<typeof Bun.serve>;
const seen: { method: string; path: string; auth: string | null; body: string }[] = [];
let project = 0;
const THEN = "then";

beforeAll(async () => {
  receiver = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(req) {
      const u = new URL(req.url);
      seen.push({
        method: req.method,
        path: u.pathname,
        auth: req.headers.get("authorization"),
        body: await req.text(),
      });
      if (u.pathname === "/big") return new Response("x".repeat(HTTP_BODY_MAX * 3));
      if (u.pathname.startsWith("/orders/"))
        return Response.json(
          {
            status: req.headers.get("authorization") === "Bearer tok-123" ? "paid" : "denied",
            id: u.pathname.slice(8),
          },
          { status: 200 },
        );
      return new Response("nope", { status: 404 });
    },
  });
  // Loopback receivers need the operator's switch, as outgoing webhooks do; the guard is tested with it off below.
  s = await startTestServer({
    seed: false,
    clock: new ManualClock(Date.now()),
    config: { webhooksAllowPrivate: true },
  });
  w = await makeWorld(s);
  await s.jobs.stop();
});
afterAll(async () => {
  await s.stop();
  receiver.stop(true);
});

const base = () => `http://127.0.0.1:${receiver.port}`;

async function automation(name: string, actions: unknown[]) {
  const key = `H${++project}`;
  await w.ok(w.owner, "projects_create", { name: `Http ${project}`, key });
  const a = await w.ok(w.owner, "automations_create", {
    name,
    trigger: {
      type: "event",
      eventType: "card.created",
      filters: [{ path: "trigger.data.projectKey", op: "eq", value: key }],
    },
    actions,
    enabled: true,
  });
  return { id: a.id as number, key };
}

async function fire(key: string, title: string, deps = s.deps) {
  await w.ok(w.owner, "cards_create", { projectId: key, title });
  await caughtUp(s);
  await runQueued(deps);
}

async function lastRun(id: number) {
  const list = await w.ok(w.owner, "automation_runs_list", { automationId: id });
  return await w.ok(w.owner, "automation_runs_get", { id: list.items[0].id });
}

const note = (title: string) => ({ type: "notify", with: { roles: ["owner"], title } });

describe("http step", () => {
  test("settings: hosts and secrets; secret values are never returned; another company sees its own", async () => {
    const set = await w.ok(w.owner, "automation_http_set", {
      hosts: ["127.0.0.1", "*.example.com"],
      secrets: { shop: "tok-123", old: "x" },
    });
    expect(set).toMatchObject({ hosts: ["127.0.0.1", "*.example.com"], secrets: ["old", "shop"] });
    await w.ok(w.owner, "automation_http_set", { secrets: { old: null } });
    const got = await w.ok(w.owner, "automation_http_get", {});
    expect(got).toMatchObject({ hosts: ["127.0.0.1", "*.example.com"], secrets: ["shop"] });
    expect(JSON.stringify(got)).not.toContain("tok-123");
    expect((await w.ok(w.stranger, "automation_http_get", {})).hosts).toEqual([]);
    expect(await w.err(w.owner, "automation_http_set", { hosts: ["http://evil/"] })).toContain(
      'hosts: "http://evil/" is not a host name',
    );
    expect(await w.err(w.owner, "automation_http_set", { secrets: { "no way": "x" } })).toContain(
      'secrets: "no way" is not a name',
    );
  });

  test("calls an allowed host with a secret header; the JSON answer steers a later branch; history masks the secret", async () => {
    const a = await automation("Check order", [
      {
        id: "fetch",
        type: "http",
        with: {
          url: `${base()}/orders/{{trigger.data.key}}`,
          headers: { authorization: "Bearer {{secrets.shop}}", "x-title": "{{trigger.data.title}}" },
        },
      },
      {
        type: "if",
        with: {
          conditions: [{ path: "steps.fetch.output.body.status", op: "eq", value: "paid" }],
          [THEN]: [note("H1 paid {{steps.fetch.output.status}} {{steps.fetch.output.body.id}}")],
          else: [note("H1 unpaid")],
        },
      },
    ]);
    const before = seen.length;
    await fire(a.key, "<script>alert(1)</script>");
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)).toMatchObject({ method: "GET", path: `/orders/${a.key}-1`, auth: "Bearer tok-123" });
    const run = await lastRun(a.id);
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].input.headers).toEqual({
      authorization: "Bearer ••••",
      "x-title": "<script>alert(1)</script>",
    });
    expect(run.steps[0].output).toMatchObject({ status: 200, truncated: false, body: { status: "paid" } });
    expect(run.steps[0].output.headers["content-type"]).toContain("application/json");
    expect(JSON.stringify(run)).not.toContain("tok-123");
    const titles = (await s.deps.db.select({ t: notifications.title }).from(notifications)).map((r) => r.t);
    expect(titles).toContain(`H1 paid 200 ${a.key}-1`);
  });

  test("POST sends JSON; an oversized answer is cut at 64 KB and kept as text", async () => {
    const a = await automation("Big", [
      { type: "http", with: { method: "POST", url: `${base()}/big`, body: { title: "{{trigger.data.title}}" } } },
    ]);
    await fire(a.key, "posted");
    expect(seen.at(-1)).toMatchObject({ method: "POST", path: "/big", body: '{"title":"posted"}' });
    const run = await lastRun(a.id);
    expect(run.status).toBe("succeeded");
    expect(run.steps[0].output.truncated).toBe(true);
    expect(run.steps[0].output.body.length).toBe(HTTP_BODY_MAX);
  });

  test("refused: a host not on the list, a private address with the guard on, an unknown secret", async () => {
    const unlisted = await automation("Unlisted", [
      { type: "http", with: { url: `http://localhost:${receiver.port}/x` } },
    ]);
    const before = seen.length;
    await fire(unlisted.key, "u");
    expect((await lastRun(unlisted.id)).error).toBe(
      "Step 0 (http) failed: http: localhost is not among the hosts this company allows (automation_http_set adds it).",
    );
    const guarded = await automation("Guarded", [{ type: "http", with: { url: `${base()}/orders/1` } }]);
    await fire(guarded.key, "g", { ...s.deps, config: { ...s.deps.config, webhooksAllowPrivate: false } });
    expect((await lastRun(guarded.id)).error).toBe(
      "Step 0 (http) failed: The request was refused: 127.0.0.1 resolves to a loopback or private address (127.0.0.1).",
    );
    const secretless = await automation("Secretless", [
      { type: "http", with: { url: `${base()}/orders/1`, headers: { authorization: "{{secrets.nothere}}" } } },
    ]);
    await fire(secretless.key, "s");
    expect((await lastRun(secretless.id)).error).toBe(
      'Step 0 (http) failed: http: there is no secret "nothere" (automation_http_set stores it).',
    );
    expect(seen.length).toBe(before);
  });

  test("the dry run says what it would call and calls nothing", async () => {
    const a = await automation("Dry http", [
      {
        type: "http",
        with: { url: `${base()}/orders/{{trigger.data.key}}`, headers: { authorization: "Bearer {{secrets.shop}}" } },
      },
      { type: "http", with: { url: "https://elsewhere.test/" } },
    ]);
    const before = seen.length;
    const dry = await w.ok(w.owner, "automations_test", { id: a.id, sample: { data: { key: "K-9" } } });
    expect(dry.steps[0]).toMatchObject({ ok: true, wouldCall: `GET ${base()}/orders/K-9` });
    expect(dry.steps[0].input.headers).toEqual({ authorization: "Bearer ••••" });
    expect(dry.steps[1].problems).toEqual([
      "http: elsewhere.test is not among the hosts this company allows (automation_http_set adds it).",
    ]);
    expect(seen.length).toBe(before);
  });

  test("saves refuse secrets outside headers, bad methods and timeouts, naming the step", async () => {
    const save = (actions: unknown[]) =>
      w.err(w.owner, "automations_create", {
        name: `Bad ${crypto.randomUUID().slice(0, 8)}`,
        trigger: { type: "event", eventType: "card.created" },
        actions,
      });
    // Outside an http step's headers, secrets. is no root a template may read.
    expect(await save([{ type: "http", with: { url: "https://a.example.com/?k={{secrets.shop}}" } }])).toContain(
      '"secrets.shop" must start with trigger., steps. or automation.',
    );
    expect(await save([note("{{secrets.shop}}")])).toContain('"secrets.shop" must start with trigger.');
    expect(
      await save([{ type: "http", with: { url: "https://a.example.com/", headers: { a: "{{secrets.shop.x}}" } } }]),
    ).toContain('"secrets.shop.x" must start with trigger.');
    expect(
      await save([
        {
          type: "if",
          with: {
            conditions: [{ path: "trigger.data.x", op: "eq", value: 1 }],
            [THEN]: [{ type: "http", with: { method: "TRACE", url: "https://a.example.com/", timeout: 999 } }],
          },
        },
      ]),
    ).toContain(
      "actions[0].with.then[0] (http): with.method must be one of GET, POST, PUT, PATCH, DELETE; with.timeout must be seconds from 1 to 30.",
    );
  });
});
