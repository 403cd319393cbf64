/**
 * Real PostgreSQL, Redis and HAProxy servers for tests: each on a free
 * loopback port, in its own temp dir, gone again after `stop()`.
 *
 * Missing servers are installed from Debian's packages (`ensureDebianPackages`),
 * so a clean Debian 12 machine with only Node/npm is enough, as root or as a
 * user with sudo.
 *
 * Why the servers are children and not daemons: a daemon (`pg_ctl start`,
 * `redis-server --daemonize yes`, `haproxy -D`) outlives a test run that
 * crashes or is killed, and then holds its port and temp dir for good. Here
 * every server is a direct child (`Bun.spawn`, no wrapper process, so the pid
 * we hold is the server's own and a signal reaches it), and three things see
 * that it ends:
 *   1. `stop()`: the server's own clean-shutdown signal, SIGKILL after 5 s,
 *      then the temp dir is removed. Idempotent.
 *   2. Hooks on process 'exit', SIGINT, SIGTERM and SIGHUP that do the same
 *      synchronously for whatever is still running. Note that `bun test` does
 *      not emit 'exit' (seen with Bun 1.4.5), so in tests 3. is what counts.
 *   3. A watchdog per server: a small `sh` whose stdin is a pipe from this
 *      process. When this process ends in any way (even SIGKILL or a crash)
 *      the pipe closes, `read` returns, and the watchdog signals the server,
 *      escalates to SIGKILL and removes the temp dir.
 * Servers and watchdogs get their own session (`detached`), so a Ctrl-C in
 * the terminal reaches only this process, which then stops them in order
 * (scripts/with-postgres.ts lets the test command finish first).
 */
