/**
 * SIGTERM and SIGINT on a real `plinth serve` process: requests in flight
 * finish, new connections are refused, the store is closed (on SQLite the
 * WAL folded into the database file), and the process exits 0 with one line
 * saying so; past the grace period, or on a second signal, what still runs
 * is cut off. Requests are held "in flight" deterministically by sending
 * their headers and only part of their body, so the handler is waiting
 * for the rest when the signal lands.
 */
import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, statSync } from "node:fs";
import { connect, type Socket } from "node:net";
import { join } from "node:path";
import { ON_PG } from "../db";
import { spawnServe, type ServeProcess } from "./child";

let child: ServeProcess | null = null;
afterEach(async () => {
  await child?.cleanup();
  child = null;
});

const BODY = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } });

/** A POST /api/mcp whose body is only half sent: its handler waits for the rest. */
function halfSent(port: number, key: string): Promise<{ finish(): Promise<string>; socket: Socket }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => {
      socket.write(
        `POST /api/mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n` +
          `Accept: application/json, text/event-stream\r\nContent-Length: ${BODY.length}\r\nConnection: close\r\n\r\n${BODY.slice(0, 10)}`,
      );
      let out = "";
      socket.on("data", (d) => (out += d));
      const closed = new Promise<string>((r) => socket.on("close", () => r(out)));
      resolve({
        socket,
        async finish() {
          socket.write(BODY.slice(10));
          return closed;
        },
      });
    });
    socket.on("error", reject);
  });
}

function connects(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect(port, "127.0.0.1");
    s.on("connect", () => {
      s.destroy();
      resolve("connected");
    });
    s.on("error", (e: NodeJS.ErrnoException) => resolve(e.code ?? "error"));
  });
}

/** Polls the loopback metrics listener until `n` requests are in flight. */
async function inFlight(metricsUrl: string, n: number) {
  const end = Date.now() + 10_000;
  for (;;) {
    const text = await (await fetch(metricsUrl)).text();
    const v = Number(/^plinth_http_requests_in_flight (\d+)$/m.exec(text)?.[1]);
    if (v === n) return;
    if (Date.now() > end) throw new Error(`in flight: ${v}, wanted ${n}`);
    await Bun.sleep(20);
  }
}

async function start(env: Record<string, string> = {}) {
  child = await spawnServe(["--metrics-port", "0"], env);
  const key = /MCP key \(demo user\):\s+(svc_mcp_[0-9a-f]{64})/.exec(await child.line(/MCP key \(demo user\)/))![1]!;
  const metrics = /Metrics: (http:\/\/127\.0\.0\.1:\d+\/metrics)/.exec(await child.line(/Metrics: http/))![1]!;
  return { c: child, key, metrics };
}

describe("graceful shutdown of a real process", () => {
  test("SIGTERM: requests in flight finish with 200, new connections are refused, the store is closed, exit 0 with one line", async () => {
    const { c, key, metrics } = await start();
    const held = await Promise.all([halfSent(c.port, key), halfSent(c.port, key), halfSent(c.port, key)]);
    await inFlight(metrics, 3);
    c.proc.kill("SIGTERM");
    // The listener closes at once: a new connection is refused while the three are still waiting.
    // One that reached the accept queue just before the close is reset (ECONNRESET), never served: poll past it too.
    const end = Date.now() + 5000;
    let refused = await connects(c.port);
    while ((refused === "connected" || refused === "ECONNRESET") && Date.now() < end) {
      await Bun.sleep(20);
      refused = await connects(c.port);
    }
    expect(refused).toBe("ECONNREFUSED");
    expect(c.proc.exitCode).toBeNull();
    const answers = await Promise.all(held.map((h) => h.finish()));
    for (const a of answers) {
      expect(a.split("\r\n")[0]).toBe("HTTP/1.1 200 OK");
      expect(a).toMatch(/x-request-id: [0-9a-f-]{36}/i);
      expect(JSON.parse(a.slice(a.indexOf("\r\n\r\n") + 4)).result.content[0].text).toContain('"userId"');
    }
    expect(await c.proc.exited).toBe(0);
    expect(c.out.at(-1)).toBe("plinth: stopped on SIGTERM after finishing 3 requests in flight; database closed");
    // Every access line made it out before the exit, the three held requests among them.
    const logged = c.out.filter((l) => l.startsWith("{")).map((l) => JSON.parse(l));
    expect(
      logged.filter((o) => o.route === "/api/mcp" && o.status === 200 && o.mcp?.[0]?.tool === "whoami"),
    ).toHaveLength(3);
    if (!ON_PG) {
      // store.close checkpointed the WAL into the database file: it is empty or gone.
      const wal = join(c.dataDir, "plinth.sqlite-wal");
      expect(existsSync(wal) ? statSync(wal).size : 0).toBe(0);
    }
    expect(await connects(Number(new URL(metrics).port))).toBe("ECONNREFUSED");
  }, 60_000);

  test("a request still running when the grace period ends is cut off; the process still exits 0 and says so", async () => {
    const { c, key, metrics } = await start({ PLINTH_SHUTDOWN_GRACE_MS: "300" });
    const held = await halfSent(c.port, key);
    await inFlight(metrics, 1);
    const t0 = Date.now();
    c.proc.kill("SIGTERM");
    expect(await c.proc.exited).toBe(0);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(c.out.at(-1)).toBe(
      "plinth: stopped on SIGTERM after finishing 0 requests in flight; 1 still running was cut off (grace 300 ms); database closed",
    );
    held.socket.destroy();
  }, 60_000);

  test("SIGINT does the same, and a second signal cuts off at once what still runs", async () => {
    const { c, key, metrics } = await start({ PLINTH_SHUTDOWN_GRACE_MS: "60000" });
    const held = await halfSent(c.port, key);
    await inFlight(metrics, 1);
    c.proc.kill("SIGINT");
    await Bun.sleep(300);
    expect(c.proc.exitCode).toBeNull(); // still waiting for the held request
    c.proc.kill("SIGINT");
    expect(await c.proc.exited).toBe(0);
    expect(c.out.at(-1)).toMatch(
      /^plinth: stopped on SIGINT after finishing 0 requests in flight; 1 still running was cut off/,
    );
    held.socket.destroy();
  }, 60_000);
});
