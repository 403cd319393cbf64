/**
 * The reverse-proxy examples operators copy, run as they are (markers
 * replaced): deploy/nginx.conf and deploy/haproxy.cfg in front of a real
 * `plinth serve` with PLINTH_TRUST_PROXY=1. Requests and MCP calls pass with
 * one upstream dead (nginx retries on the live one), nginx's request id is
 * the one Plinth answers with and logs, a spoofed X-Forwarded-For does not
 * reach the log, and /metrics is not served through either proxy. The
 * deploy/plinth.service unit and its environment file are checked too.
 */
import "../../src/catalog"; // the domains declare their settings when the catalog is built
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { allSettings, loadConfig } from "../../src/config";
import {
  canConnect,
  ensureDebianPackages,
  findBinary,
  freePort,
  SERVICE_PACKAGES,
  startHaproxy,
  type HaproxyServer,
} from "../infra/services";
import { ROOT, spawnServe, type ServeProcess } from "./child";

const NGINX = { bin: "nginx", pkg: "nginx" };
const TOKEN = "proxy-test-metrics-token-0123";

/** deploy/nginx.conf with its `plinth:listen` line and `plinth:servers` block replaced. */
function renderNginxConfig(template: string, listen: number, servers: number[]): string {
  const lines = template.split("\n");
  const at = lines.findIndex((l) => /#\s*plinth:listen\b/.test(l));
  const begin = lines.findIndex((l) => /#\s*plinth:servers BEGIN\b/.test(l));
  const end = lines.findIndex((l) => /#\s*plinth:servers END\b/.test(l));
  if (at < 0 || begin < 0 || end < begin)
    throw new Error("nginx template lacks the plinth:listen line or the plinth:servers markers");
  // Each instance gets the options the example's first server line has.
  const options = /server\s+\S+(.*)$/.exec(lines[begin + 1]!)![1]!;
  const indent = (l: string) => /^\s*/.exec(l)![0];
  return lines
    .flatMap((l, i) => {
      if (i === at) return [`${indent(l)}listen 127.0.0.1:${listen};  # plinth:listen`];
      if (i === begin) return [l, ...servers.map((p) => `${indent(lines[end]!)}server 127.0.0.1:${p}${options}`)];
      return i > begin && i < end ? [] : [l];
    })
    .join("\n");
}

let plinth: ServeProcess;
let nginx: { url: string; proc: ReturnType<typeof Bun.spawn>; dir: string } | null = null;
let haproxy: HaproxyServer | null = null;
let mcpKey: string;

beforeAll(async () => {
  await ensureDebianPackages([NGINX, SERVICE_PACKAGES.haproxy]);
  const port = await freePort();
  const dead = await freePort(); // nothing listens there: an instance that is down
  plinth = await spawnServe([], {
    PLINTH_TRUST_PROXY: "1",
    PLINTH_PUBLIC_URL: `http://127.0.0.1:${port}`,
    PLINTH_METRICS_TOKEN: TOKEN,
  });
  mcpKey = /MCP key \(demo user\):\s+(svc_mcp_[0-9a-f]{64})/.exec(await plinth.line(/MCP key \(demo user\)/))![1]!;

  const dir = mkdtempSync(join(tmpdir(), "plinth-nginx-"));
  for (const d of ["body", "proxy", "fastcgi", "uwsgi", "scgi"]) mkdirSync(join(dir, d));
  writeFileSync(
    join(dir, "plinth.conf"),
    renderNginxConfig(readFileSync(join(ROOT, "deploy/nginx.conf"), "utf8"), port, [dead, plinth.port]),
  );
  // The `http` block nginx's own /etc/nginx/nginx.conf would give, in a temp dir, in the foreground.
  writeFileSync(
    join(dir, "nginx.conf"),
    [
      `pid ${dir}/nginx.pid;`,
      `error_log ${dir}/error.log info;`,
      "events { worker_connections 256; }",
      "http {",
      `  access_log ${dir}/access.log;`,
      ...["body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
        (d) => `  ${d === "body" ? "client_body" : d}_temp_path ${dir}/${d};`,
      ),
      `  include ${dir}/plinth.conf;`,
      "}",
    ].join("\n"),
  );
  const proc = Bun.spawn(
    [findBinary("nginx")!, "-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off; master_process off;"],
    {
      stdout: "ignore",
      stderr: "pipe",
    },
  );
  nginx = { url: `http://127.0.0.1:${port}`, proc, dir };
  const end = Date.now() + 10_000;
  while (!(await canConnect(port, "127.0.0.1", 200))) {
    if (proc.exitCode !== null || Date.now() > end) {
      proc.kill("SIGKILL");
      const log = await Bun.file(join(dir, "error.log"))
        .text()
        .catch(() => "");
      throw new Error(`nginx did not start (exit ${proc.exitCode}): ${await new Response(proc.stderr).text()}\n${log}`);
    }
    await Bun.sleep(50);
  }
  haproxy = await startHaproxy([{ host: "127.0.0.1", port: plinth.port }]);
}, 180_000);

afterAll(async () => {
  nginx?.proc.kill("SIGKILL");
  await nginx?.proc.exited;
  if (nginx) rmSync(nginx.dir, { recursive: true, force: true });
  await haproxy?.stop();
  await plinth?.cleanup();
});

async function loggedLine(id: string): Promise<Record<string, any>> {
  const line = await plinth.line(new RegExp(`"id":"${id}"`), 5000);
  return JSON.parse(line);
}

describe("deploy/nginx.conf", () => {
  test("REST and MCP through nginx answer, with one of the two instances down", async () => {
    for (let i = 0; i < 6; i++) expect((await fetch(`${nginx!.url}/api/v1/sites/1/config`)).status).toBe(200);
    for (let i = 0; i < 4; i++) {
      const r = await fetch(`${nginx!.url}/api/mcp`, {
        method: "POST",
        headers: {
          Authorization: `Bearer ${mcpKey}`,
          "Content-Type": "application/json",
          Accept: "application/json, text/event-stream",
        },
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: i,
          method: "tools/call",
          params: { name: "whoami", arguments: {} },
        }),
      });
      expect(r.status).toBe(200); // Host passed as sent: the MCP allow-list takes the public URL's host
    }
  });

  test("nginx's request id is the one Plinth answers with and logs; a spoofed X-Forwarded-For is not the logged client", async () => {
    const r = await fetch(`${nginx!.url}/healthz`, {
      headers: { "X-Forwarded-For": "203.0.113.9", "X-Request-Id": "client-chosen" },
    });
    const id = r.headers.get("x-request-id")!;
    expect(id).toMatch(/^[0-9a-f]{32}$/); // nginx's $request_id
    const line = await loggedLine(id);
    expect(line.route).toBe("/healthz");
    expect(line.client).toBe("127.0.0.1"); // the address nginx appended, not the one the client claimed
  });

  test("/metrics is not served through it (scrape each instance)", async () => {
    expect((await fetch(`${nginx!.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(404);
    expect((await fetch(`${plinth.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(200);
  });
});

describe("deploy/haproxy.cfg", () => {
  test("serves through, and not /metrics", async () => {
    expect((await fetch(`${haproxy!.url}/healthz`)).status).toBe(200);
    expect((await fetch(`${haproxy!.url}/metrics`, { headers: { Authorization: `Bearer ${TOKEN}` } })).status).toBe(
      404,
    );
  });
});

describe("deploy/plinth.service", () => {
  const unit = readFileSync(join(ROOT, "deploy/plinth.service"), "utf8");
  const directives = new Map<string, string[]>();
  for (const line of unit.split("\n")) {
    const m = /^(\w+)=(.*)$/.exec(line.trim());
    if (m) directives.set(m[1]!, [...(directives.get(m[1]!) ?? []), m[2]!]);
  }
  const one = (k: string) => directives.get(k)?.[0];

  test("a dedicated user, /var/lib/plinth as state and working directory, the environment file, restart on failure, hardening", () => {
    expect(one("User")).toBe("plinth");
    expect(one("StateDirectory")).toBe("plinth");
    expect(one("WorkingDirectory")).toBe("/var/lib/plinth");
    expect(one("EnvironmentFile")).toBe("/etc/plinth/plinth.env");
    expect(one("ExecStart")).toBe("/usr/local/bin/plinth serve");
    expect(one("Restart")).toBe("on-failure");
    for (const [k, v] of Object.entries({
      NoNewPrivileges: "yes",
      ProtectSystem: "strict",
      ReadWritePaths: "/var/lib/plinth",
      PrivateTmp: "yes",
      ProtectHome: "yes",
    }))
      expect({ k, v: one(k) }).toEqual({ k, v });
    expect(directives.has("MemoryDenyWriteExecute")).toBe(false); // the JIT needs it off
  });

  test("TimeoutStopSec leaves room for the shutdown grace period", () => {
    const stop = Number(/^(\d+)s?$/.exec(one("TimeoutStopSec")!)![1]) * 1000;
    const env = readFileSync(join(ROOT, "deploy/plinth.env.example"), "utf8");
    const grace = Number(/^PLINTH_SHUTDOWN_GRACE_MS=(\d+)$/m.exec(env)![1]);
    expect(stop).toBeGreaterThan(grace + 5000);
    expect(stop).toBeGreaterThan(loadConfig({}, {}).shutdownGraceMs + 5000);
  });

  test("plinth.env.example names only real settings, and its active lines make a valid configuration", () => {
    const env = readFileSync(join(ROOT, "deploy/plinth.env.example"), "utf8");
    const known = new Set(allSettings().map((s) => s.env));
    const named = [...env.matchAll(/^#?(PLINTH_[A-Z0-9_]+)=/gm)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(5);
    for (const n of named) expect({ n, known: known.has(n) }).toEqual({ n, known: true });
    const active = Object.fromEntries([...env.matchAll(/^(PLINTH_[A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!]));
    expect(() => loadConfig({}, active)).not.toThrow();
  });

  test("systemd-analyze verify accepts it (where systemd is installed)", () => {
    const analyze = findBinary("systemd-analyze");
    if (!analyze) return;
    const dir = mkdtempSync(join(tmpdir(), "plinth-unit-"));
    try {
      writeFileSync(join(dir, "plinth.env"), "");
      // The binary and the environment file exist only on the real machine: point at stand-ins.
      writeFileSync(
        join(dir, "plinth.service"),
        unit
          .replaceAll("/usr/local/bin/plinth", "/bin/true")
          .replaceAll("/etc/plinth/plinth.env", join(dir, "plinth.env")),
      );
      const r = Bun.spawnSync([analyze, "verify", join(dir, "plinth.service")], { stdout: "pipe", stderr: "pipe" });
      expect({ code: r.exitCode, err: r.stderr.toString() }).toEqual({ code: 0, err: "" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
