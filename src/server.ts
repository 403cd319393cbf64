/**
 * Starting Plinth: open the store, migrate, seed the demo site into an empty
 * data dir, and serve. Tests call startServer() with port 0 and a ManualClock.
 *
 * Stopping: `drain()` is what SIGTERM and SIGINT run (src/cli/server.ts):
 * the listener closes at once, so new connections are refused; requests in
 * flight get `shutdownGraceMs` to finish, then whatever still runs is cut
 * off; the store is closed (on SQLite that checkpoints the WAL into the
 * database file), Redis is disconnected and the access log flushed.
 */
import { catalog } from "./catalog";
import type { DomainCatalog } from "./mcp/define";
import { createApp } from "./app";
import type { Config } from "./config";
import type { Clock } from "./core/clock";
import { openDeps, type OpenedDeps } from "./core/open";
import { AppError } from "./core/errors";
import { isEmpty, seedDemo, type DemoCredentials } from "../db/seed/demo";
import { AccessLog, type Sink } from "./ops/access-log";
import { Dispatcher } from "./core/dispatcher";
import { coreJobs } from "./core/housekeeping";
import { JobRunner } from "./core/jobs";
import { startMemoryGuard } from "./ops/memory";
import { startMetricsServer } from "./ops/metrics-routes";
import { Telemetry } from "./ops/telemetry";

export interface RunningServer {
  url: string;
  port: number;
  deps: OpenedDeps;
  /** Set when this start seeded the demo site (first start on an empty data dir). */
  demo: DemoCredentials | null;
  telemetry: Telemetry;
  /** The loopback metrics listener (`--metrics-port`), when configured. */
  metricsUrl: string | null;
  /** Delivers domain events to subscribers (tests call drain() to wait for it). */
  dispatcher: Dispatcher;
  /** Periodic jobs (tests move the clock and call runDue()). */
  jobs: JobRunner;
  /** Stops at once: connections in flight are cut. For tests. */
  stop(): Promise<void>;
  /** The graceful stop of SIGTERM (see the file comment). */
  drain(opts?: { graceMs?: number; cutNow?: Promise<unknown> }): Promise<DrainResult>;
}

export interface DrainResult {
  /** Requests that finished while draining (those in flight when it began). */
  finished: number;
  /** Requests still running when the grace period ran out (or a second signal came), cut off. */
  cut: number;
}

/** `http://host:port` as a URL writes it ([…] around an IPv6 address). */
export function listenUrl(host: string, port: number): string {
  return `http://${host.includes(":") ? `[${host}]` : host}:${port}`;
}

export async function startServer(
  config: Config,
  opts: { clock?: Clock; seed?: boolean; accessLog?: Sink; catalog?: DomainCatalog } = {},
): Promise<RunningServer> {
  // A test may serve a catalog of its own (a domain added in the test); the build's otherwise.
  const deps = await openDeps(config, opts.catalog ?? catalog, { clock: opts.clock });
  let demo: DemoCredentials | null = null;
  if (opts.seed !== false && (await isEmpty(deps))) {
    // Instances started together on one empty database race to seed it: one wins, the others find it seeded.
    demo = await seedDemo(deps).catch((e) => {
      if (e instanceof AppError && e.code === "conflict") return null;
      throw e;
    });
    // The seed's garbage (every domain's demo data, media, PDFs) is well over 100 MB: collect it before serving.
    Bun.gc(true);
  }
  const telemetry = new Telemetry({
    log: config.log === "access" ? new AccessLog(opts.accessLog) : null,
    trustProxy: config.trustProxy,
  });
  const app = createApp(deps, telemetry);
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    fetch: app.fetch,
    // Large media uploads arrive base64 inside JSON-RPC; allow the configured size plus overhead.
    maxRequestBodySize: Math.ceil(config.maxUploadBytes * 1.4) + 1024 * 1024,
  });
  const port = server.port!;
  // A public URL on port 0 (the default one, or the tests' http://localhost:0) means the port we really got.
  const pub = new URL(config.publicUrl);
  if (pub.port === "0") {
    pub.port = String(port);
    config.publicUrl = pub.origin;
  }
  const metrics = config.metricsPort === null ? null : startMetricsServer(deps, telemetry, config.metricsPort);

  const report = (what: string) => (name: string, e: unknown) =>
    console.error(`plinth: ${what} ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
  const dispatcher = new Dispatcher(deps, [...deps.catalog.subscribers], { onError: report("event subscriber") });
  const jobs = new JobRunner(deps, [...coreJobs, ...deps.catalog.jobs], { onError: report("job") });
  await dispatcher.init();
  await jobs.init();
  dispatcher.start();
  jobs.start();

  const stopMemoryGuard = config.memorySoftLimitMb > 0 ? startMemoryGuard(config.memorySoftLimitMb) : () => {};

  let closing: Promise<void> | null = null;
  const closeDeps = () =>
    (closing ??= (async () => {
      stopMemoryGuard();
      metrics?.stop(true);
      await jobs.stop();
      await dispatcher.stop();
      await deps.close();
      await telemetry.flush();
    })());

  return {
    url: listenUrl(config.host, port),
    port,
    deps,
    demo,
    telemetry,
    metricsUrl: metrics ? `http://127.0.0.1:${metrics.port}` : null,
    dispatcher,
    jobs,
    async stop() {
      await server.stop(true);
      await closeDeps();
    },
    async drain({ graceMs = config.shutdownGraceMs, cutNow } = {}) {
      const before = telemetry.served;
      let timer: ReturnType<typeof setTimeout> | undefined;
      const expired = new Promise<"cut">((resolve) => (timer = setTimeout(() => resolve("cut"), graceMs)));
      const outcome = await Promise.race([
        server.stop(false).then(() => "done" as const),
        expired,
        ...(cutNow ? [cutNow.then(() => "cut" as const)] : []),
      ]);
      clearTimeout(timer);
      // Counted before cutting: a cut request's handler may still end (with an error) afterwards.
      const finished = telemetry.served - before;
      const cut = outcome === "cut" ? telemetry.metrics.inFlight : 0;
      if (cut) await server.stop(true);
      await closeDeps();
      return { finished, cut };
    },
  };
}
