import { describe, expect, test } from "bun:test";
import "../../src/catalog"; // the domains declare their settings (and scopes) when the catalog is built
import { ConfigError, loadConfig, parseFlags } from "../../src/config";

describe("config", () => {
  test("defaults", () => {
    const c = loadConfig({}, {});
    expect(c.port).toBe(8787);
    expect(c.host).toBe("127.0.0.1");
    expect(c.dataDir).toBe("./data");
    expect(c.publicUrl).toBe("http://127.0.0.1:8787");
    expect(c.rateLimit).toBe(600);
    expect(c.log).toBe("access");
    expect(c.trustProxy).toBe(false);
    expect(c.metricsToken).toBeNull();
    expect(c.metricsPort).toBeNull();
    expect(c.shutdownGraceMs).toBe(10_000);
    expect(c.memorySoftLimitMb).toBe(160);
  });
  test("memory soft limit: 0 turns the guard off, negatives and words are refused", () => {
    expect(loadConfig({}, { PLINTH_MEMORY_SOFT_LIMIT_MB: "0" }).memorySoftLimitMb).toBe(0);
    expect(loadConfig({ "memory-soft-limit-mb": "512" }, {}).memorySoftLimitMb).toBe(512);
    expect(() => loadConfig({}, { PLINTH_MEMORY_SOFT_LIMIT_MB: "-1" })).toThrow(
      "PLINTH_MEMORY_SOFT_LIMIT_MB must be a whole number",
    );
    expect(() => loadConfig({}, { PLINTH_MEMORY_SOFT_LIMIT_MB: "lots" })).toThrow(
      "PLINTH_MEMORY_SOFT_LIMIT_MB must be a whole number",
    );
  });
  test("AI history retention: 90 days unless set, 0 keeps everything, a day at least, 100 years at most", () => {
    expect(loadConfig({}, {}).aiHistoryDays).toBe(90);
    expect(loadConfig({}, { PLINTH_AI_HISTORY_DAYS: "0" }).aiHistoryDays).toBe(0);
    expect(loadConfig({ "ai-history-days": "1" }, { PLINTH_AI_HISTORY_DAYS: "30" }).aiHistoryDays).toBe(1);
    expect(loadConfig({}, { PLINTH_AI_HISTORY_DAYS: "36500" }).aiHistoryDays).toBe(36_500);
    expect(() => loadConfig({}, { PLINTH_AI_HISTORY_DAYS: "36501" })).toThrow(
      "PLINTH_AI_HISTORY_DAYS must be between 0 and 36500, got 36501",
    );
    for (const bad of ["-1", "1.5", "ninety", "9e1"])
      expect(() => loadConfig({}, { PLINTH_AI_HISTORY_DAYS: bad })).toThrow(ConfigError);
  });
  test("flags win over environment", () => {
    const { flags } = parseFlags(["--port", "9000", "--rate-limit=5"]);
    const c = loadConfig(flags, { PLINTH_PORT: "8000", PLINTH_RATE_LIMIT: "7" });
    expect(c.port).toBe(9000);
    expect(c.rateLimit).toBe(5);
    expect(c.publicUrl).toBe("http://127.0.0.1:9000");
  });
  test.each([
    [{}, "http://127.0.0.1:8787"],
    [{ PLINTH_HOST: "localhost" }, "http://localhost:8787"],
    [{ PLINTH_HOST: "::1" }, "http://[::1]:8787"],
    [{ PLINTH_HOST: "[::1]" }, "http://[::1]:8787"],
    [{ PLINTH_HOST: "192.0.2.7", PLINTH_PORT: "9000" }, "http://192.0.2.7:9000"],
    // Every interface is no address a client can use: localhost, and the start-up line says so.
    [{ PLINTH_HOST: "0.0.0.0" }, "http://localhost:8787"],
    [{ PLINTH_HOST: "::" }, "http://localhost:8787"],
    [{ PLINTH_HOST: "0.0.0.0", PLINTH_PUBLIC_URL: "https://cms.example.com/" }, "https://cms.example.com"],
  ])("the default public URL follows the bind host: %p → %s", (env, url) => {
    expect(loadConfig({}, env).publicUrl).toBe(url);
  });
  test("[::1] is listened on as ::1", () => {
    expect(loadConfig({}, { PLINTH_HOST: "[::1]" }).host).toBe("::1");
  });
  test("operability settings", () => {
    const c = loadConfig(
      { log: "off", "metrics-port": "9100", "shutdown-grace-ms": "2500", "trust-proxy": "1" },
      { PLINTH_METRICS_TOKEN: "0123456789abcdef" },
    );
    expect([c.log, c.metricsPort, c.shutdownGraceMs, c.trustProxy, c.metricsToken]).toEqual([
      "off",
      9100,
      2500,
      true,
      "0123456789abcdef",
    ]);
  });
  test.each([
    [{ PLINTH_PORT: "abc" }, /PLINTH_PORT/],
    [{ PLINTH_PORT: "70000" }, /PLINTH_PORT/],
    [{ PLINTH_RATE_LIMIT: "0" }, /PLINTH_RATE_LIMIT/],
    [{ PLINTH_RATE_LIMIT: "-3" }, /PLINTH_RATE_LIMIT/],
    [{ PLINTH_PUBLIC_URL: "not a url" }, /PLINTH_PUBLIC_URL/],
    [{ PLINTH_PUBLIC_URL: "ftp://x" }, /PLINTH_PUBLIC_URL/],
    [{ PLINTH_HOST: "a b" }, /PLINTH_HOST/],
    [{ PLINTH_LOG: "verbose" }, /PLINTH_LOG must be access or off/],
    [{ PLINTH_TRUST_PROXY: "yes" }, /PLINTH_TRUST_PROXY must be 1 or 0/],
    [{ PLINTH_METRICS_TOKEN: "short" }, /PLINTH_METRICS_TOKEN must be at least 16/],
    [{ PLINTH_METRICS_PORT: "http" }, /PLINTH_METRICS_PORT/],
    [{ PLINTH_SHUTDOWN_GRACE_MS: "-1" }, /PLINTH_SHUTDOWN_GRACE_MS/],
  ])("bad value %p fails naming the setting", (env, re) => {
    expect(() => loadConfig({}, env)).toThrow(ConfigError);
    expect(() => loadConfig({}, env)).toThrow(re);
  });
});