import {
  appendFileSync,
  chmodSync,
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readdirSync,
  realpathSync,
  rmSync,
  writeFileSync,
  chownSync,
} from "node:fs";
import { createConnection, createServer } from "node:net";
import { constants as osConstants, tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";
import type { Subprocess } from "bun";

// ---------------------------------------------------------------- packages

export interface DebianPackage {
  /** A program the package provides, looked for on PATH, the sbin dirs and /usr/lib/postgresql/<v>/bin. */
  bin: string;
  /** The Debian package to install when `bin` is missing. */
  pkg: string;
}

/** The packages the servers here come from (Debian 12 names). */
export const SERVICE_PACKAGES = {
  postgres: { bin: "initdb", pkg: "postgresql" },
  redis: { bin: "redis-server", pkg: "redis-server" },
  haproxy: { bin: "haproxy", pkg: "haproxy" },
  dovecot: { bin: "dovecot", pkg: "dovecot-imapd" },
  radicale: { bin: "radicale", pkg: "radicale" },
} satisfies Record<string, DebianPackage>;

/** Thrown when missing packages cannot be installed; tests may skip on it. */
export class PackageInstallError extends Error {
  override name = "PackageInstallError";
}

const SYSTEM_DIRS = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

/** Debian keeps the PostgreSQL server programs off PATH, in /usr/lib/postgresql/<major>/bin; newest first. */
function postgresBinDirs(): string[] {
  const root = "/usr/lib/postgresql";
  let versions: string[] = [];
  try {
    versions = readdirSync(root);
  } catch {
    return [];
  }
  return versions
    .filter((v) => /^\d+(\.\d+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a))
    .map((v) => join(root, v, "bin"));
}

/** Absolute path of a program, or null. Looks beyond PATH: haproxy is in /usr/sbin, off a normal user's PATH. */
export function findBinary(bin: string): string | null {
  const onPath = Bun.which(bin);
  if (onPath) return onPath;
  for (const dir of [...SYSTEM_DIRS, ...postgresBinDirs()]) {
    const p = join(dir, bin);
    if (existsSync(p)) return p;
  }
  return null;
}

const isRoot = () => process.getuid?.() === 0;
let aptUpdated = false;
let installQueue: Promise<void> = Promise.resolve();

async function run(cmd: string[], env?: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  const p = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
  return { code: await p.exited, out: (out + err).trim() };
}

/**
 * Installs the packages whose program is missing: `apt-get update -qq` (once
 * per process) and `apt-get install -y -qq`, through `sudo` when not root.
 * While it runs, /usr/sbin/policy-rc.d (if there is none) answers 101, the
 * standard Debian way to keep a package's postinst from starting its service,
 * so installing redis-server or postgresql leaves no system daemon running.
 * Throws PackageInstallError when it cannot install (no apt, no root/sudo,
 * apt failed).
 */
export function ensureDebianPackages(pkgs: DebianPackage[]): Promise<void> {
  const next = installQueue.then(() => installMissing(pkgs));
  installQueue = next.catch(() => {});
  return next;
}

async function installMissing(pkgs: DebianPackage[]): Promise<void> {
  const missing = pkgs.filter((p) => !findBinary(p.bin));
  if (missing.length === 0) return;
  const names = [...new Set(missing.map((p) => p.pkg))];
  const what = `${missing.map((p) => p.bin).join(", ")} (Debian packages: ${names.join(" ")})`;
  if (process.platform !== "linux" || !findBinary("apt-get")) {
    throw new PackageInstallError(
      `missing ${what}, and there is no apt-get here to install them; install them yourself`,
    );
  }
  let prefix: string[] = [];
  if (!isRoot()) {
    if (!findBinary("sudo")) throw new PackageInstallError(`missing ${what}; not root and no sudo to install them`);
    // Without a terminal sudo cannot ask for a password: -n makes it fail at once instead of hanging.
    prefix = process.stdin.isTTY ? ["sudo"] : ["sudo", "-n"];
  }
  console.error(
    `[services] installing ${names.join(" ")} with apt-get (missing: ${missing.map((p) => p.bin).join(", ")})`,
  );
  const aptEnv = { DEBIAN_FRONTEND: "noninteractive" };
  const policy = "/usr/sbin/policy-rc.d";
  let wrotePolicy = false;
  if (!existsSync(policy)) {
    const script =
      "#!/bin/sh\n# Written by Plinth's test/infra/services.ts during apt-get install; safe to delete.\nexit 101\n";
    const r = await run([...prefix, "sh", "-c", `printf '%s' "$1" > ${policy} && chmod 755 ${policy}`, "sh", script]);
    if (r.code !== 0)
      throw new PackageInstallError(`missing ${what}; cannot write ${policy} (${r.out || `exit ${r.code}`})`);
    wrotePolicy = true;
  }
  try {
    const lock = ["-o", "DPkg::Lock::Timeout=300"];
    if (!aptUpdated) {
      const r = await run(
        [...prefix, "env", "DEBIAN_FRONTEND=noninteractive", "apt-get", ...lock, "update", "-qq"],
        aptEnv,
      );
      if (r.code !== 0) throw new PackageInstallError(`missing ${what}; apt-get update failed: ${r.out.slice(-2000)}`);
      aptUpdated = true;
    }
    const r = await run(
      [
        ...prefix,
        "env",
        "DEBIAN_FRONTEND=noninteractive",
        "apt-get",
        ...lock,
        "install",
        "-y",
        "-qq",
        "--no-install-recommends",
        ...names,
      ],
      aptEnv,
    );
    if (r.code !== 0) throw new PackageInstallError(`apt-get install ${names.join(" ")} failed: ${r.out.slice(-2000)}`);
  } finally {
    if (wrotePolicy) await run([...prefix, "rm", "-f", policy]);
  }
  const still = missing.filter((p) => !findBinary(p.bin));
  if (still.length) {
    throw new PackageInstallError(
      `installed ${names.join(" ")} but still cannot find ${still.map((p) => p.bin).join(", ")}`,
    );
  }
}

// ------------------------------------------------------------ process care

interface Managed {
  name: string;
  proc: Subprocess;
  /** The server's clean-shutdown signal. */
  signal: NodeJS.Signals;
  dir: string;
  logPath: string;
  watchdog?: Subprocess;
  stopping?: Promise<void>;
}

const live = new Set<Managed>();
let hooksInstalled = false;

// $1 pid, $2 signal name, $3 dir to remove. Runs when our end of its stdin
// closes. A server that has exited stays a zombie until init reaps it (which
// may take a second), so "alive" reads the state in /proc, not kill -0.
const WATCHDOG = `read _ || true
alive() {
  if [ -r /proc/self/stat ]; then
    s=$(sed -n 's/.*) \\(.\\).*/\\1/p' "/proc/$1/stat" 2>/dev/null)
    [ -n "$s" ] && [ "$s" != Z ] && [ "$s" != X ]
  else kill -0 "$1" 2>/dev/null; fi
}
kill -s "$2" "$1" 2>/dev/null
n=0; while alive "$1" && [ $n -lt 50 ]; do sleep 0.1; n=$((n+1)); done
alive "$1" && kill -s KILL "$1" 2>/dev/null
[ -n "$3" ] && rm -rf "$3"
exit 0`;

function exited(p: Subprocess): boolean {
  return p.exitCode !== null || p.signalCode !== null;
}

/** Alive and not a zombie (a child that has exited but that we have not reaped yet still answers kill -0). */
function pidAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    if (process.platform === "linux") return false;
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  }
}

