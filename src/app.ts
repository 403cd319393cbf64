/**
 * The root Hono app: telemetry (request ids, access log, metrics; see
 * src/ops/telemetry.ts), one error mapper, and the mounts of every face of
 * Plinth (REST v1, MCP, OAuth, portal, approval pages, media files, health
 * and metrics).
 */
import { Hono } from "hono";
import { approvalRoutes } from "./approvals/routes";
import type { Deps } from "./core/context";
import { faviconRoutes } from "./core/favicon";
import { mediaFileRoutes } from "./domains/cms/media-files";
import { mcpRoutes, registryOf, withMcpFastPath } from "./mcp/routes";
import { rootErrorAnswer } from "./ops/errors";
import { healthRoutes } from "./ops/health";
import { metricsRoutes } from "./ops/metrics-routes";
import { Telemetry, type AccessRecord } from "./ops/telemetry";
import { rateLimiter } from "./core/limits";
import { oauthRoutes } from "./oauth/routes";
import { portalRoutes } from "./portal/routes";
import { restRoutes, withRestFastPath } from "./rest/routes";

export function createApp(deps: Deps, telemetry = new Telemetry({ log: null, trustProxy: false })) {
  const app = new Hono<{ Variables: { requestId: string; access: AccessRecord } }>();
  app.use(telemetry.middleware());
  const limiter = (name: "rest" | "mcp", perMinute: number) =>
    telemetry.countRefusals(rateLimiter(deps, name, perMinute), name);
  const rest = restRoutes(deps, { limiter: limiter("rest", deps.config.rateLimit) });
  app.route("/api/v1", rest);
  app.route("/", healthRoutes(deps));
  // The service's icon, which browsers ask for on every page (the public ones above all).
  app.route("/", faviconRoutes());
  app.route("/", metricsRoutes(deps, telemetry));
  const mcp = mcpRoutes(deps, registryOf(deps.catalog), { limiter: limiter("mcp", deps.config.mcpRateLimit) });
  app.route("/", mcp);
  app.route("/", oauthRoutes(deps));
  app.route("/approve", approvalRoutes(deps));
  app.route("/media", mediaFileRoutes(deps));
  // Domains' public pages (surveys, decks, booking pages…), each under its own prefix (checked by the registry).
  for (const p of deps.catalog.publicPages) app.route(p.prefix, p.routes(deps));
  app.route("/", portalRoutes(deps));

  // The last line of defence: sub-apps map their own errors to their wire
  // format; anything that reaches here still leaves as a clean response (src/ops/errors.ts).
  app.onError((e, c) => {
    const a = rootErrorAnswer(e, c.get("requestId"));
    return "response" in a ? a.response : c.json(a.body, a.status);
  });
  app.notFound((c) => c.json({ success: false, message: "Not found" }, 404));
  return withMcpFastPath(withRestFastPath(app, rest, telemetry), mcp, telemetry);
}
