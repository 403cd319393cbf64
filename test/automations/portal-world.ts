/**
 * A real server for the automations pages: Acme (owner Olga, admin Sam,
 * viewer Vic) with three automations an agent made over MCP — one that
 * notifies on every new ticket (its runs succeed), one whose second step
 * looks up a ticket that does not exist (its runs fail at that step), and
 * a weekly schedule left off — and two outgoing webhooks, one to a
 * receiver that answers 200 and one to a receiver that answers 503. Two
 * tickets (one with a hostile subject) start the runs and the deliveries.
 * Rival (owner Rita) has an automation, a run and a webhook of its own. The
 * background jobs are stopped: the world runs the queue and the deliveries
 * itself, so the pages show a settled state.
 */
import type { Client } from "@modelcontextprotocol/client";
import { addMember, createCompany, createUser, mcpClient, mintMcpKey, toolOk } from "../fixtures/accounts";
import { startTestServer, type TestServer } from "../harness";
import { deliverDue, runQueued } from "../jobs";
import { caughtUp } from "./settle";

export const PASSWORD = "a long passphrase for tests";
export const XSS_SUBJECT = `<script>alert(1)</script> "><img src=x onerror=alert(2)>`;

export interface AutomationsWorld {
  s: TestServer;
  olga: Client;
  rita: Client;
  receiver: { stop(): void; hits: string[] };
  ids: {
    notify: number;
    failing: number;
    weekly: number;
    okHook: number;
    downHook: number;
    /** A succeeded run of `notify` (the hostile ticket's) and a failed run of `failing`. */
    okRun: number;
    failedRun: number;
  };
  rival: { automation: number; run: number; webhook: number; delivery: number };
  /** Runs what is queued and delivers what is due, once the subscribers have seen every event. */
  settle(): Promise<void>;
}

export async function automationsWorld(): Promise<AutomationsWorld> {
  const s = await startTestServer({ seed: false, config: { rateLimit: 100_000, webhooksAllowPrivate: true } });
  // The world drives runs and deliveries itself; the background runner would race it for the same rows.
  await s.jobs.stop();
  const hits: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req) {
      const path = new URL(req.url).pathname;
      hits.push(path);
      return path === "/down"
        ? new Response("down for maintenance", { status: 503 })
        : new Response("thanks", { status: 200 });
    },
  });
  const recv = `http://127.0.0.1:${server.port}`;

  const mk = (email: string, name: string) => createUser(s.deps, { email, name, password: PASSWORD });
  const olga = await mk("olga@acme.test", "Olga Owner");
  const vic = await mk("vic@acme.test", "Vic Viewer");
  const sam = await mk("sam@acme.test", "Sam Admin");
  const rita = await mk("rita@rival.test", "Rita Rival");
  const acme = await createCompany(s.deps, { name: "Acme", ownerUserId: olga.id });
  const rival = await createCompany(s.deps, { name: "Rival", ownerUserId: rita.id });
  await addMember(s.deps, acme.id, vic.id, "viewer");
  await addMember(s.deps, acme.id, sam.id, "admin");
  const key = async (userId: number, companyId: number) =>
    (await mintMcpKey(s.deps, { userId, scopes: ["*"], companyIds: [companyId] })).key;
  const o = await mcpClient(s.url, await key(olga.id, acme.id));
  const r = await mcpClient(s.url, await key(rita.id, rival.id));
  const call = (name: string, args: Record<string, unknown>, c = o) => toolOk(c, name, args);
  const settle = async () => {
    await caughtUp(s);
    await runQueued(s.deps);
    await caughtUp(s);
    await deliverDue(s.deps);
  };

  const okHook = await call("webhooks_create", {
    url: `${recv}/ok`,
    eventTypes: ["ticket.*"],
    description: "Sync tickets to the <b>CRM</b>",
  });
  const downHook = await call("webhooks_create", { url: `${recv}/down`, eventTypes: ["ticket.created"] });
  const notify = await call("automations_create", {
    name: "Tell the owners about new tickets",
    description: "Every new ticket, a notification to the owners.",
    trigger: { type: "event", eventType: "ticket.created" },
    actions: [{ type: "notify", with: { title: "New ticket: {{trigger.data.subject}}", roles: ["owner"] } }],
    enabled: true,
  });
  const failing = await call("automations_create", {
    name: "Look up the ticket",
    trigger: { type: "event", eventType: "ticket.created" },
    conditions: [{ path: "trigger.data.subject", op: "exists" }],
    actions: [
      { type: "notify", with: { title: "Looking up {{trigger.data.subject}}", roles: ["admin"] } },
      { type: "call_tool", with: { tool: "tickets_get", arguments: { id: 999_999 } } },
    ],
    enabled: true,
  });
  const weekly = await call("automations_create", {
    name: "Weekly digest",
    trigger: { type: "schedule", cron: "0 9 * * 1", timeZone: "Europe/Paris" },
    actions: [{ type: "notify", with: { title: "Your week", roles: ["owner", "admin"] } }],
    enabled: false,
  });
  await call("tickets_create", {
    subject: "Checkout fails",
    body: "Nobody can pay.",
    requesterEmail: "casey@customer.test",
  });
  await call("tickets_create", { subject: XSS_SUBJECT, body: "Planted.", requesterEmail: "mallory@evil.test" });

  const rAuto = await call(
    "automations_create",
    {
      name: "Rival secret automation",
      trigger: { type: "event", eventType: "ticket.created" },
      actions: [{ type: "notify", with: { title: "Rival", roles: ["owner"] } }],
      enabled: true,
    },
    r,
  );
  const rHook = await call("webhooks_create", { url: `${recv}/ok`, eventTypes: ["ticket.*"] }, r);
  await call("tickets_create", { subject: "Rival ticket", body: "Only Rival.", requesterEmail: "x@rival.test" }, r);
  await settle();

  const runsOf = async (automationId: number, c = o) =>
    (await call("automation_runs_list", { automationId }, c)).items as { id: number; status: string }[];
  const okRun = (await runsOf(notify.id)).find((x) => x.status === "succeeded")!;
  const failedRun = (await runsOf(failing.id)).find((x) => x.status === "failed")!;
  const rivalRun = (await runsOf(rAuto.id, r))[0]!;
  const rivalDelivery = (await call("webhook_deliveries_list", { webhookId: rHook.id }, r)).items[0];
  return {
    s,
    olga: o,
    rita: r,
    receiver: { stop: () => server.stop(true), hits },
    ids: {
      notify: notify.id,
      failing: failing.id,
      weekly: weekly.id,
      okHook: okHook.id,
      downHook: downHook.id,
      okRun: okRun.id,
      failedRun: failedRun.id,
    },
    rival: { automation: rAuto.id, run: rivalRun.id, webhook: rHook.id, delivery: rivalDelivery.id },
    settle,
  };
}
