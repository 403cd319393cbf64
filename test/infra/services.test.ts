/**
 * The test servers of test/infra/services.ts, for real: PostgreSQL, Redis and
 * HAProxy (from deploy/haproxy.cfg) started, used, stopped, and checked to be
 * gone, including when the process that started them is killed.
 *
 * Missing Debian packages are installed first. Only when that is impossible
 * (no apt, not root and no sudo, apt failing) is the file skipped, with the
 * reason printed; any other failure fails.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import Redis from "ioredis";
import postgres from "postgres";
import {
  canConnect,
  ensureDebianPackages,
  findBinary,
  freePort,
  HAPROXY_TEMPLATE,
  PackageInstallError,
  renderHaproxyConfig,
  SERVICE_PACKAGES,
  startHaproxy,
  startPostgres,
  startRedis,
} from "./services";

const skipReason = await ensureDebianPackages(Object.values(SERVICE_PACKAGES)).then(
  () => null,
  (e: unknown) => {
    if (e instanceof PackageInstallError) return e.message;
    throw e;
  },
);
if (skipReason) console.warn(`test/infra/services.test.ts SKIPPED: ${skipReason}`);
const suite = skipReason ? describe.skip : describe;

/** Alive and not a zombie. */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^[ZX]$/.test(stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3));
  } catch {
    return false;
  }
}

async function expectGone(s: { port: number; pid: number; dir: string }): Promise<void> {
  expect(await canConnect(s.port)).toBe(false);
  expect(alive(s.pid)).toBe(false);
  expect(existsSync(s.dir)).toBe(false);
}

async function waitFor(cond: () => boolean | Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await cond()) return true;
    await Bun.sleep(25);
  }
  return cond();
}

