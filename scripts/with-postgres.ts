/**
 * bun scripts/with-postgres.ts <command...>
 *
 * Runs a command against a throw-away PostgreSQL: installs Debian's
 * postgresql when missing, starts a fresh cluster on a free loopback port
 * (test/infra/services.ts), runs the command with
 *   PLINTH_TEST_PG_URL=postgres://plinth@127.0.0.1:<port>/postgres  (superuser)
 *   PLINTH_ENGINE=pg
 * added to its environment and its output going straight through, stops
 * PostgreSQL and exits with the command's exit code (128+n if a signal n ended
 * it). On SIGINT/SIGTERM/SIGHUP the signal is passed on to the command and
 * PostgreSQL is stopped only once the command has ended; a second signal
 * kills the command. `make test-pg` runs `bun scripts/with-postgres.ts bun test`.
 */
import { constants } from "node:os";
import { ensureDebianPackages, SERVICE_PACKAGES, startPostgres } from "../test/infra/services";

const cmd = process.argv.slice(2);
if (cmd.length === 0) {
  console.error("usage: bun scripts/with-postgres.ts <command...>");
  process.exit(2);
}

try {
  await ensureDebianPackages([SERVICE_PACKAGES.postgres]);
} catch (e) {
  console.error(`with-postgres: ${(e as Error).message}`);
  process.exit(1);
}

const t0 = performance.now();
let pg: Awaited<ReturnType<typeof startPostgres>>;
try {
  // The command gets only the admin URL and makes its own databases: skip creating "plinth".
  pg = await startPostgres({ database: "postgres" });
} catch (e) {
  console.error(`with-postgres: PostgreSQL did not start: ${(e as Error).message}`);
  process.exit(1);
}
console.error(`with-postgres: PostgreSQL ${pg.version} at ${pg.adminUrl} (${Math.round(performance.now() - t0)} ms)`);

let child: ReturnType<typeof Bun.spawn>;
try {
  child = Bun.spawn(cmd, {
    stdio: ["inherit", "inherit", "inherit"],
    env: { ...process.env, PLINTH_TEST_PG_URL: pg.adminUrl, PLINTH_ENGINE: "pg" },
  });
} catch (e) {
  console.error(`with-postgres: cannot run ${cmd[0]}: ${(e as Error).message}`);
  await pg.stop();
  process.exit(127);
}

let signals = 0;
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
  process.on(sig, () => {
    // A Ctrl-C reaches the command directly too (same process group); passing
    // it on covers a signal sent to this process alone.
    signals++;
    try {
      child.kill(signals > 1 ? "SIGKILL" : sig);
    } catch {}
  });
}

const code = await child.exited;
await pg.stop();
const signal = child.signalCode;
process.exit(signal ? 128 + (constants.signals[signal as NodeJS.Signals] ?? 1) : code);
