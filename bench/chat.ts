/**
 * `make bench` (also alone: `bun bench/chat.ts`; on PostgreSQL:
 * `bun scripts/with-postgres.ts bun bench/chat.ts`): chat fan-out latency
 * with 500 connected widgets.
 *
 * A real server (in this process) with one inbox and 500 visitors, each
 * with an open conversation and an open SSE stream (/chat/api/<key>/stream,
 * as the widget holds it). Then:
 *
 *   1. single: 200 agent replies one at a time to random conversations;
 *      latency = from the reply verb's start to the visitor's stream
 *      receiving it (commit, hub wake-up, one read, write to the socket);
 *   2. burst: one reply to every one of the 500 conversations at once;
 *      latency per message from the burst's start (dominated by the 500
 *      write transactions queueing) and from each reply's own commit;
 *   3. inbound: 100 visitor messages (HTTP POST) while an agent holds
 *      /chat/agent/stream; latency to the agent's feed.
 *
 * The 500 widgets run in a child process (bench/chat-clients.ts) and stamp
 * each message as they read it; both processes share one 2-core machine
 * with everything else on it, so figures are an upper bound.
 */
import { sites } from "../src/domains/sites/tables";

// Bun's fetch holds at most 256 connections at once unless told otherwise; 500 streams need more.
if (!process.env.BUN_CONFIG_MAX_HTTP_REQUESTS) {
  const p = Bun.spawn([process.execPath, ...process.argv.slice(1)], {
    env: { ...process.env, BUN_CONFIG_MAX_HTTP_REQUESTS: "4096" },
    stdout: "inherit",
    stderr: "inherit",
  });
  process.exit(await p.exited);
}

const WIDGETS = Number(process.env.BENCH_CHAT_WIDGETS ?? 500);
const SINGLE = Number(process.env.BENCH_CHAT_SINGLE ?? 200);
const INBOUND = Number(process.env.BENCH_CHAT_INBOUND ?? 100);

process.env.PLINTH_LOG = "off";
const { PUBLIC_LIMITS } = await import("../src/domains/chat/public-pages");
Object.assign(PUBLIC_LIMITS, { posts: 1e9, reads: 1e9, streams: 1e9 });
const { startTestServer } = await import("../test/harness");
const { createCompany, createUser, mintMcpKey } = await import("../test/fixtures/accounts");
const { chatDomain } = await import("../src/domains/chat/tools");
const { visitorPost } = await import("../src/domains/chat/visitor");
const { chatInboxes, chatMessages } = await import("../src/domains/chat/tables");
const v = await import("valibot");
const { desc, eq } = await import("drizzle-orm");

const s = await startTestServer({ seed: false, config: { rateLimit: 1e9 } });
const u = await createUser(s.deps, { email: "agent@bench.test", name: "Bench Agent" });
const co = await createCompany(s.deps, { name: "Bench", ownerUserId: u.id });
const site = (await s.deps.db.insert(sites).values({ companyId: co.id, name: "Bench site" }).returning())[0]!;
const company = { id: co.id, name: co.name, role: "owner" as const };
const ctx = {
  deps: s.deps,
  principal: {
    userId: u.id,
    credential: { kind: "cli" as const, id: 0, name: "bench" },
    scopes: ["*"],
    companies: [company],
    requireCmsApproval: false,
  },
  company,
  requestId: "bench",
};
const call = async (name: string, args: Record<string, unknown>): Promise<any> => {
  const t = chatDomain.tools.find((x) => x.name === name)!;
  return t.run(ctx, v.parse(t.input, args));
};
const inbox = await call("chat_inboxes_create", { siteId: site.id, name: "Bench chat" });
const row = (await s.deps.db.select().from(chatInboxes).where(eq(chatInboxes.id, inbox.id)))[0]!;

interface Widget {
  token: string;
  conversation: number;
}
const widgets: Widget[] = [];
for (let i = 0; i < WIDGETS; i++) {
  const r = await visitorPost(s.deps, row, null, { body: `hello from visitor ${i}` });
  widgets.push({ token: r.token!, conversation: r.conversation });
}

function read(body: ReadableStream<Uint8Array>, onData: (d: any) => void) {
  const rd = body.getReader();
  const dec = new TextDecoder();
  let buf = "";
  void (async () => {
    try {
      for (;;) {
        const x = await rd.read();
        if (x.done) break;
        buf += dec.decode(x.value, { stream: true });
        let i;
        while ((i = buf.indexOf("\n\n")) >= 0) {
          const ev = buf.slice(0, i);
          buf = buf.slice(i + 2);
          for (const l of ev.split("\n")) if (l.startsWith("data: ")) onData(JSON.parse(l.slice(6)));
        }
      }
    } catch {}
  })();
}