function trySignal(pid: number | undefined, sig: NodeJS.Signals): void {
  if (!pid) return;
  try {
    process.kill(pid, sig);
  } catch {}
}

/** Stops everything still running, synchronously: for 'exit' and signal hooks. */
function stopAllSync(): void {
  const all = [...live];
  live.clear();
  for (const m of all) {
    trySignal(m.watchdog?.pid, "SIGKILL");
    if (!exited(m.proc)) trySignal(m.proc.pid, m.signal);
  }
  const deadline = Date.now() + 3000;
  while (Date.now() < deadline && all.some((m) => pidAlive(m.proc.pid))) Bun.sleepSync(10);
  for (const m of all) {
    if (pidAlive(m.proc.pid)) trySignal(m.proc.pid, "SIGKILL");
    rmSync(m.dir, { recursive: true, force: true });
  }
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", stopAllSync);
  for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(sig, () => {
      // Someone else listens too (scripts/with-postgres.ts): they decide when
      // to stop and exit; the 'exit' hook and the watchdogs remain as backstop.
      if (process.listenerCount(sig) > 1) return;
      stopAllSync();
      process.exit(128 + (osConstants.signals[sig] ?? 1));
    });
  }
}

function spawnServer(opts: {
  name: string;
  cmd: string[];
  signal: NodeJS.Signals;
  dir: string;
  logPath: string;
  uid?: number;
  gid?: number;
}): Managed {
  installHooks();
  const log = openSync(opts.logPath, "a");
  let proc: Subprocess;
  try {
    proc = Bun.spawn(opts.cmd, {
      cwd: opts.dir,
      stdio: ["ignore", log, log],
      detached: true,
      ...(opts.uid !== undefined ? { uid: opts.uid, gid: opts.gid } : {}),
    });
  } finally {
    closeSync(log);
  }
  proc.unref();
  const m: Managed = { name: opts.name, proc, signal: opts.signal, dir: opts.dir, logPath: opts.logPath };
  const wd = Bun.spawn(
    ["sh", "-c", WATCHDOG, "plinth-watchdog", String(proc.pid), opts.signal.replace(/^SIG/, ""), opts.dir],
    {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      detached: true,
    },
  );
  wd.unref();
  m.watchdog = wd;
  live.add(m);
  return m;
}

/** Signals the server, waits for it (SIGKILL after graceMs), ends its watchdog, removes its dir unless told not to. */
function stopServer(m: Managed, removeDir = true, graceMs = 5000): Promise<void> {
  m.stopping ??= (async () => {
    if (!exited(m.proc)) {
      try {
        m.proc.kill(m.signal);
      } catch {}
      const t = setTimeout(() => trySignal(m.proc.pid, "SIGKILL"), graceMs);
      await m.proc.exited;
      clearTimeout(t);
    }
    if (m.watchdog && !exited(m.watchdog)) {
      m.watchdog.kill("SIGKILL");
      await m.watchdog.exited;
    }
    live.delete(m);
    if (removeDir) rmSync(m.dir, { recursive: true, force: true });
  })();
  return m.stopping;
}

