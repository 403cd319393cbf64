/**
 * Starting Plinth: open the store, migrate, seed the demo site into an empty
 * data dir, and serve. Tests call startServer() with port 0 and a ManualClock.
 */
import { createApp } from "./app";
import type { Config } from "./config";
import type { Clock } from "./core/clock";
import type { Deps } from "./core/context";
import { openDeps } from "./core/open";
import { AppError } from "./core/errors";
import { isEmpty, seedDemo, type DemoCredentials } from "../db/seed/demo";

export interface RunningServer {
  url: string;
  port: number;
  deps: Deps;
  /** Set when this start seeded the demo site (first start on an empty data dir). */
  demo: DemoCredentials | null;
  stop(): Promise<void>;
}

export async function startServer(
  config: Config,
  opts: { clock?: Clock; seed?: boolean } = {},
): Promise<RunningServer> {
  const deps = await openDeps(config, { clock: opts.clock });
  let demo: DemoCredentials | null = null;
  if (opts.seed !== false && (await isEmpty(deps))) {
    // Instances started together on one empty database race to seed it: one wins, the others find it seeded.
    demo = await seedDemo(deps).catch((e) => {
      if (e instanceof AppError && e.code === "conflict") return null;
      throw e;
    });
  }
  const app = createApp(deps);
  const server = Bun.serve({
    port: config.port,
    hostname: config.host,
    fetch: app.fetch,
    // Large media uploads arrive base64 inside JSON-RPC; allow the configured size plus overhead.
    maxRequestBodySize: Math.ceil(config.maxUploadBytes * 1.4) + 1024 * 1024,
  });
  const port = server.port!;
  // A public URL given by config wins; otherwise the address we really listen on.
  if (config.port === 0 && config.publicUrl === "http://localhost:0") config.publicUrl = `http://localhost:${port}`;
  return {
    url: `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`,
    port,
    deps,
    demo,
    async stop() {
      await server.stop(true);
      await deps.close();
    },
  };
}