const now = () => performance.timeOrigin + performance.now();
const base = `${s.url}/chat/api/${inbox.widgetKey}`;
const t0 = now();
// The widgets live in a child process (bench/chat-clients.ts): their receive times are theirs, not delayed by this process's work.
const clients = Bun.spawn([process.execPath, new URL("./chat-clients.ts", import.meta.url).pathname], {
  stdin: "pipe",
  stdout: "pipe",
  stderr: "inherit",
  env: process.env,
});
// Streams resume after the newest message so far: the greetings above are history, not part of the measure.
const newest = (
  await s.deps.db.select({ id: chatMessages.id }).from(chatMessages).orderBy(desc(chatMessages.id)).limit(1)
)[0]!.id;
clients.stdin.write(JSON.stringify({ base, after: newest, tokens: widgets.map((w) => w.token) }));
clients.stdin.end();
const arrived = new Map<string, (t: number) => void>();
let ready = false;
void (async () => {
  const dec = new TextDecoder();
  let buf = "";
  for await (const chunk of clients.stdout) {
    buf += dec.decode(chunk, { stream: true });
    let i;
    while ((i = buf.indexOf("\n")) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 1);
      if (line.startsWith("ready ")) ready = true;
      const tab = line.lastIndexOf("\t");
      if (tab > 0) {
        const body = line.slice(0, tab);
        arrived.get(body)?.(Number(line.slice(tab + 1)));
        arrived.delete(body);
      }
    }
  }
})();
const { hubFor } = await import("../src/domains/chat/hub");
while (!ready || hubFor(s.deps).size < WIDGETS) await Bun.sleep(10);
const connectMs = now() - t0;

const expectOn = (body: string) => new Promise<number>((resolve) => arrived.set(body, resolve));
const pct = (xs: number[], p: number) => {
  const a = [...xs].sort((x, y) => x - y);
  return a[Math.min(a.length - 1, Math.floor((p / 100) * a.length))]!;
};
const fmt = (xs: number[]) =>
  `p50 ${pct(xs, 50).toFixed(1)} ms · p95 ${pct(xs, 95).toFixed(1)} ms · p99 ${pct(xs, 99).toFixed(1)} ms · max ${Math.max(...xs).toFixed(1)} ms`;

// 1. single replies
const single: number[] = [];
const singleAfterCommit: number[] = [];
for (let i = 0; i < SINGLE; i++) {
  const w = widgets[(i * 7919) % widgets.length]!;
  const body = `single ${i}`;
  const got = expectOn(body);
  const start = now();
  await call("chat_conversations_reply", { id: w.conversation, body });
  const commit = now();
  const at = await got;
  single.push(at - start);
  singleAfterCommit.push(Math.max(0, at - commit));
}

// 2. burst: one reply to every widget at once
const burstStart = now();
const arrivals = widgets.map((_, i) => expectOn(`burst ${i}`));
// Each reply starts in a macrotask of its own, as replies arriving over HTTP would: 500 calls
// started in one synchronous loop would keep the event loop in microtasks until all had
// committed, and no socket would be written meanwhile.
const started: Promise<number>[] = [];
for (let i = 0; i < widgets.length; i++) {
  started.push(
    call("chat_conversations_reply", { id: widgets[i]!.conversation, body: `burst ${i}` }).then(() => now()),
  );
  await new Promise((r) => setImmediate(r));
}
const committed = await Promise.all(started);
const landed = await Promise.all(arrivals);
const burst = landed.map((t) => t - burstStart);
const afterCommit = landed.map((t, i) => Math.max(0, t - committed[i]!));
const writesMs = Math.max(...committed) - burstStart;

// 3. inbound: visitor → agent feed
const key = (await mintMcpKey(s.deps, { userId: u.id, scopes: ["chat:read"], companyIds: [co.id] })).key;
const feedCtl = new AbortController();
const feedWaiters = new Map<string, (t: number) => void>();
const feed = await fetch(`${s.url}/chat/agent/stream`, {
  headers: { Authorization: `Bearer ${key}` },
  signal: feedCtl.signal,
});
read(feed.body!, (m) => feedWaiters.get(m.body)?.(performance.now()));
await Bun.sleep(100);
const inbound: number[] = [];
for (let i = 0; i < INBOUND; i++) {
  const w = widgets[(i * 104729) % widgets.length]!;
  const body = `inbound ${i}`;
  const got = new Promise<number>((r) => feedWaiters.set(body, r));
  const start = performance.now();
  const r = await fetch(`${base}/messages`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${w.token}` },
    body: JSON.stringify({ body }),
  });
  if (r.status !== 201) throw new Error(`post ${r.status}`);
  inbound.push((await got) - start);
}

const engine = s.deps.store.engine;
console.log(`chat fan-out, ${engine}, ${WIDGETS} connected widgets (connected in ${connectMs.toFixed(0)} ms)`);
console.log(`  single reply → widget (${SINGLE}), from the verb's start: ${fmt(single)}`);
console.log(`  single reply → widget, from its commit:   ${fmt(singleAfterCommit)}`);
console.log(
  `  burst, 1 reply to each of ${WIDGETS}, from the burst's start: ${fmt(burst)} (the ${WIDGETS} writes took ${writesMs.toFixed(0)} ms)`,
);
console.log(`  burst, each reply from its commit:     ${fmt(afterCommit)}`);
console.log(`  visitor POST → agent feed (${INBOUND}):   ${fmt(inbound)}`);
console.log(
  `  server RSS: ${(process.memoryUsage().rss / 1e6).toFixed(0)} MB (the server process; the widgets run in a child)`,
);

feedCtl.abort();
clients.kill();
await Bun.sleep(100);
await s.stop();
process.exit(0);