function logTail(m: Managed, chars = 3000): string {
  try {
    return readFileSync(m.logPath, "utf8").slice(-chars).trim();
  } catch {
    return "(no log)";
  }
}

function diedError(m: Managed, what: string): Error {
  const how = m.proc.signalCode ? `signal ${m.proc.signalCode}` : `exit code ${m.proc.exitCode}`;
  return new Error(`${m.name} ${what} (${how}). Its log:\n${logTail(m)}`);
}

const BIND_ERROR = /address already in use|could not bind|cannot bind/i;

/** Starts a server on a free port; when another process grabbed that port in the meantime, tries a new one. */
async function withFreePort<T>(start: (port: number) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    try {
      return await start(port);
    } catch (e) {
      if (attempt >= 3 || !BIND_ERROR.test(String((e as Error).message))) throw e;
    }
  }
}

// ------------------------------------------------------------------ ports

/** A TCP port on 127.0.0.1 that was free a moment ago (the OS picks it: bind port 0, read it, close). */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once("error", reject);
    srv.listen({ port: 0, host, exclusive: true }, () => {
      const addr = srv.address();
      const port = typeof addr === "object" && addr ? addr.port : 0;
      srv.close(() => (port ? resolve(port) : reject(new Error("freePort: no port"))));
    });
  });
}

/** Whether something accepts TCP connections on host:port right now. */
export function canConnect(port: number, host = "127.0.0.1", timeoutMs = 1000): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host, port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(timeoutMs, () => done(false));
    s.once("connect", () => done(true));
    s.once("error", () => done(false));
  });
}

async function waitUntil(
  m: Managed,
  what: string,
  timeoutMs: number,
  check: () => boolean | Promise<boolean>,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (exited(m.proc)) {
      await stopServer(m, false);
      throw diedError(m, `exited before ${what}`);
    }
    if (await check()) return;
    if (Date.now() > deadline) {
      await stopServer(m, false);
      throw new Error(`${m.name} not ${what} after ${timeoutMs} ms. Its log:\n${logTail(m)}`);
    }
    await Bun.sleep(20);
  }
}

// --------------------------------------------------------------- postgres

export interface PostgresOptions {
  /** Extra `-c name=value` server settings; they win over the defaults here. */
  settings?: Record<string, string | number | boolean>;
  /** Name of the database created for `url` (default "plinth"). */
  database?: string;
  /** How long to wait for the server to accept connections (default 30 s). */
  startTimeoutMs?: number;
}

export interface PostgresServer {
  /** postgres://plinth@127.0.0.1:<port>/<database>: a fresh, empty database. */
  url: string;
  /** postgres://plinth@127.0.0.1:<port>/postgres: for CREATE/DROP DATABASE and the like. */
  adminUrl: string;
  /** The superuser role in both URLs ("plinth"); no password (trust auth, loopback only). */
  user: string;
  port: number;
  /** The temp dir: data/ (the cluster), postgres.log, and the unix socket. */
  dir: string;
  /** The postmaster's pid. */
  pid: number;
  /** server_version, e.g. "15.18 (Debian 15.18-0+deb12u1)". */
  version: string;
  stop(): Promise<void>;
}

const PG_USER = "plinth";

/** Fast, not durable: a test cluster is thrown away, so it need not survive a power cut. */
const PG_TEST_SETTINGS: Record<string, string> = {
  fsync: "off",
  synchronous_commit: "off",
  full_page_writes: "off",
  max_connections: "300",
  TimeZone: "UTC",
};

function systemUser(name: string): { uid: number; gid: number } | null {
  const uid = Bun.spawnSync(["id", "-u", name]);
  const gid = Bun.spawnSync(["id", "-g", name]);
  if (uid.exitCode !== 0 || gid.exitCode !== 0) return null;
  return { uid: Number(uid.stdout.toString().trim()), gid: Number(gid.stdout.toString().trim()) };
}

