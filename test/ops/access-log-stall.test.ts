/**
 * A real `plinth serve` whose stdout nobody reads for a while (a stalled
 * log collector): the server keeps answering, the access log holds at most
 * its bound and drops the rest, counting them on /metrics; once the reader
 * catches up, a `"log":"dropped"` line says how many went, and every
 * request is accounted for — written or counted, none lost silently.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropDatabase, freshDatabaseUrl, ON_PG } from "../db";
import { childEnv, MAIN, ROOT } from "./child";

const dataDir = mkdtempSync(join(tmpdir(), "plinth-stall-"));
let databaseUrl: string | null = null;
let proc: ReturnType<typeof Bun.spawn> | null = null;

afterAll(async () => {
  proc?.kill();
  await proc?.exited;
  rmSync(dataDir, { recursive: true, force: true });
  if (databaseUrl) await dropDatabase(databaseUrl);
});

test("a stalled stdout: requests still answered, lines past 4 MB dropped and counted, the count written once it reads again", async () => {
  databaseUrl = ON_PG ? await freshDatabaseUrl() : null;
  proc = Bun.spawn(
    [
      process.execPath,
      MAIN,
      "serve",
      "--port",
      "0",
      "--data-dir",
      dataDir,
      "--metrics-port",
      "0",
      "--rate-limit",
      "1000000",
      "--log",
      "access",
    ],
    {
      cwd: ROOT,
      stdout: "pipe",
      stderr: "pipe",
      env: childEnv({ PLINTH_DATABASE_URL: databaseUrl ?? undefined }),
    },
  );
  const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  while (!/Metrics: http\S+/.test(text)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`exited before listening:\n${text}`);
    text += decoder.decode(value, { stream: true });
  }
  const url = /listening on (http:\/\/\S+)/.exec(text)![1]!;
  const metrics = /Metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(text)![1]!;

  // Nobody reads stdout now: 30,000 requests make ~7 MB of lines against a 64 KB pipe.
  const N = 30_000;
  for (let b = 0; b < N / 500; b++) {
    const statuses = await Promise.all(
      Array.from({ length: 500 }, () => fetch(`${url}/healthz`).then((r) => (r.arrayBuffer(), r.status))),
    );
    expect(statuses.every((st) => st === 200)).toBe(true);
  }
  await Bun.sleep(200); // the last lines' queue drains (50 ms) into the stalled sink
  const dropped = Number(
    /^plinth_access_log_dropped_lines_total (\d+)$/m.exec(await (await fetch(metrics)).text())?.[1],
  );
  expect(dropped).toBeGreaterThan(0);
  expect(dropped).toBeLessThan(N);

  // Read again, then one more request: its line comes out after every notice.
  let rest = text.slice(text.lastIndexOf("\n") + 1);
  const reading = (async () => {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      rest += decoder.decode(value, { stream: true });
    }
  })();
  const last = (await fetch(`${url}/healthz`)).headers.get("x-request-id")!;
  for (let i = 0; i < 200 && !rest.includes(last); i++) await Bun.sleep(50);
  expect(rest).toContain(last);
  const lines = rest
    .split("\n")
    .filter((l) => l.startsWith("{"))
    .map((l) => JSON.parse(l));
  const notices = lines.filter((l) => l.log === "dropped");
  expect(notices.length).toBeGreaterThan(0);
  const written = lines.filter((l) => l.route === "/healthz").length;
  // Every request's line was written or counted in a notice; the notices add up to the metric.
  expect(notices.reduce((n, l) => n + l.lines, 0)).toBe(dropped);
  expect(written + dropped).toBe(N + 1);
  proc.kill();
  await reading;
}, 120_000);
