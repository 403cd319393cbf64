/**
 * GET /metrics in the Prometheus text format (docs/deploy.md#metrics), in
 * two places an operator can choose from:
 *
 *   - on the public listener, only when PLINTH_METRICS_TOKEN is set, and
 *     only with `Authorization: Bearer <that token>` (compared in constant
 *     time); without the setting the path does not exist (404);
 *   - on a listener of its own, `--metrics-port` / PLINTH_METRICS_PORT,
 *     bound to 127.0.0.1 and needing no token: for a Prometheus or agent on
 *     the same host.
 *
 * Besides the in-process counters (src/ops/metrics.ts) a scrape reads a few
 * gauges on the spot: approval links by state (two aggregate queries), the
 * database engine, on SQLite the size of the WAL file, on PostgreSQL the
 * configured pool size (postgres.js does not expose its pool's state),
 * whether Redis is connected, and the process's resident memory. Nothing
 * here can hold a secret or a tool's arguments: labels are fixed lists,
 * route templates and tool names.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import { statSync } from "node:fs";
import { join } from "node:path";
import { Hono } from "hono";
import type { Deps } from "../core/context";
import { approvalCounts } from "../domains/approvals/stats";
import { VERSION } from "../version";
import { family, gauge, sample } from "./metrics";
import type { Telemetry } from "./telemetry";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

function walBytes(dataDir: string): number {
  try {
    return statSync(join(dataDir, "plinth.sqlite-wal")).size;
  } catch {
    return 0; // no WAL file (checkpointed and closed, or an in-memory test store)
  }
}

/** The whole exposition: in-process counters and the gauges read now. */
export async function scrape(deps: Deps, telemetry: Telemetry): Promise<string> {
  const engine = deps.store.engine;
  const parts = [telemetry.metrics.render()];
  let approvals: Awaited<ReturnType<typeof approvalCounts>> | null = null;
  try {
    approvals = await approvalCounts(deps);
  } catch {
    approvals = null; // the database is unreachable: plinth_db_up says so
  }
  parts.push(
    gauge("plinth_db_up", "1 when the database answered this scrape's queries.", [[{ engine }, approvals ? 1 : 0]]),
  );
  if (approvals)
    parts.push(
      gauge(
        "plinth_approvals",
        "Approval links by state (a pending link past its lifetime counts as expired).",
        Object.entries(approvals).map(([state, n]) => [{ state }, n]),
      ),
    );
  parts.push(gauge("plinth_db_info", "The database engine this instance runs on.", [[{ engine }, 1]]));
  if (engine === "sqlite")
    parts.push(
      gauge("plinth_sqlite_wal_bytes", "Size of the SQLite write-ahead log file.", [
        [{}, walBytes(deps.config.dataDir)],
      ]),
    );
  else
    parts.push(
      gauge("plinth_db_pool_max_connections", "Configured PostgreSQL connections per instance (PLINTH_DB_POOL_SIZE).", [
        [{}, deps.config.dbPoolSize],
      ]),
    );
  if (deps.redis)
    parts.push(
      gauge("plinth_redis_up", "1 when the Redis connection is ready.", [[{}, deps.redis.status === "ready" ? 1 : 0]]),
    );
  const dropped = telemetry.logDropped;
  if (dropped !== null)
    parts.push(
      family(
        "plinth_access_log_dropped_lines_total",
        "counter",
        "Access log lines dropped because standard output's reader fell more than 4 MB behind.",
        [sample("plinth_access_log_dropped_lines_total", {}, dropped)],
      ),
    );
  parts.push(gauge("plinth_build_info", "The running version.", [[{ version: VERSION }, 1]]));
  parts.push(
    gauge("process_resident_memory_bytes", "Resident memory size in bytes.", [[{}, process.memoryUsage.rss()]]),
  );
  parts.push(
    gauge("process_start_time_seconds", "Start time of the process since the Unix epoch, in seconds.", [
      [{}, Math.round(Date.now() / 1000 - process.uptime())],
    ]),
  );
  return parts.join("\n") + "\n";
}

const digest = (s: string) => createHash("sha256").update(s).digest();

/** Whether an Authorization header carries exactly `token`, compared in constant time. */
export function bearerMatches(header: string | undefined | null, token: string): boolean {
  const m = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header ?? "");
  // Digests of equal length, so neither the comparison nor an early length check reveals anything.
  return timingSafeEqual(digest(m ? m[1]! : ""), digest(token)) && !!m;
}

function metricsResponse(text: string): Response {
  return new Response(text, {
    status: 200,
    headers: { "content-type": METRICS_CONTENT_TYPE, "cache-control": "no-store" },
  });
}

/** GET /metrics on the public listener, guarded by PLINTH_METRICS_TOKEN. */
export function metricsRoutes(deps: Deps, telemetry: Telemetry) {
  const app = new Hono();
  app.get("/metrics", async (c) => {
    const token = deps.config.metricsToken;
    if (!token) return c.json({ success: false, message: "Not found" }, 404);
    if (!bearerMatches(c.req.header("authorization"), token))
      return c.json({ success: false, message: "Unauthorized" }, 401, {
        "www-authenticate": 'Bearer realm="plinth-metrics"',
        "cache-control": "no-store",
      });
    return metricsResponse(await scrape(deps, telemetry));
  });
  return app;
}

/** The loopback-only metrics listener (`--metrics-port`); port 0 picks a free one. */
export function startMetricsServer(deps: Deps, telemetry: Telemetry, port: number) {
  return Bun.serve({
    hostname: "127.0.0.1",
    port,
    async fetch(req) {
      const path = new URL(req.url).pathname;
      if (path !== "/metrics")
        return new Response("Not found: this listener serves GET /metrics only.\n", { status: 404 });
      if (req.method !== "GET" && req.method !== "HEAD")
        return new Response(null, { status: 405, headers: { allow: "GET, HEAD" } });
      return metricsResponse(await scrape(deps, telemetry));
    },
  });
}
