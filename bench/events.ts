/**
 * Events per second from the outbox to a loopback webhook receiver, with
 * per-entity order checked at the receiver (`bun bench/events.ts`; not a
 * test). A fresh SQLite data dir, one company with one webhook subscribed
 * to "*"; BENCH_EVENTS events (default 5000) over BENCH_ENTITIES entities
 * (default 500) are written in transactions of 100, then the clock starts:
 * the dispatcher fans them out into deliveries and the delivery loop sends
 * them, until the receiver has them all. Aim: ≥ 1,000 events/s on SQLite.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig } from "../src/config";
import { emit } from "../src/core/events";
import { companies, memberships, users } from "../src/core/tables";
import { deliverDue } from "../src/domains/automations/webhooks";
import { webhookEndpoints } from "../src/domains/automations/tables";
import { newSigningSecret } from "../src/domains/automations/outbound";
import { brandingUpdated } from "../src/domains/branding/events";
import { startServer } from "../src/server";

const N = Number(process.env.BENCH_EVENTS ?? 5000);
const ENTITIES = Number(process.env.BENCH_ENTITIES ?? 500);
const dataDir = mkdtempSync(join(tmpdir(), "plinth-bench-events-"));
const config = { ...loadConfig({}, {}), port: 0, dataDir, log: "off", webhooksAllowPrivate: true } as ReturnType<
  typeof loadConfig
>;

const lastSeq = new Map<string, number>();
let received = 0;
let outOfOrder = 0;
const receiver = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  async fetch(req) {
    const body = (await req.json()) as { entity: { id: number }; data: { fields: string[] } };
    const key = String(body.entity.id);
    const seq = Number(body.data.fields[0]);
    if ((lastSeq.get(key) ?? -1) >= seq) outOfOrder++;
    lastSeq.set(key, seq);
    received++;
    return new Response("ok");
  },
});

const s = await startServer(config, { seed: false });
// This loop drives delivery itself: the background dispatcher and job runner would race it.
await s.dispatcher.stop();
await s.jobs.stop();
const deps = s.deps;
const [u] = await deps.db.insert(users).values({ email: "bench@example.test", name: "Bench" }).returning();
const [c] = await deps.db.insert(companies).values({ name: "Bench Co" }).returning();
await deps.db.insert(memberships).values({ companyId: c!.id, userId: u!.id, role: "owner" });
await deps.db.insert(webhookEndpoints).values({
  companyId: c!.id,
  url: `http://127.0.0.1:${receiver.port}/`,
  eventTypes: ["*"],
  secret: newSigningSecret(),
  status: "enabled",
  createdAt: new Date(),
  updatedAt: new Date(),
});

for (let i = 0; i < N; i += 100) {
  await deps.store.transaction(async (tx) => {
    for (let j = i; j < Math.min(N, i + 100); j++) {
      const entity = j % ENTITIES;
      await emit(
        tx,
        { deps, company: { id: c!.id } },
        brandingUpdated,
        { id: entity + 1 },
        {
          siteId: entity + 1,
          action: "update",
          fields: [String(Math.floor(j / ENTITIES))],
          cacheTags: [`site:${entity + 1}`],
        },
      );
    }
  });
}

const t0 = performance.now();
while (received < N) {
  await s.dispatcher.drain();
  await deliverDue(deps);
}
const secs = (performance.now() - t0) / 1000;
console.log(
  JSON.stringify({
    events: N,
    entities: ENTITIES,
    seconds: Number(secs.toFixed(2)),
    eventsPerSecond: Math.round(N / secs),
    outOfOrder,
  }),
);
receiver.stop(true);
await s.stop();
rmSync(dataDir, { recursive: true, force: true });
if (outOfOrder) process.exit(1);