/**
 * A fresh PostgreSQL cluster on 127.0.0.1:<free port>, as a child process.
 *
 * The superuser is the role `plinth` (initdb's bootstrap superuser, via
 * `initdb -U plinth`), with trust auth, so the URLs carry no password. The
 * cluster is UTF8 with the C.UTF-8 locale (C if that fails): byte-order
 * collation, like SQLite's default, so ORDER BY on text agrees between engines.
 *
 * initdb and postgres refuse to run as root; as root they run as the
 * `postgres` system user that Debian's package creates (Bun.spawn's uid/gid,
 * which execs postgres itself; `runuser` would stay in between as a parent and
 * the pid we hold would not be the postmaster's).
 *
 * `stop()` sends SIGQUIT, which is what `pg_ctl stop -m immediate` sends, then
 * removes the temp dir.
 */
export async function startPostgres(opts: PostgresOptions = {}): Promise<PostgresServer> {
  const initdb = findBinary("initdb");
  if (!initdb) {
    throw new Error(
      "initdb not found (PATH, /usr/lib/postgresql/*/bin): run ensureDebianPackages([SERVICE_PACKAGES.postgres])",
    );
  }
  // Via the real path: initdb on PATH may be a symlink to /usr/lib/postgresql/<v>/bin/initdb.
  const real = realpathSync(initdb);
  const binDir = real.slice(0, real.lastIndexOf("/"));
  let runAs: { uid: number; gid: number } | undefined;
  if (isRoot()) {
    runAs = systemUser("postgres") ?? undefined;
    if (!runAs)
      throw new Error(
        "running as root, and there is no `postgres` user to run PostgreSQL as (Debian's postgresql package creates it)",
      );
  }
  const dir = mkdtempSync(join(tmpdir(), "plinth-pg-"));
  if (runAs) chownSync(dir, runAs.uid, runAs.gid);
  const dataDir = join(dir, "data");
  const logPath = join(dir, "postgres.log");

  try {
    await initCluster(join(binDir, "initdb"), dataDir, dir, runAs);
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }

  const settings: Record<string, string> = { ...PG_TEST_SETTINGS };
  for (const [k, v] of Object.entries(opts.settings ?? {})) settings[k] = String(v);
  // A unix socket path may be at most 107 bytes; with a long TMPDIR, TCP only.
  settings.unix_socket_directories = dir.length + "/.s.PGSQL.65535".length < 100 ? dir : "";
  settings.listen_addresses = "127.0.0.1";

  try {
    return await withFreePort(async (port) => {
      const cmd = [join(binDir, "postgres"), "-D", dataDir, "-p", String(port)];
      for (const [k, v] of Object.entries(settings)) cmd.push("-c", `${k}=${v}`);
      const m = spawnServer({ name: "postgres", cmd, signal: "SIGQUIT", dir, logPath, ...runAs });
      const pidFile = join(dataDir, "postmaster.pid");
      // The postmaster writes "ready" as the 8th line of postmaster.pid once it accepts connections.
      await waitUntil(m, "accepting connections", opts.startTimeoutMs ?? 30_000, () => {
        try {
          return readFileSync(pidFile, "utf8").split("\n")[7]?.trim() === "ready";
        } catch {
          return false;
        }
      });
      const base = `postgres://${PG_USER}@127.0.0.1:${port}`;
      const database = opts.database ?? "plinth";
      let version = "";
      const sql = postgres(`${base}/postgres`, { max: 1, onnotice: () => {}, connect_timeout: 10 });
      try {
        version = (await sql`select current_setting('server_version') as v`)[0]!.v as string;
        if (database !== "postgres") await sql.unsafe(`create database "${database.replaceAll('"', '""')}"`);
      } catch (e) {
        await stopServer(m, false);
        throw new Error(`postgres started but the first query failed: ${(e as Error).message}\n${logTail(m)}`);
      } finally {
        await sql.end({ timeout: 1 });
      }
      return {
        url: `${base}/${encodeURIComponent(database)}`,
        adminUrl: `${base}/postgres`,
        user: PG_USER,
        port,
        dir,
        pid: m.proc.pid,
        version,
        stop: () => stopServer(m),
      };
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

async function initCluster(
  initdb: string,
  dataDir: string,
  cwd: string,
  runAs?: { uid: number; gid: number },
): Promise<void> {
  let last = "";
  for (const locale of ["C.UTF-8", "C"]) {
    rmSync(dataDir, { recursive: true, force: true });
    // --no-sync: nothing here needs to survive a crash, and it saves most of initdb's time.
    const args = [
      initdb,
      "-D",
      dataDir,
      "-U",
      PG_USER,
      "--auth=trust",
      "--encoding=UTF8",
      `--locale=${locale}`,
      "--no-sync",
    ];
    const p = Bun.spawn(args, { cwd, stdin: "ignore", stdout: "pipe", stderr: "pipe", ...runAs });
    const [out, err] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
    if ((await p.exited) === 0) return;
    last = `${out}\n${err}`.trim();
  }
  throw new Error(`initdb failed:\n${last.slice(-3000)}`);
}

// ------------------------------------------------------------------ redis

export interface RedisServer {
  /** redis://127.0.0.1:<port> */
  url: string;
  port: number;
  dir: string;
  pid: number;
  stop(): Promise<void>;
}

function redisPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: "127.0.0.1", port });
    let buf = "";
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once("connect", () => s.write("PING\r\n"));
    s.on("data", (d) => {
      buf += d.toString();
      if (buf.includes("\r\n")) done(buf.startsWith("+PONG"));
    });
    s.once("error", () => done(false));
  });
}