suite("test services", () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c().catch(() => {});
  });

  test("freePort gives a port nobody listens on", async () => {
    const port = await freePort();
    expect(port).toBeGreaterThan(0);
    expect(await canConnect(port)).toBe(false);
  });

  test("postgres: a fresh cluster on loopback, superuser plinth, gone after stop", async () => {
    const t0 = performance.now();
    const pg = await startPostgres();
    cleanups.push(pg.stop);
    console.log(`startPostgres took ${Math.round(performance.now() - t0)} ms (${pg.version})`);
    expect(pg.adminUrl).toBe(`postgres://plinth@127.0.0.1:${pg.port}/postgres`);
    expect(pg.url).toBe(`postgres://plinth@127.0.0.1:${pg.port}/plinth`);
    if (process.getuid?.() === 0) {
      // As root the server runs as the postgres system user.
      const uid = /^Uid:\s+(\d+)/m.exec(readFileSync(`/proc/${pg.pid}/status`, "utf8"))?.[1];
      expect(uid).toMatch(/^\d+$/);
      expect(uid).not.toBe("0");
    }

    const admin = postgres(pg.adminUrl, { max: 2, onnotice: () => {} });
    try {
      const [v] = await admin`select version() as v, current_user as u, current_setting('fsync') as fsync,
        current_setting('max_connections') as maxc, pg_encoding_to_char(encoding) as enc
        from pg_database where datname = current_database()`;
      expect(v!.v).toContain("PostgreSQL");
      expect(v!.u).toBe("plinth");
      expect(v!.fsync).toBe("off");
      expect(v!.maxc).toBe("300");
      expect(v!.enc).toBe("UTF8");

      await admin`create database scratch`;
      const db = postgres(pg.adminUrl.replace(/\/postgres$/, "/scratch"), { max: 1, onnotice: () => {} });
      try {
        await db`create table t (id serial primary key, name text not null)`;
        await db`insert into t (name) values ('é'), ('z'), ('a')`;
        expect((await db`select name from t order by name`).map((r) => r.name)).toEqual(["a", "z", "é"]);
      } finally {
        await db.end();
      }
      await admin`drop database scratch with (force)`;
      expect((await admin`select count(*)::int as n from pg_database where datname = 'scratch'`)[0]!.n).toBe(0);

      const app = postgres(pg.url, { max: 1, onnotice: () => {} });
      expect((await app`select current_database() as d`)[0]!.d).toBe("plinth");
      await app.end();
    } finally {
      await admin.end();
    }

    await pg.stop();
    await pg.stop(); // idempotent
    await expectGone(pg);
  });

  test("redis: SET/GET and a Lua script, gone after stop", async () => {
    const r = await startRedis();
    cleanups.push(r.stop);
    const client = new Redis(r.url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    try {
      await client.connect();
      expect(await client.set("greeting", "hello")).toBe("OK");
      expect(await client.get("greeting")).toBe("hello");
      const script = "redis.call('SET', KEYS[1], ARGV[1]); return redis.call('INCRBY', KEYS[1], ARGV[2])";
      expect(await client.eval(script, 1, "counter", "40", "2")).toBe(42);
    } finally {
      client.disconnect();
    }
    await r.stop();
    await r.stop();
    await expectGone(r);
  });

  test("deploy/haproxy.cfg renders to a config haproxy accepts", async () => {
    const cfg = renderHaproxyConfig(readFileSync(HAPROXY_TEMPLATE, "utf8"), { host: "127.0.0.1", port: 18080 }, [
      { host: "127.0.0.1", port: 18081 },
      { host: "::1", port: 18082 },
    ]);
    expect(cfg).toContain("bind 127.0.0.1:18080");
    expect(cfg).toContain("server app1 127.0.0.1:18081");
    expect(cfg).toContain("server app2 [::1]:18082");
    expect(cfg).not.toContain("127.0.0.1:8787");
    const path = `${process.env.TMPDIR ?? "/tmp"}/plinth-haproxy-check-${process.pid}.cfg`;
    await Bun.write(path, cfg);
    const check = Bun.spawnSync([findBinary("haproxy")!, "-c", "-f", path], { stderr: "pipe", stdout: "pipe" });
    Bun.spawnSync(["rm", "-f", path]);
    expect(check.stdout.toString() + check.stderr.toString()).toContain("Configuration file is valid");
    expect(check.exitCode).toBe(0);
  });

  test("haproxy: round-robin over two backends, fail-over when one dies", async () => {
    const backend = (name: string) =>
      Bun.serve({
        hostname: "127.0.0.1",
        port: 0,
        fetch: (req) => (new URL(req.url).pathname === "/healthz" ? new Response("ok") : new Response(name)),
      });
    const a = backend("a");
    const b = backend("b");
    cleanups.push(async () => {
      await a.stop(true);
      await b.stop(true);
    });
    const lb = await startHaproxy([
      { host: "127.0.0.1", port: a.port! },
      { host: "127.0.0.1", port: b.port! },
    ]);
    cleanups.push(lb.stop);
    expect(readFileSync(lb.configPath, "utf8")).toContain(`server app2 127.0.0.1:${b.port}`);

    const get = async () => {
      const res = await fetch(`${lb.url}/whoami`);
      return `${res.status} ${await res.text()}`;
    };
    const seen: string[] = [];
    for (let i = 0; i < 6; i++) seen.push(await get());
    expect(new Set(seen)).toEqual(new Set(["200 a", "200 b"]));
    for (let i = 1; i < seen.length; i++) expect(seen[i]).not.toBe(seen[i - 1]);

    await a.stop(true);
    const stoppedAt = performance.now();
    const after: string[] = [];
    while (performance.now() - stoppedAt < 1500) after.push(await get().catch((e) => `error ${e}`));
    const failed = after.filter((s) => s !== "200 b");
    console.log(
      `after backend a stopped: ${after.length} requests in 1.5 s, ${failed.length} not answered by b ${failed.slice(0, 3).join(", ")}`,
    );
    // Retries with redispatch move a request off the dead backend at once.
    expect(failed).toEqual([]);
    // The health check has marked a down by now (inter 200ms, fall 2).
    expect(readFileSync(`${lb.dir}/haproxy.log`, "utf8")).toMatch(/plinth_app\/app1 is DOWN/);

    await lb.stop();
    await lb.stop();
    await b.stop(true);
    await expectGone(lb);
    expect(await canConnect(a.port!)).toBe(false);
    expect(await canConnect(b.port!)).toBe(false);
  });

  test("servers die with the process that started them, even on SIGKILL", async () => {
    const services = `${import.meta.dir}/services.ts`;
    const code = `
      import { startPostgres, startRedis } from ${JSON.stringify(services)};
      const pg = await startPostgres();
      const r = await startRedis();
      console.log(JSON.stringify({ pg: { port: pg.port, pid: pg.pid, dir: pg.dir }, r: { port: r.port, pid: r.pid, dir: r.dir } }));
      process.kill(process.pid, "SIGKILL");
    `;
    const child = Bun.spawn([process.execPath, "-e", code], { stdout: "pipe", stderr: "pipe" });
    const [out, err] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
    expect(await child.exited).not.toBe(0);
    expect(child.signalCode).toBe("SIGKILL");
    let started: Record<"pg" | "r", { port: number; pid: number; dir: string }>;
    try {
      started = JSON.parse(out.trim().split("\n").pop()!);
    } catch {
      throw new Error(`child printed no JSON.\nstdout: ${out}\nstderr: ${err}`);
    }
    for (const s of [started.pg, started.r]) {
      const gone = await waitFor(async () => !alive(s.pid) && !existsSync(s.dir) && !(await canConnect(s.port)), 5000);
      expect({ ...s, gone }).toEqual({ ...s, gone: true });
    }
  });
});
