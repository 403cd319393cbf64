/**
 * The test harness: a real Plinth server on a fresh temp data dir, listening
 * on a free loopback port, with a clock the test controls. Tests talk HTTP to
 * `url`; `deps` is there to seed fixtures through the same verbs production uses.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, type Config } from "../src/config";
import { ManualClock } from "../src/core/clock";
import { startServer, type RunningServer } from "../src/server";

export interface TestServer extends RunningServer {
  clock: ManualClock;
  dataDir: string;
  config: Config;
}

export async function startTestServer(
  opts: { seed?: boolean; config?: Partial<Config>; clock?: ManualClock } = {},
): Promise<TestServer> {
  const dataDir = mkdtempSync(join(tmpdir(), "plinth-test-"));
  const config = { ...loadConfig({}, {}), port: 0, dataDir, ...opts.config };
  if (!opts.config?.publicUrl) config.publicUrl = "http://localhost:0";
  const clock = opts.clock ?? new ManualClock(Date.now());
  const s = await startServer(config, { clock, seed: opts.seed });
  return {
    ...s,
    clock,
    dataDir,
    config,
    async stop() {
      await s.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
