/**
 * Liveness and readiness, for systemd, load balancers and orchestrators:
 *   GET /healthz  200 while the process serves requests at all;
 *   GET /readyz   200 when this instance can do its job: the database
 *                 answers and has every migration this binary embeds, and
 *                 Redis (when configured) answers; else 503 naming what is
 *                 wrong. A balancer stops sending traffic to a 503 instance.
 * Neither needs a credential nor reveals anything but these facts.
 */
import { Hono } from "hono";
import { migrations } from "../../db/migrations/index";
import type { Deps } from "../core/context";

async function checks(deps: Deps): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  try {
    const applied = new Set((await deps.store.query<{ tag: string }>("SELECT tag FROM _migrations")).map((r) => r.tag));
    const missing = migrations[deps.store.engine].filter((m) => !applied.has(m.tag)).length;
    out.database = missing ? `${missing} migration(s) not applied; run plinth migrate` : "ok";
  } catch (e) {
    out.database = `unreachable: ${e instanceof Error ? e.message.slice(0, 200) : "error"}`;
  }
  if (deps.redis) out.redis = deps.redis.status === "ready" ? "ok" : `not ready (${deps.redis.status})`;
  return out;
}

export function healthRoutes(deps: Deps) {
  const app = new Hono();
  app.get("/healthz", (c) => c.json({ status: "ok" }, 200, { "cache-control": "no-store" }));
  app.get("/readyz", async (c) => {
    const result = await checks(deps);
    const ready = Object.values(result).every((v) => v === "ok");
    return c.json({ status: ready ? "ready" : "not ready", checks: result }, ready ? 200 : 503, {
      "cache-control": "no-store",
    });
  });
  return app;
}