/**
 * A fresh, empty Redis on 127.0.0.1:<free port>, as a child process: no
 * persistence (`--save '' --appendonly no`), working dir in a temp dir.
 * Ready once it answers PING. `stop()` sends SIGTERM (Redis shuts down
 * without saving, as there is nothing to save to).
 */
export async function startRedis(): Promise<RedisServer> {
  const bin = findBinary("redis-server");
  if (!bin) throw new Error("redis-server not found: run ensureDebianPackages([SERVICE_PACKAGES.redis])");
  const dir = mkdtempSync(join(tmpdir(), "plinth-redis-"));
  try {
    return await withFreePort(async (port) => {
      const m = spawnServer({
        name: "redis-server",
        cmd: [
          bin,
          "--port",
          String(port),
          "--bind",
          "127.0.0.1",
          "--save",
          "",
          "--appendonly",
          "no",
          "--dir",
          dir,
          "--daemonize",
          "no",
          "--logfile",
          "",
        ],
        signal: "SIGTERM",
        dir,
        logPath: join(dir, "redis.log"),
      });
      await waitUntil(m, "answering PING", 15_000, () => redisPing(port));
      return { url: `redis://127.0.0.1:${port}`, port, dir, pid: m.proc.pid, stop: () => stopServer(m) };
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

// ---------------------------------------------------------------- haproxy

/** deploy/haproxy.cfg: the production example, which the tests run as is but for bind and servers. */
export const HAPROXY_TEMPLATE = join(import.meta.dir, "..", "..", "deploy", "haproxy.cfg");

export interface Backend {
  host: string;
  port: number;
}

export interface HaproxyOptions {
  /** The config template (default deploy/haproxy.cfg). */
  template?: string;
  /** Address the frontend listens on (default 127.0.0.1). */
  host?: string;
}

export interface HaproxyServer {
  /** http://127.0.0.1:<port> */
  url: string;
  port: number;
  dir: string;
  /** The rendered config the server runs. */
  configPath: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Renders the template: the line with `# plinth:bind` becomes
 * `bind <host>:<port>`, and the lines between `# plinth:servers BEGIN` and
 * `# plinth:servers END` become one `server appN <host>:<port>` per backend.
 * Everything else is kept as it is.
 */
export function renderHaproxyConfig(template: string, bind: Backend, backends: Backend[]): string {
  if (backends.length === 0) throw new Error("renderHaproxyConfig: no backends");
  const lines = template.split("\n");
  const bindAt = lines.findIndex((l) => /#\s*plinth:bind\b/.test(l));
  const begin = lines.findIndex((l) => /#\s*plinth:servers BEGIN\b/.test(l));
  const end = lines.findIndex((l) => /#\s*plinth:servers END\b/.test(l));
  if (bindAt < 0 || begin < 0 || end < begin) {
    throw new Error("haproxy template lacks the `# plinth:bind` line or the `# plinth:servers BEGIN/END` markers");
  }
  const indent = (l: string) => /^\s*/.exec(l)![0];
  const hostPort = (b: Backend) => (b.host.includes(":") ? `[${b.host}]:${b.port}` : `${b.host}:${b.port}`);
  const servers = backends.map((b, i) => `${indent(lines[end]!)}server app${i + 1} ${hostPort(b)}`);
  const out = [
    ...lines.slice(0, bindAt),
    `${indent(lines[bindAt]!)}bind ${hostPort(bind)}  # plinth:bind`,
    ...lines.slice(bindAt + 1, begin + 1),
    ...servers,
    ...lines.slice(end),
  ];
  return out.join("\n");
}

/**
 * HAProxy balancing over `backends`, from deploy/haproxy.cfg, on
 * 127.0.0.1:<free port>, in the foreground (`-db`) as a child process. Ready
 * once the frontend accepts TCP. `stop()` sends SIGTERM (immediate stop).
 */
export async function startHaproxy(backends: Backend[], opts: HaproxyOptions = {}): Promise<HaproxyServer> {
  const bin = findBinary("haproxy");
  if (!bin) throw new Error("haproxy not found: run ensureDebianPackages([SERVICE_PACKAGES.haproxy])");
  const template = readFileSync(opts.template ?? HAPROXY_TEMPLATE, "utf8");
  const host = opts.host ?? "127.0.0.1";
  const dir = mkdtempSync(join(tmpdir(), "plinth-haproxy-"));
  const configPath = join(dir, "haproxy.cfg");
  try {
    return await withFreePort(async (port) => {
      writeFileSync(configPath, renderHaproxyConfig(template, { host, port }, backends));
      const m = spawnServer({
        name: "haproxy",
        cmd: [bin, "-f", configPath, "-db"],
        signal: "SIGTERM",
        dir,
        logPath: join(dir, "haproxy.log"),
      });
      await waitUntil(m, "accepting connections", 15_000, () => canConnect(port, host, 200));
      const urlHost = host.includes(":") ? `[${host}]` : host;
      return { url: `http://${urlHost}:${port}`, port, dir, configPath, pid: m.proc.pid, stop: () => stopServer(m) };
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

// ---------------------------------------------------------------- dovecot

export interface DovecotServer {
  host: string;
  port: number;
  dir: string;
  pid: number;
  /** Adds a mailbox user (plain password in the temp dir's passwd-file; read at each login). */
  addUser(user: string, password: string): void;
  stop(): Promise<void>;
}

/**
 * Debian's Dovecot as a plain-text IMAP server on 127.0.0.1:<free port>, in
 * the foreground (`-F`) as a child process, with a config generated in a
 * temp dir: passwd-file logins, Maildir under the temp dir, no TLS, no
 * other protocol. Dovecot refuses mail access as root, so when the tests run
 * as root the mail files belong to `nobody` (the dir is world-writable,
 * and removed at stop). Ready once it answers with its IMAP greeting.
 */
export async function startDovecot(): Promise<DovecotServer> {
  const bin = findBinary("dovecot");
  if (!bin) throw new Error("dovecot not found: run ensureDebianPackages([SERVICE_PACKAGES.dovecot])");
  const dir = mkdtempSync(join(tmpdir(), "plinth-dovecot-"));
  chmodSync(dir, 0o777);
  const passwd = join(dir, "passwd");
  writeFileSync(passwd, "");
  const root = process.getuid?.() === 0;
  const me = root ? { uid: 65534, gid: 65534 } : { uid: process.getuid!(), gid: process.getgid!() };
  const owner = root ? "dovecot" : (process.env.USER ?? String(me.uid));
  try {
    return await withFreePort(async (port) => {
      const conf = join(dir, "dovecot.conf");
      writeFileSync(
        conf,
        [
          `base_dir = ${dir}/run`,
          `state_dir = ${dir}/state`,
          `log_path = ${dir}/dovecot.log`,
          "protocols = imap",
          "listen = 127.0.0.1",
          "ssl = no",
          "disable_plaintext_auth = no",
          "auth_mechanisms = plain login",
          // No growing delay after failed logins from loopback (the tests try wrong passwords on purpose).
          "login_trusted_networks = 127.0.0.0/8",
          "auth_failure_delay = 0",
          `default_internal_user = ${owner}`,
          `default_login_user = ${root ? "dovenull" : owner}`,
          "first_valid_uid = 1",
          `passdb {\n  driver = passwd-file\n  args = scheme=PLAIN username_format=%u ${passwd}\n}`,
          `userdb {\n  driver = static\n  args = uid=${me.uid} gid=${me.gid} home=${dir}/home/%u\n}`,
          "mail_location = maildir:~/Maildir",
          `service imap-login {\n  inet_listener imap {\n    address = 127.0.0.1\n    port = ${port}\n  }\n  inet_listener imaps {\n    port = 0\n  }\n}`,
          `service anvil {\n  chroot =\n}`,
          `service imap-login {\n  chroot =\n}`,
          "",
        ].join("\n"),
      );
      const m = spawnServer({
        name: "dovecot",
        cmd: [bin, "-F", "-c", conf],
        signal: "SIGTERM",
        dir,
        logPath: join(dir, "dovecot.out"),
      });
      await waitUntil(m, "greeting on IMAP", 15_000, () => imapGreets(port));
      return {
        host: "127.0.0.1",
        port,
        dir,
        pid: m.proc.pid,
        addUser: (user, password) => appendFileSync(passwd, `${user}:{PLAIN}${password}\n`),
        stop: () => stopServer(m),
      };
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}

function imapGreets(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection({ host: "127.0.0.1", port });
    const done = (ok: boolean) => {
      s.destroy();
      resolve(ok);
    };
    s.setTimeout(1000, () => done(false));
    s.once("data", (d) => done(d.toString().startsWith("* OK")));
    s.once("error", () => done(false));
  });
}

// ---------------------------------------------------------------- radicale

export interface RadicaleServer {
  /** http://127.0.0.1:<port>/ */
  url: string;
  port: number;
  dir: string;
  pid: number;
  /** Adds a user (plain password in the temp dir's htpasswd file; Radicale reads it at each request). */
  addUser(user: string, password: string): void;
  stop(): Promise<void>;
}

/**
 * Debian's Radicale as a CalDAV server on 127.0.0.1:<free port>, in the
 * foreground as a child process, with a config in a temp dir: htpasswd
 * logins with plain passwords, owner-only rights (a user reads and writes
 * their own collections), collections stored under the temp dir. Ready once
 * it answers HTTP.
 */
export async function startRadicale(): Promise<RadicaleServer> {
  const bin = findBinary("radicale");
  if (!bin) throw new Error("radicale not found: run ensureDebianPackages([SERVICE_PACKAGES.radicale])");
  const dir = mkdtempSync(join(tmpdir(), "plinth-radicale-"));
  const users = join(dir, "users");
  writeFileSync(users, "");
  try {
    return await withFreePort(async (port) => {
      const conf = join(dir, "radicale.conf");
      writeFileSync(
        conf,
        [
          "[server]",
          `hosts = 127.0.0.1:${port}`,
          "[auth]",
          "type = htpasswd",
          `htpasswd_filename = ${users}`,
          "htpasswd_encryption = plain",
          "delay = 0",
          "[rights]",
          "type = owner_only",
          "[storage]",
          `filesystem_folder = ${dir}/collections`,
          "[logging]",
          "level = warning",
          "",
        ].join("\n"),
      );
      const m = spawnServer({
        name: "radicale",
        cmd: [bin, "--config", conf],
        signal: "SIGTERM",
        dir,
        logPath: join(dir, "radicale.out"),
      });
      await waitUntil(m, "answering HTTP", 15_000, async () => {
        try {
          return (await fetch(`http://127.0.0.1:${port}/.web/`, { signal: AbortSignal.timeout(1000) })).status > 0;
        } catch {
          return false;
        }
      });
      return {
        url: `http://127.0.0.1:${port}/`,
        port,
        dir,
        pid: m.proc.pid,
        addUser: (user, password) => appendFileSync(users, `${user}:${password}\n`),
        stop: () => stopServer(m),
      };
    });
  } catch (e) {
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
}
